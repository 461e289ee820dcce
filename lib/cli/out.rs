//! The stdout writer every tool prints through.
//!
//! One type owns the decisions that must be the same in every tool (STYLE.md, habit 4):
//!
//! * **buffering**: line-buffered on a terminal, so a person sees results as they come;
//!   block-buffered (64 KiB) into a pipe or file, which is many times faster for big outputs;
//! * **colour**, decided once by [`color_enabled`] from `--color`, whether stdout is a terminal,
//!   `NO_COLOR`, `TERM` and `--json`;
//! * **the record terminator**: `\n`, or NUL with `-0/--null` ([`Out::record_end`]);
//! * **`-q/--quiet`**: output is dropped (the exit status still tells the result);
//! * **broken pipes**: every write returns its error, and the `?` operator turns `EPIPE` into
//!   [`crate::Error::BrokenPipe`], which [`crate::cli::main`] ends quietly with status 0. Rust
//!   ignores SIGPIPE, so nothing here may use `print!`, which would panic instead.
//!
//! A tool must call [`Out::finish`] at the end of its run: a flush error (the reader went away
//! while output sat in the buffer) is only seen there; dropping an `Out` flushes but ignores it.

use std::ffi::OsStr;
use std::fmt;
use std::io::{self, BufWriter, IsTerminal, Write};

use super::{ColorChoice, Common, Format};

/// What a piece of coloured output is, so all tools colour the same things alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// An entity ID (magenta, like ripgrep's paths).
    Id,
    /// A file or directory path (magenta).
    Path,
    /// An entity kind: `file`, `class`, `function` (cyan).
    Kind,
    /// A line number or line range (green, like ripgrep's line numbers).
    LineNo,
    /// The matched part of a name or line (bold red, like ripgrep's matches).
    Match,
    /// A heading or emphasis (bold).
    Heading,
    /// Secondary text such as a fold or a count (dim).
    Dim,
}

impl Style {
    /// The SGR parameters of the style.
    fn sgr(self) -> &'static str {
        match self {
            Style::Id | Style::Path => "35",
            Style::Kind => "36",
            Style::LineNo => "32",
            Style::Match => "1;31",
            Style::Heading => "1",
            Style::Dim => "2",
        }
    }
}

/// Whether to colour output, as a pure function of everything it depends on (so it is testable):
///
/// * `--json` never gets colour, whatever `--color` says: escape codes inside JSON strings
///   would corrupt the data;
/// * `--color always` and `never` decide alone;
/// * `--color auto` colours only when stdout is a terminal, `NO_COLOR` is unset or empty
///   (<https://no-color.org>), and `TERM` is set and not `dumb` (termcolor's rule on Unix, which
///   ripgrep uses; Windows consoles colour without `TERM`).
pub fn color_enabled(
    choice: ColorChoice,
    stdout_tty: bool,
    no_color: Option<&OsStr>,
    term: Option<&OsStr>,
    json: bool,
) -> bool {
    if json {
        return false;
    }
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let no_color = no_color.is_some_and(|v| !v.is_empty());
            let term_ok = match term {
                Some(t) => t != "dumb",
                None => cfg!(windows),
            };
            stdout_tty && !no_color && term_ok
        }
    }
}

/// Where the bytes go.
enum Sink {
    /// A terminal: std's stdout is already line-buffered.
    Line(io::Stdout),
    /// A pipe or a file.
    Block(BufWriter<io::Stdout>),
    /// `-q`: everything is dropped.
    Null,
    /// Any other writer (tests, a file chosen by the tool).
    Other(Box<dyn Write + Send>),
}

/// The stdout writer: buffering, colour, record terminator, quiet mode (see the module docs).
pub struct Out {
    sink: Sink,
    color: bool,
    terminator: u8,
}

impl Out {
    /// The writer for stdout, configured from the shared flags and the environment.
    pub fn new(common: &Common) -> Out {
        let stdout = io::stdout();
        let tty = stdout.is_terminal();
        let color = color_enabled(
            common.color,
            tty,
            std::env::var_os("NO_COLOR").as_deref(),
            std::env::var_os("TERM").as_deref(),
            common.format == Format::Json,
        );
        let sink = if common.quiet {
            Sink::Null
        } else if tty {
            Sink::Line(stdout)
        } else {
            Sink::Block(BufWriter::with_capacity(64 * 1024, stdout))
        };
        Out { sink, color, terminator: terminator(common.null) }
    }

    /// A writer over any `io::Write` (tests, or output to a file), with colour and `-0` given.
    pub fn with_writer(writer: Box<dyn Write + Send>, color: bool, null: bool) -> Out {
        Out { sink: Sink::Other(writer), color, terminator: terminator(null) }
    }

    /// True when ANSI colour is written.
    pub fn color(&self) -> bool {
        self.color
    }

    /// The byte that ends a record: `\n`, or NUL with `-0/--null`.
    pub fn terminator(&self) -> u8 {
        self.terminator
    }

    /// Ends the current record (`\n`, or NUL with `-0`).
    pub fn record_end(&mut self) -> crate::Result<()> {
        let t = [self.terminator];
        self.write_all(&t)?;
        Ok(())
    }

    /// Writes `text` in `style`: wrapped in ANSI escapes when colour is on, plain otherwise.
    pub fn paint(&mut self, style: Style, text: impl AsRef<[u8]>) -> crate::Result<()> {
        let text = text.as_ref();
        if self.color && !text.is_empty() {
            write!(self, "\x1b[{}m", style.sgr())?;
            self.write_all(text)?;
            self.write_all(b"\x1b[0m")?;
        } else {
            self.write_all(text)?;
        }
        Ok(())
    }

    /// Writes formatted text in `style` (`out.paint_fmt(Style::LineNo, format_args!("{n}"))`).
    pub fn paint_fmt(&mut self, style: Style, args: fmt::Arguments<'_>) -> crate::Result<()> {
        match args.as_str() {
            Some(s) => self.paint(style, s),
            None => self.paint(style, args.to_string()),
        }
    }

    /// Writes an entity ID in its printable form ([`crate::id::display`]), in the ID style.
    pub fn write_id(&mut self, id: &[u8]) -> crate::Result<()> {
        self.paint(Style::Id, crate::id::display(id).as_bytes())
    }

    /// Writes one value as a JSON line (compact), ended by [`Out::record_end`].
    pub fn json_line(&mut self, value: &impl serde::Serialize) -> crate::Result<()> {
        match serde_json::to_writer(&mut *self, value) {
            Ok(()) => self.record_end(),
            Err(e) if e.is_io() => Err(io::Error::from(e).into()),
            Err(e) => Err(crate::Error::msg(format!("cannot write JSON output: {e}"))),
        }
    }

    /// Flushes everything; call it once at the end of a run so a late write error (above all a
    /// broken pipe) is reported instead of lost in `Drop`.
    pub fn finish(&mut self) -> crate::Result<()> {
        self.flush()?;
        Ok(())
    }
}

/// The terminator byte for `-0/--null`.
fn terminator(null: bool) -> u8 {
    if null { 0 } else { b'\n' }
}

impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.sink {
            Sink::Line(w) => w.write(buf),
            Sink::Block(w) => w.write(buf),
            Sink::Null => Ok(buf.len()),
            Sink::Other(w) => w.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.sink {
            Sink::Line(w) => w.write_all(buf),
            Sink::Block(w) => w.write_all(buf),
            Sink::Null => Ok(()),
            Sink::Other(w) => w.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.sink {
            Sink::Line(w) => w.flush(),
            Sink::Block(w) => w.flush(),
            Sink::Null => Ok(()),
            Sink::Other(w) => w.flush(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A writer tests can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.lock().map_err(|_| io::Error::other("poisoned"))?.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    impl Shared {
        fn bytes(&self) -> Vec<u8> {
            self.0.lock().map(|v| v.clone()).unwrap_or_default()
        }
    }

    /// A writer whose reader has gone away.
    struct Closed;

    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
    }

    #[test]
    fn color_decision_table() {
        use ColorChoice::*;
        let os = |s: &'static str| Some(OsStr::new(s));
        let xterm = os("xterm-256color");
        // (choice, tty, NO_COLOR, TERM, json) -> colour
        let cases = [
            (Always, false, None, None, false, true),
            (Always, true, os("1"), os("dumb"), false, true),
            (Always, true, None, xterm, true, false),
            (Never, true, None, xterm, false, false),
            (Auto, true, None, xterm, false, true),
            (Auto, false, None, xterm, false, false),
            (Auto, true, os("1"), xterm, false, false),
            (Auto, true, os(""), xterm, false, true),
            (Auto, true, None, os("dumb"), false, false),
            (Auto, true, None, xterm, true, false),
            (Auto, true, None, None, false, cfg!(windows)),
        ];
        for (choice, tty, no_color, term, json, want) in cases {
            assert_eq!(
                color_enabled(choice, tty, no_color, term, json),
                want,
                "{choice:?} tty={tty} NO_COLOR={no_color:?} TERM={term:?} json={json}"
            );
        }
    }

    #[test]
    fn paint_and_terminators() {
        let buf = Shared::default();
        let mut out = Out::with_writer(Box::new(buf.clone()), false, false);
        out.paint(Style::Id, "a.py:f").and_then(|()| out.record_end()).expect("write");
        out.write_id(b"caf\xe9.py").and_then(|()| out.record_end()).expect("write");
        assert_eq!(buf.bytes(), b"a.py:f\ncaf\\xE9.py\n");

        let buf = Shared::default();
        let mut out = Out::with_writer(Box::new(buf.clone()), true, true);
        out.paint(Style::Match, "x").and_then(|()| out.record_end()).expect("write");
        out.paint(Style::Kind, "").expect("write");
        assert_eq!(buf.bytes(), b"\x1b[1;31mx\x1b[0m\0");
    }

    #[test]
    fn json_line() {
        let buf = Shared::default();
        let mut out = Out::with_writer(Box::new(buf.clone()), true, false);
        out.json_line(&serde_json::json!({"id": "a.py"})).expect("write");
        assert_eq!(buf.bytes(), b"{\"id\":\"a.py\"}\n");
    }

    #[test]
    fn broken_pipe_is_an_error_value() {
        let mut out = Out::with_writer(Box::new(Closed), false, false);
        assert!(out.paint(Style::Id, "x").is_err_and(|e| e.is_broken_pipe()));
        assert!(out.record_end().is_err_and(|e| e.is_broken_pipe()));
        assert!(out.json_line(&1).is_err_and(|e| e.is_broken_pipe()));
        assert!(out.finish().is_err_and(|e| e.is_broken_pipe()));
    }
}
