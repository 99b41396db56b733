"""The ``estimator`` architecture: each segment encoded alone, compared in the head (COMET)."""

from __future__ import annotations

import pytest
import torch

import unice
from unice.data.dataset import Collator, Sample
from unice.data.encoding import InputEncoder
from unice.modeling.estimator import EstimatorModel, compare_segments
from unice.testing import build_tiny_model, save_tiny_checkpoint
from unice.training.batch_loss import batch_loss

GENERATED = ["    return a + b\n", "    return a - b\n", "    return b + a\n"]
REFERENCE = "    return a + b\n"
NL = "def add(a, b):\n    '''Sum of a and b.'''\n"


def _encoder(model) -> InputEncoder:
    return InputEncoder.from_config(model.tokenizer, model.config)


def test_each_distinct_text_is_one_segment_and_rows_point_at_theirs():
    model = build_tiny_model(architecture="estimator")
    encoded = _encoder(model).encode_segments(
        GENERATED, [REFERENCE, REFERENCE, None], [NL, NL, NL], ["ref", "nl", "ref_nl"]
    )
    # the first candidate equals the reference: one segment serves as both
    assert len(encoded["segment_input_ids"]) == 4  # 3 candidates (one is the reference) + NL
    formats = encoded["format_ids"]
    assert formats == [0, 0, 1, 1, 1, 2, 2]  # ref: 2 rows (no ref for #3), nl: 3, ref_nl: 2
    assert encoded["sample_index"] == [0, 1, 0, 1, 2, 0, 1]
    assert encoded["generated_index"][0] == encoded["reference_index"][0]
    assert encoded["nl_index"][:2] == [-1, -1]  # g+r rows have no NL
    assert encoded["reference_index"][2:5] == [-1, -1, -1]  # g+n rows have no reference
    assert len(set(encoded["nl_index"][2:])) == 1  # one NL segment shared by every row
    # and the row membership is the cross encoder's
    joined = _encoder(build_tiny_model()).join_formats(
        GENERATED, [REFERENCE, REFERENCE, None], [NL, NL, NL], ["ref", "nl", "ref_nl"]
    )
    assert [i for _, (index, _) in joined.items() for i in index] == encoded["sample_index"]


def test_features_zero_the_block_of_an_absent_segment():
    segments = torch.tensor([[1.0, 2.0], [3.0, 5.0], [-1.0, 4.0]])
    features = compare_segments(
        segments, torch.tensor([0, 0]), torch.tensor([1, -1]), torch.tensor([-1, 2])
    )
    assert features.shape == (2, 2 + 2 * (3 * 2 + 1))
    g, r, n = segments
    ref_block, nl_block = features[:, 2:9], features[:, 9:16]
    torch.testing.assert_close(ref_block[0, :6], torch.cat([r, g * r, (g - r).abs()]))
    assert ref_block[0, 6] == pytest.approx(float(torch.cosine_similarity(g, r, dim=0)))
    assert torch.count_nonzero(ref_block[1]) == 0 and torch.count_nonzero(nl_block[0]) == 0
    torch.testing.assert_close(nl_block[1, :6], torch.cat([n, g * n, (g - n).abs()]))


def test_a_score_does_not_depend_on_the_other_samples_of_its_batch():
    model = build_tiny_model(seed=3, architecture="estimator")
    alone = model.score(generated=GENERATED[1:2], references=[REFERENCE], nls=[NL])[0]
    together = model.score(generated=GENERATED, references=[REFERENCE] * 3, nls=[NL] * 3)
    assert together[1] == alone
    assert together[0]["codescore_ref"] != together[1]["codescore_ref"]  # g is read


def test_the_head_reads_the_reference():
    model = build_tiny_model(seed=3, architecture="estimator", formats=["ref"]).eval()
    encoder = _encoder(model)

    def logit(reference: str) -> float:
        batch = encoder.encode_segments(GENERATED[1:2], [reference], [None], ["ref"])
        inputs = {
            k: torch.tensor(v) for k, v in batch.items() if k not in ("format_ids", "sample_index")
        }
        with torch.no_grad():
            return float(model(**inputs).logits[0, 0])

    assert logit(REFERENCE) != logit("    pass\n")


def test_training_loss_runs_one_forward_and_reaches_the_encoder():
    model = build_tiny_model(architecture="estimator", loss_weights={"pass_ratio": 1.0,
                                                                     "ranking": 1.0})  # fmt: skip
    samples = [
        Sample(f"t/{i}", g, REFERENCE, NL, ratio, True, ratio == 1.0, "t")
        for i, (g, ratio) in enumerate(zip(GENERATED, [1.0, 0.0, 1.0], strict=True))
    ]
    batch = Collator(_encoder(model), model.config.formats, "estimator")(samples)
    loss, logs = batch_loss(model, batch, model.config.loss_weights)
    loss.backward()
    assert {"ref/ranking", "nl/ranking", "ref_nl/ranking"} <= set(logs)
    assert model.encoder.embeddings.word_embeddings.weight.grad.abs().sum() > 0


def test_checkpoint_keeps_the_architecture(tmp_path):
    path = save_tiny_checkpoint(tmp_path / "ckpt", seed=1, architecture="estimator")
    loaded = unice.load_model(path, device="cpu")
    assert loaded.config.architecture == "estimator"
    assert type(loaded) is EstimatorModel  # the variant, through UniCEModel.from_pretrained
    fresh = build_tiny_model(seed=1, architecture="estimator")
    kwargs = {"generated": GENERATED, "references": [REFERENCE] * 3, "nls": [NL] * 3}
    assert loaded.score(**kwargs) == fresh.score(**kwargs)


def test_unknown_architecture_is_refused_with_the_choices():
    with pytest.raises(Exception, match="architecture='siamese' is not allowed.*cross, estimator"):
        build_tiny_model(architecture="siamese")


def test_each_segment_is_cut_to_max_length_alone():
    model = build_tiny_model(architecture="estimator", max_length=16)
    encoder = _encoder(model)
    long_code = "".join(f"    x{i} = {i}\n" for i in range(40))
    encoded = encoder.encode_segments([long_code], [REFERENCE], [NL * 6], ["ref_nl"])
    rows = [
        [t for t, m in zip(ids, mask, strict=True) if m]
        for ids, mask in zip(
            encoded["segment_input_ids"], encoded["segment_attention_mask"], strict=True
        )
    ]
    generated, reference, nl = (rows[encoded[k][0]] for k in ("generated_index",
                                                              "reference_index", "nl_index"))  # fmt: skip
    assert len(generated) == 16 and len(nl) == 16  # each long segment gets the whole budget
    assert len(reference) == len(encoder.tokenize([REFERENCE])[0]) + 2  # a short one is whole
    sep = encoder.separators
    assert generated[0] == sep.prefix[0] and generated[-1] == sep.suffix[0]
    code = encoder.tokenize([long_code])[0]
    assert generated[-5:-1] == code[-4:]  # head_tail: the end of the program is kept


@pytest.mark.parametrize("architecture", ["estimator", "cross"])
def test_length_buckets_change_the_cost_not_the_scores(architecture: str):
    """Rows encoded in groups of similar length, each cut to its longest row, give the
    scores of one padded batch (eval mode; within float noise)."""
    model = build_tiny_model(seed=5, architecture=architecture)
    generated = [
        "    return a + b\n",
        "    total = 0\n    for x in range(a, b):\n        total += x * x - a\n    return total\n",
        "    return max(a, b)\n",
        "    if a > b:\n        return a - b\n    return b - a\n",
    ]
    kwargs = {"generated": generated, "references": [REFERENCE] * 4, "nls": [NL] * 4}
    model.config.length_buckets = 1
    one = unice.scoring.score(model, **kwargs)
    model.config.length_buckets = 3
    bucketed = unice.scoring.score(model, **kwargs)
    for a, b in zip(one, bucketed, strict=True):
        for key in ("codescore_ref_nl", "codescore_ref", "exec_prob_nl"):
            assert b[key] == pytest.approx(a[key], abs=2e-6)


def test_scoring_batches_keep_a_problems_candidates_together():
    from unice.scoring import _batch_order

    generated = ["a" * 9, "b", "c" * 5, "d" * 7]
    references = ["r1", "r2", "r1", "r2"]
    nls = ["n1", "n2" * 40, "n1", "n2" * 40]
    order = _batch_order([0, 1, 2, 3], generated, references, nls, "estimator")
    assert order == [3, 1, 0, 2]  # problem 2 (longest) first, each problem's longest first
