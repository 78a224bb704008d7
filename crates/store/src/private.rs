//! Files and directories readable by their owner alone (0600, 0700), whatever the umask: a
//! store holds command lines, host names and labels, and a run kept beside it as much.

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// Creates `path` anew, never over anything already there (a symbolic link included), with
/// mode 0600.
pub fn create_file(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new().write(true).create_new(true).mode(0o600).open(path)?;
    // The mode asked at creation is masked by the umask (0400 under umask 277): set it outright.
    file.set_permissions(Permissions::from_mode(0o600))?;
    Ok(file)
}

/// Creates the directories of `dir` that are missing, each with mode 0700; those already
/// there are left as they are.
pub fn create_dirs(dir: &Path) -> io::Result<()> {
    let missing: Vec<&Path> =
        dir.ancestors().take_while(|d| !d.as_os_str().is_empty() && d.symlink_metadata().is_err()).collect();
    for d in missing.iter().rev() {
        match DirBuilder::new().mode(0o700).create(d) {
            Ok(()) => std::fs::set_permissions(d, Permissions::from_mode(0o700))?,
            // Another spindle made it meanwhile: it is its to set.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
