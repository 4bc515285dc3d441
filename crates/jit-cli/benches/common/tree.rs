//! The realistic tree the command-line benchmarks run on: 20,000 files in 2,000 directories with rules on the chain, `@` imports and scoped rules.

use std::fs;
use std::path::Path;

pub(crate) const PACKAGES: usize = 40;
pub(crate) const SUBS: usize = 50;
pub(crate) const FILES_PER_DIR: usize = 10;
/// A depth-8 directory with a rule at every level.
pub(crate) const DEEP: &str = "pkg07/sub07/a/b/c/d/e/f";

pub(crate) fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Writes the tree under `root`: `pkgNN/subNN/fileN.ts` (40 × 50 × 10), a
/// `CLAUDE.md` in each package and in every 40th sub-directory, a rule at
/// every level of [`DEEP`], a root `CLAUDE.md` with four `@` imports, and a
/// dozen scoped rules in `.claude/rules`. Returns (files, directories).
pub(crate) fn ruled_tree(root: &Path) -> (usize, usize) {
    let (mut files, mut dirs) = (0, 0);
    for p in 0..PACKAGES {
        for s in 0..SUBS {
            let sub = root.join(format!("pkg{p:02}/sub{s:02}"));
            dirs += 1;
            for f in 0..FILES_PER_DIR {
                write(&sub.join(format!("file{f}.ts")), "export const x = 1;\n");
                files += 1;
            }
            if (p * SUBS + s).is_multiple_of(40) {
                write(
                    &sub.join("CLAUDE.md"),
                    &format!("Rules of pkg{p:02}/sub{s:02}.\n"),
                );
            }
        }
        write(
            &root.join(format!("pkg{p:02}/CLAUDE.md")),
            &format!("# pkg{p:02}\n\nKeep modules small.\n"),
        );
    }
    // The deep chain: a rule at every level.
    let mut level = root.join("pkg07/sub07");
    for name in ["a", "b", "c", "d", "e", "f"] {
        level.push(name);
        write(
            &level.join("CLAUDE.md"),
            &format!("Rules of level {name}.\n"),
        );
        write(&level.join("mod.ts"), "export {};\n");
    }
    write(
        &root.join("CLAUDE.md"),
        "# Project\n\nSee @docs/style.md, @docs/testing.md, @docs/review.md and @docs/release.md.\n",
    );
    for doc in ["style", "testing", "review", "release"] {
        write(
            &root.join(format!("docs/{doc}.md")),
            &format!("# {doc}\n\n{}\n", "A sentence of guidance. ".repeat(20)),
        );
    }
    for (i, glob) in [
        "pkg0*/**/*.ts",
        "pkg1*/**/*.ts",
        "**/*.py",
        "**/*.sql",
        "docs/**",
        "pkg07/sub07/**/*.ts",
        "**/*.tsx",
        "**/*.rs",
        "pkg2*/**",
        "**/test/**",
        "scripts/**",
        "pkg07/**/mod.ts",
    ]
    .iter()
    .enumerate()
    {
        write(
            &root.join(format!(".claude/rules/rule{i:02}.md")),
            &format!("---\npaths: [\"{glob}\"]\n---\nScoped rule {i} for {glob}.\n"),
        );
    }
    (files, dirs)
}
