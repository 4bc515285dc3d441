//! Scope matching: compiled `paths:` globs and the `ScopeMatcher` trait with its JIT and signal implementations.

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use jit_base::{Error, ErrorKind};

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
    set: GlobSet,
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
        let mut builder = GlobSetBuilder::new();
        let mut kept = Vec::new();
        for pattern in patterns {
            let pattern = pattern.as_ref();
            builder.add(compile(pattern)?);
            kept.push(pattern.to_owned());
        }
        let set = builder.build().map_err(|err| {
            Error::new(
                ErrorKind::InvalidGlob,
                format!("cannot compile scope {kept:?}: {err}"),
            )
        })?;
        Ok(CompiledScope {
            patterns: kept,
            set,
        })
    }

    /// The patterns as written (after `./` was dropped).
    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }

    /// Whether `subject` (root-relative, `/`-separated) matches any pattern.
    pub fn is_match(&self, subject: &str) -> bool {
        self.set.is_match(subject)
    }

    /// The first pattern that matches `subject`, for explanations.
    pub fn first_match(&self, subject: &str) -> Option<&str> {
        self.set
            .matches(subject)
            .first()
            .and_then(|&i| self.patterns.get(i))
            .map(String::as_str)
    }
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

/// The JIT matcher: the touched path, relative to the project root.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TouchedPathMatcher<'a> {
    subject: &'a str,
}

impl<'a> TouchedPathMatcher<'a> {
    /// A matcher for one touched path (root-relative, `/`-separated; a
    /// directory ends with `/`).
    pub(crate) fn new(subject: &'a str) -> Self {
        TouchedPathMatcher { subject }
    }
}

impl ScopeMatcher for TouchedPathMatcher<'_> {
    fn decide(&self, scope: &CompiledScope) -> ScopeDecision {
        match scope.first_match(self.subject) {
            Some(pattern) => ScopeDecision {
                matched: true,
                detail: format!("`{}` matches `{pattern}`", self.subject),
            },
            None => ScopeDecision {
                matched: false,
                detail: format!("`{}` matches none of {:?}", self.subject, scope.patterns()),
            },
        }
    }
}

/// The startup matcher: any of the startup signals (a cwd marker ending in
/// `/`, changed files).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SignalMatcher<'a> {
    signals: &'a [String],
}

impl<'a> SignalMatcher<'a> {
    /// A matcher over startup signals. No signal matches nothing: a missing
    /// signal never means "match everything".
    pub(crate) fn new(signals: &'a [String]) -> Self {
        SignalMatcher { signals }
    }
}

impl ScopeMatcher for SignalMatcher<'_> {
    fn decide(&self, scope: &CompiledScope) -> ScopeDecision {
        for signal in self.signals {
            if let Some(pattern) = scope.first_match(signal) {
                return ScopeDecision {
                    matched: true,
                    detail: format!("signal `{signal}` matches `{pattern}`"),
                };
            }
        }
        ScopeDecision {
            matched: false,
            detail: format!(
                "no startup signal {:?} matches {:?}",
                self.signals,
                scope.patterns()
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
        let decision = SignalMatcher::new(&signals).decide(&scope);
        assert!(decision.matched);
        assert_eq!(
            decision.detail,
            "signal `src/ui/Badge.tsx` matches `src/ui/**/*.tsx`"
        );
        // No signal matches nothing, never everything.
        assert!(!SignalMatcher::new(&signals[..1]).decide(&scope).matched);
        assert!(!SignalMatcher::new(&[]).decide(&scope).matched);
    }

    #[test]
    fn invalid_glob_is_an_error_naming_it() {
        let err = CompiledScope::new(["src/[a"]).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::InvalidGlob);
        assert!(err.to_string().contains("src/[a"));
    }
}
