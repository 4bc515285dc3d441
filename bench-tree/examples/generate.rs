//! Writes a benchmark tree to a directory, to look at or profile by hand.
//!
//! ```text
//! cargo run --release -p bench-tree --example generate -- DIR [20k|100k] [--git] [--unscoped]
//! ```
//!
//! Prints the tree's deep file and sibling, root-relative.
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next().map(PathBuf::from) else {
        eprintln!("usage: generate DIR [20k|100k] [--git] [--unscoped]");
        std::process::exit(2);
    };
    let mut spec = bench_tree::Spec::monorepo_20k();
    for arg in args {
        match arg.as_str() {
            "20k" => {
                spec = bench_tree::Spec {
                    git: spec.git,
                    scoped_rules: spec.scoped_rules,
                    ..bench_tree::Spec::monorepo_20k()
                }
            }
            "100k" => {
                spec = bench_tree::Spec {
                    git: spec.git,
                    scoped_rules: spec.scoped_rules,
                    ..bench_tree::Spec::monorepo_100k()
                }
            }
            "--git" => spec = spec.with_git(),
            "--unscoped" => spec = spec.without_scoped_rules(),
            other => {
                eprintln!("unknown argument {other}");
                std::process::exit(2);
            }
        }
    }
    let tree = bench_tree::generate(&dir, &spec)?;
    println!("root {}", tree.root.display());
    println!("deep_file {}", tree.deep_file);
    println!("sibling_file {}", tree.sibling_file);
    Ok(())
}
