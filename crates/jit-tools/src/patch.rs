//! The `apply_patch` tool's reporter: the files a Codex-style patch adds or updates, read from its file headers.

use std::collections::HashSet;

use camino::{Utf8Path, Utf8PathBuf};
use jit_base::{AffectedPaths, Error, TouchedPaths};

use crate::input::Input;
use jit_base::lexical_clean;

const ADD_FILE: &str = "*** Add File:";
const UPDATE_FILE: &str = "*** Update File:";
const DELETE_FILE: &str = "*** Delete File:";
const MOVE_TO: &str = "*** Move to:";

/// Reports an `apply_patch` call `{command}`, where `command` is the raw
/// patch text: `*** Begin Patch`, then one section per file under a header
/// (`*** Add File: <path>`, `*** Update File: <path>` optionally followed by
/// `*** Move to: <new path>`, `*** Delete File: <path>`), then
/// `*** End Patch`.
///
/// What each header reports:
///
/// * Add and Update: the file's path.
/// * Update followed by Move to: the move's target only. The source is
///   listed in [`TouchedPaths::skipped`] with reason `moved_away`: after the
///   call nothing lives there for a rule to apply to.
/// * Delete: nothing, listed as skipped with reason `deleted`. This is a
///   deliberate refusal, like `rm` in `jit-bash`: the rules of a deleted
///   file's directory no longer apply to it.
///
/// Headers are recognised on every line that starts with one, so a patch
/// wrapped in a shell heredoc (`apply_patch <<'EOF'` ... `EOF`) reads the
/// same as a bare one. Body lines start with `+`, `-`, a space or `@@` and
/// are never paths, even when their text looks like a header
/// (`+*** Add File: x` is content). Trailing spaces and a trailing CR are
/// trimmed from header lines. A header with no path is skipped with reason
/// `empty_path`, a `*** Move to:` that does not directly follow an Update
/// header with reason `move_without_update`, and text with no header at all
/// reports nothing and lists its first non-blank line with reason
/// `no_patch_headers`. Paths are lexically normalised and each is reported
/// once, in the order the patch first names it.
///
/// ```
/// use jit_base::AffectedPaths;
/// use jit_tools::ApplyPatch;
/// let patch = "*** Begin Patch\n\
///              *** Add File: src/ui/Badge.tsx\n\
///              +export const Badge = 1;\n\
///              *** Update File: src/old.rs\n\
///              *** Move to: src/new.rs\n\
///              @@\n\
///              -a\n\
///              +b\n\
///              *** Delete File: src/gone.rs\n\
///              *** End Patch";
/// let touched = ApplyPatch::new("apply_patch")
///     .affected_paths(&serde_json::json!({"command": patch}), "/p".into())?;
/// assert_eq!(touched.paths, ["src/ui/Badge.tsx", "src/new.rs"]);
/// assert_eq!(touched.skipped[0].reason, "moved_away");
/// assert_eq!(touched.skipped[1].reason, "deleted");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ApplyPatch {
    tool: &'static str,
}

impl ApplyPatch {
    /// The reporter of a patch tool named `tool`, which sends its patch text
    /// in the string field `command`.
    pub const fn new(tool: &'static str) -> Self {
        ApplyPatch { tool }
    }
}

impl AffectedPaths for ApplyPatch {
    fn affected_paths(
        &self,
        input: &serde_json::Value,
        _cwd: &Utf8Path,
    ) -> Result<TouchedPaths, Error> {
        let patch = Input::new(self.tool, input).required_str("command")?;
        Ok(touched_by(patch))
    }
}

/// One recognised header line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Header<'a> {
    Add(&'a str),
    Update(&'a str),
    Delete(&'a str),
    MoveTo(&'a str),
}

impl<'a> Header<'a> {
    /// The header on `line`, if the line starts with one. Body lines start
    /// with `+`, `-`, a space or `@@`, so they never match.
    fn parse(line: &'a str) -> Option<Self> {
        let line = line.trim_end_matches([' ', '\t', '\r']);
        let field = |marker: &str| line.strip_prefix(marker).map(str::trim_start);
        if let Some(path) = field(ADD_FILE) {
            Some(Header::Add(path))
        } else if let Some(path) = field(UPDATE_FILE) {
            Some(Header::Update(path))
        } else if let Some(path) = field(DELETE_FILE) {
            Some(Header::Delete(path))
        } else {
            field(MOVE_TO).map(Header::MoveTo)
        }
    }

    fn path(self) -> &'a str {
        match self {
            Header::Add(path)
            | Header::Update(path)
            | Header::Delete(path)
            | Header::MoveTo(path) => path,
        }
    }
}

/// The paths a patch adds or updates, and what it names but does not report.
fn touched_by(patch: &str) -> TouchedPaths {
    let mut paths = Paths::default();
    let mut touched = TouchedPaths::default();
    let mut any_header = false;
    // An Update header waits one line: a `*** Move to:` right after it
    // replaces its path with the move's target.
    let mut pending_update: Option<&str> = None;
    for line in patch.lines() {
        let header = Header::parse(line);
        any_header |= header.is_some();
        if let Some(Header::MoveTo(target)) = header {
            match pending_update.take() {
                Some(source) if !target.is_empty() => {
                    touched = touched.with_skipped(source, "moved_away");
                    push(&mut paths, target);
                }
                // The move names no target, so the file stays where it is.
                Some(source) => {
                    touched = touched.with_skipped(trimmed(line), "empty_path");
                    push(&mut paths, source);
                }
                None => touched = touched.with_skipped(trimmed(line), "move_without_update"),
            }
            continue;
        }
        if let Some(source) = pending_update.take() {
            push(&mut paths, source);
        }
        let Some(header) = header else { continue };
        if header.path().is_empty() {
            touched = touched.with_skipped(trimmed(line), "empty_path");
            continue;
        }
        match header {
            Header::Add(path) => push(&mut paths, path),
            Header::Update(path) => pending_update = Some(path),
            Header::Delete(path) => touched = touched.with_skipped(path, "deleted"),
            // Handled above, before any pending Update was reported.
            Header::MoveTo(_) => {}
        }
    }
    if let Some(source) = pending_update {
        push(&mut paths, source);
    }
    if !any_header {
        let first = patch.lines().map(str::trim).find(|l| !l.is_empty());
        touched = touched.with_skipped(first.unwrap_or_default(), "no_patch_headers");
    }
    touched.paths = paths.list;
    touched
}

/// The paths of a patch, each once, in the order first named. A set
/// remembers what is listed: a scan of the list for each header made a
/// patch of 10,000 files cost 50 million path comparisons.
#[derive(Default)]
struct Paths {
    list: Vec<Utf8PathBuf>,
    seen: HashSet<Utf8PathBuf>,
}

/// Adds `path`, lexically normalised, unless it is already reported.
fn push(paths: &mut Paths, path: &str) {
    let path = lexical_clean(path);
    if !paths.seen.contains(&path) {
        paths.seen.insert(path.clone());
        paths.list.push(path);
    }
}

/// A header line without its trailing spaces and CR, as a skipped entry's word.
fn trimmed(line: &str) -> &str {
    line.trim_end_matches([' ', '\t', '\r'])
}

crate::register!("apply_patch", ApplyPatch::new("apply_patch"));

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[track_caller]
    fn check(line: &str, expected: Option<Header<'_>>) {
        assert_eq!(Header::parse(line), expected, "{line:?}");
    }

    /// 20,000 files, each named twice (and once through `./`): each
    /// reported once, in the order first named. The list was scanned for
    /// every header, a billion path comparisons here; a set answers.
    #[test]
    fn a_patch_of_many_files_reports_each_once_in_order() {
        let mut patch = String::from("*** Begin Patch\n");
        for prefix in ["", "./", ""] {
            for i in 0..20_000 {
                patch.push_str(&format!("*** Add File: {prefix}src/f{i}.ts\n+x\n"));
            }
        }
        patch.push_str("*** End Patch\n");
        let touched = touched_by(&patch);
        assert_eq!(touched.paths.len(), 20_000);
        assert_eq!(touched.paths[0], "src/f0.ts");
        assert_eq!(touched.paths[19_999], "src/f19999.ts");
        assert!(touched.skipped.is_empty());
    }

    #[test]
    fn headers_start_the_line_and_body_lines_never_match() {
        check("*** Add File: a.rs", Some(Header::Add("a.rs")));
        check("*** Update File: a.rs \r", Some(Header::Update("a.rs")));
        check("*** Delete File:a.rs", Some(Header::Delete("a.rs")));
        check("*** Move to: b.rs\t", Some(Header::MoveTo("b.rs")));
        check("*** Add File:   ", Some(Header::Add("")));
        check("+*** Add File: a.rs", None);
        check("-*** Delete File: a.rs", None);
        check(" *** Update File: a.rs", None);
        check("@@ *** Update File: a.rs", None);
        check("*** Add Files: a.rs", None);
        check("*** Begin Patch", None);
        check("*** End of File", None);
    }
}
