#!/usr/bin/env python3
"""ctest python.install: the README's Python install as the README shows it: a fresh virtual
environment from Debian's /usr/bin/python3, pip install without network, the import and the
one run whose output the README shows (checked exactly: the run is deterministic and its line
has no time).

The README's block is the ```sh block after `<!-- install-test -->`; the ```text block after it
is its output. Each line runs with bash in the source tree, as written but for the venv's
place: `.venv` is WORK_DIR/venv, made afresh every time, so that the test leaves a developer's
own .venv alone. The CMake build of the module goes to WORK_DIR/cmake (CHAINSAW_BUILD_DIR,
setup.py) and is kept between runs, so that a second run only rebuilds what changed.
  usage: python_install.py SOURCE_DIR WORK_DIR      exit 77 (skipped) without /usr/bin/python3"""
import os
import re
import shutil
import subprocess
import sys

MARKER = "<!-- install-test -->"
TIMEOUT_S = 2400


def fail(message):
    print(f"python_install: FAILED: {message}")
    sys.exit(1)


def readme_blocks(source):
    """The install block's command lines and the text block after it."""
    with open(os.path.join(source, "README.md"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    try:
        at = lines.index(MARKER)
    except ValueError:
        fail(f"README.md has no {MARKER} marker before the Python install block")
    blocks, i = [], at + 1
    while len(blocks) < 2 and i < len(lines):
        if lines[i].startswith("```"):
            end = lines.index("```", i + 1)
            blocks.append((lines[i][3:].strip(), lines[i + 1:end]))
            i = end
        i += 1
    if len(blocks) < 2 or blocks[0][0] != "sh" or blocks[1][0] != "text":
        fail(f"README.md: {MARKER} must be followed by a ```sh block and its ```text output")
    return [l for l in blocks[0][1] if l.strip()], blocks[1][1]


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    source, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not os.access("/usr/bin/python3", os.X_OK):
        print("python_install: skipped: no /usr/bin/python3 (the README's interpreter)")
        sys.exit(77)
    commands, expected = readme_blocks(source)
    venv = os.path.join(work, "venv")
    shutil.rmtree(venv, ignore_errors=True)  # a fresh one every time
    os.makedirs(work, exist_ok=True)
    commands = [re.sub(r"(?<![\w/.-])\.venv(?=[/\s]|$)", venv, c) for c in commands]
    env = dict(os.environ, CHAINSAW_BUILD_DIR=os.path.join(work, "cmake"), OMP_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    # The README's commands as written; the module is built for the CPU here (the README's run is
    # a CPU run), which keeps CUDA's compile, twenty minutes on two cores, out of CI's budget.
    env.setdefault("CHAINSAW_CMAKE_ARGS", "-DCHAINSAW_CUDA=OFF")
    env.pop("VIRTUAL_ENV", None)
    if shutil.which("ccache"):
        env.setdefault("CMAKE_CXX_COMPILER_LAUNCHER", "ccache")
        env.setdefault("CMAKE_C_COMPILER_LAUNCHER", "ccache")
    output = ""
    for command in commands:
        print(f"python_install: $ {command}", flush=True)
        try:  # pip builds the library once more, in WORK_DIR/cmake: minutes on 2 cores
            done = subprocess.run(["bash", "-c", command], cwd=source, env=env,
                                  capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            fail(f"`{command}` ran longer than {TIMEOUT_S} s (its build is kept: run again)")
        if done.returncode != 0:
            fail(f"`{command}` exited {done.returncode}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        output = done.stdout
    got = [l.strip() for l in output.splitlines() if l.strip()]
    want = [l.strip() for l in expected if l.strip()]
    if got != want:
        fail("the last command's output is not the README's:\n  README: " + "\n  README: ".join(want)
             + "\n  got:    " + "\n  got:    ".join(got))
    print(f"python_install: {len(commands)} commands of the README passed; the run's output is "
          "the README's")


if __name__ == "__main__":
    main()
