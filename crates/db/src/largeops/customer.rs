//! TPC-C's CUSTOMER rows (TPC-C v5.11, clause 4.3.3.1), generated as tab-separated text for
//! `Conn::copy_in`: 3,000 customers a district, 10 districts a warehouse; last names from
//! the ten syllables (the first 1,000 of a district by number, the rest by NURand(255, 0,
//! 999)), 10% "BC" credit, and `c_data` of 300 to 500 characters. Every field is written
//! straight into one reused buffer: no allocation per row or per field.

use spindle_model::rng::Rng;
use std::fmt::Write;

pub const CUSTOMERS_PER_DISTRICT: u64 = 3000;
pub const DISTRICTS_PER_WAREHOUSE: u64 = 10;

const SYLLABLES: [&str; 10] = ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"];
const ALNUM: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

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

/// The last name of number `n` (0..999): the syllables of its hundreds, tens and units.
pub fn last_name(n: u64, out: &mut String) {
    for d in [n / 100 % 10, n / 10 % 10, n % 10] {
        out.push_str(SYLLABLES[d as usize]);
    }
}

/// Writes customers `from..to` (row numbers from 0) into `out`, one line each.
pub struct Generator {
    rng: Rng,
    /// NURand's run-time constant for C_LAST, chosen once per load as the clause says.
    c_last: u64,
    /// `c_since`: the time of the load.
    since: String,
}

impl Generator {
    pub fn new(seed: u64, since: &str) -> Generator {
        let mut rng = Rng::new(seed);
        let c_last = rng.below(256);
        Generator { rng, c_last, since: since.to_string() }
    }

    /// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
    pub fn nurand(&mut self, a: u64, x: u64, y: u64) -> u64 {
        let r = self.rng.below(a + 1) | (x + self.rng.below(y - x + 1));
        ((r + self.c_last) % (y - x + 1)) + x
    }

    /// A random string of letters and digits of `min..=max` characters.
    fn a_string(&mut self, min: u64, max: u64, out: &mut String) {
        let n = min + self.rng.below(max - min + 1);
        let mut bits = 0u64;
        for i in 0..n {
            if i % 10 == 0 {
                bits = self.rng.next_u64();
            }
            out.push(ALNUM[(bits & 63) as usize % 62] as char);
            bits >>= 6;
        }
    }

    fn digits(&mut self, n: u64, out: &mut String) {
        for _ in 0..n {
            out.push((b'0' + self.rng.below(10) as u8) as char);
        }
    }

    /// Appends customers `rows` to `out`.
    pub fn rows(&mut self, rows: std::ops::Range<u64>, out: &mut String) {
        for i in rows {
            let c_id = i % CUSTOMERS_PER_DISTRICT + 1;
            let d_id = i / CUSTOMERS_PER_DISTRICT % DISTRICTS_PER_WAREHOUSE + 1;
            let w_id = i / (CUSTOMERS_PER_DISTRICT * DISTRICTS_PER_WAREHOUSE) + 1;
            let _ = write!(out, "{c_id}\t{d_id}\t{w_id}\t");
            self.a_string(8, 16, out);
            out.push_str("\tOE\t");
            let last = if c_id <= 1000 { c_id - 1 } else { self.nurand(255, 0, 999) };
            last_name(last, out);
            for _ in 0..3 {
                out.push('\t');
                self.a_string(10, 20, out);
            }
            out.push('\t');
            for _ in 0..2 {
                out.push((b'A' + self.rng.below(26) as u8) as char);
            }
            out.push('\t');
            self.digits(4, out);
            out.push_str("11111\t");
            self.digits(16, out);
            let credit = if self.rng.below(10) == 0 { "BC" } else { "GC" };
            let discount = self.rng.below(5001);
            let _ = write!(out, "\t{}\t{credit}\t50000.00\t0.{discount:04}\t-10.00\t10.00\t1\t0\t", self.since);
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
        g.rows(0..100_000, &mut text);
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
            assert!(SYLLABLES.iter().any(|s| f[5].starts_with(s)) && f[5].len() >= 9, "{}", f[5]);
            assert!(f[10].len() == 9 && f[10].ends_with("11111") && f[11].len() == 16);
            assert!((300..=500).contains(&f[20].len()));
            let discount: f64 = f[15].parse().unwrap();
            assert!((0.0..=0.5).contains(&discount));
            bc += usize::from(f[13] == "BC");
        }
        // 10% of 100,000 with the fixed seed, within a few standard deviations (95).
        assert!((9_600..=10_400).contains(&bc), "{bc} BC customers");
        let mut name = String::new();
        last_name(371, &mut name);
        assert_eq!(name, "PRICALLYOUGHT");
        assert_eq!(lines[0].split('\t').nth(5), Some("BARBARBAR"), "the first customer's number names it");
    }

    #[test]
    fn nurand_stays_in_range() {
        let mut g = Generator::new(1, "x");
        for _ in 0..10_000 {
            assert!(g.nurand(255, 0, 999) <= 999);
        }
    }
}
