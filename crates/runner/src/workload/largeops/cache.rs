//! Before the scan and the update: caches emptied as far as spindle can, and an honest word
//! on whether the operation then runs cold. A managed instance is restarted (its buffer cache
//! is then empty); a server spindle does not manage keeps its cache, so its scan is warm. The
//! OS page cache is dropped where spindle may (as root).

use spindle_db::managed::{Instance, drop_os_cache};
use spindle_db::{Conn, DbError, DbUrl};

/// Whether what follows reads from the device, and why (or why not).
pub struct Coldness {
    pub cold: bool,
    pub why: String,
}

/// Checkpoints, empties the engine's cache (restarting a managed instance, which reconnects
/// `conn`), then drops the OS page cache.
pub fn empty_caches(
    conn: &mut Box<dyn Conn>,
    url: &DbUrl,
    managed: Option<&mut Instance>,
) -> Result<Coldness, DbError> {
    conn.checkpoint()?;
    let (engine_cold, engine_why) = match managed {
        Some(instance) => {
            instance.restart()?;
            *conn = spindle_db::open(url)?;
            (true, "the managed instance was restarted".to_string())
        }
        None => {
            let kept = conn.drop_caches()?;
            match kept.first() {
                Some(why) => (false, format!("{why}, and spindle does not manage this server (spindle db up)")),
                None => (true, format!("{} was emptied", conn.cache_name())),
            }
        }
    };
    let os = drop_os_cache();
    let cold = engine_cold && os.is_ok();
    let why = match os {
        Ok(()) if cold => format!("cold: {engine_why}, and the OS page cache was dropped"),
        Ok(()) => format!("warm: {engine_why}"),
        Err(e) => format!("warm: {e}"),
    };
    Ok(Coldness { cold, why })
}
