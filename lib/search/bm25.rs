//! BM25 over entity content: per-file term counts, the postings builder, and the scoring.
//!
//! Tokenizing is the expensive part, so it happens once per changed file, in parallel, and its
//! result ([`FileTerms`]: term counts per *segment*) is cached with the file's facts. A segment
//! is the module-level text of the file, or the own text of one definition (its span minus the
//! spans of the definitions nested in it). Documents are then assembled from segments when the
//! index is written, without re-reading any source:
//!
//! * a function: its own text and that of everything nested in it, plus its name;
//! * a class: its own text (header, docstring, class-level statements) plus its name and the
//!   names of its members (methods are documents of their own);
//! * a file: all of its text, plus its path.
//!
//! Scores are classic BM25 with [`K1`] and [`B`], computed at query time from raw term
//! frequencies, document lengths and per-kind average lengths, so they are deterministic and
//! the parameters can change without rebuilding.

use rkyv::{Archive, Deserialize, Serialize};

use crate::extract::{DefKind, FileFacts};
use crate::search::tokenize;

/// BM25 term-frequency saturation.
pub const K1: f32 = 1.2;
/// BM25 length normalisation.
pub const B: f32 = 0.75;
/// How many times a name's terms count in its entity's document.
pub const NAME_WEIGHT: u32 = 2;

/// Term counts of one file, per segment. Segment 0 is the module-level text; segment `d + 1`
/// is the own text of definition `d`.
#[derive(Debug, Clone, Default, PartialEq, Archive, Serialize, Deserialize)]
pub struct FileTerms {
    /// The file's distinct terms, one after another: term `i` ends at `term_ends[i]` and
    /// starts where term `i - 1` ends (one buffer, not an allocation per term).
    pub term_text: Vec<u8>,
    pub term_ends: Vec<u32>,
    /// Segment s spans `seg_off[s]..seg_off[s+1]` of `seg`.
    pub seg_off: Vec<u32>,
    /// (local term number into the terms above, count), terms ascending within a segment.
    pub seg: Vec<(u32, u32)>,
}

impl FileTerms {
    /// Number of segments.
    pub fn segments(&self) -> usize {
        self.seg_off.len().saturating_sub(1)
    }

    /// The file's distinct terms, by local number.
    pub fn terms(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        (0..self.term_ends.len()).map(|i| self.term(i as u32))
    }

    /// Local term `t`.
    pub fn term(&self, t: u32) -> &[u8] {
        nth_term(&self.term_text, &self.term_ends, t as usize)
    }

    /// (local term, count) pairs of segment `s`.
    pub fn segment(&self, s: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let (a, b) = (self.seg_off[s] as usize, self.seg_off[s + 1] as usize);
        self.seg[a..b].iter().copied()
    }
}

/// Term `i` of terms stored one after another, term `i` ending at `ends[i]`.
fn nth_term<'t>(text: &'t [u8], ends: &[u32], i: usize) -> &'t [u8] {
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    &text[start..ends[i] as usize]
}

/// Terms copied out of a [`PostingsBuilder`] in sorted order (a [`Vocab`] without its table:
/// nothing is looked up in it).
#[derive(Default)]
pub struct SortedTerms(Vocab);

impl SortedTerms {
    /// The terms, in sorted order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        (0..self.0.len() as u32).map(|t| self.0.term(t))
    }
}

/// Tokenizes `src` once and counts terms per segment.
pub fn file_terms(src: &[u8], facts: &FileFacts) -> FileTerms {
    let defs = &facts.defs;
    // The file's terms, numbered in order of first occurrence.
    // Sized for a file's distinct words and terms (about one per 32 bytes of code), so that
    // neither table grows and rehashes a few times per file.
    let mut words = Vocab::with_capacity(src.len() / 32);
    // (segment, local term) for every token, in document order.
    let mut occ: Vec<(u32, u32)> = Vec::with_capacity(src.len() / 8);
    let mut stack: Vec<usize> = Vec::new(); // indices of open definitions
    let mut next_def = 0usize;
    // Each distinct word is lower-cased, split and its terms numbered once; its later
    // occurrences repeat those numbers (a file uses the same identifiers over and over).
    let mut seen = Vocab::with_capacity(src.len() / 32);
    let mut word_terms: Vec<std::ops::Range<u32>> = Vec::new();
    let mut term_ids: Vec<u32> = Vec::new();
    let mut buf = Vec::with_capacity(tokenize::MAX_WORD);
    tokenize::words(src, |pos, word| {
        if word.len() < 2 {
            return; // no term: a term has two bytes or more
        }
        let w = seen.intern(word) as usize;
        if w == word_terms.len() {
            let start = term_ids.len() as u32;
            tokenize::word_terms(word, &mut buf, |t| term_ids.push(words.intern(t)));
            word_terms.push(start..term_ids.len() as u32);
        }
        let terms = word_terms[w].clone();
        if terms.is_empty() {
            return;
        }
        let pos = pos as u32;
        // Open every definition starting at or before `pos`, closing finished ones first.
        while next_def < defs.len() && defs[next_def].byte_start <= pos {
            while stack.last().is_some_and(|&d| defs[d].byte_end <= defs[next_def].byte_start) {
                stack.pop();
            }
            stack.push(next_def);
            next_def += 1;
        }
        while stack.last().is_some_and(|&d| defs[d].byte_end <= pos) {
            stack.pop();
        }
        let seg = stack.last().map_or(0, |&d| d as u32 + 1);
        occ.extend(term_ids[terms.start as usize..terms.end as usize].iter().map(|&t| (seg, t)));
    });
    // The tokens grouped by segment (a counting sort, stable), then counted per segment with
    // one accumulator: the same (segment, term)-ordered runs as sorting every token, in
    // linear time but for sorting each segment's distinct terms.
    let nseg = defs.len() + 1;
    let mut start = vec![0u32; nseg + 1];
    for &(s, _) in &occ {
        start[s as usize + 1] += 1;
    }
    for s in 0..nseg {
        start[s + 1] += start[s];
    }
    let mut fill = start.clone();
    let mut by_seg = vec![0u32; occ.len()];
    for &(s, t) in &occ {
        let at = &mut fill[s as usize];
        by_seg[*at as usize] = t;
        *at += 1;
    }
    drop(occ);
    let mut out = FileTerms {
        seg_off: Vec::with_capacity(nseg + 1),
        seg: Vec::new(),
        term_text: Vec::new(),
        term_ends: Vec::new(),
    };
    let mut acc = vec![0u32; words.len()];
    let mut touched: Vec<u32> = Vec::new();
    for s in 0..nseg {
        out.seg_off.push(out.seg.len() as u32);
        for &t in &by_seg[start[s] as usize..start[s + 1] as usize] {
            let slot = &mut acc[t as usize];
            if *slot == 0 {
                touched.push(t);
            }
            *slot += 1;
        }
        touched.sort_unstable();
        for &t in &touched {
            out.seg.push((t, std::mem::take(&mut acc[t as usize])));
        }
        touched.clear();
    }
    out.seg_off.push(out.seg.len() as u32);
    out.term_ends = words.ends.iter().map(|&e| e as u32).collect();
    out.term_text = words.text;
    out
}

/// Accumulates documents into postings.
#[derive(Debug, Default)]
pub struct PostingsBuilder {
    /// Term -> term number.
    vocab: Vocab,
    /// Per term number: its postings.
    lists: Vec<PostingList>,
    doc_len: Vec<u32>,
    n_docs: u32,
    /// [`PostingsBuilder::add_file`]'s counts of one document by term number (all zero
    /// between documents), and the terms it counted.
    acc: Vec<u32>,
    touched: Vec<u32>,
}

/// Every distinct term once, numbered in order of arrival: the texts in one buffer and a table
/// of numbers hashed by text. A `HashMap<Vec<u8>, u32>` took about 70 bytes a term on top of
/// its text, and the Linux kernel has 4.1M terms.
#[derive(Default)]
struct Vocab {
    text: Vec<u8>,
    /// End of term i in `text` (it starts where term i - 1 ends).
    ends: Vec<usize>,
    table: hashbrown::HashTable<u32>,
}

impl std::fmt::Debug for Vocab {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Vocab({} terms)", self.len())
    }
}

impl Vocab {
    fn with_capacity(terms: usize) -> Vocab {
        Vocab {
            text: Vec::with_capacity(terms * 8),
            ends: Vec::with_capacity(terms),
            table: hashbrown::HashTable::with_capacity(terms),
        }
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    fn term(&self, id: u32) -> &[u8] {
        &self.text[Vocab::span(&self.ends, id)]
    }

    /// Where term `id` lies in the text.
    fn span(ends: &[usize], id: u32) -> std::ops::Range<usize> {
        let i = id as usize;
        (if i == 0 { 0 } else { ends[i - 1] })..ends[i]
    }

    fn hash(term: &[u8]) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault};
        BuildHasherDefault::<fxhash::FxHasher>::default().hash_one(term)
    }

    /// The term's number, numbering it when it is new.
    fn intern(&mut self, term: &[u8]) -> u32 {
        let hash = Vocab::hash(term);
        let Vocab { text, ends, table } = self;
        if let Some(&id) = table.find(hash, |&id| &text[Vocab::span(ends, id)] == term) {
            return id;
        }
        let id = ends.len() as u32;
        text.extend_from_slice(term);
        ends.push(text.len());
        table.insert_unique(hash, id, |&id| Vocab::hash(&text[Vocab::span(ends, id)]));
        id
    }
}

/// One term's (document, tf) postings in the order they were added, packed: each document as
/// the zigzag varint of its difference to the previous one, then tf as a varint. Postings are
/// most of what a build holds for the search index, and this takes 2-3 bytes a posting where
/// a pair of u32 takes 8 (about a quarter of the peak on the kernel's `net/` otherwise). Most
/// terms have a posting or two, which fit inline, without an allocation of their own.
#[derive(Debug, Default, Clone)]
struct PostingList {
    bytes: smallvec::SmallVec<[u8; 16]>,
    last: u32,
}

impl PostingList {
    fn push(&mut self, doc: u32, tf: u32) {
        let delta = i64::from(doc) - i64::from(self.last);
        put_varint(&mut self.bytes, ((delta << 1) ^ (delta >> 63)) as u64);
        put_varint(&mut self.bytes, u64::from(tf));
        self.last = doc;
    }

    #[cfg(test)]
    fn from_pairs(pairs: &[(u32, u32)]) -> PostingList {
        let mut list = PostingList::default();
        list.refill(pairs);
        list
    }

    /// Replaces the postings with `pairs`, in the list's own buffer (a new buffer per list,
    /// freed one after the other, fragments the heap: the kernel's 4M lists held 150 MB more).
    fn refill(&mut self, pairs: &[(u32, u32)]) {
        self.bytes.clear();
        self.last = 0;
        for &(doc, tf) in pairs {
            self.push(doc, tf);
        }
    }

    fn pairs(&self) -> Vec<(u32, u32)> {
        self.iter().collect()
    }

    fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        let (mut at, mut doc) = (0, 0i64);
        std::iter::from_fn(move || {
            if at >= self.bytes.len() {
                return None;
            }
            let z = get_varint(&self.bytes, &mut at);
            doc += ((z >> 1) as i64) ^ -((z & 1) as i64);
            let tf = get_varint(&self.bytes, &mut at) as u32;
            Some((doc as u32, tf))
        })
    }
}

/// LEB128: seven bits a byte, low bits first, the high bit set on all but the last byte.
fn put_varint(out: &mut smallvec::SmallVec<[u8; 16]>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(bytes: &[u8], at: &mut usize) -> u64 {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let Some(&b) = bytes.get(*at) else { break };
        *at += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            break;
        }
    }
    v
}

/// The documents of one file, handed to [`PostingsBuilder::add_file`].
pub struct FileDocs<'a> {
    /// The file's term counts.
    pub terms: &'a FileTerms,
    /// The file's facts (for nesting).
    pub facts: &'a FileFacts,
    /// The file's node.
    pub file_node: u32,
    /// Node of each definition (`NONE` when the definition is not a node).
    pub def_node: &'a [u32],
    /// ID of a node (for its name terms).
    pub id_of: &'a dyn Fn(u32) -> &'a [u8],
}

impl PostingsBuilder {
    /// A builder for a graph of `n_nodes` nodes.
    pub fn new(n_nodes: usize) -> PostingsBuilder {
        PostingsBuilder { doc_len: vec![0; n_nodes], ..Default::default() }
    }

    fn intern(&mut self, term: &[u8]) -> u32 {
        let id = self.vocab.intern(term);
        if id as usize == self.lists.len() {
            self.lists.push(PostingList::default());
        }
        id
    }

    /// Adds the documents of one file: the file, its classes and its functions.
    pub fn add_file(&mut self, d: FileDocs) {
        let none = crate::graph::NONE;
        let defs = &d.facts.defs;
        let nseg = d.terms.segments();
        // Global term number of each local term; name terms are appended as they are met.
        let mut gid: Vec<u32> = d.terms.terms().map(|t| self.intern(t)).collect();
        // Which documents each segment counts towards: the file, the definition's own node,
        // and every enclosing function (a nested body is part of it); as (document, segment)
        // pairs sorted by document, the file's own left out (it counts every segment).
        let mut doc_segs: Vec<(u32, u32)> = Vec::new();
        let mut docs: Vec<u32> = Vec::new();
        for s in 1..nseg {
            let def = s - 1;
            docs.clear();
            docs.push(d.def_node.get(def).copied().unwrap_or(none));
            let mut p = defs.get(def).and_then(|x| x.parent);
            while let Some(pi) = p {
                if defs[pi as usize].kind == DefKind::Function {
                    docs.push(d.def_node.get(pi as usize).copied().unwrap_or(none));
                }
                p = defs[pi as usize].parent;
            }
            docs.retain(|&n| n != none);
            docs.sort_unstable();
            docs.dedup();
            doc_segs.extend(docs.iter().map(|&n| (n, s as u32)));
        }
        doc_segs.sort_unstable();
        // Document -> the local numbers of its name terms, as (document, local) pairs.
        let mut doc_names: Vec<(u32, u32)> = Vec::new();
        let mut name_buf: Vec<u32> = Vec::new();
        let mut add_names = |this: &mut Self, gid: &mut Vec<u32>, node: u32, text: &[u8]| {
            name_buf.clear();
            tokenize::tokens(text, |_, t| name_buf.push(this.intern(t)));
            for &g in &name_buf {
                // Name terms get local numbers past the vocabulary so one accumulator serves.
                doc_names.push((node, gid.len() as u32));
                gid.push(g);
            }
        };
        for (di, def) in defs.iter().enumerate() {
            let node = d.def_node.get(di).copied().unwrap_or(none);
            if node == none {
                continue;
            }
            add_names(self, &mut gid, node, def.name.as_bytes());
            if let Some(p) = def.parent {
                let pn = d.def_node.get(p as usize).copied().unwrap_or(none);
                if defs[p as usize].kind == DefKind::Class && pn != none {
                    add_names(self, &mut gid, pn, def.name.as_bytes());
                }
            }
        }
        add_names(self, &mut gid, d.file_node, (d.id_of)(d.file_node));
        doc_names.sort_unstable();

        let mut nodes: Vec<u32> =
            doc_segs.iter().chain(doc_names.iter()).map(|&(n, _)| n).collect();
        nodes.push(d.file_node);
        nodes.sort_unstable();
        nodes.dedup();
        // Counted by global term number: several local numbers can map to one term (a name
        // term that also occurs in the text), and each term's list takes one posting per
        // document, in any order of terms.
        let PostingsBuilder { vocab, lists, doc_len, n_docs, acc, touched } = self;
        acc.resize(vocab.len(), 0);
        let (mut si, mut ni) = (0, 0);
        for node in nodes {
            let mut bump = |local: u32, n: u32| {
                let g = gid[local as usize];
                let slot = &mut acc[g as usize];
                if n == 0 {
                    return;
                }
                if *slot == 0 {
                    touched.push(g);
                }
                *slot = slot.saturating_add(n);
            };
            let seg_start = si;
            while si < doc_segs.len() && doc_segs[si].0 == node {
                si += 1;
            }
            if node == d.file_node {
                for s in 0..nseg {
                    d.terms.segment(s).for_each(|(t, n)| bump(t, n));
                }
            } else {
                for &(_, s) in &doc_segs[seg_start..si] {
                    d.terms.segment(s as usize).for_each(|(t, n)| bump(t, n));
                }
            }
            while ni < doc_names.len() && doc_names[ni].0 == node {
                bump(doc_names[ni].1, NAME_WEIGHT);
                ni += 1;
            }
            let mut len = 0u32;
            for &t in touched.iter() {
                let tf = std::mem::take(&mut acc[t as usize]);
                len = len.saturating_add(tf);
                lists[t as usize].push(node, tf);
            }
            touched.clear();
            if let Some(slot) = doc_len.get_mut(node as usize) {
                if *slot == 0 && len > 0 {
                    *n_docs += 1;
                }
                *slot = len;
            }
        }
    }

    /// Makes room for documents `0..n` (a builder fed as files arrive numbers its documents
    /// itself and learns the nodes only later; see [`PostingsBuilder::renumber`]).
    pub fn reserve_docs(&mut self, n: usize) {
        if self.doc_len.len() < n {
            self.doc_len.resize(n, 0);
        }
    }

    /// Renumbers the documents: document `d` becomes node `map[d]` (`NONE`: dropped; several
    /// documents may become one node, whose counts are then summed), in a graph of `n_nodes`.
    pub fn renumber(&mut self, map: &[u32], n_nodes: usize) {
        // Every file is in: the per-document accumulator is done with.
        self.acc = Vec::new();
        let none = crate::graph::NONE;
        let node = |d: u32| map.get(d as usize).copied().unwrap_or(none);
        let mut doc_len = vec![0u32; n_nodes];
        for (d, &len) in self.doc_len.iter().enumerate() {
            let n = node(d as u32);
            if let Some(slot) = doc_len.get_mut(n as usize) {
                *slot = slot.saturating_add(len);
            }
        }
        self.n_docs = doc_len.iter().filter(|&&l| l > 0).count() as u32;
        self.doc_len = doc_len;
        let mut list = Vec::new();
        for packed in &mut self.lists {
            list.clear();
            list.extend(packed.iter().map(|(d, tf)| (node(d), tf)));
            list.retain(|e| e.0 != none && (e.0 as usize) < n_nodes);
            if !list.is_sorted_by_key(|e| e.0) {
                list.sort_unstable_by_key(|e| e.0);
            }
            list.dedup_by(|b, a| {
                let same = a.0 == b.0;
                if same {
                    a.1 = a.1.saturating_add(b.1);
                }
                same
            });
            packed.refill(&list);
        }
    }

    /// Finishes: the terms in sorted order (term i of the returned list is term number i of
    /// the postings) and their postings, still packed: the postings file's arrays are made as
    /// it is written ([`Finished::extend_term`]), never held whole. `kinds` gives each node's kind
    /// code.
    pub fn finish(self, kinds: &[u8]) -> Finished<'static> {
        let order = self.term_order();
        self.finish_in(kinds, order)
    }

    /// The term numbers in sorted order (what [`PostingsBuilder::finish`] numbers the terms by).
    pub fn term_order(&self) -> Vec<u32> {
        let vocab = &self.vocab;
        let mut order: Vec<u32> = (0..vocab.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| vocab.term(a).cmp(vocab.term(b)));
        order
    }

    /// The terms in `order` ([`PostingsBuilder::term_order`]), copied: a dictionary can be
    /// written from them while the builder goes on to renumber and finish.
    pub fn terms_in(&self, order: &[u32]) -> SortedTerms {
        let mut out = Vocab {
            text: Vec::with_capacity(self.vocab.text.len()),
            ends: Vec::with_capacity(order.len()),
            table: hashbrown::HashTable::new(),
        };
        for &t in order {
            out.text.extend_from_slice(self.vocab.term(t));
            out.ends.push(out.text.len());
        }
        SortedTerms(out)
    }

    /// [`PostingsBuilder::finish`] with the term order already computed.
    pub fn finish_in(self, kinds: &[u8], order: Vec<u32>) -> Finished<'static> {
        let mut vocab = self.vocab;
        vocab.table = hashbrown::HashTable::new();
        let mut lists = self.lists;
        let mut post_off = Vec::with_capacity(order.len() + 1);
        let mut total = 0usize;
        for &t in &order {
            post_off.push(total as u32);
            let list = &mut lists[t as usize];
            total += list.iter().count();
            // Files added in node order (and renumbered lists) are sorted already.
            if !list.iter().is_sorted() {
                let mut pairs = list.pairs();
                pairs.sort_unstable();
                list.refill(&pairs);
            }
        }
        post_off.push(total as u32);
        let avgdl = avgdl(&self.doc_len, kinds);
        Finished {
            terms: vocab,
            order,
            doc_len: self.doc_len,
            n_docs: self.n_docs,
            avgdl,
            post_off,
            lists,
            ..Default::default()
        }
    }
}

/// `a` and `b`, each in document order and without a document in common, as one list in
/// document order (in `out`).
fn merge_by_doc(a: &[(u32, u32)], b: &[(u32, u32)], out: &mut Vec<(u32, u32)>) {
    out.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].0 <= b[j].0 {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}

/// `doc_len` with the (document, length) pairs of `carried` set in it.
fn with_lengths(mut doc_len: Vec<u32>, carried: &[(u32, u32)]) -> Vec<u32> {
    for &(n, len) in carried {
        if let Some(slot) = doc_len.get_mut(n as usize) {
            *slot = len;
        }
    }
    doc_len
}

/// Whether `doc` lies in one of `ranges` (sorted, disjoint).
fn within(ranges: &[std::ops::Range<u32>], doc: u32) -> bool {
    let i = ranges.partition_point(|r| r.end <= doc);
    ranges.get(i).is_some_and(|r| r.start <= doc)
}

/// The ranges a delta over `prev`'s base replaces, as (the base's documents, this
/// generation's), given where `prev`'s documents went (`map`) and this generation's document
/// lengths: what lies between two base documents whose postings hold as they are, but for
/// their numbers. A gap with no postings on either side and the same length on both sides
/// (directories between carried files) is no range. None when `map` would reorder documents.
fn replaced_pairs(
    prev: &crate::index::postings::Postings,
    map: &[u32],
    doc_len: &[u32],
) -> Option<Vec<(std::ops::Range<u32>, std::ops::Range<u32>)>> {
    let none = crate::graph::NONE;
    let base_len = prev.base_doc_lens();
    let (base_n, new_n) = (base_len.len() as u32, doc_len.len() as u32);
    let mut pairs = Vec::new();
    // A gap between base documents kept (`b0..b`) and between their new numbers (`n0..n`).
    let mut gap = |b0: u32, b: u32, n0: u32, n: u32| {
        let base_empty =
            (b0..b).all(|d| base_len.get(d as usize).is_none_or(|l| l.to_native() == 0));
        let new_empty = (n0..n).all(|d| doc_len.get(d as usize).is_none_or(|&l| l == 0));
        if b - b0 != n - n0 || !base_empty || !new_empty {
            pairs.push((b0..b, n0..n));
        }
    };
    // Where the run of base documents kept as they are ends, on each side.
    let (mut b0, mut n0) = (0u32, 0u32);
    for (b, p) in prev.base_numbers().into_iter().enumerate() {
        let n = map.get(p as usize).copied().unwrap_or(none);
        if p == none || n == none {
            continue;
        }
        let b = b as u32;
        if n < n0 || n >= new_n {
            return None;
        }
        if (b, n) != (b0, n0) {
            gap(b0, b, n0, n);
        }
        (b0, n0) = (b + 1, n + 1);
    }
    if (b0, n0) != (base_n, new_n) {
        gap(b0, base_n, n0, new_n);
    }
    Some(pairs)
}

/// Average document length per node kind: files and functions differ by orders of magnitude.
fn avgdl(doc_len: &[u32], kinds: &[u8]) -> Vec<f32> {
    let mut sum = [0f64; 4];
    let mut cnt = [0f64; 4];
    for (n, &len) in doc_len.iter().enumerate() {
        if len > 0 {
            let k = kinds.get(n).copied().unwrap_or(0).min(3) as usize;
            sum[k] += len as f64;
            cnt[k] += 1.0;
        }
    }
    (0..4).map(|k| if cnt[k] > 0.0 { (sum[k] / cnt[k]) as f32 } else { 1.0 }).collect()
}

/// See [`Carried::list`].
pub type CarriedList<'a> = Box<dyn FnMut(usize, &mut Vec<(u32, u32)>) + 'a>;

/// Postings carried over from a previous generation for the files that did not change, so a
/// rebuild counts the terms of the changed files only (see [`Finished::carrying`]).
pub struct Carried<'a> {
    /// The previous generation's terms, which number its postings.
    pub terms: PreviousTerms<'a>,
    /// Appends the carried postings of the term the previous generation numbers i, numbered
    /// as the new nodes (postings of documents that changed or went left out).
    pub list: CarriedList<'a>,
    /// (new node, length) of every carried document.
    pub doc_len: Vec<(u32, u32)>,
    /// The previous columns, when every carried document keeps its number: a term none of
    /// whose documents changed then takes its postings from them as they are.
    pub unmoved: Option<Unmoved<'a>>,
    /// When every carried document keeps its number: what writing a delta over the previous
    /// postings takes instead of all of them (see [`Finished::delta`]).
    pub layer: Option<Layer<'a>>,
}

/// The previous generation's postings, for a delta over them (see [`Finished::delta`]).
pub struct Layer<'a> {
    /// Its postings as readers see them (its base and its delta, if any).
    pub prev: crate::index::postings::Postings<'a>,
    /// Its `terms.fst`.
    pub dict: fst::Map<&'a [u8]>,
    /// The CRC in its base's header.
    pub base_crc: u32,
    /// Its documents' numbers in this generation: those of the files carried over, in the
    /// same order ([`crate::graph::NONE`] for a file counted again or gone).
    pub map: Vec<u32>,
}

/// Most postings a delta holds: past a sixteenth of its base's (at least 64K), a rebuild
/// writes the postings whole again. `CDS_DELTA_POSTINGS` sets another bound (tests).
fn max_delta_postings(base: usize) -> usize {
    let set = std::env::var("CDS_DELTA_POSTINGS").ok().and_then(|v| v.parse().ok());
    set.unwrap_or((base / 16).max(1 << 16))
}

/// Most replaced ranges a delta holds (readers skip each in every term they read).
const MAX_DELTA_RANGES: usize = 1024;

/// A generation's term dictionary: numbers `0..base.len()` are its `terms.fst`'s (in sorted
/// order), the next ones its added terms (see [`crate::index::format::PostingsFile`] and
/// [`crate::index::format::PostingsDelta`]).
pub struct PreviousTerms<'a> {
    pub base: fst::Map<&'a [u8]>,
    /// The added terms in sorted order, concatenated, and where each ends.
    pub added_text: Vec<u8>,
    pub added_ends: Vec<usize>,
    /// The added terms' numbers (`base.len() + k` for the `k`th, unless a delta added some
    /// out of order; see [`crate::index::format::PostingsDelta`]).
    pub added_numbers: Vec<usize>,
}

impl PreviousTerms<'_> {
    /// How many terms there are.
    pub fn len(&self) -> usize {
        self.base.len() + self.added_ends.len()
    }

    /// True when there is no term.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `k`th added term.
    fn added(&self, k: usize) -> &[u8] {
        &self.added_text[Vocab::span(&self.added_ends, k as u32)]
    }

    /// The term's number.
    fn number(&self, term: &[u8]) -> Option<usize> {
        if let Some(n) = self.base.get(term) {
            return Some(n as usize);
        }
        let n = self.added_ends.len();
        let k = partition_point(n, |k| self.added(k) < term);
        (k < n && self.added(k) == term).then(|| self.added_number(k))
    }

    /// The `k`th added term's number.
    fn added_number(&self, k: usize) -> usize {
        self.added_numbers.get(k).copied().unwrap_or(self.base.len() + k)
    }

    /// Every term and its number, in sorted order.
    fn sorted(&self) -> Vec<(Vec<u8>, usize)> {
        let mut base = Vec::with_capacity(self.base.len());
        let mut stream = fst::IntoStreamer::into_stream(&self.base);
        while let Some((term, n)) = fst::Streamer::next(&mut stream) {
            base.push((term.to_vec(), n as usize));
        }
        let added =
            (0..self.added_ends.len()).map(|k| (self.added(k).to_vec(), self.added_number(k)));
        let mut all: Vec<(Vec<u8>, usize)> = Vec::with_capacity(self.len());
        let mut base = base.into_iter().peekable();
        for a in added {
            while base.next_if(|b| b.0 < a.0).map(|b| all.push(b)).is_some() {}
            all.push(a);
        }
        all.extend(base);
        all
    }
}

/// The first of `0..n` for which `before` is false (it must be true for a prefix only), by
/// bisection: [`slice::partition_point`] over positions rather than a slice.
pub fn partition_point(n: usize, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// How many added terms a dictionary of `base` terms takes before a rebuild writes it anew:
/// readers search the added ones by bisection, and scan them for typo fixes (16,384 take
/// about half a millisecond), where writing it anew costs a rebuild about a microsecond a term.
fn max_added(base: usize) -> usize {
    (base / 16).clamp(1024, 16_384)
}

/// The previous generation's postings columns, numbered as the new nodes except for the
/// documents `dropped` (see [`Carried::unmoved`]).
pub struct Unmoved<'a> {
    pub docs: &'a [rkyv::rend::u32_le],
    pub tfs: &'a [rkyv::rend::u16_le],
    /// Term i's postings are `off[i]..off[i + 1]` of the columns.
    pub off: &'a [rkyv::rend::u32_le],
    /// The documents not carried (those of changed or removed files), as sorted ranges.
    pub dropped: Vec<std::ops::Range<u32>>,
}

impl Unmoved<'_> {
    /// Term i's postings as they are in the columns, around `counted` (the postings of the
    /// changed documents, in document order): when none of its documents is dropped and
    /// nothing is counted, or the counted documents replace exactly those of the one dropped
    /// run. None otherwise (the term is carried one posting at a time).
    fn splice(&self, i: usize, counted: &[(u32, u32)]) -> Option<Spliced> {
        let (a, b) = (self.off.get(i)?.to_native(), self.off.get(i + 1)?.to_native());
        let docs = self.docs.get(a as usize..b as usize)?;
        self.tfs.get(a as usize..b as usize)?;
        let at = |d: u32| docs.partition_point(|x| x.to_native() < d) as u32;
        let hit = |r: &std::ops::Range<u32>| {
            docs.get(at(r.start) as usize).is_some_and(|d| d.to_native() < r.end)
        };
        match (counted.first(), counted.last(), self.dropped.as_slice()) {
            (None, _, _) if !docs.is_empty() && !self.dropped.iter().any(hit) => {
                Some(Spliced { head: (a, b - a), tail: (b, 0) })
            }
            (Some(first), Some(last), [r]) if r.start <= first.0 && last.0 < r.end => {
                let (p, q) = (at(r.start), at(r.end));
                Some(Spliced { head: (a, p), tail: (a + q, b - a - q) })
            }
            _ => None,
        }
    }
}

/// A term's postings kept in the previous columns: `head` (start, length) comes before its
/// packed postings, `tail` after them.
#[derive(Debug, Clone, Copy)]
struct Spliced {
    head: (u32, u32),
    tail: (u32, u32),
}

/// Finished postings: what `postings.rkyv` holds, with the postings still packed (or, for
/// terms carried whole, still in the previous generation's columns).
#[derive(Debug, Default)]
pub struct Finished<'a> {
    /// The terms, numbered in order of arrival.
    terms: Vocab,
    /// The terms' arrival numbers in sorted order: term number i is `order[i]` here.
    order: Vec<u32>,
    /// Document length in tokens per node.
    pub doc_len: Vec<u32>,
    /// Number of documents.
    pub n_docs: u32,
    /// Average document length per node kind.
    pub avgdl: Vec<f32>,
    /// Postings of term t: `post_off[t]..post_off[t+1]` of [`Finished::postings`].
    pub post_off: Vec<u32>,
    /// Per arrival number, the term's postings, documents ascending.
    lists: Vec<PostingList>,
    /// Per arrival number (empty: none), the ranges of `unmoved` holding the term's carried
    /// postings when they are kept in place, around its packed ones.
    in_place: Vec<Option<Spliced>>,
    /// The previous generation's (documents, term frequencies) columns `in_place` points into.
    unmoved: (&'a [rkyv::rend::u32_le], &'a [rkyv::rend::u16_le]),
    /// Some(n): term numbers `0..n` are the previous generation's `terms.fst`'s, kept, and
    /// [`Finished::terms`] gives the terms after them (its added terms); None: it gives every
    /// term, for a new `terms.fst`.
    pub kept_base: Option<usize>,
}

impl<'a> Finished<'a> {
    /// These postings (of the changed files) and the `carried` ones of the unchanged files, as
    /// one: the same postings as if every file had been counted. Terms keep their previous
    /// numbers (those of its `terms.fst` whether documents still hold them or not), and terms
    /// new to the index are added after them, unless there are too many added terms: then
    /// every term with postings is numbered in sorted order, as a build from scratch does.
    /// `kinds` gives each node's kind code.
    pub fn carrying(self, mut carried: Carried<'a>, kinds: &[u8]) -> Finished<'a> {
        let doc_len = with_lengths(self.doc_len, &carried.doc_len);
        let prev = &carried.terms;
        // The counted terms by previous number; the new ones (in sorted order) apart.
        let mut known: Vec<(usize, u32)> = Vec::new();
        let mut fresh: Vec<u32> = Vec::new();
        for &t in &self.order {
            match prev.number(self.terms.term(t)) {
                Some(n) => known.push((n, t)),
                None => fresh.push(t),
            }
        }
        known.sort_unstable();
        let counted_as =
            |n: usize| known.binary_search_by_key(&n, |k| k.0).ok().map(|i| known[i].1);
        // Every term of the new postings in order: its text (none when it keeps a number of the
        // previous terms.fst), its previous number, and the number it was counted under.
        let base = prev.base.len();
        let n_added = prev.added_ends.len() + fresh.len();
        // Sized up front, here and below: growing these arrays a term at a time (and faulting
        // their pages in twice) took as long as filling them.
        let n_slots = base + n_added;
        let mut texts = Vocab::default();
        texts.ends.reserve(n_slots);
        let mut slots: Vec<(bool, Option<usize>, Option<u32>)> = Vec::with_capacity(n_slots);
        let mut push = |text: Option<&[u8]>, old: Option<usize>, new: Option<u32>| {
            texts.text.extend_from_slice(text.unwrap_or_default());
            texts.ends.push(texts.text.len());
            slots.push((text.is_some(), old, new.or_else(|| counted_as(old?))));
        };
        let kept_base = (n_added <= max_added(base)).then_some(base);
        let mut fresh = fresh.into_iter().map(|t| (self.terms.term(t), t)).peekable();
        match kept_base {
            Some(base) => {
                for n in 0..base {
                    push(None, Some(n), None);
                }
                for k in 0..prev.added_ends.len() {
                    let a = prev.added(k);
                    while let Some((f, t)) = fresh.next_if(|f| f.0 < a) {
                        push(Some(f), None, Some(t));
                    }
                    push(Some(a), Some(prev.added_number(k)), None);
                }
            }
            None => {
                for (a, n) in prev.sorted() {
                    while let Some((f, t)) = fresh.next_if(|f| f.0 < a.as_slice()) {
                        push(Some(f), None, Some(t));
                    }
                    push(Some(&a), Some(n), None);
                }
            }
        }
        for (f, t) in fresh {
            push(Some(f), None, Some(t));
        }
        let mut terms = Vocab::default();
        terms.ends.reserve(slots.len());
        let mut lists: Vec<PostingList> = Vec::with_capacity(slots.len());
        let mut in_place = Vec::new();
        let mut post_off = Vec::with_capacity(slots.len() + 1);
        let mut total = 0usize;
        let (mut old, mut pairs, mut both) = (Vec::new(), Vec::new(), Vec::new());
        for (i, &(has_text, old_n, new_t)) in slots.iter().enumerate() {
            let term = &texts.text[Vocab::span(&texts.ends, i as u32)];
            pairs.clear();
            if let Some(t) = new_t {
                pairs.extend(self.lists[t as usize].iter());
            }
            let mut emit = |list: &[(u32, u32)], sp: Option<Spliced>, len: usize| {
                terms.text.extend_from_slice(term);
                terms.ends.push(terms.text.len());
                post_off.push(total as u32);
                total += len;
                let mut packed = PostingList::default();
                packed.refill(list);
                lists.push(packed);
                if let Some(sp) = sp {
                    if in_place.is_empty() {
                        in_place.reserve(slots.len());
                    }
                    in_place.resize(lists.len() - 1, None);
                    in_place.push(Some(sp));
                }
            };
            // A carried term whose documents kept their numbers keeps its postings where they
            // are, around those counted again for the changed file.
            let kept = old_n.and_then(|n| carried.unmoved.as_ref()?.splice(n, &pairs));
            if let Some(sp) = kept {
                emit(&pairs, Some(sp), (sp.head.1 + sp.tail.1) as usize + pairs.len());
                continue;
            }
            old.clear();
            if let Some(n) = old_n {
                (carried.list)(n, &mut old);
            }
            // A document is either carried or counted again, never both. Each side is in
            // document order already (carried documents keep their order).
            let merged = if pairs.is_empty() {
                &old
            } else if old.is_empty() {
                &pairs
            } else {
                merge_by_doc(&old, &pairs, &mut both);
                &both
            };
            // A term no document holds any more goes, unless its number is kept.
            if merged.is_empty() && has_text {
                continue;
            }
            emit(merged, None, merged.len());
        }
        post_off.push(total as u32);
        if !in_place.is_empty() {
            in_place.resize(lists.len(), None);
        }
        let unmoved = carried.unmoved.as_ref().map_or((&[][..], &[][..]), |u| (u.docs, u.tfs));
        Finished {
            kept_base,
            in_place,
            unmoved,
            order: (0..lists.len() as u32).collect(),
            terms,
            n_docs: doc_len.iter().filter(|&&l| l > 0).count() as u32,
            avgdl: avgdl(&doc_len, kinds),
            doc_len,
            post_off,
            lists,
        }
    }

    /// These postings (of the changed files: [`Layer::changed`]) as a delta over the previous
    /// generation's, which readers merge into the same postings as if every file had been
    /// counted (see [`crate::index::format::PostingsDelta`]). `carried` gives the length of
    /// every document carried over. None when the delta would grow past
    /// [`max_delta_postings`] or [`MAX_DELTA_RANGES`], or bring more added terms than a
    /// dictionary takes ([`max_added`]): the postings are then written whole.
    pub fn delta(
        &self,
        layer: &Layer,
        carried: &[(u32, u32)],
        kinds: &[u8],
    ) -> Option<crate::index::format::PostingsDelta> {
        let prev = &layer.prev;
        let doc_len = with_lengths(self.doc_len.clone(), carried);
        let pairs = replaced_pairs(prev, &layer.map, &doc_len)?;
        if pairs.len() > MAX_DELTA_RANGES {
            return None;
        }
        let replaced: Vec<std::ops::Range<u32>> = pairs.iter().map(|p| p.1.clone()).collect();
        let carry = |d: u32| layer.map.get(d as usize).copied().unwrap_or(crate::graph::NONE);
        // (term number, document, tf): the previous delta's for documents carried over, and
        // those counted now; all in the replaced ranges (or no delta).
        let mut postings: Vec<(u32, u32, u32)> = Vec::new();
        for (t, list) in prev.delta_terms() {
            let kept = list.into_iter().map(|(d, tf)| (carry(d), tf));
            postings.extend(
                kept.filter(|&(d, _)| d != crate::graph::NONE).map(|(d, tf)| (t as u32, d, tf)),
            );
        }
        let mut added_text = Vec::new();
        let mut added_ends = Vec::new();
        for a in prev.delta_added() {
            added_text.extend_from_slice(a);
            added_ends.push(added_text.len() as u32);
        }
        let mut fresh = 0;
        for i in 0..self.n_terms() {
            let term = self.terms.term(self.order[i]);
            let t = match layer.dict.get(term) {
                Some(t) => t as usize,
                None => match prev.find_added(term) {
                    Some(t) => t,
                    None => {
                        added_text.extend_from_slice(term);
                        added_ends.push(added_text.len() as u32);
                        fresh += 1;
                        prev.n_terms() + fresh - 1
                    }
                },
            };
            let mut list = Vec::new();
            self.extend_term(i, |p| p, &mut list);
            postings.extend(list.into_iter().map(|(d, tf)| (t as u32, d, tf)));
        }
        let base_postings = prev.base_postings();
        if prev.n_added() + fresh > max_added(prev.fst_terms())
            || postings.len() > max_delta_postings(base_postings)
            || postings.iter().any(|&(_, d, _)| !within(&replaced, d))
        {
            return None;
        }
        postings.sort_unstable();
        let mut delta = crate::index::format::PostingsDelta {
            base_crc: layer.base_crc,
            replaced: pairs.iter().flat_map(|(_, r)| [r.start, r.end]).collect(),
            base_replaced: pairs.iter().flat_map(|(b, _)| [b.start, b.end]).collect(),
            ..Default::default()
        };
        for &(t, d, tf) in &postings {
            if delta.terms.last() != Some(&t) {
                delta.terms.push(t);
                delta.off.push(delta.doc.len() as u32);
            }
            delta.doc.push(d);
            delta.tf.push(tf_u16(tf));
        }
        delta.off.push(delta.doc.len() as u32);
        let mut order: Vec<u32> = (0..added_ends.len() as u32).collect();
        let term = |k: u32| {
            let k = k as usize;
            let start = if k == 0 { 0 } else { added_ends[k - 1] as usize };
            &added_text[start..added_ends[k] as usize]
        };
        order.sort_unstable_by(|&a, &b| term(a).cmp(term(b)));
        delta.added_order = order;
        delta.added_text = added_text;
        delta.added_ends = added_ends;
        delta.n_docs = doc_len.iter().filter(|&&l| l > 0).count() as u32;
        delta.avgdl = avgdl(&doc_len, kinds);
        delta.doc_len = doc_len;
        Some(delta)
    }

    /// How many postings there are.
    pub fn len(&self) -> usize {
        self.post_off.last().map_or(0, |&n| n as usize)
    }

    /// True when there is no posting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The terms in order (term i is term number i), after the kept ones (see
    /// [`Finished::kept_base`]).
    pub fn terms(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.order[self.kept_base.unwrap_or(0)..].iter().map(|&t| self.terms.term(t))
    }

    /// Every (document, tf) pair, term by term in term order, documents ascending within a term
    /// (what [`Finished::extend_term`] gives, a term after the other).
    #[cfg(test)]
    pub fn postings(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        (0..self.n_terms()).flat_map(|i| {
            let mut term = Vec::new();
            self.extend_term(i, |p| p, &mut term);
            term
        })
    }

    /// Appends `pick` of each posting of the `i`th term (in term order) to `out`: the postings
    /// file's columns are written so, a term at a time.
    pub fn extend_term<T>(&self, i: usize, pick: fn((u32, u32)) -> T, out: &mut Vec<T>) {
        let t = self.order[i] as usize;
        let sp = self.in_place.get(t).copied().flatten();
        if let Some(sp) = sp {
            out.extend(self.kept(sp.head).map(pick));
        }
        out.extend(self.lists[t].iter().map(pick));
        if let Some(sp) = sp {
            out.extend(self.kept(sp.tail).map(pick));
        }
    }

    /// The postings of the previous columns at (start, length).
    fn kept(&self, (at, n): (u32, u32)) -> impl Iterator<Item = (u32, u32)> + '_ {
        let r = at as usize..(at + n) as usize;
        let (docs, tfs) = (&self.unmoved.0[r.clone()], &self.unmoved.1[r]);
        docs.iter().zip(tfs).map(|(d, f)| (d.to_native(), u32::from(f.to_native())))
    }

    /// How many terms there are.
    pub fn n_terms(&self) -> usize {
        self.order.len()
    }

    /// The postings file with its arrays made (a build writes them streamed).
    #[cfg(test)]
    pub fn to_file(&self) -> crate::index::format::PostingsFile {
        crate::index::format::PostingsFile {
            doc_len: self.doc_len.clone(),
            avgdl: self.avgdl.clone(),
            n_docs: self.n_docs,
            post_off: self.post_off.clone(),
            post_doc: self.postings().map(|p| p.0).collect(),
            post_tf: self.postings().map(|p| tf_u16(p.1)).collect(),
            added_text: self.added_terms().0,
            added_ends: self.added_terms().1,
        }
    }

    /// The terms added after the kept `terms.fst` (none when a new one is written), for the
    /// postings file: concatenated, and where each ends.
    pub fn added_terms(&self) -> (Vec<u8>, Vec<u32>) {
        let (mut text, mut ends) = (Vec::new(), Vec::new());
        if self.kept_base.is_some() {
            for t in self.terms() {
                text.extend_from_slice(t);
                ends.push(text.len() as u32);
            }
        }
        (text, ends)
    }
}

/// A term frequency as the postings file stores it (saturating at `u16::MAX`).
pub fn tf_u16(tf: u32) -> u16 {
    tf.min(u16::MAX as u32) as u16
}

/// Inverse document frequency (the `bm25` crate's and Lucene's formula).
pub fn idf(n_docs: u32, df: u32) -> f32 {
    let (n, df) = (n_docs as f32, df as f32);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// The document side of BM25 for one term.
pub fn tf_weight(tf: u32, doc_len: u32, avgdl: f32) -> f32 {
    let tf = tf as f32;
    let avgdl = if avgdl > 0.0 { avgdl } else { 1.0 };
    tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * doc_len as f32 / avgdl))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::python::Extractor;

    /// The ranges a delta replaces: runs of base documents kept in order are no range, a gap
    /// of empty documents as long on both sides (a directory) joins the runs around it, and
    /// anything else between two kept documents is one.
    #[test]
    fn a_delta_replaces_what_lies_between_documents_kept_in_order() {
        let none = crate::graph::NONE;
        // Base documents: a directory (0), file A (1, 2), a directory (3), file B (4, 5), file
        // C (6). B gained a definition (new 4..7); C is gone; a file D came after (new 8).
        let base = crate::index::format::PostingsFile {
            doc_len: vec![0, 5, 3, 0, 4, 2, 7],
            ..Default::default()
        };
        let bytes = rkyv::to_bytes::<rkyv::rancor::Error>(&base).unwrap();
        let b = rkyv::access::<crate::index::read::ArchivedPostings, rkyv::rancor::Error>(&bytes)
            .unwrap();
        let prev = crate::index::postings::Postings::new(b, None);
        let map = [0, 1, 2, 3, none, none, none];
        let doc_len = [0, 5, 3, 0, 4, 1, 2, 0, 6];
        let pairs = replaced_pairs(&prev, &map, &doc_len).unwrap();
        assert_eq!(pairs, [(4..7, 4..9)]);
        // A directory gone and another added at its place join the runs around them (no
        // postings either side); one that moved by a document does not.
        let map = [none, 1, 2, none, 4, 5, 6];
        assert_eq!(replaced_pairs(&prev, &map, &[0, 5, 3, 0, 4, 2, 7]).unwrap(), []);
        let map = [none, 2, 3, none, 5, 6, 7];
        let pairs = replaced_pairs(&prev, &map, &[0, 0, 5, 3, 0, 4, 2, 7]).unwrap();
        assert_eq!(pairs, [(0..1, 0..2)]);
        // A map that reorders documents gives no delta.
        assert_eq!(replaced_pairs(&prev, &[0, 4, 5, 6, 1, 2, 3], &[1; 7]), None);
    }

    #[test]
    fn packed_posting_lists_give_back_what_was_pushed() {
        // Ascending (the usual order), going back (renumbered documents), the extremes.
        let pairs = [(0, 1), (1, 300), (7, 1), (2, u32::MAX), (u32::MAX, 0), (0, 65_536), (5, 2)];
        let mut list = PostingList::default();
        for &(d, tf) in &pairs {
            list.push(d, tf);
        }
        assert_eq!(list.pairs(), pairs);
        assert_eq!(PostingList::from_pairs(&pairs).pairs(), pairs);
        // Small gaps and counts take two bytes a posting.
        let dense: Vec<(u32, u32)> = (1000..1100).map(|d| (d, 3)).collect();
        let packed = PostingList::from_pairs(&dense);
        assert_eq!(packed.pairs(), dense);
        assert_eq!(packed.bytes.len(), 2 * 100 + 1);
    }

    #[test]
    fn the_vocabulary_numbers_each_term_once() {
        let mut v = Vocab::default();
        let words: Vec<Vec<u8>> =
            (0..5000).map(|i| format!("w{}", i % 1234).into_bytes()).collect();
        let ids: Vec<u32> = words.iter().map(|w| v.intern(w)).collect();
        assert_eq!(v.len(), 1234);
        for (w, &id) in words.iter().zip(&ids) {
            assert_eq!(v.term(id), w.as_slice());
            assert_eq!(v.intern(w), id);
        }
        // The empty term and terms that are prefixes of one another stay apart.
        let (e, a, ab) = (v.intern(b""), v.intern(b"a"), v.intern(b"ab"));
        assert_eq!([v.term(e), v.term(a), v.term(ab)], [&b""[..], b"a", b"ab"]);
        assert_eq!(v.len(), 1237);
    }

    #[test]
    fn finished_postings_are_sorted_by_term_then_document() {
        let mut pb = PostingsBuilder::new(4);
        for (t, doc, tf) in [("zeta", 3, 1), ("alpha", 2, 5), ("zeta", 1, 2), ("mid", 0, 70_000)] {
            let id = pb.intern(t.as_bytes());
            pb.lists[id as usize].push(doc, tf);
        }
        let done = pb.finish(&[0, 0, 0, 0]);
        let terms: Vec<&[u8]> = done.terms().collect();
        assert_eq!(terms, [&b"alpha"[..], b"mid", b"zeta"]);
        assert_eq!(done.post_off, [0, 1, 2, 4]);
        assert_eq!(done.postings().collect::<Vec<_>>(), [(2, 5), (0, 70_000), (1, 2), (3, 1)]);
        let file = done.to_file();
        assert_eq!(file.post_tf, [5, u16::MAX, 2, 1]);
    }

    /// A previous generation's dictionary: `base` in its terms.fst, `added` after it.
    fn previous(base: &[&str], added: &[&str]) -> PreviousTerms<'static> {
        let mut sorted = base.to_vec();
        sorted.sort_unstable();
        let fst = fst::Map::from_iter(sorted.iter().enumerate().map(|(i, t)| (t, i as u64)));
        let bytes: &'static [u8] =
            Box::leak(fst.unwrap().into_fst().into_inner().into_boxed_slice());
        let (mut added_text, mut added_ends) = (Vec::new(), Vec::new());
        for t in added {
            added_text.extend_from_slice(t.as_bytes());
            added_ends.push(added_text.len());
        }
        let added_numbers = (0..added.len()).map(|k| base.len() + k).collect();
        PreviousTerms { base: fst::Map::new(bytes).unwrap(), added_text, added_ends, added_numbers }
    }

    /// Postings of documents 1 and 3 counted again, beside those carried for 0 and 2; the
    /// carried terms are numbered in order, `base` of them in the previous terms.fst.
    fn carry(
        carried: &[(&str, &[(u32, u32)])],
        base: usize,
        counted: &[(&str, u32, u32)],
    ) -> Finished<'static> {
        let mut pb = PostingsBuilder::new(4);
        for &(t, doc, tf) in counted {
            let id = pb.intern(t.as_bytes());
            pb.lists[id as usize].push(doc, tf);
        }
        let names: Vec<&str> = carried.iter().map(|c| c.0).collect();
        let terms = previous(&names[..base], &names[base..]);
        let lists: Vec<Vec<(u32, u32)>> = carried.iter().map(|(_, l)| l.to_vec()).collect();
        let list: CarriedList = Box::new(move |i, out| out.extend_from_slice(&lists[i]));
        let c = Carried { terms, list, doc_len: vec![(0, 5), (2, 5)], unmoved: None, layer: None };
        pb.finish(&[0; 4]).carrying(c, &[0; 4])
    }

    fn texts(done: &Finished) -> Vec<String> {
        done.terms().map(|t| String::from_utf8_lossy(t).into_owned()).collect()
    }

    #[test]
    fn carried_postings_merge_in_document_order_and_keep_their_numbers() {
        let both: &[(u32, u32)] = &[(0, 1), (2, 4)];
        let done =
            carry(&[("alpha", both), ("beta", &[(2, 1)])], 2, &[("alpha", 1, 3), ("beta", 3, 2)]);
        assert_eq!(done.postings().collect::<Vec<_>>(), [(0, 1), (1, 3), (2, 4), (2, 1), (3, 2)]);
        assert_eq!((done.kept_base, texts(&done)), (Some(2), vec![]), "the same terms");
        // A term new to the index goes after the kept ones, even when it sorts before them.
        let done = carry(&[("beta", both)], 1, &[("alpha", 1, 1)]);
        assert_eq!((done.kept_base, texts(&done)), (Some(1), vec!["alpha".to_string()]));
        assert_eq!(done.postings().collect::<Vec<_>>(), [(0, 1), (2, 4), (1, 1)]);
        // A term no document holds any more keeps its number, with no postings.
        let done = carry(&[("alpha", both), ("beta", &[])], 2, &[]);
        assert_eq!((done.kept_base, done.post_off.as_slice()), (Some(2), &[0, 2, 2][..]));
        // Added terms stay sorted among themselves, and go when no document holds them.
        let carried: [(&str, &[(u32, u32)]); 4] =
            [("alpha", both), ("delta", both), ("beta", &[(0, 2)]), ("omega", &[])];
        let done = carry(&carried, 2, &[("gamma", 1, 1), ("zeta", 3, 1), ("beta", 3, 1)]);
        assert_eq!(texts(&done), ["beta", "gamma", "zeta"]);
        assert_eq!(done.post_off, [0, 2, 4, 6, 7, 8]);
        assert_eq!(done.postings().skip(4).collect::<Vec<_>>(), [(0, 2), (3, 1), (1, 1), (3, 1)]);
    }

    #[test]
    fn too_many_added_terms_number_every_term_again_in_order() {
        let both: &[(u32, u32)] = &[(0, 1), (2, 4)];
        let words: Vec<String> = (0..1100).map(|i| format!("w{i:04}")).collect();
        let counted: Vec<(&str, u32, u32)> = words.iter().map(|w| (w.as_str(), 1, 1)).collect();
        let carried: [(&str, &[(u32, u32)]); 3] = [("a", both), ("gone", &[]), ("x", both)];
        let done = carry(&carried, 2, &counted);
        assert_eq!(done.kept_base, None);
        // What counting every file gives: every term held, in order, numbered from 0.
        let mut want: Vec<String> = words.clone();
        want.extend(["a".to_string(), "x".to_string()]);
        want.sort();
        assert_eq!(texts(&done), want);
        assert_eq!(done.added_terms(), (vec![], vec![]));
        assert_eq!(done.postings().take(3).collect::<Vec<_>>(), [(0, 1), (2, 4), (1, 1)]);
    }

    #[test]
    fn terms_kept_in_place_equal_terms_carried_one_by_one() {
        use rkyv::rend::{u16_le, u32_le};
        // Documents 0..4; document 1 changed (dropped), 0, 2 and 3 kept their numbers.
        let carried: [(&str, &[(u32, u32)]); 4] = [
            ("alpha", &[(0, 1), (1, 9), (2, 4)]),
            ("beta", &[(2, 1), (3, 1)]),
            ("delta", &[(1, 2)]),
            ("gamma", &[(0, 3)]),
        ];
        let docs: Vec<u32_le> =
            carried.iter().flat_map(|(_, l)| l.iter().map(|p| u32_le::from_native(p.0))).collect();
        let tfs: Vec<u16_le> = carried
            .iter()
            .flat_map(|(_, l)| l.iter().map(|p| u16_le::from_native(p.1 as u16)))
            .collect();
        let mut off = vec![u32_le::from_native(0)];
        for (_, l) in &carried {
            off.push(u32_le::from_native(off.last().unwrap().to_native() + l.len() as u32));
        }
        let counted = [("alpha", 1, 3), ("epsilon", 1, 1)];
        let run = |unmoved: bool| {
            let mut pb = PostingsBuilder::new(4);
            for &(t, doc, tf) in &counted {
                let id = pb.intern(t.as_bytes());
                pb.lists[id as usize].push(doc, tf);
            }
            let terms = previous(&["alpha", "beta", "delta", "gamma"], &[]);
            let lists: Vec<Vec<(u32, u32)>> = carried
                .iter()
                .map(|(_, l)| l.iter().filter(|p| p.0 != 1).copied().collect())
                .collect();
            let list: CarriedList = Box::new(move |i, out| out.extend_from_slice(&lists[i]));
            let unmoved = unmoved.then(|| Unmoved {
                docs: &docs,
                tfs: &tfs,
                off: &off,
                dropped: std::iter::once(1..2).collect(),
            });
            let c = Carried {
                terms,
                list,
                doc_len: vec![(0, 5), (2, 5), (3, 5)],
                unmoved,
                layer: None,
            };
            let done = pb.finish(&[0; 4]).carrying(c, &[0; 4]);
            let mut picked = Vec::new();
            for i in 0..done.n_terms() {
                done.extend_term(i, |p| p, &mut picked);
            }
            // alpha, beta, delta (none left), gamma, then epsilon, added; document 1's old
            // postings gone.
            let expected = [(0, 1), (1, 3), (2, 4), (2, 1), (3, 1), (0, 3), (1, 1)];
            assert_eq!(picked, expected);
            (texts(&done), done.post_off.clone(), picked, done.in_place.iter().flatten().count())
        };
        let (whole, one_by_one) = (run(true), run(false));
        assert_eq!(whole.3, 3, "alpha kept around its counted posting, beta and gamma whole");
        assert_eq!(one_by_one.3, 0);
        assert_eq!(whole, (one_by_one.0.clone(), one_by_one.1.clone(), one_by_one.2.clone(), 3));
        assert_eq!(whole.0, ["epsilon"]);
        assert_eq!(whole.1, [0, 3, 5, 5, 6, 7]);
    }

    fn seg_words(ft: &FileTerms, s: usize) -> Vec<(String, u32)> {
        let mut v: Vec<(String, u32)> = ft
            .segment(s)
            .map(|(t, n)| (String::from_utf8_lossy(ft.term(t)).into_owned(), n))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn segments_follow_definitions() {
        let src = b"import os\n\ndef outer(a):\n    def inner():\n        return alpha\n    return beta\n\nclass Klass:\n    gamma = 1\n    def meth(self):\n        return delta\n\nepsilon = 2\n";
        let facts = Extractor::new().extract(src);
        let ft = file_terms(src, &facts);
        assert_eq!(ft.segments(), facts.defs.len() + 1);
        let module = seg_words(&ft, 0);
        assert!(module.iter().any(|(w, _)| w == "epsilon"));
        assert!(module.iter().any(|(w, _)| w == "os"));
        assert!(!module.iter().any(|(w, _)| w == "alpha" || w == "gamma"));
        let names: Vec<&str> = facts.defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["outer", "inner", "Klass", "meth"]);
        assert!(seg_words(&ft, 1).iter().any(|(w, _)| w == "beta"));
        assert!(!seg_words(&ft, 1).iter().any(|(w, _)| w == "alpha"));
        assert!(seg_words(&ft, 2).iter().any(|(w, _)| w == "alpha"));
        assert!(seg_words(&ft, 3).iter().any(|(w, _)| w == "gamma"));
        assert!(seg_words(&ft, 4).iter().any(|(w, _)| w == "delta"));
    }

    #[test]
    fn a_repeated_word_counts_every_time() {
        // Each distinct word is split once and its terms repeated: the counts must be those of
        // every token, split or not, single bytes and over-long words left out.
        let one = "def getUserName(user_id):\n    getUserName = user_id or getUserName\n    \
                   return __x__ + x + getUserName + \u{c9}t\u{e9}Name_2 + GETUSERNAME\n";
        let src = format!("{}{}\n", one.repeat(3), "a".repeat(tokenize::MAX_WORD + 1));
        let facts = Extractor::new().extract(src.as_bytes());
        let ft = file_terms(src.as_bytes(), &facts);
        let mut got = std::collections::BTreeMap::new();
        for s in 0..ft.segments() {
            for (w, n) in seg_words(&ft, s) {
                *got.entry(w).or_insert(0) += n;
            }
        }
        let mut want = std::collections::BTreeMap::new();
        for t in tokenize::terms(&src) {
            *want.entry(t).or_insert(0) += 1;
        }
        assert_eq!(got, want);
        assert_eq!(want["getusername"], 15);
        assert_eq!(want["user_id"], 6);
    }

    /// Our on-disk scoring must agree with the `bm25` crate's in-memory engine given the same
    /// tokenizer, parameters and average length.
    #[test]
    fn scores_match_the_bm25_crate() {
        use bm25::{SearchEngineBuilder, Tokenizer};
        let docs = [
            "def get_user_name(user): return user.name",
            "class UserProfile: name = 'profile of the user'",
            "def sanitize(text): return escape(text) # sanitize user input",
            "def unrelated(): return 42",
        ];
        let tok = tokenize::CodeTokenizer;
        let lens: Vec<u32> = docs.iter().map(|d| tok.tokenize(d).len() as u32).collect();
        let avgdl = lens.iter().sum::<u32>() as f32 / lens.len() as f32;
        let mut engine =
            SearchEngineBuilder::<u32, u32, tokenize::CodeTokenizer>::with_avgdl(avgdl)
                .k1(K1)
                .b(B)
                .build();
        for (i, d) in docs.iter().enumerate() {
            engine.upsert(bm25::Document::new(i as u32, *d));
        }
        for q in ["user name", "sanitize user input", "getUserName"] {
            let theirs = engine.search(q, None);
            let qterms = tok.tokenize(q);
            for hit in theirs {
                let d = hit.document.id as usize;
                let dterms = tok.tokenize(docs[d]);
                let mut ours = 0.0;
                // The crate scores each query token occurrence; so does this check.
                for t in &qterms {
                    let tf = dterms.iter().filter(|x| *x == t).count() as u32;
                    if tf == 0 {
                        continue;
                    }
                    let df = docs.iter().filter(|x| tok.tokenize(x).iter().any(|y| y == t)).count()
                        as u32;
                    ours += idf(docs.len() as u32, df) * tf_weight(tf, lens[d], avgdl);
                }
                assert!(
                    (ours - hit.score).abs() < 1e-4,
                    "{q}: doc {d}: ours {ours} theirs {}",
                    hit.score
                );
            }
        }
    }
}
