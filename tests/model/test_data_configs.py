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


def _commands(data: dict) -> list[tuple[str, str]]:
    """``(folder, build command)`` pairs: one per folder of ``dirs`` (multi-folder configs name
    a command per folder in ``build_commands``), else ``dir`` with ``build_command``."""
    if data.get("dirs"):
        assert len(data["build_commands"]) == len(data["dirs"])
        return list(zip(data["dirs"], data["build_commands"], strict=True))
    return [(data["dir"], data["build_command"])]


@pytest.mark.parametrize("config", DATA_CONFIGS, ids=lambda path: path.stem)
def test_build_command_is_accepted_by_the_builder(config, tmp_path):
    data = OmegaConf.load(config)
    if "defaults" in data:  # a config that extends another: compose the two
        base = OmegaConf.load(config.with_name(f"{data.defaults[0]}.yaml"))
        data = OmegaConf.merge(base, {k: v for k, v in data.items() if k != "defaults"})
    resolved = OmegaConf.to_container(OmegaConf.create({"data": data}), resolve=True)["data"]
    for folder, command in _commands(resolved):
        argv = shlex.split(command)
        if argv[0] == "make":  # a folder a make target derives (make usefulness's outer folds)
            targets = (REPO / "Makefile").read_text("utf-8")
            assert f"\n{argv[1]}:" in targets, f"{config.name}: no make target {argv[1]!r}"
            continue
        assert argv[:4] == ["python", "-m", "data_builders", "build"]
        # a user replaces YOUR_* with real paths; files of the shared shelf may be absent here,
        # and so may data/samples/*, which the config's build_command (a script) writes first
        stand_ins = [a for a in argv if a.startswith(("YOUR_", "../shared/", "data/samples/"))]
        for name in stand_ins:
            (tmp_path / Path(name).name).write_text("")
        argv = [str(tmp_path / Path(a).name) if a in stand_ins else a for a in argv]
        args = build_parser().parse_args(argv[3:])
        _validate(args)  # raises UserError, e.g. "no candidates", for a command that cannot run
        assert str(args.out) == folder
        if args.dataset in ("mbpp", "apps"):  # no offline default source: a path to give
            source = shlex.split(command)[shlex.split(command).index("--source") + 1]
            assert source.startswith(("YOUR_", "../shared/data/"))
