//! How deep an XML text's elements nest, read before the XML parser sees it: roxmltree reads
//! an element's content by calling itself, so a file of 20,000 nested elements (140 KB) ran the
//! thread out of stack and aborted the process. A result file of a tool nests a few levels;
//! anything past `MAX_DEPTH` is refused here, in a loop, before any recursion.

use crate::ParseError;

/// Deeper than any tool's result file nests (DiskSpd's XML: 7 levels), far shallower than a
/// thread's stack can parse.
pub const MAX_DEPTH: usize = 64;

/// Refuses text whose elements nest deeper than `MAX_DEPTH`, naming the line. Comments, CDATA,
/// declarations and processing instructions hold no elements; a `>` inside a quoted attribute
/// value ends no tag. Malformed text is left for the parser to name.
pub fn check_nesting(text: &str) -> Result<(), ParseError> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(found) = bytes.get(at..).and_then(|rest| rest.iter().position(|&b| b == b'<')) {
        let start = at + found;
        let rest = &text[start..];
        at = if let Some(skip) = [("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"), ("<!", ">")]
            .iter()
            .find(|(open, _)| rest.starts_with(open))
            .map(|(open, close)| {
                rest[open.len()..].find(close).map_or(bytes.len(), |i| start + open.len() + i + close.len())
            }) {
            skip
        } else if rest.starts_with("</") {
            depth = depth.saturating_sub(1);
            start + 2
        } else {
            let end = tag_end(bytes, start + 1);
            if bytes.get(end.wrapping_sub(1)) != Some(&b'/') {
                depth += 1;
                if depth > MAX_DEPTH {
                    let line = text[..start].matches('\n').count() + 1;
                    return Err(ParseError(format!(
                        "line {line}: elements nested more than {MAX_DEPTH} deep: not a result file spindle reads"
                    )));
                }
            }
            end + 1
        };
    }
    Ok(())
}

/// Where the tag begun before `from` ends (its `>`), quotes honoured; the text's end if never.
fn tag_end(bytes: &[u8], from: usize) -> usize {
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate().skip(from) {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if q == b => quote = None,
            (None, b'>') => return i,
            _ => {}
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_refused_with_its_line_and_real_files_pass() {
        let deep = format!("<Results>\n{}{}</Results>", "<a>".repeat(20_000), "</a>".repeat(20_000));
        let e = check_nesting(&deep).unwrap_err();
        assert!(e.0.starts_with("line 2: elements nested more than 64 deep"), "{e}");
        let at_limit = format!("{}{}", "<a>".repeat(MAX_DEPTH), "</a>".repeat(MAX_DEPTH));
        assert!(check_nesting(&at_limit).is_ok());
        // Siblings, self-closing tags, comments, CDATA and quoted `>` add no depth.
        let wide = format!(
            "<?xml version=\"1.0\"?><!DOCTYPE r><r>{}</r>",
            "<b x=\"a>b\"/><!-- <c><c> --><![CDATA[<d><d>]]><e></e>".repeat(10_000)
        );
        assert!(check_nesting(&wide).is_ok());
        assert!(check_nesting(include_str!("../../testdata/diskspd-expected-results.xml")).is_ok());
        // Cut text: whatever is there is counted, the parser names the cut.
        assert!(check_nesting("<a><b x=\"").is_ok());
    }
}
