//! The `spindle` binary: the command line is the library's (lib.rs), shared with the fuzz targets.

fn main() -> std::process::ExitCode {
    spindle::main()
}
