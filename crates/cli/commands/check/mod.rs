//! `spindle check [DIR...]`: the main job. For each directory, the battery (page reads to the
//! knee, commits, checkpoint-like writes, read-ahead-like reads, a verified pass, the log test
//! on a database) through the one runner, every step an ordinary stored run in the directory's
//! check group; then the evidence judged by the findings rules, the summary on the terminal,
//! and the HTML report. Everything the user could get wrong is refused before any I/O.

mod answer;
mod battery;
mod dirs;
mod evidence;
mod placement;
mod report;
mod run;
mod since;
mod summary;

use crate::args::{CheckArgs, OutputArgs};
use crate::commands::db::registry_path;
use crate::console::{Console, Shown};
use crate::database::url_of;
use crate::progress::note;
use crate::usage::UsageError;
use crate::{Outcome, output, runner, store};
use answer::Answer;
use battery::{Budget, bytes_needed};
use run::{Eta, LogDb};
use spindle_analysis::findings::{self, DirEvidence, Evidence, Guidance, Level};
use spindle_db::Engine;
use spindle_db::managed::ManagedEngine;
use spindle_model::units::{format_bytes_approx, format_elapsed};
use std::path::PathBuf;
use std::time::{Duration, Instant};

pub fn run(args: &CheckArgs) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let budget = match (args.quick, args.thorough) {
        (true, _) => Budget::Quick,
        (_, true) => Budget::Thorough,
        _ => Budget::Default,
    };
    let sizing = budget.sizing();
    let given_db = args.db.as_deref().map(url_of).transpose()?;
    if let Some(url) = &given_db {
        spindle_db::check_built(url)?;
        // Reached now, so a wrong URL is said before the plan; whether the test's table can be
        // made there is known when the log test is prepared, still before any I/O.
        spindle_db::open(url)?;
    }
    let guidance = guidance_of(args.for_engine.as_deref(), given_db.as_ref().map(|u| u.engine))?;
    let managed = match (args.managed, guidance) {
        (false, _) => None,
        (true, Guidance::Postgres) => Some(ManagedEngine::Postgres),
        (true, Guidance::Mysql) => Some(ManagedEngine::Mariadb),
        (true, _) => {
            return Err(UsageError::flag(
                "--managed",
                "",
                "starts PostgreSQL or MariaDB: add --for postgres or --for mysql",
            )
            .into());
        }
    };
    let registry = managed.map(|_| registry_path()).transpose()?;
    let labels = output::labels(&args.labels)?;
    let dirs: Vec<PathBuf> = if args.dirs.is_empty() { vec![PathBuf::from(".")] } else { args.dirs.clone() };
    // A database of the check's own in each directory; a given one is tested once, its log
    // being wherever its server keeps it.
    let needed = bytes_needed(&sizing, given_db.is_none());
    for dir in &dirs {
        dirs::usable(dir, needed, budget)?;
    }
    let report_path = report::path(args.output.as_deref(), &dirs[0], args.force)?;
    let mut planned = Vec::new();
    for dir in &dirs {
        planned.push(battery::plan_io(dir, guidance, &sizing)?);
    }

    // Two directories: data and log on one volume or two, in paired rounds after the batteries.
    let layouts = match dirs.as_slice() {
        [_, _] => Some(placement::plan(&dirs, guidance, &sizing, budget)?),
        _ => None,
    };
    let io_steps: usize = planned.iter().map(|(steps, _)| steps.len()).sum();
    let log_runs = if given_db.is_some() { 1 } else { dirs.len() };
    let per_io = sizing.step + sizing.warmup;
    let total_time = per_io * io_steps as u32
        + sizing.log_step * (sizing.log_sizes.len() * log_runs) as u32
        + layouts.as_ref().map_or(Duration::ZERO, |l| l.takes());
    if !args.quiet && !args.json {
        note(
            false,
            &format!(
                "check ({} battery, for {}): {} steps in {}, about {}; needs {} free in each; results kept in {}",
                budget.name(),
                guidance_name(guidance),
                io_steps + sizing.log_sizes.len() * log_runs + layouts.as_ref().map_or(0, |l| 2 * l.rounds as usize),
                dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", "),
                format_elapsed(total_time),
                format_bytes_approx(needed),
                store::path(&args.store)?.display()
            ),
        );
    }

    // What lies under each directory, read before the battery writes anything.
    let mut facts: Vec<DirEvidence> = dirs.iter().map(|d| dirs::host_facts(d)).collect();
    let shared = dirs::sharing_a_device(&facts);
    for line in &shared {
        note(args.quiet || args.json, line);
    }
    let mut evidence = Evidence { guidance, dirs: Vec::new() };
    let console_output =
        OutputArgs { quiet: args.quiet || args.json, labels: args.labels.clone(), ..OutputArgs::default() };
    let console = Console::new(&console_output, store::path(&args.store)?, Shown::Saved);
    let mut runner = runner::new(&console, &args.store, labels, Duration::from_secs(1))?;
    let mut eta = Eta { left: total_time, done: 0, total: io_steps + sizing.log_sizes.len() * log_runs };
    for (i, ((dir, (steps, warnings)), mut facts)) in dirs.iter().zip(planned).zip(facts.drain(..)).enumerate() {
        let log_db = match (&given_db, managed, &registry) {
            (Some(url), _, _) if i == 0 => Some(LogDb::Given(url.clone())),
            (Some(_), _, _) => None,
            (None, Some(engine), Some(registry)) => Some(LogDb::Managed(battery::instance_in(dir, engine, registry))),
            _ => Some(LogDb::Own(battery::sqlite_path(dir))),
        };
        let before = runner.runs.len();
        let went_on = run::battery(&mut runner, dir, steps, &warnings, log_db.as_ref(), &sizing, &mut eta)
            .map_err(crate::commands::db::managed_anyhow)?;
        let runs: Vec<_> = runner.runs[before..].iter().collect();
        let engine = match (&given_db, managed) {
            (Some(url), _) => url.engine.name(),
            (None, Some(m)) => m.name(),
            (None, None) => "sqlite",
        };
        evidence::gather(&mut facts, guidance, &runs, engine);
        evidence.dirs.push(facts);
        if !went_on {
            break;
        }
    }

    let mut layouts_answer = None;
    if let Some(layouts) = layouts
        && runner.outcome != Outcome::Interrupted
    {
        note(
            args.quiet || args.json,
            &format!(
                "data and log: one volume or two? {} rounds of both layouts, alternated (about {} left)",
                layouts.rounds,
                spindle_model::units::format_elapsed(layouts.takes())
            ),
        );
        let shared_disk = placement::shared_disk(&evidence.dirs[0].device, &evidence.dirs[1].device).map(String::from);
        layouts_answer = layouts.run(&mut runner, shared_disk.as_deref())?;
    }
    let found = findings::findings(&evidence);
    let verdicts = findings::verdicts(&found);
    let elapsed = started.elapsed();
    let mut since = Vec::new();
    for (dir, path) in evidence.dirs.iter().zip(&dirs) {
        let name = run::group_of(path).1;
        let Some(group) = runner.groups.iter().find(|g| g.name == name) else { continue };
        let (Some(id), Some(store)) = (group.id, runner.saver.store()) else { continue };
        let before = since::since(store, &name, id, dir, guidance)?;
        let of_dir: Vec<_> = found.iter().filter(|f| f.dir == dir.dir).collect();
        runner.saver.set_group_summary(
            group,
            &serde_json::json!({
                "schema": report::SCHEMA,
                "budget": budget.name(),
                "guidance": guidance,
                "evidence": dir,
                "findings": of_dir,
                "since": before,
            }),
        )?;
        since.push((dir.dir.clone(), before));
    }
    let group_ids: Vec<i64> = runner.groups.iter().filter_map(|g| g.id).collect();
    let report = report::write(&report_path, &runner, &group_ids, args.force)?;
    let answer = Answer {
        evidence,
        findings: found,
        verdicts,
        since,
        shared,
        budget,
        elapsed,
        groups: group_ids,
        report,
        interrupted: runner.outcome == Outcome::Interrupted,
        layouts: layouts_answer,
    };
    if args.json {
        output::write_stdout(serde_json::to_string_pretty(&report::json(&answer))?.as_bytes())?;
        output::write_stdout(b"\n")?;
    } else if args.quiet {
        eprint!("{}", summary::verdict_line(&answer.findings));
    } else {
        output::write_text(summary::render(&answer).as_bytes())?;
    }
    let problems = args.strict && answer.findings.iter().any(|f| f.level == Level::Problem);
    Ok(runner.outcome.and(if problems { Outcome::Problems } else { Outcome::Success }))
}

/// `--for`, else the engine of `--db`, else a generic OLTP database.
fn guidance_of(text: Option<&str>, engine: Option<Engine>) -> Result<Guidance, UsageError> {
    match text.map(str::trim) {
        Some("sqlserver") => Ok(Guidance::SqlServer),
        Some("postgres" | "postgresql") => Ok(Guidance::Postgres),
        Some("mysql" | "mariadb") => Ok(Guidance::Mysql),
        Some(other) => Err(UsageError::flag("--for", other, "valid engines: sqlserver, postgres, mysql")),
        None => Ok(match engine {
            Some(Engine::Postgres) => Guidance::Postgres,
            Some(Engine::MySql) => Guidance::Mysql,
            _ => Guidance::Generic,
        }),
    }
}

pub fn guidance_name(g: Guidance) -> &'static str {
    match g {
        Guidance::Generic => "a generic OLTP database",
        Guidance::SqlServer => "SQL Server",
        Guidance::Postgres => "PostgreSQL",
        Guidance::Mysql => "MySQL/MariaDB",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guidance_comes_from_for_then_the_database() {
        assert_eq!(guidance_of(Some("mariadb"), None), Ok(Guidance::Mysql));
        assert_eq!(guidance_of(None, Some(Engine::Postgres)), Ok(Guidance::Postgres));
        assert_eq!(guidance_of(None, Some(Engine::Sqlite)), Ok(Guidance::Generic));
        assert_eq!(guidance_of(Some("sqlserver"), Some(Engine::MySql)), Ok(Guidance::SqlServer));
        let e = guidance_of(Some("oracle"), None).unwrap_err().to_string();
        assert!(e.contains("--for oracle") && e.contains("sqlserver, postgres, mysql"), "{e}");
    }
}
