"""Translated extended assertions as test code: alone (:func:`extended_test`) or added to a
HumanEval-X task's own test (:func:`with_extended`), in the shape each language's driver
splits into one case per assertion (``data_builders/execution/compiled/languages/``).

Why add them to the original test rather than run a second program: compiling is most of the
cost of a C++, Go or Rust program, and one process runs every assertion (the JVM starts once),
so a candidate with its 7 original and ~110 extended assertions is one compile and one run.
The original assertions stay first, so case ``k < n_original`` is original assertion ``k``.
"""

from __future__ import annotations

from collections.abc import Sequence

from data_builders.test_translation.assertions import PRELUDES


def _body(assertions: Sequence[str], indent: str = "    ") -> str:
    return "".join(f"{indent}{a}\n" for a in assertions)


def extended_test(language: str, assertions: Sequence[str], header: str = "") -> str:
    """The translated assertions alone, as a test of their own (``header``: Go's test setup,
    i.e. package and imports)."""
    body = _body(assertions)
    if language == "cpp":
        return f"{PRELUDES['cpp']}int main(){{\n{body}}}\n"
    if language == "java":  # java.util.* is imported by every HumanEval-X prompt
        return (
            "public class Main {\n    public static void main(String[] args) {\n"
            f"        Solution s = new Solution();\n{_body(assertions, ' ' * 8)}    }}\n}}\n"
        )
    if language == "js":
        return f"{PRELUDES['js']}{body}"
    if language == "go":
        return f"{header}\n{_go_function(assertions)}"
    return _rust_module("tests", assertions)


def _go_function(assertions: Sequence[str]) -> str:
    return (
        "func TestUniceExtended(t *testing.T) {\n    assert := assert.New(t)\n"
        f"{_body(assertions)}}}\n"
    )


def _rust_module(name: str, assertions: Sequence[str]) -> str:
    return (
        f"#[cfg(test)]\nmod {name} {{\n    use super::*;\n    {PRELUDES['rust']}"
        f"    #[test]\n    fn extended() {{\n{_body(assertions, ' ' * 8)}    }}\n}}\n"
    )


def _before_closing(test: str, braces: int, insert: str, language: str) -> str:
    """``insert`` placed before the ``braces``-th ``}`` counted from the end of ``test``."""
    cut = len(test)
    for _ in range(braces):
        cut = test.rfind("}", 0, cut)
        if cut < 0:
            raise ValueError(f"{language} test has fewer than {braces} closing braces")
    return f"{test[:cut]}{insert}{test[cut:]}"


def with_extended(language: str, test: str, assertions: Sequence[str]) -> str:
    """A HumanEval-X task's ``test`` with ``assertions`` run after its own.

    C++: inside ``main`` before its closing brace (the includes the literals need go first);
    Java: at the end of ``Main.main`` (the ``Solution s`` it declares is in scope); JavaScript:
    after the test (``node:assert`` required once); Go: a second test function; Rust: a second
    test module. Raises ValueError when the test lacks the expected closing braces.
    """
    if not assertions:
        return test
    if language == "cpp":
        return PRELUDES["cpp"] + _before_closing(test, 1, _body(assertions), language)
    if language == "java":
        return _before_closing(test, 2, _body(assertions, " " * 8), language)
    if language == "js":
        return f"{test.rstrip()}\n{PRELUDES['js']}{_body(assertions, '')}"
    if language == "go":
        return f"{test.rstrip()}\n\n{_go_function(assertions)}"
    if language == "rust":
        return f"{test.rstrip()}\n\n{_rust_module('unice_extended', assertions)}"
    raise ValueError(f"no extended tests for language {language!r}")
