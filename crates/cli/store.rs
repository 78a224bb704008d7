//! Finding and opening the results store for a command.

use crate::args::StoreArgs;
use anyhow::anyhow;
use spindle_store::{Location, Store};

/// `--store`, else `$SPINDLE_STORE`, else the XDG data directory: a path, or a PostgreSQL
/// database's URL.
pub fn location(args: &StoreArgs) -> anyhow::Result<Location> {
    match spindle_store::store_location(args.store.clone(), &|name| std::env::var(name).ok()) {
        Ok(Some(at)) => Ok(at),
        Ok(None) => Err(anyhow!(
            "no place for the results store: pass --store PATH (or a postgres:// URL) or set SPINDLE_STORE (HOME is not set)"
        )),
        Err(why) if why.starts_with("SPINDLE_STORE") => Err(anyhow!("{why}")),
        Err(why) => Err(anyhow!("--store: {why}")),
    }
}

/// The files the results store is kept in (`--store`, else SPINDLE_STORE or the default
/// place; none for a server's, or where no place can be had), which no command may write.
pub fn files(args: Option<&StoreArgs>) -> Vec<std::path::PathBuf> {
    let flag = args.and_then(|a| a.store.clone());
    let at = spindle_store::store_location(flag, &|name| std::env::var(name).ok());
    at.ok().flatten().map(|l| l.files()).unwrap_or_default()
}

/// For commands that read or remove: `None` when there is no store yet.
pub fn open_existing(args: &StoreArgs) -> anyhow::Result<Option<Store>> {
    Ok(Store::open_existing(location(args)?)?)
}

/// Stored runs as exporters take them, with their ids and places in groups.
pub fn document_of(runs: Vec<spindle_store::StoredRun>) -> spindle_report::Document {
    spindle_report::Document {
        runs: runs
            .into_iter()
            .map(|r| spindle_report::ReportRun {
                id: Some(r.summary.id),
                group: r.summary.group,
                point: r.summary.point,
                repeat: r.summary.repeat,
                record: r.record,
            })
            .collect(),
        ..spindle_report::Document::default()
    }
}
