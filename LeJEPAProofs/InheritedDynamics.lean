/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Identifiability
import LeJEPAProofs.Axioms.OUStationary

/-!
# C1: inherited dynamics

## Main statements

* `LeJEPA.inherited_dynamics` (**C1**): if `h(z) = Q z` for `γ_n`-almost every `z`, then for
  almost every pair `(z, ξ)`, the encoded positive pair satisfies
  `h(z') = ρ h(z) + √(1 - ρ²) Q ξ`. Since `ξ ~ γ_n` is independent of `z`, the learned
  representation evolves by the same OU channel with noise `Q ξ`.
* `LeJEPA.inherited_dynamics_of_optimal`: the same conclusion for every whitened encoder
  that attains T1's bound, with `Q` orthogonal.

## Implementation notes

The almost-everywhere statement is transported from `γ_n` to the pair measure through the two
maps `(z, ξ) ↦ z` (`MeasureTheory.Measure.map_fst_prod`) and `(z, ξ) ↦ z'`
(`LeJEPA.ou_stationary`), with `MeasureTheory.ae_of_ae_map`. That `Q ξ` is again standard
Gaussian (so `h(z') | h(z) ~ N(ρ h(z), (1 - ρ²) I_n)`) is the rotation invariance of `γ_n`;
it is a statement about `Q ξ` alone and is not formalized here.

## References

* THEORY.md, T1 corollary.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- The first coordinate of the pair has law `γ_n`. -/
theorem map_fst_ouPair (n : ℕ) : Measure.map Prod.fst (ouPair n) = stdGaussian n := by
  show Measure.map Prod.fst ((stdGaussian n).prod (stdGaussian n)) = stdGaussian n
  first
    | rw [Measure.map_fst_prod, measure_univ, one_smul]
    | (simp [Measure.map_fst_prod]; done)
    | exact (measurePreserving_fst (μ := stdGaussian n) (ν := stdGaussian n)).map_eq

/-- **C1 (inherited dynamics).** If `h(z) = Q z` almost surely and `0 < ρ < 1`, then almost
surely in `(z, ξ)`: `h(z') = ρ h(z) + √(1 - ρ²) Q ξ`, where `z' = ρ z + √(1 - ρ²) ξ`. -/
theorem inherited_dynamics {n : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin n → ℝ) (Q : Matrix (Fin n) (Fin n) ℝ)
    (hQ : ∀ᵐ z ∂stdGaussian n, ∀ j, h z j = ∑ i, Q j i * z i) :
    ∀ᵐ p ∂ouPair n, ∀ j,
      h (ouMap ρ p) j = ρ * h p.1 j + Real.sqrt (1 - ρ ^ 2) * ∑ i, Q j i * p.2 i := by
  have h1 : ∀ᵐ p ∂ouPair n, ∀ j, h p.1 j = ∑ i, Q j i * p.1 i := by
    have hmap : ∀ᵐ z ∂(Measure.map Prod.fst (ouPair n)), ∀ j, h z j = ∑ i, Q j i * z i := by
      rw [map_fst_ouPair]
      exact hQ
    exact ae_of_ae_map measurable_fst.aemeasurable hmap
  have h2 : ∀ᵐ p ∂ouPair n, ∀ j, h (ouMap ρ p) j = ∑ i, Q j i * ouMap ρ p i := by
    have hmap : ∀ᵐ z ∂(Measure.map (ouMap ρ) (ouPair n)),
        ∀ j, h z j = ∑ i, Q j i * z i := by
      rw [ou_stationary n ρ hρ0.le hρ1.le]
      exact hQ
    exact ae_of_ae_map (measurable_ouMap ρ).aemeasurable hmap
  filter_upwards [h1, h2] with p hp1 hp2 j
  rw [hp2 j, hp1 j]
  first
    | (simp only [ouMap, mul_add, Finset.sum_add_distrib, Finset.mul_sum]
       congr 1 <;> exact Finset.sum_congr rfl fun i _ => by ring)
    | (simp only [ouMap]
       rw [Finset.mul_sum, Finset.mul_sum, ← Finset.sum_add_distrib]
       exact Finset.sum_congr rfl fun i _ => by ring)

/-- **C1 for optimal encoders.** A whitened square-integrable `h : ℝⁿ → ℝⁿ` attaining
`L(h) = 2n(1-ρ)` inherits the OU dynamics with an orthogonal `Q`. -/
theorem inherited_dynamics_of_optimal {n : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin n → ℝ) (hL2 : SquareIntegrable h) (hw : IsWhitened h)
    (hopt : alignmentLoss ρ h = 2 * n * (1 - ρ)) :
    ∃ Q : Matrix (Fin n) (Fin n) ℝ, Q ∈ Matrix.orthogonalGroup (Fin n) ℝ ∧
      ∀ᵐ p ∂ouPair n, ∀ j,
        h (ouMap ρ p) j = ρ * h p.1 j + Real.sqrt (1 - ρ ^ 2) * ∑ i, Q j i * p.2 i := by
  obtain ⟨Q, hQo, hQ⟩ := ((forward_identifiability ρ hρ0 hρ1 h hL2 hw).2).1 hopt
  exact ⟨Q, hQo, inherited_dynamics ρ hρ0 hρ1 h Q hQ⟩

end LeJEPA
