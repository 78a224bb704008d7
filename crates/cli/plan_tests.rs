use crate::args::{Cli, Command};
use clap::Parser;
use spindle_model::spec::EngineKind;
use spindle_plan::machine::Described;
use spindle_plan::usage::UsageError;
use spindle_plan::*;

fn plan(args: &[&str]) -> Result<IoPlan, UsageError> {
    plan_on(args, &Described { uring: true })
}

fn plan_on(args: &[&str], machine: &dyn Machine) -> Result<IoPlan, UsageError> {
    let cli = Cli::try_parse_from(["spindle", "io"].iter().chain(args)).expect("clap accepts the flags");
    let Command::Io(io) = cli.command else { panic!("not io") };
    plan_io(&PlanInput::from(&*io), machine)
}

fn error(args: &[&str]) -> String {
    match plan(args) {
        Ok(_) => panic!("{args:?} should be refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn defaults_are_8k_random_reads_one_thread_depth_one_1g() {
    let p = plan(&["--target", "t.dat"]).unwrap();
    let t = &p.jobs[0].job.targets[0];
    assert_eq!(t.size, 1 << 30);
    assert_eq!((t.workload.read_pct(), t.workload.random_pct()), (100.0, 100.0));
    assert_eq!((t.workload.threads, t.workload.depth, t.workload.smallest_block()), (1, 1, 8192));
    assert_eq!(p.jobs[0].job.engine, EngineKind::Uring);
    assert_eq!(p.jobs[0].job.duration_ns, 30_000_000_000);
}

#[test]
fn a_profile_sets_the_pattern_and_flags_override_it() {
    let p = plan(&["--target", "t.dat", "--profile", "sqlserver.page-read"]).unwrap();
    let w = &p.jobs[0].job.targets[0].workload;
    assert_eq!((w.threads, w.depth, w.largest_block()), (4, 8, 8192), "threads = cpus = 4");

    let p =
        plan(&["--target", "t.dat", "--profile", "sqlserver.checkpoint", "--depth", "32", "--block", "64K"]).unwrap();
    let w = &p.jobs[0].job.targets[0].workload;
    assert_eq!((w.threads, w.depth, w.largest_block(), w.read_pct()), (1, 32, 65536, 0.0));

    let p = plan(&["--target", "t.dat", "--profile", "postgres.wal-write"]).unwrap();
    let w = &p.jobs[0].job.targets[0].workload;
    assert!(w.buffered && w.fsync_every == 1 && w.random_pct() == 0.0);
}

#[test]
fn an_unknown_profile_lists_the_valid_ones() {
    let err = error(&["--target", "t.dat", "--profile", "oracle.redo"]);
    assert!(err.contains("--profile oracle.redo") && err.contains("sqlserver.page-read"), "{err}");
}

#[test]
fn flags_beside_a_profile_are_still_checked_against_the_device() {
    let err = error(&["--target", "t.dat", "--profile", "sqlserver.page-read", "--block", "512"]);
    assert!(err.contains("--block") && err.contains("nvme9n1") && err.contains("4096"), "{err}");
    let p = plan(&["--target", "t.dat", "--profile", "sqlserver.log-write"]).unwrap();
    assert!(p.jobs[0].job.targets[0].workload.write_through);
}

#[test]
fn threads_cpus_means_one_per_logical_cpu() {
    let p = plan(&["--target", "t.dat", "--threads", "cpus"]).unwrap();
    assert_eq!(p.jobs[0].job.targets[0].workload.threads, 4);
    let err = error(&["--target", "t.dat", "--threads", "many"]);
    assert!(err.contains("--threads many") && err.contains("cpus"), "{err}");
}

#[test]
fn values_out_of_range_name_the_flag() {
    assert!(error(&["--target", "t.dat", "--read", "120"]).contains("--read 120"));
    assert!(error(&["--target", "t.dat", "--size", "10X"]).contains("--size 10X"));
    assert!(error(&["--target", "t.dat", "--mix", "64K:0"]).contains("weight"));
    let err = error(&["--target", "t.dat", "--block", "512"]);
    assert!(err.contains("nvme9n1's 4096-byte logical block"), "{err}");
    assert!(plan(&["--target", "t.dat", "--block", "512", "--buffered"]).is_ok(), "buffered I/O has no sector rule");
}

#[test]
fn without_io_uring_the_plan_falls_back_to_sync_and_says_so() {
    let p = plan_on(&["--target", "t.dat", "--depth", "8"], &Described { uring: false }).unwrap();
    assert_eq!(p.jobs[0].job.engine, EngineKind::Sync);
    assert_eq!(p.jobs[0].job.targets[0].workload.depth, 1);
    assert!(
        p.warnings.iter().any(|w| w.contains("io_uring is not available") && w.contains("kernel.io_uring_disabled"))
    );
    assert!(p.warnings.iter().any(|w| w.contains("depth 8 becomes 1")));
}

#[test]
fn spec_file_targets_take_their_own_profile_above_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("job.toml");
    std::fs::write(
        &spec,
        "[[target]]\npath = \"data.dat\"\nprofile = \"sqlserver.page-read\"\n\n\
         [[target]]\npath = \"log.dat\"\nprofile = \"sqlserver.log-write\"\nblock = \"8K\"\n",
    )
    .unwrap();
    let p = plan(&["--spec", spec.to_str().unwrap(), "--depth", "2"]).unwrap();
    let (data, log) = (&p.jobs[0].job.targets[0].workload, &p.jobs[0].job.targets[1].workload);
    assert_eq!((data.threads, data.depth), (4, 8), "the target's profile beats the --depth flag");
    assert_eq!((log.largest_block(), log.depth), (8192, 1), "a target's own key beats its profile");
    assert!(log.write_through);

    std::fs::write(&spec, "[[target]]\npath = \"a.dat\"\n\nprofile = \"nope\"\n").unwrap();
    let err = plan(&["--spec", spec.to_str().unwrap()]).err().unwrap().to_string();
    assert!(err.contains("job.toml line 4 (profile) nope") && err.contains("unknown profile"), "{err}");
}

/// Hostile spec files: the two example specs, mutated 4,000 times (characters that mean
/// something to TOML and to spindle's values put in at random places, spans deleted, lines
/// doubled, values replaced by huge or negative numbers) and planned. No mutant panics, and
/// every refusal is a usage error naming the file. The fuzz target spec_file (fuzz/) searches
/// far wider; this deterministic run keeps the guarantee in every test run.
#[test]
fn mutated_spec_files_are_planned_or_refused_never_a_panic() {
    let seeds = [
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/specs/data-and-log.toml")),
        include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/specs/tempdb.toml")),
    ];
    const PIECES: &[&str] = &[
        "\"",
        "[",
        "]",
        "[[target]]\n",
        "=",
        "\n",
        ",",
        ":",
        "-",
        "0",
        "9",
        "K",
        "G",
        "T",
        "%",
        "1e308",
        "'",
        "{",
        "18446744073709551616",
        "-1",
        "nan",
        "\u{ff}",
        "\\",
        "mix = \"8K:",
        "profile = \"",
        "path = \"\"\n",
        "threads = 0\n",
        "depth = 99999999999\n",
        "size = \"0\"\n",
        "block = \"7\"\n",
        "rate = -5\n",
    ];
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("job.toml");
    let mut dice = spindle_model::rng::Rng::new(2026);
    let (mut planned, mut refused) = (0, 0);
    for round in 0..4_000 {
        let mut text = seeds[round % seeds.len()].to_string();
        for _ in 0..1 + dice.below(4) {
            let at = text.floor_char_boundary(dice.below(text.len() as u64 + 1) as usize);
            match dice.below(4) {
                0 | 1 => text.insert_str(at, PIECES[dice.below(PIECES.len() as u64) as usize]),
                2 => {
                    let end = text.floor_char_boundary(at + dice.below(40) as usize);
                    text.replace_range(at..end, "");
                }
                _ => {
                    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                    let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
                    let line = text[start..end].to_string();
                    text.insert_str(start, &line);
                }
            }
        }
        std::fs::write(&spec, &text).unwrap();
        let args = ["--spec", spec.to_str().unwrap()];
        match std::panic::catch_unwind(|| plan(&args)) {
            Ok(Ok(_)) => planned += 1,
            Ok(Err(e)) => {
                let message = e.to_string();
                let named = message.contains("job.toml");
                assert!(named, "round {round}: a refusal that does not name the file: {message:?}\n{text}");
                refused += 1;
            }
            Err(_) => panic!("round {round}: planning panicked on this spec file:\n{text}"),
        }
    }
    assert!(
        planned > 100 && refused > 1_000,
        "the mutants should exercise both paths: {planned} planned, {refused} refused"
    );
}
