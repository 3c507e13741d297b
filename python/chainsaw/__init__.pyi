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
    evaluations: int
    budget: int
    best_fitness: float
    elapsed_seconds: float

class Result:
    x: npt.NDArray[np.float64]
    fun: float
    nfev: int
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

Bounds = Union[Tuple[Union[float, npt.ArrayLike], Union[float, npt.ArrayLike]], npt.ArrayLike]
PathLike = Union[str, os.PathLike]
Callback = Callable[[State], Any]
Backend = Literal["auto", "cpu", "cuda"]

@overload
def minimize(fun: str, bounds: None = ..., *, batch: Union[bool, int] = ...,
             array_module: None = ..., name: None = ...,
             callback: Optional[Callback] = ..., progress: bool = ...,
             dim: int = 100000, evals: int = 500000, seed: int = 1, problem_seed: int = 0,
             instance: Optional[PathLike] = ..., backend: Backend = "auto", threads: int = 0,
             distribute: Literal["none"] = "none", migration_every: int = 10000,
             gpu_slices: int = 1, output: Optional[PathLike] = ..., quiet: bool = False,
             profile: bool = False, dry_run: bool = False,
             checkpoint: Optional[PathLike] = ..., checkpoint_every: Union[str, int, None] = ...,
             population: int = 50, blx_alpha: float = 0.5, nam_candidates: int = 3,
             mutation_probability: float = 0.125, ls_intensity: int = 500,
             ls_ratio: float = 0.5, ls_threshold: float = 1e-08, rho0: float = 0.2,
             sw_successes: int = 5, sw_failures: int = 3,
             rho_init: Literal["fixed", "neighbour"] = "fixed", restart: bool = False,
             **options: Any) -> Result: ...
@overload
def minimize(fun: Callable[[Any], Any], bounds: Bounds, *, batch: Union[bool, int] = True,
             array_module: Optional[Literal["numpy", "torch", "cupy"]] = None,
             name: Optional[str] = None, callback: Optional[Callback] = None,
             progress: bool = False, cuda_graph: bool = False, dim: Optional[int] = None,
             evals: int = 500000,
             seed: int = 1, backend: Backend = "auto", threads: int = 0,
             gpu_slices: int = 1, output: Optional[PathLike] = ..., quiet: bool = False,
             profile: bool = False, checkpoint: Optional[PathLike] = ...,
             checkpoint_every: Union[str, int, None] = ..., population: int = 50,
             blx_alpha: float = 0.5, nam_candidates: int = 3,
             mutation_probability: float = 0.125, ls_intensity: int = 500,
             ls_ratio: float = 0.5, ls_threshold: float = 1e-08, rho0: float = 0.2,
             sw_successes: int = 5, sw_failures: int = 3,
             rho_init: Literal["fixed", "neighbour"] = "fixed", restart: bool = False,
             **options: Any) -> Result: ...

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
