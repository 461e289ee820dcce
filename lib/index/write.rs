//! Writes a new index generation from a linked graph and the files' contents.
//!
//! Everything is written into `tmp-<pid>-<n>/`, fsynced, renamed to `gen-<n>/`, and only then
//! made live by swapping `CURRENT` (see the module docs of [`crate::index`]). Callers hold the
//! [`crate::index::BuildLock`].

use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};
use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use fst::MapBuilder;

use crate::error::{Error, Result};
use crate::extract::FileFacts;
use crate::graph::{Graph, NONE, NodeKind, id_name};
use crate::index::format::*;
use crate::index::read::ArchivedGraph;
use crate::index::{self, current_generation, generation_number, is_generation_name};
use crate::search::bm25::{FileDocs, FileTerms, Finished, PostingsBuilder, tf_u16};

/// One indexed file, as the writer needs it.
pub struct FileRecord<'a> {
    /// Relative path.
    pub rel: &'a [u8],
    /// Size when read.
    pub size: u64,
    /// Modification time (ns) when read.
    pub mtime_ns: i64,
    /// CRC-32 of the content.
    pub hash: u32,
    /// Language code.
    pub lang: u8,
    /// Where its content lies in `content.bin`'s payload (written during extraction, see
    /// [`AppendedFile`]), and its length.
    pub content_off: u64,
    /// See `content_off`.
    pub content_len: u64,
    /// Extracted facts; None for a file not read again, whose nodes, spans and file-table
    /// entry a build that carries the previous generation's nodes copies from its graph (see
    /// [`graph_nodes`]).
    pub facts: Option<&'a FileFacts>,
    /// Term counts, unless they were already added to the postings as the file was extracted.
    pub terms: Option<&'a FileTerms>,
}

/// What the writer needs.
pub struct WriteInput<'a> {
    /// The linked graph (node `file` fields index `files`).
    pub graph: &'a Graph,
    /// The files.
    pub files: &'a [FileRecord<'a>],
    /// Build facts.
    pub meta: Meta,
}

/// What was written.
#[derive(Debug, Clone)]
pub struct Written {
    /// The new generation's directory name.
    pub generation: String,
    /// Total bytes on disk.
    pub bytes: u64,
}

/// A generation being written: a `tmp-<pid>-<n>` directory that [`Generation::commit`] makes
/// live, or that is removed if the build fails or is dropped.
pub struct Generation {
    index_dir: PathBuf,
    tmp: PathBuf,
    name: String,
    previous: Option<String>,
    committed: bool,
    /// Removes the generations older than the live one while this one is built.
    cleaner: Option<std::thread::JoinHandle<()>>,
}

impl Generation {
    /// Starts a new generation next to the live one.
    pub fn create(index_dir: &Path) -> Result<Generation> {
        fs::create_dir_all(index_dir).map_err(|e| Error::io("cannot create", index_dir, e))?;
        let previous = current_generation(index_dir).ok();
        let mut next = previous.as_deref().and_then(generation_number).unwrap_or(0);
        if let Ok(rd) = fs::read_dir(index_dir) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if is_generation_name(&name) {
                    next = next.max(generation_number(&name).unwrap_or(0));
                }
            }
        }
        next += 1;
        let tmp_name = format!("tmp-{}-{next}", std::process::id());
        let tmp = index_dir.join(&tmp_name);
        let _ = fs::remove_dir_all(&tmp);
        fs::create_dir(&tmp).map_err(|e| Error::io("cannot create", &tmp, e))?;
        // What commit would remove anyway (all but the live generation and this one), removed
        // now, beside the build: unlinking a big generation's files takes tens of milliseconds.
        let cleaner = {
            let (dir, live) = (index_dir.to_path_buf(), previous.clone());
            std::thread::Builder::new()
                .spawn(move || {
                    let mut keep = vec![tmp_name.as_str()];
                    keep.extend(live.as_deref());
                    index::remove_stale_generations(&dir, &keep);
                })
                .ok()
        };
        Ok(Generation {
            index_dir: index_dir.to_path_buf(),
            tmp,
            name: format!("gen-{next:06}"),
            previous,
            committed: false,
            cleaner,
        })
    }

    /// The directory to write the generation's files into.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Makes the generation live: sync, rename into place, swap `CURRENT`, remove stale ones.
    pub fn commit(mut self, bytes: u64) -> Result<Written> {
        if let Some(c) = self.cleaner.take() {
            let _ = c.join();
        }
        wait_for_syncs(&self.tmp)?;
        index::sync_dir(&self.tmp);
        let dest = self.index_dir.join(&self.name);
        fs::rename(&self.tmp, &dest).map_err(|e| Error::io("cannot rename", &self.tmp, e))?;
        self.committed = true;
        appends_under(&self.tmp);
        index::sync_dir(&self.index_dir);
        index::swap_current(&self.index_dir, &self.name)?;
        let mut keep = vec![self.name.as_str()];
        if let Some(p) = self.previous.as_deref() {
            keep.push(p);
        }
        index::remove_stale_generations(&self.index_dir, &keep);
        Ok(Written { generation: self.name.clone(), bytes })
    }
}

impl Drop for Generation {
    fn drop(&mut self) {
        if !self.committed {
            let _ = wait_for_syncs(&self.tmp);
            // What the failed build appended to the files it shares with the live generation
            // would stay there (they outlive this directory through their other links): with a
            // full disk, it would fill the disk for good, and every later build would fail.
            for (path, len) in appends_under(&self.tmp) {
                let _ = fs::OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(len));
            }
            let _ = fs::remove_dir_all(&self.tmp);
        }
    }
}

/// The shared files ([`AppendedFile`]) builds in this process are appending to, each with its
/// length before: a build that fails cuts them back to it ([`Generation`]'s drop). Only what
/// the build appended goes: readers of the live generation never read past its pieces, and
/// their maps end before it.
static APPENDS: std::sync::Mutex<Vec<(PathBuf, u64)>> = std::sync::Mutex::new(Vec::new());

/// Takes the entries of [`APPENDS`] for files under `dir`.
fn appends_under(dir: &Path) -> Vec<(PathBuf, u64)> {
    let Ok(mut all) = APPENDS.lock() else { return Vec::new() };
    let (mine, rest) = std::mem::take(&mut *all).into_iter().partition(|(p, _)| p.starts_with(dir));
    *all = rest;
    mine
}

/// The multi-postings table `names.fst` values point into (stored in `graph.rkyv`).
#[derive(Debug, Default)]
pub struct NameTable {
    /// Offsets into `multi_ids`.
    pub multi_off: Vec<u32>,
    /// Nodes of names shared by several nodes.
    pub multi_ids: Vec<u32>,
}

/// `names.fst`: every node under its lower-cased name (and path, stem for files). It needs the
/// nodes only, so it is built while the graph is being linked.
pub fn write_names(dir: &Path, nodes: &[crate::graph::Node]) -> Result<(u64, NameTable)> {
    let keys = NameKeys::of(nodes.iter().enumerate().map(|(n, node)| (n as u32, node)));
    let bytes = write_fst(&dir.join(NAMES_FILE), MAGIC_NAMES, keys.entries())?;
    Ok((bytes, keys.multi()))
}

/// The edges a graph file holds (one per source, target and kind), by kind and confidence
/// code: what the build's summary counts.
#[derive(Debug, Default)]
pub struct WrittenEdges {
    /// `EdgeKind` codes.
    pub kind: Vec<u8>,
    /// Confidence bytes.
    pub meta: Vec<u8>,
}

/// `graph.rkyv`: the nodes, edges and file table, with the names' multi-postings. `nodes`:
/// [`graph_nodes`] of the same input, when made already. Returns the bytes written and its
/// edges' kinds and confidences.
pub fn write_graph(
    dir: &Path,
    input: &WriteInput,
    nodes: Option<GraphNodes>,
    kept_edges: Option<&ArchivedGraph>,
    names: NameTable,
) -> Result<(u64, WrittenEdges)> {
    let nodes = nodes.unwrap_or_else(|| graph_nodes(input, kept_edges));
    let mut graph = match kept_edges {
        Some(previous) => with_kept_edges(nodes, previous),
        None => graph_file(input, nodes),
    };
    graph.multi_off = names.multi_off;
    graph.multi_ids = names.multi_ids;
    let edges = WrittenEdges { kind: graph.out_kind.clone(), meta: graph.out_meta.clone() };
    Ok((write_rkyv(&dir.join(GRAPH_FILE), MAGIC_GRAPH, &graph)?, edges))
}

/// `history.rkyv`: each file's age and churn under `history`, in the order of `files`.
pub fn write_history(
    dir: &Path,
    history: &crate::history::History,
    files: &[FileRecord],
) -> Result<u64> {
    let file = HistoryFile {
        head: history.head.clone(),
        age: files.iter().map(|f| history.age(f.rel)).collect(),
        churn: files.iter().map(|f| history.churn(f.rel)).collect(),
    };
    write_rkyv(&dir.join(HISTORY_FILE), MAGIC_HISTORY, &file)
}

/// `messages.rkyv`: the commit messages' terms of each of `files`, in their order (only the
/// terms they use, renumbered in sorted order).
pub fn write_messages(
    dir: &Path,
    history: &crate::history::History,
    files: &[FileRecord],
) -> Result<u64> {
    let rels: Vec<&[u8]> = files.iter().map(|f| f.rel).collect();
    write_rkyv(&dir.join(MESSAGES_FILE), MAGIC_MESSAGES, &messages_of(history, &rels))
}

/// `history-others.rkyv`: the history of the source paths outside `files` (what the previous
/// generation's `history.rkyv` and `messages.rkyv` do not hold), when the history is
/// [complete](crate::history::History::complete); nothing otherwise.
pub fn write_history_others(
    dir: &Path,
    history: &crate::history::History,
    files: &[FileRecord],
) -> Result<u64> {
    if !history.complete {
        return Ok(0);
    }
    let indexed: HashSet<&[u8]> = files.iter().map(|f| f.rel).collect();
    let mut rels: Vec<&[u8]> = history
        .paths()
        .filter(|rel| !indexed.contains(rel))
        .filter(|rel| crate::lang::Lang::of_path(Path::new(OsStr::from_bytes(rel))).is_some())
        .collect();
    rels.sort_unstable();
    let mut file = HistoryOthersFile {
        rel_off: vec![0],
        messages: messages_of(history, &rels),
        ..HistoryOthersFile::default()
    };
    for rel in &rels {
        file.rel.extend_from_slice(rel);
        file.rel_off.push(file.rel.len() as u32);
        file.age.push(history.age(rel));
        file.churn.push(history.churn(rel));
    }
    write_rkyv(&dir.join(HISTORY_OTHERS_FILE), MAGIC_HISTORY_OTHERS, &file)
}

/// The commit messages' terms of each of `rels`, in their order (only the terms they use,
/// renumbered in sorted order).
fn messages_of(history: &crate::history::History, rels: &[&[u8]]) -> MessagesFile {
    let m = &history.messages;
    let mut used: Vec<u32> = rels.iter().flat_map(|rel| m.of(rel).iter().map(|p| p.0)).collect();
    used.sort_unstable_by(|a, b| m.vocab[*a as usize].cmp(&m.vocab[*b as usize]));
    used.dedup();
    let mut file = MessagesFile { vocab_off: vec![0], ..MessagesFile::default() };
    let mut new_no: HashMap<u32, u32> = HashMap::default();
    for (i, &t) in used.iter().enumerate() {
        new_no.insert(t, i as u32);
        file.vocab.extend_from_slice(&m.vocab[t as usize]);
        file.vocab_off.push(file.vocab.len() as u32);
    }
    file.file_off.push(0);
    for rel in rels {
        let mut terms: Vec<(u32, u32)> = m.of(rel).iter().map(|&(t, n)| (new_no[&t], n)).collect();
        terms.sort_unstable();
        file.term.extend(terms.iter().map(|p| p.0));
        file.count.extend(terms.iter().map(|p| p.1));
        file.file_off.push(file.term.len() as u32);
    }
    file
}

/// `postings.rkyv` and `terms.fst`: the BM25 index of `files`' term counts, for a graph whose
/// nodes were numbered before the postings were built (LocAgent's; cds's own builds add each
/// file as it is extracted and call [`write_built_postings`]).
pub fn write_postings(
    dir: &Path,
    nodes: &[crate::graph::Node],
    files: &[FileRecord],
) -> Result<u64> {
    let mut pb = PostingsBuilder::new(nodes.len());
    let facts: Vec<&FileFacts> = files
        .iter()
        .map(|f| f.facts.ok_or_else(|| Error::msg("internal error: a file's facts were not read")))
        .collect::<Result<_>>()?;
    let mut def_nodes: Vec<Vec<u32>> = facts.iter().map(|f| vec![NONE; f.defs.len()]).collect();
    let mut file_nodes = vec![NONE; files.len()];
    for (n, node) in nodes.iter().enumerate() {
        if node.file == NONE {
            continue;
        }
        match node.kind {
            NodeKind::File => file_nodes[node.file as usize] = n as u32,
            _ if node.def != NONE => {
                if let Some(slot) = def_nodes[node.file as usize].get_mut(node.def as usize) {
                    *slot = n as u32;
                }
            }
            _ => {}
        }
    }
    // Definitions merged into one node (same qualified name) share that node.
    for (fi, f) in facts.iter().enumerate() {
        let nodes = &mut def_nodes[fi];
        // (Rare: most files have no repeated qualified name, and building the map allocates a
        // string per definition.)
        if !nodes.contains(&NONE) {
            continue;
        }
        let mut by_qual: HashMap<String, u32> = HashMap::default();
        for (d, &n) in nodes.iter().enumerate() {
            if n != NONE {
                by_qual.insert(f.qual_name(d as u32), n);
            }
        }
        for (d, slot) in nodes.iter_mut().enumerate() {
            if *slot == NONE
                && let Some(&n) = by_qual.get(&f.qual_name(d as u32))
            {
                *slot = n;
            }
        }
    }
    let id_of = |n: u32| -> &[u8] { &nodes[n as usize].id };
    // In node order, so every postings list comes out sorted by document.
    let mut order: Vec<usize> = (0..files.len()).filter(|&fi| file_nodes[fi] != NONE).collect();
    order.sort_unstable_by_key(|&fi| file_nodes[fi]);
    for fi in order {
        let f = &files[fi];
        let Some(terms) = f.terms else { continue };
        pb.add_file(FileDocs {
            terms,
            facts: facts[fi],
            file_node: file_nodes[fi],
            def_node: &def_nodes[fi],
            id_of: &id_of,
        });
    }
    write_built_postings(dir, pb, None, nodes, None, None)
}

/// `postings.rkyv` and `terms.fst` from documents already added, renumbered here by
/// `renumber` (document -> node, [`PostingsBuilder::renumber`]) when they are not numbered by
/// `nodes` yet. It needs the nodes, not the edges, so it runs while the graph is being linked.
/// It copies the previous generation's `terms.fst` payload (`previous`, its checksum already
/// verified) instead of compiling a new automaton when the term set is the same, as it is after
/// most small edits: term numbers depend on nothing else.
pub fn write_built_postings(
    dir: &Path,
    mut pb: PostingsBuilder,
    renumber: Option<&[u32]>,
    nodes: &[crate::graph::Node],
    previous: Option<(&Path, &[u8])>,
    carried: Option<crate::search::bm25::Carried>,
) -> Result<u64> {
    let kinds: Vec<u8> = nodes.iter().map(|n| n.kind as u8).collect();
    let path = dir.join(TERMS_FILE);
    let Some(carried) = carried else {
        // Nothing carried over (a cold build): the dictionary is every term in sorted order,
        // known before the postings are renumbered and finished, so it is compiled on a thread
        // of its own beside them. At the end of a build the other threads are done: this was
        // the last 0.1-0.2 s of a cold build on one core (Django 4.2, perf).
        let order = pb.term_order();
        let sorted = pb.terms_in(&order);
        return std::thread::scope(|s| {
            let dictionary = s.spawn(|| match previous {
                Some((_, payload)) if same_keys(payload, sorted.iter()) => {
                    write_payload(&path, MAGIC_TERMS, payload)
                }
                _ => write_fst(
                    &path,
                    MAGIC_TERMS,
                    sorted.iter().enumerate().map(|(i, t)| (t, i as u64)),
                ),
            });
            if let Some(map) = renumber {
                pb.renumber(map, nodes.len());
            }
            let finished = pb.finish_in(&kinds, order);
            let postings = write_postings_file(dir, &finished);
            let dictionary = dictionary
                .join()
                .unwrap_or_else(|_| Err(Error::msg("the terms dictionary's writer panicked")));
            Ok(dictionary? + postings?)
        });
    };
    if let Some(map) = renumber {
        pb.renumber(map, nodes.len());
    }
    let finished = pb.finish(&kinds);
    // A delta over the previous postings when it is small (and their base and dictionary
    // linked, not written again).
    if let (Some(layer), Some((prev_dir, terms))) = (carried.layer.as_ref(), previous)
        && let Some(delta) = finished.delta(layer, &carried.doc_len, &kinds)
    {
        let mut total = link_or_write(&prev_dir.join(TERMS_FILE), &dir.join(TERMS_FILE), || {
            write_payload(&dir.join(TERMS_FILE), MAGIC_TERMS, terms)
        })?;
        let (from, to) = (prev_dir.join(POSTINGS_FILE), dir.join(POSTINGS_FILE));
        total += link_or_write(&from, &to, || {
            // The same payload, so the same CRC in its header: the delta's base.
            let bytes = fs::read(&from).map_err(|e| Error::io("cannot read", &from, e))?;
            let len = Header::parse(&bytes).map_or(0, |h| h.len);
            let payload = usize::try_from(len).ok().and_then(|l| bytes.get(HEADER_LEN..)?.get(..l));
            write_payload(&to, MAGIC_POSTINGS, payload.unwrap_or_default())
        })?;
        total += write_rkyv(&dir.join(POSTINGS_DELTA_FILE), MAGIC_POSTINGS_DELTA, &delta)?;
        return Ok(total);
    }
    let previous = previous.map(|(_, terms)| terms);
    let finished = finished.carrying(carried, &kinds);
    let mut total = match (finished.kept_base, previous) {
        // Carried postings keep the previous dictionary, their new terms added after it.
        (Some(_), Some(payload)) => write_payload(&path, MAGIC_TERMS, payload)?,
        (Some(_), None) => {
            return Err(Error::msg("internal error: postings keep a terms.fst that is not there"));
        }
        (None, Some(payload)) if same_keys(payload, finished.terms()) => {
            write_payload(&path, MAGIC_TERMS, payload)?
        }
        (None, _) => {
            write_fst(&path, MAGIC_TERMS, finished.terms().enumerate().map(|(i, t)| (t, i as u64)))?
        }
    };
    total += write_postings_file(dir, &finished)?;
    Ok(total)
}

/// `postings.rkyv` from finished postings (with the terms they add to a kept dictionary).
fn write_postings_file(dir: &Path, finished: &Finished) -> Result<u64> {
    let (added_text, added_ends) = finished.added_terms();
    let streamed = StreamedPostings { finished, added_text, added_ends };
    write_rkyv(&dir.join(POSTINGS_FILE), MAGIC_POSTINGS, &streamed)
}

/// Links `from` (a file of the previous generation) to `to`, or where the file system has no
/// hard links, writes it with `write`; the bytes it takes.
pub fn link_or_write(from: &Path, to: &Path, write: impl FnOnce() -> Result<u64>) -> Result<u64> {
    match fs::hard_link(from, to) {
        Ok(()) => fs::metadata(to).map(|m| m.len()).map_err(|e| Error::io("cannot read", to, e)),
        Err(_) => write(),
    }
}

/// `postings.rkyv` archived from packed postings: the same bytes as a [`PostingsFile`], but
/// its two big arrays (6 bytes a posting: 380 MB for the Linux kernel) are made as they are
/// written, a chunk at a time, never held whole.
struct StreamedPostings<'a> {
    finished: &'a Finished<'a>,
    added_text: Vec<u8>,
    added_ends: Vec<u32>,
}

impl StreamedPostings<'_> {
    /// The two big columns: every posting's document, and its term frequency.
    fn columns(&self) -> (Column<'_, u32>, Column<'_, u16>) {
        (
            Column { finished: self.finished, pick: |(doc, _)| doc },
            Column { finished: self.finished, pick: |(_, tf)| tf_u16(tf) },
        )
    }
}

type VecResolver = rkyv::vec::VecResolver;

impl rkyv::Archive for StreamedPostings<'_> {
    type Archived = ArchivedPostingsFile;
    type Resolver = [VecResolver; 7];

    fn resolve(
        &self,
        [doc_len, avgdl, post_off, post_doc, post_tf, added_text, added_ends]: Self::Resolver,
        out: rkyv::Place<Self::Archived>,
    ) {
        rkyv::munge::munge!(let ArchivedPostingsFile {
            doc_len: out_doc_len,
            avgdl: out_avgdl,
            n_docs: out_n_docs,
            post_off: out_post_off,
            post_doc: out_post_doc,
            post_tf: out_post_tf,
            added_text: out_added_text,
            added_ends: out_added_ends,
        } = out);
        let f = self.finished;
        let (docs, tfs) = self.columns();
        f.doc_len.resolve(doc_len, out_doc_len);
        f.avgdl.resolve(avgdl, out_avgdl);
        f.n_docs.resolve((), out_n_docs);
        f.post_off.resolve(post_off, out_post_off);
        docs.resolve(post_doc, out_post_doc);
        tfs.resolve(post_tf, out_post_tf);
        self.added_text.resolve(added_text, out_added_text);
        self.added_ends.resolve(added_ends, out_added_ends);
    }
}

impl<S> rkyv::Serialize<S> for StreamedPostings<'_>
where
    S: rkyv::rancor::Fallible + rkyv::ser::Allocator + rkyv::ser::Writer + ?Sized,
    S::Error: rkyv::rancor::Source,
{
    fn serialize(&self, s: &mut S) -> std::result::Result<Self::Resolver, S::Error> {
        let f = self.finished;
        let (docs, tfs) = self.columns();
        // In the order a derived `PostingsFile` writes its fields, for the same bytes.
        Ok([
            f.doc_len.serialize(s)?,
            f.avgdl.serialize(s)?,
            f.post_off.serialize(s)?,
            docs.serialize(s)?,
            tfs.serialize(s)?,
            self.added_text.serialize(s)?,
            self.added_ends.serialize(s)?,
        ])
    }
}

/// One array of the postings file: `pick` of every posting, in order.
struct Column<'a, T> {
    finished: &'a Finished<'a>,
    pick: fn((u32, u32)) -> T,
}

impl<T: rkyv::Archive> Column<'_, T> {
    fn resolve(
        &self,
        resolver: VecResolver,
        out: rkyv::Place<rkyv::vec::ArchivedVec<T::Archived>>,
    ) {
        rkyv::vec::ArchivedVec::resolve_from_len(self.finished.len(), resolver, out);
    }

    /// Writes the elements chunk by chunk and returns where they start.
    fn serialize<S>(&self, serializer: &mut S) -> std::result::Result<VecResolver, S::Error>
    where
        T: rkyv::Serialize<S>,
        S: rkyv::rancor::Fallible + rkyv::ser::Allocator + rkyv::ser::Writer + ?Sized,
        S::Error: rkyv::rancor::Source,
    {
        use rkyv::SerializeUnsized;
        use rkyv::ser::WriterExt;
        const CHUNK: usize = 1 << 16;
        let start = serializer.align_for::<T::Archived>()?;
        let mut chunk: Vec<T> = Vec::with_capacity(CHUNK);
        let mut written = 0usize;
        let n = self.finished.n_terms();
        for i in 0..n {
            self.finished.extend_term(i, self.pick, &mut chunk);
            if (chunk.len() < CHUNK && i + 1 < n) || chunk.is_empty() {
                continue;
            }
            // Each chunk follows the one before: the elements' size is a multiple of their
            // alignment, so no padding comes between them.
            let at = chunk.as_slice().serialize_unsized(serializer)?;
            if at != start + written * std::mem::size_of::<T::Archived>() {
                rkyv::rancor::fail!(GapInColumn);
            }
            written += chunk.len();
            chunk.clear();
        }
        Ok(rkyv::vec::VecResolver::from_pos(start))
    }
}

/// A chunk of a streamed column did not land right after the one before.
#[derive(Debug)]
struct GapInColumn;

impl std::fmt::Display for GapInColumn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a postings column was written with a gap")
    }
}

impl std::error::Error for GapInColumn {}

/// True when the fst `payload` maps exactly `keys` (sorted) to their positions.
fn same_keys<'k>(payload: &[u8], mut keys: impl ExactSizeIterator<Item = &'k [u8]>) -> bool {
    use fst::Streamer;
    let Ok(map) = fst::Map::new(payload) else { return false };
    if map.len() != keys.len() {
        return false;
    }
    let mut stream = map.stream();
    let mut i = 0u64;
    while let Some((k, v)) = stream.next() {
        if keys.next().is_none_or(|want| want != k) || v != i {
            return false;
        }
        i += 1;
    }
    keys.next().is_none()
}

/// A file whose payload is written piece by piece (checksummed on the way) and never held
/// whole: a placeholder header, the payload, then [`StreamedFile::finish`] writes the block
/// sums and the real header, and fsyncs. `facts.rkyv` is written so while files are extracted.
pub struct StreamedFile {
    path: PathBuf,
    file: std::io::BufWriter<fs::File>,
    /// The payload's CRC, up to the block being written.
    crc: crc32fast::Hasher,
    /// The CRC of the block being written (see [`BLOCK_SHIFT`]).
    block: crc32fast::Hasher,
    /// The finished blocks' CRCs, as they follow the payload (u32 LE each).
    sums: Vec<u8>,
    len: u64,
}

impl StreamedFile {
    /// Creates `path` with room for the header.
    pub fn create(path: &Path) -> Result<StreamedFile> {
        let f = fs::File::create(path).map_err(|e| Error::io("cannot create", path, e))?;
        let mut file = std::io::BufWriter::with_capacity(1 << 20, f);
        file.write_all(&[0u8; HEADER_LEN]).map_err(|e| Error::io("cannot write", path, e))?;
        Ok(StreamedFile {
            path: path.to_path_buf(),
            file,
            crc: crc32fast::Hasher::new(),
            block: crc32fast::Hasher::new(),
            sums: Vec::new(),
            len: 0,
        })
    }

    /// Ends the block being written: its CRC joins the sums and the payload's CRC.
    fn end_block(&mut self) {
        let block = std::mem::take(&mut self.block);
        self.sums.extend_from_slice(&block.clone().finalize().to_le_bytes());
        self.crc.combine(&block);
    }

    /// Payload bytes written so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// True when no payload byte was written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The error of a failed write, naming the file.
    pub fn error(&self, e: std::io::Error) -> Error {
        Error::io("cannot write", &self.path, e)
    }

    /// Writes the block sums after the payload, then the header, and starts syncing
    /// ([`sync_later`]). Returns the file's size.
    pub fn finish(mut self, magic: &[u8; 8]) -> Result<u64> {
        use std::io::{Seek, SeekFrom};
        if !self.len.is_multiple_of(1 << BLOCK_SHIFT) {
            self.end_block();
        }
        let sums = std::mem::take(&mut self.sums);
        self.file.write_all(&sums).map_err(|e| self.error(e))?;
        let path = self.path;
        let io = |e| Error::io("cannot write", &path, e);
        let header = Header {
            magic: *magic,
            version: FORMAT_VERSION,
            layout: LAYOUT,
            len: self.len,
            crc: self.crc.finalize(),
            block_shift: BLOCK_SHIFT,
        };
        let mut f = self.file.into_inner().map_err(|e| io(e.into_error()))?;
        f.seek(SeekFrom::Start(0)).map_err(io)?;
        f.write_all(&header.to_bytes()).map_err(io)?;
        sync_later(path, f);
        Ok(HEADER_LEN as u64 + header.len + sums.len() as u64)
    }
}

/// A file that generations share through hard links, each appending what it adds (`facts.bin`,
/// `content.bin`): a piece that lies in the previous generation's file is kept where it is, a
/// new one is appended, and each generation's table names the pieces it uses. Readers map the
/// file as it is when they open it, and appends past its end change none of those bytes. What
/// no table uses any more is dropped when a build writes the file anew instead (see
/// [`worth_sharing`], or when hard links are not available). The header records no length or
/// checksum: the tables hold each piece's, and [`crate::index::read::Mapped::open_growing`]
/// reads the file.
pub struct AppendedFile {
    path: PathBuf,
    /// `None` once finished.
    file: Option<std::io::BufWriter<fs::File>>,
    /// The payload offset of the next piece.
    pos: u64,
    /// Bytes this build added.
    appended: u64,
    /// The previous generation's payload, mapped, when the file is shared with it.
    shared: Option<(usize, usize)>,
    /// Each piece starts at a multiple of this (rkyv archives need 16; at most 16).
    align: u64,
}

impl AppendedFile {
    /// Starts `path` (with magic `magic`): linked to `share`, the previous generation's file
    /// (its path and its payload as mapped), when it can be, else new.
    pub fn create(
        path: &Path,
        magic: &[u8; 8],
        share: Option<(&Path, &[u8])>,
        align: u64,
    ) -> Result<AppendedFile> {
        let io = |e| Error::io("cannot write", path, e);
        let linked = share.filter(|(from, _)| fs::hard_link(from, path).is_ok());
        let (file, pos, shared) = match linked {
            Some((_, mapped)) => {
                let file = fs::OpenOptions::new().append(true).open(path).map_err(io)?;
                // Past the end, bytes a killed build appended count as unused.
                let len = file.metadata().map_err(io)?.len();
                let pos = len.saturating_sub(HEADER_LEN as u64);
                if let Ok(mut a) = APPENDS.lock() {
                    a.push((path.to_path_buf(), len));
                }
                (file, pos, Some((mapped.as_ptr() as usize, mapped.len())))
            }
            None => {
                let mut file = fs::File::create(path).map_err(io)?;
                let header = Header {
                    magic: *magic,
                    version: FORMAT_VERSION,
                    layout: LAYOUT,
                    len: 0,
                    crc: 0,
                    block_shift: 0,
                };
                file.write_all(&header.to_bytes()).map_err(io)?;
                (file, 0, None)
            }
        };
        let mut f = AppendedFile {
            path: path.to_path_buf(),
            file: Some(std::io::BufWriter::with_capacity(1 << 20, file)),
            pos,
            appended: 0,
            shared,
            align: align.clamp(1, 16),
        };
        f.pad().map_err(io)?;
        Ok(f)
    }

    /// Adds a piece: kept where it lies when it is a slice of the shared previous file, else
    /// appended. Returns its payload offset, and true when it was copied (appended).
    pub fn push(&mut self, piece: &[u8]) -> Result<(u64, bool)> {
        let at = piece.as_ptr() as usize;
        if let Some((base, len)) = self.shared
            && at >= base
            && at + piece.len() <= base + len
        {
            return Ok(((at - base) as u64, false));
        }
        let off = self.pos;
        self.writer().write_all(piece).map_err(|e| self.error(e))?;
        self.pos += piece.len() as u64;
        self.appended += piece.len() as u64;
        self.pad().map_err(|e| self.error(e))?;
        Ok((off, true))
    }

    fn pad(&mut self) -> std::io::Result<()> {
        let pad = ((self.align - self.pos % self.align) % self.align) as usize;
        self.writer().write_all(&[0u8; 16][..pad])?;
        self.pos += pad as u64;
        self.appended += pad as u64;
        Ok(())
    }

    /// The error of a failed write, naming the file.
    pub fn error(&self, e: std::io::Error) -> Error {
        Error::io("cannot write", &self.path, e)
    }

    fn writer(&mut self) -> &mut std::io::BufWriter<fs::File> {
        self.file.as_mut().expect("an AppendedFile is written to only until it is finished")
    }

    /// Flushes and starts syncing ([`sync_later`]). Returns the bytes this build added.
    pub fn finish(mut self) -> Result<u64> {
        let path = std::mem::take(&mut self.path);
        let file = self.file.take().expect("finished once");
        let file =
            file.into_inner().map_err(|e| Error::io("cannot write", &path, e.into_error()))?;
        sync_later(path, file);
        Ok(self.appended)
    }
}

impl Drop for AppendedFile {
    /// Unfinished (the build failed): what is still buffered is dropped, not written, so
    /// nothing is appended after the failed build's bytes are cut back ([`Generation`]).
    fn drop(&mut self) {
        if let Some(w) = self.file.take() {
            drop(w.into_parts());
        }
    }
}

/// Whether a generation may append to the previous one's shared file ([`AppendedFile`]) rather
/// than write a new one: when at least half of it is still in use (`live` of its `len` payload
/// bytes).
pub fn worth_sharing(live: u64, len: u64) -> bool {
    len <= live.saturating_mul(2)
}

/// The syncs of written files still running: a thread per file waits for the disk while the
/// build goes on (a file of Django's index takes 10 ms to sync, which stalled the thread that
/// wrote it), and a generation's commit waits for those of its files ([`wait_for_syncs`]).
type PendingSync = (PathBuf, std::thread::JoinHandle<std::io::Result<()>>);
static SYNCS: std::sync::Mutex<Vec<PendingSync>> = std::sync::Mutex::new(Vec::new());

/// Syncs `file` (written at `path`) to disk on a thread of its own.
pub(crate) fn sync_later(path: PathBuf, file: fs::File) {
    let sync = std::thread::Builder::new().spawn(move || file.sync_all());
    // Without a thread, the sync happens when it is waited for.
    let sync = sync.or_else(|_| {
        let p = path.clone();
        std::thread::Builder::new().spawn(move || fs::File::open(&p)?.sync_all())
    });
    match (sync, SYNCS.lock()) {
        (Ok(handle), Ok(mut pending)) => pending.push((path, handle)),
        (Ok(handle), Err(_)) => drop(handle.join()),
        (Err(_), _) => {
            let _ = fs::File::open(&path).and_then(|f| f.sync_all());
        }
    }
}

/// Waits for the syncs of the files under `dir` ([`sync_later`]): the first failure is the
/// error.
pub fn wait_for_syncs(dir: &Path) -> Result<()> {
    let mine: Vec<PendingSync> = match SYNCS.lock() {
        Ok(mut pending) => {
            let (mine, rest) = std::mem::take(&mut *pending)
                .into_iter()
                .partition(|(path, _)| path.starts_with(dir));
            *pending = rest;
            mine
        }
        Err(_) => return Err(Error::msg("internal error: a file sync panicked")),
    };
    let mut first = Ok(());
    for (path, handle) in mine {
        let r = match handle.join() {
            Ok(r) => r.map_err(|e| Error::io("cannot sync", &path, e)),
            Err(_) => Err(Error::msg("internal error: a file sync panicked")),
        };
        if first.is_ok() {
            first = r;
        }
    }
    first
}

impl Write for StreamedFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        let block = 1u64 << BLOCK_SHIFT;
        let mut rest = &buf[..n];
        while !rest.is_empty() {
            let room = (block - self.len % block) as usize;
            let (now, later) = rest.split_at(room.min(rest.len()));
            self.block.update(now);
            self.len += now.len() as u64;
            if self.len.is_multiple_of(block) {
                self.end_block();
            }
            rest = later;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

/// The graph file's columns but the edges and the names' table: everything the nodes and files
/// give, so it is made while the graph is linked ([`GraphNodes`]).
pub fn graph_nodes(input: &WriteInput, previous: Option<&ArchivedGraph>) -> GraphNodes {
    let g = input.graph;
    let n = g.nodes.len();
    let mut gf = GraphFile { meta: input.meta.clone(), ..Default::default() };
    // Sized up front: growing the columns (and faulting in their pages twice) took as long as
    // filling them.
    gf.id_off.reserve(n + 1);
    gf.id_blob.reserve(g.nodes.iter().map(|node| node.id.len()).sum());
    (gf.kind, gf.flags) = (Vec::with_capacity(n), Vec::with_capacity(n));
    (gf.parent, gf.file) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for col in span_columns(&mut gf) {
        col.reserve(n);
    }
    // A file not read again has the previous generation's nodes, numbered alike: its nodes'
    // spans are copied from there.
    let carried = previous.filter(|p| p.kind.len() == n);
    debug_assert!(
        carried.is_some() || input.files.iter().all(|f| f.facts.is_some()),
        "files not read again need the previous generation's nodes"
    );
    for (i, node) in g.nodes.iter().enumerate() {
        gf.kind.push(node.kind as u8);
        gf.flags.push(node.flags);
        gf.id_off.push(gf.id_blob.len() as u32);
        gf.id_blob.extend_from_slice(&node.id);
        gf.parent.push(node.parent);
        gf.file.push(node.file);
        let file = (node.file != NONE).then(|| &input.files[node.file as usize]);
        if let (Some(f), Some(p)) = (file, carried)
            && f.facts.is_none()
        {
            copy_spans(&mut gf, p, i);
            continue;
        }
        let facts = file.and_then(|f| f.facts);
        let def = facts.and_then(|f| f.defs.get(node.def as usize));
        match (file, def) {
            (Some(_), Some(d)) => {
                gf.line_start.push(d.line_start);
                gf.line_head.push(d.line_head);
                gf.line_end.push(d.line_end);
                gf.byte_start.push(d.byte_start);
                gf.byte_head.push(d.byte_head);
                gf.byte_sig_end.push(d.byte_sig_end);
                gf.byte_end.push(d.byte_end);
                let (ds, de) = d.doc.unwrap_or((0, 0));
                gf.doc_start.push(ds);
                gf.doc_end.push(de);
            }
            (Some(f), None) => {
                let lines = facts.map_or(0, |x| x.lines).max(1);
                gf.line_start.push(1);
                gf.line_head.push(1);
                gf.line_end.push(lines);
                gf.byte_start.push(0);
                gf.byte_head.push(0);
                gf.byte_sig_end.push(0);
                gf.byte_end.push(f.content_len as u32);
                gf.doc_start.push(0);
                gf.doc_end.push(0);
            }
            _ => {
                for col in span_columns(&mut gf) {
                    col.push(0);
                }
            }
        }
    }
    gf.id_off.push(gf.id_blob.len() as u32);

    // The same IDs as the previous generation's (a rebuild that moved no definition): the same
    // order, without sorting 45,000 IDs again (Django).
    let same_ids = previous.is_some_and(|p| {
        p.by_id.len() == n
            && p.id_blob.as_slice() == gf.id_blob.as_slice()
            && p.id_off.iter().map(|x| x.to_native()).eq(gf.id_off.iter().copied())
    });
    gf.by_id = match previous.filter(|_| same_ids) {
        Some(p) => p.by_id.iter().map(|x| x.to_native()).collect(),
        None => {
            let mut by_id: Vec<u32> = (0..n as u32).collect();
            by_id.sort_unstable_by(|&a, &b| g.nodes[a as usize].id.cmp(&g.nodes[b as usize].id));
            by_id
        }
    };

    for (fi, f) in input.files.iter().enumerate() {
        gf.file_size.push(f.size);
        gf.file_mtime.push(f.mtime_ns);
        gf.file_hash.push(f.hash);
        gf.file_lang.push(f.lang);
        let (errors, lines) = match (f.facts, carried) {
            (Some(facts), _) => (facts.syntax_errors, facts.lines),
            (None, Some(p)) => (
                p.file_errors.get(fi).map_or(0, |x| x.to_native()),
                p.file_lines.get(fi).map_or(0, |x| x.to_native()),
            ),
            (None, None) => (0, 0),
        };
        gf.file_errors.push(errors);
        gf.file_lines.push(lines);
    }
    gf.file_node = vec![NONE; input.files.len()];
    for (i, node) in g.nodes.iter().enumerate() {
        if node.kind == NodeKind::File && node.file != NONE {
            gf.file_node[node.file as usize] = i as u32;
        }
    }
    gf.content_off = input.files.iter().map(|f| f.content_off).collect();
    gf.content_len = input.files.iter().map(|f| f.content_len).collect();
    GraphNodes(gf)
}

/// Appends node `n`'s spans in `previous` to `gf`'s span columns.
fn copy_spans(gf: &mut GraphFile, previous: &ArchivedGraph, n: usize) {
    let get =
        |col: &rkyv::vec::ArchivedVec<rkyv::rend::u32_le>| col.get(n).map_or(0, |x| x.to_native());
    let spans = [
        get(&previous.line_start),
        get(&previous.line_head),
        get(&previous.line_end),
        get(&previous.byte_start),
        get(&previous.byte_head),
        get(&previous.byte_sig_end),
        get(&previous.byte_end),
        get(&previous.doc_start),
        get(&previous.doc_end),
    ];
    for (col, v) in span_columns(gf).into_iter().zip(spans) {
        col.push(v);
    }
}

/// The graph file's per-node line, byte and docstring span columns.
fn span_columns(gf: &mut GraphFile) -> [&mut Vec<u32>; 9] {
    [
        &mut gf.line_start,
        &mut gf.line_head,
        &mut gf.line_end,
        &mut gf.byte_start,
        &mut gf.byte_head,
        &mut gf.byte_sig_end,
        &mut gf.byte_end,
        &mut gf.doc_start,
        &mut gf.doc_end,
    ]
}

/// [`graph_nodes`]'s part of a graph file.
pub struct GraphNodes(GraphFile);

/// The whole graph file: `nodes` with the adjacency of `previous`, a graph of the same nodes
/// whose edges `input`'s would repeat (a rebuild that re-links nothing: the arrays are copied,
/// so the file is the one [`graph_file`] would write).
fn with_kept_edges(nodes: GraphNodes, previous: &ArchivedGraph) -> GraphFile {
    let GraphNodes(mut gf) = nodes;
    let p = previous;
    let words = |v: &[rkyv::rend::u32_le]| v.iter().map(|x| x.to_native()).collect::<Vec<u32>>();
    (gf.out_off, gf.out_dst) = (words(&p.out_off), words(&p.out_dst));
    (gf.out_kind, gf.out_meta) = (p.out_kind.to_vec(), p.out_meta.to_vec());
    (gf.in_off, gf.in_src) = (words(&p.in_off), words(&p.in_src));
    (gf.in_kind, gf.in_meta) = (p.in_kind.to_vec(), p.in_meta.to_vec());
    gf
}

/// The whole graph file: `nodes` (made from `input`'s nodes) with `input`'s edges.
fn graph_file(input: &WriteInput, nodes: GraphNodes) -> GraphFile {
    let GraphNodes(mut gf) = nodes;
    let a = adjacency(input.graph.nodes.len(), &input.graph.edges);
    (gf.out_off, gf.out_dst, gf.out_kind, gf.out_meta) =
        (a.out_off, a.out_dst, a.out_kind, a.out_meta);
    (gf.in_off, gf.in_src, gf.in_kind, gf.in_meta) = (a.in_off, a.in_src, a.in_kind, a.in_meta);
    gf
}

/// A graph's edges in both directions, in compressed sparse rows, as the graph file holds
/// them: `out_off[i]..out_off[i + 1]` are node i's entries in the `out_*` columns, likewise
/// `in_*`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Adjacency {
    pub out_off: Vec<u32>,
    pub out_dst: Vec<u32>,
    pub out_kind: Vec<u8>,
    pub out_meta: Vec<u8>,
    pub in_off: Vec<u32>,
    pub in_src: Vec<u32>,
    pub in_kind: Vec<u8>,
    pub in_meta: Vec<u8>,
}

/// The adjacency of `n` nodes linked by `edges` (in the order they were added): one edge per
/// (src, dst, kind), the first occurrence winning; neighbours listed in the order their first
/// edge was added (networkx's adjacency order, which LocAgent's tools follow).
pub fn adjacency(n: usize, all: &[crate::graph::Edge]) -> Adjacency {
    let (keep, first) = first_edges(n, all);
    // (Sized up front: grown, the Linux kernel's 4.6 million were copied over and over.)
    let mut edges: Vec<(usize, usize, &crate::graph::Edge)> = Vec::with_capacity(all.len());
    edges.extend((0..all.len()).filter(|&i| keep[i]).map(|i| (first[i] as usize, i, &all[i])));
    let order = by_first_edge(all.len(), &edges);
    // The two directions are independent: one on a thread of its own (the build's other
    // threads are done by now).
    let (out, (in_off, in_src, in_kind, in_meta)) = std::thread::scope(|s| {
        let out = s.spawn(|| csr(n, &edges, &order, |e| (e.src, e.dst)));
        let inn = csr(n, &edges, &order, |e| (e.dst, e.src));
        (out.join().unwrap_or_else(|p| std::panic::resume_unwind(p)), inn)
    });
    let (out_off, out_dst, out_kind, out_meta) = out;
    Adjacency { out_off, out_dst, out_kind, out_meta, in_off, in_src, in_kind, in_meta }
}

/// For each of `all` (the edges in the order they were added): whether it is the first with
/// its source, target and kind (and both ends below `n`), and the position of the first edge
/// with its source and target. Found source by source, each source's edges sorted by target
/// then position: two hash tables over every edge took 14 of the 20 ms of writing Django's
/// graph file after an edit, and 450 of 840 ms for the Linux kernel's.
fn first_edges(n: usize, all: &[crate::graph::Edge]) -> (Vec<bool>, Vec<u32>) {
    let valid = |e: &crate::graph::Edge| (e.src as usize) < n && (e.dst as usize) < n;
    // The edges' positions bucketed by source, in order.
    let (start, by_src) = buckets(
        n,
        all.iter().enumerate().filter(|(_, e)| valid(e)).map(|(i, e)| (e.src as usize, i as u32)),
    );
    let (mut keep, mut first) = (vec![false; all.len()], vec![0u32; all.len()]);
    let mut row: Vec<(u32, u32)> = Vec::new();
    for s in 0..n {
        let bucket = &by_src[start[s] as usize..start[s + 1] as usize];
        row.clear();
        row.extend(bucket.iter().map(|&i| (all[i as usize].dst, i)));
        row.sort_unstable();
        // Each target's edges, first to last: the first one of each kind stays.
        let mut k = 0;
        while k < row.len() {
            let (dst, pair_first) = row[k];
            let mut kinds = 0u32;
            while k < row.len() && row[k].0 == dst {
                let i = row[k].1 as usize;
                first[i] = pair_first;
                let bit = 1u32 << (all[i].kind as u32 & 31);
                keep[i] = kinds & bit == 0;
                kinds |= bit;
                k += 1;
            }
        }
    }
    (keep, first)
}

/// The positions in `edges` (in the order they were added) ordered by the first edge of their
/// (source, target) pair, then by their own: a stable counting sort, as `first` is an index
/// into the `total` edges the build added. (Comparison sorts of both directions were half the
/// graph file's writing, on the build's critical path.)
fn by_first_edge(total: usize, edges: &[(usize, usize, &crate::graph::Edge)]) -> Vec<u32> {
    buckets(total, edges.iter().enumerate().map(|(at, &(first, _, _))| (first, at as u32))).1
}

/// A stable counting sort of `items`, (row, value) pairs with rows below `rows`: where each row
/// starts (`rows + 1` offsets, the last the end), and the values row by row, each row's in the
/// order given.
pub(crate) fn buckets(
    rows: usize,
    items: impl Iterator<Item = (usize, u32)> + Clone,
) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; rows + 1];
    for (row, _) in items.clone() {
        start[row + 1] += 1;
    }
    for k in 1..=rows {
        start[k] += start[k - 1];
    }
    let mut next = start.clone();
    let mut values = vec![0u32; start[rows] as usize];
    for (row, value) in items {
        values[next[row] as usize] = value;
        next[row] += 1;
    }
    (start, values)
}

/// One direction of the adjacency in compressed sparse rows: `ends(edge)` gives (the node the
/// row belongs to, the node at the other end). Rows list neighbours in the order their first
/// edge was added, then edges in insertion order: `order` ([`by_first_edge`]) placed row by
/// row by a stable counting sort. Returns (offsets, other ends, kinds, metas).
fn csr(
    n: usize,
    edges: &[(usize, usize, &crate::graph::Edge)],
    order: &[u32],
    ends: impl Fn(&crate::graph::Edge) -> (u32, u32),
) -> (Vec<u32>, Vec<u32>, Vec<u8>, Vec<u8>) {
    let (off, rows) =
        buckets(n, order.iter().map(|&at| (ends(edges[at as usize].2).0 as usize, at)));
    let edge = |&at: &u32| edges[at as usize].2;
    let other = rows.iter().map(|at| ends(edge(at)).1).collect();
    let kind = rows.iter().map(|at| edge(at).kind as u8).collect();
    let meta = rows.iter().map(|at| edge(at).meta).collect();
    (off, other, kind, meta)
}

/// Tag bit of a names.fst value pointing into the multi-postings table.
pub const MULTI_TAG: u64 = 1 << 63;

/// The lower-cased keys a user may look a node up by.
pub fn node_keys(id: &[u8], kind: NodeKind, mut push: impl FnMut(Vec<u8>)) {
    use bstr::ByteSlice;
    if id == b"/" {
        return;
    }
    // Paths are keys; an entity's full ID is found exactly through `by_id`, so only its name
    // is a key (lower-casing 40k long IDs doubled the fst's build time).
    if matches!(kind, NodeKind::File | NodeKind::Directory) {
        push(id.to_lowercase());
    }
    let name = id_name(id, kind);
    push(name.to_lowercase());
    match kind {
        NodeKind::File => {
            if let Some(stem) = crate::lang::strip_source_ext(name)
                && stem != b"__init__"
                && stem != b"index"
                && stem != b"mod"
            {
                push(stem.to_lowercase());
            }
        }
        // Qualified names are not keys: `Cls.meth` is found through `meth` and checked against
        // the ID (30k fewer keys, a third of the fst's build time).
        NodeKind::Class | NodeKind::Function | NodeKind::Directory => {}
    }
}

/// Every node's name keys, sorted, in one buffer (a `Vec` per key took 64 bytes a key on top
/// of its text: 250 MB for the Linux kernel's names).
pub(crate) struct NameKeys {
    text: Vec<u8>,
    /// (start in `text`, length, node), sorted by key then node, without repeats.
    keys: Vec<(usize, u32, u32)>,
}

impl NameKeys {
    /// The keys of `nodes`, each given with its number.
    pub(crate) fn of<'n>(nodes: impl Iterator<Item = (u32, &'n crate::graph::Node)>) -> NameKeys {
        let mut text = Vec::new();
        let n = nodes.size_hint().0;
        let mut keys = Vec::with_capacity(n + n / 4);
        for (n, node) in nodes {
            node_keys(&node.id, node.kind, |k| {
                keys.push((text.len(), k.len() as u32, n));
                text.extend_from_slice(&k);
            });
        }
        let key = |&(at, len, _): &(usize, u32, u32)| &text[at..at + len as usize];
        keys.sort_unstable_by(|a, b| key(a).cmp(key(b)).then(a.2.cmp(&b.2)));
        keys.dedup_by(|b, a| a.2 == b.2 && key(a) == key(b));
        NameKeys { text, keys }
    }

    fn key(&self, i: usize) -> &[u8] {
        let (at, len, _) = self.keys[i];
        &self.text[at..at + len as usize]
    }

    /// The runs of one key: (first, end) indexes into `keys`.
    fn runs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let mut i = 0;
        std::iter::from_fn(move || {
            if i >= self.keys.len() {
                return None;
            }
            let mut j = i + 1;
            while j < self.keys.len() && self.key(j) == self.key(i) {
                j += 1;
            }
            let run = (i, j);
            i = j;
            Some(run)
        })
    }

    /// The multi-postings table: the nodes of every key that names several, and their offsets.
    pub(crate) fn multi(&self) -> NameTable {
        let mut multi_off = vec![0u32];
        let mut multi_ids = Vec::new();
        for (i, j) in self.runs().filter(|(i, j)| j - i > 1) {
            multi_ids.extend(self.keys[i..j].iter().map(|k| k.2));
            multi_off.push(multi_ids.len() as u32);
        }
        NameTable { multi_off, multi_ids }
    }

    /// The fst's entries, in key order: a key's node, or its place in the multi-postings table.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&[u8], u64)> + '_ {
        let mut multi = 0u64;
        self.runs().map(move |(i, j)| {
            let value = if j - i == 1 {
                self.keys[i].2 as u64
            } else {
                multi += 1;
                MULTI_TAG | (multi - 1)
            };
            (self.key(i), value)
        })
    }
}

/// Serializes straight into the file (checksummed on the way), so a big archive is never
/// held twice: once as columns, once as bytes.
pub(crate) fn write_rkyv<T>(path: &Path, magic: &[u8; 8], value: &T) -> Result<u64>
where
    T: for<'a> rkyv::Serialize<
            rkyv::api::high::HighSerializer<
                rkyv::ser::writer::IoWriter<StreamedFile>,
                rkyv::ser::allocator::ArenaHandle<'a>,
                rkyv::rancor::Error,
            >,
        >,
{
    let out = rkyv::ser::writer::IoWriter::new(StreamedFile::create(path)?);
    let out = rkyv::api::high::to_bytes_in::<_, rkyv::rancor::Error>(value, out)
        .map_err(|e| Error::msg(format!("cannot write {}: {e}", path.display())))?;
    out.into_inner().finish(magic)
}

pub(crate) fn write_fst<K: AsRef<[u8]>>(
    path: &Path,
    magic: &[u8; 8],
    entries: impl Iterator<Item = (K, u64)>,
) -> Result<u64> {
    let build = |e: fst::Error| Error::msg(format!("cannot build {}: {e}", path.display()));
    let mut b = MapBuilder::new(StreamedFile::create(path)?).map_err(build)?;
    for (k, v) in entries {
        b.insert(&k, v).map_err(build)?;
    }
    b.into_inner().map_err(build)?.finish(magic)
}

/// Writes header + payload and fsyncs.
pub fn write_payload(path: &Path, magic: &[u8; 8], payload: &[u8]) -> Result<u64> {
    let mut f = StreamedFile::create(path)?;
    f.write_all(payload).map_err(|e| f.error(e))?;
    f.finish(magic)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The buckets find what hash tables over every edge find: the first edge of each source,
    /// target and kind, and the first of each source and target.
    #[test]
    fn first_edges_are_those_a_hash_table_finds() {
        use crate::graph::{Edge, EdgeKind};
        let mut seed = 11u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m) as u32
        };
        for n in [1usize, 5, 40] {
            let all: Vec<Edge> = (0..600)
                .map(|_| Edge {
                    // A few ends past `n`, which no row may hold.
                    src: next(n as u64 + 2),
                    dst: next(n as u64 + 2),
                    kind: EdgeKind::ALL[next(4) as usize],
                    meta: next(3) as u8,
                })
                .collect();
            let (keep, first) = first_edges(n, &all);
            let mut seen = std::collections::HashSet::new();
            let mut pairs = std::collections::HashMap::new();
            for (i, e) in all.iter().enumerate() {
                let valid = (e.src as usize) < n && (e.dst as usize) < n;
                let kept = valid && seen.insert((e.src, e.dst, e.kind));
                assert_eq!(keep[i], kept, "edge {i} of {n} nodes");
                if kept {
                    assert_eq!(first[i] as usize, *pairs.entry((e.src, e.dst)).or_insert(i));
                }
            }
        }
    }

    #[test]
    fn rows_list_neighbours_in_the_order_their_first_edge_was_added() {
        use crate::graph::{Edge, EdgeKind};
        let e = |src, dst, kind| Edge { src, dst, kind, meta: 0 };
        // Node 0 reaches 2 first, then 1, then 2 again by another kind; a repeated edge is
        // dropped before this (as `graph_file` does).
        let added = [
            e(0, 2, EdgeKind::Invoke),
            e(1, 2, EdgeKind::Invoke),
            e(0, 1, EdgeKind::Invoke),
            e(0, 2, EdgeKind::Import),
            e(2, 0, EdgeKind::Inherit),
        ];
        let first = [0, 1, 2, 0, 4];
        let edges: Vec<(usize, usize, &Edge)> =
            added.iter().enumerate().map(|(i, x)| (first[i], i, x)).collect();
        let order = by_first_edge(added.len(), &edges);
        assert_eq!(order, [0, 3, 1, 2, 4]);
        let (off, dst, kind, _) = csr(3, &edges, &order, |x| (x.src, x.dst));
        assert_eq!(off, [0, 3, 4, 5]);
        assert_eq!(dst, [2, 2, 1, 2, 0]);
        let k = |k: EdgeKind| k as u8;
        assert_eq!(kind[..3], [k(EdgeKind::Invoke), k(EdgeKind::Import), k(EdgeKind::Invoke)]);
        let (off, src, _, _) = csr(3, &edges, &order, |x| (x.dst, x.src));
        assert_eq!(off, [0, 1, 2, 5]);
        assert_eq!(src, [2, 0, 0, 0, 1]);
    }

    #[test]
    fn an_unchanged_term_set_is_recognized() {
        let keys: Vec<Vec<u8>> =
            ["alpha", "beta", "gamma"].iter().map(|k| k.as_bytes().to_vec()).collect();
        let mut b = MapBuilder::memory();
        for (i, k) in keys.iter().enumerate() {
            b.insert(k, i as u64).unwrap();
        }
        let fst = b.into_inner().unwrap();
        let same =
            |payload: &[u8], keys: &[Vec<u8>]| same_keys(payload, keys.iter().map(|k| &k[..]));
        assert!(same(&fst, &keys));
        assert!(!same(&fst, &keys[..2]));
        let mut other = keys.clone();
        other[1] = b"bet".to_vec();
        assert!(!same(&fst, &other));
        assert!(!same(b"not an fst", &keys));
    }

    #[test]
    fn streamed_postings_are_the_bytes_of_the_postings_file() {
        // Enough postings for several chunks of a column, and an empty builder.
        for n_docs in [0u32, 3, 70_000] {
            let mut pb = PostingsBuilder::new(n_docs as usize);
            let terms = FileTerms::default();
            let facts = FileFacts::default();
            let ids: Vec<Vec<u8>> =
                (0..n_docs).map(|d| format!("f{}.py", d % 97).into_bytes()).collect();
            for d in 0..n_docs {
                let id_of = |n: u32| ids[n as usize].as_slice();
                pb.add_file(FileDocs {
                    terms: &terms,
                    facts: &facts,
                    file_node: d,
                    def_node: &[],
                    id_of: &id_of,
                });
            }
            let done = pb.finish(&vec![0; n_docs as usize]);
            assert!(n_docs == 0 || done.len() >= n_docs as usize);
            let derived = rkyv::to_bytes::<rkyv::rancor::Error>(&done.to_file()).unwrap();
            let streamed = rkyv::to_bytes::<rkyv::rancor::Error>(&StreamedPostings {
                finished: &done,
                added_text: Vec::new(),
                added_ends: Vec::new(),
            })
            .unwrap();
            assert_eq!(derived.as_slice(), streamed.as_slice(), "{n_docs} documents");
        }
    }
}
