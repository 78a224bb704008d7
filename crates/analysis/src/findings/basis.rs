//! What each rule's threshold rests on: a published document (which one, and what it says) or
//! a rule of spindle's own (how it was set, and the measurement or derivation behind it). A
//! finding never borrows a document's authority for a number the document does not give.

use super::Source;
use serde::Serialize;

/// The ground of a rule's threshold, or of the fact a rule reports.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "basis", rename_all = "lowercase")]
pub enum Basis {
    /// Published: the document, and the words or table the threshold comes from.
    Published { source: Source, says: &'static str },
    /// spindle's own rule: how it was set, with the measurement (or the derivation) behind it;
    /// `after`: the published document whose idea it puts into a number, if any.
    Own { how: &'static str, after: Option<Source> },
}

impl Basis {
    pub fn is_own(&self) -> bool {
        matches!(self, Basis::Own { .. })
    }

    /// The document a reader can follow: the one the threshold comes from, or the one an own
    /// rule follows the idea of.
    pub fn document(&self) -> Option<Source> {
        match *self {
            Basis::Published { source, .. } => Some(source),
            Basis::Own { after, .. } => after,
        }
    }
}
