//! The chess clock in virtual time: every time control, flags, pauses,
//! penalties, adjustments, and the time control parsers.
use shakmaty::{ByColor, Color};
use touchmove_core::Millis;
use touchmove_core::clock::{
    Bonus, Change, Clock, ClockError, Completed, DelayKind, ErrorKind, FlagReport, IgnoreReason,
    InvalidTimeControl, PauseReason, Press, SetTimes, Source, TimeControl, TimeControlTag,
    TimeReason, format_clk, format_emt,
};

const SEC: Millis = 1000;
const MIN: Millis = 60 * SEC;

fn human(s: &str) -> TimeControl {
    TimeControl::parse_human(s).unwrap_or_else(|e| panic!("{e}"))
}

fn clock(s: &str) -> Clock {
    Clock::new(human(s), Source::Internal)
}

fn completed(p: Press) -> Completed {
    match p {
        Press::Completed(c) => c,
        Press::Ignored { by, reason } => panic!("press by {by:?} ignored: {reason:?}"),
    }
}

fn press(c: &mut Clock, t: Millis, by: Color) -> Completed {
    completed(c.press(t, by).expect("time goes forward"))
}

// ---------------------------------------------------------------- parsing

#[test]
fn human_form_reads_minutes_and_bonus_seconds() {
    let tc = human("90+30");
    assert_eq!(tc.periods().len(), 1);
    assert_eq!(tc.periods()[0].time_ms, 90 * MIN);
    assert_eq!(tc.periods()[0].moves, None);
    assert_eq!(tc.periods()[0].bonus, Bonus::Increment(30 * SEC));

    let tc = human("5+3");
    assert_eq!(tc.periods()[0].time_ms, 5 * MIN);
    assert_eq!(tc.periods()[0].bonus, Bonus::Increment(3 * SEC));

    let tc = human("0.5");
    assert_eq!(tc.periods()[0].time_ms, 30 * SEC);
    assert_eq!(tc.periods()[0].bonus, Bonus::None);
}

#[test]
fn human_form_bonus_applies_to_every_period_from_move_1() {
    let tc = human("40/90,30+30");
    let p = tc.periods();
    assert_eq!(p.len(), 2);
    assert_eq!(p[0].moves.map(|n| n.get()), Some(40));
    assert_eq!(p[0].time_ms, 90 * MIN);
    assert_eq!(p[0].bonus, Bonus::Increment(30 * SEC));
    assert_eq!(p[1].moves, None);
    assert_eq!(p[1].time_ms, 30 * MIN);
    assert_eq!(p[1].bonus, Bonus::Increment(30 * SEC));
    assert_eq!(tc.to_pgn(), "40/5400+30:1800+30");
    assert_eq!(tc.to_human().as_deref(), Some("40/90,30+30"));
    assert_eq!(
        tc.to_string(),
        "40 moves in 90 min, then 30 min for the rest of the game, +30 s per move from move 1"
    );
}

#[test]
fn human_form_delays() {
    let simple = human("120d5");
    assert_eq!(
        simple.periods()[0].bonus,
        Bonus::Delay {
            kind: DelayKind::Simple,
            ms: 5 * SEC
        }
    );
    let bronstein = human("90b10");
    assert_eq!(
        bronstein.periods()[0].bonus,
        Bonus::Delay {
            kind: DelayKind::Bronstein,
            ms: 10 * SEC
        }
    );
    assert_eq!(simple.to_pgn(), "7200d5");
    assert_eq!(bronstein.to_pgn(), "5400b10");
    assert_eq!(
        human("40/90,30d5").to_human().as_deref(),
        Some("40/90,30d5")
    );
}

fn human_err(s: &str) -> (String, ErrorKind, String) {
    let e = TimeControl::parse_human(s).expect_err(s);
    (e.part.clone(), e.kind, e.to_string())
}

fn pgn_err(s: &str) -> (String, ErrorKind, String) {
    let e = TimeControl::parse_pgn(s).expect_err(s);
    (e.part.clone(), e.kind, e.to_string())
}

#[test]
fn human_form_error_names_the_bad_minutes() {
    let (part, kind, msg) = human_err("40/90,3x+30");
    assert_eq!(part, "3x");
    assert_eq!(kind, ErrorKind::NotMinutes);
    assert_eq!(msg, r#"in "40/90,3x+30": "3x" is not a number of minutes"#);

    let (part, kind, _) = human_err("ninety+30");
    assert_eq!((part.as_str(), kind), ("ninety", ErrorKind::NotMinutes));
    let (part, kind, _) = human_err("1.2345");
    assert_eq!((part.as_str(), kind), ("1.2345", ErrorKind::NotMinutes));
}

#[test]
fn human_form_error_names_the_bad_move_count() {
    let (part, kind, msg) = human_err("4O/90,30");
    assert_eq!((part.as_str(), kind), ("4O", ErrorKind::NotMoves));
    assert!(msg.contains(r#""4O" is not a number of moves"#), "{msg}");
    let (part, kind, _) = human_err("0/90,30");
    assert_eq!((part.as_str(), kind), ("0", ErrorKind::NotMoves));
}

#[test]
fn human_form_error_names_the_bad_bonus() {
    let (part, kind, msg) = human_err("90+3s");
    assert_eq!((part.as_str(), kind), ("3s", ErrorKind::NotSeconds));
    assert_eq!(msg, r#"in "90+3s": "3s" is not a number of seconds"#);
    let (part, kind, _) = human_err("90+");
    assert_eq!((part.as_str(), kind), ("90+", ErrorKind::MissingBonus('+')));
    let (_, kind, _) = human_err("90d0");
    assert_eq!(kind, ErrorKind::Invalid(InvalidTimeControl::ZeroDelay));
}

#[test]
fn human_form_error_names_the_bad_period() {
    let (part, kind, msg) = human_err("90,30+30");
    assert_eq!(part, "90");
    assert_eq!(
        kind,
        ErrorKind::Invalid(InvalidTimeControl::PeriodAfterRestOfGame(1))
    );
    assert!(
        msg.starts_with(r#"in "90,30+30": "90": period 1 has no move count"#),
        "{msg}"
    );
    let (_, kind, msg) = human_err("40/90,,30");
    assert_eq!(kind, ErrorKind::EmptyPeriod(2));
    assert_eq!(msg, r#"in "40/90,,30": period 2 is empty"#);
    let (part, kind, _) = human_err("0+5");
    assert_eq!(part, "0");
    assert_eq!(kind, ErrorKind::Invalid(InvalidTimeControl::NoStartingTime));
    assert_eq!(human_err("  ").1, ErrorKind::Empty);
}

fn pgn(s: &str) -> TimeControl {
    match TimeControl::parse_pgn(s) {
        Ok(TimeControlTag::Timed(tc)) => tc,
        other => panic!("{s}: {other:?}"),
    }
}

#[test]
fn pgn_forms_read_as_the_standard_says() {
    let tc = pgn("5400+30");
    assert_eq!(tc.periods()[0].time_ms, 90 * MIN);
    assert_eq!(tc.periods()[0].bonus, Bonus::Increment(30 * SEC));

    // The increment written on the second field only belongs to it.
    let tc = pgn("40/5400:1800+30");
    assert_eq!(tc.periods()[0].bonus, Bonus::None);
    assert_eq!(tc.periods()[1].bonus, Bonus::Increment(30 * SEC));
    assert_eq!(tc.periods()[1].time_ms, 30 * MIN);
    assert_eq!(tc.to_human(), None);

    assert_eq!(TimeControl::parse_pgn("-"), Ok(TimeControlTag::Untimed));
    assert_eq!(TimeControl::parse_pgn("?"), Ok(TimeControlTag::Unknown));
}

#[test]
fn pgn_forms_round_trip() {
    for s in [
        "?",
        "-",
        "300",
        "300+0",
        "180+2",
        "5400+30",
        "40/5400:1800+30",
        "40/5400+30:1800+30",
        "40/7200:20/3600:1800",
        "40/9000",
        "5400d5",
        "5400b10",
        "1.5+0.25",
    ] {
        let tag = TimeControl::parse_pgn(s).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(tag.to_pgn(), s);
    }
}

#[test]
fn pgn_form_errors_name_the_bad_part() {
    let (part, kind, msg) = pgn_err("40/5400:abc");
    assert_eq!((part.as_str(), kind), ("abc", ErrorKind::NotSeconds));
    assert_eq!(msg, r#"in "40/5400:abc": "abc" is not a number of seconds"#);
    let (part, kind, _) = pgn_err("5400+");
    assert_eq!(
        (part.as_str(), kind),
        ("5400+", ErrorKind::MissingBonus('+'))
    );
    let (part, kind, _) = pgn_err("*180");
    assert_eq!((part.as_str(), kind), ("*180", ErrorKind::Sandclock));
    let (_, kind, _) = pgn_err("40/5400::1800");
    assert_eq!(kind, ErrorKind::EmptyPeriod(2));
    let (part, kind, _) = pgn_err("5400:1800");
    assert_eq!(part, "5400");
    assert_eq!(
        kind,
        ErrorKind::Invalid(InvalidTimeControl::PeriodAfterRestOfGame(1))
    );
    let (part, kind, _) = pgn_err("x40/5400");
    assert_eq!((part.as_str(), kind), ("x40", ErrorKind::NotMoves));
    let (part, kind, _) = pgn_err("99999999999999999999");
    assert_eq!(
        (part.as_str(), kind),
        ("99999999999999999999", ErrorKind::TooLarge)
    );
    assert_eq!(pgn_err("").1, ErrorKind::Empty);
}

#[test]
fn period_after_counts_moves_through_repeats() {
    let tc = pgn("40/7200:20/3600");
    assert_eq!(tc.period_after(0), (0, 0));
    assert_eq!(tc.period_after(39), (0, 39));
    assert_eq!(tc.period_after(40), (1, 0));
    assert_eq!(tc.period_after(60), (2, 0));
    assert_eq!(tc.period_after(85), (3, 5));
    assert!(
        !tc.is_last_period(5),
        "a repeating period is never the last"
    );
    let tc = pgn("40/5400:1800");
    assert!(!tc.is_last_period(0));
    assert!(tc.is_last_period(1));
}

// ---------------------------------------------------------------- the clock

#[test]
fn whites_clock_starts_and_runs_alone() {
    let mut c = clock("5");
    assert_eq!(c.next_deadline(), None);
    let s = c.start(1_000).unwrap();
    assert_eq!(s.running, Some(Color::White));
    let s = c.state(11_000);
    assert_eq!(s.white_ms, 5 * MIN - 10 * SEC);
    assert_eq!(s.black_ms, 5 * MIN);
    assert_eq!(c.start(12_000), Err(ClockError::AlreadyStarted));
}

#[test]
fn a_press_stops_the_movers_clock_and_starts_the_opponents() {
    let mut c = clock("5");
    c.start(0).unwrap();
    let done = press(&mut c, 7_000, Color::White);
    assert_eq!(done.side, Color::White);
    assert_eq!(done.move_number, 1);
    assert_eq!(done.used_ms, 7_000);
    assert_eq!(done.remaining_ms, 5 * MIN - 7_000);
    let s = c.state(10_000);
    assert_eq!(s.running, Some(Color::Black));
    assert_eq!(s.white_ms, 5 * MIN - 7_000);
    assert_eq!(s.black_ms, 5 * MIN - 3_000);
    assert_eq!(s.moves, ByColor { white: 1, black: 0 });
}

#[test]
fn wrong_player_and_second_presses_are_ignored_and_said() {
    let mut c = clock("5");
    assert_eq!(
        c.press(0, Color::White),
        Ok(Press::Ignored {
            by: Color::White,
            reason: IgnoreReason::NotStarted
        })
    );
    c.start(0).unwrap();
    assert_eq!(
        c.press(1_000, Color::Black),
        Ok(Press::Ignored {
            by: Color::Black,
            reason: IgnoreReason::WrongPlayer
        })
    );
    press(&mut c, 2_000, Color::White);
    let before = c.state(2_500);
    assert_eq!(
        c.press(2_500, Color::White),
        Ok(Press::Ignored {
            by: Color::White,
            reason: IgnoreReason::SecondPress
        })
    );
    assert_eq!(c.state(2_500), before, "an ignored press changes nothing");
    assert_eq!(c.state(3_000).black_ms, 5 * MIN - 1_000);
}

#[test]
fn flag_falls_at_exactly_zero() {
    let mut c = clock("5");
    c.start(0).unwrap();
    assert_eq!(c.next_deadline(), Some(5 * MIN));
    assert_eq!(c.advance(5 * MIN - 1), Ok(vec![]));
    assert_eq!(c.state(5 * MIN - 1).white_ms, 1);
    assert!(!c.state(5 * MIN - 1).flag_fallen.white);
    assert_eq!(
        c.advance(5 * MIN),
        Ok(vec![FlagReport::Flag {
            color: Color::White,
            at: 5 * MIN
        }])
    );
    assert_eq!(c.advance(6 * MIN), Ok(vec![]), "reported once");
    assert_eq!(c.next_deadline(), None);
    assert_eq!(c.flag_fallen(Color::White), Some(5 * MIN));
    assert!(c.state(6 * MIN).flag_fallen.white);
    assert_eq!(c.state(6 * MIN).white_ms, 0);
}

#[test]
fn a_late_advance_reports_the_exact_ms_of_the_fall() {
    let mut c = clock("1");
    c.start(500).unwrap();
    assert_eq!(
        c.advance(5 * MIN),
        Ok(vec![FlagReport::Flag {
            color: Color::White,
            at: MIN + 500
        }])
    );
}

#[test]
fn a_flag_passed_by_a_press_is_still_reported() {
    let mut c = clock("1");
    c.start(0).unwrap();
    press(&mut c, MIN, Color::White); // pressed at exactly 0 left: fallen
    assert_eq!(c.next_deadline(), Some(MIN));
    assert_eq!(
        c.advance(MIN + 10),
        Ok(vec![FlagReport::Flag {
            color: Color::White,
            at: MIN
        }])
    );
}

#[test]
fn increment_is_added_after_the_press_from_move_1() {
    let mut c = clock("5+3");
    c.start(0).unwrap();
    assert_eq!(
        c.state(10_000).white_ms,
        5 * MIN - 10_000,
        "not before the press"
    );
    let done = press(&mut c, 10_000, Color::White);
    assert_eq!(done.bonus_ms, 3_000);
    assert_eq!(done.remaining_ms, 5 * MIN - 10_000 + 3_000);
    let done = press(&mut c, 11_000, Color::Black);
    assert_eq!(
        done.remaining_ms,
        5 * MIN - 1_000 + 3_000,
        "more than it started with"
    );
    assert_eq!(c.next_deadline(), Some(11_000 + 5 * MIN - 7_000));
}

#[test]
fn bronstein_gives_back_the_time_used_up_to_the_delay() {
    let delay = 5 * SEC;
    let mut c = clock("5b5");
    c.start(0).unwrap();
    let mut t = 0;
    let mut side = Color::White;
    for used in [0, 1, 3_000, 4_999, 5_000, 5_001, 8_000, 60_000] {
        let before = c.state(t).ms(side);
        // The time runs down during the delay.
        if used > 0 {
            assert_eq!(c.state(t + used).ms(side), before - used);
        }
        t += used;
        let done = press(&mut c, t, side);
        assert_eq!(done.bonus_ms, used.min(delay));
        assert_eq!(done.remaining_ms, before - used + used.min(delay));
        assert!(
            done.remaining_ms <= before,
            "never more than before the move"
        );
        side = !side;
    }
}

#[test]
fn simple_delay_does_not_run_the_main_time_during_the_delay() {
    let mut c = clock("5d5");
    c.start(0).unwrap();
    let s = c.state(4_999);
    assert_eq!(s.white_ms, 5 * MIN);
    assert_eq!(s.delay_left_ms, 1);
    assert_eq!(c.state(5_000).white_ms, 5 * MIN);
    assert_eq!(c.state(5_001).white_ms, 5 * MIN - 1);
    assert_eq!(c.state(8_000).delay_left_ms, 0);
    // A press within the delay keeps the main time; one after loses the rest.
    let done = press(&mut c, 4_000, Color::White);
    assert_eq!((done.bonus_ms, done.remaining_ms), (0, 5 * MIN));
    let done = press(&mut c, 4_000 + 8_000, Color::Black);
    assert_eq!(done.remaining_ms, 5 * MIN - 3_000);
    // The flag falls when the delay and then the main time are used up.
    assert_eq!(c.next_deadline(), Some(12_000 + 5_000 + 5 * MIN));
    assert_eq!(c.advance(12_000 + 5_000 + 5 * MIN - 1), Ok(vec![]));
    assert_eq!(
        c.advance(12_000 + 5_000 + 5 * MIN),
        Ok(vec![FlagReport::Flag {
            color: Color::White,
            at: 12_000 + 5_000 + 5 * MIN
        }])
    );
}

#[test]
fn the_next_period_adds_its_time_to_the_time_saved() {
    let mut c = clock("40/90,30");
    c.start(0).unwrap();
    let mut t = 0;
    // White uses 85 minutes over 40 moves; Black answers at once.
    let per_move = 85 * MIN / 40;
    for n in 1..=40 {
        t += per_move;
        let done = press(&mut c, t, Color::White);
        if n < 40 {
            assert_eq!(done.entered_period, None);
            assert_eq!(c.period(Color::White), 0);
        } else {
            assert_eq!(done.entered_period, Some(1));
            assert_eq!(done.remaining_ms, 5 * MIN + 30 * MIN);
        }
        t += 1;
        press(&mut c, t, Color::Black);
    }
    assert_eq!(c.state(t).white_ms, 35 * MIN);
    assert!(c.is_last_period(Color::White));
    assert!(c.is_last_period(Color::Black));
}

#[test]
fn a_last_period_with_a_move_count_repeats() {
    let mut c = clock("2/10,1/5");
    c.start(0).unwrap();
    let mut t = 0;
    let mut entered = Vec::new();
    for _ in 0..4 {
        t += MIN;
        entered.push(press(&mut c, t, Color::White).entered_period);
        t += SEC;
        press(&mut c, t, Color::Black);
    }
    assert_eq!(entered, [None, Some(1), Some(2), Some(3)]);
    // 10 min, then 5 min at each of moves 2, 3 and 4; 4 min used.
    assert_eq!(c.state(t).white_ms, 21 * MIN);
    assert!(!c.is_last_period(Color::White));
}

#[test]
fn increments_from_move_1_are_carried_with_the_saved_time() {
    let mut c = clock("40/90,30+30");
    c.start(0).unwrap();
    let mut t = 0;
    for _ in 0..40 {
        t += 2 * MIN;
        press(&mut c, t, Color::White);
        t += SEC;
        press(&mut c, t, Color::Black);
    }
    // 90 - 80 min used + 40 × 30 s + 30 min.
    assert_eq!(c.state(t).white_ms, 10 * MIN + 20 * MIN + 30 * MIN);
    assert_eq!(c.state(t).period, ByColor { white: 1, black: 1 });
}

#[test]
fn both_flags_in_a_period_that_is_not_the_last() {
    let mut c = clock("40/90,30");
    c.start(0).unwrap();
    assert_eq!(
        c.advance(90 * MIN),
        Ok(vec![FlagReport::Flag {
            color: Color::White,
            at: 90 * MIN
        }])
    );
    assert!(!c.is_last_period(Color::White));
    // The rules let play go on; White presses late, then Black's flag falls.
    let done = press(&mut c, 91 * MIN, Color::White);
    assert_eq!(done.remaining_ms, 0);
    assert_eq!(
        c.advance(200 * MIN),
        Ok(vec![FlagReport::BothFlags {
            color: Color::Black,
            at: 91 * MIN + 90 * MIN,
            last_period: false
        }])
    );
}

#[test]
fn both_flags_in_the_last_period() {
    let mut c = clock("1+1");
    c.start(0).unwrap();
    assert_eq!(c.advance(MIN).unwrap().len(), 1);
    // The increment after the fall does not raise the flag.
    let done = press(&mut c, MIN + 500, Color::White);
    assert_eq!(done.remaining_ms, SEC);
    assert!(c.state(MIN + 500).flag_fallen.white);
    assert_eq!(
        c.advance(3 * MIN),
        Ok(vec![FlagReport::BothFlags {
            color: Color::Black,
            at: MIN + 500 + MIN,
            last_period: true
        }])
    );
}

#[test]
fn a_new_period_raises_a_fallen_flag() {
    let mut c = clock("1/1,30");
    c.start(0).unwrap();
    assert_eq!(c.advance(2 * MIN).unwrap().len(), 1);
    let done = press(&mut c, 2 * MIN, Color::White);
    assert_eq!(done.entered_period, Some(1));
    assert_eq!(done.remaining_ms, 30 * MIN);
    assert_eq!(c.flag_fallen(Color::White), None);
}

#[test]
fn penalty_time_goes_to_the_opponent_and_is_logged() {
    let mut c = clock("5");
    c.start(0).unwrap();
    // White completed an illegal move: Black gets two minutes (7.4b).
    press(&mut c, 10_000, Color::White);
    let after = c
        .add_time(12_000, Color::Black, 2 * MIN, TimeReason::IllegalMove)
        .unwrap();
    assert_eq!(after.black_ms, 5 * MIN - 2_000 + 2 * MIN);
    assert_eq!(after.white_ms, 5 * MIN - 10_000);
    assert_eq!(c.state(20_000).black_ms, 7 * MIN - 10_000, "still running");
    assert_eq!(c.next_deadline(), Some(10_000 + 7 * MIN));
    let entry = &c.log()[0];
    assert_eq!(entry.at, 12_000);
    assert_eq!(entry.before.black_ms, 5 * MIN - 2_000);
    assert_eq!(entry.after, after);
    assert_eq!(
        entry.change,
        Change::Added {
            color: Color::Black,
            ms: 2 * MIN,
            reason: TimeReason::IllegalMove
        }
    );
}

#[test]
fn time_given_after_the_flag_raises_it_and_time_taken_to_zero_drops_it() {
    let mut c = clock("1");
    c.start(0).unwrap();
    c.advance(2 * MIN).unwrap();
    let s = c
        .add_time(
            2 * MIN,
            Color::White,
            MIN,
            TimeReason::Other("clock fault".into()),
        )
        .unwrap();
    assert_eq!(s.white_ms, MIN);
    assert!(!s.flag_fallen.white);
    assert_eq!(c.next_deadline(), Some(3 * MIN));
    let s = c
        .deduct_time(2 * MIN, Color::Black, 5 * MIN, TimeReason::Penalty)
        .unwrap();
    assert_eq!(s.black_ms, 0);
    assert_eq!(
        c.advance(2 * MIN),
        Ok(vec![FlagReport::Flag {
            color: Color::Black,
            at: 2 * MIN
        }])
    );
}

#[test]
fn a_pause_is_not_thinking_time() {
    let mut c = clock("5");
    c.start(0).unwrap();
    let s = c.pause(10_000, PauseReason::Arbiter).unwrap();
    assert_eq!(
        (s.running, s.turn, s.paused),
        (None, Some(Color::White), true)
    );
    assert_eq!(c.next_deadline(), None);
    assert_eq!(c.advance(10 * MIN), Ok(vec![]), "no flag while stopped");
    assert_eq!(c.state(10 * MIN).white_ms, 5 * MIN - 10_000);
    assert_eq!(
        c.press(10 * MIN, Color::White),
        Ok(Press::Ignored {
            by: Color::White,
            reason: IgnoreReason::Paused
        })
    );
    c.resume(10 * MIN).unwrap();
    assert_eq!(c.next_deadline(), Some(10 * MIN + 5 * MIN - 10_000));
    let done = press(&mut c, 10 * MIN + 10_000, Color::White);
    assert_eq!(done.used_ms, 20_000);
    assert_eq!(format_emt(done.used_ms), "0:00:20");
    assert_eq!(c.paused_ms(11 * MIN), 10 * MIN - 10_000);
    let p = &c.pauses()[0];
    assert_eq!(
        (p.from, p.to, p.side),
        (10_000, Some(10 * MIN), Color::White)
    );
    assert_eq!(c.resume(11 * MIN), Err(ClockError::NotPaused));
}

#[test]
fn a_pause_keeps_what_is_left_of_a_simple_delay() {
    let mut c = clock("5d5");
    c.start(0).unwrap();
    c.pause(3_000, PauseReason::PlayerSeeksArbiter(Color::White))
        .unwrap();
    c.resume(60_000).unwrap();
    let s = c.state(61_999);
    assert_eq!((s.white_ms, s.delay_left_ms), (5 * MIN, 1));
    assert_eq!(c.state(62_500).white_ms, 5 * MIN - 500);
    assert_eq!(c.next_deadline(), Some(62_000 + 5 * MIN));
}

#[test]
fn the_arbiter_sets_times_and_move_counter() {
    let mut c = clock("40/90,30");
    c.start(0).unwrap();
    press(&mut c, MIN, Color::White);
    let set = SetTimes {
        white_ms: 20 * MIN,
        black_ms: 10 * MIN,
        moves: Some(ByColor {
            white: 40,
            black: 39,
        }),
    };
    let s = c
        .adjust(2 * MIN, set, "moves restored after an illegal move")
        .unwrap();
    assert_eq!((s.white_ms, s.black_ms), (20 * MIN, 10 * MIN));
    assert_eq!(s.period, ByColor { white: 1, black: 0 });
    assert_eq!(
        s.moves,
        ByColor {
            white: 40,
            black: 39
        }
    );
    // Black's clock runs on from the value set.
    assert_eq!(c.state(3 * MIN).black_ms, 9 * MIN);
    let done = press(&mut c, 3 * MIN, Color::Black);
    assert_eq!(done.entered_period, Some(1));
    assert_eq!(done.remaining_ms, 9 * MIN + 30 * MIN);
    let entry = &c.log()[0];
    assert_eq!(entry.before.black_ms, 90 * MIN - MIN);
    assert_eq!(
        entry.change,
        Change::Set {
            times: set,
            reason: "moves restored after an illegal move".into()
        }
    );
}

#[test]
fn time_cannot_go_back_and_a_finished_clock_ignores_presses() {
    let mut c = clock("5");
    c.start(1_000).unwrap();
    assert_eq!(
        c.press(500, Color::White),
        Err(ClockError::TimeWentBack { t: 500, now: 1_000 })
    );
    let s = c.finish(11_000).unwrap();
    assert_eq!((s.running, s.white_ms), (None, 5 * MIN - 10_000));
    assert_eq!(c.state(60_000).white_ms, 5 * MIN - 10_000, "frozen");
    assert_eq!(c.next_deadline(), None);
    assert_eq!(
        c.press(12_000, Color::White),
        Ok(Press::Ignored {
            by: Color::White,
            reason: IgnoreReason::Finished
        })
    );
}

#[test]
fn clk_times_are_truncated_to_whole_seconds() {
    assert_eq!(format_clk(0), "0:00:00");
    assert_eq!(format_clk(999), "0:00:00");
    assert_eq!(format_clk(1_000), "0:00:01");
    assert_eq!(format_clk(59 * MIN + 59_999), "0:59:59");
    assert_eq!(format_clk(90 * MIN), "1:30:00");
    assert_eq!(format_clk(10 * 60 * MIN + 61_000), "10:01:01");
    assert_eq!(format_emt(7_400), "0:00:07");
}
