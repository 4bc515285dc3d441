//! Data-driven snapshot tests: extraction of `tests/extract/*.md`, expansion of `tests/expand/*.case`
//! fixture trees, and every line of `tests/forms/*.txt` expanded against one fixture project.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use jit_imports::{Expansion, Policy, expand, extract};

/// Renders every import `extract` finds in `text`, one per line.
fn render_extract(text: &str) -> String {
    let mut out = String::new();
    for import in extract(text) {
        let fragment = import
            .fragment
            .as_deref()
            .map(|f| format!("  #{f}"))
            .unwrap_or_default();
        writeln!(
            out,
            "{}:{}..{}  {:?} → {:?}{fragment}",
            import.line, import.range.start, import.range.end, import.raw, import.target
        )
        .unwrap();
        assert_eq!(
            &text[import.range.clone()],
            import.raw,
            "range must slice the raw token"
        );
    }
    if out.is_empty() {
        out.push_str("(no imports)\n");
    }
    out
}

#[test]
fn extract_cases() {
    insta::glob!("extract/*.md", |path| {
        let text = fs::read_to_string(path).unwrap();
        insta::assert_snapshot!(render_extract(&text));
    });
}

/// A fixture tree under a temporary directory `$T`; the project root is `$T/proj`
/// and the home directory `$T/home`.
struct Fixture {
    _dir: tempfile::TempDir,
    /// Real path of the temporary directory, so that reported real paths can be shortened to `$T`.
    base: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        fs::create_dir_all(base.join("proj")).unwrap();
        fs::create_dir_all(base.join("home")).unwrap();
        Fixture { _dir: dir, base }
    }

    fn write(&self, rel: &str, content: &[u8]) {
        let path = self.base.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn root(&self) -> PathBuf {
        self.base.join("proj")
    }

    /// Replaces the temporary directory's path with `$T` so snapshots are stable.
    fn shorten(&self, text: &str) -> String {
        text.replace(self.base.to_str().unwrap(), "$T")
    }

    fn render(&self, policy_line: &str, out: &Expansion) -> String {
        let mut s = String::new();
        writeln!(s, "policy: {policy_line}").unwrap();
        writeln!(s, "imports:").unwrap();
        for r in &out.imports {
            let resolved = r
                .resolved
                .as_deref()
                .map(|p| self.shorten(&p.display().to_string()))
                .unwrap_or_else(|| "-".to_owned());
            let duplicate = if r.duplicate { " duplicate" } else { "" };
            let reason = r.reason.map(|r| format!(" reason={r}")).unwrap_or_default();
            writeln!(
                s,
                "  - {}:{} {:?} target={:?} status={}{reason}{duplicate} depth={} bytes={} resolved={resolved}",
                self.shorten(&r.from.display().to_string()),
                r.line,
                r.raw,
                r.target,
                r.status,
                r.depth,
                r.bytes,
            )
            .unwrap();
        }
        writeln!(s, "diagnostics:").unwrap();
        for d in &out.diagnostics {
            writeln!(s, "  - {}", self.shorten(&d.to_string())).unwrap();
        }
        writeln!(s, "expanded:").unwrap();
        for line in out.expanded.split('\n') {
            writeln!(s, "  | {line}").unwrap();
        }
        self.shorten(&s)
    }
}

/// Parses `policy: a b=1 …` into a policy whose home directory is `$T/home`.
fn policy_from(line: &str, fixture: &Fixture) -> Policy {
    let mut policy = Policy::default().with_home_dir(Some(fixture.base.join("home")));
    for word in line.split_whitespace() {
        policy = match word.split_once('=') {
            Some(("max_depth", n)) => policy.with_max_depth(n.parse().unwrap()),
            Some(("max_file_bytes", n)) => policy.with_max_file_bytes(n.parse().unwrap()),
            None if word == "allow_outside_root" => policy.with_allow_outside_root(true),
            None if word == "allow_home" => policy.with_allow_home(true),
            None if word == "default" => policy,
            _ => panic!("unknown policy word {word:?}"),
        };
    }
    policy
}

/// Builds the fixture a `.case` file describes, expands its first file and renders the outcome.
///
/// Format: `#` comment lines, an optional `policy: …` line, then entries:
/// `=== path` followed by the file's lines (`$T` stands for the temporary
/// directory), `=== symlink path -> target`, `=== dir path`, or
/// `=== binary path` (a small file with NUL bytes). Paths are relative to `$T`;
/// the project root is `$T/proj`.
#[track_caller]
fn check_case(case: &str) -> String {
    let fixture = Fixture::new();
    let base = fixture.base.to_str().unwrap().to_owned();
    let mut policy_line = "default".to_owned();
    let mut first: Option<PathBuf> = None;
    let mut current: Option<(String, Vec<String>)> = None;
    let flush = |current: &mut Option<(String, Vec<String>)>| {
        if let Some((path, lines)) = current.take() {
            let mut text = lines.join("\n");
            text.push('\n');
            fixture.write(&path, text.replace("$T", &base).as_bytes());
        }
    };
    for line in case.lines() {
        if let Some(header) = line.strip_prefix("=== ") {
            flush(&mut current);
            let path = if let Some(rest) = header.strip_prefix("symlink ") {
                let (link, target) = rest.split_once(" -> ").unwrap();
                let link_path = fixture.base.join(link);
                fs::create_dir_all(link_path.parent().unwrap()).unwrap();
                std::os::unix::fs::symlink(target, &link_path).unwrap();
                link.to_owned()
            } else if let Some(dir) = header.strip_prefix("dir ") {
                fs::create_dir_all(fixture.base.join(dir)).unwrap();
                dir.to_owned()
            } else if let Some(bin) = header.strip_prefix("binary ") {
                fixture.write(bin, b"\x7fELF\x00\x01\x02");
                bin.to_owned()
            } else {
                current = Some((header.to_owned(), Vec::new()));
                header.to_owned()
            };
            first.get_or_insert_with(|| fixture.base.join(path));
        } else if let Some((_, lines)) = current.as_mut() {
            lines.push(line.to_owned());
        } else if let Some(p) = line.strip_prefix("policy: ") {
            policy_line = p.to_owned();
        } else {
            assert!(
                line.starts_with('#') || line.is_empty(),
                "stray line {line:?}"
            );
        }
    }
    flush(&mut current);
    let file = first.expect("a case names at least one file");
    let policy = policy_from(&policy_line, &fixture);
    let text = fs::read_to_string(&file).unwrap();
    let out = expand(&file, &text, &fixture.root(), &policy);
    fixture.render(&policy_line, &out)
}

#[test]
fn expand_cases() {
    insta::glob!("expand/*.case", |path| {
        let case = fs::read_to_string(path).unwrap();
        insta::assert_snapshot!(check_case(&case));
    });
}

/// Expands each non-empty line of a forms file on its own, as `proj/CLAUDE.md`,
/// in a project that has `NOTE.md`, `a.b.md`, `文档/说明.md` and `docs/TODO.md`.
fn check_forms(forms: &str) -> String {
    let fixture = Fixture::new();
    for (path, body) in [
        ("proj/NOTE.md", "note body\n"),
        ("proj/a.b.md", "a.b body\n"),
        ("proj/文档/说明.md", "说明 body\n"),
        ("proj/docs/TODO.md", "todo body\n"),
        ("proj/my notes.md", "spaced body\n"),
    ] {
        fixture.write(path, body.as_bytes());
    }
    let file = fixture.root().join("CLAUDE.md");
    let mut out = String::new();
    for line in forms.lines().filter(|l| !l.trim().is_empty()) {
        let expansion = expand(&file, line, &fixture.root(), &Policy::default());
        let statuses: Vec<String> = expansion
            .imports
            .iter()
            .map(|r| format!("{} {}", r.target, r.status))
            .collect();
        writeln!(out, "{line}").unwrap();
        writeln!(out, "  imports: [{}]", statuses.join(", ")).unwrap();
        writeln!(out, "  expanded: {:?}", expansion.expanded).unwrap();
        for d in &expansion.diagnostics {
            writeln!(out, "  diagnostic: {}", fixture.shorten(&d.to_string())).unwrap();
        }
    }
    out
}

#[test]
fn forms_cases() {
    insta::glob!("forms/*.txt", |path| {
        let forms = fs::read_to_string(path).unwrap();
        insta::assert_snapshot!(check_forms(&forms));
    });
}

#[test]
fn every_design_form_and_sentinel_imports_its_file() {
    // Independent of the snapshots: the DESIGN §7 forms must all be `ok`.
    let forms =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/forms/design.txt"))
            .unwrap();
    let rendered = check_forms(&forms);
    let import_lines: Vec<&str> = rendered
        .lines()
        .filter(|l| l.starts_with("  imports:"))
        .collect();
    assert!(import_lines.len() >= 10, "{rendered}");
    for line in import_lines {
        assert!(
            line.ends_with(" ok]") && !line.contains(", "),
            "every form imports exactly one file, ok: {line}\n{rendered}"
        );
    }
}
