//! Echoing input back in an error message: one rule for every reader (the
//! trace reader, the configuration, the control API, the command line).
//! A token is quoted as Rust's `{:?}` quotes it (control characters
//! escaped, so it cannot break the message's line), and a long one is cut
//! short: an error about a 100 MB token is one line, not 100 MB.

/// The most characters of a token an error message repeats.
pub const MAX_ECHO_CHARS: usize = 40;

/// `text` quoted for an error message: `"e2e4"`; past
/// [`MAX_ECHO_CHARS`] characters, its start, an ellipsis and its length:
/// `"xxxx…" (100000 characters)`.
pub fn quoted(text: &str) -> String {
    match text.char_indices().nth(MAX_ECHO_CHARS) {
        None => format!("{text:?}"),
        Some((cut, _)) => format!("{:?}… ({} characters)", &text[..cut], text.chars().count()),
    }
}

/// The most characters of a message from elsewhere (a parser's error that
/// may hold the input) that an error repeats.
pub const MAX_MESSAGE_CHARS: usize = 300;

/// `message` cut at [`MAX_MESSAGE_CHARS`] characters with an ellipsis: for
/// errors of other parsers (TOML, URLs) that repeat their input whole.
pub fn clip(message: &str) -> String {
    match message.char_indices().nth(MAX_MESSAGE_CHARS) {
        None => message.to_owned(),
        Some((cut, _)) => format!("{}…", &message[..cut]),
    }
}

/// [`quoted`] for bytes that may not be UTF-8 (invalid sequences shown as U+FFFD).
pub fn quoted_bytes(bytes: &[u8]) -> String {
    let end = bytes.len().min(MAX_ECHO_CHARS * 4);
    let head = String::from_utf8_lossy(&bytes[..end]);
    let shown: String = head.chars().take(MAX_ECHO_CHARS).collect();
    if shown.len() == bytes.len() {
        format!("{shown:?}")
    } else {
        format!("{shown:?}… ({} bytes)", bytes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_tokens_are_quoted_as_debug_does() {
        assert_eq!(quoted("e2e4"), "\"e2e4\"");
        assert_eq!(quoted("a\nb\"c"), "\"a\\nb\\\"c\"");
        let forty = "x".repeat(MAX_ECHO_CHARS);
        assert_eq!(quoted(&forty), format!("{forty:?}"));
        assert_eq!(quoted_bytes(b"e2e4"), "\"e2e4\"");
    }

    #[test]
    fn long_tokens_are_cut_short_with_their_length() {
        let long = "é".repeat(100_000);
        let q = quoted(&long);
        assert_eq!(
            q,
            format!("{:?}… (100000 characters)", "é".repeat(MAX_ECHO_CHARS))
        );
        let m = clip(&"m".repeat(10_000));
        assert_eq!(m.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert_eq!(clip("short"), "short");
        let q = quoted_bytes(&[b'z'; 1_000_000]);
        assert!(q.ends_with("… (1000000 bytes)") && q.len() < 80, "{q}");
    }
}
