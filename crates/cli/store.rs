//! Finding and opening the results store for a command.

use crate::args::StoreArgs;
use anyhow::anyhow;
use spindle_store::Store;
use std::path::PathBuf;

/// `--store`, else `$SPINDLE_STORE`, else the XDG data directory.
pub fn path(args: &StoreArgs) -> anyhow::Result<PathBuf> {
    spindle_store::store_path(args.store.clone(), &|name| std::env::var(name).ok()).ok_or_else(|| {
        anyhow!("no place for the results store: pass --store PATH or set SPINDLE_STORE (HOME is not set)")
    })
}

/// For commands that read or remove: `None` when there is no store yet.
pub fn open_existing(args: &StoreArgs) -> anyhow::Result<Option<Store>> {
    Ok(Store::open_existing(&path(args)?)?)
}
