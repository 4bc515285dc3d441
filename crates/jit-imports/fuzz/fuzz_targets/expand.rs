//! Fuzz target: expanding arbitrary text in a small hostile project never panics, never blocks,
//! and reports every import it met with a consistent status.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use jit_imports::{ImportStatus, Policy, expand};
use libfuzzer_sys::fuzz_target;

/// One project for the whole run (creating one per input would dominate the
/// time): text files that import each other in a cycle, a duplicate, a file
/// over the size cap, a binary file, a directory, a named pipe, a link to the
/// pipe and a link out of the project.
fn project() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = std::env::temp_dir().join(format!("jit-imports-fuzz-{}", std::process::id()));
        let root = base.join("proj");
        let _ = std::fs::create_dir_all(root.join("docs"));
        let files: [(&str, &[u8]); 6] = [
            ("NOTE.md", b"note, see @a.md and @docs/TODO.md\n"),
            ("a.md", b"a imports @b.md and @NOTE.md\n"),
            ("b.md", b"b imports @a.md, @big.md and @bin.md\n"),
            ("docs/TODO.md", b"todo @../NOTE.md @pipe.md @../pipe.md\n"),
            ("big.md", &[b'x'; 300]),
            ("bin.md", b"\x7fELF\x00\x01"),
        ];
        for (rel, content) in files {
            let _ = std::fs::write(root.join(rel), content);
        }
        let _ = std::fs::write(base.join("outside.md"), "outside\n");
        let _ = std::process::Command::new("mkfifo")
            .arg(root.join("pipe.md"))
            .status();
        let _ = std::os::unix::fs::symlink("pipe.md", root.join("pipe-link.md"));
        let _ = std::os::unix::fs::symlink("../outside.md", root.join("out-link.md"));
        root
    })
}

fuzz_target!(|text: &str| {
    let root = project();
    let policy = Policy::default().with_max_file_bytes(256);
    let out = expand(&root.join("CLAUDE.md"), text, root, &policy);
    let failed = out
        .imports
        .iter()
        .filter(|r| r.status != ImportStatus::Ok)
        .count();
    assert_eq!(out.diagnostics.len(), failed);
    assert!(out.imports.len() <= policy.max_imports() + 1);
    for record in &out.imports {
        assert_eq!(
            record.reason.is_some(),
            record.status == ImportStatus::Refused
        );
        assert!(record.depth >= 1 && record.depth <= policy.max_depth() + 1);
    }
    if failed == out.imports.len() {
        assert_eq!(out.expanded, text);
    }
    // Only the six small files can be read, each at most once and at most cap + 1 bytes.
    assert!(out.bytes_read <= 6 * 257, "{}", out.bytes_read);
});
