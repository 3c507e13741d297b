"""x0= and population=: the given points of a run's initial population (the command line's
--init), checked and put in the engine's coordinates."""
from __future__ import annotations

from typing import List, Optional

import numpy as np


def _initial_rows(x0, population, dim: Optional[int]) -> Optional[np.ndarray]:
    """x0 (one point) and population (points, a row each) as one float64 array, x0 first."""
    rows = []
    for key, value, ndim in (("x0", x0, 1), ("population", population, 2)):
        if value is None:
            continue
        try:
            a = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{key}: expected an array of numbers") from None
        if a.ndim != ndim or a.shape[-1] == 0:
            raise ValueError(f"{key} has shape {a.shape}; expected "
                             f"{'(dim,)' if ndim == 1 else '(points, dim)'}")
        rows.append(a.reshape(-1, a.shape[-1]))
    if not rows:
        return None
    width = rows[0].shape[1]
    if any(r.shape[1] != width for r in rows) or (dim is not None and width != dim):
        raise ValueError(f"x0/population: points of {[r.shape[1] for r in rows]} variables for "
                         f"dim = {dim if dim is not None else width}")
    if not np.all(np.isfinite(np.concatenate(rows))):
        raise ValueError("x0/population: a value is not finite")
    return np.ascontiguousarray(np.concatenate(rows))


def _engine_rows(initial, lower, upper, dim, per_variable) -> List[float]:
    """The given points in the engine's coordinates (the unit cube for per-variable bounds),
    flat; points outside the bounds are refused here, naming the first such value."""
    if initial is None:
        return []
    if initial.shape[1] != dim:
        raise ValueError(f"x0/population: points of {initial.shape[1]} variables for dim = {dim}")
    lo, hi = (per_variable if per_variable is not None else
              (np.full(dim, lower), np.full(dim, upper)))
    outside = np.argwhere((initial < lo) | (initial > hi))
    if outside.size:
        p, j = outside[0]
        raise ValueError(f"x0/population: point {p}, variable {j} is {initial[p, j]!r}, outside "
                         f"the bounds [{lo[j]!r}, {hi[j]!r}]")
    if per_variable is not None:
        initial = np.clip((initial - lo) / (hi - lo), 0.0, 1.0)
    return initial.ravel().tolist()
