"""chainsaw.Optimizer: any algorithm driven by ask() and tell(), for objectives chainsaw cannot
call itself. The run is the one minimize(fun, ...) makes with a batch objective, bit for bit:
the library's ask/tell optimiser (io/api/ask_tell.hpp) runs it on a worker thread whose
objective hands the rows to ask() and waits for tell()."""
from __future__ import annotations

import os
from typing import Optional

import numpy as np

from . import _core

_USER_PREFIX = "user:"  # how checkpoints name a user objective (fitness/problem.hpp)


class Optimizer:
    """Ask/tell minimisation of an objective evaluated outside chainsaw.

    ``opt = chainsaw.Optimizer(algorithm="de", bounds=(-5, 5), dim=30, evals=20_000, seed=1)``
    then ``while not opt.done: X = opt.ask(); opt.tell(X, f(X))`` and ``opt.result`` (the
    Result minimize returns). ask() returns the rows the algorithm needs evaluated before it can
    go on (float64 with per-variable bounds, else the genes' type), the same rows again until
    they are told: MA-SW-Chains its initial population, then a crossover batch (batch=, 20) at
    once and each Solis-Wets step's candidate alone; DE and jDE a generation (NP rows); PSO an
    iteration (the swarm); Scatter Search its initial population, then an iteration's children
    at once and each improvement step's candidate alone. Every keyword of minimize is taken
    (algorithm, evals, seed, population, de_f, ..., time_limit, target_error, checkpoint,
    checkpoint_every), and x0= and population= start from given points. CPU backend only.
    save(path) writes the run's checkpoint where the algorithm is between two units
    (at_safe_point); Optimizer.load(path, bounds=...) continues it, and a loaded run goes on
    exactly as the uninterrupted one.
    """

    def __init__(self, algorithm: str = "ma-sw-chains", bounds=None, dim: Optional[int] = None,
                 evals: Optional[int] = None, seed: Optional[int] = None,
                 backend: Optional[str] = None, *, x0=None, population=None,
                 name: str = "ask-tell", _resume_from: str = "", **options):
        from . import (_RUN_SPECS, _BUILTIN_ONLY, _arguments, _bounds, _engine_rows,
                       _initial_rows, _native)
        if backend not in (None, "auto", "cpu"):
            raise ValueError(f"backend = {backend!r}: an ask/tell run is on the CPU (its rows "
                             "are evaluated outside chainsaw, on the host)")
        for key in _BUILTIN_ONLY:
            if options.get(key) is not None:
                raise TypeError(f"Optimizer() got the keyword '{key}', which only a built-in "
                                "function takes")
        if not isinstance(name, str) or not name:
            raise ValueError("name: a non-empty string (checkpoints record it)")
        if isinstance(population, (int, np.integer)) and not isinstance(population, bool):
            options["population"], population = int(population), None
        initial = _initial_rows(x0, population, dim)
        if dim is None and initial is not None:
            dim = initial.shape[1]
        self._lower, self._upper, self.dim, self._per_variable = _bounds(bounds, dim)
        rows = _engine_rows(initial, self._lower, self._upper, self.dim, self._per_variable)
        if not _resume_from:
            options = dict(options, algorithm=algorithm, seed=seed)
        options = dict(options, evals=evals, backend="cpu")
        args = _arguments(_RUN_SPECS, options, "Optimizer")
        self._checkpoint = options.get("checkpoint")
        self._native = _native
        self._core = _native(_core.AskTell, args, name, self._lower, self._upper, self.dim,
                             _resume_from, rows)
        self._asked = None

    @classmethod
    def load(cls, path, bounds=None, *, evals: Optional[int] = None, **options) -> "Optimizer":
        """Continues the run of a checkpoint that save() (or checkpoint=) wrote: the same
        bounds again; evals: the new budget (default the checkpoint's); the algorithm, its
        parameters and the seed are the file's."""
        from . import inspect
        path = os.fspath(path)
        info = inspect(path)
        function = info["function"]
        if not function.startswith(_USER_PREFIX):
            raise ValueError(f"{path}: a run on the built-in function {function}: continue it "
                             "with chainsaw.resume")
        return cls(bounds=bounds, dim=info["dim"],
                   evals=info["budget"] if evals is None else evals,
                   name=function[len(_USER_PREFIX):], _resume_from=path, **options)

    def _to_x(self, u: np.ndarray) -> np.ndarray:
        if self._per_variable is None:
            return u
        lo, hi = self._per_variable
        return lo + u * (hi - lo)

    def ask(self) -> np.ndarray:
        """The rows to evaluate now (a 2-D array, a row per point; 0 rows once done)."""
        self._asked = self._to_x(self._native(self._core.ask))
        return self._asked

    def tell(self, X, f) -> None:
        """The fitness f of the rows X of the last ask() (one value per row)."""
        if self._asked is None:
            raise ValueError("tell: no rows are asked; call ask() first")
        X = np.asarray(X)
        if X.shape != self._asked.shape or not np.array_equal(X, self._asked):
            raise ValueError(f"tell: X (shape {X.shape}) is not the rows of the last ask() "
                             f"(shape {self._asked.shape})")
        f = np.asarray(f, dtype=np.float64).reshape(-1)
        if f.shape[0] != X.shape[0]:
            raise ValueError(f"tell: {f.shape[0]} values for {X.shape[0]} rows")
        bad = np.flatnonzero(np.isnan(f) | (f == -np.inf))
        if bad.size:
            raise ValueError(f"tell: f[{bad[0]}] is {f[bad[0]]}: NaN and -inf are not fitness "
                             "values")
        self._native(self._core.tell, f)
        self._asked = None

    @property
    def done(self) -> bool:
        """The budget is used or a stopping rule (time_limit, target_error) held."""
        return self._native(self._core.done)

    @property
    def at_safe_point(self) -> bool:
        """Between two units of the algorithm, where save() can write a checkpoint."""
        return self._native(self._core.at_safe_point)

    def save(self, path) -> None:
        """Writes the run's checkpoint (the format of checkpoint=, resumed by load). Only at a
        safe point: after the tell() that ends a unit, before the next ask()."""
        self._native(self._core.save, os.fspath(path))

    @property
    def result(self):
        """The Result minimize would return for this run (once done)."""
        from . import Result
        native = self._native(self._core.result)
        return Result(native, self._to_x(native["x"]))

    def close(self) -> None:
        """Ends the run now (an unfinished one is abandoned); also on garbage collection."""
        if getattr(self, "_core", None) is not None:
            self._core.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
