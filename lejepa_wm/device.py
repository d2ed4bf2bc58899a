"""Choose the torch device once: CPU by default, CUDA only when asked for and present."""

from __future__ import annotations

from lejepa_wm.validation import EnvironmentUnavailable, check_choice

__all__ = ["DEVICE_CHOICES", "select_device"]

DEVICE_CHOICES = ("cpu", "cuda", "auto")


def select_device(requested: str = "cpu") -> "torch.device":  # noqa: F821
    """Return a ``torch.device``.

    ``"cpu"`` always works; ``"cuda"`` raises if no CUDA device is present;
    ``"auto"`` picks CUDA when present, else the CPU.
    """
    import torch

    check_choice(requested, DEVICE_CHOICES, "device")
    cuda = requested != "cpu" and torch.cuda.is_available()
    if requested == "cuda" and not cuda:
        raise EnvironmentUnavailable("device 'cuda' was requested but torch sees no CUDA device on this machine; "
                           "use --device cpu (or --device auto to take CUDA only where present)")
    return torch.device("cuda" if cuda else "cpu")
