/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib.Probability.Distributions.Gaussian.Multivariate
import Mathlib.MeasureTheory.Measure.Haar.InnerProductSpace
import Mathlib.Tactic.Ring

/-!
# Small integral lemmas

Generic facts about Bochner integrals that are not about the paper.

## Main statements

* `LeJEPA.integrable_mul_of_memLp_two`: the product of two `L²` functions is integrable
  (by polarization, so without Hölder conjugate exponents).
* `LeJEPA.integral_comp_of_measurePreserving`: `∫ g (φ x) dμ = ∫ g dν` for a measure-preserving
  `φ` and an a.e.-strongly measurable `g` (no measurable embedding needed).
* `LeJEPA.integral_comp_linearIsometryEquiv`: if a linear isometry equivalence `Q` leaves a
  measure `ν` invariant, then `∫ g (Q ξ) dν = ∫ g dν` for every `g` (no measurability needed).

## Implementation notes

Mathlib's `MeasureTheory.MemLp.integrable_mul` needs a Hölder-conjugate instance; the
polarization proof below only uses `MeasureTheory.MemLp.integrable_sq`.
`MeasureTheory.integral_map` and `MeasureTheory.integral_map_equiv` do the rest, with
`LinearIsometryEquiv.toMeasurableEquiv`
(`Mathlib/MeasureTheory/Measure/Haar/InnerProductSpace.lean`).
-/

namespace LeJEPA

open MeasureTheory

/-- The product of two square-integrable real functions is integrable (polarization). -/
theorem integrable_mul_of_memLp_two {α : Type*} [MeasurableSpace α] {μ : Measure α}
    {f g : α → ℝ} (hf : MemLp f 2 μ) (hg : MemLp g 2 μ) :
    Integrable (fun x => f x * g x) μ := by
  have h1 : Integrable (fun x => (f x + g x) ^ 2) μ := (hf.add hg).integrable_sq
  have h2 : Integrable (fun x => f x ^ 2) μ := hf.integrable_sq
  have h3 : Integrable (fun x => g x ^ 2) μ := hg.integrable_sq
  have h4 : Integrable (fun x => ((f x + g x) ^ 2 - f x ^ 2 - g x ^ 2) / 2) μ :=
    ((h1.sub h2).sub h3).div_const 2
  refine h4.congr (ae_of_all _ fun x => ?_)
  show ((f x + g x) ^ 2 - f x ^ 2 - g x ^ 2) / 2 = f x * g x
  ring

/-- Change of variables along a measure-preserving map: `∫ g (φ x) dμ = ∫ g dν`. -/
theorem integral_comp_of_measurePreserving {α β : Type*} [MeasurableSpace α]
    [MeasurableSpace β] {μ : Measure α} {ν : Measure β} {φ : α → β}
    (hφ : MeasurePreserving φ μ ν) {g : β → ℝ} (hg : AEStronglyMeasurable g ν) :
    ∫ x, g (φ x) ∂μ = ∫ y, g y ∂ν := by
  have hg' : AEStronglyMeasurable g (Measure.map φ μ) := by
    rw [hφ.map_eq]
    exact hg
  rw [← integral_map hφ.aemeasurable hg', hφ.map_eq]

/-- Invariance of an integral under a linear isometry equivalence that preserves the measure:
if `Q₊ν = ν` then `∫ g (Q ξ) dν = ∫ g dν` for every `g`. -/
theorem integral_comp_linearIsometryEquiv {E : Type*} [NormedAddCommGroup E]
    [InnerProductSpace ℝ E] [MeasurableSpace E] [BorelSpace E] (Q : E ≃ₗᵢ[ℝ] E)
    {ν : Measure E} (hν : ν.map Q = ν) (g : E → ℝ) :
    ∫ ξ, g (Q ξ) ∂ν = ∫ ξ, g ξ ∂ν := by
  have h := integral_map_equiv (μ := ν) Q.toMeasurableEquiv g
  rw [LinearIsometryEquiv.coe_toMeasurableEquiv, hν] at h
  exact h.symm

end LeJEPA
