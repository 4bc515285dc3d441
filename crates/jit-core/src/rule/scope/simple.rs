//! Scope patterns made only of literal text, `*`, `?` and whole-segment `**`, matched without building automata.
//!
//! Most `paths:` patterns are of this kind (`src/**/*.ts`, `**/*.tsx`,
//! `docs/**`). A glob set builds several automata and a regex for each
//! scope, which was the largest share of a first touch; these patterns are
//! matched here instead, with the glob set's meaning (property tests hold
//! the two together) but for the two cases named below:
//!
//! * `*` is any run of bytes but `/`, `?` one byte but `/`;
//! * `**/` at the start is any number of leading segments, `/**/` any
//!   number of segments in between (`a/**/b` matches `a/b`), `/**` at the
//!   end one segment or more (`a/**` matches `a/` and `a/b/c`, not `a`);
//! * `**` alone, or `**/` alone, matches every path.
//!
//! One difference, deliberate: a line feed in what `**` spans. The glob
//! set's regex does not let `**` span one, but its own shortcuts for the
//! common shapes (`**/*.rs` by extension, `docs/**` by prefix, `**/x` by
//! file name) do, so it matched `a\nb/x.rs` with `**/*.rs` and not
//! `a/\n/b` with `a/**/b`. Here `**` spans any byte, in every shape.
//! And one the engine never meets: those shortcuts take a last segment
//! `..` for no file name (`?.` did not match `..`, `*` did); here it is a
//! segment like any other. A touched path reaches a scope with its `..`
//! resolved.
//!
//! Anything else (classes, alternatives, escapes, `**` inside a segment,
//! `***`, `**/**`) is left to the glob set: [`SimpleGlob::new`] returns
//! `None` for it. So is a match that takes more than [`MATCH_STEPS`]: the
//! glob set's automata are linear in the path, this matcher is not at
//! worst (a pattern of a thousand bytes against a path of thousands).

/// One part of a simple pattern, between `/` separators.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    /// A segment of literal bytes, `*` and `?`.
    Segment(Segment),
    /// Any number of whole segments, none (`**/` first, `/**/` between).
    Any,
    /// One whole segment or more, to the end (`/**` last).
    Rest,
}

/// One segment of a pattern, in the shape it is matched by. Most segments
/// of real patterns are literal (`src`, `docs`) or a `*` before literal
/// text (`*.ts`): those are compared as bytes, with the meaning the walk
/// over pieces gives them (a segment holds no `/` for `*` to stop at).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// Literal bytes only: the path's segment is these bytes.
    Literal(Box<[u8]>),
    /// `*` then literal bytes: the path's segment ends with these.
    Suffix(Box<[u8]>),
    /// Any other mix of literal bytes, `*` and `?`.
    Pieces(Box<[Piece]>),
}

impl Segment {
    /// The shape of the pattern segment `text` (holding no `**`).
    fn new(text: &str) -> Segment {
        let bytes = text.as_bytes();
        let literal = |bytes: &[u8]| !bytes.iter().any(|b| matches!(b, b'*' | b'?'));
        if literal(bytes) {
            return Segment::Literal(bytes.into());
        }
        if let Some(rest) = bytes.strip_prefix(b"*")
            && literal(rest)
        {
            return Segment::Suffix(rest.into());
        }
        Segment::Pieces(
            bytes
                .iter()
                .map(|&b| match b {
                    b'*' => Piece::Star,
                    b'?' => Piece::One,
                    b => Piece::Byte(b),
                })
                .collect(),
        )
    }

    /// Whether the path's `segment` matches, each byte compared a step.
    fn matches(&self, segment: &[u8], steps: &mut usize) -> Result<bool, OutOfSteps> {
        match self {
            Segment::Literal(bytes) => {
                spend(steps, bytes.len())?;
                Ok(segment == &**bytes)
            }
            Segment::Suffix(bytes) => {
                spend(steps, bytes.len())?;
                Ok(segment.ends_with(bytes))
            }
            Segment::Pieces(pieces) => segment_matches(pieces, segment, steps),
        }
    }
}

/// Takes `n` steps from `steps`, or says they are spent.
fn spend(steps: &mut usize, n: usize) -> Result<(), OutOfSteps> {
    *steps = steps.checked_sub(n).ok_or(OutOfSteps)?;
    Ok(())
}

/// One piece of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    Byte(u8),
    /// `?`: one byte but `/`.
    One,
    /// `*`: any run of bytes but `/`.
    Star,
}

/// A pattern the glob set would read as literal text, `*`, `?` and
/// whole-segment `**` only, compiled to parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SimpleGlob {
    parts: Vec<Part>,
    /// `**` or `**/`: every path.
    everything: bool,
}

impl SimpleGlob {
    /// The simple form of `pattern`, or `None` when it needs the glob set.
    pub(super) fn new(pattern: &str) -> Option<SimpleGlob> {
        if pattern
            .bytes()
            .any(|b| matches!(b, b'[' | b']' | b'{' | b'}' | b'\\'))
        {
            return None;
        }
        if pattern == "**" || pattern == "**/" {
            return Some(SimpleGlob {
                parts: Vec::new(),
                everything: true,
            });
        }
        // The index of the last segment: one per `/` after the first.
        let last = pattern.bytes().filter(|&b| b == b'/').count();
        let mut parts = Vec::with_capacity(last + 1);
        for (i, segment) in pattern.split('/').enumerate() {
            if segment == "**" {
                // Not right after another `**` (`**/**`, `a/**/**`): the
                // glob set merges those its own way.
                if matches!(parts.last(), None | Some(Part::Segment(_))) {
                    parts.push(if i == last && i > 0 {
                        Part::Rest
                    } else {
                        Part::Any
                    });
                    continue;
                }
                return None;
            }
            if segment.contains("**") {
                return None;
            }
            parts.push(Part::Segment(Segment::new(segment)));
        }
        Some(SimpleGlob {
            parts,
            everything: false,
        })
    }

    /// Whether the path of `segments` (split at `/`) matches, as the glob
    /// set would decide; [`OutOfSteps`] once `steps` are spent.
    ///
    /// The parts between two `**` are runs of segments, and each run is
    /// placed at its leftmost fit after the one before: the run before
    /// the first `**` at the start, the run after the last at the end (or,
    /// before a final `/**`, leaving one segment at least). Leftmost is
    /// never worse, since all that follows asks is room after it, so no
    /// choice is tried twice, and no memory is needed.
    fn matches(&self, segments: &[&[u8]], steps: &mut usize) -> Result<bool, OutOfSteps> {
        if self.everything {
            return Ok(true);
        }
        let (parts, rest) = match self.parts.split_last() {
            Some((Part::Rest, before)) => (before, true),
            _ => (self.parts.as_slice(), false),
        };
        let mut runs = parts.split(|part| *part == Part::Any);
        let Some(first) = runs.next() else {
            return Ok(false);
        };
        let Some(last) = runs.next_back() else {
            // No `**` but maybe a final `/**`: the run from the start,
            // then one segment or more (or nothing more without it).
            let room = if rest {
                segments.len() > first.len()
            } else {
                segments.len() == first.len()
            };
            return Ok(room && run_matches(first, segments, steps)?);
        };
        if !run_matches(first, segments, steps)? {
            return Ok(false);
        }
        let mut at = first.len();
        for run in runs {
            match leftmost(run, segments, at, segments.len(), steps)? {
                Some(found) => at = found + run.len(),
                None => return Ok(false),
            }
        }
        if rest {
            // Leftmost, ending before the last segment.
            let end = segments.len().saturating_sub(1);
            return Ok(leftmost(last, segments, at, end, steps)?.is_some());
        }
        // Anchored at the end, after what came before.
        match segments.len().checked_sub(last.len()) {
            Some(start) if start >= at => run_matches(last, &segments[start..], steps),
            _ => Ok(false),
        }
    }
}

/// The most steps (a byte or piece compared) the simple patterns of one
/// scope may take on one path before the glob set decides instead: real
/// paths and patterns take a few hundred, and a stranger's pattern of a
/// thousand bytes against a path of thousands cannot make a touch slow.
const MATCH_STEPS: usize = 1 << 16;

/// A match that spent its steps ([`MATCH_STEPS`]).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct OutOfSteps;

/// The index of the first of `globs` that the path of `segments` (its
/// [`segments`]) matches, within [`MATCH_STEPS`] for them all.
pub(super) fn first_match(
    globs: &[SimpleGlob],
    segments: &[&[u8]],
) -> Result<Option<usize>, OutOfSteps> {
    let mut steps = MATCH_STEPS;
    for (i, glob) in globs.iter().enumerate() {
        if glob.matches(segments, &mut steps)? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// `subject` split at `/`, in one pass, into a vector with room for a
/// path [`SEGMENTS`] deep (it grows past that). A touch splits its path
/// once for every scope it decides (see `Subject`).
pub(super) fn segments(subject: &str) -> Vec<&[u8]> {
    let mut segments = Vec::with_capacity(SEGMENTS);
    segments.extend(subject.as_bytes().split(|&b| b == b'/'));
    segments
}

/// The segments [`segments`] has room for up front: deeper than almost
/// every real path, small enough not to matter.
const SEGMENTS: usize = 16;

/// Whether the segment parts of `run` match the first segments of
/// `segments`, one each.
fn run_matches(run: &[Part], segments: &[&[u8]], steps: &mut usize) -> Result<bool, OutOfSteps> {
    if run.len() > segments.len() {
        return Ok(false);
    }
    for (part, segment) in run.iter().zip(segments) {
        let Part::Segment(pattern) = part else {
            return Ok(false);
        };
        if !pattern.matches(segment, steps)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The first start at or after `from` where `run` fits and ends at or
/// before `end`.
fn leftmost(
    run: &[Part],
    segments: &[&[u8]],
    from: usize,
    end: usize,
    steps: &mut usize,
) -> Result<Option<usize>, OutOfSteps> {
    let Some(last_start) = end.checked_sub(run.len()) else {
        return Ok(None);
    };
    for start in from..=last_start {
        if run_matches(run, &segments[start..end], steps)? {
            return Ok(Some(start));
        }
    }
    Ok(None)
}

/// Whether one segment matches its pieces: literal bytes, `?` (one byte)
/// and `*` (any run), by the usual two-pointer walk that goes back to the
/// last `*` on a mismatch (linear in practice, quadratic at worst, each
/// step counted).
fn segment_matches(
    pieces: &[Piece],
    segment: &[u8],
    steps: &mut usize,
) -> Result<bool, OutOfSteps> {
    let (mut p, mut s) = (0, 0);
    // The last `*` seen, and where in the segment its run ends for now.
    let mut star: Option<(usize, usize)> = None;
    while s < segment.len() {
        spend(steps, 1)?;
        match pieces.get(p) {
            Some(Piece::Star) => {
                star = Some((p, s));
                p += 1;
            }
            Some(Piece::One) => {
                p += 1;
                s += 1;
            }
            Some(Piece::Byte(b)) if *b == segment[s] => {
                p += 1;
                s += 1;
            }
            _ => match star {
                Some((star_p, star_s)) => {
                    p = star_p + 1;
                    s = star_s + 1;
                    star = Some((star_p, star_s + 1));
                }
                None => return Ok(false),
            },
        }
    }
    Ok(pieces[p..].iter().all(|piece| *piece == Piece::Star))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(pattern: &str, subject: &str, expected: bool) {
        let glob = SimpleGlob::new(pattern).unwrap();
        let found = first_match(std::slice::from_ref(&glob), &segments(subject));
        assert_eq!(found, Ok(expected.then_some(0)), "{pattern} on {subject:?}");
    }

    #[test]
    fn a_subject_is_split_once_at_each_slash() {
        for (subject, expected) in [
            ("", vec![&b""[..]]),
            ("a", vec![b"a"]),
            ("a/bc/d.ts", vec![b"a", b"bc", b"d.ts"]),
            ("src/", vec![b"src", b""]),
            ("/a//b", vec![b"", b"a", b"", b"b"]),
        ] {
            let segments = segments(subject);
            assert_eq!(segments, expected, "{subject:?}");
            assert_eq!(segments.capacity(), SEGMENTS, "{subject:?}");
        }
        let deep = ["a"; 40].join("/");
        assert_eq!(segments(&deep), vec![&b"a"[..]; 40]);
    }

    /// Literal segments and a `*` before literal text are compared as
    /// bytes; every other mix is walked piece by piece, with the same
    /// meaning.
    #[test]
    fn segments_take_the_shape_they_are_matched_by() {
        let literal = |s: &str| Segment::Literal(s.as_bytes().into());
        let suffix = |s: &str| Segment::Suffix(s.as_bytes().into());
        assert_eq!(Segment::new("src"), literal("src"));
        assert_eq!(Segment::new(""), literal(""));
        assert_eq!(Segment::new("*.rs"), suffix(".rs"));
        assert_eq!(Segment::new("*"), suffix(""));
        for text in ["a*", "a*b", "*a*", "?", "*.?s", "**"] {
            assert!(matches!(Segment::new(text), Segment::Pieces(_)), "{text}");
        }
        check("*.tsx", "x", false);
        check("*.tsx", ".tsx", true);
        check("*.tsx", "a.tsx.bak", false);
        check("src", "sr", false);
        check("src", "srcs", false);
        check("a*", "abc", true);
        check("a*", "ba", false);
    }

    #[test]
    fn what_is_left_to_the_glob_set() {
        for pattern in [
            "a/[bc]", "{a,b}/**", "a\\*", "a**", "**b", "a/**b", "***", "**/**", "a/**/**",
        ] {
            assert_eq!(SimpleGlob::new(pattern), None, "{pattern}");
        }
        for pattern in [
            "", "a", "/", "*", "?", "**", "**/", "**/a", "a/**", "a/**/b", "*.rs", "a*b?",
        ] {
            assert!(SimpleGlob::new(pattern).is_some(), "{pattern}");
        }
    }

    #[test]
    fn stars_questions_and_segments() {
        check("src/*.rs", "src/lib.rs", true);
        check("src/*.rs", "src/a/lib.rs", false);
        check("src/*.rs", "src/.rs", true);
        check("a?c", "abc", true);
        check("a?c", "a/c", false);
        // `?` is one byte: a two-byte character is not one.
        check("a?c", "aéc", false);
        check("a??c", "aéc", true);
        check("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false);
        check("*", "", true);
        check("", "", true);
        check("", "a", false);
    }

    #[test]
    fn double_stars_span_whole_segments() {
        check("**/a", "a", true);
        check("**/a", "x/y/a", true);
        check("**/a", "/a", true);
        check("**/a", "xa", false);
        check("a/**/b", "a/b", true);
        check("a/**/b", "a/x/y/b", true);
        check("a/**/b", "a/xb", false);
        check("a/**", "a/", true);
        check("a/**", "a/b/c", true);
        check("a/**", "a", false);
        check("**", "", true);
        check("**/", "x/y", true);
        // A run between two `**` takes its segments: what follows starts
        // after them, never on them.
        check("**/x/**/x", "x", false);
        check("**/x/**/x", "x/x", true);
        check("**/a/b/**/b", "a/b", false);
        check("**/a/b/**/b", "a/b/b", true);
        // A line feed is a byte like any other, in every shape.
        check("**/a", "x\ny/a", true);
        check("a/**", "a/x\n", true);
        check("a/**/b", "a/\n/b", true);
        check("*/a", "x\ny/a", true);
        check("**", "a\n", true);
    }

    #[test]
    fn many_double_stars_stay_cheap() {
        let pattern = "**/a/**/a/**/a/**/a/**/a/**/b";
        let subject = ["a"; 40].join("/");
        check(pattern, &subject, false);
    }

    /// A stranger's pattern against a long path gives up after its steps
    /// (the scope then asks the glob set); one step fewer than a match
    /// needs is too few, that many is enough.
    #[test]
    fn a_match_stops_when_its_steps_are_spent() {
        let pattern = format!("*{}?b", "a".repeat(40));
        let glob = SimpleGlob::new(&pattern).unwrap();
        let subject = "a".repeat(3_000);
        assert_eq!(
            first_match(std::slice::from_ref(&glob), &segments(&subject)),
            Err(OutOfSteps)
        );

        let glob = SimpleGlob::new("src/*.rs").unwrap();
        let segments: Vec<&[u8]> = vec![b"src", b"lib.rs"];
        let mut steps = usize::MAX;
        assert_eq!(glob.matches(&segments, &mut steps), Ok(true));
        let needed = usize::MAX - steps;
        // A step per byte of the literal `src` and of the suffix `.rs`.
        assert_eq!(needed, 6);
        let mut steps = needed;
        assert_eq!(glob.matches(&segments, &mut steps), Ok(true));
        let mut steps = needed - 1;
        assert_eq!(glob.matches(&segments, &mut steps), Err(OutOfSteps));

        // A segment walked piece by piece: a step per byte visited, and one
        // per return to the last `*` (here one, from `x` to `a`).
        let glob = SimpleGlob::new("*a?").unwrap();
        let segments: Vec<&[u8]> = vec![b"xab"];
        let mut steps = 4;
        assert_eq!(glob.matches(&segments, &mut steps), Ok(true));
        assert_eq!(steps, 0);
        let mut steps = 3;
        assert_eq!(glob.matches(&segments, &mut steps), Err(OutOfSteps));
    }
}
