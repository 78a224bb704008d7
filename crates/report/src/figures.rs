//! Numbers as a report prints them: one way everywhere, with the raw value kept beside the
//! text for charts and spreadsheets.

use serde::Serialize;
use spindle_model::units::{Reading, format_bytes_approx, format_rate, signed_pct};

/// One table cell: what is shown, and the number behind it (absent for words).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Cell {
    pub text: String,
    pub value: Option<f64>,
    /// The unit of `value` where `text` shows another (`ns` behind "1.20ms"), so a spreadsheet
    /// can keep the number and say what it is.
    #[serde(skip_serializing_if = "str::is_empty")]
    pub unit: &'static str,
}

impl Cell {
    pub fn text(text: impl Into<String>) -> Cell {
        Cell { text: text.into(), value: None, unit: "" }
    }

    /// A number shown as `text`, in no particular unit.
    pub fn number(text: impl Into<String>, value: f64) -> Cell {
        Cell { text: text.into(), value: Some(value), unit: "" }
    }

    pub fn empty() -> Cell {
        Cell::text("")
    }

    /// A figure the run did not record (a foreign tool's): shown as every view shows one,
    /// with no number behind it.
    pub fn not_recorded() -> Cell {
        Cell::text(spindle_model::units::NOT_RECORDED)
    }

    /// A latency, if `recorded`; else `not_recorded`.
    pub fn latency_if(recorded: bool, ns: f64) -> Cell {
        if recorded { Cell::latency_ns(ns) } else { Cell::not_recorded() }
    }

    /// A count, with thousands separated.
    pub fn count(n: u64) -> Cell {
        Cell::number(grouped(n), n as f64)
    }

    /// A rate (per second) with a precision that suits its size.
    pub fn rate(v: f64) -> Cell {
        Cell::number(rate_text(v), v)
    }

    /// A latency in the unit that suits it alone; a page puts all of its latencies in one
    /// unit afterwards (`view::units`).
    pub fn latency_ns(ns: f64) -> Cell {
        Cell { text: LatencyUnit::for_ns(ns).text(ns), value: Some(ns), unit: "ns" }
    }

    pub fn bytes(n: f64) -> Cell {
        Cell { text: format_bytes_approx(n.max(0.0) as u64), value: Some(n), unit: "bytes" }
    }

    pub fn seconds(s: f64) -> Cell {
        Cell { text: format!("{s:.1} s"), value: Some(s), unit: "s" }
    }

    pub fn pct(p: f64) -> Cell {
        Cell { text: format!("{p:.1}%"), value: Some(p), unit: "%" }
    }

    /// A signed change in percent.
    pub fn change_pct(p: f64) -> Cell {
        Cell { text: signed_pct(p, 2), value: Some(p), unit: "%" }
    }

    pub fn opt<T>(v: Option<T>, f: impl FnOnce(T) -> Cell) -> Cell {
        v.map_or_else(Cell::empty, f)
    }
}

/// A unit latencies are shown in: its name (`µs`, never `us`) and nanoseconds in one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencyUnit {
    pub name: &'static str,
    pub ns: f64,
}

/// Milliseconds, what `for_most` chooses when there is nothing to choose from.
impl Default for LatencyUnit {
    fn default() -> LatencyUnit {
        LatencyUnit::ALL[2]
    }
}

impl LatencyUnit {
    const ALL: [LatencyUnit; 4] = [
        LatencyUnit { name: "ns", ns: 1.0 },
        LatencyUnit { name: "µs", ns: 1e3 },
        LatencyUnit { name: "ms", ns: 1e6 },
        LatencyUnit { name: "s", ns: 1e9 },
    ];

    /// The unit a latency of `ns` reads best in: its value from 1 to 999.
    pub fn for_ns(ns: f64) -> LatencyUnit {
        let fits = |u: &&LatencyUnit| ns.is_finite() && ns / u.ns < 1000.0;
        *Self::ALL.iter().find(fits).unwrap_or(&Self::ALL[3])
    }

    /// The unit that suits most of these latencies (their median's): a page reads its figures
    /// in one unit, the few far from the median with more digits (`0.000331 ms`, `77.1 ms`).
    pub fn for_most(ns: impl Iterator<Item = f64>) -> LatencyUnit {
        let mut values: Vec<f64> = ns.filter(|v| v.is_finite() && *v > 0.0).collect();
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).map_or(Self::ALL[2], |median| Self::for_ns(*median))
    }

    /// `ns` in this unit, with the digits `counter_text` gives and the unit after a space:
    /// `4.13 ms`, `0.331 ms`, `12,345 ns`.
    pub fn text(self, ns: f64) -> String {
        if !ns.is_finite() {
            return spindle_model::units::NOT_RECORDED.into();
        }
        if ns == 0.0 {
            return format!("0 {}", self.name);
        }
        format!("{} {}", counter_text(ns / self.ns), self.name)
    }
}

/// `12,345` for large rates, `123.4` and `1.23` for small ones (a table's reading).
pub fn rate_text(v: f64) -> String {
    format_rate(v, Reading::Table)
}

/// A counter's value, read at a glance whatever its scale: rates as `rate_text` gives them,
/// and a value under 1 (a queue length, seconds per transfer) to three significant digits,
/// never rounded away to 0.00.
pub fn counter_text(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || v.abs() >= 1.0 {
        return rate_text(v);
    }
    // Digits after the point that keep three significant ones: 0.665, 0.0000930.
    let decimals = (2 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    format!("{v:.decimals$}")
}

pub(crate) use spindle_model::units::grouped;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_counts_read_at_a_glance() {
        assert_eq!(rate_text(13149.4), "13,149");
        assert_eq!(rate_text(f64::NAN), "-");
        assert_eq!(Cell::count(1000).text, "1,000");
        assert_eq!(Cell::count(999).text, "999");
    }

    #[test]
    fn a_latency_unit_suits_most_figures_and_spells_microseconds() {
        let unit = LatencyUnit::for_most([331.0, 4.13e6, 5.6e7, 7.71e7].into_iter());
        assert_eq!(unit.name, "ms");
        assert_eq!(unit.text(331.0), "0.000331 ms");
        assert_eq!(unit.text(7.71e7), "77.1 ms");
        assert_eq!(unit.text(0.0), "0 ms");
        assert_eq!(LatencyUnit::for_ns(92_000.0).text(92_000.0), "92.0 µs");
        assert_eq!(LatencyUnit::for_ns(1.2e12).name, "s");
        assert_eq!(LatencyUnit::for_most([92.0, 180.0, 50_123.0].into_iter()).text(50_123.0), "50,123 ns");
    }

    #[test]
    fn counters_under_one_keep_three_significant_digits() {
        assert_eq!(counter_text(0.664813), "0.665");
        assert_eq!(counter_text(0.000093), "0.0000930");
        assert_eq!(counter_text(-0.05), "-0.0500");
        assert_eq!(counter_text(0.0), "0.00");
        assert_eq!(counter_text(357267580.87), "357,267,581");
        assert_eq!(counter_text(1.15), "1.15");
    }
}
