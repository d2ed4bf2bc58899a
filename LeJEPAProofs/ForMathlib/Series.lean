/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib.Analysis.SpecificLimits.Basic
import Mathlib.Tactic.Linarith

/-!
# Series of nonnegative reals

Generic facts about real series that are not about the paper.

## Main statements

* `LeJEPA.summable_of_factor_le_one`: damping a nonnegative summable sequence by factors in
  `[0, 1]` keeps it summable.
* `LeJEPA.eq_zero_of_tsum_eq_zero`: a nonnegative summable sequence with zero sum vanishes
  (Mathlib's `hasSum_zero_iff_of_nonneg`, in `tsum` form).
* `LeJEPA.tsum_one_sub_mul`: `∑ (1 - cₖ) rₖ = ∑ rₖ - ∑ cₖ rₖ` for damping factors `cₖ ∈ [0, 1]`.

## Implementation notes

Series are handled through `HasSum` and long-stable lemmas (`HasSum.sub`, `HasSum.tsum_eq`,
`Summable.of_nonneg_of_le`, `tsum_congr`), which avoids the 2025 renamings of `tsum_le_tsum`
and `tsum_sub`.
-/

namespace LeJEPA

/-- Summability of a sequence damped by factors in `[0, 1]`. -/
theorem summable_of_factor_le_one {r c : ℕ → ℝ} (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r)
    (hc0 : ∀ k, 0 ≤ c k) (hc1 : ∀ k, c k ≤ 1) : Summable fun k => c k * r k := by
  refine Summable.of_nonneg_of_le (fun k => mul_nonneg (hc0 k) (hr0 k)) (fun k => ?_) hr
  nlinarith [hc0 k, hc1 k, hr0 k]

/-- A nonnegative summable sequence with zero sum vanishes identically. -/
theorem eq_zero_of_tsum_eq_zero {r : ℕ → ℝ} (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r)
    (hsum : ∑' k, r k = 0) (k : ℕ) : r k = 0 := by
  have h : HasSum r 0 := by
    rw [← hsum]
    exact hr.hasSum
  exact congrFun ((hasSum_zero_iff_of_nonneg hr0).1 h) k

/-- `∑ₖ (1 - cₖ) rₖ = ∑ₖ rₖ - ∑ₖ cₖ rₖ` for a nonnegative summable `r` and `cₖ ∈ [0, 1]`. -/
theorem tsum_one_sub_mul {r c : ℕ → ℝ} (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r)
    (hc0 : ∀ k, 0 ≤ c k) (hc1 : ∀ k, c k ≤ 1) :
    ∑' k, (1 - c k) * r k = ∑' k, r k - ∑' k, c k * r k := by
  have hs := summable_of_factor_le_one hr0 hr hc0 hc1
  rw [← (hr.hasSum.sub hs.hasSum).tsum_eq]
  exact tsum_congr fun k => by ring

end LeJEPA
