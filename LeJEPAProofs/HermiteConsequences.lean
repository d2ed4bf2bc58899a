/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Axioms.HermiteMehler
import LeJEPAProofs.OUStationary
import LeJEPAProofs.SpectralCore
import LeJEPAProofs.ForMathlib.Integral

/-!
# Consequences of the Hermite–Mehler decomposition; the closed-form loss (LOSS)

## Main statements

* `LeJEPA.integral_sq_linear`: `E⟨w, z⟩² = ‖w‖²` under `γ_n`, derived from the axiom applied to
  `f = 0` (no separate Gaussian-moment axiom is needed).
* `LeJEPA.integral_sq_sub_eq`: for `f ∈ L²(γ_n)` and `0 ≤ ρ ≤ 1`,
  `E (f(z') - f(z))² = 2 E f² - 2 E[f(z) f(z')]`, from the stationarity of the channel
  (`LeJEPA.ou_stationary`).
* `LeJEPA.coord_loss_eq`: the closed form `E (f(z') - f(z))² = 2(1-ρ)‖a‖² + 2 ∑ₖ (1-ρ^(k+2)) r k`
  for the energies `r` of the axiom: Parseval minus Mehler.
* `LeJEPA.coord_spectral`: for a square-integrable `f` and `ρ ∈ (0, 1)` there is an energy
  `R ≥ 0` above degree one with Parseval, the two-sided loss bounds
  `2(1-ρ)‖a‖² + 2(1-ρ²) R ≤ E (f(z') - f(z))² ≤ 2(1-ρ)‖a‖² + 2 R`, and completeness.
* `LeJEPA.alignmentLoss_eq_spectral` (**LOSS**): for square-integrable `h` there are energies
  `r j k ≥ 0` (of the Hermite degree `k + 2` of the output coordinate `j`), tied to `h` by
  Parseval and by Mehler's formula for every `ρ ∈ (0, 1)`, such that for every `ρ ∈ (0, 1)`
  `L(h) = ∑ⱼ (2(1-ρ)‖aⱼ‖² + 2 ∑ₖ (1 - ρ^(k+2)) r j k)`, i.e. `L(h) = 2 ∑_{d ≥ 1} (1-ρ^d) ‖h_d‖²`.

## Implementation notes

The closed form is a theorem here, not an assumption: the axiom
`LeJEPA.hermite_mehler_decomposition` provides Parseval and Mehler's cross-moment, and
stationarity (a theorem) turns `E f(z')²` into `E f(z)²`. Integrability of `f(z) f(z')` under
`γ_n ⊗ γ_n` comes from `LeJEPA.integrable_mul_of_memLp_two` and `MemLp.comp_measurePreserving`.

## References

* docs/THEORY.md, "Setting and notation" (degree decomposition, closed-form loss).
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- **Second moment of a linear form under `γ_n`:** `E⟨w, z⟩² = ‖w‖²`. Obtained from the
Hermite–Mehler axiom applied to the zero function, whose higher energies vanish by Parseval. -/
theorem integral_sq_linear (n : ℕ) (w : Fin n → ℝ) :
    ∫ z, (∑ i, w i * z i) ^ 2 ∂stdGaussianPi n = ∑ i, w i ^ 2 := by
  obtain ⟨r, hr0, -, hq, -, -⟩ := hermite_mehler_decomposition n 0 MemLp.zero
  have hc : (∫ z, (0 : (Fin n → ℝ) → ℝ) z ∂stdGaussianPi n) ^ 2 = 0 := by simp
  have ha : ∀ i, linearCoeff (0 : (Fin n → ℝ) → ℝ) i = 0 := fun i => by simp [linearCoeff]
  have e0 : ∀ z : Fin n → ℝ,
      ((0 : (Fin n → ℝ) → ℝ) z - ∑ i, (0 : Fin n → ℝ) i * z i) ^ 2 = 0 := fun z => by simp
  have e1 : ∀ i, (linearCoeff (0 : (Fin n → ℝ) → ℝ) i - (0 : Fin n → ℝ) i) ^ 2 = 0 :=
    fun i => by rw [ha i, Pi.zero_apply]; ring
  -- `q = 0`: the energies above degree one vanish.
  have hR : ∑' k, r k = 0 := by
    have h0 := hq 0
    simp only [e0, e1, hc, integral_zero, Finset.sum_const_zero] at h0
    linarith [tsum_nonneg hr0]
  -- general `q = w`.
  have h1 := hq w
  have e2 : ∀ z : Fin n → ℝ,
      ((0 : (Fin n → ℝ) → ℝ) z - ∑ i, w i * z i) ^ 2 = (∑ i, w i * z i) ^ 2 := fun z => by
    rw [Pi.zero_apply]
    ring
  have e3 : ∀ i, (linearCoeff (0 : (Fin n → ℝ) → ℝ) i - w i) ^ 2 = w i ^ 2 :=
    fun i => by rw [ha i]; ring
  simp only [e2, e3, hc, hR] at h1
  linarith

/-- **Stationarity in second moments.** For `f ∈ L²(γ_n)` and `0 ≤ ρ ≤ 1`,
`E (f(z') - f(z))² = 2 E f(z)² - 2 E[f(z) f(z')]`, because `z` and `z'` both have law `γ_n`. -/
theorem integral_sq_sub_eq {n : ℕ} {f : (Fin n → ℝ) → ℝ} (hf : MemLp f 2 (stdGaussianPi n))
    {ρ : ℝ} (h0 : 0 ≤ ρ) (h1 : ρ ≤ 1) :
    ∫ p, (f (ouMap ρ p) - f p.1) ^ 2 ∂ouPair n =
      2 * ∫ z, f z ^ 2 ∂stdGaussianPi n - 2 * ∫ p, f p.1 * f (ouMap ρ p) ∂ouPair n := by
  have hX : MemLp (fun p : (Fin n → ℝ) × (Fin n → ℝ) => f p.1) 2 (ouPair n) :=
    hf.comp_measurePreserving (measurePreserving_fst_ouPair n)
  have hY : MemLp (fun p : (Fin n → ℝ) × (Fin n → ℝ) => f (ouMap ρ p)) 2 (ouPair n) :=
    hf.comp_measurePreserving (measurePreserving_ouMap n h0 h1)
  have iXX : Integrable (fun p : (Fin n → ℝ) × (Fin n → ℝ) => f p.1 ^ 2) (ouPair n) :=
    hX.integrable_sq
  have iYY : Integrable (fun p : (Fin n → ℝ) × (Fin n → ℝ) => f (ouMap ρ p) ^ 2) (ouPair n) :=
    hY.integrable_sq
  have iXY := integrable_mul_of_memLp_two hX hY
  have i1 : Integrable (fun p : (Fin n → ℝ) × (Fin n → ℝ) =>
      f (ouMap ρ p) ^ 2 + f p.1 ^ 2) (ouPair n) := iYY.add iXX
  have i2 : Integrable (fun p : (Fin n → ℝ) × (Fin n → ℝ) =>
      2 * (f p.1 * f (ouMap ρ p))) (ouPair n) := iXY.const_mul 2
  have hsq : AEStronglyMeasurable (fun z => f z ^ 2) (stdGaussianPi n) :=
    hf.integrable_sq.aestronglyMeasurable
  have eX : ∫ p, f p.1 ^ 2 ∂ouPair n = ∫ z, f z ^ 2 ∂stdGaussianPi n :=
    integral_comp_of_measurePreserving (measurePreserving_fst_ouPair n) hsq
  have eY : ∫ p, f (ouMap ρ p) ^ 2 ∂ouPair n = ∫ z, f z ^ 2 ∂stdGaussianPi n :=
    integral_comp_of_measurePreserving (measurePreserving_ouMap n h0 h1) hsq
  have hpt : (fun p : (Fin n → ℝ) × (Fin n → ℝ) => (f (ouMap ρ p) - f p.1) ^ 2) =
      fun p => f (ouMap ρ p) ^ 2 + f p.1 ^ 2 - 2 * (f p.1 * f (ouMap ρ p)) := by
    funext p
    ring
  rw [hpt, integral_sub i1 i2, integral_add iYY iXX, integral_const_mul, eX, eY]
  ring

/-- **The closed form for one coordinate.** If `r` are the energies of the Hermite–Mehler
decomposition of `f ∈ L²(γ_n)` (Parseval at `q = 0` and Mehler's clause), then for `0 < ρ < 1`:
`E (f(z') - f(z))² = 2(1-ρ)‖a‖² + 2 ∑ₖ (1 - ρ^(k+2)) r k`. -/
theorem coord_loss_eq {n : ℕ} {f : (Fin n → ℝ) → ℝ} (hf : MemLp f 2 (stdGaussianPi n))
    {r : ℕ → ℝ} (hr0 : ∀ k, 0 ≤ r k) (hr : Summable r)
    (hpars : ∫ z, f z ^ 2 ∂stdGaussianPi n =
      (∫ z, f z ∂stdGaussianPi n) ^ 2 + ∑ i, linearCoeff f i ^ 2 + ∑' k, r k)
    {ρ : ℝ} (h0 : 0 < ρ) (h1 : ρ < 1)
    (hmehler : ∫ p, f p.1 * f (ouMap ρ p) ∂ouPair n =
      (∫ z, f z ∂stdGaussianPi n) ^ 2 + ρ * ∑ i, linearCoeff f i ^ 2 +
        ∑' k, ρ ^ (k + 2) * r k) :
    ∫ p, (f (ouMap ρ p) - f p.1) ^ 2 ∂ouPair n =
      2 * (1 - ρ) * ∑ i, linearCoeff f i ^ 2 + 2 * ∑' k, (1 - ρ ^ (k + 2)) * r k := by
  rw [integral_sq_sub_eq hf h0.le h1.le, hpars, hmehler,
    tsum_one_sub_pow_mul h0.le h1.le hr0 hr]
  ring

/-- Parseval at `q = 0`, read off the axiom's first clause. -/
theorem parseval_of_forall_q {n : ℕ} {f : (Fin n → ℝ) → ℝ} {R : ℝ}
    (hq : ∀ q : Fin n → ℝ, ∫ z, (f z - ∑ i, q i * z i) ^ 2 ∂stdGaussianPi n =
      (∫ z, f z ∂stdGaussianPi n) ^ 2 + ∑ i, (linearCoeff f i - q i) ^ 2 + R) :
    ∫ z, f z ^ 2 ∂stdGaussianPi n =
      (∫ z, f z ∂stdGaussianPi n) ^ 2 + ∑ i, linearCoeff f i ^ 2 + R := by
  have h0 := hq 0
  simp only [Pi.zero_apply, zero_mul, Finset.sum_const_zero, sub_zero] at h0
  exact h0

/-- **Spectral data of one square-integrable coordinate.** See the module docstring. -/
theorem coord_spectral {n : ℕ} (f : (Fin n → ℝ) → ℝ) (hf : MemLp f 2 (stdGaussianPi n))
    (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1) :
    ∃ R : ℝ, 0 ≤ R ∧
      (∀ q : Fin n → ℝ, ∫ z, (f z - ∑ i, q i * z i) ^ 2 ∂stdGaussianPi n =
        (∫ z, f z ∂stdGaussianPi n) ^ 2 + ∑ i, (linearCoeff f i - q i) ^ 2 + R) ∧
      ∫ z, f z ^ 2 ∂stdGaussianPi n =
        (∫ z, f z ∂stdGaussianPi n) ^ 2 + ∑ i, linearCoeff f i ^ 2 + R ∧
      2 * (1 - ρ) * ∑ i, linearCoeff f i ^ 2 + 2 * (1 - ρ ^ 2) * R ≤
        ∫ p, (f (ouMap ρ p) - f p.1) ^ 2 ∂ouPair n ∧
      ∫ p, (f (ouMap ρ p) - f p.1) ^ 2 ∂ouPair n ≤
        2 * (1 - ρ) * ∑ i, linearCoeff f i ^ 2 + 2 * R ∧
      (R = 0 → ∀ᵐ z ∂stdGaussianPi n,
        f z = (∫ w, f w ∂stdGaussianPi n) + ∑ i, linearCoeff f i * z i) := by
  obtain ⟨r, hr0, hrs, hq, hmehler, hcomp⟩ := hermite_mehler_decomposition n f hf
  have hpars := parseval_of_forall_q hq
  have hL := coord_loss_eq hf hr0 hrs hpars hρ0 hρ1 (hmehler ρ hρ0 hρ1)
  have hlo := one_sub_sq_mul_tsum_le hρ0.le hρ1.le hr0 hrs
  have hhi := tsum_one_sub_pow_le hρ0.le hρ1.le hr0 hrs
  refine ⟨∑' k, r k, tsum_nonneg hr0, hq, hpars, ?_, ?_, fun hR => ?_⟩
  · linarith
  · linarith
  · exact hcomp (eq_zero_of_tsum_eq_zero hr0 hrs hR)

/-- **LOSS: the closed-form alignment loss** (THEORY.md). For square-integrable `h` there are
nonnegative summable energies `r j k` (`= ‖(hⱼ)_{k+2}‖²`, the Hermite degree `k + 2` of the
output coordinate `j`), determined by `h` through
* Parseval: `E hⱼ² = (E hⱼ)² + ‖aⱼ‖² + ∑ₖ r j k`, and
* Mehler: `E[hⱼ(z) hⱼ(z')] = (E hⱼ)² + ρ ‖aⱼ‖² + ∑ₖ ρ^(k+2) r j k` for every `ρ ∈ (0, 1)`,

such that for every `ρ ∈ (0, 1)`
`L(h) = ∑ⱼ (2(1-ρ) ∑ᵢ aⱼᵢ² + 2 ∑ₖ (1 - ρ^(k+2)) r j k)` with `aⱼᵢ = E[hⱼ(z) zᵢ]`: degree zero
costs nothing and degree `d` costs `2(1 - ρ^d)` per unit of energy. -/
theorem alignmentLoss_eq_spectral {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ)
    (hL2 : SquareIntegrable h) :
    ∃ r : Fin m → ℕ → ℝ, (∀ j k, 0 ≤ r j k) ∧ (∀ j, Summable (r j)) ∧
      (∀ j, ∫ z, h z j ^ 2 ∂stdGaussianPi n =
        (∫ z, h z j ∂stdGaussianPi n) ^ 2 + ∑ i, linearCoeff (fun z => h z j) i ^ 2 +
          ∑' k, r j k) ∧
      (∀ j, ∀ ρ : ℝ, 0 < ρ → ρ < 1 →
        ∫ p, h p.1 j * h (ouMap ρ p) j ∂ouPair n =
          (∫ z, h z j ∂stdGaussianPi n) ^ 2 + ρ * ∑ i, linearCoeff (fun z => h z j) i ^ 2 +
            ∑' k, ρ ^ (k + 2) * r j k) ∧
      ∀ ρ : ℝ, 0 < ρ → ρ < 1 →
        alignmentLoss ρ h = ∑ j, (2 * (1 - ρ) * ∑ i, linearCoeff (fun z => h z j) i ^ 2 +
          2 * ∑' k, (1 - ρ ^ (k + 2)) * r j k) := by
  choose r hr0 hrs hq hmehler _hcomp using
    fun j => hermite_mehler_decomposition n (fun z => h z j) (hL2 j)
  have hpars : ∀ j, ∫ z, h z j ^ 2 ∂stdGaussianPi n =
      (∫ z, h z j ∂stdGaussianPi n) ^ 2 + ∑ i, linearCoeff (fun z => h z j) i ^ 2 +
        ∑' k, r j k := fun j => parseval_of_forall_q (hq j)
  refine ⟨r, hr0, hrs, hpars, hmehler, fun ρ hρ0 hρ1 => ?_⟩
  unfold alignmentLoss
  exact Finset.sum_congr rfl fun j _ =>
    coord_loss_eq (hL2 j) (hr0 j) (hrs j) (hpars j) hρ0 hρ1 (hmehler j ρ hρ0 hρ1)

end LeJEPA
