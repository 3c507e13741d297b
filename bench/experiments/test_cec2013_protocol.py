#!/usr/bin/env python3
"""ctest of bench/experiments/cec2013_protocol.py: two functions (F2, F12) on the official data, two runs
of a tiny budget on the CPU through the real binary, run twice (the second repeats nothing),
then `report`. The milestones must be the budget's fractions 0.04, 0.2, 1, each run's record
at the budget must be its best error, and the table's statistics those of the runs.
  usage: test_cec2013_protocol.py CHAINSAW_BINARY"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "cec2013_protocol.py")
DATA = os.path.join(HERE, "..", "..", "tests", "data", "cec2013", "cdatafiles")


def check(condition, message):
    if not condition:
        print(f"test_cec2013_protocol: FAILED: {message}")
        sys.exit(1)


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, RUNNER, "run", "--out", out, "--functions", "2", "12",
                   "--runs", "2", "--evals", "3000", "--backend", "cpu", "--instance", DATA,
                   "--chainsaw", binary, "--", "--threads", "1"]
        first = subprocess.run(command, capture_output=True, text=True)
        check(first.returncode == 0, f"run failed: {first.stderr}")
        again = subprocess.run(command, capture_output=True, text=True)
        check(again.returncode == 0 and again.stdout == "", "a second run repeats nothing")
        docs = {}
        for n in (2, 12):
            with open(os.path.join(out, "runs", f"cec2013-f{n}_D1000.json")) as f:
                docs[n] = json.load(f)
            check(docs[n]["config"]["milestones"] == [120, 600, 3000], "the milestones")
            for r in docs[n]["results"]:
                check([m[0] for m in r["milestones"]] == [120, 600, 3000], "a record per mark")
                check(r["milestones"][-1][2] == r["best_error"], "the last record is the best")
                check(r["milestones"][0][2] >= r["milestones"][1][2] >= r["milestones"][2][2],
                      "records never rise")
        report = subprocess.run([sys.executable, RUNNER, "report", out], capture_output=True,
                                text=True)
        check(report.returncode == 0, f"report failed: {report.stderr}")
        with open(os.path.join(out, "cec2013.csv")) as f:
            rows = list(csv.DictReader(f))
        check(len(rows) == 6, f"2 functions x 3 milestones, found {len(rows)} rows")
        for row in rows:
            n = int(row["function"][len("cec2013-f"):])
            errors = [m[2] for r in docs[n]["results"] for m in r["milestones"]
                      if m[0] == int(row["evaluations"])]
            check(float(row["best"]) == min(errors) and float(row["worst"]) == max(errors),
                  f"{row['function']} best and worst")
            check(abs(float(row["median"]) - statistics.median(errors)) <= 1e-12 * max(errors),
                  f"{row['function']} median")
            check(abs(float(row["sd"]) - statistics.stdev(errors)) <= 1e-9 * max(errors) + 1e-300,
                  f"{row['function']} sd")
        with open(os.path.join(out, "cec2013.md")) as f:
            text = f.read()
        check("| 1.2e+02 | best |" in text and "| 3.0e+03 | sd |" in text, "the table's rows")
        check("F2" in text and "F12" in text, "both functions")
        try:
            import matplotlib  # noqa: F401
            check(os.path.exists(os.path.join(out, "convergence.png")), "the convergence plot")
        except ImportError:
            pass
    print("test_cec2013_protocol: OK")


if __name__ == "__main__":
    main()
