"""Rust's support code (``languages/rust.py``): the report channel and token, each case's
guard (``__unice_case``: an in-program verdict; ``__unice_value``: the value written in
canonical form by ``__UniceSer``, judged on the host, ``compiled/checks.py``), compiled once
as a crate of its own (``RUNTIME``) that every driver links and imports (``LINK_RUNTIME``).
"""

from __future__ import annotations

import re

SUPPORT = r"""
fn __unice_token() -> &'static str {
    static TOKEN: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TOKEN.get_or_init(|| {
        let mut line = String::new();
        let _ = std::io::stdin().read_line(&mut line);
        line.trim_end_matches('\n').to_string()
    })
}

fn __unice_line(what: &str, k: usize, detail: &str) {
    use std::io::Write;
    let fd = std::env::var("UNICE_FD").unwrap_or_else(|_| "2".to_string());
    if let Ok(mut out) = std::fs::OpenOptions::new().write(true).open(format!("/proc/self/fd/{}", fd)) {
        let rest = if detail.is_empty() { String::new() } else { format!(" {}", detail) };
        let _ = out.write_all(format!("\n{} {} {}{}\n", what, k, __unice_token(), rest).as_bytes());
    }
}

fn __unice_mark(what: &str, k: usize) {
    __unice_line(what, k, "");
}

fn __unice_start() -> usize {
    std::env::var("UNICE_START").ok().and_then(|s| s.parse().ok()).unwrap_or(0)
}

fn __unice_panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    let message = payload
        .downcast_ref::<String>()
        .map(|s| s.as_str())
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    message.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn __unice_case<F: FnOnce() -> bool>(k: usize, f: F) -> bool {
    if k < __unice_start() {
        return true;
    }
    __unice_mark("S", k);
    std::panic::set_hook(Box::new(|_| {}));
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(true) => __unice_mark("P", k),
        Ok(false) => __unice_mark("F", k),
        Err(payload) => {
            let message = __unice_panic_text(&payload);
            if message.starts_with("assertion") {
                __unice_mark("F", k)
            } else {
                __unice_line("E", k, &message)
            }
        }
    }
    true
}

// A value case: the value in canonical form (foreign_checks.py), judged on the host. A panic
// whose message starts with "assertion" (the program's own assert!) is a failure, as in
// an in-program case: the host reads it as a value equal to nothing.
fn __unice_value<F: FnOnce() -> String>(k: usize, f: F) -> bool {
    if k < __unice_start() {
        return true;
    }
    __unice_mark("S", k);
    std::panic::set_hook(Box::new(|_| {}));
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(text) => {
            let text = if text.len() > (4 << 20) { "{\"$toolong\":1}".to_string() } else { text };
            __unice_line("V", k, &text)
        }
        Err(payload) => {
            let message = __unice_panic_text(&payload);
            if message.starts_with("assertion") {
                __unice_line("V", k, "{\"$assertion_panic\":1}")
            } else {
                __unice_line("E", k, &message)
            }
        }
    }
    true
}

trait __UniceSer {
    fn __unice_put(&self, out: &mut String);
}
macro_rules! __unice_ints {
    ($($t:ty),*) => { $(impl __UniceSer for $t { fn __unice_put(&self, out: &mut String) { out.push_str(&self.to_string()); } })* }
}
__unice_ints!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);
impl __UniceSer for f64 {
    fn __unice_put(&self, out: &mut String) { out.push_str(&format!("{{\"$f64\":\"{:016x}\"}}", self.to_bits())); }
}
impl __UniceSer for f32 {
    fn __unice_put(&self, out: &mut String) { out.push_str(&format!("{{\"$f32\":\"{:08x}\"}}", self.to_bits())); }
}
impl __UniceSer for bool {
    fn __unice_put(&self, out: &mut String) { out.push_str(if *self { "true" } else { "false" }); }
}
impl __UniceSer for char {
    fn __unice_put(&self, out: &mut String) { out.push_str(&format!("{{\"$char\":\"{}\"}}", *self as u32)); }
}
impl __UniceSer for str {
    fn __unice_put(&self, out: &mut String) {
        out.push('"');
        for c in self.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 || (c as u32) == 0x7f => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
    }
}
impl __UniceSer for String {
    fn __unice_put(&self, out: &mut String) { self.as_str().__unice_put(out); }
}
impl<'a, T: __UniceSer + ?Sized> __UniceSer for &'a T {
    fn __unice_put(&self, out: &mut String) { (**self).__unice_put(out); }
}
impl<T: __UniceSer + ?Sized> __UniceSer for Box<T> {
    fn __unice_put(&self, out: &mut String) { (**self).__unice_put(out); }
}
fn __unice_items<'a, T: __UniceSer + 'a, I: Iterator<Item = &'a T>>(items: I, out: &mut String) {
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 { out.push(','); }
        item.__unice_put(out);
    }
    out.push(']');
}
impl<T: __UniceSer> __UniceSer for [T] {
    fn __unice_put(&self, out: &mut String) { __unice_items(self.iter(), out); }
}
impl<T: __UniceSer, const N: usize> __UniceSer for [T; N] {
    fn __unice_put(&self, out: &mut String) { __unice_items(self.iter(), out); }
}
impl<T: __UniceSer> __UniceSer for Vec<T> {
    fn __unice_put(&self, out: &mut String) { __unice_items(self.iter(), out); }
}
impl<T: __UniceSer> __UniceSer for std::collections::VecDeque<T> {
    fn __unice_put(&self, out: &mut String) { __unice_items(self.iter(), out); }
}
impl<T: __UniceSer> __UniceSer for Option<T> {
    fn __unice_put(&self, out: &mut String) {
        out.push_str("{\"$optional\":[");
        if let Some(v) = self { v.__unice_put(out); }
        out.push_str("]}");
    }
}
impl<K: __UniceSer, V: __UniceSer, S> __UniceSer for std::collections::HashMap<K, V, S> {
    fn __unice_put(&self, out: &mut String) {
        out.push_str("{\"$map\":[");
        for (i, (k, v)) in self.iter().enumerate() {
            if i > 0 { out.push(','); }
            out.push('[');
            k.__unice_put(out);
            out.push(',');
            v.__unice_put(out);
            out.push(']');
        }
        out.push_str("]}");
    }
}
impl<K: __UniceSer, V: __UniceSer> __UniceSer for std::collections::BTreeMap<K, V> {
    fn __unice_put(&self, out: &mut String) {
        out.push_str("{\"$map\":[");
        for (i, (k, v)) in self.iter().enumerate() {
            if i > 0 { out.push(','); }
            out.push('[');
            k.__unice_put(out);
            out.push(',');
            v.__unice_put(out);
            out.push(']');
        }
        out.push_str("]}");
    }
}
impl<T: __UniceSer, S> __UniceSer for std::collections::HashSet<T, S> {
    fn __unice_put(&self, out: &mut String) { out.push_str("{\"$set\":"); __unice_items(self.iter(), out); out.push('}'); }
}
impl<T: __UniceSer> __UniceSer for std::collections::BTreeSet<T> {
    fn __unice_put(&self, out: &mut String) { out.push_str("{\"$set\":"); __unice_items(self.iter(), out); out.push('}'); }
}
macro_rules! __unice_tuples {
    ($(($($n:tt $t:ident),+)),*) => { $(impl<$($t: __UniceSer),+> __UniceSer for ($($t,)+) {
        fn __unice_put(&self, out: &mut String) {
            out.push('[');
            let mut _first = true;
            $( if !_first { out.push(','); } _first = false; self.$n.__unice_put(out); )+
            out.push(']');
        }
    })* }
}
__unice_tuples!((0 A), (0 A, 1 B), (0 A, 1 B, 2 C), (0 A, 1 B, 2 C, 3 D));
// A type without __UniceSer (the program's own enum) is written opaque, equal to nothing:
// autoref dispatch picks the first impl whose receiver fits.
struct __UniceWrap<'a, T: ?Sized>(&'a T);
trait __UniceSerYes { fn __unice_text(&self) -> String; }
impl<'a, 'b, T: __UniceSer + ?Sized> __UniceSerYes for &'b __UniceWrap<'a, T> {
    fn __unice_text(&self) -> String { let mut out = String::new(); self.0.__unice_put(&mut out); out }
}
trait __UniceSerNo { fn __unice_text(&self) -> String; }
impl<'a, T: ?Sized> __UniceSerNo for __UniceWrap<'a, T> {
    fn __unice_text(&self) -> String { "{\"$opaque\":1}".to_string() }
}
"""

# The support code is compiled once, as its own crate (an rlib in the shared build cache, made
# like C++'s precompiled prelude), instead of in every program: type-checking and generating
# it was about half of a HumanEval-X build. Its items are public there, and the driver imports
# every one of them at its crate root, so a program names them (and collides with them) as
# when they were in its own file; generic ones are still instantiated in the program's crate.
RUNTIME_CRATE, RUNTIME_FILE, RUNTIME_LIB = "__unice_rt", "unice_rt.rs", "lib__unice_rt.rlib"
RUNTIME = re.sub(r"^(fn|trait|struct) ", r"pub \1 ", SUPPORT, flags=re.M).replace(
    "(&'a T);", "(pub &'a T);"
)
LINK_RUNTIME = (
    f"extern crate {RUNTIME_CRATE};\n#[allow(unused_imports)]\nuse {RUNTIME_CRATE}::{{"
    + ", ".join(sorted(set(re.findall(r"^pub (?:fn|trait|struct) (\w+)", RUNTIME, re.M))))
    + "};\n"
)
