/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.HermiteConsequences
import LeJEPAProofs.ForMathlib.Matrix

/-!
# Whitening: from second moments to orthonormal rows

## Main statements

* `LeJEPA.IsWhitened.integral_sq`: a whitened coordinate has unit second moment.
* `LeJEPA.sum_sq_of_ae_linear`: if a whitened `h` equals `W z` almost surely, then
  `‖Wᵀ v‖² = ‖v‖²` for every `v` (so `W Wᵀ = I` by `LeJEPA.mul_transpose_eq_one_of_sum_sq`:
  `W` has orthonormal rows).
* `LeJEPA.whitened_coord`: the spectral data of one coordinate of a whitened encoder.

## References

* docs/THEORY.md, proof of T1 ("`Cov h = A Aᵀ = I` makes `A` orthogonal").
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- A whitened coordinate has unit second moment: `E hⱼ² = 1`. -/
theorem IsWhitened.integral_sq {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hw : IsWhitened h)
    (j : Fin m) : ∫ z, h z j ^ 2 ∂stdGaussianPi n = 1 := by
  have h1 := hw.2 (fun k => if k = j then 1 else 0)
  simp only [sum_indicator_mul, sum_indicator_sq] at h1
  exact h1

/-- If a whitened encoder is almost surely linear, `h(z) = W z`, then `‖Wᵀ v‖² = ‖v‖²` for
every `v` (this uses `E⟨w, z⟩² = ‖w‖²`). -/
theorem sum_sq_of_ae_linear {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hw : IsWhitened h)
    (W : Matrix (Fin m) (Fin n) ℝ)
    (hW : ∀ᵐ z ∂stdGaussianPi n, ∀ j, h z j = ∑ i, W j i * z i) (v : Fin m → ℝ) :
    ∑ i, (∑ j, v j * W j i) ^ 2 = ∑ j, v j ^ 2 := by
  rw [← hw.2 v, ← integral_sq_linear n (fun i => ∑ j, v j * W j i)]
  apply integral_congr_ae
  filter_upwards [hW] with z hz
  simp only [hz]
  congr 1
  simp only [Finset.sum_mul, Finset.mul_sum]
  rw [Finset.sum_comm]
  exact Finset.sum_congr rfl fun a _ => Finset.sum_congr rfl fun b _ => by ring

/-- **One coordinate of a whitened encoder.** For whitened square-integrable `h`, each
coordinate `hⱼ` has an energy `R ≥ 0` above degree one such that its degree-one energy is
`‖aⱼ‖² = 1 - R`, `E (hⱼ - ⟨q, z⟩)² = ‖aⱼ - q‖² + R`, its alignment loss lies between
`2(1-ρ) + 2ρ(1-ρ) R` and `2(1-ρ) + 2ρ R`, and `R = 0` forces `hⱼ = ⟨aⱼ, z⟩` a.e. -/
theorem whitened_coord {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h) (hw : IsWhitened h) (j : Fin m) :
    ∃ R : ℝ, 0 ≤ R ∧
      ∑ i, linearCoeff (fun z => h z j) i ^ 2 = 1 - R ∧
      (∀ q : Fin n → ℝ, ∫ z, (h z j - ∑ i, q i * z i) ^ 2 ∂stdGaussianPi n =
        ∑ i, (linearCoeff (fun z => h z j) i - q i) ^ 2 + R) ∧
      2 * (1 - ρ) + 2 * (ρ * (1 - ρ)) * R ≤
        ∫ p, (h (ouMap ρ p) j - h p.1 j) ^ 2 ∂ouPair n ∧
      ∫ p, (h (ouMap ρ p) j - h p.1 j) ^ 2 ∂ouPair n ≤ 2 * (1 - ρ) + 2 * ρ * R ∧
      (R = 0 → ∀ᵐ z ∂stdGaussianPi n, h z j = ∑ i, linearCoeff (fun z => h z j) i * z i) := by
  obtain ⟨R, hR0, hq, hsq, hlo, hhi, hlin⟩ :=
    coord_spectral (fun z => h z j) (hL2 j) ρ hρ0 hρ1
  have hc : ∫ z, h z j ∂stdGaussianPi n = 0 := hw.1 j
  have h1 : ∫ z, h z j ^ 2 ∂stdGaussianPi n = 1 := hw.integral_sq j
  have hA : ∑ i, linearCoeff (fun z => h z j) i ^ 2 = 1 - R := by
    rw [hc] at hsq
    linarith
  refine ⟨R, hR0, hA, fun q => ?_, ?_, ?_, fun hR => ?_⟩
  · rw [hq q, hc]
    ring
  · rw [hA] at hlo
    nlinarith
  · rw [hA] at hhi
    linarith
  · filter_upwards [hlin hR] with z hz
    have hz' : h z j =
        (∫ w, h w j ∂stdGaussianPi n) + ∑ i, linearCoeff (fun z => h z j) i * z i := hz
    rw [hz', hc, zero_add]

end LeJEPA
