//! A database of a test's own on one of this machine's servers, dropped when the test ends.
//! Without the server the test skips with a notice, unless SPINDLE_REQUIRE_SERVERS=1, where
//! it fails (spindle_testenv).

/// A server the tests can reach, and how to run administrative statements on it.
pub struct Server {
    pub name: &'static str,
    /// `scheme://user@host:port`, without a database.
    pub url: &'static str,
    /// Runs each statement in turn.
    pub admin: fn(&[String]) -> Result<(), String>,
    /// Appended to DROP DATABASE (PostgreSQL: `WITH (FORCE)`, to end open sessions).
    pub drop_options: &'static str,
}

pub struct TestDb {
    pub name: String,
    server: &'static Server,
}

impl TestDb {
    pub fn create(server: &'static Server, tag: &str) -> Option<TestDb> {
        let name = format!("spindle_it_{tag}_{}", std::process::id());
        let drop = format!("DROP DATABASE IF EXISTS {name} {}", server.drop_options);
        match (server.admin)(&[drop, format!("CREATE DATABASE {name}")]) {
            Ok(()) => Some(TestDb { name, server }),
            Err(e) => {
                spindle_testenv::unavailable(server.name, format!("{}: {e}", server.url));
                None
            }
        }
    }

    pub fn url(&self) -> String {
        format!("{}/{}", self.server.url, self.name)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let _ = (self.server.admin)(&[format!("DROP DATABASE IF EXISTS {} {}", self.name, self.server.drop_options)]);
    }
}
