//! Benchmarks: expanding a root rule file with three imports (one of them nested), and extraction alone.
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
