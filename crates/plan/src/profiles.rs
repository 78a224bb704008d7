//! Named database I/O patterns (`spindle io --profile NAME`). A profile is a set of settings
//! written the way a user writes them in a spec file, so it goes through the same validation
//! as flags and files, and any flag given beside it overrides it. docs/profiles.md says where
//! each number comes from.

/// One named pattern.
pub struct Profile {
    pub name: &'static str,
    /// What database operation this imitates, in a DBA's words.
    pub summary: &'static str,
    /// `(key, value)` as in a spec file's `[[target]]`; `threads = "cpus"` means one thread
    /// per logical CPU, as seed 004 sets SQLIO's thread count.
    pub settings: &'static [(&'static str, &'static str)],
}

impl Profile {
    pub fn setting(&self, key: &str) -> Option<&'static str> {
        self.settings.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
}

/// Every profile, grouped by engine; the order is the order `spindle profiles` lists them in.
pub const PROFILES: &[Profile] = &[
    // SQL Server: seed 004's table of operations and its SQLIO matrix.
    Profile {
        name: "sqlserver.page-read",
        summary: "single-page reads: 8 KiB random, a thread per CPU, 8 outstanding each",
        settings: &[("block", "8K"), ("read", "100"), ("random", "100"), ("threads", "cpus"), ("depth", "8")],
    },
    Profile {
        name: "sqlserver.extent-read",
        summary: "extent reads: 64 KiB random, a thread per CPU, 8 outstanding each",
        settings: &[("block", "64K"), ("read", "100"), ("random", "100"), ("threads", "cpus"), ("depth", "8")],
    },
    Profile {
        name: "sqlserver.read-ahead",
        summary: "read-ahead: 512 KiB sequential reads, a thread per CPU, 8 outstanding each",
        settings: &[("block", "512K"), ("read", "100"), ("random", "0"), ("threads", "cpus"), ("depth", "8")],
    },
    Profile {
        name: "sqlserver.page-write",
        summary: "single-page and eager writes: 8 KiB random, a thread per CPU, 8 outstanding each",
        settings: &[("block", "8K"), ("read", "0"), ("random", "100"), ("threads", "cpus"), ("depth", "8")],
    },
    Profile {
        name: "sqlserver.checkpoint",
        summary: "checkpoint / lazy writer: 256 KiB random writes from one thread, 100 outstanding",
        settings: &[("block", "256K"), ("read", "0"), ("random", "100"), ("threads", "1"), ("depth", "100")],
    },
    Profile {
        name: "sqlserver.checkpoint-burst",
        summary: "a checkpoint under pressure: 256 KiB random writes from one thread, 200 outstanding",
        settings: &[("block", "256K"), ("read", "0"), ("random", "100"), ("threads", "1"), ("depth", "200")],
    },
    Profile {
        name: "sqlserver.log-write",
        summary: "transaction log: 60 KiB sequential write-through writes, one at a time",
        settings: &[
            ("block", "60K"),
            ("read", "0"),
            ("random", "0"),
            ("threads", "1"),
            ("depth", "1"),
            ("write_through", "true"),
        ],
    },
    Profile {
        name: "sqlserver.tempdb",
        summary: "tempdb: 8-64 KiB random reads and writes, half each, a thread per CPU",
        settings: &[("mix", "8K:50,64K:50"), ("read", "50"), ("random", "100"), ("threads", "cpus"), ("depth", "8")],
    },
    Profile {
        name: "sqlserver.backup-read",
        summary: "BACKUP DATABASE reading the data files: 1 MiB sequential reads, 4 outstanding",
        settings: &[("block", "1M"), ("read", "100"), ("random", "0"), ("threads", "1"), ("depth", "4")],
    },
    Profile {
        name: "sqlserver.create-database",
        summary: "CREATE DATABASE / file growth zeroing: 512 KiB sequential writes",
        settings: &[("block", "512K"), ("read", "0"), ("random", "0"), ("threads", "1"), ("depth", "8")],
    },
    Profile {
        name: "sqlserver.checkdb",
        summary: "DBCC CHECKDB: 8-64 KiB sequential reads, a thread per CPU",
        settings: &[("mix", "8K:50,64K:50"), ("read", "100"), ("random", "0"), ("threads", "cpus"), ("depth", "8")],
    },
    // PostgreSQL: buffered I/O through the page cache (there is no production direct-I/O mode),
    // one synchronous I/O per backend, 8 KiB pages (BLCKSZ).
    Profile {
        name: "postgres.page-read",
        summary: "backends reading pages: 8 KiB random buffered reads, a backend per CPU, one at a time",
        settings: &[
            ("block", "8K"),
            ("read", "100"),
            ("random", "100"),
            ("threads", "cpus"),
            ("depth", "1"),
            ("buffered", "true"),
        ],
    },
    Profile {
        name: "postgres.seq-scan",
        summary: "sequential scans with io_combine_limit (PG17+): 128 KiB sequential buffered reads",
        settings: &[
            ("block", "128K"),
            ("read", "100"),
            ("random", "0"),
            ("threads", "1"),
            ("depth", "1"),
            ("buffered", "true"),
        ],
    },
    Profile {
        name: "postgres.wal-write",
        summary: "WAL at commit: 8 KiB sequential writes, each followed by fdatasync (wal_sync_method)",
        settings: &[
            ("block", "8K"),
            ("read", "0"),
            ("random", "0"),
            ("threads", "1"),
            ("depth", "1"),
            ("buffered", "true"),
            ("fsync_every", "1"),
        ],
    },
    Profile {
        name: "postgres.checkpoint",
        summary: "checkpointer: 8 KiB buffered page writes from one process, flushed every 256 KiB",
        settings: &[
            ("block", "8K"),
            ("read", "0"),
            ("random", "100"),
            ("threads", "1"),
            ("depth", "1"),
            ("buffered", "true"),
            ("fsync_every", "32"),
        ],
    },
    // MySQL / MariaDB InnoDB: 16 KiB pages, O_DIRECT data files (innodb_flush_method default).
    Profile {
        name: "mysql.page-read",
        summary: "InnoDB page reads: 16 KiB random direct reads, a thread per CPU, one at a time",
        settings: &[("block", "16K"), ("read", "100"), ("random", "100"), ("threads", "cpus"), ("depth", "1")],
    },
    Profile {
        name: "mysql.read-ahead",
        summary: "InnoDB linear read-ahead: a 64-page extent of 16 KiB reads in flight at once",
        settings: &[("block", "16K"), ("read", "100"), ("random", "0"), ("threads", "1"), ("depth", "64")],
    },
    Profile {
        name: "mysql.page-flush",
        summary: "InnoDB page cleaner: 16 KiB random direct writes from 4 write I/O threads",
        settings: &[("block", "16K"), ("read", "0"), ("random", "100"), ("threads", "4"), ("depth", "16")],
    },
    Profile {
        name: "mysql.redo-write",
        summary: "redo log at commit (innodb_flush_log_at_trx_commit=1): 4 KiB sequential writes, fsync each",
        settings: &[
            ("block", "4K"),
            ("read", "0"),
            ("random", "0"),
            ("threads", "1"),
            ("depth", "1"),
            ("fsync_every", "1"),
        ],
    },
    Profile {
        name: "mysql.doublewrite",
        summary: "doublewrite buffer: 1 MiB sequential writes (64 pages), fsync each",
        settings: &[
            ("block", "1M"),
            ("read", "0"),
            ("random", "0"),
            ("threads", "1"),
            ("depth", "1"),
            ("fsync_every", "1"),
        ],
    },
];

pub fn find(name: &str) -> Option<&'static Profile> {
    PROFILES.iter().find(|p| p.name == name)
}

/// The names, for "valid profiles: ..." messages.
pub fn names() -> Vec<&'static str> {
    PROFILES.iter().map(|p| p.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_engine_prefixed() {
        let mut names = names();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), PROFILES.len());
        for name in names {
            let engine = name.split('.').next().unwrap();
            assert!(["sqlserver", "postgres", "mysql"].contains(&engine), "{name}");
        }
    }

    #[test]
    fn every_profile_names_its_sizes_and_direction() {
        for p in PROFILES {
            assert!(p.setting("block").is_some() ^ p.setting("mix").is_some(), "{}: block or mix", p.name);
            assert!(p.setting("read").is_some(), "{}: read", p.name);
            assert!(p.setting("threads").is_some(), "{}: threads", p.name);
        }
        assert_eq!(find("sqlserver.checkpoint").unwrap().setting("depth"), Some("100"));
        assert!(find("sqlserver.nothing").is_none());
    }
}
