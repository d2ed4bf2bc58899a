/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Approximate
import LeJEPAProofs.OutputDimension
import LeJEPAProofs.ForMathlib.FinsetSum

/-!
# T3 (b) with the covariance whitening error

For a centred square-integrable encoder `h : ℝⁿ → ℝᵐ` write `Cov h` for its second-moment matrix
`(Cov h)ⱼₖ = E[hⱼ(z) hₖ(z)]` (the covariance, since `E h = 0`), `ε = ‖Cov h - I‖_F`,
`A = E[h(z) zᵀ]` for the linear part and `D = δ / (2ρ(1-ρ))` as in `LeJEPAProofs/Approximate.lean`.

## Main statements

* `LeJEPA.residual_quadratic_nonneg`: the residual covariance `R = Cov h - A Aᵀ` is positive
  semidefinite on every pair of coordinates: `s² Rⱼⱼ + 2st Rⱼₖ + t² Rₖₖ ≥ 0`.
* `LeJEPA.sum_residual_diag_le`: `tr R ≤ D` (the trace of `R` is the nonlinear energy).
* `LeJEPA.linearWhiteningError_le_cov`: `‖A Aᵀ - I‖²_F ≤ (ε + D)²`.
* `LeJEPA.approximate_identifiability_whitening` (**T3 (b)**, THEORY.md's form): for `m = n`
  there is an orthogonal `Q` with `E‖h(z) - Q z‖² ≤ D + (ε + D)²`.

## Implementation notes

No new axiom. Positive semidefiniteness of `R` comes from the Parseval identity of
`LeJEPA.coord_spectral` applied to `F = s hⱼ + t hₖ`: `E F² = (E F)² + ‖a_F‖² + (energy ≥ 0)`
with `E F² = s² Covⱼⱼ + 2st Covⱼₖ + t² Covₖₖ` and `a_F = s aⱼ + t aₖ`. From the `2 × 2`
minors, `Rⱼₖ² ≤ Rⱼⱼ Rₖₖ`, so `‖R‖²_F ≤ (tr R)²`; the triangle inequality for the Frobenius norm
is Cauchy–Schwarz for double sums; these finite-dimensional steps are
`LeJEPA.frobenius_whitening_bound` in `LeJEPAProofs/ForMathlib/FinsetSum.lean`. The matrix `I`
enters only through its entries
`(1 : Matrix (Fin m) (Fin m) ℝ) j k = if j = k then 1 else 0` (`Matrix.one_apply`).
Mathlib names used: `integral_add`, `integral_const_mul`, `integral_congr_ae`, `ae_of_all`
(`Mathlib/MeasureTheory/Integral/Bochner/Basic.lean`), `Integrable.add`, `Integrable.const_mul`,
`MemLp.add`, `MemLp.const_mul`, `Finset.sum_add_distrib`, `Finset.mul_sum`, `Finset.sum_mul`,
`Finset.sum_le_sum`, `Finset.sum_nonneg`, `Finset.sum_eq_zero`, `Matrix.mul_apply`,
`Matrix.one_apply`, `Real.sq_sqrt`, `Real.sqrt_nonneg` (`Mathlib/Data/Real/Sqrt.lean`).

## References

* docs/THEORY.md, T3 (proof of (b): `Cov h = A Aᵀ + E[r rᵀ]`, `‖A Aᵀ - I‖_F ≤ ε + tr E[r rᵀ]`).
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-! ### The covariance of an encoder -/

/-- The second-moment matrix `(Cov h)ⱼₖ = E[hⱼ(z) hₖ(z)]` of an encoder under `γ_n`; for a
centred `h` (`E h = 0`) it is the covariance `Cov h` of THEORY.md. -/
noncomputable def outputCov {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) :
    Matrix (Fin m) (Fin m) ℝ :=
  fun j k => ∫ z, h z j * h z k ∂stdGaussianPi n

theorem outputCov_apply {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) (j k : Fin m) :
    outputCov h j k = ∫ z, h z j * h z k ∂stdGaussianPi n :=
  rfl

/-- The whitening error `ε = ‖Cov h - I‖_F = (∑ⱼₖ (E[hⱼ hₖ] - δⱼₖ)²)^(1/2)` of THEORY.md, T3. -/
noncomputable def covWhiteningError {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) : ℝ :=
  Real.sqrt (∑ j, ∑ k, (outputCov h j k - (1 : Matrix (Fin m) (Fin m) ℝ) j k) ^ 2)

/-- `ε` written with integrals and the Kronecker delta. -/
theorem covWhiteningError_eq {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) :
    covWhiteningError h = Real.sqrt (∑ j, ∑ k,
      (∫ z, h z j * h z k ∂stdGaussianPi n - if j = k then 1 else 0) ^ 2) := by
  unfold covWhiteningError
  simp only [outputCov_apply, Matrix.one_apply]

/-- `E (s hⱼ + t hₖ)² = s² Covⱼⱼ + 2st Covⱼₖ + t² Covₖₖ`. -/
theorem integral_pair_sq {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hL2 : SquareIntegrable h)
    (j k : Fin m) (s t : ℝ) :
    ∫ z, (s * h z j + t * h z k) ^ 2 ∂stdGaussianPi n =
      s ^ 2 * outputCov h j j + 2 * s * t * outputCov h j k + t ^ 2 * outputCov h k k := by
  have i1 : Integrable (fun z => s ^ 2 * (h z j * h z j)) (stdGaussianPi n) :=
    (integrable_mul_of_memLp_two (hL2 j) (hL2 j)).const_mul (s ^ 2)
  have i2 : Integrable (fun z => 2 * s * t * (h z j * h z k)) (stdGaussianPi n) :=
    (integrable_mul_of_memLp_two (hL2 j) (hL2 k)).const_mul (2 * s * t)
  have i3 : Integrable (fun z => t ^ 2 * (h z k * h z k)) (stdGaussianPi n) :=
    (integrable_mul_of_memLp_two (hL2 k) (hL2 k)).const_mul (t ^ 2)
  have i12 : Integrable (fun z => s ^ 2 * (h z j * h z j) + 2 * s * t * (h z j * h z k))
      (stdGaussianPi n) := i1.add i2
  have hpt : (fun z : Fin n → ℝ => (s * h z j + t * h z k) ^ 2) =
      fun z => s ^ 2 * (h z j * h z j) + 2 * s * t * (h z j * h z k) +
        t ^ 2 * (h z k * h z k) := by
    funext z
    ring
  rw [hpt, integral_add i12 i3, integral_add i1 i2, integral_const_mul, integral_const_mul,
    integral_const_mul, outputCov_apply, outputCov_apply, outputCov_apply]

/-- The degree-one coefficients of `s hⱼ + t hₖ` are `s aⱼ + t aₖ`. -/
theorem linearCoeff_pair {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hL2 : SquareIntegrable h)
    (j k : Fin m) (s t : ℝ) (i : Fin n) :
    linearCoeff (fun z => s * h z j + t * h z k) i =
      s * linearPart h j i + t * linearPart h k i := by
  have i1 : Integrable (fun z : Fin n → ℝ => s * (h z j * z i)) (stdGaussianPi n) :=
    (integrable_mul_of_memLp_two (hL2 j) (memLp_coord n i)).const_mul s
  have i2 : Integrable (fun z : Fin n → ℝ => t * (h z k * z i)) (stdGaussianPi n) :=
    (integrable_mul_of_memLp_two (hL2 k) (memLp_coord n i)).const_mul t
  have e0 : linearCoeff (fun z => s * h z j + t * h z k) i =
      ∫ z, (s * (h z j * z i) + t * (h z k * z i)) ∂stdGaussianPi n := by
    unfold linearCoeff
    congr 1
    funext z
    show (s * h z j + t * h z k) * z i = s * (h z j * z i) + t * (h z k * z i)
    ring
  rw [e0, integral_add i1 i2, integral_const_mul, integral_const_mul, linearPart_apply,
    linearPart_apply]
  rfl

/-- **The residual covariance is positive semidefinite.** With `R = Cov h - A Aᵀ`, for every pair
of output coordinates `j, k` and all real `s, t`: `s² Rⱼⱼ + 2st Rⱼₖ + t² Rₖₖ ≥ 0`. This is
Parseval for `F = s hⱼ + t hₖ`: `E F² ≥ ‖a_F‖²`. -/
theorem residual_quadratic_nonneg {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ}
    (hL2 : SquareIntegrable h) (j k : Fin m) (s t : ℝ) :
    0 ≤ s ^ 2 * (outputCov h j j - ∑ i, linearPart h j i * linearPart h j i) +
      2 * s * t * (outputCov h j k - ∑ i, linearPart h j i * linearPart h k i) +
        t ^ 2 * (outputCov h k k - ∑ i, linearPart h k i * linearPart h k i) := by
  have hF : MemLp (fun z => s * h z j + t * h z k) 2 (stdGaussianPi n) :=
    ((hL2 j).const_mul s).add ((hL2 k).const_mul t)
  obtain ⟨R, hR0, -, hsq, -, -, -⟩ :=
    coord_spectral (fun z => s * h z j + t * h z k) hF (1 / 2) (by norm_num) (by norm_num)
  have hsq' : ∫ z, (s * h z j + t * h z k) ^ 2 ∂stdGaussianPi n =
      (∫ z, (s * h z j + t * h z k) ∂stdGaussianPi n) ^ 2 +
        ∑ i, linearCoeff (fun z => s * h z j + t * h z k) i ^ 2 + R :=
    hsq
  have hlin : ∑ i, linearCoeff (fun z => s * h z j + t * h z k) i ^ 2 =
      ∑ i, (s * linearPart h j i + t * linearPart h k i) ^ 2 :=
    Finset.sum_congr rfl fun i _ => by rw [linearCoeff_pair hL2 j k s t i]
  have hexp : ∑ i, (s * linearPart h j i + t * linearPart h k i) ^ 2 =
      s ^ 2 * ∑ i, linearPart h j i * linearPart h j i +
        2 * s * t * ∑ i, linearPart h j i * linearPart h k i +
          t ^ 2 * ∑ i, linearPart h k i * linearPart h k i := by
    rw [sum_sq_pair_expand]
    simp only [sq]
  have hI := integral_pair_sq hL2 j k s t
  have hm := sq_nonneg (∫ z, (s * h z j + t * h z k) ∂stdGaussianPi n)
  linarith

/-- **The trace of the residual covariance is the nonlinear energy**, hence at most `D`:
`∑ⱼ (Covⱼⱼ - ‖aⱼ‖²) ≤ δ / (2ρ(1-ρ))` for a centred square-integrable `h`. -/
theorem sum_residual_diag_le {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussianPi n = 0) :
    ∑ j, (outputCov h j j - ∑ i, linearPart h j i * linearPart h j i) ≤
      alignmentGap ρ h / (2 * ρ * (1 - ρ)) := by
  refine le_trans (le_of_eq ?_) (nonlinear_energy_le ρ hρ0 hρ1 h hL2 hc)
  refine Finset.sum_congr rfl fun j _ => ?_
  obtain ⟨R, -, hq, hsq, -, -, -⟩ := coord_spectral (fun z => h z j) (hL2 j) ρ hρ0 hρ1
  have hq' : ∫ z, (h z j - ∑ i, linearPart h j i * z i) ^ 2 ∂stdGaussianPi n =
      (∫ z, h z j ∂stdGaussianPi n) ^ 2 +
        ∑ i, (linearCoeff (fun z => h z j) i - linearPart h j i) ^ 2 + R :=
    hq (fun i => linearPart h j i)
  have hsq' : ∫ z, h z j ^ 2 ∂stdGaussianPi n =
      (∫ z, h z j ∂stdGaussianPi n) ^ 2 + ∑ i, linearCoeff (fun z => h z j) i ^ 2 + R :=
    hsq
  have hzero : ∑ i, (linearCoeff (fun z => h z j) i - linearPart h j i) ^ 2 = 0 :=
    Finset.sum_eq_zero fun i _ => by simp [linearPart_apply]
  have hdiag : ∑ i, linearPart h j i * linearPart h j i =
      ∑ i, linearCoeff (fun z => h z j) i ^ 2 :=
    Finset.sum_congr rfl fun i _ => by rw [linearPart_apply, sq]
  have hcov : outputCov h j j = ∫ z, h z j ^ 2 ∂stdGaussianPi n := by
    rw [outputCov_apply]
    congr 1
    funext z
    ring
  have hcj : ∫ z, h z j ∂stdGaussianPi n = 0 := hc j
  rw [hcj] at hq' hsq'
  rw [hcov, hdiag]
  linarith

/-- **The linear part is nearly whitened:** `‖A Aᵀ - I‖²_F ≤ (ε + D)²` for a centred
square-integrable `h : ℝⁿ → ℝᵐ`, `ε = ‖Cov h - I‖_F`, `D = δ / (2ρ(1-ρ))`. -/
theorem linearWhiteningError_le_cov {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussianPi n = 0) :
    linearWhiteningError h ≤
      (covWhiteningError h + alignmentGap ρ h / (2 * ρ * (1 - ρ))) ^ 2 := by
  have hG : ∀ j k, (linearPart h * (linearPart h).transpose) j k =
      ∑ i, linearPart h j i * linearPart h k i := fun j k => by
    simp only [Matrix.mul_apply, Matrix.transpose_apply]
  have hLW : linearWhiteningError h = ∑ j, ∑ k,
      ((∑ i, linearPart h j i * linearPart h k i) - (1 : Matrix (Fin m) (Fin m) ℝ) j k) ^ 2 := by
    unfold linearWhiteningError
    exact Finset.sum_congr rfl fun j _ => Finset.sum_congr rfl fun k _ => by rw [hG j k]
  rw [hLW]
  exact frobenius_whitening_bound (fun j k => outputCov h j k)
    (fun j k => ∑ i, linearPart h j i * linearPart h k i)
    (fun j k => (1 : Matrix (Fin m) (Fin m) ℝ) j k) (alignmentGap ρ h / (2 * ρ * (1 - ρ)))
    (fun j k s t => residual_quadratic_nonneg hL2 j k s t)
    (sum_residual_diag_le ρ hρ0 hρ1 h hL2 hc)

/-- **T3 (b), THEORY.md's form.** For `m = n`, a centred square-integrable `h` and `0 < ρ < 1`,
there is an orthogonal `Q` with `E‖h(z) - Q z‖² ≤ D + (ε + D)²`, where `D = δ / (2ρ(1-ρ))`,
`δ = L(h) - 2(1-ρ) E‖h‖²` and `ε = ‖Cov h - I‖_F` (`LeJEPA.covWhiteningError`). -/
theorem approximate_identifiability_whitening {n : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin n → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussianPi n = 0) :
    ∃ Q : Matrix (Fin n) (Fin n) ℝ, Q ∈ Matrix.orthogonalGroup (Fin n) ℝ ∧
      ∑ j, ∫ z, (h z j - ∑ i, Q j i * z i) ^ 2 ∂stdGaussianPi n ≤
        alignmentGap ρ h / (2 * ρ * (1 - ρ)) +
          (covWhiteningError h + alignmentGap ρ h / (2 * ρ * (1 - ρ))) ^ 2 := by
  obtain ⟨Q, hQ, hbound⟩ := approximate_identifiability ρ hρ0 hρ1 h hL2 hc
  have hW := linearWhiteningError_le_cov ρ hρ0 hρ1 h hL2 hc
  exact ⟨Q, hQ, by linarith⟩

end LeJEPA
