//! `spindle placement`: data and log on one volume, or on two, the question of the SAN study
//! behind Database Hammer. One managed instance per layout, the same workload on both in
//! alternating rounds (A B | B A | ..., as `spindle ab`), every run labelled `layout=same` or
//! `layout=split` (and with its side and round) in one group, then the paired comparison and
//! what each layout's volumes and the engine did.

mod explain;
mod layouts;

use crate::args::PlacementArgs;
use crate::commands::ab::rounds::{self, Side};
use crate::commands::ab::{random_bit, rounds_of};
use crate::commands::batch::Saver;
use crate::commands::compare::threshold_of;
use crate::commands::db::{engine_of, managed_error, registry_path};
use crate::commands::hammer::{Prepared, hammer_once, load_table, prepare, read_pct_of};
use crate::commands::largeops::{OpsPlan, run_ops};
use crate::commands::logtest::LogTest;
use crate::progress::{Display, note};
use crate::usage::UsageError;
use crate::{Outcome, interrupt, output, plan};
use layouts::{Instances, Layout, Places};
use spindle_analysis::compare::{ROUND_LABEL, SIDE_LABEL, compare_rounds};
use spindle_counters::volumes_under;
use spindle_db::hammer::RunPlan;
use spindle_db::load::LoadMode;
use spindle_db::logtest::{LogTestPlan, MAX_ROW_BYTES};
use spindle_model::RunRecord;
use spindle_store::{GroupKind, Point};
use std::path::{Path, PathBuf};
use std::time::Duration;

const DEFAULT_ROUNDS: u32 = 3;

/// What runs on both layouts.
enum Workload {
    Hammer { rows: u64, plan: RunPlan },
    LogTest { plan: LogTestPlan, size: u64 },
    LargeOps(OpsPlan),
}

impl Workload {
    fn name(&self) -> &'static str {
        match self {
            Workload::Hammer { .. } => "hammer",
            Workload::LogTest { .. } => "logtest",
            Workload::LargeOps(_) => "largeops",
        }
    }
}

/// A layout's workload, ready to run a round.
enum Ready {
    Hammer(Box<Prepared>),
    LogTest(Box<LogTest>),
    /// The large operations make their table anew each round.
    LargeOps,
}

pub fn run(args: &PlacementArgs) -> anyhow::Result<Outcome> {
    let engine = engine_of(&args.engine)?;
    let (split_data, split_wal) = split_of(&args.split)?;
    for (flag, dir) in [("--same", args.same.as_path()), ("--split", &split_data), ("--split", &split_wal)] {
        if !dir.is_dir() {
            return Err(UsageError::flag(
                flag,
                dir.display().to_string(),
                "not a directory; name a directory on the volume",
            )
            .into());
        }
    }
    let rounds = rounds_of(&args.rounds, DEFAULT_ROUNDS)?;
    let threshold_pct = threshold_of(&args.verdict)?;
    let workload = workload_of(args)?;
    let memory = match &args.memory {
        None => None,
        Some(t) => Some(spindle_model::units::parse_size(t).map_err(|e| UsageError::flag("--memory", t, e))?),
    };
    let labels = output::labels(&args.labels)?;
    for key in [SIDE_LABEL, ROUND_LABEL, "layout"] {
        if labels.contains_key(key) {
            return Err(
                UsageError::flag("--label", key, "spindle placement sets this label on every run itself").into()
            );
        }
    }
    let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
    let places = Places::new(&args.same, &split_data, &split_wal);
    for dir in [&places.same, &places.split_data, &places.split_wal] {
        if dir.exists() {
            return Err(UsageError::request(format!(
                "{} is there already (an earlier placement kept with --keep?); remove it, or name other directories",
                dir.display()
            ))
            .into());
        }
    }
    let quiet = args.quiet;
    let stop = interrupt::stop_flag();
    // One A/B group per kind of run compared: the workload's, or each large operation's.
    let group_of = |key: &str| {
        let name =
            format!("placement {} {}{}{key}", engine.name(), workload.name(), if key.is_empty() { "" } else { " " });
        Some((GroupKind::Ab, name))
    };
    let mut savers: Vec<(&'static str, Saver)> = vec![("", Saver::new(&args.store, group_of(""))?)];

    note(quiet, &format!("starting a {} instance per layout", engine.name()));
    let mut instances = Instances::up(engine, &places, memory, &registry_path()?, args.keep).map_err(managed_error)?;
    let layouts = [Layout::Same, Layout::Split];
    let mut ready = Vec::new();
    for layout in layouts {
        let url = instances.get(layout).url();
        ready.push(match &workload {
            Workload::Hammer { rows, plan } => {
                note(quiet, &format!("layout={}: loading {rows} rows", layout.label()));
                let (mut record, outcome) = load_table(&url, *rows, LoadMode::New, interval, quiet, stop)?;
                record.labels = labels.clone();
                record.labels.insert("layout".into(), layout.label().into());
                record.command_line = output::command_line();
                // The load is a figure of each layout too, but not a round.
                savers[0].1.save(&record, Some(Point::Member(format!("load {}", layout.label()))), 1)?;
                if outcome.interrupted {
                    return Ok(Outcome::Interrupted);
                }
                Ready::Hammer(Box::new(prepare(&url, &[plan.sessions])?))
            }
            Workload::LogTest { plan, .. } => {
                let settle = Duration::from_secs(1);
                Ready::LogTest(Box::new(LogTest::open(&url, plan.clone(), settle, interval, quiet)?))
            }
            Workload::LargeOps(_) => Ready::LargeOps,
        });
    }

    // A is the layout with data and log together, B the split one.
    let first = if random_bit() { Side::A } else { Side::B };
    let order = rounds::order(rounds, first);
    note(quiet, &format!("{rounds} rounds, {} first: {}", first.label().to_uppercase(), rounds::order_text(&order)));
    let display = Display::new(quiet);
    // Each run: the kind it is compared within, its id, record, layout and round.
    let mut done: Vec<(&'static str, i64, RunRecord, Layout, u32)> = Vec::new();
    let mut outcome = Outcome::Success;
    for &(side, round) in &order {
        let layout = if side == Side::A { Layout::Same } else { Layout::Split };
        let index = if side == Side::A { 0 } else { 1 };
        note(quiet, &format!("round {round}: layout={}", layout.label()));
        let mut runs: Vec<(&'static str, RunRecord)> = Vec::new();
        let interrupted = match (&mut ready[index], &workload) {
            (Ready::Hammer(p), Workload::Hammer { plan, .. }) => {
                let h = hammer_once(p, plan, interval, quiet, stop)?;
                runs.push(("", h.record));
                h.interrupted
            }
            (Ready::LogTest(t), Workload::LogTest { size, .. }) => match t.size(*size, stop, &display)? {
                // A failed insert is in the record's errors; the run is saved, and the
                // experiment ends with it.
                Some(m) => {
                    runs.push(("", m.record));
                    m.batch.interrupted
                }
                None => true,
            },
            (Ready::LargeOps, Workload::LargeOps(plan)) => {
                let url = instances.get(layout).url();
                let ended = run_ops(&url, Some(instances.get_mut(layout)), plan, quiet, stop, &mut |op, record| {
                    runs.push((op.name(), record));
                    Ok(())
                })?;
                ended != Outcome::Success
            }
            _ => unreachable!("each layout was readied for the workload"),
        };
        for (key, mut record) in runs {
            record.labels = labels.clone();
            record.labels.insert("layout".into(), layout.label().into());
            record.labels.insert(SIDE_LABEL.into(), side.label().into());
            record.labels.insert(ROUND_LABEL.into(), round.to_string());
            record.command_line = output::command_line();
            if !savers.iter().any(|(k, _)| *k == key) {
                savers.push((key, Saver::new(&args.store, group_of(key))?));
            }
            let saver = savers.iter_mut().find(|(k, _)| *k == key).map(|(_, s)| s).expect("made above");
            let id = saver.save(&record, Some(Point::Member(side.label().into())), round)?;
            if !record.errors.is_empty() {
                outcome = Outcome::OperationsFailed;
            }
            done.push((key, id, record, layout, round));
        }
        if interrupted || stop.load(std::sync::atomic::Ordering::Relaxed) {
            if outcome == Outcome::Success {
                outcome = Outcome::Interrupted;
            }
            break;
        }
    }

    // A comparison for each kind of run, in the order they ran.
    let mut comparisons: Vec<(&'static str, spindle_analysis::compare::Comparison)> = Vec::new();
    for (key, saver) in &savers {
        let ids: Vec<(i64, &RunRecord)> = done.iter().filter(|d| d.0 == *key).map(|d| (d.1, &d.2)).collect();
        if ids.is_empty() {
            continue;
        }
        let comparison = compare_rounds(&ids, threshold_pct);
        saver.set_group_summary(&serde_json::json!({
            "a": "layout=same",
            "b": "layout=split",
            "order": rounds::order_text(&order),
            "comparison": comparison,
        }))?;
        comparisons.push((key, comparison));
    }
    let volumes: Vec<(explain::Volumes, Vec<&RunRecord>)> = layouts
        .iter()
        .map(|&layout| {
            let state = &instances.get(layout).state;
            let on = |p: &Path| volumes_under(&[p]).into_iter().next();
            let v = explain::Volumes { layout, data: on(&state.server_data), log: on(&state.wal) };
            (v, done.iter().filter(|d| d.3 == layout).map(|d| &d.2).collect())
        })
        .collect();
    if args.json {
        let json = match comparisons.as_slice() {
            [(_, only)] => serde_json::to_value(only)?,
            many => serde_json::Value::Object(
                many.iter()
                    .map(|(k, c)| Ok((k.to_string(), serde_json::to_value(c)?)))
                    .collect::<anyhow::Result<_>>()?,
            ),
        };
        output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&json)?).as_bytes())?;
    } else if !quiet {
        let rows: Vec<(String, &RunRecord)> = done
            .iter()
            .map(|(key, id, r, layout, round)| (format!("{id} {key} {} round {round}", layout.label()), r))
            .collect();
        let mut text = spindle_report::render_overview(&rows);
        for (key, comparison) in &comparisons {
            if !key.is_empty() {
                text.extend(format!("\n{key}:\n").into_bytes());
            }
            text.extend(spindle_report::render_compare(comparison, "layout=same", "layout=split"));
        }
        text.extend(explain::render(&volumes).into_bytes());
        output::write_stdout(&text)?;
    }
    for r in ready {
        if let Ready::LogTest(t) = r {
            t.finish();
        }
    }
    note(
        quiet,
        &format!(
            "saved in {}; the instances are {}",
            savers[0].1.path.display(),
            if args.keep { "kept" } else { "removed" }
        ),
    );
    drop(instances);
    Ok(outcome)
}

/// `--split DATA_DIR,WAL_DIR`.
fn split_of(text: &str) -> Result<(PathBuf, PathBuf), UsageError> {
    match text.split_once(',') {
        Some((d, w)) if !d.trim().is_empty() && !w.trim().is_empty() && !w.contains(',') => {
            Ok((PathBuf::from(d.trim()), PathBuf::from(w.trim())))
        }
        _ => Err(UsageError::flag("--split", text, "two directories, data then log: --split /mnt/data,/mnt/log")),
    }
}

fn workload_of(args: &PlacementArgs) -> Result<Workload, UsageError> {
    match args.workload.as_deref().unwrap_or("hammer") {
        "hammer" => {
            let rows = plan::rows_of("--rows", &args.rows, 1_000_000, spindle_db::keys::MAX_ROWS)?;
            let sessions = plan::rows_of("--sessions", &args.sessions, 8, 100_000)? as u32;
            let read_pct = read_pct_of(&args.read_ratio)?;
            let duration = plan::optional_duration_of("--duration", &args.duration, Duration::from_millis(1))?
                .unwrap_or(Duration::from_secs(30));
            let warmup =
                plan::optional_duration_of("--warmup", &args.warmup, Duration::ZERO)?.unwrap_or(Duration::from_secs(5));
            let plan =
                RunPlan { sessions, read_pct, rows, warmup, duration, think: Duration::ZERO, rate_per_session: None };
            Ok(Workload::Hammer { rows, plan })
        }
        "logtest" => {
            let rows = plan::rows_of("--rows", &args.rows, 20_000, 1_000_000_000_000)?;
            let size = plan::rows_of("--batch", &args.batch, 1, rows)?;
            let row_bytes = 4000.min(MAX_ROW_BYTES);
            Ok(Workload::LogTest { plan: LogTestPlan { rows, row_bytes }, size })
        }
        "largeops" => {
            let rows = plan::rows_of("--rows", &args.rows, 1_000_000, 1_500_000_000)?;
            let batch = plan::rows_of("--batch", &args.batch, 50_000.min(rows), rows)?;
            let interval = plan::interval_of("--sample-interval", &args.sampler.sample_interval)?;
            Ok(Workload::LargeOps(OpsPlan { rows, batch, settle: Duration::from_secs(2), interval, keep: false }))
        }
        other => Err(UsageError::flag("--workload", other, "hammer, logtest or largeops")),
    }
}
