//! `cargo xtask link-order`: lists the functions the `jit` binary runs in a hook call and an `explain` on the realistic tree, for the linker to place together.

use std::collections::HashSet;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

/// The list the build script hands the linker.
const ORDER_FILE: &str = "crates/jit-cli/link-order.txt";

/// The deep file of the generated 20k tree, and a sibling of it.
const DEEP: &str = "services/billing/src/features/invoices/ui/forms/inputs/AmountField.tsx";
const SIBLING: &str = "services/billing/src/features/invoices/ui/forms/inputs/Other.tsx";

/// Builds `jit`, runs it under callgrind on a generated tree (`--version`,
/// the hook's `SessionStart`, a first and a warm `PostToolUse`, an
/// `explain`), and writes the functions of the binary that ran, in the
/// order they were first met, to [`ORDER_FILE`]. Needs valgrind.
pub(crate) fn run(root: &Path) -> anyhow::Result<()> {
    let valgrind = Command::new("valgrind")
        .arg("--version")
        .output()
        .map(|out| out.status.success());
    if !matches!(valgrind, Ok(true)) {
        bail!("valgrind is needed (it lists the functions each run executes)");
    }
    let target = cargo_metadata::MetadataCommand::new()
        .current_dir(root)
        .no_deps()
        .exec()
        .context("cargo metadata")?
        .target_directory
        .into_std_path_buf();
    cargo(root, &["build", "--release", "-p", "jit-cli"])?;
    let jit = target.join("release/jit");
    let work = std::env::temp_dir().join(format!("jit-link-order-{}", std::process::id()));
    let result = profile(root, &jit, &work);
    let _ = fs::remove_dir_all(&work);
    let symbols = result?;
    let mut text = String::from(HEADER);
    for symbol in &symbols {
        text.push_str(symbol);
        text.push('\n');
    }
    fs::write(root.join(ORDER_FILE), text).with_context(|| format!("writing {ORDER_FILE}"))?;
    println!(
        "{ORDER_FILE}: {} functions; rebuild `jit` to link with them",
        symbols.len()
    );
    Ok(())
}

const HEADER: &str = "\
# The functions the `jit` binary runs in a hook call and an `explain`, in the
# order they were first met: the build script hands this list to the linker
# (`--symbol-ordering-file`, with rustc's own lld), which places them together,
# so a new process faults in fewer pages of code. A name this build does not
# have is skipped: names change with the compiler, the dependencies' versions
# and some edits (a function's signature), so run `cargo xtask link-order`
# again after those (it needs valgrind); see docs/PERFORMANCE.md.
";

/// Runs the scenarios under callgrind in `work` and returns the binary's
/// functions they ran.
fn profile(root: &Path, jit: &Path, work: &Path) -> anyhow::Result<Vec<String>> {
    let tree = work.join("tree");
    let state = work.join("state");
    let home = work.join("home");
    for dir in [&state, &home] {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let tree_arg = tree.to_string_lossy().into_owned();
    cargo(
        root,
        &[
            "run",
            "--release",
            "-q",
            "-p",
            "bench-tree",
            "--example",
            "generate",
            "--",
            &tree_arg,
            "20k",
        ],
    )?;
    let tree_dir = tree.to_string_lossy();
    let hook = |event: &str, extra: &str| {
        format!(
            r#"{{"session_id":"link-order","transcript_path":"{tree_dir}/t.jsonl","cwd":"{tree_dir}","hook_event_name":"{event}"{extra}}}"#
        )
    };
    let read = |file: &str| {
        hook(
            "PostToolUse",
            &format!(
                r#","tool_name":"Read","tool_input":{{"file_path":"{tree_dir}/{file}"}},"tool_response":{{}},"tool_use_id":"t""#
            ),
        )
    };
    // What every call pays first, then what hook calls run most.
    let runs: [(&str, Vec<&str>, Option<String>); 5] = [
        ("version", vec!["--version"], None),
        (
            "start",
            vec!["hook", "--agent", "claude-code"],
            Some(hook("SessionStart", r#","source":"startup""#)),
        ),
        (
            "first",
            vec!["hook", "--agent", "claude-code"],
            Some(read(DEEP)),
        ),
        (
            "warm",
            vec!["hook", "--agent", "claude-code"],
            Some(read(SIBLING)),
        ),
        (
            "explain",
            vec![
                "explain",
                "--no-startup",
                "--json",
                "--root",
                &tree_arg,
                DEEP,
            ],
            None,
        ),
    ];
    let mut order = Vec::new();
    let mut seen = HashSet::new();
    let binary = fs::canonicalize(jit).with_context(|| format!("{}", jit.display()))?;
    for (name, args, stdin) in &runs {
        let out = work.join(format!("{name}.callgrind"));
        callgrind(jit, args, stdin.as_deref(), &out, &tree, &state, &home)?;
        let text = fs::read_to_string(&out).with_context(|| format!("{}", out.display()))?;
        let functions = functions_of(&text, &binary);
        // Every run executes the binary's `main`: none found means the
        // profile was not read right, and a list without the run would
        // leave its functions out.
        if functions.is_empty() {
            bail!(
                "callgrind listed no function of {} in the `{name}` run",
                binary.display()
            );
        }
        for symbol in functions {
            if seen.insert(symbol.clone()) {
                order.push(symbol);
            }
        }
    }
    Ok(order)
}

/// Runs `jit args` under callgrind in `tree`, its output to `out`.
fn callgrind(
    jit: &Path,
    args: &[&str],
    stdin: Option<&str>,
    out: &Path,
    tree: &Path,
    state: &Path,
    home: &Path,
) -> anyhow::Result<()> {
    let mut child = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--demangle=no")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(jit)
        .args(args)
        .current_dir(tree)
        .env("HOME", home)
        .env("JIT_STATE_DIR", state)
        .env("CLAUDE_PROJECT_DIR", tree)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("running valgrind")?;
    if let Some(mut input) = child.stdin.take() {
        use std::io::Write as _;
        input.write_all(stdin.unwrap_or_default().as_bytes())?;
    }
    let status = child.wait()?;
    if !status.success() {
        bail!("jit {} under callgrind: {status}", args.join(" "));
    }
    Ok(())
}

/// The functions of `binary` in a callgrind profile, in the order the
/// profile names them: each `fn=` line belongs to the object of the `ob=`
/// line before it, and both name a thing once, by number after that.
pub(crate) fn functions_of(profile: &str, binary: &Path) -> Vec<String> {
    let mut objects: Vec<(String, String)> = Vec::new();
    let mut names: Vec<(String, String)> = Vec::new();
    let mut in_binary = false;
    let mut out = Vec::new();
    for line in profile.lines() {
        if let Some(rest) = line.strip_prefix("ob=") {
            let object = compressed(rest, &mut objects);
            in_binary = object.as_deref().map(Path::new) == Some(binary);
        } else if let Some(rest) = line.strip_prefix("fn=") {
            let name = compressed(rest, &mut names);
            // A recursive call's level (`f'2`) is not part of its name;
            // callgrind's own names (`(below main)`) and bare addresses
            // are no symbols.
            let name = name.map(|name| match name.rsplit_once('\'') {
                Some((base, level)) if level.bytes().all(|b| b.is_ascii_digit()) => base.to_owned(),
                _ => name,
            });
            if in_binary && let Some(name) = name.filter(|name| is_symbol(name)) {
                out.push(name);
            }
        } else if let Some(rest) = line.strip_prefix("cfn=") {
            // Names a function by number for later lines, object unknown.
            compressed(rest, &mut names);
        } else if let Some(rest) = line.strip_prefix("cob=") {
            // Names an object by number for later `ob=` lines: a callee's
            // object is often named here first (the binary itself, when the
            // loader's code is the first that runs).
            compressed(rest, &mut objects);
        }
    }
    out
}

/// Whether `name` is a symbol's name, as the linker's list takes it.
fn is_symbol(name: &str) -> bool {
    !name.starts_with("0x")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
}

/// The name in callgrind's compressed form: `(7) name` names number 7,
/// `(7)` refers to it again.
fn compressed(field: &str, table: &mut Vec<(String, String)>) -> Option<String> {
    let field = field.trim();
    let Some(rest) = field.strip_prefix('(') else {
        return Some(field.to_owned());
    };
    let (id, name) = rest.split_once(')')?;
    let name = name.trim();
    if name.is_empty() {
        return table.iter().find(|(i, _)| i == id).map(|(_, n)| n.clone());
    }
    table.push((id.to_owned(), name.to_owned()));
    Some(name.to_owned())
}

/// Runs cargo in `root`.
fn cargo(root: &Path, args: &[&str]) -> anyhow::Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(args)
        .current_dir(root)
        .status()
        .with_context(|| format!("cargo {}", args.join(" ")))?;
    if !status.success() {
        bail!("cargo {}: {status}", args.join(" "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn functions_are_those_of_the_binary_in_order() {
        let profile = "\
ob=(1) /usr/lib/libc.so.6
fn=(1) malloc
cfn=(2) _ZN3jit4main17h0E
ob=(2) /bin/jit
fn=(2)
fn=(5) (below main)
fn=(6) 0x0000000000001050
fn=(3) _ZN3jit3run17h1E
fn=(7) _ZN3jit4walk17h2E'2
fn=(8) _ZN3jit4walk17h2E'x
ob=(1)
fn=(4) free
ob=(2)
fn=(3)
";
        assert_eq!(
            functions_of(profile, Path::new("/bin/jit")),
            [
                "_ZN3jit4main17h0E",
                "_ZN3jit3run17h1E",
                "_ZN3jit4walk17h2E",
                "_ZN3jit3run17h1E"
            ]
        );
        assert!(functions_of(profile, Path::new("/bin/other")).is_empty());
    }

    #[test]
    fn an_object_named_first_as_a_callees_is_known_by_its_number() {
        let profile = "\
ob=(1) /lib/ld-linux.so.2
fn=(1) _dl_start
cob=(2) /bin/jit
cfn=(2) main
calls=1 0
0 10
ob=(2)
fn=(2)
fn=(3) _ZN3jit4main17h0E
ob=(1)
fn=(4) _dl_fini
";
        assert_eq!(
            functions_of(profile, Path::new("/bin/jit")),
            ["main", "_ZN3jit4main17h0E"]
        );
    }
}
