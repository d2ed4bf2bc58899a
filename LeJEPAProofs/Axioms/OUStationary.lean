/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Setting

/-!
# Assumed classical theorem: the Ornstein–Uhlenbeck channel is stationary

## Main statements

* `LeJEPA.ou_stationary` (axiom): for `0 ≤ ρ ≤ 1`, the image of `γ_n ⊗ γ_n` under
  `(z, ξ) ↦ ρ z + √(1 - ρ²) ξ` is `γ_n`.

## Informal statement

If `z, ξ ~ N(0, I_n)` are independent then `ρ z + √(1 - ρ²) ξ ~ N(0, (ρ² + 1 - ρ²) I_n) =
N(0, I_n)`: a linear combination of independent centred Gaussians is Gaussian with the summed
covariance. The statement is coordinatewise a product of one-dimensional facts and holds at the
end points `ρ = 0` (the image of `ξ`) and `ρ = 1` (the image of `z`) and for `n = 0` (both
sides are the point mass on the unique point of `Fin 0 → ℝ`).

## History and reference

Stationarity of the OU process: Uhlenbeck–Ornstein, *Phys. Rev.* 36 (1930); Bogachev,
*Gaussian Measures* (1998), §1.4 (the OU semigroup preserves `γ`).

## Why it is assumed

Mathlib has `ProbabilityTheory.gaussianReal_conv_gaussianReal` and
`ProbabilityTheory.gaussianReal_map_const_mul` for one real coordinate, but assembling them
into the statement for the product measure on `Fin n → ℝ` (maps of `Measure.pi` and of
`Measure.prod` through a coordinatewise linear map) is a substantial formalization of its own
that is not needed elsewhere in this project; it is used only by the corollary C1.

Numerical check: tests/numerics/test_mehler.py::test_axiom_ou_stationary

## References

See "History and reference" above.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- **Stationarity of the Ornstein–Uhlenbeck channel** (classical; assumed).
For `0 ≤ ρ ≤ 1`, if `(z, ξ) ~ γ_n ⊗ γ_n` then `ρ z + √(1 - ρ²) ξ ~ γ_n`.

Reference: Bogachev, *Gaussian Measures* (1998), §1.4; Uhlenbeck–Ornstein (1930).

Numerical check: tests/numerics/test_mehler.py::test_axiom_ou_stationary -/
axiom ou_stationary (n : ℕ) (ρ : ℝ) (hρ0 : 0 ≤ ρ) (hρ1 : ρ ≤ 1) :
    Measure.map (ouMap ρ) (ouPair n) = stdGaussian n

end LeJEPA
