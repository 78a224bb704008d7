//! TPC-C's CUSTOMER rows (TPC-C v5.11, clause 4.3.3.1), generated as tab-separated text for
//! `Conn::copy_in`: 3,000 customers a district, 10 districts a warehouse; last names from
//! the ten syllables (`Generator::c_last`), 10% "BC" credit, and `c_data` of 300 to 500 characters. Every field is written
//! straight into one reused buffer: no allocation per row or per field.

use super::rows::Generator;
use std::fmt::Write;

pub const CUSTOMERS_PER_DISTRICT: u64 = 3000;
pub const DISTRICTS_PER_WAREHOUSE: u64 = 10;

/// The columns, in the order rows are written.
pub const COLUMNS: [&str; 21] = [
    "c_id",
    "c_d_id",
    "c_w_id",
    "c_first",
    "c_middle",
    "c_last",
    "c_street_1",
    "c_street_2",
    "c_city",
    "c_state",
    "c_zip",
    "c_phone",
    "c_since",
    "c_credit",
    "c_credit_lim",
    "c_discount",
    "c_balance",
    "c_ytd_payment",
    "c_payment_cnt",
    "c_delivery_cnt",
    "c_data",
];

impl Generator {
    /// Appends customers `rows` to `out`.
    pub fn customers(&mut self, rows: std::ops::Range<u64>, out: &mut String) {
        for i in rows {
            let c_id = i % CUSTOMERS_PER_DISTRICT + 1;
            let d_id = i / CUSTOMERS_PER_DISTRICT % DISTRICTS_PER_WAREHOUSE + 1;
            let w_id = i / (CUSTOMERS_PER_DISTRICT * DISTRICTS_PER_WAREHOUSE) + 1;
            let _ = write!(out, "{c_id}\t{d_id}\t{w_id}\t");
            self.a_string(8, 16, out);
            out.push_str("\tOE\t");
            self.c_last(c_id, out);
            out.push('\t');
            self.address(out);
            self.digits(16, out);
            let credit = if self.rng.below(10) == 0 { "BC" } else { "GC" };
            let discount = self.rng.below(5001);
            let _ = write!(out, "\t{}\t{credit}\t50000.00\t0.{discount:04}\t-10.00\t10.00\t1\t0\t", self.now);
            self.a_string(300, 500, out);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_population_rules() {
        let mut g = Generator::new(7, "2026-01-01 00:00:00");
        let mut text = String::new();
        g.customers(0..100_000, &mut text);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 100_000);
        let mut bc = 0;
        for (i, line) in lines.iter().enumerate() {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), COLUMNS.len(), "{line}");
            let c_id: u64 = f[0].parse().unwrap();
            assert_eq!(c_id, i as u64 % 3000 + 1);
            assert_eq!(f[2].parse::<u64>().unwrap(), i as u64 / 30_000 + 1);
            assert!((8..=16).contains(&f[3].len()) && f[4] == "OE");
            assert!(f[5].len() >= 9 && f[5].chars().all(|c| c.is_ascii_uppercase()), "{}", f[5]);
            assert!(f[10].len() == 9 && f[10].ends_with("11111") && f[11].len() == 16);
            assert!((300..=500).contains(&f[20].len()));
            let discount: f64 = f[15].parse().unwrap();
            assert!((0.0..=0.5).contains(&discount));
            bc += usize::from(f[13] == "BC");
        }
        // 10% of 100,000 with the fixed seed, within a few standard deviations (95).
        assert!((9_600..=10_400).contains(&bc), "{bc} BC customers");
        assert_eq!(lines[0].split('\t').nth(5), Some("BARBARBAR"), "the first customer's number names it");
    }
}
