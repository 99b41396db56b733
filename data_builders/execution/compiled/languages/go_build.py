"""Go builds without the ``go`` command's per-build overhead (issue 28: warm Go builds).

``go test -c`` spends about half of a HumanEval-X build's CPU before and around the three
tools that do the work: it loads the packages and hashes the standard library's sources to
decide what is stale, on every build. The work itself is ``compile`` (the program's package),
``vet`` (the analyzers ``go test`` runs), ``compile`` (the generated test main) and ``link``.

So the build runs those tools directly, with what they need made once per Go toolchain and
machine: the *toolkit*, a folder in the shared build cache made like C++'s precompiled
prelude (``compiled/build.py``'s ``_prelude``, in the compile sandbox). A probe package that imports
:data:`PACKAGES` is built once by ``go test -c -x -work``; its import configurations, vet
configuration (with the analysis facts of every package it can import) and tool flags are
kept, paths relative to the toolkit. A program's build then compiles, vets, compiles
``go test``'s main (written here from the test's ``Test`` functions, as ``go test`` writes
it) and links, with the same flags ``go test -c -ldflags=-s -w`` uses.

A compile error in the program's package (the compiler's status 2, diagnostics only, none that it
could not import a package) is the build's error at once: ``go test -c`` runs the same compiler on the same files
and stops there too, after loading the packages and hashing the standard library again (a
wrong program that does not compile is common in real output; issue 45 item 5). Anything else
the direct build does not do exactly as ``go test -c`` would falls back to ``go test -c``
itself, which then gives the build (or its error) as before: any other step that fails (a
compile error where an import is missing, a vet finding, an import outside :data:`PACKAGES` — internal and
cgo packages included —, a wrong test signature), a test with ``TestMain``, benchmarks,
examples or fuzz targets (no generated main then), a build folder whose path the script
cannot quote, or a toolkit that could not be made; and the first build on a cold shared
Go cache, which ``go test -c`` fills as before. A direct build that succeeds is the
binary ``go test -c`` makes: the same package path (``_`` + the folder), sources, flags,
analyzers and test order; only its build id and module info differ.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from data_builders.execution.compiled.languages.base import Prelude
from data_builders.execution.compiled.languages.source import find_code

TOOLKIT_FILE = "unice_go_toolkit.py"
TESTMAIN_FILE = "_testmain.go.in"  # ("_": go ignores it, so the fallback builds as before)
PACKAGES = (
    "bufio", "bytes", "container/heap", "container/list", "container/ring", "crypto/md5",
    "crypto/sha1", "crypto/sha256", "encoding/binary", "encoding/hex", "encoding/json", "errors",
    "fmt", "hash/fnv", "io", "math", "math/big", "math/bits", "math/cmplx", "math/rand", "os",
    "reflect", "regexp", "sort", "strconv", "strings", "sync", "time", "unicode",
    "unicode/utf16", "unicode/utf8", "github.com/stretchr/testify/assert",
)  # fmt: skip
"""What a directly built program may import (HumanEval-X's Go uses math, strings, sort,
strconv, fmt, math/rand, time, regexp, bytes, crypto/md5 and testing)."""

_MAKE_TOOLKIT = r"""# UniCE's Go toolkit (data_builders/execution/languages/go_build.py), for @GO@
import glob, json, os, re, shutil, subprocess, sys
here = os.getcwd()
env = dict(os.environ, GOCACHE=os.path.join(here, "gocache"), GOFLAGS="")
probe = os.path.join(here, "probe")
os.makedirs(probe)
imports = "".join('\t_ "%s"\n' % p for p in @PACKAGES@)
with open(os.path.join(probe, "probe_test.go"), "w") as f:
    f.write('package main\n\nimport (\n%s\t"testing"\n)\n\nfunc TestProbe(t *testing.T) {}\n' % imports)
argv = ["go", "test", "-c", "-ldflags=-s -w", "-o", "probe.test", "."]
for extra in ([], ["-x", "-work"]):  # the second time, every dependency comes from the cache
    with open(os.path.join(probe, "probe_test.go"), "a") as f:
        f.write("// %s\n" % extra)  # (the probe itself is built again)
    done = subprocess.run(argv[:3] + extra + argv[3:], cwd=probe, env=env, capture_output=True,
                          text=True)
    if done.returncode:
        sys.exit(done.stderr[-3000:])
work = re.search(r"^WORK=(\S+)$", done.stderr, re.M).group(1)
goversion, tooldir = subprocess.run(["go", "env", "GOVERSION", "GOTOOLDIR"], env=env,
                                    capture_output=True, text=True, check=True).stdout.split()
rel = lambda path: os.path.relpath(path, here) if path.startswith(here + "/") else path
own = "_" + probe
for name in glob.glob(os.path.join(work, "*", "vet.cfg")):
    with open(name) as f:
        vet = json.load(f)
    if vet["ImportPath"] == own:
        break
else:
    sys.exit("no vet.cfg for the probe")
maps = {"ImportMap": vet["ImportMap"], "Standard": vet["Standard"],
        "PackageFile": {k: rel(v) for k, v in vet["PackageFile"].items()},
        "PackageVetx": {k: rel(v) for k, v in vet["PackageVetx"].items()}}
with open("importcfg.compile", "w") as f:
    for k, v in sorted(maps["ImportMap"].items()):
        if k != v:
            f.write("importmap %s=%s\n" % (k, v))
    for k, v in sorted(maps["PackageFile"].items()):
        f.write("packagefile %s=%s\n" % (k, v))
with open(os.path.join(work, "b001", "importcfg.link")) as f, open("importcfg.link", "w") as out:
    for line in f:
        if line.startswith("packagefile ") and not line[12:].startswith(own):
            k, v = line[12:].rstrip("\n").split("=", 1)
            out.write("packagefile %s=%s\n" % (k, rel(v)))
B = "@" + "BUILD@"  # (the build folder, put in by the build script)
with open("vet.cfg.in", "w") as f:
    json.dump({"ID": "_" + B, "Compiler": "gc", "Dir": B, "ImportPath": "_" + B,
               "GoFiles": [B + "/aaa_unice_support_test.go", B + "/main_test.go"],
               "NonGoFiles": [], "IgnoredFiles": [], **maps, "VetxOnly": False,
               "VetxOutput": B + "/vet.out", "SucceedOnTypecheckFailure": False}, f, indent="\t")
with open("meta.json", "w") as f:
    json.dump({"goversion": goversion, "tooldir": tooldir}, f)
shutil.rmtree(probe)
"""

_BUILD = r"""T=$1 B=$2 TD=$3 GV=$4
# A cold shared cache is filled by go test -c, as before (foreign.py: under 10x the limits),
# so that a later fallback never has to fill it under one build's limits.
[ -f "$GOCACHE/.unice-warm" ] || exec go test -c "-ldflags=-s -w" -o prog.test .
final_error() {  # the package's own compile error: go test -c stops at the same error
  L="$B/compile.log"
  [ "$1" -eq 2 ] && [ -s "$L" ] && ! grep -qE "could not import|can.t find import" "$L" &&
    ! grep -qvE '^[^ ]+[.]go:[0-9]+:[0-9]+: |^[[:space:]]' "$L" || return 0
  kill $V; wait $V; cat "$L" >&3; exit 1
}
direct() {  # (vet reads the sources and the toolkit only: it runs beside the build)
  [ -f "$B/_testmain.go.in" ] && cd "$T" || return 1
  sed "s|@BUILD@|$B|g" vet.cfg.in > "$B/vet.cfg" || return 1
  TERM=dumb "$TD/vet" -atomic -bool -buildtags -errorsas -ifaceassert -nilfunc -printf \
    -stringintconv "$B/vet.cfg" & V=$!
  if "$TD/compile" -o "$B/_pkg_.a" -p "_$B" -complete -goversion "$GV" -c=2 -D "_$B" \
      -importcfg importcfg.compile -pack "$B/aaa_unice_support_test.go" "$B/main_test.go" \
      > "$B/compile.log" 2>&1 || { final_error $?; false; } &&
    { cat importcfg.link; echo "packagefile _$B=$B/_pkg_.a"; } > "$B/importcfg.link" &&
    sed "s|@BUILD@|$B|g" "$B/_testmain.go.in" > "$B/_testmain.go" &&
    "$TD/compile" -o "$B/_testmain.a" -p main -complete -goversion "$GV" -c=2 -nolocalimports \
      -importcfg "$B/importcfg.link" -pack "$B/_testmain.go" &&
    "$TD/link" -o "$B/prog.test" -importcfg "$B/importcfg.link" -buildmode=exe -s -w \
      -extld=gcc "$B/_testmain.a"
  then wait $V
  else kill $V; wait $V; return 1
  fi
}
exec 3>&2
direct >/dev/null 2>&1 && exit 0
cd "$B" && rm -f prog.test _pkg_.a _testmain.a _testmain.go vet.cfg vet.out importcfg.link \
  compile.log
exec go test -c "-ldflags=-s -w" -o prog.test .
"""

_TESTMAIN = """// Code generated by 'go test'. DO NOT EDIT.

package main

import (
\t"os"

\t"testing"
\t"testing/internal/testdeps"


\t_test "_@BUILD@"



)

var tests = []testing.InternalTest{
%s
}

var benchmarks = []testing.InternalBenchmark{

}

var fuzzTargets = []testing.InternalFuzzTarget{

}

var examples = []testing.InternalExample{

}

func init() {
\ttestdeps.ImportPath = ""
}



func main() {

\tm := testing.MainStart(testdeps.TestDeps{}, tests, benchmarks, fuzzTargets, examples)

\tos.Exit(m.Run())

}
"""
# A named function can only be declared at the top level (not necessarily at a line's start)
_FUNCS = r"\bfunc\s+((?:Test|Benchmark|Example|Fuzz)\w*)\s*([\[(])"
_SAFE_PATH = re.compile(r"/[A-Za-z0-9_./-]+\Z")


@functools.lru_cache(maxsize=1)
def toolkit() -> Prelude:
    """The toolkit's prelude: the script that makes it (its text names the toolchain, so a
    new Go gets its own folder)."""
    try:
        done = subprocess.run(["go", "version"], capture_output=True, text=True, timeout=60)
        version = " ".join(done.stdout.split()) or "go (unknown version)"
    except (OSError, subprocess.SubprocessError):
        version = "go (unknown version)"
    text = _MAKE_TOOLKIT.replace("@GO@", version).replace("@PACKAGES@", repr(PACKAGES))
    return Prelude(TOOLKIT_FILE, text)


def toolkit_argv(prelude: Prelude) -> list[str]:
    """Make the toolkit (in its folder, inside the compile sandbox), with the base interpreter
    the virtual environment links to: the sandbox mounts a private ``/tmp``, which hides a
    checkout's ``.venv`` there (and with it every direct build); the script needs the standard
    library only (``-I``)."""
    interpreter = getattr(sys, "_base_executable", None) or sys.executable
    return [os.path.realpath(interpreter), "-I", prelude.name]


def testmain(test_file: str, quotes: str) -> str | None:
    """``go test``'s main for a test file (its ``_testmain.go``, the test package's import path
    left as ``@BUILD@``), or None when ``go test -c`` must make it: a ``TestMain``, a
    benchmark, example or fuzz target, type parameters, or a function name twice."""
    names, start = [], 0
    while (found := find_code(test_file, _FUNCS, quotes, start)) is not None:
        name, start = found.group(1), found.end()
        kind = re.match(r"Test|Benchmark|Example|Fuzz", name).group(0)  # type: ignore[union-attr]
        rest = name[len(kind) :]
        if rest and rest[0].islower():  # not a test to go test (TestfooBar): a plain function
            continue
        if kind != "Test" or name == "TestMain" or name in names or found.group(2) == "[":
            return None  # (type parameters: go test's own error)
        names.append(name)
    rows = "".join(f'\n\t{{"{name}", _test.{name}}},\n' for name in names)
    return _TESTMAIN % rows


def build_argv(build: Path, folder: Path, fallback: list[str]) -> list[str]:
    """The build of the driver in ``build`` with the toolkit in ``folder``: the direct build,
    and ``fallback`` (``go test -c``) when it cannot be done or fails."""
    meta = _meta(folder)
    if meta is None or not _SAFE_PATH.match(str(build)) or not _SAFE_PATH.match(str(folder)):
        return fallback
    return ["sh", "-c", _BUILD, "unice-go-build", str(folder), str(build), *meta]


def _meta(folder: Path) -> tuple[str, str] | None:
    """The toolkit's tool folder and Go version; None when it could not be made."""
    try:
        meta = json.loads((folder / "meta.json").read_text())
        return meta["tooldir"], meta["goversion"]
    except (OSError, ValueError, KeyError):
        return None
