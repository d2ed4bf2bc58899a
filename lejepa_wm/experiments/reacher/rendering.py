"""Offscreen 64×64 rendering of DeepMind Control's Reacher with the target held fixed.

The arm has two hinge joints, ``shoulder`` (unlimited) and ``wrist`` (limited to
±2.79 rad). A frame is a pure function of the two joint angles: they are written
into ``qpos`` (velocities zero), ``mj_forward`` updates the geometry, and a
``mujoco.Renderer`` draws the top-down ``fixed`` camera. Rotations are
2π-periodic, so a frame determines the shoulder angle only modulo 2π.

Fast path: shadows, reflections, the skybox and multisampling are switched off.
On a 2-core CPU this renders 64×64 frames more than ten times faster than
dm_control's default ``physics.render`` (whose time goes mostly into the shadow
map) while arm, finger and target stay clearly visible;
``benchmarks/bench_rendering.py`` measures both paths.

The OpenGL backend is chosen by the ``MUJOCO_GL`` environment variable, read
when ``mujoco`` is first imported; this module sets it to ``egl`` unless the
user already chose (``osmesa`` also works on CPU-only machines). Anything
missing raises :class:`RenderingUnavailable` with the exact install commands.
:func:`check_backend` checks the back-end before any work starts (and before
``mujoco`` is imported: MuJoCo aborts the whole process, with no message of
ours, when ``glfw`` has no display), naming the fix.
"""

from __future__ import annotations

import contextlib
import ctypes.util
import os
import sys
from typing import Any, Mapping, Sequence

import numpy as np

from lejepa_wm.validation import EnvironmentUnavailable

__all__ = [
    "DEFAULT_TARGET_XY", "RenderingUnavailable", "check_backend", "import_simulator", "load_physics",
    "place_target", "ReacherRenderer"
]

DEFAULT_TARGET_XY = (0.12, 0.12)
_PIP_INSTALL = "pip install 'dm-control==1.0.50' 'mujoco==3.17.0'   (or: pip install -e '.[reacher]')"
_APT_INSTALL = ("apt-get install -y --no-install-recommends libegl1 libegl-mesa0 libgl1 libopengl0 libgl1-mesa-dri"
               "   (MUJOCO_GL=egl, the default)\n"
               "  or: apt-get install -y libosmesa6   (then run with MUJOCO_GL=osmesa)")


_BACKENDS = {"egl": "EGL", "osmesa": "OSMesa", "glfw": None}
"""MuJoCo's OpenGL back-ends (``MUJOCO_GL``) and the system library each loads (``glfw`` brings its own)."""


class RenderingUnavailable(EnvironmentUnavailable):
    """Offscreen rendering of Reacher cannot work here; the message says what to install."""


def check_backend(environ: Mapping[str, str] = os.environ) -> str:
    """The ``MUJOCO_GL`` back-end to use (default ``egl``) if it can work here, else :class:`RenderingUnavailable`
    naming the fix: an unknown back-end, ``glfw`` without a display, or (on Linux) a missing GL library.
    ``environ``: the environment variables to read (the process's own, live, by default)."""
    backend = environ.get("MUJOCO_GL", "egl") or "egl"
    if backend not in _BACKENDS:
        raise RenderingUnavailable(f"MUJOCO_GL={backend!r} is not a back-end MuJoCo knows; use MUJOCO_GL=egl "
                                   f"(headless, the default), osmesa or glfw (with a display); the headless ones "
                                   f"need Mesa's libraries:\n  {_APT_INSTALL}")
    if backend == "glfw" and not (environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY")):
        raise RenderingUnavailable("MUJOCO_GL=glfw needs a display, and neither DISPLAY nor WAYLAND_DISPLAY is set; "
                                   "for offscreen rendering run with MUJOCO_GL=egl (or MUJOCO_GL=osmesa)")
    library = _BACKENDS[backend]
    if library is not None and sys.platform.startswith("linux") and ctypes.util.find_library(library) is None:
        raise RenderingUnavailable(f"MUJOCO_GL={backend} needs the {library} library, which is not "
                                   f"installed; install it with:\n  {_APT_INSTALL}")
    return backend


def import_simulator() -> tuple[Any, Any]:
    """Import ``mujoco`` and dm_control's reacher module, or raise :class:`RenderingUnavailable`."""
    backend = os.environ.setdefault("MUJOCO_GL", check_backend())  # headless EGL unless the user chose
    try:
        import mujoco
        from dm_control.suite import reacher
    except ImportError as exc:
        raise RenderingUnavailable(f"the reacher experiment needs dm_control and MuJoCo ({exc}); install them "
                                   f"with:\n  {_PIP_INSTALL}") from None
    except Exception as exc:  # OpenGL bindings fail at import when the GL library is missing
        raise RenderingUnavailable(_gl_message(backend, exc)) from None
    if int(mujoco.__version__.split(".")[0]) >= 4:
        raise RenderingUnavailable(f"mujoco {mujoco.__version__} is installed, but dm-control 1.0.50 needs mujoco "
                                   f"3.17.0 (MuJoCo 4 removed fields dm_control reads); install with:\n"
                                   f"  {_PIP_INSTALL}")
    return mujoco, reacher


def _gl_message(backend: str, exc: BaseException) -> str:
    return (f"offscreen OpenGL rendering with MUJOCO_GL={backend} failed "
            f"({type(exc).__name__}: {exc}); install Mesa's offscreen libraries:\n  {_APT_INSTALL}")


def load_physics(target_xy: Sequence[float] = DEFAULT_TARGET_XY) -> Any:
    """dm_control Reacher physics with the target sphere fixed at ``target_xy`` (metres)."""
    _, reacher = import_simulator()
    physics = reacher.Physics.from_xml_string(*reacher.get_model_and_assets())
    place_target(physics, target_xy)
    return physics


def place_target(physics: Any, target_xy: Sequence[float]) -> None:
    """Move the target sphere to ``target_xy``; raise if the arm (reach 0.24 m) cannot touch it."""
    x, y = (float(v) for v in target_xy)
    if not np.hypot(x, y) <= 0.22:
        raise ValueError(f"target_xy {tuple(target_xy)!r} must lie within 0.22 m of the shoulder")
    physics.named.model.geom_pos["target", ["x", "y"]] = x, y
    physics.forward()


class ReacherRenderer(contextlib.AbstractContextManager):
    """Render Reacher frames from joint angles: ``render(angles (N, 2)) -> uint8 (N, size, size, 3)``.

    It draws the fast path of the module docstring from the ``fixed`` camera. Rendering is deterministic: equal
    angles give bit-identical frames. Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, size: int = 64, target_xy: Sequence[float] = DEFAULT_TARGET_XY) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or not 16 <= size <= 512:
            raise ValueError(f"size must be an integer in [16, 512]; got {size!r}")
        mujoco, _ = import_simulator()
        self._mujoco = mujoco
        self.size = size
        # what produced the frames (stored in dataset metadata, whose digest names the cached data)
        self.description = (f"mujoco {mujoco.__version__} Renderer {size}x{size}, camera 'fixed', fast (no shadow/"
                            f"reflection/skybox/multisampling), MUJOCO_GL={os.environ['MUJOCO_GL']}")
        self.physics = load_physics(target_xy)
        model = self.physics.model.ptr
        model.light_castshadow[:] = 0
        model.vis.quality.offsamples = 0
        self._camera = self.physics.model.name2id("fixed", "camera")
        try:
            self._renderer = mujoco.Renderer(model, size, size)
        except Exception as exc:
            raise RenderingUnavailable(_gl_message(os.environ["MUJOCO_GL"], exc)) from None
        for flag in (mujoco.mjtRndFlag.mjRND_SHADOW, mujoco.mjtRndFlag.mjRND_REFLECTION,
                     mujoco.mjtRndFlag.mjRND_SKYBOX):
            self._renderer.scene.flags[flag] = 0

    def render(self, angles: np.ndarray) -> np.ndarray:
        """Frames for each row (shoulder, wrist) of ``angles`` (N, 2), shape (N, size, size, 3), uint8."""
        array = np.asarray(angles, dtype=np.float64)
        frames = np.empty((len(array), self.size, self.size, 3), dtype=np.uint8)
        model, data = self.physics.model.ptr, self.physics.data.ptr
        for index, pose in enumerate(array):
            data.qpos[:] = pose
            data.qvel[:] = 0.0
            self._mujoco.mj_forward(model, data)
            self._renderer.update_scene(data, camera=self._camera)
            self._renderer.render(out=frames[index])
        return frames

    def close(self) -> None:
        """Release the OpenGL context (safe to call twice; an instance never closed releases it when collected,
        through ``mujoco.Renderer``'s own finalizer)."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None

    def __exit__(self, *exc_info: object) -> None:
        self.close()
