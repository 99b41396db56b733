"""scripts/gpu_check.py --dry-run (issue 43 item 7): every run of configs/gpu_check.yaml
composes as ``train.py +experiment=apps`` with its offline backbone, and trains two CPU steps on a
tiny stand-in of that backbone, on fixture data (no ../shared, no GPU)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
import torch

from unice.testing import load_script, make_fixture_dataset


@pytest.fixture(scope="module")
def check() -> ModuleType:
    return load_script("gpu_check")


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Two folders standing in for data/mbpp-real and data/apps-subset."""
    root = tmp_path_factory.mktemp("gpu-check-data")
    return [str(make_fixture_dataset(root / name, 24, 8, 4)) for name in ("mbpp", "apps")]


def test_dry_run_composes_and_steps_every_run(check, folders, capsys) -> None:
    plan = check.Plan.load()
    assert set(plan.runs) == {"smollm2", "minilm"}
    override = [f"data.dirs=[{folders[0]},{folders[1]}]", f"data.dev_dirs=[{folders[0]}]"]
    assert check.main(["--dry-run", "--override", *override]) == 0
    out = capsys.readouterr().out
    assert "# gpu_check: dry run (CPU, tiny stand-in backbones" in out
    for name in plan.runs:
        assert f"[{name}] python train.py +experiment=apps data=zeroshot_cpu_apps" in out
        assert f"[{name}] 2 steps," in out and f"| {name} | 2 |" in out


def test_the_gpu_runs_are_bf16_whole_fine_tuning_within_the_budget(check) -> None:
    plan = check.Plan.load()
    seconds = 0.0
    for name in plan.runs:
        cfg = check.compose(plan.overrides(name))
        assert cfg.trainer.precision == "bf16" and not cfg.model.freeze_encoder
        assert list(cfg.data.dirs) == ["data/mbpp-real", "data/apps-subset"]
        seconds += float(cfg.trainer.max_seconds)
    assert check.compose(plan.overrides("smollm2")).model.backbone == "smollm2"
    assert seconds < plan.budget_seconds  # the rest of the budget: loading, dev passes


def test_dry_run_names_missing_data(check, tmp_path: Path, capsys) -> None:
    argv = ["--dry-run", "--only", "minilm", "--override", f"data.dirs=[{tmp_path / 'none'}]"]
    assert check.main(argv) == 2  # one line naming the config problem
    assert "data.weights has 2 values for 1 data.dirs" in capsys.readouterr().err
    assert check.main([*argv, "data.weights=null", "data.dev_dirs=null"]) == 2
    err = capsys.readouterr().err
    assert "minilm:" in err and "none: no train split" in err and "make fetch" in err


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is here: the check would run")
def test_without_a_gpu_the_check_says_so(check, capsys) -> None:
    assert check.main(["--only", "minilm"]) == 2
    assert "no CUDA GPU visible to torch" in capsys.readouterr().err
