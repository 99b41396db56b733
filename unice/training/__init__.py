"""Training UniCE models: optimizer groups, the accelerate loop, checkpoints and export."""

from unice.training.loop import train

__all__ = ["train"]
