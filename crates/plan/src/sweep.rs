//! `--sweep PARAM=LIST`: one setting stepped over a list of values, one job per value. Lists
//! may elide a progression, as in `depth=1,2,4,...,256` (doubling) or `threads=1,2,3,...,8`.

use super::values::bad;
use crate::origin::{Origin, Setting};
use crate::usage::UsageError;
use spindle_model::group::Point;
use spindle_model::units::{format_size, parse_size};

/// The settings a sweep can step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SweepParam {
    Depth,
    Block,
    Threads,
}

impl SweepParam {
    const ALL: [SweepParam; 3] = [SweepParam::Depth, SweepParam::Block, SweepParam::Threads];

    /// The flag's and spec file's name for it.
    pub fn name(self) -> &'static str {
        match self {
            SweepParam::Depth => "depth",
            SweepParam::Block => "block",
            SweepParam::Threads => "threads",
        }
    }
}
/// More points than this is a typo, not a sweep.
const MAX_POINTS: usize = 64;

pub struct Sweep {
    pub param: SweepParam,
    /// One setting per point, in order.
    pub points: Vec<Setting>,
    /// As the user wrote it, for the group's name.
    pub text: String,
}

impl Sweep {
    /// Point `i` (`depth=8`), as the runs of the sweep are placed in the store.
    pub fn point(&self, i: usize) -> Point {
        Point::sweep(self.param.name(), self.points[i].text.clone())
    }
}

pub fn parse_sweep(text: &str) -> Result<Sweep, UsageError> {
    let origin = Origin::Flag("--sweep");
    let (name, list) =
        text.split_once('=').ok_or_else(|| bad(&origin, text, "write PARAM=LIST, e.g. depth=1,2,4,...,256"))?;
    let param = SweepParam::ALL.into_iter().find(|p| p.name() == name.trim()).ok_or_else(|| {
        let names: Vec<&str> = SweepParam::ALL.iter().map(|p| p.name()).collect();
        bad(&origin, text, format!("cannot sweep '{}'; sweepable: {}", name.trim(), names.join(", ")))
    })?;
    let items: Vec<&str> = list.split(',').map(str::trim).collect();
    if items.iter().any(|i| i.is_empty()) {
        return Err(bad(&origin, text, "an empty value in the list"));
    }
    let texts = if let Some(gap) = items.iter().position(|i| *i == "...") {
        expand(param, &items, gap).map_err(|why| bad(&origin, text, why))?
    } else {
        items.iter().map(|s| s.to_string()).collect()
    };
    if texts.len() < 2 {
        return Err(bad(&origin, text, "a sweep needs at least two values"));
    }
    if texts.len() > MAX_POINTS {
        return Err(bad(&origin, text, format!("{} points; at most {MAX_POINTS}", texts.len())));
    }
    let points = texts.into_iter().map(|text| Setting { text, origin: origin.clone() }).collect();
    Ok(Sweep { param, points, text: text.trim().to_string() })
}

/// Fills in `a,b,...,z`: geometric when `b/a` is a whole ratio above 1 that the values before
/// the gap follow, else arithmetic with step `b-a`.
fn expand(param: SweepParam, items: &[&str], gap: usize) -> Result<Vec<String>, String> {
    if gap < 2 || gap + 2 != items.len() {
        return Err("write at least two values before '...' and exactly one after it".into());
    }
    let number = |s: &str| parse_size(s).map_err(|e| e.to_string());
    let head: Vec<u64> = items[..gap].iter().map(|s| number(s)).collect::<Result<_, _>>()?;
    let last = number(items[gap + 1])?;
    let (a, b) = (head[gap - 2], head[gap - 1]);
    if b <= a || head.windows(2).any(|w| w[1] <= w[0]) {
        return Err("values before '...' must increase".into());
    }
    let ratio = (a > 0 && b % a == 0 && b / a > 1).then(|| b / a);
    let geometric = ratio.is_some_and(|r| head.windows(2).all(|w| w[1] == w[0] * r));
    let step = b - a;
    let mut values = head.clone();
    let mut cur = b;
    loop {
        let next = if geometric { cur.checked_mul(ratio.unwrap_or(2)) } else { cur.checked_add(step) };
        match next {
            Some(n) if n < last && values.len() <= MAX_POINTS => values.push(n),
            _ => break,
        }
        cur = *values.last().unwrap_or(&b);
    }
    if last <= *values.last().unwrap_or(&0) {
        return Err(format!("the value after '...' ({}) must be above those before it", items[gap + 1]));
    }
    values.push(last);
    // Block sizes read best as sizes; counts as counts.
    let show = |v: u64| if param == SweepParam::Block { format_size(v) } else { v.to_string() };
    let mut texts: Vec<String> = values.iter().map(|&v| show(v)).collect();
    // Keep the user's own spelling of the values they wrote.
    for (i, t) in items[..gap].iter().enumerate() {
        texts[i] = t.to_string();
    }
    if let Some(end) = texts.last_mut() {
        *end = items[gap + 1].to_string();
    }
    Ok(texts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        parse_sweep(s).unwrap_or_else(|e| panic!("{s}: {e}")).points.into_iter().map(|p| p.text).collect()
    }

    #[test]
    fn progressions_are_filled_in() {
        assert_eq!(texts("depth=1,2,4,...,256"), ["1", "2", "4", "8", "16", "32", "64", "128", "256"]);
        assert_eq!(texts("threads=1,2,3,...,6"), ["1", "2", "3", "4", "5", "6"]);
        assert_eq!(texts("depth=1,2,...,5"), ["1", "2", "4", "5"], "1,2 doubles; the end is always included");
        assert_eq!(texts("block=4K,8K,...,64K"), ["4K", "8K", "16KiB", "32KiB", "64K"]);
        assert_eq!(texts(" depth = 1, 8 ,32"), ["1", "8", "32"]);
        let s = parse_sweep("depth=1,2").unwrap();
        assert_eq!((s.param, s.point(1).to_string()), (SweepParam::Depth, "depth=2".to_string()));
    }

    #[test]
    fn mistakes_name_the_flag() {
        for bad in [
            "depth",
            "size=1G,2G",
            "depth=1",
            "depth=1,,2",
            "depth=1,...,8",
            "depth=4,2,...,8",
            "depth=1,2,...",
            "depth=1,2,...,2",
            "threads=1,2,3,...,1000",
            "depth=x,2,...,8",
        ] {
            let e = parse_sweep(bad).err().unwrap_or_else(|| panic!("{bad} accepted"));
            assert!(e.to_string().starts_with("--sweep"), "{bad}: {e}");
        }
        assert!(parse_sweep("size=1G,2G").err().unwrap().to_string().contains("sweepable: depth, block, threads"));
    }
}
