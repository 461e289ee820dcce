//! Test helpers: throwaway directories and the real binaries.

#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory under the target dir, removed when dropped (kept on failure for a look).
pub struct Dir {
    pub root: PathBuf,
}

impl Dir {
    /// A new empty directory named after the test.
    pub fn new(name: &str) -> Dir {
        let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cds-tests");
        let n = NEXT.fetch_add(1, Ordering::SeqCst);
        let root = base.join(format!("{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(&root).expect("create test dir");
        Dir { root }
    }

    /// A new directory holding a copy of `tests/fixtures/<fixture>`.
    pub fn fixture(name: &str, fixture: &str) -> Dir {
        let d = Dir::new(name);
        copy_tree(&fixtures().join(fixture), &d.root);
        d
    }

    /// A new directory holding a copy of the bundled `examples/demo-repo`.
    pub fn demo(name: &str) -> Dir {
        let d = Dir::new(name);
        copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo-repo"), &d.root);
        let _ = std::fs::remove_dir_all(d.root.join(".cds"));
        d
    }

    /// Runs git here with a fixed identity and none of the user's configuration.
    pub fn git(&self, args: &[&str]) -> &Dir {
        let st = Command::new("git")
            .arg("-C")
            .arg(&self.root)
            .args(["-c", "user.name=cds", "-c", "user.email=cds@example.com"])
            .args(["-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"])
            .args(args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .expect("git runs (the tests run in a git clone)");
        assert!(st.success(), "git {args:?}");
        self
    }

    /// Writes a file (creating parent directories).
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Dir {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        self
    }

    /// A path inside the directory.
    pub fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.root.join(rel)
    }

    /// A command for a cds binary, run in this directory.
    pub fn cmd(&self, bin: &str) -> TestCommand {
        TestCommand::new(bin, &self.root)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

/// `tests/fixtures`.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures")
}

/// Copies a directory tree (files and directories; symlinks are skipped).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let ft = entry.file_type().unwrap();
        let dest = to.join(entry.file_name());
        if ft.is_dir() {
            copy_tree(&entry.path(), &dest);
        } else if ft.is_file() {
            std::fs::copy(entry.path(), dest).unwrap();
        }
    }
}

/// Path of a cds binary built for this test run.
pub fn bin(name: &str) -> PathBuf {
    let p = match name {
        "cds-build" => env!("CARGO_BIN_EXE_cds-build"),
        "cds-search" => env!("CARGO_BIN_EXE_cds-search"),
        "cds-loc" => env!("CARGO_BIN_EXE_cds-loc"),
        "cds-trav" => env!("CARGO_BIN_EXE_cds-trav"),
        "cds-get" => env!("CARGO_BIN_EXE_cds-get"),
        "cds-fmt" => env!("CARGO_BIN_EXE_cds-fmt"),
        "cds-mcp" => env!("CARGO_BIN_EXE_cds-mcp"),
        "cds-kit" => env!("CARGO_BIN_EXE_cds-kit"),
        other => panic!("unknown binary {other}"),
    };
    PathBuf::from(p)
}

/// A command with stdin, run to completion.
pub struct TestCommand {
    cmd: Command,
    stdin: Option<Vec<u8>>,
    display: String,
}

impl TestCommand {
    pub fn new(bin_name: &str, cwd: &Path) -> TestCommand {
        let mut cmd = Command::new(bin(bin_name));
        cmd.current_dir(cwd).env_remove("CDS_INDEX").env("NO_COLOR", "1");
        TestCommand { cmd, stdin: None, display: bin_name.to_string() }
    }

    pub fn arg(&mut self, a: impl AsRef<OsStr>) -> &mut Self {
        self.display.push(' ');
        self.display.push_str(&a.as_ref().to_string_lossy());
        self.cmd.arg(a);
        self
    }

    pub fn args<I, S>(&mut self, args: I) -> &mut Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        for a in args {
            self.arg(a);
        }
        self
    }

    pub fn env(&mut self, k: &str, v: impl AsRef<OsStr>) -> &mut Self {
        self.cmd.env(k, v);
        self
    }

    pub fn stdin(&mut self, input: impl AsRef<[u8]>) -> &mut Self {
        self.stdin = Some(input.as_ref().to_vec());
        self
    }

    /// Runs and returns the output.
    pub fn output(&mut self) -> Output {
        self.cmd.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        self.cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = self.cmd.spawn().unwrap_or_else(|e| panic!("spawn {}: {e}", self.display));
        if let Some(input) = self.stdin.take() {
            let mut w = child.stdin.take().unwrap();
            std::thread::spawn(move || {
                let _ = w.write_all(&input);
            });
        }
        child.wait_with_output().unwrap()
    }

    /// Runs, expects `code`, returns stdout.
    pub fn expect_code(&mut self, code: i32) -> String {
        let out = self.output();
        if out.status.code() != Some(code) {
            panic!(
                "\n$ {}\nexpected exit {code}, got {:?}\n--- stdout\n{}\n--- stderr\n{}\n",
                self.display,
                out.status.code(),
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs, expects success (exit 0), returns stdout.
    pub fn ok(&mut self) -> String {
        self.expect_code(0)
    }

    /// Runs, expects `code`, returns stderr.
    pub fn stderr_of(&mut self, code: i32) -> String {
        let out = self.output();
        assert_eq!(
            out.status.code(),
            Some(code),
            "\n$ {}\n--- stdout\n{}\n--- stderr\n{}",
            self.display,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

/// Asserts two multi-line strings are equal, printing both between rules when they differ.
#[macro_export]
macro_rules! eqnice {
    ($expected:expr, $got:expr) => {{
        let (e, g) = (&$expected, &$got);
        if e != g {
            panic!(
                "\n\nexpected:\n{}\n{}\n{}\ngot:\n{}\n{}\n{}\n",
                "-".repeat(60),
                e,
                "-".repeat(60),
                "-".repeat(60),
                g,
                "-".repeat(60)
            );
        }
    }};
}

/// A fixture repository (a directory under `tests/fixtures`) as in-memory files: `(relative
/// path, text)`, sorted by path.
pub fn fixture_files(rel: &str) -> Vec<(String, String)> {
    let root = fixtures().join(rel);
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// `files` as the `(&str, &str)` pairs `resolve::graph_of` takes.
pub fn borrow(files: &[(String, String)]) -> Vec<(&str, &str)> {
    files.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect()
}
