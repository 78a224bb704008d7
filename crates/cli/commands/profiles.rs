//! `spindle profiles`: the named patterns, with the settings each stands for.

use crate::Outcome;
use crate::args::ProfilesArgs;
use crate::profiles::PROFILES;
use anyhow::Context;
use std::io::Write;

pub fn run(args: &ProfilesArgs) -> anyhow::Result<Outcome> {
    let mut out = String::new();
    if args.print.json {
        let list: Vec<serde_json::Value> = PROFILES
            .iter()
            .map(|p| {
                let settings: serde_json::Map<String, serde_json::Value> =
                    p.settings.iter().map(|(k, v)| (k.to_string(), serde_json::Value::from(*v))).collect();
                serde_json::json!({ "name": p.name, "summary": p.summary, "settings": settings })
            })
            .collect();
        out = serde_json::to_string_pretty(&list).context("cannot render the profiles")? + "\n";
    } else {
        let width = PROFILES.iter().map(|p| p.name.len()).max().unwrap_or(0);
        for p in PROFILES {
            let settings: Vec<String> = p.settings.iter().map(|(k, v)| format!("{k}={v}")).collect();
            out += &format!("{:width$}  {}\n{:width$}  {}\n", p.name, p.summary, "", settings.join(" "));
        }
        out += "\nUse one with: spindle io --profile NAME --target FILE [flags override its settings]\n";
        out += "Where each number comes from: docs/profiles.md\n";
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes()).context("cannot write to stdout")?;
    Ok(Outcome::Success)
}
