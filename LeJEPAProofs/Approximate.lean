/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Identifiability
import LeJEPAProofs.ForMathlib.Procrustes

/-!
# T3: approximate identifiability (graceful degradation)

For a centred square-integrable encoder `h` (`E h = 0`), with
`s = E‖h‖²`, the alignment gap `δ = L(h) - 2(1-ρ) s` and `D = δ / (2ρ(1-ρ))`:

## Main statements

* `LeJEPA.alignmentGap_nonneg`: `δ ≥ 0`.
* `LeJEPA.nonlinear_energy_le` (**T3 (a)**): the nonlinear energy, i.e. the squared `L²`
  distance from `h` to its linear part `z ↦ A z` (`A = E[h(z) zᵀ]`), is at most `D`:
  `∑ⱼ E (hⱼ(z) - (A z)ⱼ)² ≤ D`.
* `LeJEPA.approximate_identifiability` (**T3 (b)**, with the linear-part whitening error):
  for `m = n` there is an orthogonal `Q` with `E‖h(z) - Q z‖² ≤ D + ‖A Aᵀ - I‖²_F`.

## Implementation notes

THEORY.md's bound `min_Q E‖h - Q z‖² ≤ D + (ε + D)²`, `ε = ‖Cov h - I‖_F`, is obtained from
`LeJEPA.approximate_identifiability` together with the covariance step
`‖A Aᵀ - I‖_F ≤ ε + D` (from `Cov h = A Aᵀ + E[r rᵀ]` with `r = h - A z` and
`‖E[r rᵀ]‖_F ≤ tr E[r rᵀ] ≤ D`). That covariance step is proved in
`LeJEPAProofs/ApproximateWhitening.lean` (`LeJEPA.approximate_identifiability_whitening`); the
statement proved here is the sharper intermediate bound in terms of the whitening error of the
linear part. The Procrustes inequality for the polar factor is `LeJEPA.procrustes_polar`, proved
from Mathlib's spectral theorem in `LeJEPAProofs/ForMathlib/Procrustes.lean`.

## References

* docs/THEORY.md, T3.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- The linear part `A = E[h(z) zᵀ]` of an encoder, an `m × n` matrix:
`A j i = E[hⱼ(z) zᵢ]`. -/
noncomputable def linearPart {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) :
    Matrix (Fin m) (Fin n) ℝ :=
  fun j i => linearCoeff (fun z => h z j) i

theorem linearPart_apply {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) (j : Fin m) (i : Fin n) :
    linearPart h j i = linearCoeff (fun z => h z j) i :=
  rfl

/-- The alignment gap `δ = L(h) - 2(1-ρ) E‖h(z)‖²`. -/
noncomputable def alignmentGap {n m : ℕ} (ρ : ℝ) (h : (Fin n → ℝ) → Fin m → ℝ) : ℝ :=
  alignmentLoss ρ h - 2 * (1 - ρ) * ∑ j, ∫ z, h z j ^ 2 ∂stdGaussianPi n

/-- The squared Frobenius whitening error `‖A Aᵀ - I‖²_F` of the linear part. -/
noncomputable def linearWhiteningError {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) : ℝ :=
  ∑ j, ∑ k, ((linearPart h * (linearPart h).transpose) j k -
    (1 : Matrix (Fin m) (Fin m) ℝ) j k) ^ 2

/-- One centred coordinate: its energy `R` above degree one is the squared distance to its
linear part, and the coordinate's alignment gap is at least `2ρ(1-ρ) R`. -/
theorem centred_coord {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussianPi n = 0) (j : Fin m) :
    ∃ R : ℝ, 0 ≤ R ∧
      (∀ q : Fin n → ℝ, ∫ z, (h z j - ∑ i, q i * z i) ^ 2 ∂stdGaussianPi n =
        ∑ i, (linearCoeff (fun z => h z j) i - q i) ^ 2 + R) ∧
      2 * (ρ * (1 - ρ)) * R ≤
        ∫ p, (h (ouMap ρ p) j - h p.1 j) ^ 2 ∂ouPair n -
          2 * (1 - ρ) * ∫ z, h z j ^ 2 ∂stdGaussianPi n := by
  obtain ⟨R, hR0, hq, hsq, hlo, -, -⟩ := coord_spectral (fun z => h z j) (hL2 j) ρ hρ0 hρ1
  have hcj : ∫ z, h z j ∂stdGaussianPi n = 0 := hc j
  refine ⟨R, hR0, fun q => ?_, ?_⟩
  · rw [hq q, hcj]
    ring
  · rw [hcj] at hsq
    rw [hsq]
    linarith

/-- **T3 (a).** For a centred square-integrable `h` and `0 < ρ < 1`, the nonlinear energy is
bounded by the normalized alignment gap:
`∑ⱼ E (hⱼ(z) - (A z)ⱼ)² ≤ δ / (2ρ(1-ρ))`. -/
theorem nonlinear_energy_le {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussianPi n = 0) :
    ∑ j, ∫ z, (h z j - ∑ i, linearPart h j i * z i) ^ 2 ∂stdGaussianPi n ≤
      alignmentGap ρ h / (2 * ρ * (1 - ρ)) := by
  choose R hR0 hq hgap using fun j => centred_coord ρ hρ0 hρ1 h hL2 hc j
  have hN : ∀ j, ∫ z, (h z j - ∑ i, linearPart h j i * z i) ^ 2 ∂stdGaussianPi n = R j := by
    intro j
    rw [hq j (fun i => linearPart h j i)]
    simp [linearPart_apply]
  have hpos : 0 < 2 * ρ * (1 - ρ) := by
    have := mul_pos hρ0 (sub_pos.2 hρ1)
    linarith
  rw [le_div_iff₀ hpos, Finset.sum_congr rfl fun j _ => hN j]
  have hsum := Finset.sum_le_sum fun j (_ : j ∈ Finset.univ) => hgap j
  have e1 : ∑ j, 2 * (ρ * (1 - ρ)) * R j = 2 * (ρ * (1 - ρ)) * ∑ j, R j := by
    simp only [Finset.mul_sum]
  have e2 : ∑ j, (∫ p, (h (ouMap ρ p) j - h p.1 j) ^ 2 ∂ouPair n -
        2 * (1 - ρ) * ∫ z, h z j ^ 2 ∂stdGaussianPi n) =
      alignmentGap ρ h := by
    unfold alignmentGap alignmentLoss
    simp only [Finset.sum_sub_distrib, Finset.mul_sum]
  linarith

/-- The alignment gap of a centred square-integrable encoder is nonnegative. -/
theorem alignmentGap_nonneg {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussianPi n = 0) : 0 ≤ alignmentGap ρ h := by
  have hle := nonlinear_energy_le ρ hρ0 hρ1 h hL2 hc
  have hN : 0 ≤ ∑ j, ∫ z, (h z j - ∑ i, linearPart h j i * z i) ^ 2 ∂stdGaussianPi n :=
    Finset.sum_nonneg fun j _ => integral_nonneg fun z => sq_nonneg _
  have hpos : 0 < 2 * ρ * (1 - ρ) := by
    have := mul_pos hρ0 (sub_pos.2 hρ1)
    linarith
  have := hN.trans hle
  rwa [le_div_iff₀ hpos, zero_mul] at this

/-- **T3 (b), linear-part form.** For `m = n`, a centred square-integrable `h` and
`0 < ρ < 1`, there is an orthogonal `Q` with
`E‖h(z) - Q z‖² ≤ δ / (2ρ(1-ρ)) + ‖A Aᵀ - I‖²_F`, where `A = E[h(z) zᵀ]`. When `h` is
whitened and `δ = 0` the right side vanishes (T1). -/
theorem approximate_identifiability {n : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin n → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussianPi n = 0) :
    ∃ Q : Matrix (Fin n) (Fin n) ℝ, Q ∈ Matrix.orthogonalGroup (Fin n) ℝ ∧
      ∑ j, ∫ z, (h z j - ∑ i, Q j i * z i) ^ 2 ∂stdGaussianPi n ≤
        alignmentGap ρ h / (2 * ρ * (1 - ρ)) + linearWhiteningError h := by
  obtain ⟨Q, hQ, hP⟩ := procrustes_polar n (linearPart h)
  refine ⟨Q, mem_orthogonalGroup_of_mul_transpose hQ, ?_⟩
  choose R hR0 hq hgap using fun j => centred_coord ρ hρ0 hρ1 h hL2 hc j
  have hN : ∀ j, ∫ z, (h z j - ∑ i, linearPart h j i * z i) ^ 2 ∂stdGaussianPi n = R j := by
    intro j
    rw [hq j (fun i => linearPart h j i)]
    simp [linearPart_apply]
  have hD := nonlinear_energy_le ρ hρ0 hρ1 h hL2 hc
  rw [Finset.sum_congr rfl fun j _ => hN j] at hD
  have hQj : ∀ j, ∫ z, (h z j - ∑ i, Q j i * z i) ^ 2 ∂stdGaussianPi n =
      ∑ i, (linearPart h j i - Q j i) ^ 2 + R j := by
    intro j
    rw [hq j (fun i => Q j i)]
    simp only [linearPart_apply]
  rw [Finset.sum_congr rfl fun j _ => hQj j, Finset.sum_add_distrib]
  unfold linearWhiteningError
  linarith

end LeJEPA
