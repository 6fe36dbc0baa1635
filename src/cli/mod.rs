//! The command line: one file per subcommand.
use clap::{Parser, Subcommand};

pub mod bench;
pub mod board;
pub mod calibrate;
pub mod hall;
pub mod journal;
pub mod pgn;
pub mod record;
pub mod replay;
pub mod synth;

/// touchmove: reads an occupancy-sensing chessboard and keeps an arbiter-grade game record.
#[derive(Debug, Parser)]
#[command(name = "touchmove", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check PGN files and write games back through the rules core.
    Pgn(pgn::PgnArgs),
    /// Run a sensor trace through the session in virtual time.
    Replay(replay::ReplayArgs),
    /// Run the daemon: a board (--config) or the demo, served over HTTP.
    Run(touchmove_board::daemon::RunArgs),
    /// Record raw scans from a board backend into a trace.
    Record(record::RecordArgs),
    /// Bring up a newly built board (`board check`): wiring, orientation, faults.
    Board(board::BoardArgs),
    /// Calibrate a Hall-sensor board.
    Calibrate(calibrate::CalibrateArgs),
    /// The arbiter's dashboard and the round's PGN for a hall of boards, read from MQTT.
    Hall(hall::HallArgs),
    /// Turn PGN games into raw sensor traces with a model of human hands.
    Synth(synth::SynthArgs),
    /// The game journal: list games, export one as PGN or JSON, check the file.
    Journal(journal::JournalArgs),
    /// Load benchmarks with real servers (`bench hall`: many boards, one hall).
    Bench(bench::BenchArgs),
}

/// Reads every game of a PGN file; each game is read or its first fault
/// named.
pub fn read_pgn_file(
    path: &std::path::Path,
) -> anyhow::Result<
    Vec<Result<touchmove_core::game::pgn::PgnGame, touchmove_core::game::pgn::PgnError>>,
> {
    use anyhow::Context as _;
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    touchmove_core::game::pgn::read_all(std::io::BufReader::new(file))
        .with_context(|| format!("cannot read {}", path.display()))
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Pgn(args) => pgn::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Run(args) => touchmove_board::daemon::run(args),
        Command::Record(args) => record::run(args),
        Command::Board(args) => board::run(args),
        Command::Calibrate(args) => calibrate::run(args),
        Command::Hall(args) => hall::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Journal(args) => journal::run(args),
        Command::Bench(args) => bench::run(args),
    }
}
