//! Splitting one line of a quoted, delimited file (RFC 4180 style, as perfmon writes it).

/// The fields of `line`, separated by `sep`; double quotes group a field and `""` inside
/// quotes is one quote. Unbalanced quotes end at the end of the line.
pub fn split(line: &str, sep: char) -> Vec<String> {
    let mut fields = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == sep && !quoted => fields.push(std::mem::take(&mut cur)),
            '\r' if !quoted && chars.peek().is_none() => {}
            c => cur.push(c),
        }
    }
    fields.push(cur);
    fields
}

/// `value` quoted for a CSV field.
pub fn quote(value: &str) -> String {
    format!("\"{}\"", value.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_commas_and_doubled_quotes() {
        assert_eq!(split(r#""a,b","c""d",e"#, ','), ["a,b", "c\"d", "e"]);
        assert_eq!(split("\"x\"\t\" \"\r", '\t'), ["x", " "]);
        assert_eq!(split("", ','), [""]);
        assert_eq!(split("\"open", ','), ["open"]);
        assert_eq!(quote("say \"hi\""), "\"say \"\"hi\"\"\"");
    }
}
