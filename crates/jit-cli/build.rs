//! Links the `jit` binary to start fast: the functions a hook call runs placed together, listed in `link-order.txt`, when the build's linker takes an ordering file (see `build/link_order.rs`), and on Linux with glibc the unwinder linked in rather than loaded from `libgcc_s` (see `build/unwinder.rs`). Each is tried on a probe program first; what was decided is printed to the build script's output (`cargo build -vv`).

#[path = "build/link_order.rs"]
mod link_order;
#[path = "build/unwinder.rs"]
mod unwinder;

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    println!("cargo:rerun-if-changed=link-order.txt");
    println!("cargo:rerun-if-changed=build/link_order.rs");
    println!("cargo:rerun-if-changed=build/unwinder.rs");
    println!("cargo:rerun-if-env-changed=JIT_LINK_ORDER");
    println!("cargo:rerun-if-env-changed=JIT_STATIC_LIBGCC");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let probe = env::var_os("OUT_DIR").map(|dir| Probe {
        dir: PathBuf::from(dir),
    });
    let order = order_args(probe.as_ref());
    report("link order", &order);
    let unwinder = unwinder_args(probe.as_ref());
    report("unwinder", &unwinder);
    // For the test that holds the binary to this decision.
    let unwinder_kind = match (&unwinder, crt_static()) {
        (Ok(_), _) => "linked",
        (Err(_), true) => "static",
        (Err(_), false) => "shared",
    };
    println!("cargo:rustc-env=JIT_BUILD_UNWINDER={unwinder_kind}");
    for arg in order
        .into_iter()
        .flatten()
        .chain(unwinder.into_iter().flatten())
    {
        println!("cargo:rustc-link-arg-bin=jit={arg}");
    }
}

/// Prints what was decided, for `cargo build -vv` and the build script's
/// output file; cargo reads only lines that start with `cargo:`.
fn report<const N: usize>(what: &str, decided: &Result<[String; N], String>) {
    match decided {
        Ok(args) => println!("jit-cli build: {what}: {}", args.join(" ")),
        Err(why) => println!("jit-cli build: {what}: left out ({why})"),
    }
}

fn order_args(probe: Option<&Probe>) -> Result<[String; 2], String> {
    let order_file = format!("{}/link-order.txt", env!("CARGO_MANIFEST_DIR"));
    let opt_out = env::var("JIT_LINK_ORDER").ok();
    let linker_accepts = opt_out.as_deref() != Some("off")
        && probe.is_some_and(|probe| {
            probe
                .link(
                    "link_probe",
                    "fn main() {}\n",
                    &link_order::order_args(&order_file),
                )
                .is_some()
        });
    let build = link_order::Build {
        opt_out: opt_out.as_deref(),
        order_file: &order_file,
        linker_accepts,
    };
    link_order::link_args(&build).map_err(str::to_owned)
}

fn unwinder_args(probe: Option<&Probe>) -> Result<[String; 3], String> {
    let cfg = |name: &str| env::var(name).unwrap_or_default();
    let opt_out = env::var("JIT_STATIC_LIBGCC").ok();
    let (os, target_env) = (cfg("CARGO_CFG_TARGET_OS"), cfg("CARGO_CFG_TARGET_ENV"));
    let target = unwinder::Target {
        os: &os,
        env: &target_env,
        crt_static: crt_static(),
        native: env::var("HOST").ok() == env::var("TARGET").ok(),
        opt_out: opt_out.as_deref(),
    };
    unwinder::worth_trying(&target)?;
    let Some(probe) = probe else {
        return Err("no OUT_DIR to build the probe in".to_owned());
    };
    // rustc links through the C compiler driver, which knows where its
    // libgcc is.
    let driver = env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_owned());
    let archive = unwinder::find_archive(&driver)?;
    // A GCC upgrade may take the archive away: link without it then.
    println!("cargo:rerun-if-changed={archive}");
    let args = unwinder::archive_args(&archive);
    let program = probe.link("unwind_probe", unwinder::PROBE_SOURCE, &args);
    let caught = program
        .as_deref()
        .and_then(|program| run_for(program, Duration::from_secs(20)))
        .is_some_and(|(succeeded, stdout)| unwinder::probe_caught(succeeded, &stdout));
    let needed = program
        .and_then(|program| std::fs::read(program).ok())
        .and_then(|bytes| unwinder::needed_libraries(&bytes));
    unwinder::link_args(&archive, caught, needed.as_deref()).map_err(str::to_owned)
}

/// Whether the target links the C library statically (`+crt-static`).
fn crt_static() -> bool {
    env::var("CARGO_CFG_TARGET_FEATURE")
        .unwrap_or_default()
        .split(',')
        .any(|feature| feature == "crt-static")
}

/// Links small programs with this build's rustc, target, flags and linker:
/// the only sure answer to what a linker takes, since which linker rustc
/// runs depends on its version, how it was built, the target and the
/// user's configuration.
struct Probe {
    dir: PathBuf,
}

impl Probe {
    /// The program `name` built from `source` with `link_args`, or `None`
    /// when it did not build.
    fn link(&self, name: &str, source: &str, link_args: &[String]) -> Option<PathBuf> {
        let source_file = self.dir.join(format!("{name}.rs"));
        std::fs::write(&source_file, source).ok()?;
        let program = self.dir.join(name);
        let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let mut command = Command::new(rustc);
        command.arg("--crate-type=bin").arg("-o").arg(&program);
        if let Ok(target) = env::var("TARGET") {
            command.arg("--target").arg(target);
        }
        let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
        command.args(flags.split('\x1f').filter(|flag| !flag.is_empty()));
        if let Ok(linker) = env::var("RUSTC_LINKER") {
            command.arg("-C").arg(format!("linker={linker}"));
        }
        for arg in link_args {
            command.arg("-C").arg(format!("link-arg={arg}"));
        }
        let built = command
            .arg(&source_file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        built.then_some(program)
    }
}

/// Runs `program` for at most `limit`: whether it exited successfully, and
/// what it printed. `None` when it could not run or did not end in time.
fn run_for(program: &Path, limit: Duration) -> Option<(bool, Vec<u8>)> {
    let mut child = Command::new(program)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < limit => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let output = child.wait_with_output().ok()?;
    Some((output.status.success(), output.stdout))
}
