//! The rows of the tables but CUSTOMER (`customer`), as clause 4.3.3.1 of TPC-C v5.11 has
//! them, each as tab-separated text in its table's column order (`schema`), `\N` for NULL.
//! ITEM is loaded once; the rest a warehouse at a time, in key order.

use super::customer::{CUSTOMERS_PER_DISTRICT, DISTRICTS_PER_WAREHOUSE};
use super::rows::{Generator, push_fixed};
use std::fmt::Write;

pub const ITEMS: u64 = 100_000;
/// Orders a district: one per customer.
pub const ORDERS_PER_DISTRICT: u64 = CUSTOMERS_PER_DISTRICT;
/// The first order still undelivered (in NEW-ORDER, without a carrier): the last 900.
pub const FIRST_NEW_ORDER: u64 = 2101;

/// The rows of the three order tables of one warehouse.
#[derive(Default)]
pub struct Orders {
    pub orders: String,
    pub new_order: String,
    pub order_line: String,
}

impl Generator {
    /// The 100,000 items.
    pub fn items(&mut self, out: &mut String) {
        for i_id in 1..=ITEMS {
            let _ = write!(out, "{i_id}\t{}\t", self.between(1, 10_000));
            self.a_string(14, 24, out);
            out.push('\t');
            push_fixed(out, self.between(100, 10_000), 2);
            out.push('\t');
            self.data(out);
            out.push('\n');
        }
    }

    /// Warehouse `w`'s row.
    pub fn warehouse(&mut self, w: u64, out: &mut String) {
        let _ = write!(out, "{w}\t");
        self.a_string(6, 10, out);
        out.push('\t');
        self.address(out);
        self.tax(out);
        out.push_str("\t300000.00\n");
    }

    /// Warehouse `w`'s ten districts.
    pub fn districts(&mut self, w: u64, out: &mut String) {
        for d in 1..=DISTRICTS_PER_WAREHOUSE {
            let _ = write!(out, "{d}\t{w}\t");
            self.a_string(6, 10, out);
            out.push('\t');
            self.address(out);
            self.tax(out);
            let _ = writeln!(out, "\t30000.00\t{}", ORDERS_PER_DISTRICT + 1);
        }
    }

    /// Warehouse `w`'s stock: one row for each item.
    pub fn stock(&mut self, w: u64, out: &mut String) {
        for i_id in 1..=ITEMS {
            let _ = write!(out, "{i_id}\t{w}\t{}\t", self.between(10, 100));
            for _ in 0..10 {
                self.a_string(24, 24, out);
                out.push('\t');
            }
            out.push_str("0\t0\t0\t");
            self.data(out);
            out.push('\n');
        }
    }

    /// Warehouse `w`'s history: one row for each customer.
    pub fn history(&mut self, w: u64, out: &mut String) {
        for d in 1..=DISTRICTS_PER_WAREHOUSE {
            for c in 1..=CUSTOMERS_PER_DISTRICT {
                let _ = write!(out, "{c}\t{d}\t{w}\t{d}\t{w}\t{}\t10.00\t", self.now);
                self.a_string(12, 24, out);
                out.push('\n');
            }
        }
    }

    /// Warehouse `w`'s orders, each with its lines, and the undelivered ones in NEW-ORDER.
    pub fn orders(&mut self, w: u64, out: &mut Orders) {
        for d in 1..=DISTRICTS_PER_WAREHOUSE {
            let customers = self.permutation(CUSTOMERS_PER_DISTRICT);
            for (o, c) in (1..=ORDERS_PER_DISTRICT).zip(customers) {
                let delivered = o < FIRST_NEW_ORDER;
                let lines = self.between(5, 15);
                let _ = write!(out.orders, "{o}\t{d}\t{w}\t{c}\t{}\t", self.now);
                if delivered {
                    let _ = write!(out.orders, "{}", self.between(1, 10));
                } else {
                    out.orders.push_str("\\N");
                    let _ = writeln!(out.new_order, "{o}\t{d}\t{w}");
                }
                let _ = writeln!(out.orders, "\t{lines}\t1");
                for n in 1..=lines {
                    let line = &mut out.order_line;
                    let _ = write!(line, "{o}\t{d}\t{w}\t{n}\t{}\t{w}\t", self.between(1, ITEMS));
                    if delivered {
                        let _ = write!(line, "{}\t5\t0.00\t", self.now);
                    } else {
                        line.push_str("\\N\t5\t");
                        push_fixed(line, self.between(1, 999_999), 2);
                        line.push('\t');
                    }
                    self.a_string(24, 24, line);
                    line.push('\n');
                }
            }
        }
    }

    /// `1..=n` in a random order (Fisher-Yates): O_C_ID's permutation of the customers.
    fn permutation(&mut self, n: u64) -> Vec<u64> {
        let mut all: Vec<u64> = (1..=n).collect();
        for i in (1..all.len()).rev() {
            all.swap(i, self.rng.below(i as u64 + 1) as usize);
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::super::schema::{self, Table};
    use super::*;

    fn fields(text: &str, table: &Table) -> Vec<Vec<String>> {
        let rows: Vec<Vec<String>> = text.lines().map(|l| l.split('\t').map(String::from).collect()).collect();
        for r in &rows {
            assert_eq!(r.len(), table.columns.len(), "{}: {r:?}", table.name);
        }
        rows
    }

    #[test]
    fn orders_follow_the_population_rules() {
        let mut g = Generator::new(11, "2026-01-01 00:00:00");
        let mut out = Orders::default();
        g.orders(2, &mut out);
        let orders = fields(&out.orders, &schema::ORDERS);
        let lines = fields(&out.order_line, &schema::ORDER_LINE);
        let new = fields(&out.new_order, &schema::NEW_ORDER);
        assert_eq!((orders.len(), new.len()), (30_000, 9_000));
        let counted: u64 = orders.iter().map(|o| o[6].parse::<u64>().unwrap()).sum();
        assert_eq!(counted, lines.len() as u64, "O_OL_CNT sums to the order lines");
        let mut customers: Vec<u64> = orders[..3000].iter().map(|o| o[3].parse().unwrap()).collect();
        customers.sort_unstable();
        assert_eq!(customers, (1..=3000).collect::<Vec<_>>(), "each customer has one order a district");
        for o in &orders {
            let id: u64 = o[0].parse().unwrap();
            assert_eq!(o[5] == "\\N", id >= FIRST_NEW_ORDER, "{o:?}");
            assert!((5..=15).contains(&o[6].parse::<u64>().unwrap()));
        }
        for l in &lines {
            let id: u64 = l[0].parse().unwrap();
            assert_eq!(l[8] == "0.00", id < FIRST_NEW_ORDER, "{l:?}");
            assert_eq!(l[6] == "\\N", id >= FIRST_NEW_ORDER);
            assert_eq!((l[2].as_str(), l[5].as_str(), l[9].len()), ("2", "2", 24));
        }
    }

    #[test]
    fn other_tables_have_their_columns_and_counts() {
        let mut g = Generator::new(12, "2026-01-01 00:00:00");
        let mut text = String::new();
        g.items(&mut text);
        let items = fields(&text, &schema::ITEM);
        assert_eq!(items.len() as u64, ITEMS);
        assert!(items.iter().all(|i| (1.0..=100.0).contains(&i[3].parse::<f64>().unwrap())));
        let mut text = String::new();
        g.stock(1, &mut text);
        let stock = fields(&text, &schema::STOCK);
        assert!(stock.iter().all(|s| (10..=100).contains(&s[2].parse::<u64>().unwrap())));
        let (mut w, mut d, mut h) = (String::new(), String::new(), String::new());
        g.warehouse(1, &mut w);
        g.districts(1, &mut d);
        g.history(1, &mut h);
        assert_eq!(fields(&w, &schema::WAREHOUSE).len(), 1);
        assert_eq!(fields(&d, &schema::DISTRICT).len(), 10);
        assert_eq!(fields(&h, &schema::HISTORY).len(), 30_000);
        assert!(fields(&d, &schema::DISTRICT).iter().all(|r| r[10] == "3001" && r[9] == "30000.00"));
    }
}
