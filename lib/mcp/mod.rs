//! `cds-mcp`: a Model Context Protocol server over stdio, serving one index.
//!
//! The transport is MCP's stdio transport: one JSON-RPC 2.0 message per line on stdin, one per
//! line on stdout, nothing else on stdout (notes go to stderr). The server is a loop over
//! [`Server::handle_line`], which never panics and answers every line that needs an answer:
//!
//! * `initialize` negotiates the protocol version: the client's, when it is one the official
//!   Python SDK speaks through the handshake ([`VERSIONS`]), else the latest of them; the
//!   answer carries the server's capabilities (tools) and a few lines of instructions;
//!   `notifications/initialized` needs no answer; requests before `initialize` are served
//!   anyway (a lenient server is easier to drive by hand, and nothing depends on the order);
//! * `ping`, `tools/list`, `tools/call` ([`tools`]); `notifications/cancelled` and any other
//!   notification are accepted silently (calls are answered in milliseconds and one at a time,
//!   so by the time a cancellation is read its request has been answered);
//! * JSON-RPC errors: -32700 for a line that is not JSON (or is too long), -32600 for a
//!   message that is not a valid request, -32601 for an unknown method, -32602 for bad
//!   `initialize` or `tools/call` parameters (an unknown tool); a tool's own failures (bad
//!   arguments, unknown entities) are tool results with `isError: true`, so the model can
//!   correct its call;
//! * batches (JSON arrays) exist only in protocol version 2025-03-26: they are answered there
//!   (notifications in them get no answer), and refused with -32600 otherwise, as the later
//!   versions removed them;
//! * end of stdin ends the server with status 0.
//!
//! Safety: tools read the index and nothing else. IDs resolve only to indexed entities (an
//! exact ID or one of the loose spellings cds-get accepts, all looked up in the index), code
//! comes from the index's stored content, so no path, `..`, absolute path or symlink can reach
//! a file outside the indexed repository; every result is cut at a character budget with a note
//! saying how to narrow the call ([`tools::Budget`]).

pub mod cli;
pub mod tools;

use std::io::{BufRead, Write};

use serde_json::{Map, Value, json};

use crate::index::Index;

/// The protocol versions `initialize` accepts, oldest first: those the official Python SDK
/// negotiates through the handshake. The last is the answer to any other version.
pub const VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// The one protocol version with JSON-RPC batches.
const BATCH_VERSION: &str = "2025-03-26";

/// The longest message read, in bytes; a longer line is skipped and answered with a parse
/// error, so a runaway client cannot exhaust memory.
pub const MAX_LINE: usize = 8 << 20;

/// JSON-RPC error codes.
pub mod code {
    /// Invalid JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal error.
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// Settings of a server.
#[derive(Debug, Clone)]
pub struct Options {
    /// Most characters of text in one tool result (the structured part is bounded alike).
    pub max_chars: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options { max_chars: tools::DEFAULT_MAX_CHARS }
    }
}

/// The state of one connection.
pub struct Server<'i> {
    ix: &'i Index,
    opts: Options,
    /// The negotiated protocol version, once `initialize` was answered.
    version: Option<String>,
}

/// A JSON-RPC error response.
fn error(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

/// A JSON-RPC result response.
fn result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

impl<'i> Server<'i> {
    /// A server over `ix`.
    pub fn new(ix: &'i Index, opts: Options) -> Server<'i> {
        Server { ix, opts, version: None }
    }

    /// Answers one line of input: `None` when no answer is due (a notification, a blank line).
    pub fn handle_line(&mut self, line: &[u8]) -> Option<String> {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let answer = match serde_json::from_slice::<Value>(line) {
            Ok(v) => self.handle_value(v),
            Err(e) => Some(error(Value::Null, code::PARSE_ERROR, format!("parse error: {e}"))),
        };
        answer.map(|v| v.to_string())
    }

    /// Answers one parsed message or batch.
    pub fn handle_value(&mut self, v: Value) -> Option<Value> {
        match v {
            Value::Array(items) => {
                if self.version.as_deref() != Some(BATCH_VERSION) {
                    let why = match &self.version {
                        Some(v) => format!("protocol version {v} has no batches"),
                        None => format!("batches exist only in protocol version {BATCH_VERSION}"),
                    };
                    return Some(error(
                        Value::Null,
                        code::INVALID_REQUEST,
                        format!("invalid request: {why}: send one message per line"),
                    ));
                }
                if items.is_empty() {
                    return Some(error(
                        Value::Null,
                        code::INVALID_REQUEST,
                        "invalid request: empty batch",
                    ));
                }
                let answers: Vec<Value> =
                    items.into_iter().filter_map(|m| self.handle_message(m)).collect();
                (!answers.is_empty()).then_some(Value::Array(answers))
            }
            other => self.handle_message(other),
        }
    }

    /// Answers one message (request, notification or response).
    fn handle_message(&mut self, v: Value) -> Option<Value> {
        let Value::Object(msg) = v else {
            return Some(error(
                Value::Null,
                code::INVALID_REQUEST,
                "invalid request: a message is a JSON object",
            ));
        };
        let id = msg.get("id").cloned();
        // An ID that is not a string or a number cannot be echoed back meaningfully.
        let id_ok = matches!(id, None | Some(Value::String(_)) | Some(Value::Number(_)));
        let reply_id = if id_ok { id.clone().unwrap_or(Value::Null) } else { Value::Null };
        if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Some(error(
                reply_id,
                code::INVALID_REQUEST,
                "invalid request: \"jsonrpc\" must be \"2.0\"",
            ));
        }
        if !id_ok {
            return Some(error(
                Value::Null,
                code::INVALID_REQUEST,
                "invalid request: \"id\" must be a string or a number",
            ));
        }
        let Some(method) = msg.get("method") else {
            // A response (to a request this server never sends) or garbage: answer only what
            // claims to be a request.
            if msg.contains_key("result") || msg.contains_key("error") {
                return None;
            }
            return Some(error(reply_id, code::INVALID_REQUEST, "invalid request: no \"method\""));
        };
        let Some(method) = method.as_str() else {
            return Some(error(
                reply_id,
                code::INVALID_REQUEST,
                "invalid request: \"method\" must be a string",
            ));
        };
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        if !matches!(params, Value::Null | Value::Object(_) | Value::Array(_)) {
            return id.map(|id| {
                error(id, code::INVALID_REQUEST, "invalid request: \"params\" must be an object")
            });
        }
        // A notification needs no answer. notifications/cancelled included: requests are
        // answered one at a time, in order, before the next line is read, so a cancelled
        // request has always been answered already.
        let id = id?;
        Some(match self.request(method, &params) {
            Ok(r) => result(id, r),
            Err((code, message)) => error(id, code, message),
        })
    }

    /// Runs a request: its result, or a JSON-RPC error (code, message).
    fn request(&mut self, method: &str, params: &Value) -> Result<Value, (i64, String)> {
        match method {
            "initialize" => self.initialize(params),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": tools::list()})),
            "tools/call" => {
                let p = params.as_object().ok_or((
                    code::INVALID_PARAMS,
                    "invalid params: tools/call needs {\"name\", \"arguments\"}".to_string(),
                ))?;
                let name = p.get("name").and_then(Value::as_str).ok_or((
                    code::INVALID_PARAMS,
                    "invalid params: tools/call needs a tool \"name\"".to_string(),
                ))?;
                let empty = Value::Object(Map::new());
                let args = match p.get("arguments") {
                    None | Some(Value::Null) => &empty,
                    Some(a) => a,
                };
                if !tools::exists(name) {
                    return Err((
                        code::INVALID_PARAMS,
                        format!(
                            "unknown tool '{name}': tools/list names the tools ({})",
                            tools::names().join(", ")
                        ),
                    ));
                }
                let budget = tools::Budget::new(self.opts.max_chars);
                Ok(tools::call(self.ix, name, args, &budget))
            }
            // Capabilities this server does not declare: answered with empty lists rather than
            // errors, which some clients ask for regardless.
            "resources/list" => Ok(json!({"resources": []})),
            "resources/templates/list" => Ok(json!({"resourceTemplates": []})),
            "prompts/list" => Ok(json!({"prompts": []})),
            _ => Err((code::METHOD_NOT_FOUND, format!("method not found: {method}"))),
        }
    }

    /// `initialize`: negotiates the version and describes the server.
    fn initialize(&mut self, params: &Value) -> Result<Value, (i64, String)> {
        let requested = params.get("protocolVersion").and_then(Value::as_str).ok_or((
            code::INVALID_PARAMS,
            "invalid params: initialize needs \"protocolVersion\" (a string)".to_string(),
        ))?;
        let latest = VERSIONS[VERSIONS.len() - 1];
        let version = if VERSIONS.contains(&requested) { requested } else { latest };
        self.version = Some(version.to_string());
        let root = self.ix.root();
        Ok(json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {
                "name": "cds-mcp",
                "title": "cds: Codebase DeepSearch",
                "version": crate::cli::flags::VERSION,
            },
            "instructions": format!(
                "Code search over the repository at {}: cds_locate ranks the files and \
                 functions an issue is about; cds_search finds entities by name or text; \
                 cds_traverse follows calls, imports, inheritance and containment; cds_retrieve \
                 shows code by entity ID (path/file.py:Class.method). LocAgent's \
                 search_code_snippets, get_entity_contents and explore_tree_structure are here \
                 too, with LocAgent's output.",
                root.display()
            ),
        }))
    }
}

/// Reads one line of at most [`MAX_LINE`] bytes into `buf`: `Ok(false)` at end of input. A
/// longer line is consumed whole but only its start kept, and reported as too long.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> std::io::Result<(bool, bool)> {
    buf.clear();
    let mut too_long = false;
    loop {
        let chunk = match input.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((!buf.is_empty() || too_long, too_long));
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if buf.len() + take <= MAX_LINE {
            buf.extend_from_slice(&chunk[..take]);
        } else {
            too_long = true;
        }
        input.consume(take);
        if done {
            return Ok((true, too_long));
        }
    }
}

/// Serves `ix` on `input` and `output` until the input ends (or the output is closed).
pub fn serve(
    ix: &Index,
    opts: Options,
    mut input: impl BufRead,
    mut output: impl Write,
) -> crate::Result<()> {
    let mut server = Server::new(ix, opts);
    let mut buf = Vec::with_capacity(4096);
    loop {
        let (more, too_long) = read_line(&mut input, &mut buf)
            .map_err(|e| crate::Error::io("cannot read", "stdin", e))?;
        if !more {
            return Ok(());
        }
        let answer = if too_long {
            Some(
                error(
                    Value::Null,
                    code::PARSE_ERROR,
                    format!("parse error: message longer than {MAX_LINE} bytes"),
                )
                .to_string(),
            )
        } else {
            server.handle_line(&buf)
        };
        if let Some(mut a) = answer {
            a.push('\n');
            output.write_all(a.as_bytes())?;
            output.flush()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_skipped_whole() {
        let big = vec![b'x'; MAX_LINE + 10];
        let mut input: Vec<u8> = big;
        input.extend_from_slice(b"\n{\"a\":1}\n");
        let mut r = std::io::BufReader::with_capacity(1024, &input[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf).unwrap(), (true, true));
        assert_eq!(read_line(&mut r, &mut buf).unwrap(), (true, false));
        assert_eq!(buf, b"{\"a\":1}\n");
        assert_eq!(read_line(&mut r, &mut buf).unwrap(), (false, false));
    }

    #[test]
    fn last_line_without_newline() {
        let mut r = std::io::BufReader::new(&b"{}"[..]);
        let mut buf = Vec::new();
        assert_eq!(read_line(&mut r, &mut buf).unwrap(), (true, false));
        assert_eq!(buf, b"{}");
        assert_eq!(read_line(&mut r, &mut buf).unwrap(), (false, false));
    }
}
