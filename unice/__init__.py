"""UniCE: learned code-evaluation metrics (CodeScore) trained by unified code execution learning.

Importing ``unice`` registers :class:`UniCEConfig` / :class:`UniCEModel` with ``AutoConfig`` /
``AutoModel``, so ``transformers.AutoModel.from_pretrained(checkpoint)`` works in any tool.
"""

import contextlib

from transformers import AutoConfig, AutoModel

from unice.loading import load_model
from unice.modeling import UniCEConfig, UniCEModel

__version__ = "0.1.0"

with contextlib.suppress(ValueError):  # already registered on a re-import
    AutoConfig.register(UniCEConfig.model_type, UniCEConfig)
with contextlib.suppress(ValueError):
    AutoModel.register(UniCEConfig, UniCEModel)

__all__ = ["UniCEConfig", "UniCEModel", "__version__", "load_model"]
