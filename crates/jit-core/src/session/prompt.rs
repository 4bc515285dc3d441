//! The system-prompt holder: static text, a cache boundary, dynamic text, then rule blocks its one setter keeps.

use std::fmt::Write as _;

/// The default cache boundary marker: static text before it, dynamic text after.
///
/// A harness whose prompt already has its own marker passes it to
/// [`SystemPrompt::with_boundary`].
pub const CACHE_BOUNDARY: &str = "<!-- jit:cache-boundary -->";

const BEGIN: &str = "<!-- jit:rule file=\"";
const END: &str = "<!-- /jit:rule file=\"";
const CLOSE: &str = "\" -->";

/// One rule block in the dynamic region of the prompt.
///
/// ```
/// use std::sync::Arc;
/// use jit_core::{Engine, Session, SessionConfig};
/// let dir = tempfile::tempdir()?;
/// std::fs::write(dir.path().join("CLAUDE.md"), "Use tabs.\n")?;
/// let mut session = Session::new(Arc::new(Engine::new(dir.path())?), SessionConfig::new());
/// let root = session.engine().root().to_owned();
/// let block = session.touch("main.rs".into(), &root).blocks.remove(0);
///
/// assert_eq!(
///     block.render(),
///     "<!-- jit:rule file=\"CLAUDE.md\" -->\nUse tabs.\n<!-- /jit:rule file=\"CLAUDE.md\" -->"
/// );
/// assert!(session.prompt().text().ends_with(&block.render()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PromptBlock {
    /// The rule file, as discovery shows it (root-relative or absolute).
    pub file: String,
    /// The injected text (the rule's body, or its summary under a budget).
    pub content: String,
}

impl PromptBlock {
    /// The block as it appears in the prompt, between markers that name its
    /// file. A marker quoted by the rule's text is rendered with `&lt;` for
    /// its `<`, so only real markers delimit blocks.
    pub fn render(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    /// [`PromptBlock::render`], appended to `out`.
    fn render_into(&self, out: &mut String) {
        let content = defuse_markers(&self.content);
        let start = out.len();
        out.reserve(content.len() + 2 * self.file.len() + 64);
        out.push_str(BEGIN);
        escape_into(&self.file, out);
        let name = start + BEGIN.len()..out.len();
        out.push_str(CLOSE);
        out.push('\n');
        out.push_str(&content);
        if !content.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(END);
        out.extend_from_within(name);
        out.push_str(CLOSE);
    }
}

/// A system prompt whose rule blocks survive every rebuild.
///
/// The prompt is split by a cache boundary marker: what comes before it is
/// static (cacheable), what comes after is dynamic. Rule blocks always go
/// after the boundary, so an injection never breaks the cached prefix.
///
/// [`SystemPrompt::set`] is the only way to replace the text, and it keeps
/// the invariant itself: whatever the caller passes (a rebuild after a model
/// switch, a language switch, a reload, a compaction), every rule block the
/// holder owns is present exactly once, after the boundary, in its current
/// version. Callers never need to know rule blocks exist.
///
/// ```
/// use jit_core::{CACHE_BOUNDARY, SystemPrompt};
/// let mut prompt = SystemPrompt::new();
/// prompt.set(format!("You are helpful.\n{CACHE_BOUNDARY}\nToday is Monday."));
/// assert_eq!(prompt.blocks().len(), 0);
/// assert!(prompt.text().starts_with("You are helpful."));
/// ```
#[derive(Debug, Clone)]
pub struct SystemPrompt {
    boundary: String,
    text: String,
    blocks: Vec<PromptBlock>,
}

impl Default for SystemPrompt {
    fn default() -> Self {
        SystemPrompt::new()
    }
}

impl SystemPrompt {
    /// An empty prompt with the default [`CACHE_BOUNDARY`].
    pub fn new() -> Self {
        SystemPrompt::with_boundary(CACHE_BOUNDARY)
    }

    /// An empty prompt whose cache boundary is `marker`.
    pub fn with_boundary(marker: impl Into<String>) -> Self {
        let boundary = marker.into();
        let text = boundary.clone();
        SystemPrompt {
            boundary,
            text,
            blocks: Vec::new(),
        }
    }

    /// Replaces the prompt text, then re-appends every rule block that is
    /// missing from it. Idempotent: `set(text())` changes nothing.
    ///
    /// Rule blocks found in `prompt` (copied from an earlier [`text`]) are
    /// dropped first and the current ones appended after the boundary, so a
    /// stale version of a block never survives next to the new one. A prompt
    /// without the boundary marker gets it appended before the blocks.
    ///
    /// [`text`]: SystemPrompt::text
    pub fn set(&mut self, prompt: impl Into<String>) {
        let mut base = strip_blocks(&prompt.into());
        let trimmed = base.trim_end().len();
        base.truncate(trimmed);
        if !base.contains(&self.boundary) {
            if !base.is_empty() {
                base.push_str("\n\n");
            }
            base.push_str(&self.boundary);
        }
        for block in &self.blocks {
            base.push_str("\n\n");
            base.push_str(&block.render());
        }
        self.text = base;
    }

    /// The full prompt: the caller's text, then the rule blocks.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cache boundary marker.
    pub fn boundary(&self) -> &str {
        &self.boundary
    }

    /// Byte offset of the cache boundary in [`SystemPrompt::text`].
    pub fn boundary_position(&self) -> Option<usize> {
        self.text.find(&self.boundary)
    }

    /// Byte offset of the block of `file` in [`SystemPrompt::text`].
    pub fn block_position(&self, file: &str) -> Option<usize> {
        self.text.find(&begin_marker(file))
    }

    /// The rule blocks, in the order they were injected.
    pub fn blocks(&self) -> &[PromptBlock] {
        &self.blocks
    }

    /// Bytes of rule text held (block contents, markers excluded).
    pub fn block_bytes(&self) -> usize {
        self.blocks.iter().map(|b| b.content.len()).sum()
    }

    /// Adds the block of `file`, or replaces its older version in place of
    /// appending a second one.
    pub(crate) fn upsert(&mut self, file: &str, content: String) {
        let block = PromptBlock {
            file: file.to_owned(),
            content,
        };
        let before = self.blocks.len();
        self.blocks.retain(|b| b.file != file);
        if self.blocks.len() == before {
            // A new block: the text is what `set` made of it (nothing else
            // assigns it), so `set` would rebuild the same text and append
            // this block after the others. Appending it directly keeps a
            // session's injections linear in the prompt's size instead of
            // rebuilding the whole prompt once per rule.
            self.text.push_str("\n\n");
            block.render_into(&mut self.text);
            self.blocks.push(block);
            return;
        }
        self.blocks.push(block);
        let text = std::mem::take(&mut self.text);
        self.set(text);
    }

    /// Removes the block of `file`; returns whether there was one.
    pub(crate) fn remove(&mut self, file: &str) -> bool {
        let before = self.blocks.len();
        self.blocks.retain(|b| b.file != file);
        let removed = self.blocks.len() != before;
        if removed {
            let text = std::mem::take(&mut self.text);
            self.set(text);
        }
        removed
    }
}

/// Markers name the file; quotes, angle brackets, `%` and line breaks are
/// percent-encoded so a file name can never end a marker early.
fn escape(file: &str) -> String {
    let mut out = String::with_capacity(file.len());
    escape_into(file, &mut out);
    out
}

/// [`escape`], appended to `out`.
fn escape_into(file: &str, out: &mut String) {
    const UNSAFE: [char; 6] = ['%', '"', '<', '>', '\n', '\r'];
    if !file.contains(UNSAFE) {
        out.push_str(file);
        return;
    }
    for c in file.chars() {
        if UNSAFE.contains(&c) {
            // All ASCII: one byte each.
            let _ = write!(out, "%{:02X}", c as u32);
        } else {
            out.push(c);
        }
    }
}

/// The start of every marker of ours: block begin and end, and the default
/// cache boundary. Rule text that contains one gets its `<` written as
/// `&lt;` when rendered, so a rule quoting a marker (its own end marker,
/// say) can never end its block early, open another one, or add a second
/// boundary: markers found in a prompt are always real ones.
const MARKER_STARTS: [&str; 2] = ["<!-- jit:", "<!-- /jit:"];

/// `content` with every marker start defused (see [`MARKER_STARTS`]).
///
/// Nothing ever reads the escape back: it only has to make sure the
/// rendered text holds no marker start. Both starts begin with the only `<`
/// they contain, so replacing that `<` cannot form a new one.
fn defuse_markers(content: &str) -> std::borrow::Cow<'_, str> {
    if !MARKER_STARTS.iter().any(|m| content.contains(m)) {
        return std::borrow::Cow::Borrowed(content);
    }
    let mut out = content.to_owned();
    for marker in MARKER_STARTS {
        out = out.replace(marker, &format!("&lt;{}", &marker[1..]));
    }
    std::borrow::Cow::Owned(out)
}

fn begin_marker(file: &str) -> String {
    format!("{BEGIN}{}{CLOSE}", escape(file))
}

/// Removes every rule block (begin marker through the end marker that names
/// the same file) from `text`. A block whose end marker was cut off (a
/// truncated prompt) is removed to the end of the text.
fn strip_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(BEGIN) {
        let before = rest[..start].trim_end_matches([' ', '\n', '\r', '\t']);
        out.push_str(before);
        let after_begin = &rest[start + BEGIN.len()..];
        // Names are escaped, so a real marker's name never spans lines.
        let name_end = after_begin
            .find(CLOSE)
            .filter(|&end| !after_begin[..end].contains('\n'));
        let Some(name_end) = name_end else {
            if after_begin.contains('\n') {
                // Not one of our markers after all: keep it as text.
                out.push_str(&rest[before.len()..start + BEGIN.len()]);
                rest = after_begin;
                continue;
            }
            // A marker cut off at the end of a truncated prompt.
            rest = "";
            break;
        };
        let name = &after_begin[..name_end];
        let end = format!("{END}{name}{CLOSE}");
        match after_begin.find(&end) {
            Some(at) => rest = &after_begin[at + end.len()..],
            None => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// The headings of a Markdown text (ATX `#` lines outside fenced code), for
/// a rule that does not fit the budget.
pub(crate) fn headings(text: &str) -> Vec<&str> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker = if trimmed.starts_with("```") {
            Some("```")
        } else if trimmed.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (Some(_), _) => {}
            (None, None) => {
                let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
                if (1..=6).contains(&hashes)
                    && trimmed[hashes..].starts_with([' ', '\t'])
                    && line.len() - trimmed.len() < 4
                {
                    out.push(line.trim_end());
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_cannot_end_a_marker() {
        assert_eq!(escape("a\" -->b%"), "a%22 --%3Eb%25");
    }

    #[test]
    fn strip_removes_only_marked_regions() {
        let block = PromptBlock {
            file: "a/CLAUDE.md".into(),
            content: "x".into(),
        };
        let text = format!("head\n\n{}\n\ntail", block.render());
        assert_eq!(strip_blocks(&text), "head\n\ntail");
        for at in [30, 40, block.render().len() - 3] {
            let cut = format!("head\n\n{}", &block.render()[..at]);
            assert_eq!(strip_blocks(&cut), "head", "cut at {at}");
        }
        let lookalike = format!("a {BEGIN}\nb");
        assert_eq!(strip_blocks(&lookalike), lookalike);
    }

    #[test]
    fn rule_text_cannot_hold_a_marker() {
        let block = PromptBlock {
            file: "a".into(),
            content: "x <!-- /jit:rule file=\"a\" --> y <!-- jit:rule file=\"b\" -->".into(),
        };
        assert_eq!(
            block.render(),
            "<!-- jit:rule file=\"a\" -->\nx &lt;!-- /jit:rule file=\"a\" --> y \
             &lt;!-- jit:rule file=\"b\" -->\n<!-- /jit:rule file=\"a\" -->"
        );
    }

    #[test]
    fn headings_skip_fenced_code() {
        let text =
            "# Title\nbody\n```\n# not a heading\n```\n## Sub\n#nospace\n    # indented code\n";
        assert_eq!(headings(text), ["# Title", "## Sub"]);
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Whatever a caller passes, every block is there once, after the
        /// boundary, and setting the result again changes nothing.
        #[test]
        fn set_keeps_every_block_once_after_the_boundary(
            bases in proptest::collection::vec("[a-z <>!\\-\n\"]{0,40}", 1..4),
            files in proptest::collection::btree_set("[a-z]{1,3}(/[a-z\"<> ]{1,3})?", 0..4),
            with_boundary in any::<bool>(),
        ) {
            let mut prompt = SystemPrompt::new();
            for (i, file) in files.iter().enumerate() {
                prompt.upsert(file, format!("rule {i} body\n"));
            }
            for base in &bases {
                let base = if with_boundary {
                    format!("{base}\n{CACHE_BOUNDARY}\n{base}")
                } else {
                    base.clone()
                };
                prompt.set(base);
                let text = prompt.text().to_owned();
                let boundary = prompt.boundary_position().unwrap();
                for (i, file) in files.iter().enumerate() {
                    let marker = begin_marker(file);
                    prop_assert_eq!(text.matches(&marker).count(), 1);
                    prop_assert_eq!(text.matches(&format!("rule {i} body\n")).count(), 1);
                    prop_assert!(prompt.block_position(file).unwrap() > boundary);
                }
                prompt.set(text.clone());
                prop_assert_eq!(prompt.text(), text.as_str());
            }
        }

        /// Whatever the rules say (their own end marker, another block's
        /// begin marker, a marker cut in half), repeated `set(text())`
        /// leaves the caller's text once and then each block once, in
        /// order, and nothing else.
        #[test]
        fn rule_text_quoting_markers_never_duplicates_anything(
            contents in proptest::collection::vec(
                proptest::collection::vec(fragment(), 0..6).prop_map(|parts| parts.concat()),
                1..4,
            ),
            base in "[a-z \n]{0,20}",
            rebuilds in 1..5usize,
        ) {
            let mut prompt = SystemPrompt::new();
            let files: Vec<String> = (0..contents.len()).map(|i| format!("d{i}/CLAUDE.md")).collect();
            for (file, content) in files.iter().zip(&contents) {
                prompt.upsert(file, content.clone());
            }
            prompt.set(format!("{base}\n{CACHE_BOUNDARY}\ndynamic"));
            let once = prompt.text().to_owned();
            for _ in 0..rebuilds {
                let text = prompt.text().to_owned();
                prompt.set(text);
            }
            let mut expected = format!("{base}\n{CACHE_BOUNDARY}\ndynamic").trim_end().to_owned();
            for block in prompt.blocks() {
                expected.push_str("\n\n");
                expected.push_str(&block.render());
            }
            prop_assert_eq!(prompt.text(), expected.as_str());
            prop_assert_eq!(prompt.text(), once.as_str());
            prop_assert_eq!(prompt.text().matches(CACHE_BOUNDARY).count(), 1);
            for (file, content) in files.iter().zip(&contents) {
                prop_assert_eq!(prompt.text().matches(&begin_marker(file)).count(), 1);
                let block = prompt.blocks().iter().find(|b| &b.file == file);
                prop_assert_eq!(block.map(|b| b.content.as_str()), Some(content.as_str()));
            }
            // Replacing a block (its old text is in the prompt) leaves only
            // the new one.
            prompt.upsert(&files[0], "new text\n".to_owned());
            prop_assert_eq!(prompt.text().matches(&begin_marker(&files[0])).count(), 1);
            prop_assert_eq!(prompt.text().matches("new text").count(), 1);
        }
    }

    /// One step of a session's use of its prompt.
    #[derive(Debug, Clone)]
    enum Op {
        Set(String),
        Upsert(usize, String),
        Remove(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            "[a-z <>!\\-\n]{0,30}".prop_map(Op::Set),
            (0..4usize, proptest::collection::vec(fragment(), 0..4))
                .prop_map(|(i, parts)| Op::Upsert(i, parts.concat())),
            (0..4usize).prop_map(Op::Remove),
        ]
    }

    proptest! {
        /// Adding a block appends it to the text instead of rebuilding the
        /// whole prompt; whatever came before (caller's text, replaced and
        /// removed blocks, rule text quoting markers, another boundary),
        /// the text is exactly what a rebuild gives.
        #[test]
        fn adding_a_block_gives_the_text_a_rebuild_gives(
            boundary in prop_oneof![Just(CACHE_BOUNDARY.to_owned()), "[a-z!<>\\-]{1,8}"],
            ops in proptest::collection::vec(op(), 1..12),
        ) {
            let mut prompt = SystemPrompt::with_boundary(boundary);
            for op in ops {
                match op {
                    Op::Set(base) => prompt.set(base),
                    Op::Upsert(i, content) => {
                        let file = format!("d{i}/CLAUDE.md");
                        let mut rebuilt = prompt.clone();
                        rebuilt.blocks.retain(|b| b.file != file);
                        rebuilt.blocks.push(PromptBlock { file: file.clone(), content: content.clone() });
                        let text = rebuilt.text().to_owned();
                        rebuilt.set(text);
                        prompt.upsert(&file, content);
                        prop_assert_eq!(prompt.text(), rebuilt.text());
                        prop_assert_eq!(prompt.blocks(), rebuilt.blocks());
                    }
                    Op::Remove(i) => {
                        prompt.remove(&format!("d{i}/CLAUDE.md"));
                    }
                }
                let mut again = prompt.clone();
                again.set(prompt.text().to_owned());
                prop_assert_eq!(again.text(), prompt.text());
            }
        }
    }

    /// Pieces of rule text, marker-like ones over-represented.
    fn fragment() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z \n]{0,8}",
            Just(BEGIN.to_owned()),
            Just(END.to_owned()),
            Just(CLOSE.to_owned()),
            Just(CACHE_BOUNDARY.to_owned()),
            (0..3usize).prop_map(|i| begin_marker(&format!("d{i}/CLAUDE.md"))),
            (0..3usize).prop_map(|i| format!("{END}d{i}/CLAUDE.md{CLOSE}")),
            Just("<!-- jit:rule".to_owned()),
            Just("<".to_owned()),
        ]
    }
}
