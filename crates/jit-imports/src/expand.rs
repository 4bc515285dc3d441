//! Expansion: resolve each import under a [`Policy`], inline what may be inlined, report the rest.

use crate::{Map, Set};
use std::borrow::Cow;
use std::fmt;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};

use crate::error::{Error, ErrorKind};
use crate::extract::{Import, extract};
use crate::policy::Policy;
use crate::read::{Links, ReadFailure, read_text};
use crate::resolve::Resolver;

/// How many files of an import cycle's chain a `cycle` message names at
/// most: the first and last half of them, with a count of those left out.
/// The chain can be as long as the depth limit allows, and one message per
/// cycle must not grow with it.
pub const MAX_CYCLE_CHAIN_SHOWN: usize = 16;

/// What happened to one import.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ImportStatus {
    /// Resolved, allowed and inlined (or already inlined earlier: see [`ImportRecord::duplicate`]).
    Ok,
    /// No such file; the original text stays in place.
    Missing,
    /// The file is already being expanded further up the chain.
    Cycle,
    /// Deeper than the policy's hop limit.
    TooDeep,
    /// The real path is outside the project root and the policy does not allow it.
    OutsideRoot,
    /// Not inlined for the [`RefusalReason`] the record and diagnostic carry:
    /// not a regular file, over the size cap, binary, not UTF-8, unreadable,
    /// a `~/` import without a home directory, or over the import limit.
    Refused,
}

/// Why an import was `refused`: each names one check or limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RefusalReason {
    /// Not a regular file: a directory, a named pipe, a socket, a device, or
    /// a link swapped in after its path was resolved. Judged on the opened
    /// file (opened without blocking), so a named pipe never stalls an expansion.
    NotRegularFile,
    /// Larger than the policy's size cap ([`Policy::max_file_bytes`]), judged
    /// from the opened file's metadata before any byte is read, or from
    /// `cap + 1` bytes read when the file grew meanwhile.
    TooLarge,
    /// The file contains NUL bytes.
    Binary,
    /// The file is not UTF-8 text.
    NotUtf8,
    /// The path could not be resolved, opened or read (permissions, I/O error).
    Unreadable,
    /// A `~/` import, allowed, but no home directory is known.
    HomeUnknown,
    /// The expansion already followed as many imports as the policy allows
    /// ([`Policy::max_imports`]); this import and every later one stay as written.
    TooManyImports,
}

impl RefusalReason {
    /// The stable snake_case name, as in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            RefusalReason::NotRegularFile => "not_regular_file",
            RefusalReason::TooLarge => "too_large",
            RefusalReason::Binary => "binary",
            RefusalReason::NotUtf8 => "not_utf8",
            RefusalReason::Unreadable => "unreadable",
            RefusalReason::HomeUnknown => "home_unknown",
            RefusalReason::TooManyImports => "too_many_imports",
        }
    }
}

impl fmt::Display for RefusalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ImportStatus {
    /// The stable snake_case name, as in JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            ImportStatus::Ok => "ok",
            ImportStatus::Missing => "missing",
            ImportStatus::Cycle => "cycle",
            ImportStatus::TooDeep => "too_deep",
            ImportStatus::OutsideRoot => "outside_root",
            ImportStatus::Refused => "refused",
        }
    }
}

impl fmt::Display for ImportStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One import met during an expansion, in document order (a file's own
/// imports come right after the record that inlined it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ImportRecord {
    /// The path as extracted (see [`Import::target`]); after a successful
    /// retry without a glued CJK run, the shortened path.
    pub target: String,
    /// The token as it stands in the including file, `@` included.
    pub raw: String,
    /// The real path of the target (symlinks resolved); `None` when it has none
    /// (missing, unresolvable, or a `~/` import that was not allowed).
    #[serde(serialize_with = "lossy_opt")]
    pub resolved: Option<PathBuf>,
    /// What happened.
    pub status: ImportStatus,
    /// Why it was refused: set exactly when the status is `refused`.
    pub reason: Option<RefusalReason>,
    /// Hops from the top-level file: its own imports are depth 1.
    pub depth: usize,
    /// The including file (its real path when it has one).
    #[serde(serialize_with = "lossy")]
    pub from: PathBuf,
    /// 1-based line of the import in the including file.
    pub line: usize,
    /// Bytes inlined for this import: the imported file with its own imports expanded,
    /// without the wrapper lines. Zero unless `ok`, and zero for a duplicate.
    pub bytes: usize,
    /// The file was already inlined earlier in this expansion, so it is not inlined again;
    /// the token is replaced by a one-line note that points back to it.
    pub duplicate: bool,
    /// The size and modification time of the file as it was read (from the
    /// descriptor it was read through): set when the status is `ok` and the
    /// record is not a duplicate. A caller that keeps the inlined text
    /// compares them with the file's later to see that it changed; taken
    /// after the expansion instead, they could already belong to a newer
    /// version than the text inlined. Not serialized.
    #[serde(skip)]
    pub read_as: Option<FileStamp>,
}

/// A file's size and modification time, as one read saw them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileStamp {
    /// Its size in bytes.
    pub len: u64,
    /// Its modification time, where the platform has one.
    pub modified: Option<std::time::SystemTime>,
}

impl FileStamp {
    /// The stamp of `meta`.
    pub(crate) fn of(meta: &std::fs::Metadata) -> Self {
        FileStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
        }
    }
}

/// A problem a user should see: an import that was not inlined, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// The file that holds the import.
    #[serde(serialize_with = "lossy")]
    pub file: PathBuf,
    /// 1-based line of the import.
    pub line: usize,
    /// The path as extracted.
    pub target: String,
    /// Why it was not inlined.
    pub status: ImportStatus,
    /// Why it was refused: set exactly when the status is `refused`.
    pub reason: Option<RefusalReason>,
    /// A sentence that names the paths involved.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: @{}: {}",
            self.file.display(),
            self.line,
            self.target,
            self.status,
        )?;
        if let Some(reason) = self.reason {
            write!(f, " ({reason})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The result of expanding one rule file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Expansion {
    /// The text with every `ok` import inlined in place, wrapped in
    /// `<!-- import: PATH -->` … `<!-- end import: PATH -->` lines, where
    /// `PATH` is the imported file relative to the project root (`/`-separated),
    /// `~/…` when it is in the home directory, or absolute when it is elsewhere. Failed imports keep their original text.
    pub expanded: String,
    /// Every import met, nested ones included, in document order.
    pub imports: Vec<ImportRecord>,
    /// One entry for every import that was not inlined.
    pub diagnostics: Vec<Diagnostic>,
    /// Bytes read from imported files, refused ones included: the I/O one
    /// expansion did. A file refused from its metadata (a directory, a pipe,
    /// a file over the size cap) adds nothing.
    pub bytes_read: u64,
}

impl Expansion {
    /// The files that were inlined, once each, with the file that included them:
    /// what a discovery engine reports with attribution `include`.
    ///
    /// ```
    /// # let dir = tempfile::tempdir()?;
    /// # let root = dir.path();
    /// std::fs::write(root.join("NOTE.md"), "Notes.\n")?;
    /// let rule = root.join("CLAUDE.md");
    /// let out = jit_imports::expand(&rule, "see @NOTE.md and @NOTE.md", root, &Default::default());
    /// let included: Vec<_> = out.included().map(|r| r.target.as_str()).collect();
    /// assert_eq!(included, ["NOTE.md"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn included(&self) -> impl Iterator<Item = &ImportRecord> {
        self.imports
            .iter()
            .filter(|r| r.status == ImportStatus::Ok && !r.duplicate)
    }
}

/// Expands the imports of `text`, the content of the rule file `file`, inside the project `root`.
///
/// Each import resolves relative to the file that holds it. Its real path
/// (symlinks resolved) must lie inside the real path of `root`, compared
/// segment by segment, unless the policy allows more. A target that does not
/// exist and has CJK text glued to its end is retried once without it
/// ([`Import::without_trailing_cjk`]). Imported files are expanded in turn, up
/// to the policy's depth; a file already on the chain is a `cycle`, and a file
/// already inlined is not inlined again. Never fails and never panics: every
/// problem becomes a [`Diagnostic`] and the original text stays in place.
///
/// Never blocks either: every imported file is opened without blocking and
/// judged on the open descriptor, so a named pipe or device is `refused`
/// ([`RefusalReason::NotRegularFile`]) at once. The work is bounded by the
/// policy: at most [`Policy::max_imports`] imports followed, each file read
/// at most once and never past [`Policy::max_file_bytes`] + 1 bytes.
///
/// ```
/// use jit_imports::{ImportStatus, Policy, expand};
///
/// let dir = tempfile::tempdir()?;
/// let root = dir.path();
/// std::fs::write(root.join("NOTE.md"), "Use tabs.\n")?;
/// let rule = root.join("CLAUDE.md");
/// let out = expand(&rule, "见 @NOTE.md，然后继续 @gone.md", root, &Policy::default());
///
/// assert_eq!(
///     out.expanded,
///     "见 <!-- import: NOTE.md -->\nUse tabs.\n<!-- end import: NOTE.md -->，然后继续 @gone.md"
/// );
/// assert_eq!(out.imports[0].status, ImportStatus::Ok);
/// assert_eq!(out.imports[0].resolved.as_deref(), Some(root.canonicalize()?.join("NOTE.md").as_path()));
/// assert_eq!(out.imports[1].status, ImportStatus::Missing);
/// assert_eq!(out.diagnostics.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn expand(file: &Path, text: &str, root: &Path, policy: &Policy) -> Expansion {
    let imports = extract(text);
    if imports.is_empty() {
        // Nothing to resolve: no path is looked up, not even the root's.
        return Expansion {
            expanded: text.to_owned(),
            imports: Vec::new(),
            diagnostics: Vec::new(),
            bytes_read: 0,
        };
    }
    let mut resolver = Resolver::default();
    let (root_real, root_error) = match resolver.real_dir(root) {
        Ok(real) => (Some(real), None),
        Err(err) => (
            None,
            Some(format!(
                "the project root {} cannot be resolved ({err})",
                root.display()
            )),
        ),
    };
    let home_real = policy.home_dir().map(|home| {
        resolver
            .real_dir(home)
            .unwrap_or_else(|_| home.to_path_buf())
    });
    let file_real = resolver
        .resolve(file)
        .unwrap_or_else(|_| file.to_path_buf());
    let mut expander = Expander {
        policy,
        root: root_real,
        root_error,
        home: home_real,
        resolver,
        stack: vec![file_real.clone()],
        on_stack: Set::from_iter([file_real.clone()]),
        included: Set::from_iter([file_real.clone()]),
        refused: Map::default(),
        imports: Vec::new(),
        diagnostics: Vec::new(),
        bytes_read: 0,
    };
    let expanded = expander.run(file_real, text, imports);
    Expansion {
        expanded,
        imports: expander.imports,
        diagnostics: expander.diagnostics,
        bytes_read: expander.bytes_read,
    }
}

/// Reads the rule file `file` and expands it like [`expand`].
///
/// Fails only when `file` itself cannot be used: unreadable, not a regular
/// file, over the policy's size cap, binary or not UTF-8. The file is opened
/// without blocking (a named pipe is refused at once) and a final symbolic
/// link is followed, since the caller named it.
///
/// ```
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("CLAUDE.md"), "Plain rules.\n")?;
/// let out = jit_imports::expand_file(&dir.path().join("CLAUDE.md"), dir.path(), &Default::default())?;
/// assert_eq!(out.expanded, "Plain rules.\n");
///
/// let err = jit_imports::expand_file(&dir.path().join("nope.md"), dir.path(), &Default::default())
///     .unwrap_err();
/// assert_eq!(err.kind(), jit_imports::ErrorKind::Read);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn expand_file(file: &Path, root: &Path, policy: &Policy) -> Result<Expansion, Error> {
    let shown = file.display();
    let cap = policy.max_file_bytes();
    let mut bytes_read = 0;
    let (text, _) = read_text(file, cap, Links::Follow, &mut bytes_read).map_err(|failure| {
        match failure {
            ReadFailure::Io(err) => Error::new(
                ErrorKind::Read,
                file,
                // The I/O error is the source; repeating it here would print it twice in a chain.
                format!("cannot read rule file {shown}"),
            )
            .with_source(err),
            ReadFailure::NotRegularFile(what) => Error::new(
                ErrorKind::NotRegularFile,
                file,
                format!("rule file {shown} is not a regular file (it is {what})"),
            ),
            ReadFailure::TooLarge(len) => Error::new(
                ErrorKind::TooLarge,
                file,
                format!("rule file {shown} is {len} bytes, over the cap of {cap}"),
            ),
            ReadFailure::Binary => Error::new(
                ErrorKind::Binary,
                file,
                format!("rule file {shown} is binary (it contains NUL bytes)"),
            ),
            ReadFailure::NotUtf8 => Error::new(
                ErrorKind::NotUtf8,
                file,
                format!("rule file {shown} is not UTF-8 text"),
            ),
        }
    })?;
    Ok(expand(file, &text, root, policy))
}

/// Why an import could not be located or read.
struct Failure {
    status: ImportStatus,
    reason: Option<RefusalReason>,
    resolved: Option<PathBuf>,
    message: String,
}

/// What one import turns into once it is resolved.
enum Step {
    /// Left as written; already recorded.
    Keep,
    /// The token's range is replaced by a one-line note (a duplicate).
    Note(Range<usize>, String),
    /// The token's range is replaced by the file's expanded text, which is
    /// expanded next: the record at index `record` is completed when it ends.
    Inline {
        range: Range<usize>,
        real: PathBuf,
        label: String,
        content: String,
        record: usize,
    },
}

/// One file being expanded: the root file, or an import being inlined.
struct Frame<'t> {
    /// Real path of the file.
    file: PathBuf,
    text: Cow<'t, str>,
    /// Its imports not yet handled, in document order.
    imports: std::vec::IntoIter<Import>,
    /// Bytes of `text` already written to the output.
    copied_to: usize,
    /// Hops from the top-level file: its own imports are one deeper.
    depth: usize,
    /// For an inlined file: how to close its wrapper once it ends.
    close: Option<Close>,
}

/// What closing an inlined file's wrapper needs.
struct Close {
    /// Index of the import's record, whose `bytes` are known only at the end.
    record: usize,
    label: String,
    /// Where the wrapper starts in the output: it is cut back to here if the
    /// replacement cannot be placed.
    wrapper_start: usize,
    /// Where the inlined text starts in the output.
    body_start: usize,
    /// Whether the text before the token was written and the wrapper stays.
    keep: bool,
}

/// The state of one expansion.
struct Expander<'p> {
    policy: &'p Policy,
    /// Real path of the project root; `None` when it cannot be resolved.
    root: Option<PathBuf>,
    root_error: Option<String>,
    /// Real path of the home directory, when the policy names one.
    home: Option<PathBuf>,
    /// Resolves import targets below directories already known real.
    resolver: Resolver,
    /// Real paths of the files being expanded, outermost first.
    stack: Vec<PathBuf>,
    /// The same paths as a set, so that a cycle check costs the same at any depth.
    on_stack: Set<PathBuf>,
    /// Real paths of every file inlined so far, and of the top-level file.
    included: Set<PathBuf>,
    /// Files refused when read, with why: imported again, they are refused
    /// again without being read again, so a file of `@big.bin @big.bin …`
    /// reads the file once, not once per token.
    refused: Map<PathBuf, (RefusalReason, String)>,
    imports: Vec<ImportRecord>,
    diagnostics: Vec<Diagnostic>,
    bytes_read: u64,
}

impl Expander<'_> {
    /// Returns `text` (the content of the top-level file `file`) with its imports expanded.
    ///
    /// Iterative, with an explicit stack of files, so that the depth limit
    /// is the only bound on nesting, not the thread's stack. Every piece of
    /// text is written once, straight into one output buffer: an inlined
    /// file is never copied again by the files that include it, so a deep
    /// chain costs as much as its text, not its text times its depth.
    fn run(&mut self, file: PathBuf, text: &str, imports: Vec<Import>) -> String {
        let mut out = String::with_capacity(text.len());
        let imports = imports.into_iter();
        let mut frames = vec![Frame {
            file,
            text: Cow::Borrowed(text),
            imports,
            copied_to: 0,
            depth: 0,
            close: None,
        }];
        while let Some(frame) = frames.last_mut() {
            let Some(import) = frame.imports.next() else {
                out.push_str(frame.text.get(frame.copied_to..).unwrap_or_default());
                if let Some(close) = frame.close.take() {
                    self.close(&mut out, close);
                    if let Some(done) = self.stack.pop() {
                        self.on_stack.remove(&done);
                    }
                }
                frames.pop();
                continue;
            };
            let depth = frame.depth + 1;
            if self.imports.len() >= self.policy.max_imports() {
                let left: usize = frames.iter().map(|f| f.imports.len()).sum();
                self.too_many(&frames, import, depth, left);
                for frame in &mut frames {
                    frame.imports = Vec::new().into_iter();
                }
                continue;
            }
            let from = frame.file.clone();
            let dir = from.parent().unwrap_or(Path::new(".")).to_path_buf();
            let step = self.import_one(&from, &dir, import, depth);
            if let Some(inlined) = self.apply(&mut out, frame, depth, step) {
                frames.push(inlined);
            }
        }
        out
    }

    /// Writes what one resolved import of `frame` turns into, and returns
    /// the frame of the file it inlines, to be expanded next.
    fn apply<'t>(
        &mut self,
        out: &mut String,
        frame: &mut Frame<'t>,
        depth: usize,
        step: Step,
    ) -> Option<Frame<'t>> {
        match step {
            Step::Keep => None,
            Step::Note(range, note) => {
                if let Some(before) = frame.text.get(frame.copied_to..range.start) {
                    out.push_str(before);
                    out.push_str(&note);
                    frame.copied_to = range.end;
                }
                None
            }
            Step::Inline {
                range,
                real,
                label,
                content,
                record,
            } => {
                let wrapper_start = out.len();
                let keep = match frame.text.get(frame.copied_to..range.start) {
                    Some(before) => {
                        out.push_str(before);
                        frame.copied_to = range.end;
                        true
                    }
                    None => false,
                };
                out.push_str("<!-- import: ");
                out.push_str(&label);
                out.push_str(" -->\n");
                let body_start = out.len();
                self.stack.push(real.clone());
                self.on_stack.insert(real.clone());
                self.included.insert(real.clone());
                let imports = extract(&content).into_iter();
                Some(Frame {
                    file: real,
                    text: Cow::Owned(content),
                    imports,
                    copied_to: 0,
                    depth,
                    close: Some(Close {
                        record,
                        label,
                        wrapper_start,
                        body_start,
                        keep,
                    }),
                })
            }
        }
    }

    /// Ends an inlined file: records its size and writes the closing line.
    ///
    /// One line end at the end of the file is dropped, since the wrapper
    /// adds its own.
    fn close(&mut self, out: &mut String, close: Close) {
        if let Some(record) = self.imports.get_mut(close.record) {
            record.bytes = out.len().saturating_sub(close.body_start);
        }
        if out.len() > close.body_start && out.ends_with('\n') {
            out.pop();
            if out.len() > close.body_start && out.ends_with('\r') {
                out.pop();
            }
        }
        if out.len() > close.body_start {
            out.push('\n');
        }
        out.push_str("<!-- end import: ");
        out.push_str(&close.label);
        out.push_str(" -->");
        if !close.keep {
            out.truncate(close.wrapper_start);
        }
    }

    /// Records the import that met the import limit; it and the `left` after it stay as written.
    fn too_many(&mut self, frames: &[Frame<'_>], import: Import, depth: usize, left: usize) {
        let Some(from) = frames.last().map(|f| f.file.clone()) else {
            return;
        };
        let limit = self.policy.max_imports();
        let message = format!(
            "this expansion already followed {limit} imports, the limit; \
             this one and the {left} after it are left as written"
        );
        self.fail(
            &from,
            &import,
            depth,
            Failure {
                status: ImportStatus::Refused,
                reason: Some(RefusalReason::TooManyImports),
                resolved: None,
                message,
            },
        );
    }

    /// Resolves and records one import, and says what it turns into.
    fn import_one(&mut self, from: &Path, dir: &Path, import: Import, depth: usize) -> Step {
        let (import, located) = self.locate_import(dir, import);
        let real = match located {
            Ok(real) => real,
            Err(failure) => {
                self.fail(from, &import, depth, failure);
                return Step::Keep;
            }
        };
        let label = self.label(&real);
        if self.on_stack.contains(&real) {
            let message = format!("import cycle: {}", self.cycle_chain(&real));
            self.fail(
                from,
                &import,
                depth,
                refusal(ImportStatus::Cycle, None, real, message),
            );
            return Step::Keep;
        }
        if self.included.contains(&real) {
            self.record(
                from,
                &import,
                Some(real),
                ImportStatus::Ok,
                None,
                depth,
                true,
            );
            let note = format!("<!-- import: {label} (already included above) -->");
            return Step::Note(import.range, note);
        }
        if depth > self.policy.max_depth() {
            let message = format!(
                "{label} is {depth} imports deep, over the limit of {}",
                self.policy.max_depth()
            );
            self.fail(
                from,
                &import,
                depth,
                refusal(ImportStatus::TooDeep, None, real, message),
            );
            return Step::Keep;
        }
        self.inline(from, import, depth, real, label)
    }

    /// Locates an import's target; a missing one with CJK text glued on
    /// (`@docs/TODO.mdで確認`) is tried again without it. Returns the import
    /// the outcome belongs to: the shortened one unless it is missing too.
    fn locate_import(&mut self, dir: &Path, import: Import) -> (Import, Result<PathBuf, Failure>) {
        match self.locate(dir, &import.target) {
            Err(failure) if failure.status == ImportStatus::Missing => {
                match import.without_trailing_cjk() {
                    Some(short) => match self.locate(dir, &short.target) {
                        Err(retry) if retry.status == ImportStatus::Missing => {
                            let message = format!(
                                "{}; also tried {} without the glued text",
                                failure.message, short.target
                            );
                            (import, Err(Failure { message, ..failure }))
                        }
                        other => (short, other),
                    },
                    None => (import, Err(failure)),
                }
            }
            other => (import, other),
        }
    }

    /// Reads the file `real` that an import lets in and records the import:
    /// its content is inlined, or, when it cannot be read, the import is
    /// refused and kept as written.
    fn inline(
        &mut self,
        from: &Path,
        import: Import,
        depth: usize,
        real: PathBuf,
        label: String,
    ) -> Step {
        let (content, stamp) = match self.read(&real, &label) {
            Ok(read) => read,
            Err((reason, message)) => {
                self.fail(
                    from,
                    &import,
                    depth,
                    refusal(ImportStatus::Refused, Some(reason), real, message),
                );
                return Step::Keep;
            }
        };
        let record = self.imports.len();
        self.record(
            from,
            &import,
            Some(real.clone()),
            ImportStatus::Ok,
            None,
            depth,
            false,
        );
        self.imports[record].read_as = Some(stamp);
        Step::Inline {
            range: import.range,
            real,
            label,
            content,
            record,
        }
    }

    /// The files being expanded and `real` after them, as `A.md → B.md → A.md`,
    /// naming at most [`MAX_CYCLE_CHAIN_SHOWN`] of them.
    fn cycle_chain(&self, real: &Path) -> String {
        let len = self.stack.len() + 1;
        let chain = self.stack.iter().map(PathBuf::as_path).chain([real]);
        if len <= MAX_CYCLE_CHAIN_SHOWN {
            let labels: Vec<String> = chain.map(|p| self.label(p)).collect();
            return labels.join(" → ");
        }
        let half = MAX_CYCLE_CHAIN_SHOWN / 2;
        let head: Vec<String> = self.stack[..half].iter().map(|p| self.label(p)).collect();
        let tail: Vec<String> = chain.skip(len - half).map(|p| self.label(p)).collect();
        format!(
            "{} → … ({} more) … → {}",
            head.join(" → "),
            len - 2 * half,
            tail.join(" → ")
        )
    }

    /// Finds the real path of `target` relative to `dir` and checks that the policy lets it in.
    fn locate(&mut self, dir: &Path, target: &str) -> Result<PathBuf, Failure> {
        let home_relative = target == "~" || target.starts_with("~/");
        let candidate = if home_relative {
            let Some(home) = self.policy.home_dir() else {
                return Err(Failure {
                    status: ImportStatus::Refused,
                    reason: Some(RefusalReason::HomeUnknown),
                    resolved: None,
                    message: "the home directory is not known, so a ~/ import cannot be resolved"
                        .to_owned(),
                });
            };
            home.join(target.trim_start_matches('~').trim_start_matches('/'))
        } else {
            dir.join(target)
        };
        if home_relative && !self.policy.allow_home() {
            return Err(Failure {
                status: ImportStatus::OutsideRoot,
                reason: None,
                resolved: None,
                message: format!(
                    "{} is in the home directory; a ~/ import is allowed only in user-level rule files",
                    candidate.display()
                ),
            });
        }
        let real = match self.resolver.resolve(&candidate) {
            Ok(real) => real,
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) =>
            {
                let message = format!("no such file: {}", candidate.display());
                return Err(Failure {
                    status: ImportStatus::Missing,
                    reason: None,
                    resolved: None,
                    message,
                });
            }
            Err(err) => {
                let message = format!("cannot resolve {}: {err}", candidate.display());
                return Err(Failure {
                    status: ImportStatus::Refused,
                    reason: Some(RefusalReason::Unreadable),
                    resolved: None,
                    message,
                });
            }
        };
        if self
            .policy
            .permits_resolved(&real, self.root.as_deref(), self.home.as_deref())
        {
            return Ok(real);
        }
        let message = match (&self.root, &self.root_error) {
            (_, Some(root_error)) => root_error.clone(),
            (Some(root), None) => format!(
                "{} is outside the project root {}",
                real.display(),
                root.display()
            ),
            (None, None) => format!("{} is outside the project root", real.display()),
        };
        Err(refusal(ImportStatus::OutsideRoot, None, real, message))
    }

    /// Reads an allowed file, refusing what is not a small UTF-8 text file.
    ///
    /// The real path was resolved already, so a final symbolic link there
    /// now was swapped in since: it is refused, not followed.
    fn read(
        &mut self,
        real: &Path,
        label: &str,
    ) -> Result<(String, FileStamp), (RefusalReason, String)> {
        if let Some(refusal) = self.refused.get(real) {
            return Err(refusal.clone());
        }
        let cap = self.policy.max_file_bytes();
        let result = read_text(real, cap, Links::Refuse, &mut self.bytes_read);
        result.map_err(|failure| {
            let refusal = Self::refusal_of(failure, label, cap);
            self.refused.insert(real.to_path_buf(), refusal.clone());
            refusal
        })
    }

    /// The reason and message of a file that could not be read.
    fn refusal_of(failure: ReadFailure, label: &str, cap: u64) -> (RefusalReason, String) {
        match failure {
            ReadFailure::Io(err) => (
                RefusalReason::Unreadable,
                format!("cannot read {label}: {err}"),
            ),
            ReadFailure::NotRegularFile(what) => (
                RefusalReason::NotRegularFile,
                format!("{label} is not a regular file (it is {what})"),
            ),
            ReadFailure::TooLarge(len) => (
                RefusalReason::TooLarge,
                format!("{label} is {len} bytes, over the cap of {cap}"),
            ),
            ReadFailure::Binary => (
                RefusalReason::Binary,
                format!("{label} is binary (it contains NUL bytes)"),
            ),
            ReadFailure::NotUtf8 => (RefusalReason::NotUtf8, format!("{label} is not UTF-8 text")),
        }
    }

    /// How an imported file is named in the expanded text and in messages.
    fn label(&self, real: &Path) -> String {
        if let Some(rel) = self
            .root
            .as_ref()
            .and_then(|root| real.strip_prefix(root).ok())
        {
            return if rel.as_os_str().is_empty() {
                ".".to_owned()
            } else {
                slash_path(rel)
            };
        }
        match self
            .home
            .as_ref()
            .and_then(|home| real.strip_prefix(home).ok())
        {
            Some(rel) => format!("~/{}", slash_path(rel)),
            None => real.display().to_string(),
        }
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one flat constructor reads better than a builder for an internal record"
    )]
    fn record(
        &mut self,
        from: &Path,
        import: &Import,
        resolved: Option<PathBuf>,
        status: ImportStatus,
        reason: Option<RefusalReason>,
        depth: usize,
        duplicate: bool,
    ) {
        self.imports.push(ImportRecord {
            target: import.target.clone(),
            raw: import.raw.clone(),
            resolved,
            status,
            reason,
            depth,
            from: from.to_path_buf(),
            line: import.line,
            bytes: 0,
            duplicate,
            read_as: None,
        });
    }

    /// Records a failed import and the diagnostic that makes it visible.
    fn fail(&mut self, from: &Path, import: &Import, depth: usize, failure: Failure) {
        self.record(
            from,
            import,
            failure.resolved,
            failure.status,
            failure.reason,
            depth,
            false,
        );
        self.diagnostics.push(Diagnostic {
            file: from.to_path_buf(),
            line: import.line,
            target: import.target.clone(),
            status: failure.status,
            reason: failure.reason,
            message: failure.message,
        });
    }
}

fn refusal(
    status: ImportStatus,
    reason: Option<RefusalReason>,
    real: PathBuf,
    message: String,
) -> Failure {
    Failure {
        status,
        reason,
        resolved: Some(real),
        message,
    }
}

/// A relative path with `/` separators whatever the platform.
fn slash_path(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

fn lossy<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&path.to_string_lossy())
}

fn lossy_opt<S: Serializer>(path: &Option<PathBuf>, serializer: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(path) => serializer.serialize_some(&*path.to_string_lossy()),
        None => serializer.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::resolve::counts::calls_of;

    /// The `realpath` calls `f` makes on this thread.
    fn resolved_by(f: impl FnOnce()) -> usize {
        calls_of(f).0
    }

    #[test]
    fn a_text_without_imports_resolves_no_path() {
        let (_dir, root) = project();
        fs::write(root.join("NOTE.md"), "x").unwrap();
        let policy = Policy::default().with_home_dir(Some(root.clone()));
        let text = "Plain rules, an email a@b.c and `@NOTE.md` in code.\n";
        let mut out = None;
        let n = resolved_by(|| out = Some(expand(&root.join("CLAUDE.md"), text, &root, &policy)));
        assert_eq!(n, 0);
        let out = out.unwrap();
        assert_eq!(out.expanded, text);
        assert!(out.imports.is_empty() && out.diagnostics.is_empty());
        assert_eq!(out.bytes_read, 0);
        // One import: the root and the home by `realpath`; the file and
        // the import, below the real root, by one `lstat` each.
        fs::write(root.join("CLAUDE.md"), "see @NOTE.md").unwrap();
        let n = calls_of(|| {
            let out = expand(&root.join("CLAUDE.md"), "see @NOTE.md", &root, &policy);
            assert_eq!(out.included().count(), 1);
        });
        assert_eq!(n, (2, 2));
    }

    #[test]
    fn an_inlined_file_carries_the_stamp_it_was_read_with() {
        let (_dir, root) = project();
        fs::write(root.join("NOTE.md"), "Notes.\n").unwrap();
        let text = "see @NOTE.md, @NOTE.md again and @GONE.md";
        let out = expand(&root.join("CLAUDE.md"), text, &root, &Policy::default());
        let meta = fs::metadata(root.join("NOTE.md")).unwrap();
        let first = &out.imports[0];
        assert_eq!(first.status, ImportStatus::Ok);
        assert_eq!(
            first.read_as,
            Some(FileStamp {
                len: 7,
                modified: Some(meta.modified().unwrap()),
            })
        );
        // A duplicate was read as the first; a missing file was not read.
        assert!(out.imports[1].duplicate);
        assert_eq!(out.imports[1].read_as, None);
        assert_eq!(out.imports[2].status, ImportStatus::Missing);
        assert_eq!(out.imports[2].read_as, None);
        // Kept out of the JSON.
        let json = serde_json::to_value(first).unwrap();
        assert!(json.get("read_as").is_none(), "{json}");
    }

    /// Imports in folders of the project cost one `lstat` per file and per
    /// folder met first, not a `realpath` each: the folder of a file
    /// resolved is known real for the next import.
    #[test]
    fn imports_below_the_root_are_resolved_without_realpath() {
        let (_dir, root) = project();
        fs::create_dir_all(root.join("docs/deep")).unwrap();
        for (name, text) in [
            ("CLAUDE.md", "@docs/a.md @docs/b.md"),
            ("docs/a.md", "a, then @deep/c.md"),
            ("docs/b.md", "b"),
            ("docs/deep/c.md", "c"),
        ] {
            fs::write(root.join(name), text).unwrap();
        }
        let file = root.join("CLAUDE.md");
        let mut out = None;
        let n = calls_of(|| {
            out = Some(expand(
                &file,
                "@docs/a.md @docs/b.md",
                &root,
                &Policy::default(),
            ))
        });
        let out = out.unwrap();
        assert_eq!(out.included().count(), 3, "{:?}", out.diagnostics);
        // realpath: the root. lstat: CLAUDE.md; docs, a.md; deep, c.md; b.md.
        assert_eq!(n, (1, 6));
        let resolved: Vec<_> = out
            .included()
            .map(|r| r.resolved.clone().unwrap())
            .collect();
        assert_eq!(
            resolved,
            ["docs/a.md", "docs/deep/c.md", "docs/b.md"].map(|p| root.join(p))
        );
    }

    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    #[test]
    fn records_serialize_with_snake_case_statuses() {
        let (_dir, root) = project();
        let policy = Policy::default().with_max_depth(0);
        fs::write(root.join("NOTE.md"), "x").unwrap();
        let out = expand(&root.join("CLAUDE.md"), "@NOTE.md", &root, &policy);
        let json = serde_json::to_value(&out).unwrap();
        assert_eq!(json["imports"][0]["status"], "too_deep");
        assert_eq!(json["imports"][0]["target"], "NOTE.md");
        assert_eq!(json["imports"][0]["depth"], 1);
        assert_eq!(
            json["imports"][0]["resolved"],
            root.join("NOTE.md").to_str().unwrap()
        );
        assert_eq!(json["diagnostics"][0]["status"], "too_deep");
        assert_eq!(json["expanded"], "@NOTE.md");
    }

    #[test]
    fn an_unresolvable_root_lets_nothing_in() {
        let (_dir, base) = project();
        fs::write(base.join("NOTE.md"), "x").unwrap();
        let out = expand(
            &base.join("CLAUDE.md"),
            "@NOTE.md",
            &base.join("no-such-root"),
            &Policy::default(),
        );
        assert_eq!(out.imports[0].status, ImportStatus::OutsideRoot);
        assert!(
            out.diagnostics[0].message.contains("cannot be resolved"),
            "{}",
            out.diagnostics[0]
        );
    }

    #[test]
    fn home_imports_need_a_known_home() {
        let (_dir, root) = project();
        let policy = Policy::default().with_allow_home(true);
        let out = expand(&root.join("CLAUDE.md"), "@~/x.md", &root, &policy);
        assert_eq!(out.imports[0].status, ImportStatus::Refused);
        assert_eq!(out.imports[0].resolved, None);
    }

    #[test]
    fn expand_file_refuses_large_and_non_utf8_rule_files() {
        let (_dir, root) = project();
        fs::write(root.join("big.md"), "0123456789").unwrap();
        fs::write(root.join("latin1.md"), b"caf\xe9").unwrap();
        let small = Policy::default().with_max_file_bytes(4);
        let err = expand_file(&root.join("big.md"), &root, &small).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::TooLarge);
        assert!(err.to_string().contains("big.md"), "{err}");
        let err = expand_file(&root.join("latin1.md"), &root, &Policy::default()).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::NotUtf8);
        assert_eq!(err.path(), root.join("latin1.md"));
    }

    #[test]
    fn non_utf8_import_is_refused_and_the_text_kept() {
        let (_dir, root) = project();
        fs::write(root.join("latin1.md"), b"caf\xe9").unwrap();
        let out = expand(
            &root.join("CLAUDE.md"),
            "see @latin1.md",
            &root,
            &Policy::default(),
        );
        assert_eq!(out.imports[0].status, ImportStatus::Refused);
        assert_eq!(out.expanded, "see @latin1.md");
        assert!(out.diagnostics[0].message.contains("not UTF-8"));
    }

    #[test]
    fn the_root_file_is_found_through_a_relative_root() {
        // A relative root and file still compare by real path.
        let (_dir, root) = project();
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::write(root.join("sub/NOTE.md"), "n\n").unwrap();
        let rel_root = root.join("sub/..");
        let out = expand(
            &rel_root.join("sub/CLAUDE.md"),
            "@NOTE.md",
            &rel_root,
            &Policy::default(),
        );
        assert_eq!(out.imports[0].status, ImportStatus::Ok);
        assert_eq!(
            out.expanded,
            "<!-- import: sub/NOTE.md -->\nn\n<!-- end import: sub/NOTE.md -->"
        );
    }
}
