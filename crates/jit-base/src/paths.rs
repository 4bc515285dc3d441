//! The path library of the workspace above the leaves: a reporter's spelling clean-up, `..` resolved as the OS does, segment-wise containment, and root-relative display.
//!
//! Three operations with three names, because they mean three things:
//! [`lexical_clean`] tidies how a tool call spelled a path and keeps every
//! `..` (a reporter cannot know what a `..` climbs from); [`resolve_parents`]
//! puts a path where the OS will open it (the engine's normaliser);
//! `normalize` is the purely lexical fold, right only where no link can
//! be involved, and kept private. [`relative_to`] is the one containment
//! check: by whole segments, on paths that went through `resolve_parents` or
//! `realpath`.

use std::fs;

use camino::{Utf8Component, Utf8Path, Utf8PathBuf};

/// Removes `.` and resolves `..` lexically; never touches the filesystem.
pub(crate) fn normalize(path: &Utf8Path) -> Utf8PathBuf {
    let s = path.as_str();
    // Fast path: most paths are already clean, and this runs on every touch.
    if cfg!(unix) && is_clean(s) {
        return path.to_owned();
    }
    fold(path)
}

/// [`normalize`] component by component.
fn fold(path: &Utf8Path) -> Utf8PathBuf {
    let mut out = Utf8PathBuf::new();
    for component in path.components() {
        match component {
            Utf8Component::CurDir => {}
            Utf8Component::ParentDir => match out.components().next_back() {
                // `a/..` is nothing.
                Some(Utf8Component::Normal(_)) => {
                    out.pop();
                }
                // `/..` is `/`: nothing is above the root.
                Some(Utf8Component::RootDir | Utf8Component::Prefix(_)) => {}
                // A relative path that climbs keeps every `..` (`../..`).
                Some(Utf8Component::ParentDir | Utf8Component::CurDir) | None => out.push(".."),
            },
            other => out.push(other.as_str()),
        }
    }
    out
}

/// Whether `s` is a path [`normalize`] leaves as it is: no `.` or `..`
/// segment, no doubled `/`, no `/` last but in `/` itself. One pass over
/// the segments (a touch checks a path or two this way).
fn is_clean(s: &str) -> bool {
    let mut segments = segments(s);
    // The first is empty for an absolute path (and for the empty one).
    if matches!(segments.next(), Some(b"." | b"..")) {
        return false;
    }
    s == "/" || segments.all(|segment| !matches!(segment, b"" | b"." | b".."))
}

/// The bytes of `text` between its `/`, by a plain loop over the bytes
/// (a `str` split by `'/'` calls `memchr` once a segment, which costs more
/// than the segment on a path's short ones).
fn segments(text: &str) -> impl Iterator<Item = &[u8]> {
    text.as_bytes().split(|&b| b == b'/')
}

/// `path` as a tool call addressed it, with its spelling tidied: `.`
/// segments and repeated `/` are dropped, a leading `/` and a trailing `/`
/// are kept (the trailing one says the call addressed a directory). `..` is
/// kept: what it climbs from depends on links, so [`resolve_parents`]
/// decides it against the filesystem. A path that tidies to nothing is `.`,
/// the cwd itself. Tool path reporters report paths in this form.
///
/// ```
/// use jit_base::lexical_clean;
/// assert_eq!(lexical_clean("./src//ui/./"), "src/ui/");
/// assert_eq!(lexical_clean("link/../x.ts"), "link/../x.ts");
/// assert_eq!(lexical_clean("./"), ".");
/// ```
pub fn lexical_clean(path: &str) -> Utf8PathBuf {
    let segments: Vec<&str> = path
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    let mut out = String::with_capacity(path.len());
    if path.starts_with('/') {
        out.push('/');
    }
    out.push_str(&segments.join("/"));
    if path.ends_with('/') && !segments.is_empty() {
        out.push('/');
    }
    if out.is_empty() {
        out.push('.');
    }
    Utf8PathBuf::from(out)
}

/// `path` with `.` and `..` resolved the way the OS resolves them when it
/// opens the path: a `..` after a symbolic link climbs from the link's
/// target, not from the directory holding the link. From `src/`,
/// `link/../x.ts` with `link → ../../elsewhere/d` is `elsewhere/x.ts`, where
/// a purely lexical fold would say `src/x.ts`.
///
/// Only a prefix that a `..` follows is looked at, with one `lstat`, and
/// resolved with `realpath` when it is a link; a path without `..` costs
/// no system call. A `..` after a plain directory, or after a name that
/// does not exist (yet), is folded lexically: the first is what the OS
/// does, and the second names nothing the OS could open (`mkdir -p` creates
/// it as a plain directory, whose `..` is again lexical). On Windows, where
/// `..` is folded before the filesystem is asked, this is the lexical fold.
///
/// ```
/// use camino::Utf8Path;
/// let dir = tempfile::tempdir()?;
/// let base = camino::Utf8PathBuf::try_from(dir.path().canonicalize()?)?;
/// std::fs::create_dir_all(base.join("proj/src"))?;
/// std::fs::create_dir_all(base.join("elsewhere/d"))?;
/// # #[cfg(unix)] {
/// std::os::unix::fs::symlink("../../elsewhere/d", base.join("proj/src/link"))?;
/// let opened = jit_base::resolve_parents(&base.join("proj/src/link/../x.ts"));
/// assert_eq!(opened, base.join("elsewhere/x.ts"));
/// assert_eq!(jit_base::relative_to(&opened, &base.join("proj")), None);
/// # }
/// // Without a link, `..` folds lexically and costs no system call.
/// assert_eq!(jit_base::resolve_parents(Utf8Path::new("/p/src/./ui/../a.ts")), "/p/src/a.ts");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn resolve_parents(path: &Utf8Path) -> Utf8PathBuf {
    // A clean path (most) has no `..` to resolve and nothing to tidy.
    if cfg!(unix) && is_clean(path.as_str()) {
        return path.to_owned();
    }
    // On Unix a component is `..` exactly where a segment is.
    if !cfg!(unix) || !segments(path.as_str()).any(|segment| segment == b"..") {
        return normalize(path);
    }
    let mut out = Utf8PathBuf::new();
    for component in path.components() {
        match component {
            Utf8Component::CurDir => {}
            Utf8Component::ParentDir => match out.components().next_back() {
                Some(Utf8Component::Normal(_)) => {
                    if let Some(real) = link_target(&out) {
                        out = real;
                    }
                    out.pop();
                }
                Some(Utf8Component::RootDir | Utf8Component::Prefix(_)) => {}
                Some(Utf8Component::ParentDir | Utf8Component::CurDir) | None => out.push(".."),
            },
            other => out.push(other.as_str()),
        }
    }
    out
}

/// The real path of `path` when it is a symbolic link that resolves; `None`
/// for anything else (a dangling link or a loop names nothing the OS could
/// open, so the caller's lexical fold is as good as any).
fn link_target(path: &Utf8Path) -> Option<Utf8PathBuf> {
    if !fs::symlink_metadata(path).ok()?.file_type().is_symlink() {
        return None;
    }
    let real = fs::canonicalize(path).ok()?;
    // A non-UTF-8 target keeps its valid part; the lossy name exists
    // nowhere, so whatever lies below it is judged missing.
    Some(
        Utf8PathBuf::from_path_buf(real)
            .unwrap_or_else(|real| Utf8PathBuf::from(real.to_string_lossy().into_owned())),
    )
}

/// Where a path really is, judged against a boundary directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Real {
    /// The boundary itself or below it, at this real path.
    Inside(Utf8PathBuf),
    /// Elsewhere, at this real path.
    Outside(Utf8PathBuf),
    /// The real path is not UTF-8; callers say so rather than read it.
    NotUtf8(std::path::PathBuf),
}

/// `realpath(path)`, contained in `boundary` (itself a real path) by whole
/// segments: the containment check for anything that may cross a link (a
/// level of the walk, a rule folder, a rule file, an index entry).
pub fn real_within(path: &Utf8Path, boundary: &Utf8Path) -> std::io::Result<Real> {
    let real = fs::canonicalize(path)?;
    Ok(match Utf8PathBuf::from_path_buf(real) {
        Ok(real) if relative_to(&real, boundary).is_some() => Real::Inside(real),
        Ok(real) => Real::Outside(real),
        Err(real) => Real::NotUtf8(real),
    })
}

/// `path` relative to `root` when it is `root` itself or below it, compared by
/// whole path segments (`/tmp/proj-evil` is not inside `/tmp/proj`).
///
/// Both paths must be normalised ([`resolve_parents`] or `realpath`); the
/// containment of a path that may cross a link is `relative_to` on real
/// paths. On Unix this is a string comparison with a separator check (the
/// walk calls it at every level, so it must be cheap).
///
/// ```
/// use camino::Utf8Path;
/// use jit_base::relative_to;
/// let root = Utf8Path::new("/tmp/proj");
/// assert_eq!(relative_to(Utf8Path::new("/tmp/proj/src/a.ts"), root), Some(Utf8Path::new("src/a.ts")));
/// assert_eq!(relative_to(Utf8Path::new("/tmp/proj"), root), Some(Utf8Path::new("")));
/// assert_eq!(relative_to(Utf8Path::new("/tmp/proj-evil/a.ts"), root), None);
/// ```
pub fn relative_to<'a>(path: &'a Utf8Path, root: &Utf8Path) -> Option<&'a Utf8Path> {
    if cfg!(unix) {
        let (p, r) = (path.as_str(), root.as_str());
        let rest = p.strip_prefix(r)?;
        if rest.is_empty() {
            Some(Utf8Path::new(""))
        } else if r.ends_with('/') {
            Some(Utf8Path::new(rest))
        } else {
            rest.strip_prefix('/').map(Utf8Path::new)
        }
    } else {
        path.strip_prefix(root).ok()
    }
}

/// Joins root-relative segments with `/` whatever the platform.
pub fn slash(rel: &Utf8Path) -> String {
    let text = rel.as_str();
    // Already in that form (most paths): the components would join back
    // to the same text.
    if cfg!(unix) && is_slashed(text) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(rel.as_str().len());
    for (i, component) in rel.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(component.as_str());
    }
    out
}

/// Whether `text` is a relative path its components join back to: no
/// leading, doubled or trailing `/`, no `.` component after the first.
fn is_slashed(text: &str) -> bool {
    // One pass over the segments: a `/` first leaves an empty first one
    // (the empty text is one empty segment, and slashed), a doubled or
    // last `/` an empty one after it.
    let mut segments = segments(text);
    if segments.next() == Some(b"") {
        return text.is_empty();
    }
    segments.all(|segment| !matches!(segment, b"" | b"."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containment_is_by_segment() {
        let root = Utf8Path::new("/tmp/proj");
        assert_eq!(
            relative_to(Utf8Path::new("/tmp/proj"), root),
            Some(Utf8Path::new(""))
        );
        assert_eq!(
            relative_to(Utf8Path::new("/tmp/proj/src/a.ts"), root),
            Some(Utf8Path::new("src/a.ts"))
        );
        assert_eq!(
            relative_to(Utf8Path::new("/tmp/proj-evil/a.ts"), root),
            None
        );
        assert_eq!(relative_to(Utf8Path::new("/tmp"), root), None);
        assert_eq!(relative_to(Utf8Path::new("/tmp/pro"), root), None);
        assert_eq!(
            relative_to(Utf8Path::new("/a/b"), Utf8Path::new("/")),
            Some(Utf8Path::new("a/b"))
        );
    }

    #[test]
    fn parent_segments_never_climb_above_the_root_nor_vanish_in_a_relative_path() {
        assert_eq!(normalize(Utf8Path::new("/../a")), Utf8PathBuf::from("/a"));
        assert_eq!(
            normalize(Utf8Path::new("/a/../../b")),
            Utf8PathBuf::from("/b")
        );
        assert_eq!(
            normalize(Utf8Path::new("../..")),
            Utf8PathBuf::from("../..")
        );
        assert_eq!(
            normalize(Utf8Path::new("a/../../b")),
            Utf8PathBuf::from("../b")
        );
        assert_eq!(normalize(Utf8Path::new("a/..")), Utf8PathBuf::from(""));
        assert_eq!(
            relative_to(
                &normalize(Utf8Path::new("/../etc/passwd")),
                Utf8Path::new("/")
            ),
            Some(Utf8Path::new("etc/passwd"))
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_parent_segment_after_a_link_climbs_from_the_link_target() {
        let dir = tempfile::tempdir().unwrap();
        let base = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        fs::create_dir_all(base.join("proj/src/plain")).unwrap();
        fs::create_dir_all(base.join("elsewhere/d")).unwrap();
        std::os::unix::fs::symlink("../../elsewhere/d", base.join("proj/src/link")).unwrap();
        std::os::unix::fs::symlink("nowhere", base.join("proj/src/dangling")).unwrap();
        let check = |rel: &str, expected: &str| {
            assert_eq!(
                resolve_parents(&base.join(rel)),
                base.join(expected),
                "{rel}"
            );
        };
        check("proj/src/link/../x.ts", "elsewhere/x.ts");
        check("proj/src/link/./../../x.ts", "x.ts");
        check("proj/src/link/x.ts", "proj/src/link/x.ts");
        check("proj/src/plain/../x.ts", "proj/src/x.ts");
        check("proj/src/link/sub/../x.ts", "proj/src/link/x.ts");
        check("proj/src/missing/../x.ts", "proj/src/x.ts");
        check("proj/src/dangling/../x.ts", "proj/src/x.ts");
        assert_eq!(
            resolve_parents(Utf8Path::new("/../a")),
            Utf8PathBuf::from("/a")
        );
    }

    #[cfg(unix)]
    #[test]
    fn real_within_contains_real_paths_by_segment() {
        let dir = tempfile::tempdir().unwrap();
        let base = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
        let root = base.join("proj");
        fs::create_dir_all(root.join("src")).unwrap();
        fs::create_dir_all(base.join("proj-evil")).unwrap();
        std::os::unix::fs::symlink("../proj-evil", root.join("out")).unwrap();
        std::os::unix::fs::symlink("src", root.join("in")).unwrap();
        let judge = |rel: &str| real_within(&root.join(rel), &root).ok();
        assert_eq!(judge(""), Some(Real::Inside(root.clone())));
        assert_eq!(judge("in"), Some(Real::Inside(root.join("src"))));
        assert_eq!(judge("out"), Some(Real::Outside(base.join("proj-evil"))));
        assert_eq!(judge("missing"), None);
    }

    #[track_caller]
    fn check_clean(path: &str, expected: &str) {
        assert_eq!(
            lexical_clean(path).as_str(),
            expected,
            "lexical_clean({path:?})"
        );
    }

    #[test]
    fn lexical_clean_drops_dot_segments_and_repeated_slashes_only() {
        check_clean("./src/a.rs", "src/a.rs");
        check_clean("src//ui/./a.rs", "src/ui/a.rs");
        check_clean("src/ui/", "src/ui/");
        check_clean("./", ".");
        check_clean(".", ".");
        check_clean("/", "/");
        check_clean("/abs/./x", "/abs/x");
        check_clean("a/../b", "a/../b");
        check_clean("../x", "../x");
        check_clean("~/x", "~/x");
    }

    #[test]
    fn slash_joins_segments_with_forward_slashes() {
        assert_eq!(slash(Utf8Path::new("src/ui/a.ts")), "src/ui/a.ts");
        assert_eq!(slash(Utf8Path::new("a")), "a");
        assert_eq!(slash(Utf8Path::new("")), "");
        // Components, not text: separators and `.` are tidied.
        assert_eq!(slash(Utf8Path::new("src//ui/./a.ts/")), "src/ui/a.ts");
        assert_eq!(slash(Utf8Path::new("src/.")), "src");
        assert_eq!(slash(Utf8Path::new("./src/../a")), "./src/../a");
    }

    /// The text is taken as it is only when its components would join back
    /// to it: every path over a small alphabet, up to seven characters.
    #[test]
    fn slash_keeps_a_path_as_written_only_when_its_components_agree() {
        fn joined(rel: &Utf8Path) -> String {
            let parts: Vec<&str> = rel.components().map(|c| c.as_str()).collect();
            parts.join("/")
        }
        for path in &small_paths() {
            let path = Utf8Path::new(path);
            assert_eq!(slash(path), joined(path), "{path:?}");
            // A relative path is taken as written exactly when its
            // components agree; an absolute one (not what `slash` is given)
            // always goes through them.
            let relative = !path.as_str().starts_with('/');
            assert_eq!(
                is_slashed(path.as_str()),
                relative && joined(path) == path.as_str(),
                "{path:?}"
            );
        }
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(
            normalize(Utf8Path::new("/a/./b/../c")),
            Utf8PathBuf::from("/a/c")
        );
        assert_eq!(
            normalize(Utf8Path::new("./src/a.ts")),
            Utf8PathBuf::from("src/a.ts")
        );
    }

    /// Every path over a small alphabet, up to seven characters.
    fn small_paths() -> Vec<String> {
        let mut paths = vec![String::new()];
        for _ in 0..7 {
            let longer: Vec<String> = paths
                .iter()
                .flat_map(|p| ["a", "/", "."].map(|c| format!("{p}{c}")))
                .collect();
            paths.extend(longer);
        }
        paths.sort();
        paths.dedup();
        paths
    }

    /// `normalize` keeps a path as written only when folding its components
    /// gives it back, and `resolve_parents` looks for links only in a path
    /// with a `..` component.
    #[test]
    fn the_one_pass_checks_agree_with_the_components() {
        for path in &small_paths() {
            let path = Utf8Path::new(path);
            assert_eq!(normalize(path), fold(path), "{path:?}");
            let climbs = path.components().any(|c| c == Utf8Component::ParentDir);
            // Clean: folding gives its text back, and it has no `..` to
            // resolve.
            assert_eq!(
                is_clean(path.as_str()),
                fold(path).as_str() == path.as_str() && !climbs,
                "{path:?}"
            );
            assert_eq!(
                segments(path.as_str()).any(|segment| segment == b".."),
                climbs,
                "{path:?}"
            );
        }
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;
        use std::sync::atomic::{AtomicUsize, Ordering};

        /// Path pieces with every lexical trap: `.`, `..`, doubled and
        /// trailing separators.
        const PIECES: &[&str] = &["a", "b", "c", ".", "..", "..", "/", "/", "//"];

        fn path() -> impl Strategy<Value = String> {
            (
                any::<bool>(),
                prop::collection::vec(prop::sample::select(PIECES), 0..10),
            )
                .prop_map(|(absolute, pieces)| {
                    let mut path = if absolute {
                        "/".to_owned()
                    } else {
                        String::new()
                    };
                    for piece in pieces {
                        if !path.is_empty() && !path.ends_with('/') && piece != "/" && piece != "//"
                        {
                            path.push('/');
                        }
                        path.push_str(piece);
                    }
                    path
                })
        }

        fn root() -> impl Strategy<Value = String> {
            prop::collection::vec(prop::sample::select(&["r", "s", "proj"][..]), 0..3)
                .prop_map(|segments| format!("/{}", segments.join("/")))
        }

        static CONTAINED: AtomicUsize = AtomicUsize::new(0);
        static CLIMBED: AtomicUsize = AtomicUsize::new(0);

        proptest! {
            // A fixed seed: the checks below count what the cases reached, and a
            // count must not depend on the luck of a run.
            #![proptest_config(ProptestConfig {
                cases: 2048,
                rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
                ..ProptestConfig::default()
            })]

            #[test]
            fn normalize_is_idempotent_and_leaves_no_dot_segment(path in path()) {
                let once = normalize(Utf8Path::new(&path));
                prop_assert_eq!(normalize(&once), once.clone());
                let components: Vec<_> = once.components().collect();
                prop_assert!(!components.contains(&Utf8Component::CurDir), "{path:?} -> {once:?}");
                // `..` survives only at the start of a relative path.
                let climbing = components
                    .iter()
                    .take_while(|c| **c == Utf8Component::ParentDir)
                    .count();
                prop_assert!(
                    !components[climbing..].contains(&Utf8Component::ParentDir),
                    "{path:?} -> {once:?}"
                );
                prop_assert!(once.is_absolute() == path.starts_with('/'));
                // One spelling per path: no doubled or trailing separator.
                prop_assert!(!once.as_str().contains("//"), "{path:?} -> {once:?}");
                prop_assert!(
                    once.as_str() == "/" || !once.as_str().ends_with('/'),
                    "{path:?} -> {once:?}"
                );
                if once.is_absolute() {
                    prop_assert_eq!(climbing, 0);
                }
            }

            #[test]
            fn lexical_clean_is_idempotent_and_never_moves_a_path(path in path()) {
                let clean = lexical_clean(&path);
                prop_assert_eq!(lexical_clean(clean.as_str()), clean.clone());
                // Tidying keeps every `..` for the engine to resolve, and
                // changes nothing the lexical fold would see.
                let climbs = |p: &str| p.split('/').filter(|s| *s == "..").count();
                prop_assert_eq!(climbs(clean.as_str()), climbs(&path));
                prop_assert_eq!(normalize(&clean), normalize(Utf8Path::new(&path)));
            }

            fn nothing_escapes_the_root_through_parent_segments(root in root(), rel in path()) {
                let root = normalize(Utf8Path::new(&root));
                let joined = normalize(&root.join(rel.trim_start_matches('/')));
                match relative_to(&joined, &root) {
                    Some(inside) => {
                        CONTAINED.fetch_add(1, Ordering::Relaxed);
                        prop_assert!(
                            !inside.components().any(|c| c == Utf8Component::ParentDir),
                            "{rel:?} under {root} gave {inside:?}"
                        );
                        prop_assert_eq!(normalize(&root.join(inside)), joined);
                    }
                    None => {
                        CLIMBED.fetch_add(1, Ordering::Relaxed);
                        // Outside the root means the path really climbed out.
                        prop_assert!(rel.contains(".."), "{rel:?} under {root} left it");
                    }
                }
            }
        }

        /// Directories of the generated trees: `proj` is the root, `out`
        /// lies beside it.
        const DIRS: &[&str] = &["proj/a/b", "proj/c", "out/d/e"];
        /// Where links go, and what they may point at: up, down, sideways,
        /// out of the root and back, absolute, dangling and looping.
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
            "l0",
        ];
        const SEGMENTS: &[&str] = &[
            "a", "b", "c", "d", "e", "l", "m", "..", "..", "..", ".", "f", "f", "l/..", "m/..",
            "l/..",
        ];

        /// Builds the tree in a fresh temp dir: the directories, a file `f`
        /// in each, and in each of `LINK_DIRS` two links, `l` and `m`, to the
        /// `TARGETS` given for it.
        #[cfg(unix)]
        fn build(links: &[(usize, usize)]) -> (tempfile::TempDir, Utf8PathBuf) {
            assert_eq!(links.len(), LINK_DIRS.len());
            let dir = tempfile::tempdir().unwrap();
            let base = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
            for d in DIRS {
                fs::create_dir_all(base.join(d)).unwrap();
            }
            for d in [
                "proj", "proj/a", "proj/a/b", "proj/c", "out", "out/d", "out/d/e",
            ] {
                fs::write(base.join(d).join("f"), "").unwrap();
            }
            for (at, (l, m)) in LINK_DIRS.iter().zip(links) {
                for (name, target) in [("l", l), ("m", m)] {
                    let target = TARGETS[*target].replace("/ABS", base.as_str());
                    std::os::unix::fs::symlink(target, base.join(at).join(name)).unwrap();
                }
            }
            (dir, base)
        }

        fn realpath(path: &Utf8Path) -> Option<Utf8PathBuf> {
            Utf8PathBuf::from_path_buf(fs::canonicalize(path).ok()?).ok()
        }

        static EXISTING: AtomicUsize = AtomicUsize::new(0);
        static OUTSIDE: AtomicUsize = AtomicUsize::new(0);
        static THROUGH_A_LINK: AtomicUsize = AtomicUsize::new(0);

        #[cfg(unix)]
        proptest! {
            // A fixed seed: the checks below count what the cases reached, and a
            // count must not depend on the luck of a run.
            #![proptest_config(ProptestConfig {
                cases: 384,
                rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
                ..ProptestConfig::default()
            })]

            fn parents_resolve_where_realpath_does(
                links in prop::collection::vec(
                    (0..TARGETS.len(), 0..TARGETS.len()),
                    LINK_DIRS.len(),
                ),
                start in 0..LINK_DIRS.len(),
                segments in prop::collection::vec(prop::sample::select(SEGMENTS), 1..6),
            ) {
                let (_dir, base) = build(&links);
                let root = base.join("proj");
                let path = base.join(LINK_DIRS[start]).join(segments.join("/"));
                let resolved = resolve_parents(&path);
                prop_assert!(resolved.is_absolute());
                prop_assert!(
                    !resolved.components().any(|c| c == Utf8Component::ParentDir),
                    "{path} -> {resolved}"
                );
                // Idempotent: nothing is left for a second pass to resolve.
                prop_assert_eq!(resolve_parents(&resolved), resolved.clone());
                if let Some(real) = realpath(&path) {
                    EXISTING.fetch_add(1, Ordering::Relaxed);
                    // Wherever the OS opens the path, the resolved spelling
                    // opens the same file...
                    prop_assert_eq!(realpath(&resolved), Some(real.clone()), "{}", path);
                    // ...and is judged inside the root exactly when the OS
                    // says it is.
                    let inside = realpath(&resolved)
                        .is_some_and(|r| relative_to(&r, &root).is_some());
                    prop_assert_eq!(inside, relative_to(&real, &root).is_some(), "{}", path);
                    if !inside {
                        OUTSIDE.fetch_add(1, Ordering::Relaxed);
                    }
                    if normalize(&path) != resolved {
                        THROUGH_A_LINK.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }

        /// The generated trees must exercise the links: enough existing
        /// paths, some leaving the root, some where the lexical fold is wrong.
        #[cfg(unix)]
        #[test]
        fn parent_resolution_property_reaches_links_and_both_sides() {
            parents_resolve_where_realpath_does();
            let (existing, outside, through) = (
                EXISTING.load(Ordering::Relaxed),
                OUTSIDE.load(Ordering::Relaxed),
                THROUGH_A_LINK.load(Ordering::Relaxed),
            );
            // About half of what a run usually sees, so the check does not
            // flake with the random seed.
            assert!(existing >= 40, "{existing} existing paths");
            assert!(outside >= 12, "{outside} paths outside the root");
            assert!(through >= 10, "{through} paths where `..` followed a link");
        }

        /// The containment property must have judged enough cases on both
        /// sides to mean anything; a generator that drifts fails here.
        #[test]
        fn containment_property_reaches_both_outcomes() {
            nothing_escapes_the_root_through_parent_segments();
            assert!(
                CONTAINED.load(Ordering::Relaxed) >= 500,
                "{CONTAINED:?} contained cases"
            );
            assert!(
                CLIMBED.load(Ordering::Relaxed) >= 100,
                "{CLIMBED:?} climbing cases"
            );
        }
    }
}
