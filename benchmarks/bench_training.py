"""Training benchmark: the cost of every synthetic grid, and the published recipe against ours side by side.

Two jobs, both on one CPU thread (torch intra-op threads and the BLAS/OpenMP
pools of NumPy and SciPy are all limited to ``--threads``):

``--estimate-full`` / ``--estimate-quick``
    For every synthetic experiment it builds the grid of that scale exactly as
    ``lejepa-wm run`` would (``experiment.grid(config, scale)``), groups the runs
    into distinct *run shapes* (world, renderer, encoder, objective, batch,
    held-out sample size), and for each shape times the parts of
    :meth:`~lejepa_wm.experiments.synthetic.SyntheticExperiment.execute`: the
    set-up (renderer, encoder, the three held-out samples), training steps
    (median of ``--repeats`` blocks of ``--block`` steps after one warm-up
    step), one validation evaluation (with the test metrics when the run
    tracks them) and the final test evaluation. A run's estimate is
    ``set-up + max_steps · step + ⌈max_steps / eval_every⌉ · evaluation + final``
    in process CPU seconds: an upper bound, since a run that reaches its
    early-stopping target stops sooner (checkpoint writes are not counted; they
    are milliseconds). ``--config NAME=FILE`` costs another config file.
    ``--details`` prints every shape. ``--measured DIR`` sets the estimate of
    the runs already finished below the results root ``DIR`` (e.g. the shipped
    ``reference``) beside their stored compute (wall time, plus the training
    time of earlier attempts for a resumed run), at the full budget and at the
    steps each run took.

side by side (the default; issue 17, item 5)
    The published scaling recipe and ours, trained on the same published
    world (same renderer seed, same fit / validation / test samples, same
    initial weights and batch stream), in one process, alternating call by
    call (ABBA order over seeds), each stopped at the first evaluation whose
    *validation* probe R² reaches ``--target``; the table reports steps, CPU
    and wall seconds to that point (evaluations included) and the *test*
    probe R² of the stopped encoder. Seeds are tuning seeds (``--seeds``,
    default 1000 1001 1002); seeds below 1000 are refused. Recipes:

    - ``published``: AdamW 3e-3, batch 256, constant learning rate for the
      first half of ``--published-steps`` then a cosine to 0, SIGReg weight
      1e-6 with 256 slices, evaluated every ``--published-every`` steps (50);
    - ``config``: what ``configs/scaling.toml`` [full] sets (peak rate, warmup,
      one cosine decay over ``max_steps``, SIGReg weight and slices, cadence);
    - ``fast``: ours, :data:`FAST` (peak 2e-2 after 25 warmup steps, one
      cosine decay to 0 over the budget, 64 slices) with the step budget and
      evaluation cadence of :data:`FAST_BUDGETS` for each n (chosen on the
      validation sample of the tuning seeds; see ``benchmarks/README.md``);
    - ``ours``: the recipe chosen on tuning seeds and confirmed against the published one
      (:data:`OURS`, at n = 128 and 1,024 only; issue 28);
    - ``custom``: :data:`FAST` (600 steps, every 25, whatever n) with
      ``--set key=value`` overrides (``lr``, ``warmup_steps``,
      ``decay_fraction``, ``max_steps``, ``batch_size``, ``slices``,
      ``weight``, ``eval_every``, ``average_decay``, ``precision``,
      ``identity_start``: ``true`` starts every weight of the paper's encoder at 0, the identity), for
      trying a change.

    A second table compares time at equal accuracy: steps and CPU seconds
    until each recipe's validation R² reaches what the published run on the
    same seed reached (the target, or its final value where it missed the
    target), read from the evaluation history (CPU time pro rata of wall).

    Every recipe trains the same encoder, ``--encoder``: the paper's own
    (``published``, layers subtracting ``tanh(W_l a)``; the default, what the
    published recipe was written for) or the generic unit-Jacobian
    ``matched_additive``, whose hidden width is the scaling config's
    ``encoder_hidden`` (``--hidden half`` uses ``n/2``, the width at which it
    contains the renderer's exact inverse at every n).

On a shared machine absolute times vary several-fold: compare the recipes'
ratio within one invocation. Steps are deterministic on a given machine.

Usage::

    python benchmarks/bench_training.py --estimate-full [--details] [--config scaling=my.toml] [--measured reference]
    python benchmarks/bench_training.py --estimate-quick
    python benchmarks/bench_training.py --dims 16 128 [--seeds 1000 1001 1002] [--recipes published fast]
    python benchmarks/bench_training.py --dims 128 --recipes published custom --set lr=2e-2 max_steps=800
    python benchmarks/bench_training.py --dims 128 1024 --seeds 1003 1004 1005 --recipes published ours \
        --published-every 250
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before NumPy, SciPy and torch start their pools

import numpy  # noqa: E402,F401  (NumPy's BLAS is loaded before the thread limit below)
import scipy.linalg  # noqa: E402,F401  (load SciPy's BLAS so that the limit below reaches it)
import torch  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from lejepa_wm.experiments import SYNTHETIC_EXPERIMENTS, get_experiment  # noqa: E402
from lejepa_wm.experiments.base import run_compute_seconds  # noqa: E402
from lejepa_wm.experiments.encoders import build_encoder  # noqa: E402
from lejepa_wm.experiments.flows import make_renderer  # noqa: E402
from lejepa_wm.experiments.heldout import (HeldOutSamples, embed, raw_observation_r2, reported_metrics,  # noqa: E402
                                           validation_metrics)
from lejepa_wm.experiments.metrics import linear_probe_r2  # noqa: E402
from lejepa_wm.experiments.objectives import build_objective  # noqa: E402
from lejepa_wm.experiments.run_params import SyntheticRunParams  # noqa: E402
from lejepa_wm.experiments.training import TrainSettings, WorldPairs, numpy64, train  # noqa: E402
from lejepa_wm.experiments.worlds import GaussianWorld  # noqa: E402

FIRST_TUNING_SEED = 1000


def limit_threads(threads: int) -> None:
    """torch intra-op threads and every BLAS/OpenMP pool already loaded: ``threads`` each."""
    torch.set_num_threads(threads)
    threadpool_limits(limits=threads)


class Clock:
    """Process CPU time and wall time of a block (``with Clock() as c: ...; c.cpu, c.wall``)."""

    def __enter__(self) -> "Clock":
        self._cpu, self._wall = time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.cpu = time.process_time() - self._cpu
        self.wall = time.perf_counter() - self._wall


# ----------------------------------------------------------------------------------------------------------
# Estimates of whole grids
# ----------------------------------------------------------------------------------------------------------

def shape_key(params: dict[str, Any]) -> str:
    """What a run's cost depends on: world (not its ρ or β), renderer, encoder, objective kind, batch, sample."""
    world = {k: v for k, v in params["world"].items() if k not in ("rho", "beta")}
    objective = params["objective"]
    options = {k: v for k, v in objective["options"].items() if k != "width"}
    return json.dumps([world, params["renderer"], params["encoder"], objective["name"], objective["weight"] > 0,
                       options, params["train"]["batch_size"], params["eval_size"], params["track_test"]],
                      sort_keys=True)


def evaluation_key(params: dict[str, Any]) -> str:
    """What the set-up and evaluation costs depend on (not the objective or the batch)."""
    world = {k: v for k, v in params["world"].items() if k not in ("rho", "beta")}
    return json.dumps([world, params["renderer"], params["encoder"], params["eval_size"], params["track_test"]],
                      sort_keys=True)


@dataclass
class ShapeCost:
    """Measured CPU seconds of one run shape's parts."""

    setup: float
    step: float
    evaluation: float
    final: float
    step_wall: float

    def run_seconds(self, max_steps: int, eval_every: int | None) -> float:
        evaluations = math.ceil(max_steps / eval_every) if eval_every else 1
        return self.setup + max_steps * self.step + evaluations * self.evaluation + self.final


def time_shape(experiment: Any, params_dict: dict[str, Any], block: int, repeats: int,
               evaluation_cache: dict[str, tuple[float, float, float]]) -> ShapeCost:
    """Time one run shape as ``SyntheticExperiment.execute`` runs it (CPU seconds per part)."""
    params = SyntheticRunParams.from_dict(params_dict)
    world = params.world
    with Clock() as setup:
        renderer = params.renderer.build(world.n, params.seeds.renderer)
        encoder = params.encoder.build(renderer, params.seeds.torch_generator("init"))
        samples = HeldOutSamples.draw(world, renderer, params.eval_size, params.seeds, "cpu")
    objective = params.objective.build()
    pairs = WorldPairs(world, renderer)
    generator = params.seeds.torch_generator("batches")
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=params.train.lr, weight_decay=params.train.weight_decay)
    encoder.train()

    def step(index: int) -> None:  # the body of the training loop
        for group in optimizer.param_groups:
            group["lr"] = params.train.learning_rate(index)
        x, x_pos = pairs.draw(index, params.train.batch_size, generator)
        loss, _ = objective(encoder(x), encoder(x_pos), generator)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    step(0)
    cpu, wall = [], []
    for r in range(repeats):
        with Clock() as clock:
            for i in range(block):
                step(1 + r * block + i)
        cpu.append(clock.cpu / block)
        wall.append(clock.wall / block)
    key = evaluation_key(params_dict)
    if key not in evaluation_cache:
        with Clock() as evaluation:
            validation_metrics(encoder, samples)
            if params.track_test:
                reported_metrics(encoder, samples)
        with Clock() as final:
            reported_metrics(encoder, samples)
            raw_observation_r2(samples)
            experiment.extra_metrics(encoder, samples, params)
        evaluation_cache[key] = (setup.cpu, evaluation.cpu, final.cpu)
    setup_s, evaluation_s, final_s = evaluation_cache[key]
    return ShapeCost(setup_s, statistics.median(cpu), evaluation_s, final_s, statistics.median(wall))


def describe_shape(params: dict[str, Any]) -> str:
    world, encoder, objective = params["world"], params["encoder"], params["objective"]
    name = objective["name"] if objective["weight"] > 0 else "alignment"
    slices = objective["options"].get("num_slices")
    m = f" m={encoder['m']}" if encoder.get("m") else ""
    return (f"{world['kind']} n={world['n']} {encoder['kind']}({encoder['hidden']}x{encoder['depth']}){m} {name}"
            + (f"/{slices}" if slices else "") + f" batch {params['train']['batch_size']} eval {params['eval_size']}")


def finished_run(measured: Path | None, name: str, scale: str, run_id: str) -> dict[str, Any] | None:
    """The stored ``metrics.json`` of a finished run below the results root ``measured`` (``None`` if absent)."""
    if measured is None:
        return None
    path = measured / name / scale / "runs" / run_id / "metrics.json"
    try:
        metrics = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return metrics if isinstance(metrics, dict) and isinstance(metrics.get("wall_time_s"), (int, float)) else None


def print_measured(scale: str, out: dict[str, Any], measured: Path) -> None:
    """The estimate beside the measured wall (and, where stored, CPU) time of the finished runs below ``measured``."""
    print(f"\nMeasured at scale {scale!r} (finished runs in {measured}; wall seconds of each run as stored, "
          f"against this estimate for the same runs, at their full step budget and at the steps they ran):")
    print(f"{'experiment':>13} {'finished':>12} {'estimate, budget':>17} {'estimate, ran':>14} "
          f"{'measured':>9} {'measured / ran':>15}")
    for name, entry in out["experiments"].items():
        done = entry["measured"]
        if not done["runs"]:
            print(f"{name:>13} {0:>5} of {entry['runs']:<5} {'-':>17} {'-':>14} {'-':>9} {'-':>15}")
            continue
        ratio = done["wall_seconds"] / done["estimate_ran_seconds"]
        print(f"{name:>13} {done['runs']:>5} of {entry['runs']:<5} {done['estimate_budget_seconds'] / 3600:>15.2f} h "
              f"{done['estimate_ran_seconds'] / 3600:>12.2f} h {done['wall_seconds'] / 3600:>7.2f} h {ratio:>15.2f}")
    print("CPU time where stored (`cpu_time_s`, runs finished in one attempt) against the estimate of the same runs:")
    for name, entry in out["experiments"].items():
        done = entry["measured"]
        if done["cpu_runs"]:
            print(f"{name:>13} {done['cpu_runs']:>5} runs: CPU {done['cpu_seconds'] / 3600:.2f} h, estimate "
                  f"{done['estimate_cpu_runs_seconds'] / 3600:.2f} h, CPU / estimate "
                  f"{done['cpu_seconds'] / done['estimate_cpu_runs_seconds']:.2f}")


def estimate(scale: str, names: list[str], configs: dict[str, Path], block: int, repeats: int,
             details: bool, cores: int, measured: Path | None = None) -> dict[str, Any]:
    """Print and return the estimated CPU time of every experiment's grid at ``scale``.

    With ``measured`` (a results root), each experiment's entry also holds, for
    its runs finished there, the stored wall seconds against the estimate of the
    same runs (at the full budget, and at the steps each run actually took), and
    the stored CPU seconds of those finished in one attempt against their estimate.
    """
    out: dict[str, Any] = {"scale": scale, "experiments": {}}
    total = 0.0
    print(f"Estimate at scale {scale!r}: process CPU seconds on one thread, each run's full step budget "
          f"(an upper bound where early stopping is set)", flush=True)
    header = f"{'experiment':>13} {'runs':>5} {'shapes':>6} {'steps (all runs)':>17} {'CPU-hours':>10} {'stop_r2':>8}"
    rows = []
    for name in names:
        experiment = get_experiment(name)
        config = experiment.load_config(scale, configs.get(name))
        specs = experiment.grid(config, scale)
        groups: dict[str, list[dict[str, Any]]] = {}
        for spec in specs:
            groups.setdefault(shape_key(spec.params), []).append(spec.params)
        groups_ids: dict[str, list[str]] = {}
        for spec in specs:
            groups_ids.setdefault(shape_key(spec.params), []).append(spec.run_id)
        evaluation_cache: dict[str, tuple[float, float, float]] = {}
        seconds, steps, shapes = 0.0, 0, []
        done = {"runs": 0, "wall_seconds": 0.0, "estimate_budget_seconds": 0.0, "estimate_ran_seconds": 0.0,
                "cpu_runs": 0, "cpu_seconds": 0.0, "estimate_cpu_runs_seconds": 0.0}
        for key, members in groups.items():
            cost = time_shape(experiment, members[0], block, repeats, evaluation_cache)
            for params, run_id in zip(members, groups_ids[key]):
                metrics = finished_run(measured, name, scale, run_id)
                if metrics is not None:
                    every = params["train"]["eval_every"]
                    done["runs"] += 1
                    done["wall_seconds"] += run_compute_seconds(metrics)
                    done["estimate_budget_seconds"] += cost.run_seconds(params["train"]["max_steps"], every)
                    ran = cost.run_seconds(int(metrics.get("steps", 0)) or params["train"]["max_steps"], every)
                    done["estimate_ran_seconds"] += ran
                    if isinstance(metrics.get("cpu_time_s"), (int, float)) and metrics.get("resumed_from") is None:
                        done["cpu_runs"] += 1  # a resumed run's CPU time covers its last attempt only
                        done["cpu_seconds"] += metrics["cpu_time_s"]
                        done["estimate_cpu_runs_seconds"] += ran
            shape_seconds = sum(cost.run_seconds(p["train"]["max_steps"], p["train"]["eval_every"]) for p in members)
            seconds += shape_seconds
            steps += sum(p["train"]["max_steps"] for p in members)
            shapes.append({"shape": describe_shape(members[0]), "runs": len(members),
                           "step_ms": 1e3 * cost.step, "step_wall_ms": 1e3 * cost.step_wall,
                           "evaluation_s": cost.evaluation, "final_s": cost.final, "setup_s": cost.setup,
                           "eval_every": members[0]["train"]["eval_every"],
                           "max_steps": members[0]["train"]["max_steps"], "cpu_seconds": shape_seconds})
            if details:
                s = shapes[-1]
                print(f"    {s['shape']:<72} {s['runs']:>3} runs  step {s['step_ms']:7.1f} ms "
                      f"(wall {s['step_wall_ms']:6.1f})  eval {s['evaluation_s']:6.2f} s every {s['eval_every']}  "
                      f"final {s['final_s']:6.2f} s  set-up {s['setup_s']:5.2f} s  "
                      f"-> {s['cpu_seconds'] / 3600:6.2f} h", flush=True)
        total += seconds
        stop = getattr(config, "stop_r2", 0.0) or "-"
        rows.append(f"{name:>13} {len(specs):>5} {len(groups):>6} {steps:>17,} {seconds / 3600:>10.2f} {stop!s:>8}")
        print(rows[-1], flush=True)
        out["experiments"][name] = {"runs": len(specs), "shapes": shapes, "steps": steps, "cpu_seconds": seconds,
                                    "stop_r2": getattr(config, "stop_r2", 0.0), "measured": done}
    print(header)
    print("\n".join(rows))
    print(f"{'total':>13} {sum(e['runs'] for e in out['experiments'].values()):>5} {'':>6} "
          f"{sum(e['steps'] for e in out['experiments'].values()):>17,} {total / 3600:>10.2f}")
    print(f"= {total / 60:.1f} CPU-minutes; on {cores} cores with one run per core "
          f"(perfect packing) {total / 60 / cores:.1f} min of wall time")
    out["cpu_seconds"] = total
    if measured is not None:
        print_measured(scale, out, measured)
    return out


# ----------------------------------------------------------------------------------------------------------
# The published recipe against ours
# ----------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Recipe:
    """Optimization settings compared on one world (the encoder and the world are shared)."""

    name: str
    lr: float
    warmup_steps: int
    decay_fraction: float
    max_steps: int
    batch_size: int = 256
    slices: int = 256
    weight: float = 1e-6
    eval_every: int = 50
    average_decay: float = 0.0
    precision: str = "float32"
    identity_start: bool = False

    def settings(self, target: float) -> TrainSettings:
        return TrainSettings(max_steps=self.max_steps, batch_size=self.batch_size, lr=self.lr,
                             warmup_steps=self.warmup_steps, decay_fraction=self.decay_fraction,
                             eval_every=self.eval_every, checkpoint_every=self.eval_every, stop_r2=target,
                             average_decay=self.average_decay, precision=self.precision)

    def describe(self) -> str:
        return (f"lr {self.lr:g}, warmup {self.warmup_steps}, decay over the last {self.decay_fraction:.0%} of "
                f"{self.max_steps} steps, batch {self.batch_size}, SIGReg {self.weight:g} x {self.slices} slices, "
                f"evaluation every {self.eval_every}, weight average {self.average_decay:g}, {self.precision}"
                + (", every weight started at 0 (the identity)" if self.identity_start else ""))


FAST = Recipe("fast", lr=2e-2, warmup_steps=25, decay_fraction=1.0, max_steps=600, batch_size=256, slices=64,
              weight=1e-6, eval_every=25)
"""Our faster recipe (peak rate and budget chosen on the validation sample of tuning seeds: benchmarks/README.md)."""

FAST_BUDGETS = ((16, 600, 25), (128, 4500, 100), (10**9, 10000, 250))
"""``(largest n, step budget, evaluation cadence)`` of the fast recipe. Its one cosine decay has to end near the
step at which the target is reached, and that step grows with n; an evaluation costs more steps at large n.
Chosen at n = 16 (600 steps: validation R² 0.999 at 450-600 on seeds 1000, 1001) and n = 128 (a 3000-step
budget ended at validation R² 0.998 / 0.9987 / 0.982 on seeds 1000-1002, so 4500); the last row is untested:
at n = 256 this recipe reached only 0.83 in 9000 steps (``benchmarks/README.md``)."""


OURS = {
    128: Recipe("ours", lr=3e-2, warmup_steps=25, decay_fraction=1.0, max_steps=500, batch_size=512, slices=16,
                weight=1e-6, eval_every=100, average_decay=0.99),
    1024: Recipe("ours", lr=6e-3, warmup_steps=50, decay_fraction=1.0, max_steps=2400, batch_size=1024, slices=64,
                 weight=1e-6, eval_every=100, average_decay=0.99, precision="bfloat16", identity_start=True),
}
"""Our recipe at each n where it was chosen on tuning seeds 1000-1002 and confirmed on fresh seeds against the
published one (1003-1005 at n = 1,024, 1006-1008 at n = 128; issue 28; ``benchmarks/README.md``, "After the
cheaper steps"); other n have none."""


def recipe_at(base: Recipe, n: int) -> Recipe:
    """``base`` at dimension ``n``: ``fast`` with the budget and cadence of :data:`FAST_BUDGETS`, ``ours`` from
    :data:`OURS`, any other as it is."""
    if base.name == "ours":
        return OURS[n]
    if base.name != "fast":
        return base
    _, steps, every = next(entry for entry in FAST_BUDGETS if n <= entry[0])
    return replace(base, max_steps=steps, eval_every=every)


def _setting(default: Any, text: str) -> Any:
    """A ``--set`` value in the type of the recipe field's default (``true``/``false`` for a flag)."""
    if isinstance(default, bool):
        if text not in ("true", "false"):
            raise SystemExit(f"--set expects true or false for a flag; got {text!r}")
        return text == "true"
    return text if isinstance(default, str) else type(default)(float(text))


def recipes(published_steps: int, overrides: dict[str, str], published_every: int = 50) -> dict[str, Recipe]:
    from lejepa_wm.experiments.scaling import EXPERIMENT as SCALING

    full = SCALING.load_config("full")
    custom = replace(FAST, name="custom", **{k: _setting(getattr(FAST, k), v) for k, v in overrides.items()})
    return {
        "published": Recipe("published", lr=3e-3, warmup_steps=0, decay_fraction=0.5, max_steps=published_steps,
                            batch_size=256, slices=256, weight=1e-6, eval_every=published_every),
        "config": Recipe("config", lr=full.lr, warmup_steps=full.warmup_steps, decay_fraction=full.decay_fraction,
                         max_steps=full.max_steps, batch_size=full.batch_size, slices=full.sigreg_slices,
                         weight=full.sigreg_weight, eval_every=full.eval_every),
        "fast": FAST,
        "ours": OURS[1024],  # its settings at each n: recipe_at
        "custom": custom,
    }


def probe_r2(encoder: torch.nn.Module, samples: HeldOutSamples, split: str) -> float:
    """Probe fitted on ``fit``, scored on ``split`` (what ``test_metrics`` reports as ``probe_r2``)."""
    target = getattr(samples, split)
    r2, _ = linear_probe_r2(embed(encoder, samples.fit.x), numpy64(samples.fit.z), embed(encoder, target.x),
                            numpy64(target.z))
    return float(r2)


def run_recipe(recipe: Recipe, world: GaussianWorld, renderer: torch.nn.Module, samples: HeldOutSamples,
               streams: Any, hidden: int, target: float, encoder_kind: str) -> dict[str, Any]:
    encoder = build_encoder(encoder_kind, renderer, hidden, streams.torch_generator("init"))
    if recipe.identity_start:  # the paper's layers subtract tanh(W a): with W = 0 the encoder is the identity
        with torch.no_grad():
            for weight in encoder.parameters():
                weight.zero_()
    objective = build_objective("sigreg", recipe.weight, num_slices=recipe.slices)
    with Clock() as clock:
        result = train(encoder, WorldPairs(world, renderer), objective, recipe.settings(target),
                       streams.torch_generator("batches"), None,
                       evaluator=lambda model: validation_metrics(model, samples), progress=False)
    return {"recipe": recipe.name, "reached": result.steps_to_target is not None, "steps": result.steps,
            "cpu_s": clock.cpu, "wall_s": clock.wall, "validation_r2": result.final["probe_r2"],
            "test_r2": probe_r2(encoder, samples, "test"), "evaluations": len(result.history),
            "history": [(row["step"], row["probe_r2"], row["seconds"]) for row in result.history]}


def warm_up() -> None:
    """A few steps at n = 4 so that one-time costs (lazy imports, allocator) hit neither recipe."""
    world = GaussianWorld.isotropic(4, 0.8)
    renderer = make_renderer("published", 4, 0)
    samples = HeldOutSamples.draw(world, renderer, 64, _streams(FIRST_TUNING_SEED), "cpu")
    run_recipe(replace(FAST, max_steps=10, warmup_steps=2, eval_every=5), world, renderer, samples,
               _streams(FIRST_TUNING_SEED),
               8, 0.9999, "matched_additive")


def _streams(seed: int) -> Any:
    from lejepa_wm.seeds import SeedStreams

    return SeedStreams.derive(seed)


def side_by_side(dims: list[int], seeds: list[int], chosen: list[Recipe], encoder_kind: str, hidden_rule: str,
                 eval_size: int, target: float, log: Callable[[str], None]) -> list[dict[str, Any]]:
    from lejepa_wm.experiments.scaling import EXPERIMENT as SCALING

    full = SCALING.load_config("full")
    rows: list[dict[str, Any]] = []
    warm_up()
    for n in dims:
        hidden = max(1, n // 2) if hidden_rule == "half" else (int(hidden_rule) if hidden_rule.isdigit()
                                                                else full.encoder_hidden)
        for index, seed in enumerate(seeds):
            streams = _streams(seed)
            world = GaussianWorld.isotropic(n, full.rho)
            renderer = make_renderer("published", n, streams.renderer)
            samples = HeldOutSamples.draw(world, renderer, eval_size, streams, "cpu")
            raw = raw_observation_r2(samples)
            order = chosen if index % 2 == 0 else list(reversed(chosen))
            for recipe in (recipe_at(r, n) for r in order):
                row = {"n": n, "seed": seed, "encoder": encoder_kind, "hidden": hidden, "raw_test_r2": raw,
                       "max_steps": recipe.max_steps, "eval_every": recipe.eval_every,
                       **run_recipe(recipe, world, renderer, samples, streams, hidden, target, encoder_kind)}
                rows.append(row)
                log(f"n={n:5d} seed={seed} {recipe.name:>9}: {'' if row['reached'] else 'NOT reached, '}"
                    f"{row['steps']:5d} steps, {row['cpu_s']:7.1f} s CPU, {row['wall_s']:7.1f} s wall, "
                    f"validation R² {row['validation_r2']:.5f}, test R² {row['test_r2']:.5f} (raw {raw:.3f})")
    return rows


def summarize(rows: list[dict[str, Any]], chosen: list[Recipe], target: float) -> list[dict[str, Any]]:
    """Medians per (n, recipe) and the ratio to ``published`` (or the first recipe), CPU and wall."""
    summary = []
    base_name = "published" if any(r.name == "published" for r in chosen) else chosen[0].name
    for n in sorted({r["n"] for r in rows}):
        mine = [r for r in rows if r["n"] == n]
        base = [r for r in mine if r["recipe"] == base_name]
        for recipe in chosen:
            runs = [r for r in mine if r["recipe"] == recipe.name]
            entry = {"n": n, "recipe": recipe.name, "seeds": len(runs),
                     "reached": sum(r["reached"] for r in runs),
                     "test_reached": sum(r["test_r2"] >= target for r in runs),
                     "steps": statistics.median(r["steps"] for r in runs),
                     "cpu_s": statistics.median(r["cpu_s"] for r in runs),
                     "wall_s": statistics.median(r["wall_s"] for r in runs),
                     "test_r2": statistics.median(r["test_r2"] for r in runs),
                     "min_test_r2": min(r["test_r2"] for r in runs)}
            both = [(b, r) for r in runs for b in base if b["seed"] == r["seed"] and b["reached"] and r["reached"]]
            paired = [b["cpu_s"] / r["cpu_s"] for b, r in both]  # a ratio only where both reached the target
            paired_wall = [b["wall_s"] / r["wall_s"] for b, r in both]
            entry["speedup_cpu"] = statistics.median(paired) if paired else None
            entry["speedup_wall"] = statistics.median(paired_wall) if paired_wall else None
            summary.append(entry)
    return summary


def time_to(run: dict[str, Any], level: float) -> tuple[int, float, float] | None:
    """(step, CPU s, wall s) of ``run``'s first evaluation with validation R² >= ``level`` (CPU pro rata of wall)."""
    for step, r2, seconds in run["history"]:
        if r2 >= level:
            return step, run["cpu_s"] * seconds / run["wall_s"], seconds
    return None


def equal_r2(rows: list[dict[str, Any]], chosen: list[Recipe], target: float) -> list[dict[str, Any]]:
    """Per (n, recipe): steps and CPU seconds to the published run's level on the same seed.

    The level is ``target`` where the published run reached it, else the validation R² it ended with
    (the comparison at equal accuracy when the target is out of the published budget's reach).
    """
    out = []
    for n in sorted({r["n"] for r in rows}):
        base = {r["seed"]: r for r in rows if r["n"] == n and r["recipe"] == "published"}
        if not base:
            continue
        for recipe in chosen:
            hits, levels, ratios = [], [], []
            for r in (r for r in rows if r["n"] == n and r["recipe"] == recipe.name and r["seed"] in base):
                b = base[r["seed"]]
                level = target if b["reached"] else b["validation_r2"]
                levels.append(level)
                mine, theirs = time_to(r, level), time_to(b, level)
                if mine is not None:
                    hits.append(mine)
                    if theirs is not None:
                        ratios.append(theirs[1] / mine[1])
            out.append({"n": n, "recipe": recipe.name, "levels": levels, "reached": len(hits), "seeds": len(levels),
                        "steps": statistics.median(h[0] for h in hits) if hits else None,
                        "cpu_s": statistics.median(h[1] for h in hits) if hits else None,
                        "speedup_cpu": statistics.median(ratios) if ratios else None})
    return out


def every_level(rows: list[dict[str, Any]], chosen: list[Recipe]) -> list[dict[str, Any]]:
    """Per (n, recipe): CPU to every level the published run reached, against the published run's CPU.

    The levels are the validation R² of each of the published run's evaluations on the same seed; each side's
    time to a level is its first evaluation at or above it (:func:`time_to`). ``worst`` is the smallest ratio
    published CPU / ours over all levels and seeds (above 1: ours was sooner at every level), ``missed`` the
    levels ours never reached.
    """
    out = []
    for n in sorted({r["n"] for r in rows}):
        base = {r["seed"]: r for r in rows if r["n"] == n and r["recipe"] == "published"}
        for recipe in (c for c in chosen if c.name != "published" and base):
            ratios: list[tuple[float, float, int]] = []  # (ratio, level, seed)
            missed = 0
            for r in (r for r in rows if r["n"] == n and r["recipe"] == recipe.name and r["seed"] in base):
                b = base[r["seed"]]
                for level in sorted({r2 for _, r2, _ in b["history"]}):
                    mine, theirs = time_to(r, level), time_to(b, level)
                    if mine is None:
                        missed += 1
                    elif theirs is not None:
                        ratios.append((theirs[1] / mine[1], level, r["seed"]))
            worst = min(ratios) if ratios else None
            out.append({"n": n, "recipe": recipe.name, "levels": len(ratios) + missed, "missed": missed,
                        "sooner": sum(ratio > 1 for ratio, _, _ in ratios),
                        "worst": None if worst is None else {"ratio": worst[0], "level": worst[1], "seed": worst[2]}})
    return out


def print_every_level(table: list[dict[str, Any]]) -> None:
    print("\n| n | recipe | published levels (all seeds) | ours sooner | ours never "
          "| worst ratio, published CPU / ours (level, seed) |")
    print("|---|---|---|---|---|---|")
    for e in table:
        worst = ("—" if e["worst"] is None else
                 f"{e['worst']['ratio']:.2f}× ({e['worst']['level']:.5f}, seed {e['worst']['seed']})")
        print(f"| {e['n']} | {e['recipe']} | {e['levels']} | {e['sooner']} | {e['missed']} | {worst} |")


def print_equal_r2(table: list[dict[str, Any]]) -> None:
    print("\n| n | recipe | level (published's validation R², per seed) | seeds reaching it | steps | CPU s "
          "| speed-up vs published (CPU, median of per-seed ratios) |")
    print("|---|---|---|---|---|---|---|")
    for e in table:
        steps = "—" if e["steps"] is None else f"{e['steps']:.0f}"
        cpu = "—" if e["cpu_s"] is None else f"{e['cpu_s']:.1f}"
        speed = "—" if e["recipe"] == "published" or e["speedup_cpu"] is None else f"{e['speedup_cpu']:.2f}×"
        levels = ", ".join(f"{v:.4f}" for v in e["levels"])
        print(f"| {e['n']} | {e['recipe']} | {levels} | {e['reached']}/{e['seeds']} | {steps} | {cpu} | {speed} |")


def print_summary(summary: list[dict[str, Any]], target: float) -> None:
    print(f"\n| n | recipe | seeds reaching val. R² ≥ {target} | steps | CPU s | wall s | test R² (median, worst) "
          f"| speed-up vs published, CPU / wall (median of per-seed ratios) |")
    print("|---|---|---|---|---|---|---|---|")
    for e in summary:
        speed = ("—" if e["recipe"] == "published" else "— (not both reached)" if e["speedup_cpu"] is None
                 else f"{e['speedup_cpu']:.2f}× / {e['speedup_wall']:.2f}×")
        print(f"| {e['n']} | {e['recipe']} | {e['reached']}/{e['seeds']} (test {e['test_reached']}/{e['seeds']}) "
              f"| {e['steps']:.0f} | {e['cpu_s']:.1f} | {e['wall_s']:.1f} | {e['test_r2']:.5f}, "
              f"{e['min_test_r2']:.5f} | {speed} |")


def parse_pairs(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise SystemExit(f"{what} expects KEY=VALUE; got {item!r}")
        out[key] = value
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--estimate-full", action="store_true", help="estimate the full-scale grids' CPU time")
    parser.add_argument("--estimate-quick", action="store_true", help="estimate the quick-scale grids' CPU time")
    parser.add_argument("--experiments", nargs="+", default=list(SYNTHETIC_EXPERIMENTS),
                        choices=list(SYNTHETIC_EXPERIMENTS))
    parser.add_argument("--config", nargs="*", default=[], metavar="NAME=FILE",
                        help="estimate with this config file for experiment NAME")
    parser.add_argument("--block", type=int, default=3, help="training steps per timed block (estimates)")
    parser.add_argument("--repeats", type=int, default=3, help="timed blocks per run shape (estimates)")
    parser.add_argument("--details", action="store_true", help="print every run shape's timings")
    parser.add_argument("--cores", type=int, default=2, help="cores the wall-time line assumes")
    parser.add_argument("--measured", type=Path, default=None, metavar="DIR",
                        help="with an estimate: set it beside the stored wall time of the runs finished below this "
                             "results root (e.g. reference)")
    parser.add_argument("--dims", type=int, nargs="+", default=[16, 128])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1000, 1001, 1002])
    parser.add_argument("--recipes", nargs="+", default=["published", "fast"],
                        choices=["published", "config", "fast", "ours", "custom"])
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE", help="overrides of the custom recipe")
    parser.add_argument("--published-every", type=int, default=50,
                        help="how often the published recipe is evaluated (its stopping cadence; an evaluation on "
                             "8,192 pairs costs about 27 steps at n = 1,024)")
    parser.add_argument("--published-steps", type=int, default=2000,
                        help="the published recipe's step budget (its cosine starts at half of it)")
    parser.add_argument("--encoder", default="published", choices=["published", "matched_additive"],
                        help="the encoder every recipe trains (default: the paper's own)")
    parser.add_argument("--hidden", default="config",
                        help="encoder hidden width: 'config' (scaling's encoder_hidden), 'half' (n/2) or a number")
    parser.add_argument("--eval-size", type=int, default=None, help="held-out sample size (default: scaling [full])")
    parser.add_argument("--target", type=float, default=0.999)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    args = parser.parse_args()
    limit_threads(args.threads)
    load = os.getloadavg()
    print(f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} "
          f"/ {load[2]:.1f}, torch {torch.__version__}, {torch.get_num_threads()} torch thread(s)", flush=True)
    result: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M"), "load_average": load,
                              "threads": args.threads, "torch": torch.__version__}
    configs = {name: Path(path) for name, path in parse_pairs(args.config, "--config").items()}
    if args.estimate_full or args.estimate_quick:
        for scale in [s for s, on in (("quick", args.estimate_quick), ("full", args.estimate_full)) if on]:
            result[scale] = estimate(scale, args.experiments, configs, args.block, args.repeats, args.details,
                                     args.cores, args.measured)
    else:
        if any(seed < FIRST_TUNING_SEED for seed in args.seeds):
            raise SystemExit(f"the benchmark tunes: use tuning seeds (>= {FIRST_TUNING_SEED}), never reported ones")
        missing = sorted(set(args.dims) - set(OURS)) if "ours" in args.recipes else []
        if missing:
            raise SystemExit(f"recipe 'ours' exists at n = {sorted(OURS)} only (chosen and confirmed there); got "
                             f"--dims {missing}: use 'custom' with --set elsewhere")
        table = recipes(args.published_steps, parse_pairs(args.set, "--set"), args.published_every)
        chosen = [table[name] for name in args.recipes]
        for recipe in chosen:
            if recipe.name == "ours":
                for n in args.dims:
                    print(f"  ours at n = {n}: {OURS[n].describe()}")
                continue
            print(f"  {recipe.name}: {recipe.describe()}"
                  + ("; step budget and cadence per n: " + ", ".join(
                      f"n <= {n}: {steps} steps, every {every}" for n, steps, every in FAST_BUDGETS)
                     if recipe.name == "fast" else ""))
        from lejepa_wm.experiments.scaling import EXPERIMENT as SCALING

        eval_size = args.eval_size or SCALING.load_config("full").eval_size
        rows = side_by_side(args.dims, args.seeds, chosen, args.encoder, args.hidden, eval_size, args.target,
                            lambda line: print(line, flush=True))
        summary = summarize(rows, chosen, args.target)
        print_summary(summary, args.target)
        levels = equal_r2(rows, chosen, args.target)
        print_equal_r2(levels)
        every = every_level(rows, chosen)
        print_every_level(every)
        result.update(runs=rows, summary=summary, equal_r2=levels, every_level=every,
                      recipes=[{**recipe_at(r, n).__dict__, "n": n} for r in chosen for n in args.dims],
                      encoder=args.encoder, eval_size=eval_size, end_load_average=os.getloadavg())
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, default=str), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
