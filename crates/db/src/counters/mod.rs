//! Database-side counters, sampled beside a Hammer run through the counter sampler: buffer
//! cache hit ratio, commits, lock waits, deadlocks, WAL/redo bytes and checkpoints, named as
//! perfmon names SQL Server's (`\spindle:PostgreSQL\Buffer cache hit ratio`). Each source has
//! its own connection and a small runtime of its own, driven from the sampler's thread.

#[cfg(feature = "mysql")]
mod mysql;
#[cfg(feature = "postgres")]
mod postgres;
mod sqlite;

#[cfg(feature = "mysql")]
pub use mysql::{MySqlCounters, MySqlStats};
#[cfg(feature = "postgres")]
pub use postgres::{PgCounters, PgStats};
pub use sqlite::SqliteCounters;

#[cfg(any(feature = "net", test))]
use std::collections::HashMap;

#[cfg(any(feature = "net", test))]
/// How a raw statistic becomes a counter over one interval.
#[derive(Clone, Copy)]
pub(crate) enum Kind {
    /// Cumulative count: the increase per second.
    Rate,
    /// Cumulative count: the increase over the interval.
    Delta,
    /// A level at the moment of reading.
    Gauge,
}

#[cfg(any(feature = "net", test))]
/// A counter and the raw statistic it comes from.
pub(crate) struct Spec {
    name: &'static str,
    raw: &'static str,
    kind: Kind,
}

#[cfg(any(feature = "net", test))]
/// What turns successive readings of named raw statistics into counter values.
pub(crate) struct Deltas {
    object: &'static str,
    specs: &'static [Spec],
    /// Raw names of (hits, misses) for the buffer cache hit ratio.
    hit_ratio: (&'static str, &'static str),
    previous: Option<HashMap<String, f64>>,
}

#[cfg(any(feature = "net", test))]
impl Deltas {
    fn paths(&self) -> Vec<String> {
        std::iter::once(format!("\\spindle:{}\\Buffer cache hit ratio", self.object))
            .chain(self.specs.iter().map(|s| format!("\\spindle:{}\\{}", self.object, s.name)))
            .collect()
    }

    /// The interval's values from this reading (`None` everywhere when it failed).
    fn values(&mut self, raw: Option<HashMap<String, f64>>, secs: f64) -> Vec<Option<f64>> {
        let n = self.specs.len() + 1;
        let Some(now) = raw else {
            self.previous = None;
            return vec![None; n];
        };
        let out = match &self.previous {
            None => vec![None; n],
            Some(before) => {
                let delta = |k: &str| Some(now.get(k)? - before.get(k)?).filter(|d| *d >= 0.0);
                let (hits, misses) = (delta(self.hit_ratio.0), delta(self.hit_ratio.1));
                let ratio = match (hits, misses) {
                    (Some(h), Some(m)) if h + m > 0.0 => Some(100.0 * h / (h + m)),
                    _ => None,
                };
                std::iter::once(ratio)
                    .chain(self.specs.iter().map(|s| match s.kind {
                        Kind::Rate => delta(s.raw).filter(|_| secs > 0.0).map(|d| d / secs),
                        Kind::Delta => delta(s.raw),
                        Kind::Gauge => now.get(s.raw).copied(),
                    }))
                    .collect()
            }
        };
        self.previous = Some(now);
        out
    }
}

/// One reading of a server's raw statistics by name, on the source's runtime (`None` when it
/// failed): what each server engine says of itself.
#[cfg(feature = "net")]
pub trait RawStats: Send {
    fn read_raw(&mut self, rt: &tokio::runtime::Runtime) -> Option<HashMap<String, f64>>;
}

/// A server's counters: its raw statistics read on a small runtime of the source's own, driven
/// from the sampler's thread, and made counters by `Deltas`.
#[cfg(feature = "net")]
pub struct ServerCounters<S> {
    rt: tokio::runtime::Runtime,
    stats: S,
    deltas: Deltas,
}

#[cfg(feature = "net")]
impl<S: RawStats> ServerCounters<S> {
    /// Counters named `\spindle:{object}\...` from `specs`, and the buffer cache's hit ratio
    /// from the raw (hits, misses).
    fn new(
        rt: tokio::runtime::Runtime,
        stats: S,
        object: &'static str,
        specs: &'static [Spec],
        hit_ratio: (&'static str, &'static str),
    ) -> ServerCounters<S> {
        ServerCounters { rt, stats, deltas: Deltas { object, specs, hit_ratio, previous: None } }
    }
}

#[cfg(feature = "net")]
impl<S: RawStats> spindle_counters::CounterSource for ServerCounters<S> {
    fn paths(&self) -> Vec<String> {
        self.deltas.paths()
    }

    fn read(&mut self, secs: f64) -> Vec<Option<f64>> {
        let raw = self.stats.read_raw(&self.rt);
        self.deltas.values(raw, secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_deltas_gauges_and_the_hit_ratio() {
        const SPECS: &[Spec] = &[
            Spec { name: "Commits/sec", raw: "c", kind: Kind::Rate },
            Spec { name: "Deadlocks", raw: "d", kind: Kind::Delta },
            Spec { name: "Waits", raw: "w", kind: Kind::Gauge },
        ];
        let mut d = Deltas { object: "Test", specs: SPECS, hit_ratio: ("h", "m"), previous: None };
        assert_eq!(d.paths()[0], "\\spindle:Test\\Buffer cache hit ratio");
        let raw = |h: f64, m: f64, c: f64, dl: f64, w: f64| {
            Some(
                [("h", h), ("m", m), ("c", c), ("d", dl), ("w", w)]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            )
        };
        assert_eq!(d.values(raw(100.0, 10.0, 50.0, 0.0, 1.0), 1.0), vec![None; 4], "the first reading is a baseline");
        assert_eq!(
            d.values(raw(190.0, 20.0, 150.0, 2.0, 3.0), 2.0),
            vec![Some(90.0), Some(50.0), Some(2.0), Some(3.0)]
        );
        assert_eq!(d.values(None, 1.0), vec![None; 4], "a failed reading");
        assert_eq!(d.values(raw(0.0, 0.0, 0.0, 0.0, 0.0), 1.0), vec![None; 4], "after a failure, a new baseline");
    }
}
