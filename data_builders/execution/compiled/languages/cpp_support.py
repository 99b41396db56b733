"""C++'s support code, compiled into every C++ driver before the program (``languages/cpp.py``):
the report channel and token, each case's guard (``__unice_case``: an in-program verdict;
``__unice_value``: the value in canonical form, judged on the host, ``compiled/checks.py``)
and the ``main`` that runs the cases from the start case on.
"""

from __future__ import annotations

SUPPORT_HEADERS = ("<new>", "<exception>")
SUPPORT = r"""
extern "C" long write(int, const void*, unsigned long);
extern "C" long read(int, void*, unsigned long);
static int __unice_start = 0, __unice_fd = 2;
static char __unice_token[72];
// The run's report token, from stdin, before the program's own static initialisers run
// (they have the default priority, after every numbered one).
__attribute__((constructor(101))) static void __unice_take_token() {
    int n = 0;
    while (n < 64) {
        long got = read(0, __unice_token + n, 1);
        if (got <= 0 || __unice_token[n] == '\n') break;
        n++;
    }
    __unice_token[n] = 0;
}
static void __unice_write(const char* p, unsigned long n) {
    while (n > 0) {
        long done = write(__unice_fd, p, n);
        if (done <= 0) return;
        p += done;
        n -= (unsigned long)done;
    }
}
static int __unice_head(char* buf, char c, int k) {
    char digits[16];
    int n = 0, d = 0;
    buf[n++] = '\n';
    buf[n++] = c;
    buf[n++] = ' ';
    do { digits[d++] = (char)('0' + k % 10); k /= 10; } while (k);
    while (d) buf[n++] = digits[--d];
    buf[n++] = ' ';
    for (int i = 0; __unice_token[i]; i++) buf[n++] = __unice_token[i];
    return n;
}
static void __unice_mark(char c, int k, const char* detail = 0) {
    char buf[400];
    int n = __unice_head(buf, c, k);
    if (detail) {
        buf[n++] = ' ';
        for (int i = 0; detail[i] && n < 390; i++) buf[n++] = detail[i] == '\n' ? ' ' : detail[i];
    }
    buf[n++] = '\n';
    __unice_write(buf, (unsigned long)n);
}
static int __unice_int(const char* s) {
    int v = 0;
    while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
    return v;
}
template <class F> static bool __unice_case(int k, F f) {
    if (k < __unice_start) return true;
    __unice_mark('S', k);
    try {
        __unice_mark(f() ? 'P' : 'F', k);
    } catch (const std::bad_alloc&) {
        __unice_mark('M', k);
    } catch (const std::exception& e) {
        __unice_mark('E', k, e.what());
    } catch (...) {
        __unice_mark('E', k);
    }
    return true;
}
// A value in canonical form (foreign_checks.py): by what the type offers, no header needed.
struct __unice_out {
    char* p = nullptr;
    unsigned long n = 0, cap = 0;
    bool over = false;
    __unice_out() {}
    __unice_out(const __unice_out&) = delete;
    ~__unice_out() { delete[] p; }
    void put(char c) {
        if (over) return;
        if (n == cap) {
            if (cap >= (4ul << 20)) { over = true; return; }
            unsigned long grown = cap ? cap * 2 : 256;
            char* q = new char[grown];
            for (unsigned long i = 0; i < n; i++) q[i] = p[i];
            delete[] p;
            p = q;
            cap = grown;
        }
        p[n++] = c;
    }
    void text(const char* s) { while (*s) put(*s++); }
};
static void __unice_unsigned(__unice_out& o, unsigned long long v) {
    char digits[24];
    int d = 0;
    do { digits[d++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (d) o.put(digits[--d]);
}
static void __unice_signed(__unice_out& o, long long v) {
    if (v < 0) { o.put('-'); __unice_unsigned(o, 0ull - (unsigned long long)v); }
    else __unice_unsigned(o, (unsigned long long)v);
}
static void __unice_bits(__unice_out& o, const char* tag, unsigned long long bits, int digits) {
    o.text(tag);
    for (int i = digits - 1; i >= 0; i--) o.put("0123456789abcdef"[(bits >> (4 * i)) & 15]);
    o.text("\"}");
}
static void __unice_chars(__unice_out& o, const char* s, unsigned long n) {
    o.put('"');
    for (unsigned long i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') { o.put('\\'); o.put((char)c); }
        else if (c < 0x20 || c >= 0x7f) {
            o.text("\\u00");
            o.put("0123456789abcdef"[c >> 4]);
            o.put("0123456789abcdef"[c & 15]);
        } else o.put((char)c);
    }
    o.put('"');
}
static void __unice_put(__unice_out& o, bool v) { o.text(v ? "true" : "false"); }
static void __unice_put(__unice_out& o, char v) { __unice_signed(o, v); }
static void __unice_put(__unice_out& o, signed char v) { __unice_signed(o, v); }
static void __unice_put(__unice_out& o, unsigned char v) { __unice_unsigned(o, v); }
static void __unice_put(__unice_out& o, short v) { __unice_signed(o, v); }
static void __unice_put(__unice_out& o, unsigned short v) { __unice_unsigned(o, v); }
static void __unice_put(__unice_out& o, int v) { __unice_signed(o, v); }
static void __unice_put(__unice_out& o, unsigned v) { __unice_unsigned(o, v); }
static void __unice_put(__unice_out& o, long v) { __unice_signed(o, v); }
static void __unice_put(__unice_out& o, unsigned long v) { __unice_unsigned(o, v); }
static void __unice_put(__unice_out& o, long long v) { __unice_signed(o, v); }
static void __unice_put(__unice_out& o, unsigned long long v) { __unice_unsigned(o, v); }
static void __unice_put(__unice_out& o, double v) {
    unsigned long long bits;
    __builtin_memcpy(&bits, &v, sizeof bits);
    __unice_bits(o, "{\"$f64\":\"", bits, 16);
}
static void __unice_put(__unice_out& o, float v) {
    unsigned int bits;
    __builtin_memcpy(&bits, &v, sizeof bits);
    __unice_bits(o, "{\"$f32\":\"", bits, 8);
}
static void __unice_put(__unice_out& o, long double v) { __unice_put(o, (double)v); }
static void __unice_put(__unice_out& o, const char* v) {
    unsigned long n = 0;
    while (v[n]) n++;
    __unice_chars(o, v, n);
}
static void __unice_put(__unice_out& o, char* v) { __unice_put(o, (const char*)v); }
template <class T> static void __unice_put(__unice_out& o, const T& v);
struct __unice_p0 {};
struct __unice_p1 : __unice_p0 {};
struct __unice_p2 : __unice_p1 {};
struct __unice_p3 : __unice_p2 {};
struct __unice_p4 : __unice_p3 {};
template <class T>
static auto __unice_any(__unice_out& o, const T& v, __unice_p4) -> decltype(v.c_str(), v.size(), void()) {
    __unice_chars(o, (const char*)v.data(), (unsigned long)v.size());
}
template <class T>
static auto __unice_any(__unice_out& o, const T& v, __unice_p3)
    -> decltype(sizeof(typename T::mapped_type*), v.begin()->first, void()) {
    o.text("{\"$map\":[");
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) o.put(',');
        first = false;
        o.put('[');
        __unice_put(o, it->first);
        o.put(',');
        __unice_put(o, it->second);
        o.put(']');
    }
    o.text("]}");
}
template <class T>
static auto __unice_any(__unice_out& o, const T& v, __unice_p2)
    -> decltype(v.begin() != v.end(), sizeof(typename T::value_type*), void()) {
    o.put('[');
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) o.put(',');
        first = false;
        const typename T::value_type& item = *it;  // vector<bool>: a bool, not a proxy
        __unice_put(o, item);
    }
    o.put(']');
}
template <class T>
static auto __unice_any(__unice_out& o, const T& v, __unice_p1) -> decltype(v.first, v.second, void()) {
    o.put('[');
    __unice_put(o, v.first);
    o.put(',');
    __unice_put(o, v.second);
    o.put(']');
}
template <class T> static void __unice_any(__unice_out& o, const T&, __unice_p0) {
    o.text("{\"$opaque\":1}");
}
template <class T> static void __unice_put(__unice_out& o, const T& v) {
    __unice_any(o, v, __unice_p4());
}
// A value case: the value of the test's expression, judged on the host. Written once the
// expression and its temporaries are done (a destructor that crashes ends the case first).
template <class F> static bool __unice_value(int k, F f) {
    if (k < __unice_start) return true;
    __unice_mark('S', k);
    try {
        __unice_out out;
        __unice_put(out, f());
        if (out.over) { out.n = 0; out.over = false; out.text("{\"$toolong\":1}"); }
        char head[128];
        int n = __unice_head(head, 'V', k);
        head[n++] = ' ';
        char* line = new char[n + out.n + 1];
        for (int i = 0; i < n; i++) line[i] = head[i];
        for (unsigned long i = 0; i < out.n; i++) line[n + i] = out.p[i];
        line[n + out.n] = '\n';
        __unice_write(line, n + out.n + 1);
        delete[] line;
    } catch (const std::bad_alloc&) {
        __unice_mark('M', k);
    } catch (const std::exception& e) {
        __unice_mark('E', k, e.what());
    } catch (...) {
        __unice_mark('E', k);
    }
    return true;
}
"""

MAIN = r"""
int main(int argc, char** argv) {
    if (argc > 2) { __unice_start = __unice_int(argv[1]); __unice_fd = __unice_int(argv[2]); }
    __unice_main();
    return 0;
}
"""
