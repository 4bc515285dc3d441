//! Scope matching: compiled `paths:` globs and the `ScopeMatcher` trait with its JIT and signal implementations.

mod simple;

use std::borrow::Cow;
use std::cell::OnceCell;
use std::sync::OnceLock;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use jit_base::{Error, ErrorKind};
use simple::SimpleGlob;

/// Scopes whose patterns add up to at most this many bytes are compiled on
/// their first possible match instead of up front. Parsing (which finds
/// every invalid pattern) still happens up front; what waits is the build
/// of the matching automata, the costly part of a first touch, which a
/// path outside every pattern's literal prefix never needs. Below this size
/// that build cannot fail (its only failure is the automata's size limit,
/// megabytes away); a larger scope is built up front, as before, so a
/// failure is still an error of [`CompiledScope::new`].
const LAZY_SCOPE_BYTES: usize = 512;

/// The most distinct patterns one rule's scope may list. Real rules list a
/// few, a few dozen at most; past this the rule is refused as
/// `too_many_patterns` before any pattern is compiled, so a scope of tens of
/// thousands of patterns costs nothing per touch.
pub const MAX_SCOPE_PATTERNS: usize = 256;

/// The longest scope pattern, in bytes. Real patterns are a path or two
/// long; past this the rule is refused as `pattern_too_long` before any
/// pattern is compiled.
pub const MAX_PATTERN_BYTES: usize = 1_024;

/// A rule's scope patterns, compiled with `literal_separator(true)` (`*`
/// never crosses `/`), case-sensitive, against root-relative `/`-separated
/// paths.
///
/// ```
/// use jit_core::CompiledScope;
/// let scope = CompiledScope::new(["src/*.rs", "docs/**"])?;
/// assert_eq!(scope.first_match("src/lib.rs"), Some("src/*.rs"));
/// assert_eq!(scope.first_match("docs/a/b.md"), Some("docs/**"));
/// assert!(!scope.is_match("src/a/b.rs")); // `*` stops at `/`
/// assert!(!scope.is_match("SRC/lib.rs")); // case-sensitive
/// assert!(CompiledScope::new(["src/[a"]).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct CompiledScope {
    patterns: Vec<String>,
    /// The length of each pattern's literal start (up to its first
    /// `*?[{\\`): a path that starts with none of them matches no pattern.
    prefixes: Vec<usize>,
    /// The parsed patterns, kept until the set is built; empty for a
    /// simple scope, whose patterns are parsed only if it ever is.
    globs: Vec<Glob>,
    /// Every pattern in its simple form, when each has one: then the glob
    /// set is never built (see [`simple`]).
    simple: Option<Vec<SimpleGlob>>,
    set: OnceLock<GlobSet>,
    /// The patterns as a `Debug` list, made once for the decisions'
    /// details (a scope miss names them on every touch it misses).
    shown: OnceLock<String>,
}

impl CompiledScope {
    /// Compiles `patterns`; any invalid pattern is an error naming it.
    ///
    /// ```
    /// let scope = jit_core::CompiledScope::new(["src/ui/**"])?;
    /// assert!(scope.is_match("src/ui/a.rs"));
    /// assert!(scope.is_match("src/ui/"));
    /// assert!(!scope.is_match("src/ui"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new<I, S>(patterns: I) -> Result<Self, Error>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        Self::from_owned(
            patterns
                .into_iter()
                .map(|p| p.as_ref().to_owned())
                .collect(),
        )
    }

    /// [`CompiledScope::new`] of patterns the caller gives up, kept as
    /// they are instead of copied.
    pub(crate) fn from_owned(kept: Vec<String>) -> Result<Self, Error> {
        let simple: Option<Vec<SimpleGlob>> = kept.iter().map(|p| SimpleGlob::new(p)).collect();
        // A simple pattern is always a valid glob (a test pins it): it is
        // parsed as one only if the glob set is ever built.
        let globs = match simple {
            Some(_) => Vec::new(),
            None => kept.iter().map(|p| compile(p)).collect::<Result<_, _>>()?,
        };
        let prefixes = kept.iter().map(|p| literal_prefix(p).len()).collect();
        let scope = CompiledScope {
            patterns: kept,
            prefixes,
            globs,
            simple,
            set: OnceLock::new(),
            shown: OnceLock::new(),
        };
        if scope.simple.is_none()
            && scope.patterns.iter().map(String::len).sum::<usize>() > LAZY_SCOPE_BYTES
        {
            let set = build(&scope.globs, &scope.patterns)?;
            let _ = scope.set.set(set);
        }
        Ok(scope)
    }

    /// The patterns parsed as globs: kept from [`CompiledScope::new`], or
    /// parsed now for a simple scope (which cannot fail, see there).
    fn parsed(&self) -> Cow<'_, [Glob]> {
        match self.simple {
            Some(_) => Cow::Owned(
                self.patterns
                    .iter()
                    .filter_map(|p| compile(p).ok())
                    .collect(),
            ),
            None => Cow::Borrowed(&self.globs),
        }
    }

    /// The matching automata, built on first use.
    fn set(&self) -> &GlobSet {
        self.set.get_or_init(|| {
            // Cannot fail below LAZY_SCOPE_BYTES (see there); an empty set
            // would match nothing, never everything.
            build(&self.parsed(), &self.patterns).unwrap_or_else(|_| GlobSet::empty())
        })
    }

    /// Whether some pattern's literal start begins `subject`: if none does,
    /// no pattern can match it, and the automata are not needed.
    fn may_match(&self, subject: &str) -> bool {
        self.patterns
            .iter()
            .zip(&self.prefixes)
            // A prefix that could not be cut (never: it ends at an ASCII
            // byte) rules nothing out.
            .any(|(pattern, &len)| pattern.get(..len).is_none_or(|p| subject.starts_with(p)))
    }

    /// The patterns as written (after `./` was dropped).
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// The patterns as a `Debug` list (`["src/**/*.ts", "lib/"]`), made on
    /// first use and kept.
    pub(crate) fn patterns_shown(&self) -> &str {
        self.shown.get_or_init(|| debug_list(&self.patterns))
    }

    /// Whether `subject` (root-relative, `/`-separated) matches any pattern.
    pub fn is_match(&self, subject: &str) -> bool {
        if !self.may_match(subject) {
            return false;
        }
        match self
            .simple
            .as_deref()
            .map(|simple| simple::first_match(simple, &simple::segments(subject)))
        {
            Some(Ok(first)) => first.is_some(),
            // No simple form, or a match too long for one: the glob set.
            Some(Err(_)) | None => self.set().is_match(subject),
        }
    }

    /// The first pattern that matches `subject`, for explanations.
    pub fn first_match(&self, subject: &str) -> Option<&str> {
        self.first_match_in(&Subject::new(subject))
    }

    /// [`CompiledScope::first_match`] of a subject split once for every
    /// scope it is matched against.
    pub(crate) fn first_match_in(&self, subject: &Subject<'_>) -> Option<&str> {
        let text = subject.text;
        if !self.may_match(text) {
            return None;
        }
        if let Some(Ok(first)) = self
            .simple
            .as_deref()
            .map(|simple| simple::first_match(simple, subject.segments()))
        {
            return self.patterns.get(first?).map(String::as_str);
        }
        // Most subjects match nothing: `is_match` can stop at the first
        // sign of that, the list of every match cannot.
        if !self.set().is_match(text) {
            return None;
        }
        self.set()
            .matches(text)
            .first()
            .and_then(|&i| self.patterns.get(i))
            .map(String::as_str)
    }
}

/// `items` as `format!("{items:?}")` writes them, without the formatting
/// machinery when no item holds a character `Debug` escapes (printable
/// ASCII but `"` and `\`: every pattern seen in practice).
fn debug_list(items: &[String]) -> String {
    let plain = |item: &String| {
        item.bytes()
            .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
    };
    if !items.iter().all(plain) {
        return format!("{items:?}");
    }
    let len = items.iter().map(|item| item.len() + 4).sum::<usize>() + 2;
    let mut out = String::with_capacity(len);
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push('"');
        out.push_str(item);
        out.push('"');
    }
    out.push(']');
    out
}

/// The set of `globs` (the parsed `patterns`), or an error naming them.
fn build(globs: &[Glob], patterns: &[String]) -> Result<GlobSet, Error> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        builder.add(glob.clone());
    }
    builder.build().map_err(|err| {
        Error::new(
            ErrorKind::InvalidGlob,
            format!("cannot compile scope {patterns:?}: {err}"),
        )
    })
}

/// A pattern's literal start: everything before its first glob
/// metacharacter or escape. Every path the pattern matches starts with it.
fn literal_prefix(pattern: &str) -> &str {
    let end = pattern
        .find(['*', '?', '[', '{', '\\'])
        .unwrap_or(pattern.len());
    &pattern[..end]
}

fn compile(pattern: &str) -> Result<Glob, Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|err| {
            Error::new(
                ErrorKind::InvalidGlob,
                format!("invalid glob `{pattern}`: {err}"),
            )
        })
}

/// Whether a scoped rule applies, and why (the `detail` of a decision).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScopeDecision {
    /// The rule applies.
    pub(crate) matched: bool,
    /// Which subject matched which pattern, or what was tried.
    pub(crate) detail: String,
}

/// Decides whether a scoped rule applies at this moment.
///
/// JIT discovery uses [`TouchedPathMatcher`] (the file actually touched); the
/// startup load uses [`SignalMatcher`] (the cwd marker and changed files).
///
/// Crate-private, with both matchers and [`ScopeDecision`]: nothing public
/// accepts a matcher (the engine picks one per call), and nothing outside
/// jit-core names one; `jit why` and `jit lint` judge a scope through
/// [`CompiledScope`], the public matcher, instead. Make one public again
/// only with an API that accepts it.
pub(crate) trait ScopeMatcher {
    /// Whether `scope` applies.
    fn decide(&self, scope: &CompiledScope) -> ScopeDecision;
}

/// A path scopes are matched against, with its segments (split at `/`)
/// made on the first simple scope's use and kept for the next: a touch
/// decides every scoped rule on its chain against the one path.
#[derive(Debug)]
pub(crate) struct Subject<'a> {
    text: &'a str,
    segments: OnceCell<Vec<&'a [u8]>>,
}

impl<'a> Subject<'a> {
    /// `text` (root-relative, `/`-separated), not split yet.
    pub(crate) fn new(text: &'a str) -> Self {
        Subject {
            text,
            segments: OnceCell::new(),
        }
    }

    fn segments(&self) -> &[&'a [u8]] {
        self.segments.get_or_init(|| simple::segments(self.text))
    }
}

/// The JIT matcher: the touched path, relative to the project root.
#[derive(Debug)]
pub(crate) struct TouchedPathMatcher<'a> {
    subject: Subject<'a>,
}

impl<'a> TouchedPathMatcher<'a> {
    /// A matcher for one touched path (root-relative, `/`-separated; a
    /// directory ends with `/`).
    pub(crate) fn new(subject: &'a str) -> Self {
        TouchedPathMatcher {
            subject: Subject::new(subject),
        }
    }
}

impl ScopeMatcher for TouchedPathMatcher<'_> {
    fn decide(&self, scope: &CompiledScope) -> ScopeDecision {
        let text = self.subject.text;
        match scope.first_match_in(&self.subject) {
            Some(pattern) => ScopeDecision {
                matched: true,
                detail: ["`", text, "` matches `", pattern, "`"].concat(),
            },
            None => ScopeDecision {
                matched: false,
                detail: ["`", text, "` matches none of ", scope.patterns_shown()].concat(),
            },
        }
    }
}

/// Where a [`SignalMatcher`] reads the startup signals: a list given up
/// front, or one computed the first time a scoped rule asks (the startup
/// load runs no change source when no rule could use a signal).
pub(crate) trait SignalList {
    /// The signals, computed on first use if they are lazy.
    fn signals(&self) -> &[String];
}

impl SignalList for [String] {
    fn signals(&self) -> &[String] {
        self
    }
}

/// The startup matcher: any of the startup signals (a cwd marker ending in
/// `/`, changed files).
#[derive(Debug)]
pub(crate) struct SignalMatcher<'a, L: SignalList + ?Sized = [String]> {
    signals: &'a L,
    /// Each signal as a [`Subject`], made on the first decision and kept
    /// for the next: every scoped rule is matched against the same signals.
    subjects: OnceCell<Vec<Subject<'a>>>,
}

impl<'a, L: SignalList + ?Sized> SignalMatcher<'a, L> {
    /// A matcher over startup signals. No signal matches nothing: a missing
    /// signal never means "match everything".
    pub(crate) fn new(signals: &'a L) -> Self {
        SignalMatcher {
            signals,
            subjects: OnceCell::new(),
        }
    }
}

impl<'a, L: SignalList + ?Sized> ScopeMatcher for SignalMatcher<'a, L> {
    fn decide(&self, scope: &CompiledScope) -> ScopeDecision {
        let list: &'a L = self.signals;
        let signals = list.signals();
        let subjects = self
            .subjects
            .get_or_init(|| signals.iter().map(|signal| Subject::new(signal)).collect());
        for (signal, subject) in signals.iter().zip(subjects) {
            if let Some(pattern) = scope.first_match_in(subject) {
                return ScopeDecision {
                    matched: true,
                    detail: format!("signal `{signal}` matches `{pattern}`"),
                };
            }
        }
        ScopeDecision {
            matched: false,
            detail: format!(
                "no startup signal {:?} matches {}",
                signals,
                scope.patterns_shown()
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(pattern: &str, subject: &str, expected: bool) {
        let scope = CompiledScope::new([pattern]).unwrap();
        assert_eq!(scope.is_match(subject), expected, "{pattern} vs {subject}");
    }

    #[test]
    fn glob_facts_of_the_design() {
        check("src/ui/**", "src/ui/", true);
        check("src/ui/**", "src/ui/a.rs", true);
        check("src/ui/**", "src/ui", false);
        check("src/ui/**", "src/ui/READ.md", true);
        check("**/*.py", "src/", false);
        check("**/*.py", "a.py", true);
        check("src/ui/**/*.tsx", "src/ui/README.md", false);
        check("src/ui/**/*.tsx", "src/ui/Footer.tsx", true);
        check("src/*.ts", "src/ui/a.ts", false);
        check("src/*.ts", "src/a.ts", true);
        check("SRC/**", "src/a.ts", false);
        check("src/**/*.{ts,tsx}", "src/a/b.tsx", true);
    }

    #[test]
    fn the_jit_matcher_judges_the_touched_path_and_the_startup_one_the_signals() {
        let scope = CompiledScope::new(["src/ui/**/*.tsx"]).unwrap();
        let touched = |subject: &str| TouchedPathMatcher::new(subject).decide(&scope);
        assert_eq!(
            touched("src/ui/Footer.tsx"),
            ScopeDecision {
                matched: true,
                detail: "`src/ui/Footer.tsx` matches `src/ui/**/*.tsx`".to_owned(),
            }
        );
        assert_eq!(
            touched("src/ui/README.md"),
            ScopeDecision {
                matched: false,
                detail: "`src/ui/README.md` matches none of [\"src/ui/**/*.tsx\"]".to_owned(),
            }
        );
        let signals = ["src/ui/".to_owned(), "src/ui/Badge.tsx".to_owned()];
        let decision = SignalMatcher::new(&signals[..]).decide(&scope);
        assert!(decision.matched);
        assert_eq!(
            decision.detail,
            "signal `src/ui/Badge.tsx` matches `src/ui/**/*.tsx`"
        );
        // No signal matches nothing, never everything.
        assert!(!SignalMatcher::new(&signals[..1]).decide(&scope).matched);
        assert!(!SignalMatcher::new(&signals[..0]).decide(&scope).matched);
    }

    #[test]
    fn invalid_glob_is_an_error_naming_it() {
        let err = CompiledScope::new(["src/[a"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidGlob);
        assert!(err.to_string().contains("src/[a"));
    }

    /// The literal start of a pattern stops at its first metacharacter or
    /// escape.
    #[test]
    fn a_literal_prefix_stops_at_the_first_metacharacter() {
        for (pattern, prefix) in [
            ("src/ui/**/*.tsx", "src/ui/"),
            ("**/*.py", ""),
            ("docs/a.md", "docs/a.md"),
            ("src/{a,b}/x", "src/"),
            ("src/[ab].rs", "src/"),
            ("src/?.rs", "src/"),
            ("src/\\*.rs", "src/"),
        ] {
            assert_eq!(literal_prefix(pattern), prefix, "{pattern}");
        }
    }

    /// A small scope builds its automata only when a path could match: a
    /// path outside every literal start never builds them. A large one is
    /// built up front, so a failure is still an error of `new`.
    #[test]
    fn a_small_scope_is_built_on_its_first_possible_match() {
        let scope = CompiledScope::new(["src/ui/**/*.tsx", "docs/*.{md,txt}"]).unwrap();
        assert!(scope.set.get().is_none());
        assert_eq!(scope.first_match("lib/a.tsx"), None);
        assert!(!scope.is_match("tools/x.md"));
        assert!(scope.set.get().is_none());
        assert_eq!(scope.first_match("docs/a.md"), Some("docs/*.{md,txt}"));
        assert!(scope.set.get().is_some());

        let long = format!("{}/{{a,b}}", "d".repeat(LAZY_SCOPE_BYTES));
        let scope = CompiledScope::new([long.as_str()]).unwrap();
        assert!(scope.set.get().is_some());
        let just = format!("{}{{a,b}}", "e".repeat(LAZY_SCOPE_BYTES - 5));
        assert!(
            CompiledScope::new([just.as_str()])
                .unwrap()
                .set
                .get()
                .is_none()
        );
    }

    /// A scope of simple patterns only (literal text, `*`, `?`, `**` as a
    /// segment) never builds the automata, however long or matched; one
    /// pattern that needs them sends the whole scope to the glob set.
    #[test]
    fn a_simple_scope_never_builds_the_glob_set() {
        let scope = CompiledScope::new(["src/ui/**/*.tsx", "docs/?.md", "**/test/**"]).unwrap();
        assert!(scope.simple.is_some());
        assert_eq!(scope.first_match("src/ui/a/b.tsx"), Some("src/ui/**/*.tsx"));
        assert_eq!(scope.first_match("docs/a.md"), Some("docs/?.md"));
        assert_eq!(scope.first_match("x/test/y.rs"), Some("**/test/**"));
        assert_eq!(scope.first_match("docs/ab.md"), None);
        assert!(scope.set.get().is_none());

        let long = format!("{}/**", "d".repeat(LAZY_SCOPE_BYTES));
        let scope = CompiledScope::new([long.as_str()]).unwrap();
        assert!(scope.is_match(&format!("{}/x", "d".repeat(LAZY_SCOPE_BYTES))));
        assert!(scope.set.get().is_none());

        // A match past the simple matcher's steps is the glob set's to
        // decide.
        let hard = format!("*{}?b", "a".repeat(40));
        let scope = CompiledScope::new([hard.as_str()]).unwrap();
        let long = "a".repeat(3_000);
        assert!(!scope.is_match(&long));
        assert!(scope.set.get().is_some());
        assert!(scope.is_match(&format!("{long}b")));
        assert_eq!(scope.first_match(&format!("{long}b")), Some(hard.as_str()));
        assert_eq!(scope.first_match("aab"), None);
        assert_eq!(
            scope.first_match(&format!("x{}b", "a".repeat(41))),
            Some(hard.as_str())
        );

        let mixed = CompiledScope::new(["src/**", "lib/[ab].rs"]).unwrap();
        assert!(mixed.simple.is_none());
        assert_eq!(mixed.first_match("lib/a.rs"), Some("lib/[ab].rs"));
        assert_eq!(mixed.first_match("src/x"), Some("src/**"));
        assert!(mixed.set.get().is_some());
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        /// The first of `scope`'s patterns that matches `subject`, by the
        /// glob set built up front.
        fn eager_first<'s>(scope: &'s CompiledScope, subject: &str) -> Option<&'s str> {
            let eager = build(&scope.parsed(), &scope.patterns).unwrap();
            eager
                .matches(subject)
                .first()
                .map(|&i| scope.patterns[i].as_str())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

            /// The prefix filter and the lazy build never change a decision:
            /// the scope agrees with the glob set built up front.
            #[test]
            fn the_prefix_filter_agrees_with_the_glob_set(
                patterns in proptest::collection::vec("[ab/*?{},\\[\\]]{0,8}", 1..4),
                subject in "[ab/]{0,8}",
            ) {
                let Ok(scope) = CompiledScope::new(&patterns) else {
                    return Ok(());
                };
                let expected = eager_first(&scope, &subject);
                prop_assert_eq!(scope.first_match(&subject), expected);
                prop_assert_eq!(scope.is_match(&subject), expected.is_some());
            }

            /// Scopes of simple patterns (no class, alternative or escape)
            /// decide as the glob set does, on paths with dots, empty
            /// segments and two-byte characters (`?` is one byte). Not on
            /// a `..` file name, which the glob set's file-name shortcuts
            /// take for none (`?.` did not match `..`; `*` did): a touched
            /// path reaches a scope with its `..` resolved.
            #[test]
            fn simple_patterns_agree_with_the_glob_set(
                patterns in proptest::collection::vec("[ab./*?é]{0,10}", 1..3),
                subject in "[ab./é]{0,12}",
            ) {
                if subject.rsplit('/').next() == Some("..") {
                    return Ok(());
                }
                let Ok(scope) = CompiledScope::new(&patterns) else {
                    return Ok(());
                };
                let expected = eager_first(&scope, &subject);
                prop_assert_eq!(scope.first_match(&subject), expected, "{:?}", scope.simple);
                prop_assert_eq!(scope.is_match(&subject), expected.is_some());
            }

            /// The patterns are shown as `Debug` shows a list of them,
            /// with or without characters it escapes.
            #[test]
            fn the_patterns_are_shown_as_debug_shows_them(
                patterns in proptest::collection::vec("[ab/*\"\\\\' ~\t\u{7f}é\u{301}]{0,6}", 0..4),
            ) {
                prop_assert_eq!(debug_list(&patterns), format!("{patterns:?}"));
            }

            /// A pattern the simple matcher takes is always a valid glob,
            /// so a simple scope can leave parsing its globs for later
            /// (and [`CompiledScope::new`] cannot have an error to report).
            #[test]
            fn a_simple_pattern_is_a_valid_glob(
                pattern in "([ab./*?é!^,\\-]|\\*\\*|\\[|\\]|\\{|\\}|\\\\){0,12}",
            ) {
                if SimpleGlob::new(&pattern).is_some() {
                    prop_assert!(compile(&pattern).is_ok(), "{:?}", pattern);
                    prop_assert!(CompiledScope::new([pattern.as_str()]).is_ok());
                }
            }

            /// The same, with patterns made of whole segments, so that
            /// several `**` meet runs of every length between them.
            #[test]
            fn double_star_runs_agree_with_the_glob_set(
                segments in proptest::collection::vec(
                    prop::sample::select(vec!["**", "a", "b", "*", "a*", "?", ""]),
                    1..8,
                ),
                subject in "[ab/]{0,14}",
            ) {
                let pattern = segments.join("/");
                let Ok(scope) = CompiledScope::new([pattern.as_str()]) else {
                    return Ok(());
                };
                let expected = eager_first(&scope, &subject);
                prop_assert_eq!(scope.first_match(&subject), expected, "{:?}", scope.simple);
            }
        }
    }
}
