//! Tests of `jit imports`: the JSON contract, every DESIGN §7 form, code, cycles and the project boundary.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{jit, jit_in};

/// A project at `$T/proj` beside a sibling `$T/proj-evil`, with `NOTE.md`, `a.b.md`,
/// `文档/说明.md` and `docs/TODO.md` present.
struct Project {
    _dir: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("proj");
        let project = Project {
            _dir: dir,
            base,
            root,
        };
        project.write("proj/NOTE.md", "note body\n");
        project.write("proj/a.b.md", "a.b body\n");
        project.write("proj/文档/说明.md", "说明 body\n");
        project.write("proj/docs/TODO.md", "todo body\n");
        project.write("proj-evil/EVIL.md", "EVIL_RULE_LEAKED\n");
        project
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.base.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    /// Runs `jit imports --json --root proj proj/<file>` and parses the output.
    #[track_caller]
    fn json(&self, file: &str) -> Value {
        let root = self.root.to_str().unwrap();
        let file = self.root.join(file);
        let (code, stdout, stderr) =
            jit(&["imports", "--json", "--root", root, file.to_str().unwrap()]);
        assert_eq!(code, 0, "stderr: {stderr}");
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
    }
}

/// Writes `line` as `proj/CLAUDE.md` and checks it imports exactly `target`, `ok`, resolved to `file`.
#[track_caller]
fn check_form(project: &Project, line: &str, target: &str, file: &str) {
    project.write("proj/CLAUDE.md", &format!("{line}\n"));
    let out = project.json("CLAUDE.md");
    let imports = out["imports"].as_array().unwrap();
    assert_eq!(imports.len(), 1, "{line}: {out:#}");
    let import = &imports[0];
    let resolved = project.root.join(file);
    assert_eq!(import["target"], target, "{line}");
    assert_eq!(import["status"], "ok", "{line}: {out:#}");
    assert_eq!(import["depth"], 1, "{line}");
    assert_eq!(import["from"], "CLAUDE.md", "{line}");
    assert_eq!(import["resolved"], resolved.to_str().unwrap(), "{line}");
    assert_eq!(out["diagnostics"], Value::Array(vec![]), "{line}");
    let expanded = out["expanded"].as_str().unwrap();
    assert!(
        expanded.contains("body\n<!-- end import: "),
        "{line}: {expanded}"
    );
    assert!(
        !expanded.contains('@'),
        "{line}: the token is replaced: {expanded}"
    );
}

#[test]
fn every_design_form_and_sentinel_is_ok() {
    let project = Project::new();
    for line in [
        "see @NOTE.md, then go",
        "见 @NOTE.md，然后继续",
        "见 @NOTE.md。然后继续",
        "详见 @NOTE.md，",
        "（已脱离 @NOTE.md）。**后续",
        "见 @NOTE.md、以及别的",
        "见「@NOTE.md」后续",
        "见 @NOTE.md！后续",
        "@NOTE.md#标题",
        "（@NOTE.md）",
    ] {
        check_form(&project, line, "NOTE.md", "NOTE.md");
    }
    check_form(
        &project,
        "见 @文档/说明.md，后续",
        "文档/说明.md",
        "文档/说明.md",
    );
    check_form(&project, "见 @a.b.md，后续", "a.b.md", "a.b.md");
    check_form(
        &project,
        "タスクは@docs/TODO.mdで確認",
        "docs/TODO.md",
        "docs/TODO.md",
    );
}

#[test]
fn nothing_is_imported_from_code_or_emails() {
    let project = Project::new();
    project.write(
        "proj/CLAUDE.md",
        "Span `@NOTE.md` and mail user@example.com.\n\n```\n@NOTE.md\n```\n\n    @NOTE.md\n",
    );
    let out = project.json("CLAUDE.md");
    assert_eq!(out["imports"], Value::Array(vec![]), "{out:#}");
    assert_eq!(
        out["expanded"],
        fs::read_to_string(project.root.join("CLAUDE.md")).unwrap()
    );
}

#[test]
fn outside_root_and_cycle_are_reported_not_followed() {
    let project = Project::new();
    project.write(
        "proj/CLAUDE.md",
        "sibling @../proj-evil/EVIL.md\nloop @A.md\n",
    );
    project.write("proj/A.md", "A then @B.md\n");
    project.write("proj/B.md", "B back to @A.md\n");
    let out = project.json("CLAUDE.md");
    let statuses: Vec<(&str, &str, &str)> = out["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["from"].as_str().unwrap(),
                i["target"].as_str().unwrap(),
                i["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("CLAUDE.md", "../proj-evil/EVIL.md", "outside_root"),
            ("CLAUDE.md", "A.md", "ok"),
            ("A.md", "B.md", "ok"),
            ("B.md", "A.md", "cycle"),
        ]
    );
    let evil = &out["imports"][0];
    assert_eq!(
        evil["resolved"],
        project.base.join("proj-evil/EVIL.md").to_str().unwrap(),
        "the real path is reported"
    );
    let expanded = out["expanded"].as_str().unwrap();
    assert!(!expanded.contains("EVIL_RULE_LEAKED"), "{expanded}");
    assert!(
        expanded.contains("sibling @../proj-evil/EVIL.md"),
        "{expanded}"
    );
    assert!(expanded.contains("B back to @A.md"), "{expanded}");
    let diagnostics: Vec<&str> = out["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["status"].as_str().unwrap())
        .collect();
    assert_eq!(diagnostics, ["outside_root", "cycle"]);
    assert_eq!(out["diagnostics"][1]["file"], "B.md");
}

#[test]
fn allow_outside_root_follows_the_sibling() {
    let project = Project::new();
    project.write("proj/CLAUDE.md", "sibling @../proj-evil/EVIL.md\n");
    let root = project.root.to_str().unwrap();
    let file = project.root.join("CLAUDE.md");
    let (code, stdout, stderr) = jit(&[
        "imports",
        "--json",
        "--allow-outside-root",
        "--root",
        root,
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["imports"][0]["status"], "ok");
    assert!(
        out["expanded"]
            .as_str()
            .unwrap()
            .contains("EVIL_RULE_LEAKED")
    );
}

#[test]
fn nested_from_is_root_relative_with_slashes() {
    let project = Project::new();
    project.write(
        "proj/src/ui/CLAUDE.md",
        "ui: @../../NOTE.md and @./style.md\n",
    );
    project.write("proj/src/ui/style.md", "style, see @sub/deep.md\n");
    project.write("proj/src/ui/sub/deep.md", "deep\n");
    let out = project.json("src/ui/CLAUDE.md");
    let rows: Vec<(String, String, u64)> = out["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["from"].as_str().unwrap().to_owned(),
                i["status"].as_str().unwrap().to_owned(),
                i["depth"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("src/ui/CLAUDE.md".to_owned(), "ok".to_owned(), 1),
            ("src/ui/CLAUDE.md".to_owned(), "ok".to_owned(), 1),
            ("src/ui/style.md".to_owned(), "ok".to_owned(), 2),
        ]
    );
    assert_eq!(out["file"], "src/ui/CLAUDE.md");
}

#[test]
fn human_output_is_a_table_with_diagnostics() {
    let project = Project::new();
    project.write("proj/CLAUDE.md", "见 @NOTE.md，然后 @gone.md。\n");
    // FILE relative to the current directory.
    let (code, stdout, stderr) = jit_in(
        Some(&project.base),
        &["imports", "--root", "proj", "proj/CLAUDE.md", "--expanded"],
    );
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "CLAUDE.md: 2 imports, 1 diagnostic", "{stdout}");
    let header = lines.iter().position(|l| l.contains("DEPTH")).unwrap();
    for word in ["STATUS", "FROM", "TARGET", "RESOLVED"] {
        assert!(lines[header].contains(word), "{stdout}");
    }
    let ok = lines[header + 1].split_whitespace().collect::<Vec<_>>();
    assert_eq!(
        ok,
        ["1", "ok", "CLAUDE.md:1", "NOTE.md", "NOTE.md"],
        "{stdout}"
    );
    let missing = lines[header + 2].split_whitespace().collect::<Vec<_>>();
    assert_eq!(
        missing,
        ["1", "missing", "CLAUDE.md:1", "gone.md", "-"],
        "{stdout}"
    );
    assert!(
        stdout.contains("diagnostics:\n  CLAUDE.md:1: @gone.md: missing: no such file: "),
        "{stdout}"
    );
    assert!(
        stdout.contains("expanded:\n见 <!-- import: NOTE.md -->\nnote body\n"),
        "{stdout}"
    );
}

#[test]
fn file_relative_to_the_root_is_found() {
    let project = Project::new();
    project.write("proj/CLAUDE.md", "@NOTE.md\n");
    let (code, stdout, stderr) = jit_in(
        Some(Path::new("/")),
        &[
            "imports",
            "--json",
            "--root",
            project.root.to_str().unwrap(),
            "CLAUDE.md",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["imports"][0]["status"], "ok");
}

#[test]
fn unreadable_file_or_root_is_an_error() {
    let project = Project::new();
    let root = project.root.to_str().unwrap();
    let (code, _, stderr) = jit(&["imports", "--root", root, "nope.md"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("cannot read rule file nope.md"), "{stderr}");

    let missing_root = project.base.join("no-such-root");
    let (code, _, stderr) = jit(&["imports", "--root", missing_root.to_str().unwrap(), "x.md"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("project root"), "{stderr}");
}

#[test]
fn depth_limit_is_configurable() {
    let project = Project::new();
    project.write("proj/CLAUDE.md", "@d1.md\n");
    project.write("proj/d1.md", "@d2.md\n");
    project.write("proj/d2.md", "two\n");
    let root = project.root.to_str().unwrap();
    let file = project.root.join("CLAUDE.md");
    let (code, stdout, _) = jit(&[
        "imports",
        "--json",
        "--max-depth",
        "1",
        "--root",
        root,
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0);
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["imports"][1]["status"], "too_deep", "{out:#}");
}

/// Runs `jit` with `args` from `dir` and `$HOME` set to `home`, killing it after
/// ten seconds so a command that blocks fails the test instead of hanging it.
#[track_caller]
fn jit_bounded(dir: &Path, home: &Path, args: &[&str]) -> (i32, String, String) {
    use std::io::Read as _;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    let mut child = Command::new(env!("CARGO_BIN_EXE_jit"))
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env_remove("XDG_STATE_HOME")
        .env_remove("JIT_STATE_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("jit {args:?} was still running after 10 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (mut stdout, mut stderr) = (String::new(), String::new());
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code().unwrap_or(-1), stdout, stderr)
}

/// Runs `jit imports --root proj FILE` from the project's parent and expects a
/// refusal: exit 2 with one `jit: error:` line containing `needle`, and nothing on stdout.
#[track_caller]
fn check_refused(project: &Project, extra: &[&str], file: &str, needle: &str) {
    let home = tempfile::tempdir().unwrap();
    let mut args = vec!["imports", "--root", "proj"];
    args.extend_from_slice(extra);
    args.push(file);
    let (code, stdout, stderr) = jit_bounded(&project.base, home.path(), &args);
    assert_eq!(code, 2, "{file}: stdout {stdout} stderr {stderr}");
    assert_eq!(stdout, "", "{file}");
    assert!(stderr.starts_with("jit: error: "), "{file}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{file}: {stderr}");
    assert!(stderr.contains(needle), "{file}: {stderr}");
}

#[cfg(unix)]
#[test]
fn a_named_pipe_is_refused_without_being_opened() {
    let project = Project::new();
    let fifo = project.root.join("fifo.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    check_refused(
        &project,
        &[],
        "proj/fifo.md",
        "rule file proj/fifo.md is not a regular file (a named pipe)",
    );
    // Found under the root, and through a symlink: still refused.
    std::os::unix::fs::symlink("fifo.md", project.root.join("pipe-link.md")).unwrap();
    check_refused(&project, &[], "pipe-link.md", "is not a regular file");
}

#[cfg(unix)]
#[test]
fn a_named_pipe_reached_through_imports_is_refused_by_name_without_blocking() {
    let project = Project::new();
    let made = std::process::Command::new("mkfifo")
        .arg(project.root.join("fifo.md"))
        .status()
        .unwrap();
    assert!(made.success());
    std::os::unix::fs::symlink("fifo.md", project.root.join("pipe-link.md")).unwrap();
    project.write("proj/CLAUDE.md", "see @fifo.md and @pipe-link.md\n");
    let home = tempfile::tempdir().unwrap();
    let args = ["imports", "--json", "--root", "proj", "proj/CLAUDE.md"];
    let (code, stdout, stderr) = jit_bounded(&project.base, home.path(), &args);
    assert_eq!(code, 0, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    for (i, target) in ["fifo.md", "pipe-link.md"].iter().enumerate() {
        let import = &out["imports"][i];
        assert_eq!(import["target"], *target, "{out:#}");
        assert_eq!(import["status"], "refused", "{out:#}");
        assert_eq!(import["reason"], "not_regular_file", "{out:#}");
        let diagnostic = &out["diagnostics"][i];
        assert_eq!(diagnostic["reason"], "not_regular_file", "{out:#}");
        assert_eq!(
            diagnostic["message"],
            "fifo.md is not a regular file (it is a named pipe)"
        );
    }
    assert_eq!(out["expanded"], "see @fifo.md and @pipe-link.md\n");

    let args = ["imports", "--root", "proj", "proj/CLAUDE.md"];
    let (code, stdout, _) = jit_bounded(&project.base, home.path(), &args);
    assert_eq!(code, 0);
    assert!(
        stdout.contains(
            "CLAUDE.md:1: @fifo.md: refused (not_regular_file): fifo.md is not a regular file"
        ),
        "{stdout}"
    );
}

#[test]
fn a_rule_file_over_the_cap_is_refused_by_its_size() {
    let project = Project::new();
    let big = fs::File::create(project.root.join("big.md")).unwrap();
    big.set_len(1 << 30).unwrap();
    check_refused(
        &project,
        &[],
        "proj/big.md",
        &format!(
            "rule file proj/big.md is 1073741824 bytes, over the cap of {}",
            jit_imports::DEFAULT_MAX_FILE_BYTES
        ),
    );
}

#[test]
fn the_import_limit_is_configurable_and_named() {
    let project = Project::new();
    project.write("proj/CLAUDE.md", "@NOTE.md @a.b.md @docs/TODO.md\n");
    let root = project.root.to_str().unwrap();
    let file = project.root.join("CLAUDE.md");
    let (code, stdout, stderr) = jit(&[
        "imports",
        "--json",
        "--max-imports",
        "2",
        "--root",
        root,
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    let statuses: Vec<(&str, &str)> = out["imports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["status"].as_str().unwrap(),
                i["reason"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [("ok", "-"), ("ok", "-"), ("refused", "too_many_imports")],
        "{out:#}"
    );
    assert!(
        out["expanded"]
            .as_str()
            .unwrap()
            .ends_with(" @docs/TODO.md\n"),
        "{out:#}"
    );
}

#[test]
fn a_directory_is_refused() {
    let project = Project::new();
    check_refused(
        &project,
        &[],
        "proj/docs",
        "rule file proj/docs is not a regular file (a directory)",
    );
}

#[test]
fn a_binary_file_is_refused() {
    let project = Project::new();
    project.write("proj/CLAUDE.md", "rules\0\u{1}\u{2} @NOTE.md\n");
    check_refused(
        &project,
        &[],
        "proj/CLAUDE.md",
        "rule file proj/CLAUDE.md is binary (it contains NUL bytes)",
    );
    fs::write(project.root.join("latin1.md"), b"caf\xe9 @NOTE.md\n").unwrap();
    check_refused(
        &project,
        &[],
        "proj/latin1.md",
        "rule file proj/latin1.md is not UTF-8 text",
    );
}

#[test]
fn a_file_outside_the_root_is_refused_unless_allowed() {
    let project = Project::new();
    let evil = project.base.join("proj-evil/EVIL.md");
    check_refused(
        &project,
        &[],
        "proj-evil/EVIL.md",
        &format!(
            "rule file proj-evil/EVIL.md resolves to {}, outside the project root {}",
            evil.display(),
            project.root.display()
        ),
    );
    // The real path decides, not the path as written.
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("../proj-evil/EVIL.md", project.root.join("EVIL.md")).unwrap();
        check_refused(&project, &[], "proj/EVIL.md", "outside the project root");
        check_refused(&project, &[], "EVIL.md", "outside the project root");
    }

    let (code, stdout, stderr) = jit_in(
        Some(&project.base),
        &[
            "imports",
            "--json",
            "--allow-outside-root",
            "--root",
            "proj",
            "proj-evil/EVIL.md",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["expanded"], "EVIL_RULE_LEAKED\n");
}

#[test]
fn a_user_level_file_in_home_is_read_with_user() {
    let project = Project::new();
    let home = project.base.join("home");
    fs::create_dir_all(home.join(".claude")).unwrap();
    fs::write(home.join(".claude/CLAUDE.md"), "me\n").unwrap();
    let file = home.join(".claude/CLAUDE.md");
    let file = file.to_str().unwrap();
    let (code, stdout, stderr) = jit_bounded(
        &project.base,
        &home,
        &["imports", "--json", "--user", "--root", "proj", file],
    );
    assert_eq!(code, 0, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["expanded"], "me\n");

    let (code, _, stderr) = jit_bounded(&project.base, &home, &["imports", "--root", "proj", file]);
    assert_eq!(code, 2, "without --user the home file is outside the root");
    assert!(stderr.contains("outside the project root"), "{stderr}");
}

#[test]
fn a_missing_file_names_the_cause_once() {
    let project = Project::new();
    let home = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = jit_bounded(
        &project.root,
        home.path(),
        &["imports", "--root", ".", "missing.md"],
    );
    assert_eq!(code, 2, "{stdout}");
    assert_eq!(
        stderr,
        "jit: error: cannot read rule file missing.md: No such file or directory (os error 2)\n"
    );
}

#[test]
fn a_closed_stdout_ends_quietly_with_status_0() {
    let project = Project::new();
    let lines: String = (0..3_000).map(|i| format!("see @gone{i}.md\n")).collect();
    project.write("proj/CLAUDE.md", &lines);
    let root = project.root.to_str().unwrap();
    let file = project.root.join("CLAUDE.md");
    let file = file.to_str().unwrap();
    for extra in [&[][..], &["--expanded"], &["--json"]] {
        let mut args = vec!["imports", "--root", root, file];
        args.extend_from_slice(extra);
        let (code, stderr) = crate::jit_closed_stdout(None, &args);
        assert_eq!((code, stderr.as_str()), (0, ""), "{extra:?}");
    }
}

#[test]
fn control_characters_are_escaped_in_the_table_only() {
    let project = Project::new();
    let evil = "evil\x1b]0;title\x07\x1b[2J\nline.md";
    let shown = "evil\\e]0;title\\x07\\e[2J\\nline.md";
    let body = "@NOTE.md and @gone\x1b[2J.md\nclear\x1b[2J \\d+\r\n";
    project.write(&format!("proj/{evil}"), body);
    let root = project.root.to_str().unwrap();
    let file = project.root.join(evil);
    let file = file.to_str().unwrap();
    let (code, stdout, stderr) = jit(&["imports", "--root", root, file, "--expanded"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with(&format!("{shown}: 2 imports, 1 diagnostic\n")),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("{shown}:1  NOTE.md")), "{stdout}");
    assert!(
        stdout.contains(&format!("  {shown}:1: @gone\\e[2J.md: missing: ")),
        "{stdout}"
    );
    // The expanded text keeps its lines, CRLF and backslashes.
    assert!(stdout.contains("\nclear\\e[2J \\d+\r\n"), "{stdout}");
    crate::assert_no_control_characters(&stdout.replace("\r\n", "\n"));

    let (code, stdout, stderr) = jit(&["imports", "--json", "--root", root, file]);
    assert_eq!(code, 0, "{stderr}");
    let out: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(out["file"], evil);
    assert_eq!(out["imports"][1]["target"], "gone\x1b[2J.md");
    assert!(
        out["expanded"]
            .as_str()
            .unwrap()
            .ends_with("clear\x1b[2J \\d+\r\n")
    );
}

#[test]
fn an_empty_path_is_a_usage_error() {
    let project = Project::new();
    let root = project.root.to_str().unwrap();
    for args in [
        &["imports", "--root", root, ""][..],
        &["imports", "--root", "", "CLAUDE.md"],
    ] {
        let (code, out, err) = jit(args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(err.contains("empty path"), "{args:?}: {err}");
    }
}
