"""``python -m data_builders fetch``: pinned inputs (size/sha256 checks, --raw, the offline
error), resumable targets, and the conversion rules of the generation files, on tiny raw trees
written by tests/datasets/fetch_fixtures.py (no network, no ../shared)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.errors import UserError
from data_builders.fetch.download import obtain
from data_builders.fetch.programs import (
    header_names,
    needs_harness,
    normalise,
    strip_fences,
    strip_stray_thon,
)
from data_builders.fetch.runner import Fetcher
from data_builders.fetch.sources import map_id
from tests.datasets.fetch_fixtures import LDB_HEADER, RawTree, ldb, mbpp_problem, multipl_e

REPO = Path(__file__).resolve().parents[2]
SHELF = REPO.parent / "shared" / "data"

MC, LDB, AC = "acme/mapcoder", "acme/ldb", "acme/agentcoder"


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def mbpp_tree(tmp_path: Path) -> tuple[RawTree, dict]:
    """Three sanitized problems and three sources that exercise every MBPP rule once."""
    tree = RawTree(tmp_path)
    problems = tree.jsonl(
        "acme/codet",
        "mbpp.jsonl",
        [
            mbpp_problem(2, "first", "xs", ["first([1, 2]) == 1"]),
            mbpp_problem(3, "add", "a, b", ["add(1, 2) == 3"]),
            mbpp_problem(4, "ren", "x", ["ren(1.5) == 1"]),
        ],
    )
    cross = "def first(xs):\n    return xs[-1]\n"
    mapcoder = tree.jsonl(
        MC,
        "MBPP/run.jsonl",
        [
            multipl_e(
                2,
                "first",
                "xs: List[int]",
                [
                    "```python\ndef first(xs: List[int]) -> int:\n    return xs[0]\n```",
                    "def first(xs):\n    return xs[0]\n",
                    cross,
                ],
            ),
            multipl_e(3, "add", "a: int, b: int", [cross, "def add(a, b):\n    return a + b\n"]),
            multipl_e(999, "gone", "x", ["def gone(x):\n    return x\n"]),
            multipl_e(
                4, "orig", "x", ["def orig(x):\n    return 1\n"]
            ),  # MultiPL-E's name, not sanitized's
        ],
    )
    ldb_file = tree.jsonl(
        LDB,
        "results.jsonl",
        [
            ldb(
                2, "first", "xs", "first([1])", LDB_HEADER + "def first(xs):\n  return   xs[0]"
            ),  # a duplicate
            ldb(
                3, "add", "a, b, n", "add(1, 2, 3)", "def add(a, b, n):\n    return a + b\n"
            ),  # 3 args vs 2
            ldb(
                4, "ren", "x", "ren(1.5)", "def ren(x):\n    return math.floor(x)\n"
            ),  # needs the header
        ],
    )
    agentcoder = tree.add(
        AC,
        "zero_shot.json",
        json.dumps(
            [
                {
                    "task_id": 3,
                    "completion": "thon\ndef add(a, b):\n    return b + a\n",
                    "test_list": ["assert add(1, 2) == 3"],
                    "code": "def add(a, b):\n    return a + b",
                }
            ]
        ),
    )
    utils = tree.add(LDB, "programming/utils.py", f"IMPORT_HEADER = {LDB_HEADER!r}\n")
    target = {
        "kind": "generations",
        "output": "mbpp_generations.jsonl",
        "problems": problems,
        "sources": [
            {**mapcoder, "generator": "gpt/a", "family": "mapcoder", "harness": "typing"},
            {**ldb_file, "generator": "m/ldb", "family": "ldb", "harness": "ldb", "strip": "ldb"},
            {**agentcoder, "generator": "g/agent", "family": "agentcoder", "harness": "typing"},
        ],
    }
    return tree, {"targets": {"mbpp-generations": target}, "headers": {"ldb": utils}}


def fetcher_for(tmp_path: Path, tree: RawTree, config: dict, **kwargs) -> Fetcher:
    manifest, targets = tree.write(config["targets"], config.get("headers"))
    return Fetcher(
        out=tmp_path / "out", raw=tree.raw, manifest_path=manifest, targets_path=targets, **kwargs
    )


def test_mbpp_generation_rules(tmp_path: Path) -> None:
    tree, config = mbpp_tree(tmp_path)
    fetcher = fetcher_for(tmp_path, tree, config)
    summary = fetcher.run("mbpp-generations")
    got = rows(tmp_path / "out" / "mbpp_generations.jsonl")
    typing_prefix = "from typing import *\n"
    assert [
        (r["task_id"], r["sample_id"], r["generator"], r["completion"], r.get("harness_prefix"))
        for r in got
    ] == [
        (
            "MbppEval/2",
            0,
            "gpt/a",
            typing_prefix + "def first(xs: List[int]) -> int:\n    return xs[0]",
            typing_prefix,
        ),
        ("MbppEval/2", 1, "gpt/a", "def first(xs):\n    return xs[0]\n", None),
        (
            "MbppEval/2",
            2,
            "gpt/a",
            "def first(xs):\n    return xs[-1]\n",
            None,
        ),  # its own task's function
        ("MbppEval/3", 0, "gpt/a", "def add(a, b):\n    return a + b\n", None),
        (
            "MbppEval/4",
            0,
            "m/ldb",
            LDB_HEADER + "def ren(x):\n    return math.floor(x)\n",
            LDB_HEADER,
        ),
        ("MbppEval/3", 1, "g/agent", "def add(a, b):\n    return b + a\n", None),  # "thon" removed
    ]
    assert got[0]["source"] == f"{MC}@c0ffee0:MBPP/run.jsonl"
    for part in (
        "cross-problem 1",
        "duplicate 1",
        "record: argument count 1",
        "record: entry point 1",
    ):
        assert part in summary
    assert "record: not in the problem set 1" in summary


def test_humaneval_entry_point_and_empty_drops(tmp_path: Path) -> None:
    tree = RawTree(tmp_path)
    problem = {
        "task_id": "HumanEval/0",
        "prompt": 'from typing import List\n\ndef f(xs: List[int]) -> int:\n    """doc"""\n',
        "entry_point": "f",
        "test": "def check(candidate):\n    assert candidate([1]) == 1\n",
    }
    problems = tree.jsonl("acme/codet", "he.jsonl", [problem])
    source = tree.jsonl(
        MC,
        "he.jsonl",
        [
            {
                "task_id": "HumanEval/0",
                "name": "HumanEval_0_f",
                "entry_point": "f",
                "source_codes": ["", "def f(xs: List[int]) -> int:\n    return xs[0]\n"],
            },
            {
                "name": "HumanEval_0_g",
                "entry_point": "g",
                "source_codes": ["def g(xs):\n    return 0\n"],
            },
        ],
    )
    target = {
        "kind": "generations",
        "output": "he.jsonl",
        "problems": problems,
        "sources": [{**source, "generator": "gpt/a", "family": "mapcoder", "harness": "typing"}],
    }
    fetcher = fetcher_for(tmp_path, tree, {"targets": {"he": target}})
    summary = fetcher.run("he")
    got = rows(tmp_path / "out" / "he.jsonl")
    # List is bound by the prompt's own import: no harness prefix
    assert [(r["task_id"], r["completion"], "harness_prefix" in r) for r in got] == [
        ("HumanEval/0", "def f(xs: List[int]) -> int:\n    return xs[0]\n", False)
    ]
    assert "empty 1" in summary and "record: entry point 1" in summary


def test_cleaning_and_id_rules() -> None:
    assert strip_fences("```python\nx = 1\n```\n") == "x = 1\n"
    assert strip_fences("```\ny = 2\n  ```") == "y = 2"
    assert strip_stray_thon("thon\ndef f():\n    pass\n") == "def f():\n    pass\n"
    assert strip_stray_thon("python = 1\n") == "python = 1\n"
    assert normalise(" def f():\n\n    return  1 ") == "def f(): return 1"
    assert map_id("mbpp_602_first_repeated_char") == "MbppEval/602"
    assert map_id("MBPP/11") == "MbppEval/11"
    assert map_id("HumanEval_23_strlen") == "HumanEval/23"
    assert map_id("HumanEval/0") == "HumanEval/0"
    assert map_id(7) == "MbppEval/7"
    assert map_id("apps_1") is None


def test_harness_prefix_rule() -> None:
    typing_names = header_names("from typing import *\n")
    context = "def f(xs):\n    pass\ndef check(candidate):\n    assert f([1]) == 1\n"
    uses_list = "def f(xs: List[int]) -> int:\n    return xs[0]\n"
    also_deque = "def f(xs: List[int]) -> int:\n    return deque(xs)[0]\n"
    assert needs_harness(uses_list, context, "", typing_names)
    # a name the harness does not define too: the harness alone would not make it run
    assert not needs_harness(also_deque, context, "", typing_names)
    assert needs_harness(also_deque, context, "", typing_names, rule="any")
    assert not needs_harness("def f(xs):\n    return xs[0]\n", context, "", typing_names)
    # a body-only program is read after its prompt
    assert needs_harness("    return Optional\n", context, "def f(xs):\n", typing_names)
    assert {"math", "_str", "List"} <= header_names(LDB_HEADER)


def test_resume_skips_finished_and_rebuilds_changed(tmp_path: Path) -> None:
    tree, config = mbpp_tree(tmp_path)
    fetcher = fetcher_for(tmp_path, tree, config)
    assert "rows" in fetcher.run("mbpp-generations")
    assert fetcher.run("mbpp-generations") == "mbpp-generations: up to date, skipped"
    (tmp_path / "out" / "mbpp_generations.jsonl").unlink()  # an output gone: rebuilt
    assert "rows" in fetcher.run("mbpp-generations")
    config["targets"]["mbpp-generations"]["sources"].pop()  # a changed definition: rebuilt
    again = fetcher_for(tmp_path, tree, config)
    assert "rows" in again.run("mbpp-generations")
    assert not list((tmp_path / "out").glob("*.tmp"))


def test_copy_target_and_checksum_errors(tmp_path: Path) -> None:
    tree = RawTree(tmp_path)
    ref = tree.add("acme/grades", "data/grades.json", '[{"grade": 4}]')
    fetcher = fetcher_for(
        tmp_path, tree, {"targets": {"grades": {"kind": "copy", "files": {"g/grades.json": ref}}}}
    )
    fetcher.run("grades")
    assert (tmp_path / "out" / "g" / "grades.json").read_text() == '[{"grade": 4}]'
    raw_file = tree.raw / "acme+grades" / ("c0ffee" + "0" * 34) / "data" / "grades.json"
    raw_file.write_text('[{"grade": 0}]')  # same size, other bytes
    with pytest.raises(UserError, match=r"grades\.json: sha256 .* differs"):
        fetcher.run("grades", force=True)
    raw_file.write_text("[]")
    with pytest.raises(UserError, match=r"grades\.json: 2 bytes, the manifest pins 14"):
        fetcher.run("grades", force=True)
    raw_file.unlink()
    with pytest.raises(UserError, match="missing from --raw"):
        fetcher.run("grades", force=True)


def test_offline_error_names_raw(tmp_path: Path) -> None:
    tree = RawTree(tmp_path)
    tree.add("acme/grades", "grades.json", "[]")
    manifest, _ = tree.write({})
    from data_builders.fetch.manifest import load_manifest

    entry = load_manifest(manifest)[("acme/grades", "grades.json")]
    with pytest.raises(UserError, match=r"cannot download http://127\.0\.0\.1:9/.*pass --raw DIR"):
        obtain(entry, None, tmp_path / "cache", timeout=2.0)
    assert not list((tmp_path / "cache").rglob("*.part"))


def test_download_into_the_cache(tmp_path: Path) -> None:
    """Without --raw the files are downloaded (here from a local server), checked and reused."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    served = tmp_path / "served"
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(served))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        tree = RawTree(tmp_path, base_url=f"http://127.0.0.1:{server.server_address[1]}")
        tree.raw = served  # the "remote" repository files
        ref = tree.add("acme/grades", "grades.json", '[{"grade": 4}]')
        manifest, targets = tree.write({"g": {"kind": "copy", "files": {"g.json": ref}}})
        fetcher = Fetcher(out=tmp_path / "out", manifest_path=manifest, targets_path=targets)
        fetcher.run("g")
        assert (tmp_path / "out" / "g.json").read_text() == '[{"grade": 4}]'
        cached = next((tmp_path / "out" / ".fetch" / "raw").rglob("grades.json"))
        cached.write_text('[{"grade": 0}]')  # a corrupt cache copy: an error, and it is removed
        with pytest.raises(UserError, match="sha256"):
            fetcher.run("g", force=True)
        assert not cached.exists()
        fetcher.run("g", force=True)  # downloaded again
    finally:
        server.shutdown()


def test_codet_samples_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = RawTree(tmp_path)
    problems = tree.jsonl(
        "acme/codet", "he.jsonl", [{"task_id": "HumanEval/7", "prompt": "def f():\n"}]
    )
    samples = tree.jsonl(
        "acme/codet",
        "samples.jsonl",
        [{"prompt": "def f():\n", "samples": ["    return 1\n", "    return 2\n"]}],
    )
    target = {
        "kind": "codet_samples",
        "output": "s.jsonl",
        "samples": samples,
        "problems": problems,
        "generator": "cg",
    }
    manifest, targets = tree.write({"codet": target})
    fetcher = Fetcher(
        out=tmp_path / "out", raw=tree.raw, manifest_path=manifest, targets_path=targets
    )
    fetcher.run("codet")
    assert rows(tmp_path / "out" / "s.jsonl") == [
        {
            "task_id": "HumanEval/7",
            "sample_id": 0,
            "completion": "    return 1\n",
            "generator": "cg",
        },
        {
            "task_id": "HumanEval/7",
            "sample_id": 1,
            "completion": "    return 2\n",
            "generator": "cg",
        },
    ]
    # the command line: a missing --raw folder is a one-line error, exit 2
    assert main(["fetch", "--out", str(tmp_path / "o"), "--raw", str(tmp_path / "nope")]) == 2
    assert "--raw" in capsys.readouterr().err
    assert (
        main(["fetch", "--out", str(tmp_path / "o"), "--raw", str(tree.raw), "--only", "nothing"])
        == 2
    )
    assert "unknown target" in capsys.readouterr().err


@pytest.mark.skipif(
    not (SHELF / "raw" / "MANIFEST.tsv").is_file(), reason="needs the data shelf (../shared/data)"
)
def test_shelf_sanitized_mbpp_and_conala_equal(tmp_path: Path) -> None:
    fetcher = Fetcher(out=tmp_path, raw=SHELF / "raw")
    for name in ("mbpp-sanitized", "conala"):
        fetcher.run(name)
        for output in fetcher.outputs(fetcher.config["targets"][name]):
            assert (tmp_path / output).read_bytes() == (SHELF / output).read_bytes(), output


def test_open_generations_rules(tmp_path: Path) -> None:
    """MGDebugger (checked by entry_point, its harness header), ILF (one generator per field) and
    duplicates dropped against an earlier target's rows first."""
    tree, config = mbpp_tree(tmp_path)
    utils = tree.add(
        "acme/mgd",
        "utils.py",
        'helpers = [\n    "import math",\n    "import numpy",\n    "from typing import *",\n]\n'
        'STARTING_CODE = "\\n".join(helpers)\n',
    )
    seeds = tree.jsonl(
        "acme/mgd",
        "seed.jsonl",
        [
            # LDB's copy kept this record (its asserts call add); by entry_point it is dropped
            ldb(3, "helper", "a, b", "add(1, 2)", "def add(a, b):\n    return a - b\n", "helper"),
            ldb(
                4,
                "ren",
                "x",
                "ren(1.5)",
                "def ren(x: Optional[float]):\n    return math.floor(x)\n",
            ),
            ldb(
                2, "first", "xs", "first([1])", "def first(xs):\n    return xs[0]\n"
            ),  # in mbpp-generations
        ],
    )
    ilf = tree.jsonl(
        "acme/ilf",
        "surge.jsonl",
        [
            {
                "task_id": 3,
                "original_model_completion": '"""\nAdd.\n"""\n\ndef add(a, b, c):\n    return a\n',
                "unedited_annotator_completion": '"""\nAdd.\n"""\n\ndef add(a, b):\n    return a + b + 0\n',
            }
        ],
    )
    config["headers"]["mgdebugger"] = utils
    config["targets"]["open"] = {
        "kind": "generations",
        "output": "open.jsonl",
        "problems": config["targets"]["mbpp-generations"]["problems"],
        "after": ["mbpp-generations"],
        "sources": [
            {**seeds, "generator": "s/mgd", "family": "mgdebugger", "harness": "mgdebugger"},
            {**ilf, "generator": "c/orig", "family": "ilf", "field": "original_model_completion"},
            {
                **ilf,
                "generator": "h/ref",
                "family": "ilf",
                "field": "unedited_annotator_completion",
            },
        ],
    }
    fetcher = fetcher_for(tmp_path, tree, config)
    summary = fetcher.run("open")  # builds mbpp-generations first, in memory
    header = "import math\nfrom typing import *\n"  # STARTING_CODE without numpy
    got = rows(tmp_path / "out" / "open.jsonl")
    assert [(r["task_id"], r["generator"], r.get("harness_prefix")) for r in got] == [
        ("MbppEval/4", "s/mgd", header),  # math and Optional: both bound by the header
        ("MbppEval/3", "h/ref", None),  # ILF's original takes 3 arguments where the asserts pass 2
    ]
    assert (
        got[0]["completion"] == header + "def ren(x: Optional[float]):\n    return math.floor(x)\n"
    )
    assert "record: entry point 1" in summary and "record: argument count 1" in summary
    assert "duplicate 1" in summary
