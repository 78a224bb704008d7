# Sourced by the cloud-volume benches (not run alone): an ext4 loop device, direct I/O to its
# backing file in a scratch directory, and a cgroup v1 blkio group that throttles it; all of it
# removed on exit. After `throttled_volume NAME IOPS`: $work (scratch), $mnt (the filesystem),
# $group (join it: `in_group CMD...`), and `throttle IOPS` to change the cap of reads and writes
# a second while processes in the group run.
throttled_volume() { # name iops
    work=$(mktemp -d)
    mnt=$work/mnt
    dev=""
    group=/sys/fs/cgroup/blkio/spindle-$1-$$
    trap throttled_volume_cleanup EXIT
    truncate -s 1100M "$work/disk.img"
    dev=$(losetup --find --show --direct-io=on "$work/disk.img")
    mkfs.ext4 -q "$dev"
    mkdir -p "$mnt"
    mount "$dev" "$mnt"
    mkdir "$group"
    numbers=$(cat "/sys/block/${dev#/dev/}/dev")
    throttle "$2"
}

throttled_volume_cleanup() {
    mountpoint -q "$mnt" && umount "$mnt"
    [ -z "$dev" ] || losetup -d "$dev"
    rmdir "$group" 2>/dev/null || true
    rm -rf "$work"
}

throttle() { # iops
    echo "$numbers $1" >"$group/blkio.throttle.read_iops_device"
    echo "$numbers $1" >"$group/blkio.throttle.write_iops_device"
}

# CMD... run inside the throttled group: a shell joins it, then becomes CMD.
in_group() {
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$group" "$@"
}
