/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Approximate
import LeJEPAProofs.OutputDimension

/-!
# T3 (b) with the covariance whitening error

For a centred square-integrable encoder `h : ℝⁿ → ℝᵐ` write `Cov h` for its second-moment matrix
`(Cov h)ⱼₖ = E[hⱼ(z) hₖ(z)]` (the covariance, since `E h = 0`), `ε = ‖Cov h - I‖_F`,
`A = E[h(z) zᵀ]` for the linear part and `D = δ / (2ρ(1-ρ))` as in `LeJEPAProofs/Approximate.lean`.

## Main statements

* `LeJEPA.residual_quadratic_nonneg`: the residual covariance `R = Cov h - A Aᵀ` is positive
  semidefinite on every pair of coordinates: `s² Rⱼⱼ + 2st Rⱼₖ + t² Rₖₖ ≥ 0`.
* `LeJEPA.sum_residual_diag_le`: `tr R ≤ D` (the trace of `R` is the nonlinear energy).
* `LeJEPA.frobenius_whitening_bound`: the finite-dimensional step
  `‖A Aᵀ - I‖_F ≤ ‖Cov h - I‖_F + ‖R‖_F ≤ ε + tr R`, in squared form.
* `LeJEPA.linearWhiteningError_le_cov`: `‖A Aᵀ - I‖²_F ≤ (ε + D)²`.
* `LeJEPA.approximate_identifiability_whitening` (**T3 (b)**, THEORY.md's form): for `m = n`
  there is an orthogonal `Q` with `E‖h(z) - Q z‖² ≤ D + (ε + D)²`.

## Implementation notes

No new axiom. Positive semidefiniteness of `R` comes from the Parseval identity of
`LeJEPA.coord_spectral` applied to `F = s hⱼ + t hₖ`: `E F² = (E F)² + ‖a_F‖² + (energy ≥ 0)`
with `E F² = s² Covⱼⱼ + 2st Covⱼₖ + t² Covₖₖ` and `a_F = s aⱼ + t aₖ`. From the `2 × 2`
minors, `Rⱼₖ² ≤ Rⱼⱼ Rₖₖ`, so `‖R‖²_F ≤ (tr R)²`; the triangle inequality for the Frobenius norm
is Cauchy–Schwarz for double sums, proved by the same discriminant argument
(`LeJEPA.sq_le_mul_of_quadratic_nonneg`). The matrix `I` enters only through its entries
`(1 : Matrix (Fin m) (Fin m) ℝ) j k = if j = k then 1 else 0` (`Matrix.one_apply`).
Mathlib names used: `integral_add`, `integral_const_mul`, `integral_congr_ae`, `ae_of_all`
(`Mathlib/MeasureTheory/Integral/Bochner/Basic.lean`), `Integrable.add`, `Integrable.const_mul`,
`MemLp.add`, `MemLp.const_mul`, `Finset.sum_add_distrib`, `Finset.mul_sum`, `Finset.sum_mul`,
`Finset.sum_le_sum`, `Finset.sum_nonneg`, `Finset.sum_eq_zero`, `Matrix.mul_apply`,
`Matrix.one_apply`, `Real.sq_sqrt`, `Real.sqrt_nonneg` (`Mathlib/Data/Real/Sqrt.lean`).

## References

* THEORY.md, T3 (proof of (b): `Cov h = A Aᵀ + E[r rᵀ]`, `‖A Aᵀ - I‖_F ≤ ε + tr E[r rᵀ]`).
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-! ### Finite-dimensional algebra -/

/-- **Discriminant bound.** If `s² a + 2st b + t² c ≥ 0` for all real `s, t`, then `b² ≤ a c`. -/
theorem sq_le_mul_of_quadratic_nonneg {a b c : ℝ}
    (hQ : ∀ s t : ℝ, 0 ≤ s ^ 2 * a + 2 * s * t * b + t ^ 2 * c) : b ^ 2 ≤ a * c := by
  have ha : 0 ≤ a := by
    have h10 := hQ 1 0
    first
      | linarith
      | nlinarith [h10]
      | (norm_num at h10; linarith)
  have hc : 0 ≤ c := by
    have h01 := hQ 0 1
    first
      | linarith
      | nlinarith [h01]
      | (norm_num at h01; linarith)
  -- `Q(c, -b) = c (a c - b²)` and `Q(b, -a) = a (a c - b²)`.
  have h1 := hQ c (-b)
  have h2 := hQ b (-a)
  by_cases hac : 0 < a + c
  · by_contra hlt
    have hlt' : a * c < b ^ 2 := by
      first
        | exact not_le.mp hlt
        | exact lt_of_not_le hlt
        | linarith
    have hp : 0 < (a + c) * (b ^ 2 - a * c) := mul_pos hac (sub_pos.2 hlt')
    first
      | linarith
      | nlinarith [h1, h2, hp]
  · have hle : a + c ≤ 0 := by
      first
        | exact not_lt.mp hac
        | exact le_of_not_lt hac
        | linarith
    have ha0 : a = 0 := by linarith
    have hc0 : c = 0 := by linarith
    -- `Q(1, -b) = -2 b²` when `a = c = 0`.
    have h3 := hQ 1 (-b)
    rw [ha0, hc0] at h3
    rw [ha0, hc0]
    first
      | linarith
      | nlinarith [h3, sq_nonneg b]

/-- `∑ᵢ (p xᵢ + q yᵢ + r wᵢ) = p ∑ᵢ xᵢ + q ∑ᵢ yᵢ + r ∑ᵢ wᵢ`. -/
theorem sum_lin_three {ι : Type*} [Fintype ι] (x y w : ι → ℝ) (p q r : ℝ) :
    ∑ i, (p * x i + q * y i + r * w i) = p * ∑ i, x i + q * ∑ i, y i + r * ∑ i, w i := by
  first
    | (rw [Finset.sum_add_distrib, Finset.sum_add_distrib, Finset.mul_sum, Finset.mul_sum,
        Finset.mul_sum]; done)
    | (simp only [Finset.sum_add_distrib, Finset.mul_sum]; done)

/-- `∑ᵢ (s xᵢ + t yᵢ)² = s² ∑ᵢ xᵢ² + 2st ∑ᵢ xᵢ yᵢ + t² ∑ᵢ yᵢ²`. -/
theorem sum_sq_pair_expand {ι : Type*} [Fintype ι] (x y : ι → ℝ) (s t : ℝ) :
    ∑ i, (s * x i + t * y i) ^ 2 =
      s ^ 2 * ∑ i, x i ^ 2 + 2 * s * t * ∑ i, x i * y i + t ^ 2 * ∑ i, y i ^ 2 := by
  have hpt : ∀ i, (s * x i + t * y i) ^ 2 =
      s ^ 2 * x i ^ 2 + 2 * s * t * (x i * y i) + t ^ 2 * y i ^ 2 := fun i => by ring
  have hsum : ∑ i, (s * x i + t * y i) ^ 2 =
      ∑ i, (s ^ 2 * x i ^ 2 + 2 * s * t * (x i * y i) + t ^ 2 * y i ^ 2) :=
    Finset.sum_congr rfl fun i _ => hpt i
  rw [hsum]
  exact sum_lin_three (fun i => x i ^ 2) (fun i => x i * y i) (fun i => y i ^ 2)
    (s ^ 2) (2 * s * t) (t ^ 2)

/-- The double-sum version of `LeJEPA.sum_sq_pair_expand`. -/
theorem sum_sum_sq_pair_expand {ι κ : Type*} [Fintype ι] [Fintype κ] (x y : ι → κ → ℝ)
    (s t : ℝ) :
    ∑ j, ∑ k, (s * x j k + t * y j k) ^ 2 =
      s ^ 2 * ∑ j, ∑ k, x j k ^ 2 + 2 * s * t * ∑ j, ∑ k, x j k * y j k +
        t ^ 2 * ∑ j, ∑ k, y j k ^ 2 := by
  have hsum : ∑ j, ∑ k, (s * x j k + t * y j k) ^ 2 =
      ∑ j, (s ^ 2 * ∑ k, x j k ^ 2 + 2 * s * t * ∑ k, x j k * y j k +
        t ^ 2 * ∑ k, y j k ^ 2) :=
    Finset.sum_congr rfl fun j _ => sum_sq_pair_expand (x j) (y j) s t
  rw [hsum]
  exact sum_lin_three (fun j => ∑ k, x j k ^ 2) (fun j => ∑ k, x j k * y j k)
    (fun j => ∑ k, y j k ^ 2) (s ^ 2) (2 * s * t) (t ^ 2)

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
  have h1 : SX * SM ≤ SX * D ^ 2 := by
    first
      | exact mul_le_mul_of_nonneg_left hSM hSX0
      | nlinarith [hSM, hSX0]
  have h2 : (ε * D) ^ 2 = SX * D ^ 2 := by
    rw [mul_pow, hε]
  have hprod : SXM ^ 2 ≤ (ε * D) ^ 2 := by
    linarith
  have hεD0 : 0 ≤ ε * D := mul_nonneg hε0 hD0
  have hneg : -SXM ≤ ε * D := by
    by_contra hlt
    have hlt' : ε * D < -SXM := by
      first
        | exact not_le.mp hlt
        | exact lt_of_not_le hlt
        | linarith
    have hpos : 0 < -SXM - ε * D := sub_pos.2 hlt'
    have hsq : 0 < (-SXM - ε * D) * (-SXM - ε * D) := mul_pos hpos hpos
    have hmix : 0 ≤ (-SXM - ε * D) * (ε * D) := mul_nonneg hpos.le hεD0
    first
      | linarith
      | nlinarith [hsq, hmix, hprod]
  first
    | linarith
    | nlinarith [hε, hSM, hneg]

/-- **Frobenius step of T3 (b).** Let `C, G, J` be square arrays and `R = C - G`. If every
`2 × 2` quadratic form of `R` is nonnegative and `tr R ≤ D`, then
`‖G - J‖²_F ≤ (‖C - J‖_F + D)²`. (Used with `C = Cov h`, `G = A Aᵀ`, `J = I`.) -/
theorem frobenius_whitening_bound {ι : Type*} [Fintype ι] (C G J : ι → ι → ℝ) (D : ℝ)
    (hpsd : ∀ (j k : ι) (s t : ℝ), 0 ≤ s ^ 2 * (C j j - G j j) +
      2 * s * t * (C j k - G j k) + t ^ 2 * (C k k - G k k))
    (hdiag : ∑ j, (C j j - G j j) ≤ D) :
    ∑ j, ∑ k, (G j k - J j k) ^ 2 ≤ (Real.sqrt (∑ j, ∑ k, (C j k - J j k) ^ 2) + D) ^ 2 := by
  have hM : ∀ j k, (C j k - G j k) ^ 2 ≤ (C j j - G j j) * (C k k - G k k) :=
    fun j k => sq_le_mul_of_quadratic_nonneg (hpsd j k)
  have hdiag0 : ∀ j, 0 ≤ C j j - G j j := fun j => by
    have h := hpsd j j 1 0
    first
      | linarith
      | nlinarith [h]
      | (norm_num at h; linarith)
  have htr0 : 0 ≤ ∑ j, (C j j - G j j) := Finset.sum_nonneg fun j _ => hdiag0 j
  have hD0 : 0 ≤ D := htr0.trans hdiag
  have hSM : ∑ j, ∑ k, (C j k - G j k) ^ 2 ≤ D ^ 2 := by
    have h1 : ∑ j, ∑ k, (C j k - G j k) ^ 2 ≤ (∑ j, (C j j - G j j)) ^ 2 :=
      sum_sum_sq_le_sq_sum_diag (fun j k => C j k - G j k) hM
    have h2 : (∑ j, (C j j - G j j)) * (∑ j, (C j j - G j j)) ≤ D * D := by
      first
        | exact mul_le_mul hdiag hdiag htr0 hD0
        | nlinarith [hdiag, htr0]
    first
      | linarith
      | nlinarith [h1, h2]
  have hSX0 : 0 ≤ ∑ j, ∑ k, (C j k - J j k) ^ 2 :=
    Finset.sum_nonneg fun j _ => Finset.sum_nonneg fun k _ => sq_nonneg _
  have hCS : (∑ j, ∑ k, (C j k - J j k) * (C j k - G j k)) ^ 2 ≤
      (∑ j, ∑ k, (C j k - J j k) ^ 2) * (∑ j, ∑ k, (C j k - G j k) ^ 2) :=
    sum_sum_mul_sq_le (fun j k => C j k - J j k) (fun j k => C j k - G j k)
  -- `G - J = (C - J) - (C - G)`.
  have hexp : ∑ j, ∑ k, (G j k - J j k) ^ 2 =
      ∑ j, ∑ k, (C j k - J j k) ^ 2 - 2 * ∑ j, ∑ k, (C j k - J j k) * (C j k - G j k) +
        ∑ j, ∑ k, (C j k - G j k) ^ 2 := by
    have hpair : ∑ j, ∑ k, (1 * (C j k - J j k) + (-1) * (C j k - G j k)) ^ 2 =
        1 ^ 2 * ∑ j, ∑ k, (C j k - J j k) ^ 2 +
          2 * 1 * (-1) * ∑ j, ∑ k, (C j k - J j k) * (C j k - G j k) +
            (-1) ^ 2 * ∑ j, ∑ k, (C j k - G j k) ^ 2 :=
      sum_sum_sq_pair_expand (fun j k => C j k - J j k) (fun j k => C j k - G j k) 1 (-1)
    have hl : ∑ j, ∑ k, (G j k - J j k) ^ 2 =
        ∑ j, ∑ k, (1 * (C j k - J j k) + (-1) * (C j k - G j k)) ^ 2 :=
      Finset.sum_congr rfl fun j _ => Finset.sum_congr rfl fun k _ => by ring
    rw [hl, hpair]
    ring
  rw [hexp]
  exact sub_two_mul_add_le_sq (Real.sq_sqrt hSX0) (Real.sqrt_nonneg _) hSX0 hD0 hCS hSM

/-! ### The covariance of an encoder -/

/-- The second-moment matrix `(Cov h)ⱼₖ = E[hⱼ(z) hₖ(z)]` of an encoder under `γ_n`; for a
centred `h` (`E h = 0`) it is the covariance `Cov h` of THEORY.md. -/
noncomputable def outputCov {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) :
    Matrix (Fin m) (Fin m) ℝ :=
  fun j k => ∫ z, h z j * h z k ∂stdGaussian n

theorem outputCov_apply {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) (j k : Fin m) :
    outputCov h j k = ∫ z, h z j * h z k ∂stdGaussian n :=
  rfl

/-- The whitening error `ε = ‖Cov h - I‖_F = (∑ⱼₖ (E[hⱼ hₖ] - δⱼₖ)²)^(1/2)` of THEORY.md, T3. -/
noncomputable def covWhiteningError {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) : ℝ :=
  Real.sqrt (∑ j, ∑ k, (outputCov h j k - (1 : Matrix (Fin m) (Fin m) ℝ) j k) ^ 2)

/-- `ε` written with integrals and the Kronecker delta. -/
theorem covWhiteningError_eq {n m : ℕ} (h : (Fin n → ℝ) → Fin m → ℝ) :
    covWhiteningError h = Real.sqrt (∑ j, ∑ k,
      (∫ z, h z j * h z k ∂stdGaussian n - if j = k then 1 else 0) ^ 2) := by
  first
    | (unfold covWhiteningError; simp only [outputCov_apply, Matrix.one_apply]; done)
    | rfl
    | (simp only [covWhiteningError, outputCov_apply, Matrix.one_apply]; done)

/-- `E (s hⱼ + t hₖ)² = s² Covⱼⱼ + 2st Covⱼₖ + t² Covₖₖ`. -/
theorem integral_pair_sq {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hL2 : SquareIntegrable h)
    (j k : Fin m) (s t : ℝ) :
    ∫ z, (s * h z j + t * h z k) ^ 2 ∂stdGaussian n =
      s ^ 2 * outputCov h j j + 2 * s * t * outputCov h j k + t ^ 2 * outputCov h k k := by
  have i1 : Integrable (fun z => s ^ 2 * (h z j * h z j)) (stdGaussian n) :=
    (integrable_mul_of_memLp (hL2 j) (hL2 j)).const_mul (s ^ 2)
  have i2 : Integrable (fun z => 2 * s * t * (h z j * h z k)) (stdGaussian n) :=
    (integrable_mul_of_memLp (hL2 j) (hL2 k)).const_mul (2 * s * t)
  have i3 : Integrable (fun z => t ^ 2 * (h z k * h z k)) (stdGaussian n) :=
    (integrable_mul_of_memLp (hL2 k) (hL2 k)).const_mul (t ^ 2)
  have i12 : Integrable (fun z => s ^ 2 * (h z j * h z j) + 2 * s * t * (h z j * h z k))
      (stdGaussian n) := by
    first
      | exact i1.add i2
      | simpa only [Pi.add_apply] using i1.add i2
  have hpt : ∀ z : Fin n → ℝ, (s * h z j + t * h z k) ^ 2 =
      s ^ 2 * (h z j * h z j) + 2 * s * t * (h z j * h z k) + t ^ 2 * (h z k * h z k) :=
    fun z => by ring
  have e0 : ∫ z, (s * h z j + t * h z k) ^ 2 ∂stdGaussian n =
      ∫ z, (s ^ 2 * (h z j * h z j) + 2 * s * t * (h z j * h z k) +
        t ^ 2 * (h z k * h z k)) ∂stdGaussian n := by
    first
      | exact integral_congr_ae (ae_of_all _ hpt)
      | simp only [hpt]
  have e1 : ∫ z, (s ^ 2 * (h z j * h z j) + 2 * s * t * (h z j * h z k) +
        t ^ 2 * (h z k * h z k)) ∂stdGaussian n =
      ∫ z, (s ^ 2 * (h z j * h z j) + 2 * s * t * (h z j * h z k)) ∂stdGaussian n +
        ∫ z, t ^ 2 * (h z k * h z k) ∂stdGaussian n :=
    integral_add i12 i3
  have e2 : ∫ z, (s ^ 2 * (h z j * h z j) + 2 * s * t * (h z j * h z k)) ∂stdGaussian n =
      ∫ z, s ^ 2 * (h z j * h z j) ∂stdGaussian n +
        ∫ z, 2 * s * t * (h z j * h z k) ∂stdGaussian n :=
    integral_add i1 i2
  have e3 : ∫ z, s ^ 2 * (h z j * h z j) ∂stdGaussian n = s ^ 2 * outputCov h j j := by
    rw [outputCov_apply]
    first
      | exact integral_const_mul (s ^ 2) _
      | exact integral_mul_left (s ^ 2) _
  have e4 : ∫ z, 2 * s * t * (h z j * h z k) ∂stdGaussian n = 2 * s * t * outputCov h j k := by
    rw [outputCov_apply]
    first
      | exact integral_const_mul (2 * s * t) _
      | exact integral_mul_left (2 * s * t) _
  have e5 : ∫ z, t ^ 2 * (h z k * h z k) ∂stdGaussian n = t ^ 2 * outputCov h k k := by
    rw [outputCov_apply]
    first
      | exact integral_const_mul (t ^ 2) _
      | exact integral_mul_left (t ^ 2) _
  linarith [e0, e1, e2, e3, e4, e5]

/-- The degree-one coefficients of `s hⱼ + t hₖ` are `s aⱼ + t aₖ`. -/
theorem linearCoeff_pair {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ} (hL2 : SquareIntegrable h)
    (j k : Fin m) (s t : ℝ) (i : Fin n) :
    linearCoeff (fun z => s * h z j + t * h z k) i =
      s * linearPart h j i + t * linearPart h k i := by
  have i1 : Integrable (fun z : Fin n → ℝ => s * (h z j * z i)) (stdGaussian n) :=
    (integrable_mul_of_memLp (hL2 j) (memLp_coord n i)).const_mul s
  have i2 : Integrable (fun z : Fin n → ℝ => t * (h z k * z i)) (stdGaussian n) :=
    (integrable_mul_of_memLp (hL2 k) (memLp_coord n i)).const_mul t
  have hpt : ∀ z : Fin n → ℝ,
      (s * h z j + t * h z k) * z i = s * (h z j * z i) + t * (h z k * z i) :=
    fun z => by ring
  have e0 : linearCoeff (fun z => s * h z j + t * h z k) i =
      ∫ z, (s * h z j + t * h z k) * z i ∂stdGaussian n :=
    rfl
  have e1 : ∫ z, (s * h z j + t * h z k) * z i ∂stdGaussian n =
      ∫ z, (s * (h z j * z i) + t * (h z k * z i)) ∂stdGaussian n := by
    first
      | exact integral_congr_ae (ae_of_all _ hpt)
      | simp only [hpt]
  have e2 : ∫ z, (s * (h z j * z i) + t * (h z k * z i)) ∂stdGaussian n =
      ∫ z, s * (h z j * z i) ∂stdGaussian n + ∫ z, t * (h z k * z i) ∂stdGaussian n :=
    integral_add i1 i2
  have ej : linearPart h j i = ∫ z, h z j * z i ∂stdGaussian n := rfl
  have ek : linearPart h k i = ∫ z, h z k * z i ∂stdGaussian n := rfl
  have e3 : ∫ z, s * (h z j * z i) ∂stdGaussian n = s * linearPart h j i := by
    rw [ej]
    first
      | exact integral_const_mul s _
      | exact integral_mul_left s _
  have e4 : ∫ z, t * (h z k * z i) ∂stdGaussian n = t * linearPart h k i := by
    rw [ek]
    first
      | exact integral_const_mul t _
      | exact integral_mul_left t _
  first
    | linarith [e0, e1, e2, e3, e4]
    | (rw [e0, e1, e2, e3, e4]; done)

/-- **The residual covariance is positive semidefinite.** With `R = Cov h - A Aᵀ`, for every pair
of output coordinates `j, k` and all real `s, t`: `s² Rⱼⱼ + 2st Rⱼₖ + t² Rₖₖ ≥ 0`. This is
Parseval for `F = s hⱼ + t hₖ`: `E F² ≥ ‖a_F‖²`. -/
theorem residual_quadratic_nonneg {n m : ℕ} {h : (Fin n → ℝ) → Fin m → ℝ}
    (hL2 : SquareIntegrable h) (j k : Fin m) (s t : ℝ) :
    0 ≤ s ^ 2 * (outputCov h j j - ∑ i, linearPart h j i * linearPart h j i) +
      2 * s * t * (outputCov h j k - ∑ i, linearPart h j i * linearPart h k i) +
        t ^ 2 * (outputCov h k k - ∑ i, linearPart h k i * linearPart h k i) := by
  have hF : MemLp (fun z => s * h z j + t * h z k) 2 (stdGaussian n) := by
    first
      | exact ((hL2 j).const_mul s).add ((hL2 k).const_mul t)
      | simpa only [Pi.add_apply] using ((hL2 j).const_mul s).add ((hL2 k).const_mul t)
  obtain ⟨R, hR0, -, hsq, -, -, -⟩ :=
    coord_spectral (fun z => s * h z j + t * h z k) hF (1 / 2) (by norm_num) (by norm_num)
  have hsq' : ∫ z, (s * h z j + t * h z k) ^ 2 ∂stdGaussian n =
      (∫ z, (s * h z j + t * h z k) ∂stdGaussian n) ^ 2 +
        ∑ i, linearCoeff (fun z => s * h z j + t * h z k) i ^ 2 + R :=
    hsq
  have hlin : ∑ i, linearCoeff (fun z => s * h z j + t * h z k) i ^ 2 =
      ∑ i, (s * linearPart h j i + t * linearPart h k i) ^ 2 :=
    Finset.sum_congr rfl fun i _ => by rw [linearCoeff_pair hL2 j k s t i]
  have hexp : ∑ i, (s * linearPart h j i + t * linearPart h k i) ^ 2 =
      s ^ 2 * ∑ i, linearPart h j i ^ 2 +
        2 * s * t * ∑ i, linearPart h j i * linearPart h k i +
          t ^ 2 * ∑ i, linearPart h k i ^ 2 :=
    sum_sq_pair_expand (fun i => linearPart h j i) (fun i => linearPart h k i) s t
  have hjj : ∑ i, linearPart h j i ^ 2 = ∑ i, linearPart h j i * linearPart h j i :=
    Finset.sum_congr rfl fun i _ => sq _
  have hkk : ∑ i, linearPart h k i ^ 2 = ∑ i, linearPart h k i * linearPart h k i :=
    Finset.sum_congr rfl fun i _ => sq _
  rw [hjj, hkk] at hexp
  have hI := integral_pair_sq hL2 j k s t
  have hm := sq_nonneg (∫ z, (s * h z j + t * h z k) ∂stdGaussian n)
  first
    | linarith
    | nlinarith [hsq', hlin, hexp, hI, hm, hR0]

/-- **The trace of the residual covariance is the nonlinear energy**, hence at most `D`:
`∑ⱼ (Covⱼⱼ - ‖aⱼ‖²) ≤ δ / (2ρ(1-ρ))` for a centred square-integrable `h`. -/
theorem sum_residual_diag_le {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussian n = 0) :
    ∑ j, (outputCov h j j - ∑ i, linearPart h j i * linearPart h j i) ≤
      alignmentGap ρ h / (2 * ρ * (1 - ρ)) := by
  refine le_trans (le_of_eq ?_) (nonlinear_energy_le ρ hρ0 hρ1 h hL2 hc)
  refine Finset.sum_congr rfl fun j _ => ?_
  obtain ⟨R, -, hq, hsq, -, -, -⟩ := coord_spectral (fun z => h z j) (hL2 j) ρ hρ0 hρ1
  have hq' : ∫ z, (h z j - ∑ i, linearPart h j i * z i) ^ 2 ∂stdGaussian n =
      (∫ z, h z j ∂stdGaussian n) ^ 2 +
        ∑ i, (linearCoeff (fun z => h z j) i - linearPart h j i) ^ 2 + R :=
    hq (fun i => linearPart h j i)
  have hsq' : ∫ z, h z j ^ 2 ∂stdGaussian n =
      (∫ z, h z j ∂stdGaussian n) ^ 2 + ∑ i, linearCoeff (fun z => h z j) i ^ 2 + R :=
    hsq
  have hzero : ∑ i, (linearCoeff (fun z => h z j) i - linearPart h j i) ^ 2 = 0 :=
    Finset.sum_eq_zero fun i _ => by
      first
        | (rw [linearPart_apply]; ring)
        | (simp [linearPart_apply]; done)
  have hdiag : ∑ i, linearPart h j i * linearPart h j i =
      ∑ i, linearCoeff (fun z => h z j) i ^ 2 :=
    Finset.sum_congr rfl fun i _ => by
      first
        | exact (sq _).symm
        | (rw [linearPart_apply]; ring)
  have hpt : ∀ z : Fin n → ℝ, h z j * h z j = h z j ^ 2 := fun z => (sq (h z j)).symm
  have hcov : outputCov h j j = ∫ z, h z j ^ 2 ∂stdGaussian n := by
    first
      | exact integral_congr_ae (ae_of_all _ hpt)
      | (rw [outputCov_apply]; exact integral_congr_ae (ae_of_all _ hpt))
      | (rw [outputCov_apply]; simp only [hpt]; done)
  have hcj : ∫ z, h z j ∂stdGaussian n = 0 := hc j
  rw [hcj] at hq' hsq'
  rw [hcov, hdiag]
  linarith

/-- **The linear part is nearly whitened:** `‖A Aᵀ - I‖²_F ≤ (ε + D)²` for a centred
square-integrable `h : ℝⁿ → ℝᵐ`, `ε = ‖Cov h - I‖_F`, `D = δ / (2ρ(1-ρ))`. -/
theorem linearWhiteningError_le_cov {n m : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin m → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussian n = 0) :
    linearWhiteningError h ≤
      (covWhiteningError h + alignmentGap ρ h / (2 * ρ * (1 - ρ))) ^ 2 := by
  have hG : ∀ j k, (linearPart h * (linearPart h).transpose) j k =
      ∑ i, linearPart h j i * linearPart h k i := fun j k => by
    first
      | rfl
      | (rw [Matrix.mul_apply]; rfl)
      | (rw [Matrix.mul_apply]; simp only [Matrix.transpose_apply])
  have hLW : linearWhiteningError h = ∑ j, ∑ k,
      ((∑ i, linearPart h j i * linearPart h k i) - (1 : Matrix (Fin m) (Fin m) ℝ) j k) ^ 2 := by
    unfold linearWhiteningError
    exact Finset.sum_congr rfl fun j _ => Finset.sum_congr rfl fun k _ => by rw [hG j k]
  have key : ∑ j, ∑ k, ((∑ i, linearPart h j i * linearPart h k i) -
        (1 : Matrix (Fin m) (Fin m) ℝ) j k) ^ 2 ≤
      (covWhiteningError h + alignmentGap ρ h / (2 * ρ * (1 - ρ))) ^ 2 :=
    frobenius_whitening_bound (fun j k => outputCov h j k)
      (fun j k => ∑ i, linearPart h j i * linearPart h k i)
      (fun j k => (1 : Matrix (Fin m) (Fin m) ℝ) j k) (alignmentGap ρ h / (2 * ρ * (1 - ρ)))
      (fun j k s t => residual_quadratic_nonneg hL2 j k s t)
      (sum_residual_diag_le ρ hρ0 hρ1 h hL2 hc)
  rw [hLW]
  exact key

/-- **T3 (b), THEORY.md's form.** For `m = n`, a centred square-integrable `h` and `0 < ρ < 1`,
there is an orthogonal `Q` with `E‖h(z) - Q z‖² ≤ D + (ε + D)²`, where `D = δ / (2ρ(1-ρ))`,
`δ = L(h) - 2(1-ρ) E‖h‖²` and `ε = ‖Cov h - I‖_F` (`LeJEPA.covWhiteningError`). -/
theorem approximate_identifiability_whitening {n : ℕ} (ρ : ℝ) (hρ0 : 0 < ρ) (hρ1 : ρ < 1)
    (h : (Fin n → ℝ) → Fin n → ℝ) (hL2 : SquareIntegrable h)
    (hc : ∀ j, ∫ z, h z j ∂stdGaussian n = 0) :
    ∃ Q : Matrix (Fin n) (Fin n) ℝ, Q ∈ Matrix.orthogonalGroup (Fin n) ℝ ∧
      ∑ j, ∫ z, (h z j - ∑ i, Q j i * z i) ^ 2 ∂stdGaussian n ≤
        alignmentGap ρ h / (2 * ρ * (1 - ρ)) +
          (covWhiteningError h + alignmentGap ρ h / (2 * ρ * (1 - ρ))) ^ 2 := by
  obtain ⟨Q, hQ, hbound⟩ := approximate_identifiability ρ hρ0 hρ1 h hL2 hc
  have hW := linearWhiteningError_le_cov ρ hρ0 hρ1 h hL2 hc
  exact ⟨Q, hQ, by linarith⟩

end LeJEPA
