use super::{JsonArgs, help};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct DbArgs {
    #[command(subcommand)]
    pub action: DbAction,
}

#[derive(Debug, Subcommand)]
pub enum DbAction {
    /// Create and start an instance; prints the URL to use (with its generated password).
    Up(DbUpArgs),
    /// List the instances spindle manages, running or not.
    Status(DbStatusArgs),
    /// Stop an instance (--remove also deletes the directories spindle made for it).
    Down(DbDownArgs),
    /// Start a stopped instance again (after `db down`, or a server that died), on its own
    /// data, port and password; prints its URL.
    Start(DbStartArgs),
}

#[derive(Debug, Args)]
pub struct DbUpArgs {
    /// postgres or mariadb.
    #[arg(long)]
    pub engine: String,
    /// Where its data goes: a new or empty directory.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// Where its WAL (PostgreSQL) or redo log (MariaDB) goes, if not inside --data: a new or
    /// empty directory, e.g. on another volume.
    #[arg(long, value_name = "DIR")]
    pub wal: Option<PathBuf>,
    /// Port on 127.0.0.1 [default: a free one].
    #[arg(long)]
    pub port: Option<u16>,
    /// Shared buffers / InnoDB buffer pool, e.g. 1G [default: 256M].
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
    /// Push automatic checkpoints out as far as the engine allows, so a manual checkpoint
    /// can be timed on its own.
    #[arg(long)]
    pub defer_checkpoints: bool,
}

#[derive(Debug, Args)]
#[command(mut_args(help(&[
    ("json", "Print the instances as JSON (passwords left out)"),
])))]
pub struct DbStatusArgs {
    #[command(flatten)]
    pub print: JsonArgs,
}

#[derive(Debug, Args)]
pub struct DbStartArgs {
    /// The instance's data directory, as given to `db up`.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
}

#[derive(Debug, Args)]
pub struct DbDownArgs {
    /// The instance's data directory, as given to `db up`.
    #[arg(long, value_name = "DIR", required_unless_present = "all", conflicts_with = "all")]
    pub data: Option<PathBuf>,
    /// Every instance spindle manages.
    #[arg(long)]
    pub all: bool,
    /// Also delete the directories spindle made for it (its data and WAL).
    #[arg(long)]
    pub remove: bool,
}
