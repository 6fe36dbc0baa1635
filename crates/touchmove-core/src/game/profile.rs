//! Rules profiles: which edition of the Laws applies, at which rate of play,
//! and every behaviour that differs between them.
use std::fmt;
use std::str::FromStr;

use crate::Millis;

/// The edition of the FIDE Laws of Chess a profile follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LawEdition {
    /// The Laws in force from 1 July 2005 (`../shared/laws/000_*.txt`).
    Fide2005,
    /// The Laws in force from 1 January 2023.
    Fide2023,
}

/// The rate of play, which selects the Appendices of the Laws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rate {
    Standard,
    /// Appendix A (2023).
    Rapid,
    /// Appendix B (2023).
    Blitz,
}

/// A named rules profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// 2023 Laws, standard play.
    FideStandard,
    /// 2023 Laws with Appendix A.
    FideRapid,
    /// 2023 Laws with Appendix B.
    FideBlitz,
    /// The 2005 Laws, standard play.
    Fide2005,
    /// Friendly play: no penalties, takebacks and rook-first castling allowed.
    Casual,
}

/// The time added to the opponent's clock and whether the game is over after
/// an illegal move was completed (Article 7.4b of 2005, 7.5.5 of 2023, A.3/B.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IllegalMovePenalty {
    /// No consequence (casual play).
    None,
    /// Time added to the opponent's clock.
    TimeToOpponent(Millis),
    /// The player loses, unless the opponent cannot checkmate by any series
    /// of legal moves, in which case the game is drawn.
    Loss,
}

impl Profile {
    pub const ALL: [Profile; 5] = [
        Profile::FideStandard,
        Profile::FideRapid,
        Profile::FideBlitz,
        Profile::Fide2005,
        Profile::Casual,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Profile::FideStandard => "fide-standard",
            Profile::FideRapid => "fide-rapid",
            Profile::FideBlitz => "fide-blitz",
            Profile::Fide2005 => "fide-2005",
            Profile::Casual => "casual",
        }
    }

    pub fn edition(self) -> LawEdition {
        match self {
            Profile::Fide2005 => LawEdition::Fide2005,
            _ => LawEdition::Fide2023,
        }
    }

    pub fn rate(self) -> Rate {
        match self {
            Profile::FideRapid => Rate::Rapid,
            Profile::FideBlitz => Rate::Blitz,
            _ => Rate::Standard,
        }
    }

    /// Whether the Laws' penalties and touch-move obligations apply.
    pub(crate) fn is_fide(self) -> bool {
        self != Profile::Casual
    }

    /// Takebacks on the board shorten the record (casual play only).
    pub(crate) fn allows_takeback(self) -> bool {
        self == Profile::Casual
    }

    /// Fivefold repetition and the 75-move rule end the game without a
    /// claim (9.6 of the Laws since 2014); the 2005 Laws do not have them.
    pub(crate) fn automatic_fivefold_and_75_moves(self) -> bool {
        self.edition() != LawEdition::Fide2005
    }

    /// What the `count`-th completed illegal move of one player brings.
    ///
    /// - 2005, Article 7.4b: two minutes to the opponent for each of the
    ///   first two; the third loses.
    /// - 2023, Article 7.5.5: two minutes for the first; the second loses.
    /// - 2023 rapid and blitz, A.3 and B.3: one minute instead of two.
    /// - casual: none.
    ///
    /// The loss gives way to a draw when the opponent cannot checkmate
    /// (decided by the caller with the unwinnability analysis).
    pub(crate) fn illegal_move_penalty(self, count: u32) -> IllegalMovePenalty {
        const TWO_MINUTES: Millis = 120_000;
        const ONE_MINUTE: Millis = 60_000;
        let (losing_count, minutes) = match self {
            Profile::Casual => return IllegalMovePenalty::None,
            Profile::Fide2005 => (3, TWO_MINUTES),
            Profile::FideStandard => (2, TWO_MINUTES),
            Profile::FideRapid | Profile::FideBlitz => (2, ONE_MINUTE),
        };
        if count >= losing_count {
            IllegalMovePenalty::Loss
        } else {
            IllegalMovePenalty::TimeToOpponent(minutes)
        }
    }

    /// An incorrect draw claim (9.5b of 2005, 9.5.3 of 2023): the time added
    /// to the opponent, and whether the claimant's own time is cut as 2005
    /// 9.5b says (half of it, at most three minutes, or down to one minute).
    pub(crate) fn incorrect_claim_penalty(self) -> (Millis, bool) {
        match self {
            Profile::Casual => (0, false),
            Profile::Fide2005 => (180_000, true),
            _ => (120_000, false),
        }
    }

    /// The article that counts illegal moves in this edition.
    pub(crate) fn illegal_move_article(self) -> &'static str {
        match self.edition() {
            LawEdition::Fide2005 => "7.4",
            LawEdition::Fide2023 => "7.5",
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown profile name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown rules profile {}: expected one of fide-standard, fide-rapid, fide-blitz, fide-2005, casual",
    super::echo::quoted(.name)
)]
pub struct UnknownProfile {
    pub name: String,
}

impl FromStr for Profile {
    type Err = UnknownProfile;

    fn from_str(s: &str) -> Result<Profile, UnknownProfile> {
        Profile::ALL
            .into_iter()
            .find(|p| p.name() == s.trim())
            .ok_or_else(|| UnknownProfile { name: s.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Profile::ALL {
            assert_eq!(p.name().parse::<Profile>().unwrap(), p);
        }
        let err = "fide".parse::<Profile>().unwrap_err().to_string();
        assert!(
            err.contains("\"fide\"") && err.contains("fide-2005"),
            "{err}"
        );
    }

    #[test]
    fn illegal_move_consequences_per_edition() {
        use IllegalMovePenalty::*;
        // 2005, 7.4b: +2 min, +2 min, then loss.
        assert_eq!(
            Profile::Fide2005.illegal_move_penalty(1),
            TimeToOpponent(120_000)
        );
        assert_eq!(
            Profile::Fide2005.illegal_move_penalty(2),
            TimeToOpponent(120_000)
        );
        assert_eq!(Profile::Fide2005.illegal_move_penalty(3), Loss);
        // 2023, 7.5.5: +2 min, then loss.
        assert_eq!(
            Profile::FideStandard.illegal_move_penalty(1),
            TimeToOpponent(120_000)
        );
        assert_eq!(Profile::FideStandard.illegal_move_penalty(2), Loss);
        // A.3 / B.3: one minute.
        assert_eq!(
            Profile::FideRapid.illegal_move_penalty(1),
            TimeToOpponent(60_000)
        );
        assert_eq!(
            Profile::FideBlitz.illegal_move_penalty(1),
            TimeToOpponent(60_000)
        );
        assert_eq!(Profile::FideBlitz.illegal_move_penalty(2), Loss);
        assert_eq!(Profile::Casual.illegal_move_penalty(9), None);
    }
}
