//! The reading side: open an index by memory-mapping its files, and answer from them.
//!
//! Opening maps `graph.rkyv`, checks its header (magic, version, layout, length: O(1)) and
//! validates the rkyv archive (O(number of columns) for this layout). The other files are
//! mapped on first use. Every accessor is bounds-checked against the columns, so a corrupt
//! index never makes a reader panic or misbehave; and the bytes an accessor reads are first
//! checked against their block's checksum ([`Mapped::sound`]: a CRC per 4 KiB block, each
//! checked once per process), so damage is an error rather than a wrong answer. Accessors that
//! return plain values report it by unwinding with [`Damaged`] to the tool's boundary
//! ([`catch_damage`]). A whole-file checksum on every call would cost more than the call (0.5
//! ms a process on Django's graph). A file's content is checked against the file table's CRC
//! when first read, and the small files whole. The fst files are read through [`FstFile`],
//! which walks the automaton node by node and checks each node's blocks before reading it
//! (the fst crate trusts its input: a damaged automaton makes it panic, loop or answer
//! wrongly). `cds-build --verify` checks everything whole ([`Index::verify`]); `tests/corrupt.rs`
//! mutates every file and runs the tools on it.

use std::cell::{OnceCell, RefCell};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use memmap2::Mmap;
use rkyv::Archived;
use std::sync::atomic::AtomicU64;

use crate::error::{Error, IndexProblem, Result};
use crate::graph::{EdgeKind, FLAG_MERGED, NONE, NodeKind};
use crate::index::current_generation;
use crate::index::format::*;
use crate::index::fst_file::FstFile;
use crate::index::names::{Names, NodeMap};
use crate::index::postings::Postings;
use crate::index::write::MULTI_TAG;

/// The archived graph columns.
pub type ArchivedGraph = Archived<GraphFile>;
/// The archived postings.
pub type ArchivedPostings = Archived<PostingsFile>;
/// The archived postings delta.
pub type ArchivedPostingsDelta = Archived<PostingsDelta>;

/// A term and its (document, term frequency) postings, see [`Index::term_postings`].
pub type TermPostings = (Vec<u8>, Vec<(u32, u16)>);

/// A mapped index file: its header was checked; the payload follows it, then its block sums
/// when it has them.
pub struct Mapped {
    map: Mmap,
    /// Where the payload ends in `map` (the block sums follow).
    end: usize,
    /// log2 of the block size of the sums after the payload; 0: the file has none.
    block_shift: u32,
    /// One bit per block: its sum was checked and holds (see [`Mapped::sound`]).
    checked: Box<[AtomicU64]>,
    /// The index directory and the file's name, for the error a damaged block raises.
    origin: Box<(PathBuf, String)>,
    /// Up to where [`Mapped::release_in_order`] has let go of the pages (an offset in `map`).
    released: std::sync::atomic::AtomicUsize,
}

impl AsRef<[u8]> for Mapped {
    fn as_ref(&self) -> &[u8] {
        // The length was checked when the file was mapped.
        &self.map[HEADER_LEN..self.end]
    }
}

/// What a reader unwinds with when the bytes it was about to use fail their block's sum
/// ([`Mapped::sound`]): accessors that return plain values have no error to return, and the
/// values must not be used. [`catch_damage`] turns it back into the corrupt-index error at the
/// tool's boundary, so whatever was printed before it came from checked bytes. It is raised
/// with [`std::panic::resume_unwind`], which runs no panic hook: nothing is printed on the way.
pub struct Damaged(pub Error);

impl Damaged {
    /// Unwinds with `e` (see [`Damaged`]).
    pub fn raise(e: Error) -> ! {
        std::panic::resume_unwind(Box::new(Damaged(e)))
    }
}

/// Runs `f`, turning a [`Damaged`] unwind into its error (any other panic goes on unwinding).
pub fn catch_damage<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => match payload.downcast::<Damaged>() {
            Ok(d) => Err(d.0),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

impl Mapped {
    /// Maps `path` and checks its header against `magic`. `index_dir` names the index in errors.
    pub fn open(path: &Path, magic: &[u8; 8], index_dir: &Path) -> Result<Mapped> {
        Mapped::open_with(path, magic, index_dir, true)
    }

    /// [`Mapped::open`] for a file that grows by appends (`facts.bin`): its header's length is
    /// not its size, and the payload is every byte after the header.
    pub fn open_growing(path: &Path, magic: &[u8; 8], index_dir: &Path) -> Result<Mapped> {
        Mapped::open_with(path, magic, index_dir, false)
    }

    fn open_with(path: &Path, magic: &[u8; 8], index_dir: &Path, sized: bool) -> Result<Mapped> {
        let file = File::open(path).map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotFound {
                Error::index(
                    index_dir,
                    IndexProblem::Corrupt(format!("{} is missing", file_name(path))),
                )
            } else {
                Error::io("cannot open", path, e)
            }
        })?;
        // SAFETY: index files are never modified in place: builds write new files and rename
        // them into place, so the mapped bytes do not change under us (`facts.bin` is only
        // appended to, past what any generation uses).
        let map = unsafe { Mmap::map(&file) }.map_err(|e| Error::io("cannot map", path, e))?;
        let corrupt = |what: String| Error::index(index_dir, IndexProblem::Corrupt(what));
        let Some(h) = Header::parse(&map) else {
            return Err(corrupt(format!("{} is truncated", file_name(path))));
        };
        if &h.magic != magic {
            if h.magic.starts_with(b"CDS") {
                return Err(corrupt(format!("{} has the wrong magic", file_name(path))));
            }
            return Err(Error::index(
                index_dir,
                IndexProblem::Foreign(format!("{} has no cds header", file_name(path))),
            ));
        }
        if h.version < MIN_READ_VERSION {
            return Err(Error::index(index_dir, IndexProblem::Older));
        }
        if h.version > FORMAT_VERSION {
            return Err(Error::index(index_dir, IndexProblem::Newer));
        }
        if h.layout != LAYOUT {
            return Err(corrupt(format!("{} was written with another layout", file_name(path))));
        }
        // Block sums: from version 8 on, in files written whole; a block from 512 bytes to
        // 1 MB (anything else is damage).
        let block_shift = if sized && h.version >= 8 { h.block_shift } else { 0 };
        if block_shift != 0 && !(9..=20).contains(&block_shift) {
            return Err(corrupt(format!("{} has a damaged header", file_name(path))));
        }
        let size = h.len.saturating_add(sums_len(h.len, block_shift));
        if sized && size != (map.len() - HEADER_LEN) as u64 {
            return Err(corrupt(format!(
                "{} is {} bytes, its header says {}",
                file_name(path),
                map.len(),
                size.saturating_add(HEADER_LEN as u64)
            )));
        }
        let end = if sized { HEADER_LEN + h.len as usize } else { map.len() };
        let blocks = if block_shift == 0 { 0 } else { (end - HEADER_LEN) >> block_shift };
        Ok(Mapped {
            map,
            end,
            block_shift,
            checked: (0..=blocks / 64).map(|_| AtomicU64::new(0)).collect(),
            origin: Box::new((index_dir.to_path_buf(), file_name(path))),
            released: Default::default(),
        })
    }

    /// The payload.
    pub fn payload(&self) -> &[u8] {
        self.as_ref()
    }

    /// The file has block sums (format 8): [`Mapped::sound`] checks what it is given.
    pub fn has_block_sums(&self) -> bool {
        self.block_shift != 0
    }

    /// `part` (a slice of the payload), once the blocks it lies in are checked against their
    /// sums; each block is checked once per process. Bytes that fail unwind with [`Damaged`]
    /// (see [`catch_damage`]). A file without block sums (written before version 8) and a
    /// slice that is not of this file go unchecked. Inlined: readers call it for every value
    /// they read, and all but the first call for a block only test its bit.
    #[inline]
    pub fn sound<'s, T>(&self, part: &'s [T]) -> &'s [T] {
        use std::sync::atomic::Ordering::Relaxed;
        if self.block_shift == 0 {
            return part;
        }
        let start = (part.as_ptr() as usize).wrapping_sub(self.map.as_ptr() as usize + HEADER_LEN);
        let len = std::mem::size_of_val(part);
        if len == 0 || start >= self.end - HEADER_LEN || len > self.end - HEADER_LEN - start {
            return part;
        }
        for b in start >> self.block_shift..=(start + len - 1) >> self.block_shift {
            if self.checked[b / 64].load(Relaxed) & (1 << (b % 64)) == 0 {
                self.check_block(b);
            }
        }
        part
    }

    /// [`Mapped::sound`] for one value.
    #[inline]
    pub fn sound_one<'s, T>(&self, x: &'s T) -> &'s T {
        &self.sound(std::slice::from_ref(x))[0]
    }

    /// Checks block `b` against its sum and marks it checked; unwinds with [`Damaged`] when it
    /// fails.
    #[cold]
    #[inline(never)]
    fn check_block(&self, b: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        let payload = self.payload();
        let size = 1usize << self.block_shift;
        let block = &payload[b * size..((b + 1) * size).min(payload.len())];
        let sum = self.map.get(self.end + 4 * b..self.end + 4 * b + 4);
        if sum.is_some_and(|s| s == crc32fast::hash(block).to_le_bytes()) {
            self.checked[b / 64].fetch_or(1 << (b % 64), Relaxed);
            return;
        }
        let (dir, name) = &*self.origin;
        let what = format!("{name}: block {b} fails its checksum");
        Damaged::raise(Error::index(dir, IndexProblem::Damaged(what)))
    }

    /// Tells the kernel this process is done with the mapped pages from the one holding the
    /// start of `part` (a slice of this file's payload) up to the one holding its end, that
    /// one excluded: a rebuild reading the previous generation front to back (a file's content
    /// and facts, then the next file's) would otherwise keep every page it touched resident,
    /// two gigabytes for the Linux kernel. Pages are only dropped from this process, not from
    /// the page cache, and are read again if touched again. Best effort: errors are ignored.
    pub fn release_through(&self, part: &[u8]) {
        let base = self.map.as_ptr() as usize;
        let start = part.as_ptr() as usize;
        if start < base || start + part.len() > base + self.map.len() {
            return;
        }
        // memmap2 aligns the range to the system's pages; a page dropped too many is only
        // read again.
        const PAGE: usize = 4096;
        let from = (start - base) / PAGE * PAGE;
        let to = (start + part.len() - base) / PAGE * PAGE;
        if to > from {
            // SAFETY: the mapping is read-only and its file is never modified in place (see
            // `open`), so a dropped page reads back the same bytes when it is touched again;
            // no reference into it is invalidated.
            let _ = unsafe {
                self.map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from)
            };
        }
    }

    /// [`Mapped::release_through`] for one reader going front to back through the file in
    /// small parts (a rebuild copying the previous contents and facts, file by file): the pages
    /// are let go of [`RELEASE_BATCH`] bytes at a time, since each call makes the kernel
    /// interrupt the process's other cores to flush their TLBs (a tenth of a rebuild of Django
    /// that keeps its links, with a call per file).
    pub fn release_in_order(&self, part: &[u8]) {
        use std::sync::atomic::Ordering::Relaxed;
        let base = self.map.as_ptr() as usize;
        let end = (part.as_ptr() as usize + part.len()).saturating_sub(base);
        let done = self.released.load(Relaxed);
        if end > self.map.len() || end < done.saturating_add(RELEASE_BATCH) {
            return;
        }
        self.released.store(end, Relaxed);
        self.release_through(&self.map[done..end]);
    }

    /// The format version its header records.
    pub fn header_version(&self) -> u32 {
        Header::parse(&self.map).map_or(0, |h| h.version)
    }

    /// The CRC-32 its header records for the payload.
    pub fn header_crc(&self) -> u32 {
        Header::parse(&self.map).map_or(0, |h| h.crc)
    }

    /// Checks the payload's CRC, and each block's sum when the file has them (one pass).
    pub fn check_crc(&self) -> bool {
        let Some(h) = Header::parse(&self.map) else { return false };
        if self.block_shift == 0 {
            return crc32fast::hash(self.payload()) == h.crc;
        }
        let mut whole = crc32fast::Hasher::new();
        let sums = &self.map[self.end..];
        for (block, sum) in self.payload().chunks(1 << self.block_shift).zip(sums.chunks(4)) {
            let mut one = crc32fast::Hasher::new();
            one.update(block);
            if one.clone().finalize().to_le_bytes() != sum {
                return false;
            }
            whole.combine(&one);
        }
        if whole.finalize() != h.crc {
            return false;
        }
        use std::sync::atomic::Ordering::Relaxed;
        self.checked.iter().for_each(|w| w.store(u64::MAX, Relaxed));
        true
    }
}

/// Maps and validates a generation's postings: `postings.rkyv` and, when there is one, the
/// `postings-delta.rkyv` over it (which must name that base).
pub fn open_postings(gen_dir: &Path, index_dir: &Path) -> Result<(Mapped, Option<Mapped>)> {
    let corrupt = |what: &str| Error::index(index_dir, IndexProblem::Corrupt(what.to_string()));
    let base = Mapped::open(&gen_dir.join(POSTINGS_FILE), MAGIC_POSTINGS, index_dir)?;
    if rkyv::access::<ArchivedPostings, rkyv::rancor::Error>(base.payload()).is_err() {
        return Err(corrupt("postings.rkyv failed validation"));
    }
    // Most generations have none: one `stat`, not a failed open and its error.
    let path = gen_dir.join(POSTINGS_DELTA_FILE);
    if !path.exists() {
        return Ok((base, None));
    }
    let delta = Mapped::open(&path, MAGIC_POSTINGS_DELTA, index_dir)?;
    // A delta in the layout before it could renumber documents: the whole index is rebuilt.
    if delta.header_version() < MIN_DELTA_VERSION {
        return Err(Error::index(index_dir, IndexProblem::Older));
    }
    match rkyv::access::<ArchivedPostingsDelta, rkyv::rancor::Error>(delta.payload()) {
        Ok(d) if d.base_crc.to_native() == base.header_crc() => Ok((base, Some(delta))),
        Ok(_) => Err(corrupt("postings-delta.rkyv belongs to another postings.rkyv")),
        Err(_) => Err(corrupt("postings-delta.rkyv failed validation")),
    }
}

/// See [`Mapped::release_in_order`].
const RELEASE_BATCH: usize = 16 << 20;

/// The bytes of an rkyv archive's root object of type `T`, which ends the payload: where and
/// how long each column is.
fn root_bytes<T>(payload: &[u8]) -> &[u8] {
    &payload[payload.len().saturating_sub(std::mem::size_of::<T>())..]
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// An open index.
pub struct Index {
    dir: PathBuf,
    gen_dir: PathBuf,
    graph: Mapped,
    names: OnceCell<Names>,
    terms: OnceCell<FstFile>,
    /// `postings.rkyv`, and `postings-delta.rkyv` when the generation has one.
    postings: OnceCell<(Mapped, Option<Mapped>)>,
    content: OnceCell<Mapped>,
    history: OnceCell<Option<Mapped>>,
    messages: OnceCell<Option<Mapped>>,
    /// `facts.rkyv` and `facts.bin`, opened when a merged node's other definitions are asked
    /// for ([`Index::definitions`]).
    facts: OnceCell<(Mapped, Mapped)>,
    /// The last file whose definitions were read from the facts: each one's qualified name
    /// and span (a line reference or a skeleton asks for every merged node of one file).
    file_defs: RefCell<Option<(u32, FileDefs)>>,
    /// Line-start offsets of the files shown so far (see [`Index::line_starts`]).
    line_starts: RefCell<fxhash::FxHashMap<u32, Rc<[u32]>>>,
    /// The files whose content was checked against the file table's CRC (one bit each).
    content_checked: RefCell<Vec<u64>>,
}

/// Each definition of a file: its qualified name and where it lies.
type FileDefs = Rc<[(String, DefSpan)]>;

/// Where one definition lies in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DefSpan {
    /// First and last line (decorators included).
    pub lines: (u32, u32),
    /// Line of the `def` / `class` keyword.
    pub head_line: u32,
    /// Byte span (decorators included).
    pub bytes: (u32, u32),
    /// Byte span of the signature.
    pub sig: (u32, u32),
    /// Byte span of the docstring, if any.
    pub doc: Option<(u32, u32)>,
}

/// One edge as seen from a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Neighbor {
    /// The node at the other end.
    pub node: u32,
    /// Edge kind.
    pub kind: EdgeKind,
    /// Confidence (see `graph::Edge::meta`).
    pub meta: u8,
}

impl Index {
    /// Opens the index in `dir` (the `.cds` directory).
    pub fn open(dir: &Path) -> Result<Index> {
        let generation = current_generation(dir)?;
        let gen_dir = dir.join(&generation);
        let graph = match Mapped::open(&gen_dir.join(GRAPH_FILE), MAGIC_GRAPH, dir) {
            Ok(g) => g,
            // Builds may have swapped CURRENT and removed this generation in between: open the
            // one that is live now.
            Err(e) if current_generation(dir)? == generation => return Err(e),
            Err(_) => return Index::open(dir),
        };
        if rkyv::access::<ArchivedGraph, rkyv::rancor::Error>(graph.payload()).is_err() {
            return Err(Error::index(
                dir,
                IndexProblem::Corrupt("graph.rkyv failed validation".into()),
            ));
        }
        // The archive's root (every column's place and length) ends the payload.
        catch_damage(|| Ok(graph.sound(root_bytes::<ArchivedGraph>(graph.payload()))))?;
        let ix = Index {
            dir: dir.to_path_buf(),
            gen_dir,
            graph,
            names: OnceCell::new(),
            terms: OnceCell::new(),
            postings: OnceCell::new(),
            content: OnceCell::new(),
            history: OnceCell::new(),
            messages: OnceCell::new(),
            facts: OnceCell::new(),
            file_defs: RefCell::default(),
            line_starts: RefCell::default(),
            content_checked: RefCell::default(),
        };
        ix.check_shape()?;
        Ok(ix)
    }

    /// Opens the index found by [`crate::index::discover`].
    pub fn discover(explicit: Option<&Path>) -> Result<Index> {
        Index::open(&crate::index::discover(explicit)?)
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The live generation's directory.
    pub fn generation_dir(&self) -> &Path {
        &self.gen_dir
    }

    /// The graph columns. Their bytes are checked only as far as the accessors below read
    /// them: a caller reading a column directly checks what it reads with [`Index::sound`].
    pub fn graph(&self) -> &ArchivedGraph {
        // SAFETY: the same bytes passed validated `rkyv::access` in `open`, and they are
        // immutable (see `Mapped::open`).
        unsafe { rkyv::access_unchecked::<ArchivedGraph>(self.graph.payload()) }
    }

    /// `part` (a slice of the graph's columns), its bytes checked ([`Mapped::sound`]).
    #[inline]
    pub fn sound<'s, T>(&self, part: &'s [T]) -> &'s [T] {
        self.graph.sound(part)
    }

    /// `col[i]` (of a graph column), its bytes checked.
    #[inline]
    pub fn at<'s, T>(&self, col: &'s [T], i: usize) -> Option<&'s T> {
        col.get(i).map(|x| self.graph.sound_one(x))
    }

    fn corrupt(&self, what: impl Into<String>) -> Error {
        Error::index(&self.dir, IndexProblem::Corrupt(what.into()))
    }

    /// The error for bytes that fail their checksum (see [`IndexProblem::Damaged`]).
    fn damaged(&self, what: impl Into<String>) -> Error {
        Error::index(&self.dir, IndexProblem::Damaged(what.into()))
    }

    /// O(1) consistency checks of the column lengths, so accessors can trust them.
    fn check_shape(&self) -> Result<()> {
        let g = self.graph();
        let n = g.kind.len();
        let node_cols = [
            g.flags.len(),
            g.parent.len(),
            g.file.len(),
            g.line_start.len(),
            g.line_head.len(),
            g.line_end.len(),
            g.byte_start.len(),
            g.byte_head.len(),
            g.byte_sig_end.len(),
            g.byte_end.len(),
            g.doc_start.len(),
            g.doc_end.len(),
            g.by_id.len(),
        ];
        let ok = node_cols.iter().all(|&l| l == n)
            && g.id_off.len() == n + 1
            && g.out_off.len() == n + 1
            && g.in_off.len() == n + 1
            && g.out_dst.len() == g.out_kind.len()
            && g.out_dst.len() == g.out_meta.len()
            && g.in_src.len() == g.in_kind.len()
            && g.in_src.len() == g.in_meta.len()
            && !g.multi_off.is_empty()
            && [
                g.file_size.len(),
                g.file_mtime.len(),
                g.file_hash.len(),
                g.file_lang.len(),
                g.file_errors.len(),
                g.file_lines.len(),
                g.content_off.len(),
                g.content_len.len(),
            ]
            .iter()
            .all(|&l| l == g.file_node.len());
        if ok { Ok(()) } else { Err(self.corrupt("graph.rkyv columns disagree in length")) }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.graph().kind.len()
    }

    /// True when the index has no nodes (never: the root always exists).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Graph mode the index was built with.
    pub fn mode(&self) -> crate::graph::Mode {
        crate::graph::Mode::from_code(self.graph().meta.mode)
    }

    /// The indexed repository's root.
    pub fn root(&self) -> PathBuf {
        use bstr::ByteSlice;
        self.sound(self.graph().meta.root.as_slice()).to_path_lossy().into_owned()
    }

    /// Node kind (a corrupt code reads as a directory).
    pub fn kind(&self, n: u32) -> NodeKind {
        self.at(&self.graph().kind, n as usize)
            .and_then(|&k| NodeKind::from_code(k))
            .unwrap_or(NodeKind::Directory)
    }

    /// Node flags.
    pub fn flags(&self, n: u32) -> u8 {
        self.at(&self.graph().flags, n as usize).copied().unwrap_or(0)
    }

    /// The entity ID.
    pub fn id(&self, n: u32) -> &[u8] {
        let g = self.graph();
        let Some([a, b]) = g.id_off.get(n as usize..n as usize + 2).map(|r| self.sound(r)) else {
            return b"";
        };
        let id = g.id_blob.get(a.to_native() as usize..b.to_native() as usize).unwrap_or(b"");
        self.sound(id)
    }

    /// The entity's name (last component).
    pub fn name(&self, n: u32) -> &[u8] {
        crate::graph::id_name(self.id(n), self.kind(n))
    }

    /// The path of the entity's file or directory: its ID up to the `:` before its qualified
    /// name (the whole ID for a file or directory, whose path may hold a `:` itself).
    pub fn path(&self, n: u32) -> &[u8] {
        crate::graph::id_path(self.id(n), self.kind(n))
    }

    fn col(&self, col: &[Archived<u32>], n: u32) -> u32 {
        self.at(col, n as usize).map_or(0, |v| v.to_native())
    }

    /// The containing node.
    pub fn parent(&self, n: u32) -> Option<u32> {
        let p = self.col(&self.graph().parent, n);
        (p != NONE && (p as usize) < self.len()).then_some(p)
    }

    /// The file-table index of the node's file.
    pub fn file_index(&self, n: u32) -> Option<u32> {
        let f = self.col(&self.graph().file, n);
        (f != NONE && (f as usize) < self.graph().file_node.len()).then_some(f)
    }

    /// The file node of a node (itself for a file).
    pub fn file_node(&self, n: u32) -> Option<u32> {
        let f = self.file_index(n)?;
        let node = self.col(&self.graph().file_node, f);
        (node != NONE && (node as usize) < self.len()).then_some(node)
    }

    /// First and last line (decorators included); (0, 0) for directories.
    pub fn lines(&self, n: u32) -> (u32, u32) {
        let g = self.graph();
        (self.col(&g.line_start, n), self.col(&g.line_end, n))
    }

    /// Line of the `def` / `class` keyword (LocAgent's start line).
    pub fn head_line(&self, n: u32) -> u32 {
        self.col(&self.graph().line_head, n)
    }

    /// Node `n`'s own place in its file (its first definition's, for a merged node).
    pub fn span(&self, n: u32) -> DefSpan {
        DefSpan {
            lines: self.lines(n),
            head_line: self.head_line(n),
            bytes: self.byte_span(n),
            sig: self.sig_span(n),
            doc: self.doc_span(n),
        }
    }

    /// Every definition node `n` stands for, in file order: its own span, and for a node
    /// flagged [`FLAG_MERGED`] (several definitions of one qualified name: overloads, a
    /// property and its setter) the others, found in its file's cached facts by the qualified
    /// name its ID ends with. Facts that cannot be read unwind with [`Damaged`], as content does.
    pub fn definitions(&self, n: u32) -> smallvec::SmallVec<[DefSpan; 1]> {
        let own = self.span(n);
        if self.flags(n) & FLAG_MERGED == 0
            || !matches!(self.kind(n), NodeKind::Class | NodeKind::Function)
        {
            return smallvec::smallvec![own];
        }
        let (Some(f), Some(file)) = (self.file_index(n), self.file_node(n)) else {
            return smallvec::smallvec![own];
        };
        let defs = self.file_defs(f, self.id(file));
        let qual = self.id(n).get(self.id(file).len() + 1..).unwrap_or(b"");
        let mut all: smallvec::SmallVec<[DefSpan; 1]> =
            defs.iter().filter(|(q, _)| q.as_bytes() == qual).map(|(_, d)| *d).collect();
        if !all.contains(&own) {
            all.push(own);
        }
        all.sort_by_key(|s| s.bytes);
        all
    }

    /// The qualified name and span of every definition of file-table entry `f` (path `rel`),
    /// from the generation's cached facts; damaged facts unwind with [`Damaged`].
    fn file_defs(&self, f: u32, rel: &[u8]) -> FileDefs {
        if let Some((g, defs)) = &*self.file_defs.borrow()
            && *g == f
        {
            return Rc::clone(defs);
        }
        let facts = self.file_facts(f, rel).unwrap_or_else(|e| Damaged::raise(e));
        let defs: FileDefs = (0..facts.defs.len() as u32)
            .map(|i| {
                let d = &facts.defs[i as usize];
                let span = DefSpan {
                    lines: (d.line_start, d.line_end),
                    head_line: d.line_head,
                    bytes: (d.byte_start, d.byte_end),
                    sig: (d.byte_head, d.byte_sig_end),
                    doc: d.doc.filter(|(a, b)| b > a),
                };
                (facts.qual_name(i), span)
            })
            .collect();
        *self.file_defs.borrow_mut() = Some((f, Rc::clone(&defs)));
        defs
    }

    /// The facts of file-table entry `f` (path `rel`) in outline, from the generation's cache.
    fn file_facts(&self, f: u32, rel: &[u8]) -> Result<crate::extract::FileFacts> {
        use crate::index::facts;
        if self.facts.get().is_none() {
            let table = Mapped::open(&self.gen_dir.join(FACTS_FILE), MAGIC_FACTS, &self.dir)?;
            let blob = facts::open_blob(&self.gen_dir, &self.dir)?;
            let _ = self.facts.set((table, blob));
        }
        let (table, blob) = self.facts.get().ok_or_else(|| self.corrupt(FACTS_FILE))?;
        let view = facts::FactsView::new(table.payload(), blob.payload())
            .ok_or_else(|| self.corrupt(format!("{FACTS_FILE}: its table failed validation")))?;
        let entry = view.entries().get(f as usize).filter(|e| e.rel.as_slice() == rel);
        let archive = entry.and_then(|e| Some((view.archive(f as usize)?, e.crc.to_native())));
        archive
            .and_then(|(bytes, crc)| facts::checked(bytes, crc))
            .and_then(facts::load_outline)
            .ok_or_else(|| {
                let rel = crate::id::display(rel);
                self.damaged(format!("{FACTS_BLOB_FILE}: the cached facts of {rel} are damaged"))
            })
    }

    /// Byte span within the file (decorators included).
    pub fn byte_span(&self, n: u32) -> (u32, u32) {
        let g = self.graph();
        (self.col(&g.byte_start, n), self.col(&g.byte_end, n))
    }

    /// Byte span of the signature (`def ...:` / `class ...:`).
    pub fn sig_span(&self, n: u32) -> (u32, u32) {
        let g = self.graph();
        (self.col(&g.byte_head, n), self.col(&g.byte_sig_end, n))
    }

    /// Byte span of the docstring, if any.
    pub fn doc_span(&self, n: u32) -> Option<(u32, u32)> {
        let g = self.graph();
        let (a, b) = (self.col(&g.doc_start, n), self.col(&g.doc_end, n));
        (b > a).then_some((a, b))
    }

    fn edges<'s>(
        &'s self,
        off: &'s [Archived<u32>],
        other: &'s [Archived<u32>],
        kind: &'s [u8],
        meta: &'s [u8],
        n: u32,
    ) -> impl Iterator<Item = Neighbor> + 's {
        let (a, b) = match off.get(n as usize..n as usize + 2).map(|r| self.sound(r)) {
            Some([a, b]) => (a.to_native() as usize, b.to_native() as usize),
            _ => (0, 0),
        };
        let (a, b) = if a <= b && b <= other.len() { (a, b) } else { (0, 0) };
        let len = self.len() as u32;
        let other = self.sound(&other[a..b]);
        let kind = self.sound(kind.get(a..b).unwrap_or_default());
        let meta = self.sound(meta.get(a..b).unwrap_or_default());
        (0..b - a).filter_map(move |i| {
            let node = other[i].to_native();
            let kind = EdgeKind::from_code(*kind.get(i)?)?;
            (node < len).then_some(Neighbor { node, kind, meta: meta.get(i).copied().unwrap_or(0) })
        })
    }

    /// Out-edges (what the node contains, imports, invokes, inherits), in insertion order.
    pub fn out_edges(&self, n: u32) -> impl Iterator<Item = Neighbor> + '_ {
        let g = self.graph();
        self.edges(&g.out_off, &g.out_dst, &g.out_kind, &g.out_meta, n)
    }

    /// In-edges (who contains, imports, invokes, inherits the node).
    pub fn in_edges(&self, n: u32) -> impl Iterator<Item = Neighbor> + '_ {
        let g = self.graph();
        self.edges(&g.in_off, &g.in_src, &g.in_kind, &g.in_meta, n)
    }

    /// Exact lookup by ID (binary search over the sorted ID permutation).
    pub fn lookup_id(&self, id: &[u8]) -> Option<u32> {
        let by_id = &self.graph().by_id;
        let (mut lo, mut hi) = (0usize, by_id.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            let n = self.graph.sound_one(&by_id[mid]).to_native();
            match self.id(n).cmp(id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(n),
            }
        }
        None
    }

    /// The name index (lower-cased names, file names and stems, paths -> nodes; see
    /// `index::write::node_keys`), and its delta when the generation has one.
    pub fn names(&self) -> Result<&Names> {
        if let Some(m) = self.names.get() {
            return Ok(m);
        }
        let m = Names::open(&self.gen_dir, &self.dir, self.len() as u32)?;
        Ok(self.names.get_or_init(|| m))
    }

    /// The BM25 term dictionary (term -> term number).
    pub fn terms(&self) -> Result<&FstFile> {
        if let Some(m) = self.terms.get() {
            return Ok(m);
        }
        let m = self.open_fst(TERMS_FILE, MAGIC_TERMS)?;
        Ok(self.terms.get_or_init(|| m))
    }

    /// The postings' number of `term`, when a document holds it: its value in `terms.fst`, or
    /// its place among the terms added after it (see [`crate::index::format::PostingsFile`]
    /// and [`crate::index::format::PostingsDelta`]).
    pub fn term_number(&self, term: &[u8]) -> Result<Option<usize>> {
        let (dict, post) = (self.terms()?, self.postings()?);
        let n = match dict.get(term)? {
            Some(n) => Some(n as usize),
            None => post.find_added(term),
        };
        Ok(n.filter(|&t| post.held(t)))
    }

    /// The terms one edit (a character inserted, removed or replaced) from `term` that
    /// documents hold, in order, at most `max` of them.
    pub fn terms_one_edit_away(&self, term: &str, max: usize) -> Result<Vec<String>> {
        let Ok(aut) = fst::automaton::Levenshtein::new_with_limit(term, 1, 10_000) else {
            return Ok(Vec::new());
        };
        let (dict, post) = (self.terms()?, self.postings()?);
        let mut near: Vec<String> = Vec::new();
        // In key order: past the first `max` held, no key of the fst can be among the first.
        dict.search(aut, |k, n| {
            if k != term.as_bytes() && post.held(n as usize) {
                near.push(String::from_utf8_lossy(k).into_owned());
            }
            near.len() < max
        })?;
        for k in 0..post.n_added() {
            let added = String::from_utf8_lossy(post.added(k));
            if one_edit_apart(term, &added) && post.held(post.fst_terms() + k) {
                near.push(added.into_owned());
            }
        }
        near.sort_unstable();
        near.dedup();
        near.truncate(max);
        Ok(near)
    }

    /// The terms documents hold that start with `prefix` and are at most `max_len` bytes long,
    /// in order.
    pub fn terms_with_prefix(&self, prefix: &str, max_len: usize) -> Result<Vec<String>> {
        let (dict, post) = (self.terms()?, self.postings()?);
        let mut found: Vec<String> = Vec::new();
        let aut = PrefixUpTo { prefix: prefix.as_bytes(), max_len };
        dict.search(aut, |k, n| {
            if post.held(n as usize) {
                found.push(String::from_utf8_lossy(k).into_owned());
            }
            true
        })?;
        for (t, added) in post.added_with_prefix(prefix.as_bytes()) {
            if added.len() <= max_len && post.held(t) {
                found.push(String::from_utf8_lossy(added).into_owned());
            }
        }
        found.sort_unstable();
        found.dedup();
        Ok(found)
    }

    /// Every term documents hold, in order, with its (document, term frequency) postings:
    /// what two builds of one tree must agree on, however their dictionaries number the terms.
    pub fn term_postings(&self) -> Result<Vec<TermPostings>> {
        let (dict, post) = (self.terms()?, self.postings()?);
        let mut numbered: Vec<(Vec<u8>, usize)> = Vec::new();
        dict.search(fst::automaton::AlwaysMatch, |k, n| {
            numbered.push((k.to_vec(), n as usize));
            true
        })?;
        for k in 0..post.n_added() {
            numbered.push((post.added(k).to_vec(), post.fst_terms() + k));
        }
        numbered.sort_unstable();
        Ok(numbered
            .into_iter()
            .filter(|&(_, t)| post.held(t))
            .map(|(term, t)| {
                let list = post.list(t);
                (term, list.into_iter().map(|(d, f)| (d, crate::search::bm25::tf_u16(f))).collect())
            })
            .collect())
    }

    fn open_fst(&self, name: &'static str, magic: &[u8; 8]) -> Result<FstFile> {
        let mapped = Mapped::open(&self.gen_dir.join(name), magic, &self.dir)?;
        FstFile::open(mapped, &self.dir, name)
    }

    /// Decodes a names.fst value into node numbers, through the delta's map when there is one
    /// (a node the delta replaced is left out).
    fn base_value(&self, value: u64, map: Option<&NodeMap>, out: &mut Vec<u32>) {
        let g = self.graph();
        let len = self.len() as u32;
        let mut push = |b: u32| {
            if let Some(n) = map.map_or(Some(b), |m| m.forward(b))
                && n < len
            {
                out.push(n);
            }
        };
        if value & MULTI_TAG == 0 {
            if value <= u32::MAX as u64 {
                push(value as u32);
            }
            return;
        }
        let k = (value & !MULTI_TAG) as usize;
        let Some([a, b]) = g.multi_off.get(k..k + 2).map(|r| self.sound(r)) else { return };
        let (a, b) = (a.to_native() as usize, b.to_native() as usize);
        if let Some(ids) = g.multi_ids.get(a..b) {
            self.sound(ids).iter().for_each(|x| push(x.to_native()));
        }
    }

    /// Nodes stored under a lower-cased key in the name index, in order.
    pub fn lookup_key(&self, key: &[u8]) -> Result<Vec<u32>> {
        let names = self.names()?;
        let delta = names.delta.as_ref();
        let mut out = Vec::new();
        if let Some(v) = names.base.get(key)? {
            self.base_value(v, delta.map(|d| &d.map.nodes), &mut out);
        }
        if let Some(d) = delta
            && let Some(v) = d.keys.get(key)?
        {
            d.value(v, self.len() as u32, &mut out);
            out.sort_unstable();
            out.dedup();
        }
        Ok(out)
    }

    /// Calls `each` with every key of the name index the automaton matches, in key order, and
    /// its nodes in order, until it returns false.
    pub fn search_names<A: fst::Automaton>(
        &self,
        aut: A,
        mut each: impl FnMut(&[u8], Vec<u32>) -> bool,
    ) -> Result<()> {
        let names = self.names()?;
        let Some(d) = &names.delta else {
            return names.base.search(aut, |k, v| {
                let mut nodes = Vec::new();
                self.base_value(v, None, &mut nodes);
                nodes.is_empty() || each(k, nodes)
            });
        };
        // The delta's keys (a few), merged into the base's stream in key order.
        let len = self.len() as u32;
        let mut extra: Vec<(Vec<u8>, Vec<u32>)> = Vec::new();
        d.keys.search(&aut, |k, v| {
            let mut nodes = Vec::new();
            d.value(v, len, &mut nodes);
            extra.push((k.to_vec(), nodes));
            true
        })?;
        let (mut x, mut go) = (0, true);
        names.base.search(&aut, |k, v| {
            while let Some((ek, _)) = extra.get(x)
                && ek.as_slice() < k
            {
                let (ek, en) = std::mem::take(&mut extra[x]);
                x += 1;
                if !en.is_empty() && !each(&ek, en) {
                    go = false;
                    return false;
                }
            }
            let mut nodes = Vec::new();
            self.base_value(v, Some(&d.map.nodes), &mut nodes);
            if let Some((ek, en)) = extra.get_mut(x)
                && ek.as_slice() == k
            {
                nodes.append(en);
                nodes.sort_unstable();
                nodes.dedup();
                x += 1;
            }
            go = nodes.is_empty() || each(k, nodes);
            go
        })?;
        for (k, nodes) in extra.drain(x..) {
            if !go {
                break;
            }
            go = nodes.is_empty() || each(&k, nodes);
        }
        Ok(())
    }

    /// The BM25 postings: `postings.rkyv`, and its delta when the generation has one.
    pub fn postings(&self) -> Result<Postings<'_>> {
        if self.postings.get().is_none() {
            let (base, delta) = open_postings(&self.gen_dir, &self.dir)?;
            // The base is checked block by block as it is read, from its root; the delta, a
            // fraction of it, whole.
            catch_damage(|| Ok(base.sound(root_bytes::<ArchivedPostings>(base.payload()))))?;
            if delta.as_ref().is_some_and(|d| !d.check_crc()) {
                return Err(self.damaged(format!("{POSTINGS_DELTA_FILE}: checksum mismatch")));
            }
            let _ = self.postings.set((base, delta));
        }
        let (base_file, delta) = self.postings.get().ok_or_else(|| self.corrupt("postings"))?;
        // SAFETY: validated by `open_postings`; immutable bytes.
        let base = unsafe { rkyv::access_unchecked::<ArchivedPostings>(base_file.payload()) };
        let delta = delta
            .as_ref()
            .map(|d| unsafe { rkyv::access_unchecked::<ArchivedPostingsDelta>(d.payload()) });
        Ok(Postings::new(base, delta).checked_by(base_file))
    }

    /// The repository's history per file (see [`crate::history`]), if the build read one: a
    /// file's entries are at its file-table index.
    pub fn history(&self) -> Result<Option<&ArchivedHistoryFile>> {
        if self.history.get().is_none() {
            let path = self.gen_dir.join(HISTORY_FILE);
            let m = match Mapped::open(&path, MAGIC_HISTORY, &self.dir) {
                Ok(m) => Some(m),
                Err(_) if !path.exists() => None,
                Err(e) => return Err(e),
            };
            if let Some(m) = &m {
                if !m.check_crc() {
                    return Err(self.damaged(format!("{HISTORY_FILE}: checksum mismatch")));
                }
                let files = self.graph().file_node.len();
                match rkyv::access::<ArchivedHistoryFile, rkyv::rancor::Error>(m.payload()) {
                    Ok(h) if h.age.len() == files && h.churn.len() == files => {}
                    _ => return Err(self.corrupt("history.rkyv failed validation")),
                }
            }
            let _ = self.history.set(m);
        }
        let Some(Some(m)) = self.history.get() else { return Ok(None) };
        // SAFETY: validated above when mapped; immutable bytes.
        Ok(Some(unsafe { rkyv::access_unchecked::<ArchivedHistoryFile>(m.payload()) }))
    }

    /// The terms of the commit messages per file (see [`crate::history::Messages`]), if the
    /// build read a history with them: a file's range of `term` and `count` is at its
    /// file-table index in `file_off`.
    pub fn messages(&self) -> Result<Option<&ArchivedMessagesFile>> {
        if self.messages.get().is_none() {
            let path = self.gen_dir.join(MESSAGES_FILE);
            let m = match Mapped::open(&path, MAGIC_MESSAGES, &self.dir) {
                Ok(m) => Some(m),
                Err(_) if !path.exists() => None,
                Err(e) => return Err(e),
            };
            if let Some(m) = &m
                && !m.check_crc()
            {
                return Err(self.damaged(format!("{MESSAGES_FILE}: checksum mismatch")));
            }
            if let Some(m) = &m
                && validated_messages(m, self.graph().file_node.len()).is_none()
            {
                return Err(self.corrupt("messages.rkyv failed validation"));
            }
            let _ = self.messages.set(m);
        }
        let Some(Some(m)) = self.messages.get() else { return Ok(None) };
        // SAFETY: validated above when mapped; immutable bytes.
        Ok(Some(unsafe { rkyv::access_unchecked::<ArchivedMessagesFile>(m.payload()) }))
    }

    fn content_map(&self) -> Result<&Mapped> {
        if self.content.get().is_none() {
            let path = self.gen_dir.join(CONTENT_FILE);
            let m = Mapped::open_growing(&path, MAGIC_CONTENT, &self.dir)?;
            let _ = self.content.set(m);
        }
        self.content.get().ok_or_else(|| self.corrupt("content"))
    }

    /// The stored content of file-table entry `f`. Content that cannot be read, or fails the
    /// CRC the file table records, unwinds with [`Damaged`], as a graph column's bytes do:
    /// callers that would show nothing for such a file must not show that instead.
    pub fn file_content(&self, f: u32) -> &[u8] {
        let Some(range) = self.content_range(f) else { Damaged::raise(self.corrupt("file table")) };
        let data = self.content_map().unwrap_or_else(|e| Damaged::raise(e)).payload();
        let Some(content) = data.get(range) else {
            Damaged::raise(
                self.damaged(format!("{CONTENT_FILE} is shorter than the file table says")),
            )
        };
        // Checked once per file against the CRC the file table records (what a reader shows
        // of a file is a few lines; checking the whole file costs about what finding them does).
        let (word, bit) = (f as usize / 64, 1u64 << (f % 64));
        if self.content_checked.borrow().get(word).is_some_and(|w| w & bit != 0) {
            return content;
        }
        let crc = self.at(&self.graph().file_hash, f as usize).map(|h| h.to_native());
        if crc != Some(crc32fast::hash(content)) {
            Damaged::raise(self.damaged(format!("{CONTENT_FILE}: file {f}: checksum mismatch")))
        }
        let mut checked = self.content_checked.borrow_mut();
        if checked.len() <= word {
            checked.resize(word + 1, 0);
        }
        checked[word] |= bit;
        content
    }

    /// Where file-table entry `f`'s content lies in `content.bin`'s payload, as the file table
    /// says; None past the table (or for a range past any address).
    fn content_range(&self, f: u32) -> Option<std::ops::Range<usize>> {
        let g = self.graph();
        let (off, len) =
            (self.at(&g.content_off, f as usize)?, self.at(&g.content_len, f as usize)?);
        let off = usize::try_from(off.to_native()).ok()?;
        Some(off..off.checked_add(usize::try_from(len.to_native()).ok()?)?)
    }

    /// The byte offset of every line start of file-table entry `f`'s content (`[i]` is line
    /// `i + 1`), computed on first use and kept for the life of the index, so that showing 200
    /// entities of one file scans it once.
    pub fn line_starts(&self, f: u32) -> Rc<[u32]> {
        if let Some(s) = self.line_starts.borrow().get(&f) {
            return Rc::clone(s);
        }
        let starts: Rc<[u32]> = line_starts(self.file_content(f)).into();
        self.line_starts.borrow_mut().insert(f, Rc::clone(&starts));
        starts
    }

    /// The source text of a node (its file's content for a file; empty for a directory).
    pub fn text(&self, n: u32) -> &[u8] {
        let Some(f) = self.file_index(n) else { return b"" };
        let content = self.file_content(f);
        let (a, b) = self.byte_span(n);
        content.get(a as usize..b as usize).unwrap_or(content)
    }

    /// The "fold" view: the signature on one line (`def f(a, b):`), or the path for a file or
    /// directory.
    pub fn fold(&self, n: u32) -> String {
        match self.kind(n) {
            NodeKind::Directory | NodeKind::File => String::new(),
            _ => {
                let Some(f) = self.file_index(n) else { return String::new() };
                let content = self.file_content(f);
                let (a, b) = self.sig_span(n);
                let sig = content.get(a as usize..b as usize).unwrap_or(b"");
                // Bytes that are not UTF-8 read as the names were (Latin-1).
                collapse_ws(&crate::extract::source_text(sig))
            }
        }
    }

    /// Runs every check a reader may run on its way (headers, the fst checksums, the postings'
    /// validation, the content's length), so that an index a reader calls corrupt is never
    /// taken as up to date by a build. Cheap: it reads the two fst files, nothing else whole.
    pub fn check_readable(&self) -> Result<()> {
        self.names()?.check()?;
        self.terms()?.check()?;
        self.postings()?;
        let len = self.content_map()?.payload().len();
        // Every file's range, as `file_content` reads it: within the file.
        let files = self.graph().file_node.len() as u32;
        match (0..files).all(|f| self.content_range(f).is_some_and(|r| r.end <= len)) {
            true => Ok(()),
            false => Err(self.corrupt("content.bin is shorter than the file table says")),
        }
    }

    /// Checks every file's header, length and CRC, and the graph's internal references.
    /// Returns the problems found (empty: the index is sound).
    pub fn verify(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if !self.graph.check_crc() {
            problems.push(format!("{GRAPH_FILE}: checksum mismatch"));
        }
        let mut files: Vec<(&str, &[u8; 8])> = vec![
            (NAMES_FILE, MAGIC_NAMES),
            (TERMS_FILE, MAGIC_TERMS),
            (POSTINGS_FILE, MAGIC_POSTINGS),
            (FACTS_FILE, MAGIC_FACTS),
        ];
        let names_delta = self.gen_dir.join(NAMES_MAP_FILE).exists();
        // Whether names-delta.rkyv's checksum holds (its content is checked after the loop).
        let mut map_sound = false;
        if names_delta {
            files
                .extend([(NAMES_MAP_FILE, MAGIC_NAMES_MAP), (NAMES_DELTA_FILE, MAGIC_NAMES_DELTA)]);
        }
        for (name, magic) in files {
            match Mapped::open(&self.gen_dir.join(name), magic, &self.dir) {
                Ok(m) if !m.check_crc() => problems.push(format!("{name}: checksum mismatch")),
                Ok(m) => match name {
                    NAMES_FILE | TERMS_FILE | NAMES_DELTA_FILE => {
                        if let Err(e) = fst::Map::new(m)
                            .map_err(|e| e.to_string())
                            .and_then(|f| f.as_fst().verify().map_err(|e| e.to_string()))
                        {
                            problems.push(format!("{name}: {e}"));
                        }
                    }
                    NAMES_MAP_FILE => map_sound = true,
                    POSTINGS_FILE => {
                        if let Err(e) =
                            rkyv::access::<ArchivedPostings, rkyv::rancor::BoxedError>(m.payload())
                        {
                            problems.push(format!("{name}: {e}"));
                        }
                    }
                    FACTS_FILE => {
                        // The archives are in facts.bin.
                        let blob = match crate::index::facts::open_blob(&self.gen_dir, &self.dir) {
                            Ok(b) => b,
                            Err(e) => {
                                problems.push(e.to_string());
                                continue;
                            }
                        };
                        match crate::index::facts::FactsView::new(m.payload(), blob.payload()) {
                            Some(v) => {
                                if let Err(e) = v.verify() {
                                    problems.push(format!("{name}: {e}"));
                                }
                            }
                            None => problems.push(format!("{name}: its table failed validation")),
                        }
                    }
                    _ => {}
                },
                Err(e) => problems.push(e.to_string()),
            }
        }
        let delta = self.gen_dir.join(POSTINGS_DELTA_FILE);
        if delta.exists() {
            match Mapped::open(&delta, MAGIC_POSTINGS_DELTA, &self.dir) {
                Ok(m) if !m.check_crc() => {
                    problems.push(format!("{POSTINGS_DELTA_FILE}: checksum mismatch"))
                }
                Ok(_) => match self.postings() {
                    Ok(p) if !p.sound() => {
                        problems.push(format!("{POSTINGS_DELTA_FILE}: offsets out of order"))
                    }
                    Ok(_) => {}
                    Err(e) => problems.push(e.to_string()),
                },
                Err(e) => problems.push(e.to_string()),
            }
        }
        // The names delta's map, beyond its checksum: its ranges and its base.
        if map_sound
            && let Err(e) =
                crate::index::names::check_map(&self.gen_dir, &self.dir, self.len() as u32)
        {
            problems.push(e);
        }
        // The optional files: checksum, then the reader's own validation.
        type Validate<'v> = &'v dyn Fn() -> Result<()>;
        let others = || {
            let path = self.gen_dir.join(HISTORY_OTHERS_FILE);
            let m = Mapped::open(&path, MAGIC_HISTORY_OTHERS, &self.dir)?;
            match validated_history_others(&m) {
                Some(_) => Ok(()),
                None => Err(self.corrupt("history-others.rkyv failed validation")),
            }
        };
        let optional: [(&str, &[u8; 8], Validate); 3] = [
            (HISTORY_FILE, MAGIC_HISTORY, &|| self.history().map(|_| ())),
            (MESSAGES_FILE, MAGIC_MESSAGES, &|| self.messages().map(|_| ())),
            (HISTORY_OTHERS_FILE, MAGIC_HISTORY_OTHERS, &others),
        ];
        for (name, magic, validate) in optional {
            let path = self.gen_dir.join(name);
            if !path.exists() {
                continue;
            }
            match Mapped::open(&path, magic, &self.dir) {
                Ok(m) if !m.check_crc() => problems.push(format!("{name}: checksum mismatch")),
                Ok(_) => {
                    if let Err(e) = validate() {
                        problems.push(e.to_string());
                    }
                }
                Err(e) => problems.push(e.to_string()),
            }
        }
        // (Damage found on the way, by a block's sum, is a problem like the others.)
        problems.extend(catch_damage(|| Ok(self.verify_references())).unwrap_or_else(|e| {
            vec![match e {
                Error::Index { problem: IndexProblem::Damaged(what), .. } => what,
                e => e.to_string(),
            }]
        }));
        problems
    }

    /// O(n) checks that every stored reference is in range and offsets are monotone.
    fn verify_references(&self) -> Vec<String> {
        let g = self.graph();
        let n = self.len();
        let mut p = Vec::new();
        let monotone = |off: &[Archived<u32>], max: usize| {
            off.windows(2).all(|w| w[0].to_native() <= w[1].to_native())
                && off.last().is_some_and(|l| l.to_native() as usize == max)
        };
        if !monotone(&g.id_off, g.id_blob.len()) {
            p.push("graph: ID offsets out of order".to_string());
        }
        if !monotone(&g.out_off, g.out_dst.len()) || !monotone(&g.in_off, g.in_src.len()) {
            p.push("graph: edge offsets out of order".to_string());
        }
        let bad_node = |col: &[Archived<u32>]| {
            col.iter().any(|x| {
                let v = x.to_native();
                v != NONE && v as usize >= n
            })
        };
        if bad_node(&g.parent) || bad_node(&g.out_dst) || bad_node(&g.in_src) || bad_node(&g.by_id)
        {
            p.push("graph: a node reference is out of range".to_string());
        }
        if g.kind.iter().any(|&k| NodeKind::from_code(k).is_none())
            || g.out_kind.iter().chain(g.in_kind.iter()).any(|&k| EdgeKind::from_code(k).is_none())
        {
            p.push("graph: unknown node or edge kind".to_string());
        }
        let nf = g.file_node.len();
        if g.file.iter().any(|x| {
            let v = x.to_native();
            v != NONE && v as usize >= nf
        }) {
            p.push("graph: a file reference is out of range".to_string());
        }
        p.extend(self.verify_content().err());
        p
    }

    /// Checks each file's content (`content.bin` is shared between generations, so its header
    /// holds no checksum) against the CRC-32 the file table records for it.
    fn verify_content(&self) -> std::result::Result<(), String> {
        let data = self.content_map().map_err(|e| e.to_string())?.payload();
        let g = self.graph();
        for (f, hash) in g.file_hash.iter().enumerate() {
            let Some(bytes) = self.content_range(f as u32).and_then(|r| data.get(r)) else {
                return Err(format!("{CONTENT_FILE}: file {f} lies past its end"));
            };
            if crc32fast::hash(bytes) != hash.to_native() {
                return Err(format!("{CONTENT_FILE}: file {f}: checksum mismatch"));
            }
        }
        Ok(())
    }
}

/// The UTF-8 byte-order mark some editors start a file with.
pub const BOM: &[u8] = b"\xef\xbb\xbf";

/// The byte offsets at which the lines of `text` start; a final newline ends the last line,
/// it does not start another. Empty text has no lines. A line ends at `\n`, `\r\n` or a lone
/// `\r`, as the extractors count lines (`extract::tree::unify_newlines`), so the graph's line
/// numbers are these lines' and no line holds a `\r`. A byte-order mark is no part of the
/// first line, which starts after it: the stored content keeps the file's bytes (its checksum
/// and every byte offset stay the file's own, as `rg -b` and tree-sitter count them), and
/// nothing shown by lines shows the mark.
pub fn line_starts(text: &[u8]) -> Vec<u32> {
    use bstr::ByteSlice;
    let mut starts = Vec::with_capacity(text.len() / 32 + 1);
    if text.is_empty() {
        return starts;
    }
    starts.push(if text.starts_with(BOM) { BOM.len() as u32 } else { 0 });
    let mut at = 0;
    while let Some(i) = text[at..].find_byteset(b"\r\n") {
        at += i + 1;
        if text[at - 1] == b'\r' && text.get(at) == Some(&b'\n') {
            at += 1;
        }
        if at >= text.len() {
            break;
        }
        starts.push(at as u32);
    }
    starts
}

/// Collapses runs of whitespace (including newlines) into single spaces.
pub fn collapse_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    out
}

/// True when `a` and `b` differ by one character inserted, removed or replaced (what a
/// Levenshtein automaton of distance 1 matches, but for the same word).
fn one_edit_apart(a: &str, b: &str) -> bool {
    // Cheap tests first (readers scan thousands of added words): a character takes at most 4
    // bytes, and one edit leaves the first or the last character of a longer word as it was.
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let ends_kept = x.len() <= 4 || y.len() <= 4 || x[0] == y[0] || x.last() == y.last();
    x.len().abs_diff(y.len()) <= 4 && ends_kept && strsim::levenshtein(a, b) == 1
}

/// The archive in `m`, a mapped `messages.rkyv`, if it is valid and its offsets and term
/// numbers are in range for `files` files.
pub fn validated_messages(m: &Mapped, files: usize) -> Option<&ArchivedMessagesFile> {
    rkyv::access::<ArchivedMessagesFile, rkyv::rancor::Error>(m.payload())
        .ok()
        .filter(|f| messages_sound(f, files))
}

/// Whether a messages file's offsets and term numbers are in range for `files` files, so that
/// readers may index it without checks failing later.
fn messages_sound(m: &ArchivedMessagesFile, files: usize) -> bool {
    let terms = m.vocab_off.len().saturating_sub(1);
    offsets_sound(&m.vocab_off, m.vocab.len())
        && m.file_off.len() == files + 1
        && m.term.len() == m.count.len()
        && offsets_sound(&m.file_off, m.term.len())
        && m.term.iter().all(|t| (t.to_native() as usize) < terms)
}

/// Whether `off` starts at 0, never decreases, and ends at `end`.
fn offsets_sound(off: &[rkyv::Archived<u32>], end: usize) -> bool {
    off.first().is_some_and(|o| o.to_native() == 0)
        && off.windows(2).all(|w| w[0].to_native() <= w[1].to_native())
        && off.last().is_some_and(|o| o.to_native() as usize == end)
}

/// The archive in `m`, a mapped `history-others.rkyv`, if it is valid and its offsets and
/// term numbers are in range.
pub fn validated_history_others(m: &Mapped) -> Option<&ArchivedHistoryOthersFile> {
    rkyv::access::<ArchivedHistoryOthersFile, rkyv::rancor::Error>(m.payload()).ok().filter(|f| {
        let paths = f.rel_off.len().saturating_sub(1);
        offsets_sound(&f.rel_off, f.rel.len())
            && f.age.len() == paths
            && f.churn.len() == paths
            && messages_sound(&f.messages, paths)
    })
}

/// The keys that start with `prefix` and are at most `max_len` bytes long. The fst's walk
/// stops at the length, where `Str::starts_with` would visit every longer key too (`form`
/// starts thousands of Django's terms).
struct PrefixUpTo<'a> {
    prefix: &'a [u8],
    max_len: usize,
}

impl fst::Automaton for PrefixUpTo<'_> {
    /// Bytes read, or `None` once the key can no longer match.
    type State = Option<usize>;

    fn start(&self) -> Option<usize> {
        Some(0)
    }

    fn is_match(&self, state: &Option<usize>) -> bool {
        state.is_some_and(|n| n >= self.prefix.len())
    }

    fn can_match(&self, state: &Option<usize>) -> bool {
        state.is_some()
    }

    fn accept(&self, state: &Option<usize>, byte: u8) -> Option<usize> {
        let n = (*state)?;
        let fits = match self.prefix.get(n) {
            Some(&b) => b == byte,
            None => n < self.max_len,
        };
        fits.then_some(n + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_edit_apart_is_a_levenshtein_distance_of_one() {
        for (a, b) in [("helper", "helpr"), ("helpr", "helper"), ("helpx", "helpa"), ("ab", "b")] {
            assert!(one_edit_apart(a, b), "{a} {b}");
        }
        for (a, b) in [("same", "same"), ("helper", "hlpr"), ("abcd", "abdc"), ("a", "abc")] {
            assert!(!one_edit_apart(a, b), "{a} {b}");
        }
        assert!(one_edit_apart("naïve", "naive"), "characters, not bytes");
        assert!(
            one_edit_apart("aé", "aè") && one_edit_apart("é", "") && one_edit_apart("x", "x🦀")
        );
        assert!(!one_edit_apart("ab", "ba") && !one_edit_apart("éé", ""));
    }

    #[test]
    fn prefix_up_to_a_length_matches_only_those_keys() {
        let keys = ["delet", "delete", "deleted", "deletes_all_rows", "deletion", "delta", "del"];
        let mut sorted = keys.to_vec();
        sorted.sort_unstable();
        let set = fst::Set::from_iter(sorted).unwrap();
        let found = |prefix: &str, max_len: usize| -> Vec<String> {
            let aut = PrefixUpTo { prefix: prefix.as_bytes(), max_len };
            let mut s = fst::IntoStreamer::into_stream(set.search(aut));
            let mut out = Vec::new();
            while let Some(k) = fst::Streamer::next(&mut s) {
                out.push(String::from_utf8(k.to_vec()).unwrap());
            }
            out
        };
        assert_eq!(found("delet", 8), ["delet", "delete", "deleted", "deletion"]);
        assert_eq!(found("delet", 5), ["delet"]);
        assert_eq!(found("dele", 4), Vec::<String>::new());
        assert_eq!(found("del", 3), ["del"]);
        assert_eq!(found("x", 9), Vec::<String>::new());
    }
    use crate::index::format::MAGIC_CONTENT;
    use crate::index::write::StreamedFile;
    use std::io::Write;

    /// A new directory of this test process's own under the system's temporary directory.
    fn scratch_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn released_pages_read_back_the_same_bytes() {
        let dir = scratch_dir("cds-release");
        let path = dir.join("content.bin");
        // Five pages and a bit, every byte telling its position.
        let bytes: Vec<u8> = (0..5 * 4096 + 123).map(|i: u32| (i % 251) as u8).collect();
        let mut f = StreamedFile::create(&path).unwrap();
        f.write_all(&bytes).unwrap();
        f.finish(MAGIC_CONTENT).unwrap();
        let m = Mapped::open(&path, MAGIC_CONTENT, &dir).unwrap();
        assert_eq!(m.payload(), &bytes[..]);
        let p = m.payload();
        // Front to back in uneven pieces, as a rebuild copies files; then all of it, an empty
        // slice, and bytes that are not the mapping's (ignored).
        let mut at = 0;
        for len in [10, 5000, 4096, 1, 7000, 3000] {
            m.release_through(&p[at..at + len]);
            assert_eq!(&p[at..at + len], &bytes[at..at + len]);
            at += len;
        }
        m.release_through(p);
        m.release_through(&p[..0]);
        m.release_through(&bytes);
        assert_eq!(m.payload(), &bytes[..]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file written in pieces of every size (so the blocks straddle them), its last block
    /// short: the block sums check what a reader reads, block by block, and find a damaged
    /// byte in the block it lies in and in no other.
    #[test]
    fn block_sums_find_the_damaged_block_and_only_it() {
        let dir = scratch_dir("cds-sums");
        let path = dir.join("graph.rkyv");
        let block = 1usize << BLOCK_SHIFT;
        let bytes: Vec<u8> = (0..3 * block + 100).map(|i| (i * 7 % 251) as u8).collect();
        let mut f = StreamedFile::create(&path).unwrap();
        for piece in bytes.chunks(1000).flat_map(|c| c.chunks(333)) {
            f.write_all(piece).unwrap();
        }
        let size = f.finish(MAGIC_GRAPH).unwrap();
        assert_eq!(size, (HEADER_LEN + bytes.len() + 4 * 4) as u64, "four sums after the payload");
        let m = Mapped::open(&path, MAGIC_GRAPH, &dir).unwrap();
        assert_eq!(m.payload(), &bytes[..]);
        assert!(m.check_crc());
        assert_eq!(m.header_crc(), crc32fast::hash(&bytes), "the payload's CRC, as before");
        // One byte of the third block damaged (the file is written anew: maps are immutable).
        let mut raw = std::fs::read(&path).unwrap();
        raw[HEADER_LEN + 2 * block + 17] ^= 0x40;
        std::fs::write(&path, &raw).unwrap();
        let m = Mapped::open(&path, MAGIC_GRAPH, &dir).unwrap();
        assert!(!m.check_crc());
        let p = m.payload();
        let read = |r: std::ops::Range<usize>| catch_damage(|| Ok(m.sound(&p[r]).len()));
        assert_eq!(read(0..2 * block).unwrap(), 2 * block, "the first two blocks are sound");
        assert_eq!(read(3 * block..3 * block + 100).unwrap(), 100, "so is the short last one");
        for r in [2 * block + 17..2 * block + 18, block + 5..2 * block + 1, 0..p.len()] {
            let e = read(r.clone()).unwrap_err().to_string();
            assert!(e.contains("graph.rkyv: block 2 fails its checksum"), "{r:?}: {e}");
            assert!(e.ends_with("run cds-build --force"), "{e}");
        }
        // A slice that is not the file's goes unchecked; an empty one too.
        assert!(read(2 * block..2 * block).is_ok());
        assert_eq!(catch_damage(|| Ok(m.sound(&bytes[..]).len())).unwrap(), bytes.len());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file of format 7 (no block sums) reads as it did; one whose header names a block size
    /// out of range is refused.
    #[test]
    fn files_without_block_sums_read_as_before() {
        let dir = scratch_dir("cds-nosums");
        let path = dir.join("graph.rkyv");
        let payload: Vec<u8> = (0..10_000u32).map(|i| (i % 13) as u8).collect();
        let mut header = Header::for_payload(MAGIC_GRAPH, &payload);
        header.version = 7;
        std::fs::write(&path, [&header.to_bytes()[..], &payload].concat()).unwrap();
        let m = Mapped::open(&path, MAGIC_GRAPH, &dir).unwrap();
        assert_eq!(m.payload(), &payload[..]);
        assert!(m.check_crc());
        assert_eq!(catch_damage(|| Ok(m.sound(m.payload()).len())).unwrap(), payload.len());
        header.version = FORMAT_VERSION;
        header.block_shift = 40;
        std::fs::write(&path, [&header.to_bytes()[..], &payload].concat()).unwrap();
        let e = Mapped::open(&path, MAGIC_GRAPH, &dir).err().unwrap().to_string();
        assert!(e.contains("graph.rkyv has a damaged header"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn pages_read_in_order_are_released_a_batch_at_a_time() {
        let dir = scratch_dir("cds-release-order");
        let path = dir.join("content.bin");
        let bytes: Vec<u8> = (0..RELEASE_BATCH as u32 * 5 / 2).map(|i| (i % 251) as u8).collect();
        let mut f = StreamedFile::create(&path).unwrap();
        f.write_all(&bytes).unwrap();
        f.finish(MAGIC_CONTENT).unwrap();
        let m = Mapped::open(&path, MAGIC_CONTENT, &dir).unwrap();
        let p = m.payload();
        let released = || m.released.load(std::sync::atomic::Ordering::Relaxed);
        let mut marks = Vec::new();
        for chunk in p.chunks(1 << 20) {
            m.release_in_order(chunk);
            assert_eq!(
                chunk,
                &bytes[chunk.as_ptr() as usize - p.as_ptr() as usize..][..chunk.len()]
            );
            if marks.last() != Some(&released()) {
                marks.push(released());
            }
        }
        // Two batches let go of, the rest kept; everything reads back the same.
        assert_eq!(marks.len(), 3, "{marks:?}");
        assert!(marks[1] >= RELEASE_BATCH && marks[2] >= 2 * RELEASE_BATCH, "{marks:?}");
        assert_eq!(m.payload(), &bytes[..]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
