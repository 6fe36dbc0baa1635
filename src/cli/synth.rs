//! `touchmove synth` (being built).

/// Arguments of `touchmove synth`.
#[derive(Debug, clap::Args)]
pub struct SynthArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub rest: Vec<String>,
}

pub fn run(_args: SynthArgs) -> anyhow::Result<()> {
    anyhow::bail!("`touchmove synth` is not available yet in this version")
}
