//! The `touchmove` command line: one module per subcommand. The layers
//! live in the workspace's crates (`touchmove-core`, `-hw`, `-wire`,
//! `-board`, `-hall`); this crate only parses arguments and calls them.
pub mod cli;
