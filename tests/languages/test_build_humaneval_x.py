"""``build humaneval-x --language L`` on small HumanEval-X-shaped tasks written here.

HE-Eval's extended suites are replaced by a few hand-written cases (``python_suites`` is
monkeypatched), so each build compiles a handful of programs: one case the canonical solution
fails (dropped), one that does not translate (an int beyond 32 bits, or 2**53 in JavaScript),
the rest kept. Each language's tests skip, with the reason, where its toolchain is missing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from data_builders.__main__ import main
from data_builders.dataset import humaneval_x
from data_builders.execution.compiled.languages import Language, get_language
from data_builders.test_translation.suites import with_extended

from .conftest import need

# HumanEval task 0 is `add`, task 1 `rev`, in the fixtures' own numbering.
ENTRIES = {0: "add", 1: "rev"}
CASES = {
    0: [((1, 2), 3), ((5, 7), 12), ((2, 2), 5), ((2**60, 1), 2**60 + 1)],  # 5: wrong; 2**60: no
    1: [(("ab",), "ba"), (("",), "")],
}

TASKS = {
    "cpp": [
        {
            "task_id": "CPP/0",
            "prompt": "/*\nAdd two numbers.\n*/\n#include<stdio.h>\nusing namespace std;\n"
            "int add(int x,int y){\n",
            "declaration": "#include<stdio.h>\nusing namespace std;\nint add(int x,int y){\n",
            "canonical_solution": "    return x+y;\n}\n",
            "test": "#undef NDEBUG\n#include<assert.h>\nint main(){\n"
            "    assert (add(1,1)==2);\n    assert (add(0,5)==5);\n}\n",
        },
        {
            "task_id": "CPP/1",
            "prompt": "/*\nReverse a string.\n*/\n#include<stdio.h>\n#include<string>\n"
            "using namespace std;\nstring rev(string s){\n",
            "declaration": "#include<stdio.h>\n#include<string>\nusing namespace std;\n"
            "string rev(string s){\n",
            "canonical_solution": "    return string(s.rbegin(), s.rend());\n}\n",
            "test": '#undef NDEBUG\n#include<assert.h>\nint main(){\n    assert (rev("abc")=="cba");\n}\n',
        },
    ],
    "js": [
        {
            "task_id": "JavaScript/0",
            "prompt": "/* Add two numbers. */\nconst add = (x, y) => {\n",
            "declaration": "\nconst add = (x, y) => {\n",
            "canonical_solution": "  return x + y;\n}\n",
            "test": "const testAdd = () => {\n  console.assert(add(1, 1) === 2)\n"
            "  console.assert(add(0, 5) === 5)\n}\n\ntestAdd()\n",
        },
        {
            "task_id": "JavaScript/1",
            "prompt": "/* Reverse a string. */\nconst rev = (s) => {\n",
            "declaration": "\nconst rev = (s) => {\n",
            "canonical_solution": "  return s.split('').reverse().join('');\n}\n",
            "test": "const testRev = () => {\n  console.assert(rev('abc') === 'cba')\n}\n\ntestRev()\n",
        },
    ],
    "java": [
        {
            "task_id": "Java/0",
            "prompt": "import java.util.*;\nimport java.lang.*;\n\nclass Solution {\n"
            "    /** Add two numbers. */\n    public int add(int x, int y) {\n",
            "declaration": "import java.util.*;\nimport java.lang.*;\n\nclass Solution {\n"
            "    public int add(int x, int y) {\n",
            "canonical_solution": "        return x + y;\n    }\n}",
            "test": "public class Main {\n    public static void main(String[] args) {\n"
            "        Solution s = new Solution();\n        List<Boolean> correct = Arrays.asList(\n"
            "                s.add(1, 1) == 2,\n                s.add(0, 5) == 5\n        );\n"
            "        if (correct.contains(false)) {\n            throw new AssertionError();\n"
            "        }\n    }\n}\n",
        },
        {
            "task_id": "Java/1",
            "prompt": "import java.util.*;\nimport java.lang.*;\n\nclass Solution {\n"
            "    /** Reverse a string. */\n    public String rev(String s) {\n",
            "declaration": "import java.util.*;\nimport java.lang.*;\n\nclass Solution {\n"
            "    public String rev(String s) {\n",
            "canonical_solution": "        return new StringBuilder(s).reverse().toString();\n"
            "    }\n}",
            "test": "public class Main {\n    public static void main(String[] args) {\n"
            "        Solution s = new Solution();\n        List<Boolean> correct = Arrays.asList(\n"
            '                s.rev("abc").equals("cba")\n        );\n'
            "        if (correct.contains(false)) {\n            throw new AssertionError();\n"
            "        }\n    }\n}\n",
        },
    ],
}

# Completions of task 0: correct, wrong on one kept extended case only, not compiling; task 1:
# correct.
COMPLETIONS = {
    "cpp": ["    return x+y;\n}\n", "    return x+y+(x>4?1:0);\n}\n", "    return x+;\n}\n"],
    "js": ["  return x + y;\n}\n", "  return x + y + (x > 4 ? 1 : 0);\n}\n", "  return x +;\n}\n"],
    "java": [
        "        return x + y;\n    }\n}",
        "        return x + y + (x > 4 ? 1 : 0);\n    }\n}",
        "        return x +;\n    }\n}",
    ],
}


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _fake_suites(numbers: Any, *args: Any, **kwargs: Any) -> tuple[dict, dict]:
    return {n: CASES[n] for n in numbers}, {n: ENTRIES[n] for n in numbers}


@pytest.fixture(autouse=True)
def small_suites(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(humaneval_x, "python_suites", _fake_suites)


def _inputs(tmp_path: Path, language: str) -> tuple[Path, Path]:
    tasks = TASKS[language]
    problems = _write(tmp_path / "problems.jsonl", tasks)
    samples = [{"task_id": tasks[0]["task_id"], "completion": c} for c in COMPLETIONS[language]]
    samples.append({"task_id": tasks[1]["task_id"], "completion": tasks[1]["canonical_solution"]})
    return problems, _write(tmp_path / "samples.jsonl", samples)


def _argv(language: str, problems: Path, samples: Path, out: Path, *extra: str) -> list[str]:
    return [
        "build", "humaneval-x", "--language", language, "--problems-file", str(problems),
        "--samples", str(samples), "--out", str(out), "--workers", "2", *extra,
    ]  # fmt: skip


def _rows(out: Path) -> dict[str, dict]:
    rows = {}
    for split in ("train", "dev", "test"):
        for line in (out / f"{split}.jsonl").read_text().splitlines():
            row = json.loads(line)
            rows[row["id"]] = row
    return rows


@pytest.mark.parametrize("language", ["cpp", "js", "java"])
def test_build_labels_and_drops(tmp_path: Path, language: str) -> None:
    need(language)
    problems, samples = _inputs(tmp_path, language)
    out = tmp_path / "out"
    assert main(_argv(language, problems, samples, out, "--split-ratios", "0,0,1")) == 0
    rows = _rows(out)
    first, second = (t["task_id"] for t in TASKS[language])
    right, wrong, broken = (rows[f"{first}::samples::{i}"] for i in range(3))
    # task 0: 2 own assertions + (1,2)->3 and (5,7)->12; (2,2)->5 dropped (canonical fails),
    # 2**60 dropped (untranslatable)
    assert right["n_tests"] == 4 and right["n_base_tests"] == 2
    assert (right["pass_ratio"], right["passed"], right["executable"]) == (1.0, True, True)
    assert right["status_counts"]["pass"] == 4
    assert (wrong["pass_ratio"], wrong["passed"], wrong["base_passed"]) == (0.75, False, True)
    assert wrong["executable"] and wrong["status_counts"]["wrong_answer"] == 1
    assert (broken["pass_ratio"], broken["executable"], broken["passed"]) == (0.0, False, False)
    assert broken["status_counts"]["compile_error"] == 4
    other = rows[f"{second}::samples::0"]
    assert (other["n_tests"], other["pass_ratio"]) == (3, 1.0)  # 1 own + 2 translated
    assert right["generated"] == COMPLETIONS[language][0]  # the prompt is in `nl`
    assert right["language"] == language
    # the rows count what was judged inside the program: none here, every call == constant
    # is judged on the host (Java's translated `if (!(...)) throw` statements too)
    in_program = {"cpp": 0, "js": 0, "java": 0}[language]
    assert right["cases_judged_in_program"] == broken["cases_judged_in_program"] == in_program
    stats = json.loads((out / "stats.json").read_text())
    info = stats["translation"]
    assert (info["extended_cases"], info["untranslatable"], info["kept"]) == (6, 1, 4)
    assert info["canonical_fails"] == {"wrong_answer": 1}
    assert stats["tests_per_task"][first] | {"split": "test"} == {
        "original": 2,
        "extended": 4,
        "generated_inputs": 4,
        "reference_passes_original": True,
        "split": "test",
    }
    card = (out / "README.md").read_text()
    assert f"build humaneval-x --language {language}" in card
    assert "untranslatable 1; the canonical solution fails 1 (1 wrong_answer); kept 4" in card


def test_resume_after_interruption_and_check(tmp_path: Path, monkeypatch, capsys) -> None:
    need("js")
    problems, samples = _inputs(tmp_path, "js")
    out, fresh = tmp_path / "out", tmp_path / "fresh"
    argv = _argv("js", problems, samples, out, "--chunk-size", "1")
    check = [*argv, "--check"]
    assert main(check) == 1  # absent
    real = humaneval_x.label_chunk
    calls = {"n": 0}

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(humaneval_x, "label_chunk", interrupted)
    assert main(argv) == 130
    stored = (out / ".progress" / "rows.jsonl").read_text().splitlines()
    assert len(stored) == 2 and main(check) == 1  # resumable
    monkeypatch.setattr(humaneval_x, "label_chunk", real)

    def no_canonical_rerun(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the tasks' tests are in the progress store")

    monkeypatch.setattr(humaneval_x, "prepare_tasks", no_canonical_rerun)
    assert main(argv) == 0
    assert main(check) == 0  # complete
    monkeypatch.undo()
    monkeypatch.setattr(humaneval_x, "python_suites", _fake_suites)
    assert main(_argv("js", problems, samples, fresh, "--chunk-size", "1")) == 0
    resumed, straight = _rows(out), _rows(fresh)  # the same rows but for measured CPU times
    for row in (*resumed.values(), *straight.values()):
        del row["exec_seconds"]
    assert resumed == straight and len(resumed) == 4
    other = _write(tmp_path / "other.jsonl", [{"task_id": "JavaScript/0", "completion": "}"}])
    assert main([*_argv("js", problems, other, out), "--check"]) == 2  # other settings
    assert "differs in: samples" in capsys.readouterr().out


@pytest.mark.parametrize("language", ["cpp", "java", "js", "go", "rust"])
def test_extended_assertions_follow_the_own_ones(language: str) -> None:
    """The driver splits the combined test into the task's own assertions, then the new ones."""
    own = {
        "cpp": TASKS["cpp"][0]["test"],
        "java": TASKS["java"][0]["test"],
        "js": TASKS["js"][0]["test"],
        "go": "func TestAdd(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal(2, Add(1, 1))\n}\n",
        "rust": "\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n"
        "    fn test_add() {\n        assert_eq!(add(1, 1), 2);\n    }\n}\n",
    }[language]
    new = {
        "cpp": ["assert ((add(1, 2) == 3));", "assert ((add(5, 7) == 12));"],
        "java": [
            "if (!(Objects.equals(s.add(1, 2), 3))) throw new AssertionError();",
            "if (!(Objects.equals(s.add(5, 7), 12))) throw new AssertionError();",
        ],
        "js": ["assert.deepStrictEqual(add(1, 2), 3);", "assert.deepStrictEqual(add(5, 7), 12);"],
        "go": ["assert.Equal(3, Add(1, 2))", "assert.Equal(12, Add(5, 7))"],
        "rust": ["assert_eq!(add(1, 2), 3);", "assert_eq!(add(5, 7), 12);"],
    }[language]
    split = get_language(language).split
    before = split(own)
    after = split(with_extended(language, own, new))
    assert after[: len(before)] == before
    assert len(after) == len(before) + 2 and "5, 7" in after[-1]


def test_what_humaneval_x_cannot_do_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    problems, samples = _inputs(tmp_path, "js")
    out = tmp_path / "out"
    for extra, words in (
        (["--mutants-of", "samples", "--mutants", "2"], "is for Python datasets"),
        (["--generate", "smollm2"], "--generate local[:GGUF] is the generator"),
    ):
        assert main([*_argv("js", problems, samples, out), *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err
    if get_language("cpp").missing_toolchain() is None:
        assert main(_argv("cpp", problems, samples, out)) == 2  # a JS file for --language cpp
        assert "no C++ task in the file" in capsys.readouterr().err
    monkeypatch.setattr(
        Language,
        "missing_toolchain",
        lambda self: f"{self.name}: node not found (apt install nodejs)",
    )
    assert main(_argv("js", problems, samples, out)) == 2
    err = capsys.readouterr().err
    assert err == "error: cannot build humaneval-x: js: node not found (apt install nodejs)\n"
    assert not out.exists()


def test_each_dataset_checks_its_own_options(tmp_path: Path, capsys) -> None:
    """build knows no dataset by name: each dataset's module refuses what it cannot take
    (issue 28), before anything is read or built."""
    problems, samples = _inputs(tmp_path, "js")
    out = tmp_path / "out"
    no_language = [a for a in _argv("js", problems, samples, out) if a not in ("--language", "js")]
    for argv, words in (
        (no_language, "build humaneval-x needs --language"),
        (
            ["build", "mbpp", "--language", "js", "--samples", str(samples), "--out", str(out)],
            "mbpp is Python and takes --source",
        ),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err
    assert not out.exists()


def test_offline_hub_names_problems_file(tmp_path: Path, monkeypatch, capsys) -> None:
    need("cpp")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    samples = _write(tmp_path / "s.jsonl", [{"task_id": "CPP/0", "completion": "}"}])
    argv = ["build", "humaneval-x", "--language", "cpp", "--samples", str(samples)]
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--problems-file" in err and "humaneval_cpp" in err


def test_shards_merge_into_the_whole_build(tmp_path: Path) -> None:
    need("js")
    problems, samples = _inputs(tmp_path, "js")
    whole = tmp_path / "whole"
    assert main(_argv("js", problems, samples, whole)) == 0
    shards = [tmp_path / f"shard{i}" for i in range(2)]
    for i, shard in enumerate(shards):
        extra = ("--num-shards", "2", "--shard-index", str(i))
        assert main(_argv("js", problems, samples, shard, *extra)) == 0
    assert main(["merge", *map(str, shards), "--out", str(tmp_path / "merged")]) == 0
    merged, straight = _rows(tmp_path / "merged"), _rows(whole)
    for row in (*merged.values(), *straight.values()):
        del row["exec_seconds"]
    assert merged == straight and len(merged) == 4
    stats = json.loads((tmp_path / "merged" / "stats.json").read_text())
    assert stats["translation"]["kept"] == 4 and stats["language"] == "js"


def test_a_second_canonical_run_on_the_kept_test_drops_what_it_fails() -> None:
    from collections import Counter

    from data_builders.execution.types import ProgramResult, TestOutcome

    def result(*statuses: tuple[str, float]) -> ProgramResult:
        return ProgramResult([TestOutcome(s, t) for s, t in statuses], "bwrap")

    own = "int main() {\n    assert (f(0) == 0);\n}\n"
    task = humaneval_x._Prepared(None, "src", own, 1, ["a1", "a2", "a3"], 3, Counter())
    first = result(("pass", 0.02), ("pass", 0.01), ("wrong_answer", 0.0), ("pass", 0.01))
    humaneval_x.narrow(task, first)
    assert task.assertions == ["a1", "a3"] and task.failed == Counter(wrong_answer=1)
    # run two, on the test the candidates would get: a3 now crashes, the own test is slower
    second = result(("pass", 0.05), ("pass", 0.01), ("signal", 0.0))
    merged = humaneval_x.with_originals_of(first, second, task.n_original)
    assert [(o.status, o.time) for o in merged.outcomes] == [
        ("pass", 0.05),
        ("pass", 0.01),
        ("signal", 0.0),
    ]
    # an own test failed once stays failed
    failed_once = result(("runtime_error", 0.0), ("pass", 0.01), ("pass", 0.0), ("pass", 0.0))
    assert humaneval_x.with_originals_of(failed_once, second, 1).outcomes[0].status == (
        "runtime_error"
    )
    problem = humaneval_x.Problem("CPP/0", "p", "", "p r", None, "t", {"language": "cpp"})
    record = humaneval_x._task_record(0, problem, task, merged, humaneval_x.LimitPolicy(), "cpp")
    assert record["translation"]["canonical_fails"] == {"wrong_answer": 1, "signal": 1}
    assert record["translation"]["kept"] == 1 and record["n_tests"] == 2


class ContinuingEngine:
    """Stands in for llama.cpp: continues a prompt with fixed text per task, as a model would
    (past the function, where the stop tokens cut it), and records each request."""

    name = "stub"

    def __init__(self, continuations: dict[str, str]) -> None:
        self.continuations, self.requests, self.closed = continuations, [], False

    def complete(self, prompt: str, params: dict[str, Any]) -> dict[str, Any]:
        self.requests.append((prompt, params))
        text = next(v for k, v in self.continuations.items() if k in prompt)
        return {"reply": text, "prompt_tokens": 1, "completion_tokens": 1}

    def chat(self, messages: Any, params: Any) -> dict[str, Any]:  # pragma: no cover
        raise AssertionError("HE-Eval-X generation continues the prompt; it never chats")

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize("language", ["cpp", "js"])
def test_build_with_generate_local_continues_each_prompt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    need(language)
    from data_builders.candidates import local

    monkeypatch.setenv("UNICE_CACHE_DIR", str(tmp_path / "unice-cache"))
    gguf = tmp_path / "model.gguf"
    gguf.write_bytes(b"GGUF")
    # task 0 right, then a helper the stop tokens cut away; task 1 wrong
    continuations = {
        "cpp": {"int add": "    return x+y;\n}\nint main() { return 1; }\n",
                "string rev": "    return s;\n}\n"},
        "js": {"const add": "  return x + y;\n}\nfunction helper() {}\n",
               "const rev": "  return s;\n}\n"},
    }[language]  # fmt: skip
    engines: list[ContinuingEngine] = []

    def fake_load(path: Path, settings: Any) -> ContinuingEngine:
        engines.append(ContinuingEngine(continuations))
        return engines[-1]

    monkeypatch.setattr(local, "load_engine", fake_load)
    problems, _ = _inputs(tmp_path, language)
    out = tmp_path / "out"
    argv = ["build", "humaneval-x", "--language", language, "--problems-file", str(problems),
            "--generate", f"local:{gguf}", "--n", "1", "--out", str(out), "--workers", "2",
            "--split-ratios", "0,0,1"]  # fmt: skip
    assert main(argv) == 0
    (engine,) = engines
    assert engine.closed and len(engine.requests) == 2
    stops = list(get_language(language).stop_tokens)
    assert all(params["stop"] == stops for _, params in engine.requests)
    assert {prompt for prompt, _ in engine.requests} == {t["prompt"] for t in TASKS[language]}
    rows = _rows(out)
    first, second = (t["task_id"] for t in TASKS[language])
    right, wrong = rows[f"{first}::generate::0"], rows[f"{second}::generate::0"]
    assert (right["passed"], right["pass_ratio"]) == (True, 1.0)
    assert not wrong["passed"] and wrong["executable"]
    assert "helper" not in right["generated"] and "main" not in right["generated"]
    assert main(argv) == 0 and len(engines) == 1  # finished: the cached replies are reused


def test_mutants_of_the_canonical_solution_are_labelled_in_the_language(tmp_path: Path) -> None:
    need("js")
    problems, _ = _inputs(tmp_path, "js")
    samples = _write(tmp_path / "none.jsonl", [])
    out = tmp_path / "out"
    argv = _argv("js", problems, samples, out, "--mutants", "2", "--split-ratios", "0,0,1")
    assert main(argv) == 0
    mutants = [r for r in _rows(out).values() if "::mutant::" in r["id"]]
    first = TASKS["js"][0]
    assert mutants and all(r["source"] == "mutant:one_edit" for r in mutants)
    assert all(r["language"] == "js" and r["generated"] != first["canonical_solution"]
               for r in mutants)  # fmt: skip
    assert any(r["pass_ratio"] < 1.0 for r in mutants)  # one edit changes some verdicts


def test_mutant_splits_limit_mutants_to_the_named_splits(tmp_path: Path) -> None:
    """``--mutant-splits train``: more mutants for training while dev and test keep their rows
    (the mutants8 arm of configs/experiment/multilingual_cpu.yaml)."""
    need("js")
    problems, _ = _inputs(tmp_path, "js")
    samples = _write(tmp_path / "none.jsonl", [])
    split = ("--split-ratios", "1,0,0", "--held-out-from", "1")  # task 0 train, task 1 test
    mutated = {}
    for splits in ("train", "test"):
        out = tmp_path / splits
        argv = _argv("js", problems, samples, out, "--mutants", "2", "--mutant-splits", splits)
        assert main([*argv, *split]) == 0
        rows = _rows(out).values()
        mutated[splits] = {r["task_id"] for r in rows if "::mutant::" in r["id"]}
    assert mutated == {"train": {"JavaScript/0"}, "test": set()}  # task 1 gets no mutant anyway


def test_text_mutants_edit_only_the_completion_and_are_seeded() -> None:
    from data_builders.candidates.mutants import make_text_mutants

    prompt = "int add(int x, int y){\n"
    reference = prompt + "    return x + y > 0 ? 1 : 0;\n}\n"
    made = make_text_mutants("CPP/0", prompt, reference, 3, seed=7)
    assert len(made) == 3 and len({m.program for m in made}) == 3
    assert all(m.program.startswith(prompt) and m.program != reference for m in made)
    assert [m.program for m in made] == [
        m.program for m in make_text_mutants("CPP/0", prompt, reference, 3, seed=7)
    ]
    assert [m.index for m in made] == [0, 1, 2] and {m.kind for m in made} == {"mutant"}
    more = make_text_mutants("CPP/0", prompt, reference, 5, seed=7)  # the first 3 are the same
    assert [m.program for m in more[:3]] == [m.program for m in made]
