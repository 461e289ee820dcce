//! Streams every file's content and facts archive into the new generation as soon as its
//! extraction is done, in walk order, and adds its term counts to the BM25 postings, so that a
//! build never holds the whole repository's contents or term counts (the largest things it
//! reads and makes: about a gigabyte each for the Linux kernel).
//!
//! The postings number their documents as files arrive (a file, then each of its definitions);
//! the nodes are known only once every file is in, and [`Postings::map`] then gives each
//! document its node.
//!
//! Workers take files in walk order and finish them slightly out of order; a file that finishes
//! early waits in `pending` until the ones before it are written. The wait is bounded by the
//! files in flight (one per worker) and what the other workers finish meanwhile.
//!
//! A repository whose files fit in [`DEFER_BYTES`] has its term counting *deferred*: the
//! workers only extract, the sink writes contents and keeps each parsed file's bytes, and
//! [`Finished::count_terms`] then tokenizes, adds the postings and writes the facts cache on
//! the core the link leaves free. Extraction keeps both cores busy and the link only one, so
//! this moves a tenth of a cold build's wall time off the critical path (Django: 0.15 s); the
//! price is holding the parsed files' bytes until then, which the limit bounds.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use super::Item;
use crate::error::{Error, Result};
use crate::graph::{DefNodes, NONE, Node, NodeKind};
use crate::index::facts::{self, FactsEntry};
use crate::index::format::{CONTENT_FILE, MAGIC_CONTENT};
use crate::index::read::Mapped;
use crate::index::write::AppendedFile;
use crate::search::bm25::{self, FileDocs, FileTerms, PostingsBuilder};

/// Repositories up to this many bytes of files count their terms after the extraction
/// (see the module's documentation).
pub const DEFER_BYTES: u64 = 256 << 20;

/// Whether to defer term counting for a repository of `bytes`: never with `CDS_STREAM_TERMS`
/// set (the tests build both ways and compare).
pub fn defers(bytes: u64) -> bool {
    bytes <= DEFER_BYTES && std::env::var_os("CDS_STREAM_TERMS").is_none()
}

/// Bytes handed to the sink: read or serialized by a worker, or borrowed from the previous
/// generation's mapped files.
pub enum Chunk<'p> {
    /// Read from disk.
    Owned(Vec<u8>),
    /// A facts archive just serialized.
    Archive(rkyv::util::AlignedVec),
    /// Unchanged since the previous generation: bytes of its mapped file.
    Previous(&'p [u8], &'p Mapped),
}

impl Chunk<'_> {
    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Owned(v) => v,
            Chunk::Archive(v) => v,
            Chunk::Previous(b, _) => b,
        }
    }

    /// Once written: the previous generation's pages up to these bytes are not needed again
    /// (files are written in the order both generations list them).
    fn done(&self) {
        if let Chunk::Previous(b, from) = self {
            from.release_in_order(b);
        }
    }
}

/// What became of one walked file.
pub enum Part<'p> {
    /// Not indexed (binary, unreadable): nothing is written.
    Skipped,
    /// Indexed: its content, its facts archive (None: to be serialized once its terms are
    /// counted, when deferring) and their table entry, and its term counts when the postings
    /// are built as files arrive; `carried` when its postings are carried over from the
    /// previous generation instead (its term counts are then only kept, if asked).
    Kept {
        content: Chunk<'p>,
        archive: Option<Chunk<'p>>,
        entry: FactsEntry,
        terms: Option<FileTerms>,
        carried: bool,
    },
    /// Its facts could not be serialized.
    Failed(Error),
}

/// What a deferring sink keeps of a written file for [`Finished::count_terms`]: the facts half
/// of [`Part::Kept`], the archive only when it comes from the previous generation.
struct Deferred<'p> {
    archive: Option<Chunk<'p>>,
    entry: FactsEntry,
    terms: Option<FileTerms>,
    carried: bool,
}

/// The previous generation's `content.bin` and `facts.bin`, when the new one appends to them:
/// each file's path and its payload as mapped.
#[derive(Default, Clone, Copy)]
pub struct Shared<'a> {
    /// `content.bin`.
    pub content: Option<(&'a Path, &'a [u8])>,
    /// `facts.bin`.
    pub facts: Option<(&'a Path, &'a [u8])>,
}

/// The ordered writer of `content.bin` and `facts.rkyv`, shared by the workers.
pub struct Sink<'i, 'p> {
    state: Mutex<State<'p>>,
    /// The walked files (a file's facts are back in its slot before it is handed over).
    items: &'i [Mutex<Option<Item>>],
}

struct State<'p> {
    next: usize,
    pending: BTreeMap<usize, Part<'p>>,
    content: AppendedFile,
    /// Where each kept file's content lies in `content.bin`'s payload, in order.
    content_at: Vec<u64>,
    facts: facts::Writer,
    postings: Postings,
    /// Term counts kept for a long-running builder, by kept file.
    kept_terms: Option<Vec<FileTerms>>,
    /// Deferring: the facts half of every kept file, in order (None: streaming).
    deferred: Option<Vec<Deferred<'p>>>,
    error: Option<Error>,
}

/// The BM25 postings of the files written so far, by document number.
#[derive(Default)]
pub struct Postings {
    /// The postings, numbered by document.
    pub builder: PostingsBuilder,
    /// The first document (its file) of each kept file; its definitions follow.
    bases: Vec<u32>,
    docs: u32,
}

impl Postings {
    /// Each document's node: its file's, or its definition's (`defs`, from
    /// [`crate::graph::native_nodes`]).
    pub fn map(&self, nodes: &[Node], defs: &DefNodes) -> Vec<u32> {
        let mut map = vec![NONE; self.docs as usize];
        for (n, node) in nodes.iter().enumerate() {
            if node.kind == NodeKind::File
                && let Some(&b) = self.bases.get(node.file as usize)
                && b != NONE
            {
                map[b as usize] = n as u32;
            }
        }
        for (&b, file_defs) in self.bases.iter().zip(defs) {
            if b == NONE {
                continue;
            }
            for (d, &n) in file_defs.iter().enumerate() {
                if let Some(slot) = map.get_mut(b as usize + 1 + d) {
                    *slot = n;
                }
            }
        }
        map
    }
}

/// What the sink leaves once every file is in: the streamed files to complete, and the
/// postings.
pub struct Finished<'p> {
    content: AppendedFile,
    /// Where each kept file's content lies in `content.bin`'s payload, in order.
    pub content_at: Vec<u64>,
    facts: facts::Writer,
    /// The postings of every file handed over with its term counts.
    pub postings: Postings,
    /// Term counts of every kept file, when asked to keep them.
    pub kept_terms: Option<Vec<FileTerms>>,
    deferred: Option<Vec<Deferred<'p>>>,
}

impl Finished<'_> {
    /// Whether the term counts and the facts cache are still to do ([`Finished::count_terms`]).
    pub fn is_deferred(&self) -> bool {
        self.deferred.is_some()
    }

    /// A deferring sink's second half: counts the terms of every parsed file of `kept` (the
    /// written files, in order, with the bytes the sink kept), adds the postings and writes
    /// the facts cache. Does nothing for a streaming sink.
    pub fn count_terms(&mut self, kept: &[Item]) -> Result<()> {
        let Some(deferred) = self.deferred.take() else { return Ok(()) };
        if deferred.len() != kept.len() {
            return Err(Error::msg(format!(
                "internal error: {} of {} files reached the term counter",
                deferred.len(),
                kept.len()
            )));
        }
        for (d, item) in deferred.into_iter().zip(kept) {
            let facts = item.facts.as_ref();
            let terms = match d.terms {
                Some(t) => Some(t),
                None if d.archive.is_none() => {
                    Some(bm25::file_terms(&item.content, needed(facts)?))
                }
                None => None,
            };
            let archive = match d.archive {
                Some(a) => a,
                None => {
                    let terms = terms.as_ref().expect("counted above");
                    Chunk::Archive(super::archive_facts(needed(facts)?, terms, &d.entry.rel)?)
                }
            };
            let Deferred { entry, carried, .. } = d;
            add_facts(
                &mut self.postings,
                &mut self.kept_terms,
                &mut self.facts,
                (entry, archive, terms, carried),
                facts,
            )?;
        }
        Ok(())
    }

    /// Completes both files (header, table, fsync). Returns the bytes written.
    pub fn write(self) -> Result<u64> {
        let Finished { content, facts, .. } = self;
        Ok(content.finish()? + facts.finish()?)
    }
}

impl<'i, 'p> Sink<'i, 'p> {
    /// Creates both files in the generation directory `dir`. `keep_terms`: hand every kept
    /// file's term counts back at the end (for a long-running builder).
    /// `defer`: leave term counting and the facts cache to [`Finished::count_terms`].
    /// `share`: the previous generation's `content.bin` and `facts.bin` to append to
    /// ([`AppendedFile`]), each as its path and its payload as mapped.
    pub fn create(
        dir: &Path,
        items: &'i [Mutex<Option<Item>>],
        keep_terms: bool,
        defer: bool,
        share: Shared,
    ) -> Result<Sink<'i, 'p>> {
        let state = State {
            next: 0,
            pending: BTreeMap::new(),
            content: AppendedFile::create(
                &dir.join(CONTENT_FILE),
                MAGIC_CONTENT,
                share.content,
                1,
            )?,
            content_at: Vec::with_capacity(items.len()),
            facts: facts::Writer::create(dir, share.facts)?,
            postings: Postings::default(),
            kept_terms: keep_terms.then(Vec::new),
            deferred: defer.then(Vec::new),
            error: None,
        };
        Ok(Sink { state: Mutex::new(state), items })
    }

    /// Hands over walked file `i`; writes it, and every file after it that was waiting, once
    /// all files before it are written.
    pub fn push(&self, i: usize, part: Part<'p>) {
        let Ok(mut st) = self.state.lock() else { return };
        st.pending.insert(i, part);
        loop {
            let next = st.next;
            let Some(part) = st.pending.remove(&next) else { break };
            st.next += 1;
            if st.error.is_some() {
                continue;
            }
            if let Err(e) = st.write(part, &self.items[next]) {
                st.error = Some(e);
            }
        }
    }

    /// Completes both files once all `total` walked files were handed over. Returns the bytes
    /// written.
    pub fn finish(self, total: usize) -> Result<Finished<'p>> {
        let st =
            self.state.into_inner().map_err(|_| Error::msg("an extraction thread panicked"))?;
        if let Some(e) = st.error {
            return Err(e);
        }
        if st.next != total {
            return Err(Error::msg(format!(
                "internal error: {} of {total} files reached the index writer",
                st.next
            )));
        }
        let State { content, content_at, facts, postings, kept_terms, deferred, .. } = st;
        Ok(Finished { content, content_at, facts, postings, kept_terms, deferred })
    }
}

impl<'p> State<'p> {
    fn write(&mut self, part: Part<'p>, item: &Mutex<Option<Item>>) -> Result<()> {
        match part {
            Part::Skipped => Ok(()),
            Part::Failed(e) => Err(e),
            Part::Kept { content, archive, entry, terms, carried } => {
                // (Content kept in place in a shared content.bin was not read.)
                let (at, copied) = self.content.push(content.bytes())?;
                self.content_at.push(at);
                if copied {
                    content.done();
                }
                let mut item =
                    item.lock().map_err(|_| Error::msg("an extraction thread panicked"))?;
                if let Some(deferred) = &mut self.deferred {
                    if archive.is_none()
                        && let (Chunk::Owned(bytes), Some(it)) = (content, item.as_mut())
                    {
                        // Its terms are counted from these bytes once every file is in.
                        it.content = bytes;
                    }
                    deferred.push(Deferred { archive, entry, terms, carried });
                    return Ok(());
                }
                let archive = archive.ok_or_else(|| {
                    Error::msg("internal error: a file's facts reached the writer unserialized")
                })?;
                let facts = item.as_ref().and_then(|it| it.facts.as_ref());
                add_facts(
                    &mut self.postings,
                    &mut self.kept_terms,
                    &mut self.facts,
                    (entry, archive, terms, carried),
                    facts,
                )
            }
        }
    }
}

/// A file's facts where they are needed (those of a file whose postings are carried over may
/// be read only after the extraction, see `build::Outlines`).
fn needed(facts: Option<&crate::extract::FileFacts>) -> Result<&crate::extract::FileFacts> {
    facts.ok_or_else(|| Error::msg("internal error: a file's facts went missing"))
}

/// Adds one written file's documents to the postings (unless `carried` over), keeps its term
/// counts when asked, and appends its facts archive to the facts cache.
fn add_facts(
    postings: &mut Postings,
    kept_terms: &mut Option<Vec<FileTerms>>,
    out: &mut facts::Writer,
    (entry, archive, terms, carried): (FactsEntry, Chunk, Option<FileTerms>, bool),
    facts: Option<&crate::extract::FileFacts>,
) -> Result<()> {
    if carried {
        postings.skip();
    } else if let Some(terms) = &terms {
        postings.add(terms, needed(facts)?, &entry.rel);
    }
    if let (Some(kept), Some(terms)) = (kept_terms, terms) {
        kept.push(terms);
    }
    // (An archive kept in place in a shared facts.bin was not read: its pages stay, for the
    // facts read after the extraction.)
    if out.push(entry, archive.bytes())? {
        archive.done();
    }
    Ok(())
}

impl Postings {
    /// Records a file whose postings are carried over (it has no documents here).
    fn skip(&mut self) {
        self.bases.push(NONE);
    }

    /// Adds one file's documents: the file (number `docs`), then each definition.
    fn add(&mut self, terms: &FileTerms, facts: &crate::extract::FileFacts, rel: &[u8]) {
        let base = self.docs;
        let n = facts.defs.len() as u32;
        self.bases.push(base);
        self.docs = base + 1 + n;
        self.builder.reserve_docs(self.docs as usize);
        let def_node: Vec<u32> = (base + 1..self.docs).collect();
        let id_of = |_: u32| rel;
        self.builder.add_file(FileDocs {
            terms,
            facts,
            file_node: base,
            def_node: &def_node,
            id_of: &id_of,
        });
    }
}
