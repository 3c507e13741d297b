"""The quality columns of Lastra, Molina and Benitez 2014, transcribed from its appendix: Tables
15-20, mean (mu) and standard deviation (sigma) of the best fitness and of its Euclidean distance
to the optimum after 500,000 evaluations, 10 runs per cell (20 for Schwefel 1.2), for the CPU
(sequential) and the GPU code. The main text's Tables 2-12 print the same means; where they
differ (rounding or a slip), the appendix is kept and the main text's value is listed in
MAIN_TEXT_DIFFERS. Every mean is printed with two significant digits."""

DIMS = [100000, 500000, 1000000, 1500000, 3000000]

# function -> (appendix table, main-text table, runs per cell,
#              {side: {"f": [(mu, sigma) per dim], "d": [(mu, sigma) per dim]}})
PAPER = {
    "rastrigin": (15, 2, 10, {
        "cpu": {"f": [(9.1e5, 5.5e3), (5.4e6, 1.5e4), (1.1e7, 1.4e4), (1.6e7, 1.9e4),
                      (3.2e7, 2.9e4)],
                "d": [(3.3e2, 4.7e0), (6.6e2, 4.5e0), (9.2e2, 1.7e0), (1.1e3, 1.8e0),
                      (1.6e3, 3.2e0)]},
        "gpu": {"f": [(5.1e5, 1.3e4), (4.1e6, 3.2e4), (9.0e6, 3.4e4), (1.4e7, 5.5e4),
                      (2.9e7, 7.6e4)],
                "d": [(3.4e2, 9.0e0), (7.2e2, 3.3e0), (1.0e3, 7.9e0), (1.2e3, 4.0e0),
                      (1.7e3, 5.3e0)]}}),
    "griewank": (16, 4, 10, {
        "cpu": {"f": [(-3.1e2, 8.5e-2), (-2.3e2, 2.3e-1), (-1.2e2, 2.1e-1), (-1.7e1, 5.1e-1),
                      (3.0e2, 1.0e0)],
                "d": [(2.8e2, 6.3e-1), (6.4e2, 7.2e-1), (9.1e2, 4.6e-1), (1.1e3, 9.1e-1),
                      (1.6e3, 1.3e0)]},
        "gpu": {"f": [(-3.2e2, 1.7e-1), (-2.4e2, 6.1e-1), (-1.4e2, 5.7e-1), (-3.2e1, 6.3e-1),
                      (2.9e2, 9.6e-1)],
                "d": [(2.1e2, 1.5e0), (5.9e2, 2.0e0), (8.7e2, 1.3e0), (1.1e3, 1.1e0),
                      (1.6e3, 1.2e0)]}}),
    "salomon": (17, 6, 10, {
        "cpu": {"f": [(-3.0e2, 4.9e-2), (-2.7e2, 1.4e-1), (-2.4e2, 6.0e-2), (-2.2e2, 8.9e-2),
                      (-1.7e2, 1.4e-1)],
                "d": [(2.8e2, 4.9e-1), (6.4e2, 1.4e0), (9.1e2, 6.1e-1), (1.1e3, 8.7e-1),
                      (1.6e3, 1.4e0)]},
        "gpu": {"f": [(-3.0e2, 7.6e-2), (-2.7e2, 8.5e-2), (-2.4e2, 9.7e-2), (-2.2e2, 5.6e-2),
                      (-1.7e2, 8.7e-2)],
                "d": [(2.8e2, 7.8e-1), (6.4e2, 8.9e-1), (9.1e2, 1.0e0), (1.1e3, 5.4e-1),
                      (1.6e3, 8.0e-1)]}}),
    "sumsquares": (18, 8, 10, {
        "cpu": {"f": [(3.6e9, 3.0e7), (1.0e11, 1.7e8), (4.1e11, 1.0e9), (9.3e11, 1.8e9),
                      (3.8e12, 7.5e9)],
                "d": [(2.8e2, 6.6e-1), (6.4e2, 5.5e-1), (9.1e2, 1.2e0), (1.1e3, 1.0e0),
                      (1.6e3, 1.6e0)]},
        "gpu": {"f": [(1.5e9, 6.2e7), (8.4e10, 6.8e8), (3.7e11, 1.2e9), (8.7e11, 2.2e9),
                      (3.6e12, 6.4e9)],
                "d": [(2.2e2, 3.0e0), (6.1e2, 1.8e0), (8.9e2, 1.2e0), (1.1e3, 1.0e0),
                      (1.6e3, 9.4e-1)]}}),
    "discus": (19, 10, 10, {
        "cpu": {"f": [(7.7e4, 3.2e2), (4.1e5, 4.4e2), (8.3e5, 1.3e3), (1.2e6, 1.8e3),
                      (2.5e6, 5.0e3)],
                "d": [(2.8e2, 5.7e-1), (6.4e2, 3.4e-1), (9.1e2, 7.0e-1), (1.1e3, 8.1e-1),
                      (1.6e3, 1.6e0)]},
        "gpu": {"f": [(7.7e4, 2.4e2), (4.1e5, 6.3e2), (8.3e5, 2.1e3), (1.3e6, 2.3e3),
                      (2.5e6, 6.1e3)],
                "d": [(2.8e2, 4.2e-1), (6.4e2, 4.9e-1), (9.1e2, 1.2e0), (1.1e3, 1.0e0),
                      (1.6e3, 1.9e0)]}}),
    "schwefel12": (20, 12, 20, {
        "cpu": {"f": [(1.2e7, 5.2e5), (3.6e8, 2.1e7), (1.5e9, 1.1e8), (9.2e14, 1.6e15),
                      (4.7e16, 5.0e14)],
                "d": [(3.9e2, 6.1e0), (9.6e2, 5.7e0), (1.4e3, 6.9e0), (1.6e3, 2.3e2),
                      (1.7e3, 3.4e0)]},
        "gpu": {"f": [(6.8e6, 1.4e6), (2.8e8, 5.6e7), (8.7e10, 8.3e10), (4.9e11, 2.5e11),
                      (1.0e15, 1.1e15)],
                "d": [(3.8e2, 2.0e1), (9.8e2, 4.4e1), (1.4e3, 1.3e1), (1.8e3, 8.4e0),
                      (2.4e3, 2.5e1)]}}),
}

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
