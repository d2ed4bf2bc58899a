/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib.Analysis.Matrix.Spectrum
import Mathlib.Analysis.InnerProductSpace.PiL2
import Mathlib.LinearAlgebra.Matrix.NonsingularInverse
import Mathlib.Tactic.Linarith
import Mathlib.Tactic.Ring

/-!
# Orthonormal families of real vectors, in coordinates

Generic facts about real `n × n` arrays that are not about the paper. Everything is stated with
finite sums over `Fin n` (`∑ k, u i k * u j k = if i = j then 1 else 0` for an orthonormal
family `u₀, …, u_{n-1}`), so that the proofs that use them only manipulate sums.

## Main statements

* `LeJEPA.exists_orthonormal_eigenvectors`: a real symmetric matrix has an orthonormal basis of
  eigenvectors (Mathlib's spectral theorem, `Matrix.IsHermitian.eigenvectorBasis`).
* `LeJEPA.exists_orthonormal_completion`: pairwise orthogonal vectors `c₀, …, c_{n-1}` of `ℝⁿ`
  have an orthonormal basis `w₀, …, w_{n-1}` with `⟨cᵢ, wᵢ⟩ = ‖cᵢ‖` (Mathlib's
  `Orthonormal.exists_orthonormalBasis_extension_of_card_eq`).
* `LeJEPA.sum_mul_eq_ite_of_orthonormal`: an orthonormal family of `n` vectors of `ℝⁿ` is
  complete, `∑ᵢ uᵢ uᵢᵀ = I` (`Matrix.mul_eq_one_comm`).
* `LeJEPA.sum_sq_sum_mul_of_complete`: Parseval's identity for a complete orthonormal family.
* `LeJEPA.sum_sum_mul_exchange`: `∑ₖ (∑ₐ Fₐₖ xₐ)(∑_b G_bk y_b) = ∑ₐ xₐ ∑_b (∑ₖ Fₐₖ G_bk) y_b`.

## Implementation notes

The only places where Mathlib's `EuclideanSpace` enters are `LeJEPA.euclidean_inner_eq_sum` (its
inner product in coordinates, `PiLp.inner_apply`) and the two existence statements; the real
inner product of two reals is computed from `real_inner_smul_left`, `real_inner_smul_right` and
`real_inner_self_eq_norm_sq`, which do not depend on the order of the factors in Mathlib's
definition of the inner product of `ℝ`.

## References

* R. A. Horn, C. R. Johnson, *Matrix Analysis*, 2nd ed., Thm 2.5.6 (spectral theorem) and
  §0.6.4 (Gram–Schmidt, completion of an orthonormal set).
-/

namespace LeJEPA

/-- On `ℝ`, the inner product is the product. -/
theorem real_inner_apply_eq_mul (a b : ℝ) : @inner ℝ ℝ _ a b = a * b := by
  first
    | rw [show @inner ℝ ℝ _ a b = @inner ℝ ℝ _ (a • (1 : ℝ)) (b • (1 : ℝ)) by simp,
        real_inner_smul_left, real_inner_smul_right, real_inner_self_eq_norm_sq, norm_one,
        one_pow, mul_one]
    | (simp [RCLike.inner_apply, mul_comm]; done)
    | (simp [mul_comm]; done)

/-- The inner product of `EuclideanSpace ℝ (Fin n)` in coordinates: `⟨x, y⟩ = ∑ₖ xₖ yₖ`. -/
theorem euclidean_inner_eq_sum {n : ℕ} (x y : EuclideanSpace ℝ (Fin n)) :
    @inner ℝ _ _ x y = ∑ k, x k * y k := by
  first
    | (rw [PiLp.inner_apply]; exact Finset.sum_congr rfl fun k _ => real_inner_apply_eq_mul _ _)
    | exact Finset.sum_congr rfl fun k _ => real_inner_apply_eq_mul (x k) (y k)

/-- The inner product of two coordinate vectors, seen in `EuclideanSpace ℝ (Fin n)`. -/
theorem euclidean_inner_toLp_eq_sum {n : ℕ} (x y : Fin n → ℝ) :
    @inner ℝ (EuclideanSpace ℝ (Fin n)) _ (WithLp.toLp 2 x) (WithLp.toLp 2 y) =
      ∑ k, x k * y k :=
  euclidean_inner_eq_sum _ _

/-- `∑ⱼ [i = j] xⱼ = xᵢ`. -/
theorem sum_ite_eq_mul {ι : Type*} [Fintype ι] [DecidableEq ι] (i : ι) (x : ι → ℝ) :
    ∑ j, (if i = j then (1 : ℝ) else 0) * x j = x i := by
  rw [Finset.sum_eq_single i]
  · rw [if_pos rfl, one_mul]
  · intro j _ hj
    rw [if_neg (Ne.symm hj), zero_mul]
  · intro hi
    exact absurd (Finset.mem_univ i) hi

/-- **Exchange of a bilinear double sum:**
`∑ₖ (∑ₐ Fₐₖ xₐ)(∑_b G_bk y_b) = ∑ₐ xₐ ∑_b (∑ₖ Fₐₖ G_bk) y_b`. -/
theorem sum_sum_mul_exchange {ι κ : Type*} [Fintype ι] [Fintype κ] (F G : ι → κ → ℝ)
    (x y : ι → ℝ) :
    ∑ k, (∑ a, F a k * x a) * (∑ b, G b k * y b) =
      ∑ a, x a * ∑ b, (∑ k, F a k * G b k) * y b := by
  calc ∑ k, (∑ a, F a k * x a) * (∑ b, G b k * y b)
      = ∑ k, ∑ a, ∑ b, x a * (F a k * G b k * y b) := by
        refine Finset.sum_congr rfl fun k _ => ?_
        rw [Finset.sum_mul]
        refine Finset.sum_congr rfl fun a _ => ?_
        rw [Finset.mul_sum]
        exact Finset.sum_congr rfl fun b _ => by ring
    _ = ∑ a, ∑ k, ∑ b, x a * (F a k * G b k * y b) := Finset.sum_comm
    _ = ∑ a, ∑ b, ∑ k, x a * (F a k * G b k * y b) :=
        Finset.sum_congr rfl fun a _ => Finset.sum_comm
    _ = ∑ a, x a * ∑ b, (∑ k, F a k * G b k) * y b := by
        refine Finset.sum_congr rfl fun a _ => ?_
        rw [Finset.mul_sum]
        refine Finset.sum_congr rfl fun b _ => ?_
        rw [Finset.sum_mul, Finset.mul_sum]

/-- **Completeness.** An orthonormal family `u₀, …, u_{n-1}` of `ℝⁿ`
(`∑ₖ uᵢₖ uⱼₖ = δᵢⱼ`) satisfies `∑ᵢ uᵢₐ uᵢ_b = δₐ_b`: a square matrix with orthonormal rows has
orthonormal columns. -/
theorem sum_mul_eq_ite_of_orthonormal {n : ℕ} (u : Fin n → Fin n → ℝ)
    (hu : ∀ i j, ∑ k, u i k * u j k = if i = j then 1 else 0) (a b : Fin n) :
    ∑ i, u i a * u i b = if a = b then 1 else 0 := by
  have h1 : Matrix.of u * (Matrix.of u).transpose = 1 := by
    ext i j
    rw [Matrix.mul_apply, Matrix.one_apply]
    simp only [Matrix.transpose_apply, Matrix.of_apply]
    exact hu i j
  have h2 : (Matrix.of u).transpose * Matrix.of u = 1 := by
    first
      | exact mul_eq_one_comm.1 h1
      | exact Matrix.mul_eq_one_comm.1 h1
  have h3 := congrFun (congrFun h2 a) b
  rw [Matrix.mul_apply, Matrix.one_apply] at h3
  simp only [Matrix.transpose_apply, Matrix.of_apply] at h3
  exact h3

/-- **Parseval's identity** for a complete orthonormal family: `∑ᵢ ⟨uᵢ, x⟩² = ‖x‖²`. -/
theorem sum_sq_sum_mul_of_complete {n : ℕ} (u : Fin n → Fin n → ℝ)
    (hu : ∀ a b, ∑ i, u i a * u i b = if a = b then 1 else 0) (x : Fin n → ℝ) :
    ∑ i, (∑ a, u i a * x a) ^ 2 = ∑ a, x a ^ 2 := by
  calc ∑ i, (∑ a, u i a * x a) ^ 2
      = ∑ i, (∑ a, u i a * x a) * (∑ b, u i b * x b) :=
        Finset.sum_congr rfl fun i _ => sq _
    _ = ∑ a, x a * ∑ b, (∑ i, u i a * u i b) * x b :=
        sum_sum_mul_exchange (fun (a i : Fin n) => u i a) (fun (b i : Fin n) => u i b) x x
    _ = ∑ a, x a * x a := by
        refine Finset.sum_congr rfl fun a _ => ?_
        simp only [hu]
        rw [sum_ite_eq_mul]
    _ = ∑ a, x a ^ 2 := Finset.sum_congr rfl fun a _ => (sq _).symm

/-- A real symmetric matrix `M` has an orthonormal basis `u₀, …, u_{n-1}` of eigenvectors:
`∑ₖ uᵢₖ uⱼₖ = δᵢⱼ` and `M uᵢ = λᵢ uᵢ`. -/
theorem exists_orthonormal_eigenvectors {n : ℕ} {M : Matrix (Fin n) (Fin n) ℝ}
    (hM : M.IsHermitian) :
    ∃ (u : Fin n → Fin n → ℝ) (lam : Fin n → ℝ),
      (∀ i j, ∑ k, u i k * u j k = if i = j then 1 else 0) ∧
        ∀ i a, ∑ b, M a b * u i b = lam i * u i a := by
  refine ⟨fun i k => hM.eigenvectorBasis i k, hM.eigenvalues, fun i j => ?_, fun i a => ?_⟩
  · have h := orthonormal_iff_ite.1 hM.eigenvectorBasis.orthonormal i j
    rw [euclidean_inner_eq_sum] at h
    exact h
  · have h := congrFun (hM.mulVec_eigenvectorBasis i) a
    first
      | (change ∑ b, M a b * hM.eigenvectorBasis i b =
            hM.eigenvalues i * hM.eigenvectorBasis i a at h; exact h)
      | (simp only [Matrix.mulVec, dotProduct, Pi.smul_apply, smul_eq_mul] at h; exact h)
      | simpa [Matrix.mulVec, dotProduct] using h

/-- `A Aᵀ` is symmetric, for every real square matrix `A`. -/
theorem isHermitian_mul_transpose_self {n : ℕ} (A : Matrix (Fin n) (Fin n) ℝ) :
    (A * A.transpose).IsHermitian := by
  first
    | (have h := Matrix.isHermitian_mul_conjTranspose_self A
       rwa [Matrix.conjTranspose_eq_transpose_of_trivial] at h)
    | simpa using Matrix.isHermitian_mul_conjTranspose_self A

/-- **Orthonormal completion of an orthogonal family.** Pairwise orthogonal vectors
`c₀, …, c_{n-1}` of `ℝⁿ` have an orthonormal basis `w₀, …, w_{n-1}` of `ℝⁿ` with
`⟨cᵢ, wᵢ⟩ = ‖cᵢ‖` for every `i`: `wᵢ = cᵢ / ‖cᵢ‖` where `cᵢ ≠ 0`, and the other `wᵢ` complete
these to a basis. -/
theorem exists_orthonormal_completion {n : ℕ} (c : Fin n → Fin n → ℝ)
    (hc : ∀ i j, i ≠ j → ∑ k, c i k * c j k = 0) :
    ∃ w : Fin n → Fin n → ℝ, (∀ i j, ∑ k, w i k * w j k = if i = j then 1 else 0) ∧
      ∀ i, ∑ k, c i k * w i k = Real.sqrt (∑ k, c i k ^ 2) := by
  -- `vᵢ = cᵢ / ‖cᵢ‖` as a vector of `EuclideanSpace`, orthonormal on `{i | cᵢ ≠ 0}`.
  have hv : Orthonormal ℝ (Set.restrict {i | ∑ k, c i k ^ 2 ≠ 0} fun i =>
      (WithLp.toLp 2 fun k => c i k / Real.sqrt (∑ l, c i l ^ 2) :
        EuclideanSpace ℝ (Fin n))) := by
    rw [orthonormal_iff_ite]
    intro i j
    simp only [Set.restrict_apply]
    rw [euclidean_inner_toLp_eq_sum]
    by_cases hij : i = j
    · rw [if_pos hij, ← hij]
      have hS : ∑ k, c i k ^ 2 ≠ 0 := i.2
      have hS0 : 0 ≤ ∑ k, c i k ^ 2 := Finset.sum_nonneg fun k _ => sq_nonneg _
      simp only [div_mul_div_comm, ← sq, ← Finset.sum_div, Real.sq_sqrt hS0, div_self hS]
    · have hij' : (i : Fin n) ≠ j := fun h => hij (Subtype.ext h)
      rw [if_neg hij]
      simp only [div_mul_div_comm, ← Finset.sum_div, hc _ _ hij', zero_div]
  obtain ⟨b, hb⟩ := hv.exists_orthonormalBasis_extension_of_card_eq finrank_euclideanSpace
  refine ⟨fun i k => b i k, fun i j => ?_, fun i => ?_⟩
  · have h := orthonormal_iff_ite.1 b.orthonormal i j
    rw [euclidean_inner_eq_sum] at h
    exact h
  · by_cases hS : ∑ k, c i k ^ 2 = 0
    · -- every `cᵢₖ` vanishes
      have hc0 : ∀ k, c i k = 0 := fun k => by
        have h := (Finset.sum_eq_zero_iff_of_nonneg fun l _ => sq_nonneg (c i l)).1 hS k
          (Finset.mem_univ k)
        nlinarith [sq_nonneg (c i k), h]
      rw [hS, Real.sqrt_zero]
      exact Finset.sum_eq_zero fun k _ => by rw [hc0 k, zero_mul]
    · have hbk : ∀ k, b i k = c i k / Real.sqrt (∑ l, c i l ^ 2) := fun k => by
        first
          | exact congrArg (fun x : EuclideanSpace ℝ (Fin n) => x k) (hb i hS)
          | (rw [hb i hS]; rfl)
          | rw [hb i hS]
          | simp [hb i hS]
      show ∑ k, c i k * b i k = Real.sqrt (∑ k, c i k ^ 2)
      simp only [hbk, mul_div_assoc', ← sq, ← Finset.sum_div, Real.div_sqrt]

end LeJEPA
