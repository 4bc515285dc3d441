//! One module per subcommand: each has its clap `Args` and a `run` function.

use std::path::PathBuf;

pub(crate) mod audit;
pub(crate) mod bash;
pub(crate) mod explain;
pub(crate) mod hook;
pub(crate) mod imports;
pub(crate) mod lint;
pub(crate) mod paths;
pub(crate) mod replay;
pub(crate) mod startup;
pub(crate) mod stats;
pub(crate) mod why;

/// The clap value parser of every path argument: an empty one is a usage
/// error (exit 2), not a path that is looked up and found missing.
pub(crate) fn non_empty_path(value: &str) -> Result<PathBuf, String> {
    if value.is_empty() {
        Err("empty path".to_owned())
    } else {
        Ok(PathBuf::from(value))
    }
}
