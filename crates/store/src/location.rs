//! Where the store lives: `--store PATH`, else `$SPINDLE_STORE`, else the XDG data directory
//! (`$XDG_DATA_HOME/spindle/results.db`, `~/.local/share/spindle/results.db`).

use std::path::PathBuf;

/// The store path, given the `--store` flag and the environment (passed in, so tests need not
/// touch the process environment).
pub fn store_path(flag: Option<PathBuf>, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    flag.or_else(|| set("SPINDLE_STORE").map(PathBuf::from)).or_else(|| Some(data_dir(env)?.join("results.db")))
}

/// spindle's own data directory: `$XDG_DATA_HOME/spindle`, else `~/.local/share/spindle`
/// (the store's default home, and where managed database instances are listed).
pub fn data_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    let data = set("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| set("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("spindle"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn flag_then_environment_then_xdg_then_home() {
        let all = env(&[("SPINDLE_STORE", "/s.db"), ("XDG_DATA_HOME", "/xdg"), ("HOME", "/home/u")]);
        assert_eq!(store_path(Some("/f.db".into()), &all), Some("/f.db".into()));
        assert_eq!(store_path(None, &all), Some("/s.db".into()));
        let xdg = env(&[("SPINDLE_STORE", ""), ("XDG_DATA_HOME", "/xdg"), ("HOME", "/home/u")]);
        assert_eq!(store_path(None, &xdg), Some("/xdg/spindle/results.db".into()));
        let home = env(&[("HOME", "/home/u")]);
        assert_eq!(store_path(None, &home), Some("/home/u/.local/share/spindle/results.db".into()));
        assert_eq!(store_path(None, &env(&[])), None);
    }
}
