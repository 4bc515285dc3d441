//! The JIT discovery engine end to end: fixture trees in temp dirs, touched in order, every decision checked.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{
    Discovery, DiscoveryState, Engine, ErrorKind, Frontmatter, Registry, RuleDir, RuleSource,
    ScopeSpec, SkipReason,
};
use pretty_assertions::assert_eq;

/// A project at `<tmp>/proj` built from (path, content) pairs.
struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

impl Fixture {
    fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().to_path_buf();
        fs::create_dir_all(base.join("proj")).unwrap();
        let fixture = Fixture { _dir: dir, base };
        for (path, content) in files {
            fixture.write(path, content.as_bytes());
        }
        fixture
    }

    /// Paths are relative to the temp dir's `proj/` unless they start with `../`.
    fn path(&self, rel: &str) -> PathBuf {
        self.base.join("proj").join(rel)
    }

    fn root(&self) -> PathBuf {
        self.path("")
    }

    fn write(&self, rel: &str, content: &[u8]) {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn mkdir(&self, rel: &str) {
        fs::create_dir_all(self.path(rel)).unwrap();
    }

    #[cfg(unix)]
    fn symlink(&self, target: &Path, link: &str) {
        let link = self.path(link);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, link).unwrap();
    }

    fn engine(&self) -> Engine {
        Engine::new(self.root()).unwrap()
    }
}

fn utf8(path: &Path) -> Utf8PathBuf {
    Utf8PathBuf::from_path_buf(path.to_path_buf()).unwrap()
}

/// Touches each path in order in one session, relative to the root.
fn session(engine: &Engine, touches: &[&str]) -> Vec<Discovery> {
    let mut state = DiscoveryState::default();
    touches
        .iter()
        .map(|t| engine.discover(&mut state, Utf8Path::new(t), engine.root()))
        .collect()
}

/// One line per decision: `+ file attribution` or `- file reason`.
fn render(steps: &[Discovery]) -> String {
    let mut out = String::new();
    for (i, step) in steps.iter().enumerate() {
        writeln!(out, "{} {}", i + 1, step.trigger).unwrap();
        for loaded in &step.loaded {
            let replaced = match loaded.decision {
                jit_core::LoadKind::Replaced => " (replaced)",
                jit_core::LoadKind::Loaded => "",
            };
            writeln!(
                out,
                "  + {} {}{replaced}",
                loaded.file,
                loaded.attribution.as_str()
            )
            .unwrap();
        }
        for skipped in &step.skipped {
            writeln!(out, "  - {} {}", skipped.file, skipped.reason.as_str()).unwrap();
        }
    }
    out
}

#[track_caller]
fn check(files: &[(&str, &str)], touches: &[&str], expected: &str) -> Vec<Discovery> {
    let fixture = Fixture::new(files);
    let steps = session(&fixture.engine(), touches);
    assert_eq!(render(&steps), expected);
    steps
}

#[test]
fn scope_skip_must_not_mark_the_directory_scanned() {
    // DESIGN §9: reading the README first must not poison src/ui/ for Footer.tsx.
    check(
        &[
            ("CLAUDE.md", "root rules\n"),
            (
                "src/ui/CLAUDE.md",
                "---\npaths: [\"src/ui/**/*.tsx\"]\n---\nno emoji\n",
            ),
        ],
        &["src/ui/README.md", "src/ui/Footer.tsx", "src/ui/Badge.tsx"],
        "1 src/ui/README.md\n  + CLAUDE.md nested_traversal\n  - src/ui/CLAUDE.md scope_miss\n\
         2 src/ui/Footer.tsx\n  + src/ui/CLAUDE.md path_glob_match\n\
         3 src/ui/Badge.tsx\n",
    );
}

#[test]
fn scope_miss_detail_names_the_subject_and_patterns() {
    let steps = check(
        &[(
            "src/ui/CLAUDE.md",
            "---\npaths: [\"src/ui/**/*.tsx\"]\n---\nx\n",
        )],
        &["src/ui/README.md"],
        "1 src/ui/README.md\n  - src/ui/CLAUDE.md scope_miss\n",
    );
    let detail = &steps[0].skipped[0].detail;
    assert!(
        detail.contains("src/ui/README.md") && detail.contains("src/ui/**/*.tsx"),
        "{detail}"
    );
}

#[test]
fn sibling_with_a_common_string_prefix_is_outside() {
    let fixture = Fixture::new(&[("CLAUDE.md", "root\n")]);
    fs::create_dir_all(fixture.base.join("proj-evil/src")).unwrap();
    fs::write(
        fixture.base.join("proj-evil/CLAUDE.md"),
        "EVIL_RULE_LEAKED\n",
    )
    .unwrap();
    fs::write(
        fixture.base.join("proj-evil/src/CLAUDE.md"),
        "EVIL_RULE_LEAKED\n",
    )
    .unwrap();
    let engine = fixture.engine();
    let evil = utf8(&fixture.base.join("proj-evil/src/a.ts"));
    let steps = session(&engine, &[evil.as_str(), "../proj-evil/src/a.ts"]);
    for step in &steps {
        assert!(step.loaded.is_empty(), "{step:?}");
        assert_eq!(step.skipped.len(), 1);
        assert_eq!(step.skipped[0].reason, SkipReason::OutsideRoot);
        assert!(!format!("{step:?}").contains("EVIL_RULE_LEAKED"));
    }
}

#[cfg(unix)]
#[test]
fn symlinked_vendor_outside_the_root_is_not_read() {
    let fixture = Fixture::new(&[("CLAUDE.md", "root\n")]);
    let other = fixture.base.join("other/pkg");
    fs::create_dir_all(other.join("src")).unwrap();
    fs::write(fixture.base.join("other/CLAUDE.md"), "OTHER_RULE\n").unwrap();
    fs::write(other.join("CLAUDE.md"), "OTHER_RULE\n").unwrap();
    fs::write(other.join("src/CLAUDE.md"), "OTHER_RULE\n").unwrap();
    fixture.symlink(&other, "vendor");
    let steps = session(&fixture.engine(), &["vendor/src/a.ts"]);
    assert_eq!(
        render(&steps),
        "1 vendor/src/a.ts\n  + CLAUDE.md nested_traversal\n  - vendor outside_root\n  - vendor/src outside_root\n"
    );
    assert!(!format!("{steps:?}").contains("OTHER_RULE"));
}

#[cfg(unix)]
#[test]
fn symlinked_rule_file_pointing_outside_is_refused() {
    let fixture = Fixture::new(&[]);
    fs::write(fixture.base.join("secret.md"), "SECRET\n").unwrap();
    fixture.symlink(&fixture.base.join("secret.md"), "src/CLAUDE.md");
    let steps = check_fixture(
        &fixture,
        &["src/a.ts"],
        "1 src/a.ts\n  - src/CLAUDE.md outside_root\n",
    );
    assert!(!format!("{steps:?}").contains("SECRET"));
}

#[cfg(unix)]
#[test]
fn symlink_inside_the_root_reads_the_real_directory_once() {
    let fixture = Fixture::new(&[("src/ui/CLAUDE.md", "---\npaths: src/ui/**\n---\nui\n")]);
    fixture.symlink(&fixture.path("src/ui"), "ui-link");
    // The scope sees the real location, so `src/ui/**` matches through the link.
    check_fixture(
        &fixture,
        &["ui-link/Footer.tsx", "src/ui/Badge.tsx"],
        "1 ui-link/Footer.tsx\n  + src/ui/CLAUDE.md path_glob_match\n2 src/ui/Badge.tsx\n",
    );
}

#[cfg(unix)]
#[test]
fn symlink_loop_in_rule_folder_terminates() {
    let fixture = Fixture::new(&[(".claude/rules/a.md", "a\n")]);
    fixture.symlink(&fixture.path(".claude/rules"), ".claude/rules/loop");
    check_fixture(
        &fixture,
        &["x.ts"],
        "1 x.ts\n  + .claude/rules/a.md nested_traversal\n",
    );
}

#[track_caller]
fn check_fixture(fixture: &Fixture, touches: &[&str], expected: &str) -> Vec<Discovery> {
    let steps = session(&fixture.engine(), touches);
    assert_eq!(render(&steps), expected);
    steps
}

#[test]
fn the_root_itself_is_inside() {
    check(
        &[("CLAUDE.md", "root\n")],
        &["."],
        "1 .\n  + CLAUDE.md nested_traversal\n",
    );
    check(
        &[("CLAUDE.md", "root\n")],
        &["main.rs"],
        "1 main.rs\n  + CLAUDE.md nested_traversal\n",
    );
}

#[test]
fn absolute_paths_and_cwd_relative_paths_agree() {
    let fixture = Fixture::new(&[("src/CLAUDE.md", "src\n")]);
    let engine = fixture.engine();
    let abs = utf8(&fixture.path("src/a.ts"));
    let mut state = DiscoveryState::default();
    let found = engine.discover(&mut state, &abs, Utf8Path::new("/nonexistent"));
    assert_eq!(found.trigger, "src/a.ts");
    assert_eq!(found.loaded[0].file, "src/CLAUDE.md");
    let mut state = DiscoveryState::default();
    let cwd = utf8(&fixture.path("src"));
    let found = engine.discover(&mut state, Utf8Path::new("./a.ts"), &cwd);
    assert_eq!(found.trigger, "src/a.ts");
    assert_eq!(found.loaded[0].file, "src/CLAUDE.md");
}

#[test]
fn a_rule_changed_mid_session_is_replaced_not_stacked() {
    let fixture = Fixture::new(&[("src/ui/CLAUDE.md", "V1\n")]);
    let engine = fixture.engine();
    let mut state = DiscoveryState::default();
    let first = engine.discover(&mut state, "src/ui/Footer.tsx".into(), engine.root());
    assert_eq!(first.loaded[0].content, "V1\n");
    // A different size guarantees a different stamp even on coarse clocks.
    fixture.write("src/ui/CLAUDE.md", b"V2 longer\n");
    let second = engine.discover(&mut state, "src/ui/Footer.tsx".into(), engine.root());
    assert_eq!(
        render(std::slice::from_ref(&second)),
        "1 src/ui/Footer.tsx\n  + src/ui/CLAUDE.md nested_traversal (replaced)\n"
    );
    assert_eq!(second.loaded[0].content, "V2 longer\n");
    let third = engine.discover(&mut state, "src/ui/Footer.tsx".into(), engine.root());
    assert!(third.loaded.is_empty(), "{third:?}");
}

#[test]
fn a_rule_created_mid_session_in_a_scanned_directory_is_found() {
    let fixture = Fixture::new(&[("src/a.ts", "")]);
    let engine = fixture.engine();
    let mut state = DiscoveryState::default();
    assert!(
        engine
            .discover(&mut state, "src/a.ts".into(), engine.root())
            .loaded
            .is_empty()
    );
    fixture.write("src/CLAUDE.md", b"new rule\n");
    let found = engine.discover(&mut state, "src/a.ts".into(), engine.root());
    assert_eq!(found.loaded.len(), 1, "{found:?}");
}

#[test]
fn every_candidate_name_at_every_level() {
    let names = [
        "CLAUDE.md",
        ".claude.md",
        "claude.md",
        ".claude/CLAUDE.md",
        ".claude/instructions.md",
        "CLAUDE.local.md",
        ".claude/rules/a.md",
        ".claude/rules/deep/b.md",
    ];
    let mut files = Vec::new();
    let owned: Vec<String> = ["", "a/", "a/b/"]
        .iter()
        .flat_map(|dir| names.iter().map(move |n| format!("{dir}{n}")))
        .collect();
    for path in &owned {
        files.push((path.as_str(), "rule\n"));
    }
    files.push((".claude/rules/not-a-rule.txt", "no\n"));
    let fixture = Fixture::new(&files);
    let steps = session(&fixture.engine(), &["a/b/c.rs"]);
    let loaded: Vec<&str> = steps[0].loaded.iter().map(|l| l.file.as_str()).collect();
    let mut expected: Vec<&str> = owned.iter().map(String::as_str).collect();
    // Root first, then each level down; within a level, the order of the
    // source's names and then the sorted rule folder.
    expected.sort_by_key(|p| {
        p.matches('/').count() - p.matches(".claude/").count() - p.matches("deep/").count()
    });
    assert_eq!(loaded.len(), 24, "{loaded:#?}");
    for want in &expected {
        assert!(loaded.contains(want), "missing {want}: {loaded:#?}");
    }
    assert!(!loaded.iter().any(|l| l.ends_with(".txt")));
    assert_eq!(loaded[0], "CLAUDE.md");
    assert_eq!(loaded[23], "a/b/.claude/rules/deep/b.md");
}

#[test]
fn touching_a_directory_matches_dir_scopes() {
    // `ls src/ui` touches the directory itself: its marker ends with `/`.
    let fixture = Fixture::new(&[
        (
            ".claude/rules/ui.md",
            "---\npaths: [\"src/ui/**\"]\n---\nui\n",
        ),
        (
            ".claude/rules/py.md",
            "---\npaths: [\"**/*.py\"]\n---\npy\n",
        ),
        ("src/ui/a.tsx", ""),
    ]);
    check_fixture(
        &fixture,
        &["src/ui"],
        "1 src/ui\n  + .claude/rules/ui.md path_glob_match\n  - .claude/rules/py.md scope_miss\n",
    );
}

#[test]
fn not_yet_existing_paths_walk_from_the_deepest_existing_directory() {
    check(
        &[("CLAUDE.md", "root\n"), ("src/CLAUDE.md", "src\n")],
        &["src/new/dir/file.ts"],
        "1 src/new/dir/file.ts\n  + CLAUDE.md nested_traversal\n  + src/CLAUDE.md nested_traversal\n",
    );
}

/// A scoped rule under `.claude/rules/` with the given head, touched by a
/// matching and a non-matching path.
#[track_caller]
fn check_scope(rule: &[u8], hit: &str, miss: &str) -> Discovery {
    let fixture = Fixture::new(&[]);
    fixture.write(".claude/rules/r.md", rule);
    let engine = fixture.engine();
    let mut state = DiscoveryState::default();
    let missed = engine.discover(&mut state, miss.into(), engine.root());
    assert_eq!(
        render(std::slice::from_ref(&missed)),
        format!("1 {miss}\n  - .claude/rules/r.md scope_miss\n"),
        "rule {:?}",
        String::from_utf8_lossy(rule)
    );
    let found = engine.discover(&mut state, hit.into(), engine.root());
    assert_eq!(
        render(std::slice::from_ref(&found)),
        format!("1 {hit}\n  + .claude/rules/r.md path_glob_match\n"),
        "rule {:?}",
        String::from_utf8_lossy(rule)
    );
    found
}

#[test]
fn frontmatter_shapes_in_the_wild() {
    let cases: &[(&str, &str, &str)] = &[
        // Flow list, quoted: every item counts, not only the first.
        (
            "---\npaths: [\"docs/**\", \"src/ui/**\"]\n---\nx\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
        // Flow list, unquoted.
        (
            "---\npaths: [docs/**, src/ui/**]\n---\nx\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
        // Block list, mixed quoting.
        (
            "---\npaths:\n  - docs/**\n  - 'src/ui/**'\n---\nx\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
        // Single string.
        (
            "---\npaths: src/ui/**\n---\nx\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
        // Comma-separated string; no split inside a brace set; spaces trimmed.
        (
            "---\npaths: \"docs/** ,  src/**/*.{ts,tsx}\"\n---\nx\n",
            "src/a/b.tsx",
            "src/a/b.rs",
        ),
        // A leading ./ is dropped.
        (
            "---\npaths: ./src/ui/**\n---\nx\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
        // Case-sensitive.
        (
            "---\npaths: src/UI/**\n---\nx\n",
            "src/UI/a.ts",
            "src/ui/a.ts",
        ),
        // BOM, CRLF, trailing spaces on fences, closing fence at EOF without newline.
        (
            "\u{feff}---\npaths: src/ui/**\n---\nx\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
        (
            "---\r\npaths: src/ui/**\r\n---\r\nx\r\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
        (
            "---   \npaths: src/ui/**\n--- \t\nx\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
        ("---\npaths: src/ui/**\n---", "src/ui/a.ts", "src/api/a.ts"),
        // Other keys around the scope.
        (
            "---\ndescription: UI rules\npaths: src/ui/**\nlevel: 3\n---\nx\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
    ];
    for (rule, hit, miss) in cases {
        let found = check_scope(rule.as_bytes(), hit, miss);
        assert!(
            found.loaded[0].warnings.is_empty(),
            "{rule:?}: {:?}",
            found.loaded[0].warnings
        );
        assert_eq!(
            found.loaded[0].content,
            if rule.contains('\r') {
                "x\n"
            } else if rule.ends_with("---") {
                ""
            } else {
                "x\n"
            }
        );
    }
}

#[test]
fn values_strict_yaml_rejects_are_recovered_with_a_quoting_warning() {
    let cases: &[(&str, &str, &str)] = &[
        ("---\npaths: **/*.cs\n---\nx\n", "src/a.cs", "src/a.ts"),
        (
            "---\npaths: {src,lib}/**/*.ts, tests/**\n---\nx\n",
            "lib/a/b.ts",
            "docs/a.ts",
        ),
        (
            "---\npaths: {src,lib}/**/*.ts, tests/**\n---\nx\n",
            "tests/x.rs",
            "docs/a.ts",
        ),
        (
            "---\npaths:\n  - **/*.cs\n  - src/ui/**\n---\nx\n",
            "src/ui/a.ts",
            "src/api/a.ts",
        ),
        (
            "---\ndescription: C#\npaths: *.cs\n---\nx\n",
            "a.cs",
            "src/a.cs",
        ),
    ];
    for (rule, hit, miss) in cases {
        let found = check_scope(rule.as_bytes(), hit, miss);
        let warnings = &found.loaded[0].warnings;
        assert_eq!(warnings.len(), 1, "{rule:?}: {warnings:?}");
        assert!(warnings[0].contains("Quote"), "{warnings:?}");
    }
}

#[test]
fn empty_scope_is_unscoped_with_a_warning() {
    for rule in [
        "---\npaths: []\n---\nx\n",
        "---\npaths:\n---\nx\n",
        "---\npaths: \"\"\n---\nx\n",
    ] {
        let fixture = Fixture::new(&[(".claude/rules/r.md", rule)]);
        let steps = check_fixture(
            &fixture,
            &["any/file.rs"],
            "1 any/file.rs\n  + .claude/rules/r.md nested_traversal\n",
        );
        assert_eq!(steps[0].loaded[0].warnings.len(), 1, "{rule:?}");
    }
}

#[test]
fn missing_closing_fence_is_invalid_never_unscoped() {
    let fixture = Fixture::new(&[("CLAUDE.md", "---\npaths: src/**\nbody\n")]);
    let steps = check_fixture(
        &fixture,
        &["docs/a.md"],
        "1 docs/a.md\n  - CLAUDE.md invalid_frontmatter\n",
    );
    assert!(steps[0].skipped[0].detail.contains("line 1"));
}

#[test]
fn malformed_frontmatter_is_skipped_with_the_parser_position_never_unscoped() {
    for rule in [
        "---\npaths: [src/**\n---\nx\n",
        "---\ndescription: [unclosed\n---\nx\n",
        "---\npaths:\n  nested: map\n---\nx\n",
        "---\npaths: [\"src/[a\"]\n---\nx\n",
    ] {
        let fixture = Fixture::new(&[(".claude/rules/r.md", rule)]);
        let steps = check_fixture(
            &fixture,
            &["src/a.ts"],
            "1 src/a.ts\n  - .claude/rules/r.md invalid_frontmatter\n",
        );
        assert!(!steps[0].skipped[0].detail.is_empty());
    }
    let fixture = Fixture::new(&[(
        ".claude/rules/r.md",
        "---\ndescription: [unclosed\n---\nx\n",
    )]);
    let steps = session(&fixture.engine(), &["a"]);
    let detail = &steps[0].skipped[0].detail;
    assert!(
        detail.contains("line"),
        "the parser's position must be shown: {detail}"
    );
}

#[test]
fn unusable_files_are_skipped_with_their_reason() {
    let fixture = Fixture::new(&[]);
    fixture.write("big/CLAUDE.md", &vec![b'x'; 300 * 1024]);
    fixture.write("bin/CLAUDE.md", b"rule\0binary");
    fixture.write("latin/CLAUDE.md", b"caf\xe9\n");
    fixture.mkdir("dir/CLAUDE.md");
    check_fixture(
        &fixture,
        &["big/a", "bin/a", "latin/a", "dir/a"],
        "1 big/a\n  - big/CLAUDE.md too_large\n\
         2 bin/a\n  - bin/CLAUDE.md binary\n\
         3 latin/a\n  - latin/CLAUDE.md not_utf8\n\
         4 dir/a\n  - dir/CLAUDE.md unreadable\n",
    );
    // The cap is configurable.
    let engine = fixture.engine().with_max_rule_bytes(512 * 1024);
    let steps = session(&engine, &["big/a"]);
    assert_eq!(steps[0].loaded.len(), 1);
}

#[test]
fn a_fixed_rule_file_is_judged_again() {
    let fixture = Fixture::new(&[("src/CLAUDE.md", "---\npaths: [src/**\n---\nx\n")]);
    let engine = fixture.engine();
    let mut state = DiscoveryState::default();
    let first = engine.discover(&mut state, "src/a.ts".into(), engine.root());
    assert_eq!(first.skipped[0].reason, SkipReason::InvalidFrontmatter);
    fixture.write("src/CLAUDE.md", b"---\npaths: [src/**]\n---\nfixed\n");
    let second = engine.discover(&mut state, "src/a.ts".into(), engine.root());
    assert_eq!(second.loaded.len(), 1, "{second:?}");
}

/// A second, minimal convention: AGENTS.md everywhere, Cursor-style `.mdc`
/// rules with `globs:` and `alwaysApply:`.
#[derive(Debug)]
struct AgentsAndCursor {
    files: Vec<String>,
    rule_dirs: Vec<RuleDir>,
    scope_keys: Vec<String>,
}

impl AgentsAndCursor {
    fn new() -> Self {
        AgentsAndCursor {
            files: vec!["AGENTS.md".to_owned()],
            rule_dirs: vec![RuleDir::new(".cursor/rules", ".mdc", true)],
            scope_keys: vec!["globs".to_owned()],
        }
    }
}

impl RuleSource for AgentsAndCursor {
    fn name(&self) -> &str {
        "agents+cursor"
    }
    fn files(&self) -> &[String] {
        &self.files
    }
    fn rule_dirs(&self) -> &[RuleDir] {
        &self.rule_dirs
    }
    fn scope_keys(&self) -> &[String] {
        &self.scope_keys
    }
    fn scope(&self, frontmatter: &Frontmatter) -> ScopeSpec {
        if !frontmatter.is_present() {
            return ScopeSpec::Always;
        }
        if frontmatter.flag("alwaysApply") == Some(true) {
            return ScopeSpec::Always;
        }
        match ScopeSpec::from_patterns("globs", frontmatter.patterns("globs")) {
            ScopeSpec::Always => ScopeSpec::Manual("no globs and alwaysApply is not true".into()),
            other => other,
        }
    }
}

#[test]
fn a_second_rule_source_plugs_in() {
    let fixture = Fixture::new(&[
        ("CLAUDE.md", "claude\n"),
        ("src/AGENTS.md", "agents\n"),
        (
            ".cursor/rules/ts.mdc",
            "---\nglobs: *.ts, src/**/*.ts\nalwaysApply: false\n---\nts\n",
        ),
        (
            ".cursor/rules/all.mdc",
            "---\nalwaysApply: \"true\"\n---\nall\n",
        ),
        (
            ".cursor/rules/manual.mdc",
            "---\ndescription: by hand\n---\nm\n",
        ),
    ]);
    let engine = fixture.engine().with_source(AgentsAndCursor::new());
    let steps = session(&engine, &["src/a.ts"]);
    assert_eq!(
        render(&steps),
        "1 src/a.ts\n  + CLAUDE.md nested_traversal\n  + .cursor/rules/all.mdc nested_traversal\n  \
         + .cursor/rules/ts.mdc path_glob_match\n  + src/AGENTS.md nested_traversal\n  \
         - .cursor/rules/manual.mdc manual_only\n"
    );
    assert_eq!(steps[0].loaded[3].source, "agents+cursor");
    assert_eq!(
        steps[0].loaded[2].warnings.len(),
        1,
        "globs: *.ts needed recovery"
    );
}

#[test]
fn tool_calls_go_through_the_registry_and_unregistered_tools_are_errors() {
    let fixture = Fixture::new(&[("src/CLAUDE.md", "src\n")]);
    let engine = fixture.engine();
    let mut registry = Registry::empty();
    struct FilePath;
    impl jit_core::AffectedPaths for FilePath {
        fn affected_paths(
            &self,
            input: &serde_json::Value,
            _cwd: &Utf8Path,
        ) -> Result<jit_core::TouchedPaths, jit_core::Error> {
            let path = input["file_path"].as_str().ok_or_else(|| {
                jit_core::Error::invalid_tool_input("read", "file_path", "missing")
            })?;
            Ok(jit_core::TouchedPaths::from_paths([path]))
        }
    }
    registry.register_tool("read", "test");
    registry.register_reporter("read", FilePath, "test");
    let mut state = DiscoveryState::default();
    let call = engine
        .discover_tool_call(
            &mut state,
            &registry,
            "read",
            &serde_json::json!({"file_path": "src/a.ts"}),
            engine.root(),
        )
        .unwrap();
    assert_eq!(call.discoveries.len(), 1);
    assert_eq!(call.discoveries[0].loaded[0].file, "src/CLAUDE.md");
    let err = engine
        .discover_tool_call(
            &mut state,
            &registry,
            "web_fetch",
            &serde_json::json!({}),
            engine.root(),
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::UnregisteredTool);
    let err = engine
        .discover_tool_call(
            &mut state,
            &registry,
            "read",
            &serde_json::json!({}),
            engine.root(),
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidToolInput);
}

#[test]
fn rearm_brings_rules_back_on_the_next_touch() {
    let fixture = Fixture::new(&[("src/CLAUDE.md", "src\n")]);
    let engine = fixture.engine();
    let mut state = DiscoveryState::default();
    assert_eq!(
        engine
            .discover(&mut state, "src/a".into(), engine.root())
            .loaded
            .len(),
        1
    );
    assert_eq!(
        engine
            .discover(&mut state, "src/a".into(), engine.root())
            .loaded
            .len(),
        0
    );
    state.rearm();
    assert_eq!(
        engine
            .discover(&mut state, "src/a".into(), engine.root())
            .loaded
            .len(),
        1
    );
}

#[test]
fn invalid_root_is_an_error_naming_it() {
    let err = Engine::new("/definitely/not/here").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidRoot);
    assert!(err.to_string().contains("/definitely/not/here"));
}

#[test]
fn imports_are_expanded_and_reported_as_includes() {
    let fixture = Fixture::new(&[
        (
            "src/CLAUDE.md",
            "见 @NOTE.md，然后继续 @docs/style.md。@gone.md\n",
        ),
        ("src/NOTE.md", "note body\n"),
        ("src/docs/style.md", "style body, see @../NOTE.md\n"),
    ]);
    fs::write(fixture.base.join("outside.md"), "OUTSIDE_SECRET\n").unwrap();
    fixture.write("lib/CLAUDE.md", b"see @../../outside.md\n");
    let steps = check_fixture(
        &fixture,
        &["src/a.ts", "lib/a.ts"],
        "1 src/a.ts\n  + src/CLAUDE.md nested_traversal\n  + src/NOTE.md include\n  + src/docs/style.md include\n\
         2 lib/a.ts\n  + lib/CLAUDE.md nested_traversal\n",
    );
    let rule = &steps[0].loaded[0];
    assert!(rule.content.contains("note body") && rule.content.contains("style body"));
    assert_eq!(
        rule.content.matches("note body").count(),
        1,
        "a file imported twice is included once"
    );
    assert_eq!(
        steps[0].loaded[1].included_by.as_deref(),
        Some("src/CLAUDE.md")
    );
    assert_eq!(
        steps[0].loaded[2].included_by.as_deref(),
        Some("src/CLAUDE.md")
    );
    assert!(
        rule.warnings.iter().any(|w| w.contains("gone.md")),
        "{:?}",
        rule.warnings
    );
    let total: usize = steps[0].loaded.iter().map(|l| l.bytes).sum();
    assert_eq!(
        total,
        rule.content.len(),
        "bytes add up to what is injected"
    );
    let lib = &steps[1].loaded[0];
    assert!(!lib.content.contains("OUTSIDE_SECRET"));
    assert!(
        lib.warnings.iter().any(|w| w.contains("outside")),
        "{:?}",
        lib.warnings
    );
}

#[cfg(unix)]
#[test]
fn a_linked_claude_folder_outside_the_root_is_not_read() {
    let fixture = Fixture::new(&[("src/a.ts", "")]);
    let outside = fixture.base.join("elsewhere/.claude");
    fs::create_dir_all(outside.join("rules")).unwrap();
    fs::write(outside.join("CLAUDE.md"), "OUTSIDE_RULE\n").unwrap();
    fs::write(outside.join("instructions.md"), "OUTSIDE_RULE\n").unwrap();
    fs::write(outside.join("rules/r.md"), "OUTSIDE_RULE\n").unwrap();
    fixture.symlink(&outside, ".claude");
    fixture.symlink(&outside, "src/.claude");
    let steps = session(&fixture.engine(), &["src/a.ts"]);
    assert!(steps[0].loaded.is_empty(), "{steps:#?}");
    assert!(!format!("{steps:?}").contains("OUTSIDE_RULE"));
    assert!(
        steps[0]
            .skipped
            .iter()
            .all(|s| s.reason == SkipReason::OutsideRoot)
    );
    assert_eq!(steps[0].skipped.len(), 6, "{:#?}", steps[0].skipped);
}

#[cfg(unix)]
#[test]
fn a_rule_reached_through_an_inner_link_is_injected_once() {
    let fixture = Fixture::new(&[(".claude/CLAUDE.md", "shared\n")]);
    fixture.symlink(&fixture.path(".claude"), "src/.claude");
    let steps = check_fixture(
        &fixture,
        &["src/a.ts"],
        "1 src/a.ts\n  + .claude/CLAUDE.md nested_traversal\n  - src/.claude/CLAUDE.md already_loaded\n",
    );
    assert_eq!(steps[0].loaded.len(), 1);
}

#[cfg(unix)]
#[test]
fn a_directory_swapped_for_a_link_mid_session_is_contained_again() {
    let fixture = Fixture::new(&[("src/ui/CLAUDE.md", "inside\n")]);
    let engine = fixture.engine();
    let mut state = DiscoveryState::default();
    let first = engine.discover(&mut state, "src/ui/a.ts".into(), engine.root());
    assert_eq!(first.loaded.len(), 1);
    let outside = fixture.base.join("outside-ui");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("CLAUDE.md"), "SECRET OUTSIDE RULE\n").unwrap();
    fs::remove_dir_all(fixture.path("src/ui")).unwrap();
    fixture.symlink(&outside, "src/ui");
    let second = engine.discover(&mut state, "src/ui/b.ts".into(), engine.root());
    assert!(second.loaded.is_empty(), "{second:#?}");
    assert!(!format!("{second:?}").contains("SECRET"));
    assert!(
        second
            .skipped
            .iter()
            .any(|s| s.file == "src/ui" && s.reason == SkipReason::OutsideRoot)
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_non_utf8_rule_name_is_reported_root_relative() {
    use std::os::unix::ffi::OsStrExt;
    let fixture = Fixture::new(&[(".claude/rules/ok.md", "ok\n")]);
    let bad = fixture
        .path(".claude/rules")
        .join(std::ffi::OsStr::from_bytes(b"bad\xff.md"));
    fs::write(bad, "x").unwrap();
    let steps = session(&fixture.engine(), &["a.rs"]);
    let skipped = &steps[0].skipped[0];
    assert_eq!(skipped.reason, SkipReason::NotUtf8);
    assert!(
        skipped.file.starts_with(".claude/rules/bad"),
        "{}",
        skipped.file
    );
    assert_eq!(steps[0].loaded.len(), 1);
}

#[cfg(unix)]
#[test]
fn a_parent_segment_after_a_link_leaving_the_root_is_outside() {
    // From `src/`, `link/../x.ts` is opened by the OS as `elsewhere/x.ts`
    // (the parent of the link's target), not as `src/x.ts`.
    let fixture = Fixture::new(&[("CLAUDE.md", "root\n"), ("src/CLAUDE.md", "SRC_RULE\n")]);
    fs::create_dir_all(fixture.base.join("elsewhere/d")).unwrap();
    fs::write(fixture.base.join("elsewhere/x.ts"), "").unwrap();
    fixture.symlink(Path::new("../../elsewhere/d"), "src/link");
    let engine = fixture.engine();
    let mut state = DiscoveryState::default();
    let cwd = utf8(&fixture.path("src"));
    let found = engine.discover(&mut state, Utf8Path::new("link/../x.ts"), &cwd);
    let elsewhere = utf8(&fs::canonicalize(fixture.base.join("elsewhere")).unwrap());
    assert_eq!(found.trigger, elsewhere.join("x.ts").as_str());
    assert!(found.loaded.is_empty(), "{found:#?}");
    assert_eq!(found.skipped.len(), 1, "{found:#?}");
    assert_eq!(found.skipped[0].reason, SkipReason::OutsideRoot);
    assert!(!format!("{found:?}").contains("SRC_RULE"));
}

#[cfg(unix)]
#[test]
fn a_parent_segment_after_a_link_inside_the_root_climbs_from_the_target() {
    // `src/link → ../lib/d`: `src/link/../x.ts` is `lib/x.ts`, so `lib/`'s
    // rules apply and `src/`'s do not.
    let fixture = Fixture::new(&[
        ("src/CLAUDE.md", "SRC_RULE\n"),
        ("lib/CLAUDE.md", "lib\n"),
        ("lib/d/a.ts", ""),
    ]);
    fixture.symlink(Path::new("../lib/d"), "src/link");
    check_fixture(
        &fixture,
        &["src/link/../x.ts", "src/./link/../../src/link/../y.ts"],
        "1 lib/x.ts\n  + lib/CLAUDE.md nested_traversal\n2 lib/y.ts\n",
    );
}

#[cfg(unix)]
#[test]
fn a_parent_segment_after_a_link_in_the_cwd_climbs_from_the_target() {
    let fixture = Fixture::new(&[("src/CLAUDE.md", "SRC_RULE\n")]);
    fs::create_dir_all(fixture.base.join("elsewhere/d")).unwrap();
    fixture.symlink(Path::new("../../elsewhere/d"), "src/link");
    let engine = fixture.engine();
    let mut state = DiscoveryState::default();
    let cwd = utf8(&fixture.path("src/link"));
    let found = engine.discover(&mut state, Utf8Path::new("../x.ts"), &cwd);
    assert!(found.loaded.is_empty(), "{found:#?}");
    assert_eq!(found.skipped[0].reason, SkipReason::OutsideRoot);
}

#[test]
fn a_parent_segment_after_a_plain_or_missing_directory_is_lexical() {
    check(
        &[("src/CLAUDE.md", "src\n"), ("lib/CLAUDE.md", "lib\n")],
        &[
            "src/ui/../a.ts",
            "lib/new/../../src/b.ts",
            "src/gone/../../lib/c.ts",
        ],
        "1 src/a.ts\n  + src/CLAUDE.md nested_traversal\n2 src/b.ts\n3 lib/c.ts\n  + lib/CLAUDE.md nested_traversal\n",
    );
}

#[cfg(unix)]
#[test]
fn a_root_given_through_a_link_and_a_parent_segment_is_where_the_os_puts_it() {
    // `a/link/..` is `real`, the parent of the link's target, so `a/` is
    // not the root and a file there gets none of the root's rules.
    let fixture = Fixture::new(&[]);
    fs::create_dir_all(fixture.base.join("real/inner")).unwrap();
    fs::create_dir_all(fixture.base.join("a")).unwrap();
    fs::write(fixture.base.join("real/CLAUDE.md"), "ROOT_RULE\n").unwrap();
    std::os::unix::fs::symlink("../real/inner", fixture.base.join("a/link")).unwrap();
    let engine = Engine::new(fixture.base.join("a/link/..")).unwrap();
    let mut state = DiscoveryState::default();
    let outside = utf8(&fixture.base.join("a/x.ts"));
    let found = engine.discover(&mut state, &outside, Utf8Path::new("/"));
    assert!(found.loaded.is_empty(), "{found:#?}");
    assert_eq!(found.skipped[0].reason, SkipReason::OutsideRoot);
    let inside = utf8(&fixture.base.join("a/link/../x.ts"));
    let found = engine.discover(&mut state, &inside, Utf8Path::new("/"));
    assert_eq!(found.trigger, "x.ts");
    assert_eq!(found.loaded.len(), 1, "{found:#?}");
}

/// Generated trees with links: the engine reads a directory's rules only
/// when `realpath` puts that directory inside the root, and always reads the
/// rules of the directory the OS opens the touched path in, when that one
/// is inside.
#[cfg(unix)]
mod linked_trees {
    use super::*;
    use proptest::prelude::*;

    const DIRS: &[&str] = &[
        "", "proj", "proj/a", "proj/a/b", "proj/c", "out", "out/d", "out/d/e",
    ];
    const LINK_DIRS: &[&str] = &["proj", "proj/a", "proj/a/b", "proj/c", "out/d"];
    const TARGETS: &[&str] = &[
        "..",
        "../..",
        "a",
        "../c",
        "../../out/d",
        "../../../out/d/e",
        "/ABS/out/d",
        "/ABS/proj/a/b",
        "nowhere",
        "l",
        "m",
    ];
    const SEGMENTS: &[&str] = &[
        "a", "b", "c", "d", "l", "m", "l", "m", "..", ".", "l/..", "m/..", "l/..", "m/..",
    ];

    fn build(links: &[(usize, usize)]) -> (tempfile::TempDir, Utf8PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let base = utf8(&dir.path().canonicalize().unwrap());
        for d in DIRS {
            fs::create_dir_all(base.join(d)).unwrap();
            fs::write(base.join(d).join("CLAUDE.md"), format!("RULE /{d}\n")).unwrap();
        }
        for (at, (l, m)) in LINK_DIRS.iter().zip(links) {
            for (name, target) in [("l", l), ("m", m)] {
                let target = TARGETS[*target].replace("/ABS", base.as_str());
                std::os::unix::fs::symlink(target, base.join(at).join(name)).unwrap();
            }
        }
        (dir, base)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn rules_are_read_where_realpath_says_and_only_inside(
            links in prop::collection::vec((0..TARGETS.len(), 0..TARGETS.len()), LINK_DIRS.len()),
            start in 0..LINK_DIRS.len(),
            segments in prop::collection::vec(prop::sample::select(SEGMENTS), 0..4),
        ) {
            let (_dir, base) = build(&links);
            let root = base.join("proj");
            let engine = Engine::new(&root).unwrap();
            let mut dir = base.join(LINK_DIRS[start]);
            for segment in &segments {
                dir.push(segment);
            }
            let touched = dir.join("t.ts");
            let found = engine.discover(&mut DiscoveryState::default(), &touched, Utf8Path::new("/"));
            for loaded in &found.loaded {
                prop_assert!(loaded.content.starts_with("RULE /proj"), "{touched}: {loaded:?}");
            }
            if let Ok(real) = fs::canonicalize(&dir) {
                let real = utf8(&real);
                if let Ok(rel) = real.strip_prefix(&base) {
                    let marker = format!("RULE /{rel}\n");
                    let read = found.loaded.iter().any(|l| l.content == marker);
                    prop_assert_eq!(read, real.starts_with(&root), "{} {:#?}", touched, found);
                }
            }
        }
    }
}

/// Rule folders, their sub-folders, rule files and `.claude/` files
/// reached through a link out of the root are refused wherever the engine
/// looks — a touch, the project walk, detection along a path — while the
/// same kinds of file reached through no link are read without resolving
/// them (a non-link entry of a directory that is its own real path is its
/// own real path).
#[cfg(unix)]
#[test]
fn links_out_of_the_root_are_refused_at_every_depth_of_a_rule_folder() {
    let fixture = Fixture::new(&[
        ("src/.claude/rules/plain.md", "PLAIN\n"),
        ("src/.claude/rules/deeper/plain2.md", "PLAIN\n"),
        ("src/.claude/CLAUDE.md", "PLAIN\n"),
        ("pkg/a.ts", ""),
        ("../outside/rules/r.md", "OUTSIDE_RULE\n"),
        ("../outside/sub/s.md", "OUTSIDE_RULE\n"),
        ("../outside/file.md", "OUTSIDE_RULE\n"),
        ("../outside/CLAUDE.md", "OUTSIDE_RULE\n"),
        ("../outside/AGENTS.md", "OUTSIDE_RULE\n"),
    ]);
    let outside = fixture.base.join("outside");
    // The whole rule folder, a sub-folder, and single files.
    fixture.symlink(&outside.join("rules"), "pkg/.claude/rules");
    fixture.symlink(&outside.join("sub"), "src/.claude/rules/linked");
    fixture.symlink(&outside.join("file.md"), "src/.claude/rules/linked.md");
    fixture.symlink(&outside.join("file.md"), "pkg/.claude/CLAUDE.md");
    // A candidate name with a folder (`.claude/CLAUDE.md`), the folder a
    // link out, its file no link.
    fixture.symlink(&outside, "lib/.claude");
    let engine = fixture.engine();
    let steps = session(&engine, &["src/a.ts", "pkg/a.ts"]);
    assert_eq!(
        render(&steps),
        "1 src/a.ts\n  + src/.claude/CLAUDE.md nested_traversal\n  \
         + src/.claude/rules/deeper/plain2.md nested_traversal\n  \
         + src/.claude/rules/plain.md nested_traversal\n  \
         - src/.claude/rules/linked outside_root\n  \
         - src/.claude/rules/linked.md outside_root\n\
         2 pkg/a.ts\n  - pkg/.claude/CLAUDE.md outside_root\n  \
         - pkg/.claude/rules outside_root\n"
    );
    assert!(!format!("{steps:?}").contains("OUTSIDE_RULE"));

    let root = engine.root().to_owned();
    assert_eq!(
        walked(&root),
        [
            "src/.claude/CLAUDE.md",
            "src/.claude/rules/deeper/plain2.md",
            "src/.claude/rules/plain.md"
        ]
    );
    // Along `pkg` alone only links out of the root: no convention is found
    // there, so the default one is picked.
    let along = |dir: &str| -> Vec<String> {
        jit_core::detect_conventions_along(&root, &[Utf8PathBuf::from(dir)])
            .iter()
            .map(|s| s.name().to_owned())
            .collect()
    };
    assert_eq!(along("pkg"), ["claude"]);
    // A directory on the way that is itself a link out of the root.
    fixture.symlink(&outside, "ext");
    assert_eq!(along("ext/deeper"), ["claude"], "its AGENTS.md is outside");
    fs::remove_dir_all(fixture.path("src/.claude")).unwrap();
    fixture.write("src/AGENTS.md", b"x\n");
    fixture.symlink(&outside.join("file.md"), "pkg/AGENTS.md");
    assert_eq!(along("pkg"), ["claude"], "a linked AGENTS.md is not a find");
    assert_eq!(along("src"), ["agents"]);
}

/// The project walk follows links that stay inside the root — a linked
/// rule folder, a linked rule file in a plain folder — and, where a
/// convention takes the first of its names found in a directory, counts
/// that one alone.
#[cfg(unix)]
#[test]
fn the_walk_follows_links_inside_and_counts_the_first_found_name_only() {
    let fixture = Fixture::new(&[
        ("shared/.claude/rules/s.md", "shared\n"),
        ("src/.claude/rules/plain.md", "plain\n"),
        ("api/AGENTS.override.md", "override\n"),
        ("api/AGENTS.md", "shadowed\n"),
    ]);
    fixture.symlink(
        &fixture.path("shared/.claude/rules/s.md"),
        "src/.claude/rules/alias.md",
    );
    fixture.symlink(&fixture.path("shared/.claude"), "pkg/.claude");
    let engine = fixture.engine();
    let root = engine.root().to_owned();
    assert_eq!(
        walked(&root),
        [
            "api/AGENTS.override.md",
            "pkg/.claude/rules/s.md",
            "shared/.claude/rules/s.md",
            "src/.claude/rules/alias.md",
            "src/.claude/rules/plain.md"
        ]
    );
}

/// The rule files the project walk finds under `root` for every shipped
/// convention, root-relative and sorted.
fn walked(root: &Utf8Path) -> Vec<String> {
    let mut walked: Vec<String> = jit_core::find_rule_files(root, &jit_core::all_sources())
        .into_iter()
        .map(|(_, path)| path.strip_prefix(root).unwrap().to_string())
        .collect();
    walked.sort();
    walked
}
