/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Setting
import LeJEPAProofs.ForMathlib.Gaussian

/-!
# The Ornstein–Uhlenbeck channel is stationary (proved from Mathlib)

## Main statements

* `LeJEPA.ou_stationary`: for `0 ≤ ρ ≤ 1` and every `n` (including `n = 0`), the image of
  `γ_n ⊗ γ_n` under `(z, ξ) ↦ ρ z + √(1 - ρ²) ξ` is `γ_n`.
* `LeJEPA.measurePreserving_ouMap`, `LeJEPA.measurePreserving_fst_ouPair`: both views of a
  positive pair, `z` and `z'`, have law `γ_n`.

## Implementation notes

This used to be an axiom. It is now a theorem: coordinatewise, `ρ x + √(1 - ρ²) y` with
`x, y ~ N(0, 1)` independent is `N(0, ρ² + (1 - ρ²)) = N(0, 1)`
(`ProbabilityTheory.gaussianReal_map_const_mul`,
`ProbabilityTheory.gaussianReal_conv_gaussianReal`),
and the product structure is handled by `MeasureTheory.measurePreserving_arrowProdEquivProdArrow`
and `MeasureTheory.measurePreserving_pi` (see `LeJEPA.map_linComb_pi_gaussianReal`). The
Python test `tests/numerics/test_mehler.py::test_axiom_ou_stationary` stays as a numerical
cross-check.

## References

* G. E. Uhlenbeck, L. S. Ornstein, *Phys. Rev.* 36 (1930); V. Bogachev, *Gaussian Measures*
  (1998), §1.4.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- **Stationarity of the Ornstein–Uhlenbeck channel.** For `0 ≤ ρ ≤ 1`, if
`(z, ξ) ~ γ_n ⊗ γ_n` then `ρ z + √(1 - ρ²) ξ ~ γ_n`. -/
theorem ou_stationary (n : ℕ) (ρ : ℝ) (hρ0 : 0 ≤ ρ) (hρ1 : ρ ≤ 1) :
    Measure.map (ouMap ρ) (ouPair n) = stdGaussianPi n := by
  have hab : ρ ^ 2 + Real.sqrt (1 - ρ ^ 2) ^ 2 = 1 := by
    rw [Real.sq_sqrt (by nlinarith)]
    ring
  exact map_linComb_pi_gaussianReal (ι := Fin n) hab

/-- The second view `z' = ρ z + √(1 - ρ²) ξ` of a positive pair has law `γ_n`. -/
theorem measurePreserving_ouMap (n : ℕ) {ρ : ℝ} (hρ0 : 0 ≤ ρ) (hρ1 : ρ ≤ 1) :
    MeasurePreserving (ouMap ρ) (ouPair n) (stdGaussianPi n) :=
  ⟨measurable_ouMap ρ, ou_stationary n ρ hρ0 hρ1⟩

/-- `ouMap 1` is the first coordinate: `z' = z` when `ρ = 1`. -/
theorem ouMap_one (n : ℕ) : ouMap (n := n) 1 = Prod.fst := by
  funext p i
  simp [ouMap]

/-- The first view `z` of a positive pair has law `γ_n`. -/
theorem map_fst_ouPair (n : ℕ) : Measure.map Prod.fst (ouPair n) = stdGaussianPi n := by
  rw [← ouMap_one n]
  exact ou_stationary n 1 zero_le_one le_rfl

/-- The first view `z` of a positive pair has law `γ_n`, as a measure-preserving map. -/
theorem measurePreserving_fst_ouPair (n : ℕ) :
    MeasurePreserving Prod.fst (ouPair n) (stdGaussianPi n) :=
  ⟨measurable_fst, map_fst_ouPair n⟩

end LeJEPA
