"""Named seed streams derived from one run seed.

A run draws randomness for several independent purposes; each gets its own
stream so that one can be changed without disturbing the others (a new
renderer with the same initialization, a new test sample with the same
training):

- ``renderer``: the frozen mixing ``g`` (the world's appearance);
- ``init``: the encoder's initial weights;
- ``batches``: training batches and SIGReg's random directions;
- ``fit``, ``validation``, ``test``: the three held-out samples (probe and
  Procrustes fitting; early stopping and every tuning decision; every reported
  number).

:meth:`SeedStreams.derive` spawns the streams from ``numpy.random.SeedSequence(run_seed)``
in the fixed order of :data:`STREAMS` (NumPy's spawn keys are deterministic, so the
same run seed gives the same streams on every machine); any stream can be set
explicitly instead (:meth:`SeedStreams.with_stream`). Library code never seeds a
global generator: it asks a stream for a ``torch.Generator``, or seeds a
``numpy.random.Generator`` with a stream's seed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Annotated, Any

import numpy as np
from pydantic import Field

from lejepa_wm.schema import Record

__all__ = ["STREAMS", "SEED_LIMIT", "spawn_seeds", "SeedStreams"]

STREAMS: tuple[str, ...] = ("renderer", "init", "batches", "fit", "validation", "test")
SEED_LIMIT = 2**62
"""Stream seeds lie in ``[0, 2^62)``: valid for ``torch.Generator.manual_seed`` and NumPy."""


_Seed = Annotated[int, Field(ge=0, lt=SEED_LIMIT)]


def spawn_seeds(seed: int, count: int) -> list[int]:
    """``count`` independent 62-bit seeds spawned from ``SeedSequence(seed)`` (``seed`` in ``[0, 2^62)``)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < SEED_LIMIT:
        raise ValueError(f"seed must be an integer in [0, 2^62); got {seed!r}")
    children = np.random.SeedSequence(seed).spawn(count)
    return [int(child.generate_state(1, dtype=np.uint64)[0] >> np.uint64(2)) for child in children]


@dataclass(frozen=True)
class SeedStreams(Record):
    """The seed of every stream of one run (see the module docstring), each in ``[0, 2^62)``: a stored one is
    checked when read (:meth:`from_dict`)."""

    run_seed: _Seed
    renderer: _Seed
    init: _Seed
    batches: _Seed
    fit: _Seed
    validation: _Seed
    test: _Seed

    _what = "seed streams"

    @classmethod
    def derive(cls, run_seed: int) -> "SeedStreams":
        """Streams spawned from ``run_seed`` (:meth:`with_stream` sets one explicitly)."""
        return cls(run_seed=run_seed, **dict(zip(STREAMS, spawn_seeds(run_seed, len(STREAMS)))))

    def restart(self, start: int) -> "SeedStreams":
        """The streams of start number ``start`` of the same run: the same world and held-out samples, new
        initial weights and batches (``init`` and ``batches`` replaced by the ``start``-th seed spawned from
        each); start 0 is the run itself. Start numbers come from a validated config."""
        if start == 0:
            return self
        return replace(self, init=spawn_seeds(self.init, start + 1)[start],
                       batches=spawn_seeds(self.batches, start + 1)[start])

    def with_stream(self, name: str, seed: int) -> "SeedStreams":
        """A copy with stream ``name`` set to ``seed``."""
        return replace(self, **{name: seed})

    def torch_generator(self, name: str, device: Any = "cpu") -> "torch.Generator":  # noqa: F821
        """A fresh ``torch.Generator`` on ``device`` seeded with stream ``name``."""
        import torch

        return torch.Generator(device=device).manual_seed(self.seed(name))

    def seed(self, name: str) -> int:
        """The seed of stream ``name`` (one of :data:`STREAMS`)."""
        return int(getattr(self, name))
