//! What the page cache absorbed in a buffered run (said by the I/O workload after the run,
//! and weighed by the report's device counters). spindle counts an I/O done when the kernel
//! says so; with the page cache in between, a read may never reach the disk and a write may
//! reach it only later, so spindle's figures can be memory's. The disk's own rates, sampled
//! beside the run, say which directions the cache took: spindle moved bytes the disk did not.

use spindle_model::RunRecord;
use spindle_model::counters::CounterLog;
use spindle_model::record::DirectionStats;
use spindle_model::spec::EngineKind;
use spindle_model::units::grouped;

/// Under this share of spindle's bytes reaching the disks, the page cache absorbed that direction
/// (most of what spindle moved never reached the disk while it measured). Bytes, not I/O counts:
/// readahead and writeback merge I/Os, so a disk doing fewer, larger I/Os still did the work.
pub const ABSORBED_BELOW: f64 = 0.5;

/// Whose page cache stands between a target and its disk when the target sits on a loop device
/// that does not use direct I/O: `loop0's backing file /srv/data.img`. The loop driver then
/// reads and writes that file through the page cache, whatever spindle's own files do.
pub fn loop_backing_cache(r: &RunRecord) -> Option<String> {
    let d = r.environment.devices.iter().find(|d| d.loop_direct_io == Some(false))?;
    let name = [&d.partition, &d.device].into_iter().flatten().find(|n| n.starts_with("loop"));
    let whose = name.map_or_else(|| "a loop device's".to_string(), |n| format!("{n}'s"));
    let file = d.loop_backing_file.as_deref().map(|f| format!(" {f}")).unwrap_or_default();
    Some(format!("{whose} backing file{file}"))
}

/// The disks whose counters show what of spindle's I/O the page cache let through: under a
/// loop device without direct I/O, the disks under its backing file (the loop itself, a disk
/// of its own, sees everything spindle sent); else the targets' own disks.
fn compared_disks(r: &RunRecord) -> Vec<&str> {
    let under_loop: Vec<&str> = r
        .environment
        .devices
        .iter()
        .filter(|d| d.loop_direct_io == Some(false))
        .flat_map(|d| d.physical_disks())
        .filter(|disk| !disk.starts_with("loop"))
        .collect();
    let mut disks =
        if under_loop.is_empty() { r.targets.iter().filter_map(|t| t.device.as_deref()).collect() } else { under_loop };
    disks.sort_unstable();
    disks.dedup();
    disks
}

/// The bytes a second the disks under a loop device without direct I/O moved, read and
/// written: far fewer than spindle's, the loop's backing file's page cache kept them.
pub fn under_loop_bytes(r: &RunRecord) -> Option<f64> {
    loop_backing_cache(r)?;
    let log = r.counters.as_ref()?;
    let disks = compared_disks(r);
    let (read, write) = (disk_rate(log, &disks, &READS)?, disk_rate(log, &disks, &WRITES)?);
    (!disks.is_empty()).then_some(read.bytes + write.bytes)
}

/// One direction of I/O, as spindle and the disk counters name it.
struct Direction {
    /// `reads`
    noun: &'static str,
    /// `read`, `wrote`
    past: &'static str,
    /// `Read` in `Disk Read Bytes/sec`
    counter: &'static str,
}

const READS: Direction = Direction { noun: "reads", past: "read", counter: "Read" };
const WRITES: Direction = Direction { noun: "writes", past: "wrote", counter: "Write" };

/// The disks' rates in one direction over the run: I/Os and bytes per second.
struct DiskRate {
    ios: f64,
    bytes: f64,
}

/// For a buffered run (every target buffered, on a real engine), or one on a loop device
/// without direct I/O (its backing file's page cache is in the path whatever spindle's files
/// do), with disk counters sampled beside it, which directions the page cache absorbed, with
/// spindle's rate and the disks' beside each other as evidence: `the page cache absorbed the
/// writes: spindle wrote 4,547 MB/s, the disk vda 0.0 writes/s (0.0 MB/s)`. `None` when it
/// absorbed neither, or when the record cannot tell (direct I/O on a plain device, the null
/// engine, no counters for the disks under the targets).
pub fn page_cache_finding(r: &RunRecord) -> Option<String> {
    let spec = r.details.job()?;
    let buffered = !spec.targets.is_empty() && spec.targets.iter().all(|t| t.workload.buffered);
    let loop_cache = loop_backing_cache(r);
    if !(buffered || loop_cache.is_some()) || spec.engine == EngineKind::Null {
        return None;
    }
    let cache = match (loop_cache, buffered) {
        (None, _) => "the page cache".to_string(),
        (Some(of), false) => format!("the page cache of {of}"),
        (Some(of), true) => format!("the page cache, of the test files and of {of},"),
    };
    let log = r.counters.as_ref()?;
    let disks = compared_disks(r);
    if disks.is_empty() {
        return None;
    }
    let mut absorbed = Vec::new();
    for (direction, spindle) in [(READS, &r.summary.read), (WRITES, &r.summary.write)] {
        if spindle.ios == 0 {
            continue;
        }
        let disk = disk_rate(log, &disks, &direction)?;
        if disk.bytes < ABSORBED_BELOW * spindle.bytes_per_sec {
            absorbed.push((direction, spindle, disk));
        }
    }
    if absorbed.is_empty() {
        return None;
    }
    let and = |parts: Vec<String>| parts.join(" and ");
    let what = and(absorbed.iter().map(|(d, _, _)| format!("the {}", d.noun)).collect());
    let spindle = and(absorbed.iter().map(|(d, s, _)| spindle_rate(d, s)).collect());
    let disk = and(absorbed
        .iter()
        .map(|(d, _, disk)| format!("{} {}/s ({} MB/s)", rate(disk.ios), d.noun, rate(disk.bytes / 1e6)))
        .collect());
    let which = if disks.len() == 1 { "the disk" } else { "the disks" };
    Some(format!("{cache} absorbed {what}: spindle {spindle}, {which} {} {disk}", disks.join(", ")))
}

fn spindle_rate(d: &Direction, s: &DirectionStats) -> String {
    format!("{} {} MB/s", d.past, rate(s.bytes_per_sec / 1e6))
}

/// The disks' summed rates in one direction, or `None` if any disk has no sampled value.
fn disk_rate(log: &CounterLog, disks: &[&str], d: &Direction) -> Option<DiskRate> {
    let mut total = DiskRate { ios: 0.0, bytes: 0.0 };
    for disk in disks {
        let sampled = |counter: String| {
            log.get(&format!("\\PhysicalDisk({disk})\\{counter}"))
                .filter(|c| c.values.iter().any(Option::is_some))
                .map(|c| c.avg)
        };
        total.ios += sampled(format!("Disk {}s/sec", d.counter))?;
        total.bytes += sampled(format!("Disk {} Bytes/sec", d.counter))?;
    }
    Some(total)
}

/// `4,547` for rates of 100 and more, `12.5` below (halves to even, as `{:.0}` rounds them).
pub fn rate(x: f64) -> String {
    if x.abs() < 100.0 {
        return format!("{x:.1}");
    }
    let sign = if x < 0.0 { "-" } else { "" };
    format!("{sign}{}", grouped(x.abs().round_ties_even() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use spindle_model::counters::CounterSeries;
    use spindle_model::fixtures::{buffered_run, job_mut, record};

    #[test]
    fn writes_the_disk_never_saw_were_absorbed() {
        // 555,000 writes/s of 8 KiB: 4,547 MB/s.
        let r = buffered_run(0.0, 555_000.0, [0.0, 0.0, 0.0, 0.0]);
        assert_eq!(
            page_cache_finding(&r).as_deref(),
            Some("the page cache absorbed the writes: spindle wrote 4,547 MB/s, the disk vda 0.0 writes/s (0.0 MB/s)")
        );
    }

    #[test]
    fn reads_and_writes_can_both_be_absorbed() {
        let r = buffered_run(50_000.0, 10_000.0, [12.0, 49_152.0, 3.0, 12_288.0]);
        assert_eq!(
            page_cache_finding(&r).as_deref(),
            Some(
                "the page cache absorbed the reads and the writes: spindle read 410 MB/s and wrote 81.9 MB/s, \
                 the disk vda 12.0 reads/s (0.0 MB/s) and 3.0 writes/s (0.0 MB/s)"
            )
        );
    }

    #[test]
    fn only_the_direction_the_disk_missed_is_named() {
        // Reads reached the disk (merged by readahead into fewer, larger I/Os); writes did not.
        let r = buffered_run(10_000.0, 1_000.0, [640.0, 81_920_000.0, 0.0, 0.0]);
        let finding = page_cache_finding(&r).unwrap();
        assert!(finding.starts_with("the page cache absorbed the writes: spindle wrote 8.2 MB/s"), "{finding}");
        assert!(!finding.contains("reads"), "{finding}");
    }

    #[test]
    fn a_disk_that_kept_up_absorbed_nothing() {
        let r = buffered_run(1_000.0, 1_000.0, [1_000.0, 8_192_000.0, 900.0, 7_372_800.0]);
        assert_eq!(page_cache_finding(&r), None);
    }

    #[test]
    fn nothing_is_said_without_the_evidence_or_the_cache() {
        let absorbed = || buffered_run(0.0, 555_000.0, [0.0; 4]);
        let mut direct = absorbed();
        job_mut(&mut direct).targets[0].workload.buffered = false;
        let mut null = absorbed();
        job_mut(&mut null).engine = EngineKind::Null;
        let mut no_counters = absorbed();
        no_counters.counters = None;
        let mut no_samples = absorbed();
        for c in &mut no_samples.counters.as_mut().unwrap().counters {
            c.values = vec![None];
        }
        let mut no_disk = absorbed();
        no_disk.targets[0].device = None;
        for r in [direct, null, no_counters, no_samples, no_disk, record()] {
            assert_eq!(page_cache_finding(&r), None, "{:?}", r.details.job());
        }
    }

    #[test]
    fn a_loop_device_without_direct_io_names_its_backing_files_cache_even_for_direct_io() {
        // spindle read 8.2 MB/s with O_DIRECT; the disk under the backing file 0.4 MB/s.
        let on_loop = |dio: bool, buffered: bool| {
            let mut r = buffered_run(1_000.0, 0.0, [50.0, 409_600.0, 0.0, 0.0]);
            job_mut(&mut r).targets[0].workload.buffered = buffered;
            let d = &mut r.environment.devices[0];
            d.partition = Some("loop0".into());
            d.loop_backing_file = Some("/srv/data.img".into());
            d.loop_direct_io = Some(dio);
            r
        };
        assert_eq!(
            page_cache_finding(&on_loop(false, false)).as_deref(),
            Some(
                "the page cache of loop0's backing file /srv/data.img absorbed the reads: spindle read 8.2 MB/s, \
                 the disk vda 50.0 reads/s (0.4 MB/s)"
            )
        );
        let both = page_cache_finding(&on_loop(false, true)).unwrap();
        assert!(both.starts_with("the page cache, of the test files and of loop0's backing file"), "{both}");
        assert_eq!(page_cache_finding(&on_loop(true, false)), None, "direct I/O all the way down");
        assert!(page_cache_finding(&on_loop(true, true)).unwrap().starts_with("the page cache absorbed"));
        // A record that samples the loop as a disk of its own (it saw all 1,000 reads a second)
        // and the disk under its backing file beside it: the disk under is the one compared.
        let mut own = on_loop(false, false);
        own.targets[0].device = Some("loop0".into());
        let d = &mut own.environment.devices[0];
        (d.device, d.partition, d.disks) = (Some("loop0".into()), None, vec!["vda".into()]);
        let log = own.counters.as_mut().unwrap();
        let loop_counters: Vec<_> = log
            .counters
            .iter()
            .map(|c| {
                let value = if c.path.ends_with("Reads/sec") {
                    1_000.0
                } else if c.path.contains("Read Bytes") {
                    8.192e6
                } else {
                    0.0
                };
                CounterSeries::new(c.path.replace("(vda)", "(loop0)"), vec![Some(value); 3])
            })
            .collect();
        log.counters.extend(loop_counters);
        assert_eq!(
            page_cache_finding(&own).as_deref(),
            Some(
                "the page cache of loop0's backing file /srv/data.img absorbed the reads: spindle read 8.2 MB/s, \
                 the disk vda 50.0 reads/s (0.4 MB/s)"
            )
        );
    }

    #[test]
    fn rates_read_at_a_glance() {
        assert_eq!(rate(4_547.2), "4,547");
        assert_eq!(rate(1_234_567.0), "1,234,567");
        assert_eq!(rate(100.0), "100");
        assert_eq!(rate(4_546.5), "4,546", "a half to even, as before");
        assert_eq!(rate(12.25), "12.2");
        assert_eq!(rate(0.0), "0.0");
    }
}
