"""``train(cfg)``: the accelerate training loop behind ``python train.py +experiment=...``.

One optimizer step = one forward over every format of the batch (L_Uni), backward, clip,
AdamW step, schedule step. Dev evaluation each epoch drives early stopping and exports the
best checkpoint to ``<output_dir>/best``; ``<output_dir>/last`` holds the full training state
every ``save_every_steps`` so a rerun of the same command resumes where it stopped.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from omegaconf import DictConfig, OmegaConf
from torch.utils.data import DataLoader
from transformers import get_scheduler

from unice.data.dataset import Collator, Sample, check_disjoint_splits, read_splits
from unice.data.encoding import InputEncoder
from unice.data.families import family_counts, hold_out_family
from unice.data.sampler import ProblemGroupedBatchSampler
from unice.errors import CheckpointError, TrainingConfigError
from unice.modeling.build import build_model
from unice.retired import refuse_retired
from unice.scoring import has_usable_format
from unice.training.batch_loss import batch_loss
from unice.training.data_config import data_folders, dev_folders, families_config
from unice.training.evaluation import dev_metrics, predict
from unice.training.exec_prior import fit_exec_prior
from unice.training.export import export_checkpoint
from unice.training.feature_cache import open_feature_cache, prefill_feature_cache
from unice.training.optim import OptimConfig, build_optimizer
from unice.training.run_logger import RunLogger, make_logger
from unice.training.settings import MODEL_FIELDS, TrainerSettings, refuse_retired_model_keys
from unice.training.state import (
    TrainerState,
    has_training_state,
    load_fingerprint,
    load_training_state,
    run_fingerprint,
    save_training_state,
)
from unice.training.state_statistics import fit_state_statistics

StepCallback = Callable[[int, dict[str, float]], None]


@dataclass
class _Run:
    """Everything the loop needs, built once by :func:`_setup`."""

    cfg: DictConfig
    settings: TrainerSettings
    accelerator: Accelerator
    model: Any
    tokenizer: Any
    collator: Collator
    train_samples: list[Sample]
    dev_samples: list[Sample] | None
    optimizer: Any
    scheduler: Any
    total_steps: int
    steps_per_epoch: int
    output_dir: Path
    logger: RunLogger
    sampler: ProblemGroupedBatchSampler
    loader: Any
    fingerprint: dict[str, str]


def train(cfg: DictConfig | dict, on_step: StepCallback | None = None) -> dict[str, float]:
    """Train a UniCE model as configured and export the best checkpoint.

    Args:
        cfg: the composed hydra config (``configs/train.yaml`` + groups + experiment).
        on_step: optional callback ``(global_step, logs)`` after each optimizer step (tests
            use it to simulate an interruption).

    Returns:
        Metrics: ``best/<metric>`` of the best dev epoch, ``best_epoch``, ``global_step``,
        ``train_loss`` and the checkpoint path under ``best_checkpoint``.
    """
    if not isinstance(cfg, DictConfig):
        cfg = OmegaConf.create(cfg)
    run = _setup(cfg)
    state = _maybe_resume(run)
    try:
        _fit(run, state, on_step)
    finally:
        run.logger.finish()
    return _finish(run, state)


def _setup(cfg: DictConfig) -> _Run:
    settings = TrainerSettings.from_config(cfg.trainer)
    refuse_retired_model_keys(cfg.model)
    if settings.num_threads:
        torch.set_num_threads(int(settings.num_threads))
    data = cfg.data
    refuse_retired("data", data)
    dirs, weights, commands = data_folders(data)
    train_samples = read_splits(
        dirs,
        "train",
        commands,
        data.get("max_train_samples"),
        mutants_per_program=data.get("mutants_per_program"),
    )
    dev_split = data.get("dev_split", "dev")
    dev_dirs, dev_commands = dev_folders(data, dirs, commands)
    dev_samples = (
        read_splits(dev_dirs, dev_split, dev_commands, data.get("max_dev_samples"))
        if dev_split
        else None
    )
    check_disjoint_splits({"train": train_samples, dev_split or "dev": dev_samples or []})
    if data.get("holdout_family"):  # a transfer dev: a family that trains on nothing decides
        families = families_config(data)
        train_samples, dev_samples = hold_out_family(
            train_samples, dev_samples or [], families, str(data.holdout_family)
        )
        print(
            f"held-out family {data.holdout_family}: {len(dev_samples)} dev rows; training on "
            f"{family_counts(train_samples, families, 'train split')}"
        )
    accelerator = Accelerator(
        cpu=settings.accelerator == "cpu",
        mixed_precision=settings.precision,
        gradient_accumulation_steps=settings.grad_accum,
    )
    set_seed(int(cfg.seed))
    model_kwargs = {key: _plain(cfg.model[key]) for key in MODEL_FIELDS if key in cfg.model}
    model, tokenizer = build_model(
        cfg.model.backbone, pretrained=bool(cfg.model.get("pretrained", True)), **model_kwargs
    )
    mc = model.config
    train_samples = _trainable(train_samples, mc.formats, accelerator)
    encoder = InputEncoder.from_config(tokenizer, mc)
    collator = Collator(encoder, mc.formats, mc.architecture)
    if mc.freeze_encoder:  # encode every distinct input once, before the first step
        model.to(accelerator.device)  # on the GPU where there is one, not before `prepare` on CPU
        model.use_feature_cache(open_feature_cache(model, settings.feature_cache))
        prefill_feature_cache(
            model, collator, [*train_samples, *(dev_samples or [])], settings, accelerator.print
        )
    if mc.standardize_states:  # before the first step; a resumed run reloads the same fit
        fit = fit_state_statistics(model, collator, train_samples, settings.eval_batch_size)
        accelerator.print(fit.describe())
    if getattr(mc, "exec_prior", False):  # before prepare; a resumed run reloads the same fit
        accelerator.print(fit_exec_prior(model, encoder, train_samples, mc.formats).describe())
    optimizer = build_optimizer(
        model,
        OptimConfig(
            settings.lr_encoder, settings.lr_head, settings.layer_decay, settings.weight_decay
        ),
    )
    sampler = ProblemGroupedBatchSampler(
        train_samples, settings.batch_size, settings.group_size, int(cfg.seed), weights
    )
    loader = accelerator.prepare_data_loader(
        DataLoader(
            train_samples,
            batch_sampler=sampler,
            collate_fn=collator,
            num_workers=settings.num_workers,
            # iterator seeds come from here, not the global RNG (dropout), so resume is exact
            generator=torch.Generator().manual_seed(int(cfg.seed)),
        ),
        device_placement=True,
    )
    steps_per_epoch = math.ceil(len(loader) / settings.grad_accum)
    total_steps = steps_per_epoch * settings.epochs
    if settings.max_steps:
        total_steps = min(total_steps, int(settings.max_steps))
    scheduler = get_scheduler(
        settings.scheduler,
        optimizer,
        num_warmup_steps=int(settings.warmup_ratio * total_steps),
        num_training_steps=total_steps,
    )
    model, optimizer = accelerator.prepare(model, optimizer)
    accelerator.register_for_checkpointing(scheduler)
    output_dir = Path(cfg.output_dir)
    run_config = OmegaConf.to_container(cfg, resolve=True)
    logger = (
        make_logger(cfg.get("logger"), run_config) if accelerator.is_main_process else RunLogger()
    )
    # the dev rows that decide are part of the run, also from a folder it does not train on
    dev_only = [d for d in dev_dirs if d not in dirs] if dev_split else []
    fingerprint = run_fingerprint(run_config, [*dirs, *dev_only], [dev_split] if dev_split else [])
    return _Run(
        cfg, settings, accelerator, model, tokenizer, collator, train_samples, dev_samples,
        optimizer, scheduler, total_steps, steps_per_epoch, output_dir, logger, sampler,
        loader, fingerprint,
    )  # fmt: skip


def _trainable(samples: list[Sample], formats: list[str], accelerator) -> list[Sample]:
    """The samples that feed at least one of the model's formats (a Ref&NL-only model cannot
    learn from a sample without a reference); says how many were left out."""
    kept = [s for s in samples if has_usable_format(formats, s.reference, s.nl)]
    if not kept:
        raise TrainingConfigError(
            f"no training sample has what model.formats={formats} needs (a reference and/or an "
            "NL); add formats the data has, e.g. model.formats=[ref,nl,ref_nl]"
        )
    if len(kept) < len(samples):
        accelerator.print(
            f"{len(samples) - len(kept)} of {len(samples)} training samples have no input for "
            f"model.formats={formats} and are left out"
        )
    return kept


def _plain(value: Any) -> Any:
    return OmegaConf.to_container(value, resolve=True) if OmegaConf.is_config(value) else value


def _maybe_resume(run: _Run) -> TrainerState:
    resume = run.settings.resume
    if resume in (False, "false", "never", None, ""):
        return TrainerState()
    folder = run.output_dir / "last" if resume in (True, "auto", "true") else Path(str(resume))
    if not has_training_state(folder):
        if resume not in (True, "auto", "true"):
            raise CheckpointError(
                f"trainer.resume={resume!r}: no saved training state there; pass the "
                "<output_dir>/last folder of an earlier run, or trainer.resume=auto"
            )
        return TrainerState()
    saved = load_fingerprint(folder) or {}
    if saved != run.fingerprint:
        what = [key for key in run.fingerprint if saved.get(key) != run.fingerprint[key]]
        raise CheckpointError(
            f"{folder} was saved by a run with other {' and '.join(what) or 'settings'}; "
            "resuming would mix two runs: use another output_dir=..., delete that folder, "
            "or pass trainer.resume=false to start afresh there"
        )
    state = load_training_state(run.accelerator, folder)
    run.accelerator.print(
        f"resuming from {folder} at step {state.global_step} (epoch {state.epoch})"
    )
    return state


def _fit(run: _Run, state: TrainerState, on_step: StepCallback | None) -> None:
    from tqdm.auto import tqdm

    bar = tqdm(
        total=run.total_steps,
        initial=state.global_step,
        desc="train",
        unit="step",
        disable=not (run.settings.progress and run.accelerator.is_main_process),
    )
    limit = run.settings.max_seconds
    deadline = time.monotonic() + float(limit) if limit else None
    try:
        while state.epoch < run.settings.epochs and state.global_step < run.total_steps:
            _train_epoch(run, state, bar, on_step, deadline)
            if _end_epoch(run, state) or _out_of_time(run, deadline):
                break
    finally:
        bar.close()


def _out_of_time(run: _Run, deadline: float | None) -> bool:
    """Whether ``trainer.max_seconds`` of training have passed (a run that must fit a time
    budget, e.g. scripts/gpu_check.sh's: it stops after the step, then checks dev and exports
    as at ``max_steps``). Every process agrees: under DDP any one's clock past the deadline
    stops them all, so none waits for a step the others never take."""
    if deadline is None:
        return False
    late = time.monotonic() >= deadline
    if run.accelerator.num_processes == 1:
        return late
    flag = torch.tensor([float(late)], device=run.accelerator.device)
    return bool(run.accelerator.reduce(flag, reduction="sum").item() > 0)


def _train_epoch(
    run: _Run,
    state: TrainerState,
    bar,
    on_step: StepCallback | None,
    deadline: float | None = None,
) -> None:
    """Run (the rest of) one epoch; stops early when ``total_steps`` is reached or the
    ``deadline`` (``time.monotonic()``, from ``trainer.max_seconds``) has passed."""
    model, accelerator = run.model, run.accelerator
    model.train()
    _freeze_encoder(run, state.epoch < run.settings.frozen_epochs)
    run.sampler.set_epoch(state.epoch)
    if hasattr(run.loader, "set_epoch"):  # accelerate re-sets the sampler's epoch from this
        run.loader.set_epoch(state.epoch)
    loader = run.loader
    if state.batches_in_epoch:
        loader = accelerator.skip_first_batches(loader, state.batches_in_epoch)
    running: list[float] = []
    for batch in loader:
        with accelerator.accumulate(model):
            loss, logs = _loss(run, batch)
            accelerator.backward(loss)
            if accelerator.sync_gradients:
                _before_step(run, state)
            run.optimizer.step()
            if accelerator.sync_gradients:
                run.scheduler.step()
            run.optimizer.zero_grad(set_to_none=True)
        state.batches_in_epoch += 1
        running.append(float(loss.detach()))
        if not accelerator.sync_gradients:
            continue
        state.global_step += 1
        logs = {
            **logs,
            "train/loss": _mean_over_processes(accelerator, running),
            "epoch": state.epoch,
        }
        running.clear()
        _after_step(run, state, logs, bar, on_step)
        if state.global_step >= run.total_steps or _out_of_time(run, deadline):
            return


def _mean_over_processes(accelerator: Accelerator, losses: list[float]) -> float:
    """The step's training loss averaged over every process's rows.

    Why: under DDP each process sees only its share of the batch; logging the main process's
    share alone would make a 2-process run's curve differ from a 1-process run's with the
    same effective batch, though the gradients (averaged by DDP) are the same.
    """
    local = sum(losses) / len(losses)
    if accelerator.num_processes == 1:
        return local
    tensor = torch.tensor([local], device=accelerator.device)
    return float(accelerator.reduce(tensor, reduction="mean").item())


def _loss(run: _Run, batch: dict[str, torch.Tensor]) -> tuple[torch.Tensor, dict[str, float]]:
    config = run.accelerator.unwrap_model(run.model).config
    return batch_loss(
        run.model,
        batch,
        config.loss_weights,
        one_forward=run.accelerator.num_processes > 1,
    )


def _freeze_encoder(run: _Run, frozen: bool) -> None:
    """Frozen-encoder epochs train the mix and head only: the encoder gets no gradient at all,
    so backward stops at the layer mix instead of running through the encoder for nothing
    (a ``freeze_encoder`` model's encoder is never trained, but for its
    ``trainable_top_layers``)."""
    model = run.accelerator.unwrap_model(run.model)
    for name, param in model.encoder.named_parameters():
        param.requires_grad_(not frozen and model.trains_encoder_parameter(name))


def _before_step(run: _Run, state: TrainerState) -> None:
    """Clip the global gradient norm."""
    if run.settings.grad_clip:
        run.accelerator.clip_grad_norm_(run.model.parameters(), run.settings.grad_clip)


def _after_step(run: _Run, state: TrainerState, logs: dict, bar, on_step) -> None:
    bar.update(1)
    if state.global_step % max(run.settings.log_every_steps, 1) == 0:
        logs["lr/head"] = run.scheduler.get_last_lr()[-1]
        run.logger.log(logs, step=state.global_step)
        bar.set_postfix(loss=f"{logs['train/loss']:.4f}")
    every = run.settings.save_every_steps
    if every and state.global_step % every == 0:
        save_training_state(run.accelerator, run.output_dir / "last", state, run.fingerprint)
    if on_step is not None:
        on_step(state.global_step, logs)


def _end_epoch(run: _Run, state: TrainerState) -> bool:
    """Dev evaluation, best-checkpoint export and early stopping; returns True to stop."""
    accelerator = run.accelerator
    metrics: dict[str, float] = {}
    if accelerator.is_main_process:
        metrics = _evaluate(run) if run.dev_samples else {}
        if metrics and run.settings.monitor not in metrics:
            raise TrainingConfigError(
                f"trainer.monitor={run.settings.monitor!r} is not among the dev metrics "
                f"({', '.join(sorted(metrics))}); pick one of those"
            )
        value = metrics.get(run.settings.monitor)
        improved = (
            not metrics or state.best_epoch is None or state.improved(value, run.settings.best_is)
        )
        if improved:
            state.best_metric, state.best_epoch, state.bad_epochs = value, state.epoch, 0
            export_checkpoint(
                accelerator.unwrap_model(run.model),
                run.tokenizer,
                run.output_dir / "best",
                metrics=metrics,
                train_config=run.cfg,
                dataset=_dev_name(run.cfg),
            )
        else:
            state.bad_epochs += 1
        state.history.append({"epoch": state.epoch, "step": state.global_step, **metrics})
        run.logger.log({f"dev/{k}": v for k, v in metrics.items()}, step=state.global_step)
        accelerator.print(f"epoch {state.epoch} dev: " + _fmt(metrics))
    state.epoch += 1
    state.batches_in_epoch = 0
    stop = bool(run.settings.patience) and state.bad_epochs >= int(run.settings.patience)
    stop = bool(_broadcast_flag(accelerator, stop))
    save_training_state(accelerator, run.output_dir / "last", state, run.fingerprint)
    return stop


def _dev_name(cfg: DictConfig) -> str:
    return f"{cfg.data.get('name', cfg.data.dir)} ({cfg.data.get('dev_split', 'dev')} split)"


def _evaluate(run: _Run) -> dict[str, float]:
    model = run.accelerator.unwrap_model(run.model)
    predictions = predict(
        model,
        run.dev_samples,
        run.collator.encoder.tokenizer,
        run.settings.eval_batch_size,
        progress=run.settings.progress,
    )
    return dev_metrics(predictions, run.dev_samples)


def _broadcast_flag(accelerator: Accelerator, flag: bool) -> bool:
    """The main process's decision, shared with every process (DDP stays in step)."""
    if accelerator.num_processes == 1:
        return flag
    from accelerate.utils import broadcast

    tensor = torch.tensor([int(flag)], device=accelerator.device)
    return bool(broadcast(tensor, from_process=0).item())


def _fmt(metrics: dict[str, float]) -> str:
    return " ".join(f"{k}={v:.4f}" for k, v in metrics.items()) or "(no dev set)"


def _finish(run: _Run, state: TrainerState) -> dict[str, float]:
    best = next((h for h in state.history if h["epoch"] == state.best_epoch), {})
    result: dict[str, Any] = {f"best/{k}": v for k, v in best.items() if k not in ("epoch", "step")}
    result.update(
        best_epoch=state.best_epoch,
        global_step=state.global_step,
        epochs_run=state.epoch,
        best_checkpoint=str(run.output_dir / "best"),
    )
    if run.accelerator.is_main_process:
        run.output_dir.mkdir(parents=True, exist_ok=True)
        (run.output_dir / "metrics.json").write_text(json.dumps(result, indent=2), "utf-8")
    return result
