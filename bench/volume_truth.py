"""What block devices did over spans of time, from two sources independent of spindle: their
/proc/diskstats read every 5 ms, and the block layer's own trace of every request completed
(the block_rq_complete tracepoint, through a tracefs instance of its own), which tells the
writes that carried data from the writes of no bytes a kernel of the 6 series counts for a
flush. Used by largeops-volumes.sh and placement-volumes.sh; needs root. Not a test.
"""

import os
import shutil
import threading
import time

TRACEFS = "/sys/kernel/tracing"


class Watch:
    """Samples /proc/diskstats and traces every request completed on `devices` (kernel names)
    from `start()` to `stop()`; `window(t0, t1)` then says what each did between two
    time.monotonic() readings."""

    def __init__(self, devices):
        self.devices = list(devices)
        self.samples = []
        self.events = []  # (monotonic seconds, device, is a write, sectors, is a flush)
        self._stop = threading.Event()
        self._mounted = False
        self.instance = None

    def start(self):
        if not os.path.isdir(os.path.join(TRACEFS, "instances")):
            if os.system(f"mount -t tracefs nodev {TRACEFS}") != 0:
                raise SystemExit("volume_truth: tracefs is not mounted and cannot be")
            self._mounted = True
        self.instance = os.path.join(TRACEFS, "instances", f"spindle-bench-{os.getpid()}")
        os.mkdir(self.instance)
        numbers = {}
        for d in self.devices:
            major, minor = open(f"/sys/block/{d}/dev").read().split(":")
            numbers[d] = (int(major) << 20) | int(minor)
        self._names = {f"{n >> 20},{n & 0xFFFFF}": d for d, n in numbers.items()}
        self._write("trace_clock", "mono")
        self._write("buffer_size_kb", "65536")
        event = "events/block/block_rq_complete"
        self._write(f"{event}/filter", " || ".join(f"dev == {n}" for n in numbers.values()))
        self._write(f"{event}/enable", "1")
        self._sampler = threading.Thread(target=self._sample)
        self._sampler.start()

    def stop(self):
        time.sleep(0.05)
        self._stop.set()
        self._write("events/block/block_rq_complete/enable", "0")
        self._sampler.join()
        # The whole run is in the ring buffer (read at the end, so reading it costs the run
        # nothing); an event that did not fit would be an overrun, and the figures void.
        lost = 0
        for cpu in os.listdir(os.path.join(self.instance, "per_cpu")):
            for line in open(os.path.join(self.instance, "per_cpu", cpu, "stats")):
                if line.startswith("overrun:"):
                    lost += int(line.split()[1])
        with open(os.path.join(self.instance, "trace")) as f:
            self._parse(f)
        os.rmdir(self.instance)
        if self._mounted:
            os.system(f"umount {TRACEFS}")
        if lost:
            raise SystemExit(f"volume_truth: the trace lost {lost} events; the figures are void")

    def _write(self, rel, text):
        with open(os.path.join(self.instance, rel), "w") as f:
            f.write(text)

    def _diskstats(self):
        out = {}
        with open("/proc/diskstats") as f:
            for line in f:
                p = line.split()
                if p[2] in self.devices:
                    # reads, sectors read, writes, sectors written, flushes
                    out[p[2]] = (int(p[3]), int(p[5]), int(p[7]), int(p[9]), int(p[18]) if len(p) > 18 else 0)
        return out

    def _sample(self):
        while not self._stop.is_set():
            self.samples.append((time.monotonic(), self._diskstats()))
            time.sleep(0.005)
        self.samples.append((time.monotonic(), self._diskstats()))

    def _parse(self, lines):
        for line in lines:
            if "block_rq_complete:" not in line:
                continue
            head, rest = line.split("block_rq_complete:")
            stamp = float(head.split()[-1].rstrip(":"))
            words = rest.split()
            device, rwbs = self._names.get(words[0]), words[1]
            if device is None:
                continue
            # A request that went through a flush sequence completes twice: with its sectors,
            # then with none when the sequence ends; only the first carries data.
            sectors = int(words[words.index("+") + 1]) if "+" in words else 0
            self.events.append((stamp, device, "W" in rwbs, sectors, rwbs.startswith("F")))

    def window(self, t0, t1):
        """Per device over [t0, t1]: the counters' deltas (reads, bytes read, writes, bytes
        written, flushes) and the trace's writes that carried data and their bytes."""
        before = [s for s in self.samples if s[0] <= t0][-1][1]
        after = next(s for s in self.samples if s[0] >= t1)[1]
        out = {}
        for d in self.devices:
            reads, sectors_read, writes, sectors_written, flushes = (a - b for a, b in zip(after[d], before[d]))
            data = [e for e in self.events if e[1] == d and t0 <= e[0] <= t1 and e[2] and e[3] > 0]
            out[d] = {
                "reads": reads,
                "bytes_read": sectors_read * 512,
                "writes": writes,
                "bytes_written": sectors_written * 512,
                "flushes": flushes,
                "data_writes": len(data),
                "data_bytes": sum(e[3] for e in data) * 512,
            }
        return out


def need_root(script):
    if os.geteuid() != 0:
        raise SystemExit(f"{script}: needs root (losetup, mount, the block layer's trace)")
    if shutil.which("losetup") is None:
        raise SystemExit(f"{script}: needs losetup")
