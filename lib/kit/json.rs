//! JSON with comments, parsed just far enough to add members and array items to a user's file
//! without touching a byte of the rest.
//!
//! Client configs are hand-edited: VS Code and Gemini CLI accept `//` and `/* */` comments and
//! trailing commas, and users indent as they like. Re-serializing the whole file (serde_json)
//! would drop the comments and reformat everything, so this module records where each value
//! sits and splices new text in next to its siblings, indented like them.

use serde_json::Value;

/// A parsed value and where it is in the text (`start..end`, bytes).
#[derive(Debug)]
pub struct Node {
    /// Offset of its first byte.
    pub start: usize,
    /// Offset just past its last byte.
    pub end: usize,
    /// What it is.
    pub kind: Kind,
}

/// The shape of a [`Node`].
#[derive(Debug)]
pub enum Kind {
    /// Members in file order: key, offset of the key's opening quote, value.
    Object(Vec<(String, usize, Node)>),
    /// Items in file order.
    Array(Vec<Node>),
    /// A string, number, boolean or null.
    Scalar(Value),
}

impl Node {
    /// The value as serde_json sees it (comments and layout dropped).
    pub fn value(&self) -> Value {
        match &self.kind {
            Kind::Object(members) => {
                Value::Object(members.iter().map(|(k, _, n)| (k.clone(), n.value())).collect())
            }
            Kind::Array(items) => Value::Array(items.iter().map(Node::value).collect()),
            Kind::Scalar(v) => v.clone(),
        }
    }

    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            Kind::Object(members) => members.iter().find(|(k, _, _)| k == key).map(|m| &m.2),
            _ => None,
        }
    }
}

/// Where and why a text is not JSON.
#[derive(Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What was wrong.
    pub what: String,
}

/// Deeper nesting than this is refused rather than risking the stack.
const MAX_DEPTH: usize = 128;

/// Parses a whole document: one value, with comments and whitespace around it.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut p = Parser { s: text.as_bytes(), i: 0, text };
    if text.starts_with('\u{feff}') {
        p.i = 3;
    }
    p.skip()?;
    let node = p.value(0)?;
    p.skip()?;
    if p.i < p.s.len() {
        return Err(p.error("unexpected text after the JSON value"));
    }
    Ok(node)
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn error(&self, what: &str) -> SyntaxError {
        let before = &self.text[..self.i.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        SyntaxError { line, column, what: what.to_string() }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    /// Skips whitespace and comments.
    fn skip(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(b' ' | b'\t' | b'\r' | b'\n') => self.i += 1,
                Some(b'/') if self.s.get(self.i + 1) == Some(&b'/') => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.i += 1;
                    }
                }
                Some(b'/') if self.s.get(self.i + 1) == Some(&b'*') => {
                    match self.text[self.i + 2..].find("*/") {
                        Some(n) => self.i += 2 + n + 2,
                        None => return Err(self.error("unclosed /* comment")),
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        let start = self.i;
        let kind = match self.peek() {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Kind::Scalar(Value::String(self.string()?)),
            Some(b't' | b'f' | b'n') => {
                let word: &[u8] = match self.peek() {
                    Some(b't') => b"true",
                    Some(b'f') => b"false",
                    _ => b"null",
                };
                if !self.s[self.i..].starts_with(word) {
                    return Err(self.error("expected a value"));
                }
                self.i += word.len();
                Kind::Scalar(serde_json::from_slice(word).expect("a JSON literal"))
            }
            Some(b'-' | b'0'..=b'9') => {
                while self
                    .peek()
                    .is_some_and(|c| matches!(c, b'-' | b'+' | b'.' | b'0'..=b'9' | b'e' | b'E'))
                {
                    self.i += 1;
                }
                match serde_json::from_str::<serde_json::Number>(&self.text[start..self.i]) {
                    Ok(n) => Kind::Scalar(Value::Number(n)),
                    Err(_) => {
                        self.i = start;
                        return Err(self.error("invalid number"));
                    }
                }
            }
            Some(_) => return Err(self.error("expected a value")),
            None => return Err(self.error("unexpected end of file")),
        };
        Ok(Node { start, end: self.i, kind })
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        let start = self.i;
        self.i += 1;
        loop {
            match self.peek() {
                Some(b'"') => break,
                Some(b'\\') => self.i += 2,
                Some(b'\n') | None => {
                    self.i = start;
                    return Err(self.error("unclosed string"));
                }
                Some(_) => self.i += 1,
            }
        }
        self.i += 1;
        serde_json::from_str(&self.text[start..self.i]).map_err(|e| {
            self.i = start;
            self.error(&format!("invalid string ({e})"))
        })
    }

    fn object(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.i += 1;
        let mut members: Vec<(String, usize, Node)> = Vec::new();
        loop {
            self.skip()?;
            match self.peek() {
                Some(b'}') => break,
                Some(b'"') => {}
                _ => return Err(self.error("expected a \"key\" or }")),
            }
            let key_at = self.i;
            let key = self.string()?;
            self.skip()?;
            if self.peek() != Some(b':') {
                return Err(self.error("expected : after the key"));
            }
            self.i += 1;
            self.skip()?;
            let value = self.value(depth + 1)?;
            members.push((key, key_at, value));
            self.skip()?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => break,
                _ => return Err(self.error("expected , or }")),
            }
        }
        self.i += 1;
        Ok(Kind::Object(members))
    }

    fn array(&mut self, depth: usize) -> Result<Kind, SyntaxError> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.skip()?;
            if self.peek() == Some(b']') {
                break;
            }
            items.push(self.value(depth + 1)?);
            self.skip()?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => break,
                _ => return Err(self.error("expected , or ]")),
            }
        }
        self.i += 1;
        Ok(Kind::Array(items))
    }
}

/// `text` with the member `"key": value` added at the end of the object `obj`.
pub fn insert_member(text: &str, obj: &Node, key: &str, value: &Value) -> String {
    let Kind::Object(members) = &obj.kind else { panic!("insert_member needs an object") };
    let children: Vec<(usize, usize)> = members.iter().map(|(_, at, n)| (*at, n.end)).collect();
    let key = serde_json::to_string(key).expect("a string serializes");
    splice(text, obj, &children, |indent, unit| match indent {
        Some(indent) => format!("{key}: {}", pretty(value, indent, unit)),
        None => format!("{key}: {}", compact(value)),
    })
}

/// `text` with `value` added as the last item of the array `arr`.
pub fn insert_item(text: &str, arr: &Node, value: &Value) -> String {
    let Kind::Array(items) = &arr.kind else { panic!("insert_item needs an array") };
    let children: Vec<(usize, usize)> = items.iter().map(|n| (n.start, n.end)).collect();
    splice(text, arr, &children, |indent, unit| match indent {
        Some(indent) => pretty(value, indent, unit),
        None => compact(value),
    })
}

/// Adds one child to the container `node` whose children span `children`. `render` gets the
/// child's indentation (`None`: the container is written on one line) and the file's
/// indentation unit.
fn splice(
    text: &str,
    node: &Node,
    children: &[(usize, usize)],
    render: impl Fn(Option<&str>, &str) -> String,
) -> String {
    let unit = indent_unit(text);
    // A file written with CRLF line ends gets CRLF in what is added too.
    let crlf = |s: String| if text.contains("\r\n") { s.replace('\n', "\r\n") } else { s };
    let open = node.start;
    let close = node.end - 1;
    let (at, insert) = match (children.first(), children.last()) {
        (Some(&(first, _)), Some(&(_, last_end))) => {
            let multiline = text[open + 1..first].contains('\n');
            // After the last child, or after the trailing comma that follows it (JSONC).
            let rest = &text[last_end..close];
            let comma = significant_comma(rest).map(|n| last_end + n + 1);
            let at = comma.unwrap_or(last_end);
            let sep = if comma.is_some() { "" } else { "," };
            if multiline {
                let indent = line_indent(text, first);
                (at, format!("{sep}\n{indent}{}", render(Some(indent), &unit)))
            } else {
                (at, format!("{sep} {}", render(None, &unit)))
            }
        }
        _ => {
            let outer = line_indent(text, open);
            let inner = format!("{outer}{unit}");
            let child = render(Some(&inner), &unit);
            if text[open + 1..close].trim().is_empty() {
                let mut out = String::with_capacity(text.len() + child.len() + 8);
                out.push_str(&text[..=open]);
                out.push_str(&crlf(format!("\n{inner}{child}\n{outer}")));
                out.push_str(&text[close..]);
                return out;
            }
            // Only comments inside: put the child first; the comments follow it.
            (open + 1, format!("\n{inner}{child}"))
        }
    };
    let insert = crlf(insert);
    let mut out = String::with_capacity(text.len() + insert.len());
    out.push_str(&text[..at]);
    out.push_str(&insert);
    out.push_str(&text[at..]);
    out
}

/// The offset of a `,` in `rest` that is not inside a comment, if any.
fn significant_comma(rest: &str) -> Option<usize> {
    let b = rest.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b',' => return Some(i),
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = rest[i..].find('\n').map_or(b.len(), |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = rest[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
            }
            _ => i += 1,
        }
    }
    None
}

/// The whitespace that starts the line holding `pos`.
fn line_indent(text: &str, pos: usize) -> &str {
    let line_start = text[..pos].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// The file's indentation step: the leading whitespace of its first indented line (two spaces
/// if none is).
fn indent_unit(text: &str) -> String {
    text.lines()
        .map(|l| &l[..l.len() - l.trim_start_matches([' ', '\t']).len()])
        .find(|ws| !ws.is_empty())
        .map_or_else(|| "  ".to_string(), str::to_string)
}

/// `value` pretty-printed with `unit` per level, its lines after the first indented by `indent`.
fn pretty(value: &Value, indent: &str, unit: &str) -> String {
    use serde::Serialize;
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(unit.as_bytes());
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    value.serialize(&mut ser).expect("a Value serializes");
    let text = String::from_utf8(buf).expect("serde_json writes UTF-8");
    text.replace('\n', &format!("\n{indent}"))
}

/// `value` on one line, spaced like hand-written JSON (`{"a": 1, "b": [2, 3]}`).
fn compact(value: &Value) -> String {
    match value {
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{}: {}", serde_json::to_string(k).unwrap(), compact(v)))
                .collect();
            format!("{{{}}}", parts.join(", "))
        }
        Value::Array(a) => {
            format!("[{}]", a.iter().map(compact).collect::<Vec<_>>().join(", "))
        }
        v => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_jsonc_and_reports_positions() {
        let text = "// settings\n{\n  \"a\": [1, 2,], /* x */\n  \"b\": {\"c\": \"d\\\"\"},\n}\n";
        let root = parse(text).unwrap();
        assert_eq!(root.value(), json!({"a": [1, 2], "b": {"c": "d\""}}));
        assert_eq!(
            parse("{\n  \"a\": 1\n  \"b\": 2\n}").unwrap_err(),
            SyntaxError { line: 3, column: 3, what: "expected , or }".to_string() }
        );
        assert!(parse("{\"a\": tru}").is_err());
        assert!(parse("{\"a\": 1} x").is_err());
        assert!(parse("{\"a\": \"1}").is_err());
        assert!(parse("/* open").is_err());
        assert!(parse(&"[".repeat(1000)).is_err());
    }

    #[test]
    fn inserts_members_indented_like_their_siblings() {
        let text = "{\n    \"x\": 1 // keep\n}\n";
        let root = parse(text).unwrap();
        let out = insert_member(text, &root, "cds", &json!({"command": "cds-mcp"}));
        assert_eq!(
            out,
            "{\n    \"x\": 1,\n    \"cds\": {\n        \"command\": \"cds-mcp\"\n    } // keep\n}\n"
        );
        assert_eq!(parse(&out).unwrap().value(), json!({"x": 1, "cds": {"command": "cds-mcp"}}));
    }

    #[test]
    fn inserts_after_a_trailing_comma_and_into_empty_and_inline_containers() {
        let text = "{\n  \"a\": 1,\n}";
        let out = insert_member(text, &parse(text).unwrap(), "b", &json!(2));
        assert_eq!(out, "{\n  \"a\": 1,\n  \"b\": 2\n}");

        let text = "{\n  \"s\": {}\n}";
        let root = parse(text).unwrap();
        let out = insert_member(text, root.get("s").unwrap(), "k", &json!([1]));
        assert_eq!(out, "{\n  \"s\": {\n    \"k\": [\n      1\n    ]\n  }\n}");

        let text = "{\"allow\": [\"a\"]}";
        let root = parse(text).unwrap();
        let out = insert_item(text, root.get("allow").unwrap(), &json!("b"));
        assert_eq!(out, "{\"allow\": [\"a\", \"b\"]}");

        let text = "{\r\n  \"a\": {}\r\n}\r\n";
        let root = parse(text).unwrap();
        let out = insert_member(text, root.get("a").unwrap(), "b", &json!([1]));
        assert_eq!(out, "{\r\n  \"a\": {\r\n    \"b\": [\r\n      1\r\n    ]\r\n  }\r\n}\r\n");

        let text = "{ /* nothing yet */ }";
        let out = insert_member(text, &parse(text).unwrap(), "k", &json!(true));
        assert_eq!(out, "{\n  \"k\": true /* nothing yet */ }");
        assert_eq!(parse(&out).unwrap().value(), json!({"k": true}));
    }
}
