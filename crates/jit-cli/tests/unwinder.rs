//! When the build links the unwinder into `jit` instead of loading `libgcc_s`, the probe that decides it, and the binary it gives.
#![allow(
    clippy::expect_used,
    reason = "a failed fixture step should stop the test loudly"
)]

#[path = "../build/unwinder.rs"]
mod unwinder;

use std::path::Path;
use std::process::Command;

use unwinder::{Target, archive_path, link_args, needed_libraries, probe_caught, worth_trying};

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

/// The archive is linked only when the probe caught its panic and no
/// longer names `libgcc_s` (GNU `ld` and gold keep it: nothing saved).
#[test]
fn the_archive_is_linked_whole_and_only_when_the_probe_shows_it_pays() {
    let archive = "/usr/lib/gcc/x86_64-linux-gnu/12/libgcc_eh.a";
    let libs = |names: &[&str]| names.iter().map(|&n| n.to_owned()).collect::<Vec<_>>();
    let without = libs(&["libc.so.6"]);
    let with = libs(&["libgcc_s.so.1", "libc.so.6"]);
    assert_eq!(
        link_args(archive, true, Some(&without)),
        Ok([
            "-Wl,--whole-archive".to_owned(),
            archive.to_owned(),
            "-Wl,--no-whole-archive".to_owned(),
        ])
    );
    for (caught, needed, why) in [
        (false, Some(&without), "did not catch"),
        (true, Some(&with), "kept libgcc_s"),
        (true, None, "could not be read"),
    ] {
        let answer = link_args(archive, caught, needed.map(Vec::as_slice));
        assert!(
            answer.as_ref().is_err_and(|reason| reason.contains(why)),
            "{why}: {answer:?}"
        );
    }
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

/// A minimal ELF file of either class and byte order: a header, a loaded
/// segment and a dynamic segment, whose string table names `needed`.
fn elf(wide: bool, little: bool, needed: &[&str]) -> Vec<u8> {
    let word: usize = if wide { 8 } else { 4 };
    let put = |bytes: &mut Vec<u8>, at: usize, value: u64, size: usize| {
        let all = if little {
            value.to_le_bytes()
        } else {
            value.to_be_bytes()
        };
        let field = if little {
            &all[..size]
        } else {
            &all[8 - size..]
        };
        bytes[at..at + size].copy_from_slice(field);
    };
    let (header, phentsize) = if wide { (64, 56) } else { (52, 32) };
    let phoff = header;
    let dynamic = phoff + 2 * phentsize;
    let entries = needed.len() + 2;
    let strings = dynamic + entries * 2 * word;
    let mut table = vec![0u8];
    let mut names = Vec::new();
    for name in needed {
        names.push(table.len());
        table.extend_from_slice(name.as_bytes());
        table.push(0);
    }
    let mut bytes = vec![0u8; strings + table.len()];
    bytes[..4].copy_from_slice(b"\x7fELF");
    bytes[4] = if wide { 2 } else { 1 };
    bytes[5] = if little { 1 } else { 2 };
    let (phoff_at, phentsize_at) = if wide { (0x20, 0x36) } else { (0x1c, 0x2a) };
    put(&mut bytes, phoff_at, phoff as u64, word);
    put(&mut bytes, phentsize_at, phentsize as u64, 2);
    put(&mut bytes, phentsize_at + 2, 2, 2);
    // Both segments at address 0x1000 more than their offset.
    let fields = if wide { 8 } else { 4 };
    let total = bytes.len() as u64;
    for (i, (kind, offset, size)) in [
        (1u64, 0u64, total),
        (2, dynamic as u64, (entries * 2 * word) as u64),
    ]
    .into_iter()
    .enumerate()
    {
        let at = phoff + i * phentsize;
        put(&mut bytes, at, kind, 4);
        put(&mut bytes, at + fields, offset, word);
        put(&mut bytes, at + fields + word, offset + 0x1000, word);
        put(&mut bytes, at + fields + 3 * word, size, word);
    }
    let mut at = dynamic;
    for &name in &names {
        put(&mut bytes, at, 1, word);
        put(&mut bytes, at + word, name as u64, word);
        at += 2 * word;
    }
    put(&mut bytes, at, 5, word);
    put(&mut bytes, at + word, strings as u64 + 0x1000, word);
    bytes[strings..].copy_from_slice(&table);
    bytes
}

/// The reader the build checks its probe with follows both classes and
/// both byte orders, and answers `None`, never a panic, for what is not an
/// ELF file it can follow.
#[test]
fn the_elf_reader_lists_needed_libraries_in_every_layout_and_never_panics() {
    let names = ["libgcc_s.so.1", "libc.so.6"];
    for wide in [true, false] {
        for little in [true, false] {
            let file = elf(wide, little, &names);
            assert_eq!(
                needed_libraries(&file),
                Some(names.map(str::to_owned).to_vec()),
                "wide {wide}, little {little}"
            );
            assert_eq!(needed_libraries(&elf(wide, little, &[])), Some(Vec::new()));
            // Every truncation is an answer, not a panic.
            for len in 0..file.len() {
                let _ = needed_libraries(&file[..len]);
            }
        }
    }
    // The dynamic section ends at its first `DT_NULL`: an entry after it
    // (here the string table's) is not read.
    let mut ended = elf(true, true, &names);
    let second_needed = 64 + 2 * 56 + 16;
    ended[second_needed..second_needed + 8].fill(0);
    assert_eq!(needed_libraries(&ended), None);
    // A string table just past the end of the loaded segment is not in it.
    let mut short = elf(true, true, &names);
    let strings = 64 + 2 * 56 + (names.len() + 2) * 16;
    let load_size = 64 + 8 + 3 * 8;
    short[load_size..load_size + 8].copy_from_slice(&(strings as u64).to_le_bytes());
    assert_eq!(needed_libraries(&short), None);
    short[load_size..load_size + 8].copy_from_slice(&(strings as u64 + 1).to_le_bytes());
    assert_eq!(
        needed_libraries(&short),
        Some(names.map(str::to_owned).to_vec())
    );
    assert_eq!(needed_libraries(b"#!/bin/sh\n"), None);
    let mut class = elf(true, true, &names);
    class[4] = 3;
    assert_eq!(needed_libraries(&class), None);
    let mut order = elf(true, true, &names);
    order[5] = 0;
    assert_eq!(needed_libraries(&order), None);
}

/// The probe linked as the build links it: it still catches its panic,
/// and what the build decides from it agrees with the libraries it names
/// (none of `libgcc_s` with rustc's `lld`; GNU `ld` keeps it).
#[test]
fn the_probe_linked_with_the_archive_catches_and_is_judged_by_what_it_loads() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        // Only Linux with glibc links the archive in.
        return;
    }
    let archive = unwinder::find_archive("cc").expect("a glibc system with GCC has libgcc_eh.a");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let args: Vec<String> = unwinder::archive_args(&archive)
        .iter()
        .map(|arg| format!("link-arg={arg}"))
        .collect();
    let flags: Vec<&str> = args.iter().flat_map(|arg| ["-C", arg.as_str()]).collect();
    let (succeeded, stdout) = run_probe(dir.path(), "linked", &flags);
    assert!(probe_caught(succeeded, &stdout), "{stdout:?}");
    let bytes = std::fs::read(dir.path().join("linked")).expect("read the probe");
    let needed = needed_libraries(&bytes).expect("the probe is an ELF file");
    assert!(
        needed.iter().any(|name| name.starts_with("libc.so")),
        "{needed:?}"
    );
    let kept = needed.iter().any(|name| name.starts_with("libgcc_s"));
    assert_eq!(
        link_args(&archive, true, Some(&needed)).is_ok(),
        !kept,
        "{needed:?}"
    );
}

/// `jit` as built loads `libgcc_s` exactly when the build script did not
/// link the unwinder in: not when it did (`linked`), yes when it kept it
/// (`shared`: `JIT_STATIC_LIBGCC=off`, GNU `ld`, no archive), and no
/// shared library at all in a static build (`static`).
#[test]
fn the_binary_loads_libgcc_s_only_when_the_build_kept_it() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        // Not an ELF file with glibc's libraries to look for.
        return;
    }
    let bytes = std::fs::read(env!("CARGO_BIN_EXE_jit")).expect("read the binary");
    let needed = needed_libraries(&bytes).expect("jit is an ELF file");
    let libc = needed.iter().any(|name| name.starts_with("libc.so"));
    let gcc_s = needed.iter().any(|name| name.starts_with("libgcc_s"));
    match env!("JIT_BUILD_UNWINDER") {
        "linked" => assert!(libc && !gcc_s, "{needed:?}"),
        "shared" => assert!(libc && gcc_s, "{needed:?}"),
        "static" => assert!(needed.is_empty(), "{needed:?}"),
        other => panic!("JIT_BUILD_UNWINDER={other}"),
    }
}
