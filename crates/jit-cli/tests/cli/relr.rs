//! The build script's choice to pack the binary's relative relocations,
//! and the binary it produced.

#[path = "../../build/relr.rs"]
mod logic;

use logic::{Build, OLDEST_GLIBC, glibc_version};

/// A native glibc build on a glibc that reads packed relocations.
fn packing() -> Build {
    Build {
        target_os: "linux".into(),
        target_env: "gnu".into(),
        target_features: "fxsr,sse,sse2".into(),
        native: true,
        opt: None,
        libc: Some("glibc 2.36\n".into()),
    }
}

#[test]
fn getconf_versions_are_read_and_anything_else_is_not() {
    assert_eq!(glibc_version("glibc 2.36\n"), Some((2, 36)));
    assert_eq!(glibc_version("glibc 2.4"), Some((2, 4)));
    assert_eq!(glibc_version("glibc 10.1.5"), Some((10, 1)));
    for text in [
        "",
        "glibc",
        "glibc 2",
        "glibc x.y",
        "musl 1.2.4",
        "2.36",
        "glibc 2.-1",
    ] {
        assert_eq!(glibc_version(text), None, "{text:?}");
    }
}

#[test]
fn only_a_native_dynamic_glibc_build_on_glibc_2_36_or_newer_packs() {
    assert_eq!(OLDEST_GLIBC, (2, 36));
    assert!(packing().packs());
    for newer in ["glibc 2.41", "glibc 3.0"] {
        let build = Build {
            libc: Some(newer.into()),
            ..packing()
        };
        assert!(build.packs(), "{newer}");
    }
    let refusals = [
        (
            "older glibc",
            Build {
                libc: Some("glibc 2.35".into()),
                ..packing()
            },
        ),
        (
            "no getconf",
            Build {
                libc: None,
                ..packing()
            },
        ),
        (
            "unreadable getconf",
            Build {
                libc: Some("2.36".into()),
                ..packing()
            },
        ),
        (
            "turned off",
            Build {
                opt: Some("0".into()),
                ..packing()
            },
        ),
        (
            "cross build",
            Build {
                native: false,
                ..packing()
            },
        ),
        (
            "musl",
            Build {
                target_env: "musl".into(),
                ..packing()
            },
        ),
        (
            "macOS",
            Build {
                target_os: "macos".into(),
                ..packing()
            },
        ),
        (
            "static",
            Build {
                target_features: "crt-static,sse2".into(),
                ..packing()
            },
        ),
    ];
    for (what, build) in refusals {
        assert!(!build.packs(), "{what}");
    }
    // Any other value leaves it on.
    assert!(
        Build {
            opt: Some("1".into()),
            ..packing()
        }
        .packs()
    );
}

/// The built binary has a `DT_RELR` entry exactly when this machine's
/// build packs it.
#[cfg(all(
    target_os = "linux",
    target_pointer_width = "64",
    target_endian = "little"
))]
#[test]
fn the_built_binary_is_packed_exactly_when_the_build_says_so() {
    let libc = std::process::Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .and_then(|out| String::from_utf8(out.stdout).ok());
    let build = Build {
        target_os: "linux".into(),
        target_env: if cfg!(target_env = "gnu") {
            "gnu"
        } else {
            "other"
        }
        .into(),
        target_features: if cfg!(target_feature = "crt-static") {
            "crt-static"
        } else {
            ""
        }
        .into(),
        native: true,
        opt: option_env!("JIT_PACK_RELOCS").map(str::to_owned),
        libc,
    };
    let tags = dynamic_tags(env!("CARGO_BIN_EXE_jit"));
    const DT_RELR: u64 = 36;
    assert_eq!(tags.contains(&DT_RELR), build.packs(), "{build:?}");
}

/// The tags of the dynamic section of the 64-bit little-endian ELF file
/// at `path`.
#[cfg(all(
    target_os = "linux",
    target_pointer_width = "64",
    target_endian = "little"
))]
fn dynamic_tags(path: &str) -> Vec<u64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path).unwrap();
    let mut read_at = |offset: u64, len: usize| {
        let mut bytes = vec![0; len];
        file.seek(SeekFrom::Start(offset)).unwrap();
        file.read_exact(&mut bytes).unwrap();
        bytes
    };
    let u64_at = |b: &[u8], i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    let u16_at = |b: &[u8], i: usize| usize::from(u16::from_le_bytes([b[i], b[i + 1]]));
    let header = read_at(0, 64);
    assert_eq!(&header[..4], b"\x7fELF");
    let (phoff, phentsize, phnum) = (
        u64_at(&header, 0x20),
        u16_at(&header, 0x36),
        u16_at(&header, 0x38),
    );
    let phdrs = read_at(phoff, phentsize * phnum);
    const PT_DYNAMIC: u32 = 2;
    let dynamic = phdrs
        .chunks(phentsize)
        .find(|ph| u32::from_le_bytes(ph[..4].try_into().unwrap()) == PT_DYNAMIC)
        .expect("a dynamically linked binary");
    let (offset, size) = (u64_at(dynamic, 8), u64_at(dynamic, 32));
    let entries = read_at(offset, usize::try_from(size).unwrap());
    entries
        .chunks(16)
        .map(|entry| u64_at(entry, 0))
        .take_while(|&tag| tag != 0)
        .collect()
}
