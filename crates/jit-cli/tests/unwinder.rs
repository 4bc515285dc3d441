//! When the build links the unwinder into `jit` instead of loading `libgcc_s`, the probe that decides it, and the binary it gives.
#![allow(
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

#[path = "../build/unwinder.rs"]
mod unwinder;

use std::path::Path;
use std::process::Command;

use unwinder::{Target, archive_path, link_args, probe_caught, worth_trying};

/// A native build for Linux with glibc that does not opt out.
fn linux_gnu() -> Target<'static> {
    Target {
        os: "linux",
        env: "gnu",
        crt_static: false,
        native: true,
        opt_out: None,
    }
}

#[test]
fn a_native_linux_gnu_build_tries_it_and_no_other_does() {
    assert_eq!(worth_trying(&linux_gnu()), Ok(()));
    // Another value of the opt-out is none.
    let on = Target {
        opt_out: Some("on"),
        ..linux_gnu()
    };
    assert_eq!(worth_trying(&on), Ok(()));
    let refused = [
        (
            Target {
                opt_out: Some("off"),
                ..linux_gnu()
            },
            "JIT_STATIC_LIBGCC=off",
        ),
        (
            Target {
                os: "macos",
                env: "",
                ..linux_gnu()
            },
            "not Linux with glibc",
        ),
        (
            Target {
                env: "musl",
                ..linux_gnu()
            },
            "not Linux with glibc",
        ),
        (
            Target {
                os: "freebsd",
                ..linux_gnu()
            },
            "not Linux with glibc",
        ),
        (
            Target {
                crt_static: true,
                ..linux_gnu()
            },
            "linked statically",
        ),
        (
            Target {
                native: false,
                ..linux_gnu()
            },
            "cross build",
        ),
    ];
    for (target, why) in refused {
        let answer = worth_trying(&target);
        assert!(
            answer.is_err_and(|reason| reason.contains(why)),
            "{why}: {answer:?}"
        );
    }
}

/// `cc -print-file-name=NAME` prints the path it found, or the bare name
/// when it found none.
#[test]
fn the_archive_is_an_absolute_path_the_driver_printed() {
    assert_eq!(
        archive_path("/usr/lib/gcc/x86_64-linux-gnu/12/libgcc_eh.a\n"),
        Some("/usr/lib/gcc/x86_64-linux-gnu/12/libgcc_eh.a")
    );
    assert_eq!(
        archive_path("/opt/gcc/lib/libgcc_eh.a"),
        Some("/opt/gcc/lib/libgcc_eh.a")
    );
    for printed in [
        "libgcc_eh.a\n",
        "lib/libgcc_eh.a\n",
        "/usr/lib/gcc/x86_64-linux-gnu/12/libgcc.a\n",
        "/usr/lib/not-libgcc_eh.a\n",
        "",
    ] {
        assert_eq!(archive_path(printed), None, "{printed:?}");
    }
}

#[test]
fn the_archive_is_linked_whole_and_only_after_a_caught_panic() {
    let archive = "/usr/lib/gcc/x86_64-linux-gnu/12/libgcc_eh.a";
    assert_eq!(
        link_args(archive, true),
        Ok([
            "-Wl,--whole-archive".to_owned(),
            archive.to_owned(),
            "-Wl,--no-whole-archive".to_owned(),
        ])
    );
    assert!(link_args(archive, false).is_err());
}

#[test]
fn only_a_probe_that_succeeded_and_said_caught_passes() {
    assert!(probe_caught(true, b"caught"));
    assert!(!probe_caught(false, b"caught"));
    assert!(!probe_caught(true, b"not caught"));
    assert!(!probe_caught(true, b""));
    assert!(!probe_caught(true, b"caught\n"));
}

/// Builds the probe's source with `rustc` and `flags` and runs it.
fn run_probe(dir: &Path, name: &str, flags: &[&str]) -> (bool, Vec<u8>) {
    let source = dir.join("probe.rs");
    std::fs::write(&source, unwinder::PROBE_SOURCE).expect("write the probe");
    let program = dir.join(name);
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let built = Command::new(rustc)
        .args(flags)
        .arg("-o")
        .arg(&program)
        .arg(&source)
        .status()
        .expect("rustc runs");
    assert!(built.success(), "the probe builds with {flags:?}");
    let out = Command::new(&program).output().expect("the probe runs");
    (out.status.success(), out.stdout)
}

/// The probe says `caught` only when a panic really reached `catch_unwind`:
/// built to abort on a panic, it must not.
#[test]
fn the_probe_tells_a_caught_panic_from_an_abort() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (succeeded, stdout) = run_probe(dir.path(), "unwinds", &[]);
    assert!(probe_caught(succeeded, &stdout), "{stdout:?}");
    let (succeeded, stdout) = run_probe(dir.path(), "aborts", &["-C", "panic=abort"]);
    assert!(!probe_caught(succeeded, &stdout), "{stdout:?}");
}

/// The shared libraries an ELF file names (`DT_NEEDED`), read from its
/// dynamic section; 64-bit little-endian only, which is all the build links
/// the unwinder into.
fn needed_libraries(file: &Path) -> Vec<String> {
    let bytes = std::fs::read(file).expect("read the binary");
    let u16_at = |at: usize| u16::from_le_bytes(bytes[at..at + 2].try_into().expect("2 bytes"));
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| {
        let value = u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
        usize::try_from(value).expect("fits")
    };
    assert_eq!(&bytes[..4], b"\x7fELF");
    assert_eq!((bytes[4], bytes[5]), (2, 1), "ELF64, little-endian");
    let (phoff, phentsize, phnum) = (u64_at(0x20), usize::from(u16_at(0x36)), u16_at(0x38));
    let headers: Vec<usize> = (0..usize::from(phnum))
        .map(|i| phoff + i * phentsize)
        .collect();
    // A virtual address to its offset in the file, through the loaded segments.
    let offset_of = |address: usize| {
        headers
            .iter()
            .filter(|&&h| u32_at(h) == 1)
            .find(|&&h| (u64_at(h + 16)..u64_at(h + 16) + u64_at(h + 32)).contains(&address))
            .map(|&h| address - u64_at(h + 16) + u64_at(h + 8))
            .expect("the address is in a loaded segment")
    };
    let Some(&dynamic) = headers.iter().find(|&&h| u32_at(h) == 2) else {
        return Vec::new();
    };
    let entries: Vec<(usize, usize)> = (u64_at(dynamic + 8)..)
        .step_by(16)
        .map(|at| (u64_at(at), u64_at(at + 8)))
        .take_while(|&(tag, _)| tag != 0)
        .collect();
    let strings = entries
        .iter()
        .find(|&&(tag, _)| tag == 5)
        .map(|&(_, address)| offset_of(address))
        .expect("a dynamic section has a string table");
    entries
        .iter()
        .filter(|&&(tag, _)| tag == 1)
        .map(|&(_, name)| {
            let start = strings + name;
            let end = start
                + bytes[start..]
                    .iter()
                    .position(|&b| b == 0)
                    .expect("a name ends");
            String::from_utf8_lossy(&bytes[start..end]).into_owned()
        })
        .collect()
}

/// When the build linked the unwinder in, `jit` does not load `libgcc_s`:
/// the linker took the archive's definitions over the shared library's.
/// A build that kept `libgcc_s` (another target, `JIT_STATIC_LIBGCC=off`)
/// still names the C library.
#[test]
fn the_binary_loads_libgcc_s_only_when_the_build_kept_it() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        // Not an ELF file with glibc's libraries to look for.
        return;
    }
    let needed = needed_libraries(Path::new(env!("CARGO_BIN_EXE_jit")));
    assert!(
        needed.iter().any(|name| name.starts_with("libc.so")),
        "{needed:?}"
    );
    let gcc_s = needed.iter().any(|name| name.starts_with("libgcc_s"));
    match env!("JIT_BUILD_UNWINDER") {
        "linked" => assert!(!gcc_s, "{needed:?}"),
        "shared" => assert!(gcc_s, "{needed:?}"),
        other => panic!("JIT_BUILD_UNWINDER={other}"),
    }
}
