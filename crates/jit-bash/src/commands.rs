//! Write semantics of the commands this crate understands, with real option parsing.
//!
//! Each command is judged on its argument vector alone. Options are read the
//! way GNU `getopt_long` reads them (options may follow operands, `--` ends
//! them, long names may be abbreviated), because an option's argument must
//! never be mistaken for a path.

use crate::SkipReason;
use crate::syntax::Word;

/// Where a written path sits in the argument vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// The whole word at this index.
    Word(usize),
    /// The part of the word at `word` from byte `offset` on, as in
    /// `--target-directory=DIR` or `-tDIR`.
    Attached { word: usize, offset: usize },
}

impl Target {
    pub(crate) fn word(self) -> usize {
        match self {
            Self::Word(word) | Self::Attached { word, .. } => word,
        }
    }
}

/// What a command does to files, as far as its arguments tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The command writes the files named by these targets (possibly none).
    Writes(Vec<Target>),
    /// The command's writes are not reported, for this reason; the command
    /// name is the skipped word.
    Refused(SkipReason),
}

/// Commands known to write no file, whatever their arguments. Anything not
/// listed here and not understood below is an unsupported command: a program
/// may write any file, so it is reported as skipped instead of guessed at.
const WRITES_NOTHING: &[&str] = &[
    ":",
    "[",
    "alias",
    "basename",
    "break",
    "cat",
    "cd",
    "cmp",
    "comm",
    "continue",
    "cut",
    "date",
    "declare",
    "df",
    "diff",
    "dirname",
    "du",
    "echo",
    "egrep",
    "exit",
    "export",
    "false",
    "fgrep",
    "file",
    "grep",
    "head",
    "hostname",
    "id",
    "jobs",
    "jq",
    "kill",
    "local",
    "ls",
    "md5sum",
    "nl",
    "popd",
    "printf",
    "ps",
    "pushd",
    "pwd",
    "read",
    "readlink",
    "readonly",
    "realpath",
    "return",
    "rg",
    "set",
    "sha1sum",
    "sha256sum",
    "shift",
    "shopt",
    "sleep",
    "stat",
    "tail",
    "test",
    "tr",
    "true",
    "type",
    "typeset",
    "uname",
    "unalias",
    "unset",
    "wait",
    "wc",
    "which",
    "whoami",
];

/// Commands that delete files. Deletions are deliberately never reported:
/// the rules of a deleted file's directory no longer apply to it.
const DELETES: &[&str] = &["rm", "rmdir", "unlink", "shred"];

/// Judges the command whose name is `argv[0]` (already known to be literal).
pub(crate) fn judge(argv: &[&Word]) -> Verdict {
    judge_from(argv, 0)
}

fn judge_from(argv: &[&Word], start: usize) -> Verdict {
    let Some(name_word) = argv.get(start) else {
        return Verdict::Writes(Vec::new());
    };
    // `/usr/bin/cp` is `cp`.
    let name = name_word.text.rsplit('/').next().unwrap_or(&name_word.text);
    let next_text = argv.get(start + 1).map(|w| w.text.as_str());
    match name {
        "cp" | "mv" => copy_like(argv, start, &CP_MV, false),
        "install" => copy_like(argv, start, &INSTALL, true),
        "touch" => touch(argv, start),
        "mkdir" => every_operand(argv, start, &MKDIR),
        "tee" => every_operand(argv, start, &TEE),
        "sed" => sed(argv, start),
        "sort" => sort(argv, start),
        "uniq" => uniq(argv, start),
        // Wrappers that run the rest of the line as a command of its own.
        "nohup" | "builtin" | "coproc" => judge_from(argv, start + 1),
        // `time` is a keyword of bash that times the pipeline after it.
        "time" => match next_text {
            Some("-p") => judge_from(argv, start + 2),
            Some(t) if t.starts_with('-') => Verdict::Refused(SkipReason::UncertainArguments),
            _ => judge_from(argv, start + 1),
        },
        "command" => match next_text {
            // `command -v cp` only looks the name up.
            Some("-v" | "-V") => Verdict::Writes(Vec::new()),
            Some("-p") => judge_from(argv, start + 2),
            Some(t) if t.starts_with('-') => Verdict::Refused(SkipReason::UncertainArguments),
            _ => judge_from(argv, start + 1),
        },
        // `exec` alone only applies its redirections to the shell itself;
        // those are handled with every other redirection.
        "exec" => match next_text {
            None => Verdict::Writes(Vec::new()),
            Some(t) if t.starts_with('-') => Verdict::Refused(SkipReason::UncertainArguments),
            Some(_) => judge_from(argv, start + 1),
        },
        _ if DELETES.contains(&name) => Verdict::Refused(SkipReason::Delete),
        _ if WRITES_NOTHING.contains(&name) => Verdict::Writes(Vec::new()),
        _ => Verdict::Refused(SkipReason::UnsupportedCommand),
    }
}

/// How an option takes its argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arg {
    None,
    /// `--opt=VALUE` or `--opt VALUE`; `-oVALUE` or `-o VALUE`.
    Required,
    /// Only attached: `--opt=VALUE`, `-oVALUE`.
    Optional,
}

/// The options of one command: every short option letter it accepts, and the
/// long options whose argument handling matters.
#[derive(Debug)]
struct Spec {
    /// Short options without an argument.
    flags: &'static str,
    /// Short options with a required argument.
    with_arg: &'static str,
    /// Short options with an optional, attached argument (GNU `sed -i`).
    optional_arg: &'static str,
    /// Long options; those not listed take no argument.
    long: &'static [(&'static str, Arg)],
    /// Whether a lone `-i` may take the next word as its suffix when that
    /// word looks like one (BSD `sed -i '' …`, `sed -i .bak …`).
    bsd_in_place: bool,
}

/// GNU coreutils and BSD `cp` and `mv` options.
const CP_MV: Spec = Spec {
    flags: "abcdfHhiLlnNPpRrsTuvxXZ",
    with_arg: "St",
    optional_arg: "",
    long: &[
        ("backup", Arg::Optional),
        ("context", Arg::Optional),
        ("no-preserve", Arg::Required),
        ("no-target-directory", Arg::None),
        ("preserve", Arg::Optional),
        ("reflink", Arg::Optional),
        ("sparse", Arg::Required),
        ("suffix", Arg::Required),
        ("target-directory", Arg::Required),
        ("update", Arg::Optional),
    ],
    bsd_in_place: false,
};

const INSTALL: Spec = Spec {
    flags: "bcCdDpsTvZ",
    with_arg: "gmoSt",
    optional_arg: "",
    long: &[
        ("backup", Arg::Optional),
        ("context", Arg::Optional),
        ("directory", Arg::None),
        ("group", Arg::Required),
        ("mode", Arg::Required),
        ("owner", Arg::Required),
        ("strip-program", Arg::Required),
        ("suffix", Arg::Required),
        ("target-directory", Arg::Required),
    ],
    bsd_in_place: false,
};

const TOUCH: Spec = Spec {
    flags: "acfhm",
    with_arg: "Adrt",
    optional_arg: "",
    long: &[
        ("date", Arg::Required),
        ("no-create", Arg::None),
        ("no-dereference", Arg::None),
        ("reference", Arg::Required),
        ("time", Arg::Required),
    ],
    bsd_in_place: false,
};

const MKDIR: Spec = Spec {
    flags: "pvZ",
    with_arg: "m",
    optional_arg: "",
    long: &[("context", Arg::Optional), ("mode", Arg::Required)],
    bsd_in_place: false,
};

const TEE: Spec = Spec {
    flags: "aip",
    with_arg: "",
    optional_arg: "",
    long: &[("output-error", Arg::Optional)],
    bsd_in_place: false,
};

const SED: Spec = Spec {
    flags: "abnrEsuz",
    with_arg: "efl",
    optional_arg: "i",
    long: &[
        ("expression", Arg::Required),
        ("file", Arg::Required),
        ("in-place", Arg::Optional),
        ("line-length", Arg::Required),
    ],
    bsd_in_place: true,
};

const SORT: Spec = Spec {
    flags: "bcCdfghiMmnRrsuVz",
    with_arg: "kotST",
    optional_arg: "",
    long: &[
        ("batch-size", Arg::Required),
        ("buffer-size", Arg::Required),
        ("compress-program", Arg::Required),
        ("field-separator", Arg::Required),
        ("files0-from", Arg::Required),
        ("key", Arg::Required),
        ("output", Arg::Required),
        ("parallel", Arg::Required),
        ("random-source", Arg::Required),
        ("sort", Arg::Required),
        ("temporary-directory", Arg::Required),
    ],
    bsd_in_place: false,
};

const UNIQ: Spec = Spec {
    flags: "cdDiuz",
    with_arg: "fsw",
    optional_arg: "",
    long: &[
        ("all-repeated", Arg::Optional),
        ("check-chars", Arg::Required),
        ("group", Arg::Optional),
        ("skip-chars", Arg::Required),
        ("skip-fields", Arg::Required),
    ],
    bsd_in_place: false,
};

/// The name of a parsed option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Name {
    Short(char),
    Long(&'static str),
    /// A long option the spec does not list.
    OtherLong,
}

/// Where a parsed option's argument is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    None,
    At(Target),
}

#[derive(Debug, Default)]
struct Parsed {
    options: Vec<(Name, Value)>,
    operands: Vec<usize>,
}

impl Parsed {
    fn has(&self, wanted: &[Name]) -> bool {
        self.options.iter().any(|(name, _)| wanted.contains(name))
    }

    /// The argument of the last of the `wanted` options given, if any.
    fn last_value(&self, wanted: &[Name]) -> Option<Value> {
        self.options
            .iter()
            .rev()
            .find(|(name, _)| wanted.contains(name))
            .map(|(_, value)| *value)
    }
}

/// Reads the options and operands after `argv[start]`. Fails when an option
/// is unknown or its letters cannot be read, since an unknown option might
/// take the next word as its argument.
fn parse_options(argv: &[&Word], start: usize, spec: &Spec) -> Result<Parsed, SkipReason> {
    let mut parsed = Parsed::default();
    let mut only_operands = false;
    let mut i = start + 1;
    while let Some(word) = argv.get(i) {
        let text = word.text.as_str();
        let is_option = !only_operands && text.starts_with('-') && text != "-";
        if !is_option {
            parsed.operands.push(i);
        } else if text == "--" && word.uncertain.is_none() {
            only_operands = true;
        } else if let Some(long) = text.strip_prefix("--") {
            i = parse_long(argv, i, long, word, spec, &mut parsed)?;
        } else {
            i = parse_short(argv, i, word, spec, &mut parsed)?;
        }
        i += 1;
    }
    Ok(parsed)
}

fn parse_long(
    argv: &[&Word],
    i: usize,
    long: &str,
    word: &Word,
    spec: &Spec,
    parsed: &mut Parsed,
) -> Result<usize, SkipReason> {
    let (given, attached) = match long.split_once('=') {
        Some((given, _)) => (given, true),
        None if word.uncertain.is_some() => return Err(SkipReason::UncertainArguments),
        None => (long, false),
    };
    let exact = spec.long.iter().find(|(n, _)| *n == given);
    let mut prefixed = spec.long.iter().filter(|(n, _)| n.starts_with(given));
    let found = match (exact, prefixed.next(), prefixed.next()) {
        (Some(hit), _, _) | (None, Some(hit), None) => Some(hit),
        _ => None,
    };
    let Some(&(name, arg)) = found else {
        parsed.options.push((Name::OtherLong, Value::None));
        return Ok(i);
    };
    let value_at = Target::Attached {
        word: i,
        offset: 2 + given.len() + 1,
    };
    let (value, next) = match (arg, attached) {
        (_, true) => (Value::At(value_at), i),
        (Arg::Required, false) if i + 1 < argv.len() => (Value::At(Target::Word(i + 1)), i + 1),
        _ => (Value::None, i),
    };
    parsed.options.push((Name::Long(name), value));
    Ok(next)
}

fn parse_short(
    argv: &[&Word],
    i: usize,
    word: &Word,
    spec: &Spec,
    parsed: &mut Parsed,
) -> Result<usize, SkipReason> {
    for (pos, c) in word.text.char_indices().skip(1) {
        let rest_at = pos + c.len_utf8();
        let has_rest = rest_at < word.text.len() || word.uncertain.is_some();
        let attached = Value::At(Target::Attached {
            word: i,
            offset: rest_at,
        });
        if spec.with_arg.contains(c) {
            if has_rest {
                parsed.options.push((Name::Short(c), attached));
                return Ok(i);
            }
            if i + 1 < argv.len() {
                parsed
                    .options
                    .push((Name::Short(c), Value::At(Target::Word(i + 1))));
                return Ok(i + 1);
            }
            parsed.options.push((Name::Short(c), Value::None));
            return Ok(i);
        }
        if spec.optional_arg.contains(c) {
            if has_rest {
                parsed.options.push((Name::Short(c), attached));
                return Ok(i);
            }
            let next = argv.get(i + 1);
            if spec.bsd_in_place && next.is_some_and(|w| looks_like_suffix(w)) {
                parsed
                    .options
                    .push((Name::Short(c), Value::At(Target::Word(i + 1))));
                return Ok(i + 1);
            }
            parsed.options.push((Name::Short(c), Value::None));
            return Ok(i);
        }
        if !spec.flags.contains(c) {
            return Err(SkipReason::UncertainArguments);
        }
        parsed.options.push((Name::Short(c), Value::None));
    }
    // Letters hidden behind an expansion (`-$FLAGS`) cannot be read.
    if word.uncertain.is_some() {
        return Err(SkipReason::UncertainArguments);
    }
    Ok(i)
}

/// Whether the word after a lone `sed -i` is a BSD backup suffix: empty
/// (`-i ''`) or starting with a dot (`-i .bak`). A sed script never starts
/// with a dot, so GNU scripts are not swallowed.
fn looks_like_suffix(word: &Word) -> bool {
    word.uncertain.is_none()
        && (word.text.is_empty()
            || (word.text.starts_with('.') && !word.text.contains(char::is_whitespace)))
}

/// `cp`, `mv`, `install`: the target directory given by `-t`, or else the
/// last operand (a file, or the directory that receives several sources).
/// `install -d` creates every operand as a directory.
fn copy_like(argv: &[&Word], start: usize, spec: &Spec, install: bool) -> Verdict {
    let parsed = match parse_options(argv, start, spec) {
        Ok(parsed) => parsed,
        Err(reason) => return Verdict::Refused(reason),
    };
    if install && parsed.has(&[Name::Short('d'), Name::Long("directory")]) {
        return Verdict::Writes(parsed.operands.into_iter().map(Target::Word).collect());
    }
    match parsed.last_value(&[Name::Short('t'), Name::Long("target-directory")]) {
        Some(Value::At(target)) => return Verdict::Writes(vec![target]),
        // `-t` at the very end of the line names nothing: the command fails.
        Some(Value::None) => return Verdict::Writes(Vec::new()),
        None => {}
    }
    match parsed.operands.as_slice() {
        [_, .., last] => Verdict::Writes(vec![Target::Word(*last)]),
        // With one operand or none the command fails and writes nothing.
        _ => Verdict::Writes(Vec::new()),
    }
}

/// `touch`, `mkdir`, `tee`: every operand is written.
fn every_operand(argv: &[&Word], start: usize, spec: &Spec) -> Verdict {
    match parse_options(argv, start, spec) {
        Ok(parsed) => Verdict::Writes(parsed.operands.into_iter().map(Target::Word).collect()),
        Err(reason) => Verdict::Refused(reason),
    }
}

/// `touch` creates every operand, unless `-c` / `--no-create` says to leave
/// a missing file missing: then whether anything is written depends on what
/// exists, so the command is refused as uncertain.
fn touch(argv: &[&Word], start: usize) -> Verdict {
    match parse_options(argv, start, &TOUCH) {
        Ok(parsed) if parsed.has(&[Name::Short('c'), Name::Long("no-create")]) => {
            Verdict::Refused(SkipReason::UncertainArguments)
        }
        Ok(parsed) => Verdict::Writes(parsed.operands.into_iter().map(Target::Word).collect()),
        Err(reason) => Verdict::Refused(reason),
    }
}

/// `sed` writes only with `-i` / `--in-place`; then every operand after the
/// script is a file it rewrites. With `-e` or `-f` there is no script operand.
fn sed(argv: &[&Word], start: usize) -> Verdict {
    let parsed = match parse_options(argv, start, &SED) {
        Ok(parsed) => parsed,
        Err(reason) => return Verdict::Refused(reason),
    };
    if !parsed.has(&[Name::Short('i'), Name::Long("in-place")]) {
        return Verdict::Writes(Vec::new());
    }
    let scripts_given = parsed.has(&[
        Name::Short('e'),
        Name::Short('f'),
        Name::Long("expression"),
        Name::Long("file"),
    ]);
    // `sed -i bak s/a/b/ f`: BSD reads `bak` as the backup suffix, GNU as
    // the script. When the word after the presumed script is itself a
    // substitution, the command line cannot be read with certainty.
    if !scripts_given
        && let [_, second, ..] = parsed.operands.as_slice()
        && argv
            .get(*second)
            .is_some_and(|w| looks_like_substitution(&w.text))
    {
        return Verdict::Refused(SkipReason::UncertainArguments);
    }
    let skip = usize::from(!scripts_given);
    Verdict::Writes(
        parsed
            .operands
            .into_iter()
            .skip(skip)
            .map(Target::Word)
            .collect(),
    )
}

/// Whether `text` reads as a sed `s` or `y` command (`s/a/b/`, `s|a|b|g`).
fn looks_like_substitution(text: &str) -> bool {
    let mut chars = text.chars();
    matches!(chars.next(), Some('s' | 'y'))
        && chars
            .next()
            .is_some_and(|d| !d.is_alphanumeric() && !d.is_whitespace() && d != '\\')
        && text.len() > 3
}

/// `sort` writes only the file of `-o` / `--output`.
fn sort(argv: &[&Word], start: usize) -> Verdict {
    let parsed = match parse_options(argv, start, &SORT) {
        Ok(parsed) => parsed,
        Err(reason) => return Verdict::Refused(reason),
    };
    match parsed.last_value(&[Name::Short('o'), Name::Long("output")]) {
        Some(Value::At(target)) => Verdict::Writes(vec![target]),
        _ => Verdict::Writes(Vec::new()),
    }
}

/// `uniq [INPUT [OUTPUT]]` writes its second operand.
fn uniq(argv: &[&Word], start: usize) -> Verdict {
    match parse_options(argv, start, &UNIQ) {
        Ok(parsed) => Verdict::Writes(
            parsed
                .operands
                .get(1)
                .map(|&i| Target::Word(i))
                .into_iter()
                .collect(),
        ),
        Err(reason) => Verdict::Refused(reason),
    }
}
