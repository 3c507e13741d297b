"""chainsaw: MA-SW-Chains (a steady-state GA with Solis-Wets local-search chains) for
large-scale continuous minimisation on the CPU (OpenMP) or a GPU (CUDA), from Python.

    import chainsaw
    r = chainsaw.minimize("rastrigin", dim=10**5, evals=200_000, seed=1)
    r = chainsaw.minimize(lambda X: (X.astype("f8") ** 2).sum(axis=1), bounds=(-5, 5), dim=1000)

Every option of ``chainsaw run`` is a keyword of :func:`minimize`, with the same name (dashes
as underscores), default and checks; docs/python.md has the whole guide.
"""
from __future__ import annotations

import math
import os
import re
import sys
import threading
from typing import Any, Callable, Dict, List, Optional

import json as _json

import numpy as np

try:
    from . import _core
    from ._core import ChainsawError
    _BUILT = True
except ImportError as _missing:  # a source tree or a copy without it: chainsaw.study still works
    from ._no_core import ChainsawError, NoCore
    _core = NoCore(_missing)
    _BUILT = False
from ._points import _engine_rows, _initial_rows

__all__ = ["minimize", "resume", "inspect", "functions", "run_options", "shift", "evaluate",
           "Optimizer", "Result", "Runs", "State", "ChainsawError", "__version__", "GENES",
           "CUDA_BUILT"]

if not _BUILT:
    # Every use of the compiled functions (and of these tables) raises its one-line ImportError.
    __version__, GENES, CUDA_BUILT = "unbuilt", "unbuilt", False
    _RUN_SPECS = _RESUME_SPECS = _core
else:
    __version__: str = _core.version
    #: The genes' type of this build: "float32" (the default) or "float64" (-DCHAINSAW_DOUBLE=ON).
    GENES: str = _core.genes
    #: Whether this build has the CUDA backend.
    CUDA_BUILT: bool = _core.cuda_built
    _RUN_SPECS = {s["name"].replace("-", "_"): s for s in _core.option_specs("run")}
    _RESUME_SPECS = {s["name"].replace("-", "_"): s for s in _core.option_specs("resume")}
# The run options that make no sense for a user objective: the objective is the problem.
_BUILTIN_ONLY = ("function", "problem_seed", "instance", "dry_run")
# The options of a resumed user objective run (optimize() reads the rest from the checkpoint).
_USER_RESUME = ("evals", "backend", "threads", "output", "quiet", "profile", "checkpoint",
                "checkpoint_every")


def run_options(command: str = "run") -> List[Dict[str, Any]]:
    """The keywords of :func:`minimize` (command "run") or :func:`resume` ("resume"): the
    command line's options with their name, default (as ``--help`` shows it), type and help."""
    return [dict(s, name=s["name"].replace("-", "_")) for s in _core.option_specs(command)]


def _pythonic(message: str) -> str:
    """The command line's "--blx-alpha = 2: ..." as "blx_alpha = 2: ..."; its --init (a file)
    is Python's x0/population."""
    message = message.replace("--init:", "x0/population:")
    return re.sub(r"--([a-z][a-z0-9-]*)", lambda m: m.group(1).replace("-", "_"), message)


def _native(fn, *args):
    try:
        return fn(*args)
    except ChainsawError as e:
        raise ChainsawError(_pythonic(str(e))) from None


def _text(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return repr(float(value))  # shortest text that reads back to the same double
    if isinstance(value, (os.PathLike,)):
        return os.fspath(value)
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


def _arguments(specs: Dict[str, dict], options: Dict[str, Any], caller: str) -> List[str]:
    args: List[str] = []
    for key, value in options.items():
        spec = specs.get(key)
        if spec is None:
            raise TypeError(f"{caller}() got an unexpected keyword argument '{key}'")
        if value is None:
            continue  # the default
        if spec["flag"]:
            if not isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{key} = {value!r}: a flag takes True or False")
            if value:
                args.append("--" + spec["name"])
        else:
            args.append(f"--{spec['name']}={_text(value)}")
    return args


class State:
    """What ``callback(state)`` sees after the initial population and after every round: the
    intermediate result, in SciPy's manner (x, fun, nfev), and the budget and time."""

    __slots__ = ("x", "evaluations", "budget", "best_fitness", "elapsed_seconds")

    def __init__(self, evaluations: int, budget: int, best_fitness: float, seconds: float,
                 x: Optional[np.ndarray] = None):
        self.x = x
        self.evaluations = evaluations
        self.budget = budget
        self.best_fitness = best_fitness
        self.elapsed_seconds = seconds

    @property
    def fun(self) -> float:
        return self.best_fitness

    @property
    def nfev(self) -> int:
        return self.evaluations

    def __repr__(self) -> str:
        return (f"State(evaluations={self.evaluations}, budget={self.budget}, "
                f"best_fitness={self.best_fitness!r}, elapsed_seconds={self.elapsed_seconds:.3f})")


class _Progress:
    """The hook the run calls: the user's callback, a tqdm bar (or a plain line on stderr).
    to_x maps the engine's genes to the caller's coordinates (per-variable bounds)."""

    def __init__(self, callback: Optional[Callable], show: bool, to_x=None):
        self.callback = callback
        self.bar = None
        self.show = show
        self.last_line = 0.0
        self.to_x = to_x
        self.stop_iteration = False

    def __call__(self, evaluations, budget, best, seconds, x=None):
        if self.show:
            self._display(evaluations, budget, best, seconds)
        if self.callback is not None:
            if x is not None and self.to_x is not None:
                x = self.to_x(x)
            try:
                return bool(self.callback(State(evaluations, budget, best, seconds, x)))
            except StopIteration:  # SciPy's way to stop: a clean stop, as a true return
                self.stop_iteration = True
                return True
        return False

    def _display(self, evaluations, budget, best, seconds):
        if self.bar is None and self.show:
            try:
                from tqdm.auto import tqdm
                self.bar = tqdm(total=budget, unit="eval", unit_scale=True, desc="chainsaw")
            except ImportError:
                self.bar = False
        if self.bar:
            self.bar.update(evaluations - self.bar.n)
            self.bar.set_postfix(best=f"{best:.6e}", refresh=False)
        elif seconds - self.last_line >= 0.5 or evaluations >= budget:
            self.last_line = seconds
            sys.stderr.write(f"\rchainsaw: {evaluations}/{budget} evaluations, best {best:.6e}, "
                             f"{seconds:.1f} s")
            sys.stderr.flush()

    def close(self):
        if self.bar:
            self.bar.close()
        elif self.bar is False:
            sys.stderr.write("\n")


def _hook(callback, progress: bool, quiet: Optional[bool], to_x=None):
    show = bool(progress) and not quiet
    if callback is None and not show:
        return None
    if callback is not None and not callable(callback):
        raise TypeError("callback must be callable: callback(state) -> bool (True stops the run)")
    return _Progress(callback, show, to_x)


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


#: Result.status: why the run ended.
STATUS_BUDGET, STATUS_TIME_LIMIT, STATUS_TARGET_ERROR, STATUS_CALLBACK = 0, 1, 2, 3


class Result(dict):
    """A run's outcome, dict-like as scipy.optimize.OptimizeResult (keys are also attributes).

    x: the best point (float64 NumPy array; the genes' exact values), fun: its fitness,
    nfev: evaluations done, nit: rounds after the initial population (MA-SW-Chains' rounds,
    DE/jDE/PSO generations, SS iterations), status: why the run ended (0 the budget was used,
    1 the time limit, 2 the target error was reached, 3 the callback stopped it),
    success: status is 0, 1 or 2, message: the status in words, distance_to_optimum: the
    Euclidean distance of x to the built-in function's optimum (None for a user objective),
    best_error: fun - f(optimum) (None when unknown), trace: (evaluations, seconds, best
    fitness) rows, profile: the --profile buckets (None without profile=True), phases: seconds
    per phase of the host loop, to_json(): the command line's result file.
    """

    def __init__(self, native: Dict[str, Any], x: Optional[np.ndarray] = None,
                 stop_iteration: bool = False):
        super().__init__()
        self._json_text: str = native["json"]
        d = _json.loads(self._json_text)
        self.x = native["x"] if x is None else x
        self.fun = native["fun"]
        self.nfev = native["nfev"]
        self.nit = native["nit"]
        distance = native["distance_to_optimum"]
        self.distance_to_optimum = None if math.isnan(distance) else distance
        e = native["best_error"]
        self.best_error = None if math.isnan(e) else e
        self.trace = np.array(native["trace"], dtype=np.float64).reshape(-1, 3)
        self.profile = d.get("profile")
        self.phases = {k: v["seconds"] for k, v in d["phases"].items()}
        self.evaluations = d["evaluations"]
        self.invalid_evaluations = native["invalid_evaluations"]
        self.backend = native["backend"]
        self.device = native["device"] or None
        self.threads = native["threads"]
        self.wall_seconds = native["wall_seconds"]
        self.checkpoint = native["checkpoint"] or None
        self.status, self.message = _status(native, d["config"], stop_iteration)
        self.success = self.status != STATUS_CALLBACK

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            self[name] = value

    def __dir__(self):
        return list(self.keys()) + ["to_json", "to_dict"]

    def to_json(self) -> str:
        """The result file ``chainsaw run --output`` writes for this run (the same text; for a
        built-in function the same bytes as the command line's but for the wall-clock fields:
        wall_seconds, setup_seconds, other_seconds, phases' seconds and shares, the trace's
        seconds and the profile's times)."""
        return self._json_text

    def to_dict(self) -> dict:
        """to_json() parsed."""
        return _json.loads(self._json_text)

    def __repr__(self) -> str:
        return (f"chainsaw.Result(fun={self.fun!r}, nfev={self.nfev}, status={self.status}, "
                f"distance_to_optimum={self.distance_to_optimum!r}, backend={self.backend!r}, "
                f"x=<{self.x.shape[0]} values>)")


def _status(native, config, stop_iteration: bool):
    """(status, message) of a run: what ended it, in words."""
    n = native["nfev"]
    if native["stopped"]:
        how = "raised StopIteration" if stop_iteration else "returned True"
        return STATUS_CALLBACK, f"stopped after {n} evaluations: the callback {how}"
    reason = native["stop_reason"]
    if reason == "time_limit":
        return (STATUS_TIME_LIMIT, f"the time limit of {config['time_limit_seconds']:g} s was "
                f"reached after {n} evaluations")
    if reason == "target_error":
        return (STATUS_TARGET_ERROR, f"the target error of {config['target_error']:g} was "
                f"reached after {n} evaluations")
    return STATUS_BUDGET, f"the evaluation budget of {config['evals']} was used"


def _bounds(bounds, dim: Optional[int]):
    """(lower, upper, dim, per_variable): scalars, or arrays of shape (dim,) for per-variable
    bounds; also scipy's sequence of (low, high) pairs."""
    if bounds is None:
        raise ValueError("bounds: a user objective needs bounds=(lower, upper)")
    if hasattr(bounds, "lb") and hasattr(bounds, "ub"):  # scipy.optimize.Bounds
        # It stores a scalar bound as an array of one value: a number again.
        bounds = tuple(b.reshape(()) if b.size == 1 else b
                       for b in (np.asarray(bounds.lb, dtype=np.float64),
                                 np.asarray(bounds.ub, dtype=np.float64)))
    try:
        b = np.asarray(bounds, dtype=np.float64)
    except (TypeError, ValueError):
        b = None
    if b is not None and b.ndim == 2 and b.shape[1] == 2 and b.shape[0] != 2:
        lower, upper = b[:, 0], b[:, 1]
    else:
        try:
            lower, upper = bounds
        except (TypeError, ValueError):
            raise ValueError("bounds: expected (lower, upper), each a number or an array of "
                             "shape (dim,)") from None
        try:
            lower = np.asarray(lower, dtype=np.float64)
            upper = np.asarray(upper, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("bounds: lower and upper must be numbers or arrays of numbers") from None
    for which, a in (("lower", lower), ("upper", upper)):
        if a.ndim > 1:
            raise ValueError(f"bounds: {which} has shape {a.shape}; expected a number or shape (dim,)")
        if a.ndim == 1:
            if dim is None:
                dim = a.shape[0]
            if a.shape[0] != dim:
                raise ValueError(f"bounds: {which} has shape {a.shape}; expected ({dim},), one "
                                 "value per variable")
        if not np.all(np.isfinite(a)):
            raise ValueError(f"bounds: {which} is not finite (NaN or inf)")
    if dim is None:
        raise ValueError("dim: a user objective with bounds given as numbers needs dim=")
    if np.any(lower >= upper):
        raise ValueError("bounds: every lower bound must be below its upper bound")
    lo, hi = np.broadcast_to(lower, (dim,)), np.broadcast_to(upper, (dim,))
    if lo.min() == lo.max() and hi.min() == hi.max():
        return float(lo[0]), float(hi[0]), int(dim), None
    return 0.0, 1.0, int(dim), (np.ascontiguousarray(lo), np.ascontiguousarray(hi))


def _array_module(array_module: Optional[str], backend: Optional[str]) -> str:
    if array_module is None:
        if backend != "cuda":
            return "numpy"
        for name in ("torch", "cupy"):
            try:
                __import__(name)
                return name
            except ImportError:
                pass
        raise ValueError("backend = cuda: a GPU objective takes PyTorch or CuPy arrays and "
                         "neither is installed")
    if array_module not in ("numpy", "torch", "cupy"):
        raise ValueError(f"array_module = {array_module!r}: numpy (CPU), torch or cupy (GPU)")
    return array_module


def _objective_run(fun, bounds, batch, array_module, name, callback, progress, cuda_graph,
                   options, resume_from: str, caller: str, initial=None) -> Result:
    if not callable(fun):
        raise TypeError("fun must be a built-in function's name (chainsaw.functions()) or a "
                        "callable")
    for key in _BUILTIN_ONLY:
        if options.get(key) is not None:
            raise TypeError(f"{caller}() got the keyword '{key}', which only a built-in "
                            "function takes")
    dim = options.pop("dim", None)
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, (int, np.integer))):
        raise TypeError(f"dim = {dim!r}: an integer")
    if dim is not None and dim < 1:
        raise ValueError(f"dim = {dim}: at least 1")
    if dim is None and initial is not None:
        dim = initial.shape[1]
    lower, upper, dim, per_variable = _bounds(bounds, None if dim is None else int(dim))
    engine_rows = _engine_rows(initial, lower, upper, dim, per_variable)
    module = _array_module(array_module, options.get("backend"))
    if module != "numpy" and options.get("backend") is None:
        options["backend"] = "cuda"
    name = name if name is not None else getattr(fun, "__name__", "objective")
    if not isinstance(name, str) or not name:
        raise ValueError("name: a non-empty string (checkpoints record it)")
    user_fun = fun
    if per_variable is not None:
        user_fun = _scaled(fun, per_variable, module, batch)
    host = device = None
    if cuda_graph and module == "numpy":
        raise ValueError("cuda_graph = True: a GPU objective (array_module='torch') is captured; "
                         "a NumPy objective runs on the CPU")
    if module == "numpy":
        host = user_fun
    elif cuda_graph:
        from ._device import device_capture
        device = device_capture(user_fun, module, batch, lower, upper)
    else:
        from ._device import device_call
        device = device_call(user_fun, module, batch)
    to_x = None if per_variable is None else (
        lambda u: per_variable[0] + u * (per_variable[1] - per_variable[0]))
    hook = _hook(callback, progress, options.get("quiet"), to_x)
    args = _arguments(_RUN_SPECS, options, caller)
    try:
        native = _native(_core.run_objective, args, name, lower, upper, dim, host, bool(batch),
                         device, bool(cuda_graph), "", resume_from, hook, _in_main_thread(),
                         engine_rows)
    finally:
        if hook is not None:
            hook.close()
    if native["invalid_evaluations"]:
        raise ValueError(f"fun returned NaN or -inf for {native['invalid_evaluations']} rows: "
                         "they are not fitness values")
    x = native["x"] if to_x is None else to_x(native["x"])
    return Result(native, x, hook is not None and hook.stop_iteration)


def _scaled(fun, bounds, module, batch):
    """Per-variable bounds: the engine searches [0, 1]^dim and fun sees lo + u (hi - lo)."""
    lo, width = bounds[0], bounds[1] - bounds[0]
    if module == "numpy":
        return lambda u: fun(lo + u * width)
    cache = {}

    def scaled(u):
        key = (str(u.device), u.dtype)
        if key not in cache:
            xp = __import__(module)
            cache[key] = (xp.asarray(lo, device=u.device) if module == "torch" else xp.asarray(lo),
                          xp.asarray(width, device=u.device) if module == "torch" else xp.asarray(width))
        l, w = cache[key]
        return fun(l + u.double() * w if module == "torch" else l + u.astype("f8") * w)
    return scaled


def _crossover_batch(batch, options) -> bool:
    """batch: True/False the calling convention, an int the command line's --batch."""
    if isinstance(batch, (bool, np.bool_)):
        return bool(batch)
    options["batch"] = batch
    return True


def minimize(fun, bounds=None, *, x0=None, population=None, runs: Optional[int] = None,
             batch: bool = True, array_module: Optional[str] = None,
             name: Optional[str] = None, callback: Optional[Callable[[State], Any]] = None,
             progress: bool = False, cuda_graph: bool = False, **options):
    """Minimises a built-in function (its name, ``chainsaw.functions()``) or a user objective.

    Built-in: ``minimize("rastrigin", dim=10**6, evals=500_000, backend="auto", seed=1, ...)``:
    the command line's ``chainsaw run --function rastrigin --dim 1000000 ...``, bit for bit.

    User objective: ``minimize(fun, bounds=(lo, hi), dim=..., ...)``; with ``batch=True`` (the
    default) ``fun(X)`` takes a 2-D array, one row per individual (a read-only view of the
    engine's genes, valid during the call: copy what you keep), and returns one fitness per
    row; ``batch=False`` calls ``fun(x)`` per row and takes a number. On the CPU X is a NumPy
    array; with ``array_module="torch"`` or ``"cupy"`` (or ``backend="cuda"``) the run is on the
    GPU and X the device rows as a PyTorch tensor or CuPy array, zero-copy, on the engine's
    stream. cuda_graph=True (PyTorch only) captures fun into a CUDA graph per row count, after
    three warm-up calls on points inside the bounds, and replays it with no Python call per
    evaluation: fun must then be capturable (no host synchronisation such as .item(), the same
    work whatever the values). bounds: numbers or arrays of shape (dim,) (per-variable bounds: the engine searches
    the unit cube and fun gets lo + u (hi - lo), a copy), or scipy's (dim, 2) pairs.

    Every ``chainsaw run`` option is a keyword (``chainsaw.run_options()``): dim, evals, seed,
    backend, threads, population, blx_alpha, ..., checkpoint, checkpoint_every, output,
    profile. ``batch`` is both the calling convention (True/False) and, given as an int, the
    command line's --batch (children per crossover batch; a batch callback then gets up to
    that many rows).

    x0 (shape (dim,)) and population (an int: the population's size, as --population; an
    array of shape (points, dim): its first members) start the population from given points,
    inside the bounds, x0 first; the other members are random (the command line's --init).

    runs=K (K > 1) runs seeds seed .. seed+K-1, one after the other, on one problem instance
    (the first run's problem seed; vary_instance=True gives each run its own) and returns a
    Runs: every run's Result (runs.results) and the summary of ``chainsaw run --runs K``
    (runs.summary: mean, sd, median of each measure). Each run is ``chainsaw run --seed s+k
    --problem-seed s`` bit for bit.

    callback(state) is called after the initial population and after every round with the
    intermediate result (state.x, state.fun, state.nfev, ...); a true return value, or raising
    StopIteration (SciPy's convention), stops the run there (Result.status 3, success False). progress=True shows a tqdm bar (a plain
    line without tqdm). Ctrl-C stops the run at its next safe point, writes the checkpoint when
    one was asked for and raises KeyboardInterrupt; a second Ctrl-C raises it at once.
    Bad options raise ChainsawError (a ValueError) or TypeError with one line; an exception in
    fun propagates unchanged. Nothing is written (output=) unless the run completes.
    """
    if isinstance(population, (int, np.integer)) and not isinstance(population, bool):
        options["population"], population = int(population), None
    if runs is not None and runs != 1:
        from ._runs import many_runs
        return many_runs(minimize, fun, bounds, runs, dict(
            x0=x0, population=population, batch=batch, array_module=array_module, name=name,
            callback=callback, progress=progress, cuda_graph=cuda_graph), options)
    options.pop("vary_instance", None)  # one run: there is nothing to vary
    initial = _initial_rows(x0, population, options.get("dim"))
    if isinstance(fun, (str, bytes)):
        if bounds is not None:
            raise ValueError("bounds: a built-in function has its own domain (chainsaw.functions())")
        if array_module is not None or name is not None or cuda_graph:
            raise TypeError("array_module, name and cuda_graph are for user objectives")
        if batch is False:
            raise TypeError("batch = False: a built-in function is evaluated by chainsaw itself")
        _crossover_batch(batch, options)
        if initial is not None and options.get("dim") is None:
            options["dim"] = initial.shape[1]
        hook = _hook(callback, progress, options.get("quiet"))
        args = _arguments(_RUN_SPECS, dict(function=fun, **options), "minimize")
        rows = [] if initial is None else initial.ravel().tolist()
        try:
            native = _native(_core.run_builtin, args, hook, _in_main_thread(), rows)
        finally:
            if hook is not None:
                hook.close()
        if "dry_run" in native:
            return native["dry_run"]
        return Result(native, None, hook is not None and hook.stop_iteration)
    batch = _crossover_batch(batch, options)
    return _objective_run(fun, bounds, batch, array_module, name, callback, progress, cuda_graph,
                          options, "", "minimize", initial)


def resume(path, fun=None, *, bounds=None, batch: bool = True,
           array_module: Optional[str] = None, name: Optional[str] = None,
           callback: Optional[Callable[[State], Any]] = None, progress: bool = False,
           cuda_graph: bool = False, **options) -> Result:
    """Continues a run from its checkpoint: ``chainsaw resume PATH`` with the same keywords
    (evals: the new budget, default the checkpoint's; checkpoint: default PATH itself; backend,
    threads, function and dim as checks, output, profile, checkpoint_every). A run on a user
    objective needs the objective again: ``resume(path, fun, bounds=...)`` with the same name
    and bounds. The continued run is the uninterrupted one, bit for bit."""
    path = os.fspath(path)
    if fun is None:
        hook = _hook(callback, progress, options.get("quiet"))
        args = _arguments(_RESUME_SPECS, options, "resume") + ["--", path]
        try:
            native = _native(_core.resume_builtin, args, hook, _in_main_thread())
        finally:
            if hook is not None:
                hook.close()
        return Result(native, None, hook is not None and hook.stop_iteration)
    for key in options:
        if key not in _USER_RESUME and key != "dim":
            raise TypeError(f"resume() got an unexpected keyword argument '{key}'")
    batch = _crossover_batch(batch, options)
    if "batch" in options:
        raise TypeError("resume(): the crossover batch is the checkpoint's")
    info = inspect(path)
    options.setdefault("dim", info["dim"])
    if options.get("evals") is None:
        options["evals"] = info["budget"]
    if options.get("checkpoint") is None:
        options["checkpoint"] = path
    return _objective_run(fun, bounds, batch, array_module, name, callback, progress, cuda_graph,
                          options, path, "resume")


def inspect(path) -> Dict[str, Any]:
    """What a checkpoint holds (``chainsaw inspect``), without loading it."""
    return _native(_core.inspect, os.fspath(path))


def functions() -> List[Dict[str, Any]]:
    """The built-in functions (``chainsaw functions``): name, lower, upper, separability,
    formula, optimum_value, cec2010, janssen, cec2013 (which suite), alias (a second name such
    as nashed-f13, or None)."""
    return _core.functions()


def shift(function: str, dim: int, problem_seed: int = 1) -> np.ndarray:
    """The optimum o of a paper's function (not cec2010-*, cec2013-*) for a problem seed (a run's
    problem_seed, or its seed when that is 0), as float64: a user objective that evaluates
    f(x - o) poses the built-in problem."""
    return _native(_core.shift, function, int(dim), int(problem_seed))


def evaluate(function: str, x, problem_seed: int = 1, instance=None) -> np.ndarray:
    """The built-in function's values at the rows of x (2-D; converted to the genes' type),
    computed as the CPU backend does. instance: what a run's ``--instance`` names (an instance
    file, or the official data directory of cec2013-* or janssen-*); None: the instance
    generated from problem_seed."""
    where = "" if instance is None else os.fspath(instance)
    return _native(_core.evaluate, function, x, int(problem_seed), where)


from ._runs import Runs  # noqa: E402  (they use the names above)
from ._ask_tell import Optimizer  # noqa: E402
