"""Tiny, fully offline models for tests: an in-process BPE tokenizer and a 2-layer RoBERTa.

Why: tests must never touch the hub or ``../shared``. A ByteLevel BPE trained on a few KB of
Python keeps whitespace like UniXcoder's tokenizer, trains in ~50 ms, and the 2-layer,
hidden-64 RoBERTa trains a step in tens of milliseconds on one CPU thread.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import torch
from transformers import PreTrainedTokenizerFast, RobertaConfig

from unice.modeling.configuration import UniCEConfig
from unice.modeling.model import UniCEModel

SPECIAL_TOKENS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
TINY_MAX_LENGTH = 128

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts"
"""The repository's command-line scripts (not a package: tests load them by path)."""


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as a module, for tests of a script's functions (the scripts are
    run as files, so they are no importable package)."""
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    if spec is None or spec.loader is None:
        raise FileNotFoundError(SCRIPTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_CORPUS = '''
def add(a, b):
    """Return the sum of a and b."""
    return a + b


def is_palindrome(text: str) -> bool:
    text = text.lower()
    return text == text[::-1]


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


class Stack:
    def __init__(self):
        self.items = []

    def push(self, item):
        self.items.append(item)

    def pop(self):
        if not self.items:
            raise IndexError("pop from empty stack")
        return self.items.pop()


def count_vowels(s):
    total = 0
    for ch in s:
        if ch in "aeiou":
            total += 1
    return total


def max_element(numbers: list) -> int:
    best = numbers[0]
    for x in numbers:
        if x > best:
            best = x
    return best
'''


def _corpus() -> list[str]:
    """A few KB of Python: the snippets above plus ``textwrap``'s own source."""
    return [_CORPUS, inspect.getsource(textwrap)]


def build_tiny_tokenizer(vocab_size: int = 1000) -> PreTrainedTokenizerFast:
    """A RoBERTa-style ByteLevel BPE tokenizer trained in-process (keeps whitespace).

    Special tokens get RoBERTa's ids: ``<s>`` 0, ``<pad>`` 1, ``</s>`` 2, ``<unk>`` 3,
    ``<mask>`` 4; pairs are joined as ``<s> a </s></s> b </s>``.
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

    tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(_corpus(), trainer=trainer)
    tokenizer.post_processor = processors.RobertaProcessing(
        ("</s>", tokenizer.token_to_id("</s>")), ("<s>", tokenizer.token_to_id("<s>"))
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        sep_token="</s>",
        cls_token="<s>",
        pad_token="<pad>",
        unk_token="<unk>",
        mask_token="<mask>",
        model_max_length=TINY_MAX_LENGTH,
    )


def tiny_encoder_config(vocab_size: int) -> RobertaConfig:
    """2 layers, hidden 64, two token types; positions for ``TINY_MAX_LENGTH`` tokens."""
    return RobertaConfig(
        vocab_size=vocab_size,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=TINY_MAX_LENGTH + 2,
        type_vocab_size=2,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )


def tiny_config(vocab_size: int, **overrides: Any) -> UniCEConfig:
    """A :class:`UniCEConfig` around :func:`tiny_encoder_config` with a small head."""
    fields: dict[str, Any] = {
        "hidden_sizes": [64, 32],
        "max_length": TINY_MAX_LENGTH,
        "layout": "none",
        "backbone": "tiny-random-roberta",
    }
    fields.update(overrides)
    return UniCEConfig(encoder=tiny_encoder_config(vocab_size), **fields)


def build_tiny_model(seed: int = 0, **overrides: Any) -> UniCEModel:
    """A random tiny :class:`UniCEModel` with ``model.tokenizer`` attached."""
    tokenizer = build_tiny_tokenizer()
    torch.manual_seed(seed)
    model = UniCEModel(tiny_config(len(tokenizer), **overrides))
    model.tokenizer = tokenizer
    return model


def save_tiny_checkpoint(path: str | os.PathLike[str], seed: int = 0, **overrides: Any) -> Path:
    """Write a real, loadable UniCE checkpoint folder (random tiny weights) and return it."""
    from unice.training.export import export_checkpoint

    model = build_tiny_model(seed=seed, **overrides)
    return export_checkpoint(model, model.tokenizer, Path(path), metrics=None, train_config=None)


def save_tiny_backbone(path: str | os.PathLike[str], seed: int = 0) -> Path:
    """A plain HF encoder folder (tiny random RoBERTa + tokenizer) usable as ``model.backbone``."""
    from transformers import RobertaModel

    tokenizer = build_tiny_tokenizer()
    torch.manual_seed(seed)
    encoder = RobertaModel(tiny_encoder_config(len(tokenizer)), add_pooling_layer=False)
    folder = Path(path)
    encoder.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


# (PassRatio, executable, body) of candidate kinds; bodies differ in many tokens so a tiny
# random encoder can tell them apart from its first-token vector.
_CANDIDATES: tuple[tuple[float, bool, str], ...] = (
    (1.0, True, "    return x + {k}"),
    (0.6, True, "    y = x\n    for _ in range({k}):\n        y = y + 1\n    return y - 1"),
    (0.3, True, "    values = [x] * {k}\n    return sum(values)"),
    (0.1, True, "    print(x)\n    return None"),
    (0.0, False, "    raise NotImplementedError('todo')"),
    (0.0, False, "    return x +* {k}"),
)


def fixture_rows(n: int, seed: int = 0, prefix: str = "fixture") -> list[dict[str, Any]]:
    """Synthetic dataset rows in the contract's shape with labels learnable from the text.

    Each task asks for ``x + k``; each candidate kind has its own PassRatio (from a correct
    ``return x + k`` down to code that never runs). Rows follow the input convention: ``nl``
    is the prompt (signature + docstring), ``generated``/``reference`` the bodies. Every fourth
    row lacks the NL and some others the reference, so the formats are exercised unevenly
    (every row has at least one).
    """
    import random

    rng = random.Random(seed)
    rows = []
    for i in range(n):
        k = rng.randint(1, 9)
        ratio, executable, body = rng.choice(_CANDIDATES)
        rows.append(
            {
                "id": f"{prefix}/{i}",
                "task_id": f"{prefix}/task{k}",
                "nl": "" if i % 4 == 3 else f'def add_k(x):\n    """Return x plus {k}."""\n',
                "reference": "" if i % 5 == 4 and i % 4 != 3 else f"    return x + {k}",
                "generated": body.format(k=k),
                "pass_ratio": ratio,
                "executable": executable,
                "passed": ratio >= 1.0,
                "base_passed": ratio >= 1.0,
                "n_tests": 20,
                "source": "fixture",
            }
        )
    return rows


RELATIONAL_BODIES: tuple[str, ...] = (
    "    return sorted(values)",
    "    total = 0\n    for v in values:\n        total += v\n    return total",
    "    return [v * 2 for v in values if v > 0]",
    "    while True:\n        pass",
)


def relational_rows(prefix: str = "rel") -> list[dict[str, Any]]:
    """Rows whose label depends on how ``generated`` relates to ``reference``, not on either.

    Each task's reference is one of :data:`RELATIONAL_BODIES`, and every task has every body as
    a candidate: PassRatio 1 for the candidate equal to the reference, 0 for the others. Each
    body is right for exactly one task and wrong for the rest, so a model that reads the
    generated code alone (or ignores the reference) cannot order any task's candidates; the
    NL says nothing either (it is the same for every task).
    """
    rows = []
    for t, reference in enumerate(RELATIONAL_BODIES):
        for c, body in enumerate(RELATIONAL_BODIES):
            ratio = 1.0 if body == reference else 0.0
            rows.append(
                {
                    "id": f"{prefix}/t{t}/c{c}",
                    "task_id": f"{prefix}/task{t}",
                    "nl": "def f(x, y):\n",
                    "reference": reference,
                    "generated": body,
                    "pass_ratio": ratio,
                    "executable": True,
                    "passed": ratio == 1.0,
                }
            )
    return rows


def make_fixture_dataset(
    folder: str | os.PathLike[str], n_train: int = 48, n_dev: int = 16, n_test: int = 16
) -> Path:
    """Write ``folder/{train,dev,test}.jsonl`` from :func:`fixture_rows` (distinct seeds)."""
    from data_builders.jsonl import write_jsonl

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for split, n, seed in (("train", n_train, 1), ("dev", n_dev, 2), ("test", n_test, 3)):
        write_jsonl(folder / f"{split}.jsonl", fixture_rows(n, seed=seed, prefix=split))
    return folder


def save_tiny_causal_lm(path: str | os.PathLike[str], architecture: str, seed: int = 0) -> Path:
    """A plain HF folder of a tiny random causal LM (``llama``: SmolLM2 / DeepSeek-Coder's
    architecture, ``qwen2``: Qwen2.5-Coder's) with a decoder-style tokenizer: an EOS token and
    no CLS/SEP/pad (Qwen2.5 has no BOS either), for the code-LM backbone configs' tests."""
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    base = build_tiny_tokenizer()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=base.backend_tokenizer,
        bos_token="<s>" if architecture == "llama" else None,
        eos_token="</s>",
        model_max_length=TINY_MAX_LENGTH,
    )
    tokenizer.backend_tokenizer.post_processor = None  # no template: a causal LM's plain ids
    sizes = {
        "vocab_size": len(base),
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 1,
        "max_position_embeddings": TINY_MAX_LENGTH,
        "eos_token_id": base.convert_tokens_to_ids("</s>"),
    }
    torch.manual_seed(seed)
    if architecture == "llama":
        model = LlamaForCausalLM(LlamaConfig(**sizes))
    elif architecture == "qwen2":
        model = Qwen2ForCausalLM(Qwen2Config(**sizes))
    else:
        raise ValueError(f"architecture={architecture!r}; choose llama or qwen2")
    folder = Path(path)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
