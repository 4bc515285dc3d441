//! The extractor: walks the parsed steps and applies the one filter for uncertain targets.

use crate::analysis::Collector;
use crate::commands::{self, Target, Verdict};
use crate::syntax::{self, Item, Step, Word};
use crate::{Analysis, SkipReason};

/// The longest command text that is parsed: 256 KiB. The parse and the
/// walk are linear, but densely packed commands (`a;` lines, pipelines)
/// cost up to 4 µs and 300 bytes of memory per byte (a 22 MB command of
/// `echo … >> f` lines took 21 s and 1.5 GB), so a longer text could
/// outlast an agent hook's timeout; it is refused whole with
/// [`SkipReason::TooLarge`] before the parser sees it. The commands agents
/// and people write are a few hundred bytes; a here-document writing a
/// whole file is the long kind, and 256 KiB holds a large source file.
pub const MAX_COMMAND_BYTES: usize = 256 * 1024;

/// Returns the paths `command` certainly writes, and the words it skipped.
///
/// See the [crate documentation](crate) for what is and is not reported.
pub fn written_paths(command: &str) -> Analysis {
    let mut out = Collector::default();
    if command.len() > MAX_COMMAND_BYTES {
        out.push_skipped(
            &format!(
                "the command's {} bytes, over the {MAX_COMMAND_BYTES} bytes of text this crate parses",
                command.len()
            ),
            SkipReason::TooLarge,
        );
        return out.finish();
    }
    match syntax::parse(command) {
        Ok(steps) => {
            for step in &steps {
                match step {
                    Step::Simple(items) => simple(items, &mut out),
                    Step::WriteRedirect(word) => emit(word, None, &mut out),
                }
            }
        }
        Err(refusal) => out.push_skipped(&refusal.message, refusal.reason),
    }
    out.finish()
}

fn simple(items: &[Item], out: &mut Collector) {
    let argv: Vec<&Word> = items
        .iter()
        .filter_map(|item| match item {
            Item::Word(word) => Some(word),
            Item::WriteRedirect(_) => None,
        })
        .collect();
    let targets = match argv.first() {
        None => Vec::new(),
        Some(name) => match name.uncertain {
            // A command whose name is known only at run time could be anything.
            Some(reason) => {
                out.push_skipped(&name.raw, reason);
                Vec::new()
            }
            None => match commands::judge(&argv) {
                Verdict::Writes(targets) => targets,
                Verdict::Refused(reason) => {
                    out.push_skipped(&name.raw, reason);
                    Vec::new()
                }
            },
        },
    };
    // Walk the items in source order so that paths come out in order of
    // appearance, redirections and arguments interleaved.
    let mut index = 0;
    for item in items {
        match item {
            Item::WriteRedirect(word) => emit(word, None, out),
            Item::Word(word) => {
                for target in targets.iter().filter(|t| t.word() == index) {
                    let offset = match target {
                        Target::Word(_) => None,
                        Target::Attached { offset, .. } => Some(*offset),
                    };
                    emit(word, offset, out);
                }
                index += 1;
            }
        }
    }
}

/// Reports the path named by `word` (from byte `offset` on, for an option's
/// attached argument), or records why it is skipped.
fn emit(word: &Word, offset: Option<usize>, out: &mut Collector) {
    if let Some(reason) = word.uncertain {
        out.push_skipped(&word.raw, reason);
        return;
    }
    let path = word.text.get(offset.unwrap_or(0)..).unwrap_or("");
    match path_reason(path) {
        Some(reason) => out.push_skipped(&word.raw, reason),
        None => out.push_path(path),
    }
}

/// An absolute path with `//`, `.` and `..` folded lexically (`..` at the
/// top stays at `/`, as the kernel does); `None` for a relative path.
///
/// This is a filter's view, not where the path is: it only decides whether
/// a word names a device or a temp file, and the word is reported as
/// written. A lexical fold can be wrong after a symlink, which here costs at
/// most a miss (`/tmp/link/../x` is skipped as temp); where a reported path
/// really lies is decided by jit-core's `resolve_parents`, against the
/// filesystem. This crate reads no filesystem and depends on no workspace
/// crate, so it keeps this one fold of its own.
fn lexical_fold_absolute(path: &str) -> Option<String> {
    if !path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    Some(format!("/{}", parts.join("/")))
}

/// The filter for literal paths that are certain but not project files.
fn path_reason(path: &str) -> Option<SkipReason> {
    // `//dev/null`, `/./tmp/x` and `/../tmp/x` name the same places.
    let normal = lexical_fold_absolute(path);
    let under = |dir: &str| {
        normal
            .as_deref()
            .and_then(|p| p.strip_prefix(dir))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    if path.is_empty() {
        Some(SkipReason::Empty)
    } else if path.contains('\n') {
        // A name with a line break cannot be shown one path per line, and
        // is almost always a quoting slip rather than a real file.
        Some(SkipReason::Quoting)
    } else if path == "-" {
        Some(SkipReason::Stdio)
    } else if under("/dev") {
        Some(SkipReason::Device)
    } else if under("/tmp") || under("/var/tmp") {
        Some(SkipReason::Temp)
    } else {
        None
    }
}
