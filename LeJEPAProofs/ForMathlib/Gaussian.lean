/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.ForMathlib.Integral
import Mathlib.LinearAlgebra.UnitaryGroup

/-!
# Products of standard real Gaussians: moments, linear combinations and rotations

Generic facts about the product measure `Measure.pi (fun _ : ι ↦ gaussianReal 0 1)` that are
not about the paper and could live in Mathlib.

## Main statements

* `LeJEPA.measurePreserving_eval_pi_gaussianReal`: each coordinate of
  `γ = Measure.pi (fun _ ↦ gaussianReal 0 1)` has law `N(0, 1)`.
* `LeJEPA.memLp_eval_pi_gaussianReal`, `LeJEPA.memLp_two_eval_pi_gaussianReal`: each coordinate
  is in `Lᵖ(γ)` for every finite `p`, in particular in `L²(γ)`.
* `LeJEPA.integral_sq_gaussianReal_zero_one`: `∫ x² dN(0, 1) = 1`.
* `LeJEPA.integral_sq_eval_pi_gaussianReal`, `LeJEPA.integral_mul_eval_pi_gaussianReal`:
  `∫ zᵢ² dγ = 1` and `∫ zᵢ zⱼ dγ = 0` for `i ≠ j`.
* `LeJEPA.integral_sq_sum_mul_pi_gaussianReal`: `∫ (∑ᵢ wᵢ zᵢ)² dγ = ∑ᵢ wᵢ²`.
* `LeJEPA.map_linComb_gaussianReal`: if `x, y` are independent standard real Gaussians and
  `a² + b² = 1`, then `a x + b y` is a standard real Gaussian.
* `LeJEPA.map_linComb_pi_gaussianReal`: the same coordinatewise on `ι → ℝ`: the image of
  `γ ⊗ γ` (with `γ = Measure.pi (fun _ ↦ gaussianReal 0 1)`) under `(z, ξ) ↦ a z + b ξ` is `γ`.
* `LeJEPA.orthogonalIsometry`: an orthogonal matrix as a linear isometry equivalence of
  `EuclideanSpace ℝ (Fin n)`.
* `LeJEPA.map_mulVec_pi_gaussianReal`: rotation invariance, `γ_n` is invariant under
  `z ↦ Q z` for every orthogonal `Q`.

## Implementation notes

The moments use only Mathlib's one-dimensional facts: the coordinate projection of a product of
probability measures is measure preserving (`MeasureTheory.measurePreserving_eval`; the proof
also accepts the older `ProbabilityTheory.measurePreserving_eval`), the identity is in `Lᵖ` of a
real Gaussian (`ProbabilityTheory.memLp_id_gaussianReal`), its mean and variance
(`ProbabilityTheory.integral_id_gaussianReal`, `ProbabilityTheory.variance_fun_id_gaussianReal`
or `ProbabilityTheory.variance_id_gaussianReal` through `simp`,
`ProbabilityTheory.variance_eq_integral`). Distinct coordinates are uncorrelated by a symmetry
argument rather than through independence: flipping the sign of `zᵢ` preserves `γ`
(`ProbabilityTheory.gaussianReal_map_const_mul`, `MeasureTheory.measurePreserving_pi`) and
changes the sign of `zᵢ zⱼ`.

The one-dimensional step is Mathlib's `ProbabilityTheory.gaussianReal_map_const_mul` and
`ProbabilityTheory.gaussianReal_conv_gaussianReal` (`Mathlib/Probability/Distributions/Gaussian/
Real.lean`); the coordinatewise step is `MeasureTheory.measurePreserving_arrowProdEquivProdArrow`
and `MeasureTheory.measurePreserving_pi`. Rotation invariance is transported from Mathlib's
standard Gaussian on a Euclidean space (`ProbabilityTheory.stdGaussian_map`,
`Mathlib/Probability/Distributions/Gaussian/Multivariate.lean`) through the bridge from the
product measure, which is named `ProbabilityTheory.map_pi_eq_stdGaussian` in the merged file and
`ProbabilityTheory.pi_eq_stdGaussian` in the pull request that introduced it; the proof accepts
either spelling.

## References

* V. Bogachev, *Gaussian Measures*, AMS 1998, §1.2.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory
open scoped NNReal

/-- Each coordinate of the product standard Gaussian has law `N(0, 1)`. -/
theorem measurePreserving_eval_pi_gaussianReal {ι : Type*} [Fintype ι] (i : ι) :
    MeasurePreserving (fun z : ι → ℝ => z i) (Measure.pi fun _ : ι => gaussianReal 0 1)
      (gaussianReal 0 1) := by
  -- Mathlib's lemma moved from `ProbabilityTheory` to `MeasureTheory`; accept either home.
  first
    | exact MeasureTheory.measurePreserving_eval (μ := fun _ : ι => gaussianReal 0 1) i
    | exact ProbabilityTheory.measurePreserving_eval (μ := fun _ : ι => gaussianReal 0 1) i
    | exact MeasureTheory.Measure.measurePreserving_eval (μ := fun _ : ι => gaussianReal 0 1) i

/-- Each coordinate of the product standard Gaussian has finite moments of every finite order:
`z ↦ zᵢ` is in `Lᵖ` for every `p : ℝ≥0`. -/
theorem memLp_eval_pi_gaussianReal {ι : Type*} [Fintype ι] (p : ℝ≥0) (i : ι) :
    MemLp (fun z : ι → ℝ => z i) p (Measure.pi fun _ : ι => gaussianReal 0 1) :=
  (memLp_id_gaussianReal (μ := 0) (v := 1) p).comp_measurePreserving
    (measurePreserving_eval_pi_gaussianReal i)

/-- Each coordinate of the product standard Gaussian is square integrable. -/
theorem memLp_two_eval_pi_gaussianReal {ι : Type*} [Fintype ι] (i : ι) :
    MemLp (fun z : ι → ℝ => z i) 2 (Measure.pi fun _ : ι => gaussianReal 0 1) := by
  have h := memLp_eval_pi_gaussianReal (ι := ι) 2 i
  first
    | exact_mod_cast h
    | simpa using h

/-- The second moment of the standard real Gaussian: `∫ x² dN(0, 1) = 1`. -/
theorem integral_sq_gaussianReal_zero_one : ∫ x, x ^ 2 ∂gaussianReal 0 1 = 1 := by
  have hvar : variance (fun x : ℝ => x) (gaussianReal 0 1) = 1 := by
    -- `Var[fun x ↦ x; gaussianReal μ v] = v` is a `simp` lemma (its name changed over time).
    first
      | (simp; done)
      | simpa using variance_fun_id_gaussianReal (μ := 0) (v := 1)
      | simpa using variance_id_gaussianReal (μ := 0) (v := 1)
  rw [variance_eq_integral measurable_id'.aemeasurable] at hvar
  simpa only [integral_id_gaussianReal, sub_zero] using hvar

/-- The second moment of a coordinate of the product standard Gaussian: `∫ zᵢ² dγ = 1`. -/
theorem integral_sq_eval_pi_gaussianReal {ι : Type*} [Fintype ι] (i : ι) :
    ∫ z, z i ^ 2 ∂(Measure.pi fun _ : ι => gaussianReal 0 1) = 1 := by
  have hm : Measurable fun x : ℝ => x ^ 2 := by fun_prop
  calc ∫ z, z i ^ 2 ∂(Measure.pi fun _ : ι => gaussianReal 0 1)
      = ∫ x, x ^ 2 ∂gaussianReal 0 1 :=
        integral_comp_of_measurePreserving (g := fun x : ℝ => x ^ 2)
          (measurePreserving_eval_pi_gaussianReal i) hm.aestronglyMeasurable
    _ = 1 := integral_sq_gaussianReal_zero_one

/-- Multiplication by a sign (`c² = 1`) preserves `N(0, 1)`. -/
theorem measurePreserving_const_mul_gaussianReal {c : ℝ} (hc : c ^ 2 = 1) :
    MeasurePreserving (fun x : ℝ => c * x) (gaussianReal 0 1) (gaussianReal 0 1) := by
  refine ⟨by fun_prop, ?_⟩
  rw [gaussianReal_map_const_mul, mul_zero]
  congr 1
  refine NNReal.eq ?_
  simpa using hc

/-- Flipping the signs of some coordinates (`z ↦ (cᵢ zᵢ)ᵢ` with every `cᵢ² = 1`) preserves
`γ = Measure.pi (fun _ ↦ gaussianReal 0 1)`. -/
theorem measurePreserving_pi_const_mul_gaussianReal {ι : Type*} [Fintype ι] {c : ι → ℝ}
    (hc : ∀ i, c i ^ 2 = 1) :
    MeasurePreserving (fun z : ι → ℝ => fun i => c i * z i)
      (Measure.pi fun _ : ι => gaussianReal 0 1) (Measure.pi fun _ : ι => gaussianReal 0 1) := by
  have hf : ∀ i, MeasurePreserving (fun x : ℝ => c i * x) (gaussianReal 0 1)
      (gaussianReal 0 1) := fun i => measurePreserving_const_mul_gaussianReal (hc i)
  exact measurePreserving_pi (fun _ : ι => gaussianReal 0 1) (fun _ : ι => gaussianReal 0 1) hf

/-- Distinct coordinates of the product standard Gaussian are uncorrelated:
`∫ zᵢ zⱼ dγ = 0` for `i ≠ j` (flipping the sign of `zᵢ` preserves `γ` and negates `zᵢ zⱼ`). -/
theorem integral_mul_eval_pi_gaussianReal {ι : Type*} [Fintype ι] {i j : ι} (hij : i ≠ j) :
    ∫ z, z i * z j ∂(Measure.pi fun _ : ι => gaussianReal 0 1) = 0 := by
  classical
  have hc : ∀ k : ι, (if k = i then (-1 : ℝ) else 1) ^ 2 = 1 := fun k => by
    split_ifs <;> norm_num
  have hm : Measurable fun y : ι → ℝ => y i * y j := by fun_prop
  have key : ∫ z, (if i = i then (-1 : ℝ) else 1) * z i * ((if j = i then (-1 : ℝ) else 1) * z j)
        ∂(Measure.pi fun _ : ι => gaussianReal 0 1) =
      ∫ z, z i * z j ∂(Measure.pi fun _ : ι => gaussianReal 0 1) :=
    integral_comp_of_measurePreserving (g := fun y : ι → ℝ => y i * y j)
      (measurePreserving_pi_const_mul_gaussianReal hc) hm.aestronglyMeasurable
  have hfun : (fun z : ι → ℝ =>
      (if i = i then (-1 : ℝ) else 1) * z i * ((if j = i then (-1 : ℝ) else 1) * z j)) =
      fun z => -(z i * z j) := by
    funext z
    rw [if_pos rfl, if_neg (Ne.symm hij)]
    ring
  rw [hfun, integral_neg] at key
  linarith

/-- **Second moment of a linear form** under the product standard Gaussian:
`∫ (∑ᵢ wᵢ zᵢ)² dγ = ∑ᵢ wᵢ²`. -/
theorem integral_sq_sum_mul_pi_gaussianReal {ι : Type*} [Fintype ι] (w : ι → ℝ) :
    ∫ z, (∑ i, w i * z i) ^ 2 ∂(Measure.pi fun _ : ι => gaussianReal 0 1) = ∑ i, w i ^ 2 := by
  have hfun : (fun z : ι → ℝ => (∑ i, w i * z i) ^ 2) =
      fun z => ∑ i, ∑ j, w i * w j * (z i * z j) := by
    funext z
    rw [sq, Finset.sum_mul]
    refine Finset.sum_congr rfl fun i _ => ?_
    rw [Finset.mul_sum]
    exact Finset.sum_congr rfl fun j _ => by ring
  have hint : ∀ i j, Integrable (fun z : ι → ℝ => w i * w j * (z i * z j))
      (Measure.pi fun _ : ι => gaussianReal 0 1) := fun i j =>
    (integrable_mul_of_memLp_two (memLp_two_eval_pi_gaussianReal i)
      (memLp_two_eval_pi_gaussianReal j)).const_mul (w i * w j)
  have hint2 : ∀ i ∈ (Finset.univ : Finset ι),
      Integrable (fun z : ι → ℝ => ∑ j, w i * w j * (z i * z j))
        (Measure.pi fun _ : ι => gaussianReal 0 1) := fun i _ =>
    integrable_finset_sum Finset.univ fun j _ => hint i j
  have hdiag : ∀ i, ∫ z, z i * z i ∂(Measure.pi fun _ : ι => gaussianReal 0 1) = 1 := fun i => by
    simpa only [sq] using integral_sq_eval_pi_gaussianReal i
  rw [hfun, integral_finset_sum Finset.univ hint2]
  refine Finset.sum_congr rfl fun i _ => ?_
  rw [integral_finset_sum Finset.univ fun j _ => hint i j]
  have hterm : ∀ j, ∫ z, w i * w j * (z i * z j) ∂(Measure.pi fun _ : ι => gaussianReal 0 1) =
      w i * w j * ∫ z, z i * z j ∂(Measure.pi fun _ : ι => gaussianReal 0 1) := fun j =>
    integral_const_mul (w i * w j) _
  rw [Finset.sum_congr rfl fun j _ => hterm j, Finset.sum_eq_single i]
  · rw [hdiag i]
    ring
  · intro j _ hji
    rw [integral_mul_eval_pi_gaussianReal (Ne.symm hji), mul_zero]
  · intro hi
    exact absurd (Finset.mem_univ i) hi

/-- `a x + b y ~ N(0, 1)` for independent `x, y ~ N(0, 1)` when `a² + b² = 1`. -/
theorem map_linComb_gaussianReal {a b : ℝ} (hab : a ^ 2 + b ^ 2 = 1) :
    ((gaussianReal 0 1).prod (gaussianReal 0 1)).map (fun p : ℝ × ℝ => a * p.1 + b * p.2) =
      gaussianReal 0 1 := by
  have hmap : Measurable (Prod.map (fun x : ℝ => a * x) (fun x : ℝ => b * x)) := by fun_prop
  have hadd : Measurable (fun q : ℝ × ℝ => q.1 + q.2) := by fun_prop
  calc ((gaussianReal 0 1).prod (gaussianReal 0 1)).map (fun p : ℝ × ℝ => a * p.1 + b * p.2)
      = (((gaussianReal 0 1).prod (gaussianReal 0 1)).map
          (Prod.map (fun x : ℝ => a * x) (fun x : ℝ => b * x))).map
          (fun q : ℝ × ℝ => q.1 + q.2) :=
        (Measure.map_map hadd hmap).symm
    _ = (((gaussianReal 0 1).map (fun x : ℝ => a * x)).prod
          ((gaussianReal 0 1).map (fun x : ℝ => b * x))).map
          (fun q : ℝ × ℝ => q.1 + q.2) := by
        rw [Measure.map_prod_map _ _ (measurable_const_mul a) (measurable_const_mul b)]
    _ = Measure.conv (gaussianReal (a * 0) (⟨a ^ 2, sq_nonneg a⟩ * 1))
          (gaussianReal (b * 0) (⟨b ^ 2, sq_nonneg b⟩ * 1)) := by
        show _ = ((gaussianReal (a * 0) (⟨a ^ 2, sq_nonneg a⟩ * 1)).prod
          (gaussianReal (b * 0) (⟨b ^ 2, sq_nonneg b⟩ * 1))).map (fun q : ℝ × ℝ => q.1 + q.2)
        rw [gaussianReal_map_const_mul, gaussianReal_map_const_mul]
    _ = gaussianReal (a * 0 + b * 0) (⟨a ^ 2, sq_nonneg a⟩ * 1 + ⟨b ^ 2, sq_nonneg b⟩ * 1) :=
        gaussianReal_conv_gaussianReal
    _ = gaussianReal 0 1 := by
        congr 1
        · ring
        · refine NNReal.eq ?_
          simpa using hab

/-- Coordinatewise version of `LeJEPA.map_linComb_gaussianReal`: with
`γ = Measure.pi (fun _ ↦ gaussianReal 0 1)` on `ι → ℝ` and `a² + b² = 1`, the image of `γ ⊗ γ`
under `(z, ξ) ↦ a z + b ξ` is `γ`. This holds for every finite `ι`, including the empty one. -/
theorem map_linComb_pi_gaussianReal {ι : Type*} [Fintype ι] {a b : ℝ}
    (hab : a ^ 2 + b ^ 2 = 1) :
    ((Measure.pi fun _ : ι => gaussianReal 0 1).prod
        (Measure.pi fun _ : ι => gaussianReal 0 1)).map
        (fun p : (ι → ℝ) × (ι → ℝ) => fun i => a * p.1 i + b * p.2 i) =
      Measure.pi fun _ : ι => gaussianReal 0 1 := by
  have hpair := measurePreserving_arrowProdEquivProdArrow ℝ ℝ ι
    (fun _ => gaussianReal 0 1) (fun _ => gaussianReal 0 1)
  have hg : MeasurePreserving (fun q : ℝ × ℝ => a * q.1 + b * q.2)
      ((gaussianReal 0 1).prod (gaussianReal 0 1)) (gaussianReal 0 1) :=
    ⟨by fun_prop, map_linComb_gaussianReal hab⟩
  have hmeas : Measurable (fun p : (ι → ℝ) × (ι → ℝ) => fun i => a * p.1 i + b * p.2 i) := by
    fun_prop
  rw [← hpair.map_eq, Measure.map_map hmeas hpair.measurable]
  exact (measurePreserving_pi (fun _ : ι => (gaussianReal 0 1).prod (gaussianReal 0 1))
    (fun _ : ι => gaussianReal 0 1) (fun _ => hg)).map_eq

/-- `∑ᵢ (Q v)ᵢ² = ∑ᵢ vᵢ²` for a real square matrix with `Qᵀ Q = 1`. -/
theorem sum_sq_mulVec_of_transpose_mul {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ}
    (hQ : Q.transpose * Q = 1) (v : Fin n → ℝ) :
    ∑ i, Matrix.mulVec Q v i ^ 2 = ∑ i, v i ^ 2 := by
  have hQ' : ∀ j k, ∑ i, Q i j * Q i k = if j = k then 1 else 0 := by
    intro j k
    have h := congrFun (congrFun hQ j) k
    rw [Matrix.mul_apply, Matrix.one_apply] at h
    simpa only [Matrix.transpose_apply] using h
  calc ∑ i, Matrix.mulVec Q v i ^ 2
      = ∑ i, ∑ j, ∑ k, v j * v k * (Q i j * Q i k) := by
        refine Finset.sum_congr rfl fun i _ => ?_
        show (∑ j, Q i j * v j) ^ 2 = _
        rw [sq, Finset.sum_mul]
        refine Finset.sum_congr rfl fun j _ => ?_
        rw [Finset.mul_sum]
        exact Finset.sum_congr rfl fun k _ => by ring
    _ = ∑ j, ∑ i, ∑ k, v j * v k * (Q i j * Q i k) := Finset.sum_comm
    _ = ∑ j, ∑ k, ∑ i, v j * v k * (Q i j * Q i k) :=
        Finset.sum_congr rfl fun j _ => Finset.sum_comm
    _ = ∑ j, ∑ k, v j * v k * (if j = k then 1 else 0) := by
        refine Finset.sum_congr rfl fun j _ => Finset.sum_congr rfl fun k _ => ?_
        rw [← hQ' j k, Finset.mul_sum]
    _ = ∑ j, v j ^ 2 := by
        refine Finset.sum_congr rfl fun j _ => ?_
        rw [Finset.sum_eq_single j]
        · rw [if_pos rfl]
          ring
        · intro k _ hk
          rw [if_neg (Ne.symm hk), mul_zero]
        · intro hj
          exact absurd (Finset.mem_univ j) hj

/-- An orthogonal matrix (`Qᵀ Q = 1`, `Q Qᵀ = 1`) as a linear isometry equivalence of
`EuclideanSpace ℝ (Fin n)`, acting by `x ↦ Q x`. -/
noncomputable def orthogonalIsometry {n : ℕ} (Q : Matrix (Fin n) (Fin n) ℝ)
    (h1 : Q.transpose * Q = 1) (h2 : Q * Q.transpose = 1) :
    EuclideanSpace ℝ (Fin n) ≃ₗᵢ[ℝ] EuclideanSpace ℝ (Fin n) where
  toFun x := WithLp.toLp 2 (Matrix.mulVec Q (WithLp.ofLp x))
  invFun x := WithLp.toLp 2 (Matrix.mulVec Q.transpose (WithLp.ofLp x))
  map_add' x y := by simp only [WithLp.ofLp_add, Matrix.mulVec_add, WithLp.toLp_add]
  map_smul' c x := by
    simp only [WithLp.ofLp_smul, Matrix.mulVec_smul, WithLp.toLp_smul, RingHom.id_apply]
  left_inv x := by
    simp only [WithLp.ofLp_toLp, Matrix.mulVec_mulVec, h1, Matrix.one_mulVec, WithLp.toLp_ofLp]
  right_inv x := by
    simp only [WithLp.ofLp_toLp, Matrix.mulVec_mulVec, h2, Matrix.one_mulVec, WithLp.toLp_ofLp]
  norm_map' x := by
    show ‖(WithLp.toLp 2 (Matrix.mulVec Q (WithLp.ofLp x)) : EuclideanSpace ℝ (Fin n))‖ = ‖x‖
    rw [EuclideanSpace.norm_eq, EuclideanSpace.norm_eq]
    congr 1
    simp only [Real.norm_eq_abs, sq_abs]
    exact sum_sq_mulVec_of_transpose_mul h1 (WithLp.ofLp x)

/-- `Q z` in Euclidean coordinates is the isometry `LeJEPA.orthogonalIsometry` applied to `z`. -/
theorem toLp_comp_mulVec {n : ℕ} (Q : Matrix (Fin n) (Fin n) ℝ) (h1 : Q.transpose * Q = 1)
    (h2 : Q * Q.transpose = 1) :
    (WithLp.toLp 2 ∘ fun z : Fin n → ℝ => Matrix.mulVec Q z) =
      (orthogonalIsometry Q h1 h2 ∘ WithLp.toLp 2 : (Fin n → ℝ) → EuclideanSpace ℝ (Fin n)) := by
  funext z
  rfl

/-- **Rotation invariance of `γ_n`.** For an orthogonal `Q`, the image of the product standard
Gaussian on `Fin n → ℝ` under `z ↦ Q z` is the product standard Gaussian. -/
theorem map_mulVec_pi_gaussianReal {n : ℕ} {Q : Matrix (Fin n) (Fin n) ℝ}
    (hQ : Q ∈ Matrix.orthogonalGroup (Fin n) ℝ) :
    (Measure.pi fun _ : Fin n => gaussianReal 0 1).map (fun z => Matrix.mulVec Q z) =
      Measure.pi fun _ : Fin n => gaussianReal 0 1 := by
  have h1 : Q.transpose * Q = 1 := by
    have h := hQ
    rw [Matrix.mem_orthogonalGroup_iff'] at h
    exact h
  have h2 : Q * Q.transpose = 1 := by
    have h := hQ
    rw [Matrix.mem_orthogonalGroup_iff] at h
    exact h
  have hT : Measurable (WithLp.toLp 2 : (Fin n → ℝ) → EuclideanSpace ℝ (Fin n)) := by
    fun_prop
  have hO : Measurable (WithLp.ofLp : EuclideanSpace ℝ (Fin n) → (Fin n → ℝ)) := by
    fun_prop
  have hf : Measurable (orthogonalIsometry Q h1 h2) :=
    (orthogonalIsometry Q h1 h2).continuous.measurable
  have hQm : Measurable (fun z : Fin n → ℝ => Matrix.mulVec Q z) := by
    have h := hO.comp (hf.comp hT)
    rwa [← toLp_comp_mulVec Q h1 h2] at h
  have hpi : (Measure.pi fun _ : Fin n => gaussianReal 0 1).map (WithLp.toLp 2) =
      stdGaussian (EuclideanSpace ℝ (Fin n)) := by
    -- Two spellings of Mathlib's bridge lemma are plausible at the pinned release:
    -- `map_pi_eq_stdGaussian` (merged file) and `pi_eq_stdGaussian` (earlier revisions).
    first
      | exact map_pi_eq_stdGaussian
      | exact pi_eq_stdGaussian
  have key : ((Measure.pi fun _ : Fin n => gaussianReal 0 1).map
        (fun z => Matrix.mulVec Q z)).map (WithLp.toLp 2) =
      (Measure.pi fun _ : Fin n => gaussianReal 0 1).map (WithLp.toLp 2) := by
    rw [Measure.map_map hT hQm, toLp_comp_mulVec Q h1 h2, ← Measure.map_map hf hT, hpi,
      stdGaussian_map]
  have hid : (WithLp.ofLp ∘ WithLp.toLp 2 : (Fin n → ℝ) → (Fin n → ℝ)) = id := rfl
  have h := congrArg (Measure.map (WithLp.ofLp : EuclideanSpace ℝ (Fin n) → (Fin n → ℝ))) key
  rwa [Measure.map_map hO hT, Measure.map_map hO hT, hid, Measure.map_id, Measure.map_id] at h

end LeJEPA
