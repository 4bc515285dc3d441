//! Hostile projects: named pipes, devices, sparse giants, deep chains and floods of imports.
//! Every case asserts the outcome and its named reason, and how much was read.
#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use jit_imports::{
    DEFAULT_MAX_FILE_BYTES, ErrorKind, Expansion, ImportStatus, Policy, RefusalReason, expand,
    expand_file,
};

/// A temporary project; `root` is its real path.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        Project { _dir: dir, root }
    }

    fn write(&self, rel: &str, text: &str) {
        fs::write(self.root.join(rel), text).unwrap();
    }

    fn fifo(&self, rel: &str) -> PathBuf {
        let path = self.root.join(rel);
        let status = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success(), "mkfifo {}", path.display());
        path
    }

    fn expand(&self, text: &str, policy: &Policy) -> Expansion {
        expand(&self.root.join("CLAUDE.md"), text, &self.root, policy)
    }
}

/// Checks that the only import of `out` was refused for `reason`, with `needle` in its message.
#[track_caller]
fn check_refused(out: &Expansion, reason: RefusalReason, needle: &str) {
    assert_eq!(out.imports.len(), 1, "{:?}", out.imports);
    let record = &out.imports[0];
    assert_eq!(record.status, ImportStatus::Refused, "{record:?}");
    assert_eq!(record.reason, Some(reason), "{record:?}");
    assert_eq!(out.diagnostics.len(), 1);
    let diagnostic = &out.diagnostics[0];
    assert_eq!(diagnostic.reason, Some(reason));
    assert!(
        diagnostic.message.contains(needle),
        "{needle:?} not in {diagnostic}"
    );
    assert!(
        diagnostic
            .to_string()
            .contains(&format!("refused ({reason})")),
        "{diagnostic}"
    );
}

#[test]
fn an_imported_named_pipe_is_refused_without_blocking() {
    let project = Project::new();
    let pipe = project.fifo("pipe.md");
    let out = project.expand("see @pipe.md", &Policy::default());
    check_refused(&out, RefusalReason::NotRegularFile, "a named pipe");
    assert_eq!(out.imports[0].resolved.as_deref(), Some(pipe.as_path()));
    assert_eq!(out.expanded, "see @pipe.md");
    assert_eq!(out.bytes_read, 0);
}

#[test]
fn an_import_swapped_for_a_named_pipe_between_expansions_is_refused() {
    let project = Project::new();
    project.write("NOTE.md", "note\n");
    let first = project.expand("@NOTE.md", &Policy::default());
    assert_eq!(first.imports[0].status, ImportStatus::Ok);
    assert_eq!(first.bytes_read, 5);

    fs::remove_file(project.root.join("NOTE.md")).unwrap();
    project.fifo("NOTE.md");
    let second = project.expand("@NOTE.md", &Policy::default());
    check_refused(&second, RefusalReason::NotRegularFile, "a named pipe");
    assert_eq!(second.bytes_read, 0);

    fs::remove_file(project.root.join("NOTE.md")).unwrap();
    project.write("NOTE.md", "note again\n");
    let third = project.expand("@NOTE.md", &Policy::default());
    assert_eq!(third.imports[0].status, ImportStatus::Ok);
    assert!(third.expanded.contains("note again"), "{}", third.expanded);
}

#[test]
fn a_link_to_a_named_pipe_is_refused_as_the_pipe() {
    let project = Project::new();
    let pipe = project.fifo("pipe.md");
    symlink("pipe.md", project.root.join("link.md")).unwrap();
    let out = project.expand("@link.md", &Policy::default());
    check_refused(&out, RefusalReason::NotRegularFile, "a named pipe");
    assert_eq!(out.imports[0].resolved.as_deref(), Some(pipe.as_path()));
    assert_eq!(out.bytes_read, 0);
}

#[test]
fn a_link_to_dev_zero_is_outside_the_root_and_a_device_when_allowed() {
    let project = Project::new();
    symlink("/dev/zero", project.root.join("zero.md")).unwrap();
    let out = project.expand("@zero.md", &Policy::default());
    assert_eq!(out.imports[0].status, ImportStatus::OutsideRoot);
    assert_eq!(out.imports[0].reason, None);

    let anywhere = Policy::default().with_allow_outside_root(true);
    let out = project.expand("@zero.md", &anywhere);
    check_refused(&out, RefusalReason::NotRegularFile, "a device");
    assert_eq!(out.bytes_read, 0, "an endless device is never read");
}

#[test]
fn a_sparse_gigabyte_import_is_refused_by_size_without_reading() {
    let project = Project::new();
    let big = fs::File::create(project.root.join("big.md")).unwrap();
    big.set_len(1 << 30).unwrap();
    let out = project.expand("@big.md", &Policy::default());
    check_refused(
        &out,
        RefusalReason::TooLarge,
        &format!("1073741824 bytes, over the cap of {DEFAULT_MAX_FILE_BYTES}"),
    );
    assert_eq!(out.bytes_read, 0);
}

#[test]
fn a_file_at_the_cap_is_read_and_one_byte_over_is_not() {
    let project = Project::new();
    project.write("at.md", "12345678");
    project.write("over.md", "123456789");
    let policy = Policy::default().with_max_file_bytes(8);
    let out = project.expand("@at.md", &policy);
    assert_eq!(out.imports[0].status, ImportStatus::Ok);
    assert_eq!(out.bytes_read, 8);
    let out = project.expand("@over.md", &policy);
    check_refused(&out, RefusalReason::TooLarge, "9 bytes, over the cap of 8");
    assert_eq!(out.bytes_read, 0);
}

#[test]
fn a_refused_file_imported_again_and_again_is_read_once() {
    let project = Project::new();
    fs::write(project.root.join("bin.md"), b"\x7fELF\x00\x01").unwrap();
    let text = "@bin.md ".repeat(500);
    let out = project.expand(&text, &Policy::default());
    assert_eq!(out.imports.len(), 500);
    assert!(
        out.imports
            .iter()
            .all(|r| r.reason == Some(RefusalReason::Binary))
    );
    assert_eq!(out.diagnostics.len(), 500);
    assert_eq!(out.bytes_read, 6, "the binary file is read once");
    assert_eq!(out.expanded, text);
}

#[test]
fn the_import_limit_refuses_the_rest_by_name() {
    let project = Project::new();
    // Nested: the limit counts the imports of every file of the expansion.
    project.write("NOTE.md", "@a.md @b.md @c.md\n");
    let policy = Policy::default().with_max_imports(3);
    let out = project.expand("@NOTE.md @x.md @y.md", &policy);
    let statuses: Vec<(&str, ImportStatus, Option<RefusalReason>)> = out
        .imports
        .iter()
        .map(|r| (r.target.as_str(), r.status, r.reason))
        .collect();
    assert_eq!(
        statuses,
        [
            ("NOTE.md", ImportStatus::Ok, None),
            ("a.md", ImportStatus::Missing, None),
            ("b.md", ImportStatus::Missing, None),
            (
                "c.md",
                ImportStatus::Refused,
                Some(RefusalReason::TooManyImports)
            ),
        ]
    );
    let last = out.diagnostics.last().unwrap();
    assert!(
        last.message
            .contains("already followed 3 imports, the limit; this one and the 2 after it"),
        "{last}"
    );
    // The rest stay as written, the inlined file is still closed.
    assert_eq!(
        out.expanded,
        "<!-- import: NOTE.md -->\n@a.md @b.md @c.md\n<!-- end import: NOTE.md --> @x.md @y.md"
    );
}

#[test]
fn a_flood_of_imports_stops_at_the_default_limit() {
    let project = Project::new();
    let text: String = (0..5_000).map(|i| format!("@n{i}.md ")).collect();
    let out = project.expand(&text, &Policy::default());
    assert_eq!(out.imports.len(), jit_imports::DEFAULT_MAX_IMPORTS + 1);
    let last = out.imports.last().unwrap();
    assert_eq!(last.reason, Some(RefusalReason::TooManyImports));
    assert_eq!(
        last.target,
        format!("n{}.md", jit_imports::DEFAULT_MAX_IMPORTS)
    );
    assert_eq!(out.expanded, text);
}

/// Writes `c0.md` … `c{n-1}.md`, each importing the next; the last imports nothing.
fn chain(project: &Project, n: usize) {
    for i in 0..n {
        let text = if i + 1 < n {
            format!("c{i} then @c{}.md\n", i + 1)
        } else {
            format!("c{i} ends\n")
        };
        project.write(&format!("c{i}.md"), &text);
    }
}

/// Expands `@c0.md` on a thread with a small stack: a recursive expansion would overflow it.
fn expand_chain(project: &Project, policy: Policy) -> Expansion {
    let root = project.root.clone();
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || expand(&root.join("CLAUDE.md"), "@c0.md", &root, &policy))
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn a_twenty_thousand_deep_chain_returns_with_its_depth_outcome() {
    const N: usize = 20_000;
    let project = Project::new();
    chain(&project, N);
    let deep = Policy::default()
        .with_max_depth(100_000)
        .with_max_imports(100_000);
    let out = expand_chain(&project, deep);
    assert_eq!(out.imports.len(), N);
    assert!(out.imports.iter().all(|r| r.status == ImportStatus::Ok));
    assert_eq!(out.imports.last().unwrap().depth, N);
    assert_eq!(out.expanded.matches("<!-- end import: ").count(), N);
    assert!(
        out.expanded
            .starts_with("<!-- import: c0.md -->\nc0 then <!-- import: c1.md -->\n")
    );
    let innermost = format!(
        "c{} then <!-- import: c{}.md -->\nc{} ends\n<!-- end import: c{}.md -->\n<!-- end import: c{}.md -->\n",
        N - 2,
        N - 1,
        N - 1,
        N - 1,
        N - 2
    );
    assert!(out.expanded.contains(&innermost));
    assert!(
        out.expanded
            .ends_with("<!-- end import: c1.md -->\n<!-- end import: c0.md -->")
    );
    // Every file is read once: the I/O is the size of the chain.
    let total: u64 = (0..N)
        .map(|i| {
            fs::metadata(project.root.join(format!("c{i}.md")))
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(out.bytes_read, total);
    // The first record's bytes are everything inlined below it, read once.
    assert!(out.imports[0].bytes < out.expanded.len());

    let short = Policy::default()
        .with_max_depth(N - 1)
        .with_max_imports(100_000);
    let out = expand_chain(&project, short);
    assert_eq!(out.imports.len(), N);
    let last = out.imports.last().unwrap();
    assert_eq!((last.status, last.depth), (ImportStatus::TooDeep, N));
    assert_eq!(out.diagnostics.len(), 1);
    assert!(
        out.diagnostics[0]
            .message
            .contains(&format!("is {N} imports deep, over the limit of {}", N - 1)),
        "{}",
        out.diagnostics[0]
    );
}

#[test]
fn a_long_cycle_is_named_in_a_bounded_message() {
    let project = Project::new();
    chain(&project, 40);
    project.write("c39.md", "back to @c0.md\n");
    let policy = Policy::default().with_max_depth(100);
    let out = project.expand("@c0.md", &policy);
    let cycle = out.diagnostics.last().unwrap();
    assert_eq!(cycle.status, ImportStatus::Cycle);
    let shown = jit_imports::MAX_CYCLE_CHAIN_SHOWN;
    assert_eq!(cycle.message.matches(".md").count(), shown, "{cycle}");
    // 41 files on the chain (CLAUDE.md, c0 … c39) and c0.md again.
    assert!(
        cycle
            .message
            .contains(&format!("… ({} more) …", 42 - shown)),
        "{cycle}"
    );
    assert!(
        cycle.message.ends_with("c38.md → c39.md → c0.md"),
        "{cycle}"
    );
}

#[test]
fn expand_file_refuses_a_named_pipe_and_follows_a_link() {
    let project = Project::new();
    let pipe = project.fifo("pipe.md");
    let err = expand_file(&pipe, &project.root, &Policy::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotRegularFile);
    assert!(err.to_string().contains("a named pipe"), "{err}");

    project.write("AGENTS.md", "rules\n");
    symlink("AGENTS.md", project.root.join("CLAUDE.md")).unwrap();
    let out = expand_file(
        &project.root.join("CLAUDE.md"),
        &project.root,
        &Policy::default(),
    )
    .unwrap();
    assert_eq!(out.expanded, "rules\n");

    fs::write(project.root.join("nul.md"), b"a\x00b").unwrap();
    let err = expand_file(
        &project.root.join("nul.md"),
        &project.root,
        &Policy::default(),
    )
    .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Binary);
    let err = expand_file(Path::new(&project.root), &project.root, &Policy::default()).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotRegularFile);
}

/// A path that cannot be resolved for another reason than being absent
/// (here a link loop) is refused as unreadable, not reported missing.
#[test]
fn an_import_through_a_link_loop_is_refused_as_unreadable() {
    let project = Project::new();
    symlink("loop.md", project.root.join("loop.md")).unwrap();
    let out = project.expand("@loop.md", &Policy::default());
    check_refused(&out, RefusalReason::Unreadable, "cannot resolve");
}

/// The retry without glued CJK text is for a target that is missing only:
/// one that exists but may not be imported keeps its own outcome, and a
/// retry that finds the shortened target outside the root reports that.
#[test]
fn only_a_missing_target_is_tried_again_without_its_glued_cjk_text() {
    let project = Project::new();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("x.md"), "outside").unwrap();
    project.write("kept.md", "inside");
    symlink(
        outside.path().join("x.md"),
        project.root.join("kept.md確認"),
    )
    .unwrap();
    let out = project.expand("@kept.md確認", &Policy::default());
    assert_eq!(out.imports.len(), 1, "{:?}", out.imports);
    assert_eq!(out.imports[0].status, ImportStatus::OutsideRoot);
    assert_eq!(out.imports[0].target, "kept.md確認");

    symlink(outside.path().join("x.md"), project.root.join("out.md")).unwrap();
    let out = project.expand("@out.md確認", &Policy::default());
    assert_eq!(out.imports.len(), 1, "{:?}", out.imports);
    assert_eq!(out.imports[0].status, ImportStatus::OutsideRoot);
    assert_eq!(out.imports[0].target, "out.md");
}
