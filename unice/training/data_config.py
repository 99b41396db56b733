"""What a data config asks the training loop to read: folders, weights, dev folders, generator
families. Why apart from the loop: these are the data settings' rules, read also by scripts
that check a run before it starts (scripts/gpu_check.py). Its retired keys are refused from
:data:`unice.retired.RETIRED`, with the model's."""

from __future__ import annotations

from pathlib import Path

from omegaconf import DictConfig

from unice.errors import TrainingConfigError


def data_folders(data: DictConfig) -> tuple[list[str], dict[str, float], list[str]]:
    """``(folders, {folder name: weight}, build commands)`` of the data config.

    ``data.dirs`` (a list) reads several folders; ``data.weights`` (same length) scales how
    often each folder's samples are drawn per epoch. Without ``dirs``, ``data.dir`` alone.
    ``data.extra_dirs`` (weight 1.0 each, build command ``data.extra_build_command``) are added
    after them: an experiment that adds folders to whichever data config the command line
    chose (``+experiment=finetuned_cpu data=...``: the zero-shot run's training data plus
    HumanEval's train split), which replacing ``data.dirs`` could not do.
    """
    dirs = data.get("dirs") or [data.dir]
    dirs = [str(d) for d in dirs]
    weights = list(data.get("weights") or [1.0] * len(dirs))
    if len(weights) != len(dirs):
        raise TrainingConfigError(
            f"data.weights has {len(weights)} values for {len(dirs)} data.dirs; give one each"
        )
    commands = list(data.get("build_commands") or [])
    if len(commands) != len(dirs):  # e.g. data.dirs overridden: the one generic command
        commands = [data.get("build_command", "")] * len(dirs)
    extra = [str(d) for d in data.get("extra_dirs") or []]
    dirs, weights = dirs + extra, weights + [1.0] * len(extra)
    commands += [data.get("extra_build_command", "")] * len(extra)
    names = [Path(d).name for d in dirs]
    if len(set(names)) != len(names):
        raise TrainingConfigError(f"data.dirs {dirs}: folder names must differ (rows' origin)")
    return dirs, dict(zip(names, map(float, weights), strict=True)), [str(c) for c in commands]


def dev_folders(
    data: DictConfig, dirs: list[str], commands: list[str]
) -> tuple[list[str], list[str]]:
    """The folders whose dev split decides (``data.dev_dirs``, default all of ``dirs``), with
    their build commands. Why: a mix may train on a folder whose dev problems are not the ones
    the decision is about (MBPP rows in the multilingual model, whose dev set is HumanEval-X's
    held-in problems in six languages), and an arm that adds rows to its training folder
    (issue 27's G: stub candidates beside the real programs) keeps the protocol's dev rows by
    naming the folder they come from, which it does not train on. A dev folder that is not
    built fails when its split is read, naming it (the typo guard). ``data.extra_dirs`` are
    dev folders too when ``dev_dirs`` is set (without it every folder of ``dirs`` is)."""
    chosen = [str(d) for d in (data.get("dev_dirs") or dirs)]
    chosen += [str(d) for d in data.get("extra_dirs") or [] if str(d) not in chosen]
    generic = str(data.get("build_command", ""))
    return chosen, [commands[dirs.index(d)] if d in dirs else generic for d in chosen]


def families_config(data: DictConfig) -> dict[str, list[str]]:
    """``data.families`` as plain lists; a transfer dev without it is refused."""
    families = data.get("families")
    if not families:
        raise TrainingConfigError(
            "data.holdout_family needs data.families (generator patterns per "
            "family): use data=transfer or a data config that inherits it"
        )
    return {str(k): [str(p) for p in v] for k, v in families.items()}
