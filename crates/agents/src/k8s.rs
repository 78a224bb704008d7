//! `--launch k8s --emit`: the Kubernetes Indexed Job that runs a run's agents, printed for
//! `kubectl apply`. Each pod is one agent (its index is `JOB_COMPLETION_INDEX`), runs the
//! image `--image` names (the Containerfile at the checkout's root builds one) as a user that
//! is not root, writes its test files on a volume mounted at each target's directory (the
//! node's disk through an emptyDir, or `--volume-claim`'s PersistentVolumeClaim), takes the
//! store's URL and the database's password from a Secret, and is spread over the nodes.
//!
//! The YAML is written by hand, not through a YAML library: it is one fixed document whose
//! only free values (image, claim, paths) are written as JSON strings, which YAML reads as
//! the same strings; the tests check it against Kubernetes' schema.

use std::path::{Path, PathBuf};

/// What the pods need besides the run.
pub struct Pods<'a> {
    /// An image holding this spindle.
    pub image: &'a str,
    /// A PersistentVolumeClaim for the test files; an emptyDir when `None`.
    pub volume_claim: Option<&'a str>,
    /// The directories the test files go in (relative ones are under `WORKDIR`).
    pub dirs: &'a [PathBuf],
    /// The variables the database's clients read a password from (Hammer).
    pub passwords: &'a [&'static str],
}

/// The Secret holding the store's URL (key `url`) and any password (key: its variable).
const SECRET: &str = "spindle-store";
/// The pods' working directory: where a relative target is.
const WORKDIR: &str = "/spindle";
/// The Containerfile's user and group: the pods run as it, and volumes are made its own.
const USER: u32 = 10001;

/// The Job of `agents` pods for `run`. `backoffLimit: 0`: a pod that fails is not replaced,
/// since a replacement could not join a run already started.
pub fn job(run: i64, agents: u32, pods: &Pods) -> String {
    let mut y = header(pods);
    y.push_str(&format!(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: spindle-agents-{run}\n  labels:\n    {}\n\
         spec:\n  completionMode: Indexed\n  completions: {agents}\n  parallelism: {agents}\n  backoffLimit: 0\n  \
         template:\n    metadata:\n      labels:\n        {}\n    spec:\n      restartPolicy: Never\n",
        labels(run),
        labels(run).replace("\n    ", "\n        "),
    ));
    y.push_str(&format!(
        "      securityContext:\n        runAsNonRoot: true\n        runAsUser: {USER}\n        runAsGroup: {USER}\n        \
         fsGroup: {USER}\n"
    ));
    y.push_str(&spread(run));
    y.push_str(&format!(
        "      containers:\n      - name: agent\n        image: {}\n        workingDir: {WORKDIR}\n        \
         command: [\"spindle\", \"agent\", \"--run\", \"{run}\"]\n        securityContext:\n          \
         allowPrivilegeEscalation: false\n          capabilities:\n            drop: [\"ALL\"]\n",
        quoted(pods.image)
    ));
    y.push_str(&env(pods.passwords));
    y.push_str(&volumes(pods));
    y
}

/// How to make the Secret, and what the image must hold.
fn header(pods: &Pods) -> String {
    let passwords: String = pods.passwords.iter().map(|v| format!(" --from-literal={v}='...'")).collect();
    format!(
        "# The store's URL{} goes in a Secret first:\n\
         #   kubectl create secret generic {SECRET} --from-literal=url='postgres://...'{passwords}\n\
         # The image must hold spindle {} (every agent of a run is the same version); the\n\
         # Containerfile at spindle's checkout builds one.\n",
        if pods.passwords.is_empty() { "" } else { " and the database's password" },
        env!("CARGO_PKG_VERSION"),
    )
}

/// The labels of the Job and its pods: the spread counts the pods of this run.
fn labels(run: i64) -> String {
    format!("app.kubernetes.io/name: spindle-agent\n    spindle-run: \"{run}\"")
}

/// One agent a node while there are nodes to go round: `ScheduleAnyway`, so a cluster with
/// fewer (schedulable) nodes than agents still runs them all rather than leaving pods pending
/// while the coordinator waits.
fn spread(run: i64) -> String {
    format!(
        "      topologySpreadConstraints:\n      - maxSkew: 1\n        topologyKey: kubernetes.io/hostname\n        \
         whenUnsatisfiable: ScheduleAnyway\n        labelSelector:\n          matchLabels:\n            \
         spindle-run: \"{run}\"\n"
    )
}

/// The store's URL and the passwords, each from the Secret.
fn env(passwords: &[&'static str]) -> String {
    let from_secret = |name: &str, key: &str| {
        format!(
            "        - name: {name}\n          valueFrom:\n            secretKeyRef:\n              name: {SECRET}\n              \
             key: {key}\n"
        )
    };
    let mut text = String::from("        env:\n");
    text.push_str(&from_secret("SPINDLE_STORE", "url"));
    for var in passwords {
        text.push_str(&from_secret(var, var));
    }
    text
}

/// A volume at each target directory, mounted in the container.
fn volumes(pods: &Pods) -> String {
    if pods.dirs.is_empty() {
        return String::new();
    }
    let mut mounts = String::from("        volumeMounts:\n");
    let mut volumes = String::from("      volumes:\n");
    for (i, dir) in pods.dirs.iter().enumerate() {
        let name = format!("targets-{i}");
        mounts.push_str(&format!("        - name: {name}\n          mountPath: {}\n", quoted(&in_pod(dir))));
        let source = match pods.volume_claim {
            Some(claim) => format!("persistentVolumeClaim:\n          claimName: {}", quoted(claim)),
            None => "emptyDir: {}".to_string(),
        };
        volumes.push_str(&format!("      - name: {name}\n        {source}\n"));
    }
    mounts + &volumes
}

/// Where `dir` is in the pod: as given when absolute, else under the working directory.
fn in_pod(dir: &Path) -> String {
    let at = if dir.is_absolute() { dir.to_path_buf() } else { Path::new(WORKDIR).join(dir) };
    // `.` and `a/./b` as Kubernetes wants a mount path: no `.` parts.
    let clean: PathBuf = at.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect();
    clean.display().to_string()
}

/// `text` as a YAML string: JSON's double-quoted form, which YAML reads as the same string.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pods<'a>(dirs: &'a [PathBuf], claim: Option<&'a str>, passwords: &'a [&'static str]) -> Pods<'a> {
        Pods { image: "registry.example/spindle:1", volume_claim: claim, dirs, passwords }
    }

    #[test]
    fn the_job_is_indexed_runs_the_image_as_a_user_and_reads_the_url_from_a_secret() {
        let dirs = [PathBuf::from("/data")];
        let yaml = job(7, 4, &pods(&dirs, None, &[]));
        for line in [
            "completionMode: Indexed",
            "completions: 4",
            "parallelism: 4",
            "backoffLimit: 0",
            "image: \"registry.example/spindle:1\"",
            "command: [\"spindle\", \"agent\", \"--run\", \"7\"]",
            "runAsNonRoot: true",
            "secretKeyRef:",
            "topologyKey: kubernetes.io/hostname",
            "mountPath: \"/data\"",
            "emptyDir: {}",
        ] {
            assert!(yaml.contains(line), "{line} in:\n{yaml}");
        }
        assert!(!yaml.contains("PGPASSWORD"), "no password for an I/O job:\n{yaml}");
    }

    #[test]
    fn a_claim_is_mounted_at_every_directory_and_passwords_come_from_the_secret() {
        let dirs = [PathBuf::from("/data"), PathBuf::from("logs/./x")];
        let yaml = job(3, 2, &pods(&dirs, Some("fast-ssd"), &["PGPASSWORD"]));
        assert_eq!(yaml.matches("claimName: \"fast-ssd\"").count(), 2, "{yaml}");
        assert!(yaml.contains("mountPath: \"/spindle/logs/x\""), "relative, under the working directory:\n{yaml}");
        assert!(yaml.contains("- name: PGPASSWORD\n") && yaml.contains("key: PGPASSWORD\n"), "{yaml}");
        assert!(yaml.contains("--from-literal=PGPASSWORD='...'"), "the Secret's making says so:\n{yaml}");
    }

    #[test]
    fn the_pods_run_as_the_user_the_containerfile_makes() {
        let containerfile = include_str!("../../../Containerfile");
        assert!(containerfile.contains(&format!("useradd --uid {USER} ")), "{containerfile}");
        assert!(containerfile.contains(&format!("USER {USER}:{USER}")), "{containerfile}");
        assert!(containerfile.contains(&format!("WORKDIR {WORKDIR}\n")), "{containerfile}");
    }

    #[test]
    fn free_values_are_quoted_so_yaml_cannot_read_them_as_more() {
        assert_eq!(quoted("a: b\n- c"), "\"a: b\\n- c\"");
        assert_eq!(in_pod(Path::new(".")), "/spindle");
    }
}
