#!/usr/bin/env python3
"""Time a GPU peer's sep-CMA-ES (Ros & Hansen 2008) on chainsaw's shifted problems.

    python3 bench/gpu/peer_sep_cma.py --peer {evosax,evox} --dim D \
        [--popsize L] [--generations G] [--function {rastrigin,sphere}] [--seed S] \
        [--sigma0 SIGMA] [--update-from {clipped,sampled}] [--loop {scan,step}] [--dry-run]

The peers' sources are staged under .peers/ (git-ignored; .peers/VERSIONS.txt names their
commits): evosax's Sep_CMA_ES (JAX), and EvoX's SepCMAES from EvoX 0.9.0, its last release on
JAX. EvoX's PyTorch releases (1.x, .peers/evox) have no separable CMA-ES, only a full-matrix
CMAES whose D x D covariance cannot exist at D = 10^6, so the EvoX row runs on JAX as well.

The problem is chainsaw's: f(x - o) over the box (rastrigin [-5.12, 5.12], sphere [-100, 100])
with o uniform in the middle 60% of the box, the initial mean uniform in the box, sigma0 =
0.3 * width unless given (an absolute step, where chainsaw's --cma-sigma0 is a fraction of the
width), lambda = 4 + floor(3 ln D) unless given. o and the mean come from NumPy's generator
(seeded by --seed), stored on the GPU as float32: chainsaw hashes o instead, which an ES does
not see. Samples are clipped to the box before they are evaluated, in jax.numpy in float32, and
(--update-from clipped, the default) the peer updates from the clipped points, as chainsaw
does; neither peer clips on its own, so --update-from sampled measures it as shipped.

Timing, all wall clock with jax.block_until_ready after each part:
  setup_seconds: the peer's construction and init, and o and the mean copied to the GPU;
  first_generation_seconds: generation 1, its ahead-of-time compile included (its warm-up);
  loop_compile_seconds: compiling the remaining G - 1 generations' loop;
  steady_seconds: running them; seconds_per_generation = steady_seconds / (G - 1);
  compile_seconds: the two compiles; seconds_total: setup + first + loop compile + steady.
--loop scan (default; evosax's examples loop over generations with jax.lax.scan) runs the
G - 1 generations as one jitted jax.lax.scan; --loop step calls the jitted generation from
Python G - 1 times, as EvoX's StdWorkflow does with its jitted step (the whole generation is
one XLA program either way). Prints one JSON line; best_error is the best f found (f* = 0).
--dry-run builds the problem with NumPy alone and prints its settings without any peer.
"""
import argparse
import json
import math
import os
import sys
import time
import types
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
BOXES = {"rastrigin": (-5.12, 5.12), "sphere": (-100.0, 100.0)}
SIGMA0_SHARE = 0.3  # of the box's width, chainsaw's --cma-sigma0 default
SHIFT_SPAN = 0.6  # o covers the middle 60% of the box
EVOX_JAX_RELEASE = "evox-0.9.0"  # the folder under .peers holding EvoX 0.9.0's package
LOOPS = {"scan": "jax.lax.scan over the jitted generation (ask, clip, evaluate, tell)",
         "step": "the jitted generation (ask, clip, evaluate, tell) called from Python"}


def default_popsize(dim):
    return 4 + int(math.floor(3.0 * math.log(dim)))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", choices=["evosax", "evox"], required=True)
    parser.add_argument("--dim", type=int, required=True)
    parser.add_argument("--popsize", type=int, default=None, help="default 4 + floor(3 ln D)")
    parser.add_argument("--generations", type=int, default=200)
    parser.add_argument("--function", choices=sorted(BOXES), default="rastrigin")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sigma0", type=float, default=None,
                        help="absolute initial step size, default 0.3 * (upper - lower)")
    parser.add_argument("--update-from", choices=["clipped", "sampled"], default="clipped",
                        help="which points the peer's update sees (default: the clipped ones)")
    parser.add_argument("--loop", choices=sorted(LOOPS), default="scan")
    parser.add_argument("--peers-dir", type=Path, default=REPO / ".peers")
    parser.add_argument("--dry-run", action="store_true",
                        help="build the problem with NumPy and print its settings only")
    args = parser.parse_args(argv)
    if args.dim < 2:
        parser.error(f"--dim must be at least 2, got {args.dim}")
    if args.popsize is None:
        args.popsize = default_popsize(args.dim)
    if args.popsize < 4:
        parser.error(f"--popsize must be at least 4 (mu = popsize / 2 >= 2), got {args.popsize}")
    if args.generations < 2:
        parser.error(f"--generations must be at least 2 (one to warm up, one timed), "
                     f"got {args.generations}")
    lower, upper = BOXES[args.function]
    if args.sigma0 is None:
        args.sigma0 = SIGMA0_SHARE * (upper - lower)
    if not (math.isfinite(args.sigma0) and args.sigma0 > 0.0):
        parser.error(f"--sigma0 must be positive and finite, got {args.sigma0}")
    return args


def build_problem(function, dim, seed):
    """(lower, upper, o, initial mean), o and the mean float32 arrays drawn as chainsaw does."""
    lower, upper = BOXES[function]
    width = upper - lower
    rng = np.random.default_rng(seed)
    centre_gap = 0.5 * (1.0 - SHIFT_SPAN)
    shift = lower + width * (centre_gap + SHIFT_SPAN * rng.random(dim))
    mean = lower + width * rng.random(dim)
    return lower, upper, shift.astype(np.float32), mean.astype(np.float32)


def objective(xp, function, z):
    """f(z) for each row of z = clip(x) - o, with xp NumPy or jax.numpy."""
    if function == "sphere":
        return xp.sum(z * z, axis=-1)
    return xp.sum(z * z - 10.0 * xp.cos(2.0 * xp.pi * z) + 10.0, axis=-1)


def peer_commits(peers_dir):
    """{name: commit} from .peers/VERSIONS.txt ('name url commit ...' a line)."""
    path = peers_dir / "VERSIONS.txt"
    if not path.is_file():
        sys.exit(f"peer_sep_cma: {path} is missing: stage the peers first")
    commits = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        if len(fields) >= 3:
            commits[fields[0]] = fields[2]
    return commits


def import_jax():
    # Without this JAX takes 75% of the GPU's memory at start.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    try:
        import jax
    except ImportError as error:
        sys.exit(f"peer_sep_cma: both peers need JAX: {error}")
    jax.config.update("jax_enable_x64", False)  # float32 throughout, the peers' default
    return jax


def make_objective(jax, function, shift):
    """Rows of points in the box -> f(x - o), in jax.numpy, float32."""
    return lambda x: objective(jax.numpy, function, x - shift)


def evosax_peer(jax, args, lower, upper, evaluate, mean0, key):
    """(initial state, step(state, key) -> (state, fitness), final sigma) for evosax."""
    sys.path.insert(0, str(args.peers_dir))
    from evosax.algorithms import Sep_CMA_ES
    jnp = jax.numpy
    es = Sep_CMA_ES(population_size=args.popsize, solution=jnp.zeros(args.dim, jnp.float32))
    # evosax's default std_init is 1.0 whatever the box; chainsaw's sigma0 replaces it.
    params = es.default_params.replace(std_init=jnp.asarray(args.sigma0, jnp.float32))
    state = es.init(key, mean0, params)

    def step(state, key):
        key_ask, key_tell = jax.random.split(key)
        x, state = es.ask(key_ask, state, params)
        clipped = jnp.clip(x, lower, upper)
        fitness = evaluate(clipped)
        seen = clipped if args.update_from == "clipped" else x
        state, _metrics = es.tell(key_tell, seen, fitness, state, params)
        return state, fitness

    return state, step, lambda state: float(state.std)


def patch_jax_for_evox09(jax):
    """EvoX 0.9.0 (2024) imports names that later JAX releases dropped; SepCMAES uses none."""
    def ensure_module(name, **attributes):
        try:
            module = __import__(name, fromlist=["_"])
        except (ImportError, AttributeError):
            module = types.ModuleType(name)
            sys.modules[name] = module
        for attribute, value in attributes.items():
            if not hasattr(module, attribute):
                setattr(module, attribute, value)

    ensure_module("jax.sharding", PositionalSharding=type("PositionalSharding", (), {}))
    ensure_module("jax.experimental.shard_map", shard_map=getattr(jax, "shard_map", None))
    ensure_module("jax.experimental.mesh_utils")
    ensure_module("jax._src.distributed",
                  global_state=types.SimpleNamespace(coordinator_address=None, process_id=0))
    if not hasattr(jax, "tree_map"):
        jax.tree_map = jax.tree_util.tree_map


def import_evox09_sep_cma(jax, release_dir):
    """EvoX 0.9.0's SepCMAES, loading its core and cma_es.py only."""
    sys.path.insert(0, str(release_dir))
    patch_jax_for_evox09(jax)
    import evox
    package = Path(evox.__file__).resolve().parent
    if package != (release_dir / "evox").resolve():
        sys.exit(f"peer_sep_cma: imported evox from {package}, not from {release_dir}")
    # evox.algorithms' __init__ imports every algorithm, some needing gpjax or ray: register its
    # folders as bare packages so that only cma_es.py and its sort_utils.py are executed.
    for name in ("algorithms", "algorithms.so", "algorithms.so.es_variants"):
        full = "evox." + name
        if full not in sys.modules:
            module = types.ModuleType(full)
            module.__path__ = [str(package.joinpath(*name.split(".")))]
            sys.modules[full] = module
    from evox.algorithms.so.es_variants.cma_es import SepCMAES
    return SepCMAES


def evox_peer(jax, args, lower, upper, evaluate, mean0, key):
    """(initial state, step(state, key) -> (state, fitness), final sigma) for EvoX 0.9.0."""
    SepCMAES = import_evox09_sep_cma(jax, args.peers_dir / EVOX_JAX_RELEASE)
    jnp = jax.numpy
    algorithm = SepCMAES(center_init=mean0, init_stdev=args.sigma0, pop_size=args.popsize)
    state = algorithm.init(key)

    def step(state, _key):  # EvoX keeps its random key in its state
        x, state = algorithm.ask(state)
        clipped = jnp.clip(x, lower, upper)
        fitness = evaluate(clipped)
        if args.update_from == "clipped":
            # tell reads the samples from the state that ask left: give it the clipped ones.
            state = state.replace(population=clipped)
        return algorithm.tell(state, fitness), fitness

    return state, step, lambda state: float(state.sigma)


def device_name(jax):
    device = jax.devices()[0]
    return f"{device.platform}: {getattr(device, 'device_kind', str(device))}"


def run(args):
    peer_key = "evosax" if args.peer == "evosax" else EVOX_JAX_RELEASE
    commit = peer_commits(args.peers_dir).get(peer_key, "unknown")
    jax = import_jax()
    jnp = jax.numpy
    lower, upper, shift_host, mean_host = build_problem(args.function, args.dim, args.seed)
    clock = time.perf_counter

    started = clock()
    shift, mean0 = jnp.asarray(shift_host), jnp.asarray(mean_host)
    evaluate = make_objective(jax, args.function, shift)
    make_peer = evosax_peer if args.peer == "evosax" else evox_peer
    key_peer, key_loop = jax.random.split(jax.random.key(args.seed))
    state, step, final_sigma = make_peer(jax, args, lower, upper, evaluate, mean0, key_peer)
    carry = (state, key_loop, jnp.asarray(jnp.inf, jnp.float32))
    jax.block_until_ready(carry)
    setup_seconds = clock() - started

    def generation(carry):
        state, key, best = carry
        key, key_step = jax.random.split(key)
        state, fitness = step(state, key_step)
        return state, key, jnp.minimum(best, jnp.min(fitness))

    started = clock()
    first = jax.jit(generation).lower(carry).compile()
    first_compile_seconds = clock() - started
    carry = jax.block_until_ready(first(carry))
    first_generation_seconds = clock() - started

    remaining = args.generations - 1
    started = clock()
    if args.loop == "scan":
        def loop(carry):
            return jax.lax.scan(lambda c, _: (generation(c), None), carry, None,
                                length=remaining)[0]
        run_remaining = jax.jit(loop).lower(carry).compile()
    else:
        one = jax.jit(generation).lower(carry).compile()

        def run_remaining(carry):
            for _ in range(remaining):
                carry = one(carry)
            return carry
    loop_compile_seconds = clock() - started

    started = clock()
    carry = jax.block_until_ready(run_remaining(carry))
    steady_seconds = clock() - started

    return {
        "peer": args.peer,
        "algorithm": ("evosax.algorithms.Sep_CMA_ES" if args.peer == "evosax"
                      else "evox.algorithms.SepCMAES (EvoX 0.9.0, JAX)"),
        "commit": commit,
        "framework": f"jax {jax.__version__}",
        "dim": args.dim, "popsize": args.popsize, "generations": args.generations,
        "evaluations": args.generations * args.popsize, "function": args.function,
        "seed": args.seed, "sigma0": args.sigma0, "update_from": args.update_from,
        "loop": LOOPS[args.loop], "dtype": str(carry[0].mean.dtype),
        "seconds_total": setup_seconds + first_generation_seconds + loop_compile_seconds
        + steady_seconds,
        "seconds_per_generation": steady_seconds / remaining,
        "compile_seconds": first_compile_seconds + loop_compile_seconds,
        "setup_seconds": setup_seconds, "first_generation_seconds": first_generation_seconds,
        "loop_compile_seconds": loop_compile_seconds, "steady_seconds": steady_seconds,
        "best_error": float(carry[2]), "final_sigma": final_sigma(carry[0]),
        "device": device_name(jax),
    }


def dry_run(args):
    lower, upper, shift, mean = build_problem(args.function, args.dim, args.seed)
    clipped = np.clip(mean, lower, upper)[None, :].astype(np.float64)
    return {
        "peer": args.peer, "dry_run": True, "dim": args.dim, "popsize": args.popsize,
        "generations": args.generations, "evaluations": args.generations * args.popsize,
        "function": args.function, "seed": args.seed, "lower": lower, "upper": upper,
        "sigma0": args.sigma0, "update_from": args.update_from, "loop": LOOPS[args.loop],
        "shift_min": float(shift.min()), "shift_max": float(shift.max()),
        "mean_min": float(mean.min()), "mean_max": float(mean.max()),
        "initial_mean_error": float(objective(np, args.function, clipped - shift)[0]),
    }


def main(argv=None):
    args = parse_args(argv)
    print(json.dumps(dry_run(args) if args.dry_run else run(args)))


if __name__ == "__main__":
    main()
