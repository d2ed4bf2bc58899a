/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Planning
import LeJEPAProofs.ForMathlib.Integral

/-!
# T4 in expectation: stochastic dynamics, closed-loop policies, expected costs

States live in a real inner product space `E` (the latent space `ℝⁿ`, e.g.
`EuclideanSpace ℝ (Fin n)`), actions in any type `A`. The dynamics are
`z_{t+1} = F(z_t, a_t) + ξ_t` with i.i.d. noise `ξ_t ~ ν`; the stage cost is `c(z, a)` and the
terminal cost `c_T(z)`. A closed-loop (Markov) policy `π : ℕ → E → A` chooses the action
`π k z` when `k + 1` steps remain.

## Main statements

* `LeJEPA.policyCost F ν c cT π N z`: the expected total cost of `π` over `N` steps from `z`,
  `c(z, π(z)) + E_ξ[J(F(z, π(z)) + ξ)]` recursively (one integral over `ν` per step).
* `LeJEPA.bellmanValue F ν c cT N z`: the dynamic-programming value
  `V_{k+1}(z) = inf_a [c(z, a) + E_ξ V_k(F(z, a) + ξ)]`, a minimum when `A` is finite.
* `LeJEPA.IsOptimalPolicy F ν c cT N π`: `π` has the least expected cost over `N` steps from
  every state, among all closed-loop policies.
* `LeJEPA.planning_equivalence_expected` (**T4**): let `Q` be a linear isometry equivalence
  (an orthogonal change of latent coordinates) with `Q₊ν = ν`, and let a learned model
  `F', c', c'_T` be conjugate to the true one (`F'(Q z, a) = Q F(z, a)`, `c'(Q z, a) = c(z, a)`,
  `c'_T(Q z) = c_T(z)`). Then every closed-loop policy `π` has, from `Q z` in the learned
  model, the policy `y ↦ π(Q⁻¹ y)` with exactly the expected cost of `π` from `z`.
* `LeJEPA.bellmanValue_conj`: the optimal (Bellman) values agree, `V'(Q z) = V(z)`.
* `LeJEPA.isOptimalPolicy_conj_iff`: a policy is optimal for the true problem iff its conjugate
  is optimal for the learned one; so the optimal plans coincide.
* `LeJEPA.planning_equivalence_goal_reaching`: for goal-reaching costs
  `c(z, a) = ‖z - z_g‖² + κ(a)`, `c_T(z) = ‖z - z_g‖²`, the learned planner uses the same formula
  with the encoded goal `Q z_g`, and its expected costs are the true ones.
* `LeJEPA.map_stdGaussian_linearIsometryEquiv`: the Gaussian case, `Q₊ γ = γ` for Mathlib's
  standard Gaussian `ProbabilityTheory.stdGaussian E` on a finite-dimensional `E`.

## Implementation notes

The expected cost is defined by the backward recursion over the noise, the form in which
dynamic programming evaluates a Markov policy; it equals the expectation of the total cost
over `ν^{⊗N}` by the tower property whenever the costs are integrable. The conjugation
argument needs no integrability: invariance of `ν` gives `∫ g(Q ξ) dν = ∫ g dν` for every `g`
(`LeJEPA.integral_comp_linearIsometryEquiv`, via Mathlib's `MeasureTheory.integral_map_equiv`).
Action sets are arbitrary; with a finite action set the infimum in `LeJEPA.bellmanValue` is a
minimum and an optimal closed-loop policy is obtained by choosing a minimizing action at each
state and stage.

## References

* docs/THEORY.md, T4; D. Bertsekas, *Dynamic Programming and Optimal Control*, Vol. I, Ch. 1.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

variable {E A : Type*} [NormedAddCommGroup E] [InnerProductSpace ℝ E] [MeasurableSpace E]

/-- Expected total cost of the closed-loop policy `π` over `N` steps from `z`, for the dynamics
`z' = F(z, a) + ξ`, `ξ ~ ν`: `J₀ = c_T`, `J_{k+1}(z) = c(z, π k z) + ∫ J_k(F(z, π k z) + ξ) dν`. -/
noncomputable def policyCost (F : E → A → E) (ν : Measure E) (c : E → A → ℝ) (cT : E → ℝ)
    (π : ℕ → E → A) : ℕ → E → ℝ
  | 0, z => cT z
  | k + 1, z => c z (π k z) + ∫ ξ, policyCost F ν c cT π k (F z (π k z) + ξ) ∂ν

/-- The dynamic-programming (Bellman) value over `N` steps:
`V₀ = c_T`, `V_{k+1}(z) = ⨅ a, c(z, a) + ∫ V_k(F(z, a) + ξ) dν`. -/
noncomputable def bellmanValue (F : E → A → E) (ν : Measure E) (c : E → A → ℝ) (cT : E → ℝ) :
    ℕ → E → ℝ
  | 0, z => cT z
  | k + 1, z => ⨅ a : A, (c z a + ∫ ξ, bellmanValue F ν c cT k (F z a + ξ) ∂ν)

/-- `π` has the least expected cost over `N` steps from every state among all closed-loop
policies. -/
def IsOptimalPolicy (F : E → A → E) (ν : Measure E) (c : E → A → ℝ) (cT : E → ℝ) (N : ℕ)
    (π : ℕ → E → A) : Prop :=
  ∀ (π' : ℕ → E → A) (z : E), policyCost F ν c cT π N z ≤ policyCost F ν c cT π' N z

variable [BorelSpace E]

/-- One step of the conjugation: with `Q₊ν = ν` and `F'(Q z, a) = Q F(z, a)`,
`∫ g(F'(Q z, a) + ξ) dν = ∫ g(Q (F(z, a) + ξ)) dν`. -/
theorem integral_step_conj (Q : E ≃ₗᵢ[ℝ] E) {ν : Measure E} (hν : ν.map Q = ν)
    (w : E) (g : E → ℝ) : ∫ ξ, g (Q w + ξ) ∂ν = ∫ ξ, g (Q (w + ξ)) ∂ν := by
  rw [← integral_comp_linearIsometryEquiv Q hν (fun ξ => g (Q w + ξ))]
  simp only [map_add]

/-- **T4 (planning equivalence in expectation).** Let `Q` be a linear isometry equivalence of
the latent space that leaves the noise law invariant, `Q₊ν = ν`, and let the learned model be
conjugate to the true one: `F'(Q z, a) = Q F(z, a)`, `c'(Q z, a) = c(z, a)`,
`c'_T(Q z) = c_T(z)`. Then for every closed-loop policy `π`, horizon `N` and state `z`, the
policy `y ↦ π(Q⁻¹ y)` has in the learned model, from `Q z`, exactly the expected cost of `π`
in the true model from `z`. -/
theorem planning_equivalence_expected (Q : E ≃ₗᵢ[ℝ] E) {ν : Measure E} (hν : ν.map Q = ν)
    (F : E → A → E) (c : E → A → ℝ) (cT : E → ℝ) (F' : E → A → E) (c' : E → A → ℝ)
    (cT' : E → ℝ) (hF : ∀ z a, F' (Q z) a = Q (F z a)) (hc : ∀ z a, c' (Q z) a = c z a)
    (hT : ∀ z, cT' (Q z) = cT z) (π : ℕ → E → A) (N : ℕ) (z : E) :
    policyCost F' ν c' cT' (fun k y => π k (Q.symm y)) N (Q z) = policyCost F ν c cT π N z := by
  induction N generalizing z with
  | zero => exact hT z
  | succ k ih =>
    simp only [policyCost, LinearIsometryEquiv.symm_apply_apply, hc, hF]
    rw [integral_step_conj Q hν]
    simp only [ih]

/-- **T4, optimal values.** Under the conjugacy hypotheses of
`LeJEPA.planning_equivalence_expected`, the Bellman values agree: `V'_N(Q z) = V_N(z)`. -/
theorem bellmanValue_conj (Q : E ≃ₗᵢ[ℝ] E) {ν : Measure E} (hν : ν.map Q = ν)
    (F : E → A → E) (c : E → A → ℝ) (cT : E → ℝ) (F' : E → A → E) (c' : E → A → ℝ)
    (cT' : E → ℝ) (hF : ∀ z a, F' (Q z) a = Q (F z a)) (hc : ∀ z a, c' (Q z) a = c z a)
    (hT : ∀ z, cT' (Q z) = cT z) (N : ℕ) (z : E) :
    bellmanValue F' ν c' cT' N (Q z) = bellmanValue F ν c cT N z := by
  induction N generalizing z with
  | zero => exact hT z
  | succ k ih =>
    simp only [bellmanValue, hc, hF]
    refine congrArg iInf (funext fun a => ?_)
    beta_reduce
    rw [integral_step_conj Q hν]
    simp only [ih]

/-- **T4, optimal plans.** Under the conjugacy hypotheses of
`LeJEPA.planning_equivalence_expected`, a closed-loop policy `π` is optimal for the true problem
iff the policy `y ↦ π(Q⁻¹ y)` is optimal for the learned one. -/
theorem isOptimalPolicy_conj_iff (Q : E ≃ₗᵢ[ℝ] E) {ν : Measure E} (hν : ν.map Q = ν)
    (F : E → A → E) (c : E → A → ℝ) (cT : E → ℝ) (F' : E → A → E) (c' : E → A → ℝ)
    (cT' : E → ℝ) (hF : ∀ z a, F' (Q z) a = Q (F z a)) (hc : ∀ z a, c' (Q z) a = c z a)
    (hT : ∀ z, cT' (Q z) = cT z) (N : ℕ) (π : ℕ → E → A) :
    IsOptimalPolicy F' ν c' cT' N (fun k y => π k (Q.symm y)) ↔
      IsOptimalPolicy F ν c cT N π := by
  have key := planning_equivalence_expected Q hν F c cT F' c' cT' hF hc hT
  constructor
  · intro h π' z
    have h1 := h (fun k y => π' k (Q.symm y)) (Q z)
    rwa [key π N z, key π' N z] at h1
  · intro h π'' y
    have h1 := h (fun k z => π'' k (Q z)) (Q.symm y)
    rw [← key π N (Q.symm y), ← key (fun k z => π'' k (Q z)) N (Q.symm y)] at h1
    simpa only [LinearIsometryEquiv.apply_symm_apply] using h1

/-- **T4, goal reaching.** For `c(z, a) = ‖z - z_g‖² + κ(a)` and `c_T(z) = ‖z - z_g‖²`, a planner
in learned coordinates that uses the conjugated dynamics `F_Q(y, a) = Q F(Q⁻¹ y, a)` and *the
same cost formula with the encoded goal*, `‖y - Q z_g‖² + κ(a)`, assigns every closed-loop policy
the true expected cost: it never needs to know `Q`. -/
theorem planning_equivalence_goal_reaching (Q : E ≃ₗᵢ[ℝ] E) {ν : Measure E} (hν : ν.map Q = ν)
    (F : E → A → E) (κ : A → ℝ) (zg : E) (π : ℕ → E → A) (N : ℕ) (z : E) :
    policyCost (fun y a => Q (F (Q.symm y) a)) ν (fun y a => ‖y - Q zg‖ ^ 2 + κ a)
        (fun y => ‖y - Q zg‖ ^ 2) (fun k y => π k (Q.symm y)) N (Q z) =
      policyCost F ν (fun z a => ‖z - zg‖ ^ 2 + κ a) (fun z => ‖z - zg‖ ^ 2) π N z := by
  refine planning_equivalence_expected Q hν F _ _ _ _ _ (fun z a => ?_) (fun z a => ?_)
    (fun z => ?_) π N z
  · simp only [LinearIsometryEquiv.symm_apply_apply]
  · show ‖Q z - Q zg‖ ^ 2 + κ a = ‖z - zg‖ ^ 2 + κ a
    rw [← map_sub, Q.norm_map]
  · show ‖Q z - Q zg‖ ^ 2 = ‖z - zg‖ ^ 2
    rw [← map_sub, Q.norm_map]

/-- **The Gaussian case.** Mathlib's standard Gaussian on a finite-dimensional real inner
product space is invariant under every linear isometry equivalence, so it satisfies the noise
hypothesis `Q₊ν = ν` of `LeJEPA.planning_equivalence_expected`. -/
theorem map_stdGaussian_linearIsometryEquiv [FiniteDimensional ℝ E] (Q : E ≃ₗᵢ[ℝ] E) :
    (stdGaussian E).map Q = stdGaussian E :=
  stdGaussian_map Q

end LeJEPA
