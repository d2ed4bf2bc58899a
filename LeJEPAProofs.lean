/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.ForMathlib.Series
import LeJEPAProofs.ForMathlib.FinsetSum
import LeJEPAProofs.ForMathlib.Matrix
import LeJEPAProofs.ForMathlib.Integral
import LeJEPAProofs.ForMathlib.Gaussian
import LeJEPAProofs.ForMathlib.Orthonormal
import LeJEPAProofs.ForMathlib.Procrustes
import LeJEPAProofs.Setting
import LeJEPAProofs.OUStationary
import LeJEPAProofs.Moments
import LeJEPAProofs.Axioms.HermiteMehler
import LeJEPAProofs.SpectralCore
import LeJEPAProofs.HermiteConsequences
import LeJEPAProofs.Whitening
import LeJEPAProofs.Identifiability
import LeJEPAProofs.InheritedDynamics
import LeJEPAProofs.Approximate
import LeJEPAProofs.ApproximateWhitening
import LeJEPAProofs.Langevin
import LeJEPAProofs.Planning
import LeJEPAProofs.PlanningStochastic
import LeJEPAProofs.Anisotropic
import LeJEPAProofs.OutputDimension
import LeJEPAProofs.Witnesses
import LeJEPAProofs.Audit

/-!
# LeJEPAProofs

Lean 4 formalization of "When Does LeJEPA Learn a World Model?" (Klindt, LeCun, Balestriero):
the closed-form alignment loss (LOSS), T1 (forward identifiability) and its corollary C1 (the
encoded pair follows the same Ornstein–Uhlenbeck law), T2 (an affine eigenfunction of the
Langevin generator forces a Gaussian density), T3 (approximate identifiability), T4 (planning
equivalence in expectation), P5 (anisotropic rates: which Hermite family is optimal) and M1
(output dimension `m ≠ n`). One classical fact Mathlib lacks, the Hermite degree decomposition
with Mehler's formula, is stated as an axiom in `LeJEPAProofs/Axioms/`, listed in
`LeJEPAProofs/AXIOMS.md` with its reference and the numerical test that checks it.
`LeJEPAProofs/Witnesses.lean` shows that the hypotheses of every main theorem can be met
together; `LeJEPAProofs/Audit.lean` pins the axioms each main theorem depends on, so that
`lake build` fails if they change. Generic lemmas that are not about the paper are in
`LeJEPAProofs/ForMathlib/`.
-/
