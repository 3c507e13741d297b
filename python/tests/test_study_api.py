"""The module as a study uses it: runs=K, SciPy's conventions (Bounds, a dict-like result with
nit, status and message, the callback's x, StopIteration), x0 and an initial population, and
the ask/tell Optimizer against the callback run of every algorithm, bit for bit."""
import json

import numpy as np
import pytest

import chainsaw

ALGORITHMS = ["ma-sw-chains", "de", "jde", "pso", "ss"]
SMALL = dict(population=12, batch=6, ls_intensity=60, de_np=16, pso_particles=14,
             ss_population=20, ss_ls_iterations=5)


def shifted_sphere(X):
    """Rows are independent: a row's value does not depend on the batch it comes in."""
    X = np.asarray(X, dtype=np.float64)
    return ((X - 0.5) ** 2).sum(axis=1)


# The options of each algorithm in SMALL (another algorithm's option is refused).
SMALL_OPTIONS = {"ma-sw-chains": ["population", "batch", "ls_intensity"], "de": ["de_np"],
                 "jde": ["de_np"], "pso": ["pso_particles"],
                 "ss": ["ss_population", "ss_ls_iterations"]}


def small(algorithm):
    """The small sizes of one algorithm (--population is the chosen algorithm's size)."""
    return {k: SMALL[k] for k in SMALL_OPTIONS[algorithm]}


# ---- runs=K

def test_runs_return_every_run_and_the_summary_on_one_instance(cli):
    runs = chainsaw.minimize("rastrigin", dim=200, evals=1500, seed=4, runs=3, backend="cpu")
    assert len(runs.results) == 3 and runs.seeds == [4, 5, 6] and not runs.vary_instance
    for k, r in enumerate(runs.results):
        alone = json.loads(cli("run", "--function", "rastrigin", "--dim", 200, "--evals", 1500,
                               "--seed", 4 + k, "--problem-seed", 4, "--backend", "cpu",
                               "-q").stdout)
        assert r.fun == alone["best_fitness"]
        assert r.distance_to_optimum == alone["distance_to_optimum"]
        assert r.to_dict()["config"]["problem_seed"] == 4
    funs = [r.fun for r in runs.results]
    assert runs.summary["best_fitness"]["mean"] == pytest.approx(np.mean(funs), rel=1e-15)
    assert runs.summary["best_fitness"]["median"] == np.median(funs)
    assert runs.summary["best_fitness"]["sd"] == pytest.approx(np.std(funs, ddof=1), rel=1e-12)
    cli_runs = json.loads(cli("run", "--function", "rastrigin", "--dim", 200, "--evals", 1500,
                              "--seed", 4, "--runs", 3, "--backend", "cpu", "-q").stdout)
    assert [r["best_fitness"] for r in cli_runs["results"]] == funs


def test_runs_vary_the_instance_only_when_asked():
    fixed = chainsaw.minimize("sphere", dim=50, evals=600, seed=1, runs=2, backend="cpu")
    varied = chainsaw.minimize("sphere", dim=50, evals=600, seed=1, runs=2, backend="cpu",
                               vary_instance=True)
    alone = chainsaw.minimize("sphere", dim=50, evals=600, seed=2, backend="cpu")
    assert varied.results[1].fun == alone.fun and fixed.results[1].fun != alone.fun
    assert varied.results[0].fun == fixed.results[0].fun


def test_runs_of_a_user_objective():
    runs = chainsaw.minimize(shifted_sphere, bounds=(-2, 2), dim=8, evals=800, seed=3, runs=2,
                             algorithm="de", de_np=16)
    assert [r.nfev for r in runs] == [800, 800] and runs[0].fun != runs[1].fun
    assert runs.summary["best_error"] is None  # the optimum's value is unknown
    with pytest.raises(ValueError, match="runs = 0"):
        chainsaw.minimize("sphere", dim=10, evals=200, runs=0)


# ---- SciPy's conventions

def test_the_result_is_dict_like_with_scipys_fields():
    r = chainsaw.minimize("rastrigin", dim=100, evals=1200, seed=2, backend="cpu")
    for key in ("x", "fun", "nfev", "nit", "status", "message", "success"):
        assert key in r and r[key] is getattr(r, key)
    assert r.status == 0 and r.success and r.message == "the evaluation budget of 1200 was used"
    assert r.nit == len(r.to_dict()["trace"]) - 1 > 0  # a round per trace point here
    assert isinstance(r, dict) and sorted(r) == sorted(r.keys())


def test_the_message_says_why_the_run_stopped():
    target = chainsaw.minimize("sphere", dim=20, evals=200_000, seed=1, backend="cpu",
                               target_error=1.0)
    assert target.status == 2 and target.success and target.nfev < 200_000
    assert target.message == f"the target error of 1 was reached after {target.nfev} evaluations"
    timed = chainsaw.minimize("rastrigin", dim=20_000, evals=10**8, seed=1, backend="cpu",
                              time_limit=0.3)
    assert timed.status == 1 and timed.success and timed.nfev < 10**8
    assert timed.message.startswith("the time limit of 0.3 s was reached after ")


def test_scipy_bounds_and_pairs_pose_the_same_problem():
    scipy_optimize = pytest.importorskip("scipy.optimize")
    lo, hi = np.linspace(-3, -1, 6), np.linspace(1, 4, 6)
    runs = [chainsaw.minimize(shifted_sphere, bounds=b, evals=900, seed=5)
            for b in (scipy_optimize.Bounds(lo, hi), (lo, hi), list(zip(lo, hi)))]
    assert all(np.array_equal(r.x, runs[0].x) and r.fun == runs[0].fun for r in runs)
    assert np.all(runs[0].x >= lo) and np.all(runs[0].x <= hi)
    same = chainsaw.minimize(shifted_sphere, bounds=scipy_optimize.Bounds(-2, 2), dim=6,
                             evals=900, seed=5)
    assert same.fun == chainsaw.minimize(shifted_sphere, bounds=(-2, 2), dim=6, evals=900,
                                         seed=5).fun
    with pytest.raises(ValueError, match="not finite"):
        chainsaw.minimize(shifted_sphere, bounds=scipy_optimize.Bounds(-np.inf, 1), dim=3)


def test_the_callback_sees_x_and_stop_iteration_stops_cleanly():
    seen = []

    def callback(state):
        seen.append((state.x.copy(), state.fun, state.nfev))
        if state.nfev >= 700:
            raise StopIteration
    lo, hi = np.full(5, -1.0), np.full(5, 3.0)
    r = chainsaw.minimize(shifted_sphere, bounds=(lo, hi), evals=5000, seed=2,
                          callback=callback)
    assert r.status == 3 and not r.success and 700 <= r.nfev < 5000
    assert "StopIteration" in r.message
    for x, fun, _ in seen:  # x is the best point in the caller's coordinates
        assert np.all(x >= lo) and np.all(x <= hi)
        assert shifted_sphere(x[None])[0] == pytest.approx(fun, rel=1e-6)
    assert np.array_equal(seen[-1][0], r.x) and seen[-1][1] == r.fun


# ---- x0 and population=

@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_x0_and_population_start_every_algorithm(algorithm):
    dim = 6
    x0 = np.full(dim, 0.5)  # shifted_sphere's optimum
    others = np.random.default_rng(1).uniform(-2, 2, size=(3, dim))
    seen = []

    def fun(X):
        seen.append(np.array(X, dtype=np.float64))
        return shifted_sphere(X)
    sizes = small(algorithm)
    sizes.pop("population", None)  # population= holds the points here
    r = chainsaw.minimize(fun, bounds=(-2, 2), x0=x0, population=others, evals=600, seed=1,
                          algorithm=algorithm, **sizes)
    first = seen[0]
    assert np.array_equal(first[0], x0) and np.allclose(first[1:4], others, atol=1e-6)
    assert r.fun == 0.0 and np.array_equal(r.x, x0)  # kept: nothing beats the optimum
    with pytest.raises(ValueError, match="x0/population: point 0, variable 2 is 9.0"):
        chainsaw.minimize(fun, bounds=(-2, 2), x0=[0, 0, 9.0, 0, 0, 0], evals=600)


def test_x0_of_a_built_in_function_and_the_population_size():
    o = chainsaw.shift("sphere", 40, 1)
    r = chainsaw.minimize("sphere", x0=o, evals=400, seed=1, backend="cpu", algorithm="pso",
                          population=20)
    assert r.to_dict()["config"]["pso_particles"] == 20
    assert r.to_dict()["trace"][0][2] < 1e-6  # the initial population held it
    with pytest.raises(chainsaw.ChainsawError, match="x0/population"):
        chainsaw.minimize("sphere", x0=np.full(40, 1e9), evals=400, backend="cpu")


# ---- ask/tell

def drive(opt, f=shifted_sphere):
    sizes = []
    while not opt.done:
        X = opt.ask()
        sizes.append(len(X))
        opt.tell(X, f(X))
    return sizes


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_ask_tell_gives_the_callback_runs_bits(algorithm):
    calls = []

    def fun(X):
        calls.append(len(X))
        return shifted_sphere(X)
    options = dict(evals=1500, seed=9, algorithm=algorithm, **small(algorithm))
    callback_run = chainsaw.minimize(fun, bounds=(-2, 3), dim=10, **options)
    opt = chainsaw.Optimizer(bounds=(-2, 3), dim=10, **options)
    sizes = drive(opt)
    r = opt.result
    assert sizes == calls
    assert np.array_equal(r.x, callback_run.x) and r.fun == callback_run.fun
    assert r.nfev == callback_run.nfev == 1500 and r.nit == callback_run.nit
    assert r.status == 0 and len(opt.ask()) == 0  # done: nothing more to ask


def test_ask_tell_batches_per_algorithm():
    ma = drive(chainsaw.Optimizer(bounds=(-2, 3), dim=10, evals=1500, seed=1, **small("ma-sw-chains")))
    assert ma[0] == 12 and ma.count(6) > 5 and max(ma[1:]) <= 6  # N, then batches and steps
    de = drive(chainsaw.Optimizer("de", bounds=(-2, 3), dim=10, evals=1600, seed=1, de_np=16))
    assert de == [16] * 100


def test_ask_tell_save_and_load_continue_exactly(tmp_path):
    lo, hi = np.linspace(-3, -1, 8), np.linspace(1, 4, 8)
    for algorithm in ("ma-sw-chains", "de"):
        options = dict(evals=1500, seed=3, algorithm=algorithm, **small(algorithm))
        whole = chainsaw.Optimizer(bounds=(lo, hi), **options)
        drive(whole)
        path = tmp_path / f"{algorithm}.h5"
        first = chainsaw.Optimizer(bounds=(lo, hi), **options)
        units = 0
        while units < 3:
            X = first.ask()
            first.tell(X, shifted_sphere(X))
            units += first.at_safe_point
        first.save(path)
        first.close()
        assert chainsaw.inspect(path)["evaluations"] < 1500
        second = chainsaw.Optimizer.load(path, bounds=(lo, hi))
        drive(second)
        assert np.array_equal(second.result.x, whole.result.x)
        assert second.result.fun == whole.result.fun


def test_ask_tell_wrong_use_gives_one_line_errors():
    opt = chainsaw.Optimizer("de", bounds=(-1, 1), dim=4, evals=200, seed=1, de_np=10)
    with pytest.raises(ValueError, match="call ask"):
        opt.tell(np.zeros((10, 4)), np.zeros(10))
    X = opt.ask()
    with pytest.raises(ValueError, match="2 values for 10 rows"):
        opt.tell(X, [1.0, 2.0])
    with pytest.raises(ValueError, match="NaN"):
        opt.tell(X, np.full(10, np.nan))
    with pytest.raises(chainsaw.ChainsawError, match="between two units"):
        opt.save("never.h5")
    with pytest.raises(ValueError, match="backend = 'cuda'.*outside chainsaw, on the host") as e:
        chainsaw.Optimizer(bounds=(-1, 1), dim=4, backend="cuda")
    assert "\n" not in str(e.value)  # one line
    with pytest.raises(chainsaw.ChainsawError, match="de_f"):
        chainsaw.Optimizer("de", bounds=(-1, 1), dim=4, evals=200, de_f=-1.0).ask()
