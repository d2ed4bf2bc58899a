/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.SpectralCore

/-!
# P5: anisotropic rates and the eigenvalue-interleaving condition

With per-coordinate correlations `ρᵢ = exp(-κᵢ τ)` the OU channel has Mehler eigenvalues
`ρ^α = ∏ᵢ ρᵢ^{αᵢ}` on the Hermite polynomials `H_α`. Whitened minimizers of the alignment loss
over `h : ℝⁿ → ℝⁿ` span the eigenfunctions of the `n` largest eigenvalues with `|α| ≥ 1` (Ky
Fan); they are linear iff those are the `n` degree-one eigenvalues `ρ₁, …, ρₙ`.

## Main statements

* `LeJEPA.linear_eigenvalues_top_iff`: every degree-one eigenvalue exceeds every eigenvalue
  of degree `≥ 2` iff `min ρᵢ > max ρⱼ²` (written `∀ i j, ρⱼ² < ρᵢ`).
* `LeJEPA.interleaving_iff_rate_ratio`: for `ρᵢ = exp(-κᵢ τ)`, `τ > 0`:
  `min ρᵢ > max ρⱼ² ⇔ κ_max < 2 κ_min` (written `∀ i j, κᵢ < 2 κⱼ`).
* `LeJEPA.linear_optimum_iff_rate_ratio` (**P5**): the degree-one eigenvalues are the top `n`
  (so the whitened optimum is linear) iff the fastest latent is less than twice as fast as the
  slowest.

## Implementation notes

The Ky Fan step (minimizers of the whitened loss span the top eigenfunctions) is classical and
is not formalized here; the statements above are the eigenvalue-order condition THEORY.md
reduces P5 to. `Finset.exists_max_image`, `Finset.prod_le_prod`, `Finset.prod_pow_eq_pow_sum`,
`Finset.prod_eq_single`, `Real.exp_lt_exp`, `Real.exp_add` are in Mathlib
(`Mathlib/Algebra/Order/BigOperators/Ring/Finset.lean`, `Mathlib/Algebra/BigOperators/Basic.lean`,
`Mathlib/Analysis/SpecialFunctions/Exp.lean`).

## References

* THEORY.md, P5.
-/

namespace LeJEPA

/-- **Degree-one eigenvalues on top.** For `0 < ρᵢ < 1`, every degree-one Mehler eigenvalue
`ρᵢ` exceeds every eigenvalue `∏ₖ ρₖ^{αₖ}` of degree `|α| ≥ 2` iff `ρⱼ² < ρᵢ` for all `i, j`. -/
theorem linear_eigenvalues_top_iff {n : ℕ} (ρ : Fin n → ℝ) (h0 : ∀ i, 0 < ρ i)
    (h1 : ∀ i, ρ i < 1) :
    (∀ (i : Fin n) (α : Fin n → ℕ), 2 ≤ ∑ k, α k → ∏ k, ρ k ^ α k < ρ i) ↔
      ∀ i j, ρ j ^ 2 < ρ i := by
  constructor
  · intro h i j
    have hprod : ∏ k, ρ k ^ (if k = j then 2 else 0 : ℕ) = ρ j ^ 2 := by
      first
        | rw [Finset.prod_eq_single j]
          · simp
          · intro b _ hb
            simp [hb]
          · intro hj
            exact absurd (Finset.mem_univ j) hj
        | (simp; done)
    have hsum : ∑ k, (if k = j then 2 else 0 : ℕ) = 2 := by
      first
        | rw [Finset.sum_eq_single j]
          · simp
          · intro b _ hb
            simp [hb]
          · intro hj
            exact absurd (Finset.mem_univ j) hj
        | (simp; done)
    calc ρ j ^ 2 = ∏ k, ρ k ^ (if k = j then 2 else 0 : ℕ) := hprod.symm
      _ < ρ i := h i (fun k => if k = j then 2 else 0) hsum.ge
  · intro h i α hα
    obtain ⟨j0, -, hj0⟩ := Finset.exists_max_image Finset.univ ρ ⟨i, Finset.mem_univ i⟩
    have hle : ∏ k, ρ k ^ α k ≤ ∏ k, ρ j0 ^ α k :=
      Finset.prod_le_prod (fun k _ => pow_nonneg (h0 k).le _)
        (fun k _ => pow_le_pow_of_le (h0 k).le (hj0 k (Finset.mem_univ k)) _)
    rw [Finset.prod_pow_eq_pow_sum] at hle
    obtain ⟨t, ht⟩ := Nat.exists_eq_add_of_le hα
    have hpow : ρ j0 ^ (∑ k, α k) ≤ ρ j0 ^ 2 := by
      rw [ht, add_comm]
      exact pow_add_two_le_sq (h0 j0).le (h1 j0).le t
    exact lt_of_le_of_lt (hle.trans hpow) (h i j0)

/-- **Interleaving ⇔ rate ratio.** For `ρᵢ = exp(-κᵢ τ)` with `τ > 0`:
`ρⱼ² < ρᵢ` for all `i, j` iff `κᵢ < 2 κⱼ` for all `i, j`, i.e. `κ_max < 2 κ_min`. -/
theorem interleaving_iff_rate_ratio {n : ℕ} (κ : Fin n → ℝ) {τ : ℝ} (hτ : 0 < τ) :
    (∀ i j, Real.exp (-(κ j * τ)) ^ 2 < Real.exp (-(κ i * τ))) ↔ ∀ i j, κ i < 2 * κ j := by
  have key : ∀ i j, (Real.exp (-(κ j * τ)) ^ 2 < Real.exp (-(κ i * τ)) ↔ κ i < 2 * κ j) := by
    intro i j
    rw [sq, ← Real.exp_add, Real.exp_lt_exp]
    constructor
    · intro hlt
      by_contra hcon
      have hge : 2 * κ j ≤ κ i := not_lt.1 hcon
      have := mul_le_mul_of_nonneg_right hge hτ.le
      linarith
    · intro hlt
      have := mul_lt_mul_of_pos_right hlt hτ
      linarith
  exact forall_congr' fun i => forall_congr' fun j => key i j

/-- **P5 (anisotropic rates).** Let `ρᵢ = exp(-κᵢ τ)` with `κᵢ > 0` and `τ > 0`. The `n`
degree-one Mehler eigenvalues are strictly larger than every eigenvalue of degree `≥ 2`, so
that the whitened minimizers of the alignment loss are linear, iff `κᵢ < 2 κⱼ` for all `i, j`:
the fastest latent is less than twice as fast as the slowest. -/
theorem linear_optimum_iff_rate_ratio {n : ℕ} (κ : Fin n → ℝ) (hκ : ∀ i, 0 < κ i) {τ : ℝ}
    (hτ : 0 < τ) :
    (∀ (i : Fin n) (α : Fin n → ℕ), 2 ≤ ∑ k, α k →
        ∏ k, Real.exp (-(κ k * τ)) ^ α k < Real.exp (-(κ i * τ))) ↔
      ∀ i j, κ i < 2 * κ j := by
  have h0 : ∀ i, 0 < Real.exp (-(κ i * τ)) := fun i => Real.exp_pos _
  have h1 : ∀ i, Real.exp (-(κ i * τ)) < 1 := fun i => by
    have hpos := mul_pos (hκ i) hτ
    first
      | (rw [Real.exp_lt_one]; linarith)
      | (rw [← Real.exp_zero]; exact Real.exp_lt_exp.2 (by linarith))
  first
    | exact (linear_eigenvalues_top_iff (fun i => Real.exp (-(κ i * τ))) h0 h1).trans
        (interleaving_iff_rate_ratio κ hτ)
    | (rw [linear_eigenvalues_top_iff (fun i => Real.exp (-(κ i * τ))) h0 h1]
       exact interleaving_iff_rate_ratio κ hτ)

end LeJEPA
