/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib.Probability.Distributions.Gaussian.Real
import Mathlib.Analysis.Calculus.MeanValue
import Mathlib.Analysis.SpecialFunctions.Log.Deriv
import Mathlib.Analysis.SpecialFunctions.ExpDeriv
import Mathlib.Tactic.LinearCombination

/-!
# T2: only the Gaussian makes an eigenfunction of the Langevin generator affine

For a one-dimensional Langevin diffusion `dz = (log p)'(z) dt + √2 dW` with stationary density
`p`, the generator acts on `C²` functions by `𝓛f = f'' + (log p)' f'`. THEORY.md's converse
says: the first non-constant eigenfunction `φ₁` is affine iff `p` is Gaussian.

## Main statements

* `LeJEPA.langevinGenerator p f z = f''(z) + (log p)'(z) f'(z)`.
* `LeJEPA.IsPositiveDensity p`: `p > 0` everywhere, `p` is `C¹`, integrable, `∫ p = 1`.
* `LeJEPA.gaussian_of_affine_score`: the ODE step. If `p` is differentiable and its score is
  affine, `p' = -λ (z + c) p`, then `p(z) = p(-c) exp(-λ (z + c)² / 2)` for all `z`.
* `LeJEPA.affine_eigenfunction_iff_gaussian` (**T2**): for a positive `C¹` probability density
  `p`, `λ > 0` and `a ≠ 0`, the affine function `f(z) = a z + b` satisfies `𝓛f = -λ f`
  everywhere iff `p` is the Gaussian density with mean `-b/a` and variance `1/λ`
  (`ProbabilityTheory.gaussianPDFReal (-(b / a)) λ⁻¹`).
* `LeJEPA.linear_identifiability_iff_gaussian` (**T2**, existential form): some affine
  `f = a z + b` with `a ≠ 0` satisfies `𝓛f = -λ f` iff `p` is a Gaussian density of variance
  `1/λ`.

## Implementation notes

The Sturm–Liouville facts of THEORY.md (that `φ₁` exists for the densities considered, that it is
the best whitened one-dimensional feature, and that it is strictly monotone) are not used by
these statements and are not formalized: docs/THEORY.md states the monotonicity as a named open
statement with its numerical check (`tests/numerics/test_t2.py`). The generator is defined for
every function; it is the Langevin generator on `C²` functions, and the theorems apply it to
affine functions only. Integrability is part of `LeJEPA.IsPositiveDensity` to match the paper's
hypotheses; in Lean it also follows from `∫ p = 1`, since the Bochner integral of a
non-integrable function is `0`.
Mathlib names: `is_const_of_deriv_eq_zero` (`Mathlib/Analysis/Calculus/MeanValue.lean`),
`HasDerivAt.log` (`Mathlib/Analysis/SpecialFunctions/Log/Deriv.lean`), `HasDerivAt.exp`,
`ContDiff.differentiable`, `ProbabilityTheory.gaussianPDFReal`,
`ProbabilityTheory.integral_gaussianPDFReal_eq_one`
(`Mathlib/Probability/Distributions/Gaussian/Real.lean`).

## References

* docs/THEORY.md, T2; the paper's Sturm–Liouville argument.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- The Langevin generator `𝓛f = f'' + (log p)' f'` of `dz = (log p)'(z) dt + √2 dW`, applied to
`f` at `z`. It is the generator on `C²` functions `f`; the theorems below use it on affine `f`. -/
noncomputable def langevinGenerator (p f : ℝ → ℝ) (z : ℝ) : ℝ :=
  deriv (deriv f) z + deriv (fun y => Real.log (p y)) z * deriv f z

/-- A positive `C¹` probability density on `ℝ`: the stationary densities of T2. -/
structure IsPositiveDensity (p : ℝ → ℝ) : Prop where
  pos : ∀ z, 0 < p z
  contDiff : ContDiff ℝ 1 p
  integrable : Integrable p
  integral_eq_one : ∫ z, p z = 1

/-- The derivative of `y ↦ λ (y + c)² / 2`, written with a product to keep the algebra
elementary. -/
theorem hasDerivAt_half_sq (lam c y : ℝ) :
    HasDerivAt (fun y => lam * ((y + c) * (y + c)) / 2) (lam * (y + c)) y := by
  have hl : HasDerivAt (fun y : ℝ => y + c) 1 y := (hasDerivAt_id' (x := y)).add_const c
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

/-- The derivative of the Gaussian shape `C exp(-λ (y + c)² / 2)` is `-λ (z + c)` times itself. -/
theorem hasDerivAt_gaussian_shape (C c lam z : ℝ) :
    HasDerivAt (fun y => C * Real.exp (-(lam * (y + c) ^ 2 / 2)))
      (-lam * (z + c) * (C * Real.exp (-(lam * (z + c) ^ 2 / 2)))) z := by
  have hl : HasDerivAt (fun y : ℝ => y + c) 1 z := (hasDerivAt_id' (x := z)).add_const c
  have hsq : HasDerivAt (fun y : ℝ => (y + c) ^ 2) (2 * (z + c)) z := by
    have h := hl.mul hl
    have e : (fun y : ℝ => (y + c) ^ 2) = fun y => (y + c) * (y + c) := by
      funext y
      ring
    rw [e]
    exact h.congr_deriv (by ring)
  have hin : HasDerivAt (fun y : ℝ => -(lam * (y + c) ^ 2 / 2)) (-(lam * (2 * (z + c)) / 2)) z :=
    ((hsq.const_mul lam).div_const 2).neg
  exact (hin.exp.const_mul C).congr_deriv (by ring)

/-- The Gaussian density of mean `μ` and variance `1/λ`, in the shape
`(√(2π/λ))⁻¹ exp(-λ (z - μ)² / 2)`. -/
theorem gaussianPDFReal_inv_eq {lam : ℝ} (hlam : 0 < lam) (μ z : ℝ) :
    gaussianPDFReal μ lam⁻¹.toNNReal z =
      (Real.sqrt (2 * Real.pi * lam⁻¹))⁻¹ * Real.exp (-(lam * (z + -μ) ^ 2 / 2)) := by
  have hv : ((lam⁻¹.toNNReal : NNReal) : ℝ) = lam⁻¹ := Real.coe_toNNReal _ (inv_pos.2 hlam).le
  rw [gaussianPDFReal, hv]
  congr 2
  rw [div_eq_mul_inv (-(z - μ) ^ 2), mul_inv, inv_inv]
  ring

/-- The derivative of the affine function `y ↦ a y + b` is the constant `a`, and its second
derivative vanishes. -/
theorem deriv_affine (a b : ℝ) :
    deriv (fun y : ℝ => a * y + b) = fun _ => a := by
  funext y
  have h : HasDerivAt (fun y : ℝ => a * y + b) (a * 1) y :=
    ((hasDerivAt_id' (x := y)).const_mul a).add_const b
  rw [h.deriv, mul_one]

/-- The Langevin generator on an affine function: `𝓛(a y + b)(z) = a (log p)'(z)`. -/
theorem langevinGenerator_affine (p : ℝ → ℝ) (a b z : ℝ) :
    langevinGenerator p (fun y => a * y + b) z = deriv (fun y => Real.log (p y)) z * a := by
  unfold langevinGenerator
  rw [deriv_affine, deriv_const, zero_add]

/-- **T2 (Gaussian characterization of an affine eigenfunction).** Let `p` be a positive `C¹`
probability density, `λ > 0` and `a ≠ 0`. The affine function `f(z) = a z + b` satisfies the
eigen-equation `𝓛f = -λ f` of the Langevin generator at every `z` iff `p` is the Gaussian
density with mean `-b/a` and variance `1/λ`. -/
theorem affine_eigenfunction_iff_gaussian {p : ℝ → ℝ} (hp : IsPositiveDensity p) {lam : ℝ}
    (hlam : 0 < lam) {a b : ℝ} (ha : a ≠ 0) :
    (∀ z, langevinGenerator p (fun y => a * y + b) z = -lam * (a * z + b)) ↔
      p = gaussianPDFReal (-(b / a)) lam⁻¹.toNNReal := by
  -- The side condition of `ContDiff.differentiable` is `1 ≤ n` in older Mathlib and `n ≠ 0` in
  -- newer; `norm_num` proves either for `n = 1`.
  have hdiff : Differentiable ℝ p := hp.contDiff.differentiable (by norm_num)
  have hab : a * (b / a) = b := by rw [mul_div_assoc', mul_div_cancel_left₀ b ha]
  have hK : 0 < Real.sqrt (2 * Real.pi * lam⁻¹) :=
    Real.sqrt_pos.2 (mul_pos (mul_pos two_pos Real.pi_pos) (inv_pos.2 hlam))
  have hlog : ∀ z, deriv (fun y => Real.log (p y)) z = deriv p z / p z := fun z =>
    ((hdiff z).hasDerivAt.log (hp.pos z).ne').deriv
  constructor
  · intro heig
    -- The score is affine: `p' = -λ (z + b/a) p`.
    have hscore : ∀ z, deriv p z = -lam * (z + b / a) * p z := by
      intro z
      have h := heig z
      rw [langevinGenerator_affine, hlog z] at h
      have h' : deriv p z * a = -lam * (a * z + b) * p z := by
        rw [← h, mul_right_comm, div_mul_cancel₀ _ (hp.pos z).ne']
      apply mul_left_cancel₀ ha
      linear_combination h' + (lam * p z) * hab
    have hform := gaussian_of_affine_score hdiff hscore
    -- Normalization: `p = (p(-b/a) √(2π/λ)) · gaussianPDFReal`, and `∫ p = 1`.
    have hpform : ∀ z, p z = (p (-(b / a)) * Real.sqrt (2 * Real.pi * lam⁻¹)) *
        gaussianPDFReal (-(b / a)) lam⁻¹.toNNReal z := by
      intro z
      rw [hform z, gaussianPDFReal_inv_eq hlam, neg_neg, mul_assoc (p (-(b / a))),
        ← mul_assoc (Real.sqrt (2 * Real.pi * lam⁻¹)), mul_inv_cancel₀ hK.ne', one_mul]
    have hv0 : lam⁻¹.toNNReal ≠ 0 := (Real.toNNReal_pos.2 (inv_pos.2 hlam)).ne'
    have hint : ∫ z, p z = p (-(b / a)) * Real.sqrt (2 * Real.pi * lam⁻¹) := by
      calc ∫ z, p z
          = ∫ z, (p (-(b / a)) * Real.sqrt (2 * Real.pi * lam⁻¹)) *
              gaussianPDFReal (-(b / a)) lam⁻¹.toNNReal z :=
            integral_congr_ae (ae_of_all _ hpform)
        _ = (p (-(b / a)) * Real.sqrt (2 * Real.pi * lam⁻¹)) *
              ∫ z, gaussianPDFReal (-(b / a)) lam⁻¹.toNNReal z :=
            integral_const_mul _ _
        _ = p (-(b / a)) * Real.sqrt (2 * Real.pi * lam⁻¹) := by
            rw [integral_gaussianPDFReal_eq_one _ hv0, mul_one]
    have hone : p (-(b / a)) * Real.sqrt (2 * Real.pi * lam⁻¹) = 1 := by
      rw [← hint, hp.integral_eq_one]
    funext z
    rw [hpform z, hone, one_mul]
  · intro hpg z
    rw [langevinGenerator_affine, hlog z]
    have hshape : p = fun y => (Real.sqrt (2 * Real.pi * lam⁻¹))⁻¹ *
        Real.exp (-(lam * (y + b / a) ^ 2 / 2)) := by
      funext y
      rw [hpg, gaussianPDFReal_inv_eq hlam, neg_neg]
    have hpz : p z = (Real.sqrt (2 * Real.pi * lam⁻¹))⁻¹ *
        Real.exp (-(lam * (z + b / a) ^ 2 / 2)) := congrFun hshape z
    have hd := hasDerivAt_gaussian_shape (Real.sqrt (2 * Real.pi * lam⁻¹))⁻¹ (b / a) lam z
    rw [← hshape] at hd
    rw [hd.deriv, ← hpz, mul_div_assoc, div_self (hp.pos z).ne', mul_one]
    linear_combination (-lam) * hab

/-- **T2 (linear identifiability iff Gaussian).** For a positive `C¹` probability density `p`
and `λ > 0`: some affine `f(z) = a z + b` with `a ≠ 0` satisfies `𝓛f = -λ f` everywhere iff
`p` is a Gaussian density of variance `1/λ` (its mean is then `-b/a`). -/
theorem linear_identifiability_iff_gaussian {p : ℝ → ℝ} (hp : IsPositiveDensity p) {lam : ℝ}
    (hlam : 0 < lam) :
    (∃ a b : ℝ, a ≠ 0 ∧ ∀ z, langevinGenerator p (fun y => a * y + b) z = -lam * (a * z + b)) ↔
      ∃ μ : ℝ, p = gaussianPDFReal μ lam⁻¹.toNNReal := by
  constructor
  · rintro ⟨a, b, ha, heig⟩
    exact ⟨-(b / a), (affine_eigenfunction_iff_gaussian hp hlam ha).1 heig⟩
  · rintro ⟨μ, hμ⟩
    refine ⟨1, -μ, one_ne_zero, (affine_eigenfunction_iff_gaussian hp hlam one_ne_zero).2 ?_⟩
    rw [hμ, neg_div, div_one, neg_neg]

end LeJEPA
