use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The CSV file to write (never an existing file, unless --force).
    #[arg(long, short = 'o', value_name = "FILE.csv")]
    pub output: PathBuf,
    /// Time between samples [default: 1s].
    #[arg(long, value_name = "DURATION")]
    pub interval: Option<String>,
    /// Stop after this long [default: until Ctrl-C].
    #[arg(long, short = 'd')]
    pub duration: Option<String>,
    /// Disk to record (kernel name, e.g. nvme0n1; repeatable) [default: every disk].
    #[arg(long = "device", value_name = "NAME")]
    pub devices: Vec<String>,
    /// Replace FILE.csv if it exists.
    #[arg(long)]
    pub force: bool,
    /// Print nothing but errors.
    #[arg(long, short)]
    pub quiet: bool,
}
