//! Natural order of board ids (`b2` before `b10`) and the round PGN's tags.
use std::cmp::Ordering;

/// Compares ids as a person reads them: runs of digits by their value,
/// the rest character by character (`b2` < `b10` < `c1`).
pub(crate) fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.chars().next(), b.chars().next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let da = a.len() - a.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let db = b.len() - b.trim_start_matches(|c: char| c.is_ascii_digit()).len();
                let (na, nb) = (
                    a[..da].trim_start_matches('0'),
                    b[..db].trim_start_matches('0'),
                );
                let by_value = na.len().cmp(&nb.len()).then_with(|| na.cmp(nb));
                // Equal values: fewer leading zeros first, so the order is total.
                let order = by_value.then_with(|| da.cmp(&db));
                if order != Ordering::Equal {
                    return order;
                }
                a = &a[da..];
                b = &b[db..];
            }
            (Some(x), Some(y)) => {
                if x != y {
                    return x.cmp(&y);
                }
                a = &a[x.len_utf8()..];
                b = &b[y.len_utf8()..];
            }
        }
    }
}

fn escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The name of a PGN tag line (`[Name "value"]`), if the line is one.
fn tag_name(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('[')?;
    let end = rest.find(|c: char| c.is_whitespace())?;
    Some(&rest[..end])
}

/// A board's PGN with `[Board "<board>"]` set and, when `round` is given,
/// `[Round "<round>"]` set, in every game of the text; the movetext (and
/// its `[%clk]` comments) is kept as it is. A tag the text lacks is added
/// at the end of its tag section.
pub(crate) fn tag_pgn(pgn: &str, round: Option<&str>, board: &str) -> String {
    let mut out = String::with_capacity(pgn.len() + 64);
    let mut in_tags = false;
    let (mut has_round, mut has_board) = (false, false);
    let close_tags = |out: &mut String, has_round: bool, has_board: bool| {
        if let (Some(round), false) = (round, has_round) {
            out.push_str(&format!("[Round \"{}\"]\n", escape(round)));
        }
        if !has_board {
            out.push_str(&format!("[Board \"{}\"]\n", escape(board)));
        }
    };
    for line in pgn.lines() {
        match tag_name(line) {
            Some(name) => {
                if !in_tags {
                    in_tags = true;
                    has_round = false;
                    has_board = false;
                }
                match (name, round) {
                    ("Round", Some(round)) => {
                        has_round = true;
                        out.push_str(&format!("[Round \"{}\"]\n", escape(round)));
                    }
                    ("Board", _) => {
                        has_board = true;
                        out.push_str(&format!("[Board \"{}\"]\n", escape(board)));
                    }
                    _ => {
                        has_round |= name == "Round" && round.is_none();
                        out.push_str(line);
                        out.push('\n');
                    }
                }
            }
            None => {
                if in_tags {
                    in_tags = false;
                    close_tags(&mut out, has_round, has_board);
                }
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if in_tags {
        close_tags(&mut out, has_round, has_board);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_order() {
        let mut ids = vec!["b10", "b2", "a", "b1", "b02", "c1", "b2x", "B3"];
        ids.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(ids, ["B3", "a", "b1", "b2", "b2x", "b02", "b10", "c1"]);
        assert_eq!(natural_cmp("board-9", "board-10"), Ordering::Less);
        assert_eq!(natural_cmp("x", "x"), Ordering::Equal);
    }

    #[test]
    fn tags_are_set_and_movetext_kept() {
        let pgn = "[Event \"Open\"]\n[Round \"?\"]\n[White \"A\"]\n[Result \"*\"]\n\n1. e4 { [%clk 1:29:58] } *\n\n";
        let tagged = tag_pgn(pgn, Some("3"), "b7");
        assert_eq!(
            tagged,
            "[Event \"Open\"]\n[Round \"3\"]\n[White \"A\"]\n[Result \"*\"]\n[Board \"b7\"]\n\n1. e4 { [%clk 1:29:58] } *\n\n"
        );
        // Without a round the board's own is kept; a Board tag is replaced.
        let tagged = tag_pgn("[Round \"2\"]\n[Board \"x\"]\n\n*\n", None, "b\"1");
        assert_eq!(tagged, "[Round \"2\"]\n[Board \"b\\\"1\"]\n\n*\n");
        // A missing Round is added when one is given.
        assert_eq!(
            tag_pgn("[Event \"E\"]\n\n*\n", Some("1"), "b1"),
            "[Event \"E\"]\n[Round \"1\"]\n[Board \"b1\"]\n\n*\n"
        );
    }
}
