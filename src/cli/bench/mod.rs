//! `touchmove bench`: load benchmarks that need real servers, run from
//! the command line (the divan benchmarks in `benches/` measure the core).
pub mod board;
#[cfg(feature = "bench-hall")]
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
    #[cfg(feature = "bench-hall")]
    Hall(hall::HallBench),
    /// The hall's load benchmark (this build has none: it starts a private
    /// Mosquitto, which the release binary does not carry; build with
    /// `--features bench-hall`).
    #[cfg(not(feature = "bench-hall"))]
    #[command(disable_help_flag = true)]
    Hall {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        args: Vec<String>,
    },
    /// Moves the sensors did not read: the time to conclude a jump of a
    /// few plies at random points of real games (p50, p99), and the scan
    /// rate with lines left open beside the same play with none.
    Jumps(jumps::JumpBench),
}

pub fn run(args: BenchArgs) -> anyhow::Result<()> {
    match args.what {
        #[cfg(feature = "bench-hall")]
        Bench::Hall(args) => hall::run(args),
        #[cfg(not(feature = "bench-hall"))]
        Bench::Hall { .. } => anyhow::bail!(
            "this touchmove was built without the hall benchmark, which starts a private Mosquitto: \
             run it from the source tree with `cargo run --release --features bench-hall -- bench hall ...`"
        ),
        Bench::Jumps(args) => jumps::run(args),
    }
}
