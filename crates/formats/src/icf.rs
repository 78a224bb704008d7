//! IOMeter configuration files (`.icf`): the access specifications, read and written. Format
//! from iometer-org/iometer (AccessSpecList.cpp, ICF_ifstream.cpp; see
//! ../shared/reference/counter-formats.md section 4): a `Version` line, then
//!
//! ```text
//! 'ACCESS SPECIFICATIONS =====
//! 'Access specification name,default assignment
//!     <name>,NONE   (lines under a comment start with a tab)
//! 'size,% of size,% reads,% random,delay,burst,align,reply
//!     <bytes>,<pct>,<pct>,<pct>,<delay>,<burst>,<align>,<reply>
//! 'END access specifications
//! ```
//!
//! where `% of size` over a specification's lines adds up to exactly 100. Worker and target
//! sections after the specifications are not read.

use crate::perfmon::ParseError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessLine {
    pub size: u64,
    /// Share of I/Os, percent; a specification's shares add up to 100.
    pub pct: u32,
    pub reads: u32,
    pub random: u32,
    pub delay: u64,
    pub burst: u64,
    pub align: u64,
    pub reply: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessSpec {
    pub name: String,
    pub lines: Vec<AccessLine>,
}

pub fn parse_icf(text: &str) -> Result<Vec<AccessSpec>, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    match lines.next() {
        Some((_, l)) if l.starts_with("Version ") => {}
        _ => return Err(ParseError("not an IOMeter .icf file: it does not start with a Version line".into())),
    }
    let mut specs: Vec<AccessSpec> = Vec::new();
    let mut in_specs = false;
    let mut expect = Expect::Nothing;
    for (n, line) in lines {
        let bad = |why: &str| ParseError(format!("line {n}: {why}"));
        if let Some(comment) = line.strip_prefix('\'') {
            let c = comment.trim();
            if c.starts_with("ACCESS SPECIFICATIONS") {
                in_specs = true;
            } else if c.starts_with("END access specifications") {
                break;
            } else if in_specs && c.starts_with("Access specification name") {
                expect = Expect::Name;
            } else if in_specs && c.starts_with("size,% of size") {
                expect = Expect::Lines;
            }
            continue;
        }
        if !in_specs || line.trim().is_empty() {
            continue;
        }
        match expect {
            Expect::Name => {
                // The name may contain commas; the default assignment is after the last one.
                let name = line.trim().rsplit_once(',').map_or(line.trim(), |(name, _)| name);
                specs.push(AccessSpec { name: name.to_string(), lines: Vec::new() });
                expect = Expect::Nothing;
            }
            Expect::Lines => {
                let f: Vec<u64> = line
                    .trim()
                    .split(',')
                    .map(|x| x.trim().parse::<u64>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| bad("an access line is eight whole numbers"))?;
                let [size, pct, reads, random, delay, burst, align, reply] = f[..] else {
                    return Err(bad("an access line is eight whole numbers"));
                };
                if pct > 100 || reads > 100 || random > 100 || size == 0 {
                    return Err(bad("a size above 0 and percentages from 0 to 100"));
                }
                let spec = specs.last_mut().ok_or_else(|| bad("an access line before any specification name"))?;
                let pct32 = |v: u64| v as u32;
                spec.lines.push(AccessLine {
                    size,
                    pct: pct32(pct),
                    reads: pct32(reads),
                    random: pct32(random),
                    delay,
                    burst,
                    align,
                    reply,
                });
            }
            Expect::Nothing => return Err(bad("unexpected line among the access specifications")),
        }
    }
    if specs.is_empty() {
        return Err(ParseError("the .icf file has no access specifications".into()));
    }
    for s in &specs {
        let total: u32 = s.lines.iter().map(|l| l.pct).sum();
        if total != 100 {
            return Err(ParseError(format!(
                "access specification {:?}: % of size adds up to {total}, not 100",
                s.name
            )));
        }
    }
    Ok(specs)
}

#[derive(Clone, Copy)]
enum Expect {
    Nothing,
    Name,
    Lines,
}

/// The specifications as an .icf file IOMeter loads (the format of IOMeter 2008.06.18).
pub fn write_icf(specs: &[AccessSpec]) -> String {
    let mut out = String::from(
        "Version 2008.06.18 \n'ACCESS SPECIFICATIONS =========================================================\n",
    );
    for s in specs {
        out.push_str("'Access specification name,default assignment\n");
        out.push_str(&format!("\t{},NONE\n", s.name));
        out.push_str("'size,% of size,% reads,% random,delay,burst,align,reply\n");
        for l in &s.lines {
            out.push_str(&format!(
                "\t{},{},{},{},{},{},{},{}\n",
                l.size, l.pct, l.reads, l.random, l.delay, l.burst, l.align, l.reply
            ));
        }
    }
    out.push_str("'END access specifications\n");
    out
}

/// Whole-number shares adding up to exactly 100 from any non-negative weights (largest
/// remainder first), as `% of size` requires.
pub fn percent_shares(weights: &[f64]) -> Vec<u32> {
    let usable = |w: f64| w.is_finite() && w > 0.0;
    // Each weight over the largest first, so that weights near f64::MAX add up to no infinity
    // (which made every share 0, or one u32::MAX that overflowed their sum).
    let largest = weights.iter().copied().filter(|w| usable(*w)).fold(0.0, f64::max);
    if largest <= 0.0 {
        return vec![0; weights.len()];
    }
    let scaled: Vec<f64> = weights.iter().map(|&w| if usable(w) { w / largest } else { 0.0 }).collect();
    let total: f64 = scaled.iter().sum();
    let exact: Vec<f64> = scaled.iter().map(|w| 100.0 * w / total).collect();
    let mut shares: Vec<u32> = exact.iter().map(|x| x.floor() as u32).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    let missing = 100 - shares.iter().sum::<u32>().min(100);
    for &i in order.iter().take(missing as usize) {
        shares[i] += 1;
    }
    shares
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_access_specifications() {
        let specs = parse_icf(include_str!("../testdata/kochaika_iometer.icf")).unwrap();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), 13);
        assert!(names.contains(&"Database pattern (Intel/StorageReview.com)"));
        let fileserver = specs.iter().find(|s| s.name == "Fileserver pattern (Intel)").unwrap();
        assert_eq!(fileserver.lines.len(), 8);
        assert_eq!(
            fileserver.lines[3],
            AccessLine { size: 4096, pct: 60, reads: 80, random: 100, delay: 0, burst: 1, align: 0, reply: 0 }
        );
        assert_eq!(parse_icf(&write_icf(&specs)).unwrap(), specs, "what spindle writes reads back the same");
    }

    #[test]
    fn mistakes_are_named_by_line() {
        assert!(parse_icf("hello").unwrap_err().0.contains("Version"));
        let head = "Version 1.1.0\n'ACCESS SPECIFICATIONS ===\n'Access specification name,default assignment\n\tx,NONE\n'size,% of size,% reads,% random,delay,burst,align,reply\n";
        assert!(parse_icf(&format!("{head}\t512,50,0,0,0,1,0,0\n")).unwrap_err().0.contains("adds up to 50"));
        assert!(parse_icf(&format!("{head}\t512,100,120,0,0,1,0,0\n")).unwrap_err().0.starts_with("line 6"));
        assert!(parse_icf(&format!("{head}\t512,100\n")).unwrap_err().0.contains("eight whole numbers"));
        assert!(parse_icf("Version 1.1.0\n").unwrap_err().0.contains("no access specifications"));
    }

    #[test]
    fn shares_add_up_to_exactly_100() {
        assert_eq!(percent_shares(&[1.0, 1.0, 1.0]), [34, 33, 33]);
        assert_eq!(percent_shares(&[83.4, 16.6]), [83, 17]);
        assert_eq!(percent_shares(&[0.0, f64::NAN]), [0, 0]);
        assert_eq!(percent_shares(&[2.0, 0.0]), [100, 0]);
        assert_eq!(percent_shares(&[f64::MAX, f64::MAX / 2.0, f64::MIN_POSITIVE]), [67, 33, 0], "no infinity");
        assert_eq!(percent_shares(&[1e308, 1e308]), [50, 50]);
    }
}
