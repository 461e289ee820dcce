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

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use super::Item;
use crate::error::{Error, Result};
use crate::graph::{DefNodes, NONE, Node, NodeKind};
use crate::index::facts::{Encoder, FactsEntry};
use crate::index::format::{CONTENT_FILE, FACTS_FILE, MAGIC_CONTENT, MAGIC_FACTS};
use crate::index::read::Mapped;
use crate::index::write::StreamedFile;
use crate::search::bm25::{FileDocs, FileTerms, PostingsBuilder};

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
            from.release_through(b);
        }
    }
}

/// What became of one walked file.
pub enum Part<'p> {
    /// Not indexed (binary, unreadable): nothing is written.
    Skipped,
    /// Indexed: its content, its facts archive and their table entry, and its term counts when
    /// the postings are built as files arrive; `carried` when its postings are carried over
    /// from the previous generation instead (its term counts are then only kept, if asked).
    Kept {
        content: Chunk<'p>,
        archive: Chunk<'p>,
        entry: FactsEntry,
        terms: Option<FileTerms>,
        carried: bool,
    },
    /// Its facts could not be serialized.
    Failed(Error),
}

/// The ordered writer of `content.bin` and `facts.rkyv`, shared by the workers.
pub struct Sink<'p> {
    state: Mutex<State<'p>>,
    /// The walked files (a file's facts are back in its slot before it is handed over).
    items: &'p [Mutex<Option<Item>>],
}

struct State<'p> {
    next: usize,
    pending: BTreeMap<usize, Part<'p>>,
    content: StreamedFile,
    facts: StreamedFile,
    encoder: Encoder,
    postings: Postings,
    /// Term counts kept for a long-running builder, by kept file.
    kept_terms: Option<Vec<FileTerms>>,
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
pub struct Finished {
    content: StreamedFile,
    facts: StreamedFile,
    encoder: Encoder,
    /// The postings of every file handed over with its term counts.
    pub postings: Postings,
    /// Term counts of every kept file, when asked to keep them.
    pub kept_terms: Option<Vec<FileTerms>>,
}

impl Finished {
    /// Completes both files (header, table, fsync). Returns the bytes written.
    pub fn write(self) -> Result<u64> {
        let Finished { content, mut facts, encoder, .. } = self;
        encoder.finish(&mut facts).map_err(|e| facts.error(e))?;
        Ok(content.finish(MAGIC_CONTENT)? + facts.finish(MAGIC_FACTS)?)
    }
}

impl<'p> Sink<'p> {
    /// Creates both files in the generation directory `dir`. `keep_terms`: hand every kept
    /// file's term counts back at the end (for a long-running builder).
    pub fn create(
        dir: &Path,
        items: &'p [Mutex<Option<Item>>],
        keep_terms: bool,
    ) -> Result<Sink<'p>> {
        let state = State {
            next: 0,
            pending: BTreeMap::new(),
            content: StreamedFile::create(&dir.join(CONTENT_FILE))?,
            facts: StreamedFile::create(&dir.join(FACTS_FILE))?,
            encoder: Encoder::new(),
            postings: Postings::default(),
            kept_terms: keep_terms.then(Vec::new),
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
    pub fn finish(self, total: usize) -> Result<Finished> {
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
        let State { content, facts, encoder, postings, kept_terms, .. } = st;
        Ok(Finished { content, facts, encoder, postings, kept_terms })
    }
}

impl State<'_> {
    fn write(&mut self, part: Part, item: &Mutex<Option<Item>>) -> Result<()> {
        match part {
            Part::Skipped => Ok(()),
            Part::Failed(e) => Err(e),
            Part::Kept { content, archive, entry, terms, carried } => {
                use std::io::Write;
                self.content.write_all(content.bytes()).map_err(|e| self.content.error(e))?;
                content.done();
                if carried {
                    self.postings.skip();
                } else if let Some(terms) = &terms {
                    let item =
                        item.lock().map_err(|_| Error::msg("an extraction thread panicked"))?;
                    let facts = item.as_ref().and_then(|it| it.facts.as_ref());
                    let facts = facts
                        .ok_or_else(|| Error::msg("internal error: a file's facts went missing"))?;
                    self.postings.add(terms, facts, &entry.rel);
                }
                if let (Some(kept), Some(terms)) = (&mut self.kept_terms, terms) {
                    kept.push(terms);
                }
                self.encoder
                    .push(&mut self.facts, entry, archive.bytes())
                    .map_err(|e| self.facts.error(e))?;
                archive.done();
                Ok(())
            }
        }
    }
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
