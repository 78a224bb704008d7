//! Which workload a `[database]` section runs (Hammer, the log test or the large operations),
//! each key checked against the workload it belongs to.

use super::{DbWorkload, MAX_CUSTOMERS, Section, sessions_of};
use crate::usage::UsageError;
use crate::values::{bad, count_of, duration_of, percent_of};
use spindle_db::logtest::{LogTestPlan, MAX_ROW_BYTES};
use spindle_runner::workload::largeops::OpsPlan;
use std::time::Duration;

impl Section<'_> {
    /// The workload; `managed`: on an instance spindle starts (which Hammer loads itself).
    pub(super) fn workload(
        &self,
        managed: bool,
        duration: Duration,
        warmup: Duration,
        shown: &mut Vec<(String, String)>,
    ) -> Result<DbWorkload, UsageError> {
        match self.workload_name() {
            "hammer" => self.hammer(managed, duration, warmup, shown),
            "logtest" => self.logtest(),
            "largeops" => self.largeops(),
            other => {
                let w = self.raw.workload.as_ref().expect("named");
                Err(bad(&self.at("workload", w), other, "hammer, logtest or largeops"))
            }
        }
    }

    fn workload_name(&self) -> &str {
        self.raw.workload.as_ref().map_or("hammer", |w| w.get_ref().as_str())
    }

    /// A key given that the workload has no use for.
    fn not_for(&self, keys: &[(&str, &Option<crate::spec_file::Raw>)]) -> Result<(), UsageError> {
        match keys.iter().find_map(|(key, v)| Some((key, v.as_ref()?))) {
            Some((key, v)) => Err(UsageError::at(
                self.file.origin(key, v.span().start),
                format_args!("{key} does not apply to workload {}", self.workload_name()),
            )),
            None => Ok(()),
        }
    }

    fn hammer(
        &self,
        managed: bool,
        duration: Duration,
        warmup: Duration,
        shown: &mut Vec<(String, String)>,
    ) -> Result<DbWorkload, UsageError> {
        let raw = self.raw;
        self.not_for(&[("batch", &raw.batch), ("settle", &raw.settle)])?;
        let load = match self.setting("rows", &raw.rows) {
            Some(s) if managed => Some(count_of(&s, 1, spindle_db::keys::MAX_ROWS, "rows")?),
            Some(s) => {
                return Err(bad(
                    &s.origin,
                    &s.text,
                    "the table at a url is loaded with spindle hammer load; rows sets the load of an instance spindle starts",
                ));
            }
            None if managed => Some(1_000_000),
            None => None,
        };
        let read_pct = self.setting("read_ratio", &raw.read_ratio).map(|s| percent_of(&s)).transpose()?.unwrap_or(50);
        let (sessions, origin) = match self.setting("sessions", &raw.sessions) {
            Some(s) => (sessions_of(&s)?, Some(s.origin)),
            None => (vec![8], None),
        };
        shown.push(("sessions".into(), sessions.iter().map(u32::to_string).collect::<Vec<_>>().join(",")));
        shown.push(("read_ratio".into(), read_pct.to_string()));
        for (key, d) in [("duration", duration), ("warmup", warmup)] {
            shown.push((key.into(), spindle_model::units::format_duration_ns(d.as_nanos() as u64)));
        }
        DbWorkload::hammer(load, &sessions, read_pct, duration, warmup, origin)
    }

    fn logtest(&self) -> Result<DbWorkload, UsageError> {
        let raw = self.raw;
        self.not_for(&[("sessions", &raw.sessions), ("read_ratio", &raw.read_ratio), ("settle", &raw.settle)])?;
        let rows = self
            .setting("rows", &raw.rows)
            .map(|s| count_of(&s, 1, 1_000_000_000_000, "rows"))
            .transpose()?
            .unwrap_or(20_000);
        let size = self
            .setting("batch", &raw.batch)
            .map(|s| count_of(&s, 1, rows, "the transaction size (rows, at most rows)"))
            .transpose()?
            .unwrap_or(1);
        Ok(DbWorkload::LogTest { plan: LogTestPlan { rows, row_bytes: 4000.min(MAX_ROW_BYTES) }, size })
    }

    fn largeops(&self) -> Result<DbWorkload, UsageError> {
        let raw = self.raw;
        self.not_for(&[("sessions", &raw.sessions), ("read_ratio", &raw.read_ratio)])?;
        let rows = self
            .setting("rows", &raw.rows)
            .map(|s| count_of(&s, 1, MAX_CUSTOMERS, "rows"))
            .transpose()?
            .unwrap_or(1_000_000);
        let batch = self
            .setting("batch", &raw.batch)
            .map(|s| count_of(&s, 1, rows, "the batch (rows, at most rows)"))
            .transpose()?
            .unwrap_or(50_000.min(rows));
        let settle = self
            .setting("settle", &raw.settle)
            .map(|s| duration_of(&s))
            .transpose()?
            .map_or(Duration::from_secs(2), Duration::from_nanos);
        Ok(DbWorkload::LargeOps(OpsPlan { rows, batch, settle, keep: false }))
    }
}
