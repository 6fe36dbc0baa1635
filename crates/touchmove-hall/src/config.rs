//! The hall's configuration file (`touchmove hall --config FILE`, TOML):
//! for now its `[lichess]` table, the push of the round to a Lichess
//! broadcast. Flags given on the command line override it.
//!
//! ```toml
//! [lichess]
//! rounds = ["abcdEFGH", "ijklMNOP"]   # boards 1-64, then 65-128
//! token-file = "/etc/touchmove/lichess.token"
//! url = "https://lichess.org"         # the default
//! min-interval-ms = 3000              # the default
//! games-per-round = 64                # the default; at most 100
//! ```
//!
//! Keys are kebab-case as in the boards' configuration (`token_file` and
//! the other snake_case spellings are read too); an unknown key is an
//! error naming it, its line and the file.
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HallConfig {
    pub lichess: Option<LichessTable>,
}

/// `[lichess]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LichessTable {
    #[serde(default)]
    pub rounds: Vec<String>,
    #[serde(alias = "token_file")]
    pub token_file: Option<PathBuf>,
    pub url: Option<String>,
    #[serde(alias = "min_interval_ms")]
    pub min_interval_ms: Option<u64>,
    #[serde(alias = "games_per_round")]
    pub games_per_round: Option<usize>,
}

/// Reads and checks the file; errors name the file and the key.
pub fn read(path: &Path) -> anyhow::Result<HallConfig> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("--config: cannot read {} ({e})", path.display()))?;
    parse(&text, path)
}

/// Reads the text of the file at `path` (named in errors).
pub fn parse(text: &str, path: &Path) -> anyhow::Result<HallConfig> {
    let config: HallConfig = toml::from_str(text).map_err(|e| {
        anyhow::anyhow!(
            "hall configuration {}: {}",
            path.display(),
            e.to_string().trim_end()
        )
    })?;
    if let Some(l) = &config.lichess {
        for (i, round) in l.rounds.iter().enumerate() {
            super::lichess::check_round_id(round).map_err(|e| {
                anyhow::anyhow!(
                    "hall configuration {}: lichess.rounds[{i}] {round:?}: {e}",
                    path.display()
                )
            })?;
        }
        if let Some(url) = &l.url {
            super::lichess::check_url(url).map_err(|e| {
                anyhow::anyhow!(
                    "hall configuration {}: lichess.url {url:?}: {e}",
                    path.display()
                )
            })?;
        }
    }
    Ok(config)
}

/// A relative `token-file` is read from the configuration file's folder.
pub fn resolve(config_path: &Path, file: &Path) -> PathBuf {
    if file.is_absolute() {
        return file.to_owned();
    }
    config_path
        .parent()
        .map_or_else(|| file.to_owned(), |dir| dir.join(file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> anyhow::Result<HallConfig> {
        parse(text, Path::new("/etc/touchmove/hall.toml"))
    }

    #[test]
    fn a_lichess_table_is_read_in_either_spelling() {
        let c = parsed(
            "[lichess]\nrounds = [\"abcdEFGH\", \"12345678\"]\ntoken-file = \"lichess.token\"\nurl = \"http://127.0.0.1:9000\"\nmin-interval-ms = 5000\ngames-per-round = 50\n",
        )
        .unwrap();
        let l = c.lichess.unwrap();
        assert_eq!(l.rounds, ["abcdEFGH", "12345678"]);
        assert_eq!(l.token_file.as_deref(), Some(Path::new("lichess.token")));
        assert_eq!(l.url.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!(l.min_interval_ms, Some(5000));
        assert_eq!(l.games_per_round, Some(50));
        let c = parsed("[lichess]\ntoken_file = \"t\"\nmin_interval_ms = 4000\n").unwrap();
        assert_eq!(c.lichess.unwrap().min_interval_ms, Some(4000));
        assert_eq!(parsed("").unwrap(), HallConfig::default());
    }

    #[test]
    fn bad_files_are_refused_naming_the_key_and_the_file() {
        let e = parsed("[lichess]\ntokn-file = \"t\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("/etc/touchmove/hall.toml"), "{e}");
        assert!(e.contains("tokn-file"), "{e}");
        let e = parsed("[lichess]\nrounds = [\"abcdEFGH\", \"nope\"]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("lichess.rounds[1] \"nope\""), "{e}");
        let e = parsed("[lichess]\nmin-interval-ms = \"fast\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("min-interval-ms"), "{e}");
        let e = parsed("[lichess]\nurl = \"gopher://x\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("lichess.url"), "{e}");
        let e = parsed("[mqtt]\nbroker = \"x\"\n").unwrap_err().to_string();
        assert!(e.contains("mqtt"), "{e}");
    }

    #[test]
    fn a_relative_token_file_is_beside_the_configuration() {
        let config = Path::new("/etc/touchmove/hall.toml");
        assert_eq!(
            resolve(config, Path::new("lichess.token")),
            Path::new("/etc/touchmove/lichess.token")
        );
        assert_eq!(resolve(config, Path::new("/run/t")), Path::new("/run/t"));
    }
}
