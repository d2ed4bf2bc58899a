"""The claim registry: one entry per result of THEORY.md.

Each :class:`Claim` ties together, under one id,
- the statement (THEORY.md wording, abridged),
- the Lean declarations that prove it (audited by ``lejepa-wm audit-lean``),
- the module of numerical checks that validates it (run by ``lejepa-wm verify``),
- the experiment that probes it with trained encoders (``lejepa-wm run``),
- the paper's own number where it reports one.

A ``procedure`` claim (``T1R``) is not a theorem: it says that a training
procedure reaches what a theorem says is optimal, so it has no Lean declaration
and no numerical check, only experiments.

A *check module* is a module of :mod:`lejepa_wm.numerics` that defines
``run_checks() -> list[CheckResult]`` (:class:`lejepa_wm.records.CheckResult`);
each result is one row of the ``verify`` table. The registry names each by its
module path; :mod:`lejepa_wm.numerics.checks` imports them and runs them. The
registry itself imports nothing beyond the standard library, so the static
Lean audit runs without the numerical stack.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Claim", "CLAIMS", "CLAIMS_BY_ID", "get_claim"]


@dataclass(frozen=True)
class Claim:
    """One result of the theory, with the places that prove, check and probe it."""

    id: str
    title: str
    statement: str
    kind: str  # "axiom" (classical fact assumed in Lean), "theorem", "corollary", "proposition", "procedure"
    lean: tuple[str, ...]
    checks: str | None  # module path of the check module (a key of lejepa_wm.numerics.checks.CHECK_MODULES)
    experiments: tuple[str, ...] = ()
    paper: str | None = None

    @property
    def proof(self) -> str:
        """How the claim is established: assumed in Lean (an axiom), proved in Lean, or measured (a procedure)."""
        return {"axiom": "assumed (axiom)", "procedure": "measured (no proof: a procedure)"}.get(self.kind, "Lean")


def _claim(claim_id: str, kind: str, title: str, statement: str, lean: str, experiment: str | None = None,
           paper: str | None = None) -> Claim:
    """A registry entry: ``lean`` lists declaration names of namespace ``LeJEPA`` separated by spaces; the
    check module is ``lejepa_wm.numerics.verify_<id in lower case>``."""
    return Claim(claim_id, title, statement, kind, tuple(f"LeJEPA.{name}" for name in lean.split()),
                 f"lejepa_wm.numerics.verify_{claim_id.lower()}", (experiment,) if experiment else (), paper)


CLAIMS: tuple[Claim, ...] = (
    _claim("HERMITE", "axiom", "Hermite basis of L2(gamma_n)",
           "Normalized probabilists' Hermite polynomials H_alpha are orthonormal in L2(gamma_n) and "
           "complete: E||h||^2 = sum_d ||h_d||^2 (Parseval) for every square-integrable h.",
           "hermite_mehler_decomposition"),
    _claim("MEHLER", "axiom", "Mehler's formula",
           "Under the OU channel z' = rho z + sqrt(1-rho^2) xi, E[H_alpha(z') H_beta(z)] = "
           "delta_{alpha beta} rho^{|alpha|} (anisotropic: prod rho_i^{alpha_i}).",
           "hermite_mehler_decomposition ou_stationary"),
    _claim("LOSS", "theorem", "Closed-form alignment loss",
           "L(h) = E||h(z') - h(z)||^2 = 2 sum_{d>=1} (1 - rho^d) ||h_d||^2.",
           "alignmentLoss_eq_spectral coord_loss_eq"),
    _claim("T1", "theorem", "Forward identifiability",
           "If m = n, E h = 0 and Cov h = I, then L(h) >= 2n(1-rho), with equality iff h(z) = Qz "
           "almost surely for an orthogonal Q.",
           "forward_identifiability alignmentLoss_ge_of_whitened",
           "scaling", "linear-probe R^2 > 0.999 for n up to 1024"),
    Claim("T1R", "T1, reached by training",
          "A training procedure finds the world model: the regularized objective's trained encoder identifies z "
          "(residual ratio at most the target) on an encoder whose supervised ceiling allows it, where the "
          "lambda = 0 control, trained as long, does not keep the scale.",
          "procedure", (), None, ("scaling", "reacher"), "linear-probe R^2 > 0.999 for n up to 1024"),
    _claim("C1", "corollary", "Inherited dynamics",
           "If h = Qz then h(z') | h(z) ~ N(rho h(z), (1 - rho^2) I_n).",
           "inherited_dynamics inherited_dynamics_of_optimal"),
    _claim("T2", "theorem", "Converse: only the Gaussian works",
           "For Langevin dynamics with stationary density p, the best whitened 1-D feature phi_1 is "
           "affine iff p is Gaussian; phi_1 is always strictly monotone.",
           "affine_eigenfunction_iff_gaussian linear_identifiability_iff_gaussian gaussian_of_affine_score",
           "distribution", "linear R^2 peaks at beta = 2"),
    _claim("T3", "theorem", "Approximate identifiability",
           "With m = n, E h = 0, delta = L(h) - 2(1-rho) E||h||^2, eps = ||Cov h - I||_F and "
           "D = delta / (2 rho (1-rho)): sum_{d>=2} ||h_d||^2 <= D and "
           "min_Q E||h(z) - Qz||^2 <= D + (eps + D)^2.",
           "nonlinear_energy_le approximate_identifiability approximate_identifiability_whitening",
           "bounds"),
    _claim("T4", "theorem", "Planning equivalence",
           "For orthogonal Q, the conjugated model F_Q(y,a) = Q F(Q^T y, a), c_Q(y,a) = c(Q^T y, a) "
           "has V^Q(Qz) = V(z) and the same optimal plans; norm-built costs are the same formula.",
           "planning_equivalence_expected bellmanValue_conj isOptimalPolicy_conj_iff "
           "planning_equivalence_goal_reaching",
           "reacher", "OU-trained latent plans match the oracle; trajectory-trained ones curve"),
    _claim("P5", "proposition", "Anisotropic rates: eigenvalue interleaving",
           "With rho_i = exp(-kappa_i tau), the whitened minimizers of L are linear iff "
           "min_i rho_i > max_i rho_i^2, i.e. kappa_max < 2 kappa_min.",
           "linear_family_optimal_iff ky_fan_diagonal",
           "anisotropic", "fast latent must be less than twice as fast as the slowest"),
    _claim("M1", "proposition", "Output dimension m != n (beyond the paper)",
           "Under the second-moment constraint the whitened optimum selects the top-m Mehler "
           "eigenvalues: m < n gives h = Wz with W W^T = I_m; m > n contains all of degree 1 "
           "(linear probe R^2 = 1) plus degree-2 harmonics.",
           "top_eigenvalues_output_dim alignmentLoss_ge_output_dim",
           "output_dim", "open in the paper"),
)

CLAIMS_BY_ID: dict[str, Claim] = {claim.id: claim for claim in CLAIMS}


def get_claim(claim_id: str) -> Claim:
    """Return the claim with this id, or raise ``KeyError`` naming the known ids."""
    if claim_id not in CLAIMS_BY_ID:
        raise KeyError(f"unknown claim {claim_id!r}; known claims: {', '.join(CLAIMS_BY_ID)}")
    return CLAIMS_BY_ID[claim_id]
