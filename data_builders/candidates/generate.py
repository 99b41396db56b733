"""Candidates sampled from a Hugging Face causal language model with ``transformers``.

Sampling is seeded per task (not per batch of tasks), so a shard or a resumed build draws
exactly the samples a full build draws. The completion is cut at the first line that leaves
the function (a new top-level ``def``/``class``/``if``/``print``/comment), as Codex/CodeGen
evaluations do, and appended to the prompt.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_builders.candidates.base import Candidate
from data_builders.errors import UserError

STOP = re.compile(r"\n(?=\S)")  # a line that starts at column 0 ends the function
SCRIPT_STOP = re.compile(r"\n(?=QUESTION:|ANSWER:|-{5})")  # APPS: the next problem begins


@dataclass(frozen=True)
class SamplingSettings:
    """How to sample (mirrors the ``--generate`` flags and configs/build ``generation``)."""

    n: int = 10
    temperature: float = 0.8
    top_p: float = 0.95
    max_new_tokens: int = 384
    batch_size: int = 8
    seed: int = 0
    whole_program: bool = False  # APPS: the completion is the whole program, not a body


def truncate_completion(text: str, whole_program: bool = False) -> str:
    """The completion up to (not including) the first line that starts at column 0 — or,
    for whole programs (APPS), up to a line that starts another problem."""
    match = (SCRIPT_STOP if whole_program else STOP).search(text)
    return text[: match.start() + 1] if match else text


def _hub_offline() -> bool:
    return any(os.environ.get(v, "") not in ("", "0") for v in ("HF_HUB_OFFLINE",))


def load_model(name: str) -> tuple[Any, Any, str]:
    """Tokenizer, model and device; a one-line error when the model cannot be had."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not Path(name).is_dir() and _hub_offline():
        raise UserError(
            f"--generate {name!r}: not a local folder and HF_HUB_OFFLINE=1 is set; pass the "
            "path of a downloaded model folder (or unset HF_HUB_OFFLINE to download)"
        )
    try:
        tokenizer = AutoTokenizer.from_pretrained(name)
        model = AutoModelForCausalLM.from_pretrained(name)
    except (OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UserError(f"--generate {name!r}: cannot load the model ({first})") from None
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(device).eval()
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, model, device


def _task_seed(seed: int, task_id: str, chunk: int) -> int:
    digest = hashlib.sha256(f"{seed}:generate:{task_id}:{chunk}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def generate_candidates(
    tasks: Sequence[tuple[str, str]], model_name: str, settings: SamplingSettings
) -> Iterator[Candidate]:
    """Yield ``settings.n`` candidates per ``(task_id, prompt)``, batched per task.

    Args:
        tasks: (task_id, prompt) pairs.
        model_name: a local model folder or (online) a hub name.
        settings: sampling settings; ``temperature == 0`` means greedy (then ``n`` should be 1).
    """
    import torch

    tokenizer, model, device = load_model(model_name)
    source = f"generate:{Path(model_name).name or model_name}"
    for task_id, prompt in tasks:
        encoded = tokenizer(prompt, return_tensors="pt").to(device)
        limit = getattr(model.config, "max_position_embeddings", None)
        if limit and encoded["input_ids"].shape[1] + settings.max_new_tokens > limit:
            keep = max(1, limit - settings.max_new_tokens)  # keep the end of a long prompt
            encoded = {k: v[:, -keep:] for k, v in encoded.items()}
        index = 0
        for chunk, start in enumerate(range(0, settings.n, settings.batch_size)):
            count = min(settings.batch_size, settings.n - start)
            torch.manual_seed(_task_seed(settings.seed, task_id, chunk))
            sample = settings.temperature > 0
            with torch.no_grad():
                output = model.generate(
                    **encoded,
                    do_sample=sample,
                    temperature=settings.temperature if sample else None,
                    top_p=settings.top_p if sample else None,
                    max_new_tokens=settings.max_new_tokens,
                    num_return_sequences=count,
                    pad_token_id=tokenizer.pad_token_id,
                )
            new_tokens = output[:, encoded["input_ids"].shape[1] :]
            for text in tokenizer.batch_decode(new_tokens, skip_special_tokens=True):
                completion = truncate_completion(text, settings.whole_program)
                program = completion if settings.whole_program else prompt + completion
                yield Candidate(task_id, program, source, "generate", index)
                index += 1
