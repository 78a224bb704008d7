//! What the pages see of HTTP: a [`Request`] (its method, its path and query decoded, its
//! headers) and the [`Response`] they answer with. hyper reads and writes the protocol
//! (server.rs); this file makes hyper's request into a `Request`, refusing what no page can
//! take, and gives every response the headers that keep a page the server's own.

use crate::body::Outgoing;
use hyper::header::{HeaderName, HeaderValue};
use spindle_store::Store;
use std::io::Write;

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

/// A request no page can take: the status to answer with and why.
#[derive(Debug)]
pub struct Refused {
    pub status: u16,
    pub why: &'static str,
}

fn refused(status: u16, why: &'static str) -> Refused {
    Refused { status, why }
}

/// The request hyper read, as the pages see it. hyper has checked the request line and the
/// headers' syntax and size; what is refused here is what it lets through and a page cannot
/// take: a target that is not a path, headers that are not UTF-8, two Host lines, a body.
pub(crate) fn request<B: hyper::body::Body>(req: &hyper::Request<B>) -> Result<Request, Refused> {
    // The absolute form (`GET http://elsewhere/ HTTP/1.1`) names a host of its own, which the
    // access check, reading Host, would not see; `*` is no page.
    let uri = req.uri();
    let target = uri.path_and_query().map(|p| p.as_str()).filter(|_| uri.authority().is_none()).unwrap_or("");
    let mut headers = Vec::with_capacity(req.headers().len());
    for (name, value) in req.headers() {
        let value = std::str::from_utf8(value.as_bytes()).map_err(|_| refused(400, "a header is not UTF-8"))?;
        headers.push((name.as_str().to_string(), value.trim().to_string()));
    }
    // RFC 9112 §3.2: two Host lines leave the request's target ambiguous (a proxy and this
    // server could each take a different one), so such a request is refused, not guessed at.
    if headers.iter().filter(|(n, _)| n == "host").count() > 1 {
        return Err(refused(400, "more than one Host header"));
    }
    // Every page is read: a body would be ignored, so it is refused rather than dropped unread.
    if !req.body().is_end_stream() {
        return Err(refused(413, "this site is read-only: a request carries no body"));
    }
    let (path, query) = split_target(target)?;
    Ok(Request { method: req.method().as_str().to_string(), path, query, headers })
}

/// A request target's path and query pairs, decoded.
fn split_target(target: &str) -> Result<(String, Vec<(String, String)>), Refused> {
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
    Ok((path, query))
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

    /// The head to send and the body apart, for the body is sent its own way.
    pub(crate) fn split(self) -> (Head, Body) {
        let Response { status, content_type, body, headers } = self;
        (Head { status, content_type, headers }, body)
    }
}

/// A response without its body.
pub(crate) struct Head {
    status: u16,
    content_type: &'static str,
    headers: Vec<(&'static str, String)>,
}

/// Every page is the server's own: scripts and styles from itself only, never framed, never
/// kept by a cache, no address (which may hold the token) sent on as a referrer.
const EVERY_PAGE: [(&str, &str); 5] = [
    ("cache-control", "no-store"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("x-frame-options", "DENY"),
    (
        "content-security-policy",
        "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'",
    ),
];

impl Head {
    /// hyper's response: this head, the headers of every page, and `body`. A status or a
    /// header hyper cannot send (a page's bug, never a request's) answers 500 instead.
    pub(crate) fn with_body(self, body: Outgoing) -> hyper::Response<Outgoing> {
        let mut response = hyper::Response::new(body);
        match self.fill(&mut response) {
            Some(()) => response,
            None => internal_error(),
        }
    }

    fn fill(self, response: &mut hyper::Response<Outgoing>) -> Option<()> {
        *response.status_mut() = hyper::StatusCode::from_u16(self.status).ok()?;
        let headers = response.headers_mut();
        headers.insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static(self.content_type));
        for (name, value) in EVERY_PAGE {
            headers.insert(name, HeaderValue::from_static(value));
        }
        for (name, value) in self.headers {
            headers.append(HeaderName::from_bytes(name.as_bytes()).ok()?, HeaderValue::try_from(value).ok()?);
        }
        Some(())
    }
}

/// The answer when a page failed (a panic, a bug): nothing of what it made.
pub(crate) fn internal_error() -> hyper::Response<Outgoing> {
    let mut response = hyper::Response::new(Outgoing::whole(b"internal error\n".to_vec()));
    *response.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
    response.headers_mut().insert(hyper::header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(target: &str, headers: &[(&str, &str)]) -> Result<Request, Refused> {
        let mut req = hyper::Request::builder().uri(target);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        request(&req.body(Outgoing::none()).unwrap())
    }

    #[test]
    fn a_get_with_its_query_and_headers() {
        let r = read("/runs?label=raid%3D10&kind=io&x=a+b", &[("Host", "127.0.0.1:8088")]).unwrap();
        assert_eq!(r.method, "GET");
        assert_eq!(r.path, "/runs");
        assert_eq!(r.param("label"), Some("raid=10"));
        assert_eq!(r.param("x"), Some("a b"));
        assert_eq!(r.header("host"), Some("127.0.0.1:8088"));
    }

    #[test]
    fn requests_no_page_can_take_are_refused_with_4xx() {
        for (target, headers) in [
            ("http://elsewhere.example/", &[][..]),
            ("/%zz", &[]),
            ("/?a=%ff", &[]),
            ("/", &[("Host", "127.0.0.1:8088"), ("Host", "evil.example")]),
            ("/", &[("Host", "a"), ("host", "a")]),
        ] {
            let status = read(target, headers).unwrap_err().status;
            assert!((400..500).contains(&status), "{target} {headers:?}: {status}");
        }
        let not_utf8 = hyper::Request::builder()
            .uri("/")
            .header("x", HeaderValue::from_bytes(b"\xff\xfe").unwrap())
            .body(Outgoing::none())
            .unwrap();
        assert_eq!(request(&not_utf8).unwrap_err().status, 400);
        let with_body = hyper::Request::builder().uri("/").body(Outgoing::whole(b"x=1".to_vec())).unwrap();
        assert_eq!(request(&with_body).unwrap_err().status, 413);
    }

    #[test]
    fn encoded_values_decode_to_themselves() {
        let s = "raid=10 & <b> ü/..";
        assert_eq!(decode(&encode(s), true).as_deref(), Some(s));
    }

    #[test]
    fn every_response_carries_the_pages_headers() {
        let (head, _) = Response::new(404, "text/html; charset=utf-8", "no").with("Set-Cookie", "a=b".into()).split();
        let r = head.with_body(Outgoing::none());
        assert_eq!(r.status(), 404);
        for (name, value) in
            EVERY_PAGE.iter().chain(&[("set-cookie", "a=b"), ("content-type", "text/html; charset=utf-8")])
        {
            assert_eq!(r.headers().get(*name).and_then(|v| v.to_str().ok()), Some(*value), "{name}");
        }
        let (head, _) = Response::new(200, "text/plain", "").with("x-name", "a\r\nInjected: 1".into()).split();
        assert_eq!(head.with_body(Outgoing::none()).status(), 500, "a header that would split is never sent");
    }
}
