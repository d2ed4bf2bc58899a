/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import Mathlib

/-!
# Assumed classical theorem: the polar factor solves the Procrustes inequality

## Main statements

* `LeJEPA.procrustes_polar` (axiom): every real square matrix `A` has an orthogonal `Q`
  (its polar factor) with `‖A - Q‖²_F ≤ ‖A Aᵀ - I‖²_F`.

## Informal statement

Write the singular value decomposition `A = U Σ Vᵀ` (`U, V` orthogonal, `Σ = diag(σᵢ)`,
`σᵢ ≥ 0`) and take the polar factor `Q = U Vᵀ`. Then `A - Q = U (Σ - I) Vᵀ` and
`A Aᵀ - I = U (Σ² - I) Uᵀ`, so by orthogonal invariance of the Frobenius norm
`‖A - Q‖²_F = ∑ᵢ (σᵢ - 1)² ≤ ∑ᵢ (σᵢ² - 1)² = ‖A Aᵀ - I‖²_F`, because
`(σ² - 1)² = (σ - 1)² (σ + 1)² ≥ (σ - 1)²` for `σ ≥ 0`. The statement holds for singular `A`
(the SVD exists for every matrix) and for `n = 0` (both sides are `0`, `Q` the empty matrix).

## History and reference

Singular value decomposition: Beltrami (1873), Jordan (1874); Eckart–Young (1936). Polar
decomposition and the orthogonal Procrustes problem: Schönemann, *Psychometrika* 31 (1966);
Higham, *Functions of Matrices* (SIAM 2008), Ch. 8; Horn–Johnson, *Matrix Analysis*, 2nd ed.,
Thm 7.3.1 (polar form).

## Why it is assumed

Mathlib has the spectral theorem for Hermitian matrices but, at the pinned release, neither the
singular value decomposition nor the polar decomposition of a real square matrix.

Numerical check: tests/numerics/test_t3.py::test_axiom_procrustes_polar

## References

See "History and reference" above.
-/

namespace LeJEPA

/-- **Procrustes inequality for the polar factor** (classical; assumed).
Every real `n × n` matrix `A` has an orthogonal `Q` (`Q Qᵀ = I`) with
`∑ⱼᵢ (Aⱼᵢ - Qⱼᵢ)² ≤ ∑ⱼₖ ((A Aᵀ)ⱼₖ - Iⱼₖ)²`, i.e. `‖A - Q‖²_F ≤ ‖A Aᵀ - I‖²_F`.

Reference: Higham, *Functions of Matrices* (2008), Ch. 8; Horn–Johnson, *Matrix Analysis*,
Thm 7.3.1; Schönemann (1966).

Numerical check: tests/numerics/test_t3.py::test_axiom_procrustes_polar -/
axiom procrustes_polar (n : ℕ) (A : Matrix (Fin n) (Fin n) ℝ) :
    ∃ Q : Matrix (Fin n) (Fin n) ℝ, Q * Q.transpose = 1 ∧
      ∑ j, ∑ i, (A j i - Q j i) ^ 2 ≤
        ∑ j, ∑ k, ((A * A.transpose) j k - (1 : Matrix (Fin n) (Fin n) ℝ) j k) ^ 2

end LeJEPA
