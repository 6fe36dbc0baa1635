//! Secrets read from files (MQTT passwords, broadcast tokens): never printed.
use std::path::Path;

/// A secret read from a file: never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(..)")
    }
}

/// The secret on the first line of `path` (not empty).
pub fn read_secret(path: &Path) -> Result<Secret, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {} ({e})", path.display()))?;
    let line = text.lines().next().unwrap_or("").trim_end_matches('\r');
    if line.is_empty() {
        return Err(format!(
            "{}: the password on its first line is empty",
            path.display()
        ));
    }
    Ok(Secret(line.to_owned()))
}
