//! Every shipped rule convention through the engine: candidates, precedence, scope forms, user levels under a temp home, mixed repositories, one block per file, and the rule index.

use std::fmt::Write as _;
use std::fs;
use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};
use jit_core::{
    Discovery, DiscoveryState, Engine, RuleSource, SkipReason, SourceOptions, StartupOptions,
    StartupReport, Tier, detect_conventions, source_by_name,
};
use pretty_assertions::assert_eq;

/// A temp dir with `proj/` (the root) and `home/` (a fake `$HOME`).
struct Repo {
    _dir: tempfile::TempDir,
    base: Utf8PathBuf,
}

impl Repo {
    fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = Utf8PathBuf::try_from(dir.path().canonicalize().unwrap()).unwrap();
        fs::create_dir_all(base.join("proj")).unwrap();
        fs::create_dir_all(base.join("home")).unwrap();
        let repo = Repo { _dir: dir, base };
        for (path, text) in files {
            repo.write(path, text);
        }
        repo
    }

    /// Relative to `proj/`; `~/x` is relative to `home/`.
    fn path(&self, rel: &str) -> Utf8PathBuf {
        match rel.strip_prefix("~/") {
            Some(home) => self.base.join("home").join(home),
            None => self.base.join("proj").join(rel),
        }
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    fn root(&self) -> Utf8PathBuf {
        self.path("")
    }

    fn home(&self) -> Utf8PathBuf {
        self.base.join("home")
    }

    fn engine(&self, names: &[&str]) -> Engine {
        self.engine_with(names, &SourceOptions::default())
    }

    fn engine_with(&self, names: &[&str], options: &SourceOptions) -> Engine {
        let sources: Vec<Arc<dyn RuleSource>> = names
            .iter()
            .map(|name| source_by_name(name, options).unwrap())
            .collect();
        Engine::new(self.root()).unwrap().with_sources(sources)
    }

    fn startup(&self, engine: &Engine, state: &mut DiscoveryState, cwd: &str) -> StartupReport {
        let options = StartupOptions::new(self.path(cwd))
            .with_managed(None)
            .with_home(Some(self.home()))
            .with_index(jit_core::DEFAULT_INDEX_BYTES);
        engine.startup(state, &options)
    }
}

/// One line per decision: `+ file attribution [source]` or `- file reason [source]`.
fn render(loaded: &[jit_core::LoadedRule], skipped: &[jit_core::SkippedRule]) -> String {
    let mut out = String::new();
    for rule in loaded {
        writeln!(
            out,
            "+ {} {} [{}]",
            rule.file,
            rule.attribution.as_str(),
            rule.source
        )
        .unwrap();
    }
    for rule in skipped {
        writeln!(
            out,
            "- {} {} [{}]",
            rule.file,
            rule.reason.as_str(),
            rule.source
        )
        .unwrap();
    }
    out
}

fn touch(engine: &Engine, state: &mut DiscoveryState, path: &str) -> Discovery {
    engine.discover(state, Utf8Path::new(path), engine.root())
}

#[test]
fn agents_override_shadows_agents_md_and_nested_files_come_just_in_time() {
    let repo = Repo::new(&[
        ("AGENTS.override.md", "override\n"),
        ("AGENTS.md", "base\n"),
        ("src/AGENTS.md", "src\n"),
    ]);
    let engine = repo.engine(&["agents"]);
    let mut state = DiscoveryState::default();
    let report = repo.startup(&engine, &mut state, "");
    assert_eq!(
        render(&report.loaded, &report.skipped),
        "+ AGENTS.override.md session_start [agents]\n- AGENTS.md shadowed [agents]\n"
    );
    assert!(
        report.skipped[0].detail.contains("`AGENTS.override.md`"),
        "{}",
        report.skipped[0].detail
    );
    let found = touch(&engine, &mut state, "src/main.rs");
    assert_eq!(
        render(&found.loaded, &found.skipped),
        "+ src/AGENTS.md nested_traversal [agents]\n"
    );
}

#[test]
fn agents_fallback_names_load_when_agents_md_is_a_directory() {
    let repo = Repo::new(&[("TEAM.md", "team\n"), ("AGENTS.md/keep", "")]);
    let options = SourceOptions::default().with_fallback_names(["TEAM.md"]);
    let engine = repo.engine_with(&["agents"], &options);
    let mut state = DiscoveryState::default();
    let report = repo.startup(&engine, &mut state, "");
    assert_eq!(
        render(&report.loaded, &report.skipped),
        "+ TEAM.md session_start [agents]\n- AGENTS.md unreadable [agents]\n"
    );
    assert!(
        report.skipped[0].detail.contains("a directory"),
        "{}",
        report.skipped[0].detail
    );
}

#[cfg(unix)]
#[test]
fn a_fifo_named_agents_md_is_skipped_without_blocking() {
    let repo = Repo::new(&[]);
    let status = std::process::Command::new("mkfifo")
        .arg(repo.path("AGENTS.md"))
        .status()
        .unwrap();
    assert!(status.success());
    let engine = repo.engine(&["agents"]);
    let mut state = DiscoveryState::default();
    let report = repo.startup(&engine, &mut state, "");
    assert_eq!(report.loaded, []);
    assert_eq!(report.skipped[0].reason, SkipReason::Unreadable);
    assert!(
        report.skipped[0].detail.contains("a named pipe"),
        "{}",
        report.skipped[0].detail
    );
}

#[test]
fn the_agents_startup_chain_stops_at_its_budget_and_jit_brings_the_rest() {
    let repo = Repo::new(&[("AGENTS.md", "123456\n"), ("src/AGENTS.md", "abcdef\n")]);
    let options = SourceOptions::default().with_budget_bytes(10);
    let engine = repo.engine_with(&["agents"], &options);
    let mut state = DiscoveryState::default();
    let report = repo.startup(&engine, &mut state, "src");
    assert_eq!(
        render(&report.loaded, &report.skipped),
        "+ AGENTS.md session_start [agents]\n- src/AGENTS.md too_large_for_budget [agents]\n"
    );
    let found = touch(&engine, &mut state, "src/a.rs");
    assert_eq!(
        render(&found.loaded, &found.skipped),
        "+ src/AGENTS.md nested_traversal [agents]\n"
    );
}

#[test]
fn user_levels_of_codex_and_gemini_load_from_the_given_home() {
    let repo = Repo::new(&[
        ("~/.codex/AGENTS.md", "codex user\n"),
        ("~/.gemini/GEMINI.md", "gemini user\n"),
        ("GEMINI.md", "project\n"),
    ]);
    let engine = repo.engine(&["agents", "gemini"]);
    let mut state = DiscoveryState::default();
    let report = repo.startup(&engine, &mut state, "");
    let home = repo.home();
    assert_eq!(
        render(&report.loaded, &report.skipped),
        format!(
            "+ {home}/.codex/AGENTS.md session_start [agents]\n\
             + {home}/.gemini/GEMINI.md session_start [gemini]\n\
             + GEMINI.md session_start [gemini]\n"
        )
    );
    assert_eq!(report.loaded[0].tier, Some(Tier::User));
    assert_eq!(report.loaded[2].tier, Some(Tier::Project));
}

#[test]
fn gemini_names_are_configurable() {
    let repo = Repo::new(&[("GEMINI.md", "g\n"), ("docs/CONTEXT.md", "c\n")]);
    let options = SourceOptions::default().with_names(["CONTEXT.md"]);
    let engine = repo.engine_with(&["gemini"], &options);
    let mut state = DiscoveryState::default();
    let found = touch(&engine, &mut state, "docs/a.md");
    assert_eq!(
        render(&found.loaded, &found.skipped),
        "+ docs/CONTEXT.md nested_traversal [gemini]\n"
    );
}

#[test]
fn cursor_scope_forms_and_description_only_rules_go_to_the_index_not_the_context() {
    let repo = Repo::new(&[
        (".cursorrules", "legacy\n"),
        (
            ".cursor/rules/always.mdc",
            "---\nalwaysApply: \"true\"\n---\nalways\n",
        ),
        (
            ".cursor/rules/ts.mdc",
            "---\nglobs: **/*.ts, src/**\nalwaysApply: false\n---\nts\n",
        ),
        (
            ".cursor/rules/list.mdc",
            "---\nglobs:\n  - \"lib/**\"\n---\nlib\n",
        ),
        (
            ".cursor/rules/api.mdc",
            "---\ndescription: Rules for the HTTP API\n---\napi\n",
        ),
    ]);
    let engine = repo.engine(&["cursor"]);
    let mut state = DiscoveryState::default();
    let report = repo.startup(&engine, &mut state, "");
    assert_eq!(
        render(&report.loaded, &report.skipped),
        "+ .cursorrules session_start [cursor]\n\
         + .cursor/rules/always.mdc session_start [cursor]\n\
         - .cursor/rules/api.mdc manual_only [cursor]\n\
         - .cursor/rules/list.mdc scope_miss [cursor]\n\
         - .cursor/rules/ts.mdc scope_miss [cursor]\n"
    );
    let index: Vec<String> = report
        .index
        .iter()
        .map(|e| {
            format!(
                "{} [{}] {:?} {:?} {}",
                e.file, e.source, e.scope, e.description, e.bytes
            )
        })
        .collect();
    assert_eq!(
        index,
        [
            ".cursor/rules/api.mdc [cursor] [] Some(\"Rules for the HTTP API\") 48",
            ".cursor/rules/list.mdc [cursor] [\"lib/**\"] None 32",
            ".cursor/rules/ts.mdc [cursor] [\"**/*.ts\", \"src/**\"] None 53",
        ]
    );
    let json = serde_json::to_value(&report.index[0]).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "file": ".cursor/rules/api.mdc",
            "source": "cursor",
            "scope": [],
            "description": "Rules for the HTTP API",
            "bytes": 48
        })
    );

    // The unquoted globs line was recovered, with a warning, and matches.
    let found = touch(&engine, &mut state, "web/app.ts");
    assert_eq!(
        render(&found.loaded, &[]),
        "+ .cursor/rules/ts.mdc path_glob_match [cursor]\n"
    );
    assert_eq!(found.loaded[0].warnings.len(), 1, "{:?}", found.loaded[0]);
}

#[test]
fn copilot_apply_to_with_three_comma_separated_globs() {
    let repo = Repo::new(&[
        (".github/copilot-instructions.md", "repo-wide\n"),
        (
            ".github/instructions/mixed.instructions.md",
            "---\napplyTo: \"src/**/*.ts,tests/**,docs/*.md\"\n---\nmixed\n",
        ),
    ]);
    let engine = repo.engine(&["copilot"]);
    let mut state = DiscoveryState::default();
    let report = repo.startup(&engine, &mut state, "");
    assert_eq!(
        render(&report.loaded, &[]),
        "+ .github/copilot-instructions.md session_start [copilot]\n"
    );
    for (path, loads) in [
        ("lib/x.rs", false),
        ("src/ui/a.ts", true),
        ("tests/t.rs", true),
        ("docs/guide.md", true),
    ] {
        let mut state = state.clone();
        let found = touch(&engine, &mut state, path);
        let hit = found
            .loaded
            .iter()
            .any(|l| l.file == ".github/instructions/mixed.instructions.md");
        assert_eq!(hit, loads, "{path}: {found:?}");
    }
}

#[test]
fn copilot_exclude_agent_skips_a_rule_for_the_agent_it_names() {
    let repo = Repo::new(&[(
        ".github/instructions/review.instructions.md",
        "---\napplyTo: \"**\"\nexcludeAgent: \"coding-agent\"\n---\nreview only\n",
    )]);
    let options = SourceOptions::default().with_agent("coding-agent");
    let engine = repo.engine_with(&["copilot"], &options);
    let mut state = DiscoveryState::default();
    let found = touch(&engine, &mut state, "src/a.rs");
    assert_eq!(
        render(&found.loaded, &found.skipped),
        "- .github/instructions/review.instructions.md excluded_agent [copilot]\n"
    );
    // Another agent gets it.
    let engine = repo.engine(&["copilot"]);
    let found = touch(&engine, &mut DiscoveryState::default(), "src/a.rs");
    assert_eq!(found.loaded.len(), 1, "{found:?}");
}

#[test]
fn cline_rules_as_a_file_or_as_a_folder_of_scoped_rules() {
    let file = Repo::new(&[(".clinerules", "be brief\n")]);
    let engine = file.engine(&["cline"]);
    let report = file.startup(&engine, &mut DiscoveryState::default(), "");
    assert_eq!(
        render(&report.loaded, &report.skipped),
        "+ .clinerules session_start [cline]\n"
    );

    let folder = Repo::new(&[
        (".clinerules/general.md", "general\n"),
        (
            ".clinerules/ui.md",
            "---\npaths: [\"src/ui/**\"]\n---\nui\n",
        ),
    ]);
    let engine = folder.engine(&["cline"]);
    let mut state = DiscoveryState::default();
    let report = folder.startup(&engine, &mut state, "");
    // The folder itself is no unreadable candidate.
    assert_eq!(
        render(&report.loaded, &report.skipped),
        "+ .clinerules/general.md session_start [cline]\n- .clinerules/ui.md scope_miss [cline]\n"
    );
    let found = touch(&engine, &mut state, "src/ui/a.tsx");
    assert_eq!(
        render(&found.loaded, &[]),
        "+ .clinerules/ui.md path_glob_match [cline]\n"
    );
}

#[test]
fn a_claude_rule_scoped_by_globs_loads_with_a_warning() {
    let repo = Repo::new(&[(
        ".claude/rules/ts.md",
        "---\nglobs: **/*.ts, src/**\n---\nts\n",
    )]);
    let engine = repo.engine(&["claude"]);
    let mut state = DiscoveryState::default();
    assert_eq!(touch(&engine, &mut state, "README.md").loaded, []);
    let found = touch(&engine, &mut state, "web/a.ts");
    assert_eq!(found.loaded[0].file, ".claude/rules/ts.md");
    assert!(
        found.loaded[0]
            .warnings
            .iter()
            .any(|w| w.contains("rename `globs:` to `paths:`")),
        "{:?}",
        found.loaded[0].warnings
    );
}

#[test]
fn a_file_imported_by_claude_md_and_found_by_agents_is_one_block() {
    let repo = Repo::new(&[
        ("CLAUDE.md", "See @AGENTS.md for the rules.\n"),
        ("AGENTS.md", "Run the tests.\n"),
    ]);
    let engine = repo.engine(&["claude", "agents"]);
    let mut state = DiscoveryState::default();
    let report = repo.startup(&engine, &mut state, "");
    assert_eq!(
        render(&report.loaded, &report.skipped),
        "+ CLAUDE.md session_start [claude]\n\
         + AGENTS.md include [claude]\n\
         - AGENTS.md already_loaded [agents]\n"
    );
    assert!(
        report.skipped[0]
            .detail
            .contains("an import in CLAUDE.md (claude)"),
        "{}",
        report.skipped[0].detail
    );
    // Nor does a later touch bring it in a second time.
    let found = touch(&engine, &mut state, "src/a.rs");
    assert!(found.loaded.is_empty(), "{found:?}");
}

#[test]
fn a_nested_import_and_source_double_arrival_is_one_block_just_in_time() {
    let repo = Repo::new(&[
        ("src/CLAUDE.md", "@AGENTS.md\n"),
        ("src/AGENTS.md", "src agents\n"),
    ]);
    let engine = repo.engine(&["claude", "agents"]);
    let found = touch(&engine, &mut DiscoveryState::default(), "src/a.rs");
    assert_eq!(
        render(&found.loaded, &found.skipped),
        "+ src/CLAUDE.md nested_traversal [claude]\n\
         + src/AGENTS.md include [claude]\n\
         - src/AGENTS.md already_loaded [agents]\n"
    );
}

#[cfg(unix)]
#[test]
fn two_conventions_naming_one_file_through_a_link_load_it_once() {
    let repo = Repo::new(&[("CLAUDE.md", "shared\n")]);
    std::os::unix::fs::symlink("CLAUDE.md", repo.path("AGENTS.md")).unwrap();
    let engine = repo.engine(&["claude", "agents"]);
    let mut state = DiscoveryState::default();
    let report = repo.startup(&engine, &mut state, "");
    assert_eq!(
        render(&report.loaded, &report.skipped),
        "+ CLAUDE.md session_start [claude]\n- AGENTS.md already_loaded [agents]\n"
    );
    assert!(
        report.skipped[0].detail.contains("CLAUDE.md (claude)"),
        "{}",
        report.skipped[0].detail
    );
}

#[test]
fn skipped_rows_carry_their_source_in_json() {
    let repo = Repo::new(&[(".cursor/rules/x.mdc", "---\nglobs: lib/**\n---\nx\n")]);
    let engine = repo.engine(&["cursor"]);
    let found = touch(&engine, &mut DiscoveryState::default(), "src/a.rs");
    let json = serde_json::to_value(&found.skipped[0]).unwrap();
    assert_eq!(json["source"], "cursor");
    assert_eq!(json["reason"], "scope_miss");
}

#[test]
fn the_index_is_bounded_and_counts_the_rest_per_directory() {
    let mut files = Vec::new();
    for i in 0..40 {
        files.push((
            format!(".cursor/rules/r{i:02}.mdc"),
            format!("---\nglobs: src/m{i}/**\n---\nrule {i}\n"),
        ));
        files.push((
            format!("pkg/.cursor/rules/p{i:02}.mdc"),
            "---\ndescription: package rule\n---\np\n".to_owned(),
        ));
    }
    let borrowed: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let repo = Repo::new(&borrowed);
    let engine = repo.engine(&["cursor"]);
    let report = repo.startup(&engine, &mut DiscoveryState::default(), "");
    let json = serde_json::to_string(&report.index).unwrap();
    assert!(
        json.len() <= jit_core::DEFAULT_INDEX_BYTES,
        "{}",
        json.len()
    );
    assert!(!report.index.is_empty());
    let listed = report.index.len();
    let counted: usize = report.index_overflow.iter().map(|o| o.count).sum();
    assert_eq!(listed + counted, 80);
    let dirs: Vec<&str> = report
        .index_overflow
        .iter()
        .map(|o| o.dir.as_str())
        .collect();
    assert_eq!(dirs, [".cursor/rules", "pkg/.cursor/rules"]);
}

#[test]
fn the_conventions_of_a_repository_are_the_ones_whose_files_exist() {
    let repo = Repo::new(&[
        ("CLAUDE.md", "c\n"),
        ("deep/er/GEMINI.md", "g\n"),
        (".github/instructions/a.instructions.md", "a\n"),
        ("node_modules/x/AGENTS.md", "not ours\n"),
    ]);
    let names: Vec<String> = detect_conventions(&repo.root())
        .iter()
        .map(|s| s.name().to_owned())
        .collect();
    assert_eq!(names, ["claude", "gemini", "copilot"]);

    let empty = Repo::new(&[("src/main.rs", "")]);
    let names: Vec<String> = detect_conventions(&empty.root())
        .iter()
        .map(|s| s.name().to_owned())
        .collect();
    assert_eq!(names, ["claude"]);
}

#[test]
fn a_rule_importing_a_file_already_in_the_context_says_so() {
    let repo = Repo::new(&[
        ("AGENTS.md", "Run the tests.\n"),
        ("CLAUDE.md", "See @AGENTS.md.\n"),
    ]);
    // AGENTS.md comes first, so CLAUDE.md's import cannot be the first arrival.
    let engine = repo.engine(&["agents", "claude"]);
    let report = repo.startup(&engine, &mut DiscoveryState::default(), "");
    assert_eq!(report.loaded[0].file, "AGENTS.md");
    assert_eq!(report.loaded[1].file, "CLAUDE.md");
    assert_eq!(
        report.loaded[1].warnings,
        [
            "`AGENTS.md` is already in the context (it came in as AGENTS.md (agents)); this \
          block inlines its text a second time"
        ]
    );
}

#[test]
fn user_rules_left_out_at_startup_are_in_the_index() {
    let repo = Repo::new(&[
        (
            "~/.claude/rules/py.md",
            "---\npaths: \"**/*.py\"\n---\npython\n",
        ),
        ("CLAUDE.md", "root\n"),
    ]);
    let engine = repo.engine(&["claude"]);
    let report = repo.startup(&engine, &mut DiscoveryState::default(), "");
    let user_rule = format!("{}/.claude/rules/py.md", repo.home());
    assert_eq!(
        report
            .index
            .iter()
            .map(|e| (e.file.as_str(), e.scope.clone()))
            .collect::<Vec<_>>(),
        [(user_rule.as_str(), vec!["**/*.py".to_owned()])]
    );
}

#[test]
fn a_snapshot_keeps_each_user_folder_with_its_source() {
    let repo = Repo::new(&[
        ("~/.codex/AGENTS.md", "codex\n"),
        (
            "~/.claude/rules/py.md",
            "---\npaths: \"**/*.py\"\n---\npython\n",
        ),
    ]);
    let engine = Arc::new(repo.engine(&["claude", "agents"]));
    let mut session = jit_core::Session::new(Arc::clone(&engine), jit_core::SessionConfig::new());
    let options = StartupOptions::new(repo.root())
        .with_managed(None)
        .with_home(Some(repo.home()));
    session.startup(&options);
    let snapshot = session.snapshot();
    let json = serde_json::to_value(&snapshot).unwrap();
    assert_eq!(
        json["user_tiers"],
        serde_json::json!([
            {"source": "claude", "dir": format!("{}/.claude", repo.home())},
            {"source": "agents", "dir": format!("{}/.codex", repo.home())},
        ])
    );
    // An older snapshot had one `user_tier`: it belongs to the first source
    // with a user level.
    let mut legacy = json.clone();
    legacy["user_tier"] = serde_json::json!(format!("{}/.claude", repo.home()));
    legacy.as_object_mut().unwrap().remove("user_tiers");
    let legacy: jit_core::SessionSnapshot = serde_json::from_value(legacy).unwrap();
    for snapshot in [snapshot, legacy] {
        // Restored in another process, the user's scoped rule still comes in.
        check_user_rule_after_restore(&repo, Arc::clone(&engine), snapshot);
    }
}

#[track_caller]
fn check_user_rule_after_restore(
    repo: &Repo,
    engine: Arc<Engine>,
    snapshot: jit_core::SessionSnapshot,
) {
    let mut restored =
        jit_core::Session::restore(engine, jit_core::SessionConfig::new(), snapshot).unwrap();
    let injection = restored.touch(Utf8Path::new("tool.py"), &repo.root());
    assert!(
        injection
            .discoveries
            .iter()
            .flat_map(|d| &d.loaded)
            .any(|l| l.file.ends_with(".claude/rules/py.md")),
        "{injection:?}"
    );
}

#[test]
fn source_options_read_from_a_configuration_table() {
    let options: SourceOptions = serde_json::from_value(serde_json::json!({
        "fallback_names": ["TEAM.md"],
        "budget_bytes": 4096,
    }))
    .unwrap();
    assert_eq!(
        options,
        SourceOptions::default()
            .with_fallback_names(["TEAM.md"])
            .with_budget_bytes(4096)
    );
    let unknown = serde_json::from_value::<SourceOptions>(serde_json::json!({"budget": 1}));
    assert!(unknown.is_err());
    // A table that names a path where a file name goes is refused as it is
    // read, with the key and the value.
    for key in ["names", "fallback_names", "extra_names"] {
        let table = serde_json::json!({ key: ["TEAM.md", "../.aws/credentials"] });
        let err = serde_json::from_value::<SourceOptions>(table)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("`{key}` holds \"../.aws/credentials\"")),
            "{key}: {err}"
        );
    }
}
