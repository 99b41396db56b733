"""Java's support code, put into the class that holds the test's ``main`` just before it
(``languages/java.py``): the report channel and token, each case's guard (``__unice_case``:
an in-program verdict; ``__unice_value``: the value in canonical form, judged on the host,
``compiled/checks.py``; ``__unice_series``: a loop's values, turn by turn,
``languages/computed.py``) and the ``main`` that reads the token and the start case before
the program's own classes are first used, then runs the test's ``main`` as ``__unice_main``.

Why a module of its own: it is Java source, not the rules that rewrite a test, and it is most
of the driver's text (as ``cpp_support.py``, ``go_support.py`` and ``rust_support.py`` are
for their languages).
"""

from __future__ import annotations

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
