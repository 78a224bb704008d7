//! A workbook read back as its cells: the sheet XML inside the .xlsx (a zip), with shared
//! strings resolved, so a test sees which cells are numbers and which are text, as a
//! spreadsheet will. Only what spindle's workbook writes: numbers, shared strings, blanks.

use std::collections::BTreeMap;
use std::io::{Cursor, Read};

/// One cell as stored: a number, or text.
#[derive(Clone, Debug, PartialEq)]
pub enum XCell {
    Number(f64),
    Text(String),
}

impl XCell {
    pub fn number(&self) -> Option<f64> {
        match self {
            XCell::Number(v) => Some(*v),
            XCell::Text(_) => None,
        }
    }

    pub fn text(&self) -> Option<&str> {
        match self {
            XCell::Text(t) => Some(t),
            XCell::Number(_) => None,
        }
    }
}

/// A sheet's cells by (row, column), both from 0.
#[derive(Clone, Debug, Default)]
pub struct Sheet {
    pub cells: BTreeMap<(u32, u32), XCell>,
}

impl Sheet {
    pub fn get(&self, row: u32, col: u32) -> Option<&XCell> {
        self.cells.get(&(row, col))
    }

    /// The first row whose cells begin, from column 0, with `header`.
    pub fn find_row(&self, header: &[&str]) -> Option<u32> {
        let rows: std::collections::BTreeSet<u32> = self.cells.keys().map(|k| k.0).collect();
        rows.into_iter()
            .find(|&r| header.iter().enumerate().all(|(c, h)| self.get(r, c as u32).and_then(XCell::text) == Some(*h)))
    }
}

/// The workbook's sheet names, in order, and each sheet by its name.
pub fn read(book: &[u8]) -> Result<Vec<(String, Sheet)>, String> {
    let mut zip = zip::ZipArchive::new(Cursor::new(book)).map_err(|e| format!("not a zip: {e}"))?;
    let mut part = |name: &str| -> Result<String, String> {
        let mut f = zip.by_name(name).map_err(|e| format!("{name}: {e}"))?;
        let mut s = String::new();
        f.read_to_string(&mut s).map_err(|e| format!("{name}: {e}"))?;
        Ok(s)
    };
    let workbook = part("xl/workbook.xml")?;
    let rels = part("xl/_rels/workbook.xml.rels")?;
    let strings = part("xl/sharedStrings.xml").map(|s| shared_strings(&s)).unwrap_or_default();
    let mut sheets = Vec::new();
    for tag in elements(&workbook, "sheet") {
        let name = unescape(&attr(tag, "name").ok_or("a sheet without a name")?);
        let id = attr(tag, "r:id").ok_or("a sheet without r:id")?;
        let target = elements(&rels, "Relationship")
            .into_iter()
            .find(|r| attr(r, "Id").as_deref() == Some(id.as_str()))
            .and_then(|r| attr(r, "Target"))
            .ok_or_else(|| format!("no part for sheet {name}"))?;
        let path = if let Some(abs) = target.strip_prefix('/') { abs.to_string() } else { format!("xl/{target}") };
        sheets.push((name, parse_sheet(&part(&path)?, &strings)?));
    }
    Ok(sheets)
}

/// The sheet named `name`.
pub fn sheet(book: &[u8], name: &str) -> Result<Sheet, String> {
    let sheets = read(book)?;
    let names: Vec<String> = sheets.iter().map(|s| s.0.clone()).collect();
    sheets.into_iter().find(|s| s.0 == name).map(|s| s.1).ok_or_else(|| format!("no sheet {name:?} in {names:?}"))
}

/// Each `<name ...>` or `<name .../>` start tag's text (up to its `>`).
fn elements<'a>(xml: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name} ");
    xml.match_indices(open.as_str())
        .map(|(at, _)| {
            let rest = &xml[at..];
            &rest[..rest.find('>').map_or(rest.len(), |e| e + 1)]
        })
        .collect()
}

fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    let len = tag[start..].find('"')?;
    Some(tag[start..start + len].to_string())
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'").replace("&amp;", "&")
}

/// The text of each `<si>`: its `<t>` runs joined.
fn shared_strings(xml: &str) -> Vec<String> {
    xml.split("<si>")
        .skip(1)
        .map(|si| {
            let si = &si[..si.find("</si>").unwrap_or(si.len())];
            let mut text = String::new();
            for t in si.split("<t").skip(1) {
                if let (Some(gt), Some(end)) = (t.find('>'), t.find("</t>")) {
                    if gt < end && !t[..gt].ends_with('/') {
                        text.push_str(&unescape(&t[gt + 1..end]));
                    }
                }
            }
            text
        })
        .collect()
}

/// `B12` as (row 11, column 1).
fn position(r: &str) -> Option<(u32, u32)> {
    let letters: String = r.chars().take_while(|c| c.is_ascii_uppercase()).collect();
    let row: u32 = r[letters.len()..].parse().ok()?;
    let col = letters.chars().fold(0u32, |acc, c| acc * 26 + (c as u32 - 'A' as u32 + 1));
    Some((row.checked_sub(1)?, col.checked_sub(1)?))
}

fn parse_sheet(xml: &str, strings: &[String]) -> Result<Sheet, String> {
    let mut out = Sheet::default();
    for (at, _) in xml.match_indices("<c ") {
        let rest = &xml[at..];
        let tag_end = rest.find('>').ok_or("a cell cut short")?;
        let tag = &rest[..=tag_end];
        if tag.ends_with("/>") {
            continue;
        }
        let r = attr(tag, "r").ok_or("a cell without r")?;
        let pos = position(&r).ok_or_else(|| format!("cell reference {r}"))?;
        let body = &rest[tag_end + 1..rest.find("</c>").ok_or("a cell not closed")?];
        let value = |open: &str, close: &str| {
            body.find(open)
                .and_then(|s| body[s..].find('>').map(|g| s + g + 1))
                .and_then(|s| body[s..].find(close).map(|e| &body[s..s + e]))
        };
        let cell = match attr(tag, "t").as_deref() {
            Some("s") => {
                let i: usize = value("<v", "</v>").and_then(|v| v.parse().ok()).ok_or("a shared string's index")?;
                XCell::Text(strings.get(i).cloned().ok_or_else(|| format!("shared string {i}"))?)
            }
            Some("inlineStr") => XCell::Text(unescape(value("<t", "</t>").unwrap_or(""))),
            Some("str") => XCell::Text(unescape(value("<v", "</v>").unwrap_or(""))),
            Some("b") => XCell::Number(value("<v", "</v>").and_then(|v| v.parse().ok()).unwrap_or(0.0)),
            _ => match value("<v", "</v>") {
                Some(v) => XCell::Number(v.parse().map_err(|e| format!("{r}: {v:?}: {e}"))?),
                None => continue,
            },
        };
        out.cells.insert(pos, cell);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cell_references_and_shared_strings() {
        assert_eq!(position("A1"), Some((0, 0)));
        assert_eq!(position("AB12"), Some((11, 27)));
        let xml = "<sst><si><t>MB/s</t></si><si><t xml:space=\"preserve\">a &amp; b </t></si></sst>";
        assert_eq!(shared_strings(xml), ["MB/s", "a & b "]);
        let cells = parse_sheet(
            "<sheetData><row r=\"1\"><c r=\"A1\" s=\"1\" t=\"s\"><v>1</v></c><c r=\"B1\"><v>2.5</v></c><c r=\"C1\" s=\"2\"/></row></sheetData>",
            &shared_strings(xml),
        )
        .unwrap();
        assert_eq!(cells.get(0, 0), Some(&XCell::Text("a & b ".into())));
        assert_eq!(cells.get(0, 1), Some(&XCell::Number(2.5)));
        assert_eq!(cells.get(0, 2), None);
    }
}
