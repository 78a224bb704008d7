//! Database Hammer's keys: `CardNo char(15)`. Row `i` (0-based) has card number `i` written
//! as 15 zero-padded digits, so keys are dense, ordered like the rows, and a session picking
//! a uniform row index reaches every loaded row (the original generator, D4(0..9998) +
//! D3(0..998), missed some).

/// The card number of row `i`.
pub fn card_no(i: u64) -> String {
    format!("{i:015}")
}

/// Rows with 15-digit keys: at most 10^15.
pub const MAX_ROWS: u64 = 1_000_000_000_000_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifteen_digits_in_row_order() {
        assert_eq!(card_no(0), "000000000000000");
        assert_eq!(card_no(9_999_999), "000000009999999");
        assert_eq!(card_no(MAX_ROWS - 1).len(), 15);
        assert!(card_no(99) < card_no(100), "string order is row order");
    }
}
