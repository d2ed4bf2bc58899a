/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.ForMathlib.Series

/-!
# The spectral core: inequalities for weighted series of Hermite energies

Everything here is about real sequences and is fully proved; no axiom. The sequences are the
energies `r k = ‖f_{k+2}‖²` of the Hermite degrees `k + 2 ≥ 2` (or `w k` of degrees `k + 1`),
and the weights are the Mehler contractions `ρ^d` of those degrees.

## Main statements

* `LeJEPA.tsum_pow_succ_le`: for weights `w ≥ 0` on the degrees `d = k + 1 ≥ 1`,
  `∑ w_k ρ^(k+1) ≤ ρ ∑ w_k`, with equality iff all the weight sits at degree one
  (`LeJEPA.tsum_pow_succ_eq_iff`).
* `LeJEPA.one_sub_sq_mul_tsum_le`: `(1 - ρ²) ∑ r_k ≤ ∑ (1 - ρ^(k+2)) r_k`, the step of T1/T3
  that compares degrees `≥ 2` with degree two.
* `LeJEPA.tsum_one_sub_pow_le`: `∑ (1 - ρ^(k+2)) r_k ≤ ∑ r_k`; `LeJEPA.tsum_one_sub_pow_mul`
  splits `∑ (1 - ρ^(k+2)) r_k` into `∑ r_k - ∑ ρ^(k+2) r_k`.
* `LeJEPA.alignment_gap_ge`: T3's chain `δ ≥ 2ρ(1-ρ) ∑_{d≥2} ‖h_d‖²` in spectral form.

## Implementation notes

Powers are compared with Mathlib's `pow_le_one₀`, `pow_le_pow_of_le_one`, `pow_le_of_le_one`
and `pow_lt_self_of_lt_one₀`; series through `HasSum` (`hasSum_le`, `hasSum_lt`,
`HasSum.mul_left`) and `LeJEPA.summable_of_factor_le_one`.

## References

* docs/THEORY.md, proofs of T1 and T3.
-/

namespace LeJEPA

/-- **Degree-one dominance.** For weights `w k ≥ 0` on the Hermite degrees `k + 1 ≥ 1` and
`0 ≤ ρ ≤ 1`: `∑ₖ w k ρ^(k+1) ≤ ρ ∑ₖ w k`. -/
theorem tsum_pow_succ_le {ρ : ℝ} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) {w : ℕ → ℝ} (hw0 : ∀ k, 0 ≤ w k)
    (hw : Summable w) : ∑' k, ρ ^ (k + 1) * w k ≤ ρ * ∑' k, w k := by
  have hs : Summable fun k => ρ ^ (k + 1) * w k :=
    summable_of_factor_le_one hw0 hw (fun k => pow_nonneg h0 _) (fun k => pow_le_one₀ h0 h1)
  refine hasSum_le (fun k => ?_) hs.hasSum (hw.hasSum.mul_left ρ)
  have := pow_le_of_le_one h0 h1 (show k + 1 ≠ 0 by omega)
  nlinarith [hw0 k]

/-- **Equality case of degree-one dominance.** For `0 < ρ < 1`,
`∑ₖ w k ρ^(k+1) = ρ ∑ₖ w k` iff `w k = 0` for every `k ≥ 1`, i.e. all the weight sits at
degree one. -/
theorem tsum_pow_succ_eq_iff {ρ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1) {w : ℕ → ℝ}
    (hw0 : ∀ k, 0 ≤ w k) (hw : Summable w) :
    ∑' k, ρ ^ (k + 1) * w k = ρ * ∑' k, w k ↔ ∀ k, 1 ≤ k → w k = 0 := by
  have hs : Summable fun k => ρ ^ (k + 1) * w k :=
    summable_of_factor_le_one hw0 hw (fun k => pow_nonneg h0.le _)
      (fun k => pow_le_one₀ h0.le h1.le)
  have hle : ∀ k, ρ ^ (k + 1) * w k ≤ ρ * w k := fun k => by
    have := pow_le_of_le_one h0.le h1.le (show k + 1 ≠ 0 by omega)
    nlinarith [hw0 k]
  constructor
  · intro heq k hk
    by_contra hne
    have hpos : 0 < w k := lt_of_le_of_ne (hw0 k) (Ne.symm hne)
    have hlt : ρ ^ (k + 1) * w k < ρ * w k := by
      have hp : ρ ^ (k + 1) < ρ := pow_lt_self_of_lt_one₀ h0 h1 (by omega)
      nlinarith
    have := hasSum_lt (f := fun k => ρ ^ (k + 1) * w k) (g := fun k => ρ * w k)
      hle hlt hs.hasSum (hw.hasSum.mul_left ρ)
    linarith
  · intro hzero
    have hterm : ∀ k, ρ ^ (k + 1) * w k = ρ * w k := fun k => by
      rcases Nat.eq_zero_or_pos k with hk | hk
      · rw [hk, zero_add, pow_one]
      · rw [hzero k hk, mul_zero, mul_zero]
    rw [tsum_congr hterm]
    exact (hw.hasSum.mul_left ρ).tsum_eq

/-- Degrees `≥ 2` against degree two: `(1 - ρ²) ∑ₖ r k ≤ ∑ₖ (1 - ρ^(k+2)) r k`. -/
theorem one_sub_sq_mul_tsum_le {ρ : ℝ} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) {r : ℕ → ℝ}
    (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r) :
    (1 - ρ ^ 2) * ∑' k, r k ≤ ∑' k, (1 - ρ ^ (k + 2)) * r k := by
  have hs : Summable fun k => (1 - ρ ^ (k + 2)) * r k :=
    summable_of_factor_le_one hr0 hr
      (fun k => by linarith [pow_le_one₀ (n := k + 2) h0 h1])
      (fun k => by linarith [pow_nonneg h0 (k + 2)])
  refine hasSum_le (fun k => ?_) (hr.hasSum.mul_left (1 - ρ ^ 2)) hs.hasSum
  have := pow_le_pow_of_le_one h0 h1 (show 2 ≤ k + 2 by omega)
  nlinarith [hr0 k]

/-- `∑ₖ (1 - ρ^(k+2)) r k = ∑ₖ r k - ∑ₖ ρ^(k+2) r k` for `0 ≤ ρ ≤ 1`. -/
theorem tsum_one_sub_pow_mul {ρ : ℝ} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) {r : ℕ → ℝ}
    (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r) :
    ∑' k, (1 - ρ ^ (k + 2)) * r k = ∑' k, r k - ∑' k, ρ ^ (k + 2) * r k :=
  tsum_one_sub_mul hr0 hr (fun k => pow_nonneg h0 (k + 2)) (fun _ => pow_le_one₀ h0 h1)

/-- `∑ₖ (1 - ρ^(k+2)) r k ≤ ∑ₖ r k`. -/
theorem tsum_one_sub_pow_le {ρ : ℝ} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) {r : ℕ → ℝ}
    (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r) :
    ∑' k, (1 - ρ ^ (k + 2)) * r k ≤ ∑' k, r k := by
  have hs : Summable fun k => (1 - ρ ^ (k + 2)) * r k :=
    summable_of_factor_le_one hr0 hr
      (fun k => by linarith [pow_le_one₀ (n := k + 2) h0 h1])
      (fun k => by linarith [pow_nonneg h0 (k + 2)])
  refine hasSum_le (fun k => ?_) hs.hasSum hr.hasSum
  nlinarith [hr0 k, pow_nonneg h0 (k + 2)]

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
