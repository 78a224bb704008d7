//! One target's layered settings become a validated `TargetSpec`.

use super::values::*;
use super::{Layer, Machine};
use crate::origin::Origin;
use crate::usage::UsageError;
use spindle_model::spec::{EngineKind, MixEntry, TargetSpec, Workload};
use spindle_model::units::{format_bytes_approx, format_size};
use std::path::{Path, PathBuf};

/// The settings of one target before validation.
pub(super) struct TargetDraft {
    pub(super) path: PathBuf,
    pub(super) origin: Origin,
    pub(super) layer: Layer,
}

pub(super) fn resolve_target(
    draft: TargetDraft,
    engine: EngineKind,
    fell_back: bool,
    machine: &dyn Machine,
    warnings: &mut Vec<String>,
) -> Result<TargetSpec, UsageError> {
    let TargetDraft { path, origin, layer } = draft;
    let shown = path.display();
    if machine.sees_targets() {
        check_place(&path, origin)?;
    }
    let mix = mix_of_layer(&layer)?;
    let reads_only = mix.iter().all(|m| m.read_pct == 100);
    let threads = match &layer.threads {
        Some(s) if s.text.trim() == "cpus" => machine.logical_cpus(),
        Some(s) => count_of(s, 1, MAX_THREADS, "threads (a number, or cpus)")? as u32,
        None => 1,
    };
    let depth = depth_on(&layer, engine, fell_back, &shown, warnings)?;
    let rate_iops = layer.rate.as_ref().map(|s| count_of(s, 1, u32::MAX as u64, "the IOPS cap")).transpose()?;
    let buffered = layer.buffered.as_ref().map(flag_of).transpose()?.unwrap_or(false);
    let write_through = layer.write_through.as_ref().map(flag_of).transpose()?.unwrap_or(false);
    let fsync_every =
        layer.fsync_every.as_ref().map(|s| count_of(s, 0, u32::MAX as u64, "fsync-every")).transpose()?.unwrap_or(0)
            as u32;
    if fsync_every > 0 && reads_only {
        let s = layer.fsync_every.as_ref().expect("fsync-every was set");
        return Err(bad(
            &s.origin,
            &s.text,
            "there is nothing to flush: the workload only reads (set --read below 100)",
        ));
    }
    let size = size_on(&layer, &path, &mix)?;
    // Only reads can be served from memory before the run measures the device; what buffered
    // writes did is judged after the run, from the disk's own counters.
    let reads = mix.iter().any(|m| m.read_pct > 0);
    if buffered && reads && engine != EngineKind::Null && size != 0 && size < machine.memory_bytes() {
        warnings.push(format!(
            "{shown}: buffered I/O on {} with {} of memory: reads may be served by the page cache, not the device; use a --size above memory to measure the device",
            format_size(size),
            format_bytes_approx(machine.memory_bytes())
        ));
    }
    if !buffered && engine != EngineKind::Null {
        check_direct_blocks(&layer, &path, &mix, machine)?;
    }
    Ok(TargetSpec {
        path,
        size,
        workload: Workload { mix, threads, depth, rate_iops, buffered, write_through, fsync_every },
    })
}

/// A target is a file (or device) whose directory exists.
fn check_place(path: &Path, origin: Origin) -> Result<(), UsageError> {
    let shown = path.display();
    if path.is_dir() {
        return Err(UsageError::value(origin, shown.to_string(), "is a directory; name a file inside it"));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Err(UsageError::value(
            origin,
            shown.to_string(),
            format_args!("target directory {} does not exist", parent.display()),
        ));
    }
    Ok(())
}

/// The I/O sizes and kinds: `mix`, or one `block` (8 KiB when neither is given).
fn mix_of_layer(layer: &Layer) -> Result<Vec<MixEntry>, UsageError> {
    let read_pct = layer.read.as_ref().map(percent_of).transpose()?.unwrap_or(100);
    let random_pct = layer.random.as_ref().map(percent_of).transpose()?.unwrap_or(100);
    let mix = match (&layer.mix, &layer.block) {
        (Some(m), _) => mix_of(m, read_pct, random_pct)?,
        (None, Some(b)) => vec![MixEntry { block: size_of(b)?, weight: 1, read_pct, random_pct }],
        (None, None) => vec![MixEntry { block: 8192, weight: 1, read_pct, random_pct }],
    };
    for m in &mix {
        if m.block == 0 || m.block > MAX_BLOCK {
            return Err(UsageError::at(
                block_origin(layer),
                format_args!("a block of {} is outside 1 byte..64MiB", format_size(m.block)),
            ));
        }
    }
    Ok(mix)
}

/// Where the I/O sizes were given.
fn block_origin(layer: &Layer) -> Origin {
    layer.mix.as_ref().or(layer.block.as_ref()).map(|s| s.origin.clone()).unwrap_or(Origin::Flag("--block"))
}

/// The depth, 1 on the sync engine: said when the engine fell back to it, refused when asked.
fn depth_on(
    layer: &Layer,
    engine: EngineKind,
    fell_back: bool,
    shown: &std::path::Display<'_>,
    warnings: &mut Vec<String>,
) -> Result<u32, UsageError> {
    let depth = layer.depth.as_ref().map(|s| count_of(s, 1, MAX_DEPTH, "depth")).transpose()?.unwrap_or(1) as u32;
    if engine != EngineKind::Sync || depth == 1 {
        return Ok(depth);
    }
    if fell_back {
        warnings.push(format!("{shown}: depth {depth} becomes 1 on the sync engine; add --threads for concurrency"));
        return Ok(1);
    }
    let s = layer.depth.as_ref().expect("depth above 1 was set");
    Err(bad(
        &s.origin,
        &s.text,
        "the sync engine keeps one I/O in flight per thread; use --threads for concurrency, or --engine uring",
    ))
}

/// The test file's size (1 GiB unless given; 0, the whole device, for a block device), at
/// least one of the largest I/O.
fn size_on(layer: &Layer, path: &Path, mix: &[MixEntry]) -> Result<u64, UsageError> {
    let largest = mix.iter().map(|m| m.block).max().unwrap_or(8192);
    let size = match &layer.size {
        Some(s) => size_of(s)?,
        None if is_block_device(path) => 0,
        None => 1 << 30,
    };
    if size != 0 && size < largest {
        let o = layer.size.as_ref().map(|s| s.origin.clone()).unwrap_or(Origin::Flag("--size"));
        return Err(UsageError::at(
            o,
            format_args!(
                "{} of {} is smaller than one {} I/O",
                path.display(),
                format_size(size),
                format_size(largest)
            ),
        ));
    }
    Ok(size)
}

/// Direct I/O needs every size a multiple of the device's logical block.
fn check_direct_blocks(layer: &Layer, path: &Path, mix: &[MixEntry], machine: &dyn Machine) -> Result<(), UsageError> {
    let Some((device, logical)) = machine.logical_block(path) else { return Ok(()) };
    match mix.iter().find(|m| m.block % logical != 0) {
        Some(m) => Err(UsageError::at(
            block_origin(layer),
            format_args!(
                "{} is not a multiple of {device}'s {logical}-byte logical block, which direct I/O requires; use a multiple of {logical} or --buffered",
                format_size(m.block)
            ),
        )),
        None => Ok(()),
    }
}

fn is_block_device(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt;
    std::fs::metadata(path).map(|m| m.file_type().is_block_device()).unwrap_or(false)
}
