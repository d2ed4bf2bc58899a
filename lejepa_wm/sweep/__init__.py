"""``lejepa-wm sweep``: an experiment's grid on a local process pool or on SLURM, resumable.

Modules: ``state`` (the grid and each run's state, read from its folder),
``worker`` (one attempt of one run, in any process), ``executors`` (serial and
process pool), ``slurm`` (job arrays through submitit), ``driver`` (skip, dispatch,
retry once, aggregate), ``status`` (counts and time left) and ``cli``.
"""

from lejepa_wm.sweep.cli import add_arguments, main

__all__ = ["add_arguments", "main"]
