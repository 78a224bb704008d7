//! Loading the nine tables: what is there decides whether the load may begin (`begin`); the
//! tables are created, then ITEM and each warehouse are loaded as parts taken in turn by
//! several connections at once (each part's rows generated and sent as `Conn::copy_in` text:
//! COPY on PostgreSQL, LOAD DATA on MariaDB, a prepared insert on SQLite), then the keys and
//! indexes left for after the rows are built, again several at once, and the load is marked
//! complete.

use super::population::Orders;
use super::rows::Generator;
use super::schema::{self, MARKER, TABLES, Table};
use crate::{Conn, DbError, DbUrl, Engine};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime};

#[derive(Clone, Debug)]
pub struct LoadOptions {
    pub warehouses: u64,
    /// Drop spindle's order-entry tables if they are there, and load them again.
    pub fresh: bool,
}

#[derive(Clone, Debug, Default)]
pub struct LoadOutcome {
    /// Rows loaded into the nine tables.
    pub rows: u64,
    /// From the first row sent to the last committed.
    pub rows_time: Duration,
    /// Building the keys and indexes left for after the rows.
    pub index_time: Duration,
    /// Stopped (Ctrl-C) before the load completed: the tables are left as they are, marked
    /// incomplete, and `--fresh` loads them again.
    pub interrupted: bool,
}

/// Connections loading at once: the server parses and writes each one's rows on a backend or
/// thread of its own while spindle generates the next part, as Hammer's load has two. SQLite
/// takes one writer.
fn connections(engine: Engine) -> usize {
    if engine == Engine::Sqlite { 1 } else { 2 }
}

/// One part of the load, generated and sent by one connection.
#[derive(Clone, Copy, Debug)]
enum Part {
    Items,
    Warehouse(u64),
}

pub fn load(url: &DbUrl, opts: &LoadOptions, stop: &AtomicBool) -> Result<LoadOutcome, DbError> {
    let mut lead = crate::open(url)?;
    begin(lead.as_mut(), opts.fresh)?;
    let seed = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    create(lead.as_mut(), opts.warehouses, seed)?;
    let now =
        spindle_model::time::rfc3339_utc(SystemTime::now()).replace('T', " ").chars().take(19).collect::<String>();
    let parts: Vec<Part> = std::iter::once(Part::Items).chain((1..=opts.warehouses).map(Part::Warehouse)).collect();
    let rows = AtomicU64::new(0);
    let started = Instant::now();
    let n = connections(lead.engine());
    on_connections(url, n, &parts, stop, |conn, &part| {
        rows.fetch_add(load_part(conn, part, seed, &now)?, Ordering::Relaxed);
        Ok(())
    })?;
    let mut outcome = LoadOutcome { rows: rows.into_inner(), rows_time: started.elapsed(), ..Default::default() };
    if stop.load(Ordering::Relaxed) {
        outcome.interrupted = true;
        return Ok(outcome);
    }
    let started = Instant::now();
    on_connections(url, n, &schema::after_rows(lead.engine()), stop, |conn, sql| conn.execute(sql))?;
    outcome.index_time = started.elapsed();
    outcome.interrupted = stop.load(Ordering::Relaxed);
    if !outcome.interrupted {
        lead.execute(&format!("UPDATE {MARKER} SET value = 'complete' WHERE name = 'state'"))?;
    }
    Ok(outcome)
}

/// The tables that are there decide: none, and the load begins; spindle's (the marker beside
/// them), and they are dropped when `fresh` asks; any other, and nothing is touched.
fn begin(conn: &mut dyn Conn, fresh: bool) -> Result<(), DbError> {
    let found = conn.query_text(&schema::present(conn.engine()))?.unwrap_or_default();
    let found: Vec<&str> = found.split(',').filter(|n| !n.is_empty()).collect();
    if found.is_empty() {
        return Ok(());
    }
    let db = conn.shown();
    if !found.contains(&MARKER) {
        return Err(DbError::Unusable {
            db,
            why: format!(
                "holds tables named {} that are not spindle's (no {MARKER} beside them); they are left alone: point --db at another database",
                found.join(", ")
            ),
        });
    }
    if !fresh {
        return Err(DbError::Unusable {
            db,
            why: "already holds spindle's order-entry tables; pass --fresh to drop them and load again".into(),
        });
    }
    for name in found {
        conn.execute(&format!("DROP TABLE {name}"))?;
    }
    Ok(())
}

/// Creates the nine tables and the marker, which records what the load is.
fn create(conn: &mut dyn Conn, warehouses: u64, seed: u64) -> Result<(), DbError> {
    let engine = conn.engine();
    if engine == Engine::Sqlite {
        // As the servers: committed rows wait in the log, not in the tables' pages.
        conn.execute("PRAGMA journal_mode = WAL")?;
    }
    conn.execute(&format!("CREATE TABLE {MARKER} (name varchar(32) PRIMARY KEY, value varchar(32))"))?;
    let c_last = Generator::new(seed, "").c_last_constant();
    conn.execute(&format!(
        "INSERT INTO {MARKER} VALUES ('warehouses', '{warehouses}'), ('c_last', '{c_last}'), ('state', 'loading')"
    ))?;
    for table in TABLES {
        conn.execute(&schema::create(table, engine))?;
    }
    Ok(())
}

/// Generates and sends one part's rows, a table at a time; returns the rows sent.
fn load_part(conn: &mut dyn Conn, part: Part, seed: u64, now: &str) -> Result<u64, DbError> {
    let index = match part {
        Part::Items => 0,
        Part::Warehouse(w) => w,
    };
    let mut g = Generator::part(seed, index, now);
    let mut send = |table: &Table, text: String| conn.copy_in(table.name, &table.column_names(), text.into());
    let Part::Warehouse(w) = part else {
        let mut text = String::with_capacity(8 << 20);
        g.items(&mut text);
        return send(&schema::ITEM, text);
    };
    let mut rows = 0;
    let mut text = String::new();
    g.warehouse(w, &mut text);
    rows += send(&schema::WAREHOUSE, std::mem::take(&mut text))?;
    g.districts(w, &mut text);
    rows += send(&schema::DISTRICT, std::mem::take(&mut text))?;
    let per_warehouse = super::customer::CUSTOMERS_PER_DISTRICT * super::customer::DISTRICTS_PER_WAREHOUSE;
    g.customers((w - 1) * per_warehouse..w * per_warehouse, &mut text);
    rows += send(&schema::CUSTOMER, std::mem::take(&mut text))?;
    g.history(w, &mut text);
    rows += send(&schema::HISTORY, std::mem::take(&mut text))?;
    let mut orders = Orders::default();
    g.orders(w, &mut orders);
    rows += send(&schema::ORDERS, orders.orders)?;
    rows += send(&schema::NEW_ORDER, orders.new_order)?;
    rows += send(&schema::ORDER_LINE, orders.order_line)?;
    g.stock(w, &mut text);
    rows += send(&schema::STOCK, text)?;
    Ok(rows)
}

/// Runs `work` on each of `items`, taken in turn by `connections` connections of their own to
/// `url`, until all are done, a stop, or a failure (returned once every
/// connection has stopped).
fn on_connections<T: Sync>(
    url: &DbUrl,
    connections: usize,
    items: &[T],
    stop: &AtomicBool,
    work: impl Fn(&mut dyn Conn, &T) -> Result<(), DbError> + Sync,
) -> Result<(), DbError> {
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let worker = || -> Result<(), DbError> {
        let mut conn = crate::open(url)?;
        while !stop.load(Ordering::Relaxed) && !failed.load(Ordering::Relaxed) {
            let Some(item) = items.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
            work(conn.as_mut(), item)?;
        }
        Ok(())
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..connections.min(items.len()))
            .map(|_| {
                scope.spawn(|| {
                    let done = worker();
                    failed.fetch_or(done.is_err(), Ordering::Relaxed);
                    done
                })
            })
            .collect();
        let mut first = Ok(());
        for handle in handles {
            let done = handle.join().unwrap_or(Err(DbError::Panic));
            if first.is_ok() {
                first = done;
            }
        }
        first
    })
}
