//! The list of managed instances' data directories (`instances.json` in spindle's data
//! directory), so `db status` and `db down --all` find instances that a spindle long gone
//! started. Each entry's state lives in its own data directory.

use crate::DbError;
use std::path::{Path, PathBuf};

/// The registry file in spindle's data directory.
pub fn path_in(data_dir: &Path) -> PathBuf {
    data_dir.join("instances.json")
}

/// The data directories listed; an absent registry lists none. One that cannot be read, or
/// is not a list of directories, is an error naming it: read as empty, it would say no
/// instance exists while servers run, and the next `db up` would write over the list.
pub fn list(registry: &Path) -> Result<Vec<PathBuf>, DbError> {
    let text = match std::fs::read_to_string(registry) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(DbError::Io(registry.to_path_buf(), e)),
    };
    serde_json::from_str(&text).map_err(|e| DbError::Managed {
        what: registry.display().to_string(),
        why: format!(
            "the registry of managed instances is unreadable ({e}); spindle leaves it as it is: repair it, or move it away to start a new list"
        ),
    })
}

pub fn add(registry: &Path, data: &Path) -> Result<(), DbError> {
    let mut all = list(registry)?;
    if !all.iter().any(|d| d == data) {
        all.push(data.to_path_buf());
    }
    save(registry, &all)
}

pub fn remove(registry: &Path, data: &Path) -> Result<(), DbError> {
    let mut all = list(registry)?;
    all.retain(|d| d != data);
    save(registry, &all)
}

fn save(registry: &Path, all: &[PathBuf]) -> Result<(), DbError> {
    if let Some(dir) = registry.parent() {
        std::fs::create_dir_all(dir).map_err(|e| DbError::Io(dir.to_path_buf(), e))?;
    }
    let text = serde_json::to_string_pretty(all).unwrap_or_else(|_| "[]".into());
    let tmp = registry.with_extension("json.tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, registry))
        .map_err(|e| DbError::Io(registry.to_path_buf(), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_added_once_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let reg = path_in(dir.path());
        assert!(list(&reg).unwrap().is_empty());
        add(&reg, Path::new("/a")).unwrap();
        add(&reg, Path::new("/b")).unwrap();
        add(&reg, Path::new("/a")).unwrap();
        assert_eq!(list(&reg).unwrap(), vec![PathBuf::from("/a"), PathBuf::from("/b")]);
        remove(&reg, Path::new("/a")).unwrap();
        assert_eq!(list(&reg).unwrap(), vec![PathBuf::from("/b")]);
    }

    #[test]
    fn a_garbage_registry_is_an_error_and_never_written_over() {
        let dir = tempfile::tempdir().unwrap();
        let reg = path_in(dir.path());
        std::fs::write(&reg, "{not json").unwrap();
        let err = list(&reg).unwrap_err().to_string();
        assert!(err.contains(reg.to_str().unwrap()) && err.contains("unreadable"), "{err}");
        assert!(add(&reg, Path::new("/a")).is_err());
        assert!(remove(&reg, Path::new("/a")).is_err());
        assert_eq!(std::fs::read_to_string(&reg).unwrap(), "{not json");
    }
}
