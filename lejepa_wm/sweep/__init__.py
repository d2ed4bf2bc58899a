"""Running an experiment's grid, resumably, in this process, on a process pool or on SLURM.

Modules: ``state`` (the grid and each run's state, read from its folder),
``worker`` (one attempt of one run, in any process), ``executors`` (serial and
process pool), ``slurm`` (job arrays through submitit), ``driver`` (skip, dispatch,
retry once, aggregate) and ``status`` (counts and time left). The command
``lejepa-wm sweep`` is :mod:`lejepa_wm.commands.sweep`.
"""

__all__: list[str] = []
