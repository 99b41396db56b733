"""The transformers backend with a tiny randomly initialised GPT-2 and an in-process tokenizer."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

from unice.ice_score import IceScoreConfig, ModelNotFoundError, score_records
from unice.ice_score.backends.local import TransformersBackend
from unice.ice_score.templates import ICE_SCORE_TEMPLATE

EOS = "<|endoftext|>"


def _tokenizer() -> PreTrainedTokenizerFast:
    """Byte-level BPE trained in-process on the prompt template (no hub download)."""
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    corpus = [str(value) for value in ICE_SCORE_TEMPLATE.values()] + ["def add(a, b): return a"]
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=[EOS],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(corpus, trainer)
    return PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=EOS, pad_token=EOS)


def _gpt2(tokenizer: PreTrainedTokenizerFast, **extra) -> GPT2LMHeadModel:
    """A 2-layer GPT-2 (hidden 32) over ``tokenizer``'s vocabulary; ``extra`` config fields."""
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=2048,
        n_embd=32,
        n_layer=2,
        n_head=2,
        eos_token_id=tokenizer.eos_token_id,
        **extra,
    )
    return GPT2LMHeadModel(config)


@pytest.fixture(scope="module")
def tiny_judge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved 2-layer GPT-2 (hidden 32) whose greedy reply is always the token "3"."""
    torch.manual_seed(0)
    tokenizer = _tokenizer()
    model = _gpt2(tokenizer, tie_word_embeddings=False, pad_token_id=tokenizer.pad_token_id)
    three = tokenizer.convert_tokens_to_ids("3")
    with torch.no_grad():  # hidden state := ones, logits := 32 for "3", 0 elsewhere
        model.transformer.ln_f.weight.zero_()
        model.transformer.ln_f.bias.fill_(1.0)
        model.lm_head.weight.zero_()
        model.lm_head.weight[three] = 1.0
    path = tmp_path_factory.mktemp("tiny-judge")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def random_judge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tiny GPT-2, left random: replies are gibberish, but deterministic."""
    torch.manual_seed(1)
    tokenizer = _tokenizer()
    model = _gpt2(
        tokenizer,
        initializer_range=0.5,  # large weights: varied greedy tokens, not one repeated token
        bos_token_id=tokenizer.eos_token_id,
    )
    path = tmp_path_factory.mktemp("random-judge")
    model.save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def _config(path: Path, **overrides) -> IceScoreConfig:
    values = {"backend": "transformers", "model": str(path), "progress": False, "device": "cpu"}
    values.update(overrides)
    return IceScoreConfig(**values)


def _records(n: int) -> list[dict]:
    return [
        {"id": str(i), "nl": "Add two numbers." * (i + 1), "generated": "def add(a, b): return a"}
        for i in range(n)
    ]


def test_local_judge_scores_and_caches(tiny_judge, tmp_path):
    config = _config(tiny_judge, max_tokens=1, concurrency=2, cache_dir=str(tmp_path / "c"))
    run = score_records(_records(3), config)
    assert run.replies == ["3", "3", "3"]
    assert run.scores == [3.0, 3.0, 3.0]
    assert run.stats.requests == 3 and run.stats.completion_tokens == 3
    assert run.stats.prompt_tokens > 100  # the whole prompt was fed to the model
    again = score_records(_records(3), config)
    assert again.stats.requests == 0 and again.stats.cache_hits == 3
    assert again.scores == run.scores


def test_batched_generation_matches_one_by_one(random_judge):
    """Left padding must not change what a prompt generates."""
    records = _records(3)  # different lengths -> padding inside a batch
    batched = score_records(records, _config(random_judge, max_tokens=4, concurrency=3))
    single = score_records(records, _config(random_judge, max_tokens=4, concurrency=1))
    assert batched.replies == single.replies
    assert len(set(batched.replies)) > 1  # the prompts really generated different text
    assert all(isinstance(reply, str) for reply in batched.replies)
    assert set(batched.statuses) <= {"parsed", "unparsed", "out_of_range", "empty"}


def test_chat_template_is_used_when_present(random_judge):
    backend = TransformersBackend(_config(random_judge))
    backend._load()
    messages = [{"role": "user", "content": "PROMPT"}]
    assert backend.render(messages) == "PROMPT"
    backend._tokenizer.chat_template = (
        "{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}{% endfor %}"
        "{% if add_generation_prompt %}<assistant>{% endif %}"
    )
    assert backend.render(messages) == "<user>PROMPT<assistant>"


def test_missing_local_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelNotFoundError, match="cannot load local judge model"):
        score_records(_records(1), _config(tmp_path / "nowhere"))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")
def test_local_judge_on_gpu(tiny_judge):
    config = _config(tiny_judge, device="auto", max_tokens=1, concurrency=2)
    backend = TransformersBackend(config)
    run = score_records(_records(2), config, backend=backend)
    assert run.scores == [3.0, 3.0]
    assert backend._lm.device.type == "cuda"
