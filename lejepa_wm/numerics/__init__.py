"""Numerical checks of every axiom and bound of the theory.

Library modules (importable by every check):

- :mod:`~lejepa_wm.numerics.hermite`: normalized probabilists' Hermite
  polynomials ``H_k = He_k / sqrt(k!)`` and multi-indices;
- :mod:`~lejepa_wm.numerics.gaussian_quadrature`: Gauss–Hermite and
  kink-aware rules for ``gamma_1``, tensor rules for ``gamma_n``, the
  correlated Ornstein–Uhlenbeck pair rule and a polar rule for the plane;
- :mod:`~lejepa_wm.numerics.degree_projection`: Hermite coefficients and
  degree energies ``||h_d||^2`` of functions of ``n <= 3`` variables;
- :mod:`~lejepa_wm.numerics.spectral`: the Mehler operator as a matrix in the
  Hermite basis, the alignment-loss matrix, Ky Fan / top-m selection and a
  Riemannian (Stiefel) descent for whitened encoders;
- :mod:`~lejepa_wm.numerics.procrustes`: polar factor and the T3 quantities;
- :mod:`~lejepa_wm.numerics.check_rows`: constructors for rows of the
  ``verify`` table and the worst of their measurements;
- :mod:`~lejepa_wm.numerics.generalized_normal`,
  :mod:`~lejepa_wm.numerics.sturm_liouville` (T2) and
  :mod:`~lejepa_wm.numerics.planning` (T4).

Check modules ``verify_*.py`` define ``run_checks() -> list[CheckResult]``;
:mod:`lejepa_wm.claims` names the one of each claim, and
:mod:`~lejepa_wm.numerics.checks` imports them all and runs them with one BLAS
thread (``lejepa-wm verify``).
"""

__all__: list[str] = []
