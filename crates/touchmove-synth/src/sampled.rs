//! A trace as a board scanning at a fixed period records it: the
//! occupancy read once every `period` milliseconds (contact bounce and
//! transients shorter than a scan seen or missed as the scan falls), the
//! scans written only where they change, clock presses and promotion
//! choices at their own times. The hands' traces are written to the
//! millisecond; `touchmove record` on a board at 100 Hz writes what this
//! gives for a period of 10 ms.
use touchmove_core::Millis;
use touchmove_core::trace::{Record, TimedRecord, Trace};

/// `trace` read every `period` ms (at least 1), from time 0 until one scan
/// after its last record. Analog records are left out.
pub fn sampled(trace: &Trace, period: Millis) -> Trace {
    let period = period.max(1);
    let records = &trace.records;
    let end = records.last().map_or(0, |r| r.t).saturating_add(period);
    let mut out: Vec<TimedRecord> = Vec::new();
    let mut current = None;
    let mut written = None;
    let mut next = 0;
    let mut tick: Millis = 0;
    while tick <= end {
        while next < records.len() && records[next].t <= tick {
            match &records[next].record {
                Record::Occupancy(bb) => current = Some(*bb),
                Record::Analog(_) => {}
                other => out.push(TimedRecord {
                    t: records[next].t,
                    record: other.clone(),
                }),
            }
            next += 1;
        }
        if let Some(bb) = current.filter(|bb| written != Some(*bb)) {
            out.push(TimedRecord {
                t: tick,
                record: Record::Occupancy(bb),
            });
            written = Some(bb);
        }
        tick += period;
    }
    // Presses and choices keep their times (one at a scan's time comes
    // before that scan).
    out.sort_by_key(|r| r.t);
    Trace {
        header: trace.header.clone(),
        records: out,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Bitboard, Color};

    fn occ(t: Millis, bits: u64) -> TimedRecord {
        TimedRecord {
            t,
            record: Record::Occupancy(Bitboard(bits)),
        }
    }

    fn trace(records: Vec<TimedRecord>) -> Trace {
        Trace {
            header: Default::default(),
            records,
        }
    }

    #[test]
    fn scans_fall_on_the_period_and_a_bounce_between_two_is_missed() {
        let t = trace(vec![
            occ(0, 0b1),
            occ(12, 0b11),
            occ(13, 0b1),
            occ(14, 0b11),
            occ(17, 0b1),
            occ(33, 0b100),
        ]);
        let s = sampled(&t, 10);
        let got: Vec<(Millis, u64)> = s
            .records
            .iter()
            .map(|r| match r.record {
                Record::Occupancy(bb) => (r.t, bb.0),
                _ => panic!("{r}"),
            })
            .collect();
        // Read at 0, 10, 20, 30, 40: the bounce at 12–17 is never read.
        assert_eq!(got, [(0, 0b1), (40, 0b100)]);
    }

    #[test]
    fn a_change_held_over_a_scan_is_read_at_that_scan() {
        let t = trace(vec![occ(0, 0b1), occ(12, 0b11), occ(25, 0b1)]);
        let s = sampled(&t, 10);
        let times: Vec<Millis> = s.records.iter().map(|r| r.t).collect();
        assert_eq!(times, [0, 20, 30]);
    }

    #[test]
    fn presses_keep_their_times_and_the_last_state_is_read() {
        let t = trace(vec![
            occ(0, 0b1),
            occ(5, 0b10),
            TimedRecord {
                t: 7,
                record: Record::Clock(Color::White),
            },
        ]);
        let s = sampled(&t, 10);
        assert!(
            s.records
                .iter()
                .any(|r| r.t == 7 && r.record == Record::Clock(Color::White))
        );
        assert_eq!(
            s.records.last().map(|r| r.record.clone()),
            Some(Record::Occupancy(Bitboard(0b10)))
        );
        assert!(s.records.windows(2).all(|w| w[0].t <= w[1].t));
    }
}
