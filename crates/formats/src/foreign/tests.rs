//! Every importer on the real files in testdata, figures checked against the files' own
//! numbers; and what breaks a file says where.

use super::*;

const SQLIO_READ: &str = include_str!("../../testdata/sqlio.random.read.8.8.G.txt");
const SQLIO_WRITE: &str = include_str!("../../testdata/sqlio.random.write.0.4.G.txt");
const SQLIO_SEQ: &str = include_str!("../../testdata/sqlio.sequential.write.8.64.G.txt");
const DISKSPD_RW: &str = include_str!("../../testdata/DiskSpdExample-ReadWrite.txt");
const DISKSPD_22: &str = include_str!("../../testdata/DiskSpdExample-WriteOnly-v2.2.0.txt");
const DISKSPD_NUMA: &str = include_str!("../../testdata/DiskSpdExample-WriteOnly-v2.2.0-MultiNumaMultiGroup.txt");
const FIO_31_READ: &str = include_str!("../../testdata/fio-plot_HPDL380G8-MX200_randread-1-1.json");
const FIO_31_WRITE: &str = include_str!("../../testdata/fio-plot_HPDL380G8-MX200_randwrite-8-64.json");
const FIO_218: &str = include_str!("../../testdata/fio-plot_example_data01_randread-01.json");
const FIO_333: &str = include_str!("../../testdata/bensonjohnson_fio.json");
const IOMETER_INST: &str = include_str!("../../testdata/quarch_insttestfile.csv");
/// DiskSpd's own expected -Rxml output, from its XmlResultParser unit test.
const DISKSPD_XML: &str = include_str!("../../testdata/diskspd-expected-results.xml");

const ALL: [&str; 11] = [
    SQLIO_READ,
    SQLIO_WRITE,
    SQLIO_SEQ,
    DISKSPD_RW,
    DISKSPD_22,
    DISKSPD_NUMA,
    FIO_31_READ,
    FIO_31_WRITE,
    FIO_218,
    FIO_333,
    IOMETER_INST,
];

fn one(text: &str) -> ForeignRun {
    let mut runs = parse(text).unwrap();
    assert_eq!(runs.len(), 1);
    runs.remove(0)
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() <= b.abs() * 1e-9 + 1e-9)
}

/// Found by the `foreign` fuzz target: a size no disk has once wrapped (or panicked in a
/// debug build) when turned into bytes. It is left out instead.
#[test]
fn sizes_beyond_any_disk_are_left_out_not_wrapped() {
    let huge = SQLIO_READ
        .replace("specified size: 50000 MB", "specified size: 99999999999999999 MB")
        .replace("using 8KB random", "using 99999999999999999KB random");
    let r = one(&huge);
    assert_eq!((r.target_size, r.block_size), (None, None));
}

/// Figures no device gives (1e308 IOPS, a negative rate, a job with none at all) made every
/// view of the store fail once imported: each file is refused, naming the run and the figure.
#[test]
fn absurd_figures_and_jobs_without_any_are_refused() {
    for (text, says) in [
        (FIO_31_READ.replacen("\"iops\" : 6614.073099", "\"iops\" : 1e308", 1), "IOPS is 1e308"),
        (FIO_31_READ.replacen("\"iops\" : 6614.073099", "\"iops\" : -1e308", 1), "IOPS is -1e308"),
        (SQLIO_READ.replace("IOs/sec: 22893.54", "IOs/sec: -5000"), "IOPS is -5000"),
        (
            r#"{"fio version": "fio-3.33", "jobs": [{"jobname": "a"}]}"#.to_string(),
            "job \"a\" has no \"read\" or \"write\"",
        ),
    ] {
        let e = parse(&text).unwrap_err();
        assert!(e.0.contains(says), "{says}: {e}");
    }
    assert!(parse(&SQLIO_READ.replace("IOs/sec: 22893.54", "IOs/sec: -5000")).unwrap_err().0.starts_with("run 1 ("));
    // Found by the foreign fuzz target: an IOMeter latency bin's bounds past any latency
    // overflowed the histogram its bins are summed in (a panic in a debug build).
    let bins = IOMETER_INST.replacen("50 to 100 uS", "50 to 1e112 uS", 1);
    assert!(parse(&bins).unwrap_err().0.contains("a latency bin's value is"), "{:?}", parse(&bins));
    // A duration of 1e-300 s (found while the fuzz seeds were made) made the rates
    // spindle works out from the counts 1e304 a second (and past the largest f64, infinite).
    let instant = DISKSPD_RW.replace("I/O per s", "I/O per x").replace("30.01s", "1e-300s");
    assert!(instant.contains("1e-300s"));
    assert!(
        parse(&instant).unwrap_err().0.contains("the I/O count over the duration is 3.5686e304"),
        "{:?}",
        parse(&instant)
    );
    // Found by the foreign fuzz target's 10-minute run: IOMeter read and write counts whose
    // sum, the run's total where the file prints none, overflows (a panic in a debug build).
    let overflow = include_bytes!("../../../../fuzz/seeds/foreign/iometer-counts-overflow.csv");
    let e = parse(&String::from_utf8_lossy(overflow)).unwrap_err();
    assert!(e.0.contains("add up past any count"), "{e}");
    for real in ALL.into_iter().chain([DISKSPD_XML]) {
        assert!(parse(real).is_ok());
    }
}

/// A line break in a file's words would print as a line of its own wherever the run is
/// listed: it is written out (an escape is kept, for the text views write it out themselves).
#[test]
fn line_breaks_in_a_files_words_are_written_out() {
    let fio = FIO_31_READ.replacen("\"jobname\" : \"", "\"jobname\" : \"line\\nfake\\r \\u001b[31m", 1);
    let run = one(&fio);
    assert!(run.name.starts_with("line\\nfake\\r \u{1b}[31m"), "{:?}", run.name);
}

#[test]
fn sqlio_runs_with_and_without_outstanding_ios() {
    let r = one(SQLIO_READ);
    assert_eq!((r.tool, r.tool_version.as_deref()), (Some(Tool::Sqlio), Some("1.5.SG")));
    assert_eq!((r.threads, r.queue_depth, r.block_size), (Some(64), Some(8), Some(8192)));
    assert_eq!((r.read_pct, r.random_pct, r.duration_s), (Some(100.0), Some(100.0), Some(15.0)));
    assert!(close(r.total.iops, 22893.54) && close(r.total.bytes_per_sec, 178.85 * 1_048_576.0));
    assert!(close(r.total.latency_mean_ns, 21e6) && close(r.total.latency_max_ns, 611e6));
    let h = r.sqlio_histogram_pct.unwrap();
    assert_eq!((h.len(), h[0], h[24]), (25, 9.0, 49.0));
    assert_eq!(r.target.as_deref(), Some("G:\\testfile.dat"));
    assert_eq!(r.target_size, Some(50_000 * 1_048_576));
    let w = one(SQLIO_WRITE);
    assert_eq!(
        (w.queue_depth, w.read_pct, w.block_size),
        (Some(1), Some(0.0), Some(4096)),
        "no outstanding line: one I/O a thread"
    );
    assert!(close(w.write.iops, 40299.0) && w.read.iops.is_none());
    let s = one(SQLIO_SEQ);
    assert_eq!((s.random_pct, s.block_size), (Some(0.0), Some(65536)));
    // Several runs in one file, one without latency lines.
    let cut: String = SQLIO_WRITE.lines().take_while(|l| !l.starts_with("latency")).map(|l| format!("{l}\n")).collect();
    let runs = parse(&format!("{SQLIO_READ}{cut}{SQLIO_SEQ}")).unwrap();
    assert_eq!(runs.len(), 3);
    assert!(runs[1].total.latency_mean_ns.is_none() && runs[1].sqlio_histogram_pct.is_none());
}

#[test]
fn diskspd_text_old_and_new_layouts() {
    let r = one(DISKSPD_RW);
    assert_eq!(r.tool, Some(Tool::Diskspd));
    assert_eq!((r.duration_s, r.warmup_s, r.threads, r.queue_depth), (Some(30.01), Some(15.0), Some(1), Some(1)));
    assert_eq!((r.block_size, r.read_pct, r.random_pct), (Some(4096), Some(70.0), Some(100.0)));
    assert_eq!((r.total.ios, r.total.bytes), (Some(35686), Some(146_169_856)));
    assert_eq!((r.read.ios, r.write.ios), (Some(25060), Some(10626)));
    assert!(close(r.total.iops, 1189.03) && close(r.total.latency_mean_ns, 0.840e6));
    assert!(close(r.read.latency_min_ns, 0.036e6) && close(r.write.latency_max_ns, 35.257e6));
    assert!(r.total.percentiles_ns.iter().any(|(p, ns)| *p == 99.0 && (ns - 4.713e6).abs() < 1.0));
    assert!(r.total.percentiles_ns.iter().any(|(p, _)| (p - 99.9).abs() < 1e-9));
    assert!(close(r.cpu_pct, 0.82));
    assert_eq!(r.started_at.as_deref(), Some("2021-04-16T19:03:38Z"));
    assert_eq!(r.threads_detail.len(), 1);
    assert_eq!(r.target.as_deref(), Some("diskspd.dat"));

    let r = one(DISKSPD_22);
    assert_eq!((r.threads, r.queue_depth, r.block_size, r.read_pct), (Some(800), Some(3), Some(4096), Some(0.0)));
    assert_eq!((r.total.ios, r.duration_s), (Some(2_017_883_745), Some(900.0)));
    assert!(close(r.total.iops, 2242082.85));
    assert_eq!(r.tool_version.as_deref(), Some("2.2.0"));
    assert!(r.command_line.as_deref().unwrap().contains("-o3"));
    assert!(r.read.latency_mean_ns.is_none_or(|v| v == 0.0) && r.read.latency_min_ns.is_none(), "N/A is absent");

    let r = one(DISKSPD_NUMA);
    assert_eq!((r.threads, r.queue_depth, r.block_size, r.read_pct), (Some(4), Some(4), Some(4096), Some(0.0)));
    assert_eq!(r.duration_s, Some(5.0));
    assert!(r.notes.is_empty(), "a command line is there");
}

#[test]
fn a_diskspd_text_file_cut_short_is_refused_not_imported_without_its_split() {
    // Cut at each table's title in turn: what follows it (its rows and total) is gone.
    for (cut_at, missing) in [("Read IO", "Read IO"), ("Write IO", "Write IO"), ("  %-ile", "latency")] {
        let end = DISKSPD_RW.find(&format!("\n{cut_at}")).unwrap_or_else(|| panic!("{cut_at} in the file"));
        let cut = &DISKSPD_RW[..end];
        let err = parse(cut).expect_err(cut_at).to_string();
        assert!(err.contains(missing) && err.contains("cut short"), "{cut_at}: {err}");
    }
}

/// A file cut inside its latency table once imported as complete with the percentiles after
/// the cut (and the max) as 0 ns: cut after each row before `max`, or inside a row, it is
/// refused, naming the table's header line.
#[test]
fn a_diskspd_text_file_cut_inside_its_latency_table_is_refused() {
    let header = DISKSPD_RW.find("  %-ile |").unwrap();
    let header_line = DISKSPD_RW[..header].lines().count() + 1;
    let max = DISKSPD_RW.find("\n    max |").unwrap();
    let ends: Vec<usize> = DISKSPD_RW[header..max].match_indices('\n').map(|(i, _)| header + i).collect();
    assert!(ends.len() > 10, "a row per percentile");
    for end in ends.into_iter().chain([max]) {
        let err = parse(&DISKSPD_RW[..end]).expect_err("cut inside the table").0;
        assert!(err.starts_with(&format!("line {header_line}:")) && err.contains("cut short"), "{err}");
    }
    let mid_row = DISKSPD_RW.find("   95th |").unwrap() + 20;
    assert!(parse(&DISKSPD_RW[..mid_row]).is_err(), "cut inside a row");
    let whole = one(DISKSPD_RW);
    assert!(close(whole.total.latency_max_ns, 35.257e6), "the whole table reads");
}

#[test]
fn fio_json_2x_3x_signal_text_and_group_reporting() {
    let r = one(FIO_31_READ);
    assert_eq!((r.tool, r.tool_version.as_deref()), (Some(Tool::Fio), Some("3.1")));
    assert_eq!(
        (r.read_pct, r.random_pct, r.block_size, r.queue_depth),
        (Some(100.0), Some(100.0), Some(4096), Some(1))
    );
    let ios = r.read.ios.unwrap();
    assert_eq!(r.read.bytes, Some(ios * 4096));
    assert!(r.total.iops.unwrap() > 6000.0 && r.total.percentiles_ns.iter().any(|(p, _)| *p == 99.0));
    assert_eq!(r.started_at.as_deref(), Some("2019-08-04T08:39:30Z"), "from the Unix timestamp, not the local time");

    let w = one(FIO_31_WRITE);
    assert_eq!((w.threads, w.queue_depth, w.read_pct), (Some(64), Some(8), Some(0.0)));
    assert!(w.total.iops.unwrap() > 6500.0);

    let old = one(FIO_218);
    assert_eq!(old.read.ios, Some(4392));
    assert_eq!(old.read.bytes, Some(17568 * 1024), "fio 2.18 io_bytes are KiB");
    assert!(close(old.read.latency_mean_ns, 13652.220173 * 1000.0), "usec -> ns");
    assert_eq!(old.queue_depth, Some(1), "iodepth \"01\"");

    let sig = one(FIO_333);
    assert_eq!(sig.tool_version.as_deref(), Some("3.33"));
    assert_eq!((sig.read_pct, sig.random_pct, sig.queue_depth), (Some(50.0), Some(0.0), Some(16)));
    assert!(sig.read.ios.unwrap() > 0 && sig.write.ios.unwrap() > 0);
    assert_eq!(sig.total.ios, Some(sig.read.ios.unwrap() + sig.write.ios.unwrap()));
    assert_eq!(sig.started_at.as_deref(), Some("2023-05-21T20:23:33Z"));

    // Two documents in one file (--status-interval), with text between.
    let runs = parse(&format!("{FIO_31_READ}\nfio: some message\n{FIO_31_WRITE}")).unwrap();
    assert_eq!(runs.len(), 2);
}

#[test]
fn iometer_instantaneous_results() {
    let r = one(IOMETER_INST);
    assert_eq!((r.tool, r.tool_version.as_deref()), (Some(Tool::Iometer), Some("1.1.0")));
    assert!(close(r.total.iops, 8527.872164));
    assert!(close(r.total.bytes_per_sec, 279.441315e6));
    assert_eq!((r.block_size, r.read_pct, r.random_pct, r.threads), (Some(32768), Some(100.0), Some(0.0), Some(4)));
    assert!(close(r.total.latency_mean_ns, 0.468648e6));
    assert_eq!(r.started_at.as_deref(), Some("2023-03-27T13:14:31Z"));
    assert!(r.name.starts_with("quarch-autogenerated-spec"));
    assert!(r.threads_detail.is_empty(), "per-update worker records are not threads");
    let bins = &r.total.histogram_ns;
    assert_eq!(
        (bins.len(), bins[0], bins[3]),
        (21, (25_000, 460), (350_000, 72929)),
        "the latency bins, at their middles"
    );
    assert_eq!(bins.last(), Some(&(10_000_000_000, 0)));
}

#[test]
fn a_results_file_with_many_tests_is_a_run_per_test() {
    // The instantaneous file's test repeated as a results file would hold it: 64 tests.
    let block: String = IOMETER_INST.lines().filter(|l| !l.contains(",WORKER,")).map(|l| format!("{l}\n")).collect();
    let many = block.repeat(64);
    let started = std::time::Instant::now();
    let runs = parse(&many).unwrap();
    assert_eq!(runs.len(), 64);
    assert!(started.elapsed().as_secs() < 5);
}

#[test]
fn bom_crlf_and_no_final_newline() {
    let expected = one(DISKSPD_RW);
    let crlf = DISKSPD_RW.replace('\n', "\r\n");
    let variant = format!("\u{feff}{}", crlf.trim_end());
    let got = one(&variant);
    assert_eq!(got.total, expected.total);
    assert_eq!(got.read.percentiles_ns, expected.read.percentiles_ns);
    assert_eq!(one(SQLIO_READ.trim_end()).sqlio_histogram_pct, one(SQLIO_READ).sqlio_histogram_pct);
}

#[test]
fn broken_files_say_where_and_import_nothing() {
    let e = parse("hello\nworld\n").unwrap_err();
    assert!(e.0.contains("SQLIO text") && e.0.contains("fio JSON"), "{e}");
    assert_eq!(parse("").unwrap_err().0, "the file is empty");
    let cut = &SQLIO_READ[..SQLIO_READ.find("IOs/sec").unwrap()];
    assert!(parse(cut).unwrap_err().0.starts_with("line 1:"), "the run that is cut short is named");
    let cut_json = &FIO_31_READ[..FIO_31_READ.len() / 2];
    assert!(parse(cut_json).unwrap_err().0.starts_with("line "), "{:?}", parse(cut_json));
    let cut = &DISKSPD_RW[..DISKSPD_RW.find("Total IO").unwrap()];
    assert!(parse(cut).unwrap_err().0.contains("no Total IO"), "{:?}", parse(cut));
    let bad = SQLIO_READ.replace("IOs/sec: 22893.54", "IOs/sec: lots");
    assert!(parse(&bad).unwrap_err().0.starts_with("line 12:"), "{:?}", parse(&bad));
}

#[test]
fn no_prefix_of_any_file_panics() {
    for text in ALL {
        let mut i = 0;
        while i < text.len() {
            if text.is_char_boundary(i) {
                let _ = parse(&text[..i]);
            }
            i += 7;
        }
    }
    for garbage in
        ["sqlio v", "Results for timespan 1:\nTotal IO\n total: | x", "{\"fio version\": 3}", "'Results\n,,,"]
    {
        let _ = parse(garbage);
    }
}

/// IOMeter 2006/2008's results layout (56 columns, `MBps` in binary megabytes, no latency
/// bins), from its header as IOMeter writes it; the figures are those of the real 1.1.0 file's
/// ALL row, moved to the old columns by name, followed by a WORKER row as results files hold
/// them (after the ALL row).
#[test]
fn iometer_2006_layout_with_workers_after_the_all_row() {
    const HEADER_2006: &str = "'Target Type,Target Name,Access Specification Name,# Managers,# Workers,# Disks,IOps,Read IOps,Write IOps,MBps,Read MBps,Write MBps,Transactions per Second,Connections per Second,Average Response Time,Average Read Response Time,Average Write Response Time,Average Transaction Time,Average Connection Time,Maximum Response Time,Maximum Read Response Time,Maximum Write Response Time,Maximum Transaction Time,Maximum Connection Time,Errors,Read Errors,Write Errors,Bytes Read,Bytes Written,Read I/Os,Write I/Os,Connections,Transactions per Connection,Total Raw Read Response Time,Total Raw Write Response Time,Total Raw Transaction Time,Total Raw Connection Time,Maximum Raw Read Response Time,Maximum Raw Write Response Time,Maximum Raw Transaction Time,Maximum Raw Connection Time,Total Raw Run Time,Starting Sector,Maximum Size,Queue Depth,% CPU Utilization,% User Time,% Privileged Time,% DPC Time,% Interrupt Time,Processor Speed,Interrupts per Second,CPU Effectiveness,Packets/Second,Packet Errors,Segments Retransmitted/Second";
    let lines: Vec<&str> = IOMETER_INST.lines().collect();
    let new_header: Vec<&str> = lines.iter().find(|l| l.starts_with("TimeStamp,")).unwrap().split(',').collect();
    let all: Vec<&str> = lines.iter().find(|l| l.contains(",ALL,")).unwrap().split(',').collect();
    let value = |name: &str| {
        let name = if name == "MBps" { "MBps (Binary)" } else { name };
        let name = name.strip_prefix("Read MBps").map_or(name, |_| "Read MBps (Binary)");
        let name = name.strip_prefix("Write MBps").map_or(name, |_| "Write MBps (Binary)");
        new_header.iter().position(|h| h.trim_start_matches('\'') == name).map_or("", |i| all[i])
    };
    let row = |kind: &str, target: &str| {
        HEADER_2006
            .split(',')
            .map(|h| match h.trim_start_matches('\'') {
                "Target Type" => kind.to_string(),
                "Target Name" => target.to_string(),
                other => value(other).to_string(),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let text = format!(
        "'Test Type,Test Description\n0,32K Sequential Read\n'Version\n2006.07.27\n'Time Stamp\n2008-01-02 03:04:05:006\n\
'Access specifications\n'Access specification name,default assignment\n32K seq,0\n'size,% of size,% reads,% random,delay,burst,align,reply\n\
32768,100,100,0,0,1,0,0\n'End access specifications\n'Results\n{HEADER_2006}\n{}\n{}\n{}\n{}\n'Time Stamp\n2008-01-02 03:05:05:006\n",
        row("ALL", "All"),
        row("MANAGER", "host"),
        // As IOMeter 2008 writes a processor's row: its CPU figures, the I/O columns empty.
        HEADER_2006
            .split(',')
            .map(|h| match h.trim_start_matches('\'') {
                "Target Type" => "PROCESSOR",
                "Target Name" => "CPU 0",
                "% CPU Utilization" => "12.5",
                _ => "",
            })
            .collect::<Vec<_>>()
            .join(","),
        row("WORKER", "Worker 1")
    );
    let r = one(&text);
    assert_eq!(
        (r.tool_version.as_deref(), r.started_at.as_deref()),
        (Some("2006.07.27"), Some("2008-01-02T03:04:05Z"))
    );
    assert!(close(r.total.iops, 8527.872164));
    assert!(close(r.total.bytes_per_sec, 266.496005 * 1_048_576.0), "2006's MBps are binary");
    assert_eq!((r.block_size, r.read_pct, r.threads), (Some(32768), Some(100.0), Some(4)));
    assert_eq!(r.threads_detail.len(), 1, "the WORKER row after ALL is the run's thread");
    assert_eq!(r.threads_detail[0].target.as_deref(), Some("Worker 1"));
}

#[test]
fn diskspd_xml_results() {
    let r = one(DISKSPD_XML);
    assert_eq!((r.tool, r.tool_version.as_deref()), (Some(Tool::Diskspd), Some("2.2.0")));
    assert_eq!((r.duration_s, r.threads, r.cpu_pct), (Some(120.0), Some(1), Some(18.33)));
    assert_eq!((r.total.ios, r.total.bytes), (Some(16), Some(6_291_456)));
    assert_eq!(
        (r.read.ios, r.read.bytes, r.write.ios, r.write.bytes),
        (Some(6), Some(4_194_304), Some(10), Some(2_097_152))
    );
    assert!(close(r.total.iops, 16.0 / 120.0));
    assert_eq!((r.block_size, r.queue_depth, r.random_pct, r.read_pct), (Some(65536), Some(2), Some(0.0), Some(100.0)));
    assert_eq!((r.target.as_deref(), r.target_size, r.warmup_s), (Some("testfile1.dat"), Some(10_485_760), Some(5.0)));
    assert!(r.total.latency_mean_ns.is_none() && r.notes.iter().any(|n| n.contains("-L")), "no latency without -L");

    // With -L, DiskSpd adds a <Latency> element (as XmlResultParser prints it) to each time span.
    let latency = "<Latency ReadHistoBuckets=\"6\" WriteHistoBuckets=\"10\" TotalHistoBuckets=\"16\">\n\
        <AverageReadMilliseconds>0.250</AverageReadMilliseconds>\n<ReadLatencyStdev>0.010</ReadLatencyStdev>\n\
        <AverageTotalMilliseconds>0.400</AverageTotalMilliseconds>\n<LatencyStdev>0.020</LatencyStdev>\n\
        <Bucket>\n<Percentile>0</Percentile>\n<ReadMilliseconds>0.100</ReadMilliseconds>\n<TotalMilliseconds>0.100</TotalMilliseconds>\n</Bucket>\n\
        <Bucket>\n<Percentile>99.9</Percentile>\n<ReadMilliseconds>0.900</ReadMilliseconds>\n<TotalMilliseconds>1.200</TotalMilliseconds>\n</Bucket>\n\
        <Bucket>\n<Percentile>100</Percentile>\n<ReadMilliseconds>1.000</ReadMilliseconds>\n<TotalMilliseconds>2.000</TotalMilliseconds>\n</Bucket>\n\
        </Latency>\n<Iops>";
    let with = DISKSPD_XML.replacen("<Iops>", latency, 1);
    let r = one(&with);
    assert!(close(r.total.latency_mean_ns, 400_000.0) && close(r.read.latency_min_ns, 100_000.0));
    assert!(close(r.total.latency_max_ns, 2_000_000.0) && r.total.percentiles_ns == [(99.9, 1_200_000.0)]);

    let cut = &DISKSPD_XML[..DISKSPD_XML.find("<Thread>").unwrap()];
    let e = parse(cut).unwrap_err();
    assert!(e.0.starts_with("line "), "{e}");
    let with_declaration = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{DISKSPD_XML}");
    assert_eq!(one(&with_declaration).total, one(DISKSPD_XML).total);
}

/// fio's client/server output (`fio --client`): `client_stats` in place of `jobs`, each entry
/// with the client's hostname, and an "All clients" sum that is not a run of its own. Built
/// from the real fio-3.1 file, as client.c arranges the same per-job objects.
#[test]
fn fio_client_server_output() {
    let mut doc: serde_json::Value = serde_json::from_str(FIO_31_READ).unwrap();
    let mut job = doc["jobs"][0].clone();
    job["hostname"] = "db01".into();
    job["port"] = 8765.into();
    let mut all = job.clone();
    all["jobname"] = "All clients".into();
    doc.as_object_mut().unwrap().remove("jobs");
    doc["client_stats"] = serde_json::json!([job.clone(), job, all]);
    let runs = parse(&serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    assert_eq!(runs.len(), 2, "a run per client job; the sum is left out");
    assert!(runs[0].name.ends_with(" on db01"), "{}", runs[0].name);
    assert_eq!(runs[0].read.ios, one(FIO_31_READ).read.ios);
}

/// The record of `text`'s only run, as `spindle import` stores it.
fn record(text: &str) -> spindle_model::RunRecord {
    let source = record::Source { file: "f", sha256: "0", imported_at: std::time::UNIX_EPOCH, file_time: None };
    record::record_of(&one(text), 1, &source)
}

/// IOMeter prints no minimum latency or standard deviation, SQLIO no standard deviation: each
/// was stored as 0 and shown as 0ns. Each is named absent, so every view shows it as not
/// recorded; what the file prints stays recorded.
#[test]
fn latency_figures_a_file_does_not_print_are_not_recorded() {
    use spindle_model::Recorded;
    let all = Recorded::ALL;
    let cases = [
        (IOMETER_INST, Recorded { min: false, stddev: false, cpu: false, environment: false, ..all }),
        (SQLIO_READ, Recorded { stddev: false, percentiles: false, cpu: false, environment: false, ..all }),
        (FIO_31_READ, Recorded { cpu: false, environment: false, ..all }),
        // Its thread gives a mean and a standard deviation only.
        (DISKSPD_RW, Recorded { thread_detail: false, cpu: false, environment: false, ..all }),
    ];
    for (text, recorded) in cases {
        let r = record(text);
        assert_eq!(r.recorded(), recorded, "{:?}", r.details.origin().map(|o| &o.absent));
    }
    // fio gives a mixed job's minimum, maximum and standard deviation for each direction only:
    // the run's are made from them, not left out.
    let mixed = record(FIO_333);
    let (s, recorded) = (&mixed.summary, mixed.recorded());
    assert!(recorded.min && recorded.max && recorded.stddev, "{recorded:?}");
    assert_eq!((s.latency_ns.min, s.latency_ns.max), (s.write.latency_ns.min, s.read.latency_ns.max));
    let sd = s.latency_ns.stddev;
    assert!(sd > s.read.latency_ns.stddev.min(s.write.latency_ns.stddev), "pooled about the total's mean: {sd}");
}

/// A file that gives some of p50 .. p99.99 (DiskSpd's XML gives what its buckets hold) would
/// show the others as 0ns: its percentiles are not recorded.
#[test]
fn percentiles_are_recorded_only_when_the_file_gives_each() {
    let without_95th: String =
        DISKSPD_RW.lines().filter(|l| !l.starts_with("   95th |")).collect::<Vec<_>>().join("\n");
    assert!(!record(&without_95th).recorded().percentiles);
    assert!(record(DISKSPD_RW).recorded().percentiles);
}
