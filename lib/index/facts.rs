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

/// Serializes one file's facts and term counts into its archive.
pub fn archive(
    facts: &FileFacts,
    terms: &FileTerms,
) -> Result<rkyv::util::AlignedVec, rkyv::rancor::Error> {
    rkyv::to_bytes::<rkyv::rancor::Error>(&CachedFactsRef { facts, terms })
}

/// Writes the payload archive by archive, in file order, as the files come: nothing but the
/// table is held in memory.
#[derive(Default)]
pub struct Encoder {
    table: FactsTable,
    pos: u64,
}

impl Encoder {
    /// An empty payload.
    pub fn new() -> Encoder {
        Encoder::default()
    }

    /// Appends one file's archive (serialized by [`archive`], or copied from the previous
    /// generation) under `entry`, whose offsets are filled in.
    pub fn push(
        &mut self,
        out: &mut impl std::io::Write,
        mut entry: FactsEntry,
        archive: &[u8],
    ) -> std::io::Result<()> {
        entry.off = self.pos;
        entry.len = archive.len() as u64;
        out.write_all(archive)?;
        self.pos += archive.len() as u64;
        self.table.files.push(entry);
        // Each archive starts 16-aligned, as rkyv requires.
        let pad = ((16 - self.pos % 16) % 16) as usize;
        out.write_all(&[0u8; 16][..pad])?;
        self.pos += pad as u64;
        Ok(())
    }

    /// Appends the table and its offset: the payload is complete.
    pub fn finish(self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&self.table)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        out.write_all(&bytes)?;
        out.write_all(&self.pos.to_le_bytes())
    }
}

/// The facts and term counts of one file's archive, validated and deserialized.
pub fn load(archive: &[u8]) -> Option<(FileFacts, FileTerms)> {
    let a = rkyv::access::<rkyv::Archived<CachedFacts>, rkyv::rancor::Error>(archive).ok()?;
    let c = rkyv::deserialize::<CachedFacts, rkyv::rancor::Error>(a).ok()?;
    Some((c.facts, c.terms))
}

/// Deserializes one file's facts from its archive, without its term counts (whose postings a
/// rebuild carries over from the previous generation).
pub fn load_facts(archive: &[u8]) -> Option<FileFacts> {
    let a = rkyv::access::<rkyv::Archived<CachedFacts>, rkyv::rancor::Error>(archive).ok()?;
    rkyv::deserialize::<FileFacts, rkyv::rancor::Error>(&a.facts).ok()
}

/// Whether one file's archive is sound (what the loaders below check first).
pub fn is_valid(archive: &[u8]) -> bool {
    rkyv::access::<rkyv::Archived<CachedFacts>, rkyv::rancor::Error>(archive).is_ok()
}

/// One file's facts in outline: what the node and file tables and the build summary read (the
/// definitions, line and error counts, package, `generated`), without what only the link reads
/// (imports, calls, bindings, the value flow), which is most of the deserializing. A rebuild
/// that keeps the previous links needs no more of an unchanged file.
pub fn load_outline(archive: &[u8]) -> Option<FileFacts> {
    let a = rkyv::access::<rkyv::Archived<CachedFacts>, rkyv::rancor::Error>(archive).ok()?;
    let f = &a.facts;
    Some(FileFacts {
        defs: rkyv::deserialize::<_, rkyv::rancor::Error>(&f.defs).ok()?,
        lines: f.lines.to_native(),
        syntax_errors: f.syntax_errors.to_native(),
        py3_invalid: f.py3_invalid,
        first_error_line: f.first_error_line.to_native(),
        package: rkyv::deserialize::<_, rkyv::rancor::Error>(&f.package).ok()?,
        generated: f.generated,
        ..FileFacts::default()
    })
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

    /// A payload of `files`: (path, archive bytes).
    fn encode(files: &[(&[u8], &[u8])]) -> rkyv::util::AlignedVec<16> {
        let mut out = Vec::new();
        let mut enc = Encoder::new();
        for (rel, bytes) in files {
            let entry = FactsEntry { rel: rel.to_vec(), size: 1, ..Default::default() };
            enc.push(&mut out, entry, bytes).unwrap();
        }
        enc.finish(&mut out).unwrap();
        // The payload sits behind a 32-byte header in the file: keep that alignment here.
        let mut aligned = rkyv::util::AlignedVec::<16>::new();
        aligned.extend_from_slice(&out);
        aligned
    }

    #[test]
    fn archives_survive_being_copied() {
        let src = b"def f():\n    return g()\n";
        let facts = Extractor::new().extract(src);
        let terms = crate::search::bm25::file_terms(src, &facts);
        let first = encode(&[(b"a.py", &archive(&facts, &terms).unwrap())]);
        let view = FactsView::new(&first).unwrap();
        let copied = view.archive(0).unwrap().to_vec();
        let empty = archive(&FileFacts::default(), &FileTerms::default()).unwrap();
        let second = encode(&[(b"new.py", &empty), (b"a.py", &copied)]);
        let view = FactsView::new(&second).unwrap();
        assert_eq!(view.entries().len(), 2);
        assert_eq!(view.entries()[1].rel.as_slice(), b"a.py");
        let (f, t) = view.load(1).unwrap();
        assert_eq!(f, facts);
        assert_eq!(t, terms);
        assert!(view.verify().is_ok());
        assert!(FactsView::new(&second[..second.len() - 3]).is_none());
    }
}
