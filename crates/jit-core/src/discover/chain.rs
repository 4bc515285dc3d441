//! Where things really are: the symlink-safe resolution of the chain of directories from the root to a touched path, and the containment check every rule file and rule folder passes before it is read.
//!
//! Containment is by whole path segments on canonical paths
//! ([`relative_to`] on what `realpath` says), at every level of the walk and
//! for every rule file and rule folder; nothing resolving outside its
//! boundary (the project root, or a convention's user folder) is read.

use std::borrow::Cow;
use std::fs;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};

use super::Engine;
use super::state::DiscoveryState;
use crate::rule::Stamp;
use jit_base::{Real, real_within, relative_to, slash};

/// One directory of a walk: its lexical root-relative path and where it really is.
#[derive(Debug, Clone)]
pub(crate) struct ChainLevel {
    /// The directory as the walk names it, root-relative.
    pub(crate) lex: Arc<str>,
    /// Where it really is.
    pub(crate) level: Level,
}

/// Where a lexical directory of the walk really is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Level {
    /// Inside the root, at this canonical path (shared with the scan records).
    Inside(Arc<str>),
    /// Resolves outside the root (to this path).
    Outside(String),
    /// Does not exist (yet), or is not a directory.
    Missing,
}

/// Why a rule file or rule folder that may cross a link is not read.
#[derive(Debug)]
pub(super) enum Refusal {
    /// Its real path is not UTF-8, so it can be neither matched nor shown.
    NotUtf8(PathBuf),
    /// It resolves outside its boundary, to this real path.
    Outside(Utf8PathBuf),
    /// It cannot be resolved (missing, a link loop, no permission).
    Io(io::Error),
}

/// The components of `dir` as [`Utf8Path::components`] names them. A
/// relative path on Unix is split at `/` instead (what a touch's directory
/// always is), which gives the same: the empty segments and the `.` ones
/// after the first are what `components` drops, without its parsing of
/// each one (a byte loop: `str::split` calls `memchr` once a segment,
/// which costs more than the segment on a path's short ones).
fn components(dir: &Utf8Path) -> impl Iterator<Item = &str> {
    let text = dir.as_str();
    let mut by_components = (!cfg!(unix) || text.starts_with('/')).then(|| dir.components());
    let mut at = 0;
    std::iter::from_fn(move || {
        if let Some(components) = &mut by_components {
            return components.next().map(|component| component.as_str());
        }
        while at <= text.len() {
            let rest = &text[at..];
            let len = rest.bytes().position(|b| b == b'/').unwrap_or(rest.len());
            let (segment, first) = (&rest[..len], at == 0);
            at += len + 1;
            if !segment.is_empty() && (first || segment != ".") {
                return Some(segment);
            }
        }
        None
    })
}

/// `subject` with the `/` a directory's subject ends with (but the root's,
/// which is empty).
fn with_slash(mut subject: String, names_dir: bool) -> String {
    if names_dir && !subject.is_empty() {
        subject.push('/');
    }
    subject
}

/// Decides whether `path` really is inside `boundary` (itself canonical):
/// its real path when it is, by whole segments after every link is
/// followed; the reason it is not read otherwise.
pub(super) fn contained(path: &Utf8Path, boundary: &Utf8Path) -> Result<Utf8PathBuf, Refusal> {
    #[cfg(test)]
    tests::CONTAINED.with(|count| count.set(count.get() + 1));
    match real_within(path, boundary) {
        Ok(Real::Inside(real)) => Ok(real),
        Ok(Real::Outside(real)) => Err(Refusal::Outside(real)),
        Ok(Real::NotUtf8(real)) => Err(Refusal::NotUtf8(real)),
        Err(err) => Err(Refusal::Io(err)),
    }
}

/// Whether `name` is one plain path component, which joined to a directory
/// names an entry of it: not empty, not `.` or `..`, no separator, no NUL.
/// Only such an entry of a directory that is its own real path is, when
/// `lstat` shows no link, its own real path too; any other name (`..`,
/// `a/../..`, whatever a rule source names) may climb out of the
/// directory or cross a link on the way, and only [`contained`] can say
/// where it is. The configuration refuses such names
/// ([`crate::SourceOptions::validate`]); the engine never relies on that.
pub(super) fn is_entry_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', std::path::MAIN_SEPARATOR, '\0'])
}

/// `path` split into its directory and its last name, at the last
/// separator (the root's `/` kept as the directory of a name in it).
pub(super) fn split_entry(path: &str) -> Option<(&str, &str)> {
    let at = path.rfind(['/', std::path::MAIN_SEPARATOR])?;
    let (dir, name) = (&path[..at], &path[at + 1..]);
    Some((if dir.is_empty() { &path[..1] } else { dir }, name))
}

/// What an entry of a directory that is its own real path is, by `lstat`.
pub(super) enum PlainEntry {
    /// A directory and no link: its own real path too.
    Dir(fs::Metadata),
    /// Certainly not there (absent, or below something that is no directory).
    Absent,
    /// A link, anything else, or an error: only `contained` can tell.
    Other,
}

/// Classifies `path`, an entry of a directory that is its own real path,
/// with one `lstat`: the containment of what is reached through no link.
pub(super) fn plain_entry(path: &Utf8Path) -> PlainEntry {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => PlainEntry::Dir(meta),
        Err(err) if is_absent(&err) => PlainEntry::Absent,
        _ => PlainEntry::Other,
    }
}

/// Whether an I/O error says the path is not there.
pub(super) fn is_absent(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

impl Engine {
    /// The root-relative form of an absolute path that went through
    /// [`crate::resolve_parents`], if it is inside the root: lexically under
    /// the root (canonical or as given), or once its deepest existing
    /// ancestor is resolved. This is how [`Engine::discover`] places a
    /// touched path; tools that explain a discovery use it to agree.
    ///
    /// ```
    /// use jit_core::{Engine, resolve_parents};
    /// let dir = tempfile::tempdir()?;
    /// let engine = Engine::new(dir.path())?;
    /// let inside = resolve_parents(&engine.root().join("src/ui/../a.ts"));
    /// assert_eq!(engine.locate(&inside).as_deref(), Some("src/a.ts".into()));
    /// assert_eq!(engine.locate(&resolve_parents(&engine.root().join("../x"))), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn locate(&self, abs: &Utf8Path) -> Option<Utf8PathBuf> {
        self.locate_in(abs).map(Cow::into_owned)
    }

    /// [`Engine::locate`], borrowing the relative path from `abs` when it
    /// names the root directly (a touch needs no copy of it).
    pub(crate) fn locate_in<'a>(&self, abs: &'a Utf8Path) -> Option<Cow<'a, Utf8Path>> {
        if let Some(rel) = relative_to(abs, &self.root) {
            return Some(Cow::Borrowed(rel));
        }
        if let Some(rel) = relative_to(abs, &self.given_root) {
            return Some(Cow::Borrowed(rel));
        }
        // The path may reach the root through a symlink: resolve its deepest
        // existing ancestor and keep the rest lexically.
        let mut existing = abs;
        let mut rest: Vec<&str> = Vec::new();
        loop {
            if let Ok(real) = fs::canonicalize(existing) {
                let real = Utf8PathBuf::from_path_buf(real).ok()?;
                let rel = relative_to(&real, &self.root)?;
                let mut rel = rel.to_owned();
                for part in rest.iter().rev() {
                    rel.push(part);
                }
                return Some(Cow::Owned(rel));
            }
            rest.push(existing.file_name()?);
            existing = existing.parent()?;
        }
    }

    /// Resolves each directory from the root down to `dir_rel`, realpath at
    /// every step. Returns the levels, root first, and for each level resolved
    /// just now the stamp of the directory (so a scan need not stat it again).
    pub(crate) fn resolve_chain(
        &self,
        state: &mut DiscoveryState,
        dir_rel: &Utf8Path,
    ) -> (Vec<ChainLevel>, Vec<Option<Stamp>>) {
        // One level a `/` and two more (the root, the last name): room
        // for every level but through a spelling `components` tidies.
        let depth = dir_rel.as_str().bytes().filter(|&b| b == b'/').count() + 2;
        let mut levels = Vec::with_capacity(depth);
        let mut stamps = Vec::with_capacity(depth);
        levels.push(self.root_level.clone());
        stamps.push(None);
        let mut lex = String::with_capacity(dir_rel.as_str().len());
        let mut plain = true; // no symlink so far: real == root.join(lex)
        for component in components(dir_rel) {
            if !lex.is_empty() {
                lex.push('/');
            }
            lex.push_str(component);
            let cached = state
                .levels
                .get_key_value(lex.as_str())
                // Checked level by level from the root: below a level that
                // became a link, a remembered plain level no longer
                // `realpath`s where it did, and is resolved again.
                .and_then(|(key, level)| {
                    let (stamp, still_plain) = self.still_holds(key, level, plain)?;
                    Some((Arc::clone(key), level.clone(), still_plain, stamp))
                });
            let (key, level, stamp) = match cached {
                Some((key, level, still_plain, stamp)) => {
                    plain = still_plain;
                    (key, level, stamp)
                }
                None => {
                    let (level, still_plain, stamp) =
                        self.resolve_level(Utf8Path::new(&lex), plain);
                    plain = still_plain;
                    let key: Arc<str> = Arc::from(lex.as_str());
                    // A directory that does not exist yet may be created
                    // later: only levels that resolved are remembered.
                    if level == Level::Missing {
                        state.levels.remove(lex.as_str());
                    } else {
                        state.levels.insert(Arc::clone(&key), level.clone());
                    }
                    (key, level, stamp)
                }
            };
            let missing = level == Level::Missing;
            levels.push(ChainLevel { lex: key, level });
            stamps.push(stamp);
            if missing {
                break;
            }
        }
        (levels, stamps)
    }

    /// Whether a remembered level still resolves where it did, checked
    /// without trusting it: a plain directory must still be one (`lstat`),
    /// a level reached through a link must still `realpath` to the same
    /// place. Returns its stamp (for the scan) and whether the walk is
    /// still plain below it; `None` when it must be resolved again. A level
    /// outside the root stays outside.
    fn still_holds(
        &self,
        lex: &str,
        level: &Level,
        parent_plain: bool,
    ) -> Option<(Option<Stamp>, bool)> {
        match level {
            Level::Inside(real) => {
                let is_plain = real
                    .strip_prefix(self.root.as_str())
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|rest| rest == lex);
                if !(parent_plain && is_plain)
                    && fs::canonicalize(self.root.join(lex)).ok()?.to_str() != Some(&**real)
                {
                    return None;
                }
                match self.lstat_dir(real) {
                    Some(seen) if seen.is_dir() => {
                        Some((Some(seen.stamp), parent_plain && is_plain))
                    }
                    _ => None,
                }
            }
            Level::Outside(_) => Some((None, false)),
            Level::Missing => None,
        }
    }

    /// Resolves one directory: `lstat` while no symlink was met (the real
    /// path is the lexical one), `realpath` from the first symlink on.
    fn resolve_level(&self, lex: &Utf8Path, parent_plain: bool) -> (Level, bool, Option<Stamp>) {
        #[cfg(test)]
        tests::RESOLVED.with(|count| count.set(count.get() + 1));
        let path = super::join(&self.root, lex.as_str());
        if parent_plain {
            match fs::symlink_metadata(&path) {
                Ok(meta) if meta.is_dir() => {
                    return (
                        Level::Inside(Arc::from(path.as_str())),
                        true,
                        Some(Stamp::of(&meta)),
                    );
                }
                Ok(meta) if meta.file_type().is_symlink() => {}
                _ => return (Level::Missing, false, None),
            }
        }
        let level = match contained(&path, &self.root) {
            Ok(real) if real.is_dir() => Level::Inside(Arc::from(real.as_str())),
            Err(Refusal::Outside(real)) if real.is_dir() => Level::Outside(real.to_string()),
            Err(Refusal::NotUtf8(real)) => Level::Outside(real.display().to_string()),
            Ok(_) | Err(Refusal::Outside(_) | Refusal::Io(_)) => Level::Missing,
        };
        (level, false, None)
    }

    /// The touched path as scope globs see it: root-relative, `/`-separated,
    /// through resolved symlinks, with a trailing `/` for a directory.
    /// `shown` is `rel` as [`slash`] gives it (the trigger a discovery
    /// reports), which is the subject when no link is on the way.
    pub(super) fn subject(
        &self,
        rel: &Utf8Path,
        shown: &str,
        names_dir: bool,
        levels: &[ChainLevel],
    ) -> String {
        // The deepest level that is inside tells where the path really is.
        let deepest = levels
            .iter()
            .take_while(|l| matches!(l.level, Level::Inside(_)))
            .last();
        let subject = if let Some(ChainLevel {
            lex,
            level: Level::Inside(real),
        }) = deepest
        {
            let base = relative_to(Utf8Path::new(&**real), &self.root);
            if base.is_some_and(|base| base.as_str() == &**lex) {
                // No link on the way: the path is where it is named.
                let mut subject = String::with_capacity(shown.len() + 1);
                subject.push_str(shown);
                return with_slash(subject, names_dir);
            }
            let rest =
                relative_to(rel, Utf8Path::new(&**lex)).or_else(|| lex.is_empty().then_some(rel));
            // `base` pushed then `rest`, in one allocation.
            match (base, rest) {
                (Some(base), Some(rest)) => super::join(base, rest.as_str()),
                (Some(only), None) | (None, Some(only)) => only.to_owned(),
                (None, None) => Utf8PathBuf::new(),
            }
        } else {
            rel.to_owned()
        };
        with_slash(slash(&subject), names_dir)
    }
}

#[cfg(test)]
#[cfg(unix)]
pub(super) mod tests {
    use std::os::unix::fs::symlink;

    use super::*;
    use jit_base::resolve_parents;
    use std::cell::Cell;

    thread_local! {
        /// How many levels this thread resolved from scratch.
        pub(super) static RESOLVED: Cell<usize> = const { Cell::new(0) };
        /// How many paths this thread resolved with `realpath` to contain
        /// them.
        pub(in crate::discover) static CONTAINED: Cell<usize> = const { Cell::new(0) };
    }

    /// A project at `base/proj` with room beside it for what lies outside.
    struct Tree {
        _dir: tempfile::TempDir,
        base: Utf8PathBuf,
        engine: Engine,
    }

    impl Tree {
        /// Creates `dirs` (relative to `base`) and the engine for `base/proj`.
        fn new(dirs: &[&str]) -> Self {
            let dir = tempfile::tempdir().unwrap();
            let base = Utf8PathBuf::from_path_buf(dir.path().canonicalize().unwrap()).unwrap();
            fs::create_dir_all(base.join("proj")).unwrap();
            for d in dirs {
                fs::create_dir_all(base.join(d)).unwrap();
            }
            let engine = Engine::new(base.join("proj")).unwrap();
            Tree {
                _dir: dir,
                base,
                engine,
            }
        }

        /// A symbolic link at `at` (relative to `base`) holding `target` as written.
        fn link(&self, target: &str, at: &str) {
            symlink(target, self.base.join(at)).unwrap();
        }

        fn root(&self) -> &Utf8Path {
            self.engine.root()
        }

        /// `path` (relative to `base`) as the tests spell it.
        fn shown(&self, path: &str) -> String {
            relative_to(Utf8Path::new(path), &self.base)
                .map_or_else(|| path.to_owned(), |rel| rel.to_string())
        }

        /// The chain down to `dir_rel`, one `lex: where` line per level.
        fn chain(&self, state: &mut DiscoveryState, dir_rel: &str) -> Vec<String> {
            let (levels, _) = self.engine.resolve_chain(state, Utf8Path::new(dir_rel));
            levels
                .iter()
                .map(|ChainLevel { lex, level }| {
                    let at = match level {
                        Level::Inside(real) => format!("inside {}", self.shown(real)),
                        Level::Outside(real) => format!("outside {}", self.shown(real)),
                        Level::Missing => "missing".to_owned(),
                    };
                    format!("{lex}: {at}")
                })
                .collect()
        }

        /// What the containment check says of `rel` (relative to the root).
        fn contained(&self, rel: &str) -> String {
            match contained(&self.root().join(rel), self.root()) {
                Ok(real) => format!("inside {}", self.shown(real.as_str())),
                Err(Refusal::Outside(real)) => format!("outside {}", self.shown(real.as_str())),
                Err(Refusal::NotUtf8(_)) => "not utf-8".to_owned(),
                Err(Refusal::Io(_)) => "unresolvable".to_owned(),
            }
        }

        /// Where the engine places `rel` (relative to `base`), `..` resolved as the OS does.
        fn locate(&self, rel: &str) -> Option<String> {
            let abs = resolve_parents(&self.base.join(rel));
            self.engine.locate(&abs).map(Utf8PathBuf::into_string)
        }
    }

    /// Every path of up to 7 characters over `a`, `.` and `/` (relative
    /// and absolute, tidy or not): split at `/`, the chain's directory
    /// has the components `Utf8Path::components` names.
    #[test]
    fn a_directory_is_split_into_the_components_std_names() {
        let mut paths = vec![String::new()];
        let mut all = Vec::new();
        for _ in 0..7 {
            paths = paths
                .iter()
                .flat_map(|p| ["a", ".", "/"].map(|c| format!("{p}{c}")))
                .collect();
            all.extend(paths.iter().cloned());
        }
        all.push(String::new());
        for path in &all {
            let dir = Utf8Path::new(path);
            let std: Vec<&str> = dir.components().map(|c| c.as_str()).collect();
            assert_eq!(components(dir).collect::<Vec<_>>(), std, "{path:?}");
        }
    }

    #[test]
    fn a_plain_path_is_inside_at_every_level() {
        let tree = Tree::new(&["proj/src/ui"]);
        let mut state = DiscoveryState::default();
        assert_eq!(
            tree.chain(&mut state, "src/ui"),
            [
                ": inside proj",
                "src: inside proj/src",
                "src/ui: inside proj/src/ui"
            ]
        );
        assert_eq!(tree.contained("src/ui"), "inside proj/src/ui");
        assert_eq!(
            tree.locate("proj/src/ui/a.ts").as_deref(),
            Some("src/ui/a.ts")
        );
        assert_eq!(tree.locate("proj").as_deref(), Some(""));
        // Reaching the root through a link places the path all the same.
        tree.link("proj", "alias");
        assert_eq!(
            tree.locate("alias/src/new.ts").as_deref(),
            Some("src/new.ts")
        );
    }

    #[test]
    fn a_parent_segment_past_the_root_is_outside() {
        let tree = Tree::new(&["proj/src", "elsewhere", "proj-evil"]);
        assert_eq!(tree.locate("proj/src/../a.ts").as_deref(), Some("a.ts"));
        assert_eq!(tree.locate("proj/src/../../elsewhere/a.ts"), None);
        assert_eq!(tree.locate("proj/../proj-evil/a.ts"), None);
        assert_eq!(tree.contained("src/../../elsewhere"), "outside elsewhere");
        assert_eq!(tree.contained("../proj-evil"), "outside proj-evil");
    }

    #[test]
    fn a_link_out_of_the_root_is_outside_and_stays_outside_below() {
        let tree = Tree::new(&["proj/src", "elsewhere/lib"]);
        tree.link("../elsewhere", "proj/vendor");
        fs::write(tree.base.join("elsewhere/CLAUDE.md"), "x\n").unwrap();
        let mut state = DiscoveryState::default();
        assert_eq!(
            tree.chain(&mut state, "vendor/lib"),
            [
                ": inside proj",
                "vendor: outside elsewhere",
                "vendor/lib: outside elsewhere/lib"
            ]
        );
        assert_eq!(
            tree.contained("vendor/CLAUDE.md"),
            "outside elsewhere/CLAUDE.md"
        );
        // `..` after the link climbs from its target, out of the root.
        assert_eq!(tree.locate("proj/vendor/../x.ts"), None);
    }

    #[test]
    fn a_link_inside_pointing_inside_is_read_where_it_points() {
        let tree = Tree::new(&["proj/src/ui"]);
        tree.link("src/ui", "proj/ui-link");
        let mut state = DiscoveryState::default();
        assert_eq!(
            tree.chain(&mut state, "ui-link"),
            [": inside proj", "ui-link: inside proj/src/ui"]
        );
        assert_eq!(tree.contained("ui-link"), "inside proj/src/ui");
        let (levels, _) = tree
            .engine
            .resolve_chain(&mut state, Utf8Path::new("ui-link"));
        // Scopes see the real place, not the link's name.
        assert_eq!(
            tree.engine.subject(
                Utf8Path::new("ui-link/Footer.tsx"),
                "ui-link/Footer.tsx",
                false,
                &levels
            ),
            "src/ui/Footer.tsx"
        );
        assert_eq!(
            tree.engine
                .subject(Utf8Path::new("ui-link"), "ui-link", true, &levels),
            "src/ui/"
        );
    }

    #[test]
    fn a_link_loop_ends_the_walk_and_is_refused() {
        let tree = Tree::new(&["proj"]);
        tree.link("loop", "proj/loop");
        tree.link("pong", "proj/ping");
        tree.link("ping", "proj/pong");
        let mut state = DiscoveryState::default();
        assert_eq!(
            tree.chain(&mut state, "loop/deeper"),
            [": inside proj", "loop: missing"]
        );
        assert_eq!(
            tree.chain(&mut state, "ping"),
            [": inside proj", "ping: missing"]
        );
        assert_eq!(tree.contained("loop"), "unresolvable");
        assert_eq!(tree.contained("ping/CLAUDE.md"), "unresolvable");
        assert!(
            !state.levels.keys().any(|k| k.starts_with("loop")
                || k.starts_with("ping")
                || k.starts_with("src/new")),
            "a missing level is not cached"
        );
    }

    /// A level that is a file, named plainly or through a link to a file
    /// inside or outside the root, ends the walk as missing: it holds no
    /// rules, and a link to a file outside the root is no outside level
    /// to report.
    #[test]
    fn a_file_where_a_directory_is_named_ends_the_chain() {
        let tree = Tree::new(&["proj/src"]);
        fs::write(tree.base.join("proj/src/a.ts"), "").unwrap();
        fs::write(tree.base.join("elsewhere.txt"), "").unwrap();
        tree.link("src/a.ts", "proj/inside-file");
        tree.link("../elsewhere.txt", "proj/outside-file");
        let mut state = DiscoveryState::default();
        let before = CONTAINED.with(Cell::get);
        assert_eq!(
            tree.chain(&mut state, "src/a.ts/x"),
            [": inside proj", "src: inside proj/src", "src/a.ts: missing"]
        );
        // A plain file is missing at its `lstat`: no `realpath` for it.
        assert_eq!(CONTAINED.with(Cell::get), before);
        // The links to files end the walk; the same links to directories
        // are levels.
        fs::create_dir_all(tree.base.join("elsewhere")).unwrap();
        tree.link("src", "proj/inside-dir");
        tree.link("../elsewhere", "proj/outside-dir");
        for (dir, level) in [
            ("inside-file/x", "inside-file: missing"),
            ("outside-file/x", "outside-file: missing"),
            ("inside-dir", "inside-dir: inside proj/src"),
            ("outside-dir", "outside-dir: outside elsewhere"),
        ] {
            assert_eq!(tree.chain(&mut state, dir), [": inside proj", level]);
        }
    }

    #[test]
    fn a_missing_component_ends_the_chain_until_it_exists() {
        let tree = Tree::new(&["proj/src"]);
        let mut state = DiscoveryState::default();
        assert_eq!(
            tree.chain(&mut state, "src/new/deeper"),
            [": inside proj", "src: inside proj/src", "src/new: missing"]
        );
        assert!(
            !state.levels.keys().any(|k| k.starts_with("loop")
                || k.starts_with("ping")
                || k.starts_with("src/new")),
            "a missing level is not cached"
        );
        assert_eq!(tree.contained("src/new"), "unresolvable");
        fs::create_dir_all(tree.base.join("proj/src/new/deeper")).unwrap();
        assert_eq!(
            tree.chain(&mut state, "src/new/deeper"),
            [
                ": inside proj",
                "src: inside proj/src",
                "src/new: inside proj/src/new",
                "src/new/deeper: inside proj/src/new/deeper"
            ]
        );
        assert!(state.levels.contains_key("src/new/deeper"));
    }

    #[test]
    fn a_non_utf8_real_path_is_never_inside() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let tree = Tree::new(&["proj"]);
        let odd = tree
            .root()
            .as_std_path()
            .join(OsStr::from_bytes(b"caf\xe9"));
        fs::create_dir(&odd).unwrap();
        symlink(&odd, tree.root().join("odd")).unwrap();
        let mut state = DiscoveryState::default();
        let chain = tree.chain(&mut state, "odd/below");
        assert_eq!(chain[0], ": inside proj");
        assert!(chain[1].starts_with("odd: outside "), "{chain:?}");
        assert_eq!(chain.len(), 3, "{chain:?}");
        assert_eq!(tree.contained("odd"), "not utf-8");
    }

    #[test]
    fn a_directory_swapped_for_a_link_is_resolved_again() {
        let tree = Tree::new(&["proj/src/ui", "elsewhere"]);
        let mut state = DiscoveryState::default();
        let before = tree.chain(&mut state, "src/ui");
        assert_eq!(before[2], "src/ui: inside proj/src/ui");
        assert!(state.levels.contains_key("src/ui"));
        fs::remove_dir(tree.base.join("proj/src/ui")).unwrap();
        tree.link("../../elsewhere", "proj/src/ui");
        assert_eq!(
            tree.chain(&mut state, "src/ui"),
            [
                ": inside proj",
                "src: inside proj/src",
                "src/ui: outside elsewhere"
            ]
        );
    }

    /// A level swapped for a link makes every level below it be resolved
    /// again: their remembered places were reached through the old one.
    #[test]
    fn a_parent_swapped_for_a_link_resolves_every_level_below_again() {
        let tree = Tree::new(&["proj/src/ui/forms", "elsewhere/ui/forms"]);
        let mut state = DiscoveryState::default();
        let before = tree.chain(&mut state, "src/ui/forms");
        assert_eq!(before[3], "src/ui/forms: inside proj/src/ui/forms");
        assert_eq!(state.levels.len(), 3);
        fs::remove_dir_all(tree.base.join("proj/src")).unwrap();
        tree.link("../elsewhere", "proj/src");
        assert_eq!(
            tree.chain(&mut state, "src/ui/forms"),
            [
                ": inside proj",
                "src: outside elsewhere",
                "src/ui: outside elsewhere/ui",
                "src/ui/forms: outside elsewhere/ui/forms"
            ]
        );
        // A sibling chain shares the remembered upper levels.
        fs::create_dir_all(tree.base.join("elsewhere/ui/lists")).unwrap();
        let sibling = tree.chain(&mut state, "src/ui/lists");
        assert_eq!(sibling[3], "src/ui/lists: outside elsewhere/ui/lists");
        assert_eq!(state.levels.len(), 4);
    }

    /// A remembered level is checked (one `lstat`), not resolved again; a
    /// new level below plain ones is resolved with `lstat` and carries its
    /// stamp.
    #[test]
    fn remembered_levels_are_checked_not_resolved_again() {
        let tree = Tree::new(&["proj/src/ui/forms"]);
        let mut state = DiscoveryState::default();
        tree.chain(&mut state, "src");
        let before = RESOLVED.with(Cell::get);
        let (_, stamps) = tree
            .engine
            .resolve_chain(&mut state, Utf8Path::new("src/ui/forms"));
        assert_eq!(RESOLVED.with(Cell::get) - before, 2, "only the new levels");
        assert_eq!(stamps.len(), 4);
        assert!(stamps[1..].iter().all(Option::is_some), "{stamps:?}");
        let before = RESOLVED.with(Cell::get);
        tree.chain(&mut state, "src/ui/forms");
        tree.chain(&mut state, "src/ui");
        assert_eq!(RESOLVED.with(Cell::get), before, "all remembered");
    }

    /// Below a remembered link, a new level is resolved through the link
    /// (where it really is), and the link itself is checked with `realpath`,
    /// not resolved again.
    #[test]
    fn below_a_remembered_link_levels_are_where_the_link_points() {
        let tree = Tree::new(&["proj/real/ui"]);
        tree.link("real", "proj/src");
        let mut state = DiscoveryState::default();
        assert_eq!(
            tree.chain(&mut state, "src"),
            [": inside proj", "src: inside proj/real"]
        );
        assert_eq!(
            tree.chain(&mut state, "src/ui"),
            [
                ": inside proj",
                "src: inside proj/real",
                "src/ui: inside proj/real/ui"
            ]
        );
        let before = RESOLVED.with(Cell::get);
        tree.chain(&mut state, "src/ui");
        assert_eq!(RESOLVED.with(Cell::get), before, "all remembered");
    }
}
