//! `facts.rkyv`: cds-build's cache of per-file facts, for incremental rebuilds.
//!
//! The payload is one independent rkyv archive per file ([`CachedFacts`]), each starting at a
//! 16-byte boundary, then the table of files ([`FactsTable`], itself an rkyv archive), then the
//! table's offset as a little-endian u64:
//!
//! ```text
//! [file 0 archive][pad][file 1 archive][pad]...[table archive][table offset: u64]
//! ```
//!
//! Because rkyv pointers are relative, an archive can be copied byte for byte: a rebuild copies
//! the archives of unchanged files from the previous generation and serializes only the files
//! it parsed, instead of re-encoding the whole repository's facts.

use rkyv::{Archive, Deserialize, Serialize};

use crate::extract::FileFacts;
use crate::search::bm25::FileTerms;

/// What is cached for one file.
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct CachedFacts {
    /// Its facts.
    pub facts: FileFacts,
    /// Its term counts.
    pub terms: FileTerms,
}

/// [`CachedFacts`] borrowed: it archives to the same bytes, without a copy of the facts made
/// first just to be serialized.
#[derive(Archive, Serialize)]
struct CachedFactsRef<'a> {
    #[rkyv(with = rkyv::with::Inline)]
    facts: &'a FileFacts,
    #[rkyv(with = rkyv::with::Inline)]
    terms: &'a FileTerms,
}

/// The table of cached files.
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct FactsTable {
    /// One entry per file, in the index's file order.
    pub files: Vec<FactsEntry>,
}

/// One cached file.
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct FactsEntry {
    /// Relative path.
    pub rel: Vec<u8>,
    /// Size when extracted.
    pub size: u64,
    /// Modification time when extracted.
    pub mtime_ns: i64,
    /// CRC-32 of the content.
    pub hash: u32,
    /// Language code.
    pub lang: u8,
    /// Offset of its archive in the payload.
    pub off: u64,
    /// Length of its archive.
    pub len: u64,
}

/// A file to encode: its table entry (offsets are filled in) and its archive, either bytes
/// copied from the previous generation or facts to serialize.
pub struct Encode<'a> {
    /// The entry.
    pub entry: FactsEntry,
    /// The archive bytes to copy, when the file is unchanged.
    pub archive: Option<&'a [u8]>,
    /// The facts, when it was parsed.
    pub facts: &'a FileFacts,
    /// The term counts.
    pub terms: &'a FileTerms,
}

/// Encodes the payload into a vector (see [`encode_into`]).
pub fn encode(files: Vec<Encode>) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_into(files, &mut out)?;
    Ok(out)
}

/// Why encoding failed.
#[derive(Debug)]
pub enum EncodeError {
    /// rkyv could not serialize a file's facts.
    Rkyv(rkyv::rancor::Error),
    /// The sink failed.
    Io(std::io::Error),
}

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EncodeError::Rkyv(e) => write!(f, "{e}"),
            EncodeError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Encodes the payload into `out`, archive by archive (no copy of the whole payload in memory).
pub fn encode_into(files: Vec<Encode>, out: &mut impl std::io::Write) -> Result<(), EncodeError> {
    let mut pos = 0usize;
    let mut put = |bytes: &[u8], pos: &mut usize| -> Result<(), EncodeError> {
        out.write_all(bytes).map_err(EncodeError::Io)?;
        *pos += bytes.len();
        Ok(())
    };
    let mut table = FactsTable { files: Vec::with_capacity(files.len()) };
    for f in files {
        let off = pos;
        match f.archive {
            Some(bytes) => put(bytes, &mut pos)?,
            None => {
                let c = CachedFactsRef { facts: f.facts, terms: f.terms };
                let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&c).map_err(EncodeError::Rkyv)?;
                put(&bytes, &mut pos)?;
            }
        }
        let mut e = f.entry;
        e.off = off as u64;
        e.len = (pos - off) as u64;
        table.files.push(e);
        // Each archive starts 16-aligned, as rkyv requires.
        let pad = (16 - pos % 16) % 16;
        put(&[0u8; 16][..pad], &mut pos)?;
    }
    let table_off = pos as u64;
    let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&table).map_err(EncodeError::Rkyv)?;
    put(&bytes, &mut pos)?;
    put(&table_off.to_le_bytes(), &mut pos)?;
    Ok(())
}

/// The facts and term counts of one file's archive, validated and deserialized.
pub fn load(archive: &[u8]) -> Option<(FileFacts, FileTerms)> {
    let a = rkyv::access::<rkyv::Archived<CachedFacts>, rkyv::rancor::Error>(archive).ok()?;
    let c = rkyv::deserialize::<CachedFacts, rkyv::rancor::Error>(a).ok()?;
    Some((c.facts, c.terms))
}

/// A validated view of a facts payload.
pub struct FactsView<'a> {
    payload: &'a [u8],
    table: &'a rkyv::Archived<FactsTable>,
}

impl<'a> FactsView<'a> {
    /// Validates the table (the per-file archives are validated when read).
    pub fn new(payload: &'a [u8]) -> Option<FactsView<'a>> {
        let n = payload.len();
        let off = u64::from_le_bytes(payload.get(n.checked_sub(8)?..)?.try_into().ok()?) as usize;
        let table_bytes = payload.get(off..n - 8)?;
        let table =
            rkyv::access::<rkyv::Archived<FactsTable>, rkyv::rancor::Error>(table_bytes).ok()?;
        Some(FactsView { payload, table })
    }

    /// The table's entries.
    pub fn entries(&self) -> &'a [rkyv::Archived<FactsEntry>] {
        &self.table.files
    }

    /// The archive bytes of entry `i`.
    pub fn archive(&self, i: usize) -> Option<&'a [u8]> {
        let e = self.table.files.get(i)?;
        let (a, len) = (e.off.to_native() as usize, e.len.to_native() as usize);
        self.payload.get(a..a.checked_add(len)?)
    }

    /// The facts and term counts of entry `i`, validated and deserialized.
    pub fn load(&self, i: usize) -> Option<(FileFacts, FileTerms)> {
        load(self.archive(i)?)
    }

    /// Checks every archive; the first problem found.
    pub fn verify(&self) -> Result<(), String> {
        for i in 0..self.table.files.len() {
            let bytes = self.archive(i).ok_or_else(|| format!("entry {i} is out of range"))?;
            rkyv::access::<rkyv::Archived<CachedFacts>, rkyv::rancor::BoxedError>(bytes)
                .map_err(|e| format!("entry {i}: {e}"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::python::Extractor;

    #[test]
    fn archives_survive_being_copied() {
        let src = b"def f():\n    return g()\n";
        let facts = Extractor::new().extract(src);
        let terms = crate::search::bm25::file_terms(src, &facts);
        let entry = |rel: &[u8]| FactsEntry { rel: rel.to_vec(), size: 1, ..Default::default() };
        let first = encode(vec![Encode {
            entry: entry(b"a.py"),
            archive: None,
            facts: &facts,
            terms: &terms,
        }])
        .unwrap();
        // The payload sits behind a 32-byte header in the file: keep that alignment here.
        let mut aligned = rkyv::util::AlignedVec::<16>::new();
        aligned.extend_from_slice(&first);
        let view = FactsView::new(&aligned).unwrap();
        let copied = view.archive(0).unwrap().to_vec();
        let empty = FileFacts::default();
        let empty_terms = FileTerms::default();
        let second = encode(vec![
            Encode { entry: entry(b"new.py"), archive: None, facts: &empty, terms: &empty_terms },
            Encode {
                entry: entry(b"a.py"),
                archive: Some(&copied),
                facts: &empty,
                terms: &empty_terms,
            },
        ])
        .unwrap();
        let mut aligned = rkyv::util::AlignedVec::<16>::new();
        aligned.extend_from_slice(&second);
        let view = FactsView::new(&aligned).unwrap();
        assert_eq!(view.entries().len(), 2);
        let (f, t) = view.load(1).unwrap();
        assert_eq!(f, facts);
        assert_eq!(t, terms);
        assert!(view.verify().is_ok());
        assert!(FactsView::new(&aligned[..aligned.len() - 3]).is_none());
    }
}
