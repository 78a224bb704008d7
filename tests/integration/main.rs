//! Integration tests: they drive the real `spindle` binary on temp directories.

mod ab;
mod ab_database;
#[cfg(feature = "postgres")]
mod agents;
#[cfg(feature = "postgres")]
mod agents_common;
#[cfg(feature = "postgres")]
mod agents_counts;
#[cfg(feature = "postgres")]
mod agents_faults;
mod check;
mod common;
mod compare;
mod compare_many;
mod counters;
#[cfg(all(feature = "postgres", feature = "mysql"))]
mod db_interrupts;
#[cfg(all(feature = "postgres", feature = "mysql"))]
mod db_managed;
mod durability;
mod features;
mod golden;
mod hammer;
#[cfg(feature = "mysql")]
mod hammer_mysql;
#[cfg(feature = "postgres")]
mod hammer_postgres;
mod house;
mod import_many;
mod import_report;
mod io_bad_input;
mod io_output;
mod io_real;
mod io_safety;
mod io_timing;
mod io_verify;
mod io_verify_state;
mod largeops;
mod level_shift;
mod logtest;
#[cfg(all(feature = "postgres", feature = "mysql"))]
mod logtest_volume;
mod orders;
mod output_targets;
#[cfg(feature = "postgres")]
mod placement;
mod readme_quickstart;
mod record_characterize;
mod serve;
mod serve_many;
#[cfg(any(feature = "postgres", feature = "mysql"))]
mod server_db;
mod store_immutable;
#[cfg(feature = "postgres")]
mod store_postgres;
mod store_runs;
mod store_v1;
mod sweep_suite;
mod terminal_text;
mod unrecorded;
