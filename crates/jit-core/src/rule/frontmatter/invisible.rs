//! Characters that show as nothing (or as a blank) in an editor or a code review, and their names for a message.
//!
//! A fence is `---` alone on its line. A character the author cannot see
//! before or inside it (`U+200B---`) makes the line no fence to every tool,
//! while the author sees one: the rule would load everywhere. Such a
//! character is *hidden* here when it is one of:
//!
//! * a format character, Unicode general category `Cf`, the whole category
//!   (zero-width spaces and joiners, direction marks and isolates, the
//!   soft hyphen, the BOM, tags, and the few that draw a sign, such as
//!   U+0600 ARABIC NUMBER SIGN: none is text a fence holds);
//! * a default-ignorable code point (`Default_Ignorable_Code_Point` of
//!   Unicode's `DerivedCoreProperties.txt`): Unicode's own list of what a
//!   renderer shows as nothing when it does not support it. Beyond `Cf` it
//!   adds the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), which fonts
//!   draw as blank letters, the variation selectors (U+FE00–U+FE0F,
//!   U+E0100–U+E01EF, the Mongolian U+180B–U+180F), U+034F COMBINING
//!   GRAPHEME JOINER, the Khmer inherent vowels U+17B4 and U+17B5, and the
//!   reserved code points Unicode keeps for more of the kind (U+2065,
//!   U+FFF0–U+FFF8, U+E0000–U+E0FFF), so a character assigned there later
//!   is refused already;
//! * a control character (`Cc`) other than the tab and the line breaks:
//!   no editor shows it as text;
//! * whitespace other than the ASCII space and tab (U+00A0 NO-BREAK SPACE,
//!   U+3000 IDEOGRAPHIC SPACE, form feed, …): it looks like a space, and a
//!   space before `---` is refused already; here it is named;
//! * U+2800 BRAILLE PATTERN BLANK, which is none of the above but draws an
//!   empty cell the width of a letter: it reads as a space.
//!
//! Not hidden: combining marks in general (they draw a mark on the
//! character before them, or on a dotted circle), unassigned and private-use
//! code points (drawn as a box), and every letter, digit and symbol.
//!
//! The `Cf` and default-ignorable ranges are written out in [`FORMAT_OR_IGNORABLE`]
//! (Unicode 16.0), so the engine needs no Unicode tables of its own; a test
//! compares them with the Unicode data `regex-syntax` carries, at every
//! code point.

/// The code points of general category `Cf` or with the property
/// `Default_Ignorable_Code_Point`, Unicode 16.0, as inclusive ranges in
/// order. Ranges that touch are merged.
const FORMAT_OR_IGNORABLE: [(u32, u32); 25] = [
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

/// The names of the hidden characters a message is likeliest to meet, from
/// Unicode's `UnicodeData.txt` (the control characters by their alias), in
/// order. The variation selectors are named by [`name`]; the rest are
/// described by their kind.
const NAMES: [(u32, &str); 66] = [
    (0x000B, "LINE TABULATION"),
    (0x000C, "FORM FEED"),
    (0x001C, "FILE SEPARATOR"),
    (0x001D, "GROUP SEPARATOR"),
    (0x001E, "RECORD SEPARATOR"),
    (0x001F, "UNIT SEPARATOR"),
    (0x007F, "DELETE"),
    (0x0085, "NEXT LINE"),
    (0x00A0, "NO-BREAK SPACE"),
    (0x00AD, "SOFT HYPHEN"),
    (0x034F, "COMBINING GRAPHEME JOINER"),
    (0x061C, "ARABIC LETTER MARK"),
    (0x115F, "HANGUL CHOSEONG FILLER"),
    (0x1160, "HANGUL JUNGSEONG FILLER"),
    (0x1680, "OGHAM SPACE MARK"),
    (0x17B4, "KHMER VOWEL INHERENT AQ"),
    (0x17B5, "KHMER VOWEL INHERENT AA"),
    (0x180B, "MONGOLIAN FREE VARIATION SELECTOR ONE"),
    (0x180C, "MONGOLIAN FREE VARIATION SELECTOR TWO"),
    (0x180D, "MONGOLIAN FREE VARIATION SELECTOR THREE"),
    (0x180E, "MONGOLIAN VOWEL SEPARATOR"),
    (0x180F, "MONGOLIAN FREE VARIATION SELECTOR FOUR"),
    (0x2000, "EN QUAD"),
    (0x2001, "EM QUAD"),
    (0x2002, "EN SPACE"),
    (0x2003, "EM SPACE"),
    (0x2004, "THREE-PER-EM SPACE"),
    (0x2005, "FOUR-PER-EM SPACE"),
    (0x2006, "SIX-PER-EM SPACE"),
    (0x2007, "FIGURE SPACE"),
    (0x2008, "PUNCTUATION SPACE"),
    (0x2009, "THIN SPACE"),
    (0x200A, "HAIR SPACE"),
    (0x200B, "ZERO WIDTH SPACE"),
    (0x200C, "ZERO WIDTH NON-JOINER"),
    (0x200D, "ZERO WIDTH JOINER"),
    (0x200E, "LEFT-TO-RIGHT MARK"),
    (0x200F, "RIGHT-TO-LEFT MARK"),
    (0x2028, "LINE SEPARATOR"),
    (0x2029, "PARAGRAPH SEPARATOR"),
    (0x202A, "LEFT-TO-RIGHT EMBEDDING"),
    (0x202B, "RIGHT-TO-LEFT EMBEDDING"),
    (0x202C, "POP DIRECTIONAL FORMATTING"),
    (0x202D, "LEFT-TO-RIGHT OVERRIDE"),
    (0x202E, "RIGHT-TO-LEFT OVERRIDE"),
    (0x202F, "NARROW NO-BREAK SPACE"),
    (0x205F, "MEDIUM MATHEMATICAL SPACE"),
    (0x2060, "WORD JOINER"),
    (0x2061, "FUNCTION APPLICATION"),
    (0x2062, "INVISIBLE TIMES"),
    (0x2063, "INVISIBLE SEPARATOR"),
    (0x2064, "INVISIBLE PLUS"),
    (0x2066, "LEFT-TO-RIGHT ISOLATE"),
    (0x2067, "RIGHT-TO-LEFT ISOLATE"),
    (0x2068, "FIRST STRONG ISOLATE"),
    (0x2069, "POP DIRECTIONAL ISOLATE"),
    (0x206A, "INHIBIT SYMMETRIC SWAPPING"),
    (0x206B, "ACTIVATE SYMMETRIC SWAPPING"),
    (0x206C, "INHIBIT ARABIC FORM SHAPING"),
    (0x206D, "ACTIVATE ARABIC FORM SHAPING"),
    (0x206E, "NATIONAL DIGIT SHAPES"),
    (0x206F, "NOMINAL DIGIT SHAPES"),
    (0x2800, "BRAILLE PATTERN BLANK"),
    (0x3000, "IDEOGRAPHIC SPACE"),
    (0x3164, "HANGUL FILLER"),
    (0xFEFF, "ZERO WIDTH NO-BREAK SPACE"),
];

/// Whether `c` is hidden (see the module docs). The ASCII space and tab
/// and the line breaks `\n` and `\r` are not: they are what a line is made
/// of, and the fence rules say what they may do.
pub(crate) fn is_hidden(c: char) -> bool {
    if matches!(c, ' ' | '\t' | '\n' | '\r') {
        return false;
    }
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    c.is_whitespace() || c.is_control() || c == '\u{2800}' || is_format_or_ignorable(c)
}

/// Whether `c` is in [`FORMAT_OR_IGNORABLE`].
fn is_format_or_ignorable(c: char) -> bool {
    let c = u32::from(c);
    FORMAT_OR_IGNORABLE
        .binary_search_by(|&(first, last)| {
            if last < c {
                std::cmp::Ordering::Less
            } else if first > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The first hidden character of `text`, with its index in characters.
pub(crate) fn first_hidden(text: &str) -> Option<(usize, char)> {
    text.chars().enumerate().find(|&(_, c)| is_hidden(c))
}

/// `text` without its hidden characters.
pub(crate) fn without_hidden(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().any(is_hidden) {
        std::borrow::Cow::Owned(text.chars().filter(|&c| !is_hidden(c)).collect())
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// `U+200B ZERO WIDTH SPACE`: the code point and its Unicode name, or what
/// kind of character it is when the name is not kept here.
pub(crate) fn name(c: char) -> String {
    let code = u32::from(c);
    let named = NAMES
        .binary_search_by_key(&code, |&(point, _)| point)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map(|&(_, name)| name.to_owned())
        .or_else(|| match code {
            0xFE00..=0xFE0F => Some(format!("VARIATION SELECTOR-{}", code - 0xFE00 + 1)),
            0xE0100..=0xE01EF => Some(format!("VARIATION SELECTOR-{}", code - 0xE0100 + 17)),
            _ => None,
        });
    match named {
        Some(name) => format!("U+{code:04X} {name}"),
        None => {
            let kind = if c.is_control() {
                "a control character"
            } else if (0xE0000..=0xE0FFF).contains(&code) {
                "a tag character"
            } else if (0xFFF0..=0xFFF8).contains(&code) || code == 0x2065 {
                "a reserved code point, shown as nothing"
            } else {
                "a format character"
            };
            format!("U+{code:04X} ({kind})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every code point of `Cf` or `Default_Ignorable_Code_Point` by the
    /// Unicode data of `regex-syntax`, as a set of ranges.
    fn unicode_ranges() -> Vec<(u32, u32)> {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(r"[\p{Cf}\p{Default_Ignorable_Code_Point}]")
            .unwrap();
        let regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) =
            hir.kind()
        else {
            panic!("a Unicode class expected: {hir:?}")
        };
        class
            .ranges()
            .iter()
            .map(|r| (u32::from(r.start()), u32::from(r.end())))
            .collect()
    }

    #[test]
    fn the_table_is_unicodes_format_and_default_ignorable_set_at_every_code_point() {
        let unicode = unicode_ranges();
        // Written out so a new Unicode version is pasted, not typed.
        let written: Vec<String> = unicode
            .iter()
            .map(|(a, b)| format!("(0x{a:04X}, 0x{b:04X}),"))
            .collect();
        assert_eq!(
            unicode,
            FORMAT_OR_IGNORABLE.to_vec(),
            "FORMAT_OR_IGNORABLE differs from the Unicode data; it should read:\n{}",
            written.join("\n")
        );
        for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
            let code = u32::from(c);
            let expected = unicode.iter().any(|&(a, b)| (a..=b).contains(&code));
            assert_eq!(is_format_or_ignorable(c), expected, "U+{code:04X}");
        }
    }

    #[test]
    fn the_findings_characters_and_the_blank_looking_ones_are_hidden() {
        for c in [
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{2060}',
            '\u{00AD}',
            '\u{FEFF}',
            '\u{115F}',
            '\u{1160}',
            '\u{3164}',
            '\u{FFA0}',
            '\u{FE0F}',
            '\u{E0100}',
            '\u{034F}',
            '\u{2800}',
            '\u{00A0}',
            '\u{3000}',
            '\u{000C}',
            '\u{0001}',
            '\u{0085}',
            '\u{E0041}',
            '\u{2065}',
        ] {
            assert!(is_hidden(c), "{}", name(c));
        }
        for c in [
            ' ', '\t', '\n', '\r', '-', 'a', 'é', '中', '\u{0301}', '\u{E000}',
        ] {
            assert!(!is_hidden(c), "{c:?}");
        }
    }

    #[test]
    fn names_are_sorted_kept_only_for_hidden_characters_and_said_with_the_code_point() {
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        for (code, _) in NAMES {
            let c = char::from_u32(code).unwrap();
            assert!(is_hidden(c), "U+{code:04X}");
        }
        for (c, said) in [
            ('\u{200B}', "U+200B ZERO WIDTH SPACE"),
            ('\u{00AD}', "U+00AD SOFT HYPHEN"),
            ('\u{FEFF}', "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
            ('\u{FE00}', "U+FE00 VARIATION SELECTOR-1"),
            ('\u{FE0F}', "U+FE0F VARIATION SELECTOR-16"),
            ('\u{E0100}', "U+E0100 VARIATION SELECTOR-17"),
            ('\u{E01EF}', "U+E01EF VARIATION SELECTOR-256"),
            ('\u{E0041}', "U+E0041 (a tag character)"),
            ('\u{0600}', "U+0600 (a format character)"),
            ('\u{0001}', "U+0001 (a control character)"),
            (
                '\u{2065}',
                "U+2065 (a reserved code point, shown as nothing)",
            ),
        ] {
            assert_eq!(name(c), said);
        }
    }
}
