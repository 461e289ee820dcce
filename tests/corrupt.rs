//! A corrupt index never crashes a reader, nor makes it print a wrong answer: a seeded
//! mutation test over every file of a small index (bit flips, overwritten words, truncation,
//! zeroed runs), each mutated index queried by the real binaries. Every run must end with
//! status 0 or 1 and print what it prints on the sound index (or nothing), or with status 2,
//! the one-line "corrupt: run cds-build" message, and no more of the answer than a first part
//! of it; never a signal, a panic or a hang.
//!
//! `CDS_MUTATIONS` (default 240) sets how many mutated indexes are tried and `CDS_MUTATION_SEED`
//! the seed, so a failure can be replayed: the message names both.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{Dir, bin};

/// splitmix64: a tiny deterministic generator (no crate needed for a test).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next() % n as u64) as usize }
    }
}

/// One way of damaging a file, described for the failure message.
fn mutate(bytes: &mut Vec<u8>, rng: &mut Rng) -> String {
    let len = bytes.len();
    if len == 0 {
        bytes.extend_from_slice(b"garbage");
        return "filled an empty file".into();
    }
    // A quarter of the mutations aim at the 32-byte header and the first bytes of the payload
    // (fst and rkyv roots live at either end, so the tail gets its share too).
    let pos = match rng.below(4) {
        0 => rng.below(len.min(64)),
        1 => len - 1 - rng.below(len.min(64)),
        _ => rng.below(len),
    };
    match rng.below(5) {
        0 => {
            let flips = 1 + rng.below(8);
            for _ in 0..flips {
                let p = if flips == 1 { pos } else { rng.below(len) };
                bytes[p] ^= 1 << rng.below(8);
            }
            format!("{flips} bit flip(s) from byte {pos}")
        }
        1 => {
            // A word overwritten with a value that is likely to be meaningful somewhere: small,
            // huge, all ones, or random.
            let v: u64 = match rng.below(4) {
                0 => rng.below(16) as u64,
                1 => u64::MAX,
                2 => 1 << (8 + rng.below(48)),
                _ => rng.next(),
            };
            let w = [1usize, 2, 4, 8][rng.below(4)];
            for (i, b) in v.to_le_bytes()[..w].iter().enumerate() {
                if pos + i < len {
                    bytes[pos + i] = *b;
                }
            }
            format!("{w}-byte word at {pos} set to {v:#x}")
        }
        2 => {
            bytes.truncate(pos);
            format!("truncated to {pos} bytes")
        }
        3 => {
            let run = 1 + rng.below(256);
            let end = (pos + run).min(len);
            bytes[pos..end].fill(0);
            format!("zeroed bytes {pos}..{end}")
        }
        _ => {
            // A run of random bytes (what a torn write or a foreign block leaves).
            let run = 1 + rng.below(64);
            let end = (pos + run).min(len);
            for b in &mut bytes[pos..end] {
                *b = rng.next() as u8;
            }
            format!("random bytes {pos}..{end}")
        }
    }
}

/// The queries run against every mutated index: name, content (BM25) and typo searches, walks
/// in both directions, and code, previews and line references.
const QUERIES: &[(&str, &[&str], &str)] = &[
    ("cds-search", &["-n", "20", "cart total discount"], ""),
    ("cds-search", &["-n", "20", "--json", "santize user inptu"], ""),
    (
        "cds-trav",
        &["-h2", "-d", "both"],
        "shop/cart.py:Cart.total\nshop/views.py\nshop\nshop/pricing.py:Money\n",
    ),
    (
        "cds-get",
        &["--view", "preview"],
        "shop/cart.py:Cart\nshop/views.py:10-20\nshop/security.py\nshop/cart.py:Crat.totl\n",
    ),
    ("cds-loc", &["--json", "-"], "The cart total ignores the discount: Cart.total\n"),
];

fn index_has(index: &Path, file: &str) -> bool {
    let generation = std::fs::read_to_string(index.join("CURRENT")).unwrap_or_default();
    index.join(generation.trim()).join(file).exists()
}

/// How a run ended, or why it is unacceptable; `sound` is what the tool prints on the sound
/// index.
fn check_run(
    tool: &str,
    status: Option<i32>,
    stdout: &[u8],
    stderr: &str,
    sound: &[u8],
) -> Result<(), String> {
    if stderr.contains("panicked") {
        return Err(format!("{tool} panicked"));
    }
    let shown = || String::from_utf8_lossy(&stdout[..stdout.len().min(400)]).into_owned();
    match status {
        Some(0) | Some(1) => {
            if !stdout.is_empty() && stdout != sound {
                return Err(format!("{tool} printed a wrong answer: {}", shown()));
            }
            Ok(())
        }
        Some(2) => {
            if !sound.starts_with(stdout) {
                return Err(format!("{tool} printed a wrong answer before failing: {}", shown()));
            }
            let last = stderr.lines().last().unwrap_or("");
            // `index at DIR is corrupt (...): run cds-build`, or is from an older or newer cds
            // when the damage hit a version field.
            let fatal = |l: &str| l.contains("index at ") && l.contains("cds-build");
            if !(last.starts_with(&format!("{tool}: ")) && fatal(last)) {
                return Err(format!("{tool} exited 2 without the corrupt-index message"));
            }
            if stderr.lines().filter(|l| fatal(l)).count() != 1 {
                return Err(format!("{tool}: the message is not one line"));
            }
            Ok(())
        }
        Some(c) => Err(format!("{tool} exited {c}")),
        None => Err(format!("{tool} was killed by a signal")),
    }
}

/// Runs a tool with a deadline; (status, stdout, stderr), or an error for a hang.
fn run(
    tool: &str,
    args: &[&str],
    stdin: &str,
    cwd: &Path,
    index: &Path,
) -> Result<(Option<i32>, Vec<u8>, String), String> {
    let mut child = Command::new(bin(tool))
        .args(args)
        .current_dir(cwd)
        .env("CDS_INDEX", index)
        .env("NO_COLOR", "1")
        .stdin(if stdin.is_empty() { Stdio::null() } else { Stdio::piped() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn {tool}: {e}"))?;
    if let Some(mut w) = child.stdin.take() {
        let input = stdin.to_string();
        std::thread::spawn(move || {
            let _ = std::io::Write::write_all(&mut w, input.as_bytes());
        });
    }
    // Read both pipes on threads so a chatty child cannot block on a full pipe.
    let mut out_pipe = child.stdout.take().expect("stdout");
    let mut err_pipe = child.stderr.take().expect("stderr");
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        // Keep reading past the sanity bound only far enough to report it.
        let _ =
            std::io::Read::read_to_end(&mut std::io::Read::take(&mut out_pipe, 2 << 20), &mut v);
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut err_pipe, &mut s);
        s
    });
    // Generous: a loaded machine runs debug binaries slowly; a hang runs forever.
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{tool} hung (killed after 20 s)"));
            }
        }
    };
    let stdout = out_t.join().unwrap_or_default();
    let stderr = err_t.join().unwrap_or_default();
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = status.signal() {
        return Err(format!("{tool} was killed by signal {sig}; stderr: {stderr}"));
    }
    Ok((status.code(), stdout, stderr))
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn mutated_indexes_never_crash_a_reader() {
    let count: usize =
        std::env::var("CDS_MUTATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(240);
    let seed: u64 =
        std::env::var("CDS_MUTATION_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(11);
    let d = Dir::demo("corrupt-mutations");
    // A work tree of its own, so the index has history and messages files to damage too.
    d.git(&["init", "-q"]).git(&["add", "-A"]).git(&["commit", "-qm", "demo"]);
    d.cmd("cds-build").arg("-q").ok();
    assert!(index_has(&d.path(".cds"), "history.rkyv"));
    assert!(index_has(&d.path(".cds"), "messages.rkyv"));
    // A definition added, so the live generation's postings and names are deltas over the
    // first one's (linked into it) that renumber the nodes after it, and all are damaged in
    // turn.
    let cart = std::fs::read_to_string(d.path("shop/cart.py")).unwrap();
    d.write("shop/cart.py", format!("def _note():\n    return 'discounted'\n\n{cart}"));
    d.cmd("cds-build").arg("-q").ok();
    assert!(index_has(&d.path(".cds"), "postings-delta.rkyv"));
    assert!(index_has(&d.path(".cds"), "names-delta.rkyv"));
    assert!(index_has(&d.path(".cds"), "names-delta.fst"));
    let index = d.path(".cds");
    let generation = std::fs::read_to_string(index.join("CURRENT")).unwrap().trim().to_string();
    let gen_dir = index.join(&generation);
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(&gen_dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    files.push(index.join("CURRENT"));
    // The baseline must be clean, or the test proves nothing; and it is what every answer
    // must be.
    let mut sound = Vec::new();
    for (tool, args, stdin) in QUERIES {
        let (status, out, stderr) = run(tool, args, stdin, &d.root, &index).unwrap();
        assert!(matches!(status, Some(0) | Some(1)), "{tool} on the good index: {stderr}");
        assert!(!out.is_empty(), "{tool} {args:?} printed nothing on the good index");
        sound.push(out);
    }

    // Outside the repository, so rebuilds do not see the other mutants come and go.
    let mutants = Dir::new("corrupt-mutants");
    let work = &mutants.root;
    let failures = std::sync::Mutex::new(Vec::<String>::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).clamp(2, 4);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= count {
                        break;
                    }
                    let mut rng = Rng(seed.wrapping_mul(1_000_003).wrapping_add(i as u64));
                    let target = &files[i % files.len()];
                    let name = target.file_name().unwrap().to_string_lossy().into_owned();
                    let ix = work.join(format!("m{i}"));
                    copy_dir(&index.join(&generation), &ix.join(&generation));
                    std::fs::write(ix.join("CURRENT"), format!("{generation}\n")).unwrap();
                    let mut bytes = std::fs::read(target).unwrap();
                    let what = mutate(&mut bytes, &mut rng);
                    let dest = if name == "CURRENT" {
                        ix.join(&name)
                    } else {
                        ix.join(&generation).join(&name)
                    };
                    std::fs::write(dest, &bytes).unwrap();
                    let fail = |e: String| {
                        failures
                            .lock()
                            .unwrap()
                            .push(format!("mutation {i} (seed {seed}): {name}: {what}: {e}"))
                    };
                    // What the errors advise: `cds-build`, or `cds-build --force` for damage
                    // that a build finding nothing changed would not see.
                    let mut advice = vec!["-q"];
                    for ((tool, args, stdin), sound) in QUERIES.iter().zip(&sound) {
                        let verdict =
                            run(tool, args, stdin, &d.root, &ix).and_then(|(st, out, err)| {
                                if err.contains("run cds-build --force") && advice.len() == 1 {
                                    advice.push("--force");
                                }
                                check_run(tool, st, &out, &err, sound)
                                    .map_err(|e| format!("{e}; stderr: {err}"))
                            });
                        if let Err(e) = verdict {
                            fail(format!("{tool} {}: {e}", args.join(" ")));
                        }
                    }
                    // The advice must be good: a build over the damaged index succeeds, and
                    // every query answers as on the sound index after it.
                    if i.is_multiple_of(3) || advice.len() > 1 {
                        match run("cds-build", &advice, "", &d.root, &ix) {
                            Ok((Some(0), _, _)) => {
                                for ((tool, args, stdin), sound) in QUERIES.iter().zip(&sound) {
                                    match run(tool, args, stdin, &d.root, &ix) {
                                        Ok((Some(0) | Some(1), out, _)) if out == *sound => {}
                                        Ok((Some(0) | Some(1), _, _)) => fail(format!(
                                            "after cds-build, {tool} printed a wrong answer"
                                        )),
                                        Ok((st, _, err)) => fail(format!(
                                            "after cds-build, {tool} exited {st:?}: {err}"
                                        )),
                                        Err(e) => fail(format!("after cds-build: {e}")),
                                    }
                                }
                            }
                            Ok((st, _, err)) => fail(format!("cds-build exited {st:?}: {err}")),
                            Err(e) => fail(e),
                        }
                    }
                    let _ = std::fs::remove_dir_all(&ix);
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} runs failed:\n{}",
        failures.len(),
        count * QUERIES.len(),
        failures.join("\n")
    );
}
