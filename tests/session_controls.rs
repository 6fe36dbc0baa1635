//! Decisions beside the board: resignation, draws and incorrect claims
//! (9.5), the arbiter's clock settings (6.14) and stopped clocks (6.13).
mod support;

use shakmaty::Color::{Black, White};
use support::Hands;
use touchmove_core::clock::TimeControl;
use touchmove_core::events::{Event, EventKind};
use touchmove_core::game::{DrawClaim, Profile};
use touchmove_core::inference::{Completion, InferenceConfig};
use touchmove_core::replay::drive;
use touchmove_core::session::{Session, SessionConfig};

fn session(profile: Profile, stop_clocks: bool) -> Session {
    Session::new(
        SessionConfig {
            profile,
            time_control: Some(TimeControl::parse_human("10+0").unwrap()),
            stop_clocks_on_alert: stop_clocks,
            inference: InferenceConfig {
                completion: Completion::ClockPress,
                ..InferenceConfig::default()
            },
            ..SessionConfig::default()
        },
        None,
    )
}

fn last_clock(events: &[Event]) -> (u64, u64, Option<String>) {
    events
        .iter()
        .rev()
        .find_map(|e| match &e.kind {
            EventKind::Clock {
                white_ms,
                black_ms,
                reason,
                ..
            } => Some((*white_ms, *black_ms, reason.clone())),
            _ => None,
        })
        .unwrap()
}

fn game_over(events: &[Event]) -> Option<(String, String)> {
    events.iter().find_map(|e| match &e.kind {
        EventKind::GameOver { result, reason } => Some((result.clone(), reason.clone())),
        _ => None,
    })
}

#[test]
fn an_incorrect_claim_in_2005_costs_three_minutes_and_half_the_claimants_time() {
    let mut h = Hands::new(None, "fide-2005");
    h.wait(1000).carry("e2", "e4").clock(White);
    let mut s = session(Profile::Fide2005, false);
    let mut events = drive(&mut s, &h.trace, "t").unwrap();
    let t = h.t;
    // Black claims a threefold repetition that is not there.
    assert!(!s.claim_draw(t, Black, DrawClaim::Threefold, &mut events));
    let (white, black, reason) = last_clock(&events);
    let black_before = 600_000 - (t - 2_000);
    assert_eq!(
        white,
        600_000 - 2_000 + 180_000,
        "three minutes to the opponent"
    );
    assert_eq!(
        black,
        black_before - 180_000,
        "half of the claimant's time, at most three minutes"
    );
    assert_eq!(reason.as_deref(), Some("penalty"));
    assert!(game_over(&events).is_none());
}

#[test]
fn a_correct_claim_ends_the_game_and_resignation_too() {
    let mut h = Hands::new(None, "fide-standard");
    h.wait(1000);
    for _ in 0..2 {
        h.carry("g1", "f3")
            .clock(White)
            .carry("g8", "f6")
            .clock(Black);
        h.carry("f3", "g1")
            .clock(White)
            .carry("f6", "g8")
            .clock(Black);
    }
    let mut s = session(Profile::FideStandard, false);
    let mut events = drive(&mut s, &h.trace, "t").unwrap();
    assert!(
        events.iter().any(
            |e| matches!(&e.kind, EventKind::DrawClaimable { reason } if reason == "threefold")
        )
    );
    assert!(s.claim_draw(h.t, White, DrawClaim::Threefold, &mut events));
    assert_eq!(
        game_over(&events),
        Some(("1/2-1/2".to_owned(), "threefold".to_owned()))
    );

    let mut s = session(Profile::FideStandard, false);
    let mut events = drive(&mut s, &Hands::new(None, "fide-standard").trace, "t").unwrap();
    assert!(s.resign(5_000, White, &mut events));
    assert_eq!(
        game_over(&events),
        Some(("0-1".to_owned(), "resignation".to_owned()))
    );
    assert!(!s.resign(6_000, Black, &mut events), "only once");
}

#[test]
fn the_arbiter_sets_the_clocks_with_a_reason() {
    let mut s = session(Profile::FideStandard, false);
    let mut events = drive(&mut s, &Hands::new(None, "fide-standard").trace, "t").unwrap();
    assert!(s.set_clocks(2_000, 300_000, 240_000, "clock malfunction", &mut events));
    assert_eq!(
        last_clock(&events),
        (300_000, 240_000, Some("adjust".to_owned()))
    );
    let log = s.clock().unwrap().log();
    assert!(format!("{log:?}").contains("clock malfunction"));
}

#[test]
fn the_clocks_stand_while_a_piece_is_displaced_when_the_arbiter_stops_them() {
    let mut h = Hands::new(None, "fide-standard");
    // Black's pawn a7 knocked off during White's turn, put back 4 s later.
    h.wait(1000).lift("a7").wait(4000).place("a7").wait(1000);
    let mut s = session(Profile::FideStandard, true);
    let events = drive(&mut s, &h.trace, "t").unwrap();
    let reasons: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Clock { reason, .. } => reason.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(reasons, ["start", "pause", "resume"]);
    let paused: u64 = s
        .clock()
        .unwrap()
        .pauses()
        .iter()
        .map(|p| p.to.unwrap() - p.from)
        .sum();
    assert!(
        (2_500..=3_000).contains(&paused),
        "the displaced time is recorded: {paused} ms"
    );
    let white = s.clock_state(h.t).unwrap().white_ms;
    assert_eq!(
        white,
        600_000 - (h.t - paused),
        "White's clock did not run while stopped"
    );
}
