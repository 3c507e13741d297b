#!/usr/bin/env python3
"""ctest of `chainsaw study` (docs/study.md) end to end on a small CPU study: 2 algorithms x 2
functions x 3 seeds at D = 10. Checks the table against the result files and a run of
`chainsaw run`, the report's statistics, tests, ranks and convergence curves against SciPy and
NumPy computed here, the plots, resumability (a second run does nothing; a deleted result alone
reruns; an interrupted run resumes from its checkpoint and ends as the uninterrupted run),
shards, and that bad study files are refused in one line. Then a small CEC 2013 protocol study
(2 functions of the official data, 2 runs, 3000 evaluations, milestones): its milestone table
and its published comparison against the per-run files' milestones; and chainsaw.study
imported from the source tree, without the compiled module.
  usage: study_runner.py CHAINSAW_BINARY"""
import csv
import importlib.util
import json
import math
import os
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STUDY_PY = os.path.join(HERE, "..", "python", "chainsaw", "study.py")
CEC2013_DATA = os.path.join(HERE, "data", "cec2013", "cdatafiles")

STUDY = """
algorithms = ["ma-sw-chains", "de-small"]
functions = ["sphere", "rastrigin"]
dims = [10]
seeds = [1, 2, 3]
evals = 2000
backend = "cpu"
threads = 1

[algorithm.de-small]
algorithm = "de"
de-np = 20
"""


def check(condition, message):
    if not condition:
        print(f"study_runner: FAILED: {message}")
        sys.exit(1)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-300


def holm_reference(ps):
    """Holm's step-down adjustment: the k-th smallest p times (m - k + 1), kept monotone."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - k) * ps[i]))
        out[i] = running
    return out


def study(binary, path, *extra):
    return subprocess.run([binary, "study", path, *extra], capture_output=True, text=True)


def load_module():
    """python/chainsaw/study.py by its path: no compiled module, no installation."""
    spec = importlib.util.spec_from_file_location("chainsaw_study", STUDY_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def cell_of(row):
    return (row["function"], int(row["dim"]), int(row["evals"]), int(row["instance"]))


def check_table(binary, folder, rows):
    check(len(rows) == 12, f"12 rows in runs.csv, found {len(rows)}")
    for row in rows:
        with open(os.path.join(folder, row["file"])) as f:
            r = json.load(f)
        check(float(row["best_fitness"]) == r["best_fitness"], f"{row['file']}: best fitness")
        check(float(row["best_error"]) == r["best_error"], f"{row['file']}: best error")
        check(float(row["distance_to_optimum"]) == r["distance_to_optimum"], "distance")
        check(int(row["evaluations"]) == r["evaluations"]["total"] == 2000, "evaluations")
        check(row["stopped_by"] == r["stopped_by"] == "budget", "stop reason")
        check(r["study"]["key"] == row["key"] and row["key"] in row["file"], "the key")
    # A row is `chainsaw run` with the same configuration, bit for bit.
    row = next(r for r in rows if r["algorithm"] == "de-small" and r["function"] == "rastrigin"
               and r["seed"] == "2")
    direct = subprocess.run([binary, "run", "--algorithm", "de", "--de-np", "20", "--function",
                             "rastrigin", "--dim", "10", "--evals", "2000", "--seed", "2",
                             "--problem-seed", "1", "--backend", "cpu", "-q"],
                            capture_output=True, text=True)
    check(direct.returncode == 0, direct.stderr)
    check(json.loads(direct.stdout)["best_fitness"] == float(row["best_fitness"]),
          "the study's run equals chainsaw run")


def check_statistics(folder, rows):
    from scipy.stats import mannwhitneyu
    cells = {}
    for row in rows:
        cells.setdefault(cell_of(row), {}).setdefault(row["algorithm"], []).append(
            float(row["best_error"]))
    stats = read_csv(os.path.join(folder, "statistics.csv"))
    check(len(stats) == 4, "a statistics row per cell and algorithm")
    for s in stats:
        v = cells[cell_of(s)][s["algorithm"]]
        check(int(s["runs"]) == 3, "3 runs per cell")
        check(close(float(s["mean"]), statistics.mean(v)), "mean")
        check(close(float(s["sd"]), statistics.stdev(v)), "sd")
        check(close(float(s["median"]), statistics.median(v)), "median")
    tests = read_csv(os.path.join(folder, "tests.csv"))
    check(len(tests) == 2, "a test per cell")
    ps = []
    for t in tests:
        c = cells[cell_of(t)]
        p = mannwhitneyu(c["de-small"], c["ma-sw-chains"], alternative="two-sided").pvalue
        check(t["algorithm"] == "de-small" and close(float(t["p"]), p), f"p-value {t}")
        ps.append(p)
    holm = holm_reference(ps)
    for t, h in zip(tests, holm):
        check(close(float(t["p_holm"]), h), "Holm's p")
        check(t["sign"] == ("=" if h >= 0.05 else t["sign"]), "sign")
    ranks = {r["algorithm"]: float(r["mean_rank"]) for r in read_csv(os.path.join(folder, "ranks.csv"))}
    expected = {"ma-sw-chains": 0.0, "de-small": 0.0}
    for c in cells.values():
        m, d = statistics.mean(c["ma-sw-chains"]), statistics.mean(c["de-small"])
        expected["ma-sw-chains"] += (1 if m < d else 2 if m > d else 1.5) / len(cells)
        expected["de-small"] += (1 if d < m else 2 if d > m else 1.5) / len(cells)
    check(all(close(ranks[a], expected[a]) for a in expected), f"Friedman ranks {ranks}")
    with open(os.path.join(folder, "report.md")) as f:
        md = f.read()
    s = stats[0]
    check(f"{float(s['mean']):.3e} ({float(s['sd']):.3e}), {float(s['median']):.3e}" in md,
          "the report's table shows the statistics")
    with open(os.path.join(folder, "report.html")) as f:
        page = f.read()
    check("<table>" in page and "convergence.png" in page and "boxplots.png" in page, "html")


def check_convergence(folder, rows):
    import numpy as np
    curves = read_csv(os.path.join(folder, "convergence.csv"))
    check(len(curves) > 20, "convergence curves")
    traces = {}
    for row in rows:
        with open(os.path.join(folder, row["file"])) as f:
            r = json.load(f)
        f_star = r["best_fitness"] - r["best_error"]
        traces.setdefault((cell_of(row), row["algorithm"]), []).append(
            [(e, b - f_star) for e, _, b in r["trace"]])
    for c in curves[::7]:
        key = (cell_of(c), c["algorithm"])
        e = int(c["evaluations"])
        values = [[v for ev, v in t if ev <= e][-1] for t in traces[key] if t[0][0] <= e]
        q25, median, q75 = np.percentile(values, [25, 50, 75])
        check(int(c["runs"]) == len(values), "runs at a grid point")
        check(close(float(c["median"]), median) and close(float(c["q25"]), q25) and
              close(float(c["q75"]), q75), f"convergence at {key} {e}")
    for name in ("convergence.png", "boxplots.png"):
        with open(os.path.join(folder, name), "rb") as f:
            head = f.read(24)
        check(head[:8] == b"\x89PNG\r\n\x1a\n", f"{name} is a PNG")
        width, height = struct.unpack(">II", head[16:24])
        check((width, height) == (518, 194), f"{name}: a panel per cell, 2 x 1 ({width}x{height})")


def check_python_functions():
    """The report's functions on data whose answers are known: clear differences, three algorithms."""
    import pandas as pd
    from scipy.stats import friedmanchisquare, mannwhitneyu
    m = load_module()
    rows = []
    for f in ("a", "b"):
        for s in range(8):
            rows += [dict(function=f, dim=5, evals=100, instance=1, algorithm="base", seed=s,
                          best_error=10.0 + s),
                     dict(function=f, dim=5, evals=100, instance=1, algorithm="good", seed=s,
                          best_error=1.0 + s * 0.1),
                     dict(function=f, dim=5, evals=100, instance=1, algorithm="bad", seed=s,
                          best_error=100.0 + s + (f == "b") * 1000)]
    df = pd.DataFrame(rows)
    t = m.compare(df, "base")
    check(list(t["sign"]) == ["+", "-", "+", "-"], f"signs {list(t['sign'])}")
    p = mannwhitneyu([1.0 + s * 0.1 for s in range(8)], [10.0 + s for s in range(8)]).pvalue
    check(close(t["p"].iloc[0], p) and close(t["p_holm"].iloc[0], min(1.0, 4 * p)), "Holm")
    ranks, statistic, fp, cells = m.friedman(df, ["base", "good", "bad"])
    check(ranks == {"base": 2.0, "good": 1.0, "bad": 3.0} and cells == 2, f"ranks {ranks}")
    means = df.groupby(["function", "algorithm"])["best_error"].mean().unstack()
    expected = friedmanchisquare(means["base"], means["good"], means["bad"])
    check(close(statistic, expected.statistic) and close(fp, expected.pvalue), "Friedman")


def check_resume(binary, work, folder, rows):
    path = os.path.join(work, "study.toml")
    again = study(binary, path)
    check(again.returncode == 0 and "0 runs ran, 12 were done" in again.stderr, again.stderr)
    files = {r["file"]: os.stat(os.path.join(folder, r["file"])).st_mtime_ns for r in rows}
    gone = rows[5]["file"]
    with open(os.path.join(folder, gone)) as f:
        before = json.load(f)
    os.remove(os.path.join(folder, gone))
    rerun = study(binary, path, "--no-report")
    check(rerun.returncode == 0 and "1 runs ran, 11 were done" in rerun.stderr, rerun.stderr)
    with open(os.path.join(folder, gone)) as f:
        after = json.load(f)
    check(after["best_fitness"] == before["best_fitness"], "the rerun gives the same run")
    for name, mtime in files.items():
        if name != gone:
            check(os.stat(os.path.join(folder, name)).st_mtime_ns == mtime, f"{name} untouched")


def check_interrupted(binary, work):
    """A run stopped by SIGINT leaves its checkpoint; the same command finishes it as if
    uninterrupted."""
    path = os.path.join(work, "long.toml")
    with open(path, "w") as f:
        f.write('algorithms = ["ma-sw-chains"]\nfunctions = ["rastrigin"]\ndims = [2000]\n'
                'seeds = [4]\nevals = 60000\nthreads = 1\ncheckpoint-every = "3000"\n')
    runs = os.path.join(work, "long", "runs")
    p = subprocess.Popen([binary, "study", path, "--no-report"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60

    def checkpointed():
        return os.path.isdir(runs) and any(n.endswith(".h5") for n in os.listdir(runs))

    while not checkpointed():
        check(time.monotonic() < deadline and p.poll() is None, "a periodic checkpoint appears")
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate()
    check(p.returncode == 130 and "interrupted" in err, f"exit {p.returncode}: {err}")
    names = os.listdir(runs)
    check(any(n.endswith(".h5") for n in names) and any(n.endswith(".trace.json") for n in names)
          and not any(n.endswith(".json") and not n.endswith(".trace.json") for n in names),
          f"a checkpoint and a trace, no result: {names}")
    done = study(binary, path, "--no-report")
    check(done.returncode == 0 and "1 runs ran" in done.stderr, done.stderr)
    names = os.listdir(runs)
    check(len(names) == 1 and names[0].endswith(".json"), f"the result alone remains: {names}")
    with open(os.path.join(runs, names[0])) as f:
        resumed = json.load(f)
    direct = subprocess.run([binary, "run", "--function", "rastrigin", "--dim", "2000", "--evals",
                             "60000", "--seed", "4", "--problem-seed", "1", "--backend", "cpu",
                             "--threads", "1", "-q"], capture_output=True, text=True)
    whole = json.loads(direct.stdout)
    check(resumed["resumed_from"] is not None, "the run was resumed")
    check(resumed["best_fitness"] == whole["best_fitness"] and
          resumed["evaluations"] == whole["evaluations"], "resumed = uninterrupted, bit for bit")
    trace = resumed["trace"]
    check(trace[0][0] == whole["trace"][0][0] and trace[-1][0] == 60000 and
          trace[-1][2] == whole["trace"][-1][2], "the trace covers the whole run")
    check(all(a[0] < b[0] and a[2] >= b[2] for a, b in zip(trace, trace[1:])), "trace order")


def check_shards(binary, work):
    path = os.path.join(work, "study.toml")
    out = os.path.join(work, "sharded")
    one = study(binary, path, "--out", out, "--shard", "1/2")
    first = set(os.listdir(os.path.join(out, "runs")))
    two = study(binary, path, "--out", out, "--shard", "2/2")
    both = set(os.listdir(os.path.join(out, "runs")))
    check(one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr)
    check(len(first) == 6 and len(both) == 12, f"disjoint halves: {len(first)}, {len(both)}")
    check(not os.path.exists(os.path.join(out, "runs.csv")), "a shard writes no table")
    last = study(binary, path, "--out", out, "--no-report")
    check(last.returncode == 0 and "0 runs ran, 12 were done" in last.stderr, last.stderr)
    bad = study(binary, path, "--shard", "3/2")
    check(bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--shard = 3/2" in bad.stderr,
          bad.stderr)


DE_TABLE = '[algorithm.de-small]\nalgorithm = "de"\n'
PUBLISHED = '[published.p]\ncitation = "a paper"\n'
MA_ONLY = {"algorithms": '["ma-sw-chains"]'}
# (top-level keys replaced or added, the tables, what the one line must say)
BAD = [
    ({"colour": "1"}, DE_TABLE, "unknown key 'colour'"),
    ({"dims": "[0]"}, DE_TABLE, "dims = 0: must be >= 1"),
    ({"seeds": "3"}, DE_TABLE, "seeds = 3: must be a list"),
    ({"evals": '"many"'}, DE_TABLE, "evals = 'many'"),
    ({"backend": '"gpu"'}, DE_TABLE, "gpu"),
    ({"algorithms": '["ma-sw-chains", "nope"]'}, "", "nope"),
    ({}, DE_TABLE + 'de-np = "lots"\n', "--de-np = lots"),
    ({}, DE_TABLE + "de-nope = 2\n", "unknown key 'de-nope'"),
    ({}, DE_TABLE + '[algorithm.extra]\nalgorithm = "pso"\n', "[algorithm.extra] is not in algorithms"),
    ({"dims": "[10"}, DE_TABLE, "study.toml:"),
    (MA_ONLY, PUBLISHED + "evaluations = 50\n[published.p.mean]\nsphere = 1.0\n",
     "[published.p]: evaluations = 50 is neither the budget nor a milestone of sphere's runs"),
    (MA_ONLY, PUBLISHED + "[published.p.mean]\nackley = 1.0\n", "'ackley' is not in functions"),
    (MA_ONLY, PUBLISHED + 'dims = [10]\n[published.p.mean]\nsphere = 1.0\n',
     "mean.sphere: must be a list of 1 numbers"),
    (MA_ONLY, '[published.p]\n[published.p.mean]\nsphere = 1.0\n', "citation is missing"),
]


def check_bad_files(binary, work):
    base = {"algorithms": '["ma-sw-chains", "de-small"]', "functions": '["sphere"]',
            "dims": "[10]", "seeds": "[1]", "evals": "100"}
    for top, tables, expected in BAD:
        keys = dict(base, **top)
        body = "".join(f"{k} = {v}\n" for k, v in keys.items()) + tables
        path = os.path.join(work, "bad", "study.toml")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(body)
        r = study(binary, path)
        check(r.returncode == 2, f"{top} {tables!r}: exit {r.returncode} ({r.stderr})")
        check(r.stderr.count("\n") == 1 and r.stderr.startswith("chainsaw: error: ") and
              expected in r.stderr, f"{top} {tables!r}: one line naming it: {r.stderr!r}")
        check(not os.path.exists(os.path.join(work, "bad", "study")), "nothing ran")


def check_shipped_studies(binary):
    """The repository's study files parse and expand to their runs."""
    root = os.path.join(HERE, "..")
    for path, runs in (("examples/study.toml", 45), ("bench/experiments/cec2010.toml", 400),
                       ("bench/experiments/nashed.toml", 12000),
                       ("bench/experiments/cec2013.toml", 375),
                       ("bench/experiments/cec2013_d1e5.toml", 75),
                       ("bench/experiments/lastra2014.toml", 900),
                       ("bench/experiments/kromer2011.toml", 360)):
        r = subprocess.run([binary, "study", os.path.join(root, path), "--list", "--out",
                            os.path.join(tempfile.gettempdir(), "chainsaw-study-list-none")],
                           capture_output=True, text=True)
        check(r.returncode == 0 and r.stdout.endswith(f"{runs} runs, 0 done, {runs} to run\n"),
              f"{path}: {r.stderr}{r.stdout[-80:]}")


PROTOCOL = """
algorithms = ["ma-sw-chains"]
functions = ["cec2013-f2", "cec2013-f12"]
dims = [1000]
seeds = [1, 2]
evals = 3000
backend = "cpu"
threads = 1

[options]
instance = "{data}"
milestones = [120, 600, 3000]

[published.check]
citation = "this test's values"
evaluations = 600

[published.check.mean]
cec2013-f2 = 1.0e4
cec2013-f12 = 5

[published.check.sd]
cec2013-f2 = 3.0

[published.listed]
citation = "a value per D"
measure = "distance_to_optimum"
dims = [1000, 2000]

[published.listed.mean]
cec2013-f12 = [2.0, 3.0]
"""


def check_protocol(binary, work):
    """The CEC 2013 protocol as a study: the milestone table and the published comparison equal
    what the per-run files record."""
    path = os.path.join(work, "protocol.toml")
    with open(path, "w") as f:  # a relative instance is read from the study file's folder
        f.write(PROTOCOL.format(data=os.path.relpath(CEC2013_DATA, work)))
    r = study(binary, path)
    check(r.returncode == 0 and "4 runs ran" in r.stderr, r.stderr)
    folder = os.path.join(work, "protocol")
    errors = {}  # (function, milestone) -> the runs' errors there
    for row in read_csv(os.path.join(folder, "runs.csv")):
        with open(os.path.join(folder, row["file"])) as f:
            doc = json.load(f)
        check(doc["config"]["milestones"] == [120, 600, 3000], "the milestones reach the runs")
        check(os.path.samefile(doc["config"]["instance"], CEC2013_DATA), "the official data")
        marks = doc["milestones"]
        check([m[0] for m in marks] == [120, 600, 3000], "a record per milestone")
        check(marks[-1][2] == doc["best_fitness"] == doc["best_error"],
              "f* = 0; the last record is the best")
        check(marks[0][2] >= marks[1][2] >= marks[2][2], "records never rise")
        for e, _, b in marks:
            errors.setdefault((row["function"], e), []).append(b)
    table = read_csv(os.path.join(folder, "milestones.csv"))
    check(len(table) == 6, f"2 functions x 3 milestones, found {len(table)} rows")
    for t in table:
        v = errors[(t["function"], int(t["evaluations"]))]
        check(int(t["runs"]) == 2 and t["algorithm"] == "ma-sw-chains", "2 runs per row")
        check(float(t["best"]) == min(v) and float(t["worst"]) == max(v), f"best, worst {t}")
        check(close(float(t["median"]), statistics.median(v)) and
              close(float(t["mean"]), statistics.mean(v)) and
              close(float(t["sd"]), statistics.stdev(v)), f"median, mean, sd {t}")
    published = read_csv(os.path.join(folder, "published.csv"))
    listed = [p for p in published if p["measure"] == "distance_to_optimum"]
    distances = [float(r["distance_to_optimum"]) for r in read_csv(os.path.join(folder, "runs.csv"))
                 if r["function"] == "cec2013-f12"]
    check(len(listed) == 2 and all(int(p["evaluations"]) == 3000 for p in listed) and
          float(listed[0]["mean"]) == 2.0 and
          close(float(listed[1]["mean"]), statistics.mean(distances)) and
          [p["name"] for p in listed] == ["listed", "ma-sw-chains"],
          f"a value per D, the distance at the budget: {listed}")
    published = [p for p in published if p["measure"] == "best_error"]
    check(len(published) == 4, f"a paper's row and the study's per function: {published}")
    for p in published:
        check(int(p["evaluations"]) == 600 and p["measure"] == "best_error", "at its milestone")
        if p["source"] == "published":
            expected = {"cec2013-f2": (1.0e4, "3.0"), "cec2013-f12": (5.0, "")}[p["function"]]
            check((float(p["mean"]), p["sd"]) == expected, f"the paper's values {p}")
        else:
            check(close(float(p["mean"]), statistics.mean(errors[(p["function"], 600)])),
                  f"the study's mean at 600 evaluations {p}")
    with open(os.path.join(folder, "report.md")) as f:
        md = f.read()
    check("## Milestones" in md and "| 1.2e+02 | best |" in md and "| 3.0e+03 | sd |" in md,
          "the report's milestone table")
    check("check mean (sd)" in md and "this test's values" in md, "the published column, cited")


def check_without_compiled_module(folder):
    """The source tree's package has no chainsaw._core: chainsaw.study works, and a compiled
    function raises one line."""
    code = ("import chainsaw.study, chainsaw\n"
            f"assert len(chainsaw.study.load({folder!r})) == 12\n"
            "try:\n    chainsaw.minimize('sphere', dim=2, evals=10)\n"
            "except ImportError as e:\n    print(e)\n")
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "python"),
               PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    check(r.returncode == 0, f"import chainsaw.study without the compiled module: {r.stderr}")
    check(r.stdout.count("\n") == 1 and "chainsaw._core is missing" in r.stdout,
          f"one line when a compiled function is called: {r.stdout!r}")


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "study.toml")
        with open(path, "w") as f:
            f.write(STUDY)
        first = study(binary, path)
        check(first.returncode == 0, f"the study failed: {first.stderr}")
        check("12 runs ran, 0 were done" in first.stderr, first.stderr)
        folder = os.path.join(work, "study")
        rows = read_csv(os.path.join(folder, "runs.csv"))
        check_table(binary, folder, rows)
        df = load_module().load(folder)
        check(len(df) == 12 and list(df["best_fitness"]) == [float(r["best_fitness"]) for r in rows],
              "load() gives the table as a DataFrame")
        check_statistics(folder, rows)
        check_convergence(folder, rows)
        check_python_functions()
        check_resume(binary, work, folder, rows)
        check_shards(binary, work)
        check_bad_files(binary, work)
        check_interrupted(binary, work)
        check_shipped_studies(binary)
        check_protocol(binary, work)
        check_without_compiled_module(folder)
    print("study_runner: OK")


if __name__ == "__main__":
    main()
