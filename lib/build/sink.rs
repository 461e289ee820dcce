//! Streams every file's content and facts archive into the new generation as soon as its
//! extraction is done, in walk order, so that a build never holds the whole repository's
//! contents (the largest thing it reads: about a gigabyte for the Linux kernel).
//!
//! Workers take files in walk order and finish them slightly out of order; a file that finishes
//! early waits in `pending` until the ones before it are written. The wait is bounded by the
//! files in flight (one per worker) and what the other workers finish meanwhile.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::index::facts::{Encoder, FactsEntry};
use crate::index::format::{CONTENT_FILE, FACTS_FILE, MAGIC_CONTENT, MAGIC_FACTS};
use crate::index::write::StreamedFile;

/// Bytes handed to the sink: read or serialized by a worker, or borrowed from the previous
/// generation's mapped files.
pub enum Chunk<'p> {
    /// Read from disk.
    Owned(Vec<u8>),
    /// A facts archive just serialized.
    Archive(rkyv::util::AlignedVec),
    /// Unchanged since the previous generation.
    Previous(&'p [u8]),
}

impl Chunk<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Chunk::Owned(v) => v,
            Chunk::Archive(v) => v,
            Chunk::Previous(b) => b,
        }
    }
}

/// What became of one walked file.
pub enum Part<'p> {
    /// Not indexed (binary, unreadable): nothing is written.
    Skipped,
    /// Indexed: its content, its facts archive and their table entry.
    Kept { content: Chunk<'p>, archive: Chunk<'p>, entry: FactsEntry },
    /// Its facts could not be serialized.
    Failed(Error),
}

/// The ordered writer of `content.bin` and `facts.rkyv`, shared by the workers.
pub struct Sink<'p> {
    state: Mutex<State<'p>>,
}

struct State<'p> {
    next: usize,
    pending: BTreeMap<usize, Part<'p>>,
    content: StreamedFile,
    facts: StreamedFile,
    encoder: Encoder,
    error: Option<Error>,
}

impl<'p> Sink<'p> {
    /// Creates both files in the generation directory `dir`.
    pub fn create(dir: &Path) -> Result<Sink<'p>> {
        let state = State {
            next: 0,
            pending: BTreeMap::new(),
            content: StreamedFile::create(&dir.join(CONTENT_FILE))?,
            facts: StreamedFile::create(&dir.join(FACTS_FILE))?,
            encoder: Encoder::new(),
            error: None,
        };
        Ok(Sink { state: Mutex::new(state) })
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
            if let Err(e) = st.write(part) {
                st.error = Some(e);
            }
        }
    }

    /// Completes both files once all `total` walked files were handed over. Returns the bytes
    /// written.
    pub fn finish(self, total: usize) -> Result<u64> {
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
        let State { content, mut facts, encoder, .. } = st;
        encoder.finish(&mut facts).map_err(|e| facts.error(e))?;
        Ok(content.finish(MAGIC_CONTENT)? + facts.finish(MAGIC_FACTS)?)
    }
}

impl State<'_> {
    fn write(&mut self, part: Part) -> Result<()> {
        match part {
            Part::Skipped => Ok(()),
            Part::Failed(e) => Err(e),
            Part::Kept { content, archive, entry } => {
                use std::io::Write;
                self.content.write_all(content.bytes()).map_err(|e| self.content.error(e))?;
                self.encoder
                    .push(&mut self.facts, entry, archive.bytes())
                    .map_err(|e| self.facts.error(e))
            }
        }
    }
}
