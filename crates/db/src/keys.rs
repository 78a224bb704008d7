//! Database Hammer's keys: `CardNo char(15)`. Row `i` (0-based) has card number `i` written
//! as 15 zero-padded digits, so keys are dense, ordered like the rows, and a session picking
//! a uniform row index reaches every loaded row (the original generator, D4(0..9998) +
//! D3(0..998), missed some).

/// Rows with 15-digit keys: at most 10^15.
pub const MAX_ROWS: u64 = 1_000_000_000_000_000;

/// A card number on the stack: loads write one per row and sessions one per call, so it is
/// never allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CardNo([u8; 15]);

impl CardNo {
    /// The card number of row `i` (below `MAX_ROWS`; higher rows keep their last 15 digits).
    pub fn of_row(mut i: u64) -> CardNo {
        let mut digits = [b'0'; 15];
        for d in digits.iter_mut().rev() {
            *d = b'0' + (i % 10) as u8;
            i /= 10;
        }
        CardNo(digits)
    }

    pub fn as_str(&self) -> &str {
        // Only ASCII digits are ever stored.
        std::str::from_utf8(&self.0).unwrap_or("")
    }
}

impl std::fmt::Display for CardNo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifteen_digits_in_row_order() {
        assert_eq!(CardNo::of_row(0).as_str(), "000000000000000");
        assert_eq!(CardNo::of_row(9_999_999).as_str(), "000000009999999");
        assert_eq!(CardNo::of_row(MAX_ROWS - 1).as_str(), "999999999999999");
        assert!(CardNo::of_row(99).as_str() < CardNo::of_row(100).as_str(), "string order is row order");
        assert_eq!(CardNo::of_row(42).to_string(), format!("{:015}", 42));
    }
}
