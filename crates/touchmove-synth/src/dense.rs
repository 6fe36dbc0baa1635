//! A trace as a board scanning at 1 kHz hands it over: one occupancy scan
//! every millisecond (most of them unchanged), the clock presses and
//! promotion choices at their times. What the scan-cost test and the
//! inference benchmark feed the session.
use shakmaty::Bitboard;
use touchmove_core::Millis;
use touchmove_core::events::Event;
use touchmove_core::filter::FilterError;
use touchmove_core::scan::Scan;
use touchmove_core::session::Session;
use touchmove_core::trace::{Record, Trace};

/// The scans and the other inputs of a trace, a scan every millisecond.
#[derive(Debug, Clone)]
pub struct DenseTrace {
    pub scans: Vec<(Millis, Bitboard)>,
    /// Clock presses and promotion choices.
    pub inputs: Vec<(Millis, Record)>,
}

impl DenseTrace {
    /// The 1 kHz reading of an occupancy trace (analog records are left out).
    pub fn of(trace: &Trace) -> DenseTrace {
        let mut scans = Vec::new();
        let mut inputs = Vec::new();
        let mut current = Bitboard::EMPTY;
        let mut t = 0;
        for r in &trace.records {
            while t < r.t {
                scans.push((t, current));
                t += 1;
            }
            match &r.record {
                Record::Occupancy(bb) => current = *bb,
                Record::Analog(_) => {}
                other => inputs.push((r.t, other.clone())),
            }
        }
        scans.push((t, current));
        DenseTrace { scans, inputs }
    }

    /// Hands every scan and input to `session` in time order; `out` is
    /// cleared after each scan (the caller measures work, not events).
    pub fn drive(&self, session: &mut Session, out: &mut Vec<Event>) -> Result<(), FilterError> {
        let mut next = 0;
        for &(t, occupancy) in &self.scans {
            while let Some((_, input)) = self.inputs.get(next).filter(|(at, _)| *at <= t) {
                match input {
                    Record::Clock(side) => session.clock_button(t, *side, out),
                    Record::Promote(role) => session.promote(t, *role, out),
                    Record::Occupancy(_) | Record::Analog(_) => {}
                }
                next += 1;
            }
            session.scan(t, &Scan::Occupancy(occupancy), out)?;
            out.clear();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Color;
    use touchmove_core::trace::parse;

    #[test]
    fn every_millisecond_is_a_scan_and_presses_keep_their_time() {
        let trace = parse(
            "0 FFFF00000000FFFF\n3 FFFF00000000EFFF\n5 clock white\n",
            "t",
        )
        .unwrap();
        let d = DenseTrace::of(&trace);
        assert_eq!(d.scans.len(), 6);
        assert_eq!(d.scans[2].1, Bitboard(0xFFFF_0000_0000_FFFF));
        assert_eq!(d.scans[3].1, Bitboard(0xFFFF_0000_0000_EFFF));
        assert_eq!(d.inputs, [(5, Record::Clock(Color::White))]);
    }
}
