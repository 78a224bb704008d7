//! The compare page: the form that picks A and B, and a section per part compared (drawn as
//! the report draws an A/B group), or saying which side alone has it.

use crate::html::escape::esc;
use crate::view::{Section, comparison_section};
use spindle_analysis::compare::Comparison;

/// A part of the comparison (a large operation, or the runs as a whole).
pub enum PartView<'a> {
    Compared(&'a Comparison),
    /// Only one side has the part: A's when `a`.
    OnlyIn {
        a: bool,
    },
}

/// A section per part, titled by the part (`None`: the runs as a whole).
pub fn sections(parts: &[(Option<&str>, PartView<'_>)]) -> Vec<Section> {
    parts
        .iter()
        .enumerate()
        .map(|(i, (part, result))| {
            let title = match part {
                Some(p) => format!("{p}: B against A"),
                None => "B against A".to_string(),
            };
            match result {
                PartView::Compared(comparison) => comparison_section(format!("part-{i}"), title, comparison),
                PartView::OnlyIn { a } => Section {
                    anchor: format!("part-{i}"),
                    level: 2,
                    title,
                    notes: vec![format!("Only in {}: not compared.", if *a { "A" } else { "B" })],
                    ..Section::default()
                },
            }
        })
        .collect()
}

/// The form: A's and B's items and the threshold, as given.
pub fn form(a: &[String], b: &[String], threshold: Option<&str>) -> String {
    format!(
        "<form class=\"filter\" method=\"get\" action=\"/compare\" id=\"sides\">\
         <label>A<input name=\"a\" value=\"{}\" placeholder=\"12 14-16 or raid=5\"></label>\
         <label>B<input name=\"b\" value=\"{}\" placeholder=\"raid=10\"></label>\
         <label>threshold %<input name=\"threshold\" value=\"{}\" placeholder=\"5\" size=\"4\"></label>\
         <button type=\"submit\">Compare</button></form>\n",
        esc(&a.join(" ")),
        esc(&b.join(" ")),
        esc(threshold.unwrap_or_default())
    )
}
