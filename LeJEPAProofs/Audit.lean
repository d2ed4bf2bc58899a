/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.InheritedDynamics
import LeJEPAProofs.ApproximateWhitening
import LeJEPAProofs.Langevin
import LeJEPAProofs.PlanningStochastic
import LeJEPAProofs.Anisotropic
import Lean.Elab.Command
import Lean.Util.CollectAxioms

/-!
# Axiom gate

The build is the gate: for every main theorem, `#guard_msgs` pins the exact output of
`#print axioms`, so `lake build` fails if the list of axioms a theorem depends on changes in any
way (a leaked `sorryAx`, a new axiom, a lost or gained dependency). Besides Lean's own `propext`,
`Classical.choice` and `Quot.sound`, the only project axiom is the one listed in
`LeJEPAProofs/AXIOMS.md`, `LeJEPA.hermite_mehler_decomposition`.

Expected dependencies:
* LOSS (`LeJEPA.alignmentLoss_eq_spectral`), T1, M1 (both directions `m ≤ n` and `m ≥ n`),
  T3 (a) and (b), and C1 for optimal encoders: `LeJEPA.hermite_mehler_decomposition`.
* OU stationarity, the Gaussian moments, the spectral core, `LeJEPA.coord_loss_eq` and
  `LeJEPA.parseval_sub_linear` (which take Parseval and Mehler as hypotheses), the Procrustes
  inequality (proved from Mathlib's spectral theorem), C1 (`LeJEPA.inherited_dynamics`), T2, T4
  and P5: none.

## Main statements

None; this file only checks.

## Implementation notes

* `#guard_msgs (whitespace := lax)` compares the messages with the doc comment after collapsing
  whitespace, so it does not matter where Lean wraps a list longer than its line width. Lean
  prints the axioms in the order of `Name.lt`: names with one component first, then by their
  first component (`propext < Classical.choice < LeJEPA.… < Quot.sound`).
* The deterministic forms of T4 (`LeJEPA.planning_equivalence`,
  `LeJEPA.planning_equivalence_orthogonal`) are generic in the state and action types, so which
  of Lean's three axioms their proofs use is not predictable without a compiler; they get an
  order-free check instead: `Lean.collectAxioms` must find none but Lean's three. This is the only
  metaprogram in the project (`lejepa-wm audit-lean` allows it here and nowhere else).
* The Lean workflow (`.github/workflows/lean.yml`) also prints the axioms of every pinned
  declaration in a separate file and checks the whole output against these pins, and re-checks
  every compiled declaration with Lean's kernel (`leanchecker`).

## References

* The FLT and PFR projects, axiom audits; Lean's `#guard_msgs` documentation.
-/

/-! ### Spectral core, OU stationarity, Gaussian moments, Procrustes (no project axiom) -/

/-- info: 'LeJEPA.tsum_pow_succ_le' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.tsum_pow_succ_le

/--
info: 'LeJEPA.tsum_pow_succ_eq_iff' depends on axioms: [propext, Classical.choice, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.tsum_pow_succ_eq_iff

/-- info: 'LeJEPA.alignment_gap_ge' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.alignment_gap_ge

/-- info: 'LeJEPA.ou_stationary' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.ou_stationary

/--
info: 'LeJEPA.map_mulVec_pi_gaussianReal' depends on axioms: [propext, Classical.choice, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.map_mulVec_pi_gaussianReal

/--
info: 'LeJEPA.integral_sq_sum_mul_pi_gaussianReal' depends on axioms: [propext, Classical.choice,
Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.integral_sq_sum_mul_pi_gaussianReal

/-- info: 'LeJEPA.integral_sq_linear' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.integral_sq_linear

/-- info: 'LeJEPA.memLp_coord' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.memLp_coord

/-- info: 'LeJEPA.parseval_sub_linear' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.parseval_sub_linear

/-- info: 'LeJEPA.procrustes_polar' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.procrustes_polar

/-! ### LOSS -/

/--
info: 'LeJEPA.alignmentLoss_eq_spectral' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.alignmentLoss_eq_spectral

/-- info: 'LeJEPA.coord_loss_eq' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.coord_loss_eq

/-! ### T1 and M1 -/

/--
info: 'LeJEPA.alignmentLoss_ge_of_whitened' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.alignmentLoss_ge_of_whitened

/--
info: 'LeJEPA.forward_identifiability' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.forward_identifiability

/--
info: 'LeJEPA.top_eigenvalues_output_dim' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.top_eigenvalues_output_dim

/--
info: 'LeJEPA.alignmentLoss_ge_output_dim' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.alignmentLoss_ge_output_dim

/--
info: 'LeJEPA.sum_linearCoeff_sq_le_one' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.sum_linearCoeff_sq_le_one

/-! ### C1 -/

/-- info: 'LeJEPA.inherited_dynamics' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.inherited_dynamics

/--
info: 'LeJEPA.inherited_dynamics_of_optimal' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.inherited_dynamics_of_optimal

/-! ### T2 -/

/--
info: 'LeJEPA.gaussian_of_affine_score' depends on axioms: [propext, Classical.choice, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.gaussian_of_affine_score

/--
info: 'LeJEPA.affine_eigenfunction_iff_gaussian' depends on axioms: [propext, Classical.choice,
Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.affine_eigenfunction_iff_gaussian

/--
info: 'LeJEPA.linear_identifiability_iff_gaussian' depends on axioms: [propext, Classical.choice,
Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.linear_identifiability_iff_gaussian

/-! ### T3 -/

/--
info: 'LeJEPA.nonlinear_energy_le' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.nonlinear_energy_le

/--
info: 'LeJEPA.approximate_identifiability' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.approximate_identifiability

/--
info: 'LeJEPA.approximate_identifiability_whitening' depends on axioms: [propext, Classical.choice,
LeJEPA.hermite_mehler_decomposition, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.approximate_identifiability_whitening

/-! ### T4 -/

/--
info: 'LeJEPA.planning_equivalence_expected' depends on axioms: [propext, Classical.choice,
Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.planning_equivalence_expected

/-- info: 'LeJEPA.bellmanValue_conj' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.bellmanValue_conj

/--
info: 'LeJEPA.isOptimalPolicy_conj_iff' depends on axioms: [propext, Classical.choice, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.isOptimalPolicy_conj_iff

/--
info: 'LeJEPA.planning_equivalence_goal_reaching' depends on axioms: [propext, Classical.choice,
Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.planning_equivalence_goal_reaching

/--
info: 'LeJEPA.map_stdGaussian_linearIsometryEquiv' depends on axioms: [propext, Classical.choice,
Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.map_stdGaussian_linearIsometryEquiv

/-! ### P5 -/

/-- info: 'LeJEPA.ky_fan_diagonal' depends on axioms: [propext, Classical.choice, Quot.sound] -/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.ky_fan_diagonal

/--
info: 'LeJEPA.linear_family_optimal_iff' depends on axioms: [propext, Classical.choice, Quot.sound]
-/
#guard_msgs (whitespace := lax) in
#print axioms LeJEPA.linear_family_optimal_iff

/-! ### The deterministic forms of T4: no axiom outside Lean's three -/

open Lean Elab Command in
run_cmd do
  let allowed := [``propext, ``Classical.choice, ``Quot.sound]
  for decl in [``LeJEPA.planning_equivalence, ``LeJEPA.planning_equivalence_orthogonal] do
    for ax in (← collectAxioms decl) do
      unless allowed.contains ax do
        throwError "{decl} depends on the axiom {ax}, which is none of Lean's three"
