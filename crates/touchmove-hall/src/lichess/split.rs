//! Which boards go to which Lichess round: a round holds a limited number
//! of games, so the hall's boards are dealt out in board order (the
//! natural order of their ids, `b2` before `b10`) — the first
//! `per_round` to the first round, the next to the second, and so on.
//! Boards beyond every round's capacity are left out, and said so.
use crate::order::natural_cmp;

/// The boards of each round, in order, and those left out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Split {
    /// One list per round, in the order of the rounds given.
    pub rounds: Vec<Vec<String>>,
    /// The boards no round has room for, in board order.
    pub left_out: Vec<String>,
}

/// Deals `boards` (any order; sorted here) over `rounds` rounds of at
/// most `per_round` games each.
pub fn split<S: AsRef<str>>(boards: &[S], rounds: usize, per_round: usize) -> Split {
    let mut ids: Vec<&str> = boards.iter().map(AsRef::as_ref).collect();
    ids.sort_by(|a, b| natural_cmp(a, b));
    ids.dedup();
    let mut out = Split {
        rounds: vec![Vec::new(); rounds],
        left_out: Vec::new(),
    };
    for (i, id) in ids.into_iter().enumerate() {
        match out.rounds.get_mut(i / per_round.max(1)) {
            Some(round) => round.push(id.to_owned()),
            None => out.left_out.push(id.to_owned()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(range: std::ops::RangeInclusive<usize>) -> Vec<String> {
        range.map(|i| format!("b{i}")).collect()
    }

    #[test]
    fn seventy_boards_fill_the_first_round_then_the_second_in_board_order() {
        // Given in a shuffled order: the split sorts them as a person reads.
        let mut boards = ids(1..=70);
        boards.reverse();
        boards.swap(3, 40);
        let s = split(&boards, 2, 64);
        assert_eq!(s.rounds[0], ids(1..=64));
        assert_eq!(s.rounds[1], ids(65..=70));
        assert!(s.left_out.is_empty());
    }

    #[test]
    fn boards_beyond_every_round_are_left_out() {
        let s = split(&ids(1..=130), 2, 64);
        assert_eq!(s.rounds[0].len(), 64);
        assert_eq!(s.rounds[1], ids(65..=128));
        assert_eq!(s.left_out, ["b129", "b130"]);
        // No round at all: every board is left out.
        let s = split(&ids(1..=3), 0, 64);
        assert!(s.rounds.is_empty());
        assert_eq!(s.left_out, ids(1..=3));
    }

    #[test]
    fn small_rounds_and_duplicates() {
        let s = split(&["c1", "b10", "b2", "b2", "a"], 3, 2);
        assert_eq!(s.rounds, [vec!["a", "b2"], vec!["b10", "c1"], vec![]]);
        assert!(s.left_out.is_empty());
    }
}
