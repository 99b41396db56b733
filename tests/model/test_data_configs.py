"""The build command each ``configs/data`` file names (printed when the dataset is missing) works."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from data_builders.__main__ import build_parser
from data_builders.build import _validate

REPO = Path(__file__).resolve().parents[2]
DATA_CONFIGS = sorted((REPO / "configs" / "data").glob("*.yaml"))


@pytest.mark.parametrize("config", DATA_CONFIGS, ids=lambda path: path.stem)
def test_build_command_is_accepted_by_the_builder(config, tmp_path):
    data = OmegaConf.load(config)
    command = OmegaConf.to_container(OmegaConf.create({"data": data}), resolve=True)["data"]
    argv = shlex.split(command["build_command"])
    assert argv[:4] == ["python", "-m", "data_builders", "build"]
    placeholders = [arg for arg in argv if arg.startswith("YOUR_")]
    for name in placeholders:  # a user replaces these with real paths
        (tmp_path / name).write_text("")
    argv = [str(tmp_path / arg) if arg in placeholders else arg for arg in argv]
    args = build_parser().parse_args(argv[3:])
    _validate(args)  # raises UserError, e.g. "no candidates", for a command that cannot run
    assert str(args.out) == command["dir"]
    if args.dataset in ("mbpp", "apps"):  # no offline default source for these two
        assert args.source is not None and Path(args.source).name.startswith("YOUR_")
