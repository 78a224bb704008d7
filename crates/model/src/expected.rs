//! What a volume was provisioned to deliver (`--expect 3000iops,125MB/s`): the figures a cloud
//! sells a volume by, held against what was measured.

use serde::{Deserialize, Serialize};

/// The rates a volume should deliver; at least one is given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Expected {
    /// I/Os a second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iops: Option<f64>,
    /// Megabytes (10^6 bytes) a second; MiB/s given are converted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mb_per_sec: Option<f64>,
}

/// The units a rate is given in: the text it ends with, whether it is a count of I/Os, and
/// its value in I/Os or MB a second (`kiops` before `iops`: the longer ending first).
const UNITS: [(&str, bool, f64); 6] = [
    ("kiops", true, 1e3),
    ("iops", true, 1.0),
    ("mib/s", false, 1.048_576),
    ("mb/s", false, 1.0),
    ("gib/s", false, 1_073.741_824),
    ("gb/s", false, 1e3),
];

/// `3000iops`, `16k IOPS`, `125MB/s`, `1000 MiB/s`, `1GB/s`, comma-separated, each kind at
/// most once. The error says what is wrong with the text (the caller names the flag).
pub fn parse(text: &str) -> Result<Expected, String> {
    let mut expected = Expected::default();
    for item in text.split(',').map(str::trim) {
        let lower = item.to_ascii_lowercase();
        let Some(&(unit, is_iops, scale)) = UNITS.iter().find(|(unit, ..)| lower.ends_with(unit)) else {
            return Err(format!(
                "{item:?}: give a rate with its unit: IOPS (3000iops, 16k iops) or MB/s, MiB/s, GB/s (125MB/s), \
                 comma-separated"
            ));
        };
        let number = lower[..lower.len() - unit.len()].trim();
        // `16k iops`: thousands.
        let (number, thousands) = match number.strip_suffix('k').filter(|_| is_iops) {
            Some(n) => (n.trim(), 1e3),
            None => (number, 1.0),
        };
        let value = match number.parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => v * scale * thousands,
            Ok(_) => return Err(format!("{item:?}: the rate must be above zero")),
            Err(_) => return Err(format!("{item:?}: not a number before the unit")),
        };
        let slot = if is_iops { &mut expected.iops } else { &mut expected.mb_per_sec };
        if slot.replace(value).is_some() {
            return Err(format!("{item:?}: a second {} figure; give each once", if is_iops { "IOPS" } else { "MB/s" }));
        }
    }
    Ok(expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_with_their_units() {
        assert_eq!(parse("3000iops,125MB/s").unwrap(), Expected { iops: Some(3000.0), mb_per_sec: Some(125.0) });
        assert_eq!(parse("16k IOPS").unwrap().iops, Some(16_000.0));
        assert_eq!(parse(" 2.5 kIOPS ").unwrap().iops, Some(2_500.0));
        assert_eq!(parse("1000 MiB/s").unwrap().mb_per_sec, Some(1_048.576));
        assert_eq!(parse("1GB/s").unwrap().mb_per_sec, Some(1_000.0));
    }

    #[test]
    fn nonsense_zero_and_twice_are_refused_with_why() {
        for (text, says) in [
            ("3000", "give a rate with its unit"),
            ("fast", "give a rate with its unit"),
            ("3000 bananas", "give a rate with its unit"),
            ("0iops", "above zero"),
            ("-5MB/s", "above zero"),
            ("1e400 iops", "above zero"),
            ("x iops", "not a number"),
            ("iops", "not a number"),
            ("1.2.3 iops", "not a number"),
            ("1iops,2iops", "a second IOPS figure"),
            ("1MB/s,2MiB/s", "a second MB/s figure"),
            ("", "give a rate"),
            ("3000iops,", "give a rate"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }
}
