"""Typed parameters of one synthetic run: world, renderer, encoder, objective, training, seeds.

A run's ``spec.json`` stores :meth:`SyntheticRunParams.to_dict`; execution reads
it back with :meth:`SyntheticRunParams.from_dict` (:class:`~lejepa_wm.schema.Record`),
which reads every part strictly against its annotations (a field's range or
choices) and builds it through its constructor (relations between fields), so a
damaged or hand-edited spec fails with an error naming the bad value; inside
the package the parts are built from a validated config and trusted. The world keeps its per-coordinate ``ρ`` vector
from the config to the metrics. ``labels`` are the run's coordinates in its
experiment's grid (``n``, ``method``, ``seed``, …): they name the run in tables
and figures and play no part in its execution.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Mapping

import torch
from pydantic.functional_validators import PlainValidator
from torch import nn

from lejepa_wm.experiments.encoders import ENCODERS, build_encoder
from lejepa_wm.experiments.flows import RENDERERS, CouplingFlow, make_renderer
from lejepa_wm.experiments.objectives import OBJECTIVES, Objective, build_objective, supervised_objective
from lejepa_wm.experiments.training import TrainSettings
from lejepa_wm.experiments.worlds import World, world_from_dict, world_to_dict
from lejepa_wm.schema import NonNegative, PositiveInt, Record
from lejepa_wm.seeds import SeedStreams

__all__ = ["SUPERVISED", "RendererParams", "EncoderParams", "ObjectiveParams", "SyntheticRunParams"]

_OMITTED_AT_DEFAULT = ("average_decay", "precision")
"""Training settings that a run's spec stores only when they differ from their default."""
_ALIGNMENT_ONLY = "alignment_only"
SUPERVISED = "supervised"
_OBJECTIVE_NAMES = (*OBJECTIVES, _ALIGNMENT_ONLY, SUPERVISED)


@dataclass(frozen=True)
class RendererParams(Record):
    """The frozen mixing ``g`` (see :func:`lejepa_wm.experiments.flows.make_renderer`)."""

    kind: Literal[RENDERERS] = "published"  # type: ignore[valid-type]
    layers: PositiveInt = 4
    hidden: PositiveInt = 16
    shift_gain: NonNegative = 0.5
    log_scale_gain: NonNegative = 0.0

    def build(self, n: int, seed: int) -> CouplingFlow:
        return make_renderer(self.kind, n, seed, self.layers, self.hidden, self.shift_gain, self.log_scale_gain)


@dataclass(frozen=True)
class EncoderParams(Record):
    """The trainable encoder ``f``: kind, hidden width, MLP depth, output dimension (``None``: ``n``)."""

    kind: Literal[ENCODERS]  # type: ignore[valid-type]
    hidden: PositiveInt
    depth: PositiveInt = 2
    m: PositiveInt | None = None

    def build(self, renderer: CouplingFlow, generator: torch.Generator) -> nn.Module:
        return build_encoder(self.kind, renderer, self.hidden, generator, self.m, self.depth)


@dataclass(frozen=True)
class ObjectiveParams(Record):
    """The training objective: ``alignment + weight · regularizer``; ``alignment_only`` is the λ = 0 control,
    ``supervised`` the regression onto ``z`` that measures the encoder's capacity ceiling."""

    name: Literal[_OBJECTIVE_NAMES]  # type: ignore[valid-type]
    weight: NonNegative = 1.0
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.name in (_ALIGNMENT_ONLY, SUPERVISED) and (self.weight != 0 or self.options):
            raise ValueError(f"the {self.name} objective has weight 0 and no options")

    def build(self) -> Objective:
        if self.name == _ALIGNMENT_ONLY:  # weight 0: the total is exactly the alignment loss
            return build_objective("whitening", 0.0)
        if self.name == SUPERVISED:
            return supervised_objective()
        return build_objective(self.name, self.weight, **dict(self.options))


@dataclass(frozen=True)
class SyntheticRunParams(Record):
    """Everything one synthetic run needs besides its folder and device; ``from_dict`` reads the world by its kind
    (:func:`~lejepa_wm.experiments.worlds.world_from_dict`)."""

    world: Annotated[World, PlainValidator(world_from_dict)]
    renderer: RendererParams
    encoder: EncoderParams
    objective: ObjectiveParams
    train: TrainSettings
    seeds: SeedStreams
    eval_size: PositiveInt
    cpu_threads: PositiveInt = 1
    track_test: bool = False
    labels: Mapping[str, Any] = field(default_factory=dict)

    _what = "run parameters"

    def to_dict(self) -> dict[str, Any]:
        """JSON data; a training setting added after runs were shipped is left out at its default
        (:data:`_OMITTED_AT_DEFAULT`), so the specs of runs that do not use it stay as they were."""
        data = {**super().to_dict(), "world": world_to_dict(self.world)}
        defaults = TrainSettings.__dataclass_fields__
        data["train"] = {key: value for key, value in data["train"].items()
                         if not (key in _OMITTED_AT_DEFAULT and value == defaults[key].default)}
        return data
