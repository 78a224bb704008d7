//! The counters section of the text report: each counter's average, minimum and maximum, as
//! perfmon's report view shows them, and the devices' I/O rate beside spindle's own.

use crate::view::counter_text;
use spindle_analysis::findings::page_cache;
use spindle_model::spec::Workload;
use spindle_model::units::format_size;
use spindle_model::{RunKind, RunRecord};
use std::fmt::Write;

pub(crate) fn counters(out: &mut String, r: &RunRecord) {
    let Some(log) = &r.counters else { return };
    if log.counters.is_empty() {
        return;
    }
    let width = log.counters.iter().map(|c| c.path.len()).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "\ncounters (every {} s, {} samples):\n  {:<width$} {:>14} {:>14} {:>14}",
        log.interval_seconds,
        log.t.len(),
        "",
        "average",
        "min",
        "max"
    );
    for c in &log.counters {
        let _ = writeln!(
            out,
            "  {:<width$} {:>14} {:>14} {:>14}",
            c.path,
            counter_text(c.avg),
            counter_text(c.min),
            counter_text(c.max)
        );
    }
    // The device's count against spindle's own: far apart means other I/O shared the device,
    // or the page cache or a filesystem stood between them. The targets' own devices only: the
    // disks under a loop device are sampled too, and would count its I/O twice.
    let targets: Vec<&str> = r.targets.iter().filter_map(|t| t.device.as_deref()).collect();
    let mut device_iops = 0.0;
    let mut devices = Vec::new();
    for c in &log.counters {
        if let Some(dev) = c.path.strip_prefix("\\PhysicalDisk(").and_then(|p| p.strip_suffix(")\\Disk Reads/sec"))
            && (targets.is_empty() || targets.contains(&dev))
        {
            let writes = log.get(&format!("\\PhysicalDisk({dev})\\Disk Writes/sec")).map(|c| c.avg);
            device_iops += c.avg + writes.unwrap_or(0.0);
            devices.push(dev.to_string());
        }
    }
    // Only I/O runs issue I/Os to set beside the device's; a database run counts calls.
    if !devices.is_empty() && r.summary.iops > 0.0 && r.kind() == RunKind::Io {
        let ratio = device_iops / r.summary.iops;
        let under_loop = page_cache::under_loop_bytes(r);
        let why = device_rate_hint(ratio, under_loop, r).map(|h| format!(": {h}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "  device I/Os/sec ({}): {} against spindle's {} ({:.1}%{why})",
            devices.join(", "),
            crate::view::rate_text(device_iops),
            crate::view::rate_text(r.summary.iops),
            100.0 * ratio
        );
    }
}

/// Why the device counted more or fewer I/Os than spindle issued, when it was not about the
/// same (within 5%): the likeliest reason the run's own settings point to, and, for a target on
/// a loop device without direct I/O, the bytes per second the disks under its backing file
/// moved (`under_loop`, when sampled).
fn device_rate_hint(ratio: f64, under_loop: Option<f64>, r: &RunRecord) -> Option<String> {
    let workloads: Vec<&Workload> =
        r.details.job().map(|j| j.targets.iter().map(|t| &t.workload).collect()).unwrap_or_default();
    let buffered = workloads.iter().any(|w| w.buffered);
    let largest_block = workloads.iter().map(|w| w.largest_block()).max();
    let largest_request = r.environment.devices.iter().filter_map(|d| d.max_sectors_kb).min().map(|kb| kb * 1024);
    if ratio > 1.05 {
        if let (Some(block), Some(request)) = (largest_block, largest_request)
            && block > request
        {
            return Some(format!(
                "the kernel splits each {} I/O into requests of at most {}, the device's largest",
                format_size(block),
                format_size(request)
            ));
        }
        return Some(if buffered {
            "buffered writes reach the device when the kernel has them written back, with the file system's journal"
                .into()
        } else {
            "other I/O shared the device: other processes, or the file system's journal and metadata".into()
        });
    }
    if ratio < 0.95 {
        // A loop device without direct I/O: its backing file's page cache answered, and the disk
        // moved far fewer bytes than spindle did (merged I/Os would have moved them all).
        let spindle_bytes = r.summary.read.bytes_per_sec + r.summary.write.bytes_per_sec;
        if let (Some(cache), Some(disk)) = (page_cache::loop_backing_cache(r), under_loop)
            && spindle_bytes > 0.0
            && disk < page_cache::ABSORBED_BELOW * spindle_bytes
        {
            let mb = |b: f64| page_cache::rate(b / 1e6);
            return Some(format!(
                "the page cache of {cache} served what the disk never saw: the disk moved {} MB/s against \
                 spindle's {} MB/s",
                mb(disk),
                mb(spindle_bytes)
            ));
        }
        return Some(if buffered {
            "the page cache served or held back the rest".into()
        } else {
            "the device's queue merged adjacent I/Os into larger requests".into()
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::device_rate_hint;
    use spindle_model::fixtures::{buffered_run, job_mut};
    use spindle_model::record::DeviceInfo;

    #[test]
    fn a_device_rate_far_from_spindles_says_why() {
        let mut r = buffered_run(1000.0, 0.0, [1000.0, 8.192e6, 0.0, 0.0]);
        let hint = |ratio: f64, r: &spindle_model::RunRecord| device_rate_hint(ratio, Some(8.192e6), r);
        assert_eq!(hint(1.02, &r), None, "about the same: nothing to explain");
        assert!(hint(1.5, &r).unwrap().contains("written back"), "{:?}", hint(1.5, &r));
        assert!(hint(0.4, &r).unwrap().contains("page cache"));
        job_mut(&mut r).targets[0].workload.buffered = false;
        assert!(hint(1.5, &r).unwrap().contains("other I/O shared the device"));
        assert!(hint(0.4, &r).unwrap().contains("merged"));
        job_mut(&mut r).targets[0].workload.mix[0].block = 1 << 20;
        r.environment.devices = vec![DeviceInfo { max_sectors_kb: Some(512), ..DeviceInfo::default() }];
        let hint = hint(2.0, &r).unwrap();
        assert!(hint.contains("splits each 1MiB I/O into requests of at most 512KiB"), "{hint}");
    }

    #[test]
    fn a_loop_devices_backing_file_in_the_page_cache_is_named_when_the_disk_moved_far_less() {
        // O_DIRECT reads of 8 KiB at 1,000/s: 8.192 MB/s, on loop0 without direct I/O.
        let mut r = buffered_run(1000.0, 0.0, [0.0; 4]);
        job_mut(&mut r).targets[0].workload.buffered = false;
        let d = &mut r.environment.devices[0];
        d.partition = Some("loop0".into());
        d.loop_backing_file = Some("/srv/data.img".into());
        d.loop_direct_io = Some(false);
        let spindle = 8.192e6;
        // Fires: the disk moved a tenth of spindle's bytes.
        assert_eq!(
            device_rate_hint(0.1, Some(spindle / 10.0), &r).as_deref(),
            Some(
                "the page cache of loop0's backing file /srv/data.img served what the disk never saw: \
                 the disk moved 0.8 MB/s against spindle's 8.2 MB/s"
            )
        );
        // The edge: half of spindle's bytes is not far less; fewer, larger I/Os of all the bytes
        // are the queue merging them.
        assert!(device_rate_hint(0.1, Some(spindle * 0.5), &r).unwrap().contains("merged"));
        assert!(device_rate_hint(0.1, Some(spindle * 0.499), &r).unwrap().contains("loop0's backing file"));
        assert!(device_rate_hint(0.1, Some(spindle), &r).unwrap().contains("merged"));
        // Does not fire: bytes not sampled, direct I/O on the loop, or no loop at all.
        assert!(device_rate_hint(0.1, None, &r).unwrap().contains("merged"));
        r.environment.devices[0].loop_direct_io = Some(true);
        assert!(device_rate_hint(0.1, Some(0.0), &r).unwrap().contains("merged"));
        r.environment.devices[0] = DeviceInfo::default();
        assert!(device_rate_hint(0.1, Some(0.0), &r).unwrap().contains("merged"));
    }
}
