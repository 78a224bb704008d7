//! `spindle orders`: an order-entry workload derived from TPC-C's transactions, as HammerDB's
//! TPROC-C runs them. `load` creates its nine tables and loads them (`spindle_db::orders`);
//! this command parses, checks and prints.

mod load;

use crate::Outcome;
use crate::args::{OrdersAction, OrdersArgs};

pub fn run(args: &OrdersArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        OrdersAction::Load(a) => load::load(a),
    }
}
