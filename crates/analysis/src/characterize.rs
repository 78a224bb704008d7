//! Seed 002's method: turn a counter log into an access specification. For each disk, bucket
//! every sample's Avg. Disk Bytes/Read and /Write into power-of-two size classes (0.5K, 1K,
//! ... 64K, 128K, ...), weighted by the sample's I/Os, keep the largest classes until they
//! cover 80%; read % from Disk Reads/sec against Disk Writes/sec; outstanding I/Os from the
//! average Avg. Disk Queue Length; and the same again over only the busy samples (queue above
//! 2), when the storage is under the load that matters.

pub mod feed;
pub mod replay;
mod sizes;

pub use sizes::MeanBetween;

use serde::Serialize;
use sizes::Sizes;
use spindle_formats::CounterTable;
use spindle_formats::perfmon::split_path;
use spindle_formats::stream::RowSink;
use std::fmt;

/// The counters the method needs, per disk.
pub const NEEDED: [&str; 5] =
    ["Disk Reads/sec", "Disk Writes/sec", "Avg. Disk Bytes/Read", "Avg. Disk Bytes/Write", "Avg. Disk Queue Length"];

/// The smallest size class: a sector.
const MIN_CLASS: u64 = 512;

/// How the method's five counters are found among a disk's columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum CounterNames {
    /// By their English names (`NEEDED`).
    #[default]
    English,
    /// By the names a localized Windows gave them, in `NEEDED`'s order.
    Named([String; 5]),
    /// By 1-based position among each disk's columns, in `NEEDED`'s order (for logs whose
    /// names cannot be typed or vary).
    Positions([usize; 5]),
}

#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Only this disk (the instance name in the log, e.g. `vda` or `0 C:`).
    pub device: Option<String>,
    /// The object the disks are instances of; `None`: PhysicalDisk, else LogicalDisk.
    pub object: Option<String>,
    pub names: CounterNames,
    /// The busy profile keeps samples whose Avg. Disk Queue Length is above this.
    pub min_queue: f64,
    /// Size classes are kept, largest share first, until they cover this percentage.
    pub coverage_pct: f64,
}

/// One size class and its share of the I/Os in its direction, percent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SizeShare {
    pub bytes: u64,
    pub pct: f64,
}

/// What a set of samples says about the workload.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AccessProfile {
    pub samples: usize,
    /// Reads and writes a second, averaged over the samples that saw any: the rate a replay
    /// runs at (idle samples, a night in a day's log, would make it the day's mean instead).
    /// With five or more, the first and last are left out: a sample the work began or ended
    /// within saw it only part of its interval.
    pub iops: f64,
    pub read_pct: f64,
    pub reads: Vec<SizeShare>,
    pub writes: Vec<SizeShare>,
    /// Reads and writes of samples whose mean size lies between the classes named: mixed sizes
    /// within a sample, which the classes cannot make and a replay does not issue.
    pub reads_between: Option<MeanBetween>,
    pub writes_between: Option<MeanBetween>,
    pub outstanding: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DeviceProfile {
    pub device: String,
    /// Every usable sample.
    pub all: Option<AccessProfile>,
    /// Samples with a queue above `min_queue`.
    pub busy: Option<AccessProfile>,
    /// Samples left out because a value is beyond any disk (`PLAUSIBLE`): a corrupt or
    /// hand-edited log, not a workload.
    pub impossible: usize,
}

/// The largest values a real disk's counters reach, with room to spare: a billion I/Os a
/// second, a gigabyte an I/O, a million outstanding. A sample beyond them is left out and
/// counted, so 1e308 in a log never becomes "inf outstanding".
pub const PLAUSIBLE: [f64; 5] = [1e9, 1e9, (1u64 << 30) as f64, (1u64 << 30) as f64, 1e6];

#[derive(Debug, PartialEq)]
pub enum CharacterizeError {
    /// No PhysicalDisk or LogicalDisk counters at all; the objects the log has.
    NoDisks(Vec<String>),
    NoSuchDevice {
        asked: String,
        available: Vec<String>,
    },
    MissingCounters {
        device: String,
        missing: Vec<String>,
    },
    NoSuchObject {
        asked: String,
        available: Vec<String>,
    },
}

impl fmt::Display for CharacterizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CharacterizeError::NoDisks(objects) if objects.is_empty() => {
                write!(f, "the log has no PhysicalDisk or LogicalDisk counters")
            }
            CharacterizeError::NoDisks(objects) => write!(
                f,
                "the log has no PhysicalDisk or LogicalDisk counters; if one of its objects ({}) is the disks under another name, pass --object NAME",
                objects.join(", ")
            ),
            CharacterizeError::NoSuchDevice { asked, available } => {
                write!(f, "device {asked} is not in the log; it has: {}", available.join(", "))
            }
            CharacterizeError::MissingCounters { device, missing } => {
                write!(f, "the log lacks counters the method needs for {device}: {}", missing.join(", "))
            }
            CharacterizeError::NoSuchObject { asked, available } => {
                write!(f, "object {asked} is not in the log; it has: {}", available.join(", "))
            }
        }
    }
}

impl std::error::Error for CharacterizeError {}

/// The method over a whole table: `Characterizer` fed its columns and rows.
pub fn characterize(table: &CounterTable, opts: &Options) -> Result<Vec<DeviceProfile>, CharacterizeError> {
    let mut c = Characterizer::new(opts.clone());
    c.columns(&table.columns);
    for row in &table.rows {
        c.row(row);
    }
    c.finish()
}

/// The method over a log of any length, a sample at a time: each disk's samples are folded
/// into running sums and size-class weights as they come, in the order a whole table would
/// sum them (so the profile is the same to the last bit), and no sample is kept. Columns may
/// grow as the log is read (iostat and sadf find their devices as they go); which object and
/// devices are profiled, and what is missing, is settled at `finish`.
pub struct Characterizer {
    opts: Options,
    /// Columns seen so far.
    width: usize,
    /// Every object named by a column, in order.
    objects: Vec<String>,
    /// Every instance of an object that may be the disks, in order of its first column.
    disks: Vec<Disk>,
}

/// One instance's columns and what its samples came to.
struct Disk {
    object: String,
    device: String,
    /// Its columns, in the log's order: (column, counter).
    own: Vec<(usize, String)>,
    /// The method's five columns, once all are found.
    cols: Option<[usize; 5]>,
    /// Samples with all five values, none negative.
    usable: usize,
    all: Fold,
    busy: Fold,
}

impl Characterizer {
    pub fn new(opts: Options) -> Characterizer {
        Characterizer { opts, width: 0, objects: Vec::new(), disks: Vec::new() }
    }

    /// The log's columns so far (the ones already given, then any new ones at the end).
    pub fn columns(&mut self, columns: &[String]) {
        for (i, c) in columns.iter().enumerate().skip(self.width) {
            let Some((obj, inst, counter)) = split_path(c) else { continue };
            if !self.objects.iter().any(|o| o == obj) {
                self.objects.push(obj.to_string());
            }
            let candidate = match &self.opts.object {
                Some(asked) => obj == asked,
                None => obj == "PhysicalDisk" || obj == "LogicalDisk",
            };
            let Some(inst) = inst.filter(|i| candidate && *i != "_Total") else { continue };
            let at = match self.disks.iter().position(|d| d.object == obj && d.device == inst) {
                Some(at) => at,
                None => {
                    self.disks.push(Disk {
                        object: obj.to_string(),
                        device: inst.to_string(),
                        own: Vec::new(),
                        cols: None,
                        usable: 0,
                        all: Fold::default(),
                        busy: Fold::default(),
                    });
                    self.disks.len() - 1
                }
            };
            self.disks[at].own.push((i, counter.to_string()));
        }
        self.width = self.width.max(columns.len());
        // A disk's columns found never move: columns are only added at the end, a name is
        // found at its first column, a position counts from the disk's first.
        for d in self.disks.iter_mut().filter(|d| d.cols.is_none()) {
            let found = columns_of(&d.own, &self.opts.names);
            if found.iter().all(Option::is_some) {
                d.cols = Some(found.map(|c| c.unwrap_or_default()));
            }
        }
    }

    /// One sample: the values of the columns so far (missing ones are `None`).
    pub fn row(&mut self, values: &[Option<f64>]) {
        let min_queue = self.opts.min_queue;
        for d in &mut self.disks {
            let Some(cols) = d.cols else { continue };
            let mut sample = [0.0; 5];
            let mut whole = true;
            for (slot, &c) in sample.iter_mut().zip(&cols) {
                match values.get(c).copied().flatten() {
                    Some(v) => *slot = v,
                    None => {
                        whole = false;
                        break;
                    }
                }
            }
            if !whole || !sample.iter().all(|x| *x >= 0.0) {
                continue;
            }
            d.usable += 1;
            if !sample.iter().zip(PLAUSIBLE).all(|(x, max)| *x <= max) {
                continue;
            }
            d.all.add(&sample);
            if sample[4] > min_queue {
                d.busy.add(&sample);
            }
        }
    }

    /// The profiles of the disks, or what the log lacks for them.
    pub fn finish(self) -> Result<Vec<DeviceProfile>, CharacterizeError> {
        let Characterizer { opts, objects, disks, .. } = self;
        let object: &str = match &opts.object {
            Some(asked) => objects
                .iter()
                .find(|o| *o == asked)
                .ok_or_else(|| CharacterizeError::NoSuchObject { asked: asked.clone(), available: objects.clone() })?,
            // PhysicalDisk is what the method is about; LogicalDisk stands in for logs without it.
            None => ["PhysicalDisk", "LogicalDisk"]
                .into_iter()
                .find(|o| objects.iter().any(|x| x == o))
                .ok_or_else(|| CharacterizeError::NoDisks(objects.clone()))?,
        };
        let mut disks: Vec<Disk> = disks.into_iter().filter(|d| d.object == object).collect();
        if let Some(asked) = &opts.device {
            if !disks.iter().any(|d| &d.device == asked) {
                let available = disks.into_iter().map(|d| d.device).collect();
                return Err(CharacterizeError::NoSuchDevice { asked: asked.clone(), available });
            }
            disks.retain(|d| &d.device == asked);
        }
        disks
            .into_iter()
            .map(|d| {
                if d.cols.is_none() {
                    let found = columns_of(&d.own, &opts.names);
                    let wanted: Vec<String> = match &opts.names {
                        CounterNames::English => NEEDED.iter().map(|n| n.to_string()).collect(),
                        CounterNames::Named(names) => names.to_vec(),
                        CounterNames::Positions(positions) => positions
                            .iter()
                            .zip(NEEDED)
                            .map(|(p, n)| format!("{n} at position {p} (the disk has {} columns)", d.own.len()))
                            .collect(),
                    };
                    let missing = wanted.into_iter().zip(found).filter(|(_, c)| c.is_none()).map(|(n, _)| n).collect();
                    return Err(CharacterizeError::MissingCounters { device: d.device, missing });
                }
                let impossible = d.usable - d.all.samples;
                Ok(DeviceProfile {
                    device: d.device,
                    all: d.all.profile(opts.coverage_pct),
                    busy: d.busy.profile(opts.coverage_pct),
                    impossible,
                })
            })
            .collect()
    }
}

/// A counter log's reader hands its rows straight to the method (times and skipped lines are
/// the caller's to look at, through a sink of its own that passes the rest on).
impl RowSink for Characterizer {
    fn columns(&mut self, columns: &[String]) {
        Characterizer::columns(self, columns);
    }
    fn row(&mut self, _time: &str, values: &[Option<f64>]) {
        Characterizer::row(self, values);
    }
    fn skipped(&mut self, _line: usize) {}
}

/// The columns of the method's five counters among a disk's own, in `NEEDED`'s order.
fn columns_of(own: &[(usize, String)], names: &CounterNames) -> [Option<usize>; 5] {
    let by_name = |name: &str| own.iter().find(|(_, c)| c == name).map(|(i, _)| *i);
    match names {
        CounterNames::English => NEEDED.map(by_name),
        CounterNames::Named(names) => std::array::from_fn(|k| by_name(&names[k])),
        CounterNames::Positions(positions) => {
            positions.map(|p| p.checked_sub(1).and_then(|p| own.get(p)).map(|(i, _)| *i))
        }
    }
}

/// The sum `Iterator::sum` starts from (it is -0.0, not 0.0), so a running sum is the same
/// to the last bit as one over the whole table.
fn zero() -> f64 {
    std::iter::empty::<f64>().sum()
}

/// A set of samples as running sums, in the order the samples came.
struct Fold {
    samples: usize,
    reads: f64,
    writes: f64,
    queue: f64,
    read_sizes: Sizes,
    write_sizes: Sizes,
    rate: BusyRate,
}

impl Default for Fold {
    fn default() -> Fold {
        Fold {
            samples: 0,
            reads: zero(),
            writes: zero(),
            queue: zero(),
            read_sizes: Sizes::default(),
            write_sizes: Sizes::default(),
            rate: BusyRate::default(),
        }
    }
}

impl Fold {
    /// `[reads/s, writes/s, bytes/read, bytes/write, queue]`.
    fn add(&mut self, s: &[f64; 5]) {
        self.samples += 1;
        self.reads += s[0];
        self.writes += s[1];
        self.queue += s[4];
        self.read_sizes.add(s[2], s[0]);
        self.write_sizes.add(s[3], s[1]);
        self.rate.add(s[0] + s[1]);
    }

    /// The profile; `None` when no sample saw any I/O.
    fn profile(self, coverage_pct: f64) -> Option<AccessProfile> {
        if self.samples == 0 || self.reads + self.writes <= 0.0 {
            return None;
        }
        let (reads, reads_between) = self.read_sizes.finish(coverage_pct);
        let (writes, writes_between) = self.write_sizes.finish(coverage_pct);
        Some(AccessProfile {
            samples: self.samples,
            iops: self.rate.rate(),
            read_pct: 100.0 * self.reads / (self.reads + self.writes),
            reads,
            writes,
            reads_between,
            writes_between,
            outstanding: self.queue / self.samples as f64,
        })
    }
}

/// `AccessProfile::iops` in one pass: the first sample with I/O is kept aside, and the latest
/// held back until the next shows it was not the last; the ones between are summed. The
/// first four are kept too, for a log with fewer than five.
struct BusyRate {
    count: usize,
    first: [f64; 4],
    held: Option<f64>,
    inner: f64,
}

impl Default for BusyRate {
    fn default() -> BusyRate {
        BusyRate { count: 0, first: [0.0; 4], held: None, inner: zero() }
    }
}

impl BusyRate {
    fn add(&mut self, ios: f64) {
        if ios <= 0.0 {
            return;
        }
        if let Some(slot) = self.first.get_mut(self.count) {
            *slot = ios;
        }
        if self.count > 0 {
            if let Some(h) = self.held {
                self.inner += h;
            }
            self.held = Some(ios);
        }
        self.count += 1;
    }

    fn rate(&self) -> f64 {
        if self.count >= 5 {
            self.inner / (self.count - 2) as f64
        } else {
            self.first[..self.count].iter().sum::<f64>() / self.count.max(1) as f64
        }
    }
}

impl AccessProfile {
    /// Whether the disk looks like a database's log: nearly all writes (at most 5% reads),
    /// small ones (at most 64 KiB for nearly all), one or two at a time. Counters cannot tell
    /// sequential from random, nor say what was flushed; a log's writes are sequential and each
    /// waited for, so a replay that wrote them at random, unflushed, would not be the log.
    pub fn looks_like_log(&self) -> bool {
        let small: f64 = self.writes.iter().filter(|c| c.bytes <= 64 << 10).map(|c| c.pct).sum();
        self.read_pct <= 5.0 && self.outstanding <= 2.0 && small >= 95.0
    }
}

/// The power of two nearest `bytes` (in log terms), at least a sector.
pub fn size_class(bytes: f64) -> u64 {
    if bytes <= MIN_CLASS as f64 {
        return MIN_CLASS;
    }
    let exp = bytes.log2().round().min(40.0) as u32;
    (1u64 << exp).max(MIN_CLASS)
}

/// `(average size, I/Os per second)` per sample to the classes covering `coverage_pct` of the
/// I/Os, largest share first, shares renormalized to 100.
#[cfg(test)]
fn classes(samples: impl Iterator<Item = (f64, f64)>, coverage_pct: f64) -> Vec<SizeShare> {
    let mut weights: Vec<(u64, f64)> = Vec::new();
    for (size, ios) in samples {
        weigh(&mut weights, size, ios);
    }
    covering(weights, coverage_pct)
}

/// One sample's I/Os added to its size class's weight (classes in the order first seen).
fn weigh(weights: &mut Vec<(u64, f64)>, size: f64, ios: f64) {
    if ios <= 0.0 || size <= 0.0 {
        return;
    }
    let class = size_class(size);
    match weights.iter_mut().find(|(c, _)| *c == class) {
        Some((_, w)) => *w += ios,
        None => weights.push((class, ios)),
    }
}

/// The classes covering `coverage_pct` of the weights, largest first, shares renormalized to
/// 100.
fn covering(mut weights: Vec<(u64, f64)>, coverage_pct: f64) -> Vec<SizeShare> {
    let total: f64 = weights.iter().map(|(_, w)| w).sum();
    if total <= 0.0 {
        return Vec::new();
    }
    weights.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut kept = Vec::new();
    let mut covered = 0.0;
    for (class, w) in weights {
        kept.push((class, w));
        covered += w;
        if 100.0 * covered / total >= coverage_pct {
            break;
        }
    }
    kept.into_iter().map(|(bytes, w)| SizeShare { bytes, pct: 100.0 * w / covered }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(rows: &[[f64; 5]]) -> CounterTable {
        let columns = NEEDED.iter().map(|n| format!("\\\\H\\PhysicalDisk(0 C:)\\{n}")).collect::<Vec<_>>();
        let mut columns = columns;
        columns.push("\\\\H\\PhysicalDisk(_Total)\\Disk Reads/sec".into());
        CounterTable {
            format: "(PDH-CSV 4.0)".into(),
            columns,
            times: rows.iter().map(|_| "t".to_string()).collect(),
            rows: rows.iter().map(|r| r.iter().map(|v| Some(*v)).chain([Some(0.0)]).collect()).collect(),
            skipped: vec![],
        }
    }

    fn opts() -> Options {
        Options { min_queue: 2.0, coverage_pct: 80.0, ..Options::default() }
    }

    #[test]
    fn values_beyond_any_disk_are_left_out_and_counted() {
        let mut rows = vec![[100.0, 100.0, 8192.0, 8192.0, 1.0]; 3];
        rows.push([1e308; 5]);
        rows.push([100.0, 100.0, 8192.0, 8192.0, f64::MAX]);
        let p = characterize(&log(&rows), &opts()).unwrap();
        assert_eq!(p[0].impossible, 2);
        let all = p[0].all.as_ref().unwrap();
        assert_eq!(all.samples, 3);
        assert!(all.read_pct.is_finite() && all.outstanding == 1.0);
        let only_bad = characterize(&log(&[[1e308; 5]]), &opts()).unwrap();
        assert!(only_bad[0].all.is_none() && only_bad[0].impossible == 1);
    }

    #[test]
    fn seed_002s_tempdb_shape_comes_back() {
        // Quiet samples of small writes; busy samples of 64K writes and some 64K/8K reads.
        let mut rows = vec![[0.0, 100.0, 0.0, 512.0, 0.5]; 10];
        rows.extend(vec![[10.0, 900.0, 65536.0, 65536.0, 600.0]; 8]);
        rows.extend(vec![[10.0, 900.0, 8192.0, 60000.0, 580.0]; 4]);
        let p = characterize(&log(&rows), &opts()).unwrap();
        assert_eq!(p.len(), 1, "_Total is not a device");
        assert_eq!(p[0].device, "0 C:");
        let busy = p[0].busy.as_ref().unwrap();
        assert_eq!(busy.samples, 12);
        assert!((busy.read_pct - 100.0 * 120.0 / 10_920.0).abs() < 1e-9);
        assert_eq!(busy.writes, vec![SizeShare { bytes: 65536, pct: 100.0 }]);
        assert_eq!(busy.reads.iter().map(|s| s.bytes).collect::<Vec<_>>(), [65536, 8192]);
        assert!((busy.reads[0].pct - 200.0 / 3.0).abs() < 1e-9);
        assert!((busy.outstanding - (8.0 * 600.0 + 4.0 * 580.0) / 12.0).abs() < 1e-9);
        let all = p[0].all.as_ref().unwrap();
        assert_eq!(all.samples, 22);
        assert_eq!(all.writes[0].bytes, 65536, "64K writes are most of the I/Os");
    }

    #[test]
    fn the_rate_is_over_busy_samples_and_a_log_is_small_writes_one_at_a_time() {
        // A redo log: 1-2 KiB writes, one outstanding, with idle samples between.
        let mut rows = vec![[0.0, 0.0, 0.0, 0.0, 0.0]; 6];
        rows.push([0.0, 30.0, 0.0, 1536.0, 1.0]);
        rows.extend(vec![[0.0, 300.0, 0.0, 1536.0, 1.1]; 6]);
        rows.push([0.0, 90.0, 0.0, 1536.0, 1.0]);
        let log = characterize(&log(&rows), &opts()).unwrap()[0].all.clone().unwrap();
        assert_eq!(log.iops, 300.0, "idle samples, and the two the work only partly covered, do not dilute it");
        assert!(log.looks_like_log(), "{log:?}");
        // Data files: reads, or deep queues, or large writes are no log.
        for row in
            [[100.0, 300.0, 8192.0, 1536.0, 1.0], [0.0, 300.0, 0.0, 1536.0, 8.0], [0.0, 300.0, 0.0, 262144.0, 1.0]]
        {
            let p = characterize(&log_of(row), &opts()).unwrap()[0].all.clone().unwrap();
            assert!(!p.looks_like_log(), "{row:?}: {p:?}");
        }
    }

    /// A real iostat report (jc's Ubuntu 20.10 sample): dm-0 read 41.48 kB and wrote 18.04 kB
    /// a request on average, sizes the method names 32K and 16K.
    #[test]
    fn a_real_logs_means_between_sizes_are_counted_apart() {
        let text = include_str!("../../formats/testdata/jc_ubuntu-20.10_iostat-x.out");
        let table = spindle_formats::read_counter_log(text).unwrap();
        let o = Options { device: Some("dm-0".into()), ..opts() };
        let p = characterize(&table, &o).unwrap()[0].all.clone().unwrap();
        assert_eq!((p.reads[0].bytes, p.writes[0].bytes), (32768, 16384));
        let reads = p.reads_between.expect("41.48 kB is no size the replay issues");
        assert!((reads.mean_bytes - 41.48 * 1024.0).abs() < 1e-6 && reads.pct == 100.0, "{reads:?}");
        assert_eq!((reads.mix_of, reads.replayed_as), (Some([32768, 65536]), vec![32768]));
        let writes = p.writes_between.unwrap();
        assert_eq!((writes.mix_of, writes.replayed_as), (Some([16384, 32768]), vec![16384]));
    }

    fn log_of(row: [f64; 5]) -> CounterTable {
        log(&[row; 3])
    }

    #[test]
    fn coverage_keeps_the_largest_classes() {
        let c = classes([(8192.0, 70.0), (65536.0, 15.0), (512.0, 10.0), (1_048_576.0, 5.0)].into_iter(), 80.0);
        assert_eq!(c.iter().map(|s| s.bytes).collect::<Vec<_>>(), [8192, 65536]);
        assert!((c[0].pct + c[1].pct - 100.0).abs() < 1e-9);
        assert_eq!(
            (size_class(0.0), size_class(700.0), size_class(6000.0), size_class(12288.0)),
            (512, 512, 8192, 16384),
            "6000 is nearer 8K than 4K in ratio"
        );
    }

    #[test]
    fn localized_logs_by_name_or_position() {
        // A Russian Windows names the object and its counters in Russian.
        let names = [
            "Обращений чтения с диска/с",
            "Обращений записи на диск/с",
            "Среднее число байт диска при чтении",
            "Среднее число байт диска при записи",
            "Средняя длина очереди диска",
        ];
        let mut t = log(&[[100.0, 300.0, 8192.0, 65536.0, 4.0]]);
        t.columns = names.iter().map(|n| format!("\\\\H\\Физический диск(0 C:)\\{n}")).collect();
        t.rows[0].pop();
        assert_eq!(characterize(&t, &opts()).unwrap_err(), CharacterizeError::NoDisks(vec!["Физический диск".into()]));
        let object = Some("Физический диск".to_string());
        let named = Options { object: object.clone(), names: CounterNames::Named(names.map(String::from)), ..opts() };
        let p = characterize(&t, &named).unwrap();
        assert_eq!(p[0].all.as_ref().unwrap().read_pct, 25.0);
        let by_position = Options { object, names: CounterNames::Positions([1, 2, 3, 4, 5]), ..opts() };
        assert_eq!(characterize(&t, &by_position).unwrap(), p);
        let too_far = Options { names: CounterNames::Positions([1, 2, 3, 4, 9]), ..by_position };
        assert!(characterize(&t, &too_far).unwrap_err().to_string().contains("position 9 (the disk has 5 columns)"));
        let wrong = Options { object: Some("Disk".into()), ..opts() };
        assert!(characterize(&t, &wrong).unwrap_err().to_string().contains("it has: Физический диск"));
    }

    #[test]
    fn missing_counters_and_devices_are_named() {
        let mut t = log(&[[1.0, 1.0, 4096.0, 4096.0, 1.0]]);
        t.columns[3] = "\\\\H\\PhysicalDisk(0 C:)\\Something else".into();
        assert_eq!(
            characterize(&t, &opts()).unwrap_err().to_string(),
            "the log lacks counters the method needs for 0 C:: Avg. Disk Bytes/Write"
        );
        let o = Options { device: Some("sdb".into()), ..opts() };
        assert_eq!(
            characterize(&log(&[]), &o).unwrap_err(),
            CharacterizeError::NoSuchDevice { asked: "sdb".into(), available: vec!["0 C:".into()] }
        );
        let other = CounterTable { columns: vec!["\\\\H\\Memory\\Pages/sec".into()], ..CounterTable::default() };
        assert_eq!(characterize(&other, &opts()).unwrap_err(), CharacterizeError::NoDisks(vec!["Memory".into()]));
        assert_eq!(characterize(&log(&[]), &opts()).unwrap()[0].all, None, "an empty log has no profile");
    }
}

/// The method as it was before it streamed, over a whole table, kept to check the streaming
/// fold against: the same profiles, to the last bit, on real and generated logs.
#[cfg(test)]
mod whole_table {
    use super::*;
    use spindle_formats::stream::LogReader;

    pub fn characterize(table: &CounterTable, opts: &Options) -> Result<Vec<DeviceProfile>, CharacterizeError> {
        let objects: Vec<&str> = {
            let mut seen: Vec<&str> = Vec::new();
            for (obj, _, _) in table.columns.iter().filter_map(|c| split_path(c)) {
                if !seen.contains(&obj) {
                    seen.push(obj);
                }
            }
            seen
        };
        let object: &str = match &opts.object {
            Some(asked) => {
                objects.iter().copied().find(|o| o == asked).ok_or_else(|| CharacterizeError::NoSuchObject {
                    asked: asked.clone(),
                    available: objects.iter().map(|o| o.to_string()).collect(),
                })?
            }
            // PhysicalDisk is what the method is about; LogicalDisk stands in for logs without it.
            None => ["PhysicalDisk", "LogicalDisk"]
                .into_iter()
                .find(|o| objects.contains(o))
                .ok_or_else(|| CharacterizeError::NoDisks(objects.iter().map(|o| o.to_string()).collect()))?,
        };
        let mut devices: Vec<String> = Vec::new();
        for c in &table.columns {
            if let Some((obj, Some(inst), _)) = split_path(c) {
                if obj == object && inst != "_Total" && !devices.iter().any(|d| d == inst) {
                    devices.push(inst.to_string());
                }
            }
        }
        if let Some(asked) = &opts.device {
            if !devices.contains(asked) {
                return Err(CharacterizeError::NoSuchDevice { asked: asked.clone(), available: devices });
            }
            devices = vec![asked.clone()];
        }
        devices
            .into_iter()
            .map(|device| {
                // This disk's columns, in the log's order.
                let own: Vec<(usize, &str)> = table
                    .columns
                    .iter()
                    .enumerate()
                    .filter_map(|(i, c)| match split_path(c) {
                        Some((obj, Some(inst), counter)) if obj == object && inst == device => Some((i, counter)),
                        _ => None,
                    })
                    .collect();
                let by_name = |name: &str| own.iter().find(|(_, c)| *c == name).map(|(i, _)| *i);
                let (cols, wanted): (Vec<Option<usize>>, Vec<String>) = match &opts.names {
                    CounterNames::English => {
                        (NEEDED.iter().map(|n| by_name(n)).collect(), NEEDED.iter().map(|n| n.to_string()).collect())
                    }
                    CounterNames::Named(names) => (names.iter().map(|n| by_name(n)).collect(), names.to_vec()),
                    CounterNames::Positions(positions) => (
                        positions.iter().map(|p| p.checked_sub(1).and_then(|p| own.get(p)).map(|(i, _)| *i)).collect(),
                        positions
                            .iter()
                            .zip(NEEDED)
                            .map(|(p, n)| format!("{n} at position {p} (the disk has {} columns)", own.len()))
                            .collect(),
                    ),
                };
                let missing: Vec<String> =
                    wanted.into_iter().zip(&cols).filter(|(_, c)| c.is_none()).map(|(n, _)| n).collect();
                if !missing.is_empty() {
                    return Err(CharacterizeError::MissingCounters { device, missing });
                }
                let cols: Vec<usize> = cols.into_iter().flatten().collect();
                let samples: Vec<[f64; 5]> = table
                    .rows
                    .iter()
                    .filter_map(|row| {
                        // Straight into an array: a week of samples is 600,000 rows a disk.
                        let mut sample = [0.0; 5];
                        for (slot, &c) in sample.iter_mut().zip(&cols) {
                            *slot = row.get(c).copied().flatten()?;
                        }
                        Some(sample)
                    })
                    .filter(|s: &[f64; 5]| s.iter().all(|x| *x >= 0.0))
                    .collect();
                let usable = samples.len();
                let samples: Vec<[f64; 5]> =
                    samples.into_iter().filter(|s| s.iter().zip(PLAUSIBLE).all(|(x, max)| *x <= max)).collect();
                let impossible = usable - samples.len();
                let busy: Vec<[f64; 5]> = samples.iter().copied().filter(|s| s[4] > opts.min_queue).collect();
                Ok(DeviceProfile {
                    device,
                    all: profile(&samples, opts.coverage_pct),
                    busy: profile(&busy, opts.coverage_pct),
                    impossible,
                })
            })
            .collect()
    }

    /// `[reads/s, writes/s, bytes/read, bytes/write, queue]` samples to a profile; `None` when no
    /// sample saw any I/O.
    fn profile(samples: &[[f64; 5]], coverage_pct: f64) -> Option<AccessProfile> {
        let reads: f64 = samples.iter().map(|s| s[0]).sum();
        let writes: f64 = samples.iter().map(|s| s[1]).sum();
        if samples.is_empty() || reads + writes <= 0.0 {
            return None;
        }
        let n = samples.len() as f64;
        let (reads_between, writes_between) = (
            between(samples.iter().map(|s| (s[2], s[0])), coverage_pct),
            between(samples.iter().map(|s| (s[3], s[1])), coverage_pct),
        );
        Some(AccessProfile {
            samples: samples.len(),
            iops: busy_rate(samples),
            read_pct: 100.0 * reads / (reads + writes),
            reads: classes(samples.iter().map(|s| (s[2], s[0])), coverage_pct),
            writes: classes(samples.iter().map(|s| (s[3], s[1])), coverage_pct),
            reads_between,
            writes_between,
            outstanding: samples.iter().map(|s| s[4]).sum::<f64>() / n,
        })
    }

    fn busy_rate(samples: &[[f64; 5]]) -> f64 {
        let busy: Vec<f64> = samples.iter().map(|s| s[0] + s[1]).filter(|ios| *ios > 0.0).collect();
        let inner = if busy.len() >= 5 { &busy[1..busy.len() - 1] } else { &busy[..] };
        inner.iter().sum::<f64>() / inner.len().max(1) as f64
    }

    fn classes(samples: impl Iterator<Item = (f64, f64)>, coverage_pct: f64) -> Vec<SizeShare> {
        let mut weights: Vec<(u64, f64)> = Vec::new();
        for (size, ios) in samples {
            if ios <= 0.0 || size <= 0.0 {
                continue;
            }
            let class = size_class(size);
            match weights.iter_mut().find(|(c, _)| *c == class) {
                Some((_, w)) => *w += ios,
                None => weights.push((class, ios)),
            }
        }
        super::covering(weights, coverage_pct)
    }

    /// What of one direction's samples lay between size classes, over the whole table at once
    /// (the sizes' own fold, fed every sample: what is checked here is the streaming around it).
    fn between(samples: impl Iterator<Item = (f64, f64)>, coverage_pct: f64) -> Option<MeanBetween> {
        let mut sizes = super::Sizes::default();
        for (size, ios) in samples {
            sizes.add(size, ios);
        }
        sizes.finish(coverage_pct).1
    }

    /// `text` read a line at a time and folded as it goes, no table kept.
    fn streamed(text: &str, opts: &Options) -> Option<Result<Vec<DeviceProfile>, CharacterizeError>> {
        let mut reader = LogReader::new();
        let mut c = Characterizer::new(opts.clone());
        for line in text.split_inclusive('\n') {
            reader.line(line, &mut c).ok()?;
        }
        reader.finish(&mut c).ok()?;
        Some(c.finish())
    }

    /// Both ways over `text` with each set of options: equal to the bit (Debug prints every
    /// f64 exactly, -0.0 too).
    fn same_both_ways(name: &str, text: &str) -> usize {
        let table = spindle_formats::read_counter_log(text);
        let mut profiled = 0;
        for opts in options() {
            let whole = table.as_ref().ok().map(|t| characterize(t, &opts));
            let stream = streamed(text, &opts);
            assert_eq!(format!("{stream:?}"), format!("{whole:?}"), "{name} with {opts:?}");
            profiled += whole.iter().flatten().flatten().filter(|p| p.all.is_some()).count();
        }
        profiled
    }

    fn options() -> Vec<Options> {
        let base = Options { min_queue: 2.0, coverage_pct: 80.0, ..Options::default() };
        vec![
            base.clone(),
            Options { min_queue: 0.0, coverage_pct: 100.0, ..base.clone() },
            Options { min_queue: 0.5, coverage_pct: 50.0, ..base.clone() },
            Options {
                object: Some("LogicalDisk".into()),
                names: CounterNames::Positions([1, 2, 3, 4, 5]),
                ..base.clone()
            },
            Options { names: CounterNames::Positions([1, 2, 5, 6, 9]), ..base.clone() },
            Options { device: Some("sda".into()), ..base.clone() },
            Options { object: Some("Process".into()), names: CounterNames::Positions([1, 2, 1, 2, 1]), ..base },
        ]
    }

    #[test]
    fn streaming_gives_the_whole_tables_profiles_on_the_real_logs() {
        let mut profiled = 0;
        for (name, text) in [
            (
                "Narmadha6790_DataCollector01.csv",
                include_str!("../../formats/testdata/Narmadha6790_DataCollector01.csv"),
            ),
            ("jg185342_DataCollector02.csv", include_str!("../../formats/testdata/jg185342_DataCollector02.csv")),
            ("jc_centos-7.7_iostat-x.out", include_str!("../../formats/testdata/jc_centos-7.7_iostat-x.out")),
            ("jc_ubuntu-18.04_iostat-x.out", include_str!("../../formats/testdata/jc_ubuntu-18.04_iostat-x.out")),
            ("jc_ubuntu-20.10_iostat-x.out", include_str!("../../formats/testdata/jc_ubuntu-20.10_iostat-x.out")),
            (
                "sysstat_expected.iostat-x-p-ALL-JSON",
                include_str!("../../formats/testdata/sysstat_expected.iostat-x-p-ALL-JSON"),
            ),
        ] {
            profiled += same_both_ways(name, text);
        }
        // The shared copies, and any log added beside them, when this machine has them.
        for dir in ["/work/shared/testdata/perfmon", "/work/shared/testdata/iostat"] {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let Ok(bytes) = std::fs::read(entry.path()) else { continue };
                profiled += same_both_ways(&entry.path().display().to_string(), &String::from_utf8_lossy(&bytes));
            }
        }
        assert!(profiled > 20, "the logs give profiles to compare, not only errors: {profiled}");
    }

    /// A log shaped like bench/characterize-large.sh's, with what a real one has besides:
    /// idle stretches, blanks, negative and impossible values, malformed lines, a LogicalDisk
    /// and a _Total; and iostat reports with devices that come and go.
    #[test]
    fn streaming_gives_the_whole_tables_profiles_on_generated_logs() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let counters = [
            "Disk Reads/sec",
            "Disk Writes/sec",
            "Avg. Disk Bytes/Read",
            "Avg. Disk Bytes/Write",
            "Avg. Disk Queue Length",
            "% Disk Time",
        ];
        let mut cols = Vec::new();
        for object in ["PhysicalDisk(0 C:)", "PhysicalDisk(1 D:)", "PhysicalDisk(_Total)", "LogicalDisk(C:)"] {
            for c in counters {
                cols.push(format!("\"\\\\DB01\\{object}\\{c}\""));
            }
        }
        let mut text = format!("\"(PDH-CSV 4.0) (UTC)(0)\",{}\r\n", cols.join(","));
        for i in 0..20_000 {
            let idle = (i / 1000) % 3 == 0;
            let mut fields = vec![format!("\"11/01/2026 00:00:{:02}.000\"", i % 60)];
            for c in 0..cols.len() {
                let r = next();
                let v = match (c % counters.len(), r % 1000) {
                    (_, 0) => " ".to_string(),
                    (_, 1) => "-1".to_string(),
                    (_, 2) => "1e300".to_string(),
                    (0 | 1, _) if idle => "0".to_string(),
                    (0 | 1, _) => format!("{}", (r >> 20) as f64 / 1e6),
                    (2 | 3, _) => ["512", "8192", "65536", "61440", "0", "524288"][(r >> 12) as usize % 6].to_string(),
                    _ => format!("{}", (r >> 30) as f64 / 1e8),
                };
                fields.push(format!("\"{v}\""));
            }
            if i % 997 == 5 {
                fields.pop();
            }
            text.push_str(&fields.join(","));
            text.push_str("\r\n");
        }
        assert!(same_both_ways("generated perfmon", &text) > 0);

        let mut iostat = String::from("Linux 6.1 (db01) \t11/01/2026 \t_x86_64_\t(8 CPU)\n\n");
        for report in 0..300 {
            iostat.push_str(&format!(
                "11/01/2026 00:{:02}:{:02}\nDevice r/s w/s rkB/s wkB/s rareq-sz wareq-sz aqu-sz\n",
                report / 60,
                report % 60
            ));
            for dev in ["sda", "sdb", "nvme0n1"] {
                let r = next();
                if r % 4 == 0 {
                    continue;
                }
                iostat.push_str(&format!(
                    "{dev} {} {} 1 1 {} {} {}\n",
                    (r % 5000) as f64 / 10.0,
                    (r >> 16) % 3000,
                    [4, 8, 64, 0][(r >> 32) as usize % 4],
                    [4, 16, 128][(r >> 40) as usize % 3],
                    (r >> 48) % 9
                ));
            }
            iostat.push('\n');
        }
        assert!(same_both_ways("generated iostat", &iostat) > 0);
    }
}

/// Mutated real logs through the parser and the method: whatever the bytes, no panic (the
/// fuzz targets in fuzz/ do the same without end).
#[cfg(test)]
mod robustness {
    use super::*;

    #[test]
    fn mutated_logs_never_panic() {
        let seed = "\"(PDH-CSV 4.0)\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Reads/sec\",\"\\\\H\\PhysicalDisk(0 C:)\\Disk Writes/sec\",\
\"\\\\H\\PhysicalDisk(0 C:)\\Avg. Disk Bytes/Read\",\"\\\\H\\PhysicalDisk(0 C:)\\Avg. Disk Bytes/Write\",\
\"\\\\H\\PhysicalDisk(0 C:)\\Avg. Disk Queue Length\"\n\"t1\",\"10\",\"20\",\"8192\",\"65536\",\"3\"\n\"t2\",\" \",\"1e308\",\"-5\",\"0\",\"NaN\"\n";
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let opts = Options { min_queue: 2.0, coverage_pct: 80.0, ..Options::default() };
        let mut parsed = 0;
        for _ in 0..3000 {
            let mut bytes = seed.as_bytes().to_vec();
            for _ in 0..(next() % 6 + 1) {
                let at = (next() as usize) % bytes.len();
                match next() % 3 {
                    0 => bytes[at] = next() as u8,
                    1 => bytes.insert(at, b"\",\n9.-e "[(next() % 8) as usize]),
                    _ => {
                        bytes.remove(at);
                    }
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            let whole = spindle_formats::read_counter_log(&text);
            assert_eq!(spindle_formats::stream::read_lines(&text), whole, "read a line at a time: {text:?}");
            if let Ok(table) = spindle_formats::perfmon::parse(&text) {
                parsed += 1;
                assert!(table.rows.iter().all(|r| r.len() == table.columns.len()));
                let _ = characterize(&table, &opts);
            }
        }
        assert!(parsed > 100, "most mutations still parse, so the method is exercised: {parsed}");
    }
}
