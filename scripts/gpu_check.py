"""Is UniCE ready for a GPU? Train ``+experiment=apps`` with each offline backbone on one GPU.

    python scripts/gpu_check.py             # on a GPU: the runs of configs/gpu_check.yaml
    python scripts/gpu_check.py --dry-run   # on CPU, in seconds: compose, check, 2 tiny steps

Usually run through ``scripts/gpu_check.sh``, which first builds (or finds) the data folders.
Each run is ``python train.py +experiment=apps <common> <its overrides>`` (the command is
printed), composed with hydra's compose API and trained in this process, so that the step times
(an ``on_step`` callback) and ``torch.cuda.max_memory_allocated`` can be read; it prints steps/s,
samples/s, peak GPU memory, the training seconds and the dev figures, and writes them to
``OUT/report.json``. The whole check must fit ``budget_seconds`` (exit 1 when it does not).

``--dry-run`` proves the GPU run would start without a GPU: every run's config composes and
validates, its data folders hold the splits it reads, its backbone is installed (SmolLM2 is
prepared on first use), and two CPU steps with a dev pass run on a tiny random stand-in of the
backbone (same architecture family, same model settings) on the first rows of the same data.
A problem is one line naming the fix; exit 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import yaml  # noqa: E402

from unice.errors import UniCEError  # noqa: E402

CONFIG = ROOT / "configs" / "gpu_check.yaml"
STAND_INS = ("roberta", "llama")
DEV_KEYS = ("example_spearman", "spearman", "kendall", "mae", "exec_auroc")
"""The dev figures printed per run (report.json keeps them all)."""
BUILD_HINT = (
    "build it with scripts/gpu_check.sh (from SHARED=${SHARED:-../shared/data}; `make fetch` "
    "fills the shelf) or `WITH_APPS=1 make quality`"
)


class Plan:
    """configs/gpu_check.yaml, read (a plain class: tests load this script by path, where a
    dataclass cannot find its module)."""

    def __init__(
        self,
        experiment: str,
        budget_seconds: float,
        common: list[str],
        runs: dict[str, dict[str, Any]],
        dry_run: list[str],
    ) -> None:
        self.experiment = experiment
        self.budget_seconds = budget_seconds
        self.common = common
        self.runs = runs
        self.dry_run = dry_run

    @classmethod
    def load(cls, path: Path = CONFIG) -> Plan:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        plan = cls(
            experiment=str(raw["experiment"]),
            budget_seconds=float(raw["budget_seconds"]),
            common=[str(o) for o in raw.get("common") or []],
            runs=dict(raw["runs"]),
            dry_run=[str(o) for o in raw.get("dry_run") or []],
        )
        for name, run in plan.runs.items():
            if run.get("stand_in") not in STAND_INS:
                raise SystemExit(
                    f"error: {path}: runs.{name}.stand_in must be one of {', '.join(STAND_INS)}"
                )
        return plan

    def overrides(self, name: str, extra: list[str] = ()) -> list[str]:
        """``+experiment=...`` and the run's overrides, in train.py's command-line order."""
        run = self.runs[name]
        return [f"+experiment={self.experiment}", *self.common, *run.get("overrides", []), *extra]


def compose(overrides: list[str]):
    """``configs/train.yaml`` composed as ``python train.py OVERRIDES`` would compose it."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        return hydra_compose("train", overrides=overrides)


def missing_data(cfg) -> list[str]:
    """The split files the run reads that are not there (train of every folder, dev of the
    folders that decide), as one line each."""
    from unice.training.data_config import data_folders, dev_folders

    dirs, _, commands = data_folders(cfg.data)
    dev_dirs, _ = dev_folders(cfg.data, dirs, commands)
    dev = cfg.data.get("dev_split", "dev")
    wanted = [(d, "train") for d in dirs] + ([(d, dev) for d in dev_dirs] if dev else [])
    out = []
    for folder, split in wanted:
        path = Path(folder) if Path(folder).is_absolute() else ROOT / folder
        if not (path / f"{split}.jsonl").is_file() and not (path / f"{split}.jsonl.gz").is_file():
            out.append(f"{folder}: no {split} split; {BUILD_HINT}")
    return out


def backbone_problem(name: str) -> str | None:
    """Why the real backbone cannot load here, or None (SmolLM2 only checks that its GGUF and
    the ``gguf`` reader are installed: the check prepares it on first use, ~1 min, once)."""
    import importlib.util

    from unice.backbones import OFFLINE_CODE_LM, resolve_backbone
    from unice.errors import BackboneUnavailableError

    if name == OFFLINE_CODE_LM:
        from data_builders.candidates.smollm2 import INSTALL, default_folder, gguf_path
        from data_builders.errors import UserError

        if (default_folder() / "model.safetensors").is_file():
            return None
        try:
            gguf_path()
        except UserError as exc:
            return f"backbone {name!r}: {exc}"
        if importlib.util.find_spec("gguf") is None:
            return f"backbone {name!r}: reading its GGUF needs the 'gguf' package: `{INSTALL}`"
        return None
    try:
        resolve_backbone(name)
    except BackboneUnavailableError as exc:
        return str(exc)
    return None


def stand_in_backbone(kind: str, folder: Path) -> Path:
    """A tiny random backbone of the same family as the real one (encoder or causal LM)."""
    from unice.testing import save_tiny_backbone, save_tiny_causal_lm

    if kind == "llama":
        return save_tiny_causal_lm(folder / "tiny-llama", "llama")
    return save_tiny_backbone(folder / "tiny-roberta")


class StepClock:
    """``on_step`` callback: when each optimizer step ended (``time.perf_counter``)."""

    def __init__(self) -> None:
        self.times: list[float] = []

    def __call__(self, step: int, logs: dict[str, Any]) -> None:
        self.times.append(time.perf_counter())

    def steps_per_second(self) -> float | None:
        """Over the steps after the first (which pays for warm-up: kernels, allocator)."""
        if len(self.times) < 2:
            return None
        return (len(self.times) - 1) / (self.times[-1] - self.times[0])


def measure(cfg, cuda: bool) -> dict[str, Any]:
    """Train ``cfg`` here; its steps/s, samples/s, peak GPU memory, seconds and dev figures."""
    import torch

    from unice.training import train

    if cuda:
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()
    clock = StepClock()
    started = time.perf_counter()
    metrics = train(cfg, on_step=clock)
    seconds = time.perf_counter() - started
    rate = clock.steps_per_second()
    per_step = int(cfg.trainer.batch_size) * int(cfg.trainer.grad_accum)
    return {
        "steps": len(clock.times),
        "steps_per_second": rate,
        "samples_per_second": rate * per_step if rate else None,
        "peak_gpu_memory_gib": torch.cuda.max_memory_allocated() / 2**30 if cuda else None,
        "seconds": seconds,
        "dev": {k[len("best/") :]: v for k, v in metrics.items() if k.startswith("best/")},
        "checkpoint": metrics.get("best_checkpoint"),
    }


def _fmt(value: Any, spec: str = ".3f") -> str:
    return "—" if value is None else format(value, spec)


def table(results: dict[str, dict[str, Any]]) -> list[str]:
    lines = [
        "| run | steps | steps/s | samples/s | peak GPU GiB | seconds | dev example ρ | dev ρ "
        "| dev MAE | dev Exec AUROC |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, r in results.items():
        dev = r["dev"]
        lines.append(
            f"| {name} | {r['steps']} | {_fmt(r['steps_per_second'], '.2f')} | "
            f"{_fmt(r['samples_per_second'], '.1f')} | {_fmt(r['peak_gpu_memory_gib'], '.2f')} | "
            f"{r['seconds']:.0f} | {_fmt(dev.get('example_spearman'))} | "
            f"{_fmt(dev.get('spearman'))} | {_fmt(dev.get('mae'))} | {_fmt(dev.get('exec_auroc'))} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dry-run", action="store_true", help="CPU, seconds: compose and check")
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--only", nargs="*", default=None, help="run names (default: all)")
    parser.add_argument(
        "--override", nargs="*", default=[], help="hydra overrides added to every run"
    )
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "gpu_check")
    args = parser.parse_args(argv)
    plan = Plan.load(args.config)
    names = args.only or list(plan.runs)
    unknown = [n for n in names if n not in plan.runs]
    if unknown:
        print(
            f"error: no run {unknown[0]!r} in {args.config} ({', '.join(plan.runs)})",
            file=sys.stderr,
        )
        return 2
    import torch

    cuda = torch.cuda.is_available()
    if not args.dry_run and not cuda:
        print(
            "error: no CUDA GPU visible to torch here; run on a GPU machine with a CUDA build of "
            "torch (make install TORCH_SPEC=...), or check on CPU with --dry-run",
            file=sys.stderr,
        )
        return 2
    started = time.perf_counter()
    problems: list[str] = []
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as scratch:
        for name in names:
            overrides = plan.overrides(name, args.override)
            print(f"[{name}] python train.py {' '.join(overrides)}", flush=True)
            try:
                cfg = compose([*overrides, f"output_dir={args.out / name}"])
            except Exception as exc:  # hydra's own errors: a config that does not compose
                problems.append(f"{name}: does not compose: {exc}")
                continue
            try:
                run_problems = missing_data(cfg)
            except UniCEError as exc:  # e.g. data.weights not one per folder
                run_problems = [str(exc)]
            problem = backbone_problem(str(cfg.model.backbone))
            run_problems += [f"{problem}"] if problem else []
            problems += [f"{name}: {p}" for p in run_problems]
            if run_problems:
                continue
            if args.dry_run:
                kind = plan.runs[name]["stand_in"]
                tiny = stand_in_backbone(kind, Path(scratch) / name)
                cfg = compose(
                    [*overrides, *plan.dry_run, f"model.backbone={tiny}",
                     f"output_dir={Path(scratch) / name / 'run'}"]
                )  # fmt: skip
            results[name] = measure(cfg, cuda and not args.dry_run)
            r = results[name]
            dev = {k: round(v, 3) for k, v in r["dev"].items() if k in DEV_KEYS}
            print(
                f"[{name}] {r['steps']} steps, {_fmt(r['steps_per_second'], '.2f')} steps/s, "
                f"peak GPU {_fmt(r['peak_gpu_memory_gib'], '.2f')} GiB, {r['seconds']:.0f} s; "
                f"dev {dev}",
                flush=True,
            )
    total = time.perf_counter() - started
    for line in problems:
        print(f"error: {line}", file=sys.stderr)
    if problems:
        return 2
    mode = (
        "dry run (CPU, tiny stand-in backbones: no figure here is a GPU figure)"
        if args.dry_run
        else torch.cuda.get_device_name(0)
    )
    lines = [f"# gpu_check: {mode}", "", *table(results), "", f"Total {total:.0f} s "
             f"(budget {plan.budget_seconds:.0f} s)."]  # fmt: skip
    print("\n".join(lines))
    if not args.dry_run:
        args.out.mkdir(parents=True, exist_ok=True)
        report = {"device": mode, "total_seconds": total, "budget_seconds": plan.budget_seconds,
                  "runs": results, "torch": torch.__version__}  # fmt: skip
        (args.out / "report.json").write_text(json.dumps(report, indent=2) + "\n", "utf-8")
        (args.out / "report.md").write_text("\n".join(lines) + "\n", "utf-8")
        if total > plan.budget_seconds:
            print(f"error: the check took {total:.0f} s, over its {plan.budget_seconds:.0f} s "
                  "budget: lower the runs' trainer.max_seconds", file=sys.stderr)  # fmt: skip
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
