//! Frontmatters of plain `key: value` lines, read without the YAML parser.
//!
//! Almost every rule's frontmatter is a few lines of one shape:
//!
//! ```yaml
//! description: Rules for the billing forms
//! paths: ["src/**/*.tsx", "src/**/*.css"]
//! alwaysApply: false
//! globs:
//!   - "lib/**"
//! ```
//!
//! Such a frontmatter is read here, in one pass over its lines, and the
//! YAML parser (whose set-up and generic events cost more than the reading)
//! is not called. Whatever is outside the shape below, even where YAML would
//! read it the same, returns `None` and goes to the parser, which decides it
//! with its errors and limits:
//!
//! * a line is blank, or `key:` at the start of the line followed by nothing
//!   or by a space and a value; a key is ASCII letters, digits, `_` and `-`,
//!   starting with a letter, and is written once;
//! * a value is a quoted string (`"…"` without `\` or `"` inside, `'…'`
//!   without `'` inside), `true`, `false`, a plain string (below), or a flow
//!   list `[…]` of quoted and plain strings;
//! * under a key with no value, lines `- item` (every item at the indent of
//!   the first) make a list of quoted and plain strings;
//! * a plain string starts with a letter, `_` or `/`, holds none of YAML's
//!   indicators (`:`, `#`, `,`, brackets and braces, quotes, `&`, `|`, `>`,
//!   `` ` ``, `\`) and no control character, and is not a word YAML reads as
//!   something else (`yes`, `null`, `nan`, …, in any case);
//! * no tab anywhere, and at most [`MAX_ITEMS`] values.
//!
//! Property tests in the parent module hold this reading to the parser's on
//! frontmatters made of these pieces and of near misses.

use serde_json::{Map, Value};

/// The most values (one per key, one per list item) read here; a longer frontmatter goes to the parser,
/// whose node budget decides it.
pub(super) const MAX_ITEMS: usize = 1_000;

/// Words a YAML parser may read as a boolean, a null or a number, compared
/// without case. A plain string equal to one goes to the parser.
const SPECIAL_WORDS: [&str; 12] = [
    "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf", "infinity",
];

/// The frontmatter's keys and values when it has the plain shape of the
/// module docs; `None` otherwise (the YAML parser decides it then).
pub(super) fn parse(yaml: &str) -> Option<Map<String, Value>> {
    if yaml.contains('\t') {
        return None;
    }
    let mut map = Map::new();
    let mut items = 0usize;
    // The key whose value is a block list being read, and the indent of
    // its items once the first is seen.
    let mut open: Option<(&str, Vec<Value>, Option<usize>)> = None;
    for line in yaml.split('\n') {
        if line.trim_start_matches(' ').is_empty() {
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(item) = line[indent..].strip_prefix("- ") {
            let (_, list, at) = open.as_mut()?;
            if *at.get_or_insert(indent) != indent {
                return None;
            }
            list.push(scalar(item.trim_matches(' '), false)?);
            items += 1;
            continue;
        }
        close(&mut map, open.take());
        // An indented line that is no item fails here: a key starts with
        // a letter.
        let (key, value) = line.split_once(':')?;
        if !is_key(key) || map.contains_key(key) {
            return None;
        }
        items += 1;
        let value = match value.strip_prefix(' ') {
            Some(value) => value.trim_matches(' '),
            None if value.is_empty() => "",
            None => return None,
        };
        if value.is_empty() {
            open = Some((key, Vec::new(), None));
            continue;
        }
        let value = match value.strip_prefix('[') {
            Some(inner) => flow(inner.strip_suffix(']')?, &mut items)?,
            None => scalar(value, true)?,
        };
        map.insert(key.to_owned(), value);
        if items > MAX_ITEMS {
            return None;
        }
    }
    close(&mut map, open);
    (items <= MAX_ITEMS).then_some(map)
}

/// Puts a key with no value on its line into `map`: its list, or null when
/// no item followed.
fn close(map: &mut Map<String, Value>, open: Option<(&str, Vec<Value>, Option<usize>)>) {
    if let Some((key, list, at)) = open {
        let value = match at {
            Some(_) => Value::Array(list),
            None => Value::Null,
        };
        map.insert(key.to_owned(), value);
    }
}

/// The items of a flow list's inside (`"a", b`), counted into `items`.
fn flow(inner: &str, items: &mut usize) -> Option<Value> {
    if inner.trim_matches(' ').is_empty() {
        return Some(Value::Array(Vec::new()));
    }
    let mut list = Vec::new();
    for part in inner.split(',') {
        list.push(scalar(part.trim_matches(' '), false)?);
        *items += 1;
    }
    Some(Value::Array(list))
}

/// A quoted or plain string, or (when `flags`) `true`/`false`.
fn scalar(text: &str, flags: bool) -> Option<Value> {
    if flags {
        match text {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    let quoted = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .filter(|inner| !inner.contains(['"', '\\']))
        .or_else(|| {
            text.strip_prefix('\'')
                .and_then(|t| t.strip_suffix('\''))
                .filter(|inner| !inner.contains('\''))
        });
    match quoted {
        Some(inner) if inner.chars().all(printable) => Some(Value::String(inner.to_owned())),
        Some(_) => None,
        None => is_plain(text).then(|| Value::String(text.to_owned())),
    }
}

/// Whether `key` is a key read here: ASCII letters, digits, `_` and `-`,
/// starting with a letter, and no special word.
fn is_key(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_alphabetic())
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !is_special(key)
}

/// Whether `text` is a plain string of the module docs.
fn is_plain(text: &str) -> bool {
    text.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_' || c == '/')
        && !text.contains(|c: char| {
            matches!(
                c,
                ':' | '#' | ',' | '[' | ']' | '{' | '}' | '"' | '\'' | '&' | '|' | '>' | '`' | '\\'
            ) || !printable(c)
        })
        && !is_special(text)
}

fn is_special(word: &str) -> bool {
    SPECIAL_WORDS
        .iter()
        .any(|special| special.eq_ignore_ascii_case(word))
}

/// Characters a one-line YAML scalar holds as themselves: printable, and
/// none that a parser may take for a line break, a byte-order mark or a
/// space of its own (YAML's spaces are the ASCII space and tab).
fn printable(c: char) -> bool {
    match c {
        ' '..='~' => true,
        '\u{a0}'..='\u{d7ff}' => !matches!(c, '\u{a0}' | '\u{2028}' | '\u{2029}'),
        '\u{e000}'..='\u{fffd}' => c != '\u{feff}',
        _ => c >= '\u{10000}',
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn read(yaml: &str) -> Option<Value> {
        parse(yaml).map(Value::Object)
    }

    #[test]
    fn plain_shapes_are_read() {
        let yaml = "description: Rules for the billing forms\n\
                    paths: [\"src/**/*.tsx\", 'lib/*.css', docs/a b]\n\
                    alwaysApply: false\n\
                    \n\
                    globs:\n  - \"lib/**\"\n  - /abs/x*\n\
                    applyTo:\n\
                    empty: []\n\
                    single: 'x \"y\"'\n\
                    on_: true\n\
                    k-1: \"\"\n";
        assert_eq!(
            read(yaml),
            Some(json!({
                "description": "Rules for the billing forms",
                "paths": ["src/**/*.tsx", "lib/*.css", "docs/a b"],
                "alwaysApply": false,
                "globs": ["lib/**", "/abs/x*"],
                "applyTo": null,
                "empty": [],
                "single": "x \"y\"",
                "on_": true,
                "k-1": "",
            }))
        );
        assert_eq!(
            read("paths:\n- a\n- b\n"),
            Some(json!({"paths": ["a", "b"]}))
        );
        assert_eq!(read("\n\n"), Some(json!({})));
        assert_eq!(
            read("d: x 中文 é，ｙ 😀\n"),
            Some(json!({"d": "x 中文 é，ｙ 😀"}))
        );
    }

    #[test]
    fn everything_else_goes_to_the_parser() {
        for yaml in [
            "paths: **/*.ts",      // an alias to YAML
            "paths: {src,lib}/**", // a mapping to YAML
            "paths: [\"a,b\"]",    // a comma inside quotes
            "paths: [\"a\",]",     // an empty flow item
            "paths: [[a]]",        // a nested list
            "paths: [a",           // an open flow list
            "paths: \"a\\\"b\"",   // an escape
            "paths: 'it''s'",      // a doubled single quote
            "paths: \"a\" b",      // more after the quotes
            "a: 1",                // a number
            "a: 0x1f",             // a number
            "a: .inf",             // a number
            "a: yes",              // a boolean to YAML 1.1
            "a: NULL",             // a null
            "a: Nan",              // a number
            "a: True",             // a boolean in another case
            "a: ~",                // a null
            "a: x # note",         // a comment
            "# note\na: x",        // a comment line
            "a: b: c",             // a mapping in a value
            "a:b",                 // no space after the colon
            "a: x\na: y",          // a key written twice
            "a:\n  - x\na: y",     // a key written twice, list first
            "on: x",               // a key YAML may read as a boolean
            "1a: x",               // a key not starting with a letter
            "é: x",                // a key outside ASCII
            "a: x\n  b",           // a continued line
            "a: x\n  - y",         // an item under a value
            "- x",                 // an item under no key
            "a:\n  - x\n - y",     // items at two indents
            "a:\n  -",             // an empty item
            "a:\n  - true",        // a boolean item
            "a:\n\t- x",           // a tab
            "a: &x y",             // an anchor
            "a: !tag y",           // a tag
            "a: |",                // a block scalar
            "a: x\u{a0}y",         // a no-break space
            "a: x\u{85}y",         // a next-line character
            "a: \"x\u{7f}\"",      // a control character
            "a: \"x\u{feff}\"",    // a byte-order mark
            "a: x\r",              // a carriage return
            "...",                 // a document end
        ] {
            assert_eq!(read(yaml), None, "{yaml:?}");
        }
    }

    #[test]
    fn a_long_frontmatter_goes_to_the_parser() {
        let list = |n: usize| format!("paths: [{}]", vec!["a"; n].join(", "));
        assert!(read(&list(MAX_ITEMS - 1)).is_some());
        assert_eq!(read(&list(MAX_ITEMS)), None);
        let block = |n: usize| format!("paths:\n{}", "  - a\n".repeat(n));
        assert!(read(&block(MAX_ITEMS - 1)).is_some());
        assert_eq!(read(&block(MAX_ITEMS)), None);
        let keys = |n: usize| (0..n).map(|i| format!("k{i}: v\n")).collect::<String>();
        assert!(read(&keys(MAX_ITEMS)).is_some());
        assert_eq!(read(&keys(MAX_ITEMS + 1)), None);
    }

    mod properties {
        use proptest::prelude::*;

        use super::super::super::parse_map_yaml;
        use super::*;

        /// Text inside quotes.
        const QUOTED: &str =
            "[a-z0-9 ./*,:#'{}\\[\\]é中]{0,6}[\\\\\"'\u{7f}\u{feff}\u{a0}]?[a-z]{0,2}";

        /// Text a scalar is made of: plain characters, YAML's indicators,
        /// and characters a parser may treat as spaces or breaks.
        const CHARS: &str =
            "[a-zA-Z0-9 _./*?!%@:#,'\\\"\\-\\[\\]{}&|>~é中\u{a0}\u{85}\u{2028}\u{feff}\u{7f}]{0,6}";

        fn scalar() -> impl Strategy<Value = String> {
            prop_oneof![
                6 => "[a-z/_][a-z0-9 ./*?!%@-]{0,6}",
                2 => "[a-z/_][a-z0-9 ]{0,3}[é中\u{a0}\u{85}\u{2028}\u{feff}\u{7f}:#,'&|>~\\\"\\[\\]{}]?[a-z ]{0,2}",
                1 => CHARS,
                3 => QUOTED.prop_map(|s| format!("\"{s}\"")),
                2 => QUOTED.prop_map(|s| format!("'{s}'")),
                2 => prop::sample::select(vec![
                    "true", "false", "True", "yes", "No", "ON", "y", "N", "null", "Null",
                    "~", "nan", "Inf", ".inf", "-.inf", "1", "0x1f", "1e3", "0o7", "1_000",
                    "2001-12-14", "1:20", "infinity", "Off", "",
                ])
                .prop_map(str::to_owned),
            ]
        }

        fn key() -> impl Strategy<Value = String> {
            prop_oneof![
                3 => prop::sample::select(vec![
                    "paths", "globs", "description", "alwaysApply", "on", "Yes", "k-1", "n", "a_b",
                ])
                .prop_map(str::to_owned),
                1 => "[a-zA-Z_1-][a-zA-Z0-9_-]{0,3}",
            ]
        }

        fn line(junk: u32) -> impl Strategy<Value = String> {
            let value = prop_oneof![
                3 => scalar(),
                2 => prop::collection::vec(scalar(), 0..4).prop_map(|items| format!("[{}]", items.join(", "))),
                2 => Just(String::new()),
            ];
            prop_oneof![
                6 => (key(), value, prop::sample::select(vec![": ", ": ", ":", ":  "]), prop::sample::select(vec!["", "", " ", "  "]))
                    .prop_map(|(k, v, colon, tail)| format!("{k}{colon}{v}{tail}")),
                4 => (prop::sample::select(vec!["  ", "  ", "", " ", "   "]), prop::sample::select(vec!["- ", "- ", "-", "-  "]), scalar())
                    .prop_map(|(indent, dash, item)| format!("{indent}{dash}{item}")),
                1 => " {0,2}".prop_map(|s: String| s),
                junk => "[ #a-z:\t-]{0,5}",
            ]
        }

        /// A frontmatter of distinct keys, each with a scalar, a flow list
        /// or a block list: the shape read here, with scalars of every kind.
        fn entries() -> impl Strategy<Value = String> {
            let keys = prop::sample::subsequence(
                vec![
                    "paths",
                    "globs",
                    "description",
                    "alwaysApply",
                    "applyTo",
                    "k-1",
                    "a_b",
                    "Z9",
                ],
                0..5,
            );
            keys.prop_flat_map(|keys| {
                let n = keys.len();
                (
                    Just(keys),
                    prop::collection::vec(
                        (
                            0..3u8,
                            prop::collection::vec(scalar(), 0..4),
                            prop::sample::select(vec!["", "  ", " ", "    "]),
                        ),
                        n,
                    ),
                )
            })
            .prop_map(|(keys, values)| {
                let mut yaml = String::new();
                for (key, (kind, items, indent)) in keys.iter().zip(values) {
                    match kind {
                        0 => yaml.push_str(&format!(
                            "{key}: {}\n",
                            items.first().map_or("", String::as_str)
                        )),
                        1 => yaml.push_str(&format!("{key}: [{}]\n", items.join(", "))),
                        _ => {
                            yaml.push_str(&format!("{key}:\n"));
                            for item in items {
                                yaml.push_str(&format!("{indent}- {item}\n"));
                            }
                        }
                    }
                }
                yaml
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

            /// A frontmatter of the shape read here is read as the parser
            /// reads it, or left to it.
            #[test]
            fn a_plain_frontmatter_is_read_as_the_parser_reads_it(yaml in entries()) {
                if let Some(map) = parse(&yaml) {
                    prop_assert_eq!(parse_map_yaml(&yaml), Ok(Ok(map)), "{:?}", yaml);
                }
            }

            /// Whatever is read here, the YAML parser reads the same.
            #[test]
            fn a_plain_reading_is_the_parsers(lines in prop::collection::vec(line(1), 0..7)) {
                let yaml = lines.join("\n");
                if let Some(map) = parse(&yaml) {
                    prop_assert_eq!(parse_map_yaml(&yaml), Ok(Ok(map)), "{:?}", yaml);
                }
            }
        }
    }
}
