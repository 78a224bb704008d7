//! The report as an Excel workbook: an overview sheet, a sheet per kind of run and per group
//! with every figure as a number (units in the headers) and native Excel charts drawn from
//! those cells (the SQLIO matrix of "SQL Server I/O Characteristics: SQLIO results in Excel",
//! a row per I/O run with MB/s, IOPS, average and p99 latency each charted as a ranking;
//! sweep curves; the log test's curve; comparisons), and a sheet with each run's details. It
//! opens in Excel and LibreOffice alike.

use crate::document::{RunSource, slim_document};
use crate::format::{ExportError, Exporter};
use crate::view::{Cell, Chart, ChartKind, Section, Table, each_run_section, summary_view};
use rust_xlsxwriter::{
    Chart as XChart, ChartAxisCrossing, ChartType, Format as XFormat, Workbook, Worksheet, XlsxError,
};

pub struct XlsxExporter;

/// The overview and a sheet per section over every run, from slim runs; then the sheet of
/// each run's details, its rows written to a temporary file as each run is read again
/// (rust_xlsxwriter's constant-memory sheet); the workbook is zipped into a temporary file
/// and copied to `out`.
impl Exporter for XlsxExporter {
    fn write(&self, runs: &dyn RunSource, out: &mut dyn std::io::Write) -> Result<(), ExportError> {
        let mut file = tempfile::tempfile()?;
        workbook(runs, &mut file)?;
        std::io::Seek::rewind(&mut file)?;
        std::io::copy(&mut file, out)?;
        Ok(())
    }
}

impl From<XlsxError> for ExportError {
    fn from(e: XlsxError) -> ExportError {
        ExportError(format!("cannot write the workbook: {e}"))
    }
}

/// Excel's limit on the text of one cell.
const MAX_CELL_CHARS: usize = 32_767;
/// Rows a chart takes on its sheet.
const CHART_ROWS: u32 = 20;

struct Names(Vec<String>);

impl Names {
    /// A sheet name Excel accepts (at most 31 characters, none of `[]:*?/\`), unique in the
    /// workbook.
    fn unique(&mut self, wanted: &str) -> String {
        let clean: String = wanted
            .chars()
            .map(|c| if "[]:*?/\\'".contains(c) { ' ' } else { c })
            .collect::<String>()
            .trim()
            .chars()
            .take(28)
            .collect();
        let clean = if clean.is_empty() { "Sheet".to_string() } else { clean };
        let mut name = clean.clone();
        let mut n = 2;
        while self.0.iter().any(|used| used.eq_ignore_ascii_case(&name)) {
            name = format!("{clean} {n}");
            n += 1;
        }
        self.0.push(name.clone());
        name
    }
}

fn workbook(runs: &dyn RunSource, file: &mut std::fs::File) -> Result<(), ExportError> {
    let view = summary_view(&slim_document(runs)?);
    let bold = XFormat::new().set_bold();
    let mut book = Workbook::new();
    let mut names = Names(Vec::new());

    let sheet = book.add_worksheet();
    sheet.set_name(names.unique("Overview"))?;
    sheet.write_string_with_format(0, 0, cut(&view.title), &bold)?;
    let mut row = 1;
    if !view.generated_at.is_empty() {
        sheet.write_string(row, 0, format!("Made by spindle at {}", view.generated_at))?;
        row += 1;
    }
    for line in &view.overview {
        sheet.write_string(row, 0, cut(line))?;
        row += 1;
    }
    row += 1;
    for (_, title) in &view.contents {
        sheet.write_string(row, 0, cut(title))?;
        row += 1;
    }
    sheet.set_column_width(0, 60)?;

    for s in view.sections.iter().filter(|s| s.level == 2) {
        let name = names.unique(&s.title);
        let sheet = book.add_worksheet();
        sheet.set_name(&name)?;
        section_sheet(sheet, &name, s, &bold)?;
    }

    if runs.count() > 0 {
        let sheet = book.add_worksheet_with_constant_memory();
        sheet.set_name(names.unique("Run details"))?;
        // Before any row: a constant-memory sheet's rows are written out as they end.
        sheet.set_column_width(0, 28)?;
        let mut row = 0;
        each_run_section(runs, view.latency_unit, &mut |s| {
            row = section_body(sheet, row, &s, &bold)?.0 + 1;
            Ok(())
        })?;
    }
    book.save_to_writer(file)?;
    Ok(())
}

/// A kind's or a group's sheet: its tables on the left, each chart's data and the chart
/// drawn from it to their right.
fn section_sheet(sheet: &mut Worksheet, name: &str, s: &Section, bold: &XFormat) -> Result<(), XlsxError> {
    let (_, width) = section_body(sheet, 0, s, bold)?;
    let data_col = width + 1;
    let mut row = 0;
    for c in s.charts.iter().filter(|c| !c.is_empty() || !c.intervals.is_empty()) {
        let used = chart(sheet, name, row, data_col, c, bold)?;
        row += used.max(CHART_ROWS) + 2;
    }
    Ok(())
}

/// Title, notes, tables and text blocks from `row` down; returns the next free row and the
/// widest table's width.
fn section_body(sheet: &mut Worksheet, mut row: u32, s: &Section, bold: &XFormat) -> Result<(u32, u16), XlsxError> {
    sheet.write_string_with_format(row, 0, cut(&s.title), bold)?;
    row += 1;
    for note in &s.notes {
        sheet.write_string(row, 0, cut(note))?;
        row += 1;
    }
    let mut width = 1;
    for t in &s.tables {
        row += 1;
        row = table(sheet, row, t, bold)?;
        width = width.max(t.columns.len() as u16 + 1);
    }
    for (caption, text) in &s.blocks {
        row += 1;
        sheet.write_string_with_format(row, 0, cut(caption), bold)?;
        sheet.write_string(row, 1, cut(text))?;
        row += 1;
    }
    Ok((row + 1, width))
}

fn table(sheet: &mut Worksheet, mut row: u32, t: &Table, bold: &XFormat) -> Result<u32, XlsxError> {
    sheet.write_string_with_format(row, 0, cut(&t.title), bold)?;
    row += 1;
    let pairs = t.columns.iter().all(|c| c.is_empty());
    if !pairs {
        for (col, name) in t.columns.iter().enumerate() {
            let unit = t.rows.iter().filter_map(|r| r.get(col)).map(|c| c.unit).find(|u| !u.is_empty());
            let header = match unit {
                Some(u) => format!("{name} ({u})"),
                None => name.clone(),
            };
            sheet.write_string_with_format(row, col as u16, header, bold)?;
        }
        row += 1;
    }
    for r in &t.rows {
        for (col, c) in r.iter().enumerate() {
            write_cell(sheet, row, col as u16, c)?;
        }
        // A pair's unit goes beside its value.
        if pairs && let Some(unit) = r.get(1).map(|c| c.unit).filter(|u| !u.is_empty()) {
            sheet.write_string(row, 2, unit)?;
        }
        row += 1;
    }
    Ok(row)
}

/// Numbers stay numbers (a spreadsheet charts and sums them), words stay words; a count shown
/// as `run 12` is a word.
fn write_cell(sheet: &mut Worksheet, row: u32, col: u16, c: &Cell) -> Result<(), XlsxError> {
    match c.value {
        Some(v) if v.is_finite() && !c.text.starts_with("run") => {
            sheet.write_number(row, col, v)?;
        }
        _ => {
            sheet.write_string(row, col, cut(&c.text))?;
        }
    }
    Ok(())
}

/// Writes the chart's data at (`row`, `col`) and draws the chart beside it; returns the rows
/// used.
fn chart(sheet: &mut Worksheet, name: &str, row: u32, col: u16, c: &Chart, bold: &XFormat) -> Result<u32, XlsxError> {
    sheet.write_string_with_format(row, col, cut(&c.x_label), bold)?;
    let mut series: Vec<(String, Vec<f64>)> = c.series.iter().map(|s| (s.name.clone(), s.values.clone())).collect();
    if c.kind == ChartKind::Interval {
        // The chart's title says the intervals' confidence.
        series.push(("interval low".into(), c.intervals.iter().map(|i| i.0).collect()));
        series.push(("interval high".into(), c.intervals.iter().map(|i| i.1).collect()));
    }
    for (k, (label, _)) in series.iter().enumerate() {
        sheet.write_string_with_format(row, col + 1 + k as u16, cut(label), bold)?;
    }
    for (i, cat) in c.categories.iter().enumerate() {
        let r = row + 1 + i as u32;
        let marked = c.mark.as_ref().filter(|(m, _)| *m == i).map(|(_, w)| format!("{cat} ({w})"));
        sheet.write_string(r, col, cut(marked.as_deref().unwrap_or(cat)))?;
        for (k, (_, values)) in series.iter().enumerate() {
            if let Some(v) = values.get(i).filter(|v| v.is_finite()) {
                sheet.write_number(r, col + 1 + k as u16, *v)?;
            }
        }
    }
    let n = c.categories.len() as u32;
    let horizontal = c.kind == ChartKind::Bar && n > 12;
    let mut x = XChart::new(match c.kind {
        ChartKind::Bar if horizontal => ChartType::Bar,
        ChartKind::Bar | ChartKind::Interval => ChartType::Column,
        ChartKind::Line => ChartType::Line,
    });
    x.title().set_name(&c.title);
    if horizontal {
        // A bar chart's categories run up its vertical axis, the first at the bottom: reversed,
        // the first is on top, as the data and the HTML page list them (a ranking reads
        // down), with the values' axis kept at the bottom.
        x.y_axis().set_name(&c.x_label).set_reverse().set_crossing(ChartAxisCrossing::Max);
        x.x_axis().set_name(&c.y_label);
    } else {
        x.x_axis().set_name(&c.x_label);
        x.y_axis().set_name(&c.y_label);
    }
    for k in 0..series.len() as u16 {
        x.add_series()
            .set_name((name, row, col + 1 + k))
            .set_categories((name, row + 1, col, row + n.max(1), col))
            .set_values((name, row + 1, col + 1 + k, row + n.max(1), col + 1 + k));
    }
    if series.len() == 1 {
        x.legend().set_hidden();
    }
    let height = if n > 12 && c.kind == ChartKind::Bar { (n * 16 + 120).min(2000) } else { 300 };
    x.set_width(640).set_height(height);
    sheet.insert_chart(row, col + 2 + series.len() as u16, &x)?;
    Ok((n + 1).max(height / 20))
}

fn cut(text: &str) -> String {
    if text.len() <= MAX_CELL_CHARS {
        text.to_string()
    } else {
        text.chars().take(MAX_CELL_CHARS - 1).collect::<String>() + "…"
    }
}
