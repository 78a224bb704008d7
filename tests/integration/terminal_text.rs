//! Text from a user or a file reaches the terminal as text: escape sequences in an imported
//! target or a label (setting the window title, clearing the screen) are printed escaped by
//! every text view, never raw; JSON keeps them exactly (escaped as JSON does).

use crate::common::spindle_with_store;
use std::path::Path;

const TITLE: &str = "\u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}1m";

fn no_raw_controls(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let raw = text.chars().find(|c| c.is_control() && *c != '\n' && *c != '\t');
    assert!(raw.is_none(), "{what} prints {raw:?} raw: {text}");
}

#[test]
fn escape_sequences_in_imported_fields_and_labels_are_shown_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.db");
    let sqlio = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/formats/testdata/sqlio.random.read.8.8.G.txt");
    let hostile = dir.path().join("hostile.txt");
    let text = std::fs::read_to_string(sqlio).unwrap().replace("G:\\testfile.dat", &format!("G:\\{TITLE}t.dat"));
    std::fs::write(&hostile, text).unwrap();
    let run = |args: &[&str]| {
        let out = spindle_with_store(&store).current_dir(dir.path()).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        no_raw_controls(&format!("{args:?} (stderr)"), &out.stderr);
        out.stdout
    };
    let label = format!("note={TITLE}");
    for args in [
        vec!["import", hostile.to_str().unwrap()],
        vec!["io", "--engine", "null", "--size", "1M", "--duration", "100ms", "--warmup", "0s", "--target", "t.dat"],
    ] {
        let mut args = args;
        args.extend(["--label", &label]);
        no_raw_controls(&format!("{args:?}"), &run(&args));
    }
    let list = run(&["runs", "list"]);
    no_raw_controls("runs list", &list);
    assert!(String::from_utf8_lossy(&list).contains("\\x1b]0;owned\\x07"), "{}", String::from_utf8_lossy(&list));
    for id in ["1", "2"] {
        let show = run(&["runs", "show", id]);
        no_raw_controls("runs show", &show);
        assert!(String::from_utf8_lossy(&show).contains("\\x1b[2J"), "{}", String::from_utf8_lossy(&show));
    }
    let json: serde_json::Value = serde_json::from_slice(&run(&["runs", "show", "1", "--json"])).unwrap();
    assert!(json.to_string().contains("\\u001b]0;owned"), "JSON keeps the text exactly: {json}");
}
