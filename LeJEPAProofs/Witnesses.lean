/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.InheritedDynamics
import LeJEPAProofs.ApproximateWhitening
import LeJEPAProofs.Langevin
import LeJEPAProofs.PlanningStochastic
import LeJEPAProofs.Anisotropic
import LeJEPAProofs.ForMathlib.Orthonormal

/-!
# Witnesses: the hypotheses of every main theorem hold together

A theorem whose hypotheses cannot be met at once says nothing. For each main theorem this file
gives a concrete object that meets all its hypotheses, as an `example` the build checks:

* T1 and C1: the identity encoder `h(z) = z` (whitened, square integrable; it attains
  `L(h) = 2n(1-ρ)` with `Q = 1`, and its positive pair has the OU law);
* M1: the first `m ≤ n` coordinates, `h(z) = W z` with `W` the `m × n` selection matrix
  (`W Wᵀ = I_m`), which attains `L(h) = 2m(1-ρ)`;
* T2: the standard Gaussian density `gaussianPDFReal 0 1`, a positive `C¹` probability density
  whose generator has the affine eigenfunction `f(z) = z` with `λ = 1`;
* T3: the zero encoder `h = 0` (square integrable and centred);
* T4: the Gaussian noise law `stdGaussian`, invariant under every linear isometry, in the
  goal-reaching form of planning equivalence;
* P5: equal rates `κᵢ = 1` (`τ = 1`), for which the linear family is the unique optimum.

## Main statements

* `LeJEPA.integral_coord`: `E zᵢ = 0` under `γ_n`.
* `LeJEPA.isWhitened_id`, `LeJEPA.isWhitened_linear`: the encoders `z ↦ z` and `z ↦ W z` with
  `W Wᵀ = I` are whitened; `LeJEPA.integral_sq_sum_mul_rows`: `E⟨v, W z⟩² = ‖v‖²`.
* `LeJEPA.firstCoords`: the matrix of `z ↦ (z₀, …, z_{m-1})`, with orthonormal rows.
* `LeJEPA.isPositiveDensity_gaussianPDFReal`: the standard Gaussian density meets T2's
  hypotheses.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- A coordinate of the standard Gaussian has mean zero: `E zᵢ = 0`. -/
theorem integral_coord (n : ℕ) (i : Fin n) : ∫ z, z i ∂stdGaussianPi n = 0 :=
  (integral_comp_of_measurePreserving (g := fun x : ℝ => x)
    (measurePreserving_eval_pi_gaussianReal i) measurable_id'.aestronglyMeasurable).trans
      integral_id_gaussianReal

/-- A coordinate of the standard Gaussian is integrable. -/
theorem integrable_coord (n : ℕ) (i : Fin n) :
    Integrable (fun z : Fin n → ℝ => z i) (stdGaussianPi n) := by
  first
    | exact (memLp_coord n i).integrable one_le_two
    | exact (memLp_coord n i).integrable (by norm_num)
    | simpa using integrable_mul_of_memLp_two (memLp_coord n i) (memLp_const (1 : ℝ))

/-- A linear form of the standard Gaussian has mean zero: `E⟨w, z⟩ = 0`. -/
theorem integral_sum_mul_coord (n : ℕ) (w : Fin n → ℝ) :
    ∫ z, ∑ i, w i * z i ∂stdGaussianPi n = 0 := by
  have hint : ∀ i ∈ (Finset.univ : Finset (Fin n)),
      Integrable (fun z : Fin n → ℝ => w i * z i) (stdGaussianPi n) := fun i _ =>
    (integrable_coord n i).const_mul (w i)
  rw [integral_finset_sum Finset.univ hint]
  exact Finset.sum_eq_zero fun i _ => by rw [integral_const_mul, integral_coord, mul_zero]

/-- The identity encoder is square integrable. -/
theorem squareIntegrable_id (n : ℕ) : SquareIntegrable (fun z : Fin n → ℝ => z) :=
  fun j => memLp_coord n j

/-- The identity encoder is whitened: `E z = 0` and `E⟨v, z⟩² = ‖v‖²`. -/
theorem isWhitened_id (n : ℕ) : IsWhitened (fun z : Fin n → ℝ => z) :=
  ⟨fun j => integral_coord n j, fun v => integral_sq_linear n v⟩

/-- `z = 1 z`, coordinatewise. -/
theorem coord_eq_sum_one_mul {n : ℕ} (z : Fin n → ℝ) (j : Fin n) :
    z j = ∑ i, (1 : Matrix (Fin n) (Fin n) ℝ) j i * z i := by
  simp only [Matrix.one_apply]
  exact (sum_ite_eq_mul j z).symm

/-- The identity matrix is orthogonal. -/
theorem one_mem_orthogonalGroup (n : ℕ) :
    (1 : Matrix (Fin n) (Fin n) ℝ) ∈ Matrix.orthogonalGroup (Fin n) ℝ := by
  first
    | exact one_mem _
    | exact mem_orthogonalGroup_of_mul_transpose (by simp)

/-- **`E⟨v, W z⟩² = ‖v‖²` for a matrix with orthonormal rows** (`W Wᵀ = I`). -/
theorem integral_sq_sum_mul_rows {n m : ℕ} (W : Matrix (Fin m) (Fin n) ℝ)
    (hW : W * W.transpose = 1) (v : Fin m → ℝ) :
    ∫ z, (∑ j, v j * ∑ i, W j i * z i) ^ 2 ∂stdGaussianPi n = ∑ j, v j ^ 2 := by
  have hpt : ∀ z : Fin n → ℝ, ∑ j, v j * ∑ i, W j i * z i = ∑ i, (∑ j, v j * W j i) * z i :=
    fun z => by
      simp only [Finset.mul_sum, Finset.sum_mul]
      rw [Finset.sum_comm]
      exact Finset.sum_congr rfl fun i _ => Finset.sum_congr rfl fun j _ => by ring
  have hWe : ∀ j k, ∑ i, W j i * W k i = if j = k then 1 else 0 := fun j k => by
    have h := congrFun (congrFun hW j) k
    rw [Matrix.mul_apply, Matrix.one_apply] at h
    simp only [Matrix.transpose_apply] at h
    exact h
  simp only [hpt]
  rw [integral_sq_linear]
  calc ∑ i, (∑ j, v j * W j i) ^ 2
      = ∑ i, (∑ j, W j i * v j) * (∑ k, W k i * v k) := Finset.sum_congr rfl fun i _ => by
        rw [sq]
        congr 1 <;> exact Finset.sum_congr rfl fun j _ => mul_comm _ _
    _ = ∑ j, v j * ∑ k, (∑ i, W j i * W k i) * v k := sum_sum_mul_exchange W W v v
    _ = ∑ j, v j ^ 2 := Finset.sum_congr rfl fun j _ => by
        simp only [hWe, sum_ite_eq_mul]
        ring

/-- The linear encoder `z ↦ W z` is square integrable. -/
theorem squareIntegrable_linear {n m : ℕ} (W : Matrix (Fin m) (Fin n) ℝ) :
    SquareIntegrable (fun z : Fin n → ℝ => fun j => ∑ i, W j i * z i) :=
  fun j => memLp_finset_sum Finset.univ fun i _ => (memLp_coord n i).const_mul (W j i)

/-- The linear encoder `z ↦ W z` with orthonormal rows (`W Wᵀ = I`) is whitened. -/
theorem isWhitened_linear {n m : ℕ} (W : Matrix (Fin m) (Fin n) ℝ) (hW : W * W.transpose = 1) :
    IsWhitened (fun z : Fin n → ℝ => fun j => ∑ i, W j i * z i) :=
  ⟨fun j => integral_sum_mul_coord n (fun i => W j i), fun v => integral_sq_sum_mul_rows W hW v⟩

/-- The `m × n` matrix of `z ↦ (z₀, …, z_{m-1})` for `m ≤ n`. -/
noncomputable def firstCoords {m n : ℕ} (hmn : m ≤ n) : Matrix (Fin m) (Fin n) ℝ :=
  Matrix.of fun j i => if Fin.castLE hmn j = i then 1 else 0

/-- The selection of the first `m` coordinates has orthonormal rows. -/
theorem firstCoords_mul_transpose {m n : ℕ} (hmn : m ≤ n) :
    firstCoords hmn * (firstCoords hmn).transpose = 1 := by
  ext j k
  rw [Matrix.mul_apply, Matrix.one_apply]
  simp only [Matrix.transpose_apply, firstCoords, Matrix.of_apply]
  rw [sum_ite_eq_mul]
  by_cases hjk : j = k
  · subst hjk
    simp
  · have hne : Fin.castLE hmn k ≠ Fin.castLE hmn j := by
      intro h
      apply hjk
      first
        | exact (Fin.castLE_injective hmn h).symm
        | exact Fin.ext (by simpa using congrArg Fin.val h.symm)
    rw [if_neg hjk, if_neg hne]

/-- The standard Gaussian density is a positive `C¹` probability density (T2's hypotheses). -/
theorem isPositiveDensity_gaussianPDFReal : IsPositiveDensity (gaussianPDFReal 0 1) where
  pos z := gaussianPDFReal_pos 0 1 z one_ne_zero
  contDiff := by
    first
      | (rw [gaussianPDFReal_def]; fun_prop)
      | exact contDiff_const.mul (Real.contDiff_exp.comp
          ((((contDiff_id.sub contDiff_const).pow 2).neg).div_const _))
  integrable := integrable_gaussianPDFReal 0 1
  integral_eq_one := integral_gaussianPDFReal_eq_one 0 one_ne_zero

/-- **Witness for T1.** The identity encoder is square integrable and whitened, and attains
T1's bound `L(h) = 2n(1-ρ)` (here `ρ = 1/2`) with `Q = 1`. -/
example (n : ℕ) :
    SquareIntegrable (fun z : Fin n → ℝ => z) ∧ IsWhitened (fun z : Fin n → ℝ => z) ∧
      alignmentLoss (1 / 2) (fun z : Fin n → ℝ => z) = 2 * n * (1 - 1 / 2) :=
  ⟨squareIntegrable_id n, isWhitened_id n,
    ((forward_identifiability (1 / 2) (by norm_num) (by norm_num) _ (squareIntegrable_id n)
      (isWhitened_id n)).2).2
        ⟨1, one_mem_orthogonalGroup n, ae_of_all _ fun z j => coord_eq_sum_one_mul z j⟩⟩

/-- **Witness for C1.** With `Q = 1` and `h(z) = z`, the encoded positive pair has the law of
`(u, ρ u + √(1 - ρ²) η)`. -/
example (n : ℕ) :
    (ouPair n).map (fun p => ((fun z : Fin n → ℝ => z) p.1,
        (fun z : Fin n → ℝ => z) (ouMap (1 / 2) p))) =
      (ouPair n).map (fun p => (p.1, ouMap (1 / 2) p)) :=
  inherited_dynamics (1 / 2) (by norm_num) (by norm_num) (fun z : Fin n → ℝ => z) 1
    (one_mem_orthogonalGroup n) (ae_of_all _ fun z j => coord_eq_sum_one_mul z j)

/-- **Witness for M1.** For `m ≤ n`, the first `m` coordinates `h(z) = W z` (`W` the selection
matrix) are square integrable and whitened, and attain `L(h) = 2m(1-ρ)` (here `ρ = 1/2`). -/
example {m n : ℕ} (hmn : m ≤ n) :
    SquareIntegrable (fun z : Fin n → ℝ => fun j => ∑ i, firstCoords hmn j i * z i) ∧
      IsWhitened (fun z : Fin n → ℝ => fun j => ∑ i, firstCoords hmn j i * z i) ∧
      alignmentLoss (1 / 2) (fun z : Fin n → ℝ => fun j => ∑ i, firstCoords hmn j i * z i) =
        2 * m * (1 - 1 / 2) :=
  ⟨squareIntegrable_linear _, isWhitened_linear _ (firstCoords_mul_transpose hmn),
    ((top_eigenvalues_output_dim (1 / 2) (by norm_num) (by norm_num) _
      (squareIntegrable_linear _) (isWhitened_linear _ (firstCoords_mul_transpose hmn))).2).2
        ⟨firstCoords hmn, firstCoords_mul_transpose hmn, ae_of_all _ fun _ _ => rfl⟩⟩

/-- **Witness for T2.** The standard Gaussian density meets T2's hypotheses, and `f(z) = z`
is an eigenfunction of its generator with `λ = 1`. -/
example : IsPositiveDensity (gaussianPDFReal 0 1) ∧
    ∀ z, langevinGenerator (gaussianPDFReal 0 1) (fun y => 1 * y + 0) z = -1 * (1 * z + 0) :=
  ⟨isPositiveDensity_gaussianPDFReal,
    (affine_eigenfunction_iff_gaussian isPositiveDensity_gaussianPDFReal one_pos
      one_ne_zero).2 (by simp)⟩

/-- **Witness for T3.** The zero encoder is square integrable and centred. -/
example (n : ℕ) : SquareIntegrable (fun _ : Fin n → ℝ => (0 : Fin n → ℝ)) ∧
    ∀ j, ∫ z, (fun _ : Fin n → ℝ => (0 : Fin n → ℝ)) z j ∂stdGaussianPi n = 0 := by
  refine ⟨fun _ => ?_, fun _ => by simp⟩
  first
    | exact memLp_const 0
    | exact zero_memLp
    | simpa using memLp_const (0 : ℝ)

/-- **Witness for T4.** The Gaussian noise law `stdGaussian` is invariant under every linear
isometry, so planning in learned coordinates with goal-reaching costs has the true expected
costs. -/
example {n : ℕ} (Q : EuclideanSpace ℝ (Fin n) ≃ₗᵢ[ℝ] EuclideanSpace ℝ (Fin n))
    (F : EuclideanSpace ℝ (Fin n) → ℕ → EuclideanSpace ℝ (Fin n)) (κ : ℕ → ℝ)
    (zg z : EuclideanSpace ℝ (Fin n)) (π : ℕ → EuclideanSpace ℝ (Fin n) → ℕ) (N : ℕ) :
    policyCost (fun y a => Q (F (Q.symm y) a)) (stdGaussian (EuclideanSpace ℝ (Fin n)))
        (fun y a => ‖y - Q zg‖ ^ 2 + κ a) (fun y => ‖y - Q zg‖ ^ 2)
        (fun k y => π k (Q.symm y)) N (Q z) =
      policyCost F (stdGaussian (EuclideanSpace ℝ (Fin n))) (fun z a => ‖z - zg‖ ^ 2 + κ a)
        (fun z => ‖z - zg‖ ^ 2) π N z :=
  planning_equivalence_goal_reaching Q (map_stdGaussian_linearIsometryEquiv Q) F κ zg π N z

/-- **Witness for P5.** With equal rates `κᵢ = 1` and `τ = 1`, the linear family has strictly
smaller loss than every other family of `n` distinct non-constant Hermite functions. -/
example (n : ℕ) (S : Finset (Fin n → ℕ)) (hS : ∀ α ∈ S, 1 ≤ ∑ k, α k) (hcard : S.card = n)
    (hne : S ≠ linearFamily n) :
    familyLoss (rates (fun _ => 1) 1) (linearFamily n) < familyLoss (rates (fun _ => 1) 1) S :=
  (linear_family_optimal_iff (fun _ : Fin n => (1 : ℝ)) (fun _ => one_pos) one_pos).2
    (fun _ _ => by norm_num) S hS hcard hne

end LeJEPA
