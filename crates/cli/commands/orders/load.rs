//! `spindle orders load`: create the nine tables and load them for `--warehouses`.

use crate::Outcome;
use crate::args::OrdersLoadArgs;
use crate::database::url_of;
use crate::interrupt::stop_flag;
use spindle_db::orders::{self, LoadOptions};

pub(super) fn load(args: &OrdersLoadArgs) -> anyhow::Result<Outcome> {
    let url = url_of(&args.database.db)?;
    spindle_db::check_built(&url)?;
    let opts = LoadOptions { warehouses: args.warehouses, fresh: args.fresh };
    let out = orders::load(&url, &opts, stop_flag())?;
    let rows_secs = out.rows_time.as_secs_f64();
    if out.interrupted {
        println!(
            "INTERRUPTED: {} rows loaded into {url} in {rows_secs:.2} s; the tables are incomplete: load them again with --fresh",
            out.rows
        );
        return Ok(Outcome::Interrupted);
    }
    let index_secs = out.index_time.as_secs_f64();
    println!(
        "loaded {} warehouse{} ({} rows in 9 tables) into {url} in {:.2} s: rows {rows_secs:.2} s ({:.0} rows/s), keys and indexes {index_secs:.2} s",
        args.warehouses,
        if args.warehouses == 1 { "" } else { "s" },
        out.rows,
        rows_secs + index_secs,
        out.rows as f64 / rows_secs.max(1e-9),
    );
    Ok(Outcome::Success)
}
