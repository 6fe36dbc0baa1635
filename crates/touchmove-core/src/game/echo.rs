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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_tokens_are_quoted_as_debug_does() {
        assert_eq!(quoted("e2e4"), "\"e2e4\"");
        assert_eq!(quoted("a\nb\"c"), "\"a\\nb\\\"c\"");
        let forty = "x".repeat(MAX_ECHO_CHARS);
        assert_eq!(quoted(&forty), format!("{forty:?}"));
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
    }
}
