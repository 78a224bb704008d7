//! Each engine's standard matrix of I/O patterns (`spindle suite ENGINE`). A member is a
//! profile, optionally with settings changed, so it is validated like any `spindle io` run.

pub struct Member {
    /// The run's name within the suite, as the summary table and the store show it.
    pub name: &'static str,
    pub profile: &'static str,
    /// `(key, value)` over the profile's settings: `random`, `depth`.
    pub changes: &'static [(&'static str, &'static str)],
}

pub struct Suite {
    pub engine: &'static str,
    pub members: &'static [Member],
}

const fn member(name: &'static str, profile: &'static str, changes: &'static [(&'static str, &'static str)]) -> Member {
    Member { name, profile, changes }
}

pub const SUITES: &[Suite] = &[
    // Seed 004's SQLIO matrix (random and sequential, reads and writes, at SQL Server's sizes;
    // a thread per CPU with 8 outstanding, checkpoint-like writes from one thread at 100 and
    // 200 outstanding), plus the log's sequential write-through appends.
    Suite {
        engine: "sqlserver",
        members: &[
            member("random-8k-read", "sqlserver.page-read", &[]),
            member("random-64k-read", "sqlserver.extent-read", &[]),
            member("random-512k-read", "sqlserver.read-ahead", &[("random", "100")]),
            member("random-8k-write", "sqlserver.page-write", &[]),
            member("random-256k-write-o100", "sqlserver.checkpoint", &[]),
            member("random-256k-write-o200", "sqlserver.checkpoint-burst", &[]),
            member("seq-8k-read", "sqlserver.page-read", &[("random", "0")]),
            member("seq-64k-read", "sqlserver.extent-read", &[("random", "0")]),
            member("seq-512k-read", "sqlserver.read-ahead", &[]),
            member("seq-8k-write", "sqlserver.page-write", &[("random", "0")]),
            member("seq-256k-write-o100", "sqlserver.checkpoint", &[("random", "0")]),
            member("seq-256k-write-o200", "sqlserver.checkpoint-burst", &[("random", "0")]),
            member("log-write", "sqlserver.log-write", &[]),
        ],
    },
    Suite {
        engine: "postgres",
        members: &[
            member("page-read", "postgres.page-read", &[]),
            member("seq-scan", "postgres.seq-scan", &[]),
            member("checkpoint", "postgres.checkpoint", &[]),
            member("wal-write", "postgres.wal-write", &[]),
        ],
    },
    Suite {
        engine: "mysql",
        members: &[
            member("page-read", "mysql.page-read", &[]),
            member("read-ahead", "mysql.read-ahead", &[]),
            member("page-flush", "mysql.page-flush", &[]),
            member("doublewrite", "mysql.doublewrite", &[]),
            member("redo-write", "mysql.redo-write", &[]),
        ],
    },
];

pub fn find(engine: &str) -> Option<&'static Suite> {
    SUITES.iter().find(|s| s.engine == engine)
}

pub fn names() -> Vec<&'static str> {
    SUITES.iter().map(|s| s.engine).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_member_names_a_real_profile_and_only_known_changes() {
        for suite in SUITES {
            for m in suite.members {
                let p = crate::profiles::find(m.profile).unwrap_or_else(|| panic!("{}: {}", m.name, m.profile));
                assert!(p.name.starts_with(suite.engine), "{} uses another engine's profile", m.name);
                for (key, _) in m.changes {
                    assert!(["random", "depth"].contains(key), "{}: {key}", m.name);
                }
            }
        }
        assert_eq!(find("sqlserver").unwrap().members.len(), 13, "seed 004's 12 SQLIO runs and the log");
        assert!(find("oracle").is_none());
    }
}
