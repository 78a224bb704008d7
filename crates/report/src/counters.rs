//! The counters section of the text report: each counter's average, minimum and maximum, as
//! perfmon's report view shows them, and the devices' I/O rate beside spindle's own.

use spindle_model::RunRecord;
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
        let _ = writeln!(out, "  {:<width$} {:>14} {:>14} {:>14}", c.path, value(c.avg), value(c.min), value(c.max));
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
    if !devices.is_empty() && r.summary.iops > 0.0 {
        let _ = writeln!(
            out,
            "  device I/Os/sec ({}): {:.2} against spindle's {:.2} ({:.1}%)",
            devices.join(", "),
            device_iops,
            r.summary.iops,
            100.0 * device_iops / r.summary.iops
        );
    }
}

/// Two decimals, or six for small values (`Avg. Disk sec/Read` is a fraction of a millisecond).
fn value(v: f64) -> String {
    if v != 0.0 && v.abs() < 1.0 { format!("{v:.6}") } else { format!("{v:.2}") }
}
