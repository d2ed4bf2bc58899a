/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Identifiability
import LeJEPAProofs.InheritedDynamics
import LeJEPAProofs.Approximate
import LeJEPAProofs.ApproximateWhitening
import LeJEPAProofs.Langevin
import LeJEPAProofs.Planning
import LeJEPAProofs.PlanningStochastic
import LeJEPAProofs.Anisotropic
import LeJEPAProofs.OutputDimension

/-!
# Axiom audit

`#print axioms` for every main theorem, so that `lake build` shows exactly which axioms each
result depends on. Besides Lean's own `propext`, `Classical.choice` and `Quot.sound`, the
only project axiom that may appear is the one listed in `LeJEPAProofs/AXIOMS.md`,
`LeJEPA.hermite_mehler_decomposition`.

Expected dependencies:
* LOSS, T1, M1 (both directions `m ≤ n` and `m ≥ n`), T3 (a) and (b), C1 for optimal encoders:
  `LeJEPA.hermite_mehler_decomposition`.
* The Procrustes inequality `LeJEPA.procrustes_polar` (proved from Mathlib's spectral theorem):
  no project axiom.
* OU stationarity, the Gaussian moments (`LeJEPA.integral_sq_linear`, `LeJEPA.memLp_coord`),
  C1 (`LeJEPA.inherited_dynamics`), T2, T4, P5 and the spectral core: no project axiom.
* `LeJEPA.parseval_sub_linear` (Parseval against a linear form, from Parseval at `q = 0`): no
  project axiom (it takes Parseval at `q = 0` as a hypothesis).

## Main statements

None; this file only prints.

## Implementation notes

The Python audit (`lejepa-wm audit-lean`) checks the ledger against the sources without Lean.

## References

* FLT and PFR projects, axiom audits.
-/

-- Spectral core and OU stationarity
#print axioms LeJEPA.tsum_pow_succ_le
#print axioms LeJEPA.tsum_pow_succ_eq_iff
#print axioms LeJEPA.alignment_gap_ge
#print axioms LeJEPA.ou_stationary
#print axioms LeJEPA.map_mulVec_pi_gaussianReal
-- Gaussian moments (no project axiom)
#print axioms LeJEPA.integral_sq_sum_mul_pi_gaussianReal
#print axioms LeJEPA.integral_sq_linear
#print axioms LeJEPA.memLp_coord
#print axioms LeJEPA.parseval_sub_linear
#print axioms LeJEPA.procrustes_polar
-- Closed-form loss
#print axioms LeJEPA.alignmentLoss_eq_spectral
#print axioms LeJEPA.coord_loss_eq
-- T1 and M1
#print axioms LeJEPA.alignmentLoss_ge_of_whitened
#print axioms LeJEPA.forward_identifiability
#print axioms LeJEPA.top_eigenvalues_output_dim
#print axioms LeJEPA.alignmentLoss_ge_output_dim
#print axioms LeJEPA.sum_linearCoeff_sq_le_one
-- C1
#print axioms LeJEPA.inherited_dynamics
#print axioms LeJEPA.inherited_dynamics_of_optimal
-- T2
#print axioms LeJEPA.gaussian_of_affine_score
#print axioms LeJEPA.affine_eigenfunction_iff_gaussian
#print axioms LeJEPA.linear_identifiability_iff_gaussian
-- T3
#print axioms LeJEPA.nonlinear_energy_le
#print axioms LeJEPA.approximate_identifiability
#print axioms LeJEPA.approximate_identifiability_whitening
-- T4
#print axioms LeJEPA.planning_equivalence
#print axioms LeJEPA.planning_equivalence_orthogonal
#print axioms LeJEPA.planning_equivalence_expected
#print axioms LeJEPA.bellmanValue_conj
#print axioms LeJEPA.isOptimalPolicy_conj_iff
#print axioms LeJEPA.planning_equivalence_goal_reaching
-- P5
#print axioms LeJEPA.ky_fan_diagonal
#print axioms LeJEPA.linear_family_optimal_iff
