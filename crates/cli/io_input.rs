//! What `spindle io`'s flags (and the commands that take the same flags) ask the planner for.

use crate::args::IoArgs;
use spindle_plan::PlanInput;
use spindle_plan::origin::Setting;

impl From<&IoArgs> for PlanInput {
    fn from(a: &IoArgs) -> PlanInput {
        let mut input = PlanInput {
            targets: a.targets.clone(),
            spec: a.spec.clone(),
            profile: Setting::flag("--profile", &a.profile),
            settings: Vec::new(),
            sweep: a.sweep.clone(),
            repeat: a.repeat.clone(),
            keep_file: a.keep_file,
            force: a.force,
            allow_destroy: a.allow_destroy,
            verify: a.verify,
            expect: a.expect.clone(),
        };
        for (key, flag, value) in [
            ("size", "--size", &a.size),
            ("block", "--block", &a.block),
            ("mix", "--mix", &a.mix),
            ("read", "--read", &a.read),
            ("random", "--random", &a.random),
            ("threads", "--threads", &a.threads),
            ("depth", "--depth", &a.depth),
            ("rate", "--rate", &a.rate),
            ("fsync_every", "--fsync-every", &a.fsync_every),
            ("engine", "--engine", &a.engine),
            ("duration", "--duration", &a.timing.duration),
            ("warmup", "--warmup", &a.timing.warmup),
        ] {
            input.set(key, Setting::flag(flag, value));
        }
        input.set("buffered", Setting::switch("--buffered", a.buffered));
        input.set("write_through", Setting::switch("--write-through", a.write_through));
        input
    }
}
