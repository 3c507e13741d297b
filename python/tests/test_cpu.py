"""The Python module on the CPU backend: built-ins against the command line bit for bit, NumPy
objectives against the same objective as a C++ batch callback, bad input, checkpoint/resume,
Ctrl-C, callbacks and progress."""
import json
import os
import signal
import sys

import numpy as np
import pytest

import chainsaw
from chainsaw import _core
from conftest import timeless

SMALL = dict(dim=3000, evals=2500, backend="cpu")


# ---- Built-in functions: the command line's result file, bit for bit.

@pytest.mark.parametrize("function,options", [
    ("rastrigin", dict(seed=3)),
    ("schwefel12", dict(seed=5, blx_alpha=0.3, rho_init="neighbour", restart=True,
                        ls_intensity=200, population=30, batch=10)),
    ("cec2010-f2", dict(seed=2, problem_seed=7, threads=1, profile=True)),
    ("rastrigin", dict(seed=4, algorithm="sep-cma-es", cma_ipop=True, cma_sigma0=0.2)),
    ("rastrigin", dict(seed=4, dim=200, evals=6000, algorithm="shade-ils")),
    ("sphere", dict(seed=6, dim=40, evals=5000, algorithm="lshade", lshade_np_max=300)),
])
def test_builtin_equals_the_cli_bit_for_bit(tmp_path, cli, function, options):
    options = dict(SMALL, **options)
    out = tmp_path / "cli.json"
    flags = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        flags += [flag] if value is True else [flag, value]
    cli("run", "--function", function, *flags, "-q", "-o", out)
    r = chainsaw.minimize(function, **options)
    assert timeless(r.to_json()) == timeless(out.read_text())
    cli_result = json.loads(out.read_text())
    assert r.fun == cli_result["best_fitness"]
    assert r.distance_to_optimum == cli_result["distance_to_optimum"]
    assert r.nfev == options["evals"] and r.success
    assert r.x.shape == (options["dim"],) and r.x.dtype == np.float64
    assert chainsaw.evaluate(function, r.x[None, :], r.to_dict()["config"]["problem_seed"])[0] == r.fun
    assert (r.profile is not None) == bool(options.get("profile"))
    assert set(r.phases) == set(cli_result["phases"])


def test_defaults_and_names_are_the_clis(tmp_path, cli):
    help_text = cli("run", "--help").stdout
    for spec in chainsaw.run_options():
        assert "--" + spec["name"].replace("_", "-") in help_text
    defaults = {s["name"]: s["default"] for s in chainsaw.run_options()}
    assert defaults["evals"] == "500000" and defaults["dim"] == "100000"
    assert defaults["blx_alpha"] == "0.5" and defaults["backend"] == "auto"
    # Only the budget and size given: every other setting is the command line's default.
    out = tmp_path / "cli.json"
    cli("run", "--dim", 1000, "--evals", 600, "-q", "-o", out)
    r = chainsaw.minimize("rastrigin", dim=1000, evals=600)
    assert timeless(r.to_json()) == timeless(out.read_text())


def test_output_file_is_the_cli_file(tmp_path, cli):
    ours, theirs = tmp_path / "py.json", tmp_path / "cli.json"
    r = chainsaw.minimize("griewank", dim=500, evals=700, seed=9, output=ours)
    cli("run", "--function", "griewank", "--dim", 500, "--evals", 700, "--seed", 9, "-q",
        "-o", theirs)
    assert ours.read_text() == r.to_json()
    assert timeless(ours.read_text()) == timeless(theirs.read_text())


def test_runs_are_deterministic():
    a = chainsaw.minimize("salomon", dim=800, evals=900, seed=4)
    b = chainsaw.minimize("salomon", dim=800, evals=900, seed=4)
    assert a.fun == b.fun and np.array_equal(a.x, b.x)
    assert timeless(a.to_json()) == timeless(b.to_json())


# ---- User objectives.

def numpy_maxabs(x):
    assert x.ndim == 2 and not x.flags.writeable
    return np.max(np.abs(x.astype(np.float64) - 0.25), axis=1)


def reference_run(name, lower, upper, dim, **options):
    """The same run with a C++ batch callback (python/src/objective_callbacks.cpp: reference_callback)."""
    args = chainsaw._arguments(chainsaw._RUN_SPECS, options, "test")
    return chainsaw.Result(_core.run_objective(args, name, lower, upper, dim, None, True, None,
                                               False, name, "", None, False, []))


def test_numpy_objective_equals_the_cpp_batch_callback():
    options = dict(evals=2000, seed=11, backend="cpu", ls_intensity=100)
    r = chainsaw.minimize(numpy_maxabs, bounds=(-1.0, 2.0), dim=1500, name="maxabs", **options)
    ref = reference_run("maxabs", -1.0, 2.0, 1500, **options)
    assert r.fun == ref.fun and np.array_equal(r.x, ref.x)
    assert timeless(r.to_json()) == timeless(ref.to_json())
    assert r.distance_to_optimum is None and r.best_error is None
    assert r.to_dict()["config"]["function"] == "user:maxabs"


def test_row_by_row_equals_batch():
    rows = chainsaw.minimize(lambda x: float(np.max(np.abs(x.astype(np.float64) - 0.25))),
                             bounds=(-1, 2), dim=300, evals=600, batch=False, name="maxabs")
    whole = chainsaw.minimize(numpy_maxabs, bounds=(-1, 2), dim=300, evals=600, name="maxabs")
    assert rows.fun == whole.fun and np.array_equal(rows.x, whole.x)


def test_rows_are_views_of_the_engine_and_the_crossover_batch_is_an_int():
    seen = []

    def fun(x):
        seen.append((x.shape, not x.flags.owndata and x.strides[1] == x.itemsize, x.dtype))
        return np.square(x.astype(np.float64)).sum(axis=1)
    chainsaw.minimize(fun, bounds=(-1, 1), dim=64, evals=200, batch=7, population=12)
    assert seen[0][0] == (12, 64)  # the initial population, in one call
    assert max(shape[0] for shape, _, _ in seen[1:]) <= 7
    assert all(view for _, view, _ in seen)
    assert seen[0][2] == np.dtype(chainsaw.GENES)


def test_per_variable_bounds():
    lower = np.linspace(-2.0, 0.0, 50)
    upper = lower + np.linspace(1.0, 3.0, 50)
    seen = []

    def fun(x):
        seen.append((x.min(axis=0) >= lower - 1e-6).all() and (x.max(axis=0) <= upper + 1e-6).all())
        return np.square(x - (lower + upper) / 2).sum(axis=1)
    r = chainsaw.minimize(fun, bounds=(lower, upper), evals=500)
    assert all(seen) and r.x.shape == (50,)
    assert np.all(r.x >= lower - 1e-6) and np.all(r.x <= upper + 1e-6)
    # scipy's (dim, 2) pairs.
    r2 = chainsaw.minimize(fun, bounds=np.stack([lower, upper], axis=1), evals=500)
    assert r2.fun == r.fun


# ---- Bad input: one line, the right exception, nothing written.

def one_line(excinfo):
    text = str(excinfo.value)
    assert "\n" not in text and text
    return text


@pytest.mark.parametrize("call,kind,words", [
    (lambda o: chainsaw.minimize("rastrigin", dim=100, evals=200, no_such_option=1, output=o),
     TypeError, "no_such_option"),
    (lambda o: chainsaw.minimize("rastrigin", dim=100, evals=200, blx_alpha=-1, output=o),
     ValueError, "blx_alpha"),
    (lambda o: chainsaw.minimize("rastrigin", dim="many", output=o), ValueError, "dim"),
    (lambda o: chainsaw.minimize("no-such-function", dim=100, output=o), ValueError, "no-such-function"),
    (lambda o: chainsaw.minimize("rastrigin", dim=100, backend="tpu", output=o), ValueError, "backend"),
    (lambda o: chainsaw.minimize("rastrigin", dim=100, evals=10, output=o), ValueError, "evals"),
    (lambda o: chainsaw.minimize(numpy_maxabs, bounds=(np.zeros(3), np.ones(4)), output=o),
     ValueError, "bounds"),
    (lambda o: chainsaw.minimize(numpy_maxabs, bounds=(np.zeros((2, 3)), 1.0), dim=3, output=o),
     ValueError, "shape"),
    (lambda o: chainsaw.minimize(numpy_maxabs, bounds=(np.nan, 1.0), dim=3, output=o),
     ValueError, "not finite"),
    (lambda o: chainsaw.minimize(numpy_maxabs, bounds=(1.0, 0.0), dim=3, output=o),
     ValueError, "below"),
    (lambda o: chainsaw.minimize(numpy_maxabs, bounds=(0.0, 1.0), output=o), ValueError, "dim"),
    (lambda o: chainsaw.minimize(numpy_maxabs, bounds=(0.0, 1.0), dim=-4, output=o), ValueError, "dim"),
    (lambda o: chainsaw.minimize(numpy_maxabs, bounds=(0, 1), dim=5, problem_seed=3, output=o),
     TypeError, "problem_seed"),
    (lambda o: chainsaw.minimize(lambda x: np.zeros((len(x), 2)), bounds=(0, 1), dim=5,
                                 evals=200, output=o), ValueError, "shape (50, 2)"),
    (lambda o: chainsaw.minimize(lambda x: np.full(len(x), np.nan), bounds=(0, 1), dim=5,
                                 evals=200, output=o), ValueError, "nan"),
    (lambda o: chainsaw.minimize(lambda x: "no", bounds=(0, 1), dim=5, evals=200, output=o),
     TypeError, "str"),
    (lambda o: chainsaw.minimize(numpy_maxabs, bounds=(0, 1), dim=5, evals=200, cuda_graph=True,
                                 output=o), ValueError, "cuda_graph"),
    (lambda o: chainsaw.minimize("rastrigin", dim=100, evals=200, cuda_graph=True, output=o),
     TypeError, "cuda_graph"),
])
def test_bad_input_raises_one_line_and_writes_nothing(tmp_path, call, kind, words):
    out = tmp_path / "result.json"
    with pytest.raises(kind) as excinfo:
        call(str(out))
    assert words in one_line(excinfo)
    assert "--" not in str(excinfo.value)  # keyword names, not flags
    assert not out.exists() and os.listdir(tmp_path) == []


class Boom(Exception):
    pass


def test_an_exception_in_fun_propagates_with_its_traceback(tmp_path):
    calls = []

    def fun(x):
        calls.append(len(x))
        if len(calls) == 5:
            raise Boom("from fun")
        return numpy_maxabs(x)
    out = tmp_path / "result.json"
    with pytest.raises(Boom, match="from fun") as excinfo:
        chainsaw.minimize(fun, bounds=(0, 1), dim=20, evals=500, output=out)
    assert any(entry.name == "fun" for entry in excinfo.traceback)
    assert not out.exists()
    # The module is usable afterwards.
    assert chainsaw.minimize(numpy_maxabs, bounds=(0, 1), dim=20, evals=200).nfev == 200


def test_an_exception_in_the_callback_propagates():
    def callback(state):
        raise Boom("from the callback")
    with pytest.raises(Boom):
        chainsaw.minimize("rastrigin", dim=100, evals=300, callback=callback)


# ---- Checkpoints, resume, Ctrl-C.

def test_checkpoint_then_resume_continues_exactly(tmp_path, cli):
    ck = tmp_path / "run.h5"
    whole = chainsaw.minimize("rastrigin", dim=2000, evals=3000, seed=6)
    part = chainsaw.minimize("rastrigin", dim=2000, evals=1500, seed=6, checkpoint=ck)
    assert part.nfev == 1500 and part.checkpoint == str(ck)
    info = chainsaw.inspect(ck)
    assert info["evaluations"] == 1500 and info["function"] == "rastrigin" and info["dim"] == 2000
    assert info["algorithm"] == "ma-sw-chains" and info["format_version"] == 4
    resumed = chainsaw.resume(ck, evals=3000, checkpoint=tmp_path / "next.h5")
    assert resumed.fun == whole.fun and np.array_equal(resumed.x, whole.x)
    assert resumed.evaluations == whole.evaluations
    # ... and equals the command line's resume of the same file.
    cli("run", "--dim", 2000, "--evals", 1500, "--seed", 6, "-q", "-o", tmp_path / "a.json",
        "--checkpoint", tmp_path / "cli.h5")
    cli("resume", tmp_path / "cli.h5", "--evals", 3000, "--checkpoint", tmp_path / "next.h5",
        "-q", "-o", tmp_path / "cli.json")
    ours = timeless(resumed.to_json())
    theirs = timeless((tmp_path / "cli.json").read_text())
    assert ours.pop("resumed_from") == str(ck) and theirs.pop("resumed_from") == str(tmp_path / "cli.h5")
    assert ours == theirs


def test_bad_resume_arguments(tmp_path):
    ck = tmp_path / "run.h5"
    chainsaw.minimize("rastrigin", dim=500, evals=800, checkpoint=ck)
    with pytest.raises(ValueError, match="evals = 100") as excinfo:
        chainsaw.resume(ck, evals=100)
    one_line(excinfo)
    with pytest.raises(ValueError, match="dim"):
        chainsaw.resume(ck, dim=7)
    with pytest.raises(TypeError):
        chainsaw.resume(ck, blx_alpha=0.1)
    with pytest.raises(ValueError):
        chainsaw.inspect(tmp_path / "missing.h5")


def test_user_objective_checkpoint_then_resume(tmp_path):
    ck = tmp_path / "user.h5"
    whole = chainsaw.minimize(numpy_maxabs, bounds=(-1, 2), dim=400, evals=1600, seed=2)
    chainsaw.minimize(numpy_maxabs, bounds=(-1, 2), dim=400, evals=700, seed=2, checkpoint=ck)
    assert chainsaw.inspect(ck)["function"] == "user:numpy_maxabs"
    resumed = chainsaw.resume(ck, numpy_maxabs, bounds=(-1, 2), evals=1600)
    assert resumed.fun == whole.fun and np.array_equal(resumed.x, whole.x)
    with pytest.raises(ValueError, match="numpy_maxabs"):
        chainsaw.resume(ck, lambda x: numpy_maxabs(x), bounds=(-1, 2), evals=1600)
    with pytest.raises(ValueError, match="user objective"):
        chainsaw.resume(ck, evals=1600)


def interrupt_at(evaluations, times=1):
    def callback(state):
        if state.evaluations >= evaluations and not callback.sent:
            callback.sent = True
            for _ in range(times):
                os.kill(os.getpid(), signal.SIGINT)
    callback.sent = False
    return callback


def test_ctrl_c_checkpoints_and_raises_keyboard_interrupt(tmp_path):
    ck = tmp_path / "run.h5"
    out = tmp_path / "result.json"
    with pytest.raises(KeyboardInterrupt, match="checkpoint written") as excinfo:
        chainsaw.minimize("rastrigin", dim=1000, evals=4000, seed=8, checkpoint=ck, output=out,
                          callback=interrupt_at(1000))
    one_line(excinfo)
    assert not out.exists()
    info = chainsaw.inspect(ck)
    assert info["reason"] == "signal" and 1000 <= info["evaluations"] < 4000
    whole = chainsaw.minimize("rastrigin", dim=1000, evals=4000, seed=8)
    resumed = chainsaw.resume(ck)
    assert resumed.fun == whole.fun and np.array_equal(resumed.x, whole.x)
    # Python's own handler is back: a later SIGINT is an ordinary KeyboardInterrupt.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_in_a_numpy_objective_run(tmp_path):
    ck = tmp_path / "user.h5"
    with pytest.raises(KeyboardInterrupt):
        chainsaw.minimize(numpy_maxabs, bounds=(0, 1), dim=100, evals=3000, checkpoint=ck,
                          callback=interrupt_at(500))
    assert chainsaw.inspect(ck)["reason"] == "signal"
    whole = chainsaw.minimize(numpy_maxabs, bounds=(0, 1), dim=100, evals=3000)
    resumed = chainsaw.resume(ck, numpy_maxabs, bounds=(0, 1), evals=3000)
    assert np.array_equal(resumed.x, whole.x)


def test_a_second_ctrl_c_raises_at_once():
    with pytest.raises(KeyboardInterrupt) as excinfo:
        chainsaw.minimize(numpy_maxabs, bounds=(0, 1), dim=100, evals=3000,
                          callback=interrupt_at(500, times=2))
    assert "checkpoint" not in str(excinfo.value)


def test_ctrl_c_without_a_checkpoint_says_nothing_is_saved():
    with pytest.raises(KeyboardInterrupt, match="nothing is saved"):
        chainsaw.minimize("rastrigin", dim=500, evals=3000, callback=interrupt_at(600))


# ---- Progress.

def test_callback_sees_the_progress_and_can_stop_the_run(tmp_path):
    states = []

    def callback(state):
        states.append(state)
        return state.evaluations >= 900
    out = tmp_path / "result.json"
    r = chainsaw.minimize("rastrigin", dim=300, evals=3000, callback=callback, output=out)
    assert not r.success and "callback" in r.message and 900 <= r.nfev < 3000
    assert not out.exists()
    assert states[0].budget == 3000 and states[-1].evaluations == r.nfev
    assert all(a.best_fitness >= b.best_fitness for a, b in zip(states, states[1:]))
    full = chainsaw.minimize("rastrigin", dim=300, evals=3000)
    assert full.success and "budget" in full.message


@pytest.mark.parametrize("with_tqdm", [True, False])
def test_progress_bar(monkeypatch, capsys, with_tqdm):
    if with_tqdm:
        pytest.importorskip("tqdm")
    else:
        monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # import fails
    r = chainsaw.minimize("rastrigin", dim=200, evals=800, progress=True)
    err = capsys.readouterr().err
    assert r.success and "chainsaw" in err
    assert ("800/800" in err) if not with_tqdm else ("eval" in err)


# ---- The rest of the module.

def test_functions_shift_and_evaluate():
    names = [f["name"] for f in chainsaw.functions()]
    assert "rastrigin" in names and "cec2010-f20" in names
    assert "rosenbrock" in names and "zakharov" in names and "levy" in names
    by_alias = {f["alias"]: f for f in chainsaw.functions() if f["alias"]}
    assert by_alias["nashed-f13"]["name"] == "rosenbrock"
    assert chainsaw.evaluate("zakharov", chainsaw.shift("zakharov", 100)[None, :].astype(chainsaw.GENES))[0] == 0.0
    o = chainsaw.shift("rastrigin", 1000, problem_seed=5)
    assert o.shape == (1000,) and o.dtype == np.float64
    assert chainsaw.evaluate("rastrigin", o[None, :].astype(chainsaw.GENES), 5)[0] == pytest.approx(-330.0)
    with pytest.raises(ValueError):
        chainsaw.shift("cec2010-f1", 1000)


# tests/data/cec2013: the official data and the official code's values (README.md there).
CEC2013 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "data",
                       "cec2013")


def cec2013_reference(point):
    values = {}
    with open(os.path.join(CEC2013, "reference.txt")) as f:
        for line in f:
            if not line.startswith("#"):
                n, kind, value = line.split()
                if kind == point:
                    values[int(n)] = float(value)
    return values


def cec2013_uniform_point(n, dim, bound):
    """reference.txt's point uniform-a: SplitMix64's uniforms from seed 0x5eed0000 + 100 n."""
    state, mask, x = 0x5eed0000 + 100 * n, (1 << 64) - 1, np.empty(dim)
    for j in range(dim):
        state = (state + 0x9e3779b97f4a7c15) & mask
        z = state
        z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & mask
        z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & mask
        z ^= z >> 31
        x[j] = -bound + 2.0 * bound * ((z >> 11) * 2.0 ** -53)
    return x.astype(np.float32)


def test_evaluate_cec2013_on_the_official_data_equals_the_official_code(tmp_path):
    data = os.path.join(CEC2013, "cdatafiles")
    zero, uniform = cec2013_reference("zero"), cec2013_reference("uniform-a")
    for n, bound in ((1, 100), (5, 5), (10, 32), (13, 100), (14, 100)):
        dim = 905 if n in (13, 14) else 1000
        x = np.stack([np.zeros(dim), cec2013_uniform_point(n, dim, bound)]).astype(chainsaw.GENES)
        f = chainsaw.evaluate(f"cec2013-f{n}", x, instance=data)
        assert f[0] == pytest.approx(zero[n], rel=1e-10)
        assert f[1] == pytest.approx(uniform[n], rel=1e-10)
    # Without the data: the instance generated from the problem seed, another function.
    generated = chainsaw.evaluate("cec2013-f1", np.zeros((1, 1000), chainsaw.GENES), 3)[0]
    assert generated != pytest.approx(zero[1], rel=1e-3)
    with pytest.raises(chainsaw.ChainsawError, match=r"cannot read F4-xopt\.txt") as e:
        chainsaw.evaluate("cec2013-f4", np.zeros((1, 1000), chainsaw.GENES), instance=tmp_path)
    assert "\n" not in str(e.value)
    with pytest.raises(ValueError):
        chainsaw.shift("cec2013-f1", 1000)
    assert [f["name"] for f in chainsaw.functions() if f["cec2013"]] == [
        f"cec2013-f{n}" for n in range(1, 16)]


def test_dry_run(capfd):
    assert chainsaw.minimize("rastrigin", dim=1000, dry_run=True) is True
    assert "memory plan" in capfd.readouterr().out
