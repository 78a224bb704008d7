//! `spindle compare`: B against A, where each side is runs picked by id or label.

use crate::args::CompareArgs;
use crate::flags::threshold_of;
use crate::usage::UsageError;
use crate::{Outcome, output, store};
use spindle_runner::compared::{Side, compared};

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
    let store = store::open_existing(&args.store)?;
    let threshold_pct = threshold_of(&args.verdict)?;
    let compared = compared(
        store.as_ref(),
        Side { flag: flag_a, items: &a_items },
        Side { flag: flag_b, items: &b_items },
        threshold_pct,
    )?;
    if args.print.json {
        output::write_stdout(format!("{}\n", serde_json::to_string_pretty(&compared.json()?)?).as_bytes())?;
    } else {
        output::write_report(&compared.text())?;
    }
    Ok(Outcome::Success)
}
