//! The list of managed instances' data directories (`instances.json` in spindle's data
//! directory), so `db status` and `db down --all` find instances that a spindle long gone
//! started. Each entry's state lives in its own data directory.

use crate::DbError;
use std::path::{Path, PathBuf};

/// The registry file in spindle's data directory.
pub fn path_in(data_dir: &Path) -> PathBuf {
    data_dir.join("instances.json")
}

/// The data directories listed (an absent or unreadable registry lists none).
pub fn list(registry: &Path) -> Vec<PathBuf> {
    std::fs::read_to_string(registry).ok().and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default()
}

pub fn add(registry: &Path, data: &Path) -> Result<(), DbError> {
    let mut all = list(registry);
    if !all.iter().any(|d| d == data) {
        all.push(data.to_path_buf());
    }
    save(registry, &all)
}

pub fn remove(registry: &Path, data: &Path) -> Result<(), DbError> {
    let mut all = list(registry);
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
        assert!(list(&reg).is_empty());
        add(&reg, Path::new("/a")).unwrap();
        add(&reg, Path::new("/b")).unwrap();
        add(&reg, Path::new("/a")).unwrap();
        assert_eq!(list(&reg), vec![PathBuf::from("/a"), PathBuf::from("/b")]);
        remove(&reg, Path::new("/a")).unwrap();
        assert_eq!(list(&reg), vec![PathBuf::from("/b")]);
    }
}
