"""A local ``transformers`` causal LM as the judge: no server, no API key, GPU when present.

Greedy decoding (the paper's temperature 0), prompts rendered with the tokenizer's chat
template when it has one (instruction-tuned models are trained on it) and as plain text
otherwise, left-padded batches of ``concurrency`` prompts sorted by length so that padding
stays small.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from data_builders.openai_client.records import BackendStats, Completion, Messages, OnDone
from unice.ice_score.config import IceScoreConfig
from unice.ice_score.errors import IceScoreConfigError, ModelNotFoundError


class TransformersBackend:
    """Loads ``config.model`` (folder or hub name, offline-safe) on first use."""

    name = "transformers"

    def __init__(self, config: IceScoreConfig, model: Any = None, tokenizer: Any = None) -> None:
        """Args: ``model``/``tokenizer`` may be passed in-process (tests, notebooks)."""
        self.config = config
        self.model = str(config.model)
        self.stats = BackendStats()
        self._lm = model
        self._tokenizer = tokenizer

    def params(self) -> dict[str, Any]:
        return {"max_new_tokens": self.config.reply_tokens, "do_sample": False}

    def _load(self) -> tuple[Any, Any]:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if self._tokenizer is None or self._lm is None:
            try:
                self._tokenizer = AutoTokenizer.from_pretrained(self.model)
                self._lm = AutoModelForCausalLM.from_pretrained(
                    self.model, dtype=_dtype(self.config.dtype)
                )
            except (OSError, ValueError) as exc:
                raise ModelNotFoundError(
                    f"cannot load local judge model {self.model!r} ({str(exc).splitlines()[0]}); "
                    "pass a folder holding a causal LM and its tokenizer (the hub is offline)"
                ) from None
        device = self.config.device
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self._lm.to(device).eval()
        self._tokenizer.padding_side = "left"  # generation continues from the right edge
        if self._tokenizer.pad_token is None:
            if self._tokenizer.eos_token is None:
                raise IceScoreConfigError(
                    f"the tokenizer of {self.model!r} has neither a pad nor an eos token; "
                    "set one in its tokenizer_config.json"
                )
            self._tokenizer.pad_token = self._tokenizer.eos_token
        return self._lm, self._tokenizer

    def render(self, messages: Messages) -> str:
        """Chat template when the tokenizer has one, else the messages' text."""
        tokenizer = self._tokenizer
        if getattr(tokenizer, "chat_template", None):
            return tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
        return "\n\n".join(message["content"] for message in messages)

    def run(self, jobs: Sequence[tuple[int, Messages]], on_done: OnDone) -> None:
        """Generate for all jobs in length-sorted batches; report each reply as it is decoded."""
        if not jobs:
            return
        lm, tokenizer = self._load()
        texts = {index: self.render(messages) for index, messages in jobs}
        order = sorted(texts, key=lambda index: len(texts[index]))
        size = self.config.concurrency
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            for index, completion in zip(
                batch, self._generate(lm, tokenizer, [texts[i] for i in batch]), strict=True
            ):
                on_done(index, completion)

    def _generate(self, lm: Any, tokenizer: Any, texts: list[str]) -> list[Completion]:
        """Greedy replies for one batch. input_ids: (batch, prompt_len) left-padded."""
        import torch

        # a chat template already writes the special tokens (BOS...) itself
        templated = bool(getattr(tokenizer, "chat_template", None))
        encoded = tokenizer(
            texts, return_tensors="pt", padding=True, add_special_tokens=not templated
        )
        encoded = {key: value.to(lm.device) for key, value in encoded.items()}
        with torch.inference_mode():
            output = lm.generate(
                **encoded,
                max_new_tokens=self.config.reply_tokens,
                do_sample=False,
                pad_token_id=tokenizer.pad_token_id,
            )
        self.stats.requests += len(texts)
        new_tokens = output[:, encoded["input_ids"].shape[1] :]  # (batch, <= max_new_tokens)
        prompt_lengths = encoded["attention_mask"].sum(dim=1).tolist()
        completions = []
        for row, prompt_tokens in zip(new_tokens, prompt_lengths, strict=True):
            kept = row[row != tokenizer.pad_token_id] if tokenizer.pad_token_id is not None else row
            text = tokenizer.decode(kept, skip_special_tokens=True)
            completions.append(Completion(text, int(prompt_tokens), int(kept.numel())))
        return completions


def _dtype(name: str) -> Any:
    import torch

    if name == "auto":
        return "auto"
    value = getattr(torch, name, None)
    if not isinstance(value, torch.dtype):
        raise IceScoreConfigError(f"unknown dtype {name!r}; use auto, float32, float16 or bfloat16")
    return value
