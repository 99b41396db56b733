"""A disk cache of a frozen encoder's per-layer pooled states, one entry per distinct input.

Why: fine-tuning the encoder costs a forward and a backward of every text at every step, so
training time grows with the data and ten times the data does not fit a CPU budget. With the
encoder frozen (``UniCEConfig.freeze_encoder``), a text's states never change, and the layer
mix and pooling are linear: ``pool(sum_k w_k h_k) = sum_k w_k pool(h_k)``. So the encoder
runs once per distinct text and backbone, its ``(layers, hidden)`` pooled states are kept
here, and every later step, epoch, seed and arm trains the layer-wise attention and the head
on them in seconds.

Entries are keyed by the encoder's weights (a digest of every tensor, so two backbones, or a
fine-tuned and a pretrained copy, never share entries), the pooling, and the exact token ids
the encoder sees (which already hold the tokenizer, layout tokens, cleaning and truncation).
The store is a folder per (weights, pooling): append-only chunk files written atomically, so
an interrupted run loses at most the entries since its last flush and never corrupts the rest.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

import torch

CHUNK_PREFIX = "chunk-"
"""Chunk files are ``chunk-<number>.pt``: ``{"keys": [...], "states": (n, layers, hidden)}``, or
a list of ``n`` tensors where entries differ in shape (``trainable_top_layers``' token states)."""


def weights_digest(module: torch.nn.Module, exclude: tuple[str, ...] = ()) -> str:
    """A short digest of every parameter and buffer of ``module`` (names, shapes, values),
    but those whose names start with one of ``exclude`` (weights that train)."""
    digest = hashlib.sha256()
    for name, tensor in sorted(module.state_dict().items()):
        if exclude and name.startswith(exclude):
            continue
        digest.update(name.encode())
        digest.update(str(tuple(tensor.shape)).encode())
        digest.update(tensor.detach().to("cpu").contiguous().view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()[:16]


def token_key(ids: Sequence[int]) -> str:
    """The key of one input: a digest of its token ids (no padding)."""
    return hashlib.sha1(",".join(map(str, ids)).encode()).hexdigest()


class FeatureCache:
    """Per-layer pooled states of one frozen encoder, in memory and on disk.

    Args:
        folder: where the cache lives (one sub-folder per weights digest and pooling); None
            keeps it in memory only (tests, one-off scoring).
        namespace: the weights digest and pooling (``FeatureCache.namespace_of``).
        flush_every: write a chunk file after this many new entries.
    """

    def __init__(
        self, folder: str | os.PathLike[str] | None, namespace: str, flush_every: int = 2048
    ):
        self.namespace = namespace
        self.folder = Path(folder) / namespace if folder is not None else None
        self.flush_every = flush_every
        self._states: dict[str, torch.Tensor] = {}
        self._pending: list[str] = []
        self.hits = 0
        self.misses = 0
        if self.folder is not None:
            self._load()

    @staticmethod
    def namespace_of(encoder: torch.nn.Module, pooling: str) -> str:
        """The sub-folder name of ``encoder``'s entries under ``pooling``."""
        return f"{weights_digest(encoder)}-{pooling}"

    def __len__(self) -> int:
        return len(self._states)

    def _load(self) -> None:
        assert self.folder is not None
        if not self.folder.is_dir():
            return
        for path in sorted(self.folder.glob(f"{CHUNK_PREFIX}*.pt")):
            chunk = torch.load(path, map_location="cpu", weights_only=True)
            for key, states in zip(chunk["keys"], chunk["states"], strict=True):
                self._states[key] = states

    def lookup(self, keys: Sequence[str]) -> list[torch.Tensor | None]:
        """The cached ``(layers, hidden)`` states of each key, ``None`` where absent."""
        found = [self._states.get(key) for key in keys]
        hit = sum(state is not None for state in found)
        self.hits += hit
        self.misses += len(found) - hit
        return found

    def add(self, keys: Sequence[str], states: torch.Tensor | Sequence[torch.Tensor]) -> None:
        """Store ``states`` (``(n, layers, hidden)``, or ``n`` tensors of any shape) under
        ``keys``; flush when enough are new."""
        for key, state in zip(keys, states, strict=True):
            if key not in self._states:
                self._states[key] = state.detach().to("cpu").clone()
                self._pending.append(key)
        if len(self._pending) >= self.flush_every:
            self.flush()

    def flush(self) -> None:
        """Write the entries added since the last flush as one chunk file (atomically)."""
        if self.folder is None or not self._pending:
            self._pending.clear()
            return
        self.folder.mkdir(parents=True, exist_ok=True)
        number = len(list(self.folder.glob(f"{CHUNK_PREFIX}*.pt")))
        target = self.folder / f"{CHUNK_PREFIX}{number:05d}-{os.getpid()}.pt"
        states = [self._states[key] for key in self._pending]
        if len({tuple(state.shape) for state in states}) == 1:
            states = torch.stack(states)  # one tensor where every entry has one shape
        chunk = {"keys": list(self._pending), "states": states}
        handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
        os.close(handle)
        try:
            torch.save(chunk, temporary)
            os.replace(temporary, target)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        self._pending.clear()
