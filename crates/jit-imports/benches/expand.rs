//! Benchmarks: expanding a root rule file with three imports (one of them nested), and extraction alone;
//! then the hostile shapes whose cost must grow linearly: a deep import chain and a run of `(@#`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the benchmark loudly"
)]

use std::fs;
use std::path::PathBuf;

use jit_imports::{ImportStatus, Policy, expand, extract};

fn main() {
    divan::main();
}

/// The root rule file: Chinese prose, three imports, one inside a code span that must be skipped.
const ROOT: &str = "# 项目规则\n\n\
见 @NOTE.md，然后继续。\n\
代码风格详见「@docs/style.md」。\n\
タスクは@docs/TODO.mdで確認\n\
不要展开 `@secret.md`，也不要联系 user@example.com。\n";

/// A project in a temporary directory: `CLAUDE.md` imports `NOTE.md`, `docs/style.md`
/// and `docs/TODO.md`; `docs/style.md` imports `naming.md` (the nested one).
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    file: PathBuf,
}

fn project() -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let write = |rel: &str, text: &str| {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    write("CLAUDE.md", ROOT);
    write(
        "NOTE.md",
        "- 提交前运行 `cargo test`。\n- Keep functions short.\n",
    );
    write(
        "docs/style.md",
        "# Style\n\nNames follow @naming.md.\nComments are full sentences.\n",
    );
    write(
        "docs/naming.md",
        "snake_case for functions, CamelCase for types.\n",
    );
    write("docs/TODO.md", "- [ ] write the changelog\n");
    let file = root.join("CLAUDE.md");
    Project {
        _dir: dir,
        root,
        file,
    }
}

#[divan::bench]
fn expand_three_imports_one_nested(bencher: divan::Bencher) {
    let project = project();
    let policy = Policy::default();
    let check = expand(&project.file, ROOT, &project.root, &policy);
    let ok = check
        .imports
        .iter()
        .filter(|r| r.status == ImportStatus::Ok)
        .count();
    assert_eq!(
        ok, 4,
        "three imports and one nested one: {:?}",
        check.imports
    );
    bencher.bench(|| {
        expand(
            divan::black_box(&project.file),
            divan::black_box(ROOT),
            &project.root,
            &policy,
        )
    });
}

#[divan::bench]
fn extract_root_file() -> usize {
    extract(divan::black_box(ROOT)).len()
}

/// A chain `c0.md` → `c1.md` → … of `depth` files, each a line of text and one import.
fn chain(depth: usize) -> Project {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..depth {
        let text = format!("Rule {i}: keep it short. Then @c{}.md\n", i + 1);
        fs::write(root.join(format!("c{i}.md")), text).unwrap();
    }
    let file = root.join("CLAUDE.md");
    Project {
        _dir: dir,
        root,
        file,
    }
}

/// Expanding a chain as deep as its length: four times deeper should cost about four
/// times more (each file is read once and its text written once), not sixteen.
#[divan::bench(args = [250, 1000, 4000])]
fn expand_chain(bencher: divan::Bencher, depth: usize) {
    let project = chain(depth);
    let policy = Policy::default()
        .with_max_depth(depth)
        .with_max_imports(depth + 1);
    let check = expand(&project.file, "@c0.md", &project.root, &policy);
    assert_eq!(check.imports.len(), depth + 1, "the last import is missing");
    assert_eq!(check.included().count(), depth);
    bencher.bench(|| {
        expand(
            divan::black_box(&project.file),
            "@c0.md",
            &project.root,
            &policy,
        )
    });
}

/// Extracting from a run of `(@#`, each `@` a token turned down: linear in the run.
#[divan::bench(args = [1000, 4000, 16000])]
fn extract_turned_down_run(bencher: divan::Bencher, units: usize) {
    let text = "(@#".repeat(units);
    bencher.bench(|| extract(divan::black_box(&text)).len());
}
