//! Just enough HTTP/1.1 for a local page: one GET (or HEAD) request per connection, read with
//! limits (a request line and headers of at most 16 KiB, no body), and one response written
//! whole with `Connection: close`. Anything else is refused with a 4xx, never a panic.

use spindle_store::Store;
use std::io::{Read, Write};

/// The most a request's line and headers may take.
const MAX_HEAD: usize = 16 * 1024;

#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// Percent-decoded, starting with `/`.
    pub path: String,
    /// Percent-decoded pairs in their order (`+` is a space).
    pub query: Vec<(String, String)>,
    /// Names in lower case.
    pub headers: Vec<(String, String)>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// Every value of a query parameter.
    pub fn params<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.query.iter().filter(move |(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// A parameter's value when given and not empty (a form's empty field is no choice).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query.iter().filter(|(n, _)| n == name).map(|(_, v)| v.trim()).find(|v| !v.is_empty())
    }
}

/// A request that cannot be read: the status to answer with and why.
#[derive(Debug)]
pub struct Refused {
    pub status: u16,
    pub why: &'static str,
}

fn refused(status: u16, why: &'static str) -> Refused {
    Refused { status, why }
}

/// Reads one request's line and headers. `Ok(None)`: the client closed before sending one.
pub fn read_request(stream: &mut impl Read) -> Result<Option<Request>, Refused> {
    let mut head = Vec::with_capacity(1024);
    let mut buf = [0u8; 2048];
    let end = loop {
        if let Some(i) = head.windows(4).position(|w| w == b"\r\n\r\n").filter(|i| *i <= MAX_HEAD) {
            break i;
        }
        if head.len() > MAX_HEAD {
            return Err(refused(431, "the request's headers are too large"));
        }
        match stream.read(&mut buf) {
            Ok(0) if head.is_empty() => return Ok(None),
            Ok(0) => return Err(refused(400, "the request ended before its headers did")),
            Ok(n) => head.extend_from_slice(&buf[..n]),
            Err(_) if head.is_empty() => return Ok(None),
            Err(_) => return Err(refused(408, "the request was not sent in time")),
        }
    };
    let text = std::str::from_utf8(&head[..end]).map_err(|_| refused(400, "the request is not UTF-8"))?;
    parse_head(text).map(Some)
}

fn parse_head(text: &str) -> Result<Request, Refused> {
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(refused(400, "not an HTTP request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(refused(505, "only HTTP/1.x is served"));
    }
    let headers = lines
        .map(|l| {
            let (name, value) = l.split_once(':').ok_or(refused(400, "a header without a colon"))?;
            Ok((name.trim().to_ascii_lowercase(), value.trim().to_string()))
        })
        .collect::<Result<Vec<_>, Refused>>()?;
    // RFC 9112 §3.2: two Host lines leave the request's target ambiguous (a proxy and this
    // server could each take a different one), so such a request is refused, not guessed at.
    if headers.iter().filter(|(n, _)| n == "host").count() > 1 {
        return Err(refused(400, "more than one Host header"));
    }
    let (raw_path, raw_query) = target.split_once('?').unwrap_or((target, ""));
    if !raw_path.starts_with('/') {
        return Err(refused(400, "the path must start with /"));
    }
    let path = decode(raw_path, false).ok_or(refused(400, "the path is not valid percent-encoded UTF-8"))?;
    let query = raw_query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (n, v) = pair.split_once('=').unwrap_or((pair, ""));
            match (decode(n, true), decode(v, true)) {
                (Some(n), Some(v)) => Ok((n, v)),
                _ => Err(refused(400, "the query is not valid percent-encoded UTF-8")),
            }
        })
        .collect::<Result<Vec<_>, Refused>>()?;
    Ok(Request { method: method.to_string(), path, query, headers })
}

/// `%XX` escapes decoded (and `+` as a space in a query); `None` for a broken escape or bytes
/// that are not UTF-8.
fn decode(s: &str, plus_is_space: bool) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// `s` as a query value: everything but unreserved characters escaped.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// What a response carries: bytes made before it is sent, or a writer run while it is sent,
/// so a download of thousands of runs never sits whole in memory.
pub enum Body {
    Whole(Vec<u8>),
    /// Writes the body from the store, piece by piece. The size is not known ahead, so the
    /// response has no Content-Length; an error after the first byte ends the connection
    /// early, which the client sees as a cut download, never as a whole one.
    Streamed(Box<BodyWriter>),
}

/// A streamed body's writer: it reads the store it is given and writes to the connection.
pub type BodyWriter = dyn FnOnce(&Store, &mut dyn Write) -> std::io::Result<()> + Send;

impl Body {
    /// The bytes of a whole body; `None` for a streamed one.
    pub fn bytes(&self) -> Option<&[u8]> {
        match self {
            Body::Whole(b) => Some(b),
            Body::Streamed(_) => None,
        }
    }
}

pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Body,
    /// Further headers (a download's file name, the token's cookie).
    pub headers: Vec<(&'static str, String)>,
}

impl Response {
    pub fn new(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Response {
        Response { status, content_type, body: Body::Whole(body.into()), headers: Vec::new() }
    }

    /// A 200 whose body `write` writes while it is sent.
    pub fn streamed(
        content_type: &'static str,
        write: impl FnOnce(&Store, &mut dyn Write) -> std::io::Result<()> + Send + 'static,
    ) -> Response {
        Response { status: 200, content_type, body: Body::Streamed(Box::new(write)), headers: Vec::new() }
    }

    pub fn html(body: String) -> Response {
        Response::new(200, "text/html; charset=utf-8", body)
    }

    pub fn with(mut self, name: &'static str, value: String) -> Response {
        self.headers.push((name, value));
        self
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        413 => "Content Too Large",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "Error",
    }
}

/// Writes the response (a streamed body as it is made). Every page is the server's own: scripts and styles from itself
/// only, never framed, no address (which may hold the token) sent on as a referrer.
pub fn write_response(stream: &mut impl Write, store: &Store, r: Response, head_only: bool) -> std::io::Result<()> {
    let length = match &r.body {
        Body::Whole(b) => format!("Content-Length: {}\r\n", b.len()),
        Body::Streamed(_) => String::new(),
    };
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\n{length}Connection: close\r\nCache-Control: no-store\r\n\
         X-Content-Type-Options: nosniff\r\nReferrer-Policy: no-referrer\r\nX-Frame-Options: DENY\r\n\
         Content-Security-Policy: default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'\r\n",
        r.status,
        reason(r.status),
        r.content_type,
    );
    for (name, value) in &r.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    match r.body {
        _ if head_only => {}
        Body::Whole(b) => stream.write_all(&b)?,
        Body::Streamed(write) => {
            let mut buffered = std::io::BufWriter::with_capacity(64 * 1024, &mut *stream);
            write(store, &mut buffered)?;
            buffered.flush()?;
        }
    }
    stream.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Option<Request>, Refused> {
        read_request(&mut text.as_bytes())
    }

    #[test]
    fn a_get_with_its_query_and_headers() {
        let r =
            read("GET /runs?label=raid%3D10&kind=io&x=a+b HTTP/1.1\r\nHost: 127.0.0.1:8088\r\n\r\n").unwrap().unwrap();
        assert_eq!(r.method, "GET");
        assert_eq!(r.path, "/runs");
        assert_eq!(r.param("label"), Some("raid=10"));
        assert_eq!(r.param("x"), Some("a b"));
        assert_eq!(r.header("host"), Some("127.0.0.1:8088"));
    }

    #[test]
    fn broken_requests_are_refused_with_4xx() {
        assert!(read("").unwrap().is_none());
        for bad in [
            "GET\r\n\r\n",
            "GET /a b HTTP/1.1\r\n\r\n",
            "GET nopath HTTP/1.1\r\n\r\n",
            "GET /%zz HTTP/1.1\r\n\r\n",
            "GET /?a=%ff HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nno colon\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x",
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:8088\r\nHost: evil.example\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n",
        ] {
            let status = read(bad).unwrap_err().status;
            assert!((400..500).contains(&status), "{bad:?}: {status}");
        }
        let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD));
        assert_eq!(read(&huge).unwrap_err().status, 431);
    }

    #[test]
    fn encoded_values_decode_to_themselves() {
        let s = "raid=10 & <b> ü/..";
        assert_eq!(decode(&encode(s), true).as_deref(), Some(s));
    }
}
