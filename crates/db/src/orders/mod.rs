//! An order-entry workload derived from TPC-C's transactions, as HammerDB's TPROC-C runs them:
//! the nine tables of TPC-C v5.11 (`schema`), their population by clause 4.3.3.1 (`rows`,
//! `customer`, `population`), and a fast load of them (`load`). Results are not comparable
//! with published TPC-C results. The transactions come next, on the same schema.

pub mod customer;
mod load;
pub mod population;
pub mod rows;
pub mod schema;

pub use load::{LoadOptions, LoadOutcome, load};

/// More warehouses than this (some 10 TB, at about 100 MB each) is a typo.
pub const MAX_WAREHOUSES: u64 = 100_000;
