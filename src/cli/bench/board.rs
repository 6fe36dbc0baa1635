//! A simulated board for the hall benchmark: a synthesized trace of a real
//! game run through the session in real time (sped up), its events handed
//! to a feed as the daemon's journal writer does, and published by the
//! daemon's own MQTT publisher. Unlike the daemon's scan loop it sleeps
//! until the next record or deadline instead of ticking, so that hundreds
//! of boards fit on a small machine.
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use touchmove_board::outputs::feed::Feed;
use touchmove_core::Millis;
use touchmove_core::events::Event;
use touchmove_core::session::Session;
use touchmove_core::trace::Trace;

/// Plays `trace` through `session` from `origin`, `speed` times faster than
/// real time, publishing each step's events to `feed`, until the trace
/// ends or `until` (a run at real-time speed may stop before its games
/// do). Returns how many events it published.
pub async fn play(
    mut session: Session,
    trace: &Trace,
    feed: Arc<Feed>,
    origin: Instant,
    speed: f64,
    until: Option<Instant>,
) -> anyhow::Result<u64> {
    let at = |t: Millis| origin + Duration::from_secs_f64(t as f64 / speed / 1000.0);
    let mut out: Vec<Event> = Vec::new();
    let mut published = 0;
    let mut records = trace.records.iter().enumerate().peekable();
    loop {
        let next_record = records.peek().map(|(_, r)| r.t);
        // Past the last record only the board's own timers matter (not
        // the clock's flag, hours away).
        let deadline = match next_record {
            Some(_) => session.next_deadline(),
            None => session.next_board_deadline(),
        };
        let t = match (next_record, deadline) {
            (None, None) => break,
            (Some(r), Some(d)) => r.min(d),
            (Some(r), None) => r,
            (None, Some(d)) => d,
        };
        if until.is_some_and(|u| at(t) > u) {
            break;
        }
        tokio::time::sleep_until(at(t)).await;
        if next_record == Some(t) {
            let (i, record) = records.next().expect("peeked");
            session
                .apply(record, &mut out)
                .map_err(|e| anyhow::anyhow!("record {}: {e}", i + 1))?;
        } else {
            session.advance(t, &mut out);
        }
        if !out.is_empty() {
            // As the journal writer does: the PGN first, then the events.
            feed.update_pgn(session.game());
            feed.publish(&out);
            published += out.len() as u64;
            out.clear();
        }
    }
    Ok(published)
}
