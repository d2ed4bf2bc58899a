"""Companion package for *When Does LeJEPA Learn a World Model?* (Klindt, LeCun, Balestriero, 2026).

Sub-packages
------------
``lejepa_wm.numerics``
    Numerical checks of every axiom and bound of the theory (THEORY.md).
``lejepa_wm.experiments``
    Trained encoders that test the theory's predictions.

Modules at this level hold what all of them share: the claim registry
(:mod:`lejepa_wm.claims`), input validation (:mod:`lejepa_wm.validation`), atomic
result files (:mod:`lejepa_wm.atomic`) and the command line (:mod:`lejepa_wm.cli`).
"""

__version__ = "0.1.0"
