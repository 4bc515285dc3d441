//! Answers for "why did (or didn't) this rule load for this file?": where a pattern stops matching a path, which convention claims a rule file and for which directory, and a rule file's scope as the engine reads it.

use std::fmt;

use globset::GlobBuilder;

use crate::rule::scope::CompiledScope;
use crate::rule::source::RuleSource;
use crate::rule::{RuleScope, SkipReason, parse_rule};

/// How one scope pattern fares against one path, decided by the engine's
/// matcher and explained segment by segment.
///
/// ```
/// let trace = jit_core::trace_pattern("src/ui/**/*.tsx", "src/ui/README.md")?;
/// assert!(!trace.matched);
/// let stop = trace.stop.as_ref().unwrap();
/// assert_eq!(stop.matched_prefix, "src/ui");
/// assert_eq!(stop.subject_segment.as_deref(), Some("README.md"));
/// assert_eq!(stop.expected, ["*.tsx"]);
/// assert_eq!(
///     trace.to_string(),
///     "`src/ui/**/*.tsx` follows `src/ui/` and stops at segment 3, `README.md`, \
///      which does not match `*.tsx`"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PatternTrace {
    /// The pattern as written.
    pub pattern: String,
    /// The path it was matched against (root-relative, `/`-separated, a
    /// directory ending in `/`).
    pub subject: String,
    /// The engine's verdict ([`CompiledScope::is_match`]); the explanation
    /// never overrides it.
    pub matched: bool,
    /// Where a missing pattern stopped. `None` when it matched, or when its
    /// shape has no segment-wise reading (a `/` inside `{...}` or `[...]`,
    /// an escaped `/`).
    pub stop: Option<Stop>,
}

/// Where a pattern stopped following a path.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stop {
    /// The leading path segments the pattern still accounted for, joined
    /// with `/` (`""` when it failed at the first one).
    pub matched_prefix: String,
    /// The 0-based index of the path segment where it stopped; equal to the
    /// number of segments when the path ended while the pattern wanted more.
    pub segment: usize,
    /// That path segment, or `None` when the path ended first.
    pub subject_segment: Option<String>,
    /// The pattern segments that could have taken [`Stop::subject_segment`],
    /// in pattern order (`""` standing for the end of a pattern that was
    /// complete while the path went on); when the path ended first, the
    /// rest of the pattern it still wanted (`test/*.rs`).
    pub expected: Vec<String>,
}

/// Matches `pattern` against `subject` with the engine's matcher and, for a
/// miss, says at which path segment the pattern stopped.
///
/// The verdict is [`CompiledScope::is_match`]. The segment reading is an
/// explanation only: where it would disagree with the verdict (a pattern
/// shape it does not model), no stop is given.
///
/// An invalid pattern is an error naming it, as from [`CompiledScope::new`].
pub fn trace_pattern(pattern: &str, subject: &str) -> Result<PatternTrace, crate::Error> {
    let matched = CompiledScope::new([pattern])?.is_match(subject);
    let stop = if matched {
        None
    } else {
        match segment_walk(pattern, subject) {
            // Only a reading that agrees with the matcher explains anything.
            Some(Walk::Miss(stop)) => Some(stop),
            Some(Walk::Match) | None => None,
        }
    };
    Ok(PatternTrace {
        pattern: pattern.to_owned(),
        subject: subject.to_owned(),
        matched,
        stop,
    })
}

impl fmt::Display for PatternTrace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pattern = &self.pattern;
        if self.matched {
            return write!(f, "`{}` matches `{pattern}`", self.subject);
        }
        let Some(stop) = &self.stop else {
            return write!(f, "`{}` does not match `{pattern}`", self.subject);
        };
        let prefix = if stop.matched_prefix.is_empty() {
            format!("`{pattern}`")
        } else {
            format!("`{pattern}` follows `{}/`", stop.matched_prefix)
        };
        let wanted = stop
            .expected
            .iter()
            .filter(|e| !e.is_empty())
            .map(|e| format!("`{e}`"))
            .collect::<Vec<_>>();
        let complete = stop.expected.iter().any(String::is_empty);
        match &stop.subject_segment {
            Some(segment) => {
                write!(
                    f,
                    "{prefix}{} stops at segment {}, `{segment}`, ",
                    if stop.matched_prefix.is_empty() {
                        ""
                    } else {
                        " and"
                    },
                    stop.segment + 1
                )?;
                match (wanted.as_slice(), complete) {
                    ([], _) => write!(f, "where the pattern has already ended"),
                    ([one], false) => write!(f, "which does not match {one}"),
                    (many, false) => write!(f, "which matches none of {}", many.join(", ")),
                    (many, true) => write!(
                        f,
                        "which matches none of {}, and the pattern could have ended before it",
                        many.join(", ")
                    ),
                }
            }
            None => write!(
                f,
                "{prefix}{} the path ends there, while the pattern still wants {}",
                if stop.matched_prefix.is_empty() {
                    ":"
                } else {
                    ", but"
                },
                wanted.join(" or ")
            ),
        }
    }
}

/// The outcome of the segment-wise reading.
#[derive(Debug)]
enum Walk {
    Match,
    Miss(Stop),
}

/// One pattern segment: `**` (any number of path segments), or a glob that
/// matches exactly one path segment.
enum Seg {
    Recursive,
    One(String, globset::GlobMatcher),
}

/// Splits `pattern` into segments on the `/` that globset treats as a
/// separator, or `None` when a `/` sits inside `{...}` or `[...]` or is
/// escaped: those shapes cross segments and are not modelled.
fn split_segments(pattern: &str) -> Option<Vec<String>> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut braces = 0usize;
    let mut in_class = false;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let next = chars.next();
                if next == Some('/') {
                    return None;
                }
                current.push(c);
                current.extend(next);
            }
            '[' if !in_class => {
                in_class = true;
                current.push(c);
                // `]` right after `[` or `[!` is a member, not the end.
                if chars.peek() == Some(&'!') || chars.peek() == Some(&'^') {
                    current.extend(chars.next());
                }
                if chars.peek() == Some(&']') {
                    current.extend(chars.next());
                }
            }
            ']' if in_class => {
                in_class = false;
                current.push(c);
            }
            '{' if !in_class => {
                braces += 1;
                current.push(c);
            }
            '}' if !in_class => {
                braces = braces.saturating_sub(1);
                current.push(c);
            }
            '/' if braces > 0 || in_class => return None,
            '/' => segments.push(std::mem::take(&mut current)),
            c => current.push(c),
        }
    }
    segments.push(current);
    Some(segments)
}

fn compile_segments(pattern: &str) -> Option<Vec<Seg>> {
    split_segments(pattern)?
        .into_iter()
        .map(|segment| {
            if segment == "**" {
                return Some(Seg::Recursive);
            }
            // A `**` inside a segment is two `*` to globset; alone in a
            // segment glob it would be recursive, so keep it out.
            if segment.contains('{') && segment.contains("**") {
                return None;
            }
            let matcher = GlobBuilder::new(&segment)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
                .ok()?
                .compile_matcher();
            Some(Seg::One(segment, matcher))
        })
        .collect()
}

/// Reads `pattern` against `subject` one path segment at a time, keeping
/// every pattern position still possible (a `**` may take zero or more
/// segments; a trailing one at least one, as `src/**` needs `src/`).
fn segment_walk(pattern: &str, subject: &str) -> Option<Walk> {
    let segs = compile_segments(pattern)?;
    // `**`, `**/`, `**/**`: globset reads these as one leading `**/`, which
    // alone matches everything.
    let body = match segs.split_last() {
        Some((Seg::One(text, _), body)) if text.is_empty() && !body.is_empty() => body,
        _ => &segs[..],
    };
    if body.iter().all(|seg| matches!(seg, Seg::Recursive)) {
        return Some(Walk::Match);
    }
    let parts: Vec<&str> = subject.split('/').collect();
    let mut states = vec![0];
    close(&segs, &mut states);
    // The state sets before each path segment, for the explanation.
    let mut history: Vec<Vec<usize>> = Vec::with_capacity(parts.len());
    for (k, part) in parts.iter().enumerate() {
        let next = step(&segs, &states, part);
        if next.is_empty() {
            return Some(Walk::Miss(Stop {
                matched_prefix: parts[..k].join("/"),
                segment: k,
                subject_segment: Some((*part).to_owned()),
                expected: expected(&segs, &states),
            }));
        }
        history.push(std::mem::replace(&mut states, next));
    }
    if states.contains(&segs.len()) {
        return Some(Walk::Match);
    }
    Some(Walk::Miss(stop_at_end(&segs, &parts, &history, &states)))
}

/// Adds to `states` the position after every `**` that is not the last
/// segment, since such a `**` may match nothing; sorted.
fn close(segs: &[Seg], states: &mut Vec<usize>) {
    let n = segs.len();
    let mut i = 0;
    while i < states.len() {
        let j = states[i];
        if matches!(segs.get(j), Some(Seg::Recursive)) && j + 1 < n && !states.contains(&(j + 1)) {
            states.push(j + 1);
        }
        i += 1;
    }
    states.sort_unstable();
}

/// Decides the pattern positions still possible after path segment `part`,
/// from the positions possible before it.
fn step(segs: &[Seg], states: &[usize], part: &str) -> Vec<usize> {
    let mut next = Vec::new();
    for &j in states {
        match segs.get(j) {
            // `**` takes this segment and may go on, or end here.
            Some(Seg::Recursive) => {
                next.push(j);
                next.push(j + 1);
            }
            Some(Seg::One(_, matcher)) if matcher.is_match(part) => next.push(j + 1),
            _ => {}
        }
    }
    next.sort_unstable();
    next.dedup();
    close(segs, &mut next);
    next.dedup();
    next
}

/// Decides where a pattern a `**` kept alive to the end of the path
/// stopped: at the last path segment when it was one pattern segment short
/// of a match, else past the path's end, naming what the pattern still wanted.
fn stop_at_end(segs: &[Seg], parts: &[&str], history: &[Vec<usize>], states: &[usize]) -> Stop {
    let n = segs.len();
    let last = parts.len() - 1;
    let before_last = history.get(last).map(Vec::as_slice).unwrap_or(&[]);
    let finishers: Vec<usize> = before_last
        .iter()
        .copied()
        .filter(|&j| {
            matches!(segs.get(j), Some(Seg::One(..))) && {
                let mut after = vec![j + 1];
                close(segs, &mut after);
                after.contains(&n)
            }
        })
        .collect();
    if !finishers.is_empty() {
        return Stop {
            matched_prefix: parts[..last].join("/"),
            segment: last,
            subject_segment: Some(parts[last].to_owned()),
            expected: expected(segs, &finishers),
        };
    }
    // Otherwise the path ended while the pattern wanted more: name the rest.
    let tail = |j: usize| {
        segs[j..]
            .iter()
            .map(|seg| match seg {
                Seg::Recursive => "**",
                Seg::One(text, _) => text.as_str(),
            })
            .collect::<Vec<_>>()
            .join("/")
    };
    let mut rests: Vec<String> = states
        .iter()
        .filter(|&&j| matches!(segs.get(j), Some(Seg::One(..))))
        .map(|&j| tail(j))
        .collect();
    if rests.is_empty() {
        rests = states
            .iter()
            .filter(|&&j| j < n)
            .map(|&j| tail(j))
            .collect();
    }
    rests.dedup();
    Stop {
        matched_prefix: parts.join("/"),
        segment: parts.len(),
        subject_segment: None,
        expected: rests,
    }
}

/// The pattern segments at `states`, as written (`""` for the end).
fn expected(segs: &[Seg], states: &[usize]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &j in states {
        let shown = match segs.get(j) {
            Some(Seg::Recursive) => "**".to_owned(),
            Some(Seg::One(text, _)) => text.clone(),
            None => String::new(),
        };
        if !out.contains(&shown) {
            out.push(shown);
        }
    }
    out
}

/// Where a rule file sits for one convention: the directory whose scan
/// finds it, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RuleLocation {
    /// The convention's name ([`RuleSource::name`]).
    pub source: String,
    /// The directory whose scan finds the file: root-relative,
    /// `/`-separated, `""` for the root.
    pub owner: String,
    /// The candidate name (`CLAUDE.md`, `.claude/CLAUDE.md`) or the rule
    /// folder (`.claude/rules`) it was found through.
    pub via: String,
    /// Whether it was found through a rule folder.
    pub rule_folder: bool,
}

/// Every way the conventions in `sources` would find the root-relative,
/// `/`-separated `file`, in source order: as a candidate name of some
/// directory, or inside a rule folder of some directory (with the folder's
/// suffix, and only directly inside it unless the folder is recursive).
///
/// ```
/// use jit_core::{AgentsSource, ClaudeSource, RuleSource, rule_locations};
/// let sources: [&dyn RuleSource; 2] = [&ClaudeSource::default(), &AgentsSource::default()];
/// let found = rule_locations("src/.claude/rules/ui/tsx.md", &sources);
/// assert_eq!(found[0].owner, "src");
/// assert_eq!(found[0].via, ".claude/rules");
/// assert_eq!(rule_locations("docs/AGENTS.md", &sources)[0].source, "agents");
/// assert!(rule_locations("docs/notes.md", &sources).is_empty());
/// ```
pub fn rule_locations(file: &str, sources: &[&dyn RuleSource]) -> Vec<RuleLocation> {
    let mut found = Vec::new();
    for source in sources {
        for name in source.files() {
            if let Some(owner) = owner_of(file, name) {
                found.push(RuleLocation {
                    source: source.name().to_owned(),
                    owner: owner.to_owned(),
                    via: (*name).to_owned(),
                    rule_folder: false,
                });
            }
        }
        for rule_dir in source.rule_dirs() {
            let folder = rule_dir.path.as_str();
            // Every place the folder's segments appear in the path.
            let mut start = 0;
            while let Some(at) = file[start..].find(folder).map(|i| i + start) {
                start = at + 1;
                let before_ok = at == 0 || file[..at].ends_with('/');
                let Some(rest) = file[at + folder.len()..].strip_prefix('/') else {
                    continue;
                };
                if !before_ok
                    || rest.is_empty()
                    || !rest.ends_with(rule_dir.suffix.as_str())
                    || rest.ends_with('/')
                    || (!rule_dir.recursive && rest.contains('/'))
                {
                    continue;
                }
                found.push(RuleLocation {
                    source: source.name().to_owned(),
                    owner: file[..at].trim_end_matches('/').to_owned(),
                    via: folder.to_owned(),
                    rule_folder: true,
                });
            }
        }
    }
    found
}

/// The directory part of `file` when it ends with the candidate `name`
/// on a segment boundary.
fn owner_of<'a>(file: &'a str, name: &str) -> Option<&'a str> {
    if file == name {
        return Some("");
    }
    file.strip_suffix(name)?.strip_suffix('/')
}

/// A rule file's head as the engine reads it: its scope and the warnings
/// the parse gave.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RuleHead {
    /// Whether a frontmatter block was read.
    pub frontmatter: bool,
    /// The scope.
    pub scope: HeadScope,
    /// Problems a user should fix (a recovered unquoted pattern, an empty
    /// scope key).
    pub warnings: Vec<String>,
    /// A scope key's line was not valid YAML (`paths: **/*.cs`) and its
    /// patterns were read literally: the engine loads the rule, but other
    /// tools may not, until the patterns are quoted.
    pub recovered: bool,
}

/// The scope of a rule file.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum HeadScope {
    /// No scope: it applies to everything under its directory.
    Always,
    /// Applies to the root-relative paths these patterns match.
    Paths(CompiledScope),
    /// Never injected automatically, for this reason.
    Manual(String),
}

/// Why a rule file's head could not be read: the reason the engine records
/// (`invalid_frontmatter`, `yaml_too_complex`, `too_many_patterns`,
/// `pattern_too_long`) and its detail.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeadError {
    /// The engine's reason.
    pub reason: SkipReason,
    /// What is wrong and, where the parser knows, how to fix it.
    pub detail: String,
}

/// Parses a rule file's text with the parser and scope mapping the engine
/// runs for `source`.
///
/// ```
/// use jit_core::{ClaudeSource, HeadScope, inspect_rule};
/// let head = inspect_rule("---\npaths: **/*.py\n---\nType hints.\n", &ClaudeSource::default()).unwrap();
/// let HeadScope::Paths(scope) = &head.scope else { panic!() };
/// assert_eq!(scope.patterns(), ["**/*.py"]);
/// assert!(head.warnings[0].contains("Quote the patterns"));
/// assert!(head.recovered);
/// ```
pub fn inspect_rule(text: &str, source: &dyn RuleSource) -> Result<RuleHead, HeadError> {
    let parsed = parse_rule(text, source).map_err(|rejection| HeadError {
        reason: rejection.reason,
        detail: rejection.detail,
    })?;
    Ok(RuleHead {
        frontmatter: parsed.frontmatter,
        scope: match parsed.scope {
            RuleScope::Always => HeadScope::Always,
            RuleScope::Paths(compiled) => HeadScope::Paths(compiled),
            RuleScope::Manual(why) | RuleScope::Excluded(why) => HeadScope::Manual(why),
        },
        // The parser says so in the warning it gives for each recovered key.
        recovered: parsed
            .warnings
            .iter()
            .any(|w| w.contains("it was read literally as")),
        warnings: parsed.warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::source::{AgentsSource, ClaudeSource, GeminiSource};

    #[track_caller]
    fn check(pattern: &str, subject: &str, expected: &str) {
        let trace = trace_pattern(pattern, subject).unwrap();
        assert_eq!(trace.to_string(), expected, "{pattern} vs {subject}");
    }

    #[test]
    fn a_miss_names_the_segment_where_the_pattern_stopped() {
        check(
            "src/ui/**/*.tsx",
            "src/ui/Footer.tsx",
            "`src/ui/Footer.tsx` matches `src/ui/**/*.tsx`",
        );
        check(
            "src/ui/**",
            "docs/guide.md",
            "`src/ui/**` stops at segment 1, `docs`, which does not match `src`",
        );
        check(
            "src/ui/**/*.tsx",
            "src/ui/widgets/README.md",
            "`src/ui/**/*.tsx` follows `src/ui/widgets/` and stops at segment 4, `README.md`, \
             which does not match `*.tsx`",
        );
        check(
            "*.py",
            "scripts/gen.py",
            "`*.py` stops at segment 1, `scripts`, which does not match `*.py`",
        );
        check(
            "src/ui",
            "src/ui/a.ts",
            "`src/ui` follows `src/ui/` and stops at segment 3, `a.ts`, \
             where the pattern has already ended",
        );
        check(
            "src/ui/**",
            "src/ui",
            "`src/ui/**` follows `src/ui/`, but the path ends there, while the pattern still \
             wants `**`",
        );
        check(
            "src/{api,db}/*.ts",
            "src/ui/a.ts",
            "`src/{api,db}/*.ts` follows `src/` and stops at segment 2, `ui`, which does not \
             match `{api,db}`",
        );
        // A `/` inside braces crosses segments: the verdict stays, unexplained.
        check(
            "{src/ui,lib}/**",
            "docs/a.md",
            "`docs/a.md` does not match `{src/ui,lib}/**`",
        );
    }

    #[test]
    fn a_stop_before_a_recursive_segment_lists_both_choices() {
        let trace = trace_pattern("src/**/test/*.rs", "src/a/b.rs").unwrap();
        let stop = trace.stop.unwrap();
        assert_eq!(stop.matched_prefix, "src/a/b.rs");
        assert_eq!(stop.subject_segment, None);
        assert_eq!(stop.expected, ["test/*.rs"]);
    }

    #[test]
    fn rule_locations_follow_each_source() {
        let sources: [&dyn RuleSource; 3] = [
            &ClaudeSource::default(),
            &AgentsSource::default(),
            &GeminiSource::default(),
        ];
        let find = |file: &str| {
            rule_locations(file, &sources)
                .into_iter()
                .map(|l| format!("{} {} {}", l.source, l.owner, l.via))
                .collect::<Vec<_>>()
        };
        assert_eq!(find("CLAUDE.md"), ["claude  CLAUDE.md"]);
        assert_eq!(find("src/ui/CLAUDE.md"), ["claude src/ui CLAUDE.md"]);
        // Found by the scan of `src`, or by that of `src/.claude` when a
        // touched path is inside that folder.
        assert_eq!(
            find("src/.claude/CLAUDE.md"),
            [
                "claude src/.claude CLAUDE.md",
                "claude src .claude/CLAUDE.md"
            ]
        );
        assert_eq!(find(".claude/rules/a/b.md"), ["claude  .claude/rules"]);
        assert_eq!(find("AGENTS.md"), ["agents  AGENTS.md"]);
        assert_eq!(find("x/GEMINI.md"), ["gemini x GEMINI.md"]);
        assert!(find(".claude/rules/a.txt").is_empty());
        assert!(find(".claude/rules/").is_empty());
        assert!(find("xCLAUDE.md").is_empty());
        assert!(find("my.claude/rules/a.md").is_empty());
        assert!(find("notes/README.md").is_empty());
    }

    #[test]
    fn inspect_rule_reports_the_engine_reason() {
        let err = inspect_rule("---\npaths: [\n---\nx\n", &ClaudeSource::default()).unwrap_err();
        assert_eq!(err.reason, SkipReason::InvalidFrontmatter);
        let head = inspect_rule("plain text\n", &ClaudeSource::default()).unwrap();
        assert!(matches!(head.scope, HeadScope::Always));
        assert!(!head.frontmatter);
        let quoted = inspect_rule(
            "---\npaths: [\"**/*.py\"]\n---\nx\n",
            &ClaudeSource::default(),
        )
        .unwrap();
        assert!(!quoted.recovered && quoted.warnings.is_empty());
        for unquoted in ["paths: **/*.py", "paths: {a,b}/**", "paths:\n  - **/*.py"] {
            let head = inspect_rule(
                &format!("---\n{unquoted}\n---\nx\n"),
                &ClaudeSource::default(),
            )
            .unwrap();
            assert!(head.recovered, "{unquoted}: {:?}", head.warnings);
        }
    }

    mod agreement {
        use proptest::prelude::*;

        use super::super::*;

        fn pattern_segment() -> impl Strategy<Value = String> {
            prop::sample::select(vec![
                "**",
                "*",
                "a",
                "b",
                "src",
                "*.rs",
                "a*",
                "?",
                "{a,b}",
                "[ab]",
                "[!a]",
                "",
                "a**",
                "**b",
                "x.{rs,md}",
                "\\*",
            ])
            .prop_map(str::to_owned)
        }

        fn subject_segment() -> impl Strategy<Value = String> {
            prop::sample::select(vec!["a", "b", "src", "x.rs", "a.rs", "", "*", "ab", "x.md"])
                .prop_map(str::to_owned)
        }

        fn wild_pattern() -> impl Strategy<Value = String> {
            prop::collection::vec(
                prop::sample::select(vec![
                    "a", "/", "*", "**", "{", "}", ",", "[", "]", "?", "!", "\\", ".rs", "src",
                ]),
                1..10,
            )
            .prop_map(|parts| parts.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

            /// The segment reading agrees with globset on every pattern it
            /// models, so an explanation is rarely dropped.
            #[test]
            fn the_segment_reading_agrees_with_the_matcher(
                pattern in prop::collection::vec(pattern_segment(), 1..5),
                subject in prop::collection::vec(subject_segment(), 1..5),
            ) {
                let pattern = pattern.join("/");
                let subject = subject.join("/");
                let real = CompiledScope::new([&pattern]).unwrap().is_match(&subject);
                let walk = segment_walk(&pattern, &subject);
                let modelled = match walk {
                    Some(Walk::Match) => Some(true),
                    Some(Walk::Miss(_)) => Some(false),
                    None => None,
                };
                prop_assert_eq!(modelled, Some(real), "{} vs {}", pattern, subject);
            }

            /// Whatever the pattern, the trace's verdict is the matcher's,
            /// and a miss it explains is a miss the matcher sees.
            #[test]
            fn the_trace_never_disagrees_with_the_matcher(
                pattern in wild_pattern(),
                subject in prop::collection::vec(subject_segment(), 1..5),
            ) {
                let subject = subject.join("/");
                let Ok(scope) = CompiledScope::new([&pattern]) else {
                    return Ok(());
                };
                let trace = trace_pattern(&pattern, &subject).unwrap();
                prop_assert_eq!(trace.matched, scope.is_match(&subject));
                if trace.matched {
                    prop_assert!(trace.stop.is_none());
                }
                // Where the segment reading has an answer, it is the matcher's.
                match segment_walk(&pattern, &subject) {
                    Some(Walk::Match) => prop_assert!(trace.matched, "{} vs {}", pattern, subject),
                    Some(Walk::Miss(_)) => prop_assert!(!trace.matched, "{} vs {}", pattern, subject),
                    None => {}
                }
            }
        }
    }
}
