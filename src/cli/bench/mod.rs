//! `touchmove bench`: load benchmarks that need real servers, run from
//! the command line (the divan benchmarks in `benches/` measure the core).
pub mod board;
pub mod hall;
pub mod jumps;

use clap::{Args, Subcommand};

/// Arguments of `touchmove bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: Bench,
}

#[derive(Debug, Subcommand)]
pub enum Bench {
    /// Many simulated boards replaying real games through one local
    /// Mosquitto into one `touchmove hall` process: messages per second,
    /// board-to-hall latency, lost and duplicated events.
    Hall(hall::HallBench),
    /// Moves the sensors did not read: the time to conclude a jump of a
    /// few plies at random points of real games (p50, p99), and the scan
    /// rate with lines left open beside the same play with none.
    Jumps(jumps::JumpBench),
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.what {
        Bench::Hall(args) => hall::run(args),
        Bench::Jumps(args) => jumps::run(args),
    }
}
