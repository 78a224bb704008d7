//! The workload file (`--spec FILE.toml`): the same settings as the flags, plus one
//! `[[target]]` table per target so a data file and a log file can be driven at once.
//! Every value keeps the line it came from, so a mistake is reported as `FILE line N`.

use crate::origin::{Origin, Setting};
use crate::usage::UsageError;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// A value as written: a string (`"8K"`), a number or a boolean.
pub(super) type Raw = Spanned<toml::Value>;

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
    /// Stamp every written sector and check every sector read (as `--verify`).
    pub verify: Option<Raw>,
    /// Workload settings every target starts from.
    pub defaults: Option<RawTarget>,
    /// A database workload instead of targets (`spindle ab`).
    pub database: Option<super::database::RawDatabase>,
    #[serde(default)]
    pub target: Vec<RawTarget>,
}

/// A parsed spec file, with where its lines start, to turn byte offsets into line numbers.
pub struct SpecFile {
    pub path: PathBuf,
    /// Byte offset of each line's first byte: a line number is a binary search away, so a
    /// file of 20,000 targets is checked in linear time.
    line_starts: Vec<usize>,
    pub spec: RawSpec,
}

impl SpecFile {
    pub fn load(path: &Path) -> Result<SpecFile, UsageError> {
        let bytes = crate::input_file::read_limited(path, 16 << 20, "spec file")?;
        let text = String::from_utf8(bytes).map_err(|e| {
            UsageError::file(
                path,
                format_args!("the spec file is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
            )
        })?;
        SpecFile::parse(path, &text)
    }

    /// The spec file `path` holding `text`.
    pub fn parse(path: &Path, text: &str) -> Result<SpecFile, UsageError> {
        let spec: RawSpec = toml::from_str(text).map_err(|e| UsageError::file(path, format_args!("spec file: {e}")))?;
        let line_starts = std::iter::once(0)
            .chain(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1))
            .collect();
        Ok(SpecFile { path: path.to_path_buf(), line_starts, spec })
    }

    fn line_of(&self, offset: usize) -> usize {
        // The number of lines starting at or before `offset`.
        self.line_starts.partition_point(|&start| start <= offset)
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
