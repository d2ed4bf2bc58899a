/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib.Probability.Distributions.Gaussian.Multivariate
import Mathlib.Tactic.FunProp

/-!
# The setting: Gaussian latents, the Ornstein–Uhlenbeck pair, the alignment loss

This file defines, on genuine Mathlib objects, the quantities of the paper
"When Does LeJEPA Learn a World Model?":

* `LeJEPA.stdGaussianPi n`: the standard Gaussian `γ_n = N(0, I_n)` on `ℝⁿ = Fin n → ℝ`,
  the product of `n` copies of `ProbabilityTheory.gaussianReal 0 1`;
* `LeJEPA.ouPair n`: the law `γ_n ⊗ γ_n` of the pair `(z, ξ)`;
* `LeJEPA.ouMap ρ`: the Ornstein–Uhlenbeck channel `(z, ξ) ↦ ρ z + √(1 - ρ²) ξ`, so that the
  positive pair is `(z, z') = (z, ouMap ρ (z, ξ))`;
* `LeJEPA.linearCoeff f i = E[f(z) zᵢ]`: the coefficient of `f` on the degree-one Hermite
  polynomial `H_{eᵢ}(z) = zᵢ`;
* `LeJEPA.alignmentLoss ρ h = E‖h(z') - h(z)‖²` for an encoder `h : ℝⁿ → ℝᵐ`;
* `LeJEPA.SquareIntegrable h` and `LeJEPA.IsWhitened h`: the hypotheses `E‖h‖² < ∞` and
  `E h = 0, Cov h = I_m`.

## Main statements

Definitions only; the elementary lemma `LeJEPA.measurable_ouMap`.

## Implementation notes

* We work on `Fin n → ℝ` with the product measure rather than on `EuclideanSpace ℝ (Fin n)`:
  the product structure makes the coordinates and the Gaussian law explicit, and inner
  products are written as finite sums `∑ i, q i * z i`. The measure is called `stdGaussianPi`
  so that its name does not clash with Mathlib's `ProbabilityTheory.stdGaussian E` on a
  Euclidean space; the two are related by
  `ProbabilityTheory.map_pi_eq_stdGaussian` (used in `LeJEPAProofs/ForMathlib/Gaussian.lean`).
* `alignmentLoss` is the sum over output coordinates of `∫ (h(z')ⱼ - h(z)ⱼ)²`, which equals
  `E‖h(z') - h(z)‖²` by linearity of the integral for square-integrable `h` (the only case in
  which the theorems use it).
* `IsWhitened` states `Cov h = I_m` in quadratic-form form: `E⟨v, h(z)⟩² = ‖v‖²` for every
  `v`. For square-integrable `h` this is equivalent to `E[hⱼ hₖ] = δⱼₖ` (polarization), and it
  is the form in which SIGReg tests whitening (one-dimensional projections).

## References

* D. Klindt, Y. LeCun, R. Balestriero, *When Does LeJEPA Learn a World Model?* (2026).
* The project's `docs/THEORY.md`, section "Setting and notation".
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- The standard Gaussian measure `γ_n = N(0, I_n)` on `ℝⁿ = Fin n → ℝ`: the product of `n`
standard real Gaussians `ProbabilityTheory.gaussianReal 0 1`. -/
noncomputable abbrev stdGaussianPi (n : ℕ) : Measure (Fin n → ℝ) :=
  Measure.pi fun _ : Fin n => gaussianReal 0 1

/-- The law `γ_n ⊗ γ_n` of the independent pair `(z, ξ)` that generates a positive pair. -/
noncomputable abbrev ouPair (n : ℕ) : Measure ((Fin n → ℝ) × (Fin n → ℝ)) :=
  (stdGaussianPi n).prod (stdGaussianPi n)

/-- The Ornstein–Uhlenbeck channel: `(z, ξ) ↦ z' = ρ z + √(1 - ρ²) ξ`. Under `ouPair n`,
`(p.1, ouMap ρ p)` is the positive pair `(z, z')` of correlation `ρ`. -/
noncomputable def ouMap {n : ℕ} (ρ : ℝ) (p : (Fin n → ℝ) × (Fin n → ℝ)) : Fin n → ℝ :=
  fun i => ρ * p.1 i + Real.sqrt (1 - ρ ^ 2) * p.2 i

/-- The coefficient `E[f(z) zᵢ]` of `f` on the degree-one Hermite polynomial `zᵢ`.
The degree-one part of `f` is `z ↦ ∑ i, linearCoeff f i * zᵢ` (for `h = f ∘ g` vector valued,
the matrix `A = E[h(z) zᵀ]` of THEORY.md has rows `linearCoeff (fun z => h z j)`). -/
noncomputable def linearCoeff {n : ℕ} (f : (Fin n → ℝ) → ℝ) (i : Fin n) : ℝ :=
  ∫ z, f z * z i ∂stdGaussianPi n

/-- The alignment loss `L(h) = E‖h(z') - h(z)‖²` of an encoder `h : ℝⁿ → ℝᵐ`, written as the
sum over output coordinates of `∫ (h(z')ⱼ - h(z)ⱼ)² d(γ_n ⊗ γ_n)`. -/
noncomputable def alignmentLoss {n m : ℕ} (ρ : ℝ) (h : (Fin n → ℝ) → Fin m → ℝ) : ℝ :=
  ∑ j, ∫ p, (h (ouMap ρ p) j - h p.1 j) ^ 2 ∂ouPair n

/-- `E‖h(z)‖² < ∞`: every output coordinate of `h` is in `L²(γ_n)` (this includes
a.e.-strong measurability). -/
def SquareIntegrable {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) : Prop :=
  ∀ j, MemLp (fun z => h z j) 2 (stdGaussianPi n)

/-- Whitening in second-moment form, what SIGReg enforces at its optimum: `E h = 0` and
`E⟨v, h(z)⟩² = ‖v‖²` for every `v ∈ ℝᵐ`, i.e. `Cov h = I_m`. -/
def IsWhitened {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) : Prop :=
  (∀ j, ∫ z, h z j ∂stdGaussianPi n = 0) ∧
    ∀ v : Fin m → ℝ, ∫ z, (∑ j, v j * h z j) ^ 2 ∂stdGaussianPi n = ∑ j, v j ^ 2

/-- The Ornstein–Uhlenbeck channel is measurable. -/
theorem measurable_ouMap {n : ℕ} (ρ : ℝ) : Measurable (ouMap (n := n) ρ) := by
  show Measurable fun p : (Fin n → ℝ) × (Fin n → ℝ) =>
    fun i => ρ * p.1 i + Real.sqrt (1 - ρ ^ 2) * p.2 i
  fun_prop

end LeJEPA
