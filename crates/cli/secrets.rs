//! Where passwords are in spindle's arguments: in a URL's credentials or its `password=`
//! parameter, and the value of a `--password` or `--token` flag. The command line kept in records shows
//! them masked, and once the arguments are parsed the process's own argument vector is
//! overwritten, as MySQL's client does, so `ps` and /proc/PID/cmdline never show them.

use std::ops::Range;

/// What a password is shown as.
const MASK: &str = "****";

/// Flags whose value is a secret: a database's password, and the token `serve` asks of every
/// request.
const SECRET_FLAGS: [&[u8]; 2] = [b"--password", b"--token"];

/// The byte ranges of the passwords in each argument.
pub fn spans(args: &[&[u8]]) -> Vec<Vec<Range<usize>>> {
    let mut hide_next = false;
    args.iter()
        .map(|arg| {
            if std::mem::take(&mut hide_next) {
                return std::iter::once(0..arg.len()).collect();
            }
            let lower = arg.to_ascii_lowercase();
            if SECRET_FLAGS.iter().any(|flag| lower.starts_with(flag)) {
                match arg.iter().position(|&b| b == b'=') {
                    Some(eq) => return std::iter::once(eq + 1..arg.len()).collect(),
                    None => hide_next = true,
                }
            }
            url_spans(arg)
        })
        .collect()
}

/// The password in a URL: in the credentials (which end at the last `@` before the query, as
/// a password may hold `/` or `@`) and in a `password=` parameter.
fn url_spans(arg: &[u8]) -> Vec<Range<usize>> {
    let Some(scheme) = arg.windows(3).position(|w| w == b"://") else { return Vec::new() };
    let start = scheme + 3;
    let query = arg[start..].iter().position(|&b| b == b'?').map_or(arg.len(), |q| start + q);
    let mut spans = Vec::new();
    if let Some(at) = arg[start..query].iter().rposition(|&b| b == b'@') {
        if let Some(colon) = arg[start..start + at].iter().position(|&b| b == b':') {
            spans.push(start + colon + 1..start + at);
        }
    }
    // Each parameter runs from after its `?` or `&` to the next `&`.
    let mut at = query;
    while at < arg.len() {
        let end = arg[at + 1..].iter().position(|&b| b == b'&').map_or(arg.len(), |e| at + 1 + e);
        let pair = &arg[at + 1..end];
        if let Some(eq) = pair.iter().position(|&b| b == b'=').filter(|&eq| &pair[..eq] == b"password") {
            spans.push(at + 1 + eq + 1..end);
        }
        at = end;
    }
    spans
}

/// Arguments with every password shown as `****`.
pub fn masked(args: &[String]) -> Vec<String> {
    let bytes: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    args.iter()
        .zip(spans(&bytes))
        .map(|(arg, spans)| {
            let mut out = arg.clone();
            // Spans end on ASCII delimiters (or the end), so they are character boundaries.
            for span in spans.iter().rev() {
                out.replace_range(span.clone(), MASK);
            }
            out
        })
        .collect()
}

/// Overwrites the passwords in the process's argument vector with `x`, so other users'
/// `ps` cannot read them. Call it once the arguments are parsed (they are copied by then).
pub fn hide_from_process_list() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    argv::overwrite();
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod argv {
    use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

    static ARGC: AtomicUsize = AtomicUsize::new(0);
    static ARGV: AtomicPtr<*mut libc::c_char> = AtomicPtr::new(std::ptr::null_mut());

    /// glibc calls the functions in `.init_array` with the program's arguments (Rust's std
    /// finds them the same way); this keeps where they are.
    #[used]
    #[unsafe(link_section = ".init_array")]
    static CAPTURE: extern "C" fn(libc::c_int, *mut *mut libc::c_char, *mut *mut libc::c_char) = capture;

    extern "C" fn capture(argc: libc::c_int, argv: *mut *mut libc::c_char, _env: *mut *mut libc::c_char) {
        ARGC.store(argc.max(0) as usize, Ordering::Relaxed);
        ARGV.store(argv, Ordering::Relaxed);
    }

    pub fn overwrite() {
        let argv = ARGV.load(Ordering::Relaxed);
        if argv.is_null() {
            return;
        }
        let argc = ARGC.load(Ordering::Relaxed);
        // SAFETY: glibc passed argc valid, NUL-terminated strings in writable memory that
        // lives as long as the process; nothing else holds a reference to them (std copies
        // the arguments when asked for them).
        let args: Vec<&mut [u8]> = (0..argc)
            .filter_map(|i| unsafe {
                let p = *argv.add(i);
                (!p.is_null()).then(|| std::slice::from_raw_parts_mut(p.cast::<u8>(), libc::strlen(p)))
            })
            .collect();
        let views: Vec<&[u8]> = args.iter().map(|a| &a[..]).collect();
        let spans = super::spans(&views);
        for (arg, spans) in args.into_iter().zip(spans) {
            for span in spans {
                arg[span].fill(b'x');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(arg: &str) -> String {
        masked(&[arg.to_string()]).remove(0)
    }

    #[test]
    fn passwords_are_found_wherever_a_url_or_flag_puts_them() {
        let args: Vec<String> =
            ["spindle", "--db=postgres://bench:s3cr:et@db1:5432/x", "--password", "pw", "--password=pw2"]
                .iter()
                .map(|s| s.to_string())
                .collect();
        let out = masked(&args);
        assert_eq!(out[1], "--db=postgres://bench:****@db1:5432/x");
        assert_eq!((out[3].as_str(), out[4].as_str()), ("****", "--password=****"));
        let served = masked(&["spindle".into(), "serve".into(), "--token".into(), "t0k".into(), "--token=t1k".into()]);
        assert_eq!(served[3..], ["****", "--token=****"]);
        assert!(!out.join(" ").contains("s3cr") && !out.join(" ").contains("pw2"));
        assert_eq!(one("mysql://root@h/db"), "mysql://root@h/db", "no password, nothing to hide");
        assert_eq!(one("postgres://u:Se/cr@et@h/d"), "postgres://u:****@h/d");
        assert_eq!(one("postgres://u:@h/d"), "postgres://u:****@h/d");
        assert_eq!(
            one("postgres://u@h/d?sslmode=disable&password=Secret&x=1"),
            "postgres://u@h/d?sslmode=disable&password=****&x=1"
        );
        assert_eq!(one("postgres://u@h/d?password=Secret"), "postgres://u@h/d?password=****");
        assert_eq!(one("sqlite:///tmp/a@b.db"), "sqlite:///tmp/a@b.db");
        assert_eq!(one("postgres://ü:pässwörd@h/d"), "postgres://ü:****@h/d", "spans fall on character boundaries");
    }
}
