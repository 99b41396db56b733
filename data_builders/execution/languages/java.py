"""Java (``javac`` / ``java -ea``, javatuples on the class path).

HumanEval-X tests build ``List<Boolean> correct = Arrays.asList(e1, ..., en)`` and throw if
it contains ``false``: each ``e_k`` becomes a case. Other statements of ``main`` that throw
``AssertionError`` (a loop of random checks), and MultiPL-E's ``assert(...)`` statements
(its ``main`` sits in ``class Problem``, which is then the class run), become one case each. One JVM runs every case of a program (start-up is
paid once per program, not per assertion).

Host-side verdicts (the token protocol, ``languages/base.py``): an element of the ``correct``
list of the form ``X.equals(L)``, ``Objects.equals(X, L)``, ``X == L`` (``!=``) with a
primitive ``L``, ``Math.abs(X - L) < T`` or a bare ``s.f(...)`` / ``!s.f(...)``, with ``L`` a
constant (``Arrays.asList``, ``List.of``, ``new ArrayList<>(...)``, ``Optional``, strings,
numbers with their boxed type), becomes ``__unice_value(k, () -> (X))``: the program writes
X's value and the host judges it with Java's ``equals``/``==`` (``foreign_checks.py``); ``L``
is not in the driver (a string literal's ``==`` is identity: the program writes whether its
string is the pooled instance). With a reference solution (``languages/computed.py``), an
``assert`` statement or a loop's ``if (C) throw new AssertionError()`` comparing with a value
the test computes writes only the candidate's side, and the reference's run writes the
other. The token is read from stdin by ``main`` before the program's classes are first used.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from data_builders.execution.compile_server import ServerSpec
from data_builders.execution.foreign_checks import Check
from data_builders.execution.foreign_literals import NotLiteral, is_literal, parse_literal
from data_builders.execution.foreign_values import JMap
from data_builders.execution.languages.base import Driver, Language, RunSpec, SplitError
from data_builders.execution.languages.checks import abs_check, literal_side
from data_builders.execution.languages.computed import (
    Reference,
    poly_bound,
    poly_property,
    sides,
)
from data_builders.execution.languages.source import (
    code_mask,
    find_code,
    matching,
    replace_spans,
    single_call,
    split_top_level,
    statements,
    strip_parens,
    top_level,
)

JAVATUPLES = "/usr/share/java/javatuples.jar"

SUPPORT = r"""
    static int __unice_start = 0;
    static java.io.PrintStream __unice_out = System.err;
    private static String __unice_token = "";
    static void __unice_mark(String what, int k, String detail) {
        __unice_out.print("\n" + what + " " + k + " " + __unice_token + (detail == null ? "" : " " + detail) + "\n");
        __unice_out.flush();
    }
    interface __UniceCheck { boolean check() throws Throwable; }
    interface __UniceBlock { void run() throws Throwable; }
    interface __UniceValue { Object get() throws Throwable; }
    static void __unice_case(int k, __UniceCheck f) {
        if (k < __unice_start) return;
        __unice_mark("S", k, null);
        try { __unice_mark(f.check() ? "P" : "F", k, null); }
        catch (AssertionError e) { __unice_mark("F", k, null); }
        catch (OutOfMemoryError e) { __unice_mark("M", k, null); }
        catch (Throwable e) { __unice_mark("E", k, String.valueOf(e).replaceAll("\\s+", " ")); }
    }
    static void __unice_block(int k, __UniceBlock r) {
        __unice_case(k, () -> { r.run(); return true; });
    }
    // A value case: the value, in canonical form (foreign_checks.py), judged on the host.
    static void __unice_value(int k, __UniceValue f) {
        if (k < __unice_start) return;
        __unice_mark("S", k, null);
        String text;
        try {
            StringBuilder b = new StringBuilder();
            __unice_put(b, f.get(), 0);
            text = b.length() > (4 << 20) ? "{\"$toolong\":1}" : b.toString();
        }
        catch (OutOfMemoryError e) { __unice_mark("M", k, null); return; }
        catch (Throwable e) { __unice_mark("E", k, String.valueOf(e).replaceAll("\\s+", " ")); return; }
        __unice_mark("V", k, text);
    }
    // A loop of the test, one case: each turn's value (serialised at once) and the error that
    // ended it, in one value judged on the host turn by turn (languages/computed.py).
    interface __UniceSeries { void run(java.util.List<String> turns) throws Throwable; }
    static void __unice_series(int k, __UniceSeries f) {
        if (k < __unice_start) return;
        __unice_mark("S", k, null);
        java.util.List<String> turns = new java.util.ArrayList<>();
        String error = "null";
        try { f.run(turns); }
        catch (OutOfMemoryError e) { turns = null; __unice_mark("M", k, null); return; }
        catch (Throwable e) {
            StringBuilder b = new StringBuilder("[\"runtime_error\",");
            __unice_string(b, String.valueOf(e).replaceAll("\\s+", " "));
            error = b.append(']').toString();
        }
        String text = "{\"$turns\":[[" + String.join(",", turns) + "]," + error + "]}";
        __unice_mark("V", k, text.length() > (4 << 20) ? "{\"$toolong\":1}" : text);
    }
    static void __unice_turn(java.util.List<String> turns, Object v) {
        StringBuilder b = new StringBuilder();
        __unice_put(b, v, 0);
        turns.add(b.toString());
    }
    // String identity (``x == "literal"``): the value and whether it is the pooled instance.
    static final class __UniceInterned { final Object v; __UniceInterned(Object v) { this.v = v; } }
    static Object __unice_interned(Object v) { return new __UniceInterned(v); }
    static void __unice_hex(StringBuilder b, String tag, long bits, int digits) {
        b.append("{\"").append(tag).append("\":\"");
        for (int i = digits - 1; i >= 0; i--) b.append("0123456789abcdef".charAt((int) ((bits >>> (4 * i)) & 15)));
        b.append("\"}");
    }
    static void __unice_string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20 || c >= 0x7f) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        b.append('"');
    }
    static void __unice_items(StringBuilder b, Iterable<?> items, int depth) {
        b.append('[');
        boolean first = true;
        for (Object item : items) {
            if (!first) b.append(',');
            first = false;
            __unice_put(b, item, depth + 1);
            if (b.length() > (4 << 20)) break;
        }
        b.append(']');
    }
    static void __unice_put(StringBuilder b, Object v, int depth) {
        if (depth > 200) throw new IllegalStateException("value nested too deep");
        if (v instanceof __UniceInterned) {
            Object s = ((__UniceInterned) v).v;
            b.append("{\"$interned\":[");
            __unice_put(b, s, depth + 1);
            b.append(s instanceof String && s == ((String) s).intern() ? ",true]}" : ",false]}");
        }
        else if (v == null) b.append("null");
        else if (v instanceof Boolean) b.append(((Boolean) v).booleanValue() ? "true" : "false");
        else if (v instanceof Integer) b.append(((Integer) v).intValue());
        else if (v instanceof Long) b.append("{\"$long\":\"").append(((Long) v).longValue()).append("\"}");
        else if (v instanceof Short) b.append("{\"$short\":\"").append(((Short) v).shortValue()).append("\"}");
        else if (v instanceof Byte) b.append("{\"$byte\":\"").append(((Byte) v).byteValue()).append("\"}");
        else if (v instanceof Character) b.append("{\"$char\":\"").append((int) ((Character) v).charValue()).append("\"}");
        else if (v instanceof Double) __unice_hex(b, "$f64", Double.doubleToRawLongBits((Double) v), 16);
        else if (v instanceof Float) __unice_hex(b, "$f32", Float.floatToRawIntBits((Float) v) & 0xffffffffL, 8);
        else if (v instanceof String) __unice_string(b, (String) v);
        else if (v instanceof java.util.Optional) {
            java.util.Optional<?> o = (java.util.Optional<?>) v;
            b.append("{\"$optional\":");
            __unice_items(b, o.isPresent() ? java.util.Collections.singletonList(o.get()) : java.util.Collections.emptyList(), depth);
            b.append('}');
        }
        else if (v instanceof java.util.List) __unice_items(b, (java.util.List<?>) v, depth);
        else if (v instanceof java.util.Set) { b.append("{\"$set\":"); __unice_items(b, (java.util.Set<?>) v, depth); b.append('}'); }
        else if (v instanceof java.util.Collection) { b.append("{\"$collection\":"); __unice_items(b, (java.util.Collection<?>) v, depth); b.append('}'); }
        else if (v instanceof java.util.Map) {
            b.append("{\"$map\":[");
            boolean first = true;
            for (java.util.Map.Entry<?, ?> e : ((java.util.Map<?, ?>) v).entrySet()) {
                if (!first) b.append(',');
                first = false;
                b.append('[');
                __unice_put(b, e.getKey(), depth + 1);
                b.append(',');
                __unice_put(b, e.getValue(), depth + 1);
                b.append(']');
            }
            b.append("]}");
        }
        else if (v.getClass().isArray()) {
            java.util.List<Object> items = new java.util.ArrayList<>();
            for (int i = 0; i < java.lang.reflect.Array.getLength(v); i++) items.add(java.lang.reflect.Array.get(v, i));
            b.append("{\"$array\":");
            __unice_items(b, items, depth);
            b.append('}');
        }
        else { b.append("{\"$opaque\":"); __unice_string(b, v.getClass().getName()); b.append('}'); }
    }
    public static void main(String[] args) throws Exception {
        // The run's report token, from stdin, before any of the program's classes is used.
        StringBuilder token = new StringBuilder();
        for (int c; token.length() < 64 && (c = System.in.read()) >= 0 && c != '\n'; ) token.append((char) c);
        __unice_token = token.toString();
        if (args.length > 1) {
            __unice_start = Integer.parseInt(args[0]);
            __unice_out = new java.io.PrintStream(new java.io.FileOutputStream("/proc/self/fd/" + args[1]), true);
        }
        __unice_main(args);
        System.exit(0);
    }
"""

_MAIN = (
    r"public\s+static\s+void\s+main\s*\(\s*String\s*(?:\[\]\s*\w+|\w+\s*\[\]|\.\.\.\s*\w+)\s*\)"
    r"(?:\s*throws\s+[\w.]+(?:\s*,\s*[\w.]+)*)?"  # replaced by "throws Exception"
)
_CLASS_NAME = re.compile(r"\bclass\s+(\w+)")
_PUBLIC_CLASS = re.compile(r"\bpublic\s+(?:final\s+)?class\s+(\w+)")
_CORRECT = re.compile(r"List\s*<\s*Boolean\s*>\s+correct\s*=\s*Arrays\.asList\s*\(")
_CORRECT_CHECK = re.compile(
    r"if\s*\(\s*correct\.contains\s*\(\s*false\s*\)\s*\)\s*\{?\s*throw\s+new\s+AssertionError\s*\([^)]*\)\s*;\s*\}?\s*$"
)
_ASSERTING = re.compile(r"throw\s+new\s+AssertionError|\bassert\b")


_OBJECTS_EQUALS = r"(?:java\.util\.)?Objects\s*\.\s*equals\s*\("


_MAP_DECL = re.compile(
    r"(?:java\.util\.)?(?:Map|HashMap)\s*<[^;=]*>\s+(\w+)\s*=\s*new\s+(?:java\.util\.)?HashMap\s*<[^;]*>\s*\(\s*\)\s*;"
)
_MAP_PUT = re.compile(r"(\w+)\s*\.\s*put\s*\((.*)\)\s*;", re.S)


def constant_maps(body: str) -> tuple[dict[str, JMap], dict[str, list[tuple[int, int]]]]:
    """Maps ``main`` builds from constants only (``Map<K, V> m = new HashMap<>();`` then
    ``m.put(k, v);``...): their entries, and the statements that build each."""
    spans: dict[str, list[tuple[int, int]]] = {}
    entries: dict[str, list[tuple[Any, Any]]] = {}
    spoiled: set[str] = set()
    for start, end in statements(body):
        text = body[start:end].strip()
        declared = _MAP_DECL.fullmatch(text)
        if declared:
            name = declared.group(1)
            if name in spans:
                spoiled.add(name)
            spans[name], entries[name] = [(start, end)], []
            continue
        put = _MAP_PUT.fullmatch(text)
        if put and put.group(1) in spans:
            args = split_top_level(put.group(2))
            try:
                if len(args) != 2:
                    raise NotLiteral("put takes two values")
                key, value = (parse_literal(a, "java") for a in args)
            except (NotLiteral, ValueError, IndexError):
                spoiled.add(put.group(1))
                continue
            entries[put.group(1)] = [(k, v) for k, v in entries[put.group(1)] if k != key]
            entries[put.group(1)].append((key, value))
            spans[put.group(1)].append((start, end))
    maps = {n: JMap(tuple(entries[n])) for n in spans if n not in spoiled}
    return maps, {n: spans[n] for n in maps}


def java_check(condition: str, constants: dict[str, Any] | None = None) -> tuple[str, Check] | None:
    """``(X, check)`` when an element of the ``correct`` list compares an expression X with a
    constant the host can read (``X.equals(L)``, ``Objects.equals(X, L)``, ``X == L`` with a
    primitive ``L``, ``Math.abs(X - L) < T``, a bare ``s.f(...)`` / ``!s.f(...)``; ``X ==
    "L"``: identity, so the program writes X and whether it is the pooled instance of its
    string, ``X == X.intern()``, and the host requires both: that is ``==`` with the pooled
    literal, which the driver does not hold); None leaves it to the program."""
    text = strip_parens(condition)
    negate = False
    while text.startswith("!") and not text.startswith("!="):
        rest = text[1:].lstrip()
        grouped = rest.startswith("(") and strip_parens(rest) != rest
        if not grouped and not single_call(rest, chained=True):
            return None
        text, negate = strip_parens(rest), not negate
    try:
        if not text or top_level(text, ("&&", "||", "?", "->")):
            return None
        return _java_check(text, negate, condition, constants or {})
    except (NotLiteral, ValueError, IndexError):
        return None


def _java_check(
    text: str, negate: bool, condition: str, constants: dict[str, Any]
) -> tuple[str, Check] | None:
    objects = re.match(_OBJECTS_EQUALS, text)
    if objects and single_call(text):
        args = split_top_level(text[objects.end() : -1])
        sides = literal_side(*args, "java") if len(args) == 2 else None
        if sides is None:
            return None
        expected = parse_literal(sides[1], "java")
        return sides[0], Check("java", "equals", expected, negate=negate, text=condition)
    equal = top_level(text, ("==", "!="))
    if len(equal) > 1:
        return None
    if equal:
        ((i, op),) = equal
        sides = literal_side(text[:i].strip(), text[i + 2 :].strip(), "java")
        if sides is None:
            return None
        expected = parse_literal(sides[1], "java")
        if isinstance(expected, list) or expected is None:
            return None
        check = Check("java", "eq", expected, negate=negate != (op == "!="), text=condition)
        if isinstance(expected, str):  # identity: the value and whether it is the pooled one
            return f"__unice_interned({sides[0]})", check
        return sides[0], check
    dots = [i for i, _ in top_level(text, (".equals",)) if re.match(r"\.equals\s*\(", text[i:])]
    if dots:
        at = dots[-1]
        open_ = text.index("(", at)
        if matching(text, open_, code_mask(text)) != len(text) - 1:
            return None
        actual, literal = text[:at].strip(), text[open_ + 1 : -1].strip()
        if literal in constants and actual and not re.search(rf"\b{literal}\b", actual):
            return actual, Check(
                "java", "equals", constants[literal], negate=negate, text=condition
            )
        if not is_literal(literal, "java") or is_literal(actual, "java") or not actual:
            return None
        expected = parse_literal(literal, "java")
        return actual, Check("java", "equals", expected, negate=negate, text=condition)
    absolute = abs_check(text, "java", r"Math\s*\.\s*abs\s*\(", negate, condition)
    if absolute is not None:
        return absolute
    if single_call(text, chained=True) and not is_literal(text, "java"):
        return text, Check("java", "truthy", negate=negate, text=condition)
    return None


def java_computed(
    condition: str, names: frozenset[str], fails: bool
) -> tuple[str, str, Check] | None:
    """``(candidate side, expected side, check)`` when ``condition`` compares the candidate
    with a value the test computes (``X.equals(Y)``, ``Objects.equals(X, Y)``, ``X == Y``,
    ``X != Y``, HumanEval's ``Math.abs(s.poly(xs, x)) > T``, each maybe negated):
    ``languages/computed.py``. ``fails``: ``condition`` is the test's failure condition
    (``if (C) throw new AssertionError()``), so the assertion holds when it does not."""
    text, negate = strip_parens(condition), fails
    while text.startswith("!") and not text.startswith("!="):
        text, negate = strip_parens(text[1:]), not negate
    try:
        if not text or top_level(text, ("&&", "||", "?", "->")):
            return None
        objects = re.match(_OBJECTS_EQUALS, text)
        if objects and single_call(text):
            args = split_top_level(text[objects.end() : -1])
            found = sides(*args, names) if len(args) == 2 else None
            op = "equals"
        elif equal := top_level(text, ("==", "!=")):
            if len(equal) > 1:
                return None
            ((i, sign),) = equal
            found = sides(text[:i].strip(), text[i + 2 :].strip(), names)
            op, negate = "eq", negate != (sign == "!=")
        elif dots := [
            i for i, _ in top_level(text, (".equals",)) if re.match(r"\.equals\s*\(", text[i:])
        ]:
            open_ = text.index("(", dots[-1])
            if matching(text, open_, code_mask(text)) != len(text) - 1:
                return None
            found = sides(text[: dots[-1]].strip(), text[open_ + 1 : -1].strip(), names)
            op = "equals"
        else:
            prop = poly_property(text, r"Math\s*\.\s*abs\s*\(", names)
            bound = poly_bound(prop[2]) if prop else None
            if prop is None or bound is None:
                return None
            op = "poly_above" if bound[0] == ">" else "poly"
            check = Check(
                "java", op, tol=bound[1], inclusive=bound[0] == "<=", negate=negate,
                text=condition, origin="reference",
            )  # fmt: skip
            return prop[0], prop[1], check
    except (ValueError, IndexError):
        return None
    if found is None or (found[2] == "self" and op == "eq"):
        return None
    check = Check("java", op, negate=negate, text=condition, origin=found[2])
    return found[0], found[1], check


_THROWING_IF = re.compile(r"\bif\s*\(")
_THROW = re.compile(r"\s*(\{)?\s*throw\s+new\s+AssertionError\s*\(\s*\)\s*;\s*(\})?")
_ASSERT_STATEMENT = re.compile(r"assert\s+(.*?)\s*;\s*$", re.S)


def java_statement(text: str, k: int, reference: Reference) -> tuple[str, Check] | None:
    """The driver's code for statement ``text`` of ``main`` (case ``k``) when it asserts a
    comparison with a value the test computes, and its check; None leaves it to the program.

    ``assert C;``: one value. A loop (``for``/``while``) whose only assertion is one
    ``if (C) throw new AssertionError();``: one case (as the test counts it) whose value is
    every turn's, the ``if`` replaced by recording the turn's value (``__unice_series``); the
    test stopped at the first failing turn, so the host's check does (``stop_first``)."""
    text = text.strip()
    throwing = _throwing_if(text)
    if throwing is not None:  # if (C) throw new AssertionError(); on its own
        found = java_computed(throwing, reference.names, fails=True)
        chosen = _chosen(k, found, reference)
        return (f"__unice_value({k}, () -> ({chosen[0]}));", chosen[1]) if chosen else None
    single = _ASSERT_STATEMENT.fullmatch(text)
    if single:
        if ":" in single.group(1) or "assert" in single.group(1):
            return None
        found = java_computed(single.group(1), reference.names, fails=False)
        chosen = _chosen(k, found, reference)
        return (f"__unice_value({k}, () -> ({chosen[0]}));", chosen[1]) if chosen else None
    if not re.match(r"(?:for|while)\s*\(", text) or len(_ASSERTING.findall(text)) != 1:
        return None
    mask = code_mask(text)
    for match in _THROWING_IF.finditer(text):
        if not mask[match.start()]:
            continue
        close = matching(text, match.end() - 1, mask)
        throw = _THROW.match(text, close + 1)
        if throw is None or bool(throw.group(1)) != bool(throw.group(2)):
            continue
        if re.match(r"\s*else\b", text[throw.end() :]):
            return None
        found = java_computed(text[match.end() : close], reference.names, fails=True)
        if found is not None:
            found = (
                found[0],
                found[1],
                dataclasses.replace(found[2], each="list", stop_first=True),
            )
        chosen = _chosen(k, found, reference)
        if chosen is None:
            return None
        turn = f"__unice_turn(__unice_turns, {chosen[0]});"
        body = text[: match.start()] + turn + text[throw.end() :]
        return f"__unice_series({k}, (__unice_turns) -> {{ {body} }});", chosen[1]
    return None


def _throwing_if(text: str) -> str | None:
    """``C`` of a statement that is only ``if (C) throw new AssertionError();`` (braces
    allowed, no ``else``), else None."""
    match = re.match(r"if\s*\(", text)
    if match is None:
        return None
    try:
        close = matching(text, match.end() - 1, code_mask(text))
    except ValueError:
        return None
    throw = _THROW.match(text, close + 1)
    if throw is None or throw.end() != len(text) or bool(throw.group(1)) != bool(throw.group(2)):
        return None
    return text[match.end() : close]


def java_throwing_check(text: str, k: int) -> tuple[str, Check] | None:
    """A statement ``if (C) throw new AssertionError();`` (HE-Eval-X's translated Java
    assertions) whose ``!C`` compares with a constant: a value case like a ``correct``
    element (``java_check``), needing no reference."""
    condition = _throwing_if(text.strip())
    found = java_check(f"!({condition})") if condition is not None else None
    if found is None:
        return None
    return f"__unice_value({k}, () -> ({found[0]}));", found[1]


def _chosen(
    k: int, found: tuple[str, str, Check] | None, reference: Reference
) -> tuple[str, Check] | None:
    """What case ``k``'s driver writes: the candidate's side (both, for ``origin ==
    "self"``), or the reference's expected side (``cpp.computed_case``'s rule)."""
    if found is None:
        return None
    candidate, expected, check = found
    if reference.role == "reference":
        return (f"(Object) ({expected})", check) if check.origin == "reference" else None
    if check.origin == "self":
        return f"java.util.Arrays.asList((Object) ({candidate}), (Object) ({expected}))", check
    return (f"(Object) ({candidate})", check) if k in reference.enabled else None


def _gaps(spans: set[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """The parts of ``range(length)`` outside ``spans``."""
    out, at = [], 0
    for start, end in sorted(spans):
        out.append((at, start))
        at = end
    out.append((at, length))
    return out


def _server_source() -> str:
    return (Path(__file__).parent / "java_server" / "UniceJavac.java").read_text()


class Java(Language):
    name = "java"
    stop_tokens = ("\n    }\n",)
    executables = ("javac", "java")
    install_hint = "apt install default-jdk-headless libjavatuples-java"
    token_protocol = True
    reference_cases = True

    def missing_toolchain(self) -> str | None:
        missing = super().missing_toolchain()
        if missing is None and not Path(JAVATUPLES).exists():
            return f"java: {JAVATUPLES} not found (apt install libjavatuples-java)"
        return missing

    def _cases(
        self, test: str, reference: Reference | None = None
    ) -> tuple[list[tuple[int, int, str]], list[str], tuple[int, int], list[Check | None]]:
        """(edits to the test, case sources, main header span, host-side checks)."""
        mask = code_mask(test)
        header = find_code(test, _MAIN)
        if header is None:
            raise SplitError("no 'public static void main(String[] args)' in the Java test")
        open_brace = test.index("{", header.end())
        close = matching(test, open_brace, mask)
        body_start = open_brace + 1
        body = test[body_start:close]
        edits: list[tuple[int, int, str]] = []
        cases: list[str] = []
        checks: list[Check | None] = []
        # Expected maps built from constants: judged on the host when every use of the map
        # is one correct element's X.equals(map), and then not built in the program.
        maps, map_spans = constant_maps(body)
        builders = {span for spans in map_spans.values() for span in spans}
        outside = "".join(
            body[a:b] for a, b in _gaps(builders, len(body))
        )  # the body without the builders
        for name in list(maps):
            uses = len(re.findall(rf"\b{name}\b", outside))
            equals = len(re.findall(rf"\.\s*equals\s*\(\s*{name}\s*\)", outside))
            if uses != equals:
                del maps[name], map_spans[name]
        removed = {span for spans in map_spans.values() for span in spans}
        for start, end in statements(body):
            text = body[start:end]
            if (start, end) in removed:
                edits.append((body_start + start, body_start + end, ""))
                continue
            correct = _CORRECT.match(text)
            if correct:
                inner_close = matching(text, correct.end() - 1, code_mask(text))
                parts = [p for p in split_top_level(text[correct.end() : inner_close]) if p]
                calls = []
                for part in parts:
                    found = java_check(part, maps)
                    if found:
                        calls.append(f"__unice_value({len(cases)}, () -> ({found[0]}));")
                    else:
                        calls.append(f"__unice_case({len(cases)}, () -> ({part}));")
                    cases.append(part)
                    checks.append(found[1] if found else None)
                edits.append((body_start + start, body_start + end, "\n".join(calls)))
            elif _CORRECT_CHECK.match(text):
                edits.append((body_start + start, body_start + end, ""))
            elif _ASSERTING.search(text):
                k = len(cases)
                cases.append(text)
                computed = java_throwing_check(text, k)
                if computed is None and reference is not None:
                    computed = java_statement(text, k, reference)
                if computed is not None:
                    checks.append(computed[1])
                    edits.append((body_start + start, body_start + end, computed[0]))
                    continue
                checks.append(None)
                edits.append(
                    (
                        body_start + start,
                        body_start + end,
                        f"__unice_block({k}, () -> {{ {text} }});",
                    )
                )
        if not cases:
            raise SplitError(
                "no assertion (correct list, throw AssertionError, assert) in the Java test"
            )
        return edits, cases, (header.start(), header.end()), checks

    def split(self, test: str) -> list[str]:
        return self._cases(test)[1]

    def driver(self, source: str, test: str, reference: Reference | None = None) -> Driver:
        edits, cases, (h_start, h_end), checks = self._cases(test, reference)
        # The support methods go into the class that holds main, just before main.
        edits.append(
            (
                h_start,
                h_end,
                SUPPORT + "\n    static void __unice_main(String[] __unice_args) throws Exception",
            )
        )
        rewritten = replace_spans(test, edits)
        text = f"{source}\n{rewritten}\n"
        main_at = len(source) + 1 + h_start
        mask = code_mask(text)
        owners = [m for m in _CLASS_NAME.finditer(text[:main_at]) if mask[m.start()]]
        main_class = owners[-1].group(1) if owners else "Main"
        public = _PUBLIC_CLASS.search(text)
        file = f"{public.group(1) if public else main_class}.java"
        return Driver({file: text}, len(cases), f"{main_class} {file}", checks=tuple(checks))

    @property
    def compile_server(self) -> ServerSpec:
        """One warm javac for all programs (~0.15 CPU-s per program instead of ~1)."""
        return ServerSpec(
            files={"UniceJavac.java": _server_source()},
            build_argv=["javac", "-nowarn", "-d", "{dir}", "{dir}/UniceJavac.java"],
            run_argv=[
                "java",
                "-XX:+UseSerialGC",
                "-Xmx1g",
                "-XX:-UsePerfData",
                "-cp",
                "{dir}",
                "UniceJavac",
                JAVATUPLES,
            ],  # fmt: skip
        )

    def compile_argv(self, build: Path, mode: str = "") -> list[str]:
        return [
            "javac", "-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1",
            "-J-XX:-UsePerfData", "-nowarn", "-proc:none", "-encoding", "UTF-8", "-cp", JAVATUPLES,
            "-d", "classes", (mode.split() or ["", "Main.java"])[-1],
        ]  # fmt: skip

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        main_class = (mode.split() or ["Main"])[0]
        flags = [
            "-ea", f"-Xmx{memory_mb}m", "-Xss8m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData", "-XX:ActiveProcessorCount=1", "-Xshare:auto",
        ]  # fmt: skip
        return RunSpec(
            [
                "java",
                *flags,
                "-cp",
                f"{{build}}/classes:{JAVATUPLES}",
                main_class,
                "{start}",
                "{fd}",
            ],
            address_space_limit=False,
        )
