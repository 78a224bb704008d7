//! The README's commands, as a new user copies them: every `spindle` command in its code
//! blocks and its cookbook, and in the code blocks of the guide it points to, must parse with
//! the CLI as built, so the pages and the tool cannot disagree about a subcommand or a flag.

use crate::args::Cli;
use clap::Parser;

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"));
const GUIDE: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/guide.md"));

/// Shell words of `line` up to a comment, pipe, redirection or `&&`; quotes kept together.
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quote, mut started) = (None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, '#' | '|' | '>' | ';' | '&') if word.is_empty() => break,
            (None, c) if c.is_whitespace() => {
                if started || !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                started = false;
            }
            (None, c) => word.push(c),
        }
    }
    if started || !word.is_empty() {
        words.push(word);
    }
    words
}

/// Every command the README and the guide show.
fn commands() -> Vec<String> {
    [README, GUIDE].into_iter().flat_map(commands_in).collect()
}

/// Every command a page shows: lines of its code blocks that run spindle (`cargo run
/// --release --` counts as spindle), and each `spindle ...` in a cookbook's table.
fn commands_in(page: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_block = false;
    let mut in_cookbook = false;
    // A line ending in `\` goes on in the next.
    let joined = page.replace("\\\n", " ");
    for line in joined.lines() {
        if line.starts_with("```") {
            in_block = !in_block;
            continue;
        }
        if line.starts_with("## ") {
            in_cookbook = line.starts_with("## Cookbook");
        }
        let line = line.trim();
        if in_block {
            if let Some(rest) = line.strip_prefix("cargo run --release -- ") {
                found.push(format!("spindle {rest}"));
            } else if line.starts_with("spindle ") {
                found.push(line.to_string());
            }
        } else if in_cookbook && line.starts_with('|') {
            found.extend(line.split('`').skip(1).step_by(2).filter(|s| s.starts_with("spindle ")).map(str::to_string));
        }
    }
    found
}

#[test]
fn every_command_the_readme_shows_parses() {
    let commands = commands();
    assert!(commands.len() > 30, "the README's and the guide's commands were found: {commands:?}");
    let readme = commands_in(README);
    for first in ["spindle check --quick", "spindle check /mnt/vol --for postgres", "spindle man --dir"] {
        assert!(readme.iter().any(|c| c.starts_with(first)), "the README shows {first}: {readme:?}");
    }
    let mut wrong = Vec::new();
    for command in &commands {
        match Cli::try_parse_from(words(command)) {
            Ok(_) => {}
            Err(e)
                if matches!(e.kind(), clap::error::ErrorKind::DisplayVersion | clap::error::ErrorKind::DisplayHelp) => {
            }
            Err(e) => wrong.push(format!("{command}\n  {}", e.to_string().lines().next().unwrap_or(""))),
        }
    }
    assert!(wrong.is_empty(), "README commands the CLI refuses:\n{}", wrong.join("\n"));
}

#[test]
fn shell_words_are_split_as_a_shell_would() {
    assert_eq!(words(r#"spindle io -t "a b" --x 1  # note"#), ["spindle", "io", "-t", "a b", "--x", "1"]);
    assert_eq!(words("spindle man > spindle.1 && man ./spindle.1"), ["spindle", "man"]);
    assert_eq!(words("spindle db up --data ''"), ["spindle", "db", "up", "--data", ""]);
}
