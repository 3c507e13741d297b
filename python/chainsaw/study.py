"""A study's results (``chainsaw study FILE``, docs/study.md) as a pandas DataFrame, and its
report: mean, sd and median per cell, Wilcoxon rank-sum tests against a baseline with Holm's
correction, Friedman ranks, the CEC 2013 milestone table, the papers' published means beside,
convergence and box plots, in Markdown and HTML.

    import chainsaw.study
    df = chainsaw.study.load("examples/study")      # one row per run
    chainsaw.study.report("examples/study")         # FOLDER/report.md, report.html, ...

    /usr/bin/python3 python/chainsaw/study.py report FOLDER [--baseline NAME] [--measure M]

Pure Python (pandas; SciPy and matplotlib for the report): it reads FOLDER/runs.csv,
FOLDER/study.json and the result files under FOLDER/runs/, never the compiled module, so it
imports where that is missing and runs as a script by its path where chainsaw is not installed.
``chainsaw study`` runs it after the runs.
"""
import argparse
import html
import json
import math
import os
import sys

MEASURES = ("best_error", "best_fitness", "distance_to_optimum")
CELL = ["function", "dim", "evals", "instance"]  # the runs of one cell differ in the seed only
GRID_POINTS = 64  # the convergence plots' common evaluation grid


def load(folder):
    """The study's runs as a DataFrame, one row per run: the configuration (algorithm and
    function as the study names them, dim, evals, instance, seed, backend, genes, ...) and the
    result (best_fitness, best_error, distance_to_optimum, evaluations, wall_seconds,
    stopped_by, target_evaluations); `file` is the run's result file under FOLDER."""
    import pandas as pd
    path = os.path.join(folder, "runs.csv")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no such table (chainsaw study writes it)")
    return pd.read_csv(path, dtype={"key": str}, float_precision="round_trip")  # exact doubles


def description(folder):
    """FOLDER/study.json: the algorithms and functions in the study's order, its baseline and
    measure."""
    with open(os.path.join(folder, "study.json")) as f:
        return json.load(f)


def holm(pvalues):
    """Holm's step-down adjusted p-values, in the order given."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def cell_statistics(df, measure="best_error"):
    """Per cell and algorithm: the number of runs, mean, sd (n - 1), median, min, max."""
    g = df.groupby(CELL + ["algorithm"], sort=False)[measure]
    out = g.agg(runs="count", mean="mean", sd="std", median="median", min="min", max="max")
    return out.reset_index()


def compare(df, baseline, measure="best_error", alpha=0.05):
    """Every other algorithm against `baseline` in every cell: the two-sided Wilcoxon rank-sum
    (Mann-Whitney U) p-value, Holm's adjustment over all these tests, and the sign: + (better,
    i.e. smaller), - (worse) or = (no difference at `alpha` after Holm)."""
    import pandas as pd
    from scipy.stats import mannwhitneyu
    rows = []
    for cell, runs in df.groupby(CELL, sort=False):
        base = runs.loc[runs["algorithm"] == baseline, measure].to_numpy(float)
        for algorithm, own in runs.groupby("algorithm", sort=False):
            if algorithm == baseline or len(base) == 0:
                continue
            x = own[measure].to_numpy(float)
            if len(set(x) | set(base)) == 1:
                u, p = len(x) * len(base) / 2.0, 1.0  # all equal: no evidence either way
            else:
                u, p = mannwhitneyu(x, base, alternative="two-sided")
            rows.append(dict(zip(CELL, cell), algorithm=algorithm, u=float(u), p=float(p),
                             smaller=float(u) < len(x) * len(base) / 2.0))
    out = pd.DataFrame(rows, columns=CELL + ["algorithm", "u", "p", "smaller"])
    out["p_holm"] = holm(list(out["p"]))
    out["sign"] = ["=" if q >= alpha else ("+" if s else "-")
                   for q, s in zip(out["p_holm"], out["smaller"])]
    return out.drop(columns="smaller")


def friedman(df, algorithms, measure="best_error"):
    """The algorithms' mean ranks over the cells (rank 1: the smallest mean of `measure` in a
    cell; ties share their mean rank), with Friedman's statistic and p-value (None for fewer
    than three algorithms or two cells). Cells lacking an algorithm are left out."""
    import numpy as np
    from scipy.stats import friedmanchisquare, rankdata
    means = df.groupby(CELL + ["algorithm"], sort=False)[measure].mean().unstack("algorithm")
    means = means.reindex(columns=algorithms).dropna()
    ranks = np.array([rankdata(row) for row in means.to_numpy(float)]).reshape(-1, len(algorithms))
    mean_ranks = dict(zip(algorithms, ranks.mean(axis=0) if len(ranks) else [math.nan] * len(algorithms)))
    statistic = p = None
    if len(algorithms) >= 3 and len(means) >= 2:
        statistic, p = (float(v) for v in friedmanchisquare(*means.to_numpy(float).T))
    return mean_ranks, statistic, p, len(means)


def _offset(row, measure):
    """f*, which turns a recorded best fitness into the error; 0 for the fitness itself."""
    if measure != "best_fitness" and not math.isnan(row["best_error"]):
        return row["best_fitness"] - row["best_error"]
    return 0.0


def _recorded(folder, row, measure):
    """A run's milestone records (`--milestones`) as {evaluations: error (or fitness)}, with its
    end (the budget) for the measure of the table, which may be the distance."""
    with open(os.path.join(folder, row["file"])) as f:
        marks = json.load(f).get("milestones") or []
    offset = _offset(row, measure)
    out = {int(e): float(b) - offset for e, _, b in marks}
    if measure in row:
        out[int(row["evals"])] = float(row[measure])
    return out


def milestone_measure(measure):
    """What a milestone records: the error, or the fitness where that is the measure (a
    distance is known at the end of a run only)."""
    return "best_fitness" if measure == "best_fitness" else "best_error"


def milestone_statistics(df, folder, measure="best_error"):
    """The CEC 2013 LSGO competition's table (Li et al. 2013): per cell, algorithm and
    milestone of the runs (`milestones` in the study file), the best, median, worst, mean and
    sd (n - 1) of the error (or fitness) over the seeds. Empty where no run has milestones."""
    import pandas as pd
    m = milestone_measure(measure)
    rows = []
    for (*cell, algorithm), runs in df.groupby(CELL + ["algorithm"], sort=False):
        records = []
        for _, row in runs.iterrows():
            with open(os.path.join(folder, row["file"])) as f:
                marks = json.load(f).get("milestones") or []
            records += [(int(e), float(b) - _offset(row, m)) for e, _, b in marks]
        values = pd.DataFrame(records, columns=["evaluations", "value"])
        for e, own in values.groupby("evaluations", sort=True):
            v = own["value"]
            rows.append(dict(zip(CELL, cell), algorithm=algorithm, evaluations=int(e),
                             runs=len(v), best=v.min(), median=v.median(), worst=v.max(),
                             mean=v.mean(), sd=v.std()))
    return pd.DataFrame(rows, columns=CELL + ["algorithm", "evaluations", "runs", "best",
                                              "median", "worst", "mean", "sd"])


def published_comparison(df, folder, published):
    """The study's means beside the papers' ([published.NAME] in the study file), long form:
    per cell a paper has a value for, at its evaluations (default: the budget) and of its
    measure, a row per algorithm (source "study": mean, sd and runs of its runs) and per paper
    (source "published": its mean and sd)."""
    import pandas as pd
    rows = []
    for p in published:
        for cell, runs in df.groupby(CELL, sort=False):
            function, dim, evals = cell[0], int(cell[1]), int(cell[2])
            if function not in p["mean"] or (p["dims"] and dim not in p["dims"]):
                continue
            at = p["evaluations"] or evals
            if at > evals:
                continue
            k = p["dims"].index(dim) if p["dims"] else None
            mean, sd = p["mean"][function], p["sd"].get(function)
            base = dict(zip(CELL, cell), measure=p["measure"], evaluations=at)
            rows.append(dict(base, source="published", name=p["name"],
                             mean=mean if k is None else mean[k],
                             sd=math.nan if sd is None else (sd if k is None else sd[k]),
                             runs=math.nan))
            for algorithm, own in runs.groupby("algorithm", sort=False):
                values = [v[at] for v in (_recorded(folder, r, p["measure"])
                                          for _, r in own.iterrows()) if at in v]
                if values:
                    s = pd.Series(values, dtype=float)
                    rows.append(dict(base, source="study", name=algorithm, mean=s.mean(),
                                     sd=s.std(), runs=len(values)))
    return pd.DataFrame(rows, columns=CELL + ["measure", "evaluations", "source", "name", "mean",
                                              "sd", "runs"])


def _trace(folder, row, measure):
    """A run's convergence curve: (evaluations, value) with value the best error (or fitness)."""
    with open(os.path.join(folder, row["file"])) as f:
        trace = json.load(f)["trace"]
    offset = _offset(row, measure)  # f*: the curve is the error
    return [(int(e), float(b) - offset) for e, _, b in trace]


def step_values(trace, grid):
    """The best so far at each grid point: the last trace value at or before it (NaN before
    the first point)."""
    values, k = [], -1
    for g in grid:
        while k + 1 < len(trace) and trace[k + 1][0] <= g:
            k += 1
        values.append(trace[k][1] if k >= 0 else math.nan)
    return values


def convergence(df, folder, measure="best_error", points=GRID_POINTS):
    """Per cell and algorithm, on a grid of evaluations common to the cell (log-spaced from the
    earliest trace point to the budget): the median and quartiles over the runs."""
    import numpy as np
    import pandas as pd
    rows = []
    for cell, runs in df.groupby(CELL, sort=False):
        traces = {i: _trace(folder, r, measure) for i, r in runs.iterrows()}
        first = min(t[0][0] for t in traces.values() if t)
        grid = sorted(set(int(round(v)) for v in np.geomspace(max(first, 1), cell[2], points)))
        for algorithm, own in runs.groupby("algorithm", sort=False):
            values = np.array([step_values(traces[i], grid) for i in own.index], float)
            for j, e in enumerate(grid):
                column = values[:, j][~np.isnan(values[:, j])]
                if len(column) == 0:
                    continue
                q25, median, q75 = np.percentile(column, [25, 50, 75])
                rows.append(dict(zip(CELL, cell), algorithm=algorithm, evaluations=e,
                                 runs=len(column), median=median, q25=q25, q75=q75))
    return pd.DataFrame(rows)


def _cell_name(cell):
    f, d, e, i = cell
    return f"{f} D={d} {e:,} evals" + (f" inst {i}" if i != 1 else "")


def _plots(df, curves, algorithms, measure, folder):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cells = list(dict.fromkeys(df[CELL].itertuples(index=False, name=None)))
    cols = min(3, len(cells))
    rows = (len(cells) + cols - 1) // cols
    label = "error f(best) - f*" if measure == "best_error" else measure.replace("_", " ")
    for kind in ("convergence", "boxplots"):
        fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.7 * rows), squeeze=False)
        for ax, cell in zip(axes.flat, cells):
            mask = (df[CELL] == list(cell)).all(axis=1)
            if kind == "convergence":
                cmask = (curves[CELL] == list(cell)).all(axis=1)
                for a in algorithms:
                    c = curves[cmask & (curves["algorithm"] == a)]
                    if len(c):
                        line, = ax.plot(c["evaluations"], c["median"], label=a, lw=1.2)
                        ax.fill_between(c["evaluations"], c["q25"], c["q75"], alpha=0.25,
                                        color=line.get_color(), lw=0)
                ax.set_xscale("log")
                ax.set_xlabel("evaluations", fontsize=7)
            else:
                data = [df[mask & (df["algorithm"] == a)][measure] for a in algorithms]
                ax.boxplot(data, labels=algorithms)
                ax.tick_params(axis="x", labelsize=6)
            values = df[mask][measure] if kind == "boxplots" else curves[
                (curves[CELL] == list(cell)).all(axis=1)]["q25"]
            if len(values) and (values > 0).all():
                ax.set_yscale("log")
            ax.set_title(_cell_name(cell), fontsize=8)
            ax.tick_params(which="both", labelsize=6)
        for ax in list(axes.flat)[len(cells):]:
            ax.axis("off")
        axes.flat[0].set_ylabel(label, fontsize=7)
        if kind == "convergence":
            axes.flat[0].legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(os.path.join(folder, f"{kind}.png"), dpi=72)
        plt.close(fig)


def _fmt(x):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3e}"


def _blocks(df, desc, stats, tests, ranks, measure, baseline, milestones, comparison):
    """The report as blocks: ("h", level, text), ("p", text), ("table", header, rows),
    ("img", file, caption)."""
    algorithms = desc["algorithms"]
    seeds = sorted(df["seed"].unique())
    blocks = [("h", 1, f"Study {os.path.basename(desc['file'])}"),
              ("p", f"{len(df)} runs: {', '.join(algorithms)} on {', '.join(desc['functions'])}; "
                    f"D {', '.join(str(d) for d in sorted(df['dim'].unique()))}; budgets "
                    f"{', '.join(f'{e:,}' for e in sorted(df['evals'].unique()))} evaluations; "
                    f"{len(seeds)} seeds ({seeds[0]}..{seeds[-1]}); {df['backend'].iloc[0]} "
                    f"backend, {df['genes'].iloc[0]} genes. Measure: {measure}"
                    f"{' (f(best) - f*)' if measure == 'best_error' else ''}. Baseline: "
                    f"{baseline}.")]
    signs = {(tuple(r[c] for c in CELL), r["algorithm"]): r["sign"] for _, r in tests.iterrows()}
    header = ["function", "D", "evals"] + [f"{a}: mean (sd), median" for a in algorithms]
    rows = []
    for cell, own in stats.groupby(CELL, sort=False):
        row = [cell[0], str(cell[1]), f"{cell[2]:,}"]
        by = {r["algorithm"]: r for _, r in own.iterrows()}
        for a in algorithms:
            r = by.get(a)
            text = "" if r is None else f"{_fmt(r['mean'])} ({_fmt(r['sd'])}), {_fmt(r['median'])}"
            if r is not None and a != baseline:
                text += f" {signs.get((cell, a), '')}"
            row.append(text.strip())
        rows.append(row)
    signs_meaning = "" if len(algorithms) == 1 else (
        f" Beside each algorithm but {baseline}: + significantly smaller than {baseline}, - "
        f"larger, = no significant difference (two-sided Wilcoxon rank-sum, alpha 0.05, Holm's "
        f"correction over the {len(tests)} tests).")
    blocks += [("h", 2, "Results per cell"),
               ("p", "Over the seeds of each cell." + signs_meaning),
               ("table", header, rows)]
    if len(algorithms) > 1:  # one algorithm: nothing to compare or rank
        blocks += _comparison_blocks(algorithms, baseline, tests, ranks)
    blocks += _milestone_blocks(milestones, algorithms, measure)
    blocks += _published_blocks(comparison, desc.get("published", []), algorithms)
    blocks += [("h", 2, "Convergence"),
               ("img", "convergence.png", "median and quartile band of the runs on a common "
                                          "evaluation grid, per cell"),
               ("h", 2, "Box plots"),
               ("img", "boxplots.png", f"{measure} at the end of the runs, per cell")]
    return blocks


def _comparison_blocks(algorithms, baseline, tests, ranks):
    """The Wilcoxon rank-sum tests against the baseline and the Friedman ranks."""
    counts = [[a, str((tests.algorithm == a).sum()), *(str(((tests.algorithm == a) &
               (tests.sign == s)).sum()) for s in "+=-")] for a in algorithms if a != baseline]
    blocks = [("h", 2, f"Wilcoxon rank-sum against {baseline}"),
              ("table", ["algorithm", "cells", "+", "=", "-"], counts),
              ("table", ["function", "D", "evals", "algorithm", "p", "Holm p", "sign"],
               [[r["function"], str(r["dim"]), f"{r['evals']:,}", r["algorithm"], _fmt(r["p"]),
                 _fmt(r["p_holm"]), r["sign"]] for _, r in tests.iterrows()])]
    mean_ranks, statistic, p, cells = ranks
    blocks += [("h", 2, "Friedman ranks"),
               ("p", f"Mean rank of the cell means over {cells} cells (1: best)."
                     + (f" Friedman's chi-square {statistic:.3f}, p = {p:.3e}." if p is not None
                        else " Friedman's test needs three algorithms and two cells.")),
               ("table", ["algorithm", "mean rank"],
                [[a, f"{mean_ranks[a]:.3f}"] for a in algorithms])]
    return blocks


def _column_names(cells):
    """The cells as table columns: the function alone where that tells them apart."""
    if len({c[0] for c in cells}) == len(cells):
        return [c[0] for c in cells]
    return [_cell_name(c) for c in cells]


def _milestone_blocks(milestones, algorithms, measure, columns_per_table=8):
    """Per algorithm, the competition's layout: a row per milestone and statistic, a column
    per cell."""
    if milestones.empty:
        return []
    what = "fitness" if milestone_measure(measure) == "best_fitness" else "error f(best) - f*"
    blocks = [("h", 2, "Milestones"),
              ("p", f"The {what} after exactly the evaluations of each milestone (the result "
                    "files' `milestones`) over the seeds: best, median, worst, mean and sd, as "
                    "the CEC 2013 LSGO competition tabulates them (Li et al. 2013).")]
    for a in algorithms:
        own = milestones[milestones["algorithm"] == a]
        if own.empty:
            continue
        cells = list(dict.fromkeys(own[CELL].itertuples(index=False, name=None)))
        by = {(tuple(r[c] for c in CELL), r["evaluations"]): r for _, r in own.iterrows()}
        marks = sorted(own["evaluations"].unique())
        blocks.append(("h", 3, a))
        for start in range(0, len(cells), columns_per_table):
            part = cells[start:start + columns_per_table]
            rows = [[f"{e:.1e}", stat] + [_fmt(by[(c, e)][stat]) if (c, e) in by else ""
                                          for c in part]
                    for e in marks for stat in ("best", "median", "worst", "mean", "sd")]
            blocks.append(("table", ["evaluations", ""] + _column_names(part), rows))
    return blocks


def _published_blocks(comparison, published, algorithms):
    """The study's means beside the papers': a table per measure and evaluation point."""
    if comparison.empty:
        return []
    blocks = [("h", 2, "Beside the published results"),
              ("p", "Means over the seeds beside the papers' (their own runs; no per-run values "
                    "are published, so a comparison of means, no rank test).")]
    papers = {p["name"]: p for p in published}
    for (measure, at), own in comparison.groupby(["measure", "evaluations"], sort=False):
        names = list(dict.fromkeys(own.loc[own["source"] == "published", "name"]))
        header = ["function", "D"] + [f"{a} mean" for a in algorithms] + \
                 [f"{n} mean (sd)" for n in names] + ["lowest"]
        rows = []
        for cell, c in own.groupby(CELL, sort=False):
            by = {(r["source"], r["name"]): r for _, r in c.iterrows()}
            means = {a: by[("study", a)]["mean"] for a in algorithms if ("study", a) in by}
            means.update({n: by[("published", n)]["mean"] for n in names if ("published", n) in by})
            row = [cell[0], str(cell[1])] + [_fmt(means.get(a)) for a in algorithms]
            for n in names:
                r = by.get(("published", n))
                row.append("" if r is None else _fmt(r["mean"]) +
                           ("" if math.isnan(r["sd"]) else f" ({_fmt(r['sd'])})"))
            row.append(min(means, key=lambda k: means[k]) if means else "")
            rows.append(row)
        blocks += [("h", 3, f"{measure} after {at:,} evaluations"), ("table", header, rows)]
        blocks += [("p", "; ".join(f"{n}: {papers[n]['citation']}" for n in names) + ".")]
    return blocks


def _markdown(blocks):
    out = []
    for b in blocks:
        if b[0] == "h":
            out.append("#" * b[1] + " " + b[2])
        elif b[0] == "p":
            out.append(b[1])
        elif b[0] == "table":
            out.append("\n".join(["| " + " | ".join(b[1]) + " |",
                                  "|" + "---|" * len(b[1])] +
                                 ["| " + " | ".join(r) + " |" for r in b[2]]))
        else:
            out.append(f"![{b[2]}]({b[1]})")
    return "\n\n".join(out) + "\n"


def _html(blocks, title):
    e = html.escape
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{e(title)}</title>"
           "<style>body{font-family:sans-serif;max-width:80em}table{border-collapse:collapse}"
           "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style></head><body>"]
    for b in blocks:
        if b[0] == "h":
            out.append(f"<h{b[1]}>{e(b[2])}</h{b[1]}>")
        elif b[0] == "p":
            out.append(f"<p>{e(b[1])}</p>")
        elif b[0] == "table":
            out.append("<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in b[1]) + "</tr>" +
                       "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>"
                               for r in b[2]) + "</table>")
        else:
            out.append(f"<figure><img src='{e(b[1])}' alt='{e(b[2])}'>"
                       f"<figcaption>{e(b[2])}</figcaption></figure>")
    return "\n".join(out) + "\n</body></html>\n"


def report(folder, baseline=None, measure=None, alpha=0.05):
    """Writes FOLDER/report.md and report.html with convergence.png and boxplots.png, and the
    numbers behind them: statistics.csv, tests.csv, ranks.csv, convergence.csv, milestones.csv
    (the runs' milestones) and published.csv (the study's means beside the papers')."""
    desc = description(folder)
    baseline = baseline or desc["baseline"]
    measure = measure or desc["measure"]
    if measure not in MEASURES:
        raise ValueError(f"measure = {measure}: must be one of {', '.join(MEASURES)}")
    df = load(folder)
    if df.empty:
        raise ValueError(f"{folder}/runs.csv: no runs yet")
    if baseline not in desc["algorithms"]:
        raise ValueError(f"baseline = {baseline}: not one of {', '.join(desc['algorithms'])}")
    stats = cell_statistics(df, measure)
    tests = compare(df, baseline, measure, alpha)
    ranks = friedman(df, desc["algorithms"], measure)
    curves = convergence(df, folder, measure)
    milestones = milestone_statistics(df, folder, measure)
    comparison = published_comparison(df, folder, desc.get("published", []))
    milestones.to_csv(os.path.join(folder, "milestones.csv"), index=False)
    comparison.to_csv(os.path.join(folder, "published.csv"), index=False)
    stats.to_csv(os.path.join(folder, "statistics.csv"), index=False)
    tests.to_csv(os.path.join(folder, "tests.csv"), index=False)
    mean_ranks, statistic, p, cells = ranks
    with open(os.path.join(folder, "ranks.csv"), "w") as f:
        f.write("algorithm,mean_rank,friedman_statistic,friedman_p,cells\n")
        for a in desc["algorithms"]:
            f.write(f"{a},{mean_ranks[a]!r},{'' if statistic is None else repr(statistic)},"
                    f"{'' if p is None else repr(p)},{cells}\n")
    curves.to_csv(os.path.join(folder, "convergence.csv"), index=False)
    _plots(df, curves, desc["algorithms"], measure, folder)
    blocks = _blocks(df, desc, stats, tests, ranks, measure, baseline, milestones, comparison)
    with open(os.path.join(folder, "report.md"), "w") as f:
        f.write(_markdown(blocks))
    with open(os.path.join(folder, "report.html"), "w") as f:
        f.write(_html(blocks, blocks[0][2]))


def main(argv=None):
    ap = argparse.ArgumentParser(prog="chainsaw.study", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("report", help="FOLDER/report.md and report.html from FOLDER/runs.csv")
    r.add_argument("folder")
    r.add_argument("--baseline", help="default: the study's baseline")
    r.add_argument("--measure", choices=MEASURES, help="default: the study's measure")
    r.add_argument("--alpha", type=float, default=0.05)
    a = ap.parse_args(argv)
    try:
        report(a.folder, a.baseline, a.measure, a.alpha)
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"chainsaw.study: error: {e}")
    print(f"chainsaw.study: wrote {os.path.join(a.folder, 'report.md')} and report.html")


if __name__ == "__main__":
    main()
