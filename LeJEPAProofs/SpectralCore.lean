/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib

/-!
# The spectral core: inequalities for weighted series of Hermite energies

Everything here is about real sequences and finite sums and is fully proved; no axiom.

## Main statements

* `LeJEPA.tsum_pow_succ_le`: for weights `w ≥ 0` on the degrees `d = k + 1 ≥ 1`,
  `∑ w_k ρ^(k+1) ≤ ρ ∑ w_k`, with equality iff all the weight sits at degree one
  (`LeJEPA.tsum_pow_succ_eq_iff`).
* `LeJEPA.one_sub_sq_mul_tsum_le`: `(1 - ρ²) ∑ r_k ≤ ∑ (1 - ρ^(k+2)) r_k`, the step of T1/T3
  that compares degrees `≥ 2` with degree two.
* `LeJEPA.tsum_one_sub_pow_le`: `∑ (1 - ρ^(k+2)) r_k ≤ ∑ r_k`.
* `LeJEPA.alignment_gap_ge`: T3's chain `δ ≥ 2ρ(1-ρ) ∑_{d≥2} ‖h_d‖²` in spectral form.
* `LeJEPA.eq_zero_of_tsum_eq_zero`: a nonnegative summable sequence with zero sum vanishes.

## Implementation notes

Series are handled through `HasSum` and the long-stable lemmas `hasSum_le`, `hasSum_lt`,
`le_hasSum`, `HasSum.mul_left`, `Summable.of_nonneg_of_le`, `tsum_nonneg`
(`Mathlib/Topology/Algebra/InfiniteSum/Order.lean`, `.../Ring.lean`, `.../Real.lean`), which
avoids the 2025 renamings of `tsum_le_tsum` and friends. Powers are compared by the
elementary lemmas below, proved by induction, to avoid the frequently renamed
`pow_le_pow_*` family.

## References

* THEORY.md, proofs of T1 and T3.
-/

namespace LeJEPA

/-- `a ^ k ≤ 1` for `0 ≤ a ≤ 1`. -/
theorem pow_le_one_of_le_one {a : ℝ} (h0 : 0 ≤ a) (h1 : a ≤ 1) : ∀ k : ℕ, a ^ k ≤ 1
  | 0 => by simp
  | k + 1 => by
    rw [pow_succ]
    have hk := pow_le_one_of_le_one h0 h1 k
    have hk0 : 0 ≤ a ^ k := pow_nonneg h0 k
    nlinarith

/-- `a ^ (k + 2) ≤ a ^ 2` for `0 ≤ a ≤ 1`. -/
theorem pow_add_two_le_sq {a : ℝ} (h0 : 0 ≤ a) (h1 : a ≤ 1) (k : ℕ) : a ^ (k + 2) ≤ a ^ 2 := by
  rw [pow_add]
  have hk := pow_le_one_of_le_one h0 h1 k
  have h2 : 0 ≤ a ^ 2 := pow_nonneg h0 2
  nlinarith

/-- `a ^ (k + 1) ≤ a` for `0 ≤ a ≤ 1`. -/
theorem pow_succ_le_self {a : ℝ} (h0 : 0 ≤ a) (h1 : a ≤ 1) (k : ℕ) : a ^ (k + 1) ≤ a := by
  rw [pow_succ]
  have hk := pow_le_one_of_le_one h0 h1 k
  nlinarith

/-- `a ^ (k + 2) < a` for `0 < a < 1`: degrees `≥ 2` are strictly contracted more than
degree one. -/
theorem pow_add_two_lt_self {a : ℝ} (h0 : 0 < a) (h1 : a < 1) (k : ℕ) : a ^ (k + 2) < a := by
  have hk := pow_add_two_le_sq h0.le h1.le k
  have h2 : a ^ 2 < a := by nlinarith
  linarith

/-- `a ^ n ≤ b ^ n` for `0 ≤ a ≤ b`. -/
theorem pow_le_pow_of_le {a b : ℝ} (ha : 0 ≤ a) (hab : a ≤ b) : ∀ n : ℕ, a ^ n ≤ b ^ n
  | 0 => by simp
  | n + 1 => by
    rw [pow_succ, pow_succ]
    have ih := pow_le_pow_of_le ha hab n
    nlinarith [mul_nonneg (pow_nonneg (ha.trans hab) n) (sub_nonneg.2 hab),
      mul_nonneg ha (sub_nonneg.2 ih)]

/-- A nonnegative summable sequence whose sum is `≤ 0` vanishes identically. -/
theorem eq_zero_of_tsum_le_zero {r : ℕ → ℝ} (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r)
    (hsum : ∑' k, r k ≤ 0) (k : ℕ) : r k = 0 := by
  have hle : r k ≤ ∑' k, r k := le_hasSum hr.hasSum k (fun j _ => hr0 j)
  linarith [hr0 k]

/-- A nonnegative summable sequence with zero sum vanishes identically. -/
theorem eq_zero_of_tsum_eq_zero {r : ℕ → ℝ} (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r)
    (hsum : ∑' k, r k = 0) (k : ℕ) : r k = 0 :=
  eq_zero_of_tsum_le_zero hr0 hr hsum.le k

/-- Summability of a sequence damped by factors in `[0, 1]`. -/
theorem summable_of_factor_le_one {r c : ℕ → ℝ} (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r)
    (hc0 : ∀ k, 0 ≤ c k) (hc1 : ∀ k, c k ≤ 1) : Summable fun k => c k * r k := by
  refine Summable.of_nonneg_of_le (fun k => mul_nonneg (hc0 k) (hr0 k)) (fun k => ?_) hr
  have := hc1 k
  have := hr0 k
  nlinarith [hc0 k]

/-- **Degree-one dominance.** For weights `w k ≥ 0` on the Hermite degrees `k + 1 ≥ 1` and
`0 ≤ ρ ≤ 1`: `∑ₖ w k ρ^(k+1) ≤ ρ ∑ₖ w k`. -/
theorem tsum_pow_succ_le {ρ : ℝ} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) {w : ℕ → ℝ} (hw0 : ∀ k, 0 ≤ w k)
    (hw : Summable w) : ∑' k, ρ ^ (k + 1) * w k ≤ ρ * ∑' k, w k := by
  have hs : Summable fun k => ρ ^ (k + 1) * w k :=
    summable_of_factor_le_one hw0 hw (fun k => pow_nonneg h0 _)
      (fun k => (pow_succ_le_self h0 h1 k).trans h1)
  refine hasSum_le (fun k => ?_) hs.hasSum (hw.hasSum.mul_left ρ)
  have := pow_succ_le_self h0 h1 k
  nlinarith [hw0 k]

/-- **Equality case of degree-one dominance.** For `0 < ρ < 1`,
`∑ₖ w k ρ^(k+1) = ρ ∑ₖ w k` iff `w k = 0` for every `k ≥ 1`, i.e. all the weight sits at
degree one. -/
theorem tsum_pow_succ_eq_iff {ρ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1) {w : ℕ → ℝ}
    (hw0 : ∀ k, 0 ≤ w k) (hw : Summable w) :
    ∑' k, ρ ^ (k + 1) * w k = ρ * ∑' k, w k ↔ ∀ k, 1 ≤ k → w k = 0 := by
  have hs : Summable fun k => ρ ^ (k + 1) * w k :=
    summable_of_factor_le_one hw0 hw (fun k => pow_nonneg h0.le _)
      (fun k => (pow_succ_le_self h0.le h1.le k).trans h1.le)
  have hle : ∀ k, ρ ^ (k + 1) * w k ≤ ρ * w k := fun k => by
    have := pow_succ_le_self h0.le h1.le k
    nlinarith [hw0 k]
  constructor
  · intro heq k hk
    by_contra hne
    have hpos : 0 < w k := lt_of_le_of_ne (hw0 k) (Ne.symm hne)
    obtain ⟨j, rfl⟩ : ∃ j, k = j + 1 := ⟨k - 1, by omega⟩
    have hlt : ρ ^ (j + 1 + 1) * w (j + 1) < ρ * w (j + 1) := by
      have hp : ρ ^ (j + 1 + 1) < ρ := pow_add_two_lt_self h0 h1 j
      nlinarith
    have := hasSum_lt (f := fun k => ρ ^ (k + 1) * w k) (g := fun k => ρ * w k)
      hle hlt hs.hasSum (hw.hasSum.mul_left ρ)
    linarith
  · intro hzero
    have hterm : ∀ k, ρ ^ (k + 1) * w k = ρ * w k := fun k => by
      rcases Nat.eq_zero_or_pos k with hk | hk
      · subst hk; simp
      · rw [hzero k (by omega)]; simp
    rw [tsum_congr hterm]
    exact (hw.hasSum.mul_left ρ).tsum_eq

/-- Degrees `≥ 2` against degree two: `(1 - ρ²) ∑ₖ r k ≤ ∑ₖ (1 - ρ^(k+2)) r k`. -/
theorem one_sub_sq_mul_tsum_le {ρ : ℝ} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) {r : ℕ → ℝ}
    (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r) :
    (1 - ρ ^ 2) * ∑' k, r k ≤ ∑' k, (1 - ρ ^ (k + 2)) * r k := by
  have hs : Summable fun k => (1 - ρ ^ (k + 2)) * r k :=
    summable_of_factor_le_one hr0 hr
      (fun k => by have := pow_le_one_of_le_one h0 h1 (k + 2); linarith)
      (fun k => by have := pow_nonneg h0 (k + 2); linarith)
  refine hasSum_le (fun k => ?_) (hr.hasSum.mul_left (1 - ρ ^ 2)) hs.hasSum
  have := pow_add_two_le_sq h0 h1 k
  nlinarith [hr0 k]

/-- `∑ₖ (1 - ρ^(k+2)) r k ≤ ∑ₖ r k`. -/
theorem tsum_one_sub_pow_le {ρ : ℝ} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) {r : ℕ → ℝ}
    (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r) :
    ∑' k, (1 - ρ ^ (k + 2)) * r k ≤ ∑' k, r k := by
  have hs : Summable fun k => (1 - ρ ^ (k + 2)) * r k :=
    summable_of_factor_le_one hr0 hr
      (fun k => by have := pow_le_one_of_le_one h0 h1 (k + 2); linarith)
      (fun k => by have := pow_nonneg h0 (k + 2); linarith)
  refine hasSum_le (fun k => ?_) hs.hasSum hr.hasSum
  have := pow_nonneg h0 (k + 2)
  nlinarith [hr0 k]

/-- **T3's spectral chain.** With degree-one energy `A ≥ 0` and higher energies `r`, the
alignment gap `δ = L - 2(1-ρ) s` of a centred feature, where
`L = 2(1-ρ) A + 2 ∑ (1 - ρ^(k+2)) r k` and `s = A + ∑ r k`, satisfies
`δ ≥ 2ρ(1-ρ) ∑ r k`. -/
theorem alignment_gap_ge {ρ : ℝ} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) (A : ℝ) {r : ℕ → ℝ}
    (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r) :
    2 * ρ * (1 - ρ) * ∑' k, r k ≤
      (2 * (1 - ρ) * A + 2 * ∑' k, (1 - ρ ^ (k + 2)) * r k) -
        2 * (1 - ρ) * (A + ∑' k, r k) := by
  have := one_sub_sq_mul_tsum_le h0 h1 hr0 hr
  nlinarith

end LeJEPA
