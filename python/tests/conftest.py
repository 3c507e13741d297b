"""Shared helpers of the Python module's tests (run by CTest as python.pytest, which sets
PYTHONPATH to the build's python/ folder and CHAINSAW_BINARY to the command line)."""
import json
import os
import subprocess

import pytest

# The result file's fields that hold wall-clock time: everything else must match bit for bit.
WALL_CLOCK = ("wall_seconds", "setup_seconds", "other_seconds")


def timeless(result):
    """A result JSON (text or dict) without its wall-clock fields."""
    d = json.loads(result) if isinstance(result, str) else json.loads(json.dumps(result))
    for key in WALL_CLOCK:
        d.pop(key, None)
    for phase in d["phases"].values():
        phase.pop("seconds")
        phase.pop("share")
    d["trace"] = [[evaluations, best] for evaluations, _seconds, best in d["trace"]]
    if d.get("profile") is not None:
        d["profile"] = sorted(d["profile"].keys())
    return d


@pytest.fixture(scope="session")
def cli():
    """Runs the chainsaw command line; returns its CompletedProcess."""
    binary = os.environ.get("CHAINSAW_BINARY")
    if not binary:
        here = os.path.dirname(os.path.abspath(__file__))
        binary = os.path.join(here, "..", "..", "build", "chainsaw")
    if not os.path.exists(binary):
        pytest.skip("no chainsaw binary (set CHAINSAW_BINARY)")

    def run(*args, check=True):
        p = subprocess.run([binary, *map(str, args)], capture_output=True, text=True)
        if check and p.returncode != 0:
            raise AssertionError(f"chainsaw {' '.join(map(str, args))}: {p.stderr}")
        return p
    return run
