/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Setting
import LeJEPAProofs.ForMathlib.Gaussian

/-!
# Gaussian moments of the coordinates under `γ_n` (proved from Mathlib)

## Main statements

* `LeJEPA.memLp_coord`: the coordinate `z ↦ zᵢ` is in `L²(γ_n)`.
* `LeJEPA.integral_sq_linear`: `E⟨w, z⟩² = ‖w‖²` under `γ_n`.

## Implementation notes

No axiom: both are the product-Gaussian facts `LeJEPA.memLp_two_eval_pi_gaussianReal` and
`LeJEPA.integral_sq_sum_mul_pi_gaussianReal` of `LeJEPAProofs/ForMathlib/Gaussian.lean`, read
on `LeJEPA.stdGaussianPi n = Measure.pi (fun _ : Fin n ↦ gaussianReal 0 1)`. They used to be
derived from the Hermite–Mehler axiom; this file does not import it.

## References

* V. Bogachev, *Gaussian Measures*, AMS 1998, §1.2.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- The coordinate `z ↦ zᵢ` is square integrable under `γ_n` (it has law `N(0, 1)`). -/
theorem memLp_coord (n : ℕ) (i : Fin n) :
    MemLp (fun z : Fin n → ℝ => z i) 2 (stdGaussianPi n) :=
  memLp_two_eval_pi_gaussianReal i

/-- **Second moment of a linear form under `γ_n`:** `E⟨w, z⟩² = ‖w‖²`. -/
theorem integral_sq_linear (n : ℕ) (w : Fin n → ℝ) :
    ∫ z, (∑ i, w i * z i) ^ 2 ∂stdGaussianPi n = ∑ i, w i ^ 2 :=
  integral_sq_sum_mul_pi_gaussianReal w

end LeJEPA
