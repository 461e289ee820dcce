//! Messages on stderr: `cds-x: text`, one line each, and the "errored" flag.
//!
//! Every message a tool prints goes through here so that it carries the tool's name (set once by
//! [`crate::cli::main`]), stays on one line, and cannot garble a terminal: when stderr is a
//! terminal, control characters are shown escaped (fd's `sanitize.rs` idea), because paths and
//! IDs in messages come from the repository and may contain anything.
//!
//! [`error_nonfatal`] is ripgrep's `err_message!`: the tool goes on (skips a bad input line, an
//! unreadable file), but the final exit status becomes 2 so scripts still notice.
//!
//! A failing stderr write (closed, full disk, broken pipe) is ignored: there is nowhere left to
//! report it, and it must never panic the way `eprintln!` does.

use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// The tool name messages start with; "cds" until [`set_tool`] is called.
static TOOL: OnceLock<&'static str> = OnceLock::new();
/// Set by [`error_nonfatal`]: makes the final exit status 2.
static ERRORED: AtomicBool = AtomicBool::new(false);
/// Set from `-q/--quiet`: drops warnings (errors are always shown).
static QUIET: AtomicBool = AtomicBool::new(false);

/// Sets the name messages are prefixed with (the first call wins; later calls are ignored).
pub fn set_tool(name: &'static str) {
    let _ = TOOL.set(name);
}

/// The name messages are prefixed with.
pub fn tool() -> &'static str {
    TOOL.get().copied().unwrap_or("cds")
}

/// Drops (`true`) or shows (`false`) later warnings.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// True once a non-fatal error was reported: the tool must end with status 2.
pub fn errored() -> bool {
    ERRORED.load(Ordering::Relaxed)
}

/// Prints `tool: warning: text`; nothing with `-q`. The exit status is not affected.
pub fn warn(text: impl fmt::Display) {
    if !QUIET.load(Ordering::Relaxed) {
        emit(format_args!("warning: {text}"));
    }
}

/// Prints `tool: text` (a note such as a summary); nothing with `-q`.
pub fn note(text: impl fmt::Display) {
    if !QUIET.load(Ordering::Relaxed) {
        emit(text);
    }
}

/// Prints `tool: text` and marks the run as errored (final exit status 2), for an error the tool
/// recovers from (it skips the bad input and goes on).
pub fn error_nonfatal(text: impl fmt::Display) {
    ERRORED.store(true, Ordering::Relaxed);
    emit(text);
}

/// Prints `tool: text`, with no side effect (the caller decides the exit status).
pub fn error(text: impl fmt::Display) {
    emit(text);
}

/// Writes one message line to stderr, ignoring any write failure.
pub(crate) fn emit(text: impl fmt::Display) {
    let stderr = io::stderr();
    let line = render(tool(), &text.to_string(), stderr.is_terminal());
    // One write of the whole line, under the lock, so messages from several threads do not
    // interleave mid-line.
    let _ = stderr.lock().write_all(line.as_bytes());
}

/// The full line for a message: `tool: text\n`, with control characters escaped when it goes to a
/// terminal, and always kept to one line.
pub(crate) fn render(tool: &str, text: &str, terminal: bool) -> String {
    let mut line = String::with_capacity(tool.len() + text.len() + 3);
    line.push_str(tool);
    line.push_str(": ");
    if terminal {
        line.push_str(&sanitize(text));
    } else {
        // A pipe or file gets the bytes as they are, but still one line per message: a stray
        // newline would make the next line look like a message of its own.
        line.extend(text.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }));
    }
    line.push('\n');
    line
}

/// `text` with every control character shown as an escape (`\n`, `\t`, `\x1B`, `\u{9B}`), so
/// a hostile file name cannot move the cursor or change colours in the user's terminal.
pub fn sanitize(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_ascii_control() => out.push_str(&format!("\\x{:02X}", u32::from(c))),
            c if c.is_control() => out.push_str(&format!("\\u{{{:X}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_plain() {
        assert_eq!(
            render("cds-get", "cannot read a.py: gone", false),
            "cds-get: cannot read a.py: gone\n"
        );
    }

    #[test]
    fn render_escapes_controls_on_a_terminal() {
        let text = "bad\x1b[2Jname\nnext\u{9b}";
        assert_eq!(render("cds-x", text, true), "cds-x: bad\\x1B[2Jname\\nnext\\u{9B}\n");
        // Not a terminal: bytes kept, but still one line.
        assert_eq!(render("cds-x", text, false), "cds-x: bad\x1b[2Jname next\u{9b}\n");
    }

    #[test]
    fn sanitize_borrows_clean_text() {
        assert!(matches!(sanitize("plain ünïcode"), std::borrow::Cow::Borrowed(_)));
    }
}
