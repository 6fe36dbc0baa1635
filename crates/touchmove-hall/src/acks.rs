//! The arbiter's acknowledgements, kept in a file (`touchmove hall
//! --acks FILE`) so that a restarted hall does not raise again the alerts
//! already dealt with. An alert of a board's event is known by
//! `(board, game, seq)`; an offline board is not kept (it is the present,
//! not the record).
//!
//! The file is JSON, `{"acknowledged": [["b3", 2, 41], ...]}`, rewritten
//! whole (to a temporary file, then renamed) after each acknowledgement.
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

/// An acknowledged alert: board, game, seq of its event.
pub(crate) type AckKey = (String, u64, u64);

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    acknowledged: BTreeSet<AckKey>,
}

/// Reads the acknowledgements of `path`; a file that is not there yet holds none.
pub fn load(path: &Path) -> anyhow::Result<BTreeSet<AckKey>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => {
            return Err(e).with_context(|| format!("--acks {}: cannot read it", path.display()));
        }
    };
    let file: File = serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "--acks {}: line {}, column {}: {e} (expected {{\"acknowledged\": [[\"board\", game, seq], ...]}})",
            path.display(),
            e.line(),
            e.column()
        )
    })?;
    Ok(file.acknowledged)
}

/// Writes `keys` to `path` whole, through a temporary file beside it.
pub fn save(path: &Path, keys: &BTreeSet<AckKey>) -> anyhow::Result<()> {
    let file = File {
        acknowledged: keys.clone(),
    };
    let text = serde_json::to_string(&file)?;
    let tmp: PathBuf = path.with_extension("tmp");
    std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("replacing {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acknowledgements_round_trip_and_a_bad_file_is_named() {
        let dir = std::env::temp_dir().join(format!("touchmove-acks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("acks.json");
        assert!(load(&path).unwrap().is_empty(), "no file yet: none");
        let keys: BTreeSet<AckKey> = [("b3".to_owned(), 2, 41), ("b10".to_owned(), 1, 7)].into();
        save(&path, &keys).unwrap();
        assert_eq!(load(&path).unwrap(), keys);
        std::fs::write(&path, "{\"acknowledged\": [[\"b3\", \"two\", 41]]}").unwrap();
        let e = load(&path).unwrap_err().to_string();
        assert!(e.contains("acks.json: line 1"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
