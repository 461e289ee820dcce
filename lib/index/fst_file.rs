//! `names.fst` and `terms.fst` behind a guard that costs nothing per call on large indexes.
//!
//! The fst crate trusts its input: a damaged automaton makes it panic (out-of-bounds node
//! addresses, impossible sizes) or walk a cycle without end. Checking the CRC of the whole file
//! on every call is sound but costs O(file): 5 ms a process for the Linux kernel's 39 MB of fst.
//! So the guard is in three parts:
//!
//! * files up to [`CHECK_ON_OPEN`] bytes are CRC-checked when first used (a fraction of a
//!   millisecond), which also catches damage that would only make answers wrong;
//! * every operation on a larger file runs under [`std::panic::catch_unwind`]: when the fst crate
//!   panics, the CRC is checked then, and a mismatch is reported as a corrupt index (a match
//!   means a genuine bug, which is re-raised with its message);
//! * streams count the transitions they follow: past a budget (which only a big traversal
//!   reaches), the CRC is checked once, and the stream goes on only if it matches, so a cycle
//!   in a damaged file ends in "corrupt index", not in a hang.

use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::path::{Path, PathBuf};
use std::sync::Once;

use fst::{Automaton, IntoStreamer, Streamer};

use crate::error::{Error, IndexProblem, Result};
use crate::index::read::Mapped;

/// fst files up to this size are CRC-checked when first used.
pub const CHECK_ON_OPEN: usize = 2 << 20;

/// Transitions a stream may follow before the file's CRC is checked.
const STEP_BUDGET: u64 = 1 << 20;

/// A mapped fst file and whether its CRC has been checked.
pub struct FstFile {
    map: fst::Map<Mapped>,
    /// None: not checked yet; Some(ok): checked.
    crc_ok: Cell<Option<bool>>,
    /// Transitions a stream follows before the CRC is checked ([`STEP_BUDGET`]).
    budget: u64,
    /// The index directory and the file's name, for the error.
    index_dir: PathBuf,
    name: &'static str,
}

impl FstFile {
    /// Opens a mapped fst file; small files are CRC-checked here.
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
        let checked = mapped.payload().len() <= check_on_open;
        if checked && !mapped.check_crc() {
            return Err(damaged(index_dir, name));
        }
        // The fst crate reads the footer here: a file it refuses (or panics on) was damaged
        // after it was written.
        let map = match guarded(|| fst::Map::new(mapped)) {
            Ok(Ok(map)) => map,
            _ => return Err(damaged(index_dir, name)),
        };
        Ok(FstFile {
            map,
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

    /// Runs `f` on the map, turning a panic of the fst crate into a corrupt-index error when the
    /// CRC says the file is damaged.
    fn run<T>(&self, f: impl FnOnce(&fst::Map<Mapped>) -> T) -> Result<T> {
        match guarded(|| f(&self.map)) {
            Ok(t) => Ok(t),
            Err(panic) if self.sound() => panic.raise(),
            Err(_) => Err(self.damaged()),
        }
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
        self.run(|m| m.get(key))
    }

    /// Calls `each` with every key the automaton matches, in key order, with its value, until it
    /// returns false.
    pub fn search<A: Automaton>(
        &self,
        aut: A,
        mut each: impl FnMut(&[u8], u64) -> bool,
    ) -> Result<()> {
        let (steps, cut) = (Cell::new(0), Cell::new(false));
        let budgeted = Budgeted { inner: aut, steps: &steps, cut: &cut, file: self };
        self.run(|m| {
            let mut stream = m.search(budgeted).into_stream();
            while let Some((k, v)) = stream.next() {
                if !each(k, v) {
                    break;
                }
            }
        })?;
        if cut.get() { Err(self.damaged()) } else { Ok(()) }
    }
}

/// The error for a damaged fst file.
fn damaged(index_dir: &Path, name: &str) -> Error {
    Error::index(index_dir, IndexProblem::Corrupt(format!("{name} is damaged")))
}

/// An automaton that counts the transitions a stream follows: at the file's budget its
/// CRC is checked, and a damaged file's stream is cut short (every state stops matching).
struct Budgeted<'c, A> {
    inner: A,
    steps: &'c Cell<u64>,
    cut: &'c Cell<bool>,
    file: &'c FstFile,
}

impl<A: Automaton> Automaton for Budgeted<'_, A> {
    type State = Option<A::State>;

    fn start(&self) -> Self::State {
        Some(self.inner.start())
    }

    fn is_match(&self, s: &Self::State) -> bool {
        s.as_ref().is_some_and(|s| self.inner.is_match(s))
    }

    fn can_match(&self, s: &Self::State) -> bool {
        s.as_ref().is_some_and(|s| self.inner.can_match(s))
    }

    fn accept(&self, s: &Self::State, byte: u8) -> Self::State {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        if n == self.file.budget && !self.file.sound() {
            self.cut.set(true);
        }
        if self.cut.get() {
            return None;
        }
        s.as_ref().map(|s| self.inner.accept(s, byte))
    }

    fn accept_eof(&self, s: &Self::State) -> Option<Self::State> {
        s.as_ref().and_then(|s| self.inner.accept_eof(s)).map(Some)
    }
}

/// A panic caught by [`guarded`], with the message the panic hook kept.
struct Caught {
    payload: Box<dyn std::any::Any + Send>,
    message: Option<String>,
}

impl Caught {
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
    use crate::index::format::{Header, MAGIC_NAMES};
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
