//! One module per subcommand: each has its clap `Args` and a `run` function.

use std::path::PathBuf;

pub mod audit;
pub mod bash;
pub mod explain;
pub mod hook;
pub mod imports;
pub mod lint;
pub mod paths;
pub mod replay;
pub mod startup;
pub mod stats;
pub mod why;

/// The clap value parser of every path argument: an empty one is a usage
/// error (exit 2), not a path that is looked up and found missing.
pub fn non_empty_path(value: &str) -> Result<PathBuf, String> {
    if value.is_empty() {
        Err("empty path".to_owned())
    } else {
        Ok(PathBuf::from(value))
    }
}
