//! `spindle compare`: B against A, where each side is runs picked by id or label.

use crate::args::CompareArgs;
use crate::usage::UsageError;
use crate::{Outcome, output, selection, store};
use spindle_store::{Filter, StoredRun};

pub fn run(args: &CompareArgs) -> anyhow::Result<Outcome> {
    let (a_items, b_items) = match (args.runs.as_slice(), args.a.is_empty() && args.b.is_empty()) {
        ([a, b], true) => (vec![a.clone()], vec![b.clone()]),
        ([], false) if !args.a.is_empty() && !args.b.is_empty() => (args.a.clone(), args.b.clone()),
        _ => {
            return Err(UsageError::request(
                "say what to compare: two runs (spindle compare 12 15) or two selections (--a raid=5 --b raid=10)",
            )
            .into());
        }
    };
    let (flag_a, flag_b) = if args.runs.is_empty() { ("--a", "--b") } else { ("run", "run") };
    let fa = selection::parse_selection(flag_a, &a_items)?;
    let fb = selection::parse_selection(flag_b, &b_items)?;
    let store = store::open_existing(&args.store)?;
    let load = |f: &Filter, flag: &'static str, items: &[String]| -> anyhow::Result<Vec<StoredRun>> {
        let runs = match &store {
            Some(s) => s.load_all(f)?,
            None => Vec::new(),
        };
        if runs.is_empty() {
            return Err(UsageError::NoRuns { selection: format!("{flag} {}", items.join(" ")) }.into());
        }
        Ok(runs)
    };
    let a = load(&fa, flag_a, &a_items)?;
    let b = load(&fb, flag_b, &b_items)?;
    if let Some(shared) = a.iter().find(|r| b.iter().any(|x| x.summary.id == r.summary.id)).map(|r| r.summary.id) {
        if a.len() > 1 || b.len() > 1 {
            return Err(
                UsageError::request(format!("run {shared} is in both A and B; make the selections disjoint")).into()
            );
        }
    }
    // Labels that picked the sides are what is being compared, not a confounder.
    let selected_by: Vec<String> = fa.labels.iter().chain(fb.labels.iter()).map(|(k, _)| k.clone()).collect();
    let comparison = spindle_analysis::compare::compare(&side(&a), &side(&b), &selected_by);
    let bytes = if args.json {
        let mut text = serde_json::to_string_pretty(&comparison)?;
        text.push('\n');
        text.into_bytes()
    } else {
        spindle_report::render_compare(&comparison, &a_items.join(" "), &b_items.join(" "))
    };
    output::write_stdout(&bytes)?;
    Ok(Outcome::Success)
}

fn side(runs: &[StoredRun]) -> Vec<(i64, &spindle_model::RunRecord)> {
    runs.iter().map(|r| (r.summary.id, &r.record)).collect()
}
