"""Go's support code: the file beside every Go driver (``aaa_unice_support_test.go``) that
reads the report token and the start case, runs each case (``__unice_case``: testify's
verdict; ``__unice_value``: the value with its Go type, written for the host to judge) and
writes the reports (``languages/base.py``'s protocol; the serialisation: ``compiled/values.py``).
"""

from __future__ import annotations

SUPPORT = """package main

import (
\t"fmt"
\t"math"
\t"os"
\t"reflect"
\t"strconv"
\t"strings"
)

// The run's report token, from stdin: this file sorts first, so this variable is initialised
// before the program's package-level variables (and before every init function).
var __unice_token = __unice_read_token()

var __unice_start, __unice_fd = __unice_args()

// One *os.File for the whole run, held by a global: a File made per report becomes garbage
// and its finalizer closes the result descriptor in the middle of the run.
var __unice_out = os.NewFile(uintptr(__unice_fd), "unice")

func __unice_read_token() string {
\tvar token []byte
\tbuf := make([]byte, 1)
\tfor len(token) < 64 {
\t\tn, err := os.Stdin.Read(buf)
\t\tif n <= 0 || err != nil || buf[0] == '\\n' {
\t\t\tbreak
\t\t}
\t\ttoken = append(token, buf[0])
\t}
\treturn string(token)
}

func __unice_args() (int, int) {
\tstart, err1 := strconv.Atoi(os.Getenv("UNICE_START"))
\tfd, err2 := strconv.Atoi(os.Getenv("UNICE_FD"))
\tif err1 != nil || err2 != nil {
\t\treturn 0, 2
\t}
\treturn start, fd
}

func __unice_line(what string, k int, rest string) {
\tif rest != "" {
\t\trest = " " + rest
\t}
\t__unice_out.WriteString("\\n" + what + " " + strconv.Itoa(k) + " " + __unice_token + rest + "\\n")
}

func __unice_mark(what string, k int) {
\t__unice_line(what, k, "")
}

func __unice_case(k int, f func() bool) bool {
\tif k < __unice_start {
\t\treturn true
\t}
\t__unice_mark("S", k)
\tstatus := "E"
\tfunc() {
\t\tdefer func() {
\t\t\tif r := recover(); r != nil {
\t\t\t\tstatus = "E " + strings.Join(strings.Fields(fmt.Sprint(r)), " ")
\t\t\t}
\t\t}()
\t\tif f() {
\t\t\tstatus = "P"
\t\t} else {
\t\t\tstatus = "F"
\t\t}
\t}()
\tcode, detail, _ := strings.Cut(status, " ")
\t__unice_line(code, k, detail)
\treturn true
}

// A value case: the value with its Go type (foreign_checks.py), judged on the host.
func __unice_value(k int, f func() interface{}) bool {
\tif k < __unice_start {
\t\treturn true
\t}
\t__unice_mark("S", k)
\tfailed, text := "", ""
\tfunc() {
\t\tdefer func() {
\t\t\tif r := recover(); r != nil {
\t\t\t\tfailed = "panic: " + strings.Join(strings.Fields(fmt.Sprint(r)), " ")
\t\t\t}
\t\t}()
\t\tvar b strings.Builder
\t\t__unice_put(&b, reflect.ValueOf(f()), 0)
\t\ttext = b.String()
\t}()
\tif failed != "" {
\t\t__unice_line("E", k, failed)
\t} else if len(text) > 4<<20 {
\t\t__unice_line("V", k, `{"$toolong":1}`)
\t} else {
\t\t__unice_line("V", k, text)
\t}
\treturn true
}

func __unice_string(b *strings.Builder, s string) {
\tb.WriteByte('"')
\tfor i := 0; i < len(s); i++ {
\t\tc := s[i]
\t\tif c == '"' || c == '\\\\' {
\t\t\tb.WriteByte('\\\\')
\t\t\tb.WriteByte(c)
\t\t} else if c < 0x20 || c >= 0x7f {
\t\t\tfmt.Fprintf(b, "\\\\u%04x", c)
\t\t} else {
\t\t\tb.WriteByte(c)
\t\t}
\t}
\tb.WriteByte('"')
}

func __unice_put(b *strings.Builder, v reflect.Value, depth int) {
\tif depth > 200 {
\t\tpanic("value nested too deep")
\t}
\tif b.Len() > 4<<20 {
\t\treturn
\t}
\tif !v.IsValid() || (v.Kind() == reflect.Interface && v.IsNil()) {
\t\tb.WriteString(`{"$go":["nil","nil",null]}`)
\t\treturn
\t}
\tif v.Kind() == reflect.Interface {
\t\t__unice_put(b, v.Elem(), depth+1)
\t\treturn
\t}
\tb.WriteString(`{"$go":[`)
\tkind := "opaque"
\tswitch v.Kind() {
\tcase reflect.Bool:
\t\tkind = "bool"
\tcase reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
\t\treflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
\t\tkind = "int"
\tcase reflect.Float32, reflect.Float64:
\t\tkind = "float"
\tcase reflect.String:
\t\tkind = "string"
\tcase reflect.Slice, reflect.Array, reflect.Struct:
\t\tkind = "list"
\tcase reflect.Map:
\t\tkind = "map"
\tcase reflect.Ptr:
\t\tkind = "ptr"
\t}
\tb.WriteString(`"` + kind + `",`)
\t__unice_string(b, v.Type().String())
\tb.WriteByte(',')
\tswitch v.Kind() {
\tcase reflect.Bool:
\t\tb.WriteString(strconv.FormatBool(v.Bool()))
\tcase reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
\t\tb.WriteString(`"` + strconv.FormatInt(v.Int(), 10) + `"`)
\tcase reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
\t\tb.WriteString(`"` + strconv.FormatUint(v.Uint(), 10) + `"`)
\tcase reflect.Float32:
\t\tfmt.Fprintf(b, `"%08x"`, math.Float32bits(float32(v.Float())))
\tcase reflect.Float64:
\t\tfmt.Fprintf(b, `"%016x"`, math.Float64bits(v.Float()))
\tcase reflect.String:
\t\t__unice_string(b, v.String())
\tcase reflect.Slice, reflect.Map, reflect.Ptr:
\t\tif v.IsNil() {
\t\t\tb.WriteString("null")
\t\t} else if v.Kind() == reflect.Map {
\t\t\tb.WriteByte('[')
\t\t\titer := v.MapRange()
\t\t\tfor first := true; iter.Next(); first = false {
\t\t\t\tif !first {
\t\t\t\t\tb.WriteByte(',')
\t\t\t\t}
\t\t\t\tb.WriteByte('[')
\t\t\t\t__unice_put(b, iter.Key(), depth+1)
\t\t\t\tb.WriteByte(',')
\t\t\t\t__unice_put(b, iter.Value(), depth+1)
\t\t\t\tb.WriteByte(']')
\t\t\t}
\t\t\tb.WriteByte(']')
\t\t} else if v.Kind() == reflect.Ptr {
\t\t\tb.WriteByte('[')
\t\t\t__unice_put(b, v.Elem(), depth+1)
\t\t\tb.WriteByte(']')
\t\t} else {
\t\t\t__unice_items(b, v, depth)
\t\t}
\tcase reflect.Array:
\t\t__unice_items(b, v, depth)
\tcase reflect.Struct:
\t\tb.WriteByte('[')
\t\tfor i := 0; i < v.NumField(); i++ {
\t\t\tif i > 0 {
\t\t\t\tb.WriteByte(',')
\t\t\t}
\t\t\t__unice_put(b, v.Field(i), depth+1)
\t\t}
\t\tb.WriteByte(']')
\tdefault:
\t\tb.WriteString("null")
\t}
\tb.WriteString("]}")
}

func __unice_items(b *strings.Builder, v reflect.Value, depth int) {
\tb.WriteByte('[')
\tfor i := 0; i < v.Len(); i++ {
\t\tif i > 0 {
\t\t\tb.WriteByte(',')
\t\t}
\t\t__unice_put(b, v.Index(i), depth+1)
\t}
\tb.WriteByte(']')
}
"""
SUPPORT_FILE = "aaa_unice_support_test.go"
"""Sorted before ``main_test.go``: Go initialises package variables file by file in that order."""
