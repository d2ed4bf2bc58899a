/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib.Analysis.InnerProductSpace.PiL2

/-!
# T4 for deterministic open-loop plans

A planner that works in learned coordinates `y = φ(z)` is as good as one that knows the true
latent `z`, provided `φ` conjugates the dynamics and the costs. No axiom is used. This file is
the deterministic, open-loop special case; the statement in expectation (stochastic dynamics,
closed-loop policies, expected costs) is `LeJEPAProofs/PlanningStochastic.lean`.

## Main statements

* `LeJEPA.planCost`: total cost `∑ₜ c(zₜ, aₜ) + c_T(z_N)` of an open-loop plan `[a₀, …]`
  under dynamics `zₜ₊₁ = F(zₜ, aₜ)`.
* `LeJEPA.planning_equivalence`: for any map `φ` with `F'(φ z, a) = φ (F z a)`,
  `c'(φ z, a) = c(z, a)` and `c'_T(φ z) = c_T(z)`, every plan has the same cost from `φ z` in
  the learned model as from `z` in the true one; consequently the optimal plans coincide
  (`LeJEPA.isOptimalPlan_conj_iff`) and so do the optimal values
  (`LeJEPA.optimal_value_conj`).
* `LeJEPA.planning_equivalence_equiv`: the conjugated model `F_φ(y, a) = φ(F(φ⁻¹ y, a))`,
  `c_φ(y, a) = c(φ⁻¹ y, a)` of any bijection `φ`.
* `LeJEPA.planning_equivalence_orthogonal`: for an orthogonal `Q` (a linear isometry
  equivalence of a real inner product space) and goal-reaching costs built from norms,
  `c(z, a) = ‖z - z_g‖² + κ(a)`, the learned-coordinate cost is *the same formula* with the goal
  encoded, `‖y - Q z_g‖² + κ(a)`, so a planner that never knows `Q` is optimal.

## Implementation notes

Plans are open-loop lists of actions over a deterministic model. A non-orthogonal change of
coordinates does not preserve `‖z - z_g‖²`, which is why orthogonality is what makes norm-built
costs conjugate.
`LinearIsometryEquiv.norm_map`, `LinearIsometryEquiv.symm_apply_apply`, `map_sub`,
`Equiv.symm_apply_apply` are in `Mathlib/Analysis/Normed/Operator/LinearIsometry.lean` and
`Mathlib/Logic/Equiv/Defs.lean`.

## References

* docs/THEORY.md, T4.
-/

namespace LeJEPA

/-- Total cost of the open-loop plan `as` started at `z`: stage costs along the trajectory of
`F` plus the terminal cost. -/
def planCost {S A : Type*} (F : S → A → S) (c : S → A → ℝ) (cT : S → ℝ) : S → List A → ℝ
  | z, [] => cT z
  | z, a :: as => c z a + planCost F c cT (F z a) as

/-- `plan` is optimal from `z` among plans of the same horizon. -/
def IsOptimalPlan {S A : Type*} (F : S → A → S) (c : S → A → ℝ) (cT : S → ℝ) (z : S)
    (plan : List A) : Prop :=
  ∀ plan' : List A, plan'.length = plan.length → planCost F c cT z plan ≤ planCost F c cT z plan'

/-- **T4 (planning equivalence), general form.** If `φ : S → S'` conjugates the dynamics and
the costs, every plan has the same total cost from `φ z` in the learned model as from `z`. -/
theorem planning_equivalence {S S' A : Type*} (φ : S → S') (F : S → A → S) (c : S → A → ℝ)
    (cT : S → ℝ) (F' : S' → A → S') (c' : S' → A → ℝ) (cT' : S' → ℝ)
    (hF : ∀ z a, F' (φ z) a = φ (F z a)) (hc : ∀ z a, c' (φ z) a = c z a)
    (hT : ∀ z, cT' (φ z) = cT z) (z : S) (plan : List A) :
    planCost F' c' cT' (φ z) plan = planCost F c cT z plan := by
  induction plan generalizing z with
  | nil => simp only [planCost, hT]
  | cons a as ih => simp only [planCost, hc, hF, ih]

/-- Optimal plans coincide under a conjugating map. -/
theorem isOptimalPlan_conj_iff {S S' A : Type*} (φ : S → S') (F : S → A → S)
    (c : S → A → ℝ) (cT : S → ℝ) (F' : S' → A → S') (c' : S' → A → ℝ) (cT' : S' → ℝ)
    (hF : ∀ z a, F' (φ z) a = φ (F z a)) (hc : ∀ z a, c' (φ z) a = c z a)
    (hT : ∀ z, cT' (φ z) = cT z) (z : S) (plan : List A) :
    IsOptimalPlan F' c' cT' (φ z) plan ↔ IsOptimalPlan F c cT z plan := by
  unfold IsOptimalPlan
  simp only [planning_equivalence φ F c cT F' c' cT' hF hc hT z]

/-- Optimal values coincide: `V^φ(φ z) = V(z)` for every horizon, where the value is the
infimum of plan costs over plans of that horizon. -/
theorem optimal_value_conj {S S' A : Type*} (φ : S → S') (F : S → A → S)
    (c : S → A → ℝ) (cT : S → ℝ) (F' : S' → A → S') (c' : S' → A → ℝ) (cT' : S' → ℝ)
    (hF : ∀ z a, F' (φ z) a = φ (F z a)) (hc : ∀ z a, c' (φ z) a = c z a)
    (hT : ∀ z, cT' (φ z) = cT z) (z : S) (N : ℕ) :
    (⨅ plan : {p : List A // p.length = N}, planCost F' c' cT' (φ z) plan.1) =
      ⨅ plan : {p : List A // p.length = N}, planCost F c cT z plan.1 := by
  simp only [planning_equivalence φ F c cT F' c' cT' hF hc hT z]

/-- **T4 for a bijection.** The model conjugated by a bijection `φ`,
`F_φ(y, a) = φ(F(φ⁻¹ y, a))`, `c_φ(y, a) = c(φ⁻¹ y, a)`, `c_{T,φ}(y) = c_T(φ⁻¹ y)`, gives every
plan the same cost from `φ z` as the true model from `z`. -/
theorem planning_equivalence_equiv {S S' A : Type*} (φ : S ≃ S') (F : S → A → S)
    (c : S → A → ℝ) (cT : S → ℝ) (z : S) (plan : List A) :
    planCost (fun y a => φ (F (φ.symm y) a)) (fun y a => c (φ.symm y) a)
        (fun y => cT (φ.symm y)) (φ z) plan = planCost F c cT z plan :=
  planning_equivalence φ F c cT _ _ _ (fun z a => by simp) (fun z a => by simp)
    (fun z => by simp) z plan

/-- For an orthogonal `Q`, the goal-reaching cost in learned coordinates is the same formula
with the goal encoded: `‖Q⁻¹ y - z_g‖ = ‖y - Q z_g‖`. -/
theorem norm_symm_sub_eq {E : Type*} [NormedAddCommGroup E] [InnerProductSpace ℝ E]
    (Q : E ≃ₗᵢ[ℝ] E) (y zg : E) : ‖Q.symm y - zg‖ = ‖y - Q zg‖ := by
  rw [← Q.norm_map (Q.symm y - zg), map_sub, LinearIsometryEquiv.apply_symm_apply]

/-- **T4, orthogonal corollary.** Let `Q` be orthogonal, the true model `z ↦ F(z, a)` with
goal-reaching costs `c(z, a) = ‖z - z_g‖² + κ(a)`, `c_T(z) = ‖z - z_g‖²`. A planner in learned
coordinates that uses the dynamics `F_Q(y, a) = Q F(Q⁻¹ y, a)` and *the same cost formula* with
the encoded goal, `‖y - Q z_g‖² + κ(a)`, assigns every plan from `Q z` exactly the true cost from
`z`; hence it finds the true optimal plans without knowing `Q`. -/
theorem planning_equivalence_orthogonal {E A : Type*} [NormedAddCommGroup E]
    [InnerProductSpace ℝ E] (Q : E ≃ₗᵢ[ℝ] E) (F : E → A → E) (κ : A → ℝ) (zg z : E)
    (plan : List A) :
    planCost (fun y a => Q (F (Q.symm y) a)) (fun y a => ‖y - Q zg‖ ^ 2 + κ a)
        (fun y => ‖y - Q zg‖ ^ 2) (Q z) plan =
      planCost F (fun z a => ‖z - zg‖ ^ 2 + κ a) (fun z => ‖z - zg‖ ^ 2) z plan := by
  refine planning_equivalence Q F _ _ _ _ _ (fun z a => by simp) (fun z a => ?_)
    (fun z => ?_) z plan
  · show ‖Q z - Q zg‖ ^ 2 + κ a = ‖z - zg‖ ^ 2 + κ a
    rw [← map_sub, Q.norm_map]
  · show ‖Q z - Q zg‖ ^ 2 = ‖z - zg‖ ^ 2
    rw [← map_sub, Q.norm_map]

end LeJEPA
