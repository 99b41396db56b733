"""``python -m data_builders fetch --out DIR [--raw RAW] [--only NAME ...]``: rebuild the data
shelf's files (real generations, sanitized MBPP, the APPS subset, HumanEval-X, CoNaLa grades)
from their public sources at pinned commits.

Every input is a file of ``configs/fetch/manifest.tsv`` (repository, commit, path, size,
sha256, licence, URL). It is read from ``--raw`` (laid out as ``<owner>+<repo>/<commit>/<path>``)
or downloaded, checked against its size and sha256, and converted by the rules of
``configs/fetch/targets.yaml`` and this package (docs/fetch.md). Finished targets are skipped on a
rerun; ``--force`` rebuilds them.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``fetch`` subcommand to the ``python -m data_builders`` parser."""
    parser = subparsers.add_parser(
        "fetch",
        help="rebuild the data shelf's files from their public sources (pinned, checked)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--out", required=True, type=Path, help="folder to write (e.g. data/shelf)")
    parser.add_argument(
        "--raw",
        type=Path,
        default=None,
        help="read the source files from this folder (<owner>+<repo>/<commit>/<path>) instead of downloading",
    )
    parser.add_argument(
        "--only", nargs="+", default=None, metavar="NAME", help="build only these targets"
    )
    parser.add_argument("--force", action="store_true", help="rebuild finished targets too")
    parser.add_argument(
        "--timeout", type=float, default=20.0, help="seconds per download before giving up"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        help="programs the APPS check runs at once (default: CPUs)",
    )
    parser.add_argument(
        "--list", action="store_true", help="list the targets and their outputs, then exit"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from data_builders.fetch.runner import Fetcher, run_all

    fetcher = Fetcher(out=args.out, raw=args.raw, timeout=args.timeout, workers=args.workers)
    if args.list:
        for name, spec in fetcher.config["targets"].items():
            print(f"{name:24s} {' '.join(fetcher.outputs(spec))}")
        return 0
    if args.force:
        for name in args.only or list(fetcher.config["targets"]):
            print(fetcher.run(name, force=True))
        return 0
    run_all(fetcher, args.only)
    return 0
