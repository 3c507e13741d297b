#!/usr/bin/python3
"""The fault suite: chainsaw's command line under bad input and failing I/O (docs/cli.md
"Refusals", docs/checkpoints.md "When a write fails").

Every case runs the binary in a private folder of its own:
  refusals       scripted bad inputs: each must exit non-zero with exactly one line on stderr
                 and leave the folder as it was (no file created, none replaced or changed)
  special files  a character device (mknod, as root; skipped with a message otherwise), a FIFO,
                 /dev/full and stdout: written in place, never replaced; a full target fails
                 naming "No space left on device"
  full disk      a small tmpfs filled up (needs mount privileges; skipped with a message
                 otherwise); /dev/full and the injected ENOSPC below always run
  injected       CHAINSAW_FAIL_WRITE=N (io/results/write_faults.hpp) for every N of a small run
                 with checkpoints, of each checkpoint layout: the run fails in one line naming
                 the cause, leaves no temporary file and no result file, and its last good
                 checkpoint resumes to the uninterrupted run's bits, and the result file it would
                 have replaced keeps its old bytes; the same for instance export over an
                 existing file
  locks          a second run on the checkpoint of a live one is refused; the lock goes with
                 the first run, SIGKILL included
  signals        two SIGINTs in a row: a message, exit 130, no temporary file
Prints the counts (cases tried, passed, skipped) and exits 1 if any case failed.
  usage: fault_suite.py CHAINSAW_BINARY [--keep]       exit 77 (skipped) without the binary"""
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import refusal_cases  # noqa: E402  (the scripted bad inputs, one line each)

SMALL = ["--dim", "20", "--evals", "3000", "--seed", "3", "-q"]


class Suite:
    def __init__(self, binary, root):
        self.binary = binary
        self.root = root
        self.tried = self.passed = self.skipped = 0
        self.failures = []
        self.serial = 0

    def folder(self):
        self.serial += 1
        path = os.path.join(self.root, "case%04d" % self.serial)
        os.mkdir(path)
        return path

    def run(self, args, cwd, env=None, stdout=subprocess.PIPE, timeout=120):
        full_env = dict(os.environ)
        full_env.update(env or {})
        full_env.setdefault("OMP_NUM_THREADS", "1")
        return subprocess.run([self.binary] + args, cwd=cwd, env=full_env, stdout=stdout,
                              stderr=subprocess.PIPE, timeout=timeout, text=True)

    def check(self, name, ok, detail=""):
        self.tried += 1
        if ok:
            self.passed += 1
        else:
            self.failures.append("%s: %s" % (name, detail))
            print("FAIL %s: %s" % (name, detail), flush=True)

    def skip(self, name, why):
        self.skipped += 1
        print("skip %s: %s" % (name, why), flush=True)


def snapshot(folder):
    """Every entry of the folder with what identifies its content."""
    out = {}
    for name in os.listdir(folder):
        st = os.lstat(os.path.join(folder, name))
        out[name] = (stat.S_IFMT(st.st_mode), st.st_ino, st.st_size, st.st_mtime_ns)
    return out


def one_line(err):
    lines = [line for line in err.split("\n") if line != ""]
    return len(lines) == 1 and err.endswith("\n") and err.count("\n") == 1


def refusal(suite, name, args, setup=None, expect=None):
    folder = suite.folder()
    if setup:
        setup(folder)
    before = snapshot(folder)
    r = suite.run(args, folder)
    after = snapshot(folder)
    problems = []
    if r.returncode == 0:
        problems.append("exit 0")
    if r.returncode < 0 or r.returncode > 127:
        problems.append("killed (%d)" % r.returncode)
    if not one_line(r.stderr):
        problems.append("stderr is not one line: %r" % r.stderr[:400])
    if expect and expect not in r.stderr:
        problems.append("stderr lacks %r: %r" % (expect, r.stderr[:300]))
    if before != after:
        problems.append("folder changed: %s -> %s" % (sorted(before), sorted(after)))
    suite.check("refusal " + name, not problems, "; ".join(problems))


def run_refusals(suite):
    for name, args, setup, expect in refusal_cases.cases():
        refusal(suite, name, args, setup, expect)


# ---------------------------------------------------------------------------------------------
# Special files, stdout, a full file system

def is_char_device(path):
    return stat.S_ISCHR(os.lstat(path).st_mode)


def run_special_files(suite):
    base = ["run", "--function", "sphere"] + SMALL
    if os.geteuid() != 0:
        suite.skip("mknod", "not root: the character-device cases need mknod (CI runs as root)")
    else:
        folder = suite.folder()
        null, full = os.path.join(folder, "null"), os.path.join(folder, "full")
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
        r = suite.run(base + ["-o", "null"], folder)
        suite.check("-o onto a character device", r.returncode == 0 and is_char_device(null),
                    "exit %d, %r" % (r.returncode, r.stderr))
        r = suite.run(base + ["-o", "full"], folder)
        suite.check("-o onto a full character device",
                    r.returncode != 0 and one_line(r.stderr) and
                    "No space left on device" in r.stderr and is_char_device(full),
                    "exit %d, %r" % (r.returncode, r.stderr))
        for target in ("null", "full"):
            r = suite.run(base + ["--checkpoint", target], folder)
            suite.check("--checkpoint onto a character device (%s)" % target,
                        r.returncode != 0 and one_line(r.stderr) and is_char_device(
                            os.path.join(folder, target)) and
                        "not a regular file" in r.stderr, "exit %d, %r" % (r.returncode, r.stderr))
        for target in ("null", "full"):
            r = suite.run(["instance", "export", "--function", "cec2010-f4", "--dim", "1000",
                           "-o", target], folder)
            want_ok = target == "null"
            suite.check("instance export onto a character device (%s)" % target,
                        (r.returncode == 0) == want_ok and is_char_device(
                            os.path.join(folder, target)) and
                        (want_ok or "No space left on device" in r.stderr),
                        "exit %d, %r" % (r.returncode, r.stderr))
        extra = set(os.listdir(folder)) - {"null", "full"}
        suite.check("no file left beside the devices", not extra, str(sorted(extra)))

    # A FIFO: written in place while a reader reads it.
    folder = suite.folder()
    fifo = os.path.join(folder, "pipe")
    os.mkfifo(fifo)
    for label, args in (("result", base + ["-o", "pipe"]),
                        ("instance", ["instance", "export", "--function", "cec2010-f4", "--dim",
                                      "1000", "-o", "pipe"])):
        reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE)
        r = suite.run(args, folder)
        got = reader.communicate(timeout=60)[0]
        suite.check("%s into a FIFO" % label,
                    r.returncode == 0 and stat.S_ISFIFO(os.lstat(fifo).st_mode) and len(got) > 0
                    and os.listdir(folder) == ["pipe"],
                    "exit %d, %d bytes, %r" % (r.returncode, len(got), r.stderr))
    r = suite.run(base + ["--checkpoint", "pipe"], folder)
    suite.check("--checkpoint onto a FIFO", r.returncode != 0 and one_line(r.stderr),
                "exit %d, %r" % (r.returncode, r.stderr))

    # stdout onto /dev/full, and - as stdout.
    for label, args in (("functions", ["functions"]), ("run", base), ("run -o -", base + ["-o", "-"]),
                        ("--version", ["--version"]), ("run --help", ["run", "--help"])):
        folder = suite.folder()
        with open("/dev/full", "w") as devfull:
            r = suite.run(args, folder, stdout=devfull)
        suite.check("%s > /dev/full" % label,
                    r.returncode != 0 and one_line(r.stderr) and
                    "No space left on device" in r.stderr and os.listdir(folder) == [],
                    "exit %d, %r" % (r.returncode, r.stderr))
    folder = suite.folder()
    r = suite.run(base + ["-o", "-"], folder)
    suite.check("-o - writes the JSON to stdout",
                r.returncode == 0 and json.loads(r.stdout)["evaluations"]["total"] == 3000,
                "exit %d, %r" % (r.returncode, r.stderr))
    r = suite.run(base + ["-o", "/dev/full"], folder)
    suite.check("-o /dev/full", r.returncode != 0 and one_line(r.stderr) and
                "No space left on device" in r.stderr and is_char_device("/dev/full"),
                "exit %d, %r" % (r.returncode, r.stderr))
    run_full_tmpfs(suite, base)


def run_full_tmpfs(suite, base):
    folder = suite.folder()
    mount = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", folder],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if mount.returncode != 0:
        suite.skip("full tmpfs", "cannot mount a tmpfs here (%s); /dev/full and the injected "
                   "ENOSPC cases cover a full disk" % mount.stderr.strip())
        return
    try:
        with open(os.path.join(folder, "old.json"), "w") as f:
            f.write("the previous result\n")
        with open(os.path.join(folder, "filler"), "wb", buffering=0) as f:
            try:
                while True:
                    f.write(b"x" * 4096)
            except OSError:
                pass
        r = suite.run(["run", "--function", "sphere", "--dim", "2000", "--evals", "400", "-q",
                       "--checkpoint", "c.h5", "-o", "old.json"], folder)
        names = set(os.listdir(folder))
        with open(os.path.join(folder, "old.json")) as f:
            kept = f.read() == "the previous result\n"
        suite.check("a run on a full tmpfs",
                    r.returncode != 0 and one_line(r.stderr) and kept and
                    "No space left on device" in r.stderr and names <= {"filler", "old.json"},
                    "exit %d, %r, %s" % (r.returncode, r.stderr, sorted(names)))
    finally:
        subprocess.run(["umount", folder])


# ---------------------------------------------------------------------------------------------
# Injected write failures: every write point of a small run

DETERMINISTIC = ("best_fitness", "distance_to_optimum", "evaluations")


def result_bits(path):
    with open(path) as f:
        j = json.load(f)
    return {k: j.get(k) for k in DETERMINISTIC}


def leftovers(folder):
    return [n for n in os.listdir(folder) if ".tmp." in n]


def run_injected(suite, label, args, max_points=2000):
    ref = suite.folder()
    r = suite.run(args + ["--checkpoint", "c.h5", "-o", "r.json"], ref)
    if r.returncode != 0:
        suite.check("injected %s: the reference run" % label, False, r.stderr)
        return
    reference = result_bits(os.path.join(ref, "r.json"))
    points = 0
    sentinel = "the previous result\n"
    for n in range(1, max_points + 1):
        folder = suite.folder()
        with open(os.path.join(folder, "r.json"), "w") as f:
            f.write(sentinel)
        r = suite.run(args + ["--checkpoint", "c.h5", "-o", "r.json"], folder,
                      env={"CHAINSAW_FAIL_WRITE": str(n)})
        if r.returncode == 0:
            # N beyond the run's write points: nothing failed, and nothing may differ.
            suite.check("injected %s: beyond the last write point" % label,
                        result_bits(os.path.join(folder, "r.json")) == reference, r.stderr)
            shutil.rmtree(folder)
            break
        points = n
        problems = []
        if not one_line(r.stderr) or "No space left on device" not in r.stderr:
            problems.append("stderr %r" % r.stderr[:400])
        if leftovers(folder):
            problems.append("temporary files left: %s" % leftovers(folder))
        with open(os.path.join(folder, "r.json")) as f:
            if f.read() != sentinel:
                problems.append("the previous result file was replaced by a failed run")
        if os.path.exists(os.path.join(folder, "c.h5")):
            resumed = suite.run(["resume", "c.h5", "-q", "-o", "r2.json"], folder)
            if resumed.returncode != 0:
                problems.append("the last good checkpoint does not resume: %r" % resumed.stderr)
            elif result_bits(os.path.join(folder, "r2.json")) != reference:
                problems.append("resumed to other bits: %s vs %s" % (
                    result_bits(os.path.join(folder, "r2.json")), reference))
        suite.check("injected %s: write point %d" % (label, n), not problems, "; ".join(problems))
        if not problems:
            shutil.rmtree(folder)
    suite.check("injected %s: the run has write points" % label, points > 3, str(points))
    print("injected %s: %d write points" % (label, points), flush=True)


def run_injected_export(suite, target):
    """instance export over an existing file: a failure keeps the old bytes."""
    args = ["instance", "export", "--function", "cec2010-f4", "--dim", "1000", "-o", target]
    points = 0
    for n in range(1, 500):
        folder = suite.folder()
        old = os.path.join(folder, target)
        with open(old, "wb") as f:
            f.write(b"the previous file\n")
        r = suite.run(args, folder, env={"CHAINSAW_FAIL_WRITE": str(n)})
        if r.returncode == 0:
            shutil.rmtree(folder)
            break
        points = n
        with open(old, "rb") as f:
            kept = f.read() == b"the previous file\n"
        ok = kept and one_line(r.stderr) and "No space left on device" in r.stderr and \
            not leftovers(folder)
        suite.check("injected export %s: write point %d" % (target, n), ok,
                    "kept=%s %r %s" % (kept, r.stderr, leftovers(folder)))
        if ok:
            shutil.rmtree(folder)
    suite.check("injected export %s: has write points" % target, points >= 3, str(points))


# ---------------------------------------------------------------------------------------------
# Locks and signals

def wait_for(predicate, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def start_long_run(suite, folder, extra=()):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.Popen([suite.binary, "run", "--function", "sphere", "--dim", "200",
                             "--evals", "100000000", "-q", "--checkpoint", "c.h5",
                             "--checkpoint-every", "2000"] + list(extra),
                            cwd=folder, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)


def run_locks(suite):
    folder = suite.folder()
    lock = os.path.join(folder, ".c.h5.lock")
    first = start_long_run(suite, folder)
    try:
        held = wait_for(lambda: os.path.exists(os.path.join(folder, "c.h5")), 60)
        r = suite.run(["run", "--function", "sphere"] + SMALL + ["--checkpoint", "c.h5"], folder)
        suite.check("a second run on a live run's checkpoint",
                    held and r.returncode != 0 and one_line(r.stderr) and
                    "another running chainsaw" in r.stderr, "%r" % r.stderr)
        r = suite.run(["resume", "c.h5", "-q"], folder)
        suite.check("a resume of a live run's checkpoint", r.returncode != 0 and one_line(
            r.stderr) and "another running chainsaw" in r.stderr, "%r" % r.stderr)
    finally:
        first.kill()
        first.wait()
    r = suite.run(["run", "--function", "sphere"] + SMALL + ["--checkpoint", "c.h5"], folder)
    suite.check("the lock goes with a SIGKILLed run", r.returncode == 0, r.stderr)
    suite.check("a clean end removes the lock file", not os.path.exists(lock),
                str(os.listdir(folder)))


def run_signals(suite):
    for algorithm in ("ma-sw-chains", "de"):
        folder = suite.folder()
        run = start_long_run(suite, folder, ["--algorithm", algorithm, "--checkpoint-every",
                                             "200"])
        wait_for(lambda: os.path.exists(os.path.join(folder, "c.h5")), 60)
        # Two signals in a row, the second while the first's checkpoint is being written.
        run.send_signal(signal.SIGINT)
        run.send_signal(signal.SIGINT)
        err = run.communicate(timeout=60)[1]
        # The two may reach the process as one (signals do not queue): then it stops at its
        # next safe point, as after one; either way a message, exit 130, no temporary file.
        suite.check("two SIGINTs (%s)" % algorithm,
                    run.returncode == 130 and "chainsaw:" in err and not leftovers(folder),
                    "exit %s, %r, %s" % (run.returncode, err, os.listdir(folder)))
        r = suite.run(["inspect", "c.h5"], folder)
        suite.check("two SIGINTs keep a good checkpoint (%s)" % algorithm, r.returncode == 0,
                    r.stderr)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    keep = "--keep" in sys.argv
    if not args or not os.access(args[0], os.X_OK):
        print("fault_suite: no chainsaw binary given; skipped")
        return 77
    root = tempfile.mkdtemp(prefix="chainsaw-faults-")
    suite = Suite(os.path.abspath(args[0]), root)
    start = time.time()
    devices = {d: os.stat(d).st_ino for d in ("/dev/null", "/dev/full")}
    try:
        run_refusals(suite)
        run_special_files(suite)
        run_locks(suite)
        run_signals(suite)
        run_injected(suite, "ma-sw-chains", ["run", "--function", "rastrigin", "--dim", "20",
                                             "--population", "8", "--batch", "2",
                                             "--nam-candidates", "3",
                                             "--evals", "3000", "--seed", "5", "-q",
                                             "--checkpoint-every", "1000"])
        run_injected(suite, "de", ["run", "--algorithm", "de", "--function", "cec2010-f4",
                                   "--dim", "100", "--evals", "2000", "--seed", "5", "-q",
                                   "--checkpoint-every", "1000"])
        run_injected_export(suite, "inst.txt")
        run_injected_export(suite, "inst.h5")
        for device, inode in devices.items():
            suite.check("%s is still the device it was" % device,
                        is_char_device(device) and os.stat(device).st_ino == inode,
                        "replaced while the suite ran")
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    print("fault suite: %d cases tried, %d passed, %d failed, %d skipped, in %.0f s" %
          (suite.tried, suite.passed, len(suite.failures), suite.skipped, time.time() - start))
    for f in suite.failures:
        print("  failed: " + f)
    return 1 if suite.failures else 0


if __name__ == "__main__":
    sys.exit(main())
