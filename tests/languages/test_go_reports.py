"""Go's result descriptor survives garbage collection (a regression found on HumanEval-X Go/50).

The support code once wrapped the descriptor in a new ``*os.File`` for every report; each such
File is garbage, and its finalizer closes the descriptor, so a case inside a loop that
allocates lost its reports after a collection and was judged "the program ended its process"
(Go/50's canonical solution failed about one run in six).
"""

from __future__ import annotations

import pytest

from tests.languages.conftest import run, statuses

TEST = """package main

import (
    "runtime"
    "testing"
    "github.com/stretchr/testify/assert"
)

func TestF(t *testing.T) {
    assert := assert.New(t)
    for i := 0; i < 50; i++ {
        runtime.GC()
        runtime.Gosched()
        assert.Equal(i+1, F(i))
    }
    assert.Equal(2, F(1))
}
"""

SOURCE = "func F(x int) int {\n    return x + 1\n}\n"


@pytest.mark.slow
def test_go_loop_reports_survive_gc(foreign) -> None:
    result = run(foreign, "go", SOURCE, TEST)
    assert statuses(result) == ["pass", "pass"], [o.detail for o in result.outcomes]
