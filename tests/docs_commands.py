#!/usr/bin/env python3
"""ctest of the documentation: the `chainsaw` commands of README.md and docs/*.md run with the
built binary, so that a documented command that breaks fails the suite.

A fenced ```sh block is run when the line before it is a marker
    <!-- docs-test [exit=N] [dim=N] [evals=N] [shape] [mpi] -->
Every command of the block that starts with `chainsaw ` or `build/chainsaw ` (or
`mpirun ... chainsaw `, with `mpi`) runs, lines joined at a trailing backslash and `# comments` dropped, in a scratch folder shared
by the blocks of one page (so that a page's `resume run.h5` finds the `run.h5` its previous
command wrote). It must exit with N (default 0). dim=/evals= replace the values of --dim and
--evals, for pages that show the full-size command; the page says so next to the block.
`shape`: the output (stderr, then stdout) must match the ```text block that follows the
command's block, spaces collapsed, with every deterministic number exact: what a run prints
about its result (best fitness, distance, evaluation counts, D) is the same bits on every
machine, so only the times, shares and rates (numbers with a decimal point and no exponent)
and the thread count are masked. The numbers are those of float32 genes: with a float64 build
(whose runs differ in the last bits) every number is masked. A `shape` block cannot have dim=
or evals= (its output is that of the command as shown).
`mpi`: `mpirun` commands run with --oversubscribe (CI has 2 cores, runs as root); the block is
skipped, and said so, when mpirun is missing or the binary was built without MPI.
Unmarked blocks are listed as not run. Every flag that `chainsaw SUBCOMMAND --help` lists (the
command line's own definitions) must appear in docs/cli.md as `--flag`. Relative links between the pages must name existing
files and headings. The pages are reference: a commit hash in them (7 to 40 hexadecimal digits,
at least one a digit and one a letter, standing alone as a word) fails the test; the history
belongs in CHANGELOG.md and the bench/results READMEs, which are not among the pages.
  usage: docs_commands.py CHAINSAW_BINARY SOURCE_DIR     exit 77 (skipped) without the binary
         docs_commands.py --self-test                     the hash check on known cases"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

MARKER = re.compile(r"^<!--\s*docs-test\b(.*?)-->\s*$")
NUMBER = re.compile(r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# What varies between machines and runs of the same command: times, shares and rates (a
# decimal point, no exponent) and the number of threads.
VARYING = re.compile(r"[-+]?(?:\d[\d,]*\.\d*|\.\d+)(?![\deE])|\d+(?= threads?\b)")
TIMEOUT_S = 60
# A commit hash as a word: not part of a path, a flag, a name (cec2010-f9) or a number (1.2e+05).
COMMIT_HASH = re.compile(r"(?<![\w.+/-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}"
                         r"(?![\w+/-]|\.\w)")
# Hex-looking names that are not hashes: the CEC benchmarks by year (cec2010, cec2013).
HEX_LOOKING_NAME = re.compile(r"cec[0-9]{4}")


def fail(message):
    print(f"docs_commands: FAILED: {message}")
    sys.exit(1)


def parse_options(text):
    options = {"exit": 0, "dim": None, "evals": None, "shape": False, "mpi": False}
    for word in text.split():
        key, _, value = word.partition("=")
        if key in ("shape", "mpi") and not value:
            options[key] = True
        elif key in ("exit", "dim", "evals") and value.isdigit():
            options[key] = int(value)
        else:
            raise ValueError(f"unknown docs-test option '{word}'")
    return options


def blocks_of(path):
    """(line number, language, lines, marker options or None, following text block or None)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = []
    i = 0
    previous = ""  # the last non-blank line before the current one
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            language = line[3:].strip()
            start = i
            body = []
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            marker = MARKER.match(previous)
            options = parse_options(marker.group(1)) if marker else None
            found.append([start + 1, language, body, options, None])
            previous = "```"
        elif line.strip():
            if MARKER.match(previous) and not line.startswith("```"):
                fail(f"{path}: a docs-test marker not followed by a ```sh block (line {i + 1})")
            previous = line
        i += 1
    # The text block right after a block (blank lines between allowed) is its documented output.
    for k in range(len(found) - 1):
        if found[k + 1][1] == "text":
            found[k][4] = found[k + 1][2]
    return found


def commands_of(lines):
    """Shell lines of a block, continuation lines joined, comments dropped."""
    commands, current = [], ""
    for line in lines:
        stripped = line.rstrip()
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        current += stripped
        words = shlex.split(current, comments=True)
        if words:
            commands.append(words)
        current = ""
    return commands


def substitute(words, options):
    words = list(words)
    for flag in ("dim", "evals"):
        if options[flag] is None:
            continue
        for k, word in enumerate(words[:-1]):
            if word == f"--{flag}":
                words[k + 1] = str(options[flag])
    return words


def masked(text, exact=False):
    """The lines of text, spaces collapsed, numbers masked: all of them, or (exact) only those
    that vary between machines (VARYING)."""
    pattern = VARYING if exact else NUMBER
    return [" ".join(pattern.sub("#", line).split()) for line in text.splitlines() if line.strip()]


def genes_of(binary, env):
    """float32 or float64: the genes' type of the binary's build, from a tiny run's result."""
    import json
    done = subprocess.run([binary, "run", "--dim", "8", "--evals", "80", "-q"],
                          capture_output=True, text=True, env=env, timeout=TIMEOUT_S)
    if done.returncode != 0:
        fail(f"a tiny run to read the genes' type failed: {done.stderr.strip()}")
    return json.loads(done.stdout)["genes"]


def slug(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lstrip("#").strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def check_links(pages, source):
    """Every relative link of the pages names an existing file, and its #anchor a heading there."""
    anchors = {}
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = f.read()
        fenced = False
        heads = set()
        for line in text.splitlines():
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and line.startswith("#"):
                heads.add(slug(line))
        anchors[os.path.abspath(page)] = heads
    for page in pages:
        with open(page, encoding="utf-8") as f:
            text = re.sub(r"```.*?```", "", f.read(), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+://", target):
                continue
            path, _, anchor = target.partition("#")
            full = os.path.abspath(os.path.join(os.path.dirname(page), path)) if path else \
                os.path.abspath(page)
            name = os.path.relpath(page, source)
            if not os.path.exists(full):
                fail(f"{name}: a link to {target}, which does not exist")
            if anchor and full in anchors and anchor not in anchors[full]:
                fail(f"{name}: a link to {target}: no heading with that anchor")


def commit_hashes(text):
    """(line number, word) of every commit hash in text."""
    return [(number, m.group(0)) for number, line in enumerate(text.splitlines(), 1)
            for m in COMMIT_HASH.finditer(line) if not HEX_LOOKING_NAME.fullmatch(m.group(0))]


def check_no_commit_hashes(pages, source):
    found = []
    for page in pages:
        with open(page, encoding="utf-8") as f:
            found += [f"{os.path.relpath(page, source)}:{line}: {word}"
                      for line, word in commit_hashes(f.read())]
    if found:
        fail("commit hashes in reference pages (name the version, or move the history to "
             "CHANGELOG.md):\n  " + "\n  ".join(found))


def self_test():
    """The hash check finds hashes and leaves hex-looking words alone."""
    cases = {
        "at commit b74d6f4, which": ["b74d6f4"],
        "(2fc795b: 1.25 s) and e8683fa's kernel": ["2fc795b", "e8683fa"],
        "`9574666a1b` in code, 86a3815e0f1d2c3b4a5968778695a4b3c2d1e0f9.": [
            "9574666a1b", "86a3815e0f1d2c3b4a5968778695a4b3c2d1e0f9"],
        "since 5237077 or 20261128": [],               # digits only: a number, not checked
        "deadbeef, facade and accede": [],            # letters only: words
        "cec2010-f9, fitness/cec2010/ and cec2010_table.py": [],
        "the chainsaw cec2010 instance, `--out cec2010` and cec2013": [],
        "bb67624, c366075 and 7985daa": ["bb67624", "c366075", "7985daa"],
        "1.275908e+05 and 2.675793e+02, 0x1f2e6820": [],
        "abc12345678901234567890123456789012345678901": [],  # 44 digits: longer than a hash
        "b74d6f": [],                                 # 6 digits: shorter than a hash
        "bench/results/2026-11-29-h200-sw-pass-instructions/ and sha256 e3b0c44298fc1c149afbf4c8996"
        "fb92427ae41e4649b934ca495991b7852b855": [],  # 64 digits: a checksum, not a hash
    }
    for text, expected in cases.items():
        got = [word for _, word in commit_hashes(text)]
        if got != expected:
            fail(f"self-test: {text!r} gave {got}, expected {expected}")
    print(f"docs_commands: self-test of the hash check passed ({len(cases)} cases)")


# The subcommands whose --help docs/cli.md documents flag by flag.
SUBCOMMANDS = (["run"], ["resume"], ["inspect"], ["functions"], ["instance", "export"])
HELP_FLAG = re.compile(r"^\s+(?:-\w, )?(--[a-z][a-z0-9-]*)", re.M)


def check_cli_flags(binary, source):
    """Every flag of every subcommand's --help (the CLI's own definitions) is in docs/cli.md,
    as `--flag` in backquotes: a new flag without its line there fails the test."""
    with open(os.path.join(source, "docs", "cli.md"), encoding="utf-8") as f:
        page = f.read()
    missing, flags = [], 0
    for words in SUBCOMMANDS:
        done = subprocess.run([binary, *words, "--help"], capture_output=True, text=True,
                              timeout=TIMEOUT_S)
        if done.returncode != 0:
            fail(f"`chainsaw {' '.join(words)} --help` exited {done.returncode}")
        for flag in sorted(set(HELP_FLAG.findall(done.stdout)) - {"--help"}):
            flags += 1
            if not re.search(r"`" + re.escape(flag) + r"(?![a-z0-9-])", page):
                missing.append(f"chainsaw {' '.join(words)} {flag}")
    if missing:
        fail("flags of the command line missing from docs/cli.md:\n  " + "\n  ".join(missing))
    return flags


def mpi_available(binary, scratch):
    if shutil.which("mpirun") is None:
        return False, "no mpirun on PATH"
    probe = subprocess.run([binary, "run", "--distribute", "islands", "--dim", "64", "--evals",
                            "100", "-q", "-o", os.path.join(scratch, "probe.json")],
                           capture_output=True, text=True, cwd=scratch, timeout=TIMEOUT_S)
    if probe.returncode != 0:
        return False, "the binary has no MPI: " + probe.stderr.strip()
    return True, ""


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    if len(sys.argv) != 3:
        print(__doc__)
        sys.exit(2)
    binary, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not os.access(binary, os.X_OK):
        print(f"docs_commands: skipped: no chainsaw binary at {binary}")
        sys.exit(77)
    pages = [os.path.join(source, "README.md")]
    pages += sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    pages = [p for p in pages if os.path.exists(p)]
    if len(pages) < 2:
        fail(f"README.md and docs/*.md not found under {source}")

    check_links(pages, source)
    check_no_commit_hashes(pages, source)
    flags = check_cli_flags(binary, source)

    env = dict(os.environ)
    # One OpenMP thread per run: the machines running the suite are small and shared, and
    # results do not depend on the thread count. Open MPI refuses root without these.
    env.update(OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    scratch_root = tempfile.mkdtemp(prefix="chainsaw_docs_")
    ran, not_run, skipped, timings = 0, [], [], []
    shapes_checked = 0
    start = time.monotonic()
    mpi = None
    genes = genes_of(binary, env)
    try:
        for page in pages:
            name = os.path.relpath(page, source)
            scratch = os.path.join(scratch_root, name.replace(os.sep, "_"))
            os.makedirs(scratch)
            for line, language, body, options, output in blocks_of(page):
                if language != "sh":
                    if options is not None:
                        fail(f"{name}:{line}: a docs-test marker before a ```{language} block")
                    continue
                commands = commands_of(body)
                runnable = [w for w in commands if w[0] in ("chainsaw", "build/chainsaw") or
                            (w[0] == "mpirun" and "chainsaw" in w)]
                if options is None:
                    not_run += [f"{name}:{line}: {' '.join(w)}" for w in runnable]
                    continue
                if not runnable:
                    fail(f"{name}:{line}: a docs-test block without a chainsaw command")
                if options["mpi"]:
                    if mpi is None:
                        mpi = mpi_available(binary, scratch_root)
                    if not mpi[0]:
                        skipped += [f"{name}:{line} ({mpi[1]})"]
                        continue
                outputs = []
                for words in runnable:
                    if words[0] == "mpirun" and not options["mpi"]:
                        fail(f"{name}:{line}: an mpirun command in a block not marked mpi")
                    words = substitute(words, options)
                    words = [binary if w in ("chainsaw", "build/chainsaw") else w for w in words]
                    shown = " ".join(shlex.quote(w) for w in words)
                    began = time.monotonic()
                    try:
                        done = subprocess.run(words, capture_output=True, text=True, cwd=scratch,
                                              env=env, timeout=TIMEOUT_S)
                    except subprocess.TimeoutExpired:
                        fail(f"{name}:{line}: `{shown}` ran longer than {TIMEOUT_S} s")
                    if done.returncode != options["exit"]:
                        fail(f"{name}:{line}: `{shown}` exited {done.returncode}, the page expects "
                             f"{options['exit']}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
                    outputs.append(done.stderr + done.stdout)
                    timings.append((time.monotonic() - began,
                                    f"{name}:{line}: {' '.join(words[1:])}"))
                    ran += 1
                if options["shape"]:
                    if output is None:
                        fail(f"{name}:{line}: `shape` without a ```text block after the commands")
                    if options["dim"] is not None or options["evals"] is not None:
                        fail(f"{name}:{line}: `shape` with dim= or evals=: the shown output must "
                             "be that of the command as shown")
                    exact = genes == "float32"
                    got = masked("".join(outputs), exact)
                    documented = masked("\n".join(output), exact)
                    if got != documented:
                        fail(f"{name}:{line}: the output is not the documented one.\n"
                             f"documented ({'times' if exact else 'numbers'} masked):\n  " + "\n  ".join(documented) +
                             "\ngot:\n  " + "\n  ".join(got))
                    shapes_checked += 1
    finally:
        shutil.rmtree(scratch_root, ignore_errors=True)

    if ran == 0 or shapes_checked == 0:
        fail(f"{ran} commands run and {shapes_checked} outputs checked: the markers are missing")
    for entry in skipped:
        print(f"docs_commands: skipped block {entry}")
    print(f"docs_commands: not run (unmarked: GPU, MPI sizes, placeholders): {len(not_run)}")
    for entry in not_run:
        print(f"  {entry}")
    print("docs_commands: the slowest commands:")
    for seconds, what in sorted(timings, reverse=True)[:5]:
        print(f"  {seconds:5.1f} s  {what}")
    print(f"docs_commands: {ran} commands passed, {shapes_checked} output(s) as documented, "
          f"{flags} flags of --help in docs/cli.md, {len(pages)} pages, "
          f"{time.monotonic() - start:.1f} s")


if __name__ == "__main__":
    main()
