#!/usr/bin/env python3
"""One generation of sep-CMA-ES in float64 NumPy, written from the papers, not from chainsaw.

    sep_cma_reference.py INPUT OUTPUT

Hansen, "The CMA Evolution Strategy: A Tutorial" (2016): the default weights, mu_eff, c_sigma,
d_sigma, c_c, c_1, c_mu (Table 1, positive weights) and the update of m, p_sigma, sigma, p_c and
C (eqs. 39-47), with C diagonal and c_1, c_mu times (n + 2) / 3 (Ros & Hansen 2008).

INPUT, whitespace-separated: n lambda g sigma; then mean, C's diagonal, p_c, p_sigma (n numbers
each); then the lambda evaluated points (n numbers each, y_k = (x_k - m) / sigma); then their
lambda f values. OUTPUT: mean, C, p_c, p_sigma (a line each), then sigma and the new g.
Exit status 77 when NumPy is missing (the calling test skips).
"""
import sys

try:
    import numpy as np
except ImportError:
    sys.exit(77)


def parameters(n, lam):
    mu = lam // 2
    w = np.log((lam + 1) / 2.0) - np.log(np.arange(1, mu + 1))
    w = w / w.sum()
    mu_eff = 1.0 / np.sum(w ** 2)
    c_sigma = (mu_eff + 2) / (n + mu_eff + 5)
    d_sigma = 1 + 2 * max(0.0, np.sqrt((mu_eff - 1) / (n + 1)) - 1) + c_sigma
    c_c = (4 + mu_eff / n) / (n + 4 + 2 * mu_eff / n)
    c_1 = 2 / ((n + 1.3) ** 2 + mu_eff)
    c_mu = min(1 - c_1, 2 * (mu_eff - 2 + 1 / mu_eff) / ((n + 2) ** 2 + mu_eff))
    c_1, c_mu = min(1.0, c_1 * (n + 2) / 3), c_mu * (n + 2) / 3
    c_mu = min(1 - c_1, c_mu)
    chi_n = np.sqrt(n) * (1 - 1 / (4 * n) + 1 / (21 * n ** 2))
    return mu, w, mu_eff, c_sigma, d_sigma, c_c, c_1, c_mu, chi_n


def update(n, lam, g, sigma, m, c, pc, ps, x, f):
    mu, w, mu_eff, c_sigma, d_sigma, c_c, c_1, c_mu, chi_n = parameters(n, lam)
    order = np.argsort(f, kind="stable")
    y = (x[order[:mu]] - m) / sigma            # mu x n, best first
    y_w = w @ y
    m = m + sigma * y_w
    ps = (1 - c_sigma) * ps + np.sqrt(c_sigma * (2 - c_sigma) * mu_eff) * y_w / np.sqrt(c)
    g = g + 1
    norm = np.linalg.norm(ps)
    h = norm / np.sqrt(1 - (1 - c_sigma) ** (2 * g)) < (1.4 + 2 / (n + 1)) * chi_n
    pc = (1 - c_c) * pc + (np.sqrt(c_c * (2 - c_c) * mu_eff) * y_w if h else 0.0)
    delta = 0.0 if h else c_c * (2 - c_c)
    c = (1 - c_1 - c_mu + c_1 * delta) * c + c_1 * pc ** 2 + c_mu * (w @ y ** 2)
    sigma = sigma * np.exp(c_sigma / d_sigma * (norm / chi_n - 1))
    return m, c, pc, ps, sigma, g


def main():
    with open(sys.argv[1]) as f:
        values = np.array(f.read().split(), dtype=np.float64)
    n, lam, g, sigma = int(values[0]), int(values[1]), int(values[2]), values[3]
    at = 4
    vectors = []
    for _ in range(4):
        vectors.append(values[at:at + n])
        at += n
    x = values[at:at + lam * n].reshape(lam, n)
    at += lam * n
    f = values[at:at + lam]
    m, c, pc, ps, sigma, g = update(n, lam, g, sigma, *vectors, x, f)
    with open(sys.argv[2], "w") as out:
        for v in (m, c, pc, ps):
            out.write(" ".join(repr(float(e)) for e in v) + "\n")
        out.write(f"{float(sigma)!r} {g}\n")


if __name__ == "__main__":
    main()
