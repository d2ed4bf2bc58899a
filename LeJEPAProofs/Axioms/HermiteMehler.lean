/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Setting

/-!
# Assumed classical theorem: Hermite degree decomposition and Mehler's formula

## Main statements

* `LeJEPA.hermite_mehler_decomposition` (axiom): for a square-integrable `f : ℝⁿ → ℝ` under
  `γ_n`, the energies of the Hermite degree components of `f` above degree one form a
  nonnegative summable sequence `r` such that, with `c = E f` and `aᵢ = E[f(z) zᵢ]`:
  - orthogonality of the degrees and Parseval: `E f² = c² + ‖a‖² + ∑ₖ r k`;
  - Mehler's contraction: `E[f(z) f(z')] = c² + ρ ‖a‖² + ∑ₖ ρ^(k+2) r k` for `ρ ∈ (0, 1)`;
  - completeness: if every `r k = 0` then `f(z) = c + ⟨a, z⟩` for `γ_n`-almost every `z`.

The closed-form alignment loss is *not* part of the axiom: it is derived in
`LeJEPAProofs/HermiteConsequences.lean` from Mehler's clause, Parseval and the stationarity of
the channel (`LeJEPA.ou_stationary`, a theorem). Neither is Parseval against a linear form,
`E (f(z) - ⟨q, z⟩)² = c² + ‖a - q‖² + ∑ₖ r k` for every `q`: it follows from the clause above by
expanding the square (`LeJEPA.parseval_sub_linear`) and the Gaussian moment
`E⟨q, z⟩² = ‖q‖²`, which is proved from Mathlib (`LeJEPA.integral_sq_linear`).

## Informal statement

Let `H_α(z) = ∏ᵢ He_{αᵢ}(zᵢ) / √(αᵢ!)` be the normalized multivariate probabilists' Hermite
polynomials. They form an orthonormal basis of `L²(γ_n)`. For `f ∈ L²(γ_n)` write
`f = ∑_d f_d` with `f_d = ∑_{|α| = d} ⟨f, H_α⟩ H_α`; then `f_0 = c = E f`,
`f_1(z) = ∑ᵢ aᵢ zᵢ` with `aᵢ = E[f(z) zᵢ]` (since `H_{eᵢ}(z) = zᵢ`), and `r k = ‖f_{k+2}‖²`.
Orthonormality and completeness give Parseval, `E f² = c² + ‖a‖² + ∑_{d ≥ 2} ‖f_d‖²`, and
`f = f_0 + f_1` when all higher components vanish. Mehler's formula says the OU channel
`z' = ρ z + √(1 - ρ²) ξ` acts diagonally: `E[H_α(z') H_β(z)] = δ_{αβ} ρ^{|α|}`, hence
`E[f(z) f(z')] = ∑_d ρ^d ‖f_d‖²`.

The energies are determined by `f`: their sum by Parseval, and each `r k` by Mehler's clause,
which holds for every `ρ ∈ (0, 1)` and fixes the coefficients of the power series
`∑ₖ ρ^(k+2) r k` (uniqueness of power-series coefficients; not needed by the proofs).

## History and reference

Hermite polynomials: Chebyshev (1859), Hermite (1864); completeness in `L²(γ)` is classical
(e.g. Bogachev, *Gaussian Measures*, AMS 1998, §1.3; Janson, *Gaussian Hilbert Spaces*,
CUP 1997, Thm 2.6 and Ch. 3). Mehler's formula: F. G. Mehler, J. reine angew. Math. 66 (1866);
the OU semigroup form is in Bogachev §1.4 and Nualart, *The Malliavin Calculus and Related
Topics*, Prop. 1.4.1–1.4.2.

## Why it is assumed

Mathlib has the Hermite polynomials (`Polynomial.hermite`) and the real Gaussian
(`ProbabilityTheory.gaussianReal`), but not their orthogonality under the Gaussian measure,
completeness in `L²`, nor the Ornstein–Uhlenbeck semigroup (Mathlib issue #18548 tracks
Hermite orthogonality).

## Why the statement is true as written (no junk values)

`MemLp f 2 γ_n` makes every integrand in the conclusion integrable: `f`, `f²`, `f(z) zᵢ` under
`γ_n` (Gaussian coordinates have all moments, Cauchy–Schwarz), and
`f(z) f(z')` under `γ_n ⊗ γ_n` because both `z` and `z'` have law `γ_n`. So no Bochner integral
takes its default value `0`, the series `∑ r k` converges (it is at most `E f²`) and
summability is part of the conclusion. The clauses hold for `n = 0` (`γ_0` is a point mass,
`f` is constant, `r = 0`), for `f = 0`, and Mehler is only claimed for `0 < ρ < 1`. The
energies `r` are existentially quantified and tied to `f` by Parseval and Mehler: nothing is
postulated about free data.

Numerical check: tests/numerics/test_hermite.py::test_axiom_hermite_orthonormal_and_complete,
tests/numerics/test_mehler.py::test_axiom_mehler_formula

## References

See "History and reference" above.
-/

namespace LeJEPA

open MeasureTheory ProbabilityTheory

/-- **Hermite degree decomposition and Mehler's formula** (classical; assumed).

For every `n` and every `f : ℝⁿ → ℝ` in `L²(γ_n)` there is a nonnegative summable sequence
`r` (`r k` is the energy `‖f_{k+2}‖²` of the Hermite degree-`(k+2)` component of `f`) such that,
with `c = E f` and `aᵢ = linearCoeff f i = E[f(z) zᵢ]`:
1. `E f² = c² + ∑ᵢ aᵢ² + ∑ₖ r k` (orthogonality of the degrees, Parseval; the same identity
   against any linear form, `E (f(z) - ⟨q, z⟩)² = c² + ∑ᵢ (aᵢ - qᵢ)² + ∑ₖ r k`, is the theorem
   `LeJEPA.parseval_sub_linear`);
2. for `0 < ρ < 1`: `E[f(z) f(z')] = c² + ρ ∑ᵢ aᵢ² + ∑ₖ ρ^(k+2) r k` (Mehler);
3. if `r = 0` then `f(z) = c + ⟨a, z⟩` for `γ_n`-a.e. `z` (completeness).

Reference: Bogachev, *Gaussian Measures* (1998), §1.3–1.4; Janson, *Gaussian Hilbert Spaces*
(1997), Ch. 2–3; Mehler (1866).

Numerical check: tests/numerics/test_hermite.py::test_axiom_hermite_orthonormal_and_complete,
tests/numerics/test_mehler.py::test_axiom_mehler_formula -/
axiom hermite_mehler_decomposition (n : ℕ) (f : (Fin n → ℝ) → ℝ)
    (hf : MemLp f 2 (stdGaussianPi n)) :
    ∃ r : ℕ → ℝ, (∀ k, 0 ≤ r k) ∧ Summable r ∧
      (∫ z, f z ^ 2 ∂stdGaussianPi n =
        (∫ z, f z ∂stdGaussianPi n) ^ 2 + ∑ i, linearCoeff f i ^ 2 + ∑' k, r k) ∧
      (∀ ρ : ℝ, 0 < ρ → ρ < 1 →
        ∫ p, f p.1 * f (ouMap ρ p) ∂ouPair n =
          (∫ z, f z ∂stdGaussianPi n) ^ 2 + ρ * ∑ i, linearCoeff f i ^ 2 +
            ∑' k, ρ ^ (k + 2) * r k) ∧
      ((∀ k, r k = 0) →
        ∀ᵐ z ∂stdGaussianPi n, f z = (∫ w, f w ∂stdGaussianPi n) + ∑ i, linearCoeff f i * z i)

end LeJEPA
