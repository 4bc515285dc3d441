//! Extraction time: each typical agent command on its own, the whole corpus, and a 10 KB script of here-documents.
//!
//! Run with `cargo bench -p jit-bash --bench extract`. The corpus is the
//! snapshot case file `tests/cases/agent_commands.txt`, so the benchmark and
//! the tests measure and check the same commands.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark setup failure should stop loudly"
)]

use std::fmt;

use divan::counter::{BytesCount, ItemsCount};
use divan::{Bencher, black_box};

fn main() {
    divan::main();
}

/// One command of the corpus, named by its number and first line.
#[derive(Debug, Clone, Copy)]
struct Case {
    number: usize,
    command: &'static str,
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = self.command.lines().next().unwrap_or("");
        let short: String = first.chars().take(40).collect();
        write!(f, "{:02} {short}", self.number)
    }
}

/// The commands of the case file, in the same block format as the tests:
/// one per line, or several lines between `>>>` and `<<<`.
fn corpus() -> Vec<Case> {
    let text = include_str!("../tests/cases/agent_commands.txt");
    let mut commands: Vec<&'static str> = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    for line in text.lines() {
        match (&mut block, line) {
            (None, ">>>") => block = Some(Vec::new()),
            (Some(lines), "<<<") => {
                commands.push(Box::leak(lines.join("\n").into_boxed_str()));
                block = None;
            }
            (Some(lines), _) => lines.push(line),
            (None, _) if line.is_empty() || line.starts_with('#') => {}
            (None, _) => commands.push(line),
        }
    }
    commands
        .into_iter()
        .enumerate()
        .map(|(number, command)| Case { number, command })
        .collect()
}

/// Each command alone: the per-command median is what the p50 target is about.
#[divan::bench(args = corpus())]
fn agent_command(case: Case) -> jit_bash::Analysis {
    jit_bash::written_paths(black_box(case.command))
}

/// The whole corpus in one pass, counted per command.
#[divan::bench]
fn whole_corpus(bencher: Bencher) {
    let corpus = corpus();
    bencher.counter(ItemsCount::new(corpus.len())).bench(|| {
        for case in &corpus {
            black_box(jit_bash::written_paths(black_box(case.command)));
        }
    });
}

/// A script of at least 10 KB made of here-documents and the commands around
/// them, as an agent writes when it scaffolds several files in one call.
fn heredoc_script() -> String {
    let mut script = String::new();
    let mut n = 0;
    while script.len() < 10 * 1024 {
        script.push_str(&format!(
            "mkdir -p src/gen/m{n}\n\
             cat > src/gen/m{n}/index.ts <<'EOF'\n\
             // Generated module {n}; $HOME and `backticks` are data here.\n\
             export const value{n} = {{\n  id: {n},\n  name: \"module {n}\",\n  tags: [\"a\", \"b\"],\n}};\n\
             export function get{n}(): number {{\n  return value{n}.id * 2;\n}}\n\
             EOF\n\
             sed -i 's/module/mod/' src/gen/m{n}/index.ts\n\
             echo \"wrote m{n}\" >> build/scaffold.log\n"
        ));
        n += 1;
    }
    script
}

#[divan::bench]
fn heredoc_script_10kb(bencher: Bencher) {
    let script = heredoc_script();
    let analysis = jit_bash::written_paths(&script);
    assert!(
        analysis.skipped.is_empty() && analysis.paths.len() > 50,
        "the script should parse and write its files: {analysis:?}"
    );
    bencher
        .counter(BytesCount::of_str(&script))
        .bench(|| jit_bash::written_paths(black_box(&script)));
}
