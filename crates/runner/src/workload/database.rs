//! The database a workload runs on: a URL, and the managed instance behind it when there is
//! one. An instance spindle starts for an experiment is started when the workload is prepared
//! and removed when this is dropped (at the end, on errors and on Ctrl-C alike) unless kept; one
//! found running (`spindle db up`) is only restarted, never removed.

use spindle_db::DbUrl;
use spindle_db::managed::{Instance, InstanceSpec, registry};
use std::path::PathBuf;

/// Where instances are listed: spindle's data directory.
pub fn registry_path() -> anyhow::Result<PathBuf> {
    let dir = spindle_store::data_dir(&|name| std::env::var(name).ok())
        .ok_or_else(|| anyhow::anyhow!("no place to list managed instances: set XDG_DATA_HOME or HOME"))?;
    Ok(registry::path_in(&dir))
}

pub struct Database {
    url: Option<DbUrl>,
    instance: Option<Instance>,
    /// An instance still to be started, with whether to keep it at the end.
    to_start: Option<(InstanceSpec, bool)>,
    /// Where an instance spindle started is listed, so it is removed from there too; `None` for
    /// one it found or one kept.
    made: Option<PathBuf>,
    /// The server settings the instance was started with, beyond spindle's own.
    settings: Vec<(String, String)>,
}

impl Database {
    /// A database at `url`, with the instance serving it when spindle manages that one.
    pub fn at(url: DbUrl, found: Option<Instance>) -> Database {
        Database { url: Some(url), instance: found, to_start: None, made: None, settings: Vec::new() }
    }

    /// An instance to start when the workload is prepared; removed at the end unless `keep`.
    pub fn managed(spec: InstanceSpec, keep: bool) -> Database {
        let settings = spec.settings.clone();
        Database { url: None, instance: None, to_start: Some((spec, keep)), made: None, settings }
    }

    /// Starts the instance if it is still to be started; its URL.
    pub fn ready(&mut self) -> Result<DbUrl, spindle_db::DbError> {
        if let Some((spec, keep)) = self.to_start.take() {
            let instance = Instance::up(&spec)?;
            self.url = Some(instance.url());
            self.made = (!keep).then(|| spec.registry.clone());
            self.instance = Some(instance);
        }
        Ok(self.url.clone().expect("a database has a URL once ready"))
    }

    /// The instance serving it, when spindle manages it (to restart it for a cold cache).
    pub fn instance_mut(&mut self) -> Option<&mut Instance> {
        self.instance.as_mut()
    }

    /// The settings spindle started the instance with, for the records: what one side of an
    /// experiment changed is then in its runs, and `compare` names it.
    pub fn settings(&self) -> &[(String, String)] {
        &self.settings
    }

    pub fn instance(&self) -> Option<&Instance> {
        self.instance.as_ref()
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        if let (Some(instance), Some(registry)) = (self.instance.take(), self.made.take()) {
            let _ = instance.remove(&registry);
        }
    }
}
