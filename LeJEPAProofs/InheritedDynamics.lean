/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Identifiability
import LeJEPAProofs.OUStationary

/-!
# C1: inherited dynamics, as a statement about laws

## Main statements

* `LeJEPA.inherited_dynamics` (**C1**): let `Q` be orthogonal and `h(z) = Q z` for
  `γ_n`-almost every `z`, and `0 ≤ ρ ≤ 1`. Then the encoded positive pair `(h(z), h(z'))` has
  the law of `(u, ρ u + √(1 - ρ²) η)` with `u, η` independent standard Gaussians:
  `Law(h(z), h(z')) = Law(u, ouMap ρ (u, η))` for `(u, η) ~ γ_n ⊗ γ_n`. The learned
  representation is driven by the same Ornstein–Uhlenbeck channel, so
  `h(z') | h(z) ~ N(ρ h(z), (1 - ρ²) I_n)`.
* `LeJEPA.inherited_dynamics_of_optimal`: the same conclusion for every whitened
  square-integrable encoder that attains T1's bound `L(h) = 2n(1-ρ)`, `0 < ρ < 1`.
* `LeJEPA.ae_inherited_dynamics`: the pathwise identity `h(z') = ρ h(z) + √(1 - ρ²) Q ξ`
  almost surely (used in the proof).

## Implementation notes

The almost-everywhere statement is transported from `γ_n` to the pair measure through the two
maps `(z, ξ) ↦ z` and `(z, ξ) ↦ z'` (`LeJEPA.measurePreserving_fst_ouPair`,
`LeJEPA.measurePreserving_ouMap`, both theorems) with `MeasureTheory.ae_of_ae_map`. The law of
`(Q z, Q z')` is computed from `(Q z, Q ξ) ~ γ_n ⊗ γ_n`, the rotation invariance of `γ_n`
(`LeJEPA.map_mulVec_pi_gaussianReal`, from Mathlib's `ProbabilityTheory.stdGaussian_map`) and
`MeasureTheory.Measure.map_prod_map`. The conditional-law reading `N(ρ h(z), (1-ρ²) I_n)` is
the standard disintegration of the right-hand side and is not formalized separately.

## References

* docs/THEORY.md, T1 corollary.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- The map `z ↦ Q z` written with sums, `(Q z)ⱼ = ∑ᵢ Qⱼᵢ zᵢ`. -/
theorem mulVec_eq_sum {n : ℕ} (Q : Matrix (Fin n) (Fin n) ℝ) (z : Fin n → ℝ) :
    Matrix.mulVec Q z = fun j => ∑ i, Q j i * z i := rfl

/-- **Pathwise form of C1.** If `h(z) = Q z` almost surely and `0 ≤ ρ ≤ 1`, then almost
surely in `(z, ξ)`: `h(z') = ρ h(z) + √(1 - ρ²) Q ξ`, where `z' = ρ z + √(1 - ρ²) ξ`. -/
theorem ae_inherited_dynamics {n : ℕ} {ρ : ℝ} (hρ0 : 0 ≤ ρ) (hρ1 : ρ ≤ 1)
    {h : (Fin n → ℝ) → Fin n → ℝ} {Q : Matrix (Fin n) (Fin n) ℝ}
    (hQ : ∀ᵐ z ∂stdGaussianPi n, ∀ j, h z j = ∑ i, Q j i * z i) :
    ∀ᵐ p ∂ouPair n,
      h p.1 = Matrix.mulVec Q p.1 ∧ h (ouMap ρ p) = Matrix.mulVec Q (ouMap ρ p) := by
  have hQ' : ∀ᵐ z ∂stdGaussianPi n, h z = Matrix.mulVec Q z := by
    filter_upwards [hQ] with z hz
    funext j
    exact hz j
  have h1 : ∀ᵐ p ∂ouPair n, h p.1 = Matrix.mulVec Q p.1 := by
    have hmap : ∀ᵐ z ∂(Measure.map Prod.fst (ouPair n)), h z = Matrix.mulVec Q z := by
      rw [map_fst_ouPair]
      exact hQ'
    exact ae_of_ae_map measurable_fst.aemeasurable hmap
  have h2 : ∀ᵐ p ∂ouPair n, h (ouMap ρ p) = Matrix.mulVec Q (ouMap ρ p) := by
    have hmap : ∀ᵐ z ∂(Measure.map (ouMap ρ) (ouPair n)), h z = Matrix.mulVec Q z := by
      rw [ou_stationary n ρ hρ0 hρ1]
      exact hQ'
    exact ae_of_ae_map (measurable_ouMap ρ).aemeasurable hmap
  filter_upwards [h1, h2] with p hp1 hp2
  exact ⟨hp1, hp2⟩

/-- `Q` commutes with the Ornstein–Uhlenbeck channel:
`Q (ρ z + √(1-ρ²) ξ) = ρ Q z + √(1-ρ²) Q ξ`. -/
theorem mulVec_ouMap {n : ℕ} (ρ : ℝ) (Q : Matrix (Fin n) (Fin n) ℝ)
    (p : (Fin n → ℝ) × (Fin n → ℝ)) :
    Matrix.mulVec Q (ouMap ρ p) = ouMap ρ (Matrix.mulVec Q p.1, Matrix.mulVec Q p.2) := by
  rw [mulVec_eq_sum, mulVec_eq_sum, mulVec_eq_sum]
  funext j
  simp only [ouMap, mul_add, Finset.sum_add_distrib, Finset.mul_sum]
  congr 1 <;> exact Finset.sum_congr rfl fun i _ => by ring

/-- **C1 (inherited dynamics).** Let `Q` be orthogonal, `h(z) = Q z` for `γ_n`-almost every `z`,
and `0 ≤ ρ ≤ 1`. Then the encoded positive pair `(h(z), h(z'))`, `(z, ξ) ~ γ_n ⊗ γ_n`,
`z' = ρ z + √(1 - ρ²) ξ`, has the law of `(u, ρ u + √(1 - ρ²) η)` with `(u, η) ~ γ_n ⊗ γ_n`,
i.e. `u, η` independent standard Gaussians: the OU channel again, in the embedding. -/
theorem inherited_dynamics {n : ℕ} (ρ : ℝ) (hρ0 : 0 ≤ ρ) (hρ1 : ρ ≤ 1)
    (h : (Fin n → ℝ) → Fin n → ℝ) (Q : Matrix (Fin n) (Fin n) ℝ)
    (hQo : Q ∈ Matrix.orthogonalGroup (Fin n) ℝ)
    (hQ : ∀ᵐ z ∂stdGaussianPi n, ∀ j, h z j = ∑ i, Q j i * z i) :
    (ouPair n).map (fun p => (h p.1, h (ouMap ρ p))) =
      (ouPair n).map (fun p => (p.1, ouMap ρ p)) := by
  have hrot : Measurable (fun z : Fin n → ℝ => Matrix.mulVec Q z) :=
    (Matrix.mulVecLin Q).continuous_of_finiteDimensional.measurable
  have hpair : Measurable (fun p : (Fin n → ℝ) × (Fin n → ℝ) => (p.1, ouMap ρ p)) :=
    measurable_fst.prodMk (measurable_ouMap ρ)
  have hcongr : (fun p : (Fin n → ℝ) × (Fin n → ℝ) => (h p.1, h (ouMap ρ p))) =ᵐ[ouPair n]
      fun p => (Matrix.mulVec Q p.1, Matrix.mulVec Q (ouMap ρ p)) := by
    filter_upwards [ae_inherited_dynamics hρ0 hρ1 hQ] with p hp
    rw [hp.1, hp.2]
  have hcomp : (fun p : (Fin n → ℝ) × (Fin n → ℝ) =>
        (Matrix.mulVec Q p.1, Matrix.mulVec Q (ouMap ρ p))) =
      (fun p : (Fin n → ℝ) × (Fin n → ℝ) => (p.1, ouMap ρ p)) ∘
        Prod.map (fun z => Matrix.mulVec Q z) (fun z => Matrix.mulVec Q z) := by
    funext p
    exact Prod.ext rfl (mulVec_ouMap ρ Q p)
  have hinv : (ouPair n).map
      (Prod.map (fun z => Matrix.mulVec Q z) (fun z => Matrix.mulVec Q z)) = ouPair n := by
    show ((stdGaussianPi n).prod (stdGaussianPi n)).map _ =
      (stdGaussianPi n).prod (stdGaussianPi n)
    rw [← Measure.map_prod_map _ _ hrot hrot, map_mulVec_pi_gaussianReal hQo]
  rw [Measure.map_congr hcongr, hcomp, ← Measure.map_map hpair (hrot.prodMap hrot), hinv]

/-- **C1 for optimal encoders.** A whitened square-integrable `h : ℝⁿ → ℝⁿ` attaining
`L(h) = 2n(1-ρ)`, `0 < ρ < 1`, is `h(z) = Q z` a.s. with `Q` orthogonal (T1), and its encoded
positive pair has the law of `(u, ρ u + √(1 - ρ²) η)`, `u, η` independent standard Gaussians. -/
theorem inherited_dynamics_of_optimal {n : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin n → ℝ) (hL2 : SquareIntegrable h) (hw : IsWhitened h)
    (hopt : alignmentLoss ρ h = 2 * n * (1 - ρ)) :
    ∃ Q : Matrix (Fin n) (Fin n) ℝ, Q ∈ Matrix.orthogonalGroup (Fin n) ℝ ∧
      (∀ᵐ z ∂stdGaussianPi n, ∀ j, h z j = ∑ i, Q j i * z i) ∧
      (ouPair n).map (fun p => (h p.1, h (ouMap ρ p))) =
        (ouPair n).map (fun p => (p.1, ouMap ρ p)) := by
  obtain ⟨Q, hQo, hQ⟩ := ((forward_identifiability ρ hρ0 hρ1 h hL2 hw).2).1 hopt
  exact ⟨Q, hQo, hQ, inherited_dynamics ρ hρ0.le hρ1.le h Q hQo hQ⟩

end LeJEPA
