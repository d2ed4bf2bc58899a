/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.ForMathlib.FinsetSum
import Mathlib.LinearAlgebra.UnitaryGroup

/-!
# Orthonormal rows by polarization

## Main statements

* `LeJEPA.mul_transpose_eq_one_of_sum_sq`: if `‖Wᵀ v‖² = ‖v‖²` for every `v` then `W Wᵀ = I`.
* `LeJEPA.mem_orthogonalGroup_of_mul_transpose`: a real square matrix with `Q Qᵀ = I` lies in
  `Matrix.orthogonalGroup`.

## Implementation notes

Orthonormality of the rows is obtained by polarization with the test vectors `eⱼ` and
`eⱼ + eₖ`, written as `if`-indicators (`LeJEPA.sum_indicator_mul`). `Matrix.mul_apply`,
`Matrix.one_apply`, `Matrix.transpose_apply`, `Matrix.mem_orthogonalGroup_iff` are Mathlib's.
-/

namespace LeJEPA

/-- **Polarization.** If `‖Wᵀ v‖² = ‖v‖²` for every `v ∈ ℝᵐ`, then `W Wᵀ = I_m`. -/
theorem mul_transpose_eq_one_of_sum_sq {m n : ℕ} (W : Matrix (Fin m) (Fin n) ℝ)
    (hW : ∀ v : Fin m → ℝ, ∑ i, (∑ j, v j * W j i) ^ 2 = ∑ j, v j ^ 2) :
    W * W.transpose = 1 := by
  have hrow : ∀ j, ∑ i, W j i ^ 2 = 1 := by
    intro j
    have h := hW (fun k => if k = j then 1 else 0)
    simp only [sum_indicator_mul, sum_indicator_sq] at h
    exact h
  have hpair : ∀ j k, j ≠ k → ∑ i, W j i * W k i = 0 := by
    intro j k hjk
    have h := hW (fun l => (if l = j then 1 else 0) + (if l = k then 1 else 0))
    simp only [add_mul, Finset.sum_add_distrib, sum_indicator_mul,
      sum_pair_indicator_sq hjk] at h
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

/-- A real matrix with `Q Qᵀ = 1` lies in `Matrix.orthogonalGroup`. -/
theorem mem_orthogonalGroup_of_mul_transpose {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ}
    (hQ : Q * Q.transpose = 1) : Q ∈ Matrix.orthogonalGroup (Fin n) ℝ := by
  rw [Matrix.mem_orthogonalGroup_iff]
  exact hQ

end LeJEPA
