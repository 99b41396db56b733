"""The UniCE model: config, layer-wise attention, feed-forward head, loss and the model class."""

from unice.modeling.configuration import FORMATS, OUTPUTS, UniCEConfig
from unice.modeling.model import UniCEModel, UniCEOutput

__all__ = ["FORMATS", "OUTPUTS", "UniCEConfig", "UniCEModel", "UniCEOutput"]
