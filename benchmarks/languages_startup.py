"""Start-up cost per language, and what running every assertion in one process saves.

For each language, one program with ``--asserts`` passing assertions is built once, then
run (a) as ``label`` runs it: one process for all its assertions, and (b) as a harness that
starts one process per assertion would: measured as ``--asserts`` runs of the same build
that start past the last assertion (start-up, class loading and the test's scaffolding,
no assertion), plus (a). Prints wall and CPU seconds of the sandboxed process trees
(bubblewrap, the runtime and its threads; sampled from /proc every 10 ms) for both.

    python benchmarks/languages_startup.py [--asserts 20] [--languages java,js,cpp]

``--smoke``: JavaScript only, 2 assertions, one run (needs ``node``).
"""

from __future__ import annotations

import argparse
import time

import _harness

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.compiled.pool import ForeignPool
from data_builders.execution.executor import Executor

PROGRAMS = {
    "java": (
        "import java.util.*;\nclass Solution {\n    public int f(int x) { return x + 1; }\n}\n",
        "public class Main {\n    public static void main(String[] args) {\n"
        "        Solution s = new Solution();\n        List<Boolean> correct = Arrays.asList(\n{asserts}\n"
        "        );\n        if (correct.contains(false)) { throw new AssertionError(); }\n    }\n}\n",
        "            s.f({i}) == {j}",
        ",\n",
    ),
    "js": (
        "const f = (x) => x + 1\n",
        "const testF = () => {\n{asserts}\n}\ntestF()\n",
        "  console.assert(f({i}) === {j})",
        "\n",
    ),
    "cpp": (
        "int f(int x) { return x + 1; }\n",
        "#include<assert.h>\nint main(){\n{asserts}\n}\n",
        "    assert(f({i}) == {j});",
        "\n",
    ),
    "rust": (
        "fn main() {}\nfn f(x: i32) -> i32 {\n    x + 1\n}\n",
        "#[cfg(test)]\nmod tests {\n    use super::*;\n    #[test]\n    fn test_f() {\n{asserts}\n    }\n}\n",
        "        assert_eq!(f({i}), {j});",
        "\n",
    ),
    "go": (
        "func F(x int) int {\n    return x + 1\n}\n",
        'package main\n\nimport (\n    "testing"\n    "github.com/stretchr/testify/assert"\n)\n\n'
        "func TestF(t *testing.T) {\n    assert := assert.New(t)\n{asserts}\n}\n",
        "    assert.Equal({j}, F({i}))",
        "\n",
    ),
}


_EX: list[ForeignPool] = []


def children_cpu() -> float:
    """CPU seconds of the sandboxed process trees so far (sampled by the executor every
    10 ms while each runs: the children's rusage misses what bubblewrap's init reaps)."""
    return _EX[0].run_cpu_seconds


def measure(ex: ForeignPool, language: str, n: int, repeats: int) -> dict[str, float]:
    source, test, line, sep = PROGRAMS[language]
    asserts = sep.join(line.format(i=i, j=i + 1) for i in range(n))
    test = test.replace("{asserts}", asserts)
    lang = get_language(language)
    driver = lang.driver(source, test)
    build = ex._build(lang, driver.files, driver.mode, driver.prelude)
    assert build.ok, build.log
    wall0, cpu0 = time.monotonic(), children_cpu()
    for _ in range(repeats):
        outcomes = ex._run_cases(lang, build.path, [3.0] * driver.n_cases, checks=driver.checks)
        assert all(o.status == "pass" for o in outcomes), [o.detail for o in outcomes]
    one_wall, one_cpu = (time.monotonic() - wall0) / repeats, (children_cpu() - cpu0) / repeats
    wall0, cpu0 = time.monotonic(), children_cpu()
    for _ in range(repeats):
        ex._run_cases(
            lang, build.path, [3.0] * driver.n_cases, start=driver.n_cases, checks=driver.checks
        )
    start_wall, start_cpu = (time.monotonic() - wall0) / repeats, (children_cpu() - cpu0) / repeats
    return {
        "one_wall": one_wall, "one_cpu": one_cpu, "start_wall": start_wall, "start_cpu": start_cpu,
        "per_wall": one_wall + n * start_wall, "per_cpu": one_cpu + n * start_cpu,
    }  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asserts", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--languages", default="java,js,cpp")
    args = _harness.parse_args(parser)
    if args.smoke:
        args.asserts, args.repeats, args.languages = 2, 1, "js"
    with _harness.Report(__file__, args) as report:
        benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    if args.smoke and get_language("js").missing_toolchain():
        raise _harness.Skipped(get_language("js").missing_toolchain())
    # one executor for every language measured: the compiled languages' pool runs them all
    with Executor("cpp", workers=1) as executor:
        ex = executor.pool
        _EX.append(ex)
        print(
            f"isolation {ex.isolation}; {args.asserts} assertions per program; mean of {args.repeats} runs"
        )
        print(
            "| language | start-up per process wall / CPU s | one process for all: wall / CPU s"
            " | one process per assertion (est.): wall / CPU s | saving (wall) |"
        )
        print("| --- | --- | --- | --- | --- |")
        for language in args.languages.split(","):
            missing = get_language(language).missing_toolchain()
            if missing:
                print(f"| {language} | skipped: {missing} | | | |")
                continue
            m = measure(ex, language, args.asserts, args.repeats)
            report.figures[language] = {k: round(v, 4) for k, v in m.items()}
            print(
                f"| {language} | {m['start_wall']:.3f} / {m['start_cpu']:.3f} | {m['one_wall']:.3f} /"
                f" {m['one_cpu']:.3f} | {m['per_wall']:.2f} / {m['per_cpu']:.2f} |"
                f" {m['per_wall'] / max(m['one_wall'], 1e-9):.1f}x |"
            )


if __name__ == "__main__":
    main()
