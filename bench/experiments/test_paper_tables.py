#!/usr/bin/env python3
"""ctest of bench/experiments/paper_tables.py: every quality experiment on a tiny CPU grid through
the real binary (budgets scaled down to a hundredth), run twice (the second run repeats nothing), then
`report`. The cells must hold their runs with the configuration asked for, the Janssen ranks
must be ranks, and the tables must name every cell's values.
  usage: test_paper_tables.py CHAINSAW_BINARY"""
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "paper_tables.py")
sys.path.insert(0, HERE)
import paper_tables  # noqa: E402


def check(condition, message):
    if not condition:
        print(f"test_paper_tables: FAILED: {message}")
        sys.exit(1)


def main():
    binary = os.path.abspath(sys.argv[1])
    names = {paper_tables.braun_name(k) for k in paper_tables.KROMER_ORDER}
    check(names == set(paper_tables.ETC_CLASSES) and len(names) == 12,
          f"the paper's 12 ETC names map onto Braun's 12 classes: {sorted(names)}")
    check(paper_tables.braun_name("ThMlCs") == "u_s_hilo", "ThMlCs is u_s_hilo")
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, RUNNER, "run", "janssen-rank", "nashed", "kromer",
                   "kromer-loads",
                   "--backends", "cpu", "--runs", "2", "--dims", "10", "--scale", "0.01",
                   "--out", out, "--binary", binary]
        first = subprocess.run(command, capture_output=True, text=True)
        check(first.returncode == 0, f"run failed: {first.stderr}")
        cells = sorted(glob.glob(os.path.join(out, "*", "*.json")))
        check(len(cells) == 80 + 60 + 36 + 36, f"80 + 60 + 36 + 36 cells, found {len(cells)}")
        for path in cells:
            with open(path) as f:
                doc = json.load(f)
            check(len(doc["results"]) == 2, f"{path}: two runs")
            check([r["config"]["seed"] for r in doc["results"]] == [1, 2], f"{path}: seeds 1, 2")
            name = os.path.basename(path)[:-5]
            config = doc["results"][0]["config"]
            if "kromer" in path:
                check(config["etc_class"] == paper_tables.braun_name(name.split("_")[0]),
                      f"{path}: the class asked for")
                check(config["de_np"] == int(name.split("_")[1][2:]), f"{path}: NP")
                flowtime = "loads" if "kromer-loads" in path else "completion"
                check(config["etc_flowtime"] == flowtime, f"{path}: flowtime {flowtime}")
            if "nashed" in path:
                check(doc["results"][0]["stopped_by"] == "time_limit", f"{path}: stops on time")
        again = subprocess.run(command, capture_output=True, text=True)
        check(again.returncode == 0 and again.stdout == "", "a second run repeats no cell")
        report = subprocess.run([sys.executable, RUNNER, "report", out], capture_output=True,
                                text=True)
        check(report.returncode == 0, f"report failed: {report.stderr}")
        with open(os.path.join(out, "tables.md")) as f:
            tables = f.read()
        for section in ("Table 4: de against jde", "Nashed et al. Table 2",
                        "Kromer et al. Table 1", paper_tables.KROMER_LOADS_TITLE):
            check(section in tables, f"tables.md has {section}")
        rank_rows = [line.split("|") for line in tables.splitlines()
                     if line.startswith("| de |") or line.startswith("| jde |")]
        check(len(rank_rows) == 8, "eight (algorithm, NP) rows")
        ranks = [float(row[3]) for row in rank_rows]
        check(abs(sum(ranks) - 36.0) < 1e-9, f"mean ranks of 8 entries sum to 36: {ranks}")
        check(all(row[4].strip() == "10" for row in rank_rows), "ten problems each")
        with open(os.path.join(out, "nashed", "nashed-f3_D10_pso_cpu.json")) as f:
            doc = json.load(f)
        mean = sum(r["best_error"] for r in doc["results"]) / 2
        line = next(l for l in tables.splitlines() if l.startswith("| nashed-f3 |"))
        check(paper_tables.e(mean) in line, f"the table shows pso's mean error {mean}: {line}")
        # A configuration the binary refuses (exit 2, one line) is a refused cell, not a stop;
        # the real binary refuses a negative time limit.
        cell = os.path.join(out, "nashed", "refused.json")
        paper_tables.run_cell(binary, ["--function", "sphere", "--dim", "10", "--time-limit=-1s"],
                             2, False, False, cell)
        with open(cell) as f:
            doc = json.load(f)
        check("results" not in doc and doc["refused"] and "\n" not in doc["refused"],
              f"a refused cell keeps its one line: {doc}")
        subprocess.run([sys.executable, RUNNER, "report", out], capture_output=True, text=True)
        with open(os.path.join(out, "tables.md")) as f:
            check("| nashed | refused | " + doc["refused"] in f.read(),
                  "the report lists the refused cell with its reason")
    print("test_paper_tables: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
