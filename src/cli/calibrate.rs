//! `touchmove calibrate` (being built).

/// Arguments of `touchmove calibrate`.
#[derive(Debug, clap::Args)]
pub struct CalibrateArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub rest: Vec<String>,
}

pub fn run(_args: CalibrateArgs) -> anyhow::Result<()> {
    anyhow::bail!("`touchmove calibrate` is not available yet in this version")
}
