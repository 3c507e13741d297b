"""What the experiment scripts share: one `chainsaw run` per result file, skipped when the file
exists (so an interrupted grid resumes where it stopped), and the summary statistics of the
paper's appendix tables. Standard library only: the GPU machine has no extra Python packages."""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_BINARY = os.path.join(ROOT, "build", "chainsaw")


def run_once(binary, args, path, who):
    """The result JSON of `chainsaw run ARGS --output PATH`, run only when PATH does not exist
    yet (the CLI writes it whole or not at all). Returns (result, ran)."""
    ran = False
    if not os.path.exists(path):
        cmd = [binary, "run"] + [str(a) for a in args] + ["--output", path]
        done = subprocess.run(cmd)
        if done.returncode != 0:
            sys.exit(f"{who}: error: `{' '.join(cmd)}` failed (exit {done.returncode})")
        ran = True
    with open(path) as f:
        return json.load(f), ran


def summary(values):
    """Mean, standard deviation (sample, n - 1; 0 for one value) and median."""
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return statistics.mean(values), std, statistics.median(values)
