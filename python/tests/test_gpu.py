"""The Python module on the GPU: a PyTorch (or CuPy) objective gets the engine's rows zero-copy
on its stream. Skipped without a CUDA build, a GPU or PyTorch; a GPU machine runs them."""
import math

import numpy as np
import pytest

import chainsaw

if not chainsaw.CUDA_BUILT:
    pytest.skip("this chainsaw was built without CUDA", allow_module_level=True)
torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no GPU for PyTorch", allow_module_level=True)

DIM = 10**6
SEED = 1


def torch_rastrigin(dim, seed):
    """The built-in rastrigin (shift o from the problem seed, f(o) = -330) in PyTorch."""
    o = torch.from_numpy(chainsaw.shift("rastrigin", dim, seed)).cuda()

    def rastrigin(x):
        z = x.double() - o
        return (z * z - 10.0 * torch.cos(2.0 * math.pi * z) + 10.0).sum(dim=1) - 330.0
    return rastrigin


def test_torch_objective_values_equal_the_builtin_to_1e_12():
    fun = torch_rastrigin(DIM, SEED)
    rng = np.random.default_rng(0)
    x = rng.uniform(-5.12, 5.12, size=(4, DIM)).astype(chainsaw.GENES)
    ours = fun(torch.from_numpy(x).cuda()).cpu().numpy()
    builtin = chainsaw.evaluate("rastrigin", x, SEED)
    np.testing.assert_allclose(ours, builtin, rtol=1e-12, atol=0)


def test_torch_run_matches_the_builtin_run():
    # A batch objective's candidates are evaluated apart from the pass that makes them, with
    # PyTorch's sums: the values agree to ~1e-15 but a close comparison may go the other way,
    # so the two runs are the same search, not the same bits.
    options = dict(dim=DIM, evals=3000, seed=SEED, backend="cuda")
    user = chainsaw.minimize(torch_rastrigin(DIM, SEED), bounds=(-5.12, 5.12),
                             array_module="torch", name="rastrigin", **options)
    builtin = chainsaw.minimize("rastrigin", **options)
    assert user.backend == "cuda" and user.nfev == builtin.nfev
    x = np.asarray(user.x, dtype=chainsaw.GENES)[None, :]
    assert user.fun == pytest.approx(chainsaw.evaluate("rastrigin", x, SEED)[0], rel=1e-12, abs=0)
    assert user.fun == pytest.approx(builtin.fun, rel=1e-2)


def test_rows_are_zero_copy_device_tensors_on_the_engines_stream():
    seen = []

    def fun(x):
        seen.append((x.device.type, x.dtype, x.shape, x.stride(), x.data_ptr(),
                     torch.cuda.current_stream().cuda_stream))
        return (x.double() ** 2).sum(dim=1)
    r = chainsaw.minimize(fun, bounds=(-1, 1), dim=1000, evals=300, array_module="torch")
    assert r.backend == "cuda" and r.fun >= 0
    device, dtype, shape, stride, _, stream = seen[0]
    assert device == "cuda" and shape == (50, 1000) and stride[1] == 1 and stride[0] >= 1000
    assert str(dtype) == "torch." + chainsaw.GENES
    assert stream != torch.cuda.default_stream().cuda_stream or stream == 0
    assert len({s[4] for s in seen}) > 1  # rows of different slots, not one copied buffer


def test_gpu_bad_objectives(tmp_path):
    out = tmp_path / "r.json"
    with pytest.raises(ValueError, match="shape"):
        chainsaw.minimize(lambda x: x.sum(), bounds=(0, 1), dim=100, evals=200,
                          array_module="torch", output=out)
    with pytest.raises(ValueError, match="NaN"):
        chainsaw.minimize(lambda x: torch.full((x.shape[0],), float("nan"), device=x.device),
                          bounds=(0, 1), dim=100, evals=200, array_module="torch", output=out)

    class Boom(Exception):
        pass

    def boom(x):
        raise Boom("device")
    with pytest.raises(Boom):
        chainsaw.minimize(boom, bounds=(0, 1), dim=100, evals=200, array_module="torch",
                          output=out)
    assert not out.exists()


def test_torch_checkpoint_then_resume(tmp_path):
    fun = torch_rastrigin(10000, 3)
    options = dict(bounds=(-5.12, 5.12), array_module="torch", name="rastrigin")
    whole = chainsaw.minimize(fun, dim=10000, evals=2000, seed=3, **options)
    ck = tmp_path / "gpu.h5"
    chainsaw.minimize(fun, dim=10000, evals=900, seed=3, checkpoint=ck, **options)
    resumed = chainsaw.resume(ck, fun, evals=2000, **options)
    assert resumed.fun == whole.fun and np.array_equal(resumed.x, whole.x)


def test_a_captured_objective_runs_the_eager_run_bit_for_bit(tmp_path):
    # The graph replays fun's kernels on a copy of the rows laid out as the engine's: the same
    # values, so the same run; resume with the graph continues it exactly too.
    fun = torch_rastrigin(10000, 4)
    options = dict(bounds=(-5.12, 5.12), array_module="torch", name="rastrigin")
    eager = chainsaw.minimize(fun, dim=10000, evals=4000, seed=4, **options)
    graph = chainsaw.minimize(fun, dim=10000, evals=4000, seed=4, cuda_graph=True, **options)
    assert graph.fun == eager.fun and np.array_equal(graph.x, eager.x)
    assert graph.nfev == eager.nfev == 4000
    ck = tmp_path / "graph.h5"
    chainsaw.minimize(fun, dim=10000, evals=1500, seed=4, cuda_graph=True, checkpoint=ck,
                      **options)
    resumed = chainsaw.resume(ck, fun, evals=4000, cuda_graph=True, **options)
    assert resumed.fun == eager.fun and np.array_equal(resumed.x, eager.x)


def test_cuda_graph_refuses_what_it_cannot_capture(tmp_path):
    out = tmp_path / "r.json"

    def synchronising(x):  # .item() waits for the device: not allowed while capturing
        s = (x.double() ** 2).sum(dim=1)
        return s * (1.0 + 0.0 * s.max().item())
    with pytest.raises(ValueError, match="cuda_graph") as e:
        chainsaw.minimize(synchronising, bounds=(0, 1), dim=100, evals=200,
                          array_module="torch", cuda_graph=True, output=out)
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="shape"):
        chainsaw.minimize(lambda x: x.sum(), bounds=(0, 1), dim=100, evals=200,
                          array_module="torch", cuda_graph=True, output=out)
    assert not out.exists()


def test_builtin_on_the_gpu_equals_the_cli(tmp_path, cli):
    out = tmp_path / "cli.json"
    cli("run", "--dim", 100000, "--evals", 3000, "--seed", 2, "--backend", "cuda", "-q", "-o", out)
    r = chainsaw.minimize("rastrigin", dim=100000, evals=3000, seed=2, backend="cuda")
    from conftest import timeless
    assert timeless(r.to_json()) == timeless(out.read_text())


def test_cupy_objective_if_installed():
    cupy = pytest.importorskip("cupy")
    r = chainsaw.minimize(lambda x: (x.astype(cupy.float64) ** 2).sum(axis=1), bounds=(-1, 1),
                          dim=1000, evals=300, array_module="cupy")
    assert r.backend == "cuda" and r.nfev == 300
