/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib.Analysis.SpecialFunctions.Pow.Real
import Mathlib.Tactic.Linarith
import Mathlib.Tactic.NormNum

/-!
# Finite sums: indicators, quadratic forms, Cauchy–Schwarz, exchange

Generic facts about finite real sums used by the proofs; none is about the paper.

## Main statements

* `LeJEPA.sum_indicator_mul`, `LeJEPA.sum_indicator_sq`, `LeJEPA.sum_pair_indicator_sq`:
  sums against the indicator vectors `eⱼ` and `eⱼ + eₖ`.
* `LeJEPA.sq_le_mul_of_quadratic_nonneg`: a nonnegative binary quadratic form has
  `b² ≤ a c`.
* `LeJEPA.sum_sq_pair_expand`, `LeJEPA.sum_sum_sq_pair_expand`: expanding `∑ (s x + t y)²`.
* `LeJEPA.sum_sum_mul_sq_le`: Cauchy–Schwarz for double sums.
* `LeJEPA.sum_sum_sq_le_sq_sum_diag`: `‖M‖²_F ≤ (tr M)²` when every `2 × 2` minor is
  nonnegative.
* `LeJEPA.frobenius_whitening_bound`: `‖G - J‖²_F ≤ (‖C - J‖_F + D)²` for `C - G` positive
  semidefinite with trace at most `D`.
* `LeJEPA.sum_lt_sum_of_top` (exchange argument behind Ky Fan's principle for a diagonal
  operator): among index sets of the same size, the set `T` whose values all exceed every
  value outside it has the strictly largest sum.

## Implementation notes

Mathlib has single-sum Cauchy–Schwarz (`inner_mul_le_norm_mul_norm`,
`Finset.sum_mul_sq_le_sq_mul_sq`); the double-sum form is proved here directly by the
discriminant argument to avoid reindexing over `ι × κ`. Only long-stable names are used:
`Finset.sum_eq_single`, `Finset.sum_add_distrib`, `Finset.mul_sum`, `Finset.sum_mul`,
`Finset.sum_le_sum`, `Finset.sum_nonneg`, `Finset.sum_sdiff`, `Finset.sum_lt_sum_of_nonempty`,
`Finset.exists_min_image`, `Finset.eq_of_subset_of_card_le`, `Finset.not_subset`.
-/

namespace LeJEPA

/-- `∑ₖ [k = j] xₖ = xⱼ`. -/
theorem sum_indicator_mul {ι : Type*} [Fintype ι] [DecidableEq ι] (j : ι) (x : ι → ℝ) :
    ∑ k, (if k = j then (1 : ℝ) else 0) * x k = x j := by
  rw [Finset.sum_eq_single j]
  · rw [if_pos rfl, one_mul]
  · intro b _ hb
    rw [if_neg hb, zero_mul]
  · intro hj
    exact absurd (Finset.mem_univ j) hj

/-- `∑ₖ [k = j]² = 1`. -/
theorem sum_indicator_sq {ι : Type*} [Fintype ι] [DecidableEq ι] (j : ι) :
    ∑ k, (if k = j then (1 : ℝ) else 0) ^ 2 = 1 := by
  rw [Finset.sum_eq_single j]
  · rw [if_pos rfl, one_pow]
  · intro b _ hb
    rw [if_neg hb]
    ring
  · intro hj
    exact absurd (Finset.mem_univ j) hj

/-- `∑ₗ ([l = j] + [l = k])² = 2` for `j ≠ k`. -/
theorem sum_pair_indicator_sq {ι : Type*} [Fintype ι] [DecidableEq ι] {j k : ι}
    (hjk : j ≠ k) :
    ∑ l, ((if l = j then (1 : ℝ) else 0) + (if l = k then 1 else 0)) ^ 2 = 2 := by
  have hterm : ∀ l : ι, ((if l = j then (1 : ℝ) else 0) + (if l = k then 1 else 0)) ^ 2 =
      (if l = j then (1 : ℝ) else 0) * 1 + (if l = k then (1 : ℝ) else 0) * 1 := by
    intro l
    by_cases h1 : l = j
    · have h2 : ¬l = k := fun h2 => hjk (h1.symm.trans h2)
      rw [if_pos h1, if_neg h2]
      ring
    · by_cases h2 : l = k
      · rw [if_neg h1, if_pos h2]
        ring
      · rw [if_neg h1, if_neg h2]
        ring
  rw [Finset.sum_congr rfl fun l _ => hterm l, Finset.sum_add_distrib,
    sum_indicator_mul j (fun _ => 1), sum_indicator_mul k (fun _ => 1)]
  norm_num

/-- **Discriminant bound.** If `s² a + 2st b + t² c ≥ 0` for all real `s, t`, then `b² ≤ a c`. -/
theorem sq_le_mul_of_quadratic_nonneg {a b c : ℝ}
    (hQ : ∀ s t : ℝ, 0 ≤ s ^ 2 * a + 2 * s * t * b + t ^ 2 * c) : b ^ 2 ≤ a * c := by
  have ha : 0 ≤ a := by nlinarith [hQ 1 0]
  have hc : 0 ≤ c := by nlinarith [hQ 0 1]
  -- `Q(c, -b) = c (a c - b²)` and `Q(b, -a) = a (a c - b²)`.
  have h1 := hQ c (-b)
  have h2 := hQ b (-a)
  by_cases hac : 0 < a + c
  · by_contra hlt
    have hp : 0 < (a + c) * (b ^ 2 - a * c) := mul_pos hac (by linarith [not_le.mp hlt])
    nlinarith
  · have hac' : a + c ≤ 0 := not_lt.mp hac
    have ha0 : a = 0 := by linarith
    have hc0 : c = 0 := by linarith
    -- `Q(1, -b) = -2 b²` when `a = c = 0`.
    have h3 := hQ 1 (-b)
    rw [ha0, hc0] at h3 ⊢
    nlinarith [sq_nonneg b]

/-- `∑ᵢ (s xᵢ + t yᵢ)² = s² ∑ᵢ xᵢ² + 2st ∑ᵢ xᵢ yᵢ + t² ∑ᵢ yᵢ²`. -/
theorem sum_sq_pair_expand {ι : Type*} [Fintype ι] (x y : ι → ℝ) (s t : ℝ) :
    ∑ i, (s * x i + t * y i) ^ 2 =
      s ^ 2 * ∑ i, x i ^ 2 + 2 * s * t * ∑ i, x i * y i + t ^ 2 * ∑ i, y i ^ 2 := by
  rw [Finset.mul_sum, Finset.mul_sum, Finset.mul_sum, ← Finset.sum_add_distrib,
    ← Finset.sum_add_distrib]
  exact Finset.sum_congr rfl fun i _ => by ring

/-- The double-sum version of `LeJEPA.sum_sq_pair_expand`. -/
theorem sum_sum_sq_pair_expand {ι κ : Type*} [Fintype ι] [Fintype κ] (x y : ι → κ → ℝ)
    (s t : ℝ) :
    ∑ j, ∑ k, (s * x j k + t * y j k) ^ 2 =
      s ^ 2 * ∑ j, ∑ k, x j k ^ 2 + 2 * s * t * ∑ j, ∑ k, x j k * y j k +
        t ^ 2 * ∑ j, ∑ k, y j k ^ 2 := by
  rw [Finset.sum_congr rfl fun j _ => sum_sq_pair_expand (x j) (y j) s t,
    Finset.mul_sum, Finset.mul_sum, Finset.mul_sum, ← Finset.sum_add_distrib,
    ← Finset.sum_add_distrib]

/-- **Cauchy–Schwarz for double sums:** `(∑ⱼₖ xⱼₖ yⱼₖ)² ≤ (∑ⱼₖ xⱼₖ²)(∑ⱼₖ yⱼₖ²)`. -/
theorem sum_sum_mul_sq_le {ι κ : Type*} [Fintype ι] [Fintype κ] (x y : ι → κ → ℝ) :
    (∑ j, ∑ k, x j k * y j k) ^ 2 ≤ (∑ j, ∑ k, x j k ^ 2) * (∑ j, ∑ k, y j k ^ 2) := by
  apply sq_le_mul_of_quadratic_nonneg
  intro s t
  have hexp := sum_sum_sq_pair_expand x y s t
  have hnn : 0 ≤ ∑ j, ∑ k, (s * x j k + t * y j k) ^ 2 :=
    Finset.sum_nonneg fun j _ => Finset.sum_nonneg fun k _ => sq_nonneg _
  linarith

/-- If `Mⱼₖ² ≤ Mⱼⱼ Mₖₖ` for all `j, k` then `∑ⱼₖ Mⱼₖ² ≤ (∑ⱼ Mⱼⱼ)²`: the Frobenius norm of a
positive semidefinite matrix is at most its trace. -/
theorem sum_sum_sq_le_sq_sum_diag {ι : Type*} [Fintype ι] (M : ι → ι → ℝ)
    (hM : ∀ j k, M j k ^ 2 ≤ M j j * M k k) :
    ∑ j, ∑ k, M j k ^ 2 ≤ (∑ j, M j j) ^ 2 := by
  have e : (∑ j, M j j) ^ 2 = ∑ j, ∑ k, M j j * M k k := by
    rw [sq, Finset.sum_mul]
    exact Finset.sum_congr rfl fun j _ => by rw [Finset.mul_sum]
  rw [e]
  exact Finset.sum_le_sum fun j _ => Finset.sum_le_sum fun k _ => hM j k

/-- The scalar core of the triangle inequality: with `ε² = S_X`, `ε, D ≥ 0`,
`S_XM² ≤ S_X S_M` (Cauchy–Schwarz) and `S_M ≤ D²`, one has `S_X - 2 S_XM + S_M ≤ (ε + D)²`. -/
theorem sub_two_mul_add_le_sq {SX SXM SM D ε : ℝ} (hε : ε ^ 2 = SX) (hε0 : 0 ≤ ε)
    (hSX0 : 0 ≤ SX) (hD0 : 0 ≤ D) (hCS : SXM ^ 2 ≤ SX * SM) (hSM : SM ≤ D ^ 2) :
    SX - 2 * SXM + SM ≤ (ε + D) ^ 2 := by
  have h1 : SX * SM ≤ SX * D ^ 2 := mul_le_mul_of_nonneg_left hSM hSX0
  have h2 : (ε * D) ^ 2 = SX * D ^ 2 := by rw [mul_pow, hε]
  have hprod : SXM ^ 2 ≤ (ε * D) ^ 2 := by linarith
  have hεD0 : 0 ≤ ε * D := mul_nonneg hε0 hD0
  have hneg : -SXM ≤ ε * D := by
    by_contra hlt
    have hpos : 0 < -SXM - ε * D := by linarith [not_le.mp hlt]
    nlinarith [mul_pos hpos hpos, mul_nonneg hpos.le hεD0]
  nlinarith [hneg, hSM, hε]

/-- **Frobenius step of T3 (b).** Let `C, G, J` be square arrays and `R = C - G`. If every
`2 × 2` quadratic form of `R` is nonnegative and `tr R ≤ D`, then
`‖G - J‖²_F ≤ (‖C - J‖_F + D)²`. -/
theorem frobenius_whitening_bound {ι : Type*} [Fintype ι] (C G J : ι → ι → ℝ) (D : ℝ)
    (hpsd : ∀ (j k : ι) (s t : ℝ), 0 ≤ s ^ 2 * (C j j - G j j) +
      2 * s * t * (C j k - G j k) + t ^ 2 * (C k k - G k k))
    (hdiag : ∑ j, (C j j - G j j) ≤ D) :
    ∑ j, ∑ k, (G j k - J j k) ^ 2 ≤ (Real.sqrt (∑ j, ∑ k, (C j k - J j k) ^ 2) + D) ^ 2 := by
  have hM : ∀ j k, (C j k - G j k) ^ 2 ≤ (C j j - G j j) * (C k k - G k k) :=
    fun j k => sq_le_mul_of_quadratic_nonneg (hpsd j k)
  have hdiag0 : ∀ j, 0 ≤ C j j - G j j := fun j => by nlinarith [hpsd j j 1 0]
  have htr0 : 0 ≤ ∑ j, (C j j - G j j) := Finset.sum_nonneg fun j _ => hdiag0 j
  have hD0 : 0 ≤ D := htr0.trans hdiag
  have hSM : ∑ j, ∑ k, (C j k - G j k) ^ 2 ≤ D ^ 2 := by
    have h1 : ∑ j, ∑ k, (C j k - G j k) ^ 2 ≤ (∑ j, (C j j - G j j)) ^ 2 :=
      sum_sum_sq_le_sq_sum_diag (fun j k => C j k - G j k) hM
    have h2 : (∑ j, (C j j - G j j)) ^ 2 ≤ D ^ 2 := pow_le_pow_left₀ htr0 hdiag 2
    linarith
  have hSX0 : 0 ≤ ∑ j, ∑ k, (C j k - J j k) ^ 2 :=
    Finset.sum_nonneg fun j _ => Finset.sum_nonneg fun k _ => sq_nonneg _
  have hCS : (∑ j, ∑ k, (C j k - J j k) * (C j k - G j k)) ^ 2 ≤
      (∑ j, ∑ k, (C j k - J j k) ^ 2) * (∑ j, ∑ k, (C j k - G j k) ^ 2) :=
    sum_sum_mul_sq_le (fun j k => C j k - J j k) (fun j k => C j k - G j k)
  -- `G - J = (C - J) - (C - G)`.
  have hexp : ∑ j, ∑ k, (G j k - J j k) ^ 2 =
      ∑ j, ∑ k, (C j k - J j k) ^ 2 - 2 * ∑ j, ∑ k, (C j k - J j k) * (C j k - G j k) +
        ∑ j, ∑ k, (C j k - G j k) ^ 2 := by
    have hpair := sum_sum_sq_pair_expand (fun j k => C j k - J j k)
      (fun j k => C j k - G j k) 1 (-1)
    have hl : ∑ j, ∑ k, (G j k - J j k) ^ 2 =
        ∑ j, ∑ k, (1 * (C j k - J j k) + (-1) * (C j k - G j k)) ^ 2 :=
      Finset.sum_congr rfl fun j _ => Finset.sum_congr rfl fun k _ => by ring
    rw [hl, hpair]
    ring
  rw [hexp]
  exact sub_two_mul_add_le_sq (Real.sq_sqrt hSX0) (Real.sqrt_nonneg _) hSX0 hD0 hCS hSM

/-- **Exchange argument (Ky Fan's principle for a diagonal operator).** Let `T` be a finite set
of indices such that every value `e x`, `x ∈ T`, exceeds every value `e y` of an index `y ∈ S`
outside `T`. Then among sets of the same size, `T` has the strictly larger sum:
`|S| = |T|` and `S ≠ T` imply `∑_S e < ∑_T e`. -/
theorem sum_lt_sum_of_top {ι : Type*} [DecidableEq ι] (e : ι → ℝ) {S T : Finset ι}
    (htop : ∀ x ∈ T, ∀ y ∈ S, y ∉ T → e y < e x) (hcard : S.card = T.card) (hne : S ≠ T) :
    ∑ x ∈ S, e x < ∑ x ∈ T, e x := by
  obtain ⟨y, hyS, hyT⟩ :=
    Finset.not_subset.1 fun h => hne (Finset.eq_of_subset_of_card_le h hcard.ge)
  have hTne : T.Nonempty := by
    rw [← Finset.card_pos, ← hcard]
    exact Finset.card_pos.2 ⟨y, hyS⟩
  obtain ⟨x0, hx0, hmin⟩ := Finset.exists_min_image T e hTne
  have hS : ∑ x ∈ S \ (S ∩ T), (e x - e x0) + ∑ x ∈ S ∩ T, (e x - e x0) =
      ∑ x ∈ S, (e x - e x0) := Finset.sum_sdiff Finset.inter_subset_left
  have hT : ∑ x ∈ T \ (S ∩ T), (e x - e x0) + ∑ x ∈ S ∩ T, (e x - e x0) =
      ∑ x ∈ T, (e x - e x0) := Finset.sum_sdiff Finset.inter_subset_right
  have hout : (S \ (S ∩ T)).Nonempty :=
    ⟨y, Finset.mem_sdiff.2 ⟨hyS, fun h => hyT (Finset.mem_inter.1 h).2⟩⟩
  have h1 : ∑ x ∈ S \ (S ∩ T), (e x - e x0) < ∑ x ∈ S \ (S ∩ T), (0 : ℝ) := by
    refine Finset.sum_lt_sum_of_nonempty hout fun z hz => ?_
    have hz' := Finset.mem_sdiff.1 hz
    have hzT : z ∉ T := fun h => hz'.2 (Finset.mem_inter.2 ⟨hz'.1, h⟩)
    linarith [htop x0 hx0 z hz'.1 hzT]
  have h2 : 0 ≤ ∑ x ∈ T \ (S ∩ T), (e x - e x0) :=
    Finset.sum_nonneg fun z hz => by linarith [hmin z (Finset.mem_sdiff.1 hz).1]
  have hS' : ∑ x ∈ S, (e x - e x0) = ∑ x ∈ S, e x - S.card * e x0 := by
    rw [Finset.sum_sub_distrib, Finset.sum_const, nsmul_eq_mul]
  have hT' : ∑ x ∈ T, (e x - e x0) = ∑ x ∈ T, e x - T.card * e x0 := by
    rw [Finset.sum_sub_distrib, Finset.sum_const, nsmul_eq_mul]
  have hc : (S.card : ℝ) = T.card := by exact_mod_cast hcard
  rw [Finset.sum_const_zero] at h1
  rw [hc] at hS'
  linarith

end LeJEPA
