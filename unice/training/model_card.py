"""A model card (``README.md``) for an exported checkpoint, with its dev metrics."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path


def _fmt(value: float) -> str:
    return (
        "n/a"
        if value is None or (isinstance(value, float) and math.isnan(value))
        else f"{value:.4f}"
    )


def write_model_card(
    folder: Path, config, metrics: Mapping[str, float] | None, dataset: str | None = None
) -> Path:
    """Write ``folder/README.md`` describing the backbone, formats, loss and dev metrics."""
    from unice import __version__

    lines = [
        "---",
        "library_name: unice",
        "tags: [code-evaluation, codescore, unice]",
        "---",
        "# UniCE CodeScore model",
        "",
        "Predicts a program's PassRatio (CodeScore) and Executability from its text, trained with",
        "UniCE (unified code execution learning). Load with `unice.load_model(path)` and call",
        "`model.score(generated=[...], references=[...], nls=[...])`, or run",
        "`unice-score --model PATH --input IN.jsonl --output OUT.jsonl`.",
        "",
        f"- backbone: `{config.backbone or config.encoder.model_type}` "
        f"({config.encoder.num_hidden_layers} layers, hidden {config.encoder.hidden_size})",
        f"- formats: {', '.join(config.formats)}; max length {config.max_length} tokens",
        f"- layout tokens: {'yes' if config.layout_active else 'no'}",
        f"- loss weights: {dict(config.loss_weights)}",
        f"- unice version: {__version__}",
        "",
    ]
    if metrics:
        where = f" on `{dataset}`" if dataset else ""
        lines += [f"## Dev metrics{where}", "", "| metric | value |", "| --- | --- |"]
        lines += [f"| {key} | {_fmt(value)} |" for key, value in metrics.items()]
        lines.append("")
    else:
        lines += ["No dev metrics were recorded for this checkpoint (untrained or test model).", ""]
    path = Path(folder) / "README.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
