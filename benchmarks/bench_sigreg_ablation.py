"""Why SIGReg stops short of whitening at n = 4, β = 2: each hypothesis isolated, several seeds.

Every run is the ``distribution`` experiment's full setting at β = 2 (the
``[full]`` table of ``configs/distribution.toml`` when the issue was filed):
n = 4 unit Gaussian latents, stationary MALA pairs (τ = 0.5, step 0.01), the
``coupling`` renderer (2 layers of 16 units, shift gain 0.5, log-scale gain
0.1), an MLP encoder (width 128, depth 3), batch 512, AdamW lr 3e-3, 3,000
steps, 50 warmup steps, cosine decay over the second half, SIGReg with 256
slices and weight 1. A *variant* changes one thing (:data:`VARIANTS`), and
every variant is trained with the library's loop
(:func:`lejepa_wm.experiments.training.train`, its ``evaluator`` hook on the
validation sample) from the same seed streams
(:class:`lejepa_wm.seeds.SeedStreams`: renderer, encoder initialization,
batches and slices, and the three held-out samples ``fit``, ``validation``,
``test``, each from its own stream), so two variants with the same seed start
from the same encoder and see the same batches: their difference is paired.

Reported, on the ``test`` sample (8,192 pairs; probe and rotation fitted on
the ``fit`` sample; nothing is tuned on ``test``):

- ``R²``: held-out R² of the affine probe ``h → z``;
- ``scale-free error``: ``E||h − mean − c Q z||² / E||h − mean||²`` with the
  orthogonal ``Q`` and the scalar ``c > 0`` that minimize it on the fit sample
  (:meth:`lejepa_wm.experiments.metrics.ProcrustesFit.scale_free_error`): 0 for
  an exactly scaled rotation of ``z``, whatever the scale;
- ``scale``: that best scalar ``c`` (1 = unit-variance embedding; whitening's
  balance is ``sqrt(rho) = 0.78``);
- ``bend``: ``b/c`` where ``c`` and ``b`` are the coefficients of ``z`` and of
  the radial cubic ``phi(z) = z (|z|^2 - n - 2) / sqrt(2 (n + 2))`` in the
  embedding rotated back by ``Q`` (``Qᵀ (h − mean)``, least squares on the
  test sample; ``phi`` is orthogonal to ``z`` and has unit variance per
  coordinate). ``docs/SIGREG.md`` predicts ``b/c ≈ −0.055 … −0.066`` for
  LeJEPA's SIGReg at these settings and 0 for whitening;
- wall time of the training (one torch thread).

Tables give mean ± standard error over seeds, the worst seed, and the paired
difference of R² to the baseline ``sigreg`` run of the same seed.

Each finished run is written atomically to ``OUT/<variant>/seed=<s>.json``
(:func:`lejepa_wm.atomic.atomic_write_json`) and skipped on a restart, so an
interrupted ablation loses only the run in progress. ``--theory`` prints the
closed forms of ``docs/SIGREG.md`` beside their Monte Carlo checks and the
predicted optimum (seconds to a minute, no training).

Usage::

    OMP_NUM_THREADS=1 nice -n 10 python benchmarks/bench_sigreg_ablation.py \\
        [--out results/sigreg_ablation] [--seeds 0 1 2] [--variants sigreg whitening ...] \\
        [--table-only] [--theory] [--list]
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch
from torch import nn

from lejepa_wm.atomic import atomic_write_json, read_json
from lejepa_wm.experiments.heldout import HeldOutSamples, embed, reported_metrics, validation_metrics
from lejepa_wm.experiments.metrics import ProcrustesFit
from lejepa_wm.experiments.objectives import (Objective, SIGReg, alignment_loss, batch_standardize,
                                              epps_pulley_gaussian_mean, epps_pulley_knots, scale_statistic,
                                              sigreg_statistic)
from lejepa_wm.experiments.run_params import EncoderParams, ObjectiveParams, RendererParams
from lejepa_wm.experiments.training import TrainSettings, WorldPairs, numpy64, train
from lejepa_wm.experiments.worlds import GeneralizedNormalWorld
from lejepa_wm.seeds import SeedStreams

N_LATENT = 4
WORLD = GeneralizedNormalWorld(n=N_LATENT, beta=2.0, tau=0.5, channel="mala", mala_step=0.01)
RENDERER = RendererParams(kind="coupling", layers=2, hidden=16, shift_gain=0.5, log_scale_gain=0.1)
ENCODER = EncoderParams(kind="mlp", hidden=128, depth=3)
SETTINGS = TrainSettings(max_steps=3000, batch_size=512, lr=3e-3, warmup_steps=50, decay_fraction=0.5,
                         eval_every=500, checkpoint_every=500)
EVAL_SIZE = 8192
SIGREG = {"num_slices": 256}


@dataclass(frozen=True)
class Variant:
    """One change to the baseline ``sigreg`` run, and the hypothesis it isolates."""

    hypothesis: str
    objective: ObjectiveParams
    batch_size: int = SETTINGS.batch_size
    identity_renderer: bool = False
    weight_growth: float = 1.0  # the weight grows geometrically to this multiple over the decay
    fixed_slices: bool = False
    float64_statistic: bool = False
    beta: float = WORLD.beta  # the latent law's shape (2 = Gaussian); 3 checks T2's peak
    plugin_moments: bool = False  # standardized U-SIGReg with the plug-in moment statistic (isolates its bias)

    def settings(self) -> TrainSettings:
        return replace(SETTINGS, batch_size=self.batch_size)

    def world(self) -> GeneralizedNormalWorld:
        return replace(WORLD, beta=self.beta)

    def describe(self) -> dict[str, Any]:
        return {"hypothesis": self.hypothesis, "objective": self.objective.to_dict(), "batch_size": self.batch_size,
                "identity_renderer": self.identity_renderer, "weight_growth": self.weight_growth,
                "fixed_slices": self.fixed_slices, "float64_statistic": self.float64_statistic,
                "world": {"n": WORLD.n, "beta": self.beta, "tau": WORLD.tau, "mala_step": WORLD.mala_step},
                "renderer": asdict(RENDERER), "encoder": asdict(ENCODER),
                "train": self.settings().to_dict(), "eval_size": EVAL_SIZE,
                **({"plugin_moments": True} if self.plugin_moments else {})}

    def build_objective(self) -> Objective:
        if not self.plugin_moments:
            return self.objective.build()
        sigreg = SIGReg(num_slices=SIGREG["num_slices"], statistic="unbiased")

        def regularized(h, h_pos, alignment, generator, weight):
            statistic = 0.5 * (sigreg(batch_standardize(h), generator) + sigreg(batch_standardize(h_pos), generator))
            scale = 0.5 * (scale_statistic(h, "lejepa") + scale_statistic(h_pos, "lejepa"))
            return alignment + weight * (statistic + scale), {"sigreg": statistic, "scale": scale}

        return Objective("sigreg", self.objective.weight, regularized, dict(self.objective.options))


def _sigreg(weight: float = 1.0, **options: Any) -> ObjectiveParams:
    return ObjectiveParams("sigreg", weight, {**SIGREG, **options})


VARIANTS: dict[str, Variant] = {
    # in priority order: the ablation runs them in this order
    "whitening": Variant("reference", ObjectiveParams("whitening", 1.0)),
    "sigreg": Variant("baseline (LeJEPA's V-statistic)", _sigreg()),
    "sigreg_unbiased": Variant("1: V- vs U-statistic", _sigreg(statistic="unbiased")),
    "sigreg_standardized": Variant("2: scale-free formulation", _sigreg(standardize=True)),
    "sigreg_standardized_unbiased": Variant("1+2", _sigreg(standardize=True, statistic="unbiased")),
    "sigreg_standardized_unbiased_w0.1": Variant("1+2, weight 0.1 (less gradient noise)",
                                                 _sigreg(0.1, standardize=True, statistic="unbiased")),
    "sigreg_weight0.1": Variant("2: weight 0.1", _sigreg(0.1)),
    "sigreg_standardized_unbiased_w0.3": Variant("1+2, weight 0.3",
                                                 _sigreg(0.3, standardize=True, statistic="unbiased")),
    "sigreg_standardized_unbiased_w0.03": Variant("1+2, weight 0.03",
                                                  _sigreg(0.03, standardize=True, statistic="unbiased")),
    # T2 at beta = 3 (not Gaussian): does the variant restore R²(beta = 2) > R²(beta = 3)?
    "sigreg_beta3": Variant("T2: beta = 3", _sigreg(), beta=3.0),
    "sigreg_standardized_unbiased_w0.1_beta3": Variant(
        "T2: beta = 3", _sigreg(0.1, standardize=True, statistic="unbiased"), beta=3.0),
    "sigreg_standardized_unbiased_w0.03_beta3": Variant(
        "T2: beta = 3", _sigreg(0.03, standardize=True, statistic="unbiased"), beta=3.0),
    "sigreg_identity_renderer": Variant("encoder/renderer (x = z)", _sigreg(), identity_renderer=True),
    "whitening_identity_renderer": Variant("encoder/renderer (x = z)", ObjectiveParams("whitening", 1.0),
                                           identity_renderer=True),
    "sigreg_weight_growing": Variant("2: weight 1 -> 10 over the decay", _sigreg(), weight_growth=10.0),
    "sigreg_knots9_t4": Variant("3: 9 knots on [0, 4]", _sigreg(num_knots=9, t_max=4.0)),
    "sigreg_weight10": Variant("2: weight 10", _sigreg(10.0)),
    "sigreg_standardized_plugin_moments": Variant("1+2, plug-in moment statistic",
                                                  _sigreg(standardize=True, statistic="unbiased"),
                                                  plugin_moments=True),
    "sigreg_fixed_slices": Variant("4: slices fixed for the run", _sigreg(), fixed_slices=True),
    "sigreg_float64": Variant("4: statistic in float64", _sigreg(), float64_statistic=True),
    "sigreg_batch2048": Variant("2: batch 2048 (N x 4)", _sigreg(), batch_size=2048),
}
BASELINE = "sigreg"
REFERENCE = "whitening"


def radial_bend(h: np.ndarray, z: np.ndarray, fit: ProcrustesFit) -> tuple[float, float]:
    """``(c, b)``: least-squares coefficients of ``z`` and ``phi(z)`` in ``Qᵀ (h − mean)`` (see the docstring)."""
    n = z.shape[1]
    u = (h - h.mean(axis=0)) @ fit.rotation
    phi = z * ((z**2).sum(axis=1, keepdims=True) - n - 2) / math.sqrt(2 * (n + 2))
    design = np.stack([z.ravel(), phi.ravel()], axis=1)
    (c, b), *_ = np.linalg.lstsq(design, u.ravel(), rcond=None)
    return float(c), float(b)


def _objective_wrapper(variant: Variant, objective: Callable) -> Callable:
    """The objective as the loop calls it, with the variant's slice or precision change."""
    if variant.fixed_slices:
        def fixed(h, h_pos, generator):
            return objective(h, h_pos, torch.Generator(device=h.device).manual_seed(12345))
        return fixed
    if variant.float64_statistic:
        def wide(h, h_pos, generator):
            total, parts = objective(h.double(), h_pos.double(), generator)
            return total.float(), parts
        return wide
    return objective


def run_one(name: str, variant: Variant, seed: int) -> dict[str, Any]:
    """Train one variant from the seed streams of ``seed``; return its test metrics and costs."""
    streams = SeedStreams.derive(seed)
    settings = variant.settings()
    world = variant.world()
    coupling = RENDERER.build(world.n, streams.renderer)
    renderer: nn.Module = nn.Identity() if variant.identity_renderer else coupling
    encoder = ENCODER.build(coupling, streams.torch_generator("init"))
    samples = HeldOutSamples.draw(world, renderer, EVAL_SIZE, streams, "cpu")
    objective = variant.build_objective()
    callback = None
    if variant.weight_growth != 1.0:
        base = objective.weight
        decay_steps = int(round(settings.decay_fraction * settings.max_steps))
        decay_start = settings.max_steps - decay_steps

        def callback(step: int) -> None:  # called after update `step`; sets the weight of the next one
            progress = min(1.0, max(0.0, (step - decay_start) / decay_steps))
            objective.weight = base * variant.weight_growth ** progress

    clock = time.perf_counter()
    result = train(encoder, WorldPairs(world, renderer), _objective_wrapper(variant, objective), settings,
                   streams.torch_generator("batches"), None, lambda model: validation_metrics(model, samples),
                   progress=False, description=f"{name} seed {seed}", step_callback=callback)
    wall = time.perf_counter() - clock
    metrics = reported_metrics(encoder, samples)
    h_fit, h_test = embed(encoder, samples.fit.x), embed(encoder, samples.test.x)
    fit = ProcrustesFit.fit(h_fit, numpy64(samples.fit.z))
    c, b = radial_bend(h_test, numpy64(samples.test.z), fit)
    last = next((row for row in reversed(result.history) if "loss_total" in row), {})
    return {"variant": name, "seed": seed, "split": "test", "probe_r2": metrics["probe_r2"],
            "probe_r2_per_coord": metrics["probe_r2_per_coord"], "scale_free_error": metrics["scale_free_error"],
            "procrustes_scale": metrics["procrustes_scale"], "embedding_std": metrics["embedding_std"],
            "orthogonality_error": metrics["orthogonality_error"], "bend_c": c, "bend_b": b, "bend": b / c,
            "validation_r2": result.final.get("probe_r2"), "final_weight": float(objective.weight),
            "final_losses": {key: value for key, value in last.items() if key.startswith("loss_")},
            "history": [{key: row[key] for key in ("step", "probe_r2", "embedding_std", "loss_total") if key in row}
                        for row in result.history],
            "steps": result.steps, "train_seconds": result.seconds, "wall_seconds": wall,
            "torch_threads": torch.get_num_threads(), "machine": platform.node(),
            "settings": variant.describe()}


def run_ablation(out: Path, names: list[str], seeds: list[int]) -> None:
    for name in names:
        variant = VARIANTS[name]
        for seed in seeds:
            path = out / name / f"seed={seed}.json"
            if path.exists():
                stored = read_json(path)
                if stored.get("settings") != variant.describe():
                    raise SystemExit(f"{path} was written with other settings; use another --out or remove it")
                continue
            row = run_one(name, variant, seed)
            atomic_write_json(path, row)
            print(f"{name:32s} seed {seed}: R² {row['probe_r2']:.5f}  scale-free {row['scale_free_error']:.2e}  "
                  f"scale {row['procrustes_scale']:.3f}  bend {row['bend']:+.4f}  {row['wall_seconds']:.0f} s",
                  flush=True)


def _mean_se(values: list[float]) -> tuple[float, float]:
    array = np.asarray(values, dtype=np.float64)
    se = float(array.std(ddof=1) / math.sqrt(len(array))) if len(array) > 1 else float("nan")
    return float(array.mean()), se


def table(out: Path, names: list[str], seeds: list[int] | None = None) -> str:
    """The markdown table of the finished runs under ``out`` (of ``seeds`` only, if given)."""
    rows = {name: {int(p.stem.split("=")[1]): read_json(p) for p in sorted((out / name).glob("seed=*.json"))}
            for name in names if (out / name).is_dir()}
    if seeds is not None:
        rows = {name: {s: run for s, run in runs.items() if s in seeds} for name, runs in rows.items()}
    def paired(name: str, other_name: str) -> str:
        runs, other = rows[name], rows.get(other_name, {})
        differences = [runs[s]["probe_r2"] - other[s]["probe_r2"] for s in sorted(runs) if s in other]
        if name == other_name or VARIANTS[name].beta != VARIANTS[other_name].beta or len(differences) < 2:
            return "—"
        mean, se = _mean_se(differences)
        return f"{mean:+.5f} ± {se:.5f}" if se >= 1e-5 else f"{mean:+.5f} ± {se:.0e}"

    lines = ["| variant | isolates | seeds | test R² (mean ± se) | worst R² | ΔR² vs sigreg, paired |"
             " ΔR² vs whitening, paired | scale-free error (×1e-3) | scale c | bend b/c |"
             " validation R² before → after the decay | train s/run |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, runs in rows.items():
        if not runs:
            continue
        seeds = sorted(runs)
        r2 = [runs[s]["probe_r2"] for s in seeds]
        m, se = _mean_se(r2)
        sf_m, sf_se = _mean_se([1e3 * runs[s]["scale_free_error"] for s in seeds])
        sc_m, sc_se = _mean_se([runs[s]["procrustes_scale"] for s in seeds])
        bd_m, bd_se = _mean_se([runs[s]["bend"] for s in seeds])
        wall, _ = _mean_se([runs[s]["train_seconds"] for s in seeds])
        decay_start = round(SETTINGS.max_steps * (1 - SETTINGS.decay_fraction))
        before = [row["probe_r2"] for s in seeds for row in runs[s]["history"] if row["step"] == decay_start]
        after = [runs[s]["validation_r2"] for s in seeds]
        anneal = f"{np.mean(before):.4f} → {np.mean(after):.4f}" if len(before) == len(seeds) else "—"
        lines.append(f"| `{name}` | {VARIANTS[name].hypothesis} | {len(seeds)} | {m:.5f} ± {se:.5f} | {min(r2):.5f} "
                     f"| {paired(name, BASELINE)} | {paired(name, REFERENCE)} | {sf_m:.2f} ± {sf_se:.2f} | {sc_m:.3f} ± {sc_se:.3f} | {bd_m:+.4f} ± {bd_se:.4f} "
                     f"| {anneal} | {wall:.0f} |")
    return "\n".join(lines)


T2_PAIRS = (("sigreg", "sigreg_beta3"),
            ("sigreg_standardized_unbiased_w0.1", "sigreg_standardized_unbiased_w0.1_beta3"),
            ("sigreg_standardized_unbiased_w0.03", "sigreg_standardized_unbiased_w0.03_beta3"))


def t2_table(out: Path, seeds: list[int]) -> str:
    """T2's peak: R² at beta = 2 minus R² at beta = 3, paired by seed, for each method run at both."""
    lines = ["| objective | seeds | R² at β = 2 | R² at β = 3 | β = 2 minus β = 3, paired |", "|---|---|---|---|---|"]
    for gaussian, other in T2_PAIRS:
        runs = [{s: read_json(p) for s in seeds if (p := out / name / f"seed={s}.json").exists()}
                for name in (gaussian, other)]
        common = sorted(set(runs[0]) & set(runs[1]))
        if len(common) < 2:
            continue
        r2 = [[runs[i][s]["probe_r2"] for s in common] for i in (0, 1)]
        (m2, se2), (m3, se3) = _mean_se(r2[0]), _mean_se(r2[1])
        dm, dse = _mean_se([a - b for a, b in zip(*r2)])
        lines.append(f"| `{gaussian}` | {' '.join(map(str, common))} | {m2:.5f} ± {se2:.5f} | {m3:.5f} ± {se3:.5f} "
                     f"| {dm:+.5f} ± {dse:.5f} |")
    return "\n".join(lines)


# ---------------------------------------------------------------- theory checks (docs/SIGREG.md)


def _knot_sum(power: int, knots: torch.Tensor, weights: torch.Tensor, exponent: float = 1.0) -> float:
    """``sum_k w_k t_k^power exp(-exponent t_k^2)``."""
    t = knots.double()
    return float((weights.double() * t**power * torch.exp(-exponent * t.square())).sum())


def gaussian_coefficients(knots: torch.Tensor, weights: torch.Tensor, n: int = N_LATENT) -> dict[str, float]:
    """The closed-form derivatives of ``D`` and ``B`` at the Gaussian, for scale ``c`` and radial bend ``b``."""
    kappa = math.sqrt(2 * (n + 2))
    return {"B0": float((weights * (1 - torch.exp(-knots.square()))).sum()),
            "Gc": 2 * _knot_sum(2, knots, weights), "Gb": -2 * _knot_sum(4, knots, weights) / kappa,
            "Hcc": 2 * _knot_sum(4, knots, weights), "Hcb": -2 * _knot_sum(6, knots, weights) / kappa,
            "Hbb": 2 * _knot_sum(8, knots, weights) / kappa**2}


def quadratic_optimum(coef: dict[str, float], samples: int, weight: float, unbiased: bool, rho: float,
                      n: int = N_LATENT) -> tuple[float, float]:
    """``(c, b)`` minimizing the second-order model of ``E[alignment + weight * EP]`` near ``h = z``."""
    hessian = samples * weight * np.array([[coef["Hcc"], coef["Hcb"]], [coef["Hcb"], coef["Hbb"]]])
    hessian += np.diag([4 * (1 - rho) * n, 4 * (1 - rho**3) * n])
    gradient = np.array([4 * (1 - rho) * n, 0.0])
    if not unbiased:
        gradient += weight * np.array([coef["Gc"], coef["Gb"]])
    dc, b = -np.linalg.solve(hessian, gradient)
    return 1.0 + float(dc), float(b)


def radial_optimum(samples: int, weight: float, unbiased: bool, rho: float, knots: torch.Tensor,
                   weights: torch.Tensor, terms: int = 9, n: int = N_LATENT) -> tuple[float, float, float]:
    """Population optimum over radial odd maps ``h = z q(|z|^2)`` (``terms`` Laguerre terms): ``(c, b, 1 − R²)``.

    ``q = sum_m p_m L_m^(n/2)(|z|^2/2)`` normalized so that ``z L_m`` has unit
    variance per coordinate; ``z L_m`` lies in Wiener chaos ``2m + 1``, so the OU
    alignment is ``n sum_m 2 (1 − rho^(2m+1)) p_m^2``. The law of a projection
    ``a·h = u q(u^2 + r^2)`` (``u ~ N(0,1)``, ``r^2 ~ chi^2_(n−1)``) is the same for
    every direction, so ``E[EP]`` is a 2-D Gauss quadrature. ``b`` is the
    coefficient of ``phi`` (the docstring's radial cubic), ``1 − R² = sum_{m≥1} p_m^2 / sum_m p_m^2``.
    """
    from scipy.optimize import minimize
    from scipy.special import eval_genlaguerre, roots_genlaguerre, roots_hermitenorm

    u, wu = roots_hermitenorm(150)
    x, wx = roots_genlaguerre(100, (n - 1) / 2 - 1)
    u_grid, s_grid = u[:, None], u[:, None] ** 2 + 2 * x[None, :]
    w_grid = (wu / wu.sum())[:, None] * (wx / wx.sum())[None, :]
    basis = []
    for m in range(terms):
        values = eval_genlaguerre(m, n / 2, s_grid / 2)
        basis.append(values / math.sqrt((w_grid * s_grid * values**2).sum() / n))
    t, w = knots.double().numpy(), weights.double().numpy()
    target = np.exp(-t**2 / 2)
    cost = np.array([2 * n * (1 - rho ** (2 * m + 1)) for m in range(terms)])

    def objective(p: np.ndarray) -> float:
        proj = u_grid * sum(pm * bm for pm, bm in zip(p, basis))
        cf = np.array([(w_grid * np.cos(tk * proj)).sum() for tk in t])
        value = samples * (w * (cf - target) ** 2).sum()
        if not unbiased:
            value += (w * (1 - cf**2)).sum()
        return float((cost * p**2).sum() + weight * value)

    p = minimize(objective, np.eye(terms)[0], method="BFGS", options={"gtol": 1e-9}).x
    return float(p[0]), float(-p[1]), float((p[1:] ** 2).sum() / (p**2).sum())  # z L_1 = -phi


def theory(samples: int = 512, weight: float = 1.0) -> dict[str, Any]:
    """Print (and return) the closed forms of docs/SIGREG.md with their Monte Carlo checks."""
    torch.set_num_threads(1)
    knots, weights = epps_pulley_knots()
    rho = math.exp(-WORLD.tau)
    out: dict[str, Any] = {"samples": samples, "weight": weight, "rho": rho}
    coef = gaussian_coefficients(knots, weights)
    out["coefficients"] = coef
    print("Closed-form coefficients at the Gaussian (17 knots on [0, 3]): " +
          ", ".join(f"{k} = {v:+.4f}" for k, v in coef.items()))
    # 1. E[EP] and dE/dc on N(0, c^2) projections: closed form vs Monte Carlo (slices as repetitions);
    #    both statistics on the same draws, so their difference (the V-statistic's 1/N term) is paired
    generator = torch.Generator().manual_seed(0)
    repeats, groups = 256, 128
    print(f"\nE[EP] and dE[EP]/dc for N = {samples} i.i.d. N(0, c^2) projections: closed form | Monte Carlo "
          f"({repeats * groups} batches) ± standard error")
    out["scale_checks"] = []
    for scale in (0.9, 1.0, 1.1):
        draws: dict[str, list[tuple[float, float]]] = {"lejepa": [], "unbiased": []}
        for _ in range(groups):
            z = torch.randn(samples, repeats, generator=generator, dtype=torch.float64)
            for statistic in draws:
                c = torch.tensor(scale, dtype=torch.float64, requires_grad=True)
                value = sigreg_statistic(c * z, torch.eye(repeats, dtype=torch.float64), knots, weights, statistic)
                value.backward()
                draws[statistic].append((value.item(), c.grad.item()))
        closed = {statistic: epps_pulley_gaussian_mean(scale, samples, knots, weights, statistic)
                  for statistic in draws}
        closed["lejepa - unbiased"] = tuple(v - u for v, u in zip(closed["lejepa"], closed["unbiased"]))
        draws["lejepa - unbiased"] = [(v[0] - u[0], v[1] - u[1]) for v, u in zip(draws["lejepa"], draws["unbiased"])]
        for statistic, rows in draws.items():
            (vm, vse), (sm, sse) = _mean_se([r[0] for r in rows]), _mean_se([r[1] for r in rows])
            mean, slope = closed[statistic]
            print(f"  c = {scale:.1f} {statistic:17s}: E = {mean:8.4f} | {vm:8.4f} ± {vse:.4f};  "
                  f"dE/dc = {slope:8.4f} | {sm:8.4f} ± {sse:.4f}")
            out["scale_checks"].append({"scale": scale, "statistic": statistic, "mean": mean, "mc_mean": vm,
                                        "mc_mean_se": vse, "slope": slope, "mc_slope": sm, "mc_slope_se": sse})
    # 2. dE/db of the radial bend at b = 0 (h = c z + b phi(z), n = 4, random slices): closed form vs MC
    print(f"\ndE[EP]/db at b = 0 for h = c z + b phi(z) (n = {N_LATENT}, {repeats} random slices per batch):"
          " closed form | Monte Carlo")
    out["bend_checks"] = []
    kappa = math.sqrt(2 * (N_LATENT + 2))
    t, w = knots.double(), weights.double()
    bend_groups = 2 * groups
    for scale in (0.95, 1.0):
        g, f = torch.exp(-(scale * t) ** 2 / 2), torch.exp(-t**2 / 2)
        first = scale**3 * t**4 * g / kappa  # d phi_x(t) / db at b = 0
        closed = {"unbiased": float(2 * samples * (w * (g - f) * first).sum())}
        closed["lejepa - unbiased"] = -float(2 * (w * g * first).sum())
        closed["lejepa"] = closed["unbiased"] + closed["lejepa - unbiased"]
        grads: dict[str, list[float]] = {"lejepa": [], "unbiased": []}
        for _ in range(bend_groups):
            z = torch.randn(samples, N_LATENT, generator=generator, dtype=torch.float64)
            phi = z * (z.square().sum(dim=1, keepdim=True) - N_LATENT - 2) / kappa
            directions = torch.randn(N_LATENT, repeats, generator=generator, dtype=torch.float64)
            directions = directions / directions.norm(dim=0, keepdim=True)
            for statistic in grads:
                b = torch.zeros((), dtype=torch.float64, requires_grad=True)
                sigreg_statistic(scale * z + b * phi, directions, knots, weights, statistic).backward()
                grads[statistic].append(b.grad.item())
        grads["lejepa - unbiased"] = [v - u for v, u in zip(grads["lejepa"], grads["unbiased"])]
        for statistic, values in grads.items():
            gm, gse = _mean_se(values)
            print(f"  c = {scale:.2f} {statistic:17s}: dE/db = {closed[statistic]:8.4f} | {gm:8.4f} ± {gse:.4f}")
            out["bend_checks"].append({"scale": scale, "statistic": statistic, "closed": closed[statistic],
                                       "mc": gm, "mc_se": gse})
    # 3. the optimum of alignment + weight * E[EP]: second-order model and radial family
    print(f"\nPopulation optimum of E[alignment] + weight * E[EP] near h = z (rho = {rho:.4f}, n = {N_LATENT}):")
    out["optima"] = []
    for batch, lam in ((samples, weight), (4 * samples, weight), (samples, 10 * weight), (samples, 0.1 * weight)):
        for statistic in ("lejepa", "unbiased"):
            unbiased = statistic == "unbiased"
            qc, qb = quadratic_optimum(coef, batch, lam, unbiased, rho)
            rc, rb, rr = radial_optimum(batch, lam, unbiased, rho, knots, weights)
            print(f"  N = {batch:5d} weight {lam:4g} {statistic:8s}: second order c = {qc:.4f}, b/c = {qb / qc:+.4f}, "
                  f"1 - R² = {qb**2 / (qb**2 + qc**2):.2e};  radial (9 terms) c = {rc:.4f}, b/c = {rb / rc:+.4f}, "
                  f"1 - R² = {rr:.2e}")
            out["optima"].append({"samples": batch, "weight": lam, "statistic": statistic, "quad_c": qc,
                                  "quad_b": qb, "radial_c": rc, "radial_b": rb, "radial_1mr2": rr})
    print("  whitening: gradient linear in h, optimum h = sqrt(rho) z exactly (b = 0, 1 - R² = 0);"
          f" scale sqrt(rho) = {math.sqrt(rho):.4f}")
    out["forces"] = regularizer_forces(samples, rho)
    return out


def regularizer_forces(samples: int, rho: float, batches: int = 100) -> list[dict[str, Any]]:
    """Per-sample force ``N dR/dh_i`` of each regularizer at the Gaussian ``h = z``: linear and nonlinear parts.

    For each batch the force field is regressed on ``[z, 1]`` (least squares over
    the batch); the RMS of the fit is the linear part (a scale or mean push, or a
    linear map: harmless to an affine probe), the RMS of the residual the
    nonlinear part (a random bend of this batch). At ``h = z`` the unbiased
    statistics have zero expected force, so both parts are noise there; the
    alignment force ``N dL/dh_i = 2 (h_i - h'_i)`` is shown for scale.
    """
    generator = torch.Generator().manual_seed(1)
    objectives = {
        "whitening, weight 1": ObjectiveParams("whitening", 1.0),
        "sigreg (lejepa), weight 1": _sigreg(),
        "sigreg (unbiased), weight 1": _sigreg(statistic="unbiased"),
        "sigreg (lejepa), weight 10": _sigreg(10.0),
        "scale-free unbiased, weight 1": _sigreg(standardize=True, statistic="unbiased"),
        "scale-free unbiased, weight 0.1": _sigreg(0.1, standardize=True, statistic="unbiased"),
    }
    print(f"\nPer-sample force N dR/dh_i at h = z (n = {N_LATENT}, N = {samples}, {batches} batches), RMS:")
    rows = []
    for name, params in objectives.items():
        objective = params.build()
        linear, nonlinear, alignment = [], [], []
        for _ in range(batches):
            z = torch.randn(samples, N_LATENT, generator=generator, dtype=torch.float64)
            z_pos = rho * z + math.sqrt(1 - rho**2) * torch.randn(samples, N_LATENT, generator=generator,
                                                                    dtype=torch.float64)
            h, h_pos = z.clone().requires_grad_(True), z_pos.clone().requires_grad_(True)
            total, _ = objective(h, h_pos, generator)
            force = samples * torch.autograd.grad(total - alignment_loss(h, h_pos), h)[0]
            design = torch.cat([z, torch.ones(samples, 1, dtype=torch.float64)], dim=1)
            fitted = design @ torch.linalg.lstsq(design, force).solution
            linear.append(fitted.square().sum(dim=1).mean().sqrt().item())
            nonlinear.append((force - fitted).square().sum(dim=1).mean().sqrt().item())
            alignment.append((2 * (z - z_pos)).square().sum(dim=1).mean().sqrt().item())
        row = {"objective": name, "linear": float(np.mean(linear)), "nonlinear": float(np.mean(nonlinear)),
               "alignment": float(np.mean(alignment))}
        print(f"  {name:32s} linear {row['linear']:7.3f}   nonlinear {row['nonlinear']:6.3f}"
              f"   (alignment {row['alignment']:.3f})")
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/sigreg_ablation"))
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS), metavar="NAME")
    parser.add_argument("--table-only", action="store_true", help="print the table of finished runs, train nothing")
    parser.add_argument("--theory", action="store_true", help="print the closed forms and their Monte Carlo checks")
    parser.add_argument("--list", action="store_true", help="list the variants")
    args = parser.parse_args()
    if args.list:
        for name, variant in VARIANTS.items():
            print(f"{name:32s} {variant.hypothesis}")
        return
    if args.theory:
        atomic_write_json(args.out / "theory.json", theory())
        return
    torch.set_num_threads(1)
    if not args.table_only:
        run_ablation(args.out, args.variants, args.seeds)
    print(f"\nSIGReg ablation at n = {N_LATENT} (beta = 2 unless the variant says otherwise; test sample, "
          f"{EVAL_SIZE} pairs), seeds {' '.join(map(str, args.seeds))}; results in {args.out}\n")
    print(table(args.out, args.variants, args.seeds))
    print(f"\nT2 at n = {N_LATENT}: the probe R² should peak at the Gaussian (beta = 2)\n")
    print(t2_table(args.out, args.seeds))


if __name__ == "__main__":
    main()
