//! Expansion: resolve each import under a [`Policy`], inline what may be inlined, report the rest.

use std::collections::HashSet;
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};

use crate::error::{Error, ErrorKind};
use crate::extract::{Import, extract};
use crate::policy::Policy;

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
    /// Not a regular file, binary, not UTF-8, unreadable, or over the size cap.
    Refused,
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
    /// A sentence that names the paths involved.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: @{}: {}: {}",
            self.file.display(),
            self.line,
            self.target,
            self.status,
            self.message
        )
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
    let (root_real, root_error) = match fs::canonicalize(root) {
        Ok(real) => (Some(real), None),
        Err(err) => (
            None,
            Some(format!(
                "the project root {} cannot be resolved ({err})",
                root.display()
            )),
        ),
    };
    let home_real = policy
        .home_dir()
        .map(|home| fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf()));
    let file_real = fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut expander = Expander {
        policy,
        root: root_real,
        root_error,
        home: home_real,
        stack: vec![file_real.clone()],
        included: HashSet::from([file_real.clone()]),
        imports: Vec::new(),
        diagnostics: Vec::new(),
    };
    let expanded = expander.expand_text(&file_real, text, 0);
    Expansion {
        expanded,
        imports: expander.imports,
        diagnostics: expander.diagnostics,
    }
}

/// Reads the rule file `file` and expands it like [`expand`].
///
/// Fails only when `file` itself cannot be used: unreadable, not UTF-8, or
/// over the policy's size cap.
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
    let read_err = |err: io::Error| {
        Error::new(
            ErrorKind::Read,
            file,
            // The I/O error is the source; repeating it here would print it twice in a chain.
            format!("cannot read rule file {}", file.display()),
        )
        .with_source(err)
    };
    let meta = fs::metadata(file).map_err(read_err)?;
    if meta.len() > policy.max_file_bytes() {
        return Err(Error::new(
            ErrorKind::TooLarge,
            file,
            format!(
                "rule file {} is {} bytes, over the cap of {}",
                file.display(),
                meta.len(),
                policy.max_file_bytes()
            ),
        ));
    }
    let bytes = fs::read(file).map_err(read_err)?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::new(
            ErrorKind::NotUtf8,
            file,
            format!("rule file {} is not UTF-8 text", file.display()),
        )
    })?;
    Ok(expand(file, &text, root, policy))
}

/// Why an import could not be located, before any file is read.
struct Failure {
    status: ImportStatus,
    resolved: Option<PathBuf>,
    message: String,
}

/// The state of one expansion.
struct Expander<'p> {
    policy: &'p Policy,
    /// Real path of the project root; `None` when it cannot be resolved.
    root: Option<PathBuf>,
    root_error: Option<String>,
    /// Real path of the home directory, when the policy names one.
    home: Option<PathBuf>,
    /// Real paths of the files being expanded, outermost first.
    stack: Vec<PathBuf>,
    /// Real paths of every file inlined so far, and of the top-level file.
    included: HashSet<PathBuf>,
    imports: Vec<ImportRecord>,
    diagnostics: Vec<Diagnostic>,
}

impl Expander<'_> {
    /// Returns `text` (the content of `file`, at `depth`) with its imports expanded.
    fn expand_text(&mut self, file: &Path, text: &str, depth: usize) -> String {
        let imports = extract(text);
        if imports.is_empty() {
            return text.to_owned();
        }
        let dir = file.parent().unwrap_or(Path::new("."));
        let mut out = String::with_capacity(text.len());
        let mut copied_to = 0;
        for import in imports {
            if let Some((range, inlined)) = self.import_one(file, dir, import, depth + 1)
                && let Some(before) = text.get(copied_to..range.start)
            {
                out.push_str(before);
                out.push_str(&inlined);
                copied_to = range.end;
            }
        }
        out.push_str(text.get(copied_to..).unwrap_or_default());
        out
    }

    /// Resolves and records one import; returns the range to replace and its replacement when it is inlined.
    fn import_one(
        &mut self,
        from: &Path,
        dir: &Path,
        import: Import,
        depth: usize,
    ) -> Option<(std::ops::Range<usize>, String)> {
        let (import, located) = match self.locate(dir, &import.target) {
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
        };
        let real = match located {
            Ok(real) => real,
            Err(failure) => {
                self.fail(from, &import, depth, failure);
                return None;
            }
        };
        let label = self.label(&real);
        if self.stack.contains(&real) {
            let chain: Vec<String> = self
                .stack
                .iter()
                .chain(std::iter::once(&real))
                .map(|p| self.label(p))
                .collect();
            let message = format!("import cycle: {}", chain.join(" → "));
            self.fail(
                from,
                &import,
                depth,
                refusal(ImportStatus::Cycle, real, message),
            );
            return None;
        }
        if self.included.contains(&real) {
            self.record(from, &import, Some(real), ImportStatus::Ok, depth, 0, true);
            let note = format!("<!-- import: {label} (already included above) -->");
            return Some((import.range, note));
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
                refusal(ImportStatus::TooDeep, real, message),
            );
            return None;
        }
        let content = match self.read(&real, &label) {
            Ok(content) => content,
            Err(message) => {
                self.fail(
                    from,
                    &import,
                    depth,
                    refusal(ImportStatus::Refused, real, message),
                );
                return None;
            }
        };
        let index = self.imports.len();
        self.record(
            from,
            &import,
            Some(real.clone()),
            ImportStatus::Ok,
            depth,
            0,
            false,
        );
        self.stack.push(real.clone());
        self.included.insert(real.clone());
        let inner = self.expand_text(&real, &content, depth);
        self.stack.pop();
        if let Some(record) = self.imports.get_mut(index) {
            record.bytes = inner.len();
        }
        let body = inner
            .strip_suffix('\n')
            .map(|s| s.strip_suffix('\r').unwrap_or(s))
            .unwrap_or(&inner);
        let mut wrapped = String::with_capacity(body.len() + 2 * label.len() + 40);
        wrapped.push_str("<!-- import: ");
        wrapped.push_str(&label);
        wrapped.push_str(" -->\n");
        if !body.is_empty() {
            wrapped.push_str(body);
            wrapped.push('\n');
        }
        wrapped.push_str("<!-- end import: ");
        wrapped.push_str(&label);
        wrapped.push_str(" -->");
        Some((import.range, wrapped))
    }

    /// Finds the real path of `target` relative to `dir` and checks that the policy lets it in.
    fn locate(&self, dir: &Path, target: &str) -> Result<PathBuf, Failure> {
        let home_relative = target == "~" || target.starts_with("~/");
        let candidate = if home_relative {
            let Some(home) = self.policy.home_dir() else {
                return Err(Failure {
                    status: ImportStatus::Refused,
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
                resolved: None,
                message: format!(
                    "{} is in the home directory; a ~/ import is allowed only in user-level rule files",
                    candidate.display()
                ),
            });
        }
        let real = match fs::canonicalize(&candidate) {
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
                    resolved: None,
                    message,
                });
            }
            Err(err) => {
                let message = format!("cannot resolve {}: {err}", candidate.display());
                return Err(Failure {
                    status: ImportStatus::Refused,
                    resolved: None,
                    message,
                });
            }
        };
        let inside_root = self
            .root
            .as_ref()
            .is_some_and(|root| real.starts_with(root));
        let inside_home = self.policy.allow_home()
            && self
                .home
                .as_ref()
                .is_some_and(|home| real.starts_with(home));
        if inside_root || inside_home || self.policy.allow_outside_root() {
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
        Err(refusal(ImportStatus::OutsideRoot, real, message))
    }

    /// Reads an allowed file, refusing what is not a small UTF-8 text file.
    fn read(&self, real: &Path, label: &str) -> Result<String, String> {
        let meta = fs::metadata(real).map_err(|err| format!("cannot read {label}: {err}"))?;
        if !meta.is_file() {
            return Err(format!("{label} is not a regular file"));
        }
        let cap = self.policy.max_file_bytes();
        if meta.len() > cap {
            return Err(format!(
                "{label} is {} bytes, over the cap of {cap}",
                meta.len()
            ));
        }
        let bytes = fs::read(real).map_err(|err| format!("cannot read {label}: {err}"))?;
        // The file may have grown between the two calls.
        if u64::try_from(bytes.len()).map_or(true, |len| len > cap) {
            return Err(format!(
                "{label} is {} bytes, over the cap of {cap}",
                bytes.len()
            ));
        }
        if bytes.contains(&0) {
            return Err(format!("{label} is binary (it contains NUL bytes)"));
        }
        String::from_utf8(bytes).map_err(|_| format!("{label} is not UTF-8 text"))
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
        depth: usize,
        bytes: usize,
        duplicate: bool,
    ) {
        self.imports.push(ImportRecord {
            target: import.target.clone(),
            raw: import.raw.clone(),
            resolved,
            status,
            depth,
            from: from.to_path_buf(),
            line: import.line,
            bytes,
            duplicate,
        });
    }

    /// Records a failed import and the diagnostic that makes it visible.
    fn fail(&mut self, from: &Path, import: &Import, depth: usize, failure: Failure) {
        self.record(
            from,
            import,
            failure.resolved,
            failure.status,
            depth,
            0,
            false,
        );
        self.diagnostics.push(Diagnostic {
            file: from.to_path_buf(),
            line: import.line,
            target: import.target.clone(),
            status: failure.status,
            message: failure.message,
        });
    }
}

fn refusal(status: ImportStatus, real: PathBuf, message: String) -> Failure {
    Failure {
        status,
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
    use super::*;

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
