"""Every relative link and ``#anchor`` in README.md and docs/**/*.md resolves.

Why: the README is a front page that points into docs/ and docs/experiments/, and sections
move between those files; a moved section silently breaks every link to its old place. This
checks links the way GitHub renders them: a path relative to the linking file must exist, and
an anchor must be the slug of a heading in the target (lowercase, punctuation other than ``-``
and ``_`` dropped, spaces to ``-``, a repeated heading suffixed ``-1``, ``-2``) or an explicit
``<a id=...>``/``<a name=...>``. Links inside code blocks and inline code are not links.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parents[2]

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_HTML_ANCHOR = re.compile(r"""<a\s+(?:id|name)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
_INLINE_CODE = re.compile(r"(`+).*?\1")
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (before de-duplication)."""
    text = re.sub(r"<[^>]+>", "", heading)  # inline HTML tags render as nothing
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _lines_outside_code(text: str) -> list[tuple[int, str]]:
    """(line number, line) for every line outside fenced code."""
    out, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, line))
    return out


def anchors(path: Path) -> set[str]:
    """Every anchor a link may name in a Markdown file."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in _lines_outside_code(path.read_text(encoding="utf-8")):
        found.update(_HTML_ANCHOR.findall(line))
        match = _HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(files: list[Path], root: Path) -> list[str]:
    """``file:line: target (why)`` for each relative link or anchor that does not resolve."""
    problems, cache = [], {}
    for source in files:
        for number, line in _lines_outside_code(source.read_text(encoding="utf-8")):
            for target in _LINK.findall(_INLINE_CODE.sub("", line)):
                if _EXTERNAL.match(target):
                    continue
                where = f"{source.relative_to(root)}:{number}: {target}"
                file_part, _, anchor = target.partition("#")
                resolved = (source.parent / unquote(file_part)).resolve() if file_part else source
                if not resolved.exists():
                    problems.append(f"{where} (no such file)")
                    continue
                if not anchor:
                    continue
                if resolved.suffix != ".md" or resolved.is_dir():
                    problems.append(f"{where} (an anchor into a file that is not Markdown)")
                    continue
                if resolved not in cache:
                    cache[resolved] = anchors(resolved)
                if unquote(anchor) not in cache[resolved]:
                    problems.append(f"{where} (no heading with that anchor)")
    return problems


def _documentation() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_every_relative_link_and_anchor_in_the_readme_and_docs_resolves() -> None:
    problems = broken_links(_documentation(), ROOT)
    assert problems == [], "broken links:\n" + "\n".join(problems)


def test_slugs_follow_githubs_rules() -> None:
    assert slug("HE-Eval-X: HE-Eval in C++, Java, JavaScript, Go, Rust") == (
        "he-eval-x-he-eval-in-c-java-javascript-go-rust"
    )
    assert slug("A frozen encoder and its feature cache (`model.freeze_encoder`)") == (
        "a-frozen-encoder-and-its-feature-cache-modelfreeze_encoder"
    )
    assert slug("Does CodeScore rank real programs? `make quality`") == (
        "does-codescore-rank-real-programs-make-quality"
    )
    assert (
        slug("UniCE — learned code-evaluation metrics") == "unice--learned-code-evaluation-metrics"
    )


def test_a_broken_file_or_anchor_is_reported_and_good_ones_are_not(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text(
        '# Title\n\n## Speed (`x.y`)\n\n## Speed (`x.y`)\n\n<a id="kept"></a>\n'
        "```bash\n# not a heading\n```\n",
        encoding="utf-8",
    )
    (tmp_path / "README.md").write_text(
        "Good: [a](docs/a.md), [s](docs/a.md#speed-xy), [s2](docs/a.md#speed-xy-1),\n"
        "[k](docs/a.md#kept), [self](#front), [web](https://example.com/x#y).\n"
        "# Front\n"
        "Bad: [gone](docs/gone.md), [anchor](docs/a.md#not-a-heading),\n"
        "[self](#nowhere), [third](docs/a.md#speed-xy-2).\n"
        "`[code](docs/ignored.md)` and\n```\n[fenced](docs/ignored.md)\n```\n",
        encoding="utf-8",
    )
    problems = broken_links([tmp_path / "README.md", tmp_path / "docs" / "a.md"], tmp_path)
    assert problems == [
        "README.md:4: docs/gone.md (no such file)",
        "README.md:4: docs/a.md#not-a-heading (no heading with that anchor)",
        "README.md:5: #nowhere (no heading with that anchor)",
        "README.md:5: docs/a.md#speed-xy-2 (no heading with that anchor)",
    ]
