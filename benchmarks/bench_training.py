"""Training benchmark: steps and seconds to held-out R² ≥ 0.999, and training throughput.

For every latent dimension n it trains the recipes of :func:`recipes` side by
side, in one process, on the same world (Gaussian OU pairs, the same frozen
coupling-flow renderer, the same held-out probe evaluated every
``--eval-every`` steps), each stopped at the first held-out probe R² ≥ the
target (the stopping rule sees held-out data only).

Wall times include the periodic evaluations. The machine may be shared, so
compare the two recipes' ratio within one invocation, not absolute seconds
across invocations. Throughput (steps/s) is the median of ``--repeats`` timed
blocks of training steps without evaluation.

``--estimate-full`` instead estimates the wall time of every synthetic
experiment at ``--scale full`` on this machine: it times a few training steps
of each distinct run shape of the full grids (dimension, encoder, batch,
objective) and multiplies by each run's step budget (an upper bound: runs
that reach their early-stopping target stop sooner; evaluations not counted).

Usage: ``python benchmarks/bench_training.py --dims 2 8 32 128 [--threads 1] [--json out.json]``
or ``python benchmarks/bench_training.py --estimate-full``
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import torch

from lejepa_wm.experiments import SYNTHETIC_EXPERIMENTS, get_experiment
from lejepa_wm.experiments.encoders import build_encoder
from lejepa_wm.experiments.flows import make_mixing
from lejepa_wm.experiments.objectives import build_objective
from lejepa_wm.experiments.scaling import EXPERIMENT as SCALING
from lejepa_wm.experiments.training import EvalData, TrainSettings, evaluate_encoder, train
from lejepa_wm.experiments.synthetic import build_world
from lejepa_wm.experiments.worlds import GaussianWorld


FAST_STEPS = 1000


def recipes(max_steps: int, eval_every: int, target: float) -> dict[str, dict]:
    """The recipes compared, all on the scaling experiment's quick world (additive renderer).

    - ``published``: additive matched encoder, AdamW 3e-3, no warmup, constant learning rate for the
      first half of ``max_steps`` then cosine to 0, SIGReg weight 1e-6;
    - ``fast``: the same encoder and objective, AdamW 1e-2 with 25 warmup steps and one cosine decay
      over a 1000-step budget, 64 SIGReg slices (what makes it faster: a larger peak rate whose noise
      floor a short decay removes early, and fewer slices per step);
    - ``collapsible``: the scaling experiment's recipe — matched encoder with learned scales (it can
      collapse, so SIGReg needs a real weight) and its configured optimizer settings.
    """
    config = SCALING.load_config("quick")
    common = {"batch_size": 256, "eval_every": eval_every, "checkpoint_every": eval_every,
              "stop_r2": target, "probe_size": config.probe_size}
    return {
        "published": {"encoder": "matched_additive", "hidden": config.encoder_hidden, "weight": 1e-6,
                      "slices": 256, "settings": dict(common, max_steps=max_steps, lr=3e-3, warmup_steps=0,
                                                      decay_fraction=0.5)},
        "fast": {"encoder": "matched_additive", "hidden": config.encoder_hidden, "weight": 1e-6,
                 "slices": config.sigreg_slices,
                 "settings": dict(common, max_steps=FAST_STEPS, lr=1e-2, warmup_steps=25, decay_fraction=1.0)},
        "collapsible": {"encoder": config.encoder, "hidden": config.encoder_hidden, "weight": config.sigreg_weight,
                        "slices": config.sigreg_slices,
                        "settings": dict(common, max_steps=max_steps, lr=config.lr,
                                         warmup_steps=config.warmup_steps, decay_fraction=config.decay_fraction)},
    }


def build(n: int, recipe: dict, seed: int):
    config = SCALING.load_config("quick")
    world = GaussianWorld.isotropic(n, config.rho)
    mixing = make_mixing(n, config.mixing_layers, config.mixing_hidden, config.shift_gain,
                         config.log_scale_gain, seed)
    encoder = build_encoder(recipe["encoder"], mixing, recipe["hidden"], seed=seed)
    objective = build_objective("sigreg", recipe["weight"], num_slices=recipe["slices"])
    return world, mixing, encoder, objective, config.eval_size


def time_to_target(n: int, recipe: dict, seed: int) -> dict:
    """Train once with held-out early stopping; report steps/seconds to the target (None if not reached)."""
    world, mixing, encoder, objective, eval_size = build(n, recipe, seed)
    settings = TrainSettings(seed=seed, **recipe["settings"])
    data = EvalData.draw(world, mixing, eval_size, seed, torch.device("cpu"))
    result = train(encoder, world, mixing, objective, settings, None, evaluator=lambda m: evaluate_encoder(
        m, data, full=False), progress=False)
    return {"steps_to_target": result.steps_to_target, "seconds_to_target": result.seconds_to_target,
            "final_r2": result.final["probe_r2"], "steps": result.steps, "seconds": result.seconds}


def train_step(world, mixing, encoder, objective, optimizer, generator, batch_size: int) -> None:
    """One optimisation step on a fresh batch of positive pairs (the unit both timings measure)."""
    z, z_pos = world.sample_pairs(batch_size, generator)
    with torch.no_grad():
        x, x_pos = mixing(z), mixing(z_pos)
    loss, _ = objective(encoder(x), encoder(x_pos), generator)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def throughput(n: int, recipe: dict, seed: int, steps: int, repeats: int) -> float:
    """Median training steps per second over ``repeats`` blocks of ``steps`` steps (no evaluation)."""
    world, mixing, encoder, objective, _ = build(n, recipe, seed)
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(seed)
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            train_step(world, mixing, encoder, objective, optimizer, generator, 256)
        rates.append(steps / (time.perf_counter() - start))
    return statistics.median(rates)


def seconds_per_step(params: dict, steps: int = 3) -> float:
    """Median wall seconds of one training step of the run described by ``params`` (after one warm-up step)."""
    world = build_world(params["world"])
    mix, enc, obj = params["mixing"], params["encoder"], params["objective"]
    mixing = make_mixing(world.n, mix["layers"], mix["hidden"], mix["shift_gain"], mix["log_scale_gain"], 0)
    encoder = build_encoder(enc["kind"], mixing, enc["hidden"], enc.get("m"), enc["depth"], 0)
    objective = build_objective(obj["name"], obj["weight"], **obj.get("options", {}))
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=1e-4)
    generator = torch.Generator().manual_seed(0)
    times = []
    for _ in range(steps + 1):
        start = time.perf_counter()
        train_step(world, mixing, encoder, objective, optimizer, generator, params["train"]["batch_size"])
        times.append(time.perf_counter() - start)
    return statistics.median(times[1:])


def estimate_full() -> None:
    """Print the estimated CPU wall time of every synthetic experiment at full scale."""
    total = 0.0
    for name in SYNTHETIC_EXPERIMENTS:
        experiment = get_experiment(name)
        specs = experiment.grid(experiment.load_config("full"), "full")
        cache: dict[str, float] = {}
        seconds = 0.0
        for spec in specs:
            p = spec.params
            key = json.dumps([p["world"]["n"], p["world"]["kind"], p["encoder"], p["objective"]["name"],
                              p["objective"]["weight"] > 0, p["train"]["batch_size"], p["mixing"]["layers"]],
                             sort_keys=True)
            if key not in cache:
                cache[key] = seconds_per_step(p)
            seconds += cache[key] * p["train"]["max_steps"]
        total += seconds
        print(f"{name:>13}: {len(specs):4d} runs, at most {seconds / 3600:7.1f} h "
              f"({len(cache)} run shapes timed)", flush=True)
    print(f"{'all five':>13}: at most {total / 3600:.1f} h of CPU wall time on this machine")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 8, 32, 128])
    parser.add_argument("--max-steps", type=int, default=2000)
    parser.add_argument("--eval-every", type=int, default=25)
    parser.add_argument("--target", type=float, default=0.999)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    parser.add_argument("--estimate-full", action="store_true",
                        help="estimate the full-scale wall time of the five experiments instead")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.estimate_full:
        estimate_full()
        return
    rows = []
    print(f"{'n':>5} {'recipe':>11} {'steps->R2':>10} {'s->R2':>8} {'final R2':>9} {'steps/s':>8} {'steps/(steps/s)':>16}")
    for n in args.dims:
        for name, recipe in recipes(args.max_steps, args.eval_every, args.target).items():
            row = {"n": n, "recipe": name, **time_to_target(n, recipe, args.seed),
                   "steps_per_second": throughput(n, recipe, args.seed, 20, args.repeats)}
            rows.append(row)
            steps = row["steps_to_target"] if row["steps_to_target"] is not None else f">{row['steps']}"
            seconds = (f"{row['seconds_to_target']:.1f}" if row["seconds_to_target"] is not None
                       else f">{row['seconds']:.0f}")
            # wall seconds on a shared machine are noisy; steps are deterministic, so also give
            # steps / median throughput (training time without evaluations)
            row["median_seconds_to_target"] = (row["steps_to_target"] / row["steps_per_second"]
                                               if row["steps_to_target"] is not None else None)
            median = (f"{row['median_seconds_to_target']:.1f}" if row["median_seconds_to_target"] is not None
                      else "-")
            print(f"{n:>5} {name:>11} {steps:>10} {seconds:>8} {row['final_r2']:>9.5f} "
                  f"{row['steps_per_second']:>8.1f} {median:>16}", flush=True)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(rows, handle, indent=2)


if __name__ == "__main__":
    main()
