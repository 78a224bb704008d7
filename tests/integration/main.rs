//! Integration tests: they drive the real `spindle` binary on temp directories.

mod ab;
mod common;
mod compare;
mod counters;
mod db_interrupts;
mod db_managed;
mod durability;
mod hammer;
mod hammer_mysql;
mod hammer_postgres;
mod import_report;
mod io_bad_input;
mod io_output;
mod io_real;
mod io_safety;
mod io_timing;
mod io_verify;
mod largeops;
mod logtest;
mod placement;
mod readme_quickstart;
mod record_characterize;
mod server_db;
mod store_runs;
mod store_v1;
mod sweep_suite;
