//! What the linter knows about each convention beyond the `RuleSource` trait: the conventions it can select, the frontmatter keys each one reads, and the checks that need a convention's file names.
//!
//! Everything that names a file or a key of one convention lives here, in
//! small functions, so that a new rule source needs a line here at most.

use jit_core::{RuleCheck, RuleScopeCheck, RuleSource};

use super::finding::{Finding, Kind};

/// The candidate file names of `source`, relative to each directory.
pub(super) fn files(source: &dyn RuleSource) -> Vec<String> {
    source.files().iter().map(|f| f.to_string()).collect()
}

/// The rule folders of `source`: (folder, suffix, recursive).
pub(super) fn rule_dirs(source: &dyn RuleSource) -> Vec<(String, String, bool)> {
    source
        .rule_dirs()
        .iter()
        .map(|d| (d.path.to_string(), d.suffix.to_string(), d.recursive))
        .collect()
}

/// The frontmatter keys a rule file of `source` at `file` reads, or `None`
/// when the linter does not know them (then only the scope keys count).
fn known_keys(source: &dyn RuleSource, file: &str) -> Option<&'static [&'static str]> {
    if file.ends_with(".mdc") {
        return Some(&["description", "globs", "alwaysApply"]);
    }
    match source.name() {
        "claude" => Some(&["paths", "description"]),
        // Plain nearest-directory files: no key means anything.
        "agents" | "gemini" => Some(&[]),
        "cursor" => Some(&["description", "globs", "alwaysApply"]),
        "copilot" => Some(&["applyTo", "excludeAgent", "description", "name"]),
        "cline" => Some(&["paths", "name", "description", "disabled", "enabled"]),
        _ => None,
    }
}

/// Keys other conventions use for a scope: in a file of the wrong
/// convention they look like a scope and are not one.
const FOREIGN_SCOPE_KEYS: [&str; 7] = [
    "paths", "path", "globs", "glob", "applyTo", "include", "files",
];

/// `unknown_key` findings for the frontmatter keys of one rule file.
pub(super) fn unknown_keys(source: &dyn RuleSource, file: &str, check: &RuleCheck) -> Vec<Finding> {
    let scope_keys: Vec<String> = source.scope_keys().iter().map(|k| k.to_string()).collect();
    let known = known_keys(source, file);
    let is_known = |key: &str| {
        scope_keys.iter().any(|k| k == key) || known.is_some_and(|known| known.contains(&key))
    };
    let mut out = Vec::new();
    for (key, line) in &check.keys {
        // Claude reads Cursor's `globs:` only as a fallback scope: its
        // place is a finding whatever the engine made of it.
        let claude_globs_key = source.name() == "claude" && key == "globs";
        if is_known(key) && !claude_globs_key {
            continue;
        }
        let message = if file.ends_with(".mdc") && key == "paths" {
            "`paths:` is not read in a Cursor rule, which is scoped by `globs:`; rename it to \
             `globs:`"
                .to_owned()
        } else if claude_globs_key {
            claude_globs(check)
        } else if FOREIGN_SCOPE_KEYS.contains(&key.as_str()) {
            let keys = if scope_keys.is_empty() {
                format!("{} files take no scope", source.name())
            } else {
                format!(
                    "{} rules are scoped by {}",
                    source.name(),
                    scope_keys
                        .iter()
                        .map(|k| format!("`{k}:`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )
            };
            format!(
                "`{key}:` is not read here ({keys}), so it scopes nothing: {}",
                scope_now(check)
            )
        } else {
            format!(
                "`{key}:` is not a key {} rule files read; it is ignored",
                source.name()
            )
        };
        out.push(Finding::new(file, *line, Kind::UnknownKey, message));
    }
    out
}

/// Whether `warning` is the engine's own note on a Claude rule's `globs:`,
/// which the `unknown_key` finding already says better.
pub(super) fn is_claude_globs_warning(source: &dyn RuleSource, warning: &str) -> bool {
    source.name() == "claude" && warning.contains("`globs:`")
}

/// The message for Cursor's `globs:` in a Claude rule, which says what the
/// engine actually did with it.
fn claude_globs(check: &RuleCheck) -> String {
    if check.key_line("paths").is_some() {
        return "`globs:` is Cursor's key and `paths:` is present: `paths:` wins and `globs:` \
                is ignored; remove `globs:` (or keep it for Cursor on purpose)"
            .to_owned();
    }
    format!(
        "`globs:` is Cursor's key; Claude rules are scoped by `paths:`. {} Rename it to `paths:`",
        match &check.verdict {
            Ok(RuleScopeCheck::Paths(p)) => format!(
                "It is read as the scope ({}), but Claude Code itself does not read it and loads \
                 the rule for every file.",
                p.join(", ")
            ),
            _ => format!("It is not read as a scope: {}.", scope_now(check)),
        }
    )
}

/// What the rule's scope is, in words.
fn scope_now(check: &RuleCheck) -> String {
    match &check.verdict {
        Ok(RuleScopeCheck::Always) => {
            "as written, the rule applies to its whole directory".to_owned()
        }
        Ok(RuleScopeCheck::Paths(p)) => format!("the rule is scoped by {}", p.join(", ")),
        Ok(RuleScopeCheck::Manual(_)) => "the rule is attached by hand only".to_owned(),
        Ok(_) => "the rule loads".to_owned(),
        Err(_) => "the rule does not load".to_owned(),
    }
}

/// `shadowed`: an `AGENTS.md` beside an `AGENTS.override.md`, which Codex
/// reads instead. `names` are the entries of directory `dir`.
pub(super) fn shadowed(
    sources: &[&dyn RuleSource],
    dir: &str,
    names: &std::collections::HashSet<String>,
) -> Option<Finding> {
    if !sources.iter().any(|s| s.name() == "agents") {
        return None;
    }
    if names.contains("AGENTS.md") && names.contains("AGENTS.override.md") {
        let file = super::repo::join(dir, "AGENTS.md");
        return Some(Finding::new(
            file,
            1,
            Kind::Shadowed,
            "hidden by AGENTS.override.md in the same directory: Codex reads the override \
             instead of this file; merge them, or delete the override when it is stale",
        ));
    }
    None
}

/// Whether the conventions of `sources` read `@imports` in their files.
pub(super) fn takes_imports(source: &dyn RuleSource) -> bool {
    source.imports() == jit_core::Imports::At
}

/// A brace pattern split across list items (`"src/**/*.{js"`, `"ts"`,
/// `"vue}"`, as a generator writes `{js,ts,vue}` into a YAML flow list):
/// the pattern it meant and the items it became.
pub(super) fn split_brace(patterns: &[String]) -> Option<(String, Vec<String>)> {
    let depth = |p: &str| p.matches('{').count() as isize - p.matches('}').count() as isize;
    let start = patterns.iter().position(|p| depth(p) > 0)?;
    let mut open = 0;
    for (i, p) in patterns.iter().enumerate().skip(start) {
        open += depth(p);
        if open <= 0 {
            let items = patterns[start..=i].to_vec();
            return Some((items.join(","), items));
        }
    }
    None
}
