"""One tuning run of the scaling world: validation R² along the steps, for a choice of objective and optimizer.

The trials behind ``docs/TUNING.md`` ("A regularizer that does the identifying", "Fewer steps") were made
with this script. It builds the ``scaling`` experiment's world (the paper's renderer, ρ = 0.8, fit and
validation samples of ``--eval`` pairs from the run seed's streams), an encoder of the package
(``--encoder``) and one of the package's objectives, and trains on fresh pairs with warmup + one cosine decay,
printing the validation probe R² (fit → validation) and the embedding's per-coordinate std every ``--every``
steps, with the process CPU seconds so far. It stops at the first evaluation whose R² reaches ``--target``.

Only tuning seeds (``--seed`` ≥ 1000) are accepted: nothing a reported run shows is seen here.

Objectives (``--method``): ``sigreg`` (``--weight``, ``--slices``, ``--standardize`` for the scale-free
unbiased form), ``whitening`` (``--weight``), ``whitened`` (the hard constraint), ``alignment_only`` and
``supervised`` (regression onto z). Optimizers (``--optimizer``): ``adamw`` (the package's), or ``muon``
(PyTorch's Muon on the matrix-shaped parameters, AdamW on the rest, both at ``--lr``). ``--average`` sets the
decay of the weight average that is evaluated (0: the last iterate).

Usage::

    python benchmarks/tune_training.py --n 64 --encoder published_scaled --method whitened --lr 3e-2
    python benchmarks/tune_training.py --n 1024 --encoder published --lr 3e-3 --steps 4000 --every 250 --average 0.99
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before NumPy, SciPy and torch start their pools

import scipy.linalg  # noqa: E402,F401  (load SciPy's BLAS so that the limit below reaches it)
import torch  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn  # noqa: E402

from lejepa_wm.experiments.encoders import build_encoder  # noqa: E402
from lejepa_wm.experiments.flows import make_renderer  # noqa: E402
from lejepa_wm.experiments.heldout import HeldOutSamples, validation_metrics  # noqa: E402
from lejepa_wm.experiments.run_params import ObjectiveParams  # noqa: E402
from lejepa_wm.experiments.training import TrainSettings, WorldPairs  # noqa: E402
from lejepa_wm.experiments.worlds import GaussianWorld  # noqa: E402
from lejepa_wm.seeds import SeedStreams  # noqa: E402

FIRST_TUNING_SEED = 1000


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, required=True)
    parser.add_argument("--seed", type=int, default=FIRST_TUNING_SEED)
    parser.add_argument("--encoder", default="published")
    parser.add_argument("--hidden", type=int, default=64, help="conditioner width (at least n/2 is used)")
    parser.add_argument("--m", type=int, default=None, help="output dimension (mlp and published_head)")
    parser.add_argument("--method", default="sigreg",
                        choices=("sigreg", "whitening", "whitened", "alignment_only", "supervised"))
    parser.add_argument("--weight", type=float, default=0.3)
    parser.add_argument("--slices", type=int, default=256)
    parser.add_argument("--standardize", action="store_true", help="scale-free unbiased SIGReg")
    parser.add_argument("--optimizer", default="adamw", choices=("adamw", "muon"))
    parser.add_argument("--lr", type=float, default=1e-2)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--decay", type=float, default=1.0, help="fraction of the budget the cosine decay spans")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--average", type=float, default=0.0, help="decay of the evaluated weight average")
    parser.add_argument("--every", type=int, default=100)
    parser.add_argument("--eval", type=int, default=8192, help="pairs per held-out sample")
    parser.add_argument("--target", type=float, default=0.999)
    args = parser.parse_args()
    if args.seed < FIRST_TUNING_SEED:
        parser.error(f"--seed must be a tuning seed (>= {FIRST_TUNING_SEED}); got {args.seed}")
    return args


def objective_of(args: argparse.Namespace) -> ObjectiveParams:
    if args.method == "sigreg":
        options = {"num_slices": args.slices} | ({"standardize": True, "statistic": "unbiased"}
                                                 if args.standardize else {})
        return ObjectiveParams("sigreg", args.weight, options)
    weight = {"whitening": args.weight, "whitened": 1.0}.get(args.method, 0.0)
    return ObjectiveParams(args.method, weight)


def optimizers(encoder: torch.nn.Module, args: argparse.Namespace) -> list[torch.optim.Optimizer]:
    if args.optimizer == "adamw":
        return [torch.optim.AdamW(encoder.parameters(), lr=args.lr, weight_decay=0.0)]
    matrices = [p for p in encoder.parameters() if p.ndim == 2]
    rest = [p for p in encoder.parameters() if p.ndim != 2]
    chosen: list[torch.optim.Optimizer] = [torch.optim.Muon(matrices, lr=args.lr, weight_decay=0.0,
                                                            adjust_lr_fn="match_rms_adamw")]
    return chosen + ([torch.optim.AdamW(rest, lr=args.lr, weight_decay=0.0)] if rest else [])


def main() -> None:
    args = parse()
    torch.set_num_threads(1)
    threadpool_limits(1)
    world, streams = GaussianWorld.isotropic(args.n, 0.8), SeedStreams.derive(args.seed)
    renderer = make_renderer("published", args.n, streams.renderer)
    encoder = build_encoder(args.encoder, renderer, max(args.hidden, args.n // 2), streams.torch_generator("init"),
                            args.m)
    objective = objective_of(args).build()
    pairs = WorldPairs(world, renderer, targets=objective.targets)
    samples = HeldOutSamples.draw(world, renderer, args.eval, streams, "cpu")
    schedule = TrainSettings(max_steps=args.steps, batch_size=args.batch, lr=1.0, warmup_steps=args.warmup,
                             decay_fraction=args.decay, eval_every=args.every, checkpoint_every=args.every)
    chosen = optimizers(encoder, args)
    average = AveragedModel(encoder, multi_avg_fn=get_ema_multi_avg_fn(args.average)) if args.average else None
    generator = streams.torch_generator("batches")
    start, trace, hit = time.process_time(), [], None
    for step in range(args.steps):
        for optimizer in chosen:
            for group in optimizer.param_groups:
                group["lr"] = args.lr * schedule.learning_rate(step)
        x, second = pairs.draw(step, args.batch, generator)
        loss, _ = objective(encoder(x), second if objective.targets else encoder(second), generator)
        for optimizer in chosen:
            optimizer.zero_grad(set_to_none=True)
        loss.backward()
        for optimizer in chosen:
            optimizer.step()
        if average is not None:
            average.update_parameters(encoder)
        if (step + 1) % args.every == 0 or step + 1 == args.steps:
            metrics = validation_metrics(encoder if average is None else average.module, samples)
            row = {"step": step + 1, "r2": round(metrics["probe_r2"], 5), "std": round(metrics["embedding_std"], 3),
                   "cpu_s": round(time.process_time() - start, 1)}
            trace.append(row)
            print(json.dumps(row), flush=True)
            if metrics["probe_r2"] >= args.target:
                hit = row
                break
    print(json.dumps({"args": vars(args), "reached": hit, "last": trace[-1]}))


if __name__ == "__main__":
    main()
