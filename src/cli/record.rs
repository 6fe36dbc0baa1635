//! `touchmove record` (being built).

/// Arguments of `touchmove record`.
#[derive(Debug, clap::Args)]
pub struct RecordArgs {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    pub rest: Vec<String>,
}

pub fn run(_args: RecordArgs) -> anyhow::Result<()> {
    anyhow::bail!("`touchmove record` is not available yet in this version")
}
