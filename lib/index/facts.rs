//! `facts.rkyv` and `facts.bin`: cds-build's cache of per-file facts, for incremental rebuilds.
//!
//! `facts.bin` holds one independent rkyv archive per file ([`CachedFacts`]), each starting
//! at a 16-byte boundary after the file's 32-byte header; `facts.rkyv`'s payload is the table
//! of files ([`FactsTable`], an rkyv archive: each file's archive by offset and length in
//! `facts.bin`'s payload), then the table's offset as a little-endian u64:
//!
//! ```text
//! facts.bin    [header][file 0 archive][pad][file 1 archive][pad]...
//! facts.rkyv   [header][table archive][table offset: u64]
//! ```
//!
//! Because rkyv pointers are relative, an archive is read where it lies: a rebuild keeps the
//! archives of unchanged files and serializes only the files it parsed. `facts.bin` is a hard
//! link to the previous generation's with the new archives appended ([`Writer`]): only builds
//! read it (under the build lock), each generation's table names the bytes it uses, and what
//! no table uses any more is dropped when a build writes a new `facts.bin` instead (once it is
//! half unused, or when hard links are not available).

use std::io::Write;
use std::path::{Path, PathBuf};

use rkyv::{Archive, Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::extract::FileFacts;
use crate::index::format::{FACTS_BLOB_FILE, FACTS_FILE, MAGIC_FACTS, MAGIC_FACTS_BLOB};
use crate::index::read::Mapped;
use crate::index::write::{AppendedFile, StreamedFile};
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
#[derive(Debug, Clone, Default, PartialEq, Archive, Serialize, Deserialize)]
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
    /// CRC-32 of its archive (see [`checked`]).
    pub crc: u32,
}

/// Serializes one file's facts and term counts into its archive.
pub fn archive(
    facts: &FileFacts,
    terms: &FileTerms,
) -> Result<rkyv::util::AlignedVec, rkyv::rancor::Error> {
    rkyv::to_bytes::<rkyv::rancor::Error>(&CachedFactsRef { facts, terms })
}

/// Writes a generation's facts cache: each file's archive into `facts.bin`, either appended to
/// the previous generation's (shared through a hard link, where unchanged files' archives are
/// kept as they are: an [`AppendedFile`]) or into a new one, and the table into `facts.rkyv`.
/// Nothing but the table is held in memory.
pub struct Writer {
    dir: PathBuf,
    blob: AppendedFile,
    table: FactsTable,
}

impl Writer {
    /// Starts the cache in generation directory `dir`: appending to `share`, the previous
    /// generation's `facts.bin` (its path and its payload as mapped), when it can be linked.
    pub fn create(dir: &Path, share: Option<(&Path, &[u8])>) -> Result<Writer> {
        let blob = AppendedFile::create(&dir.join(FACTS_BLOB_FILE), MAGIC_FACTS_BLOB, share, 16)?;
        Ok(Writer { dir: dir.to_path_buf(), blob, table: FactsTable::default() })
    }

    /// Adds one file's archive (serialized by [`archive`], or the previous generation's)
    /// under `entry`, whose offsets are filled in, and its CRC-32 when the archive is copied
    /// (an archive kept where it lies keeps the `crc` its entry brings). True when its bytes
    /// were copied, false when it was kept where it lies in the shared `facts.bin`.
    pub fn push(&mut self, mut entry: FactsEntry, archive: &[u8]) -> Result<bool> {
        let (off, copied) = self.blob.push(archive)?;
        (entry.off, entry.len) = (off, archive.len() as u64);
        if copied {
            entry.crc = crc32fast::hash(archive);
        }
        self.table.files.push(entry);
        Ok(copied)
    }

    /// Syncs `facts.bin` and writes the table. Returns the bytes written.
    pub fn finish(self) -> Result<u64> {
        let Writer { dir, blob, table } = self;
        let appended = blob.finish()?;
        let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&table)
            .map_err(|e| Error::msg(format!("cannot serialize the facts table: {e}")))?;
        let mut out = StreamedFile::create(&dir.join(FACTS_FILE))?;
        out.write_all(&bytes).map_err(|e| out.error(e))?;
        out.write_all(&0u64.to_le_bytes()).map_err(|e| out.error(e))?;
        Ok(appended + out.finish(MAGIC_FACTS)?)
    }
}

/// Generation directory `dir`'s `facts.bin`, mapped. `index_dir` names the index in errors.
pub fn open_blob(dir: &Path, index_dir: &Path) -> Result<Mapped> {
    Mapped::open_growing(&dir.join(FACTS_BLOB_FILE), MAGIC_FACTS_BLOB, index_dir)
}

/// What the cache of generation directory `dir` holds, file by file: each entry, with its
/// offset zeroed (where an archive lies depends on the generations before), and its archive.
/// Two caches that hold the same are the same to every build. None when it cannot be read.
pub fn contents(dir: &Path) -> Option<Vec<(FactsEntry, Vec<u8>)>> {
    let table = Mapped::open(&dir.join(FACTS_FILE), MAGIC_FACTS, dir).ok()?;
    let blob = open_blob(dir, dir).ok()?;
    let view = FactsView::new(table.payload(), blob.payload())?;
    (0..view.entries().len())
        .map(|i| {
            let mut e: FactsEntry =
                rkyv::deserialize::<_, rkyv::rancor::Error>(&view.entries()[i]).ok()?;
            e.off = 0;
            Some((e, view.archive(i)?.to_vec()))
        })
        .collect()
}

/// One file's archive, read where it lies, when its bytes have the CRC-32 recorded for them as
/// they were serialized (its [`FactsEntry::crc`]): they are then the bytes rkyv wrote, and its
/// validation, which walks every field and was half the cost of reading an archive, is
/// skipped. None for other bytes (the file is then extracted again), or bytes not aligned as
/// rkyv needs (a table damaged in a way its own validation did not catch).
pub fn checked(archive: &[u8], crc: u32) -> Option<&rkyv::Archived<CachedFacts>> {
    if !(archive.as_ptr() as usize).is_multiple_of(16) || crc32fast::hash(archive) != crc {
        return None;
    }
    // SAFETY: the bytes are those of an archive rkyv serialized from a `CachedFacts` (the CRC
    // recorded then matches; random damage escapes a CRC-32 once in four billion times), and
    // they are aligned as they were written.
    Some(unsafe { rkyv::access_unchecked::<rkyv::Archived<CachedFacts>>(archive) })
}

/// One file's archive, validated by rkyv (for `--verify` and the tests).
fn validated(archive: &[u8]) -> Option<&rkyv::Archived<CachedFacts>> {
    rkyv::access::<rkyv::Archived<CachedFacts>, rkyv::rancor::Error>(archive).ok()
}

/// The facts and term counts of one file's archive, deserialized.
pub fn load(a: &rkyv::Archived<CachedFacts>) -> Option<(FileFacts, FileTerms)> {
    let c = rkyv::deserialize::<CachedFacts, rkyv::rancor::Error>(a).ok()?;
    Some((c.facts, c.terms))
}

/// Deserializes one file's facts from its archive, without its term counts (whose postings a
/// rebuild carries over from the previous generation).
pub fn load_facts(a: &rkyv::Archived<CachedFacts>) -> Option<FileFacts> {
    rkyv::deserialize::<FileFacts, rkyv::rancor::Error>(&a.facts).ok()
}

/// One file's facts in outline: what the node and file tables and the build summary read (the
/// definitions, line and error counts, package, `generated`), without what only the link reads
/// (imports, calls, bindings, the value flow), which is most of the deserializing. A rebuild
/// that keeps the previous links needs no more of an unchanged file.
pub fn load_outline(a: &rkyv::Archived<CachedFacts>) -> Option<FileFacts> {
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

/// One file's facts but its calls: what the scope tables and resolvers read of a file that
/// is not linked again itself (a family linked file by file, see `build::relink`: no table
/// reads another file's calls), without the calls, most of the deserializing (the Linux
/// kernel: 4 million of them against 0.8 million definitions).
pub fn load_without_calls(a: &rkyv::Archived<CachedFacts>) -> Option<FileFacts> {
    use rkyv::rancor::Error as E;
    let f = &a.facts;
    Some(FileFacts {
        defs: rkyv::deserialize::<_, E>(&f.defs).ok()?,
        imports: rkyv::deserialize::<_, E>(&f.imports).ok()?,
        calls: Vec::new(),
        binds: rkyv::deserialize::<_, E>(&f.binds).ok()?,
        lines: f.lines.to_native(),
        syntax_errors: f.syntax_errors.to_native(),
        py3_invalid: f.py3_invalid,
        first_error_line: f.first_error_line.to_native(),
        package: rkyv::deserialize::<_, E>(&f.package).ok()?,
        impls: rkyv::deserialize::<_, E>(&f.impls).ok()?,
        generated: f.generated,
        flow: rkyv::deserialize::<_, E>(&f.flow).ok()?,
        all: rkyv::deserialize::<_, E>(&f.all).ok()?,
    })
}

/// A validated view of a facts table and the archives it lists.
pub struct FactsView<'a> {
    archives: &'a [u8],
    table: &'a rkyv::Archived<FactsTable>,
}

impl<'a> FactsView<'a> {
    /// Validates the table of `facts.rkyv`'s payload (the per-file archives, in `blob`,
    /// `facts.bin`'s payload, are validated when read).
    pub fn new(payload: &'a [u8], blob: &'a [u8]) -> Option<FactsView<'a>> {
        let n = payload.len();
        let off = u64::from_le_bytes(payload.get(n.checked_sub(8)?..)?.try_into().ok()?) as usize;
        let table_bytes = payload.get(off..n - 8)?;
        let table =
            rkyv::access::<rkyv::Archived<FactsTable>, rkyv::rancor::Error>(table_bytes).ok()?;
        Some(FactsView { archives: blob, table })
    }

    /// The payload bytes of the archives that are in use.
    pub fn live_bytes(&self) -> u64 {
        self.table.files.iter().map(|e| e.len.to_native()).sum()
    }

    /// The table's entries.
    pub fn entries(&self) -> &'a [rkyv::Archived<FactsEntry>] {
        &self.table.files
    }

    /// The archive bytes of entry `i`.
    pub fn archive(&self, i: usize) -> Option<&'a [u8]> {
        let e = self.table.files.get(i)?;
        let (a, len) = (e.off.to_native() as usize, e.len.to_native() as usize);
        self.archives.get(a..a.checked_add(len)?)
    }

    /// The facts and term counts of entry `i`, validated and deserialized.
    pub fn load(&self, i: usize) -> Option<(FileFacts, FileTerms)> {
        load(validated(self.archive(i)?)?)
    }

    /// Checks every archive; the first problem found.
    pub fn verify(&self) -> Result<(), String> {
        for i in 0..self.table.files.len() {
            let bytes = self.archive(i).ok_or_else(|| format!("entry {i} is out of range"))?;
            rkyv::access::<rkyv::Archived<CachedFacts>, rkyv::rancor::BoxedError>(bytes)
                .map_err(|e| format!("entry {i}: {e}"))?;
            if crc32fast::hash(bytes) != self.table.files[i].crc.to_native() {
                return Err(format!("entry {i}: checksum mismatch"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::python::Extractor;
    use std::fs;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cds-facts-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    /// Writes a cache of `files` (path, archive bytes) into `dir`, sharing `share`.
    fn write(dir: &Path, share: Option<(&Path, &[u8])>, files: &[(&[u8], &[u8])]) {
        fs::create_dir_all(dir).unwrap();
        let mut w = Writer::create(dir, share).unwrap();
        for (rel, bytes) in files {
            // (An archive kept where it lies brings its CRC, as a build's entries do.)
            let crc = crc32fast::hash(bytes);
            w.push(FactsEntry { rel: rel.to_vec(), size: 1, crc, ..Default::default() }, bytes)
                .unwrap();
        }
        w.finish().unwrap();
    }

    fn open(dir: &Path) -> (Mapped, Mapped) {
        let table = Mapped::open(&dir.join(FACTS_FILE), MAGIC_FACTS, dir).unwrap();
        (table, open_blob(dir, dir).unwrap())
    }

    #[test]
    fn an_archive_is_read_only_with_the_checksum_it_was_written_with() {
        let src = b"class A:\n    def f(self):\n        return g()\n";
        let facts = Extractor::new().extract(src);
        let terms = crate::search::bm25::file_terms(src, &facts);
        let bytes = archive(&facts, &terms).unwrap();
        let crc = crc32fast::hash(&bytes);
        assert_eq!(load(checked(&bytes, crc).unwrap()), Some((facts.clone(), terms)));
        assert_eq!(load_outline(checked(&bytes, crc).unwrap()).unwrap().defs, facts.defs);
        // Without its calls, the facts are the file's but for them.
        assert!(!facts.calls.is_empty());
        let without = FileFacts { calls: Vec::new(), ..facts.clone() };
        assert_eq!(load_without_calls(checked(&bytes, crc).unwrap()), Some(without));
        assert!(checked(&bytes, crc ^ 1).is_none());
        let mut damaged = bytes.clone();
        damaged[bytes.len() / 2] ^= 0x10;
        assert!(checked(&damaged, crc).is_none());
        // The same bytes one byte off rkyv's alignment are refused, not read.
        let mut shifted = rkyv::util::AlignedVec::<16>::new();
        shifted.extend_from_slice(&[0]);
        shifted.extend_from_slice(&bytes);
        assert!(checked(&shifted[1..], crc).is_none());
    }

    #[test]
    fn a_generation_keeps_the_archives_it_shares_and_appends_the_new_ones() {
        use std::os::unix::fs::MetadataExt;
        let src = b"def f():\n    return g()\n";
        let facts = Extractor::new().extract(src);
        let terms = crate::search::bm25::file_terms(src, &facts);
        let root = scratch("share");
        let (one, two) = (root.join("gen-1"), root.join("gen-2"));
        write(&one, None, &[(b"a.py", &archive(&facts, &terms).unwrap())]);
        let (table, blob) = open(&one);
        let view = FactsView::new(table.payload(), blob.payload()).unwrap();
        let kept = view.archive(0).unwrap();
        let len_before = fs::metadata(one.join(FACTS_BLOB_FILE)).unwrap().len();
        let empty = archive(&FileFacts::default(), &FileTerms::default()).unwrap();
        let share = (one.join(FACTS_BLOB_FILE), blob.payload());
        write(&two, Some((&share.0, share.1)), &[(b"new.py", &empty), (b"a.py", kept)]);

        // One file: the new archive appended, the kept one where it was.
        let (m1, m2) =
            (fs::metadata(one.join(FACTS_BLOB_FILE)), fs::metadata(two.join(FACTS_BLOB_FILE)));
        assert_eq!(m1.as_ref().unwrap().ino(), m2.unwrap().ino());
        assert_eq!(m1.unwrap().len(), len_before + empty.len().next_multiple_of(16) as u64);
        let (table, blob) = open(&two);
        let view = FactsView::new(table.payload(), blob.payload()).unwrap();
        assert_eq!(view.entries().len(), 2);
        assert_eq!(view.entries()[1].rel.as_slice(), b"a.py");
        assert_eq!(view.entries()[1].off.to_native(), 0);
        let (f, t) = view.load(1).unwrap();
        assert_eq!((f, t), (facts.clone(), terms.clone()));
        assert_eq!(view.load(0).unwrap().0, FileFacts::default());
        assert!(view.verify().is_ok());
        assert!(
            FactsView::new(&table.payload()[..table.payload().len() - 3], blob.payload()).is_none()
        );
        // The first generation still reads as it was.
        let (table, blob) = open(&one);
        let view = FactsView::new(table.payload(), blob.payload()).unwrap();
        assert_eq!(view.entries().len(), 1);
        assert_eq!(view.load(0).unwrap().0, facts);
        let _ = fs::remove_dir_all(&root);
    }
}
