#!/usr/bin/env python3
# %% [markdown]
# # A tour of chainsaw from Python
# Notebook-style (the `# %%` cells open as a notebook in Jupyter/VS Code); as a script:
#     PYTHONPATH=build/python python3 examples/python_tour.py      (or after pip install .)
# Small sizes so that it runs in seconds on a laptop CPU; docs/python.md has the whole guide.

# %%
import math
import os
import tempfile

import numpy as np

import chainsaw

print("chainsaw", chainsaw.__version__, "genes:", chainsaw.GENES, "CUDA:", chainsaw.CUDA_BUILT)
print([f["name"] for f in chainsaw.functions()][:6])

# %% [markdown]
# ## 1. A built-in function: the command line's `chainsaw run`, as keywords

# %%
r = chainsaw.minimize("rastrigin", dim=10_000, evals=20_000, seed=1, backend="cpu")
print(r)
print("f(o) = -330; error", r.best_error, "distance to o", r.distance_to_optimum)
print("phases (s):", {k: round(v, 3) for k, v in r.phases.items() if v})
print("trace (evaluations, s, best):", r.trace[[0, -1]])

# %% [markdown]
# ## 2. A NumPy objective: X is a read-only view of the engine's rows

# %%
def ellipsoid(X):
    z = X.astype(np.float64)
    weights = np.arange(1, X.shape[1] + 1, dtype=np.float64)
    return (weights * z * z).sum(axis=1)

states = []
r = chainsaw.minimize(ellipsoid, bounds=(-5.0, 5.0), dim=2_000, evals=10_000, seed=2,
                      callback=states.append, progress=True)
print(r.fun, "after", r.nfev, "evaluations;", len(states), "callbacks")

# %% [markdown]
# ## 3. Per-variable bounds and an early stop from the callback

# %%
lower, upper = -np.arange(1.0, 101.0), np.arange(1.0, 101.0) * 2
r = chainsaw.minimize(lambda X: np.abs(X - 1.0).sum(axis=1), bounds=(lower, upper),
                      evals=50_000, callback=lambda s: s.best_fitness < 50.0)
print(r.success, r.message, r.fun)

# %% [markdown]
# ## 4. Checkpoint, inspect, resume (Ctrl-C during a run also checkpoints)

# %%
folder = tempfile.mkdtemp()
ck = os.path.join(folder, "run.h5")
chainsaw.minimize("griewank", dim=5_000, evals=5_000, seed=3, checkpoint=ck)
print(chainsaw.inspect(ck))
r = chainsaw.resume(ck, evals=10_000)
print("resumed:", r.fun, r.nfev)

# %% [markdown]
# ## 5. On the GPU: a PyTorch objective gets the device rows without a copy

# %%
try:
    import torch
    gpu = chainsaw.CUDA_BUILT and torch.cuda.is_available()
except ImportError:
    gpu = False
if gpu:
    dim = 1_000_000
    o = torch.from_numpy(chainsaw.shift("rastrigin", dim, 1)).cuda()

    def rastrigin(X):
        z = X.double() - o
        return (z * z - 10.0 * torch.cos(2.0 * math.pi * z) + 10.0).sum(dim=1) - 330.0
    r = chainsaw.minimize(rastrigin, bounds=(-5.12, 5.12), dim=dim, evals=20_000,
                          array_module="torch", name="rastrigin")
    builtin = chainsaw.minimize("rastrigin", dim=dim, evals=20_000, backend="cuda")
    print("PyTorch", r.fun, "built-in", builtin.fun, "seconds", r.wall_seconds, builtin.wall_seconds)
else:
    print("no GPU with PyTorch here: skipping the GPU cell")
