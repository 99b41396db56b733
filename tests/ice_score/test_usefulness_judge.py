"""ICE-Score's usefulness aspect as a column of ``evaluate.py label=usefulness`` (CoNaLa's
human grades, ICE-Score's Table 1), against the local fake judge server."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir
from rich.console import Console

from unice.evaluation import evaluate
from unice.evaluation.cli import normalize_overrides

REPO = Path(__file__).resolve().parents[2]
ROWS = [  # (generated, grade, the judge's reply for it)
    ("sorted(x, reverse=True)  # <<good>>", 4, "Usefulness: 4"),
    ("x.sort()  # <<half>>", 2, "2"),
    ("print(x)  # <<bad>>", 0, "Score: 0"),
]


def _dataset(folder: Path) -> Path:
    folder.mkdir()
    with (folder / "test.jsonl").open("w") as handle:
        for i, (code, grade, _) in enumerate(ROWS):
            row = {
                "id": f"CoNaLa/0::{i}",
                "task_id": "CoNaLa/0",
                "generator": f"m{i}",
                "nl": "sort list `x` in reverse order",
                "reference": "x.sort(reverse=True)",
                "generated": code,
                "usefulness": grade,
            }
            handle.write(json.dumps(row) + "\n")
    return folder


@pytest.mark.parametrize("with_reference", [False, True])
def test_usefulness_judge_column(server, tmp_path: Path, with_reference: bool):
    server.replies = {
        marker: reply for (code, _, reply) in ROWS for marker in [code.split("# ")[1]]
    }
    data = _dataset(tmp_path / "data")
    overrides = [
        f"data={data}",
        "label=usefulness",
        "baselines=none",
        "ice_score=default",
        "ice_score.aspect=usefulness",
        f"ice_score.with_reference={str(with_reference).lower()}",
        f"ice_score.base_url={server.url}",
        "ice_score.model=judge",
        "ice_score.progress=false",
        "bootstrap.n_resamples=0",
        "progress=false",
        "plots=false",
        f"output_dir={tmp_path / 'out'}",
    ]
    with initialize_config_dir(config_dir=str(REPO / "configs"), version_base="1.3"):
        cfg = compose("evaluate", overrides=normalize_overrides(overrides))
    report = evaluate(cfg, console=Console(file=io.StringIO(), width=200))
    (column,) = report["metrics"]
    assert column["name"] == ("Ref-ICE-Score" if with_reference else "ICE-Score")
    assert column["settings"]["aspect"] == "usefulness"
    # the judge's grades order the three snippets as the developers did
    assert column["corpus"]["kendall"] == pytest.approx(1.0)
    prompts = [r["body"]["messages"][-1]["content"] for r in server.requests]
    assert len(prompts) == 3
    assert all("Usefulness (0-4)" in p and "Usefulness (scores ONLY):" in p for p in prompts)
    assert all("sort list `x` in reverse order" in p for p in prompts)
    # Ref-ICE-Score shows the whole reference (the authors' release passed its first character)
    assert all(
        ("x.sort(reverse=True)" in p.split("Code Snippet")[0]) == with_reference for p in prompts
    )
