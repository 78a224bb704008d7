//! The counters section of the text report: each counter's average, minimum and maximum, as
//! perfmon's report view shows them, and the devices' I/O rate beside spindle's own.

use crate::view::counter_text;
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
    // or the page cache or a filesystem stood between them.
    let mut device_iops = 0.0;
    let mut devices = Vec::new();
    for c in &log.counters {
        if let Some(dev) = c.path.strip_prefix("\\PhysicalDisk(").and_then(|p| p.strip_suffix(")\\Disk Reads/sec")) {
            let writes = log.get(&format!("\\PhysicalDisk({dev})\\Disk Writes/sec")).map_or(0.0, |w| w.avg);
            device_iops += c.avg + writes;
            devices.push(dev.to_string());
        }
    }
    // Only I/O runs issue I/Os to set beside the device's; a database run counts calls.
    if !devices.is_empty() && r.summary.iops > 0.0 && r.kind() == RunKind::Io {
        let ratio = device_iops / r.summary.iops;
        let why = device_rate_hint(ratio, r).map(|h| format!(": {h}")).unwrap_or_default();
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
/// same (within 5%): the likeliest reason the run's own settings point to.
fn device_rate_hint(ratio: f64, r: &RunRecord) -> Option<String> {
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
        assert_eq!(device_rate_hint(1.02, &r), None, "about the same: nothing to explain");
        assert!(device_rate_hint(1.5, &r).unwrap().contains("written back"), "{:?}", device_rate_hint(1.5, &r));
        assert!(device_rate_hint(0.4, &r).unwrap().contains("page cache"));
        job_mut(&mut r).targets[0].workload.buffered = false;
        assert!(device_rate_hint(1.5, &r).unwrap().contains("other I/O shared the device"));
        assert!(device_rate_hint(0.4, &r).unwrap().contains("merged"));
        job_mut(&mut r).targets[0].workload.mix[0].block = 1 << 20;
        r.environment.devices = vec![DeviceInfo { max_sectors_kb: Some(512), ..DeviceInfo::default() }];
        let hint = device_rate_hint(2.0, &r).unwrap();
        assert!(hint.contains("splits each 1MiB I/O into requests of at most 512KiB"), "{hint}");
    }
}
