/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.ForMathlib.Orthonormal

/-!
# The Procrustes inequality for the polar factor, from the spectral theorem

## Main statements

* `LeJEPA.sq_sub_one_le_sq_sq_sub_one`: `(σ - 1)² ≤ (σ² - 1)²` for `σ ≥ 0`.
* `LeJEPA.procrustes_polar`: every real `n × n` matrix `A` has an orthogonal `Q` (its polar
  factor) with `‖A - Q‖²_F ≤ ‖A Aᵀ - I‖²_F`.

## Implementation notes

This used to be an axiom. The proof uses the spectral theorem for the symmetric matrix `A Aᵀ`
instead of a singular value decomposition, which Mathlib does not have:

* `A Aᵀ uᵢ = λᵢ uᵢ` for an orthonormal basis `u₀, …, u_{n-1}`
  (`LeJEPA.exists_orthonormal_eigenvectors`);
* the vectors `cᵢ = Aᵀ uᵢ` are pairwise orthogonal, `⟨cᵢ, cⱼ⟩ = λⱼ δᵢⱼ`, so `‖cᵢ‖² = λᵢ ≥ 0`,
  and they complete to an orthonormal basis `w₀, …, w_{n-1}` with `⟨cᵢ, wᵢ⟩ = ‖cᵢ‖`
  (`LeJEPA.exists_orthonormal_completion`: `wᵢ = cᵢ / ‖cᵢ‖` where `cᵢ ≠ 0`);
* `Q = ∑ᵢ uᵢ wᵢᵀ` is orthogonal and `Qᵀ uᵢ = wᵢ`, so by Parseval in the basis `u`
  `‖A - Q‖²_F = ∑ᵢ ‖cᵢ - wᵢ‖² = ∑ᵢ (σᵢ - 1)²` with `σᵢ = ‖cᵢ‖ = √λᵢ`, while
  `‖A Aᵀ - I‖²_F = ∑ᵢ ‖(A Aᵀ - I) uᵢ‖² = ∑ᵢ (λᵢ - 1)² = ∑ᵢ (σᵢ² - 1)²`;
* `(σ - 1)² ≤ (σ² - 1)²` for `σ ≥ 0`, since the difference is `σ (σ + 2) (σ - 1)²`.

Singular `A` needs no special case (`cᵢ = 0` contributes `(0 - 1)² = 1` on both sides), nor does
`n = 0` (both sides are `0`). The Python test
`tests/numerics/test_t3.py::test_axiom_procrustes_polar` stays as a numerical cross-check.

## References

* P. H. Schönemann, *A generalized solution of the orthogonal Procrustes problem*,
  Psychometrika 31 (1966); N. J. Higham, *Functions of Matrices* (SIAM 2008), Ch. 8;
  R. A. Horn, C. R. Johnson, *Matrix Analysis*, 2nd ed., Thm 7.3.1 (polar form).
-/

namespace LeJEPA


/-- The scalar step: `(σ - 1)² ≤ (σ² - 1)²` for `σ ≥ 0`. -/
theorem sq_sub_one_le_sq_sq_sub_one {σ : ℝ} (hσ : 0 ≤ σ) : (σ - 1) ^ 2 ≤ (σ ^ 2 - 1) ^ 2 := by
  have h2 : 0 ≤ σ + 2 := by linarith
  nlinarith [mul_nonneg (mul_nonneg hσ h2) (sq_nonneg (σ - 1))]

/-- The scalar step in terms of `λ = σ²`: `λ - 2√λ + 1 ≤ (λ - 1)²` for `λ ≥ 0`. -/
theorem sub_two_mul_sqrt_add_one_le {x : ℝ} (hx : 0 ≤ x) :
    x - 2 * Real.sqrt x + 1 ≤ (x - 1) ^ 2 := by
  have hs : Real.sqrt x ^ 2 = x := Real.sq_sqrt hx
  have key := sq_sub_one_le_sq_sq_sub_one (Real.sqrt_nonneg x)
  rw [hs] at key
  nlinarith [key, hs]

/-- **Procrustes inequality for the polar factor.** Every real `n × n` matrix `A` has an
orthogonal `Q` (`Q Qᵀ = I`) with `∑ⱼᵢ (Aⱼᵢ - Qⱼᵢ)² ≤ ∑ⱼₖ ((A Aᵀ)ⱼₖ - Iⱼₖ)²`, i.e.
`‖A - Q‖²_F ≤ ‖A Aᵀ - I‖²_F`. -/
theorem procrustes_polar (n : ℕ) (A : Matrix (Fin n) (Fin n) ℝ) :
    ∃ Q : Matrix (Fin n) (Fin n) ℝ, Q * Q.transpose = 1 ∧
      ∑ j, ∑ i, (A j i - Q j i) ^ 2 ≤
        ∑ j, ∑ k, ((A * A.transpose) j k - (1 : Matrix (Fin n) (Fin n) ℝ) j k) ^ 2 := by
  obtain ⟨u, lam, hu, heig⟩ := exists_orthonormal_eigenvectors (isHermitian_mul_transpose_self A)
  have hcomp : ∀ a b, ∑ i, u i a * u i b = if a = b then 1 else 0 :=
    sum_mul_eq_ite_of_orthonormal u hu
  have hM : ∀ a b, (A * A.transpose) a b = ∑ k, A a k * A b k := fun a b => by
    simp only [Matrix.mul_apply, Matrix.transpose_apply]
  -- `cᵢ = Aᵀ uᵢ`: pairwise orthogonal, `‖cᵢ‖² = λᵢ`
  obtain ⟨c, hc⟩ : ∃ c : Fin n → Fin n → ℝ, ∀ i k, c i k = ∑ a, A a k * u i a :=
    ⟨fun i k => ∑ a, A a k * u i a, fun _ _ => rfl⟩
  have hcc : ∀ i j, ∑ k, c i k * c j k = lam j * (if i = j then 1 else 0) := by
    intro i j
    calc ∑ k, c i k * c j k
        = ∑ k, (∑ a, A a k * u i a) * (∑ b, A b k * u j b) := by simp only [hc]
      _ = ∑ a, u i a * ∑ b, (∑ k, A a k * A b k) * u j b := sum_sum_mul_exchange A A (u i) (u j)
      _ = ∑ a, u i a * (lam j * u j a) := by
          refine Finset.sum_congr rfl fun a _ => ?_
          rw [← heig j a]
          simp only [hM]
      _ = lam j * (if i = j then 1 else 0) := by
          rw [← hu i j, Finset.mul_sum]
          exact Finset.sum_congr rfl fun a _ => by ring
  have hS : ∀ i, ∑ k, c i k ^ 2 = lam i := fun i => by
    have h := hcc i i
    rw [if_pos rfl, mul_one] at h
    rw [← h]
    exact Finset.sum_congr rfl fun k _ => sq _
  have horth : ∀ i j, i ≠ j → ∑ k, c i k * c j k = 0 := fun i j hij => by
    rw [hcc i j, if_neg hij, mul_zero]
  -- the orthonormal basis `w` with `⟨cᵢ, wᵢ⟩ = ‖cᵢ‖`, and `Q = ∑ᵢ uᵢ wᵢᵀ`
  obtain ⟨w, hw, hcw⟩ := exists_orthonormal_completion c horth
  obtain ⟨Q, hQ⟩ : ∃ Q : Matrix (Fin n) (Fin n) ℝ, ∀ a k, Q a k = ∑ i, w i k * u i a :=
    ⟨Matrix.of fun a k => ∑ i, w i k * u i a, fun _ _ => rfl⟩
  refine ⟨Q, ?_, ?_⟩
  · -- `Q Qᵀ = ∑ᵢ uᵢ uᵢᵀ = I`
    ext a b
    rw [Matrix.mul_apply, Matrix.one_apply]
    simp only [Matrix.transpose_apply, hQ]
    refine (sum_sum_mul_exchange w w (fun i => u i a) (fun i => u i b)).trans ?_
    simp only [hw, sum_ite_eq_mul]
    exact hcomp a b
  · -- `uᵢᵀ (A - Q) = cᵢ - wᵢ`
    have hproj : ∀ i k, ∑ a, u i a * (A a k - Q a k) = c i k - w i k := by
      intro i k
      have h1 : ∑ a, u i a * A a k = c i k := by
        rw [hc]
        exact Finset.sum_congr rfl fun a _ => mul_comm _ _
      have h2 : ∑ a, u i a * Q a k = w i k := by
        have hj : ∀ j, ∑ a, u i a * (w j k * u j a) = (if i = j then 1 else 0) * w j k := by
          intro j
          rw [← hu i j, Finset.sum_mul]
          exact Finset.sum_congr rfl fun a _ => by ring
        simp only [hQ, Finset.mul_sum]
        rw [Finset.sum_comm]
        simp only [hj, sum_ite_eq_mul]
      rw [← h1, ← h2, ← Finset.sum_sub_distrib]
      exact Finset.sum_congr rfl fun a _ => by ring
    -- `‖A - Q‖²_F = ∑ᵢ ‖cᵢ - wᵢ‖² = ∑ᵢ (λᵢ - 2√λᵢ + 1)`
    have hrow : ∀ i, ∑ k, (c i k - w i k) ^ 2 = lam i - 2 * Real.sqrt (lam i) + 1 := by
      intro i
      have e : ∑ k, (c i k - w i k) ^ 2 =
          ∑ k, c i k ^ 2 - 2 * ∑ k, c i k * w i k + ∑ k, w i k * w i k := by
        rw [Finset.mul_sum, ← Finset.sum_sub_distrib, ← Finset.sum_add_distrib]
        exact Finset.sum_congr rfl fun k _ => by ring
      rw [e, hcw i, hS i, hw i i, if_pos rfl]
    have hlhs : ∑ j, ∑ i, (A j i - Q j i) ^ 2 = ∑ i, (lam i - 2 * Real.sqrt (lam i) + 1) := by
      calc ∑ j, ∑ i, (A j i - Q j i) ^ 2
          = ∑ k, ∑ a, (A a k - Q a k) ^ 2 := Finset.sum_comm
        _ = ∑ k, ∑ i, (∑ a, u i a * (A a k - Q a k)) ^ 2 :=
            Finset.sum_congr rfl fun k _ =>
              (sum_sq_sum_mul_of_complete u hcomp fun a => A a k - Q a k).symm
        _ = ∑ i, ∑ k, (∑ a, u i a * (A a k - Q a k)) ^ 2 := Finset.sum_comm
        _ = ∑ i, ∑ k, (c i k - w i k) ^ 2 := by simp only [hproj]
        _ = ∑ i, (lam i - 2 * Real.sqrt (lam i) + 1) := Finset.sum_congr rfl fun i _ => hrow i
    -- `‖A Aᵀ - I‖²_F = ∑ᵢ ‖(A Aᵀ - I) uᵢ‖² = ∑ᵢ (λᵢ - 1)²`
    have hrhs : ∑ j, ∑ k, ((A * A.transpose) j k - (1 : Matrix (Fin n) (Fin n) ℝ) j k) ^ 2 =
        ∑ i, (lam i - 1) ^ 2 := by
      have hvec : ∀ i a, ∑ b, u i b * ((A * A.transpose) a b -
          (1 : Matrix (Fin n) (Fin n) ℝ) a b) = (lam i - 1) * u i a := by
        intro i a
        have e : ∑ b, u i b * ((A * A.transpose) a b - (1 : Matrix (Fin n) (Fin n) ℝ) a b) =
            ∑ b, (A * A.transpose) a b * u i b - ∑ b, (if a = b then 1 else 0) * u i b := by
          rw [← Finset.sum_sub_distrib]
          refine Finset.sum_congr rfl fun b _ => ?_
          rw [Matrix.one_apply]
          ring
        rw [e, heig i a, sum_ite_eq_mul]
        ring
      have hunit : ∀ i, ∑ a, ((lam i - 1) * u i a) ^ 2 = (lam i - 1) ^ 2 := by
        intro i
        have h1 := hu i i
        rw [if_pos rfl] at h1
        calc ∑ a, ((lam i - 1) * u i a) ^ 2 = (lam i - 1) ^ 2 * ∑ a, u i a * u i a := by
              rw [Finset.mul_sum]
              exact Finset.sum_congr rfl fun a _ => by ring
          _ = (lam i - 1) ^ 2 := by rw [h1, mul_one]
      calc ∑ j, ∑ k, ((A * A.transpose) j k - (1 : Matrix (Fin n) (Fin n) ℝ) j k) ^ 2
          = ∑ j, ∑ i, (∑ b, u i b * ((A * A.transpose) j b -
              (1 : Matrix (Fin n) (Fin n) ℝ) j b)) ^ 2 :=
            Finset.sum_congr rfl fun j _ => (sum_sq_sum_mul_of_complete u hcomp fun b =>
              (A * A.transpose) j b - (1 : Matrix (Fin n) (Fin n) ℝ) j b).symm
        _ = ∑ i, ∑ j, (∑ b, u i b * ((A * A.transpose) j b -
              (1 : Matrix (Fin n) (Fin n) ℝ) j b)) ^ 2 := Finset.sum_comm
        _ = ∑ i, ∑ j, ((lam i - 1) * u i j) ^ 2 := by simp only [hvec]
        _ = ∑ i, (lam i - 1) ^ 2 := Finset.sum_congr rfl fun i _ => hunit i
    -- `λᵢ - 2√λᵢ + 1 ≤ (λᵢ - 1)²` term by term
    have hlam : ∀ i, 0 ≤ lam i := fun i => by
      rw [← hS i]
      exact Finset.sum_nonneg fun k _ => sq_nonneg _
    rw [hlhs, hrhs]
    exact Finset.sum_le_sum fun i _ => sub_two_mul_sqrt_add_one_le (hlam i)

end LeJEPA
