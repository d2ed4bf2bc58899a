"""The hard constraint's exit through the whitening ridge, and a penalty that closes it (tuning seeds only).

The ``whitened`` objective aligns the batch-whitened views, whitened by ``W = S^{-1/2} (R + εI)^{-1/2}``
(``R`` the batch's correlation matrix, ``ε`` = :data:`~lejepa_wm.experiments.objectives.WHITENING_RIDGE`).
A direction of ``R`` with eigenvalue ``λ`` comes out of the whitening with variance ``λ / (λ + ε)``: an
encoder that makes its output columns nearly collinear (``λ ≪ ε``) leaves that direction near zero after
whitening, and it stops paying alignment loss. That is an exit from the constraint: where ``m > n`` the
directions beyond ``z`` are degree-2 harmonics, each costing ``2(1 − ρ²)`` of alignment, so giving them up pays.

The *deficit penalty* (the objective's ``deficit_weight`` option, config key ``whitened_deficit_weight``)
adds ``c · Σ ε / (λ + ε)``, the whitened variance that the ridge removed (``m − tr`` of the whitened
covariance). A direction's loss becomes
``(a λ + c ε) / (λ + ε)`` with ``a ≤ 4`` its alignment per unit variance, which for ``c = 4`` decreases in
``λ``: a direction is never cheaper collapsed. Where no direction approaches the ridge (``λ ≫ ε``) the
penalty is ``O(ε)`` and the objective is the constraint's.

For each tuning seed and penalty weight this trains ``published_head`` on the ``output_dim`` world
(quick scale by default: n = 8, m = 16, the hard constraint's rate and batch) with the package's world,
encoder, objective and schedule, and prints at the end: the validation R² of the whitened embedding
(whitening statistics from the fit sample, as the experiments do), its mean per-coordinate standard
deviation on the validation sample (1 for a whitened embedding; below ``1 − 1/(2m)`` half a coordinate is
lost), the smallest eigenvalue of the fit sample's correlation matrix, and how many lie below ``ε``; or
the step at which the loss stopped being finite.

    python benchmarks/whitening_exit.py --seeds 1000 1001 1002 --penalties 0 4
"""

from __future__ import annotations

import argparse
import json
import os
import time

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before NumPy, SciPy and torch start their pools

import torch  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

from lejepa_wm.experiments.encoders import build_encoder  # noqa: E402
from lejepa_wm.experiments.flows import make_renderer  # noqa: E402
from lejepa_wm.experiments.heldout import HeldOutSamples  # noqa: E402
from lejepa_wm.experiments.metrics import linear_probe_r2  # noqa: E402
from lejepa_wm.experiments.objectives import WHITENING_RIDGE, Whitened, build_objective  # noqa: E402
from lejepa_wm.experiments.training import TrainSettings, WorldPairs, numpy64  # noqa: E402
from lejepa_wm.experiments.worlds import GaussianWorld  # noqa: E402
from lejepa_wm.seeds import SeedStreams  # noqa: E402

FIRST_TUNING_SEED = 1000


def correlation_eigenvalues(h: torch.Tensor) -> torch.Tensor:
    """Eigenvalues of the correlation matrix of the rows of ``h`` (ascending)."""
    centred = h - h.mean(dim=0)
    scaled = centred / centred.square().mean(dim=0).sqrt()
    return torch.linalg.eigvalsh(scaled.T @ scaled / h.shape[0])


def train_one(args: argparse.Namespace, seed: int, penalty: float) -> dict[str, float]:
    """Train one encoder; its validation numbers at the end, or the step at which the loss stopped being finite."""
    world, streams = GaussianWorld.isotropic(args.n, 0.8), SeedStreams.derive(seed)
    renderer = make_renderer("published", args.n, streams.renderer)
    encoder = build_encoder("published_head", renderer, max(args.hidden, args.m), streams.torch_generator("init"),
                            args.m)
    pairs = WorldPairs(world, renderer)
    samples = HeldOutSamples.draw(world, renderer, args.eval, streams, "cpu")
    schedule = TrainSettings(max_steps=args.steps, batch_size=args.batch, lr=args.lr, warmup_steps=args.warmup,
                             decay_fraction=args.decay, eval_every=args.steps, checkpoint_every=args.steps)
    objective = build_objective("whitened", 1.0, **({"deficit_weight": penalty} if penalty else {}))
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=args.lr, weight_decay=0.0)
    generator = streams.torch_generator("batches")
    start = time.process_time()
    for step in range(args.steps):
        for group in optimizer.param_groups:
            group["lr"] = schedule.learning_rate(step)
        x, x_pos = pairs.draw(step, args.batch, generator)
        loss, _ = objective(encoder(x), encoder(x_pos), generator)
        if not torch.isfinite(loss):
            return {"seed": seed, "penalty": penalty, "diverged_at_step": step + 1,
                    "cpu_s": round(time.process_time() - start, 1)}
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        embedding = Whitened(encoder, samples.fit.x)
        fit, validation = embedding(samples.fit.x), embedding(samples.validation.x)
        r2, _ = linear_probe_r2(numpy64(fit), numpy64(samples.fit.z), numpy64(validation),
                                numpy64(samples.validation.z))
        values = correlation_eigenvalues(encoder(samples.fit.x))
    return {"seed": seed, "penalty": penalty, "validation_r2": round(r2, 5),
            "whitened_std": round(float(validation.std(dim=0).mean()), 4),
            "smallest_eigenvalue": float(values[0]), "below_ridge": int((values < WHITENING_RIDGE).sum()),
            "cpu_s": round(time.process_time() - start, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[FIRST_TUNING_SEED])
    parser.add_argument("--penalties", type=float, nargs="+", default=[0.0, 4.0])
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-2)
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=25)
    parser.add_argument("--decay", type=float, default=0.5)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--eval", type=int, default=4096)
    args = parser.parse_args()
    if min(args.seeds) < FIRST_TUNING_SEED:
        parser.error(f"--seeds must be tuning seeds (>= {FIRST_TUNING_SEED}); got {args.seeds}")
    torch.set_num_threads(1)
    threadpool_limits(1)
    for seed in args.seeds:
        for penalty in args.penalties:
            print(json.dumps(train_one(args, seed, penalty)), flush=True)


if __name__ == "__main__":
    main()
