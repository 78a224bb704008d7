//! The two layouts of the experiment, each a managed instance: data and log together on one
//! volume, or data on one and the log on another. spindle makes a directory of its own on each
//! volume the user names (a mount point holds lost+found, so the user's directory need not be
//! empty) and removes the instances and those directories at the end, on errors and Ctrl-C
//! too, unless `--keep`.

use spindle_db::managed::{Checkpoints, Instance, InstanceSpec, ManagedEngine};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    Same,
    Split,
}

impl Layout {
    /// As the runs are labelled (`layout=same`).
    pub fn label(self) -> &'static str {
        match self {
            Layout::Same => "same",
            Layout::Split => "split",
        }
    }
}

/// Where each layout's directories go.
pub struct Places {
    pub same: PathBuf,
    pub split_data: PathBuf,
    pub split_wal: PathBuf,
}

impl Places {
    /// spindle's own directories inside the ones the user named.
    pub fn new(same: &Path, split_data: &Path, split_wal: &Path) -> Places {
        Places {
            same: same.join("spindle-placement-same"),
            split_data: split_data.join("spindle-placement-data"),
            split_wal: split_wal.join("spindle-placement-wal"),
        }
    }
}

/// The running instances; dropping this stops them and, unless kept, removes what was made.
pub struct Instances {
    pub same: Option<Instance>,
    pub split: Option<Instance>,
    registry: PathBuf,
    keep: bool,
}

impl Instances {
    pub fn up(
        engine: ManagedEngine,
        places: &Places,
        memory: Option<u64>,
        registry: &Path,
        keep: bool,
    ) -> Result<Instances, spindle_db::DbError> {
        let spec = |data: &Path, wal: Option<&Path>| InstanceSpec {
            engine,
            data: data.to_path_buf(),
            wal: wal.map(Path::to_path_buf),
            port: None,
            memory,
            checkpoints: Checkpoints::Normal,
            registry: registry.to_path_buf(),
        };
        let mut both = Instances { same: None, split: None, registry: registry.to_path_buf(), keep };
        both.same = Some(Instance::up(&spec(&places.same, None))?);
        both.split = Some(Instance::up(&spec(&places.split_data, Some(&places.split_wal)))?);
        Ok(both)
    }

    pub fn get_mut(&mut self, layout: Layout) -> &mut Instance {
        let i = match layout {
            Layout::Same => &mut self.same,
            Layout::Split => &mut self.split,
        };
        i.as_mut().expect("both instances are up once Instances::up returned")
    }

    pub fn get(&self, layout: Layout) -> &Instance {
        let i = match layout {
            Layout::Same => &self.same,
            Layout::Split => &self.split,
        };
        i.as_ref().expect("both instances are up once Instances::up returned")
    }
}

impl Drop for Instances {
    fn drop(&mut self) {
        for instance in [self.same.take(), self.split.take()].into_iter().flatten() {
            if self.keep {
                // Dropping the handle stops the server; its directories stay.
                drop(instance);
            } else {
                let _ = instance.remove(&self.registry);
            }
        }
    }
}
