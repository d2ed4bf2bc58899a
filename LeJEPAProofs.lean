/-
Copyright (c) 2026 The LeJEPA world-model authors. All rights reserved.
Released under the MIT license as described in the file LICENSE.
-/
import LeJEPAProofs.Setting
import LeJEPAProofs.Axioms.HermiteMehler
import LeJEPAProofs.Axioms.OUStationary
import LeJEPAProofs.Axioms.Procrustes
import LeJEPAProofs.SpectralCore
import LeJEPAProofs.HermiteConsequences
import LeJEPAProofs.Whitening
import LeJEPAProofs.Identifiability
import LeJEPAProofs.InheritedDynamics
import LeJEPAProofs.Approximate
import LeJEPAProofs.ApproximateWhitening
import LeJEPAProofs.Langevin
import LeJEPAProofs.Planning
import LeJEPAProofs.Anisotropic
import LeJEPAProofs.OutputDimension
import LeJEPAProofs.Audit

/-!
# LeJEPAProofs

Lean 4 formalization of "When Does LeJEPA Learn a World Model?" (Klindt, LeCun, Balestriero):
T1 (forward identifiability) and its corollary C1, T2 (only the Gaussian makes the best
feature affine), T3 (approximate identifiability), T4 (planning equivalence), P5 (anisotropic
rates) and M1 (output dimension `m ≠ n`). The classical facts Mathlib lacks are stated
as axioms in `LeJEPAProofs/Axioms/`, each listed in `LeJEPAProofs/AXIOMS.md` with its reference
and the numerical test that checks it; `LeJEPAProofs/Audit.lean` prints the axioms each main
theorem depends on.
-/
