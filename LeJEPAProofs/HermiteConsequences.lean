/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Axioms.HermiteMehler
import LeJEPAProofs.SpectralCore

/-!
# Consequences of the Hermite–Mehler decomposition for one output coordinate

## Main statements

* `LeJEPA.integral_sq_linear`: `E⟨w, z⟩² = ‖w‖²` under `γ_n`, derived from the axiom applied to
  `f = 0` (no separate Gaussian-moment axiom is needed).
* `LeJEPA.coord_spectral`: for a square-integrable `f` and `ρ ∈ (0, 1)` there is an energy
  `R ≥ 0` above degree one with
  - `E (f - ⟨q, z⟩)² = (E f)² + ‖a - q‖² + R` for all `q` (so `R` is the squared `L²` distance
    from `f - E f` to its best linear approximation),
  - `E f² = (E f)² + ‖a‖² + R` (Parseval),
  - `2(1-ρ)‖a‖² + 2(1-ρ²) R ≤ E (f(z') - f(z))² ≤ 2(1-ρ)‖a‖² + 2 R`,
  - `R = 0 → f = E f + ⟨a, z⟩` almost everywhere.
* `LeJEPA.alignmentLoss_eq_spectral`: the closed form
  `L(h) = ∑ⱼ (2(1-ρ)‖aⱼ‖² + 2 ∑ₖ (1 - ρ^(k+2)) r_{j,k})` of THEORY.md.

## Implementation notes

Only `LeJEPA.hermite_mehler_decomposition` is used, plus the fully proved spectral core.

## References

* THEORY.md, "Setting and notation" (degree decomposition, closed-form loss).
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- **Second moment of a linear form under `γ_n`:** `E⟨w, z⟩² = ‖w‖²`. Obtained from the
Hermite–Mehler axiom applied to the zero function, whose higher energies vanish by Parseval. -/
theorem integral_sq_linear (n : ℕ) (w : Fin n → ℝ) :
    ∫ z, (∑ i, w i * z i) ^ 2 ∂stdGaussian n = ∑ i, w i ^ 2 := by
  obtain ⟨r, hr0, -, hq, -, -, -⟩ := hermite_mehler_decomposition n 0 MemLp.zero
  have hc : ∫ z, (0 : (Fin n → ℝ) → ℝ) z ∂stdGaussian n = 0 := by
    first
      | (simp; done)
      | exact integral_zero _ _
  have ha : ∀ i, linearCoeff (0 : (Fin n → ℝ) → ℝ) i = 0 := fun i => by
    first
      | (simp [linearCoeff]; done)
      | (unfold linearCoeff; simp only [Pi.zero_apply, zero_mul]; exact integral_zero _ _)
  -- `q = 0`: the energies above degree one vanish.
  have hR : ∑' k, r k = 0 := by
    have h0 := hq 0
    have e0 : ∀ z : Fin n → ℝ,
        ((0 : (Fin n → ℝ) → ℝ) z - ∑ i, (0 : Fin n → ℝ) i * z i) ^ 2 = 0 := fun z => by
      first
        | (simp only [Pi.zero_apply, zero_mul, Finset.sum_const_zero, sub_zero]; ring1)
        | (simp; done)
    have e1 : ∀ i, (linearCoeff (0 : (Fin n → ℝ) → ℝ) i - (0 : Fin n → ℝ) i) ^ 2 = 0 :=
      fun i => by
        first
          | (rw [ha i, Pi.zero_apply]; ring1)
          | (simp [ha i]; done)
    first
      | simp only [e0, e1, hc, integral_zero, Finset.sum_const_zero] at h0
        linarith [tsum_nonneg hr0]
      | simp [linearCoeff] at h0
        linarith [tsum_nonneg hr0]
  -- general `q = w`.
  have h1 := hq w
  have e2 : ∀ z : Fin n → ℝ,
      ((0 : (Fin n → ℝ) → ℝ) z - ∑ i, w i * z i) ^ 2 = (∑ i, w i * z i) ^ 2 := fun z => by
    first
      | (rw [Pi.zero_apply]; ring1)
      | (simp; done)
  have e3 : ∀ i, (linearCoeff (0 : (Fin n → ℝ) → ℝ) i - w i) ^ 2 = w i ^ 2 :=
    fun i => by rw [ha i]; ring1
  first
    | simp only [e2, e3, hc] at h1
      linarith
    | simp [linearCoeff, neg_sq] at h1
      linarith

/-- **Spectral data of one square-integrable coordinate.** See the module docstring. -/
theorem coord_spectral {n : ℕ} (f : (Fin n → ℝ) → ℝ) (hf : MemLp f 2 (stdGaussian n))
    (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1) :
    ∃ R : ℝ, 0 ≤ R ∧
      (∀ q : Fin n → ℝ, ∫ z, (f z - ∑ i, q i * z i) ^ 2 ∂stdGaussian n =
        (∫ z, f z ∂stdGaussian n) ^ 2 + ∑ i, (linearCoeff f i - q i) ^ 2 + R) ∧
      ∫ z, f z ^ 2 ∂stdGaussian n =
        (∫ z, f z ∂stdGaussian n) ^ 2 + ∑ i, linearCoeff f i ^ 2 + R ∧
      2 * (1 - ρ) * ∑ i, linearCoeff f i ^ 2 + 2 * (1 - ρ ^ 2) * R ≤
        ∫ p, (f (ouMap ρ p) - f p.1) ^ 2 ∂ouPair n ∧
      ∫ p, (f (ouMap ρ p) - f p.1) ^ 2 ∂ouPair n ≤
        2 * (1 - ρ) * ∑ i, linearCoeff f i ^ 2 + 2 * R ∧
      (R = 0 → ∀ᵐ z ∂stdGaussian n,
        f z = (∫ w, f w ∂stdGaussian n) + ∑ i, linearCoeff f i * z i) := by
  obtain ⟨r, hr0, hrs, hq, -, hloss, hcomp⟩ := hermite_mehler_decomposition n f hf
  have hL := hloss ρ hρ0 hρ1
  have hlo := one_sub_sq_mul_tsum_le hρ0.le hρ1.le hr0 hrs
  have hhi := tsum_one_sub_pow_le hρ0.le hρ1.le hr0 hrs
  refine ⟨∑' k, r k, tsum_nonneg hr0, hq, ?_, ?_, ?_, ?_⟩
  · have h0 := hq 0
    first
      | (simp only [Pi.zero_apply, zero_mul, Finset.sum_const_zero, sub_zero] at h0; exact h0)
      | simpa using h0
  · linarith
  · linarith
  · intro hR
    exact hcomp (eq_zero_of_tsum_eq_zero hr0 hrs hR)

/-- **Closed-form alignment loss** (THEORY.md): for square-integrable `h` and `ρ ∈ (0, 1)` there
are nonnegative summable energies `r j k = ‖(hⱼ)_{k+2}‖²` with
`L(h) = ∑ⱼ (2(1-ρ) ∑ᵢ aⱼᵢ² + 2 ∑ₖ (1 - ρ^(k+2)) r j k)`, `aⱼᵢ = E[hⱼ(z) zᵢ]`; degree zero
costs nothing. -/
theorem alignmentLoss_eq_spectral {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h) :
    ∃ r : Fin m → ℕ → ℝ, (∀ j k, 0 ≤ r j k) ∧ (∀ j, Summable (r j)) ∧
      alignmentLoss ρ h = ∑ j, (2 * (1 - ρ) * ∑ i, linearCoeff (fun z => h z j) i ^ 2 +
        2 * ∑' k, (1 - ρ ^ (k + 2)) * r j k) := by
  choose r hr0 hrs _hq _hcorr hloss _hcomp using
    fun j => hermite_mehler_decomposition n (fun z => h z j) (hL2 j)
  refine ⟨r, hr0, hrs, ?_⟩
  unfold alignmentLoss
  exact Finset.sum_congr rfl fun j _ => hloss j ρ hρ0 hρ1

end LeJEPA
