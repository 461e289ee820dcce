//! The BM25 postings as readers see them: `postings.rkyv`, and over it the
//! `postings-delta.rkyv` a rebuild wrote, which may renumber the base's documents (see
//! [`crate::index::format::PostingsDelta`]). Every accessor tolerates damaged bytes that passed
//! validation (offsets out of order, unsorted ranges): wrong answers, never a panic; and a
//! reader's view checks the base's bytes against their block sums as it reads them
//! ([`Postings::checked_by`]), so that damage is an error rather than a wrong answer.

use rkyv::rend::{u16_le, u32_le};

use crate::index::read::{ArchivedPostings, ArchivedPostingsDelta, Mapped};

/// A generation's postings: the base and, when it has one, its delta.
#[derive(Clone, Copy)]
pub struct Postings<'a> {
    base: &'a ArchivedPostings,
    delta: Option<&'a ArchivedPostingsDelta>,
    /// The base's file, when the base's bytes are checked as they are read
    /// ([`Mapped::sound`]; a reader checks the small delta whole when it opens it).
    checked: Option<&'a Mapped>,
}

/// Calls `f` for postings `lo..hi` of the columns (`lo <= hi <=` both lengths), each document
/// number shifted by `shift`.
fn emit(
    docs: &[u32_le],
    tfs: &[u16_le],
    (lo, hi): (usize, usize),
    shift: i64,
    f: &mut impl FnMut(u32, u32),
) {
    for (d, tf) in docs[lo..hi].iter().zip(&tfs[lo..hi]) {
        f((i64::from(d.to_native()) + shift) as u32, u32::from(tf.to_native()));
    }
}

/// A slice of rkyv's numbers, clamped to the column's bounds.
fn slice<T>(col: &[T], a: usize, b: usize) -> &[T] {
    let b = b.min(col.len());
    col.get(a.min(b)..b).unwrap_or_default()
}

/// The `k`th of the terms concatenated in `text` and ending at `ends`.
fn nth_term<'t>(text: &'t [u8], ends: &[u32_le], k: usize) -> &'t [u8] {
    let end = |k: usize| ends.get(k).map_or(0, |e| e.to_native() as usize);
    let start = if k == 0 { 0 } else { end(k - 1) };
    text.get(start..end(k)).unwrap_or_default()
}

impl<'a> Postings<'a> {
    /// The view of `base`, and of `delta` over it.
    pub fn new(base: &'a ArchivedPostings, delta: Option<&'a ArchivedPostingsDelta>) -> Self {
        Postings { base, delta, checked: None }
    }

    /// The same view, the base's bytes checked against `file`'s block sums as they are read.
    pub fn checked_by(self, file: &'a Mapped) -> Self {
        Postings { checked: Some(file), ..self }
    }

    /// `part` of the base, checked when the view checks.
    fn ok<T>(&self, part: &'a [T]) -> &'a [T] {
        self.checked.map_or(part, |m| m.sound(part))
    }

    /// Whether a delta is read over the base.
    pub fn has_delta(&self) -> bool {
        self.delta.is_some()
    }

    /// The number of documents.
    pub fn n_docs(&self) -> u32 {
        self.delta.map_or(self.base.n_docs, |d| d.n_docs).to_native()
    }

    /// The average document length of nodes of kind `kind`.
    pub fn avgdl(&self, kind: usize) -> f32 {
        let col = self.delta.map_or_else(|| self.ok(&self.base.avgdl), |d| &d.avgdl);
        col.get(kind).map_or(1.0, |x| x.to_native())
    }

    /// Every node's document length (0: not a document).
    pub fn doc_lens(&self) -> &'a [u32_le] {
        self.delta.map_or(&self.base.doc_len, |d| &d.doc_len).as_slice()
    }

    /// Node `doc`'s document length.
    pub fn doc_len(&self, doc: usize) -> u32 {
        let len = match self.delta {
            Some(d) => d.doc_len.get(doc),
            None => self.base.doc_len.get(doc..doc + 1).map(|x| &self.ok(x)[0]),
        };
        len.map_or(0, |x| x.to_native())
    }

    /// How many postings the base holds.
    pub fn base_postings(&self) -> usize {
        self.base.post_doc.len()
    }

    /// The base's terms: those of `terms.fst`, then its added ones.
    fn base_terms(&self) -> usize {
        self.base.post_off.len().saturating_sub(1)
    }

    /// How many terms `terms.fst` holds (the first term numbers).
    pub fn fst_terms(&self) -> usize {
        self.base_terms().saturating_sub(self.base.added_ends.len())
    }

    /// How many terms there are: `terms.fst`'s, the base's added ones, the delta's added ones.
    pub fn n_terms(&self) -> usize {
        self.base_terms() + self.delta.map_or(0, |d| d.added_ends.len())
    }

    /// How many terms are not in `terms.fst` (numbered `fst_terms()..n_terms()`).
    pub fn n_added(&self) -> usize {
        self.n_terms() - self.fst_terms()
    }

    /// The `k`th term not in `terms.fst` (term number `fst_terms() + k`).
    pub fn added(&self, k: usize) -> &'a [u8] {
        let base = &self.base;
        match k.checked_sub(base.added_ends.len()) {
            None => nth_term(self.ok(&base.added_text), self.ok(&base.added_ends), k),
            Some(k) => self.delta.map_or(&[][..], |d| nth_term(&d.added_text, &d.added_ends, k)),
        }
    }

    /// The number of `term` when it is not in `terms.fst` (the base's added terms are sorted;
    /// the delta's are found through their sorted order).
    pub fn find_added(&self, term: &[u8]) -> Option<usize> {
        let exact = |delta| self.added_from(term, delta).next().filter(|&(_, t)| t == term);
        exact(false).or_else(|| exact(true)).map(|(number, _)| number)
    }

    /// The terms not in `terms.fst` that start with `prefix`: (number, term), each run in order.
    pub fn added_with_prefix(&self, prefix: &[u8]) -> impl Iterator<Item = (usize, &'a [u8])> {
        let starts = move |&(_, t): &(usize, &[u8])| t.starts_with(prefix);
        let base = self.added_from(prefix, false).take_while(starts);
        base.chain(self.added_from(prefix, true).take_while(starts))
    }

    /// The base's (or the delta's) added terms from the first not below `key`, in order, with
    /// their numbers: the base's are stored sorted, the delta's through `added_order`.
    fn added_from(
        &self,
        key: &[u8],
        delta: bool,
    ) -> impl Iterator<Item = (usize, &'a [u8])> + use<'a> {
        let (text, ends, order): (&'a [u8], &'a [u32_le], &'a [u32_le]) = match (delta, self.delta)
        {
            (false, _) => (self.ok(&self.base.added_text), self.ok(&self.base.added_ends), &[]),
            (true, Some(d)) => (&d.added_text, &d.added_ends, d.added_order.as_slice()),
            (true, None) => (&[], &[], &[]),
        };
        let len = if delta { order.len() } else { ends.len() };
        let local = move |i: usize| if delta { order[i].to_native() as usize } else { i };
        let at = move |i: usize| nth_term(text, ends, local(i));
        let first = crate::search::bm25::partition_point(len, |i| at(i) < key);
        let number0 = if delta { self.base_terms() } else { self.fst_terms() };
        (first..len).map(move |i| (number0 + local(i), at(i)))
    }

    /// Term `t`'s postings in the base (all of them, those of replaced documents too).
    fn base_list(&self, t: usize) -> (&'a [u32_le], &'a [u16_le]) {
        let b = self.base;
        if t >= self.base_terms() {
            return (&[], &[]);
        }
        let at =
            |i: usize| b.post_off.get(i..i + 1).map_or(0, |x| self.ok(x)[0].to_native() as usize);
        let (lo, hi) = (at(t), at(t + 1).max(at(t)));
        (self.ok(slice(&b.post_doc, lo, hi)), self.ok(slice(&b.post_tf, lo, hi)))
    }

    /// Term `t`'s postings in the delta.
    fn delta_list(&self, t: usize) -> (&'a [u32_le], &'a [u16_le]) {
        let Some(d) = self.delta else { return (&[], &[]) };
        let Ok(i) = d.terms.binary_search_by(|x| (x.to_native() as usize).cmp(&t)) else {
            return (&[], &[]);
        };
        let at = |i: usize| d.off.get(i).map_or(0, |x| x.to_native() as usize);
        let (lo, hi) = (at(i), at(i + 1).max(at(i)));
        (slice(&d.doc, lo, hi), slice(&d.tf, lo, hi))
    }

    /// The delta's replaced ranges: (the base's documents, this generation's documents that
    /// replace them). Pairs past the shorter column are left out.
    fn pairs(&self) -> impl Iterator<Item = (std::ops::Range<u32>, std::ops::Range<u32>)> + 'a {
        let (base, new) = self
            .delta
            .map_or((&[][..], &[][..]), |d| (d.base_replaced.as_slice(), d.replaced.as_slice()));
        let range = |r: &[u32_le]| r[0].to_native()..r[1].to_native();
        base.chunks_exact(2).zip(new.chunks_exact(2)).map(move |(b, n)| (range(b), range(n)))
    }

    /// Whether base document `d` lies in one of the ranges the delta replaces.
    fn in_base_ranges(&self, d: u32) -> bool {
        let flat = self.delta.map_or(&[][..], |x| x.base_replaced.as_slice());
        // Inside a range: after its start (an odd count of bounds at or below `d`).
        flat.partition_point(|x| x.to_native() <= d) % 2 == 1
    }

    /// How many documents hold term `t`.
    pub fn df(&self, t: usize) -> usize {
        let (docs, _) = self.base_list(t);
        let Some(d) = self.delta else { return docs.len() };
        // A short list is checked document by document, a long one range by range.
        let gone = if docs.len() < d.base_replaced.len() / 2 {
            docs.iter().filter(|x| self.in_base_ranges(x.to_native())).count()
        } else {
            let at = |d: u32| docs.partition_point(|x| x.to_native() < d);
            self.pairs().map(|(b, _)| at(b.end).saturating_sub(at(b.start))).sum()
        };
        docs.len().saturating_sub(gone) + self.delta_list(t).0.len()
    }

    /// Whether a document holds term `t`.
    pub fn held(&self, t: usize) -> bool {
        if self.delta.is_none() {
            return !self.base_list(t).0.is_empty();
        }
        !self.delta_list(t).0.is_empty()
            || self.base_list(t).0.iter().any(|x| !self.in_base_ranges(x.to_native()))
    }

    /// Calls `f(document, tf)` for each of term `t`'s postings, documents ascending.
    pub fn for_each<F: FnMut(u32, u32)>(&self, t: usize, mut f: F) {
        let (docs, tfs) = self.base_list(t);
        let n = docs.len().min(tfs.len());
        let Some(d) = self.delta else {
            emit(docs, tfs, (0, n), 0, &mut f);
            return;
        };
        let (ddocs, dtfs) = self.delta_list(t);
        let dn = ddocs.len().min(dtfs.len());
        let delta_below = |end: i64, j: &mut usize, f: &mut F| {
            while *j < dn && i64::from(ddocs[*j].to_native()) < end {
                f(ddocs[*j].to_native(), u32::from(dtfs[*j].to_native()));
                *j += 1;
            }
        };
        let (flat, new_flat) = (d.base_replaced.as_slice(), d.replaced.as_slice());
        if n < flat.len() / 2 {
            // A short list, document by document: its gap (or range) by bisection.
            let mut j = 0;
            for (x, tf) in docs[..n].iter().zip(tfs) {
                let x = x.to_native();
                let i = flat.partition_point(|b| b.to_native() <= x);
                if i % 2 == 1 {
                    continue;
                }
                let end = |c: &[u32_le]| c.get(i.wrapping_sub(1)).map_or(0, |e| e.to_native());
                let new = i64::from(x) + i64::from(end(new_flat)) - i64::from(end(flat));
                delta_below(new, &mut j, &mut f);
                f(new as u32, u32::from(tf.to_native()));
            }
            delta_below(i64::MAX, &mut j, &mut f);
            return;
        }
        let (mut i, mut j, mut shift) = (0, 0, 0i64);
        for (b, r) in self.pairs() {
            // The base's postings before the range, shifted as the gap before it; the delta's
            // in it; then past it, shifted as the gap after it.
            let start = docs.partition_point(|x| x.to_native() < b.start).max(i).min(n);
            emit(docs, tfs, (i, start), shift, &mut f);
            delta_below(i64::from(r.end), &mut j, &mut f);
            i = docs.partition_point(|x| x.to_native() < b.end).max(start).min(n);
            shift = i64::from(r.end) - i64::from(b.end);
        }
        emit(docs, tfs, (i, n), shift, &mut f);
    }

    /// Whether document `doc` holds term `t`.
    pub fn holds(&self, t: usize, doc: u32) -> bool {
        let mut base_doc = i64::from(doc);
        for (b, r) in self.pairs() {
            if doc < r.start {
                break;
            }
            if doc < r.end {
                return self.delta_list(t).0.binary_search_by(|d| d.to_native().cmp(&doc)).is_ok();
            }
            base_doc = i64::from(doc) - (i64::from(r.end) - i64::from(b.end));
        }
        let Ok(base_doc) = u32::try_from(base_doc) else { return false };
        self.base_list(t).0.binary_search_by(|d| d.to_native().cmp(&base_doc)).is_ok()
    }

    /// Term `t`'s postings, documents ascending.
    pub fn list(&self, t: usize) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        self.for_each(t, |d, tf| out.push((d, tf)));
        out
    }

    /// The delta's term numbers and, for each, its postings (documents ascending).
    pub fn delta_terms(&self) -> impl Iterator<Item = (usize, Vec<(u32, u32)>)> + 'a {
        let me = *self;
        let terms = self.delta.map_or(&[][..], |d| d.terms.as_slice());
        terms.iter().map(move |t| {
            let t = t.to_native() as usize;
            let (docs, tfs) = me.delta_list(t);
            (
                t,
                docs.iter()
                    .zip(tfs)
                    .map(|(d, f)| (d.to_native(), u32::from(f.to_native())))
                    .collect(),
            )
        })
    }

    /// The base's document lengths (numbered as in the base).
    pub fn base_doc_lens(&self) -> &'a [u32_le] {
        self.base.doc_len.as_slice()
    }

    /// Each base document's number in this generation ([`crate::graph::NONE`]: replaced by
    /// the delta).
    pub fn base_numbers(&self) -> Vec<u32> {
        let n = self.base.doc_len.len() as u32;
        let mut out = Vec::with_capacity(n as usize);
        let mut shift = 0i64;
        for (b, r) in self.pairs() {
            let start = b.start.min(n).max(out.len() as u32);
            out.extend((out.len() as u32..start).map(|d| (i64::from(d) + shift) as u32));
            let end = b.end.min(n).max(out.len() as u32);
            out.resize(end as usize, crate::graph::NONE);
            shift = i64::from(r.end) - i64::from(b.end);
        }
        out.extend((out.len() as u32..n).map(|d| (i64::from(d) + shift) as u32));
        out
    }

    /// Whether the delta's columns are in order (what `cds-build --verify` checks): terms and
    /// replaced ranges ascending, a base range for each replaced one with gaps of the same
    /// length between them, offsets monotone and within the columns, the added terms' order a
    /// permutation.
    pub fn sound(&self) -> bool {
        let Some(d) = self.delta else { return true };
        let ascending = |c: &[u32_le]| c.windows(2).all(|w| w[0].to_native() < w[1].to_native());
        let monotone = |c: &[u32_le]| c.windows(2).all(|w| w[0].to_native() <= w[1].to_native());
        let mut order: Vec<u32> = d.added_order.iter().map(|k| k.to_native()).collect();
        order.sort_unstable();
        let gaps_match = self.pairs().try_fold((0u32, 0u32), |(b0, r0), (b, r)| {
            (b.start.checked_sub(b0) == r.start.checked_sub(r0)).then_some((b.end, r.end))
        });
        d.off.len() == d.terms.len() + 1
            && ascending(&d.terms)
            && monotone(&d.replaced)
            && d.replaced.len() % 2 == 0
            && monotone(&d.base_replaced)
            && d.base_replaced.len() == d.replaced.len()
            && gaps_match.is_some()
            && monotone(&d.off)
            && d.off.last().is_some_and(|l| l.to_native() as usize == d.doc.len())
            && d.doc.len() == d.tf.len()
            && monotone(&d.added_ends)
            && order.iter().enumerate().all(|(i, &k)| k as usize == i)
            && order.len() == d.added_ends.len()
    }

    /// The delta's added terms, in the order they are numbered.
    pub fn delta_added(&self) -> impl Iterator<Item = &'a [u8]> + 'a {
        let d = self.delta;
        let n = d.map_or(0, |d| d.added_ends.len());
        (0..n).map(move |k| d.map_or(&[][..], |d| nth_term(&d.added_text, &d.added_ends, k)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::format::{PostingsDelta, PostingsFile};

    fn archived<T>(v: &T) -> rkyv::util::AlignedVec
    where
        T: for<'a> rkyv::Serialize<
                rkyv::api::high::HighSerializer<
                    rkyv::util::AlignedVec,
                    rkyv::ser::allocator::ArenaHandle<'a>,
                    rkyv::rancor::Error,
                >,
            >,
    {
        rkyv::to_bytes::<rkyv::rancor::Error>(v).unwrap()
    }

    /// Two terms in terms.fst (0: "alpha", 1: "beta") and one added ("gamma", 2) over six
    /// documents.
    fn base() -> PostingsFile {
        PostingsFile {
            doc_len: vec![3, 3, 3, 3, 3, 3],
            avgdl: vec![3.0; 4],
            n_docs: 6,
            post_off: vec![0, 4, 6, 7],
            post_doc: vec![0, 2, 3, 5, 1, 4, 2],
            post_tf: vec![1, 2, 3, 4, 5, 6, 7],
            added_text: b"gamma".to_vec(),
            added_ends: vec![5],
        }
    }

    /// `holds` answers as `list` does for terms 0..5 and documents `0..docs`.
    fn holds_as_listed(p: &Postings, docs: u32) {
        for t in 0..5 {
            for doc in 0..docs {
                let listed = p.list(t).iter().any(|x| x.0 == doc);
                assert_eq!(p.holds(t, doc), listed, "term {t}, document {doc}");
            }
        }
    }

    /// A delta adding the term "delta" (3) and nothing else but `change`'s columns.
    fn adding_delta(change: PostingsDelta) -> PostingsDelta {
        PostingsDelta {
            avgdl: vec![4.0; 4],
            added_text: b"delta".to_vec(),
            added_ends: vec![5],
            added_order: vec![0],
            ..change
        }
    }

    #[test]
    fn a_delta_replaces_the_postings_of_its_documents() {
        let base_bytes = archived(&base());
        let delta = adding_delta(PostingsDelta {
            doc_len: vec![3, 3, 9, 3, 0, 3],
            n_docs: 5,
            // Documents 2 and 4 changed (4 is gone), none renumbered.
            replaced: vec![2, 3, 4, 5],
            base_replaced: vec![2, 3, 4, 5],
            // alpha in 2 again (another tf), beta no more in 4, gamma gone from 2, and a
            // new term "delta" (3) in 2.
            terms: vec![0, 3],
            off: vec![0, 1, 2],
            doc: vec![2, 2],
            tf: vec![9, 1],
            ..Default::default()
        });
        let delta_bytes = archived(&delta);
        let b = rkyv::access::<ArchivedPostings, rkyv::rancor::Error>(&base_bytes).unwrap();
        let d = rkyv::access::<ArchivedPostingsDelta, rkyv::rancor::Error>(&delta_bytes).unwrap();
        let without = Postings::new(b, None);
        assert_eq!(without.list(0), [(0, 1), (2, 2), (3, 3), (5, 4)]);
        assert_eq!((without.n_terms(), without.fst_terms(), without.n_added()), (3, 2, 1));
        let p = Postings::new(b, Some(d));
        assert!(p.sound());
        assert_eq!(p.list(0), [(0, 1), (2, 9), (3, 3), (5, 4)]);
        assert_eq!(p.list(1), [(1, 5)]);
        assert_eq!((p.list(2), p.held(2)), (vec![], false));
        assert_eq!(p.list(3), [(2, 1)]);
        assert_eq!([p.df(0), p.df(1), p.df(2), p.df(3)], [4, 1, 0, 1]);
        assert_eq!((p.n_terms(), p.fst_terms(), p.n_added()), (4, 2, 2));
        assert_eq!((p.added(0), p.added(1)), (&b"gamma"[..], &b"delta"[..]));
        assert_eq!(p.find_added(b"gamma"), Some(2));
        assert_eq!(p.find_added(b"delta"), Some(3));
        assert_eq!(p.find_added(b"beta"), None);
        assert_eq!((p.n_docs(), p.doc_len(2), p.avgdl(1)), (5, 9, 4.0));
        holds_as_listed(&p, 7);
    }

    #[test]
    fn a_delta_renumbers_the_base_documents_between_its_ranges() {
        let base_bytes = archived(&base());
        let delta = adding_delta(PostingsDelta {
            doc_len: vec![3, 4, 9, 3, 3, 3],
            n_docs: 6,
            // Document 0 gone; document 2 now two (1 and 2); 1 is 0 now, 3..6 keep theirs.
            replaced: vec![0, 0, 1, 3],
            base_replaced: vec![0, 1, 2, 3],
            // alpha in 2, beta in 1, the new term "delta" (3) in 1.
            terms: vec![0, 1, 3],
            off: vec![0, 1, 2, 3],
            doc: vec![2, 1, 1],
            tf: vec![9, 8, 1],
            ..Default::default()
        });
        let delta_bytes = archived(&delta);
        let b = rkyv::access::<ArchivedPostings, rkyv::rancor::Error>(&base_bytes).unwrap();
        let d = rkyv::access::<ArchivedPostingsDelta, rkyv::rancor::Error>(&delta_bytes).unwrap();
        let p = Postings::new(b, Some(d));
        assert!(p.sound());
        assert_eq!(p.list(0), [(2, 9), (3, 3), (5, 4)]);
        assert_eq!(p.list(1), [(0, 5), (1, 8), (4, 6)]);
        assert_eq!((p.list(2), p.held(2)), (vec![], false));
        assert_eq!(p.list(3), [(1, 1)]);
        assert_eq!([p.df(0), p.df(1), p.df(2), p.df(3)], [3, 3, 0, 1]);
        let none = crate::graph::NONE;
        assert_eq!(p.base_numbers(), [none, 0, none, 3, 4, 5]);
        holds_as_listed(&p, 8);
        // With more ranges than a term has postings, its list is read document by document
        // (an empty range at the end changes nothing): the same postings.
        let mut more = delta.clone();
        more.replaced.extend([6, 6]);
        more.base_replaced.extend([6, 6]);
        let bytes = archived(&more);
        let d = rkyv::access::<ArchivedPostingsDelta, rkyv::rancor::Error>(&bytes).unwrap();
        let q = Postings::new(b, Some(d));
        assert!(q.sound());
        for t in 0..5 {
            assert_eq!((q.list(t), q.df(t), q.held(t)), (p.list(t), p.df(t), p.held(t)), "{t}");
        }
        holds_as_listed(&q, 8);
        // Gaps of different lengths on the two sides are not sound.
        let mut uneven = delta.clone();
        uneven.base_replaced = vec![0, 1, 3, 4];
        let bytes = archived(&uneven);
        let d = rkyv::access::<ArchivedPostingsDelta, rkyv::rancor::Error>(&bytes).unwrap();
        assert!(!Postings::new(b, Some(d)).sound());
    }

    #[test]
    fn a_damaged_delta_gives_wrong_postings_never_a_panic() {
        let base_bytes = archived(&base());
        let b = rkyv::access::<ArchivedPostings, rkyv::rancor::Error>(&base_bytes).unwrap();
        let damaged = [
            // Ranges backwards and odd, offsets past the columns and backwards, an order
            // pointing nowhere.
            PostingsDelta {
                replaced: vec![5, 1, 9],
                terms: vec![3, 0],
                off: vec![7, 1, 99],
                doc: vec![1],
                tf: vec![],
                added_ends: vec![40, 2],
                added_order: vec![7, 0],
                ..Default::default()
            },
            PostingsDelta {
                replaced: vec![0, 4, 4, 6],
                base_replaced: vec![u32::MAX, 0, 9],
                terms: vec![0, 1],
                off: vec![0, 1, 2],
                doc: vec![5, 3],
                tf: vec![1, 1],
                ..Default::default()
            },
            PostingsDelta {
                replaced: vec![u32::MAX, 0],
                terms: vec![u32::MAX],
                off: vec![],
                added_order: vec![u32::MAX],
                ..Default::default()
            },
        ];
        for delta in damaged {
            let bytes = archived(&delta);
            let d = rkyv::access::<ArchivedPostingsDelta, rkyv::rancor::Error>(&bytes).unwrap();
            let p = Postings::new(b, Some(d));
            assert!(!p.sound());
            for t in 0..p.n_terms() + 3 {
                let _ = (p.list(t), p.df(t), p.held(t));
                for doc in [0, 3, 7, u32::MAX] {
                    let _ = p.holds(t, doc);
                }
            }
            let _ = p.base_numbers();
            for k in 0..p.n_added() + 2 {
                let _ = p.added(k);
            }
            let _ = (p.find_added(b"zzz"), p.find_added(b""), p.doc_len(99), p.avgdl(99));
        }
    }
}
