/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Whitening

/-!
# T1: forward identifiability, and its `m ≠ n` form (partial rotations)

## Main statements

* `LeJEPA.alignmentLoss_ge_of_whitened`: for any whitened square-integrable `h : ℝⁿ → ℝᵐ`,
  `L(h) ≥ 2m(1-ρ)`.
* `LeJEPA.alignmentLoss_eq_iff_linear`: equality holds iff `h(z) = W z` almost surely for a
  matrix with orthonormal rows, `W Wᵀ = I_m` (for `m < n` a partial rotation).
* `LeJEPA.forward_identifiability` (**T1**): for `m = n`, `L(h) ≥ 2n(1-ρ)`, with equality iff
  `h(z) = Q z` almost surely for an orthogonal `Q ∈ Matrix.orthogonalGroup (Fin n) ℝ`.
* `LeJEPA.top_eigenvalues_output_dim` (**M1**, relaxed form): the whitened optimum over
  `h : ℝⁿ → ℝᵐ` attains the degree-one value `2m(1-ρ)` exactly on the maps `z ↦ W z` with
  `W Wᵀ = I_m`. For `m > n` that value is not attainable: the lower bound
  `2n(1-ρ) + 2(m-n)(1-ρ²)`, the loss of THEORY.md's relaxed optimum, is
  `LeJEPA.alignmentLoss_ge_output_dim` (`OutputDimension.lean`).

## Implementation notes

No isometry, invertibility or smoothness is assumed: the hypotheses are square integrability
and whitening only. The proof is THEORY.md's: each coordinate's loss is at least
`2(1-ρ)` plus `2ρ(1-ρ)` times its energy above degree one (`LeJEPA.whitened_coord`);
equality kills every degree `≥ 2`, completeness makes `h` linear, and whitening makes the
rows of the matrix orthonormal (`LeJEPA.mul_transpose_eq_one_of_sum_sq`).
`Matrix.mem_orthogonalGroup_iff` is in `Mathlib/LinearAlgebra/UnitaryGroup.lean`;
`LeJEPA.mem_orthogonalGroup_of_mul_transpose` in `LeJEPAProofs/ForMathlib/Matrix.lean`.

## References

* docs/THEORY.md, T1 and "Beyond the paper: output dimension m ≠ n".
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- `∑ⱼ 2(1-ρ) = 2m(1-ρ)` over `Fin m`. -/
theorem sum_const_two_one_sub (m : ℕ) (ρ : ℝ) :
    ∑ _j : Fin m, (2 : ℝ) * (1 - ρ) = 2 * m * (1 - ρ) := by
  rw [Finset.sum_const, Finset.card_univ, Fintype.card_fin, nsmul_eq_mul]
  ring

/-- **Loss lower bound.** A whitened square-integrable `h : ℝⁿ → ℝᵐ` has
`L(h) ≥ 2m(1-ρ)`. -/
theorem alignmentLoss_ge_of_whitened {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h) (hw : IsWhitened h) :
    2 * m * (1 - ρ) ≤ alignmentLoss ρ h := by
  have hj : ∀ j, 2 * (1 - ρ) ≤ ∫ p, (h (ouMap ρ p) j - h p.1 j) ^ 2 ∂ouPair n := by
    intro j
    obtain ⟨R, hR0, -, -, hlo, -, -⟩ := whitened_coord ρ hρ0 hρ1 h hL2 hw j
    have hpos : 0 ≤ 2 * (ρ * (1 - ρ)) * R :=
      mul_nonneg (mul_nonneg zero_le_two (mul_nonneg hρ0.le (by linarith))) hR0
    linarith
  rw [← sum_const_two_one_sub m ρ]
  unfold alignmentLoss
  exact Finset.sum_le_sum fun j _ => hj j

/-- **Equality case for any output dimension.** For whitened square-integrable
`h : ℝⁿ → ℝᵐ`, `L(h) = 2m(1-ρ)` iff `h(z) = W z` almost surely for some `W` with
orthonormal rows (`W Wᵀ = I_m`). -/
theorem alignmentLoss_eq_iff_linear {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h) (hw : IsWhitened h) :
    alignmentLoss ρ h = 2 * m * (1 - ρ) ↔
      ∃ W : Matrix (Fin m) (Fin n) ℝ, W * W.transpose = 1 ∧
        ∀ᵐ z ∂stdGaussianPi n, ∀ j, h z j = ∑ i, W j i * z i := by
  choose R hR0 _hA hq hlo hhi hlin using fun j => whitened_coord ρ hρ0 hρ1 h hL2 hw j
  constructor
  · intro hL
    have hsum : ∑ j, (2 * (1 - ρ) + 2 * (ρ * (1 - ρ)) * R j) ≤ alignmentLoss ρ h := by
      unfold alignmentLoss
      exact Finset.sum_le_sum fun j _ => hlo j
    have hsplit : ∑ j, (2 * (1 - ρ) + 2 * (ρ * (1 - ρ)) * R j) =
        2 * m * (1 - ρ) + 2 * (ρ * (1 - ρ)) * ∑ j, R j := by
      rw [Finset.sum_add_distrib, sum_const_two_one_sub, Finset.mul_sum]
    rw [hsplit, hL] at hsum
    have hpos : 0 < 2 * (ρ * (1 - ρ)) := by
      have := mul_pos hρ0 (sub_pos.2 hρ1)
      linarith
    have hRsum : ∑ j, R j ≤ 0 := by
      by_contra hcon
      have := mul_pos hpos (not_le.1 hcon)
      linarith
    have hRj : ∀ j, R j = 0 := fun j => by
      have := Finset.single_le_sum (fun k _ => hR0 k) (Finset.mem_univ j)
      linarith [hR0 j]
    have hae : ∀ᵐ z ∂stdGaussianPi n, ∀ j,
        h z j = ∑ i, linearCoeff (fun z => h z j) i * z i :=
      ae_all_iff.2 fun j => hlin j (hRj j)
    refine ⟨fun j i => linearCoeff (fun z => h z j) i, ?_, hae⟩
    exact mul_transpose_eq_one_of_sum_sq _ (sum_sq_of_ae_linear hw _ hae)
  · rintro ⟨W, -, hW⟩
    have hRj : ∀ j, R j = 0 := by
      intro j
      have hae : (fun z => (h z j - ∑ i, W j i * z i) ^ 2) =ᵐ[stdGaussianPi n]
          fun _ => (0 : ℝ) := by
        filter_upwards [hW] with z hz
        simp [hz j]
      have h0 : ∫ z, (h z j - ∑ i, W j i * z i) ^ 2 ∂stdGaussianPi n = 0 := by
        rw [integral_congr_ae hae]
        simp
      have hqj := hq j (fun i => W j i)
      have hs : 0 ≤ ∑ i, (linearCoeff (fun z => h z j) i - W j i) ^ 2 :=
        Finset.sum_nonneg fun i _ => sq_nonneg _
      linarith [hR0 j]
    have hLj : ∀ j, ∫ p, (h (ouMap ρ p) j - h p.1 j) ^ 2 ∂ouPair n = 2 * (1 - ρ) := by
      intro j
      have h1 := hlo j
      have h2 := hhi j
      rw [hRj j] at h1 h2
      linarith
    unfold alignmentLoss
    rw [Finset.sum_congr rfl fun j _ => hLj j, sum_const_two_one_sub]

/-- **T1 (forward identifiability).** Let `h : ℝⁿ → ℝⁿ` be square integrable and whitened
(`E h = 0`, `Cov h = I_n`) and `0 < ρ < 1`. Then `L(h) ≥ 2n(1-ρ)`, with equality iff
`h(z) = Q z` for `γ_n`-almost every `z`, for an orthogonal matrix `Q`. -/
theorem forward_identifiability {n : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin n → ℝ) (hL2 : SquareIntegrable h) (hw : IsWhitened h) :
    2 * n * (1 - ρ) ≤ alignmentLoss ρ h ∧
      (alignmentLoss ρ h = 2 * n * (1 - ρ) ↔
        ∃ Q : Matrix (Fin n) (Fin n) ℝ, Q ∈ Matrix.orthogonalGroup (Fin n) ℝ ∧
          ∀ᵐ z ∂stdGaussianPi n, ∀ j, h z j = ∑ i, Q j i * z i) := by
  refine ⟨alignmentLoss_ge_of_whitened ρ hρ0 hρ1 h hL2 hw, ?_⟩
  rw [alignmentLoss_eq_iff_linear ρ hρ0 hρ1 h hL2 hw]
  constructor
  · rintro ⟨Q, hQ, hae⟩
    exact ⟨Q, mem_orthogonalGroup_of_mul_transpose hQ, hae⟩
  · rintro ⟨Q, -, hae⟩
    have hQ : Q * Q.transpose = 1 :=
      mul_transpose_eq_one_of_sum_sq _ (sum_sq_of_ae_linear hw _ hae)
    exact ⟨Q, hQ, hae⟩

/-- **M1 (output dimension `m ≠ n`, second-moment relaxation).** For every `m` and `n`, the
whitened square-integrable encoders `h : ℝⁿ → ℝᵐ` satisfy `L(h) ≥ 2m(1-ρ)`, and the value
`2m(1-ρ)` (all output energy on the top Mehler eigenvalue `ρ` of degree one) is attained
exactly by the almost surely linear maps `h(z) = W z` with `W Wᵀ = I_m`; for `m < n` these are
partial rotations. -/
theorem top_eigenvalues_output_dim {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h) (hw : IsWhitened h) :
    2 * m * (1 - ρ) ≤ alignmentLoss ρ h ∧
      (alignmentLoss ρ h = 2 * m * (1 - ρ) ↔
        ∃ W : Matrix (Fin m) (Fin n) ℝ, W * W.transpose = 1 ∧
          ∀ᵐ z ∂stdGaussianPi n, ∀ j, h z j = ∑ i, W j i * z i) :=
  ⟨alignmentLoss_ge_of_whitened ρ hρ0 hρ1 h hL2 hw,
    alignmentLoss_eq_iff_linear ρ hρ0 hρ1 h hL2 hw⟩

end LeJEPA
