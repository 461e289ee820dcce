//! Entity IDs: their text form, for IDs (repository paths) that are not plain UTF-8.
//!
//! An ID is bytes, because a repository path need not be UTF-8 (DESIGN.md §3). Most IDs are plain
//! text and are printed as they are. The rest get a stable escaped form that is still one line,
//! has no TAB (the protocol's field separator, DESIGN.md §5) and reads back to the same bytes:
//!
//! | bytes                                | text        |
//! |--------------------------------------|-------------|
//! | `\` (backslash)                      | `\\`        |
//! | TAB, LF, CR                          | `\t` `\n` `\r` |
//! | other control characters, DEL, C1 controls, bytes that are not UTF-8 | `\xNN` (upper-case hex, one per byte) |
//! | a `#` or `{` that starts the ID      | `\x23`, `\x7B` |
//!
//! The last row exists because the pipeline protocol reads a line starting with `#` as a comment
//! and one starting with `{` as JSON; escaping them keeps every ID representable on a line.
//!
//! [`parse`] is the inverse. It is lenient the way bstr's `unescape_bytes` is: a backslash that
//! does not start a known escape stands for itself, so a hand-typed ID with a stray backslash
//! still means what it says.
//!
//! Why not bstr's `escape_bytes`/`unescape_bytes`: they round-trip, but `escape_bytes` also
//! escapes the space (`\x20`), which would make an ID with both a space and an odd byte look
//! different from one with only a space, and `unescape_bytes` takes a `&str`, while protocol
//! input may itself contain bytes that are not UTF-8.

use std::borrow::Cow;

/// The printable text of an ID: borrowed as is when nothing needs escaping (the common case),
/// otherwise the escaped form described in the module docs. `parse(display(id)) == id` always.
pub fn display(id: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(id) {
        Ok(text) if !needs_escape(text) => Cow::Borrowed(text),
        _ => Cow::Owned(escape(id)),
    }
}

/// The ID bytes of a text form written by [`display`] (or by hand). Text without a backslash is
/// returned unchanged.
pub fn parse(text: &[u8]) -> Vec<u8> {
    if !text.contains(&b'\\') {
        return text.to_vec();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b != b'\\' {
            out.push(b);
            i += 1;
            continue;
        }
        // A backslash: decode the escape after it (byte, length), or keep the backslash as is.
        let decoded = match text.get(i + 1) {
            Some(b'\\') => Some((b'\\', 2)),
            Some(b't') => Some((b'\t', 2)),
            Some(b'n') => Some((b'\n', 2)),
            Some(b'r') => Some((b'\r', 2)),
            Some(b'0') => Some((0, 2)),
            Some(b'x') => match (text.get(i + 2).and_then(hex), text.get(i + 3).and_then(hex)) {
                (Some(hi), Some(lo)) => Some((hi << 4 | lo, 4)),
                _ => None,
            },
            _ => None,
        };
        let (byte, len) = decoded.unwrap_or((b'\\', 1));
        out.push(byte);
        i += len;
    }
    out
}

/// True when a UTF-8 ID still needs the escaped form.
fn needs_escape(text: &str) -> bool {
    text.starts_with(['#', '{']) || text.chars().any(|c| c == '\\' || c.is_control())
}

/// The escaped form of any bytes.
fn escape(id: &[u8]) -> String {
    let mut out = String::with_capacity(id.len() + 8);
    // Walk valid UTF-8 runs and the invalid bytes between them.
    for (n, chunk) in id.utf8_chunks().enumerate() {
        for (k, c) in chunk.valid().chars().enumerate() {
            let first = n == 0 && k == 0;
            match c {
                '\\' => out.push_str("\\\\"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '#' | '{' if first => push_hex_bytes(&mut out, c),
                c if c.is_control() => push_hex_bytes(&mut out, c),
                c => out.push(c),
            }
        }
        for &b in chunk.invalid() {
            push_hex(&mut out, b);
        }
    }
    out
}

/// `\xNN` for each UTF-8 byte of `c`.
fn push_hex_bytes(out: &mut String, c: char) {
    let mut buf = [0; 4];
    for &b in c.encode_utf8(&mut buf).as_bytes() {
        push_hex(out, b);
    }
}

/// `\xNN` for one byte.
fn push_hex(out: &mut String, b: u8) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    out.push('\\');
    out.push('x');
    out.push(char::from(DIGITS[usize::from(b >> 4)]));
    out.push(char::from(DIGITS[usize::from(b & 0xF)]));
}

/// The value of one hex digit (either case).
fn hex(b: &u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(id: &[u8]) -> String {
        let text = display(id).into_owned();
        assert_eq!(parse(text.as_bytes()), id, "round trip of {text:?}");
        assert!(!text.contains(['\t', '\n', '\r']), "escaped form is one field: {text:?}");
        text
    }

    #[test]
    fn plain_ids_are_borrowed() {
        for id in ["/", "pkg/mod.py:Class.method", "dir with space/ünïcode.py:f", "a#b{c}"] {
            assert!(matches!(display(id.as_bytes()), Cow::Borrowed(s) if s == id));
            assert_eq!(parse(id.as_bytes()), id.as_bytes());
        }
    }

    #[test]
    fn latin1_path() {
        assert_eq!(round_trip(b"src/caf\xe9/mod.py:Foo.bar"), "src/caf\\xE9/mod.py:Foo.bar");
    }

    #[test]
    fn backslash_and_tab() {
        assert_eq!(round_trip(b"win\\dir/a\tb.py:f"), "win\\\\dir/a\\tb.py:f");
        assert_eq!(round_trip(b"a\nb\rc"), "a\\nb\\rc");
    }

    #[test]
    fn controls_and_protocol_characters() {
        assert_eq!(round_trip(b"\x1b[31mred"), "\\x1B[31mred");
        assert_eq!(round_trip(b"del\x7f"), "del\\x7F");
        assert_eq!(round_trip("c1\u{85}".as_bytes()), "c1\\xC2\\x85");
        assert_eq!(round_trip(b"#emacs.py#"), "\\x23emacs.py#");
        assert_eq!(round_trip(b"{x}.py"), "\\x7Bx}.py");
        assert_eq!(round_trip(b"nul\0"), "nul\\x00");
        // Mixed invalid bytes, a truncated multi-byte sequence and valid non-ASCII text.
        round_trip(b"\xff\xfe\xe2\x82 \xe2\x82\xac \\x41");
    }

    #[test]
    fn every_byte_round_trips() {
        let all: Vec<u8> = (0..=255u8).collect();
        round_trip(&all);
        for b in 0..=255u8 {
            round_trip(&[b]);
            round_trip(&[b'a', b, b'\\', b]);
        }
    }

    #[test]
    fn lenient_parse() {
        assert_eq!(parse(b"a\\qb"), b"a\\qb");
        assert_eq!(parse(b"end\\"), b"end\\");
        assert_eq!(parse(b"\\x4"), b"\\x4");
        assert_eq!(parse(b"\\xzz"), b"\\xzz");
        assert_eq!(parse(b"\\x41\\x6a"), b"Aj");
        // Raw bytes that are not UTF-8 pass through.
        assert_eq!(parse(b"\xff\\t"), b"\xff\t");
    }
}
