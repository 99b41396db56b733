"""Candidates sampled from a local Hugging Face causal language model with ``transformers``.

Sampling is seeded per task (not per batch of tasks), so a shard or a resumed build draws
exactly the samples a full build draws. The ``n`` sequences of one task are generated as one
batch (``batch_size`` at a time) with the model's stop sequences, on GPU when there is one,
with a progress bar. What the model is asked and how its text becomes a program is
:mod:`data_builders.candidates.prompts`; ``--generate smollm2`` is the offline
SmolLM2-135M-Instruct (:mod:`data_builders.candidates.smollm2`).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from data_builders.candidates.base import Candidate
from data_builders.candidates.prompts import (
    chat_messages,
    extract_code,
    program_from_completion,
    program_from_reply,
    render_instruction,
    truncate_completion,
)
from data_builders.errors import UserError
from data_builders.problems.base import Problem

__all__ = ["SamplingSettings", "generate_candidates", "load_model", "truncate_completion"]


@dataclass(frozen=True)
class SamplingSettings:
    """How to sample: configs/build ``generation`` with the ``--n``/``--temperature``/
    ``--top-p`` overrides applied (see :class:`~data_builders.dataset.config.GenerationConfig`)."""

    n: int = 10
    temperature: float = 0.8
    top_p: float = 0.95
    max_new_tokens: int = 384
    batch_size: int = 8
    seed: int = 0
    prompt: str = "complete"
    instruction: str = "{prompt}"
    system: str = ""
    stop: tuple[str, ...] = ()
    chat_stop: tuple[str, ...] = ()
    whole_program: bool = False  # APPS: the program is the whole text, not a body
    # HumanEval-X: a plain continuation in this language, closed by program_from_continuation
    language: str | None = None
    concurrency: int = 8
    timeout: float = 120.0
    max_retries: int = 4

    @classmethod
    def from_config(
        cls, generation: Any, seed: int, whole_program: bool, **overrides: Any
    ) -> SamplingSettings:
        """From a ``GenerationConfig``; ``overrides`` that are None are ignored."""
        values = {
            "n": generation.n,
            "temperature": generation.temperature,
            "top_p": generation.top_p,
            "max_new_tokens": generation.max_new_tokens,
            "batch_size": generation.batch_size,
            "seed": seed if generation.seed is None else generation.seed,
            "prompt": generation.prompt,
            "instruction": generation.instruction,
            "system": generation.system,
            "stop": tuple(generation.stop),
            "chat_stop": tuple(generation.chat_stop),
            "whole_program": whole_program,
            "concurrency": generation.concurrency,
            "timeout": generation.timeout,
            "max_retries": generation.max_retries,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def sample_seed(self, task_id: str, chunk: int) -> int:
        """The seed of one batch (local) or one sample (served) of a task."""
        digest = hashlib.sha256(f"{self.seed}:generate:{task_id}:{chunk}".encode()).digest()
        return int.from_bytes(digest[:4], "big")


def _hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0")


def load_model(name: str) -> tuple[Any, Any, str]:
    """Tokenizer, model and device; a one-line error when the model cannot be had."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if not Path(name).is_dir() and _hub_offline():
        raise UserError(
            f"--generate {name!r}: not a local folder and HF_HUB_OFFLINE=1 is set; pass the "
            "path of a downloaded model folder, or --generate smollm2 (offline SmolLM2), or "
            "unset HF_HUB_OFFLINE to download"
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


def model_folder(name: str) -> str:
    """``smollm2`` -> the prepared SmolLM2 folder (prepared on first use); else ``name``."""
    if name.lower() == "smollm2":
        from data_builders.candidates.smollm2 import prepared_model

        return str(prepared_model())
    return name


def prompt_text(problem: Problem, tokenizer: Any, settings: SamplingSettings) -> tuple[str, bool]:
    """The text the model continues, and whether it is a chat (so the reply holds the code).

    ``complete``: the problem's prompt. ``chat``: the instruction through the tokenizer's
    chat template, or as plain text when the model has no template.
    """
    if settings.prompt != "chat":
        return problem.prompt, False
    if getattr(tokenizer, "chat_template", None):
        messages = chat_messages(settings.instruction, problem, settings.system)
        text = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        return str(text), True
    return render_instruction(settings.instruction, problem), True


def replies_to_candidates(
    slots: Sequence[tuple[Problem, int, Any]],
    replies: dict[int, str],
    failures: Sequence[str],
    source: str,
    settings: SamplingSettings,
    what: str,
    chat: bool = True,
) -> Iterator[Candidate]:
    """The candidates of the replies that arrived, in slot order, after one warning line for
    the ``failures`` (left out, not faked: the reply cache lets a rerun ask for them again).

    ``slots[i]`` is ``(problem, sample index, cache key)`` of reply ``i``; ``what`` names the
    generations in the warning ("local generations", "generation requests").
    """
    if failures:
        print(
            f"warning: {len(failures)} of {len(slots)} {what} failed ({failures[0]});"
            " their candidates are left out: rerun the same command to generate them",
            file=sys.stderr,
        )
    for slot, (problem, index, _) in enumerate(slots):
        if slot in replies:
            program = to_program(problem, replies[slot], chat, settings)
            yield Candidate(problem.task_id, program, source, "generate", index)


def to_program(problem: Problem, text: str, chat: bool, settings: SamplingSettings) -> str:
    """The complete program for one generated text (see data_builders.candidates.prompts;
    a HumanEval-X problem's continuation: :func:`data_builders.problems.humaneval_x.program_from_continuation`)."""
    if not chat and settings.language:
        from data_builders.problems.humaneval_x import program_from_continuation

        if problem.metadata.get("language") != settings.language:
            raise ValueError(
                f"{problem.task_id} is not a {settings.language} problem; sampling settings "
                "are per language"
            )
        return program_from_continuation(problem, text)
    if chat:
        return program_from_reply(problem, extract_code(text, problem.entry_point))
    return program_from_completion(problem, text, settings.stop, settings.whole_program)


def generate_candidates(
    problems: Sequence[Problem],
    model_name: str,
    settings: SamplingSettings,
    progress: bool = True,
) -> Iterator[Candidate]:
    """Yield ``settings.n`` candidates per problem, batched per task.

    Args:
        problems: the problems to sample for, in order.
        model_name: a local model folder, ``smollm2``, or (online) a hub name.
        settings: sampling settings; ``temperature == 0`` means greedy (then ``n`` should be 1).
        progress: show a tqdm bar (programs generated) on stderr.
    """
    import torch

    folder = model_folder(model_name)
    tokenizer, model, device = load_model(folder)
    source = f"generate:{Path(folder).name or model_name}"
    bar = tqdm(total=len(problems) * settings.n, desc="generate", unit="prog", disable=not progress)
    for problem in problems:
        text, chat = prompt_text(problem, tokenizer, settings)
        encoded = tokenizer(text, return_tensors="pt", add_special_tokens=not chat).to(device)
        limit = getattr(model.config, "max_position_embeddings", None)
        if limit and encoded["input_ids"].shape[1] + settings.max_new_tokens > limit:
            keep = max(1, limit - settings.max_new_tokens)  # keep the end of a long prompt
            encoded = {k: v[:, -keep:] for k, v in encoded.items()}
        index = 0
        for chunk, start in enumerate(range(0, settings.n, settings.batch_size)):
            count = min(settings.batch_size, settings.n - start)
            torch.manual_seed(settings.sample_seed(problem.task_id, chunk))
            with torch.no_grad():
                kwargs = _generate_kwargs(settings, tokenizer, count, chat)
                output = model.generate(**encoded, **kwargs)
            new_tokens = output[:, encoded["input_ids"].shape[1] :]
            for generated in tokenizer.batch_decode(new_tokens, skip_special_tokens=True):
                program = to_program(problem, generated, chat, settings)
                yield Candidate(problem.task_id, program, source, "generate", index)
                index += 1
                bar.update(1)
    bar.close()


def _generate_kwargs(
    settings: SamplingSettings, tokenizer: Any, count: int, chat: bool = False
) -> dict[str, Any]:
    sample = settings.temperature > 0
    kwargs: dict[str, Any] = {
        "do_sample": sample,
        "max_new_tokens": settings.max_new_tokens,
        "num_return_sequences": count,
        "pad_token_id": tokenizer.pad_token_id,
    }
    if sample:
        kwargs.update(temperature=settings.temperature, top_p=settings.top_p)
    stops = settings.chat_stop if chat else settings.stop
    if stops:  # a sequence stops once it contains a stop string (cut again after)
        kwargs.update(stop_strings=list(stops), tokenizer=tokenizer)
    return kwargs
