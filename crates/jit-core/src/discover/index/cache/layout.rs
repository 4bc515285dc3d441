//! The walk cache's layout on disk: its texts, then references to them.
//!
//! ```text
//! "jit-walk"  u32 version (4)
//! u32 n, n bytes: the texts (UTF-8, each text once)
//! ref root   u32 n, n × ref kept name
//! u32 n, n × directory:
//!     ref path (root-relative)   6 × 8 bytes identity   u32 n, n × (u8 is_dir, ref name)
//! ```
//!
//! Integers are little-endian; a `ref` is where a text starts in the texts
//! and its length (two `u32`). Reading it checks the texts are UTF-8 in one
//! pass, then slices every name and path out of them: a start on a tree of
//! 10,000 directories checks one text instead of 20,000 (version 3 wrote
//! each text in place, its length before it; versions 1 and 2 were JSON).
//! A name many directories hold (`src`, `utils`) is written once. Every
//! length and reference is checked against what is there, so a file cut
//! short, padded or forged is "not a walk cache" with where it went wrong,
//! never a panic or an allocation its size does not back.

use std::borrow::Cow;
use std::io::{self, Write};

use super::{DirId, Listings, Stored, StoredDir};
use crate::Map;

/// The first bytes of a cache file.
const MAGIC: &[u8; 8] = b"jit-walk";

/// The layout this build reads and writes; another is not read.
pub(super) const VERSION: u32 = 4;

/// The bytes a reference to a text takes: its start and its length.
const REF: usize = 8;
/// The fewest bytes a directory takes: its path's reference, its identity
/// and its listing's length.
const MIN_DIR: usize = REF + 48 + 4;
/// The fewest bytes a listing's entry takes: its kind and its name's
/// reference.
const MIN_NAME: usize = 1 + REF;

/// How many bytes of text a cache's references may name in all, for each
/// byte of the file. Every path a walk writes is a text of its own, and a
/// name is a path's last component or one of the few kept names, so a
/// cache written by a walk names less than its own size (0.43 times on the
/// 100k tree); shared references could name far more (a long text named
/// by every directory), and every byte named is work for the walk.
const NAMED_PER_BYTE: usize = 4;

/// What a cache file holds.
#[derive(Debug, PartialEq)]
pub(super) enum Read<'a> {
    /// A cache of this layout.
    This(Stored<'a>),
    /// A cache of another layout (an older or newer jit): left alone, and
    /// replaced by this walk's.
    Other,
}

/// Writes `stored` in this layout.
pub(super) fn write(out: &mut impl Write, stored: &Stored<'_>) -> io::Result<()> {
    let listings = &stored.listings;
    let mut texts = Texts::default();
    let root = texts.add(&stored.root)?;
    let keep = stored
        .keep
        .iter()
        .map(|name| texts.add(name))
        .collect::<io::Result<Vec<_>>>()?;
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    // The texts first: every path and name is added before they are written.
    let mut dirs = Vec::with_capacity(listings.dirs().len());
    for stored_dir @ StoredDir(dir, id, _) in listings.dirs() {
        let names = listings.names(stored_dir);
        let names = names
            .iter()
            .map(|(name, is_dir)| Ok((texts.add(name)?, *is_dir)))
            .collect::<io::Result<Vec<_>>>()?;
        dirs.push((texts.add(dir)?, *id, names));
    }
    count(out, texts.bytes.len())?;
    out.write_all(&texts.bytes)?;
    write_ref(out, root)?;
    count(out, keep.len())?;
    for name in keep {
        write_ref(out, name)?;
    }
    count(out, dirs.len())?;
    for (path, id, names) in dirs {
        write_ref(out, path)?;
        let DirId(dev, ino, mtime, mtime_ns, ctime, ctime_ns) = id;
        for field in [dev.to_le_bytes(), ino.to_le_bytes()] {
            out.write_all(&field)?;
        }
        for field in [mtime, mtime_ns, ctime, ctime_ns] {
            out.write_all(&field.to_le_bytes())?;
        }
        count(out, names.len())?;
        for (name, is_dir) in names {
            out.write_all(&[u8::from(is_dir)])?;
            write_ref(out, name)?;
        }
    }
    Ok(())
}

/// The texts of a cache being written, each once, with where each starts.
#[derive(Default)]
struct Texts<'s> {
    bytes: Vec<u8>,
    at: Map<&'s str, u32>,
}

impl<'s> Texts<'s> {
    /// The reference to `text`, added if it is not there yet.
    fn add(&mut self, text: &'s str) -> io::Result<(u32, u32)> {
        let len = u32_of(text.len())?;
        if let Some(&start) = self.at.get(text) {
            return Ok((start, len));
        }
        let start = u32_of(self.bytes.len())?;
        let bound = usize::try_from(super::MAX_CACHE_BYTES).unwrap_or(usize::MAX);
        if self.bytes.len().saturating_add(text.len()) > bound {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("its texts are over the {bound} bytes a cache is read up to"),
            ));
        }
        self.bytes.extend_from_slice(text.as_bytes());
        self.at.insert(text, start);
        Ok((start, len))
    }
}

fn u32_of(n: usize) -> io::Result<u32> {
    u32::try_from(n)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "over 2^32 entries or bytes"))
}

fn count(out: &mut impl Write, n: usize) -> io::Result<()> {
    out.write_all(&u32_of(n)?.to_le_bytes())
}

fn write_ref(out: &mut impl Write, (start, len): (u32, u32)) -> io::Result<()> {
    out.write_all(&start.to_le_bytes())?;
    out.write_all(&len.to_le_bytes())
}

/// Reads a cache file's `bytes`: this layout's contents, borrowed from
/// them, or [`Read::Other`] for a cache of another layout; what is wrong
/// when they are no walk cache.
pub(super) fn read(bytes: &[u8]) -> Result<Read<'_>, String> {
    if bytes.first() == Some(&b'{') {
        // Versions 1 and 2 were JSON: another layout, if it is one.
        #[derive(serde::Deserialize)]
        struct Header {
            #[allow(dead_code, reason = "read only to be there")]
            version: u32,
        }
        return serde_json::from_slice::<Header>(bytes)
            .map(|_| Read::Other)
            .map_err(|err| err.to_string());
    }
    if !bytes.starts_with(MAGIC) && !MAGIC.starts_with(bytes) {
        return Err("it does not start with `jit-walk`".to_owned());
    }
    let mut reader = Reader {
        bytes,
        at: 0,
        texts: "",
        named: 0,
    };
    reader.take(MAGIC.len(), "the header")?;
    if reader.u32("the header")? != VERSION {
        return Ok(Read::Other);
    }
    let len = usize::try_from(reader.u32("the texts")?).unwrap_or(usize::MAX);
    let start = reader.at;
    reader.texts = std::str::from_utf8(reader.take(len, "the texts")?).map_err(|err| {
        format!(
            "the texts are not UTF-8 (byte {})",
            start + err.valid_up_to()
        )
    })?;
    let root = reader.text("the root")?;
    let kept = reader.count("the kept names", REF)?;
    let mut keep = Vec::with_capacity(kept.1);
    for _ in 0..kept.0 {
        keep.push(Cow::Borrowed(reader.text("a kept name")?));
    }
    let (dirs, capacity) = reader.count("the directories", MIN_DIR)?;
    // A walk keeps about one name per directory (each is a subdirectory
    // of another, besides the few candidates): room for as many, which
    // grows when a cache holds more.
    let mut listings = Listings::with_capacity(capacity, capacity);
    for _ in 0..dirs {
        reader.dir(&mut listings)?;
    }
    if reader.at != bytes.len() {
        return Err(format!(
            "{} bytes follow the last directory",
            bytes.len() - reader.at
        ));
    }
    Ok(Read::This(Stored {
        root: Cow::Borrowed(root),
        keep,
        listings,
    }))
}

/// A cursor over a cache's bytes, its texts once read, and how many bytes
/// of text its references have named so far.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    texts: &'a str,
    named: usize,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes, inside `what`.
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let taken = self
            .at
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.at..end))
            .ok_or_else(|| format!("it ends inside {what} (byte {})", self.at))?;
        self.at += n;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], String> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u32(&mut self, what: &str) -> Result<u32, String> {
        self.array(what).map(u32::from_le_bytes)
    }

    /// A count of items of at least `min` bytes each, and the capacity
    /// the bytes left can back.
    fn count(&mut self, what: &str, min: usize) -> Result<(usize, usize), String> {
        let n = usize::try_from(self.u32(what)?).unwrap_or(usize::MAX);
        let left = self.bytes.len().saturating_sub(self.at);
        Ok((n, n.min(left / min.max(1))))
    }

    /// The text a reference names, within [`NAMED_PER_BYTE`] in all.
    fn text(&mut self, what: &str) -> Result<&'a str, String> {
        let at = self.at;
        let start = usize::try_from(self.u32(what)?).unwrap_or(usize::MAX);
        let len = usize::try_from(self.u32(what)?).unwrap_or(usize::MAX);
        let text = start
            .checked_add(len)
            .and_then(|end| self.texts.get(start..end))
            .ok_or_else(|| {
                format!("{what} at byte {at} points outside the texts or inside a character")
            })?;
        self.named = self.named.saturating_add(len);
        if self.named > self.bytes.len().saturating_mul(NAMED_PER_BYTE) {
            return Err(format!(
                "its references name more than {NAMED_PER_BYTE} times its {} bytes in texts \
                 (byte {at})",
                self.bytes.len()
            ));
        }
        Ok(text)
    }

    /// One stored directory, added to `listings`.
    fn dir(&mut self, listings: &mut Listings<'a>) -> Result<(), String> {
        const ID: &str = "a directory's identity";
        let dir = self.text("a directory's path")?;
        let id = DirId(
            u64::from_le_bytes(self.array(ID)?),
            u64::from_le_bytes(self.array(ID)?),
            i64::from_le_bytes(self.array(ID)?),
            i64::from_le_bytes(self.array(ID)?),
            i64::from_le_bytes(self.array(ID)?),
            i64::from_le_bytes(self.array(ID)?),
        );
        let (n, _) = self.count("a directory's listing", MIN_NAME)?;
        listings.start(Cow::Borrowed(dir), id);
        for _ in 0..n {
            let is_dir = match self.take(1, "a listing")? {
                [0] => false,
                [1] => true,
                _ => {
                    return Err(format!(
                        "a listing's entry at byte {} is neither a file nor a directory",
                        self.at - 1
                    ));
                }
            };
            listings.push_name(Cow::Borrowed(self.text("a name")?), is_dir);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests fail loudly")]

    use super::*;
    use proptest::prelude::*;

    fn bytes(stored: &Stored<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        write(&mut out, stored).unwrap();
        out
    }

    fn sample() -> Stored<'static> {
        Stored {
            root: "/work/proj".into(),
            keep: vec!["AGENTS.md".into(), "CLAUDE.md".into()],
            listings: Listings::of([
                (
                    "".into(),
                    DirId(1, 2, 3, 4, 5, 6),
                    vec![("src".into(), true), ("CLAUDE.md".into(), false)],
                ),
                ("src".into(), DirId(u64::MAX, 0, -1, 0, i64::MIN, 9), vec![]),
            ]),
        }
    }

    /// The texts of [`sample`], each once, in the order they are written.
    const TEXTS: &str = "/work/projAGENTS.mdCLAUDE.mdsrc";

    fn error(bytes: &[u8]) -> String {
        read(bytes).unwrap_err()
    }

    proptest! {
        /// Whatever the names (quotes, backslashes, control characters,
        /// any script) and identities, a cache reads back as written.
        #[test]
        fn a_cache_reads_back_as_written(
            root in "\\PC{0,12}",
            keep in prop::collection::vec("\\PC{0,8}", 0..4),
            dirs in prop::collection::vec(
                ("\\PC{0,12}", any::<[u64; 2]>(), any::<[i64; 4]>(),
                 prop::collection::vec(("\\PC{0,8}", any::<bool>()), 0..4)),
                0..6,
            ),
        ) {
            let stored = Stored {
                root: root.into(),
                keep: keep.into_iter().map(Cow::Owned).collect(),
                listings: Listings::of(dirs.into_iter().map(
                    |(dir, [dev, ino], [a, b, c, d], names)| {
                        let names = names.into_iter().map(|(n, d)| (Cow::Owned(n), d)).collect();
                        (dir.into(), DirId(dev, ino, a, b, c, d), names)
                    },
                )),
            };
            let written = bytes(&stored);
            prop_assert_eq!(read(&written).unwrap(), Read::This(stored));
        }

        /// A cache with any of its bytes changed reads as a cache or as
        /// "not a walk cache", never a panic, and what it reads names no
        /// more text than its bound.
        #[test]
        fn a_cache_with_bytes_changed_never_panics(
            changes in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
            cut in any::<prop::sample::Index>(),
        ) {
            let mut changed = bytes(&sample());
            for (at, byte) in changes {
                let at = at.index(changed.len());
                changed[at] = byte;
            }
            let len = changed.len();
            for bytes in [&changed[..], &changed[..cut.index(len)]] {
                if let Ok(Read::This(stored)) = read(bytes) {
                    let named: usize = stored.listings.dirs().iter().map(|dir| {
                        dir.dir().len()
                            + stored.listings.names(dir).iter().map(|(n, _)| n.len()).sum::<usize>()
                    }).sum();
                    prop_assert!(named <= bytes.len() * NAMED_PER_BYTE);
                }
            }
        }
    }

    /// A file cut anywhere short of its end is no cache, and says where it
    /// ends; a byte more is no cache either.
    #[test]
    fn a_cache_cut_short_or_padded_is_none() {
        let whole = bytes(&sample());
        assert!(matches!(read(&whole), Ok(Read::This(_))));
        for len in 0..whole.len() {
            let problem = error(&whole[..len]);
            assert!(
                problem.starts_with("it ends inside ") || problem.contains("`jit-walk`"),
                "{len}: {problem}"
            );
        }
        assert_eq!(error(&whole[..20]), "it ends inside the texts (byte 16)");
        let root = 16 + TEXTS.len();
        assert_eq!(
            error(&whole[..root + 3]),
            format!("it ends inside the root (byte {root})")
        );
        let mut padded = whole.clone();
        padded.push(0);
        assert_eq!(error(&padded), "1 bytes follow the last directory");
    }

    /// The least each item takes, which bounds what a count can reserve, is
    /// what the smallest one written takes.
    #[test]
    fn the_smallest_items_take_the_bytes_counted_for_them() {
        let empty = || Stored {
            root: "".into(),
            keep: vec![],
            listings: Listings::default(),
        };
        let base = bytes(&empty()).len();
        let more = |stored: Stored<'_>| bytes(&stored).len() - base;
        let keep = vec!["".into()];
        assert_eq!(more(Stored { keep, ..empty() }), REF);
        let dir = |names| Listings::of([("".into(), DirId(0, 0, 0, 0, 0, 0), names)]);
        let listings = dir(vec![]);
        assert_eq!(
            more(Stored {
                listings,
                ..empty()
            }),
            MIN_DIR
        );
        let listings = dir(vec![("".into(), false)]);
        assert_eq!(
            more(Stored {
                listings,
                ..empty()
            }),
            MIN_DIR + MIN_NAME
        );
    }

    /// Counts and lengths are trusted only as far as the bytes go: a
    /// forged count of four billion directories allocates nothing for them.
    #[test]
    fn a_forged_count_is_bounded_by_the_bytes_left() {
        let mut forged = bytes(&Stored {
            listings: Listings::default(),
            ..sample()
        });
        let at = forged.len() - 4;
        forged[at..].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            error(&forged),
            format!("it ends inside a directory's path (byte {})", at + 4)
        );
        let mut reader = Reader {
            bytes: &forged,
            at,
            texts: "",
            named: 0,
        };
        assert_eq!(reader.count("x", 56).unwrap(), (u32::MAX as usize, 0));
        // 100 bytes left back one item of 56, two of 50.
        let mut room = u32::MAX.to_le_bytes().to_vec();
        room.extend([0; 100]);
        let count = |min| {
            Reader {
                bytes: &room,
                at: 0,
                texts: "",
                named: 0,
            }
            .count("x", min)
            .unwrap()
        };
        assert_eq!(count(56), (u32::MAX as usize, 1));
        assert_eq!(count(50), (u32::MAX as usize, 2));
        let mut long = bytes(&sample());
        long[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(error(&long), "it ends inside the texts (byte 16)");
    }

    /// What a walk never writes is named: an entry that is neither a file
    /// nor a directory, texts that are not UTF-8, a reference outside the
    /// texts or inside a character, another file type.
    #[test]
    fn what_a_walk_never_writes_is_named() {
        let whole = bytes(&sample());
        // The header, the texts, the root, the kept names, the first
        // directory's path, identity and count: its first entry's kind.
        let root = 16 + TEXTS.len();
        let flag = root + REF + 4 + 2 * REF + 4 + REF + 48 + 4;
        assert_eq!(whole[flag], 1, "`src`'s flag");
        let mut odd = whole.clone();
        odd[flag] = 2;
        assert_eq!(
            error(&odd),
            format!("a listing's entry at byte {flag} is neither a file nor a directory")
        );
        let mut latin = whole.clone();
        latin[18] = 0xff;
        assert_eq!(error(&latin), "the texts are not UTF-8 (byte 18)");
        let mut outside = whole.clone();
        outside[root + 4..root + 8].copy_from_slice(&(TEXTS.len() as u32 + 1).to_le_bytes());
        assert_eq!(
            error(&outside),
            format!("the root at byte {root} points outside the texts or inside a character")
        );
        let mut past = whole.clone();
        past[root..root + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(error(&past).ends_with("points outside the texts or inside a character"));
        // `ü` is two bytes: a text may not start between them.
        let mut split = bytes(&Stored {
            root: "ü".into(),
            ..sample()
        });
        let root =
            16 + usize::try_from(u32::from_le_bytes(split[12..16].try_into().unwrap())).unwrap();
        assert_eq!(&split[root..root + REF], [0, 0, 0, 0, 2, 0, 0, 0]);
        split[root..root + REF].copy_from_slice(&[1, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(
            error(&split),
            format!("the root at byte {root} points outside the texts or inside a character")
        );
        assert_eq!(error(b"PK\x03\x04"), "it does not start with `jit-walk`");
        assert_eq!(error(b"jit-"), "it ends inside the header (byte 0)");
        assert!(error(b"{ not json").contains("at line 1 column"));
    }

    /// References that name, in all, more than a few times the file's size
    /// (one long text named by every directory: each is work for the walk)
    /// are no walk cache; what a walk writes names less than its size.
    #[test]
    fn references_naming_more_than_the_file_can_back_are_refused() {
        let long = "x".repeat(1000);
        let shared = Stored {
            listings: Listings::of(
                (0..100).map(|i| (long.as_str().into(), DirId(i, 0, 0, 0, 0, 0), vec![])),
            ),
            ..sample()
        };
        let written = bytes(&shared);
        assert!(written.len() < 8_000, "the long text is written once");
        let problem = error(&written);
        assert!(
            problem.starts_with(&format!(
                "its references name more than 4 times its {} bytes in texts (byte ",
                written.len()
            )),
            "{problem}"
        );
        // Distinct paths of the same length name no more than the file holds.
        let distinct = Stored {
            listings: Listings::of((0..100).map(|i| {
                let path = format!("{i:03}{}", "x".repeat(997));
                (path.into(), DirId(i, 0, 0, 0, 0, 0), vec![])
            })),
            ..sample()
        };
        assert!(matches!(read(&bytes(&distinct)), Ok(Read::This(_))));
    }

    /// The bound is four times the file's bytes, that much included.
    #[test]
    fn references_may_name_four_times_the_file_and_no_more() {
        let texts = "x".repeat(64);
        let named = |lens: [u32; 2]| {
            let bytes: Vec<u8> = lens
                .iter()
                .flat_map(|len| [0u32.to_le_bytes(), len.to_le_bytes()].concat())
                .collect();
            let mut reader = Reader {
                bytes: &bytes,
                at: 0,
                texts: &texts,
                named: 0,
            };
            reader.text("a")?;
            reader.text("b").map(str::len)
        };
        // Two references are 16 bytes: 64 bytes of text may be named.
        assert_eq!(named([32, 32]), Ok(32));
        assert_eq!(
            named([32, 33]),
            Err("its references name more than 4 times its 16 bytes in texts (byte 8)".to_owned())
        );
    }

    /// Texts over the bound a cache is read up to are not written.
    #[test]
    fn texts_over_the_bound_are_not_written() {
        let bound = usize::try_from(super::super::MAX_CACHE_BYTES).unwrap();
        let over = Stored {
            root: "x".repeat(bound + 1).into(),
            ..sample()
        };
        let err = write(&mut io::sink(), &over).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            err.to_string(),
            format!("its texts are over the {bound} bytes a cache is read up to")
        );
        let at = Stored {
            root: "x".repeat(bound - TEXTS.len() + "/work/proj".len()).into(),
            ..sample()
        };
        write(&mut io::sink(), &at).unwrap();
    }

    /// A text is written once however many directories hold it, and each
    /// reads it back.
    #[test]
    fn a_text_is_written_once() {
        let whole = bytes(&sample());
        assert_eq!(&whole[12..16], &(TEXTS.len() as u32).to_le_bytes());
        assert_eq!(&whole[16..16 + TEXTS.len()], TEXTS.as_bytes());
        let many = Stored {
            listings: Listings::of((0..100).map(|i| {
                let names = vec![("src".into(), true), ("CLAUDE.md".into(), false)];
                (format!("d{i}").into(), DirId(i, 0, 0, 0, 0, 0), names)
            })),
            ..sample()
        };
        let written = bytes(&many);
        assert_eq!(written.windows(3).filter(|w| w == b"src").count(), 1);
        assert_eq!(read(&written).unwrap(), Read::This(many));
    }

    /// A cache of another version, this layout's or JSON (versions 1 and
    /// 2), is another layout: left alone.
    #[test]
    fn another_version_is_another_layout() {
        let mut newer = bytes(&sample());
        newer[8..12].copy_from_slice(&5u32.to_le_bytes());
        assert_eq!(read(&newer), Ok(Read::Other));
        // Version 3 wrote each text in place.
        let mut older = bytes(&sample());
        older[8..12].copy_from_slice(&3u32.to_le_bytes());
        assert_eq!(read(&older), Ok(Read::Other));
        let json = br#"{"version":2,"root":"/work/proj","keep":[],"dirs":[]}"#;
        assert_eq!(read(json), Ok(Read::Other));
        assert_eq!(
            read(br#"{"version":1,"dirs":[{"dir":""}]}"#),
            Ok(Read::Other)
        );
    }
}
