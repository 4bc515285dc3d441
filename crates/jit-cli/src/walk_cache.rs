//! Where the project walk keeps its listings between commands: one file per project root under the state directory, so a session start on a big repository lists again only the directories that changed.

use std::sync::atomic::{AtomicBool, Ordering};

use camino::Utf8Path;
use jit_core::WalkCache;

/// Set to `off` (or `0`, `false`, `no`) to walk without the cache.
pub(crate) const WALK_CACHE_VAR: &str = "JIT_WALK_CACHE";

/// The walk cache of the project at `root` (canonical):
/// `STATE_DIR/walks/NAME-HASH.walk`, NAME the root's last component and
/// HASH its whole path's; `None` when `JIT_WALK_CACHE` turns it off, no
/// state directory can be named, or the one named is refused (see
/// [`crate::cmd::hook::private_state_dir`]; said once on stderr), and in
/// this crate's unit tests.
pub(crate) fn for_root(root: &Utf8Path) -> Option<WalkCache> {
    // The unit tests run in one process with the user's environment, which
    // they cannot safely change: their temporary projects' walks keep no
    // cache, so that nothing is written under the real home directory.
    if cfg!(test) {
        return None;
    }
    if let Some(value) = std::env::var_os(WALK_CACHE_VAR)
        && matches!(
            value.to_string_lossy().trim().to_ascii_lowercase().as_str(),
            "off" | "0" | "false" | "no"
        )
    {
        return None;
    }
    let dir = crate::cmd::hook::state_dir().ok()?;
    if let Err(err) = crate::cmd::hook::private_state_dir(&dir) {
        // A command resolves its conventions more than once: one line.
        static SAID: AtomicBool = AtomicBool::new(false);
        if !SAID.swap(true, Ordering::Relaxed) {
            let _ = crate::output::stderr_line(format_args!(
                "jit: warning: {}; the project walk keeps no cache",
                crate::output::escape(&format!("{err:#}"))
            ));
        }
        return None;
    }
    Some(WalkCache::new(dir.join("walks").join(file_name(root))))
}

/// `NAME-HASH.walk` for `root`: readable, and distinct for distinct roots.
/// (Before the cache's binary layout, `.json`: such a file is left to the
/// state directory's pruning.)
fn file_name(root: &Utf8Path) -> String {
    let name: String = root
        .file_name()
        .unwrap_or("root")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .take(32)
        .collect();
    let hash = root
        .as_str()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    format!("{name}-{hash:016x}.walk")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_tests_keep_no_walk_cache_under_the_real_home() {
        assert!(for_root(Utf8Path::new("/work/my proj")).is_none());
    }

    #[test]
    fn one_readable_file_per_root() {
        let a = file_name(Utf8Path::new("/work/my proj"));
        let b = file_name(Utf8Path::new("/other/my proj"));
        assert!(a.starts_with("my_proj-") && a.ends_with(".walk"), "{a}");
        assert_eq!(a.len(), "my_proj-".len() + 16 + ".walk".len());
        assert_ne!(a, b);
        assert_eq!(a, file_name(Utf8Path::new("/work/my proj")));
        assert!(file_name(Utf8Path::new("/")).starts_with("root-"));
    }
}
