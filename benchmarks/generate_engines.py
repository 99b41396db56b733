"""Local sampling engines side by side: transformers vs xllamacpp vs ik-llama-cpp-python.

    flock /tmp/unice-heavy.lock python benchmarks/generate_engines.py \
        --source ../shared/data/mbpp_sanitized_humaneval_format.jsonl --problems 2 --n 4

Every engine samples SmolLM2-135M-Instruct for the same MBPP problems with the same chat
prompt (``configs/build/mbpp.yaml`` ``generation``, through the model's chat template), the
same sampling (temperature, top-p, max new tokens, the closing-fence stop) and the same number
of programs per configuration; model loading is timed apart. Tokens are the replies' tokens
counted with one tokenizer for all engines, so tokens/s compare like with like. Configurations:

* ``transformers``: today's ``--generate smollm2`` path (GGUF de-quantised to float32),
  ``threads`` torch threads, ``parallel`` sequences of one prompt per ``generate`` call.
* ``xllamacpp``: llama.cpp's server loop in process, ``parallel`` slots (continuous batching)
  with as many requests in flight, each with its own seed.
* ``ik``: ik-llama-cpp-python's ``IkLlama`` loop (``IkLlama.generate`` with the stop strings
  added, which it lacks): one sequence at a time (its generation context holds one sequence
  and samples in Python over the whole vocabulary each token), so no parallel configuration;
  the engine's own decode time is printed next to the wall time.

The quantisation printed is the GGUF's (from llama.cpp's model description). Figures depend
on the load of the machine: compare rows of one run, not runs.

``--smoke``: xllamacpp alone (the others need SmolLM2 converted for transformers, ~30 s, or
ik-llama-cpp-python), one HumanEval problem, one sample of 8 tokens, "tokens" counted as
whitespace-separated words (no transformers import).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import _harness

Job = tuple[Any, int]  # (problem, sample index)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", help="MBPP problem file (required but with --smoke)")
    parser.add_argument("--problems", type=int, default=2)
    parser.add_argument("--n", type=int, default=4, help="samples per problem")
    parser.add_argument("--max-new-tokens", type=int, default=256)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--parallel", default="1,4", help="comma-separated sequences at once")
    parser.add_argument("--engines", default="transformers,xllamacpp,ik")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON lines here")
    args = _harness.parse_args(parser)
    if args.smoke:
        args.problems, args.n, args.max_new_tokens = 1, 1, 8
        args.threads, args.parallel, args.engines = "1", "1", "xllamacpp"
    else:
        _harness.require("--source", args.source, parser)
    with _harness.Report(__file__, args) as report:
        benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    from data_builders.candidates.generate import SamplingSettings
    from data_builders.dataset.config import load_config
    from data_builders.dataset.pipeline import load_problems

    config = load_config("mbpp")
    settings = SamplingSettings.from_config(
        config.generation,
        config.seed,
        whole_program=False,
        n=args.n,
        max_new_tokens=args.max_new_tokens,
    )
    if args.smoke:
        _harness.need_module("xllamacpp", "the llama.cpp engine")
        problems = load_problems("humaneval", None)[: args.problems]
        tokenizer = _words
    else:
        problems = load_problems("mbpp", args.source)[: args.problems]
        tokenizer = _hf_tokenizer()
    threads = [int(t) for t in args.threads.split(",")]
    parallels = [int(p) for p in args.parallel.split(",")]
    engines = args.engines.split(",")
    rows: list[dict[str, Any]] = []
    runners: dict[str, Callable[..., list[dict[str, Any]]]] = {
        "transformers": _bench_transformers,
        "xllamacpp": _bench_xllamacpp,
        "ik": _bench_ik,
    }
    for engine in engines:
        rows += runners[engine](problems, settings, threads, parallels, tokenizer)
    base = next((r for r in rows if r["engine"] == "transformers" and r["threads"] == 1), None)
    print(
        f"\n{len(problems)} MBPP problems x {settings.n} samples per configuration, "
        f"max_new_tokens {settings.max_new_tokens}, temperature {settings.temperature}"
    )
    header = "engine        quant   thr par  progs  tokens  seconds  tok/s  prog/s  x-HF1 compiles"
    print(header)
    for row in rows:
        ratio = row["programs_per_s"] / base["programs_per_s"] if base else float("nan")
        row["vs_transformers_1thread"] = round(ratio, 2)
        report.figures[f"{row['engine']} threads={row['threads']} parallel={row['parallel']}"] = row
        print(
            f"{row['engine']:<13} {row['quant']:<7} {row['threads']:>3} {row['parallel']:>3} "
            f"{row['programs']:>6} {row['tokens']:>7} {row['seconds']:>8.1f} "
            f"{row['tokens_per_s']:>6.1f} {row['programs_per_s']:>7.3f} {ratio:>6.2f} "
            f"{row['compile_rate']:>7.2f}  {row.get('note', '')}"
        )
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in rows))


def _words(text: str, add_special_tokens: bool = False) -> Any:
    """A stand-in tokenizer for smoke runs: the words of ``text`` as its "input_ids"."""
    return argparse.Namespace(input_ids=text.split())


def _hf_tokenizer() -> Any:
    """SmolLM2's tokenizer (from the prepared folder): the one token count for every engine."""
    from transformers import AutoTokenizer

    from data_builders.candidates.generate import model_folder

    return AutoTokenizer.from_pretrained(model_folder("smollm2"))


def _row(
    engine: str,
    quant: str,
    threads: int,
    parallel: int,
    replies: Sequence[tuple[Any, str]],
    seconds: float,
    tokenizer: Any,
    settings: Any,
    **extra: Any,
) -> dict[str, Any]:
    from data_builders.candidates.generate import to_program
    from data_builders.problems.base import compiles

    tokens = sum(len(tokenizer(text, add_special_tokens=False).input_ids) for _, text in replies)
    programs = [to_program(problem, text, True, settings) for problem, text in replies]
    return {
        "engine": engine,
        "quant": quant,
        "threads": threads,
        "parallel": parallel,
        "programs": len(replies),
        "tokens": tokens,
        "seconds": round(seconds, 2),
        "tokens_per_s": round(tokens / seconds, 2),
        "programs_per_s": round(len(replies) / seconds, 4),
        "compile_rate": round(sum(compiles(p) for p in programs) / max(1, len(programs)), 2),
        **extra,
    }


def _jobs(problems: Sequence[Any], n: int) -> list[Job]:
    return [(problem, index) for problem in problems for index in range(n)]


def _bench_transformers(problems, settings, threads, parallels, tokenizer) -> list[dict]:
    import torch

    from data_builders.candidates.generate import (
        _generate_kwargs,
        load_model,
        model_folder,
        prompt_text,
    )
    from data_builders.candidates.prompts import cut_at_stops

    hf_tokenizer, model, device = load_model(model_folder("smollm2"))
    rows = []
    for thread_count in threads:
        torch.set_num_threads(thread_count)
        for parallel in parallels:
            replies: list[tuple[Any, str]] = []
            started = time.perf_counter()
            for problem in problems:
                text, chat = prompt_text(problem, hf_tokenizer, settings)
                encoded = hf_tokenizer(text, return_tensors="pt", add_special_tokens=False)
                for chunk, start in enumerate(range(0, settings.n, parallel)):
                    count = min(parallel, settings.n - start)
                    torch.manual_seed(settings.sample_seed(problem.task_id, chunk))
                    kwargs = _generate_kwargs(settings, hf_tokenizer, count, chat)
                    with torch.no_grad():
                        output = model.generate(**encoded.to(device), **kwargs)
                    new = output[:, encoded["input_ids"].shape[1] :]
                    for reply in hf_tokenizer.batch_decode(new, skip_special_tokens=True):
                        replies.append((problem, cut_at_stops(reply, settings.chat_stop)))
            seconds = time.perf_counter() - started
            row = _row(
                "transformers",
                "fp32",
                thread_count,
                parallel,
                replies,
                seconds,
                tokenizer,
                settings,
                note="GGUF de-quantised",
            )
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    return rows


def _bench_xllamacpp(problems, settings, threads, parallels, tokenizer) -> list[dict]:
    from data_builders.candidates.local import (
        EngineSettings,
        XllamaEngine,
        request_params,
        resolve_gguf,
    )
    from data_builders.candidates.prompts import chat_messages

    gguf = resolve_gguf("local", EngineSettings())
    quant = gguf.stem.rsplit(".", 1)[-1]
    rows = []
    for thread_count in threads:
        for parallel in parallels:
            started = time.perf_counter()
            engine = XllamaEngine(gguf, EngineSettings(threads=thread_count, parallel=parallel))
            load = time.perf_counter() - started

            def one(job: Job, engine: XllamaEngine = engine) -> tuple[Any, str]:
                problem, index = job
                messages = chat_messages(settings.instruction, problem, settings.system)
                params = request_params(settings, settings.sample_seed(problem.task_id, index))
                return problem, engine.chat(messages, params)["reply"]

            started = time.perf_counter()
            with ThreadPoolExecutor(parallel) as pool:
                replies = list(pool.map(one, _jobs(problems, settings.n)))
            seconds = time.perf_counter() - started
            engine.close()
            row = _row(
                "xllamacpp",
                quant,
                thread_count,
                parallel,
                replies,
                seconds,
                tokenizer,
                settings,
                load_s=round(load, 1),
            )
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    return rows


def _bench_ik(problems, settings, threads, parallels, tokenizer) -> list[dict]:
    from ik_llama_cpp import IkLlama

    from data_builders.candidates.local import EngineSettings, resolve_gguf
    from data_builders.candidates.prompts import chat_messages, cut_at_stops

    gguf = resolve_gguf("local", EngineSettings())
    rows = []
    for thread_count in threads:
        model = IkLlama(str(gguf), n_ctx=2048, n_threads=thread_count, verbose=False)
        quant = model._model.desc.rsplit(" ", 1)[-1]
        replies: list[tuple[Any, str]] = []
        decode_ms = 0.0
        started = time.perf_counter()
        for problem, _ in _jobs(problems, settings.n):
            messages = chat_messages(settings.instruction, problem, settings.system)
            text = tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, tokenize=False
            )
            ids = model.tokenize(text, add_bos=False, special=True)
            reply = _ik_generate(model, ids, settings)
            perf = model._context.perf()
            decode_ms += perf["t_p_eval_ms"] + perf["t_eval_ms"]
            replies.append((problem, cut_at_stops(reply, settings.chat_stop)))
        seconds = time.perf_counter() - started
        model.close()
        row = _row(
            "ik",
            quant,
            thread_count,
            1,
            replies,
            seconds,
            tokenizer,
            settings,
            engine_decode_s=round(decode_ms / 1000, 1),
            note="Python sampling over the vocabulary per token",
        )
        rows.append(row)
        print(json.dumps(row), file=sys.stderr)
    return rows


def _ik_generate(model: Any, tokens: list[int], settings: Any) -> str:
    """``IkLlama.generate`` (same prefill, sampler and end-of-generation check) that also
    stops at the stop strings, as the other engines do."""
    from ik_llama_cpp import _ctypes_api as C
    from ik_llama_cpp._internals import make_batch_range, make_batch_single

    context = model._context
    context.kv_cache_clear()
    context.perf_reset()
    batch = make_batch_range(tokens, pos_start=0, logits_last=True)
    if context.decode(batch) != 0:
        raise RuntimeError("ik: prefill failed")
    C.llama_batch_free(batch)
    generated: list[int] = []
    pos = len(tokens)
    text = ""
    for _ in range(settings.max_new_tokens):
        token = context.sample(-1, temperature=settings.temperature, top_k=50, top_p=settings.top_p)
        if C.llama_token_is_eog(model._model.model, token):
            break
        generated.append(token)
        text = model.detokenize(generated)
        if any(stop in text for stop in settings.chat_stop):
            break
        batch = make_batch_single(token, pos)
        failed = context.decode(batch) != 0
        C.llama_batch_free(batch)
        if failed:
            break
        pos += 1
    return text


if __name__ == "__main__":
    main()
