"""runs=K: K runs of one configuration, as the field runs them (one problem instance, K seeds),
and their summary, that of ``chainsaw run --runs K`` (io/run/many_runs.cpp computes both)."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List

import numpy as np

from . import _core


class Runs(dict):
    """K runs' outcomes, dict-like: results (a Result per run, in seed order), seeds,
    vary_instance (whether each run posed the instance of its own seed) and summary (mean, sd
    and median of best_fitness, best_error, distance_to_optimum, evaluations and wall_seconds;
    target_reached_runs and _rate; as ``chainsaw run --runs K`` writes it)."""

    def __init__(self, results: List[Any], seeds: List[int], vary_instance: bool):
        super().__init__()
        self["results"] = results
        self["seeds"] = seeds
        self["vary_instance"] = vary_instance
        self["summary"] = json.loads(_core.summarize_runs([r.to_json() for r in results]))

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __len__(self) -> int:
        return len(self["results"])

    def __iter__(self):
        return iter(self["results"])

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            return self["results"][key]
        return dict.__getitem__(self, key)

    def to_json(self) -> str:
        """runs, seeds, vary_instance, summary and every run's result file, as one JSON."""
        return json.dumps({"runs": len(self), "seeds": self["seeds"],
                           "vary_instance": self["vary_instance"], "summary": self["summary"],
                           "results": [r.to_dict() for r in self["results"]]}, indent=2) + "\n"

    def __repr__(self) -> str:
        best = self["summary"]["best_fitness"]
        return (f"chainsaw.Runs({len(self)} runs, seeds {self['seeds'][0]}..{self['seeds'][-1]}, "
                f"best_fitness mean {best['mean']!r}, median {best['median']!r})")


def many_runs(minimize, fun, bounds, runs, keywords: Dict[str, Any], options: Dict[str, Any]):
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise ValueError(f"runs = {runs!r}: an integer, at least 1")
    if options.get("checkpoint") is not None:
        raise ValueError(f"checkpoint: not with runs = {runs} (checkpoint the runs one by one)")
    vary = bool(options.pop("vary_instance", None))
    output = options.pop("output", None)
    seed = options.pop("seed", None)
    seed = 1 if seed is None else int(seed)
    fixed_instance = isinstance(fun, (str, bytes)) and not vary
    problem_seed = int(options.get("problem_seed") or seed)
    results = []
    for k in range(int(runs)):
        o = dict(options, seed=seed + k)
        if fixed_instance:
            o["problem_seed"] = problem_seed
        results.append(minimize(fun, bounds, **keywords, **o))
    out = Runs(results, [seed + k for k in range(int(runs))], vary)
    if output is not None:
        tmp = os.fspath(output) + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(out.to_json())
        os.replace(tmp, os.fspath(output))
    return out
