//! `spindle characterize FILE`: a counter log to an access specification (seed 002's method,
//! in spindle-counters), printed as a summary and written as a spec file that replays it.

use crate::args::CharacterizeArgs;
use crate::plan::PlanError;
use crate::{Outcome, output};
use spindle_counters::characterize::{AccessProfile, DeviceProfile, Options, SizeShare, characterize};
use spindle_model::units::format_size;
use std::fmt::Write;

/// io_uring's largest queue: the most outstanding I/Os one thread can keep.
const MAX_DEPTH: f64 = 32768.0;

pub fn run(args: &CharacterizeArgs) -> anyhow::Result<Outcome> {
    let number = |flag: &str, v: &Option<String>, default: f64, max: f64| -> Result<f64, PlanError> {
        match v {
            None => Ok(default),
            Some(t) => t
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|x| (0.0..=max).contains(x))
                .ok_or_else(|| PlanError(format!("{flag} {t}: write a number from 0 to {max}"))),
        }
    };
    let opts = Options {
        device: args.device.clone(),
        min_queue: number("--min-queue", &args.min_queue, 2.0, 1e9)?,
        coverage_pct: number("--coverage", &args.coverage, 80.0, 100.0)?,
    };
    let shown = args.file.display().to_string();
    let text = std::fs::read(&args.file).map_err(|e| PlanError(format!("{shown}: cannot read it: {e}")))?;
    let text = String::from_utf8_lossy(&text);
    let mut table = spindle_formats::read_counter_log(&text).map_err(|e| PlanError(format!("{shown}: {e}")))?;
    table.keep_between(args.from.as_deref(), args.to.as_deref()).map_err(|e| {
        let flag = if args.from.is_some() { "--from/--to" } else { "--to" };
        PlanError(format!("{flag}: {shown}: {e}"))
    })?;
    if table.rows.is_empty() {
        return Err(PlanError(format!("{shown}: the log has no samples (in the --from/--to range, if given)")).into());
    }
    let profiles = characterize(&table, &opts).map_err(|e| PlanError(format!("{shown}: {e}")))?;
    if profiles.iter().all(|p| p.all.is_none()) {
        return Err(PlanError(format!("{shown}: no sample shows any disk I/O")).into());
    }
    let busy_spec = args.min_queue.is_some();
    if let Some(path) = &args.output {
        let spec = spec_toml(&profiles, busy_spec, &shown, opts.min_queue);
        write_new(path, &spec, args.force)?;
    }
    let out = if args.json {
        let mut t = serde_json::to_string_pretty(&profiles)?;
        t.push('\n');
        t
    } else {
        summary(&profiles, &table.skipped, opts.min_queue, args.output.as_ref().map(|p| p.display().to_string()))
    };
    output::write_stdout(out.as_bytes())?;
    Ok(Outcome::Success)
}

fn shares(s: &[SizeShare]) -> String {
    s.iter().map(|c| format!("{} {:.0}%", format_size(c.bytes), c.pct)).collect::<Vec<_>>().join(", ")
}

fn line(p: &AccessProfile) -> String {
    format!(
        "reads {:.0}% ({}), writes {:.0}% ({}), {:.1} outstanding",
        p.read_pct,
        shares(&p.reads),
        100.0 - p.read_pct,
        shares(&p.writes),
        p.outstanding
    )
}

fn summary(profiles: &[DeviceProfile], skipped: &[usize], min_queue: f64, spec: Option<String>) -> String {
    let mut out = String::new();
    for p in profiles {
        let _ = writeln!(out, "device '{}':", p.device);
        match &p.all {
            Some(a) => {
                let _ = writeln!(out, "  all {} samples: {}", a.samples, line(a));
            }
            None => {
                let _ = writeln!(out, "  no sample shows I/O");
            }
        }
        match &p.busy {
            Some(b) => {
                let _ = writeln!(out, "  {} samples with queue > {min_queue}: {}", b.samples, line(b));
            }
            None => {
                let _ = writeln!(out, "  no sample with queue > {min_queue}");
            }
        }
    }
    if !skipped.is_empty() {
        let first: Vec<String> = skipped.iter().take(5).map(|l| l.to_string()).collect();
        let _ = writeln!(out, "{} malformed rows skipped (lines {}...)", skipped.len(), first.join(", "));
    }
    if let Some(spec) = spec {
        let _ = writeln!(out, "spec written to {spec}; replay it with: spindle io --spec {spec}");
    }
    out
}

/// The profiles as a spec file: one target per disk, all driven at once, each with the mix of
/// its read and write size classes and its outstanding I/Os.
fn spec_toml(profiles: &[DeviceProfile], busy: bool, source: &str, min_queue: f64) -> String {
    let mut out = format!("# spindle characterize {source}\n");
    let _ = writeln!(
        out,
        "# Counters cannot tell random from sequential I/O: 100% random is assumed; edit `random` per target."
    );
    let _ = writeln!(out, "duration = \"60s\"\n");
    for p in profiles {
        let chosen = if busy { p.busy.as_ref().or(p.all.as_ref()) } else { p.all.as_ref() };
        let Some(a) = chosen else { continue };
        let which =
            if busy && p.busy.is_some() { format!("samples with queue > {min_queue}") } else { "all samples".into() };
        let _ = writeln!(out, "# {}: {} {which}: {}", p.device, a.samples, line(a));
        let mut mix = Vec::new();
        for (classes, share, read) in [(&a.reads, a.read_pct, 100), (&a.writes, 100.0 - a.read_pct, 0)] {
            for c in classes {
                // Weights in hundredths of a percent of all I/Os, so small classes keep their share.
                let weight = (share * c.pct).round() as u64;
                if weight > 0 {
                    mix.push(format!("{}:{weight}:{read}", format_size(c.bytes)));
                }
            }
        }
        let name: String = p.device.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
        let _ = writeln!(out, "[[target]]\npath = \"characterized-{name}.dat\"\nsize = \"1G\"");
        let _ = writeln!(out, "mix = \"{}\"", mix.join(","));
        let _ = writeln!(out, "random = 100\nthreads = 1\ndepth = {}\n", a.outstanding.round().clamp(1.0, MAX_DEPTH));
    }
    out
}

/// Writes `text` to `path`, never over an existing file unless `force`.
fn write_new(path: &std::path::Path, text: &str, force: bool) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut f = output::create_new_file(path, force)?;
    f.write_all(text.as_bytes()).map_err(|e| PlanError(format!("-o {}: cannot write it: {e}", path.display())))?;
    Ok(())
}
