//! Who may read the page. On loopback, this machine's users, and only through an address that
//! names this machine (a page elsewhere cannot reach it through a name it rebinds to
//! 127.0.0.1). Anywhere else, whoever holds the token: given once as `?token=` (then kept in a
//! cookie) or as `Authorization: Bearer`; every request without it gets 401.

use crate::http::Request;
use spindle_model::usage::UsageError;
use std::net::SocketAddr;

pub const DEFAULT_LISTEN: &str = "127.0.0.1:8088";
const COOKIE: &str = "spindle_token";

/// `--listen`: an IP address and a port (0 picks a free one).
pub fn listen_address(flag: Option<&str>) -> Result<SocketAddr, UsageError> {
    let text = flag.unwrap_or(DEFAULT_LISTEN);
    let text = text.trim();
    let text = text.strip_prefix("localhost:").map(|port| format!("127.0.0.1:{port}")).unwrap_or(text.to_string());
    text.parse::<SocketAddr>()
        .map_err(|_| UsageError::flag("--listen", text, "write an address and a port, e.g. 127.0.0.1:8088"))
}

pub struct Access {
    /// Required on every request when set.
    pub token: Option<String>,
    /// The `Host` values accepted on loopback (empty: any, a token guards the page).
    hosts: Vec<String>,
}

/// What a request may do.
pub enum Verdict {
    Allowed,
    /// Allowed, and the token it carried in its query is to be kept in a cookie.
    AllowedKeep,
    Refused(u16, &'static str),
}

impl Access {
    /// The rules for a server bound at `bound`, with `token` (from --token or the environment).
    /// A non-loopback address without one gets a generated token, returned to be printed.
    pub fn new(bound: SocketAddr, token: Option<String>) -> Result<(Access, bool), UsageError> {
        if let Some(t) = &token {
            let valid = t.len() >= 16 && t.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.~".contains(&b));
            if !valid {
                return Err(UsageError::flag(
                    "--token",
                    "(not shown)",
                    "at least 16 characters of letters, digits, '-', '_', '.' or '~'",
                ));
            }
        }
        let loopback = bound.ip().is_loopback();
        let generated = token.is_none() && !loopback;
        let token = match token {
            Some(t) => Some(t),
            None if loopback => None,
            None => Some(generate_token().map_err(|e| UsageError::request(format!("cannot make a token: {e}")))?),
        };
        let port = bound.port();
        let hosts = if loopback && token.is_none() {
            vec![format!("127.0.0.1:{port}"), format!("localhost:{port}"), format!("[::1]:{port}")]
        } else {
            Vec::new()
        };
        Ok((Access { token, hosts }, generated))
    }

    pub fn check(&self, req: &Request) -> Verdict {
        // A host name is case-insensitive (RFC 9110 §4.2.3): `LOCALHOST:8088` names this machine too.
        let ours = |h: &str| self.hosts.iter().any(|a| a.eq_ignore_ascii_case(h));
        if !self.hosts.is_empty() && !req.header("host").is_some_and(ours) {
            return Verdict::Refused(403, "this page answers to this machine's loopback address only");
        }
        let Some(token) = &self.token else { return Verdict::Allowed };
        let bearer = req.header("authorization").and_then(bearer_credentials);
        let cookie = req
            .header("cookie")
            .and_then(|c| c.split(';').filter_map(|kv| kv.trim().split_once('=')).find(|(k, _)| *k == COOKIE))
            .map(|(_, v)| v);
        if [bearer, cookie].into_iter().flatten().any(|t| same(t, token)) {
            return Verdict::Allowed;
        }
        if req.params("token").any(|t| same(t, token)) {
            return Verdict::AllowedKeep;
        }
        Verdict::Refused(401, "this page needs the token spindle serve printed: open the address it gave")
    }

    /// The cookie that keeps the token for the next requests of this browser.
    pub fn cookie(&self) -> String {
        format!("{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict", self.token.as_deref().unwrap_or_default())
    }
}

/// The credentials of an `Authorization: Bearer` value; the scheme's name is case-insensitive
/// (RFC 9110 §11.1), so `bearer` and `BEARER` are the same scheme.
fn bearer_credentials(value: &str) -> Option<&str> {
    let (scheme, credentials) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| credentials.trim_start())
}

/// Compared in time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 128 random bits as hex, from the kernel.
fn generate_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(host: &str, query: &[(&str, &str)], headers: &[(&str, &str)]) -> Request {
        let mut h: Vec<(String, String)> = vec![("host".into(), host.into())];
        h.extend(headers.iter().map(|(n, v)| (n.to_string(), v.to_string())));
        Request {
            method: "GET".into(),
            path: "/".into(),
            query: query.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
            headers: h,
        }
    }

    #[test]
    fn listen_addresses_are_checked_and_named() {
        assert_eq!(listen_address(None).unwrap().port(), 8088);
        assert!(listen_address(Some("localhost:9000")).unwrap().ip().is_loopback());
        let e = listen_address(Some("somewhere")).unwrap_err().to_string();
        assert!(e.starts_with("--listen somewhere:"), "{e}");
    }

    #[test]
    fn loopback_takes_its_own_names_only() {
        let (a, generated) = Access::new("127.0.0.1:8088".parse().unwrap(), None).unwrap();
        assert!(!generated);
        assert!(matches!(a.check(&req("127.0.0.1:8088", &[], &[])), Verdict::Allowed));
        assert!(matches!(a.check(&req("localhost:8088", &[], &[])), Verdict::Allowed));
        assert!(matches!(a.check(&req("evil.example:8088", &[], &[])), Verdict::Refused(403, _)));
        for name in ["LOCALHOST:8088", "LocalHost:8088", "[::1]:8088"] {
            assert!(matches!(a.check(&req(name, &[], &[])), Verdict::Allowed), "{name}");
        }
        assert!(matches!(a.check(&req("localhost.evil.example:8088", &[], &[])), Verdict::Refused(403, _)));
    }

    #[test]
    fn elsewhere_every_request_needs_the_token() {
        let (a, generated) = Access::new("0.0.0.0:8088".parse().unwrap(), None).unwrap();
        assert!(generated);
        let token = a.token.clone().unwrap();
        assert_eq!(token.len(), 32);
        assert!(matches!(a.check(&req("h:8088", &[], &[])), Verdict::Refused(401, _)));
        assert!(matches!(a.check(&req("h:8088", &[("token", "wrong")], &[])), Verdict::Refused(401, _)));
        assert!(matches!(a.check(&req("h:8088", &[("token", &token)], &[])), Verdict::AllowedKeep));
        let cookie = format!("a=b; spindle_token={token}");
        assert!(matches!(a.check(&req("h:8088", &[], &[("cookie", &cookie)])), Verdict::Allowed));
        let bearer = format!("Bearer {token}");
        assert!(matches!(a.check(&req("h:8088", &[], &[("authorization", &bearer)])), Verdict::Allowed));
        for scheme in ["bearer", "BEARER", "bEaReR"] {
            let value = format!("{scheme} {token}");
            assert!(matches!(a.check(&req("h:8088", &[], &[("authorization", &value)])), Verdict::Allowed), "{scheme}");
        }
        for wrong in [format!("Basic {token}"), format!("Bearer{token}"), format!("Bearer {token}x")] {
            assert!(matches!(a.check(&req("h:8088", &[], &[("authorization", &wrong)])), Verdict::Refused(401, _)));
        }
        assert!(Access::new("0.0.0.0:1".parse().unwrap(), Some("short".into())).is_err());
    }
}
