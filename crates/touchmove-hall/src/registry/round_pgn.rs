//! The boards' retained PGNs and the round's: every board's game in
//! natural board order, each with `[Board]` and `[Round]` set.
use super::{Received, Registry};
use crate::limits::Reason;
use crate::order::tag_pgn;

impl Registry {
    /// A board's retained `pgn` (empty: none).
    pub(super) fn pgn(
        &mut self,
        board: &str,
        payload: &[u8],
        now_ms: u64,
    ) -> Result<Received, (Reason, String)> {
        match std::str::from_utf8(payload) {
            Ok(text) => {
                let b = self.board(board, now_ms);
                b.pgn = (!text.trim().is_empty()).then(|| text.to_owned());
                Ok(Received::default())
            }
            Err(e) => Err((Reason::Undecodable, format!("the PGN is not UTF-8: {e}"))),
        }
    }

    /// One board's PGN (its retained `pgn`), with `[Board]` and, when
    /// given, `[Round]` set. `None` for an unknown board or one that has
    /// published no PGN yet.
    pub fn board_pgn(&self, id: &str, round: Option<&str>) -> Option<String> {
        let pgn = self.boards.get(id)?.pgn.as_deref()?;
        Some(tag_pgn(pgn, round, id))
    }

    /// The round: every board's game in natural board order, each with
    /// `[Board]` and `[Round]` set, `[%clk]` kept.
    pub fn round_pgn(&self, round: Option<&str>) -> String {
        let mut out = String::new();
        for id in self.board_ids() {
            if let Some(pgn) = self.board_pgn(id, round) {
                out.push_str(pgn.trim_end());
                out.push_str("\n\n");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use touchmove_wire::mqtt::Channel;

    use super::super::Registry;
    use super::super::test_support::*;

    #[test]
    fn the_round_pgn_lists_boards_in_natural_order() {
        let mut r = Registry::new(HALL);
        for b in ["b10", "b2"] {
            let pgn = format!(
                "[Event \"E\"]\n[Round \"?\"]\n[White \"{b}\"]\n\n1. e4 {{[%clk 0:59:59]}} *\n"
            );
            r.receive(&topic(b, Channel::Pgn), pgn.as_bytes(), 1);
        }
        let round = r.round_pgn(Some("4"));
        let b2 = round.find("[Board \"b2\"]").unwrap();
        let b10 = round.find("[Board \"b10\"]").unwrap();
        assert!(b2 < b10, "{round}");
        assert_eq!(round.matches("[Round \"4\"]").count(), 2);
        assert_eq!(round.matches("[%clk 0:59:59]").count(), 2);
        assert_eq!(r.board_pgn("nope", None), None);
    }
}
