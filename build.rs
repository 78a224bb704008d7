//! Embeds the commit spindle was built from, so `spindle --version` says exactly which code
//! made a result. Outside a git checkout (a source tarball) it says `unknown commit`.

use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown commit".into());
    // Whether tracked files differed from the commit when this script last ran.
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    println!("cargo:rustc-env=SPINDLE_COMMIT={commit}{}", if dirty { ", modified" } else { "" });
    // Rebuilt when the checkout moves to another commit.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/refs/heads");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
