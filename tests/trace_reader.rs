//! The trace reader against `../shared/spec/trace-format.md`: every malformed
//! line is rejected with its file, line and what was expected, and whatever
//! the writer writes reads back unchanged.
use shakmaty::{Bitboard, Color, Role};
use touchmove_core::trace::{
    self, Header, LineError, Record, ScanKind, TimedRecord, Trace, TraceError, TraceReader,
};

const START: &str = "FFFF00000000FFFF";

fn hall_line(n: usize) -> String {
    let values: Vec<String> = (0..n).map(|i| (i as i32 * 37 - 1000).to_string()).collect();
    values.join(",")
}

/// Parses `text` expecting an error; returns its line and problem.
fn error_of(text: &str) -> (usize, LineError) {
    match trace::parse(text, "game.trace") {
        Ok(t) => panic!("accepted a malformed trace: {t:?}"),
        Err(TraceError::Malformed {
            file,
            line,
            problem,
        }) => {
            assert_eq!(file, "game.trace");
            (line, problem)
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

#[test]
fn the_spec_example_reads() {
    let text = "# touchmove-trace v1\n#! profile: fide-standard\n0 FFFF00000000FFFF\n1200 FFFF00000000EFFF\n1202 FFFF00000000FFFF\n\n1204 ffff00000000efff\n2300 clock white\n2301 promote n\n";
    let trace = trace::parse(text, "example.trace").unwrap();
    assert_eq!(trace.header.profile.as_deref(), Some("fide-standard"));
    assert_eq!(trace.header.start_fen, None);
    assert_eq!(trace.records.len(), 6);
    assert_eq!(
        trace.records[0],
        TimedRecord {
            t: 0,
            record: Record::Occupancy(Bitboard(0xFFFF_0000_0000_FFFF))
        }
    );
    // e2 is bit 12: lifting the e-pawn clears it.
    let Record::Occupancy(lifted) = trace.records[1].record else {
        panic!()
    };
    assert!(!lifted.contains(shakmaty::Square::E2));
    assert_eq!(lifted.count(), 31);
    assert_eq!(
        trace.records[3].record,
        Record::Occupancy(Bitboard(0xFFFF_0000_0000_EFFF))
    );
    assert_eq!(
        trace.records[4],
        TimedRecord {
            t: 2300,
            record: Record::Clock(Color::White)
        }
    );
    assert_eq!(
        trace.records[5],
        TimedRecord {
            t: 2301,
            record: Record::Promote(Role::Knight)
        }
    );
}

#[test]
fn blank_lines_comments_and_crlf_are_ignored() {
    let text = "\r\n# a comment\r\n   \r\n0 FFFF00000000FFFF\r\n# another, between records\r\n5 clock black\r\n";
    let trace = trace::parse(text, "t").unwrap();
    assert_eq!(trace.records.len(), 2);
    assert_eq!(trace.records[1].record, Record::Clock(Color::Black));
}

#[test]
fn equal_times_are_allowed() {
    let trace = trace::parse(&format!("7 {START}\n7 clock white\n7 {START}\n"), "t").unwrap();
    assert!(trace.records.iter().all(|r| r.t == 7));
}

#[test]
fn the_error_message_names_file_line_and_expectation() {
    let text = format!("{}0 {START}\n1200 FFFF0000000EFFF\n", "#\n".repeat(10));
    let err = trace::parse(&text, "game.trace").unwrap_err();
    assert_eq!(
        err.to_string(),
        "game.trace:12: expected 16 hexadecimal digits, found 15 (\"FFFF0000000EFFF\")"
    );
    assert_eq!(err.line(), Some(12));
}

#[test]
fn a_decreasing_time_is_rejected() {
    let (line, problem) = error_of(&format!("10 {START}\n9 {START}\n"));
    assert_eq!(line, 2);
    assert_eq!(
        problem,
        LineError::TimeDecreases {
            previous: 10,
            found: 9
        }
    );
    // A clock press counts for the order too.
    let (line, _) = error_of(&format!("0 {START}\n50 clock white\n49 {START}\n"));
    assert_eq!(line, 3);
}

#[test]
fn fifteen_or_seventeen_hex_digits_are_rejected() {
    let (line, problem) = error_of("0 FFFF0000000EFFF\n");
    assert_eq!(line, 1);
    assert_eq!(
        problem,
        LineError::HexDigitCount {
            count: 15,
            text: "FFFF0000000EFFF".into()
        }
    );
    let (_, problem) = error_of("0 FFFF00000000EFFF0\n");
    assert_eq!(
        problem,
        LineError::HexDigitCount {
            count: 17,
            text: "FFFF00000000EFFF0".into()
        }
    );
}

#[test]
fn non_hex_occupancy_is_rejected() {
    let (_, problem) = error_of("0 FFFF0000000GEFFF\n");
    assert_eq!(
        problem,
        LineError::NotHex {
            ch: 'G',
            text: "FFFF0000000GEFFF".into()
        }
    );
    let (_, problem) = error_of("0 0x0000000000FFFF\n");
    assert_eq!(
        problem,
        LineError::NotHex {
            ch: 'x',
            text: "0x0000000000FFFF".into()
        }
    );
}

#[test]
fn an_unknown_record_kind_is_rejected() {
    let (line, problem) = error_of(&format!("0 {START}\n3 resign white\n"));
    assert_eq!(line, 2);
    assert_eq!(problem, LineError::UnknownKind("resign".into()));
    let (_, problem) = error_of("3 Clock white\n");
    assert_eq!(problem, LineError::UnknownKind("Clock".into()));
}

#[test]
fn a_time_alone_is_rejected() {
    let (_, problem) = error_of("3\n");
    assert_eq!(problem, LineError::MissingRecord);
}

#[test]
fn clock_takes_only_white_or_black() {
    for bad in ["3 clock red", "3 clock", "3 clock White", "3 clock w"] {
        let (_, problem) = error_of(&format!("{bad}\n"));
        assert!(
            matches!(problem, LineError::BadClock(_)),
            "{bad}: {problem:?}"
        );
    }
    let (_, problem) = error_of("3 clock white black\n");
    assert_eq!(problem, LineError::Trailing("black".into()));
}

#[test]
fn promote_takes_only_q_r_b_n() {
    for bad in [
        "3 promote k",
        "3 promote p",
        "3 promote Q",
        "3 promote queen",
        "3 promote",
    ] {
        let (_, problem) = error_of(&format!("{bad}\n"));
        assert!(
            matches!(problem, LineError::BadPromotion(_)),
            "{bad}: {problem:?}"
        );
    }
    for (choice, role) in [
        ("q", Role::Queen),
        ("r", Role::Rook),
        ("b", Role::Bishop),
        ("n", Role::Knight),
    ] {
        let trace = trace::parse(&format!("3 promote {choice}\n"), "t").unwrap();
        assert_eq!(trace.records[0].record, Record::Promote(role));
    }
}

#[test]
fn hall_needs_exactly_64_signed_integers() {
    let (_, problem) = error_of(&format!("0 hall {}\n", hall_line(63)));
    assert_eq!(problem, LineError::AnalogCount(63));
    let (_, problem) = error_of(&format!("0 hall {}\n", hall_line(65)));
    assert_eq!(problem, LineError::AnalogCount(65));
    let (_, problem) = error_of("0 hall\n");
    assert_eq!(problem, LineError::AnalogCount(0));
    let mut values: Vec<String> = (0..64).map(|i| i.to_string()).collect();
    values[5] = "1.5".into();
    let (_, problem) = error_of(&format!("0 hall {}\n", values.join(",")));
    assert_eq!(
        problem,
        LineError::AnalogValue {
            index: 5,
            text: "1.5".into()
        }
    );
    values[5] = "99999999999".into();
    let (_, problem) = error_of(&format!("0 hall {}\n", values.join(",")));
    assert_eq!(
        problem,
        LineError::AnalogValue {
            index: 5,
            text: "99999999999".into()
        }
    );
    values[5] = "-7".into();
    let trace = trace::parse(&format!("0 hall {}\n", values.join(",")), "t").unwrap();
    let Record::Analog(read) = &trace.records[0].record else {
        panic!()
    };
    assert_eq!(read[5], -7);
    assert_eq!(read[63], 63);
}

#[test]
fn a_header_after_the_first_record_is_rejected() {
    let (line, problem) = error_of(&format!("#! profile: casual\n0 {START}\n#! board: sim\n"));
    assert_eq!(line, 3);
    assert_eq!(problem, LineError::LateHeader);
}

#[test]
fn an_unknown_header_key_is_rejected() {
    let (_, problem) = error_of("#! start-position: 8/8/8/8/8/8/8/8 w - - 0 1\n");
    assert_eq!(problem, LineError::UnknownHeader("start-position".into()));
    let (_, problem) = error_of("#! profile fide-standard\n");
    assert!(matches!(problem, LineError::BadHeader(_)));
    let (_, problem) = error_of("#! profile:\n");
    assert_eq!(problem, LineError::EmptyHeader("profile"));
    let (_, problem) = error_of("#! profile: casual\n#! profile: fide-blitz\n");
    assert_eq!(problem, LineError::DuplicateHeader("profile"));
}

#[test]
fn a_bad_start_fen_is_rejected() {
    let (_, problem) =
        error_of("#! start-fen: rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n");
    assert!(matches!(problem, LineError::BadFen { .. }), "{problem:?}");
    // X-FEN (Chess960 castling rights by file) is accepted.
    let trace = trace::parse(
        "#! start-fen: bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9\n",
        "t",
    )
    .unwrap();
    assert!(trace.header.start_fen.is_some());
}

#[test]
fn mixing_occupancy_and_hall_scans_is_rejected() {
    let (line, problem) = error_of(&format!(
        "0 {START}\n1 clock white\n2 hall {}\n",
        hall_line(64)
    ));
    assert_eq!(line, 3);
    assert_eq!(
        problem,
        LineError::MixedScans {
            first: ScanKind::Occupancy,
            first_line: 1,
            found: ScanKind::Analog
        }
    );
    let (line, problem) = error_of(&format!("0 hall {}\n2 {START}\n", hall_line(64)));
    assert_eq!(line, 2);
    assert_eq!(
        problem,
        LineError::MixedScans {
            first: ScanKind::Analog,
            first_line: 1,
            found: ScanKind::Occupancy
        }
    );
}

#[test]
fn a_time_that_is_not_a_non_negative_integer_is_rejected() {
    for bad in ["-1", "1.5", "+3", "1e3", "abc", "0x10"] {
        let (_, problem) = error_of(&format!("{bad} {START}\n"));
        assert_eq!(problem, LineError::BadTime(bad.into()), "{bad}");
    }
    // Past 2^64, and past the trace format's maximum of 2^53 - 1.
    for big in [
        "18446744073709551616",
        "18446744073709551615",
        "9007199254740992",
    ] {
        let (_, problem) = error_of(&format!("{big} {START}\n"));
        assert_eq!(problem, LineError::TimeTooLarge(big.into()), "{big}");
    }
    // A line that is only an occupancy has no time.
    let (_, problem) = error_of(&format!("{START}\n"));
    assert_eq!(problem, LineError::BadTime(START.into()));
}

#[test]
fn trailing_text_after_an_occupancy_is_rejected() {
    let (_, problem) = error_of(&format!("0 {START} extra\n"));
    assert_eq!(problem, LineError::Trailing("extra".into()));
}

#[test]
fn invalid_utf8_is_rejected_with_its_line() {
    let bytes = b"0 FFFF00000000FFFF\n1 clock wh\xffte\n";
    let err = TraceReader::new(&bytes[..], "bin.trace")
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap_err();
    assert_eq!(err.line(), Some(2));
    assert_eq!(err.problem(), Some(&LineError::NotUtf8));
}

fn sample_trace() -> Trace {
    let hall: Box<[i32; 64]> = Box::new(std::array::from_fn(|i| i as i32 * 1001 - 32000));
    Trace {
        header: Header {
            start_fen: Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".into()),
            profile: Some("fide-rapid".into()),
            board: Some("hall matrix: ADS1115 x16, profile club-2024".into()),
        },
        records: vec![
            TimedRecord {
                t: 0,
                record: Record::Analog(hall.clone()),
            },
            TimedRecord {
                t: 3,
                record: Record::Analog(Box::new([i32::MIN; 64])),
            },
            TimedRecord {
                t: 3,
                record: Record::Clock(Color::Black),
            },
            TimedRecord {
                t: 90,
                record: Record::Promote(Role::Bishop),
            },
            TimedRecord {
                t: 91,
                record: Record::Analog(Box::new([i32::MAX; 64])),
            },
        ],
    }
}

#[test]
fn writer_output_reads_back_unchanged() {
    let hall = sample_trace();
    assert_eq!(trace::parse(&hall.to_string(), "hall.trace").unwrap(), hall);

    let occupancy = Trace {
        header: Header {
            start_fen: None,
            profile: Some("casual".into()),
            board: None,
        },
        records: vec![
            TimedRecord {
                t: 0,
                record: Record::Occupancy(Bitboard(0xFFFF_0000_0000_FFFF)),
            },
            TimedRecord {
                t: 1,
                record: Record::Occupancy(Bitboard(0)),
            },
            TimedRecord {
                t: 1,
                record: Record::Occupancy(Bitboard(u64::MAX)),
            },
            TimedRecord {
                t: 2,
                record: Record::Clock(Color::White),
            },
            TimedRecord {
                // The latest time a trace may hold (2^53 - 1).
                t: trace::MAX_TIME_MS,
                record: Record::Occupancy(Bitboard(0x8000_0000_0000_0001)),
            },
        ],
    };
    assert_eq!(
        trace::parse(&occupancy.to_string(), "occ.trace").unwrap(),
        occupancy
    );
}

#[test]
fn read_reads_a_file_and_names_it_in_errors() {
    let dir = std::env::temp_dir().join(format!("touchmove-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.trace");
    std::fs::write(&good, sample_trace().to_string()).unwrap();
    assert_eq!(
        touchmove_hw::trace_file::read(&good).unwrap(),
        sample_trace()
    );

    let bad = dir.join("bad.trace");
    std::fs::write(&bad, "0 FFFF00000000FFFF\n1 clock\n").unwrap();
    let err = touchmove_hw::trace_file::read(&bad).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{}:2: ", bad.display())),
        "{err}"
    );

    let missing = dir.join("missing.trace");
    let err = touchmove_hw::trace_file::read(&missing).unwrap_err();
    assert!(matches!(err, TraceError::Io { .. }));
    assert!(err.to_string().contains("missing.trace"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_streaming_reader_gives_the_header_first_then_records() {
    let text = sample_trace().to_string();
    let mut reader = TraceReader::new(text.as_bytes(), "s.trace").unwrap();
    assert_eq!(reader.header(), &sample_trace().header);
    assert_eq!(reader.next().unwrap().unwrap().t, 0);
    assert_eq!(reader.by_ref().count(), 4);
    assert!(reader.next().is_none());

    // After an error the stream ends.
    let mut reader =
        TraceReader::new(&b"0 FFFF00000000FFFF\n1 bogus\n2 clock white\n"[..], "s").unwrap();
    assert!(reader.next().unwrap().is_ok());
    assert!(reader.next().unwrap().is_err());
    assert!(reader.next().is_none());

    // A header-only trace has no records.
    let reader = TraceReader::new(&b"#! board: sim\n"[..], "s").unwrap();
    assert_eq!(reader.header().board.as_deref(), Some("sim"));
    assert_eq!(reader.count(), 0);
}
