//! The on-disk format: file headers and the rkyv archives' layouts.
//!
//! Every index file starts with the same 32-byte header:
//!
//! | bytes | field |
//! | --- | --- |
//! | 0..8 | magic (`CDSGRAPH`, `CDSNAMES`, `CDSNDELT`, `CDSNDMAP`, `CDSTERMS`, `CDSPOSTS`, `CDSPDELT`, `CDSTEXT\0`, `CDSFACTS`, `CDSHISTO`, `CDSMSGS\0`) |
//! | 8..12 | format version (u32 LE), [`FORMAT_VERSION`] (readers take [`MIN_READ_VERSION`] on) |
//! | 12..16 | layout flags (u32 LE), [`LAYOUT`]: rkyv's endianness, alignment, pointer width |
//! | 16..24 | payload length (u64 LE), the bytes after the header |
//! | 24..28 | CRC-32 of the payload (checked by `cds-build --verify`, not on every call) |
//! | 28..32 | block sums: log2 of the block size ([`BLOCK_SHIFT`]), or 0 for none (u32 LE) |
//!
//! With block sums (version 8 on), the payload is followed by the CRC-32 of each of its
//! blocks (u32 LE; the last block may be short), so a reader checks the bytes it reads, block
//! by block, without reading the whole file (`read::Mapped::sound`): the graph and the
//! postings are read a few entries at a time, and a whole-file CRC on every call would cost
//! more than the call (0.5 ms a process on Django's 7 MB graph, 10 ms on the Linux kernel's).
//!
//! (`content.bin` and `facts.bin` grow by appends and are shared between generations: their
//! length and CRC fields are 0, they have no block sums, and the tables that list their pieces
//! give each piece's place and CRC; see `write::AppendedFile`.)
//!
//! The payload starts at byte 32, so it stays 16-aligned in a page-aligned mmap, as rkyv needs.
//! Archives are struct-of-arrays of primitives only: validating them costs O(number of
//! fields), so readers use rkyv's validated access on every call.

use rkyv::{Archive, Deserialize, Serialize};

/// Bumped whenever any file's layout or meaning changes. Version 8 added the block sums after
/// the payload (see the header's last field); a file without them (version 7 and older) reads
/// as it did, unchecked block by block. Version 7 added the name index's delta
/// (`names-delta.fst`, `names-delta.rkyv`: [`NamesDelta`]), which version 6 readers would not
/// see; it changed nothing else, so older generations read as they did.
pub const FORMAT_VERSION: u32 = 8;

/// The oldest version readers take: version 5 added `postings-delta.rkyv` and changed nothing
/// else, so a version 4 generation reads as one without a delta (and version 4 readers refuse
/// a version 5 index, whose delta they would not see). Version 6 changed only the delta's
/// layout (it may renumber documents: [`PostingsDelta::base_replaced`]), so an older
/// generation reads as it did unless it has a delta, which [`MIN_DELTA_VERSION`] refuses.
pub const MIN_READ_VERSION: u32 = 4;

/// The oldest `postings-delta.rkyv` readers take (see [`MIN_READ_VERSION`]).
pub const MIN_DELTA_VERSION: u32 = 6;

/// rkyv layout of this build: little endian (1), aligned (2), 32-bit relative pointers (4).
/// The format is fixed by Cargo features; recording it catches a build with other features.
pub const LAYOUT: u32 = 1 | 2 | 4;

/// Header size in bytes.
pub const HEADER_LEN: usize = 32;

/// Files written whole have a CRC-32 per block of 2^`BLOCK_SHIFT` payload bytes (a page: a
/// block is read when any of its bytes is, so checking it costs little beyond the read).
pub const BLOCK_SHIFT: u32 = 12;

/// The bytes the block sums of a payload of `len` bytes take, for blocks of 2^`shift` bytes
/// (`shift` 0: none).
pub fn sums_len(len: u64, shift: u32) -> u64 {
    if shift == 0 { 0 } else { len.div_ceil(1 << shift) * 4 }
}

/// Magic of `graph.rkyv`.
pub const MAGIC_GRAPH: &[u8; 8] = b"CDSGRAPH";
/// Magic of `names.fst`.
pub const MAGIC_NAMES: &[u8; 8] = b"CDSNAMES";
/// Magic of `names-delta.fst`.
pub const MAGIC_NAMES_DELTA: &[u8; 8] = b"CDSNDELT";
/// Magic of `names-delta.rkyv`.
pub const MAGIC_NAMES_MAP: &[u8; 8] = b"CDSNDMAP";
/// Magic of `terms.fst`.
pub const MAGIC_TERMS: &[u8; 8] = b"CDSTERMS";
/// Magic of `postings.rkyv`.
pub const MAGIC_POSTINGS: &[u8; 8] = b"CDSPOSTS";
/// Magic of `postings-delta.rkyv`.
pub const MAGIC_POSTINGS_DELTA: &[u8; 8] = b"CDSPDELT";
/// Magic of `content.bin`.
pub const MAGIC_CONTENT: &[u8; 8] = b"CDSTEXT\0";
/// Magic of `facts.rkyv` (the builder's cache).
pub const MAGIC_FACTS: &[u8; 8] = b"CDSFACTS";
/// Magic of `facts.bin` (the archives `facts.rkyv` lists; see `index::facts`).
pub const MAGIC_FACTS_BLOB: &[u8; 8] = b"CDSFBLOB";

/// Magic of `history.rkyv` (optional: only repositories with git history have one).
pub const MAGIC_HISTORY: &[u8; 8] = b"CDSHISTO";

/// Magic of `messages.rkyv` (optional, beside `history.rkyv`).
pub const MAGIC_MESSAGES: &[u8; 8] = b"CDSMSGS\0";

/// Magic of `history-others.rkyv` (optional, beside `history.rkyv`).
pub const MAGIC_HISTORY_OTHERS: &[u8; 8] = b"CDSHOTHR";

/// File names inside a generation directory.
pub const GRAPH_FILE: &str = "graph.rkyv";
/// See [`GRAPH_FILE`].
pub const NAMES_FILE: &str = "names.fst";
/// See [`GRAPH_FILE`] (optional, with [`NAMES_MAP_FILE`]: see [`NamesDelta`]).
pub const NAMES_DELTA_FILE: &str = "names-delta.fst";
/// See [`GRAPH_FILE`] (optional: see [`NamesDelta`]).
pub const NAMES_MAP_FILE: &str = "names-delta.rkyv";
/// See [`GRAPH_FILE`].
pub const TERMS_FILE: &str = "terms.fst";
/// See [`GRAPH_FILE`].
pub const POSTINGS_FILE: &str = "postings.rkyv";
/// See [`GRAPH_FILE`] (optional: see [`PostingsDelta`]).
pub const POSTINGS_DELTA_FILE: &str = "postings-delta.rkyv";
/// See [`GRAPH_FILE`].
pub const CONTENT_FILE: &str = "content.bin";
/// See [`GRAPH_FILE`].
pub const FACTS_FILE: &str = "facts.rkyv";
/// See [`GRAPH_FILE`].
pub const FACTS_BLOB_FILE: &str = "facts.bin";
/// See [`GRAPH_FILE`].
pub const HISTORY_FILE: &str = "history.rkyv";
/// See [`GRAPH_FILE`] (optional: see [`MessagesFile`]).
pub const MESSAGES_FILE: &str = "messages.rkyv";
/// See [`GRAPH_FILE`] (optional: see [`HistoryOthersFile`]).
pub const HISTORY_OTHERS_FILE: &str = "history-others.rkyv";

/// A parsed header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// The magic.
    pub magic: [u8; 8],
    /// Format version.
    pub version: u32,
    /// Layout flags.
    pub layout: u32,
    /// Payload length.
    pub len: u64,
    /// CRC-32 of the payload.
    pub crc: u32,
    /// log2 of the block size of the block sums after the payload; 0: none.
    pub block_shift: u32,
}

impl Header {
    /// The header for a payload.
    pub fn for_payload(magic: &[u8; 8], payload: &[u8]) -> Header {
        Header {
            magic: *magic,
            version: FORMAT_VERSION,
            layout: LAYOUT,
            len: payload.len() as u64,
            crc: crc32fast::hash(payload),
            block_shift: 0,
        }
    }

    /// Encodes the header.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(&self.magic);
        b[8..12].copy_from_slice(&self.version.to_le_bytes());
        b[12..16].copy_from_slice(&self.layout.to_le_bytes());
        b[16..24].copy_from_slice(&self.len.to_le_bytes());
        b[24..28].copy_from_slice(&self.crc.to_le_bytes());
        b[28..32].copy_from_slice(&self.block_shift.to_le_bytes());
        b
    }

    /// Decodes a header; None when the bytes are too short.
    pub fn parse(b: &[u8]) -> Option<Header> {
        if b.len() < HEADER_LEN {
            return None;
        }
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mut magic = [0u8; 8];
        magic.copy_from_slice(&b[0..8]);
        let mut len = [0u8; 8];
        len.copy_from_slice(&b[16..24]);
        Some(Header {
            magic,
            version: u32_at(8),
            layout: u32_at(12),
            len: u64::from_le_bytes(len),
            crc: u32_at(24),
            block_shift: u32_at(28),
        })
    }
}

/// Build-wide facts stored with the graph.
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct Meta {
    /// Graph mode: 0 native, 1 LocAgent-compatible.
    pub mode: u8,
    /// Absolute path of the indexed repository, as bytes.
    pub root: Vec<u8>,
    /// When the build finished, nanoseconds since the epoch.
    pub built_ns: i64,
    /// The options that shape the file set (canonical text), to detect a changed build setup.
    pub options: Vec<u8>,
    /// cds version that wrote the index.
    pub tool_version: Vec<u8>,
}

/// `history.rkyv`: the repository's recent commits per file (see [`crate::history`]), in the
/// graph's file table order. A generation without it has no history; only `cds-loc` and the
/// next build read it.
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct HistoryFile {
    /// The commit `HEAD` named when the history was read.
    pub head: Vec<u8>,
    /// Per file: commits since it last changed ([`crate::history::WINDOW`]: not in the window).
    pub age: Vec<u16>,
    /// Per file: commits among the last [`crate::history::CHURN_WINDOW`] that changed it.
    pub churn: Vec<u16>,
}

/// `messages.rkyv`: per file, the terms of the messages of the commits that changed it (see
/// [`crate::history::Messages`]), in the graph's file table order. Written with
/// `history.rkyv`; an index written before it existed has a history without messages, which
/// the next build reads again.
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct MessagesFile {
    /// Offsets of each term in `vocab` (one more than terms).
    pub vocab_off: Vec<u32>,
    /// The terms, sorted and concatenated: a term's number is its position.
    pub vocab: Vec<u8>,
    /// Per file, its range of `term` and `count` (one more than files).
    pub file_off: Vec<u32>,
    /// Term numbers, ascending within each file.
    pub term: Vec<u32>,
    /// How often each term occurs in the file's messages.
    pub count: Vec<u32>,
}

/// `history-others.rkyv`: the history of the source paths the window's commits changed that
/// are not in the file table (deleted, renamed, ignored), so that the next build can carry the
/// history over to a file it did not index and advance it when `HEAD` moves on (see
/// [`crate::history::History::complete`]). Written with `history.rkyv`; only the builder reads
/// it, and without it the next build reads the history again in those cases.
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct HistoryOthersFile {
    /// Offsets of each path in `rel` (one more than paths).
    pub rel_off: Vec<u32>,
    /// The paths relative to the root, sorted and concatenated.
    pub rel: Vec<u8>,
    /// Per path, as in [`HistoryFile`].
    pub age: Vec<u16>,
    /// Per path, as in [`HistoryFile`].
    pub churn: Vec<u16>,
    /// Per path, as in `messages.rkyv`.
    pub messages: MessagesFile,
}

/// `graph.rkyv`: nodes, edges (CSR in both directions), names' multi-postings, the file table.
///
/// Node columns have one entry per node; `*_off` columns have one more. Byte positions are
/// offsets into the node's file content; lines are 1-based.
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct GraphFile {
    /// Build facts.
    pub meta: Meta,
    /// Node kind codes (`NodeKind as u8`).
    pub kind: Vec<u8>,
    /// `FLAG_*` bits.
    pub flags: Vec<u8>,
    /// Offsets of each node's ID in `id_blob`.
    pub id_off: Vec<u32>,
    /// All IDs, concatenated.
    pub id_blob: Vec<u8>,
    /// Containing node (`NONE` for the root and orphans).
    pub parent: Vec<u32>,
    /// Index into the file table (`NONE` for directories).
    pub file: Vec<u32>,
    /// First line (decorators included).
    pub line_start: Vec<u32>,
    /// Line of the `def` / `class` keyword (first line for files).
    pub line_head: Vec<u32>,
    /// Last line.
    pub line_end: Vec<u32>,
    /// First byte (decorators included).
    pub byte_start: Vec<u32>,
    /// Byte of the `def` / `class` keyword.
    pub byte_head: Vec<u32>,
    /// End of the signature (the fold view is `byte_head..byte_sig_end`).
    pub byte_sig_end: Vec<u32>,
    /// End byte.
    pub byte_end: Vec<u32>,
    /// Docstring start (equal to `doc_end` when there is none).
    pub doc_start: Vec<u32>,
    /// Docstring end.
    pub doc_end: Vec<u32>,
    /// Out-edges of node i: `out_off[i]..out_off[i+1]` into the `out_*` columns.
    pub out_off: Vec<u32>,
    /// Out-edge targets.
    pub out_dst: Vec<u32>,
    /// Out-edge kinds (`EdgeKind as u8`).
    pub out_kind: Vec<u8>,
    /// Out-edge confidence (see `graph::Edge::meta`).
    pub out_meta: Vec<u8>,
    /// In-edges of node i: `in_off[i]..in_off[i+1]` into the `in_*` columns.
    pub in_off: Vec<u32>,
    /// In-edge sources.
    pub in_src: Vec<u32>,
    /// In-edge kinds.
    pub in_kind: Vec<u8>,
    /// In-edge confidence.
    pub in_meta: Vec<u8>,
    /// Node numbers sorted by ID bytes (exact lookup by binary search).
    pub by_id: Vec<u32>,
    /// Postings of names shared by several nodes: `multi_off[k]..multi_off[k+1]` in `multi_ids`.
    pub multi_off: Vec<u32>,
    /// See `multi_off`.
    pub multi_ids: Vec<u32>,
    /// File table: the file's node.
    pub file_node: Vec<u32>,
    /// File table: size in bytes when indexed.
    pub file_size: Vec<u64>,
    /// File table: modification time (ns) when indexed.
    pub file_mtime: Vec<i64>,
    /// File table: CRC-32 of the content.
    pub file_hash: Vec<u32>,
    /// File table: language code.
    pub file_lang: Vec<u8>,
    /// File table: syntax errors recovered from.
    pub file_errors: Vec<u32>,
    /// File table: line count.
    pub file_lines: Vec<u32>,
    /// File table: where the content lies in `content.bin`'s payload (generations share the
    /// file and append to it, so a file's content need not follow the one before).
    pub content_off: Vec<u64>,
    /// File table: the content's length.
    pub content_len: Vec<u64>,
}

/// `postings.rkyv`: the BM25 content index. Term `t`'s number is its value in `terms.fst`,
/// or, for a term added since that file was written, `terms.fst`'s length plus its place among
/// `added_ends` (a rebuild that brings new terms keeps the previous `terms.fst` and lists them
/// here, in sorted order, until there are enough to write the dictionary again).
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct PostingsFile {
    /// Document length in tokens per node (0: the node is not a document).
    pub doc_len: Vec<u32>,
    /// Average document length per node kind (indexed by kind code).
    pub avgdl: Vec<f32>,
    /// Number of documents.
    pub n_docs: u32,
    /// Postings of term t: `post_off[t]..post_off[t+1]` into `post_doc` / `post_tf`.
    pub post_off: Vec<u32>,
    /// Documents (node numbers), ascending within a term.
    pub post_doc: Vec<u32>,
    /// Term frequency in the document (saturating).
    pub post_tf: Vec<u16>,
    /// The terms not in `terms.fst`, in sorted order, concatenated.
    pub added_text: Vec<u8>,
    /// Where each added term ends in `added_text`.
    pub added_ends: Vec<u32>,
}

/// `postings-delta.rkyv`: what a rebuild writes instead of the whole postings, over the
/// previous generation's `postings.rkyv` (its base, hard-linked into the new generation): the
/// postings of the documents of the files that changed since the base was written, and the
/// document statistics whole. Documents are nodes, numbered in path order, so a definition
/// added or removed renumbers the documents after it: the delta replaces ranges of the base's
/// documents (`base_replaced`) by ranges of this generation's (`replaced`), and the base's
/// documents between two ranges keep their order, shifted by the same amount. A reader takes
/// a term's base postings but for the documents in `base_replaced`, each shifted, and the
/// delta's for the documents in `replaced`. A rebuild whose delta would grow past a fraction
/// of its base writes the postings whole again (and no delta).
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct PostingsDelta {
    /// The CRC-32 in the base's header: a delta is never read over another base.
    pub base_crc: u32,
    /// Document length per node, as [`PostingsFile::doc_len`] (replacing the base's).
    pub doc_len: Vec<u32>,
    /// See [`PostingsFile::avgdl`] (replacing the base's).
    pub avgdl: Vec<f32>,
    /// See [`PostingsFile::n_docs`] (replacing the base's).
    pub n_docs: u32,
    /// The documents whose postings are here, not in the base: sorted, disjoint ranges, as
    /// (start, end) pairs flattened.
    pub replaced: Vec<u32>,
    /// The base's documents that range `i` of `replaced` replaces, numbered as in the base,
    /// likewise flattened: one pair per pair of `replaced`. Between two ranges (and before the
    /// first) the base's documents and this generation's correspond one to one, in order, so
    /// base document `d` past range `i` is document `d + replaced[2i + 1] - base_replaced[2i
    /// + 1]`.
    pub base_replaced: Vec<u32>,
    /// The term numbers with postings here, ascending; term `terms[i]`'s postings are
    /// `off[i]..off[i + 1]` of `doc` / `tf`.
    pub terms: Vec<u32>,
    pub off: Vec<u32>,
    /// Documents, ascending within a term; all in `replaced`.
    pub doc: Vec<u32>,
    /// Term frequencies (saturating).
    pub tf: Vec<u16>,
    /// Terms in neither `terms.fst` nor the base's added terms, numbered after the base's
    /// terms in this order (each rebuild appends its new ones), concatenated.
    pub added_text: Vec<u8>,
    /// Where each of them ends in `added_text`.
    pub added_ends: Vec<u32>,
    /// Their positions in `added_ends` in sorted order of the terms (for lookups by bisection).
    pub added_order: Vec<u32>,
}

/// `names-delta.rkyv`: what a rebuild writes beside `names-delta.fst` instead of a whole new
/// `names.fst`, over the previous generation's (its base, hard-linked into the new generation).
/// A node's name keys depend on its ID and kind alone, so the base still holds the keys of every
/// node that kept both, under its number in the base: the delta lists the ranges of the base's
/// nodes that are gone or changed (`base_replaced`) and the ranges of this generation's nodes
/// that replace them (`replaced`), laid out like [`PostingsDelta::replaced`] (between two
/// ranges, and before the first, the base's nodes and this generation's correspond one to one,
/// in order), and `names-delta.fst` holds the keys of the nodes in `replaced`, its values
/// numbered like `names.fst`'s (a node, or `MULTI_TAG | k` into the multi table here). A reader
/// takes a key's nodes from the base but for those in `base_replaced`, each renumbered, and
/// adds the delta's. Each rebuild writes the delta anew over the same base, until it would grow
/// past a fraction of the nodes: then `names.fst` is written whole again (and no delta). The
/// graph's multi table (`GraphFile::multi_off`) stays the base's.
#[derive(Debug, Clone, Default, Archive, Serialize, Deserialize)]
pub struct NamesDelta {
    /// The CRC-32 in the base's header: a delta is never read over another base.
    pub base_crc: u32,
    /// How many nodes the base numbers.
    pub base_nodes: u32,
    /// This generation's nodes whose keys are here, not in the base: sorted, disjoint ranges,
    /// as (start, end) pairs flattened.
    pub replaced: Vec<u32>,
    /// The base's nodes that range `i` of `replaced` replaces, numbered as in the base,
    /// likewise flattened: one pair per pair of `replaced`.
    pub base_replaced: Vec<u32>,
    /// Nodes of the delta's keys that name several: `multi_off[k]..multi_off[k+1]` in
    /// `multi_ids`.
    pub multi_off: Vec<u32>,
    /// See `multi_off`.
    pub multi_ids: Vec<u32>,
}
