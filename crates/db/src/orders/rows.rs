//! The random values of TPC-C's population (TPC-C v5.11, clause 4.3.2 and 4.3.3.1), written as
//! tab-separated text for `Conn::copy_in`: a-strings and n-strings of a length in a range,
//! zip codes, NURand, the last names' syllables, and the "ORIGINAL" mark of 10% of item and
//! stock data. Every value goes straight into one reused buffer: no allocation per row.

use spindle_model::rng::Rng;

const SYLLABLES: [&str; 10] = ["BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"];
const ALNUM: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// The last name of number `n` (0..999): the syllables of its hundreds, tens and units.
pub fn last_name(n: u64, out: &mut String) {
    for d in [n / 100 % 10, n / 10 % 10, n % 10] {
        out.push_str(SYLLABLES[d as usize]);
    }
}

/// The random values of one part of a load.
pub struct Generator {
    pub(super) rng: Rng,
    /// NURand's run-time constant for C_LAST, the same for the whole load (clause 2.1.6).
    c_last: u64,
    /// The time of the load, for `c_since`, `h_date`, `o_entry_d` and `ol_delivery_d`.
    pub(super) now: String,
}

impl Generator {
    /// A generator whose C_LAST constant is drawn from `seed` itself (one generator a load).
    pub fn new(seed: u64, now: &str) -> Generator {
        let mut rng = Rng::new(seed);
        let c_last = rng.below(256);
        Generator { rng, c_last, now: now.to_string() }
    }

    /// A generator for part `part` of a load whose parts share the C_LAST constant of `seed`.
    pub fn part(seed: u64, part: u64, now: &str) -> Generator {
        let c_last = Generator::new(seed, now).c_last;
        Generator { rng: Rng::new(seed ^ part.wrapping_mul(0x9e37_79b9_7f4a_7c15)), c_last, now: now.to_string() }
    }

    /// NURand's C for C_LAST, kept with the load for the transactions' own (clause 2.1.6.1).
    pub fn c_last_constant(&self) -> u64 {
        self.c_last
    }

    /// random(x, y): uniform in `x..=y`.
    pub fn between(&mut self, x: u64, y: u64) -> u64 {
        x + self.rng.below(y - x + 1)
    }

    /// NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x.
    pub fn nurand(&mut self, a: u64, x: u64, y: u64) -> u64 {
        let r = self.rng.below(a + 1) | self.between(x, y);
        ((r + self.c_last) % (y - x + 1)) + x
    }

    /// The last name of a customer `c_id` (1..3000): the first 1,000 by number, the rest by
    /// NURand(255, 0, 999).
    pub fn c_last(&mut self, c_id: u64, out: &mut String) {
        let n = if c_id <= 1000 { c_id - 1 } else { self.nurand(255, 0, 999) };
        last_name(n, out);
    }

    /// A random string of letters and digits of `min..=max` characters.
    pub fn a_string(&mut self, min: u64, max: u64, out: &mut String) {
        let n = self.between(min, max);
        let mut bits = 0u64;
        for i in 0..n {
            if i % 10 == 0 {
                bits = self.rng.next_u64();
            }
            out.push(ALNUM[(bits & 63) as usize % 62] as char);
            bits >>= 6;
        }
    }

    /// `n` random digits.
    pub fn digits(&mut self, n: u64, out: &mut String) {
        for _ in 0..n {
            out.push((b'0' + self.rng.below(10) as u8) as char);
        }
    }

    /// Two random capital letters.
    pub fn state(&mut self, out: &mut String) {
        for _ in 0..2 {
            out.push((b'A' + self.rng.below(26) as u8) as char);
        }
    }

    /// A zip code: four random digits and "11111".
    pub fn zip(&mut self, out: &mut String) {
        self.digits(4, out);
        out.push_str("11111");
    }

    /// Street 1, street 2, city, state and zip, each followed by a tab.
    pub fn address(&mut self, out: &mut String) {
        for _ in 0..3 {
            self.a_string(10, 20, out);
            out.push('\t');
        }
        self.state(out);
        out.push('\t');
        self.zip(out);
        out.push('\t');
    }

    /// I_DATA or S_DATA: 26 to 50 characters, 10% of them holding "ORIGINAL" at a random
    /// place.
    pub fn data(&mut self, out: &mut String) {
        let start = out.len();
        self.a_string(26, 50, out);
        if self.rng.below(10) == 0 {
            let at = start + self.rng.below((out.len() - start - 8) as u64 + 1) as usize;
            out.replace_range(at..at + 8, "ORIGINAL");
        }
    }

    /// A tax rate, random(0.0000, 0.2000).
    pub fn tax(&mut self, out: &mut String) {
        push_fixed(out, self.between(0, 2000), 4);
    }
}

/// `units` as a decimal with `places` places: 1234 with 2 is "12.34".
pub fn push_fixed(out: &mut String, units: u64, places: u32) {
    use std::fmt::Write;
    let scale = 10u64.pow(places);
    let _ = write!(out, "{}.{:0width$}", units / scale, units % scale, width = places as usize);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nurand_stays_in_its_range_and_reaches_both_ends() {
        let mut g = Generator::new(1, "x");
        let (mut low, mut high) = (u64::MAX, 0);
        for _ in 0..100_000 {
            let n = g.nurand(255, 0, 999);
            assert!(n <= 999, "{n}");
            (low, high) = (low.min(n), high.max(n));
        }
        assert_eq!((low, high), (0, 999));
        for _ in 0..100_000 {
            assert!((1..=3000).contains(&g.nurand(1023, 1, 3000)));
        }
    }

    #[test]
    fn last_names_are_the_syllables_of_the_number() {
        let name = |n| {
            let mut s = String::new();
            last_name(n, &mut s);
            s
        };
        assert_eq!(name(0), "BARBARBAR");
        assert_eq!(name(371), "PRICALLYOUGHT");
        assert_eq!(name(999), "EINGEINGEING");
        let mut g = Generator::new(3, "x");
        let mut first = String::new();
        g.c_last(1000, &mut first);
        assert_eq!(first, "EINGEINGEING", "customer 1000 is named by its number (999)");
    }

    #[test]
    fn a_tenth_of_data_is_original() {
        let mut g = Generator::new(5, "x");
        let mut original = 0;
        for _ in 0..100_000 {
            let mut s = String::new();
            g.data(&mut s);
            assert!((26..=50).contains(&s.len()), "{s}");
            original += usize::from(s.contains("ORIGINAL"));
        }
        // 10% of 100,000, within about four standard deviations (95).
        assert!((9_600..=10_400).contains(&original), "{original}");
    }

    #[test]
    fn parts_share_the_c_last_constant() {
        assert_eq!(Generator::part(9, 1, "x").c_last, Generator::part(9, 2, "x").c_last);
        assert_eq!(Generator::part(9, 1, "x").c_last, Generator::new(9, "x").c_last);
        let mut s = String::new();
        push_fixed(&mut s, 1234, 2);
        push_fixed(&mut s, 7, 4);
        assert_eq!(s, "12.340.0007");
    }
}
