//! `names.fst` and `terms.fst`, read so that a damaged byte gives an error, never a wrong answer.
//!
//! The fst crate trusts its input: a damaged automaton makes it panic (out-of-bounds node
//! addresses, impossible sizes), walk a cycle without end, or answer wrongly. Checking the CRC
//! of the whole file on every call is sound but costs O(file): 5 ms a process for the Linux
//! kernel's 39 MB of fst. So lookups and streams walk the automaton here, node by node, over
//! the fst crate's raw nodes ([`fst::raw::Fst::node`]), and:
//!
//! * in a file with block sums (format 8), the blocks a node can lie in are checked
//!   ([`Mapped::sound`]) before the node is read, so an answer is only made of checked bytes,
//!   at the cost of the few blocks a query touches (once per block and process);
//! * in an older file (no block sums), files up to [`CHECK_ON_OPEN`] bytes are CRC-checked
//!   when opened; on a larger one, a panic of the fst crate is caught and the CRC checked then
//!   (a mismatch is reported as a corrupt index, a match re-raises the panic: a genuine bug),
//!   and a stream that follows more than a budget of transitions (which only a big traversal
//!   reaches) checks the CRC once, so that a cycle ends in "corrupt index", not in a hang.

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::{Path, PathBuf};
use std::sync::Once;

use fst::Automaton;
use fst::raw::{CompiledAddr, Node, Output};

use crate::error::{Error, IndexProblem, Result};
use crate::index::read::{Damaged, Mapped};

/// Files without block sums up to this size are CRC-checked when first used.
pub const CHECK_ON_OPEN: usize = 2 << 20;

/// Transitions a stream may follow before the CRC of a file without block sums is checked.
const STEP_BUDGET: u64 = 1 << 20;

/// The most bytes an fst node spans, up to its address (its last byte): 256 transitions of an
/// input byte, an address and an output of up to 8 bytes each, the index of their inputs, and
/// the node's state, sizes, count and final output.
const MAX_NODE: usize = 256 * 18 + 32;

/// Bytes at the end of the payload checked on open: the footer the fst crate reads there (the
/// root's address, the key count, a checksum), and the root node, written just before it.
const TAIL: usize = MAX_NODE + 64;

/// A mapped fst file and whether its CRC has been checked.
pub struct FstFile {
    map: fst::Map<Mapped>,
    /// The file has block sums: every node is checked before it is read.
    blocks: bool,
    /// None: not checked yet; Some(ok): checked.
    crc_ok: Cell<Option<bool>>,
    /// Transitions a stream follows before the CRC is checked ([`STEP_BUDGET`]).
    budget: u64,
    /// The index directory and the file's name, for the error.
    index_dir: PathBuf,
    name: &'static str,
}

/// One node of a stream's path from the root, and where the stream is in it.
struct Frame<'f, S> {
    node: Node<'f>,
    /// The next transition to follow.
    trans: usize,
    /// The output gathered on the way to the node.
    out: Output,
    state: S,
}

impl FstFile {
    /// Opens a mapped fst file (see the module's documentation for what is checked when).
    pub fn open(mapped: Mapped, index_dir: &Path, name: &'static str) -> Result<FstFile> {
        FstFile::open_with(mapped, index_dir, name, CHECK_ON_OPEN, STEP_BUDGET)
    }

    /// [`FstFile::open`] with other limits (tests take the guarded paths on small files).
    fn open_with(
        mapped: Mapped,
        index_dir: &Path,
        name: &'static str,
        check_on_open: usize,
        budget: u64,
    ) -> Result<FstFile> {
        let blocks = mapped.has_block_sums();
        let checked = !blocks && mapped.payload().len() <= check_on_open;
        if checked && !mapped.check_crc() {
            return Err(damaged(index_dir, name));
        }
        // The fst crate reads the header and the footer here: they are checked first, and a
        // file it refuses (or panics on) was damaged after it was written.
        let map = match guarded(|| {
            let p = mapped.payload();
            mapped.sound(&p[..p.len().min(64)]);
            mapped.sound(&p[p.len().saturating_sub(TAIL)..]);
            fst::Map::new(mapped)
        }) {
            Ok(Ok(map)) => map,
            Ok(Err(_)) => return Err(damaged(index_dir, name)),
            Err(caught) => return Err(caught.into_damage(index_dir, name)),
        };
        Ok(FstFile {
            map,
            blocks,
            crc_ok: Cell::new(checked.then_some(true)),
            budget,
            index_dir: index_dir.to_path_buf(),
            name,
        })
    }

    fn damaged(&self) -> Error {
        damaged(&self.index_dir, self.name)
    }

    /// Checks the whole file's CRC (once per process).
    pub fn check(&self) -> Result<()> {
        if self.sound() { Ok(()) } else { Err(self.damaged()) }
    }

    /// Whether the payload matches its CRC (checked once).
    fn sound(&self) -> bool {
        if let Some(ok) = self.crc_ok.get() {
            return ok;
        }
        let ok = self.map.as_fst().as_inner().check_crc();
        self.crc_ok.set(Some(ok));
        ok
    }

    /// Runs `f`, turning a damaged block it read, or a panic of the fst crate when the CRC says
    /// the file is damaged, into a corrupt-index error.
    fn run<T>(&self, f: impl FnOnce() -> Result<T>) -> Result<T> {
        match guarded(f) {
            Ok(r) => r,
            Err(caught) if caught.is_damage() || !self.sound() => {
                Err(caught.into_damage(&self.index_dir, self.name))
            }
            Err(caught) => caught.raise(),
        }
    }

    /// The node at `addr`, once the blocks it can lie in are checked (in a file with block
    /// sums; a damaged one unwinds with [`Damaged`]).
    fn node(&self, addr: CompiledAddr) -> Node<'_> {
        let fst = self.map.as_fst();
        if self.blocks {
            let data = fst.as_inner();
            let p = data.payload();
            if addr < p.len() {
                data.sound(&p[addr.saturating_sub(MAX_NODE)..=addr]);
            }
        }
        fst.node(addr)
    }

    /// The root node, checked like any other.
    fn root(&self) -> Node<'_> {
        self.node(self.map.as_fst().root().addr())
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when there is no key.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The value stored under `key`.
    pub fn get(&self, key: &[u8]) -> Result<Option<u64>> {
        self.run(|| {
            let (mut node, mut out) = (self.root(), Output::zero());
            for &b in key {
                let Some(i) = node.find_input(b) else { return Ok(None) };
                let t = node.transition(i);
                out = out.cat(t.out);
                node = self.node(t.addr);
            }
            Ok(node.is_final().then(|| out.cat(node.final_output()).value()))
        })
    }

    /// Calls `each` with every key the automaton matches, in key order, with its value, until it
    /// returns false. The walk is the fst crate's stream's (`fst::raw::Stream`), depth first
    /// in byte order, with each node checked before it is read.
    pub fn search<A: Automaton>(
        &self,
        aut: A,
        mut each: impl FnMut(&[u8], u64) -> bool,
    ) -> Result<()> {
        self.run(|| {
            let root = self.root();
            let start = aut.start();
            if root.is_final() && aut.is_match(&start) && !each(&[], root.final_output().value()) {
                return Ok(());
            }
            let mut key = Vec::with_capacity(32);
            let mut path = vec![Frame { node: root, trans: 0, out: Output::zero(), state: start }];
            let mut steps = 0u64;
            while let Some(top) = path.last_mut() {
                if top.trans >= top.node.len() || !aut.can_match(&top.state) {
                    path.pop();
                    if !path.is_empty() {
                        key.pop();
                    }
                    continue;
                }
                steps += 1;
                if steps == self.budget && !self.blocks && !self.sound() {
                    return Err(self.damaged());
                }
                let t = top.node.transition(top.trans);
                top.trans += 1;
                let out = top.out.cat(t.out);
                let state = aut.accept(&top.state, t.inp);
                let node = self.node(t.addr);
                key.push(t.inp);
                if node.is_final() {
                    let eof = aut.accept_eof(&state);
                    if aut.is_match(eof.as_ref().unwrap_or(&state))
                        && !each(&key, out.cat(node.final_output()).value())
                    {
                        return Ok(());
                    }
                }
                path.push(Frame { node, trans: 0, out, state });
            }
            Ok(())
        })
    }
}

/// The error for a damaged fst file.
fn damaged(index_dir: &Path, name: &str) -> Error {
    Error::index(index_dir, IndexProblem::Corrupt(format!("{name} is damaged")))
}

/// A panic caught by [`guarded`], with the message the panic hook kept.
struct Caught {
    payload: Box<dyn std::any::Any + Send>,
    message: Option<String>,
}

impl Caught {
    /// A damaged block unwound ([`Damaged`]), rather than the fst crate panicking.
    fn is_damage(&self) -> bool {
        self.payload.is::<Damaged>()
    }

    /// The error to report for damage: the damaged block's own, or the file's.
    fn into_damage(self, index_dir: &Path, name: &str) -> Error {
        match self.payload.downcast::<Damaged>() {
            Ok(d) => d.0,
            Err(_) => damaged(index_dir, name),
        }
    }

    /// Re-raises a panic that was not caused by damage, printing the message the hook held back.
    fn raise(self) -> ! {
        if let Some(m) = self.message {
            eprintln!("{m}");
        }
        resume_unwind(self.payload)
    }
}

thread_local! {
    /// Set while [`guarded`] runs: the panic hook keeps the message instead of printing it.
    static QUIET: Cell<bool> = const { Cell::new(false) };
    static HELD: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`, catching a panic without printing it (the message is kept in the [`Caught`]).
fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, Caught> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if QUIET.with(Cell::get) {
                HELD.with(|h| *h.borrow_mut() = Some(info.to_string()));
            } else {
                default(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET.with(|q| q.set(was));
    result.map_err(|payload| Caught { payload, message: HELD.with(|h| h.borrow_mut().take()) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::format::{BLOCK_SHIFT, HEADER_LEN, Header, MAGIC_NAMES};
    use fst::automaton::{Levenshtein, Str};

    /// splitmix64, for seeded mutations.
    fn next(x: &mut u64) -> u64 {
        *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn keys(n: usize) -> Vec<String> {
        let mut k: Vec<String> =
            (0..n).map(|i| format!("{}_{}", ["get", "set", "parse", "tcp"][i % 4], i)).collect();
        k.sort();
        k
    }

    /// Writes an fst of `keys` (with a header whose CRC matches `payload`, then `damage`d) and
    /// opens it with the given limits.
    fn file(
        dir: &Path,
        keys: &[String],
        damage: impl FnOnce(&mut Vec<u8>),
        check: usize,
        budget: u64,
    ) -> Result<FstFile> {
        let map = fst::Map::from_iter(keys.iter().enumerate().map(|(i, k)| (k, i as u64)));
        let mut payload = map.unwrap().into_fst().into_inner();
        let header = Header::for_payload(MAGIC_NAMES, &payload);
        damage(&mut payload);
        let path = dir.join("names.fst");
        let mut bytes = header.to_bytes().to_vec();
        bytes.extend_from_slice(&payload);
        std::fs::write(&path, bytes).unwrap();
        let mapped = Mapped::open(&path, MAGIC_NAMES, dir)?;
        FstFile::open_with(mapped, dir, "names.fst", check, budget)
    }

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cds-fst-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// Every query a reader makes: never a panic or a hang, and on a sound file the right
    /// answer.
    fn queries(f: &FstFile) -> Result<usize> {
        let mut n = usize::from(f.get(b"parse_2")?.is_some());
        f.search(Str::new("tcp").starts_with(), |_, _| {
            n += 1;
            true
        })?;
        f.search(Levenshtein::new("set_5", 1).unwrap(), |_, _| {
            n += 1;
            true
        })?;
        Ok(n)
    }

    #[test]
    fn damaged_files_are_reported_not_panicked_on() {
        let dir = scratch("damage");
        let keys = keys(3000);
        let sound = queries(&file(&dir, &keys, |_| {}, 0, 64).unwrap()).unwrap();
        let tcp = keys.iter().filter(|k| k.starts_with("tcp")).count();
        let near = keys.iter().filter(|k| strsim::levenshtein(k, "set_5") <= 1).count();
        assert_eq!(sound, 1 + tcp + near, "get, the tcp_ prefix, set_5's neighbours");
        let mut seed = 7u64;
        let (mut damaged, mut caught) = (0, 0);
        for round in 0..400 {
            let r = next(&mut seed);
            let damage = |p: &mut Vec<u8>| {
                let len = p.len() as u64;
                // Both ends hold the fst's root and footer: aim there a third of the time.
                let at = match r % 3 {
                    0 => (len - 1 - (r >> 8) % len.min(48)) as usize,
                    _ => ((r >> 8) % len) as usize,
                };
                match (r >> 40) % 3 {
                    0 => p[at] ^= 1 << ((r >> 50) % 8),
                    1 => p[at..].iter_mut().take(8).for_each(|b| *b = 0xff),
                    _ => p[at..].iter_mut().take(16).for_each(|b| *b = 0),
                }
            };
            // Guarded paths only (nothing is checked on open) and a small budget.
            match file(&dir, &keys, damage, 0, 64).and_then(|f| queries(&f)) {
                Ok(_) => {}
                Err(e) => {
                    assert!(e.to_string().contains("damaged"), "round {round}: {e}");
                    caught += 1;
                }
            }
            damaged += 1;
        }
        assert_eq!(damaged, 400);
        assert!(caught > 50, "only {caught} of 400 damaged files were noticed");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The keys and values a query found.
    type Found = Vec<(Vec<u8>, u64)>;

    /// Every answer of `f` to the queries readers make, in order (an error as its message).
    fn answers(f: &FstFile, keys: &[String]) -> Vec<Result<Found, String>> {
        let mut all = Vec::new();
        for key in [&keys[5], &keys[10_000], &keys[keys.len() - 1], "nothing", ""] {
            let got =
                f.get(key.as_bytes()).map(|v| v.map(|v| (key.into(), v)).into_iter().collect());
            all.push(got.map_err(|e: Error| e.to_string()));
        }
        let stream = |aut: &dyn Fn(&mut Found) -> Result<()>| {
            let mut found = Vec::new();
            aut(&mut found).map(|()| found).map_err(|e| e.to_string())
        };
        all.push(stream(&|v| {
            f.search(Str::new("tcp_1").starts_with(), |k, x| {
                v.push((k.to_vec(), x));
                true
            })
        }));
        all.push(stream(&|v| {
            f.search(Levenshtein::new(&keys[777], 1).unwrap(), |k, x| {
                v.push((k.to_vec(), x));
                true
            })
        }));
        // Stopped early: the first ten keys from `p`.
        all.push(stream(&|v| {
            f.search(Str::new("p").starts_with(), |k, x| {
                v.push((k.to_vec(), x));
                v.len() < 10
            })
        }));
        all
    }

    /// With block sums (format 8), nothing is checked whole on open, and a damaged file gives
    /// each query its sound answer or the corrupt-index error, never another answer.
    #[test]
    fn files_with_block_sums_answer_right_or_not_at_all() {
        let dir = scratch("blocks");
        // Keys that do not compress to a few blocks.
        let mut x = 5u64;
        let mut keys: Vec<String> = (0..20_000)
            .map(|i| format!("{}_{:x}", ["get", "set", "parse", "tcp"][i % 4], next(&mut x)))
            .collect();
        keys.sort();
        let path = dir.join("names.fst");
        let entries = keys.iter().enumerate().map(|(i, k)| (k, (i as u64) * 7 + 3));
        crate::index::write::write_fst(&path, MAGIC_NAMES, entries).unwrap();
        let sound_bytes = std::fs::read(&path).unwrap();
        let open = || {
            let mapped = Mapped::open(&path, MAGIC_NAMES, &dir)?;
            FstFile::open(mapped, &dir, "names.fst")
        };
        let sound = answers(&open().unwrap(), &keys);
        assert!(sound.iter().all(Result::is_ok));
        assert_eq!(sound[0].as_ref().unwrap()[0].1, 5 * 7 + 3);
        assert!(sound[3].as_ref().unwrap().is_empty());
        assert!(!sound[6].as_ref().unwrap().is_empty(), "keys[777] itself at least");
        let prefix = sound[5].as_ref().unwrap();
        assert_eq!(prefix.len(), keys.iter().filter(|k| k.starts_with("tcp_1")).count());
        assert!(prefix.iter().all(|(k, v)| keys[(*v as usize - 3) / 7].as_bytes() == k));
        assert_eq!(sound[7].as_ref().unwrap().len(), 10);
        assert!(sound_bytes.len() > 40 << BLOCK_SHIFT, "{} bytes", sound_bytes.len());
        let mut seed = 11u64;
        let (mut right, mut refused) = (0, 0);
        for round in 0..300 {
            let r = next(&mut seed);
            let mut bytes = sound_bytes.clone();
            let len = (bytes.len() - HEADER_LEN) as u64;
            let at = HEADER_LEN + ((r >> 8) % len) as usize;
            match (r >> 40) % 3 {
                0 => bytes[at] ^= 1 << ((r >> 50) % 8),
                1 => bytes[at..].iter_mut().take(8).for_each(|b| *b = 0xff),
                _ => bytes[at..].iter_mut().take(16).for_each(|b| *b = 0),
            }
            std::fs::write(&path, &bytes).unwrap();
            let Ok(f) = open() else {
                refused += sound.len();
                continue;
            };
            for (i, (got, want)) in answers(&f, &keys).iter().zip(&sound).enumerate() {
                match got {
                    Ok(_) => {
                        assert!(got == want, "round {round}, query {i}: a wrong answer");
                        right += 1;
                    }
                    Err(e) => {
                        assert!(e.contains("names.fst"), "round {round}, query {i}: {e}");
                        refused += 1;
                    }
                }
            }
        }
        assert!(right > 300 && refused > 100, "{right} right, {refused} refused");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn small_files_are_checked_on_open_and_sound_streams_outlast_the_budget() {
        let dir = scratch("budget");
        let keys = keys(3000);
        let flip = |p: &mut Vec<u8>| p[10] ^= 1;
        let e = file(&dir, &keys, flip, CHECK_ON_OPEN, 64).err().expect("caught on open");
        assert!(e.to_string().contains("names.fst is damaged"), "{e}");
        // A sound file's long stream goes past a tiny budget: checked then, and complete.
        let f = file(&dir, &keys, |_| {}, 0, 8).unwrap();
        let mut n = 0;
        f.search(Str::new("").starts_with(), |_, _| {
            n += 1;
            true
        })
        .unwrap();
        assert_eq!(n, keys.len());
        assert_eq!(f.crc_ok.get(), Some(true));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
