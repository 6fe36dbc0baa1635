//! Shared helpers of the inference tests: run synthesized traces through
//! the session and compare with the source moves.
#![allow(dead_code)]
use shakmaty::{Chess, Move, uci::UciMove};
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::Profile;
use touchmove_core::replay::{drive, session_for};
use touchmove_core::session::Session;
use touchmove_synth::{HandStyle, Synthesized};

pub struct Outcome {
    pub events: Vec<Event>,
    pub session: Session,
}

pub fn run(synth: &Synthesized, profile: Option<Profile>) -> Outcome {
    let mut session = session_for(&synth.trace, profile, None, None, None, None).unwrap();
    let events = drive(&mut session, &synth.trace, "synth").unwrap();
    Outcome { events, session }
}

/// The plies of the `move_completed` events, in order.
pub fn completed_plies(events: &[Event]) -> Vec<usize> {
    events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::MoveCompleted { ply } => Some(ply),
            _ => None,
        })
        .collect()
}

pub fn alerts(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::IllegalMove { .. }
                    | EventKind::TouchMove { .. }
                    | EventKind::Displaced { .. }
                    | EventKind::SensorFault { .. }
            )
        })
        .collect()
}

pub fn played_uci(session: &Session) -> Vec<String> {
    session
        .game()
        .moves()
        .iter()
        .map(|m| m.uci.to_string())
        .collect()
}

pub fn source_uci(start: &Chess, moves: &[Move]) -> Vec<String> {
    let mode = if touchmove_core::game::Start::from_fen(&touchmove_core::game::fen_of(start))
        .map(|s| s.is_chess960())
        .unwrap_or(false)
    {
        shakmaty::CastlingMode::Chess960
    } else {
        shakmaty::CastlingMode::Standard
    };
    moves
        .iter()
        .map(|m| UciMove::from_move(*m, mode).to_string())
        .collect()
}

/// Replays `moves` under `style` and checks the record equals the source
/// (up to where the Laws end the game) with no alert. Returns a
/// description of the first discrepancy.
pub fn check_clean(
    start: &Chess,
    moves: &[Move],
    style: &HandStyle,
    seed: u64,
) -> Result<(), String> {
    let synth = touchmove_synth::synthesize(start, moves, style, seed);
    check_synthesized(start, moves, &synth, style, seed)
}

/// [`check_clean`] on a trace already synthesized (perhaps read again at a
/// board's scan rate) from `moves` under `style` and `seed`.
pub fn check_synthesized(
    start: &Chess,
    moves: &[Move],
    synth: &Synthesized,
    style: &HandStyle,
    seed: u64,
) -> Result<(), String> {
    let out = run(synth, None);
    let played = played_uci(&out.session);
    let source = source_uci(start, moves);
    let alerts = alerts(&out.events);
    let ok_prefix = played.len() <= source.len() && played[..] == source[..played.len()];
    let complete = played.len() == source.len() || out.session.game().is_over();
    if !alerts.is_empty() || !ok_prefix || !complete {
        let first_bad = played
            .iter()
            .zip(&source)
            .position(|(a, b)| a != b)
            .unwrap_or(played.len().min(source.len()));
        return Err(format!(
            "style {} seed {seed}: played {} of {} plies, first difference at ply {}; alerts: {:?}\n{}",
            style.name,
            played.len(),
            source.len(),
            first_bad + 1,
            alerts
                .iter()
                .take(3)
                .map(|e| e.to_json())
                .collect::<Vec<_>>(),
            window(synth, &out.events, first_bad + 1)
        ));
    }
    Ok(())
}

fn window(synth: &Synthesized, events: &[Event], ply: usize) -> String {
    let Some(m) = synth.moves.get(ply.saturating_sub(1)) else {
        return String::new();
    };
    let (from, to) = (m.first_lift.saturating_sub(3000), m.last_release + 3000);
    let mut s = format!(
        "ply {ply} {} window {}..{}\n",
        m.uci, m.first_lift, m.last_release
    );
    for r in &synth.trace.records {
        if r.t >= from && r.t <= to {
            s.push_str(&format!("  {r}\n"));
        }
    }
    for e in events {
        if e.t_ms >= from && e.t_ms <= to {
            s.push_str(&format!("  > {}\n", e.to_json()));
        }
    }
    s
}

/// Writes traces by hand: pieces lifted and placed at given times.
pub struct Hands {
    pub occ: shakmaty::Bitboard,
    pub t: u64,
    pub trace: touchmove_core::trace::Trace,
}

impl Hands {
    pub fn new(start_fen: Option<&str>, profile: &str) -> Hands {
        use shakmaty::Position;
        let start = match start_fen {
            Some(f) => touchmove_core::game::Start::from_fen(f).unwrap(),
            None => touchmove_core::game::Start::standard(),
        };
        let occ = start.position().board().occupied();
        let mut trace = touchmove_core::trace::Trace::default();
        trace.header.profile = Some(profile.to_owned());
        trace.header.start_fen = start_fen.map(str::to_owned);
        let mut h = Hands { occ, t: 0, trace };
        h.push(touchmove_core::trace::Record::Occupancy(occ));
        h
    }

    fn push(&mut self, record: touchmove_core::trace::Record) {
        self.trace
            .records
            .push(touchmove_core::trace::TimedRecord { t: self.t, record });
    }

    pub fn wait(&mut self, ms: u64) -> &mut Hands {
        self.t += ms;
        self
    }

    fn sq(name: &str) -> shakmaty::Square {
        name.parse().unwrap()
    }

    pub fn lift(&mut self, square: &str) -> &mut Hands {
        self.occ.discard(Self::sq(square));
        self.push(touchmove_core::trace::Record::Occupancy(self.occ));
        self.wait(400)
    }

    pub fn place(&mut self, square: &str) -> &mut Hands {
        self.occ.add(Self::sq(square));
        self.push(touchmove_core::trace::Record::Occupancy(self.occ));
        self.wait(600)
    }

    /// Lifts the piece on `square`, then `ms` pass.
    pub fn lift_then(&mut self, square: &str, ms: u64) -> &mut Hands {
        self.occ.discard(Self::sq(square));
        self.push(touchmove_core::trace::Record::Occupancy(self.occ));
        self.wait(ms)
    }

    /// Lifts the pieces on `squares` in one scan, then `ms` pass.
    pub fn lift_together(&mut self, squares: &[&str], ms: u64) -> &mut Hands {
        for square in squares {
            self.occ.discard(Self::sq(square));
        }
        self.push(touchmove_core::trace::Record::Occupancy(self.occ));
        self.wait(ms)
    }

    /// Sets a piece down on `square`, then `ms` pass.
    pub fn place_then(&mut self, square: &str, ms: u64) -> &mut Hands {
        self.occ.add(Self::sq(square));
        self.push(touchmove_core::trace::Record::Occupancy(self.occ));
        self.wait(ms)
    }

    /// The sensors read again after a while unread: `emptied` and
    /// `filled` change in one scan, then `ms` pass.
    pub fn read_again_then(&mut self, emptied: &[&str], filled: &[&str], ms: u64) -> &mut Hands {
        for square in emptied {
            self.occ.discard(Self::sq(square));
        }
        for square in filled {
            self.occ.add(Self::sq(square));
        }
        self.push(touchmove_core::trace::Record::Occupancy(self.occ));
        self.wait(ms)
    }

    /// Presses `side`'s clock, then `ms` pass.
    pub fn clock_then(&mut self, side: shakmaty::Color, ms: u64) -> &mut Hands {
        self.push(touchmove_core::trace::Record::Clock(side));
        self.wait(ms)
    }

    /// Lift from one square and place on another (a carried piece).
    pub fn carry(&mut self, from: &str, to: &str) -> &mut Hands {
        self.lift(from).place(to)
    }

    pub fn clock(&mut self, side: shakmaty::Color) -> &mut Hands {
        self.push(touchmove_core::trace::Record::Clock(side));
        self.wait(500)
    }

    pub fn promote(&mut self, role: shakmaty::Role) -> &mut Hands {
        self.promote_then(role, 200)
    }

    /// Names the promoted piece, then `ms` pass.
    pub fn promote_then(&mut self, role: shakmaty::Role, ms: u64) -> &mut Hands {
        self.push(touchmove_core::trace::Record::Promote(role));
        self.wait(ms)
    }

    pub fn run(&self) -> Outcome {
        let mut session = session_for(&self.trace, None, None, None, None, None).unwrap();
        let events = drive(&mut session, &self.trace, "hands").unwrap();
        Outcome { events, session }
    }
}

pub fn kinds(events: &[Event]) -> Vec<&'static str> {
    events
        .iter()
        .map(|e| e.kind.name())
        .filter(|k| !k.starts_with("piece_"))
        .collect()
}
