//! `orders`: an order-entry workload derived from TPC-C's transactions.

use super::{DatabaseArgs, help};
use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct OrdersArgs {
    #[command(subcommand)]
    pub action: OrdersAction,
}

#[derive(Debug, Subcommand)]
pub enum OrdersAction {
    /// Create the nine order-entry tables (TPC-C's) and load them for N warehouses.
    Load(OrdersLoadArgs),
}

#[derive(Debug, Args)]
#[command(mut_args(help(&[("db", "The database: sqlite:///path/to/orders.db (a new file in a \
directory you name), postgres://user@host/db or mysql://user@host/db (a database for the test; \
spindle creates its tables there, beside a spindle_orders table that marks them as its own, and \
never touches a table of another's)")])))]
pub struct OrdersLoadArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// Warehouses to load: each is 10 districts, 30,000 customers, 30,000 orders and 100,000
    /// stock rows (about 110 MB on PostgreSQL); the 100,000 items are loaded once.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=spindle_db::orders::MAX_WAREHOUSES))]
    pub warehouses: u64,
    /// Drop spindle's order-entry tables already there and load them again.
    #[arg(long)]
    pub fresh: bool,
}
