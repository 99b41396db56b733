"""Input formats: separators, token types, masks, and fair truncation."""

from __future__ import annotations

import pytest

from unice.data.dataset import Collator, Sample
from unice.data.encoding import InputEncoder, Separators, fair_budgets
from unice.modeling.configuration import FORMATS


def _encoder(tokenizer, max_length=128, types=True):
    return InputEncoder(tokenizer, max_length=max_length, use_token_types=types, layout=False)


def test_roberta_separators_double_the_middle(tiny_tokenizer):
    seps = Separators.from_tokenizer(tiny_tokenizer)
    assert seps.prefix == (tiny_tokenizer.cls_token_id,)
    assert seps.middle == (tiny_tokenizer.sep_token_id,) * 2
    assert seps.suffix == (tiny_tokenizer.sep_token_id,)


def test_each_format_has_its_segments_types_and_masks(tiny_tokenizer):
    enc = _encoder(tiny_tokenizer)
    g, r, n = "x = 1", "y = 2", "set y"
    out = enc.encode_formats([g], [r], [n])
    assert set(out) == {"ref", "nl", "ref_nl"}
    cls, sep = tiny_tokenizer.cls_token_id, tiny_tokenizer.sep_token_id
    tok = {t: tiny_tokenizer(t, add_special_tokens=False)["input_ids"] for t in (g, r, n)}
    expected = {
        "ref": [cls, *tok[g], sep, sep, *tok[r], sep],
        "nl": [cls, *tok[g], sep, sep, *tok[n], sep],
        "ref_nl": [cls, *tok[g], sep, sep, *tok[r], sep, sep, *tok[n], sep],
    }
    for fmt, ids in expected.items():
        index, batch = out[fmt]
        assert index == [0]
        assert batch["input_ids"][0] == ids
        assert batch["attention_mask"][0] == [1] * len(ids)
        first = len(tok[g]) + 3  # <s> g </s></s> (the joining separators belong to g)
        assert batch["token_type_ids"][0] == [0] * first + [1] * (len(ids) - first)


def test_missing_reference_or_nl_only_feeds_available_formats(tiny_tokenizer):
    enc = _encoder(tiny_tokenizer, types=False)
    out = enc.encode_formats(["a", "b", "c"], ["r", "", None], ["n", "n", ""])
    assert out["ref"][0] == [0]
    assert out["nl"][0] == [0, 1]
    assert out["ref_nl"][0] == [0]
    assert "token_type_ids" not in out["ref"][1]


def test_padding_masks_are_right_padded(tiny_tokenizer):
    enc = _encoder(tiny_tokenizer)
    _, batch = enc.encode_formats(["x", "def f(x):\n    return x * 2"], ["y", "y"], ["", ""])["ref"]
    lengths = [sum(mask) for mask in batch["attention_mask"]]
    assert lengths[0] < lengths[1]
    width = len(batch["input_ids"][0])
    assert batch["input_ids"][0][lengths[0] :] == [tiny_tokenizer.pad_token_id] * (
        width - lengths[0]
    )


@pytest.mark.parametrize(
    ("lengths", "budget", "expected"),
    [
        ([10, 500, 500], 210, [10, 100, 100]),
        ([5, 5, 5], 100, [5, 5, 5]),
        ([300, 20], 100, [80, 20]),
        ([7, 7, 7], 10, [4, 3, 3]),
        ([0, 50], 10, [0, 10]),
    ],
)
def test_fair_budgets(lengths, budget, expected):
    got = fair_budgets(lengths, budget)
    assert got == expected
    assert sum(got) == min(budget, sum(lengths))


def test_long_generated_code_cannot_push_out_reference_and_nl(tiny_tokenizer):
    enc = _encoder(tiny_tokenizer, max_length=64)
    long_code = "\n".join(f"value_{i} = {i} * 2" for i in range(200))
    _, batch = enc.encode_formats([long_code], ["return x + 1"], ["add one to x"])["ref_nl"]
    ids = batch["input_ids"][0]
    assert len(ids) == 64
    nl_ids = tiny_tokenizer("add one to x", add_special_tokens=False)["input_ids"]
    ref_ids = tiny_tokenizer("return x + 1", add_special_tokens=False)["input_ids"]
    text = " ".join(map(str, ids))
    assert " ".join(map(str, nl_ids)) in text  # short NL kept whole
    assert " ".join(map(str, ref_ids)) in text  # short reference kept whole


def test_collator_concatenates_formats_with_tags(tiny_tokenizer):
    samples = [
        Sample("a", "x = 1", "x = 1", "set x", 1.0, True, True),
        Sample("b", "x = 2", "", "set x", 0.0, True, False),
    ]
    batch = Collator(_encoder(tiny_tokenizer))(samples)
    assert batch["labels"].tolist() == [[1.0, 1.0, 1.0], [0.0, 1.0, 0.0]]
    assert batch["format_ids"].tolist() == [0, 1, 1, 2]  # ref: a; nl: a, b; ref_nl: a
    assert batch["sample_index"].tolist() == [0, 0, 1, 0]
    assert batch["input_ids"].shape[0] == 4
    assert (
        batch["input_ids"].shape == batch["attention_mask"].shape == batch["token_type_ids"].shape
    )


@pytest.mark.parametrize("types", [True, False])
def test_collator_rows_are_the_per_format_encodings_padded_together(tiny_tokenizer, types):
    samples = [
        Sample("a", "def f(x):\n    return x + 1", "def f(x):\n    return x+1", "add 1", 1.0, True, True),
        Sample("b", "x = 2", "", "set x to two, please", 0.0, True, False),
        Sample("c", "y", "y = 3 * 4 + 5", None, 0.5, True, False),
    ]  # fmt: skip
    encoder = _encoder(tiny_tokenizer, types=types)
    batch = Collator(encoder)(samples)
    per_format = encoder.encode_formats(
        [s.generated for s in samples], [s.reference for s in samples], [s.nl for s in samples]
    )
    width = batch["input_ids"].shape[1]
    row = 0
    for fmt, (index, padded) in per_format.items():
        for position, sample in enumerate(index):
            length = sum(padded["attention_mask"][position])
            assert batch["format_ids"][row] == FORMATS.index(fmt)
            assert batch["sample_index"][row] == sample
            assert (
                batch["input_ids"][row, :length].tolist() == padded["input_ids"][position][:length]
            )
            assert batch["attention_mask"][row].tolist() == [1] * length + [0] * (width - length)
            assert set(batch["input_ids"][row, length:].tolist()) <= {encoder.pad_id}
            if types:
                assert (
                    batch["token_type_ids"][row, :length].tolist()
                    == (padded["token_type_ids"][position][:length])
                )
            row += 1
    assert row == batch["input_ids"].shape[0] == 5  # ref: a, c; nl: a, b; ref_nl: a
    assert ("token_type_ids" in batch) == types


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("head", [0, 1, 2, 3]), ("tail", [6, 7, 8, 9]), ("head_tail", [0, 7, 8, 9])],
)
def test_cut_modes(mode, expected):
    from unice.data.encoding import cut

    assert cut(list(range(10)), 4, mode) == expected
    assert cut(list(range(3)), 4, mode) == [0, 1, 2]


def test_long_code_keeps_its_ending_and_nl_its_beginning(tiny_tokenizer):
    enc = _encoder(tiny_tokenizer, max_length=48)
    code = (
        "def f(x):\n" + "\n".join(f"    y{i} = x * {i}" for i in range(40)) + "\n    return FINAL"
    )
    nl = " ".join(["Return the sum of the values."] * 20)
    _, batch = enc.encode_formats([code], [None], [nl])["nl"]
    text = tiny_tokenizer.decode(batch["input_ids"][0])
    assert text.startswith("<s>def f") and "FINAL</s></s>Return the sum" in text
    assert len(batch["input_ids"][0]) == 48
