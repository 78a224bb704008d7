//! The nine tables of TPC-C (v5.11, clause 1.3) with their columns in the order rows are
//! written, their primary keys, and the two secondary indexes of HammerDB's TPROC-C schema;
//! the DDL of each engine is made from them. Keys are where each engine loads fastest:
//! PostgreSQL builds every key after the rows are in (one sort each, as `pgbench -i` does);
//! InnoDB and SQLite keep a table in its key's order, so there the tables are created with
//! their keys and the rows arrive in key order. The secondary indexes are built after the rows
//! on every engine.

use crate::Engine;

/// A column's type, as each engine spells it.
#[derive(Clone, Copy, Debug)]
pub enum Type {
    Int,
    Small,
    /// Text of up to `n` characters.
    Var(u16),
    /// Text of exactly `n` characters.
    Char(u16),
    /// A decimal of `p` digits, `s` after the point.
    Decimal(u8, u8),
    /// A date and time.
    Time,
}

impl Type {
    fn sql(self, engine: Engine) -> String {
        match self {
            Type::Int => "integer".into(),
            Type::Small => "smallint".into(),
            Type::Var(n) => format!("varchar({n})"),
            Type::Char(n) => format!("char({n})"),
            Type::Decimal(p, s) => format!("numeric({p},{s})"),
            Type::Time if engine == Engine::MySql => "datetime".into(),
            Type::Time => "timestamp".into(),
        }
    }
}

pub struct Table {
    pub name: &'static str,
    pub columns: &'static [(&'static str, Type)],
    /// The primary key's columns (none for HISTORY, which has no key in the specification).
    pub key: &'static [&'static str],
}

impl Table {
    pub fn column_names(&self) -> Vec<&'static str> {
        self.columns.iter().map(|c| c.0).collect()
    }
}

use Type::{Char, Decimal, Int, Small, Time, Var};

const ADDRESS: [(&str, Type); 5] =
    [("street_1", Var(20)), ("street_2", Var(20)), ("city", Var(20)), ("state", Char(2)), ("zip", Char(9))];

pub const WAREHOUSE: Table = Table {
    name: "warehouse",
    columns: &[
        ("w_id", Int),
        ("w_name", Var(10)),
        ("w_street_1", ADDRESS[0].1),
        ("w_street_2", ADDRESS[1].1),
        ("w_city", ADDRESS[2].1),
        ("w_state", ADDRESS[3].1),
        ("w_zip", ADDRESS[4].1),
        ("w_tax", Decimal(4, 4)),
        ("w_ytd", Decimal(12, 2)),
    ],
    key: &["w_id"],
};

pub const DISTRICT: Table = Table {
    name: "district",
    columns: &[
        ("d_id", Small),
        ("d_w_id", Int),
        ("d_name", Var(10)),
        ("d_street_1", ADDRESS[0].1),
        ("d_street_2", ADDRESS[1].1),
        ("d_city", ADDRESS[2].1),
        ("d_state", ADDRESS[3].1),
        ("d_zip", ADDRESS[4].1),
        ("d_tax", Decimal(4, 4)),
        ("d_ytd", Decimal(12, 2)),
        ("d_next_o_id", Int),
    ],
    key: &["d_w_id", "d_id"],
};

/// In the order of `customer::COLUMNS`, which the large operations' table shares.
pub const CUSTOMER: Table = Table {
    name: "customer",
    columns: &[
        ("c_id", Int),
        ("c_d_id", Small),
        ("c_w_id", Int),
        ("c_first", Var(16)),
        ("c_middle", Char(2)),
        ("c_last", Var(16)),
        ("c_street_1", ADDRESS[0].1),
        ("c_street_2", ADDRESS[1].1),
        ("c_city", ADDRESS[2].1),
        ("c_state", ADDRESS[3].1),
        ("c_zip", ADDRESS[4].1),
        ("c_phone", Char(16)),
        ("c_since", Time),
        ("c_credit", Char(2)),
        ("c_credit_lim", Decimal(12, 2)),
        ("c_discount", Decimal(4, 4)),
        ("c_balance", Decimal(12, 2)),
        ("c_ytd_payment", Decimal(12, 2)),
        ("c_payment_cnt", Small),
        ("c_delivery_cnt", Small),
        ("c_data", Var(500)),
    ],
    key: &["c_w_id", "c_d_id", "c_id"],
};

pub const HISTORY: Table = Table {
    name: "history",
    columns: &[
        ("h_c_id", Int),
        ("h_c_d_id", Small),
        ("h_c_w_id", Int),
        ("h_d_id", Small),
        ("h_w_id", Int),
        ("h_date", Time),
        ("h_amount", Decimal(6, 2)),
        ("h_data", Var(24)),
    ],
    key: &[],
};

pub const NEW_ORDER: Table = Table {
    name: "new_order",
    columns: &[("no_o_id", Int), ("no_d_id", Small), ("no_w_id", Int)],
    key: &["no_w_id", "no_d_id", "no_o_id"],
};

pub const ORDERS: Table = Table {
    name: "orders",
    columns: &[
        ("o_id", Int),
        ("o_d_id", Small),
        ("o_w_id", Int),
        ("o_c_id", Int),
        ("o_entry_d", Time),
        ("o_carrier_id", Small),
        ("o_ol_cnt", Small),
        ("o_all_local", Small),
    ],
    key: &["o_w_id", "o_d_id", "o_id"],
};

pub const ORDER_LINE: Table = Table {
    name: "order_line",
    columns: &[
        ("ol_o_id", Int),
        ("ol_d_id", Small),
        ("ol_w_id", Int),
        ("ol_number", Small),
        ("ol_i_id", Int),
        ("ol_supply_w_id", Int),
        ("ol_delivery_d", Time),
        ("ol_quantity", Small),
        ("ol_amount", Decimal(6, 2)),
        ("ol_dist_info", Char(24)),
    ],
    key: &["ol_w_id", "ol_d_id", "ol_o_id", "ol_number"],
};

pub const ITEM: Table = Table {
    name: "item",
    columns: &[("i_id", Int), ("i_im_id", Int), ("i_name", Var(24)), ("i_price", Decimal(5, 2)), ("i_data", Var(50))],
    key: &["i_id"],
};

pub const STOCK: Table = Table {
    name: "stock",
    columns: &[
        ("s_i_id", Int),
        ("s_w_id", Int),
        ("s_quantity", Small),
        ("s_dist_01", Char(24)),
        ("s_dist_02", Char(24)),
        ("s_dist_03", Char(24)),
        ("s_dist_04", Char(24)),
        ("s_dist_05", Char(24)),
        ("s_dist_06", Char(24)),
        ("s_dist_07", Char(24)),
        ("s_dist_08", Char(24)),
        ("s_dist_09", Char(24)),
        ("s_dist_10", Char(24)),
        ("s_ytd", Decimal(8, 0)),
        ("s_order_cnt", Small),
        ("s_remote_cnt", Small),
        ("s_data", Var(50)),
    ],
    key: &["s_w_id", "s_i_id"],
};

pub const TABLES: [&Table; 9] =
    [&WAREHOUSE, &DISTRICT, &CUSTOMER, &HISTORY, &NEW_ORDER, &ORDERS, &ORDER_LINE, &ITEM, &STOCK];

/// spindle's mark beside the nine tables: they are spindle's to replace, how many warehouses
/// they hold, the C_LAST constant of the load (the transactions' own must differ from it as
/// clause 2.1.6.1 says), and whether the load completed.
pub const MARKER: &str = "spindle_orders";

/// HammerDB's two secondary indexes: customers by last name (Payment and Order-Status by
/// name), and a customer's orders (Order-Status's latest order).
pub const INDEXES: [(&str, &str, &[&str]); 2] = [
    ("customer_i2", "customer", &["c_w_id", "c_d_id", "c_last", "c_first", "c_id"]),
    ("orders_i2", "orders", &["o_w_id", "o_d_id", "o_c_id", "o_id"]),
];

/// Whether the engine creates each table with its primary key, rows then arriving in key
/// order, rather than adding the key after the rows.
fn keys_at_create(engine: Engine) -> bool {
    engine != Engine::Postgres
}

/// `CREATE TABLE` for `table` on `engine`.
pub fn create(table: &Table, engine: Engine) -> String {
    let mut parts: Vec<String> = table.columns.iter().map(|(n, t)| format!("{n} {}", t.sql(engine))).collect();
    let keyed = !table.key.is_empty();
    if keyed && keys_at_create(engine) {
        parts.push(format!("PRIMARY KEY ({})", table.key.join(", ")));
    }
    let tail = match engine {
        Engine::MySql => " ENGINE = InnoDB",
        Engine::Sqlite if keyed => " WITHOUT ROWID",
        _ => "",
    };
    format!("CREATE TABLE {} ({}){tail}", table.name, parts.join(", "))
}

/// What follows the rows: the keys not made with the tables, then the secondary indexes;
/// each statement stands alone, so several can be built at once on their own connections.
pub fn after_rows(engine: Engine) -> Vec<String> {
    let keys = TABLES
        .iter()
        .filter(|t| !t.key.is_empty() && !keys_at_create(engine))
        .map(|t| format!("ALTER TABLE {} ADD PRIMARY KEY ({})", t.name, t.key.join(", ")));
    let indexes =
        INDEXES.iter().map(|(name, table, cols)| format!("CREATE INDEX {name} ON {table} ({})", cols.join(", ")));
    keys.chain(indexes).collect()
}

/// A query for the names, comma-separated, of the nine tables and the marker that are there.
pub fn present(engine: Engine) -> String {
    let names: Vec<String> = TABLES.iter().map(|t| t.name).chain([MARKER]).map(|n| format!("'{n}'")).collect();
    let names = names.join(", ");
    match engine {
        Engine::Postgres => format!(
            "SELECT string_agg(tablename::text, ',') FROM pg_tables WHERE schemaname = current_schema() AND tablename IN ({names})"
        ),
        Engine::MySql => format!(
            "SELECT CAST(group_concat(table_name) AS CHAR) FROM information_schema.tables WHERE table_schema = database() AND table_name IN ({names})"
        ),
        Engine::Sqlite => {
            format!("SELECT group_concat(name) FROM sqlite_master WHERE type = 'table' AND name IN ({names})")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn customer_columns_are_the_generators() {
        assert_eq!(CUSTOMER.column_names(), super::super::customer::COLUMNS);
    }

    #[test]
    fn keys_are_made_once_on_every_engine() {
        for engine in [Engine::Postgres, Engine::MySql, Engine::Sqlite] {
            let at_create = TABLES.iter().filter(|t| create(t, engine).contains("PRIMARY KEY")).count();
            let after = after_rows(engine).iter().filter(|s| s.contains("PRIMARY KEY")).count();
            assert_eq!(at_create + after, 8, "{engine:?}: every table but history has its key once");
            assert_eq!(after_rows(engine).iter().filter(|s| s.starts_with("CREATE INDEX")).count(), 2);
        }
        assert!(create(&HISTORY, Engine::Sqlite).ends_with(')'), "history keeps SQLite's rowid");
    }
}
