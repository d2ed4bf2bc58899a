/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Identifiability
import LeJEPAProofs.ForMathlib.Integral

/-!
# M1 for `m > n`: the value of the relaxed optimum

For a whitened square-integrable `h : ℝⁿ → ℝᵐ` the degree-one energies obey Bessel's inequality
in `L²(γ_n)`: for every input coordinate `i`, `∑ⱼ E[hⱼ(z) zᵢ]² ≤ E zᵢ² = 1`, because the whitened
coordinates `hⱼ` are orthonormal. So at most `n` units of the total output energy `m` can sit on
the top Mehler eigenvalue `ρ` (degree one); the rest has eigenvalue at most `ρ²`. This gives
THEORY.md's value of the relaxed optimum for `n < m ≤ n + n(n+1)/2` (for larger `m` only a lower
bound: there are `n(n+1)/2` degree-two harmonics, and degree three enters).

## Main statements

* `LeJEPA.linearCoeff_sum`: `E[(∑ⱼ vⱼ hⱼ(z)) zᵢ] = ∑ⱼ vⱼ E[hⱼ(z) zᵢ]`.
* `LeJEPA.sum_linearCoeff_sq_le_one` (Bessel): `∑ⱼ E[hⱼ(z) zᵢ]² ≤ 1` for whitened `h`.
* `LeJEPA.alignmentLoss_ge_output_dim` (**M1**, `m ≥ n`): every whitened square-integrable
  `h : ℝⁿ → ℝᵐ` has `L(h) ≥ 2n(1-ρ) + 2(m-n)(1-ρ²)`, the loss of the relaxed optimum (all `n`
  degree-one directions plus `m - n` degree-two harmonics) for `n < m ≤ n + n(n+1)/2`; beyond
  that there are not enough degree-two harmonics, degree three enters and the bound is not
  attained. The inequality holds for all `m, n`; for `m ≤ n` the bound `2m(1-ρ)` of
  `LeJEPA.alignmentLoss_ge_of_whitened` is the sharper one.

## Implementation notes

No new axiom. That `zᵢ ∈ L²(γ_n)` is `LeJEPA.memLp_coord` (`LeJEPAProofs/Moments.lean`, proved
from Mathlib's real Gaussian). Products of `L²` functions are integrable
(`LeJEPA.integrable_mul_of_memLp_two`). Bessel's inequality comes from
the Parseval identity of `LeJEPA.coord_spectral` applied to `F = ∑ⱼ aⱼᵢ hⱼ`, whose second moment
is `∑ⱼ aⱼᵢ²` by whitening and whose `i`-th degree-one coefficient is also `∑ⱼ aⱼᵢ²`, so
`s ≥ s²` for `s = ∑ⱼ aⱼᵢ²`. Attainment of the bound (by `z` together with degree-two harmonics)
is checked numerically, not formalized.
Mathlib names used: `MemLp.const_mul`, `memLp_finset_sum`,
`Integrable.const_mul`, `integral_finset_sum`, `integral_const_mul`
(`Mathlib/MeasureTheory/Function/LpSeminorm/*.lean`, `Mathlib/MeasureTheory/Function/L2Space.lean`,
`Mathlib/MeasureTheory/Integral/Bochner/*.lean`).

## References

* docs/THEORY.md, "Beyond the paper: output dimension m ≠ n".
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- A weighted sum of the coordinates of a square-integrable encoder is square integrable. -/
theorem memLp_sum_mul {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hL2 : SquareIntegrable h)
    (v : Fin m → ℝ) : MemLp (fun z => ∑ j, v j * h z j) 2 (stdGaussianPi n) := by
  refine memLp_finset_sum Finset.univ fun j _ => ?_
  exact (hL2 j).const_mul (v j)

/-- Linearity of the degree-one coefficient: `E[(∑ⱼ vⱼ hⱼ(z)) zᵢ] = ∑ⱼ vⱼ E[hⱼ(z) zᵢ]`. -/
theorem linearCoeff_sum {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hL2 : SquareIntegrable h)
    (v : Fin m → ℝ) (i : Fin n) :
    linearCoeff (fun z => ∑ j, v j * h z j) i = ∑ j, v j * linearCoeff (fun z => h z j) i := by
  have hint : ∀ j ∈ (Finset.univ : Finset (Fin m)),
      Integrable (fun z => v j * (h z j * z i)) (stdGaussianPi n) :=
    fun j _ => (integrable_mul_of_memLp_two (hL2 j) (memLp_coord n i)).const_mul (v j)
  have hpt : ∀ z : Fin n → ℝ, (∑ j, v j * h z j) * z i = ∑ j, v j * (h z j * z i) :=
    fun z => by
      rw [Finset.sum_mul]
      exact Finset.sum_congr rfl fun j _ => by ring
  simp only [linearCoeff]
  simp only [hpt]
  rw [integral_finset_sum Finset.univ hint]
  exact Finset.sum_congr rfl fun j _ => integral_const_mul (v j) _

/-- **Bessel's inequality for the degree-one coefficients.** For a whitened square-integrable
`h : ℝⁿ → ℝᵐ` and every input coordinate `i`: `∑ⱼ E[hⱼ(z) zᵢ]² ≤ 1`. -/
theorem sum_linearCoeff_sq_le_one {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ}
    (hL2 : SquareIntegrable h) (hw : IsWhitened h) (i : Fin n) :
    ∑ j, linearCoeff (fun z => h z j) i ^ 2 ≤ 1 := by
  have hF := memLp_sum_mul hL2 (fun j => linearCoeff (fun z => h z j) i)
  obtain ⟨R, hR0, -, hsq, -, -, -⟩ := coord_spectral _ hF (1 / 2) (by norm_num) (by norm_num)
  have hint := hw.2 (fun j => linearCoeff (fun z => h z j) i)
  have hlin : linearCoeff (fun z => ∑ j, linearCoeff (fun z => h z j) i * h z j) i =
      ∑ j, linearCoeff (fun z => h z j) i ^ 2 := by
    rw [linearCoeff_sum hL2 (fun j => linearCoeff (fun z => h z j) i) i]
    exact Finset.sum_congr rfl fun j _ => (sq _).symm
  have hsingle : linearCoeff (fun z => ∑ j, linearCoeff (fun z => h z j) i * h z j) i ^ 2 ≤
      ∑ l, linearCoeff (fun z => ∑ j, linearCoeff (fun z => h z j) i * h z j) l ^ 2 :=
    Finset.single_le_sum (f := fun l =>
        linearCoeff (fun z => ∑ j, linearCoeff (fun z => h z j) i * h z j) l ^ 2)
      (fun l _ => sq_nonneg _) (Finset.mem_univ i)
  have hmean := sq_nonneg (∫ z, ∑ j, linearCoeff (fun z => h z j) i * h z j ∂stdGaussianPi n)
  have key : linearCoeff (fun z => ∑ j, linearCoeff (fun z => h z j) i * h z j) i ^ 2 ≤
      ∑ j, linearCoeff (fun z => h z j) i ^ 2 := by
    linarith
  rw [hlin] at key
  have hs0 : 0 ≤ ∑ j, linearCoeff (fun z => h z j) i ^ 2 :=
    Finset.sum_nonneg fun j _ => sq_nonneg _
  nlinarith [key, hs0, sq_nonneg (∑ j, linearCoeff (fun z => h z j) i ^ 2 - 1)]

/-- The degree-one energies of a whitened square-integrable `h : ℝⁿ → ℝᵐ` add up to at most
`n`: `∑ⱼ ∑ᵢ E[hⱼ(z) zᵢ]² ≤ n`. -/
theorem sum_sum_linearCoeff_sq_le {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ}
    (hL2 : SquareIntegrable h) (hw : IsWhitened h) :
    ∑ j, ∑ i, linearCoeff (fun z => h z j) i ^ 2 ≤ n := by
  rw [Finset.sum_comm]
  have hle : ∑ i : Fin n, ∑ j, linearCoeff (fun z => h z j) i ^ 2 ≤ ∑ _i : Fin n, (1 : ℝ) :=
    Finset.sum_le_sum fun i _ => sum_linearCoeff_sq_le_one hL2 hw i
  have hn : ∑ _i : Fin n, (1 : ℝ) = n := by
    rw [Finset.sum_const, Finset.card_univ, Fintype.card_fin, nsmul_eq_mul, mul_one]
  linarith

/-- **M1 for `m > n` (second-moment relaxation).** Every whitened square-integrable
`h : ℝⁿ → ℝᵐ` has `L(h) ≥ 2n(1-ρ) + 2(m-n)(1-ρ²)`: at most `n` units of output energy reach
the degree-one eigenvalue `ρ`, the other `m - n` pay at least the degree-two price `1 - ρ²`.
For `n < m ≤ n + n(n+1)/2` this is the loss of THEORY.md's relaxed optimum (all of degree one
plus `m - n` of the `n(n+1)/2` degree-two harmonics); for larger `m` degree three enters, the
optimum costs more and the bound is not attained. -/
theorem alignmentLoss_ge_output_dim {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h) (hw : IsWhitened h) :
    2 * n * (1 - ρ) + 2 * ((m : ℝ) - n) * (1 - ρ ^ 2) ≤ alignmentLoss ρ h := by
  choose R _hR0 hA _hq hlo _hhi _hlin using fun j => whitened_coord ρ hρ0 hρ1 h hL2 hw j
  have hB := sum_sum_linearCoeff_sq_le hL2 hw
  have hRj : ∀ j, R j = 1 - ∑ i, linearCoeff (fun z => h z j) i ^ 2 := fun j => by
    linarith [hA j]
  have hR : ∑ j, R j = m - ∑ j, ∑ i, linearCoeff (fun z => h z j) i ^ 2 := by
    rw [Finset.sum_congr rfl fun j _ => hRj j, Finset.sum_sub_distrib, Finset.sum_const,
      Finset.card_univ, Fintype.card_fin, nsmul_eq_mul, mul_one]
  have hsum : ∑ j, (2 * (1 - ρ) + 2 * (ρ * (1 - ρ)) * R j) ≤ alignmentLoss ρ h := by
    unfold alignmentLoss
    exact Finset.sum_le_sum fun j _ => hlo j
  have hsplit : ∑ j, (2 * (1 - ρ) + 2 * (ρ * (1 - ρ)) * R j) =
      2 * m * (1 - ρ) + 2 * (ρ * (1 - ρ)) * ∑ j, R j := by
    rw [Finset.sum_add_distrib, sum_const_two_one_sub, Finset.mul_sum]
  rw [hR] at hsplit
  have hpos : 0 ≤ 2 * (ρ * (1 - ρ)) := by
    have := mul_pos hρ0 (sub_pos.2 hρ1)
    linarith
  have hprod : 0 ≤ 2 * (ρ * (1 - ρ)) * ((n : ℝ) - ∑ j, ∑ i, linearCoeff (fun z => h z j) i ^ 2) :=
    mul_nonneg hpos (sub_nonneg.2 hB)
  nlinarith [hsum, hsplit, hprod]

end LeJEPA
