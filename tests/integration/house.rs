//! The house rules that hold the code's shape, read from the sources themselves: each crate
//! reaches only the crates docs/architecture.md allows it, no function is longer than 100
//! lines, and the command line stays a thin layer over the libraries.
//!
//! The sources are parsed with syn (a real Rust parser) rather than scanned for braces, so a
//! brace in a string or a comment cannot move where a function ends.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const LONGEST_FUNCTION: usize = 100;
/// The command line's share of the code, at most: it parses flags and prints.
const CLI_SHARE_PERCENT: usize = 15;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every crate directory under crates/ (the root package's source is crates/cli).
fn crate_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(root().join("crates")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

/// The package name of a crate directory (crates/cli is the root package, `spindle`).
fn package_of(dir: &Path) -> String {
    let manifest = if dir.ends_with("cli") { root().join("Cargo.toml") } else { dir.join("Cargo.toml") };
    let text = std::fs::read_to_string(&manifest).unwrap();
    let doc: toml::Table = text.parse().unwrap();
    doc["package"]["name"].as_str().unwrap().to_string()
}

/// The workspace's own crates each crate depends on in its [dependencies] (normal, not dev).
fn spindle_dependencies(dir: &Path) -> BTreeSet<String> {
    let manifest = if dir.ends_with("cli") { root().join("Cargo.toml") } else { dir.join("Cargo.toml") };
    let doc: toml::Table = std::fs::read_to_string(manifest).unwrap().parse().unwrap();
    let deps = doc.get("dependencies").and_then(|d| d.as_table()).cloned().unwrap_or_default();
    deps.keys().filter(|k| k.starts_with("spindle-")).cloned().collect()
}

/// What docs/architecture.md says each crate may not import: the paragraph of `name/` holds
/// a sentence "May not import: spindle-a, spindle-b.", "May not import: any crate but
/// spindle-a, spindle-b." or "May not import: any other crate.".
fn forbidden_by_architecture() -> BTreeMap<String, Option<BTreeSet<String>>> {
    let text = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let mut forbidden = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut paragraph = String::new();
    let close = |name: &Option<String>, paragraph: &str, into: &mut BTreeMap<String, Option<BTreeSet<String>>>| {
        let Some(name) = name else { return };
        let flat = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
        let said = flat.find("May not import: ").map(|at| {
            let rest = &flat[at + "May not import: ".len()..];
            let list = &rest[..rest.find('.').unwrap_or(rest.len())];
            list.split(',').map(|s| s.trim().to_string()).collect::<BTreeSet<_>>()
        });
        into.insert(name.clone(), said);
    };
    for line in text.lines() {
        // A crate's paragraph starts "  name/   ..." inside the map's code block.
        let starts = line.strip_prefix("  ").and_then(|rest| {
            let word = rest.split_whitespace().next()?;
            let name = word.strip_suffix('/')?;
            (!rest.starts_with(' ') && root().join("crates").join(name).is_dir()).then(|| name.to_string())
        });
        if let Some(name) = starts {
            close(&current, &paragraph, &mut forbidden);
            current = Some(name);
            paragraph.clear();
        } else if !line.starts_with("  ") {
            close(&current, &paragraph, &mut forbidden);
            current = None;
            paragraph.clear();
        }
        paragraph.push_str(line);
        paragraph.push('\n');
    }
    close(&current, &paragraph, &mut forbidden);
    forbidden
}

#[test]
fn each_crate_reaches_only_the_crates_the_architecture_allows_it() {
    let dirs = crate_dirs();
    let names: BTreeMap<String, PathBuf> = dirs.iter().map(|d| (package_of(d), d.clone())).collect();
    let direct: BTreeMap<String, BTreeSet<String>> =
        names.iter().map(|(name, dir)| (name.clone(), spindle_dependencies(dir))).collect();
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.to_string()];
        while let Some(name) = todo.pop() {
            for dep in direct.get(&name).into_iter().flatten() {
                if seen.insert(dep.clone()) {
                    todo.push(dep.clone());
                }
            }
        }
        seen
    };
    let said = forbidden_by_architecture();
    let mut wrong = Vec::new();
    for (name, dir) in &names {
        let short = dir.file_name().unwrap().to_str().unwrap();
        let Some(forbidden) = said.get(short) else {
            wrong.push(format!("{short}/ has no paragraph in docs/architecture.md"));
            continue;
        };
        let Some(forbidden) = forbidden else {
            wrong.push(format!("{short}/'s paragraph in docs/architecture.md says no \"May not import: ...\""));
            continue;
        };
        // "any other crate", "any crate but a, b", or the crates forbidden by name.
        let but = "any crate but ";
        let named: Vec<&str> = forbidden.iter().map(|f| f.strip_prefix(but).unwrap_or(f)).collect();
        let forbids = |dep: &str| {
            if forbidden.contains("any other crate") {
                true
            } else if forbidden.iter().any(|f| f.starts_with(but)) {
                !named.contains(&dep)
            } else {
                named.contains(&dep)
            }
        };
        for dep in reach(name) {
            if forbids(&dep) {
                wrong.push(format!(
                    "{name} reaches {dep} (through its [dependencies]), which docs/architecture.md forbids it"
                ));
            }
        }
        for crate_name in named.iter().filter(|n| **n != "any other crate" && !names.contains_key(**n)) {
            wrong.push(format!("{short}/'s paragraph names {crate_name}, which is no crate of this workspace"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The Rust source files of the crates' code: tests/ folders, benches and build scripts aside.
fn sources() -> Vec<PathBuf> {
    fn walk(dir: &Path, into: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap();
            if path.is_dir() {
                if !matches!(name, "tests" | "benches" | "target" | "testdata") {
                    walk(&path, into);
                }
            } else if name.ends_with(".rs") {
                into.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for dir in crate_dirs() {
        let src = if dir.ends_with("cli") { dir.clone() } else { dir.join("src") };
        if src.is_dir() {
            walk(&src, &mut files);
        }
    }
    files.sort();
    files
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        (a.path().is_ident("cfg") && a.parse_args::<syn::Meta>().is_ok_and(|m| m.path().is_ident("test")))
            || a.path().is_ident("test")
    })
}

/// A file's functions and the lines its test-only items take, from syn's spans.
#[derive(Default)]
struct Shape {
    /// (name, first line, lines) of every function outside test-only code.
    functions: Vec<(String, usize, usize)>,
    /// Line ranges (1-based, inclusive) of `#[cfg(test)]` items.
    test_lines: Vec<(usize, usize)>,
}

impl<'ast> syn::visit::Visit<'ast> for Shape {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            _ => {
                syn::visit::visit_item(self, item);
                return;
            }
        };
        if is_test_only(attrs) {
            let span = syn::spanned::Spanned::span(item);
            self.test_lines.push((span.start().line, span.end().line));
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.function(&f.sig, &f.block);
        syn::visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if is_test_only(&f.attrs) {
            return;
        }
        self.function(&f.sig, &f.block);
        syn::visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.function(&f.sig, block);
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
}

impl Shape {
    fn function(&mut self, sig: &syn::Signature, block: &syn::Block) {
        let first = syn::spanned::Spanned::span(&sig.fn_token).start().line;
        let last = block.brace_token.span.close().end().line;
        self.functions.push((sig.ident.to_string(), first, last + 1 - first));
    }

    fn of(path: &Path) -> (Shape, String) {
        let text = std::fs::read_to_string(path).unwrap();
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut shape = Shape::default();
        syn::visit::Visit::visit_file(&mut shape, &file);
        (shape, text)
    }

    /// Lines of code outside test-only items: not blank, not only a comment.
    fn code_lines(&self, text: &str) -> usize {
        text.lines()
            .enumerate()
            .filter(|(i, _)| !self.test_lines.iter().any(|&(a, b)| (a..=b).contains(&(i + 1))))
            .filter(|(_, l)| {
                let l = l.trim();
                !l.is_empty() && !l.starts_with("//")
            })
            .count()
    }
}

/// A file the crate compiles only for its tests (`#[cfg(test)] mod x;` names it).
fn test_only_files(files: &[PathBuf]) -> BTreeSet<PathBuf> {
    let mut only = BTreeSet::new();
    for path in files {
        let text = std::fs::read_to_string(path).unwrap();
        let file = syn::parse_file(&text).unwrap();
        for item in &file.items {
            if let syn::Item::Mod(m) = item
                && m.content.is_none()
                && is_test_only(&m.attrs)
            {
                let dir = if path.file_name().is_some_and(|n| n == "lib.rs" || n == "mod.rs" || n == "main.rs") {
                    path.parent().unwrap().to_path_buf()
                } else {
                    path.with_extension("")
                };
                only.insert(dir.join(format!("{}.rs", m.ident)));
                only.insert(dir.join(m.ident.to_string()).join("mod.rs"));
            }
        }
    }
    only
}

/// Every source file the crates compile outside their tests, parsed once for all the tests here.
fn parsed() -> &'static [(PathBuf, Shape, String)] {
    static PARSED: std::sync::OnceLock<Vec<(PathBuf, Shape, String)>> = std::sync::OnceLock::new();
    PARSED.get_or_init(|| {
        let files = sources();
        let test_only = test_only_files(&files);
        files
            .into_iter()
            .filter(|p| !test_only.contains(p))
            .map(|path| {
                let (shape, text) = Shape::of(&path);
                (path, shape, text)
            })
            .collect()
    })
}

#[test]
fn no_function_is_longer_than_a_hundred_lines() {
    let mut long = Vec::new();
    for (path, shape, _) in parsed() {
        for &(ref name, line, lines) in &shape.functions {
            if lines > LONGEST_FUNCTION {
                let shown = path.strip_prefix(root()).unwrap().display();
                long.push(format!("{shown}:{line} {name}: {lines} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {LONGEST_FUNCTION} lines (split them at their seams):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_command_line_is_a_thin_layer_over_the_libraries() {
    let (mut cli, mut all) = (0, 0);
    for (path, shape, text) in parsed() {
        let lines = shape.code_lines(text);
        all += lines;
        if path.starts_with(root().join("crates/cli")) {
            cli += lines;
        }
    }
    println!("crates/cli: {cli} of {all} lines of code ({:.1}%)", 100.0 * cli as f64 / all as f64);
    assert!(
        cli * 100 <= all * CLI_SHARE_PERCENT,
        "crates/cli holds {cli} of {all} lines of code ({:.1}%), more than {CLI_SHARE_PERCENT}%: the command line parses flags and prints, the work belongs in the libraries",
        100.0 * cli as f64 / all as f64
    );
}
