#!/usr/bin/env python3
"""ctest of bench/experiments/paper_quality.py and lastra_tables.py: the tolerance rule on cells of
the paper's tables, a tiny CPU grid through the real binary (run twice: the second run repeats
nothing), its rows' configurations, and the report spliced into a page between its markers.
  usage: test_paper_quality.py CHAINSAW_BINARY"""
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "paper_quality.py")
sys.path.insert(0, HERE)
import paper_quality  # noqa: E402
import lastra_tables  # noqa: E402


def check(condition, message):
    if not condition:
        print(f"test_paper_quality: FAILED: {message}")
        sys.exit(1)


def check_tables():
    check(lastra_tables.cell("rastrigin", "gpu", "f", 100000) == (5.1e5, 1.3e4),
          "Table 15, GPU, 10^5-D: 5.1E+05 +- 1.3E+04")
    check(lastra_tables.cell("schwefel12", "cpu", "d", 3000000) == (1.7e3, 3.4e0),
          "Table 20, CPU distance, 3*10^6-D: 1.7E+03 +- 3.4E+00")
    # sigma where it is wider than the printed digits, the rounding where sigma is narrower
    check(lastra_tables.tolerance("rastrigin", "gpu", "f", 100000) == 1.3e4, "sigma wins")
    check(abs(lastra_tables.tolerance("salomon", "gpu", "f", 100000) - 5.0) < 1e-12,
          "Salomon's -3.0E+02 is +-5 by its rounding, sigma 7.6E-02")
    check(paper_quality.verdict(5.0e5, "rastrigin", "gpu", "f", 100000), "5.0e5 within 5.1e5")
    check(not paper_quality.verdict(5.3e5, "rastrigin", "gpu", "f", 100000), "5.3e5 is not")
    for function, (_, _, _, sides) in lastra_tables.PAPER.items():
        for side in ("cpu", "gpu"):
            for measure in ("f", "d"):
                check(len(sides[side][measure]) == len(lastra_tables.DIMS),
                      f"{function} {side} {measure}: a cell per dimension")


def check_fit():
    """The fitted box scales the unit box's Discus and Sum Squares onto the paper's means."""
    rows = []
    for fn, f_unit, d_unit in (("discus", (7.7e4 + 330) / 4 - 330, 2.8e2 / 2),
                               ("sumsquares", 1.5e9 / 4 - 330, 2.2e2 / 2)):
        for seed in (1, 2):
            rows.append({"setup": "unit-box", "function": fn, "dim": "100000", "seed": seed,
                         "best_fitness": f_unit, "distance_to_optimum": d_unit,
                         "args": "--domain=-1,1"})
    check(paper_quality.fitted_half_width(rows, "unit-box") == 2.0, "a = 2 from exact halves")
    check(paper_quality.setup_flags("fit", rows) == ["--domain=-2,2"], "fit's flags")
    rows.append(dict(rows[0], setup="fit", args="--domain=-2.5,2.5"))
    check(paper_quality.setup_flags("fit", rows) == ["--domain=-2.5,2.5"],
          "a fitted set-up keeps the box of its first runs")
    check(paper_quality.fitted_half_width(rows, "unit-box-whole") is None, "no runs, no fit")


def main():
    check_tables()
    check_fit()
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, RUNNER, "run", "--out", out, "--chainsaw", binary,
                   "--functions", "griewank,discus", "--dims", "300", "--seeds", "2",
                   "--evals", "600", "--backend", "cpu", "--", "--threads", "1"]
        first = subprocess.run(command, capture_output=True, text=True)
        check(first.returncode == 0, f"run failed: {first.stderr}")
        with open(os.path.join(out, "runs.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        setups = len(paper_quality.DEFAULT_SETUPS)
        check(len(rows) == 2 * setups * 2, f"2 functions x {setups} set-ups x 2 seeds: {len(rows)}")
        for r in rows:
            check(r["args"].startswith(" ".join(paper_quality.SETUPS[r["setup"]])),
                  f"the set-up's flags: {r}")
            check(int(r["evals"]) == 600 and r["backend"] == "cpu", f"the run asked for: {r}")
            if r["setup"] != "conventional":
                # inside [-1, 1]^300 no point is farther than 2 sqrt(300) from o
                check(float(r["distance_to_optimum"]) < 2 * 300 ** 0.5, f"in the unit box: {r}")
        unit = [float(r["distance_to_optimum"]) for r in rows if r["setup"] == "unit-box"]
        conventional = [float(r["distance_to_optimum"]) for r in rows
                        if r["setup"] == "conventional" and r["function"] == "discus"]
        check(max(unit) < min(conventional) / 10, "the unit box is a smaller problem")
        again = subprocess.run(command, capture_output=True, text=True)
        check(again.returncode == 0 and "0 runs" in again.stdout,
              f"a second run repeats nothing: {again.stdout}")
        best = subprocess.run(command[:command.index("--seeds")] +
                              ["--seeds", "3", "--setups", "conventional,best"] +
                              command[command.index("--seeds") + 2:], capture_output=True,
                              text=True)
        chosen = paper_quality.best_setup(rows)
        check(best.returncode == 0 and f"best = {chosen}" in best.stdout,
              f"--setups best runs {chosen}: {best.stdout} {best.stderr}")
        with open(os.path.join(out, "runs.csv"), newline="") as f:
            added = [r for r in csv.DictReader(f) if r["seed"] == "3"]
        check(sorted({r["setup"] for r in added}) == sorted({"conventional", chosen}) and
              len(added) == 4, f"seed 3 of conventional and {chosen}: {added}")
        page = os.path.join(out, "page.md")
        with open(page, "w") as f:
            f.write("# Page\n\nbefore\n\n<!-- paper-quality:begin -->\nold\n"
                    "<!-- paper-quality:end -->\n\nafter\n")
        report = subprocess.run([sys.executable, RUNNER, "report", out, "--docs", page],
                                capture_output=True, text=True)
        check(report.returncode == 0, f"report failed: {report.stderr}")
        with open(page) as f:
            spliced = f.read()
        check("old" not in spliced and "before" in spliced and "after" in spliced,
              "the report replaces only the marked block")
        for text in ("Griewank, best fitness (paper Table 16", "Discus, distance to the optimum",
                     "| `unit-box-whole` (--domain=-1,1 --shift-range whole", "| 300 |"):
            check(text in spliced, f"the report has '{text}'")
        mean = sum(float(r["best_fitness"]) for r in rows
                   if r["setup"] == "unit-box" and r["function"] == "discus") / 2
        discus = spliced.split("Discus, best fitness")[1]
        line = next(l for l in discus.splitlines() if l.startswith("| 300 |"))
        check(paper_quality.sci(mean, 3) in line, f"Discus' unit-box mean {mean} in '{line}'")
    print("test_paper_quality: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
