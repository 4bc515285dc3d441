//! Where `jit` starts on Linux with glibc: what std's own start does that
//! `jit` relies on, without the part a short-lived process pays for and
//! never uses.
//!
//! Every hook call is a new process. Before `main`, std's start prepares
//! for a stack overflow on the main thread: it asks glibc where that
//! thread's stack is (`pthread_getattr_np`, which reads and parses the whole
//! of `/proc/self/maps`), maps an alternate signal stack with a guard page,
//! and installs `SIGSEGV` and `SIGBUS` handlers that print "has overflowed
//! its stack" before aborting; at exit it takes the alternate stack down
//! again. That is 21 system calls. `jit` defines the C library's `main`
//! itself instead (`#![no_main]`) and does the rest of what std's start
//! does:
//!
//! * a standard stream that is closed (descriptor 0, 1 or 2) is opened on
//!   `/dev/null`, so that no file `jit` opens (a session state, an event
//!   log) takes its number and receives what is written to the stream;
//! * `SIGPIPE` is ignored, so that a write to a closed pipe returns `EPIPE`,
//!   which every command answers by ending quietly
//!   (`output::is_broken_pipe`), instead of killing the process;
//! * a panic that no command catches ends the process with status 101, its
//!   message printed by the panic hook as before;
//! * [`std::process::exit`] flushes standard output, as the return from
//!   std's `main` does.
//!
//! What goes: a stack overflow ends the process by `SIGSEGV` without std's
//! message (threads `jit` starts get no alternate stack either), and a panic
//! message names the main thread `<unnamed>` rather than `main`. The
//! arguments are std's as before: glibc hands them to the initialisers std
//! registers, which is why this entry is for glibc only (on musl, std's start
//! is what hands them over).

#![allow(
    unsafe_code,
    reason = "the C entry point and three calls into the C library, each with its safety argument"
)]

use std::ffi::{c_char, c_int};
use std::process::ExitCode;

/// The process's entry, called by the C library's start.
#[unsafe(no_mangle)]
extern "C" fn main(_argc: c_int, _argv: *const *const c_char) -> c_int {
    open_closed_standard_streams();
    ignore_sigpipe();
    let status = match std::panic::catch_unwind(crate::run) {
        Ok(code) => status(code),
        Err(payload) => {
            // Dropping a payload can panic in turn; the process ends anyway.
            std::mem::forget(payload);
            101
        }
    };
    std::process::exit(status)
}

/// The number `code` stands for. `ExitCode` shows it to std's start only,
/// so it is found among the 256 it can be.
fn status(code: ExitCode) -> c_int {
    (0..=u8::MAX)
        .find(|&n| ExitCode::from(n) == code)
        .map_or(1, c_int::from)
}

/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed,
/// lowest first, so that each takes the number that was free. Aborts when
/// it cannot, as std's start does: running on would let the next file
/// opened become a standard stream.
fn open_closed_standard_streams() {
    for fd in 0..=2 {
        // SAFETY: `F_GETFD` reads the descriptor's flags and nothing else;
        // it fails only for a descriptor that is not open (`EBADF`).
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1;
        // SAFETY: the path is a NUL-terminated string that outlives the
        // call; the descriptor returned stays open for the process.
        if closed && unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } == -1 {
            std::process::abort();
        }
    }
}

/// Ignores `SIGPIPE`, as std's start does.
fn ignore_sigpipe() {
    // SAFETY: setting a signal's disposition to "ignore" installs no
    // handler; no other thread runs yet.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
}
