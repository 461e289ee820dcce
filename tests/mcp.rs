//! `cds-mcp`: driven by a real MCP client (the official Python SDK, `tests/mcp/client.py`), and
//! by raw lines written to its stdin for what no well-behaved client sends.
//!
//! The SDK is installed by `make test` into `target/mcp-venv` (see the Makefile), whose
//! interpreter is passed in `CDS_MCP_PYTHON`. Without it the client test fails, saying how to
//! install it: it never passes without having run.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::util::{Dir, TestCommand, bin, fixtures};

/// The fixture repository built with `--compat locagent`, plus a file and a directory outside
/// it that symlinks inside point to (`evil.py`, `evildir`), holding the marker `cds-outside`.
fn fixture_index(name: &str) -> (Dir, PathBuf) {
    let d = Dir::new(name);
    let repo = d.path("repo");
    crate::util::copy_tree(&fixtures().join("locagent/repo"), &repo);
    d.write(
        "outside/secret.py",
        "SECRET_TOKEN = 'cds-outside'\n\ndef secret():\n    return 'cds-outside'\n",
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(d.path("outside/secret.py"), repo.join("evil.py")).unwrap();
        std::os::unix::fs::symlink(d.path("outside"), repo.join("evildir")).unwrap();
    }
    let index = d.path("index");
    TestCommand::new("cds-build", &d.root)
        .args(["--compat", "locagent", "--index"])
        .arg(&index)
        .arg(&repo)
        .stderr_of(0);
    (d, index)
}

/// The Python that has the MCP SDK: `CDS_MCP_PYTHON`, else `target/mcp-venv` (where `make
/// test` installs it).
fn sdk_python() -> PathBuf {
    if let Some(p) = std::env::var_os("CDS_MCP_PYTHON").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mcp-venv/bin/python")
}

#[test]
fn mcp_python_sdk_client() {
    let python = sdk_python();
    let probe = Command::new(&python).args(["-c", "import mcp"]).output();
    let ok = matches!(&probe, Ok(o) if o.status.success());
    assert!(
        ok,
        "the MCP Python SDK is not installed for {} ({probe:?}): run `make test` (it installs \
         tests/mcp/requirements.txt into target/mcp-venv), or install it and set CDS_MCP_PYTHON",
        python.display()
    );
    let (d, index) = fixture_index("mcp-sdk");
    let out = Command::new(&python)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py"))
        .arg(bin("cds-mcp"))
        .arg(&index)
        .arg(fixtures().join("locagent/tools.jsonl"))
        .current_dir(&d.root)
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "tests/mcp/client.py failed:\n{text}");
    assert!(text.contains("all MCP client checks passed"), "{text}");
}

/// A running server, spoken to line by line.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Server {
    fn start(index: &Path) -> Server {
        let mut child = Command::new(bin("cds-mcp"))
            .arg("--index")
            .arg(index)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Server { child, stdin, stdout }
    }

    fn send(&mut self, line: &[u8]) {
        let w = self.stdin.as_mut().unwrap();
        w.write_all(line).unwrap();
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
    }

    /// Sends a line and reads the answer.
    fn ask(&mut self, line: &str) -> Value {
        self.send(line.as_bytes());
        self.read()
    }

    fn read(&mut self) -> Value {
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap_or_else(|e| panic!("not JSON: {answer:?}: {e}"))
    }

    /// Closes stdin and waits (at most 10 s) for the exit status.
    fn close(mut self) -> i32 {
        drop(self.stdin.take());
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code().unwrap_or(-1);
            }
            if start.elapsed() > Duration::from_secs(10) {
                let _ = self.child.kill();
                panic!("cds-mcp did not exit when its stdin was closed");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn init(version: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
    .to_string()
}

#[test]
fn mcp_raw_protocol() {
    let (_d, index) = fixture_index("mcp-raw");
    let mut s = Server::start(&index);
    // Version negotiation: a known version is echoed, an unknown one gets the latest.
    let r = s.ask(&init("2024-11-05"));
    assert_eq!(r["result"]["protocolVersion"], "2024-11-05", "{r}");
    assert_eq!(r["result"]["serverInfo"]["name"], "cds-mcp");
    assert!(r["result"]["capabilities"]["tools"].is_object(), "{r}");
    let r = s.ask(&init("1999-01-01"));
    assert_eq!(r["result"]["protocolVersion"], "2025-11-25", "{r}");
    // Notifications get no answer: the next answer is the ping's.
    s.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    s.send(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}"#);
    let r = s.ask(r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
    assert_eq!(r, json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
    // Malformed lines, invalid requests, unknown methods: answered, and the server goes on.
    let cases: &[(&str, i64)] = &[
        ("not json at all", -32700),
        (r#"{"jsonrpc":"2.0","id":1,"method":"#, -32700),
        ("\"just a string\"", -32600),
        (r#"{"id":1,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":7}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":"x"}"#, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":"no/such/method"}"#, -32601),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm","arguments":{}}}"#,
            -32602,
        ),
        (r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#, -32602),
        (r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#, -32602),
        (r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#, -32600),
    ];
    for (line, code) in cases {
        let r = s.ask(line);
        assert_eq!(r["error"]["code"], *code, "{line} -> {r}");
        assert_eq!(r["jsonrpc"], "2.0");
    }
    // Bytes that are not UTF-8, and an empty line (ignored).
    s.send(b"");
    s.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}");
    let r = s.read();
    assert_eq!(r["error"]["code"], -32700, "{r}");
    // A bad tool argument is a tool result with isError, not a protocol error.
    let r = s.ask(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cds_retrieve","arguments":{"ids":"../../etc/passwd"}}}"#,
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    let r = s.ask(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cds_retrieve","arguments":["x"]}}"#,
    );
    assert_eq!(r["result"]["isError"], true, "{r}");
    // Still serving.
    let r = s.ask(r#"{"jsonrpc":"2.0","id":4,"method":"tools/list"}"#);
    assert_eq!(r["result"]["tools"].as_array().map(Vec::len), Some(7), "{r}");
    // End of input: a clean exit.
    assert_eq!(s.close(), 0);
}

#[test]
fn mcp_batches_only_in_2025_03_26() {
    let (_d, index) = fixture_index("mcp-batch");
    let mut s = Server::start(&index);
    let r = s.ask(&init("2025-03-26"));
    assert_eq!(r["result"]["protocolVersion"], "2025-03-26");
    let r = s.ask(
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"nope"}]"#,
    );
    let answers = r.as_array().unwrap_or_else(|| panic!("not a batch answer: {r}"));
    assert_eq!(answers.len(), 2, "{r}");
    assert_eq!(answers[0]["result"], json!({}));
    assert_eq!(answers[1]["error"]["code"], -32601);
    assert_eq!(s.ask("[]")["error"]["code"], -32600);
    assert_eq!(s.close(), 0);
}

#[test]
fn mcp_exits_on_eof_and_without_an_index() {
    let (_d, index) = fixture_index("mcp-eof");
    // Closed at once, and mid-line.
    let s = Server::start(&index);
    assert_eq!(s.close(), 0);
    let mut s = Server::start(&index);
    s.stdin.as_mut().unwrap().write_all(br#"{"jsonrpc":"2.0","id":1,"method":"pi"#).unwrap();
    let code = s.close();
    assert_eq!(code, 0);
    // No index: an error on stderr and status 2, not a hang.
    let d = Dir::new("mcp-noindex");
    let err = d.cmd("cds-mcp").stderr_of(2);
    assert!(err.starts_with("cds-mcp: no index found"), "{err}");
}
