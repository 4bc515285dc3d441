//! One module per subcommand: each has its clap `Args` and a `run` function.

use std::path::PathBuf;

use anyhow::Context as _;
use camino::Utf8Path;

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

/// Checks, before a command runs, that its `--events FILE` can take the
/// events: it is opened for appending (created when missing) as the
/// session's writer opens it. A path that cannot be written (a missing
/// folder, a device such as `/dev/full`, a named pipe, no permission) is
/// an error at once, naming the path and why, instead of a run whose
/// events are lost.
pub(crate) fn events_file(path: &Utf8Path) -> anyhow::Result<()> {
    jit_core::open_append(path.as_std_path())
        .map(drop)
        .with_context(|| format!("cannot write the event log {path} (--events)"))
}

/// An error when `session` could not write its events to the log
/// `--events` asked for (a disk that filled up during the run): an output
/// asked for and not written is a failure of the command, not a warning.
pub(crate) fn events_written(session: &jit_core::Session) -> anyhow::Result<()> {
    match session.event_log_error() {
        Some(err) => anyhow::bail!("{err} (--events)"),
        None => Ok(()),
    }
}
