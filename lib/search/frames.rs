//! Stack frames of the languages other than Python, as issues quote them: the file, line and
//! function each frame names, with the function written as cds's qualified names are
//! (`Class.method`), so a frame is looked up like a traceback frame of Python.
//!
//! * JavaScript/TypeScript (V8 and Firefox): `at fn (src/x.js:10:5)`, `at src/x.js:10:5`,
//!   `fn@src/x.js:10:5`;
//! * Java: `at com.acme.Foo$Inner.bar(Foo.java:42)` (the file's directory is the package's);
//! * Go: a function line `github.com/a/b/pkg.(*Server).Serve(...)` and the next line's
//!   `\t/path/pkg/server.go:123 +0x1d`;
//! * Rust: `panicked at src/x.rs:10:5` and backtrace lines `  3: krate::module::func` then
//!   `at ./src/x.rs:10:5`;
//! * C and C++: gdb's `#0  0x.. in f (a=1) at src/x.c:12` and `#1  f () at x.c:12`,
//!   AddressSanitizer's `#3 0x4f5a2c in ns::A::f(int) /src/x.cc:12:5`, valgrind's
//!   `at 0x4C2: f (x.c:12)`, and compiler diagnostics `src/x.c:12:5: error: ...` (a C++
//!   function is named by its last segment: namespaces are not part of cds's names).
//! * Ruby: `lib/x.rb:12:in 'm'`, `from lib/x.rb:12:in `block in m'`, Ruby 3.4's
//!   `in 'Foo::Bar#baz'`, RSpec's `# ./spec/x_spec.rb:3:in ...`.
//! * PHP: stack traces `#0 /path/X.php(42): App\Foo->bar()` (the line is in the function the
//!   next frame calls), errors `PHP Fatal error: ... in /path/X.php on line 12`,
//!   `... in /path/X.php:12` and `thrown in X.php on line 12` (in the function frame `#0`
//!   calls), PHPUnit's `/path/FooTest.php:42`.

use crate::search::query::Frame;

/// The frames of every language but Python found in `text`, in order.
pub fn frames(text: &str) -> Vec<Frame> {
    let mut out = Vec::new();
    let mut prev = "";
    let mut php = PhpTrace::default();
    for line in text.lines() {
        let l = line.trim();
        if let Some(f) = js_frame(l)
            .or_else(|| java_frame(l))
            .or_else(|| go_frame(prev.trim(), line))
            .or_else(|| rust_frame(prev.trim(), l))
            .or_else(|| c_frame(l))
            .or_else(|| ruby_frame(l))
            .or_else(|| php.frame(l, out.len()))
        {
            out.push(f);
        }
        prev = line;
    }
    php.name_functions(&mut out);
    out
}

/// PHP's frames while reading a text: a trace line names the function it calls, not the one it
/// is in, so functions are filled in once the next line is known.
#[derive(Default)]
struct PhpTrace {
    /// (frame index, the `#N` number, the function it calls), in order.
    calls: Vec<(usize, u32, String)>,
    /// Error locations (`in X.php on line 12`) waiting for the `#0` frame after them.
    errors: Vec<usize>,
    /// (error frame, the function `#0` calls).
    error_functions: Vec<(usize, String)>,
    /// The function the last `#0` frame calls.
    last_zero: Option<String>,
}

impl PhpTrace {
    fn frame(&mut self, l: &str, index: usize) -> Option<Frame> {
        if let Some((n, at, callee)) = php_trace_line(l) {
            if n == 0 {
                for e in self.errors.drain(..) {
                    self.error_functions.push((e, callee.clone()));
                }
                self.last_zero = Some(callee.clone());
            }
            // `#2 [internal function]: f()` has no place, but names the function of `#1`.
            self.calls.push((if at.is_some() { index } else { usize::MAX }, n, callee));
            let (file, line) = at?;
            return Some(Frame { file, line, function: String::new() });
        }
        if let Some((file, line)) = php_error_line(l) {
            // `thrown in X.php on line 12` closes the trace it belongs to.
            match &self.last_zero {
                Some(f) if l.starts_with("thrown in ") => {
                    self.error_functions.push((index, f.clone()))
                }
                _ => self.errors.push(index),
            }
            return Some(Frame { file, line, function: String::new() });
        }
        // PHPUnit's failure locations: a path and a line alone on theirs.
        if !l.contains(char::is_whitespace)
            && let Some((file, line)) = path_line(l)
            && crate::lang::Lang::of_name(file.as_bytes()) == Some(crate::lang::Lang::Php)
        {
            return Some(Frame { file, line, function: String::new() });
        }
        None
    }

    fn name_functions(self, out: &mut [Frame]) {
        for w in self.calls.windows(2) {
            let ((i, n, _), (_, m, callee)) = (&w[0], &w[1]);
            if *m == n + 1 && *i != usize::MAX {
                out[*i].function = callee.clone();
            }
        }
        for (i, f) in self.error_functions {
            out[i].function = f;
        }
    }
}

/// `#3 /app/src/Foo.php(42): App\Bar->baz('x')` -> (3, (path, 42), `Bar.baz`);
/// `#4 [internal function]: f()` -> (4, None, `f`).
type PhpTraceLine = (u32, Option<(String, u32)>, String);

fn php_trace_line(l: &str) -> Option<PhpTraceLine> {
    let rest = l.strip_prefix('#')?;
    let (n, rest) = rest.split_once(' ')?;
    let n: u32 = n.parse().ok()?;
    if let Some(call) = rest.strip_prefix("[internal function]: ") {
        return Some((n, None, php_function(call)));
    }
    let (loc, call) = rest.split_once("): ")?;
    let (file, line) = loc.rsplit_once('(')?;
    let line: u32 = line.parse().ok()?;
    if crate::lang::Lang::of_name(file.as_bytes()) != Some(crate::lang::Lang::Php) {
        return None;
    }
    Some((n, Some((file.to_string(), line)), php_function(call)))
}

/// A PHP call as traces print it (`App\Foo->bar(...)`, `Foo::bar()`, `helper()`,
/// `{closure}()`, `require_once()`) -> a qualified name, or empty.
fn php_function(call: &str) -> String {
    let f = call.split('(').next().unwrap_or("");
    let (class, method) = match f.split_once("->").or_else(|| f.split_once("::")) {
        Some((c, m)) => (c.rsplit('\\').next().unwrap_or(c), m),
        None => ("", f.rsplit('\\').next().unwrap_or(f)),
    };
    if method.contains(['{', '@', ' '])
        || method.is_empty()
        || (class.is_empty()
            && matches!(method, "include" | "include_once" | "require" | "require_once"))
    {
        return String::new();
    }
    if class.is_empty() || class.contains(['{', '@', ' ']) {
        method.to_string()
    } else {
        format!("{class}.{method}")
    }
}

/// `... in /app/x.php on line 12`, `... in /app/x.php:12`.
fn php_error_line(l: &str) -> Option<(String, u32)> {
    let at = l.rfind(" in ")?;
    let rest = l[at + 4..].trim_end_matches('.');
    let (file, line) = match rest.split_once(" on line ") {
        Some((f, n)) => (f, n),
        None => rest.rsplit_once(':')?,
    };
    let line: u32 = line.trim().parse().ok()?;
    let file = file.trim();
    if file.contains(' ')
        || crate::lang::Lang::of_name(file.as_bytes()) != Some(crate::lang::Lang::Php)
    {
        return None;
    }
    Some((file.to_string(), line))
}

/// `path:line[:col]` -> (path, line), for a path of a JavaScript or TypeScript source.
fn js_path_line(s: &str) -> Option<(String, u32)> {
    let (path, line) = path_line(s)?;
    let lang = crate::lang::Lang::of_name(path.as_bytes())?;
    (lang.family() == crate::lang::Family::Js).then_some((path, line))
}

/// `path:line[:col]` -> (path, line), for a path with a source extension.
fn path_line(s: &str) -> Option<(String, u32)> {
    let s = s.trim().trim_start_matches("file://");
    let mut parts = s.rsplitn(3, ':');
    let last = parts.next()?;
    let mid = parts.next()?;
    let (path, line) = match parts.next() {
        Some(p) if mid.chars().all(|c| c.is_ascii_digit()) => (p, mid),
        _ => (mid, last),
    };
    let line: u32 = line.trim().parse().ok()?;
    let path = path.trim_start_matches("./");
    crate::lang::Lang::of_name(path.as_bytes())?;
    Some((path.to_string(), line))
}

/// A JS function as V8 prints it (`Foo.bar`, `new Foo`, `async fn`, `Object.<anonymous>`)
/// -> a qualified name, or empty when anonymous.
fn js_function(f: &str) -> String {
    let f = f.trim();
    let f = f.strip_prefix("async ").unwrap_or(f);
    let f = f.strip_prefix("new ").unwrap_or(f);
    let f = f.split(" [as ").next().unwrap_or(f);
    if f.contains('<') || f.is_empty() {
        return String::new();
    }
    let f = f.strip_prefix("Object.").unwrap_or(f);
    f.replace(".prototype.", ".")
}

fn js_frame(l: &str) -> Option<Frame> {
    if let Some(rest) = l.strip_prefix("at ") {
        if let Some((func, loc)) = rest.rsplit_once(" (") {
            let (file, line) = js_path_line(loc.trim_end_matches(')'))?;
            return Some(Frame { file, line, function: js_function(func) });
        }
        let (file, line) = js_path_line(rest)?;
        return Some(Frame { file, line, function: String::new() });
    }
    // Firefox and Safari: `fn@path:line:col`.
    let (func, loc) = l.split_once('@')?;
    if func.contains(char::is_whitespace) {
        return None;
    }
    let (file, line) = js_path_line(loc)?;
    Some(Frame { file, line, function: js_function(func) })
}

fn java_frame(l: &str) -> Option<Frame> {
    let rest = l.strip_prefix("at ")?;
    let (qual, loc) = rest.split_once('(')?;
    let loc = loc.strip_suffix(')')?;
    let (file, line) = loc.split_once(':')?;
    if !file.ends_with(".java") && !file.ends_with(".kt") {
        return None;
    }
    let line: u32 = line.parse().ok()?;
    // `com.acme.Foo$Inner.lambda$bar$0` -> package `com.acme`, function `Foo.Inner.bar`.
    let parts: Vec<&str> = qual.split('.').collect();
    let class_at = parts.iter().position(|p| p.starts_with(|c: char| c.is_ascii_uppercase()))?;
    let package = parts[..class_at].join("/");
    let mut func: Vec<String> = Vec::new();
    for p in &parts[class_at..] {
        for piece in p.split('$') {
            if piece.is_empty() || piece == "lambda" || piece.chars().all(|c| c.is_ascii_digit()) {
                continue;
            }
            let piece = if piece == "<init>" {
                parts[class_at].split('$').next().unwrap_or(piece)
            } else {
                piece
            };
            if piece.starts_with('<') {
                continue;
            }
            func.push(piece.to_string());
        }
    }
    let file = if package.is_empty() { file.to_string() } else { format!("{package}/{file}") };
    Some(Frame { file, line, function: func.join(".") })
}

fn go_frame(prev: &str, line: &str) -> Option<Frame> {
    if !line.starts_with('\t') && !line.starts_with("    ") {
        return None;
    }
    let loc = line.trim();
    let loc = loc.split(" +0x").next().unwrap_or(loc);
    if !loc.contains(".go:") {
        return None;
    }
    let (file, line) = path_line(loc)?;
    // `github.com/a/b/pkg.(*Server).Serve(0xc0, ...)` -> `Server.Serve`.
    let call = prev.split('(').next().unwrap_or("");
    let call = if prev.contains(".(") {
        prev.split_once(".(").map(|(_, r)| r).unwrap_or("")
    } else {
        call.rsplit('/').next().and_then(|s| s.split_once('.')).map(|(_, r)| r).unwrap_or("")
    };
    let function = call
        .replace(['*', ')'], "")
        .split('(')
        .next()
        .unwrap_or("")
        .split(".func")
        .next()
        .unwrap_or("")
        .to_string();
    Some(Frame { file, line, function })
}

fn rust_frame(prev: &str, l: &str) -> Option<Frame> {
    if let Some(i) = l.find("panicked at ") {
        let rest = &l[i + "panicked at ".len()..];
        // Old form: `panicked at 'msg', src/x.rs:1:2`.
        let loc = match rest.rsplit_once("', ") {
            Some((_, loc)) => loc,
            None => rest.trim_end_matches(':'),
        };
        let (file, line) = path_line(loc.trim_end_matches(':'))?;
        return Some(Frame { file, line, function: String::new() });
    }
    let loc = l.strip_prefix("at ")?;
    if !loc.contains(".rs:") {
        return None;
    }
    let (file, line) = path_line(loc)?;
    // The line before: `  3: krate::module::Type::method` -> `Type.method`, or `func`.
    let path = prev.split_once(": ").map_or("", |(_, p)| p);
    let path = path.split("::{{closure}}").next().unwrap_or(path);
    let segs: Vec<&str> =
        path.split("::").filter(|s| !s.starts_with('h') || s.len() != 17).collect();
    let function = match segs.as_slice() {
        [.., ty, m] if ty.starts_with(|c: char| c.is_ascii_uppercase()) => format!("{ty}.{m}"),
        [.., m] => m.to_string(),
        [] => String::new(),
    };
    let function = function.trim_start_matches('<').to_string();
    Some(Frame { file, line, function })
}

/// `path:line[:col]` -> (path, line), for a path of a C or C++ source or header.
fn c_path_line(s: &str) -> Option<(String, u32)> {
    let (path, line) = path_line(s)?;
    let lang = crate::lang::Lang::of_name(path.as_bytes())?;
    (lang.family() == crate::lang::Family::C).then_some((path, line))
}

/// A C/C++ function as debuggers print it (`ns::A<T>::f(int) const`, `f`) -> its last name.
fn c_function(f: &str) -> String {
    let mut depth = 0usize;
    let mut plain = String::new();
    for ch in f.trim().chars() {
        match ch {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '(' if depth == 0 && !plain.ends_with("operator") => break,
            _ if depth == 0 => plain.push(ch),
            _ => {}
        }
    }
    let last = plain.trim().rsplit("::").next().unwrap_or("").trim();
    if last.is_empty() || (last.contains(' ') && !last.starts_with("operator")) || last == "??" {
        return String::new();
    }
    last.to_string()
}

fn c_frame(l: &str) -> Option<Frame> {
    if let Some(rest) = l.strip_prefix('#') {
        // `#3 0x4f5a2c in f file.c:12:5` (ASan), `#0  0x.. in f (a=1) at file.c:12` and
        // `#1  f () at file.c:12` (gdb).
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start();
        let rest = match rest.strip_prefix("0x") {
            Some(r) => r.split_once(" in ")?.1,
            None => rest,
        };
        if let Some((func, loc)) = rest.rsplit_once(" at ") {
            let (file, line) = c_path_line(loc)?;
            let func = func.split(" (").next().unwrap_or(func);
            return Some(Frame { file, line, function: c_function(func) });
        }
        let (func, loc) = rest.trim_end().rsplit_once(' ')?;
        let (file, line) = c_path_line(loc)?;
        return Some(Frame { file, line, function: c_function(func) });
    }
    if let Some(i) =
        l.find(": ").filter(|_| l.contains("0x") && (l.contains(" at 0x") || l.contains(" by 0x")))
    {
        // valgrind: `==1== at 0x4C2: f (file.c:12)`.
        let rest = &l[i + 2..];
        let (func, loc) = rest.rsplit_once(" (")?;
        let (file, line) = c_path_line(loc.trim_end_matches(')'))?;
        return Some(Frame { file, line, function: c_function(func) });
    }
    // `src/x.c:12:5: error: ...` (and `warning`, `note`, an `In function` line's location).
    let (loc, msg) = l.split_once(": ")?;
    if !["error", "warning", "note", "fatal error"].iter().any(|k| msg.starts_with(k)) {
        return None;
    }
    let (file, line) = c_path_line(loc)?;
    Some(Frame { file, line, function: String::new() })
}

/// `[from ]path.rb:LINE[:in 'FUNC'][: message]`.
fn ruby_frame(l: &str) -> Option<Frame> {
    let l = l.strip_prefix("from ").or_else(|| l.strip_prefix("# ")).unwrap_or(l);
    let i = l.find(".rb:")?;
    let path = l[..i + 3].rsplit(char::is_whitespace).next()?.trim_start_matches("./");
    let rest = &l[i + 4..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let line: u32 = rest[..digits].parse().ok()?;
    let function = rest[digits..]
        .strip_prefix(":in ")
        .and_then(|r| r.strip_prefix(['`', '\'']))
        .and_then(|r| r.split('\'').next())
        .map(ruby_function)
        .unwrap_or_default();
    Some(Frame { file: path.to_string(), line, function })
}

/// A Ruby frame's method (`block (2 levels) in m`, `Foo::Bar#baz`, `Foo.bar`, `<main>`) -> a
/// qualified name, or empty at the top level of a file, class or module.
fn ruby_function(f: &str) -> String {
    let f = f.rsplit(" in ").next().unwrap_or(f);
    if f.starts_with('<') {
        return String::new();
    }
    f.replace("::", ".").replace('#', ".")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> (String, u32, String) {
        let f = frames(text);
        assert_eq!(f.len(), 1, "{text:?} gave {f:?}");
        (f[0].file.clone(), f[0].line, f[0].function.clone())
    }

    #[test]
    fn javascript() {
        assert_eq!(
            one("    at Axios.request (lib/core/Axios.js:45:41)"),
            ("lib/core/Axios.js".into(), 45, "Axios.request".into())
        );
        assert_eq!(
            one("    at src/diff/index.js:12:3"),
            ("src/diff/index.js".into(), 12, "".into())
        );
        assert_eq!(
            one("    at async Object.<anonymous> (/app/test.mjs:3:1)"),
            ("/app/test.mjs".into(), 3, "".into())
        );
        assert_eq!(one("render@src/render.ts:9:2"), ("src/render.ts".into(), 9, "render".into()));
    }

    #[test]
    fn java() {
        assert_eq!(
            one("\tat com.google.gson.Gson.fromJson(Gson.java:1227)"),
            ("com/google/gson/Gson.java".into(), 1227, "Gson.fromJson".into())
        );
        assert_eq!(
            one("at org.a.Outer$Inner.lambda$run$0(Outer.java:7)"),
            ("org/a/Outer.java".into(), 7, "Outer.Inner.run".into())
        );
    }

    #[test]
    fn go() {
        let text = "panic: boom\n\ngoroutine 1 [running]:\ngithub.com/gin-gonic/gin.(*Engine).handleHTTPRequest(0xc000)\n\t/go/src/gin/gin.go:640 +0x1d\n";
        assert_eq!(
            one(text),
            ("/go/src/gin/gin.go".into(), 640, "Engine.handleHTTPRequest".into())
        );
        let text = "main.main()\n\t/tmp/x/main.go:12 +0x25\n";
        assert_eq!(one(text), ("/tmp/x/main.go".into(), 12, "main".into()));
    }

    #[test]
    fn rust() {
        assert_eq!(
            one("thread 'main' panicked at src/bin/bat/main.rs:10:5:"),
            ("src/bin/bat/main.rs".into(), 10, "".into())
        );
        let text = "  12: tokio::time::DelayQueue::remove\n             at ./tokio-util/src/time/delay_queue.rs:70:9\n";
        let f = frames(text);
        assert_eq!(f[0].file, "tokio-util/src/time/delay_queue.rs");
        assert_eq!(f[0].function, "DelayQueue.remove");
    }

    #[test]
    fn c_and_cpp() {
        assert_eq!(
            one("#0  0x000055555555 in find_slot (s=0x0, key=0x1) at src/store.c:11"),
            ("src/store.c".into(), 11, "find_slot".into())
        );
        assert_eq!(one("#1  main () at main.c:7"), ("main.c".into(), 7, "main".into()));
        assert_eq!(
            one(
                "    #3 0x4f5a2c in fmt::v10::detail::write<char>(int) /src/fmt/include/fmt/format.h:120:5"
            ),
            ("/src/fmt/include/fmt/format.h".into(), 120, "write".into())
        );
        assert_eq!(
            one("    #2 0x4f5a2c in printf_arg_formatter<char>::operator()(int) src/printf.h:9:1"),
            ("src/printf.h".into(), 9, "operator()".into())
        );
        assert_eq!(
            one("==12==    by 0x10A1B2: jv_free (jv.c:1234)"),
            ("jv.c".into(), 1234, "jv_free".into())
        );
        assert_eq!(
            one("src/jv.c:12:5: error: implicit declaration of function 'x'"),
            ("src/jv.c".into(), 12, "".into())
        );
        assert!(frames("#1 is the issue number, see #2 for more").is_empty());
    }

    #[test]
    fn ruby() {
        assert_eq!(
            one("\tfrom lib/fluent/config.rb:12:in 'parse'"),
            ("lib/fluent/config.rb".into(), 12, "parse".into())
        );
        assert_eq!(
            one("lib/x.rb:7:in `block (2 levels) in run'"),
            ("lib/x.rb".into(), 7, "run".into())
        );
        assert_eq!(
            one("/usr/lib/gems/foo-1.0/lib/foo/bar.rb:3:in 'Foo::Bar#baz': boom (RuntimeError)"),
            ("/usr/lib/gems/foo-1.0/lib/foo/bar.rb".into(), 3, "Foo.Bar.baz".into())
        );
        assert_eq!(
            one("     # ./spec/foo_spec.rb:9:in 'block (2 levels) in <top (required)>'"),
            ("spec/foo_spec.rb".into(), 9, "".into())
        );
        assert_eq!(one("bin/x.rb:2:in '<main>'"), ("bin/x.rb".into(), 2, "".into()));
    }

    #[test]
    fn php() {
        let text = "PHP Fatal error:  Uncaught InvalidArgumentException: Unknown unit in /app/src/Carbon/Traits/Units.php:204\n\
            Stack trace:\n\
            #0 /app/src/Carbon/Traits/Date.php(1523): Carbon\\Carbon->addUnit('x', 1)\n\
            #1 /app/tests/CarbonTest.php(12): Carbon\\Carbon::parse('now')\n\
            #2 [internal function]: Tests\\CarbonTest->testParse()\n\
            #3 /app/vendor/bin/phpunit(107): {closure}()\n\
            #4 {main}\n\
            \x20 thrown in /app/src/Carbon/Traits/Units.php on line 204\n";
        let got: Vec<(String, u32, String)> =
            frames(text).into_iter().map(|f| (f.file, f.line, f.function)).collect();
        let units = "/app/src/Carbon/Traits/Units.php".to_string();
        assert_eq!(
            got,
            [
                (units.clone(), 204, "Carbon.addUnit".into()),
                ("/app/src/Carbon/Traits/Date.php".into(), 1523, "Carbon.parse".into()),
                ("/app/tests/CarbonTest.php".into(), 12, "CarbonTest.testParse".into()),
                (units, 204, "Carbon.addUnit".into()),
            ]
        );
        assert_eq!(
            one("PHP Warning:  Undefined variable $x in /var/www/index.php on line 7"),
            ("/var/www/index.php".into(), 7, "".into())
        );
        assert_eq!(
            one("Parse error: syntax error, unexpected '}' in src/Foo.php on line 3."),
            ("src/Foo.php".into(), 3, "".into())
        );
        let phpunit = "1) Tests\\FooTest::testBar\nFailed asserting that false is true.\n\n/repo/tests/FooTest.php:42\n";
        assert_eq!(one(phpunit), ("/repo/tests/FooTest.php".into(), 42, "".into()));
        assert_eq!(php_function("require_once()"), "");
        assert_eq!(php_function("App\\helper()"), "helper");
        assert_eq!(php_function("class@anonymous->go()"), "go");
    }

    #[test]
    fn prose_is_not_a_frame() {
        assert!(
            frames("We look at the docs (see README.md) and at https://x.io/a.js today").is_empty()
        );
    }
}
