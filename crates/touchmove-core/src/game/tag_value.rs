//! One rule for PGN tag values (player names, event, site, round, ...),
//! wherever they come from: the configuration's `[game]`, the control
//! API's `/api/new-game`, the hall's `--round`.
//!
//! The PGN Standard (1994), section 7 ("Tokens"), defines the string token
//! that a tag pair's value is (section 8.1): printing characters between
//! quotes, a quote written `\"` and a backslash `\\` inside it;
//! "non-printing characters like newline and tab are not permitted inside
//! of strings", and "a string is limited to a maximum of 255 characters of
//! data". So a tag value here is:
//!
//! - at most [`MAX_CHARS`] (255) characters (Unicode scalar values: a name
//!   in any script counts its letters, not its UTF-8 bytes);
//! - free of control characters: every Unicode `Cc` character (NUL, tab,
//!   newline, carriage return, escape, DEL, U+0080–U+009F) and the line and
//!   paragraph separators U+2028 and U+2029 — one line of printing text;
//! - anything else, `"` and `\` included: the writer escapes those.
//!
//! [`TagValue`] holds only such values. The PGN writer passes every value
//! through [`TagValue::lossy`] and [`TagValue::escaped`], so a value that
//! reached the record some other way (an old journal) still cannot break
//! out of its tag.
use std::fmt;

use super::echo::quoted;

/// The most characters a tag value holds (PGN Standard, section 7).
pub const MAX_CHARS: usize = 255;

/// A PGN tag value that follows the rule of this module.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TagValue(String);

/// Why a text is not a tag value; the caller names the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagValueError {
    #[error(
        "{shown} contains the control character {ch:?} at character {at}: a tag value is one line of printing characters (no newline, tab, NUL or other control character)"
    )]
    Control {
        /// The value, cut short for the message.
        shown: String,
        ch: char,
        /// 1-based position of the character.
        at: usize,
    },
    #[error("{shown} is {count} characters long: a tag value holds at most {max}", max = MAX_CHARS)]
    TooLong {
        /// The value, cut short for the message.
        shown: String,
        count: usize,
    },
}

/// Whether `c` may not appear in a tag value.
fn refused(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

impl TagValue {
    /// `value` if it follows the rule.
    pub fn new(value: impl Into<String>) -> Result<TagValue, TagValueError> {
        let value = value.into();
        check(&value)?;
        Ok(TagValue(value))
    }

    /// `value` made to follow the rule: each refused character becomes a
    /// space, and it is cut at [`MAX_CHARS`] characters. For values that
    /// did not come through [`TagValue::new`] (an older record).
    pub fn lossy(value: &str) -> TagValue {
        TagValue(
            value
                .chars()
                .take(MAX_CHARS)
                .map(|c| if refused(c) { ' ' } else { c })
                .collect(),
        )
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    /// The value as written between the quotes of a PGN tag pair: `\` as
    /// `\\` and `"` as `\"` (PGN Standard, section 7).
    pub fn escaped(&self) -> String {
        let mut out = String::with_capacity(self.0.len() + 2);
        for c in self.0.chars() {
            if matches!(c, '\\' | '"') {
                out.push('\\');
            }
            out.push(c);
        }
        out
    }
}

/// The value of a tag pair as read between its quotes: `\\` is `\` and
/// `\"` is `"` (PGN Standard, section 7), each escape read once, left to
/// right (so `\\\"` is `\"`); any other backslash stands for itself.
/// Invalid UTF-8 is replaced (U+FFFD).
pub(crate) fn unescape(raw: &[u8]) -> String {
    let mut out = Vec::with_capacity(raw.len());
    let mut bytes = raw.iter().copied().peekable();
    while let Some(b) = bytes.next() {
        match (b, bytes.peek()) {
            (b'\\', Some(&next @ (b'\\' | b'"'))) => {
                out.push(next);
                bytes.next();
            }
            _ => out.push(b),
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Checks `value` against the rule (see the module's documentation).
pub fn check(value: &str) -> Result<(), TagValueError> {
    let mut count = 0;
    for (i, c) in value.chars().enumerate() {
        if refused(c) {
            return Err(TagValueError::Control {
                shown: quoted(value),
                ch: c,
                at: i + 1,
            });
        }
        count += 1;
    }
    if count > MAX_CHARS {
        return Err(TagValueError::TooLong {
            shown: quoted(value),
            count,
        });
    }
    Ok(())
}

impl fmt::Display for TagValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for TagValue {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<TagValue> for String {
    fn from(value: TagValue) -> String {
        value.0
    }
}

impl TryFrom<String> for TagValue {
    type Error = TagValueError;
    fn try_from(value: String) -> Result<TagValue, TagValueError> {
        TagValue::new(value)
    }
}

impl std::str::FromStr for TagValue {
    type Err = TagValueError;
    fn from_str(value: &str) -> Result<TagValue, TagValueError> {
        TagValue::new(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printing_text_is_a_tag_value() {
        for ok in [
            "",
            "?",
            "Carlsen, Magnus",
            "Nepomniachtchi, Ian \"Nepo\"",
            "C:\\games",
            "Гарри Каспаров",
            &"é".repeat(MAX_CHARS),
        ] {
            assert_eq!(TagValue::new(ok).unwrap().as_str(), ok);
        }
    }

    #[test]
    fn control_characters_and_long_values_are_refused() {
        for (bad, ch, at) in [
            ("Eve\"]\n[Result \"1-0\"]", '\n', 6),
            ("a\0b", '\0', 2),
            ("\tx", '\t', 1),
            ("x\r", '\r', 2),
            ("x\u{7f}", '\u{7f}', 2),
            ("x\u{85}", '\u{85}', 2),
            ("x\u{2028}y", '\u{2028}', 2),
        ] {
            assert_eq!(
                TagValue::new(bad),
                Err(TagValueError::Control {
                    shown: quoted(bad),
                    ch,
                    at
                }),
                "{bad:?}"
            );
        }
        let long = "x".repeat(MAX_CHARS + 1);
        let e = TagValue::new(long.as_str()).unwrap_err();
        assert!(
            matches!(e, TagValueError::TooLong { count: 256, .. }),
            "{e}"
        );
        assert!(e.to_string().len() < 200, "the value is cut short: {e}");
    }

    #[test]
    fn unescape_reverses_escaped() {
        for value in [
            "",
            "plain",
            "a\\b",
            "\"q\"",
            "C:\\P\\\"B\"",
            "\\\\",
            "end\\",
        ] {
            let v = TagValue::new(value).unwrap();
            assert_eq!(unescape(v.escaped().as_bytes()), value, "{:?}", v.escaped());
        }
        // A backslash before anything else stands for itself.
        assert_eq!(unescape(b"a\\nb"), "a\\nb");
    }

    #[test]
    fn lossy_and_escaped_always_make_one_string_token() {
        let v = TagValue::lossy("Eve\"]\n[Result \"1-0\"]\n[X \\\"");
        assert_eq!(v.as_str(), "Eve\"] [Result \"1-0\"] [X \\\"");
        assert_eq!(v.escaped(), "Eve\\\"] [Result \\\"1-0\\\"] [X \\\\\\\"");
        assert!(check(v.as_str()).is_ok());
        assert_eq!(TagValue::lossy(&"y".repeat(1000)).as_str().len(), MAX_CHARS);
    }
}
