"""``python -m unice.ice_score``: judge a JSONL file of programs with an LLM (ICE-Score).

Exit status: 0 all records scored or unparsed-but-recorded; 1 some requests failed (the output
is written, with those records ``missing``); 2 a user error or a fatal backend error (dead
server, bad key, unknown model) - the output is still written with what was finished.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from data_builders.errors import UserError
from data_builders.jsonl import read_jsonl, write_jsonl
from unice.ice_score.config import (
    ASPECTS,
    BACKENDS,
    PARSERS,
    IceScoreConfig,
    resolve_cache_dir,
)
from unice.ice_score.errors import BackendError, IceScoreError
from unice.ice_score.runner import IceScoreRun, score_records

_DEFAULTS = IceScoreConfig.__dataclass_fields__


def _default(name: str) -> Any:
    return _DEFAULTS[name].default


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m unice.ice_score",
        description="ICE-Score: grade programs 0-4 with an LLM judge (OpenAI-compatible server "
        "or local transformers model). Writes the input records plus ice_score, "
        "ice_score_reply, ice_score_parser and ice_score_status.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add = parser.add_argument
    add("--backend", choices=BACKENDS, default=_default("backend"))
    add("--base-url", help="server root, e.g. http://localhost:8000/v1 (openai backend)")
    add("--model", required=True, help="served model name, or local model folder")
    add("--aspect", choices=ASPECTS, default=_default("aspect"))
    add("--with-reference", action="store_true", help="Ref-ICE-Score: show the reference code")
    add("--cot", action="store_true", help="zero-shot chain of thought (step-by-step evaluation)")
    add(
        "--parser",
        choices=PARSERS,
        default=_default("parser"),
        help="robust (default) or paper (Appendix D listing, reproduced exactly)",
    )
    add("--template", default=_default("template"), help="built-in name or YAML/JSON template file")
    add("--message-role", choices=("user", "system"), default=_default("message_role"))
    add("--input", required=True, help="JSONL with nl, generated (or completion), [reference]")
    add("--output", required=True, help="JSONL to write")
    add(
        "--cache",
        dest="cache_dir",
        default=_default("cache_dir"),
        metavar="DIR",
        help="reply cache folder; a rerun asks only for what is missing ('auto': "
        "$UNICE_CACHE_DIR/ice_score or ~/.cache/unice/ice_score)",
    )
    add(
        "--no-cache",
        dest="cache_dir",
        action="store_const",
        const=None,
        help="neither read nor write the reply cache (every rerun asks every prompt again)",
    )
    add(
        "--concurrency",
        type=int,
        default=_default("concurrency"),
        help="requests in flight (openai) / batch size (transformers)",
    )
    add("--timeout", type=float, default=_default("timeout"), help="seconds per request")
    add("--max-retries", type=int, default=_default("max_retries"))
    add("--backoff", type=float, default=_default("backoff"), help="first retry delay, seconds")
    add("--max-backoff", type=float, default=_default("max_backoff"), help="longest retry wait")
    add("--api-key-env", default=_default("api_key_env"), help="env var holding the API key")
    add("--max-tokens", type=int, default=None, help="reply length (default 32, 512 with --cot)")
    add("--device", default=_default("device"), help="transformers device: auto, cpu, cuda...")
    add("--dtype", default=_default("dtype"), help="transformers dtype: auto, float32, bfloat16...")
    add("--plot", help="also save a bar chart of the score distribution to this .png/.pdf")
    add("--no-progress", dest="progress", action="store_false")
    return parser


def _config(args: argparse.Namespace) -> IceScoreConfig:
    names = set(_DEFAULTS)
    return IceScoreConfig(**{k: v for k, v in vars(args).items() if k in names})


def _write(path: str, records: list[dict], run: IceScoreRun) -> None:
    try:
        write_jsonl(path, run.annotate(records))
    except OSError as exc:
        raise UserError(f"cannot write {path} ({exc.strerror}); pass another --output") from None
    print(f"wrote {path}: {run.stats.summary()}", file=sys.stderr)


def _rerun_hint(args: argparse.Namespace) -> str:
    folder = resolve_cache_dir(args.cache_dir)
    if folder is None:
        return "--no-cache was given, so a rerun asks every prompt again"
    return f"finished replies are cached in {folder}: rerun the same command to ask only the rest"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        config = _config(args)
        records = read_jsonl(args.input, what="record")
        if not records:
            raise UserError(f"{args.input}: no records to score")
        try:
            run = score_records(records, config)
        except BackendError as exc:
            if exc.run is not None:
                _write(args.output, records, exc.run)
            raise
        _write(args.output, records, run)
        if args.plot:
            from unice.ice_score.plot import plot_score_distribution

            print(f"plot: {plot_score_distribution(run, records, args.plot)}", file=sys.stderr)
    except (UserError, IceScoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"interrupted: {_rerun_hint(args)}", file=sys.stderr)
        return 130
    if run.stats.missing:
        print(
            f"warning: {run.stats.missing} of {run.stats.records} records missing (see "
            f"ice_score_error in the output); {_rerun_hint(args)}",
            file=sys.stderr,
        )
        return 1
    return 0
