"""The quality columns of Lastra, Molina and Benitez 2014, transcribed from its appendix: Tables
15-20, mean (mu) and standard deviation (sigma) of the best fitness and of its Euclidean distance
to the optimum after 500,000 evaluations, 10 runs per cell (20 for Schwefel 1.2), for the CPU
(sequential) and the GPU code. The values are the [published.lastra-*] tables of the study file
lastra2014.toml (one transcription, which the study's report sets beside its runs). The main
text's Tables 2-12 print the same means; where they differ (rounding or a slip), the appendix is
kept and the main text's value is listed in MAIN_TEXT_DIFFERS. Every mean is printed with two
significant digits."""
import os
import tomllib

STUDY_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lastra2014.toml")
# function -> (appendix table, main-text table, runs per cell)
TABLES = {"rastrigin": (15, 2, 10), "griewank": (16, 4, 10), "salomon": (17, 6, 10),
          "sumsquares": (18, 8, 10), "discus": (19, 10, 10), "schwefel12": (20, 12, 20)}


def _read_paper():
    """(PAPER, DIMS) from the study file: function -> (appendix table, main-text table, runs per
    cell, {side: {"f": [(mu, sigma) per dim], "d": [(mu, sigma) per dim]}})."""
    with open(STUDY_FILE, "rb") as f:
        published = tomllib.load(f)["published"]
    paper = {}
    for function, numbers in TABLES.items():
        sides = {}
        for side in ("cpu", "gpu"):
            sides[side] = {}
            for measure, suffix in (("f", ""), ("d", "-distance")):
                t = published[f"lastra-{side}{suffix}"]
                sides[side][measure] = list(zip(t["mean"][function], t["sd"][function]))
        paper[function] = (*numbers, sides)
    return paper, published["lastra-gpu"]["dims"]


PAPER, DIMS = _read_paper()

# (function, side, measure, dim): the main text's mean where it differs from the appendix's.
MAIN_TEXT_DIFFERS = {
    ("rastrigin", "cpu", "f", 500000): 5.6e6,
    ("rastrigin", "cpu", "d", 100000): 3.2e2,
    ("rastrigin", "gpu", "d", 1000000): 9.9e2,
    ("griewank", "cpu", "d", 1500000): 1.2e3,
    ("griewank", "gpu", "d", 1000000): 8.8e2,
    ("salomon", "cpu", "d", 500000): 6.5e2,
    ("schwefel12", "gpu", "f", 500000): 2.7e8,
    ("schwefel12", "cpu", "d", 100000): 3.8e2,
    ("schwefel12", "cpu", "d", 500000): 9.5e2,
    ("schwefel12", "gpu", "d", 500000): 9.7e2,
    ("schwefel12", "cpu", "d", 1500000): 1.7e3,
}


def cell(function, side, measure, dim):
    """(mu, sigma) of the paper's appendix table for one cell."""
    return PAPER[function][3][side][measure][DIMS.index(dim)]


def rounding_half_unit(mu):
    """Half a unit in the last of the two printed significant digits of mu: how far the true
    mean may lie from the printed one."""
    from math import floor, log10
    return 0.0 if mu == 0 else 0.5 * 10.0 ** (floor(log10(abs(mu))) - 1)


def tolerance(function, side, measure, dim):
    """How far a mean may lie from the paper's and still count as reproducing it: its sigma,
    or the printed mean's rounding where that is larger."""
    mu, sigma = cell(function, side, measure, dim)
    return max(sigma, rounding_half_unit(mu))
