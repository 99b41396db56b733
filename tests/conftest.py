"""Suite-wide settings: offline hubs, offline wandb, one torch thread, and the shared-data probe.

Every test must pass on a fresh machine where ``../shared`` does not exist; tests that want
the shared reference data use the ``shared_data`` fixture, which skips cleanly without it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("WANDB_MODE", "disabled")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("OMP_NUM_THREADS", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory):
    """``label`` caches reference timings under $XDG_CACHE_HOME: keep the tests' out of ~."""
    before = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("xdg-cache"))
    yield
    if before is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = before


@pytest.fixture(autouse=True, scope="session")
def _one_torch_thread() -> None:
    """Two threads made the first training steps ~10x slower on these 2-core machines."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a declared dependency
        return
    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The read-only ``../shared/data`` folder, or a skip when this machine does not have it."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} not present (reference data is optional)")
    return SHARED_DATA


@pytest.fixture
def direct_localhost(monkeypatch: pytest.MonkeyPatch) -> None:
    """httpx honours proxy variables; tests with a local fake server talk to 127.0.0.1 directly."""
    from unice.testing_http import PROXY_VARIABLES

    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")


@pytest.fixture(autouse=True)
def _wandb_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WANDB_DIR", str(tmp_path_factory.getbasetemp()))


def label_locally_and_on_ray(argv: list[str], tmp_path: Path, chunk_size: int) -> set[str]:
    """Run ``python -m data_builders`` ``argv`` (a ``label`` command without ``--out``) on 2
    local workers and on the Ray cluster a test started (one-CPU actors, ``chunk_size``
    programs a chunk); assert the two files are byte-identical; return the statuses that
    occurred, so the caller can check the programs covered the verdicts it meant to."""
    import json

    from data_builders.__main__ import main

    config = tmp_path / "executor.yaml"
    config.write_text(f"executor: ray\nray_cpus_per_actor: 1\nray_chunk_size: {chunk_size}\n")
    local, remote = tmp_path / "local.jsonl", tmp_path / "ray.jsonl"
    assert main([*argv, "--out", str(local), "--workers", "2"]) == 0
    assert main([*argv, "--out", str(remote), "--executor-config", str(config)]) == 0
    assert remote.read_bytes() == local.read_bytes()
    return {
        status
        for line in local.read_text().splitlines()
        for status, n in json.loads(line)["status_counts"].items()
        if n
    }
