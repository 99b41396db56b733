"""``python -m unice.ice_score`` end to end against the fake server, and its one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from unice.ice_score.cli import main

REPO = Path(__file__).resolve().parents[2]


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _args(url: str, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "--backend", "openai", "--base-url", url, "--model", "judge",
        "--aspect", "usefulness", "--input", str(tmp_path / "in.jsonl"),
        "--output", str(tmp_path / "out.jsonl"), "--no-progress",
        "--max-retries", "1", "--backoff", "0.01", *extra,
    ]  # fmt: skip


def test_cli_end_to_end_with_cache(server, make_records, tmp_path, capsys):
    server.replies = {"<<a>>": "Score: 4", "<<b>>": "Usefulness: 1", "<<c>>": "no idea"}
    records = make_records(["<<a>>", "<<b>>", "<<c>>"])
    for record, passed in zip(records, (True, False, False), strict=True):
        record["passed"] = passed
    _write(tmp_path / "in.jsonl", records)
    argv = _args(server.url, tmp_path, "--with-reference", "--cot", "--cache", str(tmp_path / "c"))
    assert main([*argv, "--plot", str(tmp_path / "dist.png")]) == 0
    assert (tmp_path / "dist.png").read_bytes()[:4] == b"\x89PNG"
    rows = _read(tmp_path / "out.jsonl")
    assert [r["ice_score"] for r in rows] == [4.0, 1.0, None]
    assert [r["ice_score_status"] for r in rows] == ["parsed", "parsed", "unparsed"]
    assert rows[0]["ice_score_reply"] == "Score: 4" and rows[0]["ice_score_parser"] == "robust"
    assert rows[0]["id"] == "T/0" and rows[0]["reference"].startswith("def add")  # input kept
    err = capsys.readouterr().err
    assert "scored 2/3 (unparsed 1, missing 0); 3 requests" in err
    assert main([*argv, "--parser", "paper"]) == 0  # same prompts: served from the cache
    assert len(server.requests) == 3
    assert [r["ice_score"] for r in _read(tmp_path / "out.jsonl")] == [4.0, 1.0, 1.0]
    assert "0 requests (0 retries), 3 cache hits" in capsys.readouterr().err


def test_cli_partial_failures_exit_1_and_say_how_many(server, make_records, tmp_path, capsys):
    _write(tmp_path / "in.jsonl", make_records(["<<a>>", "<<b>>"]))
    argv = _args(server.url, tmp_path, "--timeout", "0.2")
    argv[argv.index("judge")] = "down"
    assert main(argv) == 1
    rows = _read(tmp_path / "out.jsonl")
    assert [r["ice_score_status"] for r in rows] == ["missing", "missing"]
    assert "HTTP 503" in rows[0]["ice_score_error"]
    assert "warning: 2 of 2 records missing" in capsys.readouterr().err


def _asked(server, model: str) -> int:
    return sum(1 for r in server.requests if r["body"]["model"] == model)


def test_cli_caches_by_default_so_a_rerun_asks_only_the_missing(
    server, make_records, tmp_path, capsys, monkeypatch
):
    cache_root = tmp_path / "cache-root"
    monkeypatch.setenv("UNICE_CACHE_DIR", str(cache_root))
    _write(tmp_path / "in.jsonl", make_records(["<<a>>", "<<b>>"]))
    argv = _args(server.url, tmp_path, "--timeout", "0.5")
    first = argv.copy()
    first[first.index("judge")] = "down"  # the server fails every request of the first run
    assert main(first) == 1
    err = capsys.readouterr().err
    assert f"finished replies are cached in {cache_root / 'ice_score'}: rerun the same" in err
    assert main(argv) == 0  # the judge is back; its replies go to the default cache
    assert _asked(server, "judge") == 2
    assert len(list((cache_root / "ice_score").rglob("*.json"))) == 2
    assert main(argv) == 0  # the rerun costs no request
    assert _asked(server, "judge") == 2
    assert "0 requests (0 retries), 2 cache hits" in capsys.readouterr().err
    assert main([*argv, "--no-cache"]) == 0
    assert _asked(server, "judge") == 4
    assert "2 requests" in capsys.readouterr().err


def test_cli_no_cache_says_a_rerun_asks_again(server, make_records, tmp_path, capsys):
    _write(tmp_path / "in.jsonl", make_records(["<<a>>"]))
    argv = _args(server.url, tmp_path, "--timeout", "0.5", "--no-cache")
    argv[argv.index("judge")] = "down"
    assert main(argv) == 1
    assert "--no-cache was given, so a rerun asks every prompt again" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("dead", "error: cannot reach http://127.0.0.1:"),
        ("auth", "error: http://127.0.0.1:"),
        ("model", "does not serve model 'gpt-9'"),
        ("malformed", "in.jsonl:2: malformed JSON"),
        ("missing_file", "no such file"),
        ("no_reference", "has no 'reference' code"),
        ("bad_output", "pass another --output"),
    ],
)
def test_cli_errors_are_one_line(server, dead_url, make_records, tmp_path, capsys, setup, message):
    _write(tmp_path / "in.jsonl", make_records(["<<a>>"], with_reference=setup != "no_reference"))
    url, extra = server.url, []
    if setup == "dead":
        url = dead_url
    elif setup == "auth":
        server.api_key = "secret"
    elif setup == "model":
        extra = ["--model", "gpt-9"]
    elif setup == "malformed":
        (tmp_path / "in.jsonl").write_text('{"nl": "x", "generated": "y"}\n{oops\n')
    elif setup == "missing_file":
        (tmp_path / "in.jsonl").unlink()
    elif setup == "no_reference":
        extra = ["--with-reference"]
    elif setup == "bad_output":
        (tmp_path / "blocker").write_text("a file, not a folder")
        extra = ["--output", str(tmp_path / "blocker" / "out.jsonl")]
    assert main([*_args(url, tmp_path), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 or err[0].startswith("wrote ")  # partial output line, then the error
    assert err[-1].startswith("error: ") and message in err[-1]
    if setup == "auth":
        assert "refused the API key (HTTP 401" in err[-1] and "OPENAI_API_KEY" in err[-1]
    if setup in ("dead", "auth", "model"):
        assert "1 of 1 records missing" in err[-1]
        assert _read(tmp_path / "out.jsonl")[0]["ice_score_status"] == "missing"


def test_cli_rejects_missing_base_url(tmp_path, capsys):
    _write(tmp_path / "in.jsonl", [{"nl": "x", "generated": "y"}])
    argv = ["--model", "m", "--input", str(tmp_path / "in.jsonl"), "--output", str(tmp_path / "o")]
    assert main(argv) == 2
    assert "needs --base-url" in capsys.readouterr().err


def test_python_dash_m_entry_point(dead_url, tmp_path):
    """The real ``python -m`` entry point: a dead server is one line and exit status 2."""
    _write(tmp_path / "in.jsonl", [{"nl": "x", "generated": "y"}])
    argv = _args(dead_url, tmp_path)
    argv[argv.index("--max-retries") + 1] = "0"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-m", "unice.ice_score", *argv],
        capture_output=True, text=True, cwd=REPO, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("error: cannot reach")
