# Type hints of the chainsaw package (python/chainsaw/__init__.py; docs/python.md).
import os
from typing import Any, Callable, Dict, List, Literal, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str
GENES: Literal["float32", "float64"]
CUDA_BUILT: bool

class ChainsawError(ValueError):
    """A bad option, value or file: one line, the keyword named (as on the command line)."""

class State:
    x: Optional[npt.NDArray[np.float64]]  # the best point at this report
    fun: float
    nfev: int
    evaluations: int
    budget: int
    best_fitness: float
    elapsed_seconds: float

class Result(Dict[str, Any]):  # dict-like, as scipy.optimize.OptimizeResult
    x: npt.NDArray[np.float64]
    fun: float
    nfev: int
    nit: int
    status: Literal[0, 1, 2, 3]  # budget, time limit, target error, callback
    distance_to_optimum: Optional[float]
    best_error: Optional[float]
    trace: npt.NDArray[np.float64]  # (n, 3): evaluations, seconds, best fitness
    profile: Optional[Dict[str, Any]]
    phases: Dict[str, float]
    evaluations: Dict[str, int]
    invalid_evaluations: int
    backend: Literal["cpu", "cuda"]
    device: Optional[str]
    threads: int
    wall_seconds: float
    checkpoint: Optional[str]
    success: bool
    message: str
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Runs(Dict[str, Any]):  # runs=K
    results: List[Result]
    seeds: List[int]
    vary_instance: bool
    summary: Dict[str, Any]
    def to_json(self) -> str: ...

Bounds = Union[Tuple[Union[float, npt.ArrayLike], Union[float, npt.ArrayLike]], npt.ArrayLike]
PathLike = Union[str, os.PathLike]
Callback = Callable[[State], Any]
Backend = Literal["auto", "cpu", "cuda"]

@overload
def minimize(fun: str, bounds: None = ..., *, x0: Optional[npt.ArrayLike] = ...,
             population: Union[int, npt.ArrayLike, None] = ..., runs: Optional[int] = ...,
             batch: Union[bool, int] = ...,
             array_module: None = ..., name: None = ...,
             callback: Optional[Callback] = ..., progress: bool = ...,
             dim: int = 100000, evals: int = 500000, seed: int = 1, problem_seed: int = 0,
             instance: Optional[PathLike] = ..., backend: Backend = "auto", threads: int = 0,
             distribute: Literal["none"] = "none", migration_every: int = 10000,
             gpu_slices: int = 1, output: Optional[PathLike] = ..., quiet: bool = False,
             profile: bool = False, dry_run: bool = False,
             checkpoint: Optional[PathLike] = ..., checkpoint_every: Union[str, int, None] = ...,
             blx_alpha: float = 0.5, nam_candidates: int = 3,
             mutation_probability: float = 0.125, ls_intensity: int = 500,
             ls_ratio: float = 0.5, ls_threshold: float = 1e-08, rho0: float = 0.2,
             sw_successes: int = 5, sw_failures: int = 3,
             rho_init: Literal["fixed", "neighbour"] = "fixed", restart: bool = False,
             **options: Any) -> Union[Result, Runs]: ...
@overload
def minimize(fun: Callable[[Any], Any], bounds: Any, *, x0: Optional[npt.ArrayLike] = ...,
             population: Union[int, npt.ArrayLike, None] = ..., runs: Optional[int] = ...,
             batch: Union[bool, int] = True,
             array_module: Optional[Literal["numpy", "torch", "cupy"]] = None,
             name: Optional[str] = None, callback: Optional[Callback] = None,
             progress: bool = False, cuda_graph: bool = False, dim: Optional[int] = None,
             evals: int = 500000,
             seed: int = 1, backend: Backend = "auto", threads: int = 0,
             gpu_slices: int = 1, output: Optional[PathLike] = ..., quiet: bool = False,
             profile: bool = False, checkpoint: Optional[PathLike] = ...,
             checkpoint_every: Union[str, int, None] = ...,
             blx_alpha: float = 0.5, nam_candidates: int = 3,
             mutation_probability: float = 0.125, ls_intensity: int = 500,
             ls_ratio: float = 0.5, ls_threshold: float = 1e-08, rho0: float = 0.2,
             sw_successes: int = 5, sw_failures: int = 3,
             rho_init: Literal["fixed", "neighbour"] = "fixed", restart: bool = False,
             **options: Any) -> Union[Result, Runs]: ...

def resume(path: PathLike, fun: Optional[Callable[[Any], Any]] = None, *,
           bounds: Optional[Bounds] = None, batch: bool = True,
           array_module: Optional[Literal["numpy", "torch", "cupy"]] = None,
           name: Optional[str] = None, callback: Optional[Callback] = None,
           progress: bool = False, cuda_graph: bool = False, evals: Optional[int] = None,
           backend: Optional[Backend] = None, threads: Optional[int] = None,
           function: Optional[str] = None, dim: Optional[int] = None,
           output: Optional[PathLike] = None, quiet: bool = False, profile: bool = False,
           checkpoint: Optional[PathLike] = None,
           checkpoint_every: Union[str, int, None] = None) -> Result: ...
def inspect(path: PathLike) -> Dict[str, Any]: ...
def functions() -> List[Dict[str, Any]]: ...
def run_options(command: Literal["run", "resume"] = "run") -> List[Dict[str, Any]]: ...
def shift(function: str, dim: int, problem_seed: int = 1) -> npt.NDArray[np.float64]: ...
def evaluate(
    function: str,
    x: npt.ArrayLike,
    problem_seed: int = 1,
    instance: Optional[Union[str, os.PathLike[str]]] = None,
) -> npt.NDArray[np.float64]: ...

class Optimizer:  # ask/tell (docs/python.md, "Ask and tell")
    dim: int
    def __init__(self, algorithm: str = "ma-sw-chains", bounds: Any = None,
                 dim: Optional[int] = None, evals: Optional[int] = None,
                 seed: Optional[int] = None, backend: Optional[Literal["auto", "cpu"]] = None,
                 *, x0: Optional[npt.ArrayLike] = None,
                 population: Union[int, npt.ArrayLike, None] = None, name: str = "ask-tell",
                 **options: Any) -> None: ...
    @classmethod
    def load(cls, path: PathLike, bounds: Any = None, *, evals: Optional[int] = None,
             **options: Any) -> "Optimizer": ...
    def ask(self) -> npt.NDArray[Any]: ...
    def tell(self, X: npt.ArrayLike, f: npt.ArrayLike) -> None: ...
    @property
    def done(self) -> bool: ...
    @property
    def at_safe_point(self) -> bool: ...
    def save(self, path: PathLike) -> None: ...
    @property
    def result(self) -> Result: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Optimizer": ...
    def __exit__(self, *exc: Any) -> None: ...
