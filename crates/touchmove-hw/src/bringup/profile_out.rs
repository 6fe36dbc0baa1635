//! The corrected board profile: the original's text with its mapping
//! (`orientation` or `squares`) and `debounce-ms` replaced, every other
//! setting, comment and table kept as it was (toml_edit keeps the layout).
use toml_edit::{Array, DocumentMut, Value, value};

use crate::mapping::Mapping;
use touchmove_core::Millis;

/// Why the original profile could not be rewritten.
#[derive(Debug, thiserror::Error)]
#[error("the board profile is not TOML: {0}")]
pub struct NotToml(#[from] toml_edit::TomlError);

/// The profile text `original` reading its sensors through `mapping`, with
/// `debounce-ms` when given, and `header` lines as a comment on top.
pub fn corrected(
    original: &str,
    mapping: &Mapping,
    debounce_ms: Option<Millis>,
    header: &[String],
) -> Result<String, NotToml> {
    let mut doc: DocumentMut = original.parse()?;
    let root = doc.as_table_mut();
    root.remove("orientation");
    root.remove("squares");
    match mapping.orientation() {
        Some(orientation) => {
            root.insert("orientation", value(orientation.name()));
        }
        None => {
            let mut table = Array::new();
            for sensor in 0..64 {
                let mut entry = Value::from(mapping.square(sensor).to_string());
                let prefix = if sensor % 8 == 0 { "\n    " } else { " " };
                entry.decor_mut().set_prefix(prefix);
                table.push_formatted(entry);
            }
            table.set_trailing("\n");
            table.set_trailing_comma(true);
            root.insert("squares", value(table));
        }
    }
    if let Some(ms) = debounce_ms {
        root.insert("debounce-ms", value(ms as i64));
    }
    let mut text = String::new();
    for line in header {
        text.push_str(&format!("# {line}\n"));
    }
    text.push_str(&doc.to_string());
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::Orientation;
    use std::path::Path;

    const MATRIX: &str = include_str!("../../../../hw/gpio-matrix.toml");

    #[test]
    fn an_orientation_replaces_the_old_one_and_the_rest_stays() {
        let mapping = Mapping::from_orientation(Orientation::Rotate90);
        let text = corrected(MATRIX, &mapping, Some(20), &["checked".into()]).unwrap();
        assert!(text.starts_with("# checked\n"));
        assert!(text.contains("orientation = \"rotate-90\""), "{text}");
        assert!(!text.contains("orientation = \"identity\""));
        assert!(text.contains("rows = [4, 17, 27, 22, 5, 6, 13, 19]"));
        let profile = crate::profile::parse(&text, Path::new("x.toml")).unwrap();
        assert_eq!(profile.debounce_ms, Some(20));
    }

    #[test]
    fn a_table_of_squares_round_trips() {
        let mut squares: Vec<shakmaty::Square> = shakmaty::Square::ALL.to_vec();
        squares.swap(8, 24);
        let mapping = Mapping::from_squares(&squares).unwrap();
        let text = corrected(MATRIX, &mapping, None, &[]).unwrap();
        let profile = crate::profile::parse(&text, Path::new("x.toml")).unwrap();
        let crate::profile::Backend::GpioMatrix(config) = profile.backend else {
            panic!("a matrix");
        };
        assert_eq!(config.mapping, mapping);
    }
}
