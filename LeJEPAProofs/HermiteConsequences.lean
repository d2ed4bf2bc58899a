/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Axioms.HermiteMehler
import LeJEPAProofs.OUStationary
import LeJEPAProofs.Moments
import LeJEPAProofs.SpectralCore
import LeJEPAProofs.ForMathlib.Integral

/-!
# Consequences of the Hermite–Mehler decomposition; the closed-form loss (LOSS)

## Main statements

* `LeJEPA.parseval_sub_linear`: Parseval at `q = 0` (the axiom's first clause),
  `E f² = (E f)² + ‖a‖² + R`, gives `E (f(z) - ⟨q, z⟩)² = (E f)² + ‖a - q‖² + R` for every `q`.
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
`LeJEPA.hermite_mehler_decomposition` provides Parseval (at `q = 0`) and Mehler's cross-moment,
and stationarity (a theorem) turns `E f(z')²` into `E f(z)²`. Integrability of `f(z) f(z')` under
`γ_n ⊗ γ_n` comes from `LeJEPA.integrable_mul_of_memLp_two` and `MemLp.comp_measurePreserving`.
Parseval against every linear form `⟨q, z⟩` is not assumed either: expanding the square,
`E (f - ⟨q, z⟩)² = E f² - 2 ∑ᵢ qᵢ aᵢ + E⟨q, z⟩²`, and `E⟨q, z⟩² = ‖q‖²` is the Gaussian moment
`LeJEPA.integral_sq_linear` (`LeJEPAProofs/Moments.lean`, proved from Mathlib, no axiom).

## References

* docs/THEORY.md, "Setting and notation" (degree decomposition, closed-form loss).
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

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

/-- **Parseval against a linear form.** If `f ∈ L²(γ_n)` satisfies Parseval at `q = 0`,
`E f² = (E f)² + ‖a‖² + R` with `aᵢ = E[f(z) zᵢ]`, then for every `q ∈ ℝⁿ`
`E (f(z) - ⟨q, z⟩)² = (E f)² + ‖a - q‖² + R`: expand the square, use
`E[f(z) ⟨q, z⟩] = ⟨q, a⟩` and `E⟨q, z⟩² = ‖q‖²` (`LeJEPA.integral_sq_linear`). -/
theorem parseval_sub_linear {n : ℕ} {f : (Fin n → ℝ) → ℝ} (hf : MemLp f 2 (stdGaussianPi n))
    {R : ℝ}
    (hpars : ∫ z, f z ^ 2 ∂stdGaussianPi n =
      (∫ z, f z ∂stdGaussianPi n) ^ 2 + ∑ i, linearCoeff f i ^ 2 + R)
    (q : Fin n → ℝ) :
    ∫ z, (f z - ∑ i, q i * z i) ^ 2 ∂stdGaussianPi n =
      (∫ z, f z ∂stdGaussianPi n) ^ 2 + ∑ i, (linearCoeff f i - q i) ^ 2 + R := by
  have hL : MemLp (fun z : Fin n → ℝ => ∑ i, q i * z i) 2 (stdGaussianPi n) :=
    memLp_finset_sum Finset.univ fun i _ => (memLp_coord n i).const_mul (q i)
  have iFF : Integrable (fun z => f z ^ 2) (stdGaussianPi n) := hf.integrable_sq
  have iLL : Integrable (fun z : Fin n → ℝ => (∑ i, q i * z i) ^ 2) (stdGaussianPi n) :=
    hL.integrable_sq
  have iFL : Integrable (fun z => f z * ∑ i, q i * z i) (stdGaussianPi n) :=
    integrable_mul_of_memLp_two hf hL
  have i1 : Integrable (fun z => f z ^ 2 + (∑ i, q i * z i) ^ 2) (stdGaussianPi n) :=
    iFF.add iLL
  have i2 : Integrable (fun z => 2 * (f z * ∑ i, q i * z i)) (stdGaussianPi n) :=
    iFL.const_mul 2
  have hpt : (fun z => (f z - ∑ i, q i * z i) ^ 2) =
      fun z => f z ^ 2 + (∑ i, q i * z i) ^ 2 - 2 * (f z * ∑ i, q i * z i) := by
    funext z
    ring
  -- The cross term: `E[f(z) ⟨q, z⟩] = ∑ᵢ qᵢ aᵢ`.
  have hcross : ∫ z, f z * ∑ i, q i * z i ∂stdGaussianPi n = ∑ i, q i * linearCoeff f i := by
    have hint : ∀ i ∈ (Finset.univ : Finset (Fin n)),
        Integrable (fun z => q i * (f z * z i)) (stdGaussianPi n) :=
      fun i _ => (integrable_mul_of_memLp_two hf (memLp_coord n i)).const_mul (q i)
    have hfun : (fun z => f z * ∑ i, q i * z i) = fun z => ∑ i, q i * (f z * z i) := by
      funext z
      rw [Finset.mul_sum]
      exact Finset.sum_congr rfl fun i _ => by ring
    rw [hfun, integral_finset_sum Finset.univ hint]
    simp only [linearCoeff]
    exact Finset.sum_congr rfl fun i _ => integral_const_mul (q i) _
  have hexp : ∑ i, (linearCoeff f i - q i) ^ 2 =
      ∑ i, linearCoeff f i ^ 2 - 2 * ∑ i, q i * linearCoeff f i + ∑ i, q i ^ 2 := by
    have h : ∀ i, (linearCoeff f i - q i) ^ 2 =
        linearCoeff f i ^ 2 - 2 * (q i * linearCoeff f i) + q i ^ 2 := fun i => by ring
    rw [Finset.sum_congr rfl fun i _ => h i, Finset.sum_add_distrib, Finset.sum_sub_distrib,
      ← Finset.mul_sum]
  rw [hpt, integral_sub i1 i2, integral_add iFF iLL, integral_const_mul, hcross,
    integral_sq_linear n q]
  linarith [hexp, hpars]

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
  obtain ⟨r, hr0, hrs, hpars, hmehler, hcomp⟩ := hermite_mehler_decomposition n f hf
  have hL := coord_loss_eq hf hr0 hrs hpars hρ0 hρ1 (hmehler ρ hρ0 hρ1)
  have hlo := one_sub_sq_mul_tsum_le hρ0.le hρ1.le hr0 hrs
  have hhi := tsum_one_sub_pow_le hρ0.le hρ1.le hr0 hrs
  refine ⟨∑' k, r k, tsum_nonneg hr0, fun q => parseval_sub_linear hf hpars q, hpars, ?_, ?_,
    fun hR => ?_⟩
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
  choose r hr0 hrs hpars hmehler _hcomp using
    fun j => hermite_mehler_decomposition n (fun z => h z j) (hL2 j)
  refine ⟨r, hr0, hrs, hpars, hmehler, fun ρ hρ0 hρ1 => ?_⟩
  unfold alignmentLoss
  exact Finset.sum_congr rfl fun j _ =>
    coord_loss_eq (hL2 j) (hr0 j) (hrs j) (hpars j) hρ0 hρ1 (hmehler j ρ hρ0 hρ1)

end LeJEPA
