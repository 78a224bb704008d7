//! Which database a `[database]` section names: a URL spindle does not start, or an instance it
//! starts with the data and log directories and settings given.

use super::{DbTarget, Section};
use crate::usage::UsageError;
use crate::values::{bad, size_of};
use spindle_db::managed::ManagedEngine;
use std::path::PathBuf;
use toml::Spanned;

impl Section<'_> {
    /// The database, with each setting as written pushed to `shown` (a URL's password masked).
    pub(super) fn target(&self, shown: &mut Vec<(String, String)>) -> Result<DbTarget, UsageError> {
        match (&self.raw.url, &self.raw.engine) {
            (Some(_), Some(engine)) => Err(UsageError::at(
                self.at("engine", engine),
                "url names a database spindle does not start, and engine starts one: give one or the other",
            )),
            (None, None) => Err(UsageError::file(
                &self.file.path,
                "[database] names no database: give url = \"postgres://...\", or engine = \"postgres\" and dir = \"/mnt/vol\" for an instance spindle starts",
            )),
            (Some(url), None) => self.url(url, shown),
            (None, Some(engine)) => self.managed(engine, shown),
        }
    }

    /// A database at `url`: none of the settings of an instance spindle starts apply to it.
    fn url(&self, url: &Spanned<String>, shown: &mut Vec<(String, String)>) -> Result<DbTarget, UsageError> {
        let raw = self.raw;
        let parsed = spindle_db::parse_url(url.get_ref()).map_err(|why| UsageError::at(self.at("url", url), why))?;
        if parsed.path.is_none() && parsed.database.is_none() {
            return Err(UsageError::at(self.at("url", url), format_args!("{parsed} names no database; add one")));
        }
        for (key, value) in [("dir", &raw.dir), ("wal_dir", &raw.wal_dir)] {
            if let Some(v) = value {
                return Err(UsageError::at(
                    self.at(key, v),
                    "belongs to an instance spindle starts (engine =), not to a url",
                ));
            }
        }
        if let Some(v) = &raw.memory {
            return Err(UsageError::at(
                self.file.origin("memory", v.span().start),
                "belongs to an instance spindle starts (engine =), not to a url",
            ));
        }
        if let Some((key, v)) = raw.settings.as_ref().and_then(|s| s.iter().next()) {
            return Err(UsageError::at(
                self.file.origin(&format!("settings.{key}"), v.span().start),
                "spindle sets a server's settings only on an instance it starts (engine = and dir =); it does not change a server at a url",
            ));
        }
        shown.push(("url".into(), parsed.to_string()));
        Ok(DbTarget::Url(crate::database_url::password_from_env(parsed)))
    }

    /// An instance of `engine` spindle starts, its data in `dir`.
    fn managed(&self, engine: &Spanned<String>, shown: &mut Vec<(String, String)>) -> Result<DbTarget, UsageError> {
        let raw = self.raw;
        let managed = ManagedEngine::parse(engine.get_ref())
            .ok_or_else(|| bad(&self.at("engine", engine), engine.get_ref(), "spindle starts postgres and mariadb"))?;
        let dir = raw.dir.as_ref().ok_or_else(|| {
            UsageError::at(
                self.at("engine", engine),
                "an instance spindle starts needs dir = \"/mnt/vol\": where its data goes",
            )
        })?;
        let directory = |key: &str, d: &Spanned<String>| {
            let path = PathBuf::from(d.get_ref());
            if path.is_dir() {
                Ok(path)
            } else {
                Err(bad(&self.at(key, d), d.get_ref(), "not a directory; name a directory on the volume"))
            }
        };
        let memory = self.setting("memory", &raw.memory).map(|s| size_of(&s)).transpose()?;
        let settings = self.server_settings(shown)?;
        shown.push(("engine".into(), managed.name().into()));
        // Where its files go is what two sides most often differ in (data and log on one
        // volume or two).
        for (key, value) in [("dir", Some(dir)), ("wal_dir", raw.wal_dir.as_ref())] {
            shown.push((key.into(), value.map_or("(inside dir)".into(), |v| v.get_ref().clone())));
        }
        if let Some(s) = self.setting("memory", &raw.memory) {
            shown.push(("memory".into(), s.text));
        }
        Ok(DbTarget::Managed {
            engine: managed,
            dir: directory("dir", dir)?,
            wal_dir: raw.wal_dir.as_ref().map(|w| directory("wal_dir", w)).transpose()?,
            memory,
            settings,
        })
    }

    /// `[database.settings]`: each a name of letters, digits, _ and . with a one-line value.
    fn server_settings(&self, shown: &mut Vec<(String, String)>) -> Result<Vec<(String, String)>, UsageError> {
        let mut settings = Vec::new();
        for (key, value) in self.raw.settings.iter().flatten() {
            let s = self.setting(&format!("settings.{key}"), &Some(value.clone())).expect("given");
            let valid_key = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
            if !valid_key || s.text.contains(['\n', '\r']) {
                return Err(bad(
                    &s.origin,
                    &s.text,
                    "a server setting is a name of letters, digits, _ and . with a one-line value",
                ));
            }
            shown.push((format!("settings.{key}"), s.text.clone()));
            settings.push((key.clone(), s.text));
        }
        Ok(settings)
    }
}
