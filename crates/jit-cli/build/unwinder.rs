//! When the `jit` binary carries its own copy of the unwinder (`libgcc_eh.a`) instead of loading `libgcc_s` at every start: the decision of `build.rs`, kept apart so tests can reach it.
//!
//! Rust's standard library unwinds a panic with libgcc's unwinder, which a
//! dynamically linked program on Linux with glibc loads from `libgcc_s.so.1`
//! at every start: one more shared library for the loader to find, map,
//! relocate and search for symbols, and its constructor, whose `cpuid`
//! instructions each trap to the hypervisor on a virtual machine. Every hook
//! call is a new process, so that is paid on every tool call. The same
//! unwinder, linked from GCC's static archive into the binary, is what
//! `-static-libgcc` gives C programs; the hook still catches a panic with it
//! (the build checks that before using it).

/// The build's target, as cargo describes it to the build script.
pub(crate) struct Target<'a> {
    /// `CARGO_CFG_TARGET_OS`.
    pub(crate) os: &'a str,
    /// `CARGO_CFG_TARGET_ENV`.
    pub(crate) env: &'a str,
    /// Whether `CARGO_CFG_TARGET_FEATURE` holds `crt-static`.
    pub(crate) crt_static: bool,
    /// Whether the target is the host's, so a probe program can run.
    pub(crate) native: bool,
    /// `JIT_STATIC_LIBGCC`: `off` keeps `libgcc_s`.
    pub(crate) opt_out: Option<&'a str>,
}

/// Whether the build should look for the archive and try it at all, or why
/// not.
pub(crate) fn worth_trying(target: &Target<'_>) -> Result<(), &'static str> {
    if target.opt_out == Some("off") {
        return Err("JIT_STATIC_LIBGCC=off");
    }
    if target.os != "linux" || target.env != "gnu" {
        return Err("the target is not Linux with glibc");
    }
    if target.crt_static {
        return Err("the binary is linked statically, with the unwinder in it already");
    }
    if !target.native {
        return Err("a cross build cannot run the probe that checks a panic is still caught");
    }
    Ok(())
}

/// The archive's path from what the C compiler driver printed for
/// `-print-file-name=libgcc_eh.a`: an absolute path when it has one, the
/// bare name when it has none.
pub(crate) fn archive_path(printed: &str) -> Option<&str> {
    let path = printed.trim_end_matches(['\n', '\r']);
    (path.starts_with('/') && path.ends_with("/libgcc_eh.a")).then_some(path)
}

/// The archive the C compiler driver `driver` knows (it prints the path
/// for `-print-file-name=libgcc_eh.a`), or why there is none.
pub(crate) fn find_archive(driver: &str) -> Result<String, String> {
    let printed = std::process::Command::new(driver)
        .arg("-print-file-name=libgcc_eh.a")
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|err| format!("`{driver}` could not be run: {err}"))?;
    archive_path(&String::from_utf8_lossy(&printed.stdout))
        .filter(|path| std::path::Path::new(path).is_file())
        .map(str::to_owned)
        .ok_or_else(|| format!("`{driver}` knows no libgcc_eh.a"))
}

/// The linker arguments that link every member of `archive` into the
/// binary. Linked as a whole, since rustc names `libgcc_s` before any
/// argument a build script adds: with rustc's own `lld` (or mold), which
/// decide `--as-needed` at the end of the link, the archive's definitions
/// then leave `libgcc_s` unneeded and out. GNU `ld` and gold decide when
/// they read `libgcc_s`, before the archive, and keep it: the probe's
/// `DT_NEEDED` list tells which (see [`link_args`]).
pub(crate) fn archive_args(archive: &str) -> [String; 3] {
    [
        "-Wl,--whole-archive".to_owned(),
        archive.to_owned(),
        "-Wl,--no-whole-archive".to_owned(),
    ]
}

/// The arguments for the `jit` binary, given whether a probe program linked
/// with them caught a panic and the shared libraries it names, or why
/// there are none: a probe that still names `libgcc_s` would give a binary
/// with a second, unused copy of the unwinder and nothing saved.
pub(crate) fn link_args(
    archive: &str,
    probe_caught: bool,
    probe_needed: Option<&[String]>,
) -> Result<[String; 3], &'static str> {
    if !probe_caught {
        return Err("a program linked with it did not catch a panic");
    }
    let Some(needed) = probe_needed else {
        return Err("the libraries a program linked with it loads could not be read");
    };
    if needed.iter().any(|name| name.starts_with("libgcc_s")) {
        return Err(
            "the linker kept libgcc_s (GNU ld and gold decide --as-needed before the archive)",
        );
    }
    Ok(archive_args(archive))
}

/// The shared libraries an ELF file names (its `DT_NEEDED` entries, in
/// order; none for a static program), or `None` when `bytes` is no ELF
/// file or not one this reader can follow (32 and 64 bits, either byte
/// order). Never panics: every offset is checked against `bytes`.
pub(crate) fn needed_libraries(bytes: &[u8]) -> Option<Vec<String>> {
    if bytes.get(..4)? != b"\x7fELF" {
        return None;
    }
    let wide = match bytes.get(4)? {
        1 => false,
        2 => true,
        _ => return None,
    };
    let little = match bytes.get(5)? {
        1 => true,
        2 => false,
        _ => return None,
    };
    let read = |at: u64, size: u64| -> Option<u64> {
        let start = usize::try_from(at).ok()?;
        let field = bytes.get(start..start.checked_add(usize::try_from(size).ok()?)?)?;
        let fold = |value: u64, &byte: &u8| (value << 8) | u64::from(byte);
        Some(if little {
            field.iter().rev().fold(0, fold)
        } else {
            field.iter().fold(0, fold)
        })
    };
    let word = if wide { 8 } else { 4 };
    let (phoff, phentsize, phnum) = if wide {
        (read(0x20, 8)?, read(0x36, 2)?, read(0x38, 2)?)
    } else {
        (read(0x1c, 4)?, read(0x2a, 2)?, read(0x2c, 2)?)
    };
    // The word `index` words after `at`.
    let field = |at: u64, index: u64| read(at.checked_add(index.checked_mul(word)?)?, word);
    // (type, file offset, address, size in the file) of each segment.
    let segments: Vec<(u64, u64, u64, u64)> = (0..phnum)
        .map(|i| {
            let at = phoff.checked_add(i.checked_mul(phentsize)?)?;
            // ELF64 puts the flags before the offset, ELF32 after the sizes.
            let at_fields = if wide {
                at.checked_add(8)?
            } else {
                at.checked_add(4)?
            };
            Some((
                read(at, 4)?,
                field(at_fields, 0)?,
                field(at_fields, 1)?,
                field(at_fields, 3)?,
            ))
        })
        .collect::<Option<_>>()?;
    let Some(&(_, dynamic, _, dynamic_size)) = segments.iter().find(|s| s.0 == 2) else {
        return Some(Vec::new());
    };
    let mut entries = Vec::new();
    for i in 0..dynamic_size / (2 * word) {
        let at = dynamic.checked_add(i.checked_mul(2 * word)?)?;
        let tag = field(at, 0)?;
        if tag == 0 {
            break;
        }
        entries.push((tag, field(at, 1)?));
    }
    let table = entries.iter().find(|&&(tag, _)| tag == 5)?.1;
    // The string table's address, as an offset in the file.
    let table = segments
        .iter()
        .find(|&&(kind, _, address, size)| kind == 1 && table >= address && table - address < size)
        .and_then(|&(_, offset, address, _)| offset.checked_add(table - address))?;
    entries
        .iter()
        .filter(|&&(tag, _)| tag == 1)
        .map(|&(_, name)| {
            let start = usize::try_from(table.checked_add(name)?).ok()?;
            let rest = bytes.get(start..)?;
            let end = rest.iter().position(|&b| b == 0)?;
            Some(String::from_utf8_lossy(&rest[..end]).into_owned())
        })
        .collect()
}

/// The probe: it exits successfully and prints `caught` only when the
/// unwinder it was linked with carried a panic to `catch_unwind`.
pub(crate) const PROBE_SOURCE: &str = r#"fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let caught = std::panic::catch_unwind(|| {
        if std::env::args().count() < usize::MAX {
            panic!("probe");
        }
    })
    .is_err();
    print!("{}", if caught { "caught" } else { "not caught" });
}
"#;

/// Whether what the probe printed says it caught its panic.
pub(crate) fn probe_caught(succeeded: bool, stdout: &[u8]) -> bool {
    succeeded && stdout == b"caught"
}
