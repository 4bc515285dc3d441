//! Where things really are: the symlink-safe resolution of the chain of directories from the root to a touched path, and the containment check every rule file and rule folder passes before it is read.
//!
//! Containment is by whole path segments on canonical paths
//! ([`relative_to`] on what `realpath` says), at every level of the walk and
//! for every rule file and rule folder; nothing resolving outside its
//! boundary (the project root, or a convention's user folder) is read.

use std::fs;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use camino::{Utf8Path, Utf8PathBuf};

use super::Engine;
use super::state::DiscoveryState;
use crate::paths::{Real, real_within, relative_to, slash};
use crate::rule::Stamp;

/// One directory of a walk: its lexical root-relative path and where it really is.
#[derive(Debug, Clone)]
pub(crate) struct ChainLevel {
    /// The directory as the walk names it, root-relative.
    pub(crate) lex: Utf8PathBuf,
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

/// Decides whether `path` really is inside `boundary` (itself canonical):
/// its real path when it is, by whole segments after every link is
/// followed; the reason it is not read otherwise.
pub(super) fn contained(path: &Utf8Path, boundary: &Utf8Path) -> Result<Utf8PathBuf, Refusal> {
    match real_within(path, boundary) {
        Ok(Real::Inside(real)) => Ok(real),
        Ok(Real::Outside(real)) => Err(Refusal::Outside(real)),
        Ok(Real::NotUtf8(real)) => Err(Refusal::NotUtf8(real)),
        Err(err) => Err(Refusal::Io(err)),
    }
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
        if let Some(rel) = relative_to(abs, &self.root) {
            return Some(rel.to_owned());
        }
        if let Some(rel) = relative_to(abs, &self.given_root) {
            return Some(rel.to_owned());
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
                return Some(rel);
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
    ) -> (Arc<[ChainLevel]>, Vec<Option<Stamp>>) {
        if let Some(chain) = state.chains.get(dir_rel.as_str()) {
            // A directory may have been swapped for a link since: every
            // level is checked again without following links, and the chain
            // is resolved anew if any is no longer a plain directory.
            if let Some(stamps) = still_plain_dirs(&self.root, chain) {
                return (Arc::clone(chain), stamps);
            }
            state.chains.remove(dir_rel.as_str());
        }
        let mut levels = Vec::with_capacity(dir_rel.components().count() + 1);
        let mut stamps = Vec::with_capacity(levels.capacity());
        levels.push(ChainLevel {
            lex: Utf8PathBuf::new(),
            level: Level::Inside(Arc::from(self.root.as_str())),
        });
        stamps.push(None);
        let mut lex = Utf8PathBuf::new();
        let mut plain = true; // no symlink so far: real == root.join(lex)
        for component in dir_rel.components() {
            lex.push(component.as_str());
            let (level, still_plain, stamp) = self.resolve_level(&lex, plain);
            plain = still_plain;
            let missing = level == Level::Missing;
            levels.push(ChainLevel {
                lex: lex.clone(),
                level,
            });
            stamps.push(stamp);
            if missing {
                break;
            }
        }
        let complete = levels.iter().all(|l| l.level != Level::Missing);
        let chain: Arc<[ChainLevel]> = levels.into();
        // A directory that does not exist yet may be created later: only
        // chains that reach their end are remembered.
        if complete {
            state.chains.insert(dir_rel.to_string(), Arc::clone(&chain));
        }
        (chain, stamps)
    }

    /// Resolves one directory: `lstat` while no symlink was met (the real
    /// path is the lexical one), `realpath` from the first symlink on.
    fn resolve_level(&self, lex: &Utf8Path, parent_plain: bool) -> (Level, bool, Option<Stamp>) {
        let path = self.root.join(lex);
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
    pub(super) fn subject(&self, rel: &Utf8Path, names_dir: bool, levels: &[ChainLevel]) -> String {
        // The deepest level that is inside tells where the path really is.
        let deepest = levels
            .iter()
            .take_while(|l| matches!(l.level, Level::Inside(_)))
            .last();
        let mut subject = Utf8PathBuf::new();
        if let Some(ChainLevel {
            lex,
            level: Level::Inside(real),
        }) = deepest
        {
            if let Some(base) = relative_to(Utf8Path::new(&**real), &self.root) {
                subject.push(base);
            }
            if let Some(rest) =
                relative_to(rel, lex).or_else(|| lex.as_str().is_empty().then_some(rel))
            {
                subject.push(rest);
            }
        } else {
            subject.push(rel);
        }
        let mut out = slash(&subject);
        if names_dir && !out.is_empty() {
            out.push('/');
        }
        out
    }
}

/// The stamps of a cached chain's directories, taken without following
/// links, or `None` when a directory is gone or became a link (the chain must
/// be resolved again). The root's slot is `None`: its stamp is taken by the scan.
fn still_plain_dirs(root: &Utf8Path, chain: &[ChainLevel]) -> Option<Vec<Option<Stamp>>> {
    let mut stamps = Vec::with_capacity(chain.len());
    for (i, level) in chain.iter().enumerate() {
        match &level.level {
            Level::Inside(real) if i > 0 => {
                // A level reached through a link: the link may point
                // elsewhere now.
                let plain = real
                    .strip_prefix(root.as_str())
                    .and_then(|rest| rest.strip_prefix('/'))
                    .is_some_and(|rest| rest == level.lex.as_str());
                if !plain && fs::canonicalize(root.join(&level.lex)).ok()?.to_str() != Some(&**real)
                {
                    return None;
                }
                match fs::symlink_metadata(&**real) {
                    Ok(meta) if meta.is_dir() => stamps.push(Some(Stamp::of(&meta))),
                    _ => return None,
                }
            }
            _ => stamps.push(None),
        }
    }
    Some(stamps)
}
