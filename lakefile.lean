import Lake
open Lake DSL

-- Lake configuration of the Lean companion to "When Does LeJEPA Learn a World Model?".
-- Mathlib is pinned to the release tag that matches `lean-toolchain`.

package LeJEPAProofs where
  leanOptions := #[⟨`autoImplicit, false⟩]

require mathlib from git
  "https://github.com/leanprover-community/mathlib4.git" @ "v4.29.0"

@[default_target]
lean_lib LeJEPAProofs
