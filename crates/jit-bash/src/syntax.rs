//! The only module that knows the parser (`tree-sitter-bash`): it turns command text into a flat list of steps.
//!
//! Everything else in the crate works on the small types defined here, so the
//! parser could be swapped by rewriting this file alone.
//!
//! The walk is iterative: an explicit stack of tasks replaces recursion, so
//! no input can overflow the call stack, and every node of the tree is
//! visited a bounded number of times (once by the walk, at most once more
//! while a word is decoded), so the work is linear in the size of the tree.

use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;

use tree_sitter::{Node, ParseOptions, Parser, Tree, TreeCursor};

use crate::SkipReason;
use crate::braces::{self, Expansion};

/// The deepest nesting of commands inside commands the walk follows:
/// subshells, groups, bodies of `if` / `for` / `while` / `case` and
/// functions, `$(…)` and `<(…)`. Deeper input is refused as a whole with
/// [`SkipReason::TooDeep`]. Commands that agents and people write nest a few
/// levels; a chain of `&&`, `||` or `|` does not count as nesting, however
/// long.
pub const MAX_DEPTH: usize = 100;

/// One shell word, decoded as far as it can be known without running anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The word as written in the command, quotes included.
    pub(crate) raw: String,
    /// The word's text after quote removal. When `uncertain` is set, this is
    /// only the part before the first piece whose value is unknown, which is
    /// still enough to tell an option (`--mode=$M`) from an operand.
    pub(crate) text: String,
    /// Why the word's value cannot be known statically, if it cannot.
    pub(crate) uncertain: Option<SkipReason>,
}

/// An element of a simple command, in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// The command name or one of its arguments.
    Word(Word),
    /// The target of a redirection that opens a file for writing.
    WriteRedirect(Word),
}

/// One unit of work for the extractor, in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A simple command: its name, arguments and writing redirections in
    /// source order. Leading assignments are dropped: they never hide the
    /// command. The list may hold only redirections (`> file`).
    Simple(Vec<Item>),
    /// A writing redirection attached to a compound command or a function
    /// body (`{ …; } > out.log`).
    WriteRedirect(Word),
}

/// Why a whole command text gives no steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// What the user sees as the skipped word: the problem and where it is.
    pub(crate) message: String,
    /// [`SkipReason::ParseError`], [`SkipReason::TooDeep`] or
    /// [`SkipReason::TooComplex`].
    pub(crate) reason: SkipReason,
}

impl Refusal {
    fn parse_error(message: String) -> Self {
        Self {
            message,
            reason: SkipReason::ParseError,
        }
    }
}

/// Parses `command` into steps, or says why it gives none.
///
/// A tree with an ERROR or MISSING node anywhere is refused as a whole, so no
/// write is ever decided from a partial parse. One gap of the grammar is
/// recognised instead of refused: it has no `<>` operator and reads `<` then
/// an error node `>`.
pub(crate) fn parse(command: &str) -> Result<Vec<Step>, Refusal> {
    if let Some((line, column, byte)) = control_character(command) {
        return Err(Refusal::parse_error(format!(
            "control character 0x{byte:02x} at line {line}, column {column}: no command a person or an agent writes holds one raw"
        )));
    }
    if let Some((line, column)) = empty_pipeline_stage(command) {
        return Err(Refusal::parse_error(format!(
            "syntax error at line {line}, column {column}: `|` where a command should be"
        )));
    }
    let tree = parse_tree(command)?;
    let root = tree.root_node();
    if !root.has_error() {
        return walk(root, command);
    }
    let problem = first_error(root, command);
    // A command whose last line opens here-documents and ends there
    // (`cat > src/ui/Badge.tsx <<EOF`, as DESIGN §6 writes it): bash runs it
    // with empty bodies ("delimited by end-of-file"), so its redirections are
    // as certain as with a body. The grammar wants the body, so the closing
    // lines are added and the text parsed once more.
    if let Some(problem) = &problem
        && let Some(closed) = close_trailing_heredocs(root, command)
    {
        let tree = parse_tree(&closed)?;
        let root = tree.root_node();
        if first_error(root, &closed).is_none() {
            return walk(root, &closed);
        }
        return Err(Refusal::parse_error(problem.clone()));
    }
    match problem {
        Some(problem) => Err(Refusal::parse_error(problem)),
        None => walk(root, command),
    }
}

/// The first raw control character of `command` outside quotes, other than
/// tab, line feed and carriage return, as (line, column, byte), both from 1.
///
/// Commands are typed or generated as text: outside quotes a control
/// character is written as an escape (`$'\e'`), never raw. Raw ones (a NUL,
/// `^U`, `^R`) are refused before the grammar runs because its error
/// recovery on them inside a long pipeline is exponential: fuzzing found
/// 2 KiB inputs that took many seconds, and every one of them ran in
/// milliseconds with its control characters removed. Inside quotes they are
/// a file name's bytes (a repository can name a file with an escape
/// sequence), and the grammar reads them as a string.
fn control_character(command: &str) -> Option<(usize, usize, u8)> {
    let bytes = command.as_bytes();
    let (mut line, mut line_start) = (1, 0);
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match (quote, b) {
            (_, b'\n') => {
                line += 1;
                line_start = i + 1;
            }
            (Some(b'"'), b'\\') => i += 1,
            (Some(q), _) if b == q => quote = None,
            (Some(_), _) => {}
            (None, b'\'' | b'"') => quote = Some(b),
            (None, b'\\') => i += 1,
            (None, b'\t' | b'\r') => {}
            (None, 0..0x20 | 0x7f) => return Some((line, i - line_start + 1, b)),
            (None, _) => {}
        }
        i += 1;
    }
    None
}

/// Where `command` has a `|` where a command should be: at the start, or
/// right after another control operator (`a | | b`, `a && | b`, `a ; | b`),
/// as (line, column), both from 1; `None` when it has none.
///
/// Bash rejects every such text as a syntax error, so refusing it loses
/// nothing. It is looked for before the grammar runs because the grammar's
/// error recovery is exponential on it: a 186-byte pipeline with one empty
/// stage took more than a second, and each 12 bytes more tripled that,
/// inside one parse action that no budget can interrupt. The scan is one
/// pass over the text and knows quotes, escapes, comments and
/// here-document bodies (a Markdown table written with `cat <<EOF` has
/// empty cells `| |`); what it cannot follow, it lets through to the
/// grammar.
fn empty_pipeline_stage(command: &str) -> Option<(usize, usize)> {
    let bytes = command.as_bytes();
    let mut quote = Quote::None;
    // Here-documents opened on the current line: (delimiter, `<<-`).
    let mut heredocs: Vec<(Vec<u8>, bool)> = Vec::new();
    // At the start of the text, or after a control operator.
    let mut expect_command = true;
    let (mut line, mut line_start) = (1, 0);
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'\n' {
            line += 1;
            line_start = i + 1;
            if quote == Quote::None && !heredocs.is_empty() {
                i = skip_heredoc_bodies(bytes, i + 1, &mut heredocs, &mut line, &mut line_start);
                continue;
            }
        }
        if quote != Quote::None {
            i += quoted_step(&mut quote, b);
            continue;
        }
        match b {
            b' ' | b'\t' | b'\n' => {}
            b'\\' => {
                // An escaped character is a word; a line continuation is
                // nothing.
                if bytes.get(i + 1) != Some(&b'\n') {
                    expect_command = false;
                }
                i += 1;
            }
            b'#' if expect_command || i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'\n') => {
                i = comment_end(bytes, i);
            }
            b'|' => {
                if expect_command {
                    return Some((line, i - line_start + 1));
                }
                // `|`, `||` and `|&` all want a command next.
                if matches!(bytes.get(i + 1), Some(b'|' | b'&')) {
                    i += 1;
                }
                expect_command = true;
            }
            b';' | b'&' => {
                if matches!(bytes.get(i + 1), Some(b'&' | b';')) {
                    i += 1;
                }
                expect_command = true;
            }
            b'<' if bytes.get(i + 1) == Some(&b'<') && bytes.get(i + 2) != Some(&b'<') => {
                i = open_heredoc(bytes, i + 2, &mut heredocs);
                expect_command = false;
                continue;
            }
            b'<' if bytes.get(i + 1) == Some(&b'<') => {
                // `<<<`: a here-string, a word follows.
                i += 3;
                expect_command = false;
                continue;
            }
            b'(' => expect_command = true,
            b'\'' | b'"' => {
                quote = if b == b'\'' {
                    Quote::Single
                } else {
                    Quote::Double
                };
                expect_command = false;
            }
            _ => expect_command = false,
        }
        i += 1;
    }
    None
}

/// The quoting that [`empty_pipeline_stage`] is inside.
#[derive(Clone, Copy, PartialEq)]
enum Quote {
    None,
    Single,
    Double,
}

/// How many bytes a byte inside quotes takes (a backslash between double
/// quotes takes the next one too); the closing quote ends the quoting.
fn quoted_step(quote: &mut Quote, b: u8) -> usize {
    match (*quote, b) {
        (Quote::Single, b'\'') | (Quote::Double, b'"') => *quote = Quote::None,
        (Quote::Double, b'\\') => return 2,
        _ => {}
    }
    1
}

/// Where the scan goes on after the bodies of `heredocs`, which start at
/// `pos` and each run up to its delimiter line; the lines skipped are counted.
fn skip_heredoc_bodies(
    bytes: &[u8],
    mut pos: usize,
    heredocs: &mut Vec<(Vec<u8>, bool)>,
    line: &mut usize,
    line_start: &mut usize,
) -> usize {
    for (delimiter, strip_tabs) in heredocs.drain(..) {
        while pos < bytes.len() {
            let end = bytes[pos..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(bytes.len(), |n| pos + n);
            let mut body_line = &bytes[pos..end];
            if strip_tabs {
                while let [b'\t', rest @ ..] = body_line {
                    body_line = rest;
                }
            }
            pos = (end + 1).min(bytes.len());
            if end < bytes.len() {
                *line += 1;
                *line_start = pos;
            }
            if body_line == delimiter.as_slice() {
                break;
            }
        }
    }
    pos
}

/// The last byte of the comment that starts at `i`: the one before the
/// line break, or the text's last.
fn comment_end(bytes: &[u8], mut i: usize) -> usize {
    while i + 1 < bytes.len() && bytes[i + 1] != b'\n' {
        i += 1;
    }
    i
}

/// Adds to `heredocs` the here-document a `<<` opens, with `i` just after
/// the `<<`: its delimiter (quotes and escapes removed) and whether it is
/// `<<-`; returns where the scan goes on, after the delimiter word.
fn open_heredoc(bytes: &[u8], mut i: usize, heredocs: &mut Vec<(Vec<u8>, bool)>) -> usize {
    let strip_tabs = bytes.get(i) == Some(&b'-');
    if strip_tabs {
        i += 1;
    }
    while matches!(bytes.get(i), Some(b' ' | b'\t')) {
        i += 1;
    }
    // The delimiter word, its quotes and escapes removed.
    let mut delimiter = Vec::new();
    while let Some(&c) = bytes.get(i) {
        match c {
            b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'<' | b'>' | b'(' | b')' => break,
            b'\'' | b'"' | b'\\' => {}
            _ => delimiter.push(c),
        }
        i += 1;
    }
    heredocs.push((delimiter, strip_tabs));
    i
}

/// The parser's work budget, per byte of input: how many times it may ask
/// for input (at most four bytes a time) and how many hundred parse actions
/// it may take. Bash that parses cleanly stays under 1.6 reads and 0.07
/// hundred actions per byte (the corpus, the fuzz corpus and a 10 KB script
/// of here-documents); the grammar's error recovery on hostile text re-reads
/// it over and over (`x=( ` repeated, hundreds of `<<EOF` on one line: more
/// than 100 reads per byte at 4 KiB, and a time that grows with the square
/// of the length). A parse that spends its budget is cancelled and the text
/// refused with [`SkipReason::TooComplex`].
pub const PARSE_BUDGET_PER_BYTE: usize = 4;

/// Budget every input gets on top of [`PARSE_BUDGET_PER_BYTE`], so that
/// short commands are never near the limit.
const PARSE_BUDGET_BASE: usize = 1024;

/// The most bytes handed to the parser at once. Small pieces make the count
/// of reads follow the bytes the lexer really goes over, re-reads included.
const READ_CHUNK: usize = 4;

thread_local! {
    /// One parser per thread, kept between calls: making a parser allocates
    /// its stacks and lexer, which costs more than parsing a typical command.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn parse_tree(command: &str) -> Result<Tree, Refusal> {
    PARSER.with(|cell| {
        // A parse never calls back into this function, so the cell is free;
        // should it not be, a parser of its own does the same work.
        let mut own = None;
        let mut borrowed = cell.try_borrow_mut().ok();
        let slot = match borrowed.as_deref_mut() {
            Some(slot) => slot,
            None => &mut own,
        };
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .map_err(|err| {
                    Refusal::parse_error(format!("the bash grammar cannot be loaded: {err}"))
                })?;
            *slot = Some(parser);
        }
        let parser = slot
            .as_mut()
            .ok_or_else(|| Refusal::parse_error(String::from("the shell parser is missing")))?;
        budgeted_parse(parser, command)
    })
}

/// Parses within the work budget. The input is handed over a few bytes at a
/// time and each hand-over counted; once the count passes the budget the
/// input ends early and the next progress check cancels the parse.
fn budgeted_parse(parser: &mut Parser, command: &str) -> Result<Tree, Refusal> {
    let bytes = command.as_bytes();
    let budget = PARSE_BUDGET_PER_BYTE
        .saturating_mul(bytes.len())
        .saturating_add(PARSE_BUDGET_BASE);
    let read_budget = budget;
    let progress_budget = bytes.len() / PARSE_BUDGET_PER_BYTE + PARSE_BUDGET_BASE / 16;
    let reads = Cell::new(0usize);
    let mut progress = 0usize;
    let mut read = |at: usize, _: tree_sitter::Point| -> &[u8] {
        reads.set(reads.get() + 1);
        if reads.get() > read_budget {
            return &[];
        }
        // A piece never ends inside a character: the lexer reads a split
        // character again from a fresh piece, and when that piece is empty
        // (the budget is spent) it reads through a null pointer.
        let mut end = at.saturating_add(READ_CHUNK).min(bytes.len());
        while end < bytes.len() && !command.is_char_boundary(end) {
            end += 1;
        }
        bytes.get(at..end).unwrap_or_default()
    };
    let mut check = |_: &tree_sitter::ParseState| {
        progress += 1;
        if reads.get() > read_budget || progress > progress_budget {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut check);
    let tree = parser.parse_with_options(&mut read, None, Some(options));
    let spent = reads.get() > read_budget || progress > progress_budget;
    match tree {
        Some(tree) if !spent => Ok(tree),
        _ => {
            // A cancelled parse would resume on the next call; start afresh.
            parser.reset();
            if spent {
                Err(Refusal {
                    message: format!(
                        "the parser spent its budget of {PARSE_BUDGET_PER_BYTE} reads per byte on these {} bytes",
                        bytes.len()
                    ),
                    reason: SkipReason::TooComplex,
                })
            } else {
                Err(Refusal::parse_error(String::from(
                    "the shell parser gave no tree",
                )))
            }
        }
    }
}

/// The text of `node`.
fn text<'s>(node: Node<'_>, source: &'s str) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

/// The named children of `node` with their field names, in source order.
/// A cursor walks them in linear time (`Node::child(i)` would be linear per
/// call), and comments, which may sit anywhere, are left out.
fn children<'t>(node: Node<'t>) -> Vec<(Option<&'static str>, Node<'t>)> {
    children_with(&mut node.walk(), node)
}

/// [`children`] with a cursor that is reused, so that walking a tree does not
/// allocate a cursor per node.
fn children_with<'t>(
    cursor: &mut TreeCursor<'t>,
    node: Node<'t>,
) -> Vec<(Option<&'static str>, Node<'t>)> {
    #[cfg(test)]
    tests::TOUCHED.with(|t| t.set(t.get() + node.child_count()));
    let mut out = Vec::with_capacity(node.child_count());
    cursor.reset(node);
    if cursor.goto_first_child() {
        loop {
            let child = cursor.node();
            // Comments may sit anywhere. They are extras; checking that first
            // spares reading the kind name of every other node.
            if !(child.is_extra() && child.kind() == "comment") {
                out.push((cursor.field_name(), child));
            }
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    out
}

/// Whether `node` is the error node of the `<>` gap: a lone `>` right after
/// the `<` of a file redirection.
fn is_read_write_gap(
    node: Node<'_>,
    prev: Option<Node<'_>>,
    parent: Node<'_>,
    source: &str,
) -> bool {
    node.is_error()
        && parent.kind() == "file_redirect"
        && text(node, source) == ">"
        && prev.is_some_and(|p| p.kind() == "<" && p.end_byte() == node.start_byte())
}

/// The first ERROR or MISSING node in source order, described for the user,
/// or `None` when the only ones are the `<>` gap. Only subtrees that hold an
/// error are entered.
fn first_error(root: Node<'_>, source: &str) -> Option<String> {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        let mut kids = Vec::new();
        let mut prev: Option<Node<'_>> = None;
        let mut cursor = node.walk();
        #[cfg(test)]
        tests::TOUCHED.with(|t| t.set(t.get() + node.child_count()));
        if cursor.goto_first_child() {
            loop {
                let child = cursor.node();
                if !is_read_write_gap(child, prev, node, source)
                    && (child.has_error() || child.is_missing())
                {
                    kids.push(child);
                }
                prev = Some(child);
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        if node.is_missing() {
            return Some(describe_missing(node));
        }
        if node.is_error() {
            return Some(describe_error(node, source));
        }
        stack.extend(kids.into_iter().rev());
    }
    None
}

fn position(node: Node<'_>) -> String {
    let p = node.start_position();
    format!("line {} column {}", p.row + 1, p.column + 1)
}

fn describe_missing(node: Node<'_>) -> String {
    match node.kind() {
        "\"" => format!(
            "unterminated double quote (a `\"` is missing at {})",
            position(node)
        ),
        "'" => format!(
            "unterminated single quote (a `'` is missing at {})",
            position(node)
        ),
        "`" => format!(
            "unterminated backquote (a `` ` `` is missing at {})",
            position(node)
        ),
        kind if node.is_named() => format!(
            "incomplete command: a {kind} is missing at {}",
            position(node)
        ),
        kind => format!(
            "incomplete command: `{kind}` is missing at {}",
            position(node)
        ),
    }
}

fn describe_error(node: Node<'_>, source: &str) -> String {
    let snippet = text(node, source).trim_start();
    let what = match snippet.as_bytes().first() {
        Some(b'"') => String::from("unterminated double quote"),
        Some(b'\'') => String::from("unterminated single quote"),
        _ if children(node)
            .iter()
            .any(|(_, c)| c.kind() == "heredoc_start") =>
        {
            String::from("unterminated here-document (no closing delimiter line)")
        }
        _ => String::from("syntax error"),
    };
    let ellipsis = if snippet.chars().nth(24).is_some() {
        "…"
    } else {
        ""
    };
    format!(
        "{what} at {} near `{}{ellipsis}`",
        position(node),
        shown(snippet)
    )
}

/// The first 24 characters of `text`, with line breaks and other control
/// characters escaped, so that a message stays on one line.
fn shown(text: &str) -> String {
    text.chars()
        .take(24)
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

/// `command` with a closing delimiter line added for every here-document
/// opened on its last line, when the input ends right there. `None` when
/// there is no such here-document or a delimiter is not a plain word.
fn close_trailing_heredocs(root: Node<'_>, command: &str) -> Option<String> {
    let trimmed = command.trim_end_matches([' ', '\t']);
    let last_row = trimmed.matches('\n').count();
    if trimmed.ends_with('\n') {
        return None;
    }
    let mut delimiters = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        if node.end_position().row < last_row {
            continue;
        }
        if node.kind() == "heredoc_start" && node.start_position().row == last_row {
            delimiters.push((node.start_byte(), text(node, command)));
        }
        stack.extend(children(node).into_iter().map(|(_, c)| c));
    }
    if delimiters.is_empty() {
        return None;
    }
    delimiters.sort_unstable_by_key(|(at, _)| *at);
    let mut closed = command.to_owned();
    for (_, raw) in delimiters {
        let word: String = raw
            .chars()
            .filter(|c| !matches!(c, '\'' | '"' | '\\'))
            .collect();
        if word.is_empty()
            || !word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
        {
            return None;
        }
        closed.push('\n');
        closed.push_str(&word);
    }
    closed.push('\n');
    Some(closed)
}

/// One piece of pending work for the walk.
enum Task<'t> {
    /// Walk a statement node at this nesting depth.
    Visit(Node<'t>, usize),
    /// Emit a finished step.
    Emit(Step),
}

/// Node kinds whose statements sit one level deeper than the node itself.
fn nests(kind: &str) -> bool {
    matches!(
        kind,
        "subshell"
            | "compound_statement"
            | "do_group"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "case_item"
            | "function_definition"
            | "command_substitution"
            | "process_substitution"
    )
}

struct Walker<'s, 't> {
    source: &'s str,
    steps: Vec<Step>,
    cursor: TreeCursor<'t>,
}

fn walk<'t>(root: Node<'t>, source: &str) -> Result<Vec<Step>, Refusal> {
    let mut walker = Walker {
        source,
        steps: Vec::new(),
        cursor: root.walk(),
    };
    let mut tasks = vec![Task::Visit(root, 0)];
    while let Some(task) = tasks.pop() {
        match task {
            Task::Emit(step) => walker.steps.push(step),
            Task::Visit(node, depth) => {
                let depth = if nests(node.kind()) { depth + 1 } else { depth };
                if depth > MAX_DEPTH {
                    return Err(Refusal {
                        message: format!(
                            "commands nested deeper than {MAX_DEPTH} levels at {}",
                            position(node)
                        ),
                        reason: SkipReason::TooDeep,
                    });
                }
                let mut later = Vec::new();
                walker.visit(node, depth, &mut later)?;
                tasks.extend(later.into_iter().rev());
            }
        }
    }
    Ok(walker.steps)
}

impl<'s, 't> Walker<'s, 't> {
    fn children(&mut self, node: Node<'t>) -> Vec<(Option<&'static str>, Node<'t>)> {
        children_with(&mut self.cursor, node)
    }

    /// Handles one statement node, and queues in `later` (in order) what is
    /// to be done after it: its inner statements and the steps it emits.
    fn visit(
        &mut self,
        node: Node<'t>,
        depth: usize,
        later: &mut Vec<Task<'t>>,
    ) -> Result<(), Refusal> {
        match node.kind() {
            "command" => self.simple(node, &[], depth, later)?,
            "redirected_statement" => self.redirected(node, depth, later)?,
            "function_definition"
            | "for_statement"
            | "c_style_for_statement"
            | "case_statement"
            | "case_item" => self.visit_parts(node, depth, later)?,
            // `(( … ))` is arithmetic, not a group of commands.
            "compound_statement" if text(node, self.source).starts_with("((") => {}
            // Backquoted text has its own escaping rules; its commands are
            // not analysed.
            "command_substitution" if text(node, self.source).starts_with('`') => {}
            "program"
            | "list"
            | "pipeline"
            | "subshell"
            | "compound_statement"
            | "do_group"
            | "if_statement"
            | "elif_clause"
            | "else_clause"
            | "while_statement"
            | "negated_command"
            | "command_substitution"
            | "process_substitution" => {
                for (_, child) in self.children(node) {
                    if child.is_named() {
                        later.push(Task::Visit(child, depth));
                    }
                }
            }
            // Assignments, declarations and tests write no file, but the
            // commands of their substitutions run.
            "variable_assignment"
            | "variable_assignments"
            | "declaration_command"
            | "unset_command"
            | "test_command" => self.substitutions(node, depth, later),
            // Words where a statement is expected, or anything else: nothing
            // runs that can be known.
            _ => {}
        }
        Ok(())
    }

    /// Handles a statement whose parts play different roles (a function,
    /// `for`, `case` and its items): which parts are statements to walk,
    /// which only run their substitutions, which are redirections.
    fn visit_parts(
        &mut self,
        node: Node<'t>,
        depth: usize,
        later: &mut Vec<Task<'t>>,
    ) -> Result<(), Refusal> {
        match node.kind() {
            "function_definition" => {
                for (field, child) in self.children(node) {
                    match field {
                        Some("body") => later.push(Task::Visit(child, depth)),
                        Some("redirect") => self.compound_redirect(child, depth, later)?,
                        _ => {}
                    }
                }
            }
            "for_statement" => {
                for (field, child) in self.children(node) {
                    match field {
                        Some("value") => self.substitutions(child, depth, later),
                        Some("body") => later.push(Task::Visit(child, depth)),
                        _ => {}
                    }
                }
            }
            // `for ((…))`: only the body holds commands.
            "c_style_for_statement" => {
                for (field, child) in self.children(node) {
                    if field == Some("body") {
                        later.push(Task::Visit(child, depth));
                    }
                }
            }
            "case_statement" => {
                for (field, child) in self.children(node) {
                    match field {
                        Some("value") => self.substitutions(child, depth, later),
                        _ if child.kind() == "case_item" => later.push(Task::Visit(child, depth)),
                        _ => {}
                    }
                }
            }
            // Patterns are not commands; the statements after them are.
            "case_item" => {
                for (field, child) in self.children(node) {
                    if field.is_none() && child.is_named() {
                        later.push(Task::Visit(child, depth));
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A statement with redirections: a simple command takes them as items
    /// in source order, a compound command writes their targets after its
    /// own steps.
    fn redirected(
        &mut self,
        node: Node<'t>,
        depth: usize,
        later: &mut Vec<Task<'t>>,
    ) -> Result<(), Refusal> {
        let kids = self.children(node);
        let body = kids
            .iter()
            .find(|(f, _)| *f == Some("body"))
            .map(|(_, c)| *c);
        let redirects: Vec<Node<'t>> = kids
            .iter()
            .filter(|(f, c)| *f != Some("body") && c.is_named())
            .map(|(_, c)| *c)
            .collect();
        match body {
            Some(body) if body.kind() == "command" => self.simple(body, &redirects, depth, later),
            // `> file` alone, or `> file cmd args`: a simple command.
            None => self.simple(node, &[], depth, later),
            Some(body) => {
                later.push(Task::Visit(body, depth));
                for redirect in redirects {
                    self.compound_redirect(redirect, depth, later)?;
                }
                Ok(())
            }
        }
    }

    /// A redirection of a compound command or function body.
    fn compound_redirect(
        &mut self,
        node: Node<'t>,
        depth: usize,
        later: &mut Vec<Task<'t>>,
    ) -> Result<(), Refusal> {
        let mut items = Vec::new();
        let mut before = Vec::new();
        let mut after = Vec::new();
        self.redirect(node, &mut items, &mut before, &mut after)?;
        later.extend(before.into_iter().map(|n| Task::Visit(n, depth)));
        for item in items {
            match item {
                Item::WriteRedirect(word) => later.push(Task::Emit(Step::WriteRedirect(word))),
                // `{ …; } > out word`: bash rejects a word after the
                // redirection of a compound command.
                Item::Word(word) => {
                    return Err(Refusal::parse_error(format!(
                        "syntax error: unexpected word `{}` after the redirection of a compound command",
                        word.raw
                    )));
                }
            }
        }
        later.extend(after.into_iter().map(|n| Task::Visit(n, depth)));
        Ok(())
    }

    /// A simple command: `node` is a `command`, or a redirected statement
    /// without a body; `extra` are the redirections written after it.
    fn simple(
        &mut self,
        node: Node<'t>,
        extra: &[Node<'t>],
        depth: usize,
        later: &mut Vec<Task<'t>>,
    ) -> Result<(), Refusal> {
        let mut items = Vec::new();
        // Statements whose commands run before this one (substitutions) and
        // after it (the rest of a here-document's first line).
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut last_word_end: Option<usize> = None;
        let parts = self
            .children(node)
            .into_iter()
            .chain(extra.iter().map(|n| (Some("redirect"), *n)));
        for (field, child) in parts {
            match (field, child.kind()) {
                (_, "variable_assignment") => self.collect_substitutions(child, &mut before),
                (Some("name"), _) | (Some("argument"), _) => {
                    let word = if child.kind() == "command_name" {
                        self.children(child)
                            .first()
                            .map(|(_, c)| *c)
                            .unwrap_or(child)
                    } else {
                        child
                    };
                    self.check_split(word, &mut last_word_end)?;
                    self.argument(word, &mut items, &mut before);
                }
                (Some("redirect"), _)
                | (_, "file_redirect" | "heredoc_redirect" | "herestring_redirect") => {
                    last_word_end = None;
                    let mut redirect_items = Vec::new();
                    self.redirect(child, &mut redirect_items, &mut before, &mut after)?;
                    items.extend(redirect_items);
                }
                _ if child.is_named() => {
                    // Not expected in a command; should it hold commands,
                    // they run after it.
                    after.push(child);
                }
                _ => {}
            }
        }
        later.extend(before.into_iter().map(|n| Task::Visit(n, depth)));
        later.push(Task::Emit(Step::Simple(items)));
        later.extend(after.into_iter().map(|n| Task::Visit(n, depth)));
        Ok(())
    }

    /// Refuses two words the grammar split although no blank separates them
    /// (it reads `$"text"` as a lone `$` and a string): bash sees one word,
    /// so the arguments would be miscounted.
    fn check_split(&self, word: Node<'_>, last_end: &mut Option<usize>) -> Result<(), Refusal> {
        if *last_end == Some(word.start_byte()) {
            return Err(Refusal::parse_error(format!(
                "a word the parser cannot delimit at {} near `{}`",
                position(word),
                shown(text(word, self.source))
            )));
        }
        *last_end = Some(word.end_byte());
        Ok(())
    }

    /// Reads one redirection. A writing one adds its target; the words the
    /// grammar attaches after the target are the command's arguments; a
    /// process substitution runs its commands; a here-document's line may
    /// carry more redirections, arguments and a statement that runs after.
    fn redirect(
        &mut self,
        node: Node<'t>,
        items: &mut Vec<Item>,
        before: &mut Vec<Node<'t>>,
        after: &mut Vec<Node<'t>>,
    ) -> Result<(), Refusal> {
        match node.kind() {
            "file_redirect" => {
                let mut operator = String::new();
                let mut has_fd = false;
                let mut prev: Option<Node<'t>> = None;
                let mut destinations = Vec::new();
                for (field, child) in self.children(node) {
                    match field {
                        Some("descriptor") => has_fd = true,
                        Some("destination") => destinations.push(child),
                        _ if is_read_write_gap(child, prev, node, self.source) => {
                            operator.push('>')
                        }
                        _ if !child.is_named() => operator.push_str(child.kind()),
                        _ => {}
                    }
                    prev = Some(child);
                }
                let mut last_end = None;
                for (i, destination) in destinations.into_iter().enumerate() {
                    self.check_split(destination, &mut last_end)?;
                    if i > 0 {
                        // The grammar takes every word after a target as
                        // another target; bash makes them arguments.
                        self.argument(destination, items, before);
                        continue;
                    }
                    if destination.kind() == "process_substitution" {
                        before.push(destination);
                        continue;
                    }
                    let word = self.word(destination, before);
                    let writes = match operator.as_str() {
                        ">" | ">>" | ">|" | "&>" | "&>>" | "<>" => true,
                        // `>&word` without a descriptor number sends stdout
                        // and stderr to the file `word`, unless the word is
                        // a descriptor number or `-` (close).
                        ">&" => {
                            let is_fd = word.uncertain.is_none()
                                && !word.text.is_empty()
                                && word
                                    .text
                                    .trim_end_matches('-')
                                    .chars()
                                    .all(|c| c.is_ascii_digit());
                            !has_fd && !is_fd
                        }
                        _ => false,
                    };
                    if writes {
                        items.push(Item::WriteRedirect(word));
                    }
                }
            }
            "heredoc_redirect" => {
                for (field, child) in self.children(node) {
                    match (field, child.kind()) {
                        (Some("redirect"), _) => self.redirect(child, items, before, after)?,
                        (Some("argument"), _) => self.argument(child, items, before),
                        (Some("right"), _) | (_, "pipeline") => after.push(child),
                        // The body is data, never commands.
                        _ => {}
                    }
                }
            }
            // A here-string is data, and reads.
            _ => {}
        }
        Ok(())
    }

    /// Adds a command name or argument, brace-expanded into several words
    /// when its braces are plain lists (`src/{a,b}`, `f{,.bak}`).
    fn argument(&mut self, node: Node<'t>, items: &mut Vec<Item>, before: &mut Vec<Node<'t>>) {
        if node.kind() == "process_substitution" {
            // The commands run; the argument becomes a `/dev/fd/N` path.
            before.push(node);
            let raw = if text(node, self.source).starts_with('>') {
                ">(…)"
            } else {
                "<(…)"
            };
            items.push(Item::Word(Word {
                raw: raw.to_owned(),
                text: String::new(),
                uncertain: Some(SkipReason::Device),
            }));
            return;
        }
        let decoded = self.word(node, before);
        if decoded.uncertain != Some(SkipReason::BraceExpansion) {
            items.push(Item::Word(decoded));
            return;
        }
        match braces::expand(&decoded.raw) {
            Expansion::Words(texts) => items.extend(texts.into_iter().map(|text| {
                // Bash expands a tilde that brace expansion puts at the
                // start of a word (`{~/x,b}`): it names a home directory.
                let uncertain = text.starts_with('~').then_some(SkipReason::Tilde);
                Item::Word(Word {
                    raw: decoded.raw.clone(),
                    text,
                    uncertain,
                })
            })),
            Expansion::TooMany => items.push(Item::Word(Word {
                uncertain: Some(SkipReason::TooManyExpansions),
                ..decoded
            })),
            Expansion::Unsupported => items.push(Item::Word(decoded)),
        }
    }

    /// Decodes a word; the `$(…)` substitutions in it are queued in `before`,
    /// since their commands run before the command that holds the word.
    fn word(&mut self, node: Node<'t>, before: &mut Vec<Node<'t>>) -> Word {
        let raw = text(node, self.source);
        let mut decoder = Decoder::default();
        // A word starting with a tilde names a home or stack directory
        // whatever follows.
        if raw.starts_with('~') {
            return Word {
                raw: raw.to_owned(),
                text: String::new(),
                uncertain: Some(SkipReason::Tilde),
            };
        }
        // Depth-first over the word's own nodes, without recursion. The text
        // between the children of a string or concatenation is decoded too,
        // so that nothing the grammar leaves between nodes (a line break in
        // a string) is lost.
        let mut stack = vec![Piece::Node(node, false)];
        while let Some(piece) = stack.pop() {
            let (node, quoted) = match piece {
                Piece::Gap(gap, true) => {
                    decoder.double_quoted_text(gap);
                    continue;
                }
                Piece::Gap(gap, false) => {
                    decoder.unquoted_text(gap);
                    continue;
                }
                Piece::Node(node, quoted) => (node, quoted),
            };
            self.decode_node(node, quoted, &mut decoder, before, &mut stack);
        }
        if decoder.uncertain.is_none() {
            decoder.uncertain = pattern_reason(&decoder.unquoted);
        }
        Word {
            raw: raw.to_owned(),
            text: decoder.text,
            uncertain: decoder.uncertain,
        }
    }

    /// Decodes one node of a word into `decoder`: a piece of text, a value
    /// that cannot be known, or parts pushed on `stack` to decode next.
    fn decode_node(
        &mut self,
        node: Node<'t>,
        quoted: bool,
        decoder: &mut Decoder,
        before: &mut Vec<Node<'t>>,
        stack: &mut Vec<Piece<'t, 's>>,
    ) {
        let kind = node.kind();
        let body = text(node, self.source);
        match kind {
            "word" => decoder.unquoted_text(body),
            "string_content" => decoder.double_quoted_text(body),
            "raw_string" => decoder.literal(strip(body, "'", "'"), true),
            "ansi_c_string" => {
                // Without a backslash an ANSI-C string is plain text;
                // decoding its escapes is not worth the risk of a wrong
                // path.
                let inner = strip(body, "$'", "'");
                if inner.contains('\\') {
                    decoder.uncertain(SkipReason::Quoting);
                } else {
                    decoder.literal(inner, true);
                }
            }
            "number" if node.named_child_count() == 0 => decoder.literal(body, quoted),
            "simple_expansion" | "expansion" => decoder.uncertain(SkipReason::Variable),
            "command_substitution" => {
                if body.starts_with("$(") {
                    before.push(node);
                }
                decoder.uncertain(SkipReason::CommandSubstitution);
            }
            "arithmetic_expansion" => decoder.uncertain(SkipReason::ArithmeticSubstitution),
            "brace_expression" => decoder.uncertain(SkipReason::BraceExpansion),
            "extglob_pattern" => decoder.uncertain(SkipReason::Glob),
            "process_substitution" => {
                before.push(node);
                decoder.uncertain(SkipReason::Device);
            }
            "concatenation" | "string" | "translated_string" | "number" => {
                stack.extend(self.pieces(node, quoted).into_iter().rev());
            }
            // `$` as a literal character (`a$`, `"cost: $"`).
            "$" => decoder.literal("$", quoted),
            // Any other node is not something this crate decodes.
            _ => decoder.uncertain(SkipReason::Quoting),
        }
    }

    /// The parts of a string or concatenation: its children and the text
    /// between them, without the delimiting quotes.
    fn pieces(&mut self, node: Node<'t>, quoted: bool) -> Vec<Piece<'t, 's>> {
        let kind = node.kind();
        let inner = quoted || kind == "string";
        // The delimiting quotes are not content.
        let (mut from, end) = match kind {
            "string" => (node.start_byte() + 1, node.end_byte().saturating_sub(1)),
            "translated_string" => (node.start_byte() + 1, node.end_byte()),
            _ => (node.start_byte(), node.end_byte()),
        };
        let mut pieces = Vec::new();
        for (_, child) in self.children(node) {
            if child.start_byte() < from || child.end_byte() > end {
                // A delimiting quote, or `$` of `$"…"`.
                continue;
            }
            if child.start_byte() > from {
                pieces.push(Piece::Gap(
                    self.source.get(from..child.start_byte()).unwrap_or(""),
                    inner,
                ));
            }
            pieces.push(Piece::Node(child, inner));
            from = child.end_byte();
        }
        if end > from {
            pieces.push(Piece::Gap(self.source.get(from..end).unwrap_or(""), inner));
        }
        pieces
    }

    /// Queues the `$(…)` and `<(…)` substitutions anywhere in `node` to be
    /// walked as statements.
    fn substitutions(&mut self, node: Node<'t>, depth: usize, later: &mut Vec<Task<'t>>) {
        let mut found = Vec::new();
        self.collect_substitutions(node, &mut found);
        later.extend(found.into_iter().map(|n| Task::Visit(n, depth)));
    }

    /// Finds, in source order, the `$(…)` and `<(…)` / `>(…)` nodes inside
    /// `node` that run unconditionally: not inside a `${…}` expansion (whose
    /// default may never be used), an arithmetic expansion, a here-document
    /// or here-string (data), or a backquoted substitution.
    fn collect_substitutions(&mut self, node: Node<'t>, found: &mut Vec<Node<'t>>) {
        let mut stack = vec![node];
        while let Some(node) = stack.pop() {
            match node.kind() {
                "command_substitution" if text(node, self.source).starts_with("$(") => {
                    found.push(node)
                }
                "process_substitution" => found.push(node),
                "command_substitution"
                | "expansion"
                | "arithmetic_expansion"
                | "heredoc_body"
                | "herestring_redirect" => {}
                _ => stack.extend(self.children(node).into_iter().rev().map(|(_, c)| c)),
            }
        }
    }
}

/// A part of a word being decoded: a node, or text between nodes; `true`
/// when it sits between double quotes.
enum Piece<'t, 's> {
    Node(Node<'t>, bool),
    Gap(&'s str, bool),
}

fn strip<'a>(s: &'a str, prefix: &str, suffix: &str) -> &'a str {
    let s = s.strip_prefix(prefix).unwrap_or(s);
    s.strip_suffix(suffix).unwrap_or(s)
}

#[derive(Default)]
struct Decoder {
    text: String,
    /// The word with every quoted or escaped character replaced by a neutral
    /// one, so that pattern characters are only found where they are active.
    unquoted: String,
    uncertain: Option<SkipReason>,
}

impl Decoder {
    /// Appends literal text, as long as nothing uncertain came before it.
    fn literal(&mut self, s: &str, quoted: bool) {
        if self.uncertain.is_some() {
            return;
        }
        self.text.push_str(s);
        if quoted {
            self.unquoted.extend(s.chars().map(|_| '_'));
        } else {
            self.unquoted.push_str(s);
        }
    }

    fn uncertain(&mut self, reason: SkipReason) {
        self.uncertain.get_or_insert(reason);
    }

    /// Unquoted text: a backslash quotes the next character, and a
    /// backslash-newline joins lines, leaving nothing behind.
    fn unquoted_text(&mut self, s: &str) {
        let mut chars = s.chars();
        let mut plain = String::new();
        while let Some(c) = chars.next() {
            if c != '\\' {
                plain.push(c);
                continue;
            }
            self.literal(&plain, false);
            plain.clear();
            match chars.next() {
                Some('\n') | None => {}
                Some(escaped) => self.literal(escaped.encode_utf8(&mut [0; 4]), true),
            }
        }
        self.literal(&plain, false);
    }

    /// Text between double quotes: a backslash quotes only `$`, `` ` ``,
    /// `"`, `\` and a newline; elsewhere it stays.
    fn double_quoted_text(&mut self, s: &str) {
        let mut out = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek()) {
                ('\\', Some('\n')) => {
                    chars.next();
                }
                ('\\', Some(&next @ ('$' | '`' | '"' | '\\'))) => {
                    chars.next();
                    out.push(next);
                }
                _ => out.push(c),
            }
        }
        self.literal(&out, true);
    }
}

/// Finds an active pathname pattern or brace expansion in the unquoted view
/// of a word.
fn pattern_reason(unquoted: &str) -> Option<SkipReason> {
    let bytes = unquoted.as_bytes();
    // A bracket expression needs a closing bracket after it; `a[b` is literal.
    let last_close = bytes.iter().rposition(|&b| b == b']');
    for (i, &b) in bytes.iter().enumerate() {
        let next = bytes.get(i + 1).copied();
        match b {
            b'*' | b'?' => return Some(SkipReason::Glob),
            b'[' if last_close.is_some_and(|close| close > i) => return Some(SkipReason::Glob),
            // Extended patterns: `+(…)`, `@(…)`, `!(…)`.
            b'+' | b'@' | b'!' if next == Some(b'(') => return Some(SkipReason::Glob),
            _ => {}
        }
    }
    // A brace expansion needs a comma or a `..` sequence between a `{` and
    // the first `}` after it. One pass: between two `}`, the earliest `{`
    // spans the most text.
    let mut open = false;
    let mut marker = false;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => open = true,
            b',' if open => marker = true,
            b'.' if open && bytes.get(i + 1) == Some(&b'.') => marker = true,
            b'}' => {
                if open && marker {
                    return Some(SkipReason::BraceExpansion);
                }
                open = false;
                marker = false;
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    thread_local! {
        /// How many child nodes the walk has looked at on this thread.
        pub(super) static TOUCHED: Cell<usize> = const { Cell::new(0) };
    }

    /// Parses `command` and returns the result with the number of child
    /// nodes looked at and the number of nodes in the tree.
    fn parse_counting(command: &str) -> (Result<Vec<Step>, Refusal>, usize, usize) {
        TOUCHED.with(|t| t.set(0));
        let result = parse(command);
        let touched = TOUCHED.with(Cell::get);
        let tree = parse_tree(command).unwrap();
        let mut nodes = 0;
        let mut cursor = tree.walk();
        'walk: loop {
            nodes += 1;
            if cursor.goto_first_child() || cursor.goto_next_sibling() {
                continue;
            }
            loop {
                if !cursor.goto_parent() {
                    break 'walk;
                }
                if cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        (result, touched, nodes)
    }

    fn targets(steps: &[Step]) -> Vec<String> {
        let mut out = Vec::new();
        for step in steps {
            match step {
                Step::Simple(items) => {
                    for item in items {
                        match item {
                            Item::Word(w) => out.push(w.text.clone()),
                            Item::WriteRedirect(w) => out.push(format!("> {}", w.text)),
                        }
                    }
                }
                Step::WriteRedirect(w) => out.push(format!("}} > {}", w.text)),
            }
            out.push(String::from(";"));
        }
        out
    }

    #[track_caller]
    fn check(command: &str, expected: &str) {
        let steps = parse(command).unwrap_or_else(|r| panic!("{command}: {r:?}"));
        assert_eq!(targets(&steps).join(" "), expected, "{command}");
    }

    #[track_caller]
    fn refused(command: &str, reason: SkipReason, message_part: &str) {
        let refusal = parse(command).unwrap_err();
        assert_eq!(refusal.reason, reason, "{command}: {refusal:?}");
        assert!(
            refusal.message.contains(message_part),
            "{command}: {}",
            refusal.message
        );
    }

    #[test]
    fn words_after_a_redirection_target_are_arguments() {
        // The grammar makes `b` and `c` further targets of the redirections.
        check("cp a > log b 2>e c", "cp a > log b > e c ;");
        check("> f touch x", "> f touch x ;");
    }

    #[test]
    fn read_write_redirection_is_read_despite_the_grammar_gap() {
        check("exec 3<> rw.dat", "exec > rw.dat ;");
        // Any other error node still refuses the text.
        refused("echo a >", SkipReason::ParseError, "line 1");
    }

    #[test]
    fn a_word_split_by_the_grammar_refuses_the_text() {
        refused("touch $\"a\" b", SkipReason::ParseError, "cannot delimit");
    }

    #[test]
    fn here_documents_keep_their_line_and_their_body_out() {
        check(
            "cat <<EOF > a.txt && touch b\ntouch body\nEOF\ntouch c",
            "cat > a.txt ; touch b ; touch c ;",
        );
        check("cat <<EOF | tee x\nbody\nEOF", "cat ; tee x ;");
        // A trailing operator with no body runs with an empty one in bash.
        check("cat > a.txt <<EOF", "cat > a.txt ;");
        check("cat <<'EOF' > a.txt", "cat > a.txt ;");
        // A body that starts and never closes is refused.
        refused(
            "cat > a.txt <<EOF\nbody",
            SkipReason::ParseError,
            "here-document",
        );
    }

    #[test]
    fn substitutions_run_before_their_command_and_defaults_do_not_count() {
        check("echo $(touch a) > b", "touch a ; echo  > b ;");
        check("X=$(mkdir d) touch m", "mkdir d ; touch m ;");
        check("echo ${x:-$(touch q)}", "echo  ;");
        check("echo `touch b`", "echo  ;");
        check("diff <(sort a) b", "sort a ; diff  b ;");
        check("for f in $(touch l); do :; done", "touch l ; : ;");
    }

    #[test]
    fn strings_keep_every_character_between_their_quotes() {
        check(
            "touch \"a\nb\" \"x\\\"y\" 'c'\"d\"e",
            "touch a\nb x\"y cde ;",
        );
    }

    #[test]
    fn deep_nesting_is_refused_without_overflowing_the_stack() {
        for deep in [
            format!(
                "echo {}a{}",
                "$(echo ".repeat(MAX_DEPTH + 1),
                ")".repeat(MAX_DEPTH + 1)
            ),
            format!("{}touch a{}", "( ".repeat(5_000), " )".repeat(5_000)),
            format!("{}touch a{}", "{ ".repeat(5_000), "; }".repeat(5_000)),
        ] {
            let handle = std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || parse(&deep))
                .unwrap();
            let refusal = handle.join().unwrap().unwrap_err();
            assert_eq!(refusal.reason, SkipReason::TooDeep, "{}", refusal.message);
        }
        let ok = format!(
            "{}touch a{}",
            "( ".repeat(MAX_DEPTH - 1),
            " )".repeat(MAX_DEPTH - 1)
        );
        check(&ok, "touch a ;");
    }

    #[test]
    fn long_chains_are_not_nesting_and_each_node_is_looked_at_a_bounded_number_of_times() {
        for joiner in [" && ", " || ", " | ", "; ", "\n"] {
            let chain = vec!["touch a"; 3_000].join(joiner);
            let (result, touched, nodes) = parse_counting(&chain);
            let steps = result.unwrap();
            assert_eq!(steps.len(), 3_000, "{joiner:?}");
            assert!(
                touched <= 2 * nodes,
                "{joiner:?}: {touched} looks at {nodes} nodes"
            );
        }
        // Mixed operators, as in a 308-byte input that once took a second.
        let mixed = "a|b&&c||d|".repeat(30) + "e";
        let (result, touched, nodes) = parse_counting(&mixed);
        assert_eq!(result.unwrap().len(), 121);
        assert!(touched <= 2 * nodes, "{touched} looks at {nodes} nodes");
        // Words nested in strings and substitutions.
        let nested = "echo \"$(echo \"$(echo \"$(touch a)\")\")\" ".repeat(200);
        let (result, touched, nodes) = parse_counting(&nested);
        assert!(result.is_ok());
        assert!(touched <= 2 * nodes, "{touched} looks at {nodes} nodes");
    }
}

#[cfg(test)]
mod empty_stage_tests {
    use super::{control_character, empty_pipeline_stage};

    #[test]
    fn raw_control_characters_are_found_with_their_place() {
        assert_eq!(control_character("a | b\u{0}"), Some((1, 6, 0)));
        assert_eq!(control_character("a\nb \u{15}"), Some((2, 3, 0x15)));
        assert_eq!(control_character("x\u{7f}"), Some((1, 2, 0x7f)));
        assert_eq!(control_character("a\tb\r\nc"), None);
        // Inside quotes they are a name's bytes.
        assert_eq!(control_character("touch \"a\u{1b}[2J\" 'b\u{7}'"), None);
        assert_eq!(
            control_character("echo \"\\\"\" \u{15}"),
            Some((1, 11, 0x15))
        );
        // An escaped quote opens nothing.
        assert_eq!(control_character("echo \\' \u{15}"), Some((1, 9, 0x15)));
        assert_eq!(control_character("é ü 中"), None);
    }

    #[test]
    fn a_pipe_where_a_command_should_be_is_found_with_its_place() {
        for (text, at) in [
            ("a | | b", (1, 5)),
            ("| a", (1, 1)),
            ("a && | b", (1, 6)),
            ("a ; | b", (1, 5)),
            ("a || | b", (1, 6)),
            ("a |& | b", (1, 6)),
            ("a\n  | | b", (2, 5)),
            ("( | a )", (1, 3)),
        ] {
            assert_eq!(empty_pipeline_stage(text), Some(at), "{text:?}");
        }
    }

    #[test]
    fn quotes_comments_heredocs_and_real_pipes_are_not_empty_stages() {
        for text in [
            "a | b | c",
            "a || b && c | d",
            "a |\n b",
            "echo 'a | | b' \"| |\" \\| \\|",
            "a # | | b\nc",
            "case x in a|b) c ;; esac",
            "cat > t.md <<EOF\n| a | | b |\n|---|---|\nEOF\nx | y",
            "cat > t.md <<-'END'\n\t| | |\n\tEND\n",
            "cat <<<'| |'",
            "x=$(a | b)",
        ] {
            assert_eq!(empty_pipeline_stage(text), None, "{text:?}");
        }
        // After a here-document's body, the scan goes on.
        assert_eq!(
            empty_pipeline_stage("cat <<EOF\n| |\nEOF\na | | b"),
            Some((4, 5))
        );
    }
}
