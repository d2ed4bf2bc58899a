/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib

/-!
# T2: only the Gaussian makes the best feature affine

For a one-dimensional Langevin diffusion `dz = (log p)'(z) dt + √2 dW` with smooth positive
stationary density `p`, the generator is `𝓛φ = φ'' + (log p)' φ'`. THEORY.md's converse says:
the first non-constant eigenfunction `φ₁` is affine iff `p` is Gaussian.

## Main statements

* `LeJEPA.gaussian_of_affine_score`: the ODE step. If `p` is differentiable and its score is
  affine, `p' = -λ (z + c) p`, then `p(z) = p(-c) exp(-λ (z + c)² / 2)` for all `z`. No
  positivity or integrability is needed; the proof shows `p(z) exp(λ (z + c)² / 2)` has zero
  derivative and applies `is_const_of_deriv_eq_zero`.
* `LeJEPA.gaussian_of_affine_eigenfunction` (**T2, ⇒**): if the affine `φ(z) = a z + b`,
  `a ≠ 0`, solves the eigen-equation `𝓛φ = -λ φ` (written `a p' = -λ (a z + b) p`, i.e. the
  equation multiplied by `p`), then `p` is the Gaussian shape with mean `-b/a` and precision
  `λ`: `p(z) = p(-b/a) exp(-λ (z + b/a)² / 2)`.
* `LeJEPA.affine_eigenfunction_of_gaussian` (**T2, ⇐**): for the Gaussian shape
  `p(z) = C exp(-λ (z - μ)² / 2)` the affine `φ(z) = z - μ` solves `a p' = -λ (a z + b) p` with
  `a = 1`, `b = -μ` (it is `H₁` up to scaling, eigenvalue `λ`).
* `LeJEPA.linear_identifiability_iff_gaussian`: the equivalence for a positive differentiable
  `p`.

## Implementation notes

The Sturm–Liouville facts of THEORY.md (that `φ₁` exists for the densities considered and is
strictly monotone) are not used by these statements and are not assumed: the theorems are
stated for any affine solution of the eigen-equation. For `λ > 0` the shape is the density of
`N(-b/a, 1/λ)` up to normalisation; for `λ ≤ 0` it is not normalisable, so a probability
density can only satisfy the equation with `λ > 0`.
Names confirmed in Mathlib: `is_const_of_deriv_eq_zero`
(`Mathlib/Analysis/Calculus/MeanValue.lean`), `HasDerivAt.exp`
(`Mathlib/Analysis/SpecialFunctions/ExpDeriv.lean`), `HasDerivAt.mul`, `HasDerivAt.const_mul`,
`HasDerivAt.div_const`, `HasDerivAt.add_const`, `hasDerivAt_id'`, `HasDerivAt.congr_deriv`,
`DifferentiableAt.hasDerivAt`, `HasDerivAt.deriv` (`Mathlib/Analysis/Calculus/Deriv/*.lean`).

## References

* THEORY.md, T2; the paper's Sturm–Liouville argument.
-/

namespace LeJEPA

/-- The derivative of `y ↦ λ (y + c)² / 2`, written with a product to keep the algebra
elementary. -/
theorem hasDerivAt_half_sq (lam c y : ℝ) :
    HasDerivAt (fun y => lam * ((y + c) * (y + c)) / 2) (lam * (y + c)) y := by
  have hl : HasDerivAt (fun y : ℝ => y + c) 1 y := (hasDerivAt_id' y).add_const c
  have hsq : HasDerivAt (fun y : ℝ => (y + c) * (y + c)) (1 * (y + c) + (y + c) * 1) y :=
    hl.mul hl
  exact ((hsq.const_mul lam).div_const 2).congr_deriv (by ring)

/-- **The ODE step of T2.** If `p : ℝ → ℝ` is differentiable with affine score,
`p'(z) = -λ (z + c) p(z)` for all `z`, then `p(z) = p(-c) exp(-λ (z + c)² / 2)`. -/
theorem gaussian_of_affine_score {p : ℝ → ℝ} {lam c : ℝ} (hp : Differentiable ℝ p)
    (hscore : ∀ z, deriv p z = -lam * (z + c) * p z) (z : ℝ) :
    p z = p (-c) * Real.exp (-(lam * (z + c) ^ 2 / 2)) := by
  have hderiv : ∀ y, HasDerivAt (fun y => p y * Real.exp (lam * ((y + c) * (y + c)) / 2)) 0 y := by
    intro y
    have h4 := ((hp y).hasDerivAt).mul (hasDerivAt_half_sq lam c y).exp
    refine h4.congr_deriv ?_
    rw [hscore y]
    ring
  have hdiff : Differentiable ℝ (fun y => p y * Real.exp (lam * ((y + c) * (y + c)) / 2)) :=
    fun y => (hderiv y).differentiableAt
  have hconst0 : p z * Real.exp (lam * ((z + c) * (z + c)) / 2) =
      p (-c) * Real.exp (lam * ((-c + c) * (-c + c)) / 2) :=
    is_const_of_deriv_eq_zero hdiff (fun y => (hderiv y).deriv) z (-c)
  have hconst : p z * Real.exp (lam * ((z + c) * (z + c)) / 2) = p (-c) := by
    have hzero : lam * ((-c + c) * (-c + c)) / 2 = 0 := by ring
    rw [hconst0, hzero, Real.exp_zero, mul_one]
  have hexp :
      Real.exp (lam * ((z + c) * (z + c)) / 2) * Real.exp (-(lam * (z + c) ^ 2 / 2)) = 1 := by
    rw [← Real.exp_add]
    have : lam * ((z + c) * (z + c)) / 2 + -(lam * (z + c) ^ 2 / 2) = 0 := by ring
    rw [this, Real.exp_zero]
  calc p z = p z * (Real.exp (lam * ((z + c) * (z + c)) / 2) *
        Real.exp (-(lam * (z + c) ^ 2 / 2))) := by rw [hexp, mul_one]
    _ = p (-c) * Real.exp (-(lam * (z + c) ^ 2 / 2)) := by rw [← mul_assoc, hconst]

/-- **T2 (⇒): an affine eigenfunction forces a Gaussian.** Let `p` be differentiable and let
the affine `φ(z) = a z + b` (`a ≠ 0`) solve `𝓛φ = φ'' + (log p)' φ' = -λ φ`, written
multiplied by `p`: `a p'(z) = -λ (a z + b) p(z)`. Then
`p(z) = p(-b/a) exp(-λ (z + b/a)² / 2)`: the score is affine and `p` is the Gaussian shape
with mean `-b/a` and variance `1/λ`. -/
theorem gaussian_of_affine_eigenfunction {p : ℝ → ℝ} {a b lam : ℝ} (ha : a ≠ 0)
    (hp : Differentiable ℝ p) (heig : ∀ z, a * deriv p z = -lam * (a * z + b) * p z)
    (z : ℝ) : p z = p (-(b / a)) * Real.exp (-(lam * (z + b / a) ^ 2 / 2)) := by
  have hscore : ∀ y, deriv p y = -lam * (y + b / a) * p y := by
    intro y
    apply mul_left_cancel₀ ha
    have hab : a * (b / a) = b := by
      first
        | (rw [mul_div_assoc', mul_div_cancel_left₀ b ha])
        | (field_simp; done)
        | (rw [mul_comm]; exact div_mul_cancel₀ b ha)
    rw [heig y]
    linear_combination (lam * p y) * hab
  exact gaussian_of_affine_score hp hscore z

/-- **T2 (⇐): the Gaussian has an affine eigenfunction.** For `p(z) = C exp(-λ (z - μ)² / 2)`,
`p'(z) = -λ (z - μ) p(z)`, so `φ(z) = z - μ` solves the eigen-equation with `a = 1`,
`b = -μ`. -/
theorem affine_eigenfunction_of_gaussian (C μ lam : ℝ) (z : ℝ) :
    HasDerivAt (fun y => C * Real.exp (-(lam * (y - μ) ^ 2 / 2)))
      (-lam * (1 * z + -μ) * (C * Real.exp (-(lam * (z - μ) ^ 2 / 2)))) z := by
  have hl : HasDerivAt (fun y : ℝ => y - μ) 1 z := (hasDerivAt_id' z).sub_const μ
  have hsq : HasDerivAt (fun y : ℝ => (y - μ) ^ 2) (2 * (z - μ)) z := by
    have h := hl.mul hl
    have e : (fun y : ℝ => (y - μ) ^ 2) = fun y => (y - μ) * (y - μ) := by
      funext y
      ring
    rw [e]
    exact h.congr_deriv (by ring)
  have hin : HasDerivAt (fun y : ℝ => -(lam * (y - μ) ^ 2 / 2)) (-(lam * (2 * (z - μ)) / 2)) z :=
    ((hsq.const_mul lam).div_const 2).neg
  exact (hin.exp.const_mul C).congr_deriv (by ring)

/-- **T2 (equivalence).** For a positive differentiable density `p` and `a ≠ 0`, the affine
`φ(z) = a z + b` solves `𝓛φ = -λ φ` (i.e. `a p' = -λ (a z + b) p` everywhere) iff `p` is the
Gaussian shape `p(z) = p(-b/a) exp(-λ (z + b/a)² / 2)`. -/
theorem linear_identifiability_iff_gaussian {p : ℝ → ℝ} {a b lam : ℝ} (ha : a ≠ 0)
    (hp : Differentiable ℝ p) :
    (∀ z, a * deriv p z = -lam * (a * z + b) * p z) ↔
      ∀ z, p z = p (-(b / a)) * Real.exp (-(lam * (z + b / a) ^ 2 / 2)) := by
  constructor
  · exact fun heig z => gaussian_of_affine_eigenfunction ha hp heig z
  · intro hform z
    have hfun : p = fun y => p (-(b / a)) * Real.exp (-(lam * (y - -(b / a)) ^ 2 / 2)) := by
      funext y
      rw [hform y, sub_neg_eq_add]
    have hd := affine_eigenfunction_of_gaussian (p (-(b / a))) (-(b / a)) lam z
    have hderiv : deriv p z = _ :=
      (congrArg (fun f : ℝ → ℝ => deriv f z) hfun).trans hd.deriv
    have hab : a * (b / a) = b := by
      first
        | (rw [mul_div_assoc', mul_div_cancel_left₀ b ha])
        | (field_simp; done)
        | (rw [mul_comm]; exact div_mul_cancel₀ b ha)
    rw [hderiv, hform z]
    simp only [sub_neg_eq_add, neg_neg]
    linear_combination (-lam * (p (-(b / a)) * Real.exp (-(lam * (z + b / a) ^ 2 / 2)))) * hab

end LeJEPA
