"""``UniCEConfig``: everything needed to rebuild a UniCE model without touching the hub.

Why the encoder config is embedded: the public release stored only the backbone's *name*, so
loading a trained checkpoint fetched the base model again (and failed offline). Here the full
encoder config lives inside ``config.json`` under ``encoder`` and the backbone is rebuilt with
``AutoModel.from_config``; the trained weights come from ``model.safetensors``.
"""

from __future__ import annotations

from typing import Any, ClassVar

from transformers import AutoConfig, PretrainedConfig
from transformers.configuration_utils import SubConfigSpec

from unice.data.codebertscore_features import CODEBERTSCORE_FEATURES
from unice.data.features import FEATURE_NAMES, STRUCTURE_FEATURES
from unice.errors import ModelConfigError
from unice.retired import without_retired

FORMATS: tuple[str, ...] = ("ref", "nl", "ref_nl")
"""Input formats: g+r (``ref``), g+n (``nl``) and g+r+n (``ref_nl``)."""

OUTPUTS: tuple[str, ...] = ("pass_ratio", "executable", "passed")
"""Head outputs, in order: PassRatio, Executability, Passability (all logits)."""

LOSS_TERMS: tuple[str, ...] = (*OUTPUTS, "ranking")
"""Keys of ``loss_weights``: one per output and the within-problem pairwise ranking term."""

POOLINGS: tuple[str, ...] = ("first", "mean", "last")
ARCHITECTURES: tuple[str, ...] = ("cross", "estimator")
"""``cross``: the segments of a format joined into one input (the paper); ``estimator``: each
segment encoded alone and compared in the head (COMET's estimator)."""
TRUNCATIONS: tuple[str, ...] = ("priority", "fair")
PRIOR_FEATURES: tuple[str, ...] = (
    "chrf",
    "token_f1_1",
    "token_f1_2",
    "rouge_l",
    *CODEBERTSCORE_FEATURES,
)
"""Exact features in [0, 1] that ``exact_prior`` can start the PassRatio logit from (the
CodeBERTScore ones with ``codebertscore_features``)."""

ACTIVATIONS: tuple[str, ...] = ("tanh", "gelu", "relu")
TOKEN_TYPE_MODES: tuple[str, ...] = ("auto", "segments", "none")
LAYOUT_MODES: tuple[str, ...] = ("auto", "tokens", "none")
CODE_TRUNCATIONS: tuple[str, ...] = ("head_tail", "head", "tail")


CHOICES: dict[str, tuple[str, ...]] = {
    "activation": ACTIVATIONS,
    "token_types": TOKEN_TYPE_MODES,
    "layout": LAYOUT_MODES,
    "code_truncation": CODE_TRUNCATIONS,
    "truncation": TRUNCATIONS,
    "pooling": POOLINGS,
    "architecture": ARCHITECTURES,
}
"""The fields with a fixed set of values."""

NEEDS: tuple[tuple[str, tuple[str, Any], str], ...] = (
    (
        "freeze_encoder",
        ("layer_norm", False),
        "mixes pooled layers, which equals pooling the mixed states only without per-layer "
        "normalisation",
    ),
    (
        "standardize_states",
        ("freeze_encoder", True),
        "scales a frozen encoder's states by statistics fitted once",
    ),
    (
        "trainable_top_layers",
        ("freeze_encoder", True),
        "trains the top layers of an otherwise frozen encoder (without it the whole encoder "
        "trains)",
    ),
    ("exact_features", ("architecture", "estimator"), "compares segments encoded alone"),
    ("exec_prior", ("exact_features", True), "fits the Exec prior on the exact features"),
    ("structure_features", ("exec_prior", True), "feeds the fitted Exec prior only"),
    ("exact_prior", ("exact_features", True), "starts the score from an exact feature"),
    ("codebertscore_features", ("exact_features", True), "is read beside the exact features"),
)
"""How the settings of the two variants and of a frozen encoder fit together, one row each:
``(setting, (the field it needs, at this value), why)``, checked in this order wherever the
setting is on. The estimator's settings chain down to ``architecture=estimator``; a frozen
encoder's to ``freeze_encoder=true``."""


def _check_choice(name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ModelConfigError(
            f"{name}={value!r} is not allowed; choose one of {', '.join(allowed)}"
        )


def _check_probability(name: str, value: float) -> None:
    if not 0.0 <= float(value) < 1.0:
        raise ModelConfigError(f"{name}={value!r} must be in [0, 1)")


class UniCEConfig(PretrainedConfig):
    """Configuration of a :class:`~unice.modeling.model.UniCEModel`.

    Args:
        encoder: the backbone's own config (a ``PretrainedConfig`` or its dict with
            ``model_type``); embedded so a checkpoint never needs the base model again.
        hidden_sizes: widths of the feed-forward head's hidden layers (paper: 3072, 1024).
        activation: head activation, one of ``tanh`` (paper), ``gelu``, ``relu``.
        dropout: head dropout.
        layer_dropout: probability of dropping each layer weight of the scalar mix in training.
        layer_norm: layer-normalise each hidden state before mixing.
        num_outputs: 2 = PassRatio, Executability; 3 adds Passability (then trained: it needs
            a ``passed`` loss weight).
        max_length: maximum input length in tokens, special tokens included.
        token_types: ``segments`` gives 0 to the generated code and 1 after it (needs
            ``type_vocab_size >= 2``), ``none`` gives all zeros, ``auto`` picks by vocab size.
        layout: ``tokens`` encodes newlines/indentation with added tokens (for tokenizers that
            drop whitespace), ``none`` keeps raw text, ``auto`` decides from the tokenizer.
        layout_active: resolved layout decision recorded at build time (do not set by hand).
        code_truncation: how an over-long code segment is cut: ``head_tail`` (keep a quarter
            of its budget from the start, the rest from the end), ``head`` or ``tail``.
        truncation: how the length budget is shared: ``priority`` (generated code is cut
            last, then the reference, NL first, each keeping ``truncation_floor``) or
            ``fair`` (water-filling, every segment equal).
        truncation_floor: share of the budget every segment keeps under ``priority``.
        pooling: sentence vector from the mixed states: ``first`` token (the paper),
            ``mean`` over real tokens (what sentence encoders such as MiniLM were trained for)
            or the ``last`` real token (the one a causal LM's state summarises the text in).
        freeze_encoder: the encoder is never trained: only the layer-wise attention and the
            head are. Its per-layer pooled states of each distinct input then never change, so
            they are computed once and can be kept in a :class:`~unice.modeling.feature_cache.
            FeatureCache` (the layer mix and pooling are linear, so mixing pooled layers equals
            pooling the mixed states); training costs the head's steps, not the encoder's,
            and scales with the data (needs ``layer_norm: false``).
        standardize_states: with ``freeze_encoder``, each layer's pooled state is read as
            ``(state - mean) / std`` per dimension, with the mean and std of the training
            texts' states (fitted before the first step by
            :mod:`unice.training.state_statistics`; buffers of the checkpoint). Why: a decoder
            LM's states carry a few "massive activations" (SmolLM2-135M: dimensions of ~4,200
            against a mean magnitude of ~5), so unscaled every text's vector points the same
            way, the head's comparisons of g with r say nothing and its tanh saturates.
        trainable_top_layers: with ``freeze_encoder`` on a decoder LM (SmolLM2, Qwen2,
            DeepSeek-Coder), its top ``k`` layers and final norm *train* (``lr_encoder``) while
            the layers below stay frozen; the token states entering layer ``L - k`` and the
            pooled states below it are cached once per distinct text, so a step runs ``k``
            layers, not ``L`` (:mod:`unice.modeling.top_layers`). ``0``: all frozen.
        architecture: ``cross`` joins g, r and n into one input and reads one sentence vector
            (the paper). ``estimator`` encodes each segment alone with the same encoder and feeds
            the head COMET's features ``[g; r; g*r; |g-r|; n; g*n; |g-n|]`` plus the cosines of
            g with r and n: a sentence encoder like MiniLM was trained for exactly these
            comparisons, and the reference and NL of a problem are encoded once for all its
            candidates.
        exact_features: with ``estimator``, feed the head ``unice.data.features``'s exact
            signals: chrF, token 1/2-gram F1, ROUGE-L and length ratio of g against r, and
            static facts of g (parses, defines the entry point, undefined names, returns).
        structure_features: with ``exec_prior``, the fitted Exec prior also reads, for each of a
            fixed list of AST node kinds (calls, subscripts, assignments, loops...), whether g
            has fewer and whether it has more of them than the reference: static facts of g
            against r that a crash often follows (``unice.data.features.structure_features``).
            The head never sees them.
        codebertscore_features: with ``exact_features``, the head also reads CodeBERTScore F1
            and F3 of g against r (``unice.data.codebertscore_features``: the CodeBERTScore
            baseline's code and encoder, scored once per pair and kept in a store; zeros
            without a reference), and ``exact_prior`` may start from either. Why: the token
            states' greedy match that no pooled vector or string metric carries (issue 44).
        exec_prior: with ``exact_features``, the model's Exec output is the average of two
            probabilities, ``(sigmoid(network) + sigmoid(prior)) / 2``: the network's own Exec
            logit and a logistic regression of the Exec label on each row's exact features (and
            structure facts with ``structure_features``), fitted on the training rows before the
            first step (``unice.training.exec_prior``). The network is trained exactly as without
            it (its loss reads the head's own logits); the fitted coefficients are buffers of the
            checkpoint, so scoring reads them as training did. Two different views of the same
            facts voting, with neither one's training bent towards the other.
        exact_prior: with ``exact_features``, the name of one of them (``rouge_l``) whose logit
            the PassRatio logit starts from: a learned scale times ``logit(feature)`` plus the
            head's output, whose PassRatio row starts at zero, so the untrained score *is* that
            exact overlap and training learns a correction. Rows without a reference get no prior. ``null``: no prior.
        clean_generated: remove top-level ``print``/``assert``, ``__main__`` blocks and the
            ``from typing import *`` harness prefix from g before encoding (training and
            scoring alike).
        length_buckets: encode a batch's rows in this many groups of similar length, each
            padded to its own longest row only (a cost setting: the scores do not change).
        base_vocab_size: the tokenizer's size before layout tokens were added (recorded at
            build time).
        formats: input formats the model was trained with, a subset of ``ref``, ``nl``, ``ref_nl``.
        loss_weights: per-term weights ``{"pass_ratio", "executable", "passed", "ranking"}``
            (MSE, BCE, BCE, and a logistic loss on PassRatio-logit differences of candidates
            of the same problem whose PassRatio differs).
        backbone: name or path the encoder was initialised from (informational).

    The switches and loss terms of rejected arms (:data:`unice.retired.RETIRED`) are no fields
    any more; an old ``config.json`` that holds them loads only where they hold today's
    behaviour.
    """

    model_type: ClassVar[str] = "unice"
    sub_configs_defaults: ClassVar[dict[str, SubConfigSpec]] = {
        "encoder": SubConfigSpec(config_class=AutoConfig, model_type="roberta"),
    }

    encoder: PretrainedConfig | dict | None = None
    hidden_sizes: list[int] | tuple[int, ...] = (3072, 1024)
    activation: str = "tanh"
    dropout: float = 0.1
    layer_dropout: float = 0.1
    layer_norm: bool = False
    num_outputs: int = 2
    max_length: int = 512
    token_types: str = "auto"
    layout: str = "auto"
    layout_active: bool = False
    code_truncation: str = "head_tail"
    truncation: str = "priority"
    truncation_floor: float = 0.125
    pooling: str = "first"
    freeze_encoder: bool = False
    standardize_states: bool = False
    trainable_top_layers: int = 0
    architecture: str = "cross"
    exact_features: bool = False
    structure_features: bool = False
    codebertscore_features: bool = False
    exact_prior: str | None = None
    exec_prior: bool = False
    clean_generated: bool = False
    length_buckets: int = 1
    base_vocab_size: int = 0
    formats: list[str] | tuple[str, ...] = FORMATS
    loss_weights: dict[str, float] | None = None
    backbone: str = ""

    def __post_init__(self, **kwargs: Any) -> None:
        live = {"exec_prior": self.exec_prior, "structure_features": self.structure_features}
        kwargs = without_retired("model", kwargs, {**kwargs, **live})
        self.hidden_sizes = [int(size) for size in self.hidden_sizes]
        self.formats = [str(fmt) for fmt in self.formats]
        if self.loss_weights is None:
            self.loss_weights = {"pass_ratio": 1.0, "executable": 1.0}
        self.loss_weights = {str(k): float(v) for k, v in dict(self.loss_weights).items()}
        self.loss_weights = without_retired("loss_weights", self.loss_weights)
        self._validate()
        super().__post_init__(**kwargs)

    def _validate(self) -> None:
        for name, allowed in CHOICES.items():
            _check_choice(name, getattr(self, name), allowed)
        if self.exact_prior is not None:
            _check_choice("exact_prior", self.exact_prior, PRIOR_FEATURES)
            if self.exact_prior in CODEBERTSCORE_FEATURES and not self.codebertscore_features:
                raise ModelConfigError(
                    f"exact_prior={self.exact_prior!r} starts the score from CodeBERTScore; it "
                    "needs codebertscore_features=true"
                )
        if int(self.trainable_top_layers) < 0:
            raise ModelConfigError(
                f"trainable_top_layers={self.trainable_top_layers!r} must be >= 0 (0: all frozen)"
            )
        for setting, (needed, value), why in NEEDS:
            held = getattr(self, setting)
            have = getattr(self, needed)
            if (
                held not in (None, False, 0)
                and (bool(have) if value in (True, False) else have) != value
            ):
                name = setting if held is True else f"{setting}={held!r}"
                wanted = str(value).lower() if isinstance(value, bool) else value
                raise ModelConfigError(f"{name} {why}; it needs {needed}={wanted}")
        if not 0.0 <= float(self.truncation_floor) <= 1.0 / 3.0:
            raise ModelConfigError(
                f"truncation_floor={self.truncation_floor!r} must be in [0, 1/3]"
            )
        for fmt in self.formats:
            _check_choice("formats[]", fmt, FORMATS)
        if not self.formats:
            raise ModelConfigError(f"formats is empty; give at least one of {', '.join(FORMATS)}")
        for key in self.loss_weights:
            _check_choice("loss_weights key", key, LOSS_TERMS)
        self._validate_outputs()
        if any(size <= 0 for size in self.hidden_sizes):
            raise ModelConfigError(f"hidden_sizes={self.hidden_sizes} must be positive integers")
        _check_probability("dropout", self.dropout)
        _check_probability("layer_dropout", self.layer_dropout)
        if self.max_length < 8:
            raise ModelConfigError(f"max_length={self.max_length} is too small; use at least 8")

    def _validate_outputs(self) -> None:
        """Two outputs, or three with a trained Passability output."""
        if self.num_outputs not in (2, 3):
            raise ModelConfigError(
                f"num_outputs={self.num_outputs!r} is not allowed; choose 2 or 3"
            )
        if self.num_outputs == 2 and self.loss_weights.get("passed", 0.0):
            raise ModelConfigError(
                "loss_weights['passed'] needs num_outputs=3 (a Passability output)"
            )
        if self.num_outputs == 3 and not self.loss_weights.get("passed", 0.0):
            raise ModelConfigError(
                "num_outputs=3 adds a Passability output that loss_weights['passed']=0 never "
                "trains; use num_outputs=2, or give loss_weights.passed a weight > 0"
            )

    @property
    def feature_size(self) -> int:
        """Width of the head's input: one sentence vector, or the estimator's comparisons."""
        hidden = int(self.encoder.hidden_size)
        if self.architecture != "estimator":
            return hidden
        size = hidden + 2 * (3 * hidden + 1)
        if not self.exact_features:
            return size
        extra = len(CODEBERTSCORE_FEATURES) if self.codebertscore_features else 0
        return size + len(FEATURE_NAMES) + extra

    @property
    def exec_prior_width(self) -> int:
        """How many exact features the fitted Exec prior reads (0 without ``exec_prior``):
        the plain ones, plus the structure facts with ``structure_features``."""
        if not self.exec_prior:
            return 0
        return len(FEATURE_NAMES) + (len(STRUCTURE_FEATURES) if self.structure_features else 0)

    @property
    def use_token_types(self) -> bool:
        """Whether segments get distinct token types (0 for generated code, 1 after it)."""
        if self.token_types == "none":
            return False
        vocab = int(getattr(self.encoder, "type_vocab_size", 0) or 0)
        if self.token_types == "segments" and vocab < 2:
            raise ModelConfigError(
                f"token_types='segments' needs an encoder with type_vocab_size >= 2 (got {vocab}); "
                "use token_types='auto' or 'none'"
            )
        return vocab >= 2
