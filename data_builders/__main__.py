"""``python -m data_builders``: the dataset command line.

Each subcommand lives in its own module exposing ``register(subparsers)``, which adds an
``argparse`` parser whose ``func`` default takes the parsed arguments and returns an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from data_builders.errors import UserError

# Modules that each register one subcommand.
SUBCOMMAND_MODULES = (
    "data_builders.label",
    "data_builders.build",
    "data_builders.merge",
    "data_builders.sample",
    "data_builders.coverage",
    "data_builders.fetch",
)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser: every subcommand, or only ``command``'s where it names one
    (each module is named after its subcommand).

    ``main`` registers only the subcommand it runs: importing the other four modules (and what
    they import) is ~60 ms of every run, a tenth of a short ``label`` job's fixed cost."""
    parser = argparse.ArgumentParser(
        prog="python -m data_builders",
        description="Build and label code-evaluation datasets by executing programs in a sandbox.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    named = [m for m in SUBCOMMAND_MODULES if m.rsplit(".", 1)[1] == command]
    for module_name in named or SUBCOMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: rerun the same command to continue where it stopped", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
