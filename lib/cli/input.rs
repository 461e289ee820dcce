//! The entity input every tool shares: the reading side of the pipeline protocol (DESIGN.md §5).
//!
//! Entities come from the positional arguments, or from stdin when there are none, or where an
//! argument is `-`. Stdin holds one record per line:
//!
//! * the record's ID is its text up to the first TAB, so any tool's default output
//!   (`ID<TAB>kind<TAB>lines<TAB>fold`), `--ids` output, `jq -r .id`, or a hand-written list
//!   all work;
//! * a line starting with `{` is JSON (any tool's `--json` output) and its `"id"` string is the
//!   ID; the whole object is kept in [`Record::json`] for tools that want more fields;
//! * blank lines and lines starting with `#` are skipped, and a trailing `\r` is dropped
//!   (files edited on Windows);
//! * input with NUL bytes in it (from `-0`) is split on NUL instead of newlines. The choice is
//!   made on the first block read, which holds at least one whole record;
//! * IDs are in [`crate::id::display`]'s text form and are decoded with [`crate::id::parse`];
//!   input is read as bytes, so text that is not UTF-8 is fine.
//!
//! A bad line (invalid JSON, JSON without `"id"`, an empty ID) is a non-fatal error: it is
//! reported with its line number through [`crate::cli::msg::error_nonfatal`] (so the exit status
//! becomes 2) and skipped. A read error on stdin ends the input with an error, and so does a
//! record holding a control byte other than TAB, CR, VT or FF (or a newline in a NUL-separated
//! record): no ID has one, and a binary file piped in by mistake would otherwise be an error per
//! stray separator in it (a usage error: exit status 2). CR, VT and FF are whitespace a source
//! line may hold, so `rg -n`'s text of a line may too (a file of classic Mac line endings is one
//! line to rg). Arguments follow
//! the same TAB and JSON rules (so `cds-get "$(cds-search x | head -1)"` works) but `#` has no
//! special meaning there.
//!
//! A tool never blocks on a terminal: with no arguments and stdin a terminal, the first item is
//! the usage error "no IDs given".

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::{self, IsTerminal, Read};

/// One entity request.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    /// The raw ID bytes (already decoded by [`crate::id::parse`]).
    pub id: Vec<u8>,
    /// The stdin line (or NUL-separated record) number, from 1; `None` for an argument.
    pub line: Option<usize>,
    /// The whole JSON object when the record was a JSON line.
    pub json: Option<serde_json::Value>,
}

/// The entities of a run, from the arguments and stdin (see the module docs).
pub fn entity_inputs(args: Vec<OsString>) -> EntityInputs {
    let terminal = io::stdin().is_terminal();
    EntityInputs::from_reader(args, Box::new(io::stdin()), terminal)
}

/// The iterator [`entity_inputs`] returns. Items are records, or a fatal error (a read error, or
/// the usage error for a terminal stdin) after which it ends.
pub struct EntityInputs {
    /// Arguments still to read; `-` means stdin.
    args: VecDeque<OsString>,
    /// True when there were no arguments, so stdin is read without being asked for.
    implicit_stdin: bool,
    /// Stdin, until it is first read.
    stdin: Option<Box<dyn Read>>,
    /// Whether stdin is a terminal.
    terminal: bool,
    /// Stdin while it is being read.
    current: Option<Records<Box<dyn Read>>>,
    /// Set after a fatal error: nothing more comes.
    done: bool,
}

impl EntityInputs {
    /// The entities of `args`, with `stdin` standing for standard input (for tests, or to read
    /// a file the same way); `terminal` says whether it is an interactive terminal.
    pub fn from_reader(args: Vec<OsString>, stdin: Box<dyn Read>, terminal: bool) -> EntityInputs {
        let implicit_stdin = args.is_empty();
        let mut args = VecDeque::from(args);
        if implicit_stdin {
            args.push_back(OsString::from("-"));
        }
        EntityInputs {
            args,
            implicit_stdin,
            stdin: Some(stdin),
            terminal,
            current: None,
            done: false,
        }
    }
}

impl Iterator for EntityInputs {
    type Item = crate::Result<Record>;

    fn next(&mut self) -> Option<crate::Result<Record>> {
        while !self.done {
            if let Some(records) = &mut self.current {
                match records.next() {
                    Some(Ok(Parsed::Record(r))) => return Some(Ok(r)),
                    Some(Ok(Parsed::Bad(text))) => super::msg::error_nonfatal(text),
                    Some(Ok(Parsed::Binary(text))) => {
                        self.done = true;
                        return Some(Err(crate::Error::usage(text)));
                    }
                    Some(Err(e)) => {
                        self.done = true;
                        return Some(Err(crate::Error::io("cannot read", "<stdin>", e)));
                    }
                    None => self.current = None,
                }
                continue;
            }
            let arg = self.args.pop_front()?;
            if arg == "-" {
                // stdin is read once; a second `-` finds it empty, like cat.
                if let Some(reader) = self.stdin.take() {
                    if self.implicit_stdin && self.terminal {
                        self.done = true;
                        return Some(Err(crate::Error::usage(
                            "no IDs given: pass IDs as arguments or on stdin",
                        )));
                    }
                    self.current = Some(Records::new(reader));
                }
                continue;
            }
            match parse_record(&arg.into_encoded_bytes(), None) {
                Parsed::Record(r) => return Some(Ok(r)),
                Parsed::Bad(text) | Parsed::Binary(text) => super::msg::error_nonfatal(text),
            }
        }
        None
    }
}

/// A record, or the message for a bad one (skipped), or for input that is not records at all
/// (which ends the input).
#[derive(Debug, PartialEq)]
enum Parsed {
    Record(Record),
    Bad(String),
    Binary(String),
}

/// Splits a byte stream into protocol records (see the module docs).
struct Records<R> {
    reader: R,
    /// Read but not yet consumed bytes are `buf[pos..]`.
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
    /// The separator once known: `\n`, or NUL.
    sep: Option<u8>,
    /// Records seen so far, skipped ones included (for line numbers).
    count: usize,
}

/// How much to read at a time.
const CHUNK: usize = 64 * 1024;

impl<R: Read> Records<R> {
    fn new(reader: R) -> Records<R> {
        Records { reader, buf: Vec::new(), pos: 0, eof: false, sep: None, count: 0 }
    }

    /// The next record that is not skipped, or the message for a bad one.
    fn next(&mut self) -> Option<io::Result<Parsed>> {
        loop {
            let raw = match self.next_raw() {
                Ok(Some(raw)) => raw,
                Ok(None) => return None,
                Err(e) => return Some(Err(e)),
            };
            self.count += 1;
            let line = raw.strip_suffix(b"\r").unwrap_or(&raw);
            if line.iter().all(u8::is_ascii_whitespace) || line.starts_with(b"#") {
                continue;
            }
            let what = if self.sep == Some(0) { "record" } else { "line" };
            // No ID, path or JSON record holds a control byte other than tab (or, in a NUL-
            // separated record, newline): a binary file piped in by mistake is one error, not
            // one "no entity" per stray separator in it. CR, VT and FF are whitespace that
            // grep's text of a source line may hold (`rg -n` lines).
            let nul = self.sep == Some(0);
            let text_ws = |b: u8| matches!(b, b'\t' | b'\r' | 0x0b | 0x0c);
            if line.iter().any(|&b| (b < 0x20 && !text_ws(b) && !(nul && b == b'\n')) || b == 0x7f)
            {
                return Some(Ok(Parsed::Binary(format!(
                    "stdin {what} {} is binary data, not an ID: pipe IDs one per line (or JSON \
                     records with an \"id\")",
                    self.count
                ))));
            }
            return Some(Ok(match parse_record(line, Some(self.count)) {
                Parsed::Bad(text) => Parsed::Bad(format!("stdin {what} {}: {text}", self.count)),
                record => record,
            }));
        }
    }

    /// The bytes of the next record, without its separator.
    fn next_raw(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            let pending = &self.buf[self.pos..];
            if self.sep.is_none() {
                // Decide once, on the first block that holds a separator: any NUL in it means
                // NUL-separated input (a `-0` record may contain newlines, never a NUL).
                if pending.contains(&0) {
                    self.sep = Some(0);
                } else if pending.contains(&b'\n') {
                    self.sep = Some(b'\n');
                }
            }
            if let Some(sep) = self.sep
                && let Some(i) = pending.iter().position(|&b| b == sep)
            {
                let record = pending[..i].to_vec();
                self.pos += i + 1;
                return Ok(Some(record));
            }
            if self.eof {
                // The last record may lack its separator.
                if pending.is_empty() {
                    return Ok(None);
                }
                let record = pending.to_vec();
                self.pos = self.buf.len();
                return Ok(Some(record));
            }
            self.fill()?;
        }
    }

    /// Reads one more chunk (dropping consumed bytes first); sets `eof` at the end.
    fn fill(&mut self) -> io::Result<()> {
        self.buf.drain(..self.pos);
        self.pos = 0;
        let start = self.buf.len();
        self.buf.resize(start + CHUNK, 0);
        loop {
            match self.reader.read(&mut self.buf[start..]) {
                Ok(n) => {
                    self.buf.truncate(start + n);
                    self.eof = n == 0;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.buf.truncate(start);
                    return Err(e);
                }
            }
        }
    }
}

/// The text of a query or an issue read from `file` (stdin when none or `-`). A NUL byte
/// means binary data (git's and grep's test: no text has one), which is a usage error rather
/// than a query of stray words; other bytes that are not UTF-8 become U+FFFD, which match
/// nothing and break nothing.
pub fn query_text(bytes: &[u8], file: Option<&std::ffi::OsStr>) -> crate::error::Result<String> {
    if bytes.contains(&0) {
        let source = match file.filter(|f| *f != "-") {
            Some(f) => std::path::Path::new(f).display().to_string(),
            None => "stdin".to_string(),
        };
        return Err(crate::error::Error::usage(format!(
            "{source} is binary data, not text: give the query or the issue as text"
        )));
    }
    Ok(String::from_utf8_lossy(bytes).into_owned())
}

/// One record's text (already without separator and `\r`) as a [`Record`].
fn parse_record(text: &[u8], line: Option<usize>) -> Parsed {
    if text.starts_with(b"{") {
        let value: serde_json::Value = match serde_json::from_slice(text) {
            Ok(v) => v,
            Err(e) => return Parsed::Bad(format!("invalid JSON: {e}")),
        };
        return match value.get("id").and_then(serde_json::Value::as_str) {
            Some(id) if !id.is_empty() => Parsed::Record(Record {
                id: crate::id::parse(id.as_bytes()),
                line,
                json: Some(value),
            }),
            _ => Parsed::Bad("JSON record without an \"id\" string".to_string()),
        };
    }
    let id = match text.iter().position(|&b| b == b'\t') {
        Some(i) => &text[..i],
        None => text,
    };
    if id.is_empty() {
        return Parsed::Bad("empty ID".to_string());
    }
    Parsed::Record(Record { id: crate::id::parse(id), line, json: None })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `input` in tiny pieces, to exercise records split across reads.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(self.0.len()).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// A reader that fails.
    struct Failing;

    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("device on fire"))
        }
    }

    /// All outcomes of reading `input` as stdin: IDs as lossy text, bad records as messages.
    fn parse_all(input: &[u8], piece: usize) -> Vec<String> {
        let mut records = Records::new(Trickle(input, piece));
        let mut out = Vec::new();
        while let Some(item) = records.next() {
            out.push(match item {
                Ok(Parsed::Record(r)) => String::from_utf8_lossy(&r.id).into_owned(),
                Ok(Parsed::Bad(m)) => format!("BAD {m}"),
                Ok(Parsed::Binary(m)) => format!("BINARY {m}"),
                Err(e) => format!("ERR {e}"),
            });
        }
        out
    }

    /// Same results however the input is cut into reads.
    fn check(input: &[u8], want: &[&str]) {
        for piece in [1, 2, 3, 7, CHUNK] {
            assert_eq!(parse_all(input, piece), want, "reads of {piece} bytes: {input:?}");
        }
    }

    #[test]
    fn tab_separated_lines() {
        check(
            b"pkg/a.py:f\tfunction\t3-9\tdef f(x):\npkg/b.py\nc.py:C.m\tclass\n",
            &["pkg/a.py:f", "pkg/b.py", "c.py:C.m"],
        );
    }

    #[test]
    fn skipped_lines_and_crlf() {
        check(b"# comment\n\n   \na.py\r\n\t\r\n#x.py\nb.py", &["a.py", "b.py"]);
        check(b"", &[]);
        check(b"\n\n", &[]);
        check(b"a.py\r\nb.py\r\n", &["a.py", "b.py"]);
    }

    #[test]
    fn json_lines() {
        check(
            b"{\"id\":\"a.py:f\",\"kind\":\"function\"}\n{\"kind\":\"class\"}\n{not json\nb.py\n\
              {\"id\":7}\n{\"id\":\"caf\\\\xE9.py\"}\n",
            &[
                "a.py:f",
                "BAD stdin line 2: JSON record without an \"id\" string",
                "BAD stdin line 3: invalid JSON: key must be a string at line 1 column 2",
                "b.py",
                "BAD stdin line 5: JSON record without an \"id\" string",
                "caf\u{FFFD}.py",
            ],
        );
        let mut records = Records::new(&b"{\"id\":\"x\",\"lines\":[1,2]}"[..]);
        let Some(Ok(Parsed::Record(r))) = records.next() else { panic!("no record") };
        assert_eq!(r.line, Some(1));
        assert_eq!(r.json, Some(serde_json::json!({"id": "x", "lines": [1, 2]})));
    }

    #[test]
    fn nul_separated() {
        check(
            b"a.py:f\tfunction\0b.py\0# c\0\0multi\nline\tx\0",
            &["a.py:f", "b.py", "multi\nline"],
        );
        check(b"a.py\0b.py", &["a.py", "b.py"]);
    }

    #[test]
    fn escaped_and_raw_bytes() {
        let mut records = Records::new(&b"src/caf\\xE9.py:f\n\xff\xfe.py\tfile\n"[..]);
        let mut ids = Vec::new();
        while let Some(Ok(Parsed::Record(r))) = records.next() {
            ids.push(r.id);
        }
        assert_eq!(ids, [b"src/caf\xe9.py:f".to_vec(), b"\xff\xfe.py".to_vec()]);
    }

    #[test]
    fn empty_id_is_bad() {
        check(b"\tfunction\nok\n", &["BAD stdin line 1: empty ID", "ok"]);
        check(b"\tx\0", &["BAD stdin record 1: empty ID"]);
    }

    #[test]
    fn binary_input_is_one_error_that_ends_the_input() {
        let elf = b"\x7fELF\x02\x01\x01\0\0\0>\0\x01\0\0\0\x30\xf5\x02\0";
        let got = ids(EntityInputs::from_reader(os(&["a", "-", "b"]), Box::new(&elf[..]), false));
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0], "a@None");
        assert!(got[1].starts_with("ERR stdin record 1 is binary data, not an ID"), "{got:?}");
        let msg = "BINARY stdin line 2 is binary data, not an ID: pipe IDs one per line (or JSON \
                   records with an \"id\")";
        check(b"a.py\nb\x1b[0m.py\nc.py\n", &["a.py", msg, "c.py"]);
        // Tabs, and newlines inside NUL-separated records, are not binary; nor are the
        // whitespace controls of grep's text of a source line (lone CRs, form feeds).
        check(b"a.py\tfunction\0multi\nline\0", &["a.py", "multi\nline"]);
        check(b"cr.py:1:a\r b\r\r\nc.py:9:\x0c\x0b\n", &["cr.py:1:a\r b\r", "c.py:9:\x0c\x0b"]);
    }

    #[test]
    fn read_error() {
        let mut records = Records::new(Failing);
        assert!(matches!(records.next(), Some(Err(_))));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        // A small xorshift generator over bytes that matter to the reader.
        const ALPHABET: &[u8] = b"a\t\n\r\0{}\"#\\x:9 \xff\xe9";
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..500 {
            let mut input = Vec::new();
            for _ in 0..(state % 40) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                input.push(ALPHABET[(state % ALPHABET.len() as u64) as usize]);
            }
            let whole = parse_all(&input, CHUNK);
            // Without NUL the way the input is cut into reads cannot matter.
            if !input.contains(&0) {
                assert_eq!(parse_all(&input, 1), whole, "{input:?}");
            }
        }
    }

    fn ids(inputs: EntityInputs) -> Vec<String> {
        inputs
            .map(|item| match item {
                Ok(r) => format!("{}@{:?}", String::from_utf8_lossy(&r.id), r.line),
                Err(e) => format!("ERR {e}"),
            })
            .collect()
    }

    fn os(args: &[&str]) -> Vec<OsString> {
        args.iter().map(OsString::from).collect()
    }

    #[test]
    fn arguments_and_stdin() {
        let stdin = || Box::new(&b"s1\ns2\n"[..]);
        assert_eq!(
            ids(EntityInputs::from_reader(os(&[]), stdin(), false)),
            ["s1@Some(1)", "s2@Some(2)"]
        );
        assert_eq!(
            ids(EntityInputs::from_reader(os(&["a", "b\tkind"]), stdin(), false)),
            ["a@None", "b@None"]
        );
        assert_eq!(
            ids(EntityInputs::from_reader(os(&["a", "-", "b", "-"]), stdin(), true)),
            ["a@None", "s1@Some(1)", "s2@Some(2)", "b@None"]
        );
        assert_eq!(
            ids(EntityInputs::from_reader(os(&["{\"id\":\"j\"}", "#x"]), stdin(), false)),
            ["j@None", "#x@None"]
        );
    }

    #[test]
    fn terminal_stdin_is_a_usage_error() {
        let got: Vec<_> = EntityInputs::from_reader(vec![], Box::new(&b"x\n"[..]), true).collect();
        assert_eq!(got.len(), 1);
        assert!(matches!(&got[0], Err(crate::Error::Usage(m)) if m.starts_with("no IDs given")));
    }

    #[test]
    fn read_error_ends_input() {
        let got = ids(EntityInputs::from_reader(os(&["a", "-", "b"]), Box::new(Failing), false));
        assert_eq!(got, ["a@None", "ERR cannot read <stdin>: device on fire"]);
    }
}
