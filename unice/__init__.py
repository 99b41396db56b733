"""UniCE: learned code-evaluation metrics (CodeScore) trained by unified code execution learning.

Importing ``unice`` registers :class:`UniCEConfig` / :class:`UniCEModel` with ``AutoConfig`` /
``AutoModel``, so ``transformers.AutoModel.from_pretrained(checkpoint)`` works in any tool.
"""

from transformers import AutoConfig, AutoModel

from unice.loading import load_model
from unice.modeling import UniCEConfig, UniCEModel

__version__ = "0.1.0"


def _register() -> None:
    try:
        AutoConfig.register(UniCEConfig.model_type, UniCEConfig)
    except ValueError:  # already registered (re-import)
        pass
    try:
        AutoModel.register(UniCEConfig, UniCEModel)
    except ValueError:
        pass


_register()

__all__ = ["UniCEConfig", "UniCEModel", "__version__", "load_model"]
