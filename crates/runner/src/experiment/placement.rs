//! The two layouts of `spindle placement`'s experiment, each a managed instance: data and log
//! together on one volume, or data on one and the log on another. spindle makes a directory of
//! its own on each volume the user names (a mount point holds lost+found, so the user's
//! directory need not be empty); the runner starts each instance when its side is prepared and
//! removes it and those directories at the end, on errors and Ctrl-C too, unless `--keep`
//! (`crate::workload::database`).

use spindle_db::managed::{Checkpoints, InstanceSpec, ManagedEngine};
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

impl Places {
    /// Where `layout`'s data and log go, as the instance to start.
    pub fn spec(&self, layout: Layout, engine: ManagedEngine, memory: Option<u64>, registry: &Path) -> InstanceSpec {
        let (data, wal) = match layout {
            Layout::Same => (&self.same, None),
            Layout::Split => (&self.split_data, Some(self.split_wal.clone())),
        };
        InstanceSpec {
            engine,
            data: data.clone(),
            wal,
            port: None,
            memory,
            checkpoints: Checkpoints::Normal,
            registry: registry.to_path_buf(),
            settings: Vec::new(),
        }
    }
}
