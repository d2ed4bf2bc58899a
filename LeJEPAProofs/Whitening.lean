/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.HermiteConsequences

/-!
# Whitening: from second moments to orthonormal rows

## Main statements

* `LeJEPA.IsWhitened.integral_sq`: a whitened coordinate has unit second moment.
* `LeJEPA.mul_transpose_eq_one_of_sum_sq`: if `‖Wᵀ v‖² = ‖v‖²` for every `v` then `W Wᵀ = I`.
* `LeJEPA.sum_sq_of_ae_linear`: if a whitened `h` equals `W z` almost surely, then
  `‖Wᵀ v‖² = ‖v‖²` for every `v` (so `W Wᵀ = I`: `W` has orthonormal rows).
* `LeJEPA.whitened_coord`: the spectral data of one coordinate of a whitened encoder.

## Implementation notes

Orthonormality of the rows is obtained by polarization with the test vectors `eⱼ` and
`eⱼ + eₖ`, written as `if`-indicators to keep the finite-sum algebra elementary
(`Finset.sum_eq_single`, `Finset.sum_add_distrib`, `Finset.mul_sum`).
`Matrix.mul_apply`, `Matrix.one_apply`, `Matrix.transpose_apply` are in
`Mathlib/Data/Matrix/Mul.lean` and `Mathlib/Data/Matrix/Basic.lean`.

## References

* THEORY.md, proof of T1 ("`Cov h = A Aᵀ = I` makes `A` orthogonal").
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- `∑ₖ [k = j] xₖ = xⱼ`. -/
theorem sum_indicator_mul {m : ℕ} (j : Fin m) (x : Fin m → ℝ) :
    ∑ k, (if k = j then (1 : ℝ) else 0) * x k = x j := by
  first
    | rw [Finset.sum_eq_single j]
      · simp
      · intro b _ hb
        simp [hb]
      · intro hj
        exact absurd (Finset.mem_univ j) hj
    | (simp; done)

/-- `∑ₖ [k = j]² = 1`. -/
theorem sum_indicator_sq {m : ℕ} (j : Fin m) :
    ∑ k, (if k = j then (1 : ℝ) else 0) ^ 2 = 1 := by
  first
    | rw [Finset.sum_eq_single j]
      · simp
      · intro b _ hb
        simp [hb]
      · intro hj
        exact absurd (Finset.mem_univ j) hj
    | (simp; done)

/-- `∑ₗ ([l = j] + [l = k])² = 2` for `j ≠ k`. -/
theorem sum_pair_indicator_sq {m : ℕ} {j k : Fin m} (hjk : j ≠ k) :
    ∑ l, ((if l = j then (1 : ℝ) else 0) + (if l = k then 1 else 0)) ^ 2 = 2 := by
  have hterm : ∀ l : Fin m, ((if l = j then (1 : ℝ) else 0) + (if l = k then 1 else 0)) ^ 2 =
      (if l = j then (1 : ℝ) else 0) * 1 + (if l = k then (1 : ℝ) else 0) * 1 := by
    intro l
    by_cases h1 : l = j
    · have h2 : ¬l = k := fun h2 => hjk (h1.symm.trans h2)
      rw [if_pos h1, if_neg h2]
      ring1
    · by_cases h2 : l = k
      · rw [if_neg h1, if_pos h2]
        ring1
      · rw [if_neg h1, if_neg h2]
        ring1
  rw [Finset.sum_congr rfl fun l _ => hterm l, Finset.sum_add_distrib,
    sum_indicator_mul j (fun _ => 1), sum_indicator_mul k (fun _ => 1)]
  norm_num

/-- A whitened coordinate has unit second moment: `E hⱼ² = 1`. -/
theorem IsWhitened.integral_sq {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hw : IsWhitened h)
    (j : Fin m) : ∫ z, h z j ^ 2 ∂stdGaussian n = 1 := by
  have := hw.2 (fun k => if k = j then 1 else 0)
  first
    | (simp only [sum_indicator_mul, sum_indicator_sq] at this; exact this)
    | simpa [sum_indicator_mul, sum_indicator_sq] using this

/-- **Polarization.** If `‖Wᵀ v‖² = ‖v‖²` for every `v ∈ ℝᵐ`, then `W Wᵀ = I_m`. -/
theorem mul_transpose_eq_one_of_sum_sq {m n : ℕ} (W : Matrix (Fin m) (Fin n) ℝ)
    (hW : ∀ v : Fin m → ℝ, ∑ i, (∑ j, v j * W j i) ^ 2 = ∑ j, v j ^ 2) :
    W * W.transpose = 1 := by
  have hrow : ∀ j, ∑ i, W j i ^ 2 = 1 := by
    intro j
    have := hW (fun k => if k = j then 1 else 0)
    simp only [sum_indicator_mul, sum_indicator_sq] at this
    exact this
  have hpair : ∀ j k, j ≠ k → ∑ i, W j i * W k i = 0 := by
    intro j k hjk
    have := hW (fun l => (if l = j then 1 else 0) + (if l = k then 1 else 0))
    simp only [add_mul, Finset.sum_add_distrib, sum_indicator_mul,
      sum_pair_indicator_sq hjk] at this
    have hexp : ∑ i, (W j i + W k i) ^ 2 =
        ∑ i, W j i ^ 2 + ∑ i, W k i ^ 2 + 2 * ∑ i, W j i * W k i := by
      rw [Finset.mul_sum, ← Finset.sum_add_distrib, ← Finset.sum_add_distrib]
      exact Finset.sum_congr rfl fun i _ => by ring
    linarith [hrow j, hrow k]
  ext j k
  rw [Matrix.mul_apply, Matrix.one_apply]
  simp only [Matrix.transpose_apply]
  by_cases hjk : j = k
  · rw [if_pos hjk, ← hjk, ← hrow j]
    exact Finset.sum_congr rfl fun i _ => (sq (W j i)).symm
  · rw [if_neg hjk]
    exact hpair j k hjk

/-- If a whitened encoder is almost surely linear, `h(z) = W z`, then `‖Wᵀ v‖² = ‖v‖²` for
every `v` (this uses `E⟨w, z⟩² = ‖w‖²`). -/
theorem sum_sq_of_ae_linear {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hw : IsWhitened h)
    (W : Matrix (Fin m) (Fin n) ℝ)
    (hW : ∀ᵐ z ∂stdGaussian n, ∀ j, h z j = ∑ i, W j i * z i) (v : Fin m → ℝ) :
    ∑ i, (∑ j, v j * W j i) ^ 2 = ∑ j, v j ^ 2 := by
  rw [← hw.2 v, ← integral_sq_linear n (fun i => ∑ j, v j * W j i)]
  apply integral_congr_ae
  filter_upwards [hW] with z hz
  simp only [hz]
  congr 1
  simp only [Finset.sum_mul, Finset.mul_sum]
  first
    | rw [Finset.sum_comm]
      exact Finset.sum_congr rfl fun a _ => Finset.sum_congr rfl fun b _ => by ring
    | exact Finset.sum_comm.trans
        (Finset.sum_congr rfl fun a _ => Finset.sum_congr rfl fun b _ => by ring)

/-- **One coordinate of a whitened encoder.** For whitened square-integrable `h`, each
coordinate `hⱼ` has an energy `R ≥ 0` above degree one such that its degree-one energy is
`‖aⱼ‖² = 1 - R`, `E (hⱼ - ⟨q, z⟩)² = ‖aⱼ - q‖² + R`, its alignment loss lies between
`2(1-ρ) + 2ρ(1-ρ) R` and `2(1-ρ) + 2ρ R`, and `R = 0` forces `hⱼ = ⟨aⱼ, z⟩` a.e. -/
theorem whitened_coord {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h) (hw : IsWhitened h) (j : Fin m) :
    ∃ R : ℝ, 0 ≤ R ∧
      ∑ i, linearCoeff (fun z => h z j) i ^ 2 = 1 - R ∧
      (∀ q : Fin n → ℝ, ∫ z, (h z j - ∑ i, q i * z i) ^ 2 ∂stdGaussian n =
        ∑ i, (linearCoeff (fun z => h z j) i - q i) ^ 2 + R) ∧
      2 * (1 - ρ) + 2 * (ρ * (1 - ρ)) * R ≤
        ∫ p, (h (ouMap ρ p) j - h p.1 j) ^ 2 ∂ouPair n ∧
      ∫ p, (h (ouMap ρ p) j - h p.1 j) ^ 2 ∂ouPair n ≤ 2 * (1 - ρ) + 2 * ρ * R ∧
      (R = 0 → ∀ᵐ z ∂stdGaussian n, h z j = ∑ i, linearCoeff (fun z => h z j) i * z i) := by
  obtain ⟨R, hR0, hq, hsq, hlo, hhi, hlin⟩ :=
    coord_spectral (fun z => h z j) (hL2 j) ρ hρ0 hρ1
  have hc : ∫ z, h z j ∂stdGaussian n = 0 := hw.1 j
  have h1 : ∫ z, h z j ^ 2 ∂stdGaussian n = 1 := hw.integral_sq j
  have hA : ∑ i, linearCoeff (fun z => h z j) i ^ 2 = 1 - R := by
    rw [hc] at hsq
    linarith
  refine ⟨R, hR0, hA, fun q => ?_, ?_, ?_, fun hR => ?_⟩
  · rw [hq q, hc]
    ring
  · rw [hA] at hlo
    linarith
  · rw [hA] at hhi
    linarith
  · filter_upwards [hlin hR] with z hz
    rw [hz, hc, zero_add]

end LeJEPA
