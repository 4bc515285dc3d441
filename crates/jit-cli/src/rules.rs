//! The human rendering of rule decisions that `explain` and `startup` share: skipped candidates as rows, with the rows of an unreadable directory folded into one.

use jit_core::{SkipReason, SkippedRule};

/// One skipped row as the human tables show it: file, reason, detail, all
/// raw (the caller escapes them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SkippedRow {
    /// The candidate file, or the directory of a folded run (ending in `/`).
    pub file: String,
    /// The reason's snake_case name.
    pub reason: &'static str,
    /// What the engine said, with the count of a folded run.
    pub detail: String,
}

/// The skipped candidates as rows, in order.
///
/// A directory that cannot be searched makes every candidate file below it
/// fail alike, so it showed as a run of `unreadable` rows that never named
/// the directory. A run of two or more consecutive `unreadable` rows with
/// the same permission error, all below the first one's parent directory,
/// becomes one row naming that directory. The JSON output keeps every row.
pub(crate) fn skipped_rows(skipped: &[SkippedRule]) -> Vec<SkippedRow> {
    let denied = permission_denied();
    let mut rows = Vec::with_capacity(skipped.len());
    let mut i = 0;
    while i < skipped.len() {
        let first = &skipped[i];
        if first.reason == SkipReason::Unreadable
            && denied.as_deref() == Some(first.detail.as_str())
            && let Some(dir) = parent(&first.file)
        {
            let run = skipped[i..]
                .iter()
                .take_while(|s| {
                    s.reason == SkipReason::Unreadable
                        && s.detail == first.detail
                        && inside(&s.file, dir)
                })
                .count();
            if run >= 2 {
                rows.push(SkippedRow {
                    file: if dir.is_empty() {
                        "./".to_owned()
                    } else {
                        format!("{dir}/")
                    },
                    reason: SkipReason::Unreadable.as_str(),
                    detail: format!("{} ({run} candidate files below it)", first.detail),
                });
                i += run;
                continue;
            }
        }
        rows.push(SkippedRow {
            file: first.file.clone(),
            reason: first.reason.as_str(),
            detail: first.detail.clone(),
        });
        i += 1;
    }
    rows
}

/// The detail the engine gives a candidate whose directory cannot be
/// searched, or `None` where the permission error's number is not known.
fn permission_denied() -> Option<String> {
    // EACCES on Linux, macOS and the BSDs; ERROR_ACCESS_DENIED on Windows.
    let code = if cfg!(unix) {
        13
    } else if cfg!(windows) {
        5
    } else {
        return None;
    };
    Some(format!(
        "cannot read: {}",
        std::io::Error::from_raw_os_error(code)
    ))
}

/// The directory part of a displayed rule file (`""` for one at the root),
/// or `None` for a bare name with nowhere to go.
fn parent(file: &str) -> Option<&str> {
    match file.rsplit_once('/') {
        Some(("", _)) => None,
        Some((dir, _)) => Some(dir),
        None => Some(""),
    }
}

/// Whether the displayed `file` is below the displayed directory `dir`.
fn inside(file: &str, dir: &str) -> bool {
    if dir.is_empty() {
        return !file.starts_with('/');
    }
    file.strip_prefix(dir)
        .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(file: &str, reason: SkipReason, detail: &str) -> SkippedRule {
        SkippedRule::new(file, reason, detail, "")
    }

    fn shown(rows: &[SkippedRow]) -> Vec<String> {
        rows.iter()
            .map(|r| format!("{} {} {}", r.file, r.reason, r.detail))
            .collect()
    }

    #[cfg(unix)]
    #[test]
    fn a_run_of_permission_errors_in_one_directory_is_one_row_naming_it() {
        let denied = permission_denied().unwrap();
        let rows = skipped_rows(&[
            skip(
                "CLAUDE.md",
                SkipReason::AlreadyLoaded,
                "already in the context",
            ),
            skip("a/locked/CLAUDE.md", SkipReason::Unreadable, &denied),
            skip("a/locked/CLAUDE.local.md", SkipReason::Unreadable, &denied),
            skip(
                "a/locked/.claude/CLAUDE.md",
                SkipReason::Unreadable,
                &denied,
            ),
            skip("a/locked/.claude/rules", SkipReason::Unreadable, &denied),
            skip("b/CLAUDE.md", SkipReason::Unreadable, &denied),
        ]);
        assert_eq!(
            shown(&rows),
            [
                "CLAUDE.md already_loaded already in the context".to_owned(),
                format!("a/locked/ unreadable {denied} (4 candidate files below it)"),
                format!("b/CLAUDE.md unreadable {denied}"),
            ]
        );
    }

    #[cfg(unix)]
    #[test]
    fn other_unreadable_rows_stay_one_per_file() {
        let denied = permission_denied().unwrap();
        let rows = skipped_rows(&[
            // Two candidates that are directories: nothing is wrong with `dir`.
            skip(
                "dir/CLAUDE.md",
                SkipReason::Unreadable,
                "not a regular file",
            ),
            skip(
                "dir/CLAUDE.local.md",
                SkipReason::Unreadable,
                "not a regular file",
            ),
            // The same error in two sibling directories is not one directory's.
            skip("x/CLAUDE.md", SkipReason::Unreadable, &denied),
            skip("y/CLAUDE.md", SkipReason::Unreadable, &denied),
        ]);
        assert_eq!(rows.len(), 4, "{:?}", shown(&rows));
    }

    #[cfg(unix)]
    #[test]
    fn an_unreadable_root_is_named_as_dot() {
        let denied = permission_denied().unwrap();
        let rows = skipped_rows(&[
            skip("CLAUDE.md", SkipReason::Unreadable, &denied),
            skip(".claude/rules", SkipReason::Unreadable, &denied),
            skip(
                "/home/me/.claude/CLAUDE.md",
                SkipReason::Unreadable,
                &denied,
            ),
        ]);
        assert_eq!(rows.len(), 2, "{:?}", shown(&rows));
        assert_eq!(rows[0].file, "./");
        assert_eq!(rows[1].file, "/home/me/.claude/CLAUDE.md");
    }
}
