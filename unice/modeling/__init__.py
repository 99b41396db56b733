"""The UniCE model: config, layer-wise attention, feed-forward head, loss and the model classes.

``UniCEModel(config)`` builds the variant ``config.architecture`` names; importing this package
defines both (:class:`CrossEncoderModel`, :class:`EstimatorModel`).
"""

from unice.modeling.configuration import FORMATS, OUTPUTS, UniCEConfig
from unice.modeling.cross_encoder import CrossEncoderModel
from unice.modeling.estimator import EstimatorModel
from unice.modeling.model import UniCEModel, UniCEOutput

__all__ = [
    "FORMATS",
    "OUTPUTS",
    "CrossEncoderModel",
    "EstimatorModel",
    "UniCEConfig",
    "UniCEModel",
    "UniCEOutput",
]
