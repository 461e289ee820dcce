//! JSON with comments, parsed just far enough to add members and array items to a user's file
//! without touching a byte of the rest.
//!
//! Client configs are hand-edited: VS Code and Gemini CLI accept `//` and `/* */` comments and
//! trailing commas, and users indent as they like. Re-serializing the whole file (serde_json)
//! would drop the comments and reformat everything, so this module records where each value
//! sits (from jsonc-parser's syntax tree) and splices new text in next to its siblings, indented
//! like them.

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
    /// For an object or array, the offset of the comma after its last child, if it has one
    /// (JSONC allows it).
    pub trailing_comma: Option<usize>,
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

impl SyntaxError {
    fn at(text: &str, offset: usize, what: &str) -> SyntaxError {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        SyntaxError { line, column, what: what.to_string() }
    }
}

/// Parses a whole document: one value, with comments and whitespace around it.
///
/// JSON plus what the clients accept: `//` and `/* */` comments and trailing commas (keys stay
/// quoted, strings double-quoted, numbers plain JSON).
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    use jsonc_parser::errors::ParseErrorKind;
    use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast, tokens::Token};
    // jsonc-parser does not skip a byte order mark: it parses what follows, and the offsets
    // below are moved back into `text`.
    let base = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let options = ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_missing_commas: false,
        allow_loose_object_property_names: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let collect = CollectOptions { tokens: true, ..CollectOptions::default() };
    let parsed = parse_to_ast(&text[base..], &collect, &options).map_err(|e| match e.kind() {
        ParseErrorKind::ExpectedComma => missing_comma(text, base, base + e.range().start),
        kind => {
            let what = kind.to_string();
            let what = what[..1].to_lowercase() + &what[1..];
            SyntaxError::at(text, base + e.range().start, &what)
        }
    })?;
    let Some(value) = parsed.value else {
        return Err(SyntaxError::at(text, text.len(), "unexpected end of file"));
    };
    let commas = (parsed.tokens.unwrap_or_default().into_iter())
        .filter(|t| t.token == Token::Comma)
        .map(|t| base + t.range.start)
        .collect();
    Tree { text, base, commas }.node(&value)
}

/// The error for a comma missing after the value that ends at `after`: reported where the next
/// token starts, naming the bracket that could close the container instead.
fn missing_comma(text: &str, base: usize, after: usize) -> SyntaxError {
    use jsonc_parser::{Scanner, ScannerOptions, tokens::Token};
    let mut scanner = Scanner::new(&text[base..], &ScannerOptions::default());
    let mut closers = Vec::new();
    while let Ok(Some(token)) = scanner.scan() {
        let at = base + scanner.token_start();
        match token {
            Token::CommentLine(_) | Token::CommentBlock(_) => {}
            _ if at >= after => {
                let close = closers.last().copied().unwrap_or('}');
                return SyntaxError::at(text, at, &format!("expected , or {close}"));
            }
            Token::OpenBrace => closers.push('}'),
            Token::OpenBracket => closers.push(']'),
            Token::CloseBrace | Token::CloseBracket => _ = closers.pop(),
            _ => {}
        }
    }
    SyntaxError::at(text, after, "expected a comma")
}

/// What [`parse`] converts the crate's syntax tree with.
struct Tree<'a> {
    text: &'a str,
    /// Where the parsed text starts in `text` (after a byte order mark).
    base: usize,
    /// Offsets of the commas outside strings and comments, in order.
    commas: Vec<usize>,
}

impl Tree<'_> {
    /// The first comma in `from..to`.
    fn comma(&self, from: usize, to: usize) -> Option<usize> {
        let i = self.commas.partition_point(|&c| c < from);
        self.commas.get(i).copied().filter(|&c| c < to)
    }

    /// A string's value; raw control characters (a line break above all) are refused as
    /// JSON does.
    fn string(&self, s: &jsonc_parser::ast::StringLit) -> Result<String, SyntaxError> {
        let start = self.base + s.range.start;
        let raw = &self.text[start..self.base + s.range.end];
        match raw.bytes().position(|b| b < 0x20) {
            Some(n) => Err(SyntaxError::at(self.text, start + n, "control character in a string")),
            None => Ok(s.value.to_string()),
        }
    }

    fn node(&self, value: &jsonc_parser::ast::Value) -> Result<Node, SyntaxError> {
        use jsonc_parser::ast::{ObjectPropName, Value as Ast};
        use jsonc_parser::common::Ranged;
        let range = value.range();
        let (start, end) = (self.base + range.start, self.base + range.end);
        let kind = match value {
            Ast::Object(o) => {
                let mut members = Vec::with_capacity(o.properties.len());
                for p in &o.properties {
                    let ObjectPropName::String(name) = &p.name else {
                        unreachable!("loose property names are not allowed")
                    };
                    let key = self.string(name)?;
                    members.push((key, self.base + name.range.start, self.node(&p.value)?));
                }
                Kind::Object(members)
            }
            Ast::Array(a) => {
                Kind::Array(a.elements.iter().map(|v| self.node(v)).collect::<Result<_, _>>()?)
            }
            Ast::StringLit(s) => Kind::Scalar(Value::String(self.string(s)?)),
            Ast::NumberLit(n) => match n.value.parse() {
                Ok(n) => Kind::Scalar(Value::Number(n)),
                // Out of range (`1e400`).
                Err(_) => return Err(SyntaxError::at(self.text, start, "invalid number")),
            },
            Ast::BooleanLit(b) => Kind::Scalar(Value::Bool(b.value)),
            Ast::NullKeyword(_) => Kind::Scalar(Value::Null),
        };
        let last = match &kind {
            Kind::Object(members) => members.last().map(|m| &m.2),
            Kind::Array(items) => items.last(),
            Kind::Scalar(_) => None,
        };
        let trailing_comma = last.and_then(|last| self.comma(last.end, end));
        Ok(Node { start, end, kind, trailing_comma })
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
            let (at, sep) = match node.trailing_comma {
                Some(comma) => (comma + 1, ""),
                None => (last_end, ","),
            };
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

    #[test]
    fn edge_cases_of_the_parser() {
        let at =
            |text: &str| parse(text).map(|n| n.value()).map_err(|e| (e.line, e.column, e.what));
        assert_eq!(at("\u{feff}{\"a\": 1}"), Ok(json!({"a": 1})));
        assert_eq!(at("[1\n /* , */ 2]"), Err((2, 10, "expected , or ]".into())));
        assert_eq!(at("[{\"a\": 1 \"b\": 2"), Err((1, 10, "expected , or }".into())));
        assert_eq!(at("{\"a\": \"x\ny\"}"), Err((1, 9, "control character in a string".into())));
        assert_eq!(at("[1e400]"), Err((1, 2, "invalid number".into())));
        assert_eq!(at("  // only\n"), Err((2, 1, "unexpected end of file".into())));
        for loose in ["{a: 1}", "{'a': 1}", "[0x1]", "[+1]", "[.5]", "[NaN]", "[\"\\x41\"]"] {
            assert!(at(loose).is_err(), "{loose}");
        }

        // A comma in a comment is not a trailing comma.
        let text = "\u{feff}[\n  1 /* , */\n]";
        let out = insert_item(text, &parse(text).unwrap(), &json!(2));
        assert_eq!(out, "\u{feff}[\n  1,\n  2 /* , */\n]");
    }
}
