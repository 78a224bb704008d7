//! `spindle orders load` on the real engines: one warehouse, then each table's rows against
//! TPC-C's cardinalities (clause 4.3.3.1) and consistency conditions 1 to 4 (clause 3.3.2),
//! asked of the database in SQL; a database already holding the tables, or tables of
//! another's, is refused.

use crate::common::spindle;
#[cfg(feature = "mysql")]
use crate::hammer_mysql::MARIADB;
#[cfg(feature = "postgres")]
use crate::hammer_postgres::POSTGRES;
#[cfg(any(feature = "postgres", feature = "mysql"))]
use crate::server_db::TestDb;

/// The rows of each table for one warehouse; ORDER-LINE's are counted by condition 4.
const CARDINALITIES: [(&str, i64); 8] = [
    ("warehouse", 1),
    ("district", 10),
    ("customer", 30_000),
    ("history", 30_000),
    ("new_order", 9_000),
    ("orders", 30_000),
    ("item", 100_000),
    ("stock", 100_000),
];

/// Consistency conditions 1 to 4, each as the number of warehouses or districts that break it.
const CONDITIONS: [&str; 4] = [
    "SELECT count(*) FROM warehouse WHERE w_ytd <> (SELECT sum(d_ytd) FROM district WHERE d_w_id = w_id)",
    "SELECT count(*) FROM district WHERE d_next_o_id - 1 <> (SELECT max(o_id) FROM orders WHERE o_w_id = d_w_id AND o_d_id = d_id) \
     OR d_next_o_id - 1 <> (SELECT max(no_o_id) FROM new_order WHERE no_w_id = d_w_id AND no_d_id = d_id)",
    "SELECT count(*) FROM (SELECT no_w_id FROM new_order GROUP BY no_w_id, no_d_id \
     HAVING count(no_o_id) <> max(no_o_id) - min(no_o_id) + 1) AS broken",
    "SELECT count(*) FROM (SELECT o_w_id, o_d_id, sum(o_ol_cnt) AS counted FROM orders GROUP BY o_w_id, o_d_id) AS o \
     WHERE counted <> (SELECT count(*) FROM order_line WHERE ol_w_id = o.o_w_id AND ol_d_id = o.o_d_id)",
];

fn load(db: &str, more: &[&str]) -> std::process::Output {
    spindle().args(["orders", "load", "--warehouses", "1", "--db", db]).args(more).output().unwrap()
}

/// Loads one warehouse into `db` and checks it with `count` (the first column of a query's
/// one row); `indexes` counts the two secondary indexes in the engine's catalog.
fn loads_one_warehouse(db: &str, count: &dyn Fn(&str) -> i64, indexes: &str) {
    let out = load(db, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("loaded 1 warehouse ("));
    for (table, rows) in CARDINALITIES {
        assert_eq!(count(&format!("SELECT count(*) FROM {table}")), rows, "{table}");
    }
    let lines = count("SELECT count(*) FROM order_line");
    assert!((150_000..=450_000).contains(&lines), "5 to 15 lines an order: {lines}");
    for (n, condition) in CONDITIONS.iter().enumerate() {
        assert_eq!(count(condition), 0, "consistency condition {} breaks: {condition}", n + 1);
    }
    assert_eq!(count("SELECT count(*) FROM new_order WHERE no_o_id < 2101"), 0, "the last 900 are new");
    assert_eq!(count("SELECT count(*) FROM orders WHERE o_carrier_id IS NULL"), 9_000);
    assert_eq!(
        count(
            "SELECT count(*) FROM customer WHERE (c_id = 1 AND c_last <> 'BARBARBAR') OR (c_id = 372 AND c_last <> 'PRICALLYOUGHT')"
        ),
        0,
        "the first 1,000 customers are named by their number"
    );
    let original = count("SELECT count(*) FROM stock WHERE s_data LIKE '%ORIGINAL%'");
    assert!((9_000..=11_000).contains(&original), "10% of stock is ORIGINAL: {original}");
    assert_eq!(count(indexes), 2, "customer_i2 and orders_i2");

    let again = load(db, &[]);
    assert_eq!(again.status.code(), Some(2), "loaded tables are not loaded over");
    assert!(String::from_utf8_lossy(&again.stderr).contains("--fresh"));
}

#[cfg(feature = "postgres")]
#[test]
fn orders_load_on_postgres() {
    let Some(db) = TestDb::create(&POSTGRES, "orders") else { return };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let conn = format!("host=127.0.0.1 user=root dbname={}", db.name);
    let client = rt.block_on(async {
        let (client, c) = tokio_postgres::connect(&conn, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(c);
        client
    });
    let count = |sql: &str| rt.block_on(client.query_one(sql, &[])).unwrap().get::<_, i64>(0);
    let indexes = "SELECT count(*) FROM pg_indexes WHERE indexname IN ('customer_i2', 'orders_i2')";
    loads_one_warehouse(&db.url(), &count, indexes);
    let keys = "SELECT count(*) FROM information_schema.table_constraints WHERE constraint_type = 'PRIMARY KEY' \
                AND table_schema = current_schema() AND table_name <> 'spindle_orders'";
    assert_eq!(count(keys), 8, "every table but history has its primary key, added after the rows");
}

#[cfg(feature = "mysql")]
#[test]
fn orders_load_on_mariadb() {
    use mysql_async::prelude::Queryable;
    let Some(db) = TestDb::create(&MARIADB, "orders") else { return };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let url = format!("mysql://root@127.0.0.1:3306/{}", db.name);
    let conn = std::cell::RefCell::new(rt.block_on(mysql_async::Conn::from_url(url)).unwrap());
    let count = |sql: &str| rt.block_on(conn.borrow_mut().query_first::<i64, _>(sql)).unwrap().unwrap();
    let indexes = "SELECT count(DISTINCT index_name) FROM information_schema.statistics \
                   WHERE table_schema = database() AND index_name IN ('customer_i2', 'orders_i2')";
    loads_one_warehouse(&db.url(), &count, indexes);
}

#[test]
fn orders_load_on_sqlite_and_again_with_fresh() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orders.db");
    let db = format!("sqlite://{}", path.display());
    let count = |sql: &str| {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap()
    };
    let indexes = "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ('customer_i2', 'orders_i2')";
    loads_one_warehouse(&db, &count, indexes);
    let out = load(&db, &["--fresh"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(count("SELECT count(*) FROM item"), 100_000, "--fresh loads the tables again, once");
}

#[test]
fn orders_load_refuses_bad_input_and_tables_not_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("theirs.db");
    let db = format!("sqlite://{}", path.display());
    let out = spindle().args(["orders", "load", "--warehouses", "0", "--db", &db]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--warehouses"));

    let theirs = rusqlite::Connection::open(&path).unwrap();
    theirs.execute_batch("CREATE TABLE item (i_id int); INSERT INTO item VALUES (7)").unwrap();
    for more in [&[][..], &["--fresh"]] {
        let out = load(&db, more);
        assert_eq!(out.status.code(), Some(2), "{more:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("item") && said.contains("not spindle's"), "{said}");
    }
    let kept: i64 = theirs.query_row("SELECT i_id FROM item", [], |r| r.get(0)).unwrap();
    assert_eq!(kept, 7, "a table of another's is left as it was, --fresh or not");
}
