use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = touchmove::cli::Cli::parse();
    match touchmove::cli::run(cli) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("touchmove: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
