//! One module per subcommand: each has its clap `Args` and a `run` function.

pub mod bash;
pub mod explain;
pub mod hook;
pub mod imports;
pub mod paths;
pub mod startup;
pub mod stats;
