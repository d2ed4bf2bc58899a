/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.ForMathlib.FinsetSum

/-!
# P5: anisotropic rates; which family of Hermite functions is optimal

With per-coordinate correlations `ρᵢ = exp(-κᵢ τ)` the anisotropic OU channel has Mehler
eigenvalues `ρ^α = ∏ᵢ ρᵢ^{αᵢ}` on the orthonormal Hermite functions `H_α`. A whitened encoder
`h : ℝⁿ → ℝⁿ` whose coordinates are `n` distinct Hermite functions `H_α`, `α ∈ S`, has
alignment loss `∑_{α ∈ S} 2(1 - ρ^α)` (`LeJEPA.familyLoss`). The linear family is
`{e₁, …, eₙ}` (`H_{eᵢ}(z) = zᵢ`, `LeJEPA.linearFamily`).

## Main statements

* `LeJEPA.ky_fan_diagonal` (Ky Fan's principle for the diagonal spectrum): if every eigenvalue
  of the family `T` exceeds every eigenvalue outside it, then `T` has strictly smaller loss than
  every other family of the same size.
* `LeJEPA.linear_eigenvalues_top_iff`: every degree-one eigenvalue exceeds every eigenvalue of
  degree `≥ 2` iff `min ρᵢ > max ρⱼ²`.
* `LeJEPA.sq_rate_lt_rate_iff`: for `ρᵢ = exp(-κᵢ τ)`, `τ > 0`: `ρⱼ² < ρᵢ ⇔ κᵢ < 2 κⱼ`.
* `LeJEPA.linear_family_optimal_iff` (**P5**): for `κᵢ > 0` and `τ > 0`, the linear family is
  the unique loss-minimizing family among all families of `n` distinct non-constant Hermite
  functions iff `κᵢ < 2 κⱼ` for all `i, j`: the fastest latent is less than twice as fast as
  the slowest.

## Implementation notes

The statement is about families of Hermite functions (the eigenbasis of the channel); that the
whitened optimum over *all* encoders is attained on such a family is the general Ky Fan
principle for the self-adjoint Markov operator, which is not formalized here (it is checked
numerically, `tests/numerics/test_p5.py::test_axiom_ky_fan`). `familyLoss` is the loss that
Mehler's formula assigns to the family; it is a definition, not derived from the anisotropic
channel in Lean. Mathlib names: `Finset.exists_max_image`, `Finset.prod_le_prod`,
`Finset.prod_pow_eq_pow_sum`, `Finset.prod_eq_single`, `Finset.sum_insert`,
`Finset.sum_erase_add`, `Finset.card_insert_of_notMem`, `Finset.card_erase_of_mem`,
`Finset.card_image_of_injective`, `Real.exp_lt_exp`, `Real.exp_add`, `pow_le_pow_left₀`,
`pow_le_pow_of_le_one`.

## References

* docs/THEORY.md, P5; K. Fan, *Proc. Natl. Acad. Sci.* 35 (1949).
-/

namespace LeJEPA

/-- The Mehler eigenvalue `ρ^α = ∏ᵢ ρᵢ^{αᵢ}` of the Hermite function `H_α` under the anisotropic
channel with per-coordinate correlations `ρ`. -/
noncomputable def mehlerEigenvalue {n : ℕ} (ρ : Fin n → ℝ) (α : Fin n → ℕ) : ℝ :=
  ∏ k, ρ k ^ α k

/-- The alignment loss `∑_{α ∈ S} 2(1 - ρ^α)` that Mehler's formula assigns to the whitened
encoder whose coordinates are the orthonormal Hermite functions `H_α`, `α ∈ S`. -/
noncomputable def familyLoss {n : ℕ} (ρ : Fin n → ℝ) (S : Finset (Fin n → ℕ)) : ℝ :=
  ∑ α ∈ S, 2 * (1 - mehlerEigenvalue ρ α)

/-- The multi-index `eᵢ` of the degree-one Hermite function `H_{eᵢ}(z) = zᵢ`. -/
def unitIndex {n : ℕ} (i : Fin n) : Fin n → ℕ :=
  fun k => if k = i then 1 else 0

/-- The multi-index `2 eⱼ` of the degree-two Hermite function `H_2(zⱼ)`. -/
def twoIndex {n : ℕ} (j : Fin n) : Fin n → ℕ :=
  fun k => if k = j then 2 else 0

/-- The linear family `{e₁, …, eₙ}`: the encoder `h(z) = z`. -/
def linearFamily (n : ℕ) : Finset (Fin n → ℕ) :=
  Finset.univ.image unitIndex

/-- The correlations `ρᵢ = exp(-κᵢ τ)` of latents with rates `κᵢ` at time lag `τ`. -/
noncomputable def rates {n : ℕ} (κ : Fin n → ℝ) (τ : ℝ) : Fin n → ℝ :=
  fun i => Real.exp (-(κ i * τ))

theorem sum_unitIndex {n : ℕ} (i : Fin n) : ∑ k, unitIndex i k = 1 := by
  show ∑ k, (if k = i then (1 : ℕ) else 0) = 1
  rw [Finset.sum_eq_single i]
  · rw [if_pos rfl]
  · intro b _ hb
    rw [if_neg hb]
  · intro hi
    exact absurd (Finset.mem_univ i) hi

theorem sum_twoIndex {n : ℕ} (j : Fin n) : ∑ k, twoIndex j k = 2 := by
  show ∑ k, (if k = j then (2 : ℕ) else 0) = 2
  rw [Finset.sum_eq_single j]
  · rw [if_pos rfl]
  · intro b _ hb
    rw [if_neg hb]
  · intro hj
    exact absurd (Finset.mem_univ j) hj

theorem mehlerEigenvalue_unitIndex {n : ℕ} (ρ : Fin n → ℝ) (i : Fin n) :
    mehlerEigenvalue ρ (unitIndex i) = ρ i := by
  show ∏ k, ρ k ^ (if k = i then (1 : ℕ) else 0) = ρ i
  rw [Finset.prod_eq_single i]
  · rw [if_pos rfl, pow_one]
  · intro b _ hb
    rw [if_neg hb, pow_zero]
  · intro hi
    exact absurd (Finset.mem_univ i) hi

theorem mehlerEigenvalue_twoIndex {n : ℕ} (ρ : Fin n → ℝ) (j : Fin n) :
    mehlerEigenvalue ρ (twoIndex j) = ρ j ^ 2 := by
  show ∏ k, ρ k ^ (if k = j then (2 : ℕ) else 0) = ρ j ^ 2
  rw [Finset.prod_eq_single j]
  · rw [if_pos rfl]
  · intro b _ hb
    rw [if_neg hb, pow_zero]
  · intro hj
    exact absurd (Finset.mem_univ j) hj

theorem unitIndex_injective {n : ℕ} : Function.Injective (unitIndex (n := n)) := by
  intro i j h
  by_contra hij
  have h1 : (if i = i then (1 : ℕ) else 0) = (if i = j then 1 else 0) := congrFun h i
  rw [if_pos rfl, if_neg hij] at h1
  exact one_ne_zero h1

theorem card_linearFamily (n : ℕ) : (linearFamily n).card = n := by
  unfold linearFamily
  rw [Finset.card_image_of_injective _ unitIndex_injective, Finset.card_univ,
    Fintype.card_fin]

/-- Members of the linear family have degree one. -/
theorem sum_eq_one_of_mem_linearFamily {n : ℕ} {α : Fin n → ℕ} (h : α ∈ linearFamily n) :
    ∑ k, α k = 1 := by
  obtain ⟨i, -, rfl⟩ := Finset.mem_image.1 h
  exact sum_unitIndex i

/-- A multi-index of degree one is some `eᵢ`, so it belongs to the linear family. -/
theorem mem_linearFamily_of_sum_eq_one {n : ℕ} {α : Fin n → ℕ} (h : ∑ k, α k = 1) :
    α ∈ linearFamily n := by
  obtain ⟨i, hi⟩ : ∃ i, α i ≠ 0 := by
    by_contra hcon
    have h0 : ∑ k, α k = 0 :=
      Finset.sum_eq_zero fun k _ => by
        by_contra hk
        exact hcon ⟨k, hk⟩
    omega
  have hsplit := Finset.add_sum_erase Finset.univ α (Finset.mem_univ i)
  have hrest : ∀ k, k ≠ i → α k = 0 := by
    intro k hk
    have hle : α k ≤ ∑ x ∈ Finset.univ.erase i, α x :=
      Finset.single_le_sum (fun x _ => Nat.zero_le (α x))
        (Finset.mem_erase.2 ⟨hk, Finset.mem_univ k⟩)
    omega
  have hαi : α i = 1 := by
    have hle : α i ≤ ∑ k, α k := Finset.single_le_sum (fun x _ => Nat.zero_le (α x))
      (Finset.mem_univ i)
    omega
  refine Finset.mem_image.2 ⟨i, Finset.mem_univ i, funext fun k => ?_⟩
  show (if k = i then (1 : ℕ) else 0) = α k
  by_cases hk : k = i
  · rw [if_pos hk, hk, hαi]
  · rw [if_neg hk, hrest k hk]

/-- **Ky Fan's principle for the diagonal spectrum.** If every Mehler eigenvalue of the family
`T` exceeds every eigenvalue of a member of `S` outside `T`, and `|S| = |T|`, `S ≠ T`, then `T`
has strictly smaller loss: `familyLoss ρ T < familyLoss ρ S`. -/
theorem ky_fan_diagonal {n : ℕ} (ρ : Fin n → ℝ) {S T : Finset (Fin n → ℕ)}
    (htop : ∀ x ∈ T, ∀ y ∈ S, y ∉ T → mehlerEigenvalue ρ y < mehlerEigenvalue ρ x)
    (hcard : S.card = T.card) (hne : S ≠ T) : familyLoss ρ T < familyLoss ρ S := by
  have h := sum_lt_sum_of_top (mehlerEigenvalue ρ) htop hcard hne
  have e : ∀ U : Finset (Fin n → ℕ),
      familyLoss ρ U = ∑ _α ∈ U, (2 : ℝ) - 2 * ∑ α ∈ U, mehlerEigenvalue ρ α := by
    intro U
    unfold familyLoss
    rw [Finset.mul_sum, ← Finset.sum_sub_distrib]
    exact Finset.sum_congr rfl fun α _ => by ring
  rw [e, e, Finset.sum_const, Finset.sum_const, hcard]
  linarith

/-- **Degree-one eigenvalues on top.** For `0 < ρᵢ < 1`, every degree-one Mehler eigenvalue
`ρᵢ` exceeds every eigenvalue `∏ₖ ρₖ^{αₖ}` of degree `|α| ≥ 2` iff `ρⱼ² < ρᵢ` for all `i, j`. -/
theorem linear_eigenvalues_top_iff {n : ℕ} (ρ : Fin n → ℝ) (h0 : ∀ i, 0 < ρ i)
    (h1 : ∀ i, ρ i < 1) :
    (∀ (i : Fin n) (α : Fin n → ℕ), 2 ≤ ∑ k, α k → mehlerEigenvalue ρ α < ρ i) ↔
      ∀ i j, ρ j ^ 2 < ρ i := by
  constructor
  · intro h i j
    have := h i (twoIndex j) (sum_twoIndex j).ge
    rwa [mehlerEigenvalue_twoIndex] at this
  · intro h i α hα
    obtain ⟨j0, -, hj0⟩ := Finset.exists_max_image Finset.univ ρ ⟨i, Finset.mem_univ i⟩
    have hle : ∏ k, ρ k ^ α k ≤ ∏ k, ρ j0 ^ α k :=
      Finset.prod_le_prod (fun k _ => pow_nonneg (h0 k).le _)
        (fun k _ => pow_le_pow_left₀ (h0 k).le (hj0 k (Finset.mem_univ k)) _)
    rw [Finset.prod_pow_eq_pow_sum] at hle
    have hpow : ρ j0 ^ (∑ k, α k) ≤ ρ j0 ^ 2 := pow_le_pow_of_le_one (h0 j0).le (h1 j0).le hα
    exact lt_of_le_of_lt (hle.trans hpow) (h i j0)

/-- **Interleaving ⇔ rate ratio, one pair.** For `ρᵢ = exp(-κᵢ τ)` with `τ > 0`:
`ρⱼ² < ρᵢ` iff `κᵢ < 2 κⱼ`. -/
theorem sq_rate_lt_rate_iff {n : ℕ} (κ : Fin n → ℝ) {τ : ℝ} (hτ : 0 < τ) (i j : Fin n) :
    rates κ τ j ^ 2 < rates κ τ i ↔ κ i < 2 * κ j := by
  show Real.exp (-(κ j * τ)) ^ 2 < Real.exp (-(κ i * τ)) ↔ κ i < 2 * κ j
  rw [sq, ← Real.exp_add, Real.exp_lt_exp]
  constructor
  · intro hlt
    by_contra hcon
    have := mul_le_mul_of_nonneg_right (not_lt.1 hcon) hτ.le
    linarith
  · intro hlt
    have := mul_lt_mul_of_pos_right hlt hτ
    linarith

/-- **P5 (anisotropic rates).** Let `κᵢ > 0`, `τ > 0` and `ρᵢ = exp(-κᵢ τ)`. The linear family
`{e₁, …, eₙ}` has strictly smaller loss than every other family of `n` distinct non-constant
Hermite functions iff `κᵢ < 2 κⱼ` for all `i, j`, i.e. `κ_max < 2 κ_min`: then the whitened
optimum is the linear encoder, and otherwise a family containing the second harmonic of the
slowest latent does at least as well. -/
theorem linear_family_optimal_iff {n : ℕ} (κ : Fin n → ℝ) (hκ : ∀ i, 0 < κ i) {τ : ℝ}
    (hτ : 0 < τ) :
    (∀ S : Finset (Fin n → ℕ), (∀ α ∈ S, 1 ≤ ∑ k, α k) → S.card = n → S ≠ linearFamily n →
        familyLoss (rates κ τ) (linearFamily n) < familyLoss (rates κ τ) S) ↔
      ∀ i j, κ i < 2 * κ j := by
  have h0 : ∀ i, 0 < rates κ τ i := fun i => Real.exp_pos _
  have h1 : ∀ i, rates κ τ i < 1 := fun i => by
    show Real.exp (-(κ i * τ)) < 1
    rw [Real.exp_lt_one]
    linarith [mul_pos (hκ i) hτ]
  constructor
  · intro H i j
    by_contra hij
    have hle : rates κ τ i ≤ rates κ τ j ^ 2 :=
      not_lt.1 fun h => hij ((sq_rate_lt_rate_iff κ hτ i j).1 h)
    have hmem : unitIndex i ∈ linearFamily n := Finset.mem_image.2 ⟨i, Finset.mem_univ i, rfl⟩
    have hnot : twoIndex j ∉ linearFamily n := fun h => by
      have := sum_eq_one_of_mem_linearFamily h
      rw [sum_twoIndex] at this
      omega
    have hnot' : twoIndex j ∉ (linearFamily n).erase (unitIndex i) :=
      fun h => hnot (Finset.mem_of_mem_erase h)
    obtain ⟨S, hS⟩ : ∃ S : Finset (Fin n → ℕ),
        S = insert (twoIndex j) ((linearFamily n).erase (unitIndex i)) := ⟨_, rfl⟩
    have hdeg : ∀ α ∈ S, 1 ≤ ∑ k, α k := by
      intro α hα
      rw [hS] at hα
      rcases Finset.mem_insert.1 hα with rfl | hα
      · have := sum_twoIndex j
        omega
      · exact (sum_eq_one_of_mem_linearFamily (Finset.mem_of_mem_erase hα)).ge
    have hcard : S.card = n := by
      rw [hS, Finset.card_insert_of_notMem hnot', Finset.card_erase_of_mem hmem,
        card_linearFamily]
      have := i.pos
      omega
    have hmemS : twoIndex j ∈ S := by
      rw [hS]
      exact Finset.mem_insert_self _ _
    have hne : S ≠ linearFamily n := fun h => hnot (h ▸ hmemS)
    have hlt := H S hdeg hcard hne
    have hsum : familyLoss (rates κ τ) S =
        familyLoss (rates κ τ) (linearFamily n) + 2 * (rates κ τ i - rates κ τ j ^ 2) := by
      have herase := Finset.sum_erase_add (linearFamily n)
        (fun α => 2 * (1 - mehlerEigenvalue (rates κ τ) α)) hmem
      unfold familyLoss
      rw [hS, Finset.sum_insert hnot', ← herase, mehlerEigenvalue_twoIndex,
        mehlerEigenvalue_unitIndex]
      ring
    linarith
  · intro H S hdeg hcard hne
    have htop : ∀ i j, rates κ τ j ^ 2 < rates κ τ i :=
      fun i j => (sq_rate_lt_rate_iff κ hτ i j).2 (H i j)
    have hdeg2 := (linear_eigenvalues_top_iff (rates κ τ) h0 h1).2 htop
    refine ky_fan_diagonal (rates κ τ) (fun x hx y hy hyT => ?_)
      (by rw [hcard, card_linearFamily]) hne
    obtain ⟨i, -, rfl⟩ := Finset.mem_image.1 hx
    rw [mehlerEigenvalue_unitIndex]
    have hy2 : 2 ≤ ∑ k, y k := by
      have h1y := hdeg y hy
      have hne1 : ∑ k, y k ≠ 1 := fun h => hyT (mem_linearFamily_of_sum_eq_one h)
      omega
    exact hdeg2 i y hy2

end LeJEPA
