//! Any text as a `--db` URL: no panic, and a password that parses never shows in the URL as
//! displayed (what every message, record and report prints).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(url) = spindle_db::parse_url(&text) {
        // The mask itself is not the password.
        let shown = url.to_string().replacen(":****@", ":@", 1);
        if let Some(password) = url.password.as_deref().filter(|p| p.len() >= 4) {
            // A password that is also part of the user, host or database name shows as them.
            let elsewhere = [url.user.as_deref(), url.host.as_deref(), url.database.as_deref()]
                .iter()
                .flatten()
                .any(|part| part.contains(password) || "postgres mysql sqlite localhost".contains(password));
            assert!(elsewhere || !shown.contains(password), "{shown}");
        }
    }
});
