//! Entry points for the fuzz targets (fuzz/fuzz_targets/spec_file.rs, mix.rs): the parsers
//! this crate holds, fed from memory and planned against a described machine, so a fuzz run
//! reads no file, probes no device and plans the same everywhere. Each returns the refusal's
//! words; the targets check that a refusal names what was refused.

use crate::machine::Described;
use crate::origin::Setting;
use crate::plan::{PlanInput, SpecFile, plan_with_file};
use std::path::{Path, PathBuf};

/// The name the fuzzed workload file goes by: every refusal of its contents must name it.
pub const SPEC_NAME: &str = "fuzz.toml";

/// Plans `text` as `spindle io --spec fuzz.toml` would.
pub fn plan_spec(text: &str) -> Result<(), String> {
    let file = SpecFile::parse(Path::new(SPEC_NAME), text).map_err(|e| e.to_string())?;
    plan(&PlanInput::default(), Some(file))
}

/// Plans `spindle io --target fuzz.dat --mix TEXT`.
pub fn plan_mix(text: &str) -> Result<(), String> {
    let mut input = flag_input();
    input.set("mix", Setting::flag("--mix", &Some(text.to_string())));
    plan(&input, None)
}

/// Plans `spindle io --target fuzz.dat --sweep TEXT`.
pub fn plan_sweep(text: &str) -> Result<(), String> {
    plan(&PlanInput { sweep: Some(text.to_string()), ..flag_input() }, None)
}

fn flag_input() -> PlanInput {
    PlanInput { targets: vec![PathBuf::from("fuzz.dat")], ..PlanInput::default() }
}

/// Plans on the described machine; the refusal's words, if any.
fn plan(input: &PlanInput, file: Option<SpecFile>) -> Result<(), String> {
    plan_with_file(input, file, &Described { uring: true }).map(drop).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_examples_plan_and_refusals_name_what_was_refused() {
        let example = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/specs/data-and-log.toml"));
        assert_eq!(plan_spec(example), Ok(()));
        let refused = plan_spec("[[target]]\npath = \"d.dat\"\nread = 120\n").unwrap_err();
        assert!(refused.contains(SPEC_NAME) && refused.contains("line 3"), "{refused}");
        assert_eq!(plan_mix("8K:50,64K:50"), Ok(()));
        assert!(plan_mix("8K:").unwrap_err().contains("--mix"));
        assert_eq!(plan_sweep("depth=1,4"), Ok(()));
        assert!(plan_sweep("depth=").unwrap_err().contains("--sweep"));
    }

    /// Found by the spec_file target: refusals of what a file's targets add up to (buffer
    /// memory, one file listed twice) named no file, though the values to change were in it.
    #[test]
    fn refusals_of_what_the_targets_add_up_to_name_the_file() {
        for (body, why) in [
            ("[[target]]\npath = \"a.dat\"\nblock = \"8M\"\nthreads = 4\ndepth = 155\n", "I/O buffers"),
            ("[[target]]\npath = \"a.dat\"\n[[target]]\npath = \"a.dat\"\n", "listed twice"),
        ] {
            let refused = plan_spec(body).unwrap_err();
            assert!(refused.contains(why) && refused.contains(SPEC_NAME), "{refused}");
        }
    }
}
