"""Evaluate a CodeScore checkpoint and the baselines against execution labels.

    python evaluate.py ckpt_path=runs/demo/best data=data/he-eval split=test
    python evaluate.py data=data/he-eval baselines=fast scores=[ice.jsonl]
    python evaluate.py ckpt_path=DIR data=data/he-multi label=passed generators=SAMPLES.jsonl

``ckpt_path`` is the ``<output_dir>/best`` folder that ``train.py`` exports (e.g.
``runs/demo/best`` for ``make demo``). ``generators=`` (the samples file the split was built
from) adds the system-level section: each generator's mean score vs its pass rate, correlated
across generators. Configuration: configs/evaluate.yaml; logic:
:func:`unice.evaluation.evaluate`.
"""

from __future__ import annotations

import sys

import hydra
from omegaconf import DictConfig

from data_builders.errors import UserError
from unice.evaluation import EvaluationError, evaluate
from unice.evaluation.cli import normalize_overrides


@hydra.main(config_path="configs", config_name="evaluate", version_base="1.3")
def main(cfg: DictConfig) -> None:
    try:
        evaluate(cfg)
    except (EvaluationError, UserError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    sys.argv[1:] = normalize_overrides(sys.argv[1:])  # data=PATH (configs/data/ is train's group)
    main()
