//! The workload file (`--spec FILE.toml`): the same settings as the flags, plus one
//! `[[target]]` table per target so a data file and a log file can be driven at once.
//! Every value keeps the line it came from, so a mistake is reported as `FILE line N`.

use crate::origin::{Origin, Setting};
use crate::usage::UsageError;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// A value as written: a string (`"8K"`), a number or a boolean.
type Raw = Spanned<toml::Value>;

/// Workload keys, shared by `[defaults]` and each `[[target]]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTarget {
    pub path: Option<Spanned<String>>,
    /// A named profile the target starts from (`spindle profiles` lists them).
    pub profile: Option<Spanned<String>>,
    pub size: Option<Raw>,
    pub block: Option<Raw>,
    pub mix: Option<Raw>,
    pub read: Option<Raw>,
    pub random: Option<Raw>,
    pub threads: Option<Raw>,
    pub depth: Option<Raw>,
    pub rate: Option<Raw>,
    pub buffered: Option<Raw>,
    pub write_through: Option<Raw>,
    pub fsync_every: Option<Raw>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSpec {
    pub engine: Option<Raw>,
    pub duration: Option<Raw>,
    pub warmup: Option<Raw>,
    pub keep_file: Option<Raw>,
    /// Workload settings every target starts from.
    pub defaults: Option<RawTarget>,
    #[serde(default)]
    pub target: Vec<RawTarget>,
}

/// A parsed spec file, with the text kept to turn byte offsets into line numbers.
pub struct SpecFile {
    pub path: PathBuf,
    text: String,
    pub spec: RawSpec,
}

impl SpecFile {
    pub fn load(path: &Path) -> Result<SpecFile, UsageError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| UsageError::file(path, format_args!("cannot read the spec file: {e}")))?;
        let spec: RawSpec =
            toml::from_str(&text).map_err(|e| UsageError::file(path, format_args!("spec file: {e}")))?;
        Ok(SpecFile { path: path.to_path_buf(), text, spec })
    }

    fn line_of(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())].bytes().filter(|b| *b == b'\n').count() + 1
    }

    /// A value from the file as a setting whose origin names the file, line and key.
    pub fn setting(&self, key: &str, raw: &Option<Raw>) -> Option<Setting> {
        let raw = raw.as_ref()?;
        let text = match raw.get_ref() {
            toml::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        Some(Setting { text, origin: self.origin(key, raw.span().start) })
    }

    pub fn origin(&self, key: &str, offset: usize) -> Origin {
        Origin::File { path: self.path.clone(), line: self.line_of(offset), key: key.to_string() }
    }
}
