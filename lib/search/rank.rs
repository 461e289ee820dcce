//! Hierarchical entity search, merged into one ranked list.
//!
//! Each signal of a [`Query`] finds candidates at its own tier, from the most to the least
//! certain: exact ID or path, qualified name, exact name, joined words, prefix, fuzzy (one
//! edit), then BM25 over entity content. An entity's score is its best name tier (scaled by
//! how much the query term weighs and how specific the name is: `get` matches hundreds of
//! entities, `bulk_create` a few) plus a share of the others, plus its BM25 score scaled to
//! [0, [`BM25_SPAN`]]. So a name match outranks content matches, several signals agreeing
//! outrank one, and a query with no name match is ranked by BM25 alone. Every hit says why
//! it matched ([`Reason`]).

use fxhash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::error::Result;
use crate::graph::{FLAG_TEST, NodeKind, id_path, id_qual};
use crate::index::Index;
use crate::search::bm25;
use crate::search::names;
use crate::search::query::{NameShape, NameTerm, Query, W_IDENT};

/// BM25 scores are scaled to [0, BM25_SPAN]: below an exact name (60), above a fuzzy one.
pub const BM25_SPAN: f32 = 30.0;

/// For a whole issue, the model's hits score from ISSUE_BASE (above any name tier plus BM25)
/// to ISSUE_BASE + ISSUE_SPAN.
const ISSUE_BASE: f32 = 1000.0;
const ISSUE_SPAN: f32 = 1000.0;

/// Why an entity matched.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// The query named it by ID or path.
    ExactId,
    /// A path in the query ends with its path (an absolute path, a traceback frame).
    PathSuffix,
    /// A dotted name matched its qualified name.
    Qualified,
    /// The name matched exactly (`case` false: ignoring case).
    Name {
        /// Case matched too.
        case: bool,
    },
    /// The name of its file or directory matched.
    FileName,
    /// Query words joined into one identifier matched its name.
    Joined,
    /// A traceback frame's function and file matched.
    Frame,
    /// Its name starts with a query term.
    Prefix,
    /// Its name is `d` edits from a query term.
    Fuzzy(u32),
    /// BM25 over its content, with the terms that contributed most.
    Bm25(Vec<String>),
}

impl Reason {
    /// The tier score of the reason.
    fn tier(&self) -> f32 {
        match self {
            Reason::ExactId => 100.0,
            Reason::PathSuffix => 95.0,
            // A frame names a file, a function and a line: the most specific signal there is.
            Reason::Frame => 100.0,
            Reason::Qualified => 80.0,
            Reason::Name { case: true } => 60.0,
            Reason::Name { case: false } => 55.0,
            Reason::FileName => 50.0,
            Reason::Joined => 50.0,
            Reason::Prefix => 25.0,
            Reason::Fuzzy(d) => 22.0 - 4.0 * (*d as f32),
            Reason::Bm25(_) => 0.0,
        }
    }

    /// Text for `--json` and the text view (`exact name`, `fuzzy d=1`, `bm25: a b`).
    pub fn text(&self) -> String {
        match self {
            Reason::ExactId => "exact id".into(),
            Reason::PathSuffix => "path".into(),
            Reason::Qualified => "qualified name".into(),
            Reason::Name { case: true } => "exact name".into(),
            Reason::Name { case: false } => "name (any case)".into(),
            Reason::FileName => "file name".into(),
            Reason::Joined => "joined words".into(),
            Reason::Frame => "traceback frame".into(),
            Reason::Prefix => "prefix".into(),
            Reason::Fuzzy(d) => format!("fuzzy d={d}"),
            Reason::Bm25(t) => format!("bm25: {}", t.join(" ")),
        }
    }
}

/// Filters and limits.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Keep only these kinds (empty: all).
    pub kinds: Vec<NodeKind>,
    /// Keep only paths matching these globs (empty: all).
    pub globs: Vec<String>,
    /// Include entities in test files.
    pub tests: bool,
    /// Most hits returned.
    pub limit: usize,
}

/// One ranked hit.
#[derive(Debug, Clone)]
pub struct Hit {
    /// The node.
    pub node: u32,
    /// Its score.
    pub score: f32,
    /// Why it matched, strongest first.
    pub reasons: Vec<Reason>,
    /// The BM25 part of the score before scaling.
    pub bm25: f32,
}

/// The result of a search.
#[derive(Debug, Clone, Default)]
pub struct Results {
    /// Hits, best first.
    pub hits: Vec<Hit>,
    /// Hits in test files that were left out (`--tests` shows them).
    pub hidden_tests: usize,
    /// Hits left out by `limit`.
    pub more: usize,
}

#[derive(Default)]
struct Cand {
    /// (reason, tier * weight * specificity) per name signal.
    names: Vec<(Reason, f32)>,
    bm25: f32,
}

impl Cand {
    fn add(&mut self, r: Reason, s: f32) {
        match self.names.iter_mut().find(|(x, _)| *x == r) {
            Some(e) => e.1 = e.1.max(s),
            None => self.names.push((r, s)),
        }
    }

    /// Best name signal plus a quarter of the others.
    fn name_score(&self) -> f32 {
        let mut v: Vec<f32> = self.names.iter().map(|x| x.1).collect();
        v.sort_by(|a, b| b.total_cmp(a));
        v.first().copied().unwrap_or(0.0) + v.iter().skip(1).sum::<f32>() * 0.25
    }
}

/// An entity's raw signals, before filtering and merging into one score.
#[derive(Debug, Clone)]
pub struct Scored {
    /// The node.
    pub node: u32,
    /// The name part of the score (best tier plus a share of the others).
    pub name: f32,
    /// The raw BM25 score (0 when no term matched).
    pub bm25: f32,
    /// The name reasons, strongest first.
    pub reasons: Vec<Reason>,
    /// Each name reason with its contribution (tier x term weight x specificity).
    pub parts: Vec<(Reason, f32)>,
}

/// Weighted BM25 terms (`term`, weight).
pub type Terms = Vec<(String, f32)>;

/// Every candidate of a query with its name and BM25 signals, unfiltered and unsorted, and
/// the BM25 terms actually used (typo fixes included).
pub fn candidates(ix: &Index, q: &Query) -> Result<(Vec<Scored>, Terms)> {
    let mut cands: HashMap<u32, Cand> = HashMap::default();
    for term in &q.names {
        name_candidates(ix, term, q.short, &mut cands)?;
    }
    for f in &q.frames {
        frame_candidates(ix, f, &mut cands)?;
    }
    let terms = with_typo_fixes(ix, &q.terms, q.short)?;
    // Short queries are names, mostly: other forms of their words would outrank them.
    let terms = if q.short { terms } else { with_word_forms(ix, terms)? };
    // A query that names an entity by its ID needs no content search.
    let named =
        q.short && cands.values().any(|c| c.names.iter().any(|(r, _)| *r == Reason::ExactId));
    let bm = if named { Vec::new() } else { bm25_scores(ix, &terms)? };
    // BM25 documents outnumber name matches by far: they stay a plain list, joined with the
    // (few) name candidates, instead of growing a map.
    let mut out: Vec<Scored> = Vec::with_capacity(bm.len() + cands.len());
    for (node, score) in bm {
        let c = cands.remove(&node).unwrap_or_default();
        out.push(scored(node, c, score));
    }
    for (node, c) in cands {
        let bm25 = c.bm25;
        out.push(scored(node, c, bm25));
    }
    Ok((out, terms))
}

fn scored(node: u32, c: Cand, bm25: f32) -> Scored {
    let name = c.name_score();
    let mut parts = c.names;
    parts.sort_by(|a, b| b.1.total_cmp(&a.1));
    Scored { node, name, bm25, reasons: parts.iter().map(|x| x.0.clone()).collect(), parts }
}

/// Runs a search.
pub fn search(ix: &Index, q: &Query, opts: &SearchOptions) -> Result<Results> {
    let (cands, terms) = candidates(ix, q)?;
    // A whole issue is ranked by cds-loc's model (one ranking core), from these signals.
    let issue = !q.short && q.names.len() + q.terms.len() > 8;
    let likely =
        if issue { crate::loc::likelihoods(ix, q, &cands, &terms)? } else { Default::default() };
    let max_bm = cands.iter().map(|c| c.bm25).fold(0.0f32, f32::max);
    let globs = crate::search::glob::Globs::new(&opts.globs)?;
    let mut hits: Vec<Hit> = Vec::with_capacity(cands.len());
    let mut hidden_tests = 0;
    for c in cands {
        let node = c.node;
        let kind = ix.kind(node);
        if !opts.kinds.is_empty() && !opts.kinds.contains(&kind) {
            continue;
        }
        if !opts.globs.is_empty() && !globs.matches(ix.path(node)) {
            continue;
        }
        if !opts.tests && ix.flags(node) & FLAG_TEST != 0 {
            hidden_tests += 1;
            continue;
        }
        let bm_part = if max_bm > 0.0 { BM25_SPAN * c.bm25 / max_bm } else { 0.0 };
        // The BM25 reason is added to the shown hits only, below.
        hits.push(Hit { node, score: c.name + bm_part, reasons: c.reasons, bm25: c.bm25 });
    }
    // A whole issue is ranked by cds-loc's model (one ranking core): files, modules and
    // functions by how likely each is the one to change, ahead of the other hits. A file or a
    // class counts half: the functions it holds are what a search is for.
    if issue {
        for h in &mut hits {
            if let Some(&l) = likely.get(&h.node) {
                let l = if ix.kind(h.node) == NodeKind::Function { l } else { l * 0.5 };
                h.score = ISSUE_BASE + ISSUE_SPAN * l;
            }
        }
    }
    // Ties: classes and functions before files and directories, then shorter IDs.
    let order = |a: &Hit, b: &Hit| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| kind_rank(ix.kind(a.node)).cmp(&kind_rank(ix.kind(b.node))))
            .then_with(|| ix.id(a.node).len().cmp(&ix.id(b.node).len()))
            .then_with(|| ix.id(a.node).cmp(ix.id(b.node)))
    };
    let limit = if opts.limit == 0 { usize::MAX } else { opts.limit };
    let more = hits.len().saturating_sub(limit);
    // Only the shown hits need sorting (the rest would touch thousands of IDs for nothing).
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit, order);
        hits.truncate(limit);
    }
    hits.sort_by(order);
    // Name the terms that made each BM25 hit (only for what is shown).
    for h in &mut hits {
        if h.bm25 > 0.0 {
            h.reasons.push(Reason::Bm25(top_terms(ix, &terms, h.node, 4)?));
        }
    }
    Ok(Results { hits, hidden_tests, more })
}

fn kind_rank(k: NodeKind) -> u8 {
    match k {
        NodeKind::Class | NodeKind::Function => 0,
        NodeKind::File => 1,
        NodeKind::Directory => 2,
    }
}

/// How much a match on a name shared by `count` entities says (1 for a unique name).
fn specificity(count: usize) -> f32 {
    1.0 / (1.0 + 0.5 * (count.max(1) as f32).ln())
}

fn name_candidates(
    ix: &Index,
    term: &NameTerm,
    short: bool,
    cands: &mut HashMap<u32, Cand>,
) -> Result<()> {
    let w = term.weight / W_IDENT;
    match term.shape {
        NameShape::Path => path_candidates(ix, &term.text, w, cands),
        NameShape::Dotted => dotted_candidates(ix, &term.text, w, cands),
        NameShape::Ident | NameShape::Joined => {
            let key = names::normalize(term.text.as_bytes());
            let nodes = names::exact(ix, &key)?;
            let classified: Vec<(u32, Reason)> = nodes
                .iter()
                .map(|&n| {
                    // An entity's only key is its lower-cased name, so it matched ignoring
                    // case at least.
                    let r = match ix.kind(n) {
                        NodeKind::File | NodeKind::Directory => Reason::FileName,
                        _ if term.shape == NameShape::Joined => Reason::Joined,
                        _ => Reason::Name { case: ix.name(n) == term.text.as_bytes() },
                    };
                    (n, r)
                })
                .collect();
            for (n, r) in &classified {
                // Specificity within the same kind of match: `QuerySet` (one class) stays
                // specific even though many methods are called `queryset`. A match ignoring
                // case counts the exact ones too, so it never outranks them (one `sendFile`
                // above two `sendfile`s for the query `sendfile`).
                let same = classified
                    .iter()
                    .filter(|(_, x)| {
                        x == r
                            || (*r == Reason::Name { case: false }
                                && matches!(x, Reason::Name { .. }))
                    })
                    .count();
                let s = r.tier() * w * specificity(same);
                cands.entry(*n).or_default().add(r.clone(), s);
            }
            if short && term.shape == NameShape::Ident {
                let chars = term.text.chars().count();
                if chars >= 3 {
                    let hits = names::prefix(ix, &key, 40)?;
                    let total: usize = hits.iter().map(|h| h.nodes.len()).sum();
                    for h in hits {
                        if h.key == key {
                            continue;
                        }
                        for n in h.nodes {
                            let s = Reason::Prefix.tier() * w * specificity(total);
                            cands.entry(n).or_default().add(Reason::Prefix, s);
                        }
                    }
                }
                // Fuzzy matching is the fallback for a name that matched nothing exactly (its
                // automaton is the costliest lookup, and a typo rarely hits a real name).
                let d = if classified.is_empty() { names::max_distance(chars) } else { 0 };
                for h in names::fuzzy(ix, &key, d, 10)? {
                    let spec = specificity(h.nodes.len());
                    for n in h.nodes {
                        let r = Reason::Fuzzy(h.distance);
                        let s = r.tier() * w * spec;
                        cands.entry(n).or_default().add(r, s);
                    }
                }
            }
            Ok(())
        }
    }
}

/// A path or ID: exact, else the longest suffix that is one (absolute paths, `./x.py`).
fn path_candidates(ix: &Index, text: &str, w: f32, cands: &mut HashMap<u32, Cand>) -> Result<()> {
    let (path, qual) = match text.split_once(':') {
        Some((p, q)) => (p, Some(q)),
        None => (text, None),
    };
    let mut found = None;
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty() && *p != ".").collect();
    for k in 0..parts.len() {
        let suffix = parts[k..].join("/");
        let id = match qual {
            Some(q) => format!("{suffix}:{q}"),
            None => suffix.clone(),
        };
        if let Some(n) = ix.lookup_id(id.as_bytes()) {
            found = Some((n, k == 0));
            break;
        }
        // Case-insensitive paths (keys hold lower-cased paths).
        if qual.is_none()
            && let Some(&n) = names::exact(ix, &names::normalize(suffix.as_bytes()))?.first()
            && matches!(ix.kind(n), NodeKind::File | NodeKind::Directory)
        {
            found = Some((n, false));
            break;
        }
        if parts.len() - k <= 1 {
            break;
        }
    }
    if let Some((n, exact)) = found {
        let r = if exact { Reason::ExactId } else { Reason::PathSuffix };
        let s = r.tier() * w.max(1.0);
        cands.entry(n).or_default().add(r, s);
    }
    Ok(())
}

/// The dotted module path and qualified name of a node, lower-cased: `a.b.mod.cls.meth`.
fn dotted_of(ix: &Index, n: u32) -> String {
    let (id, kind) = (ix.id(n), ix.kind(n));
    let path = String::from_utf8_lossy(id_path(id, kind)).to_lowercase();
    let module =
        crate::lang::strip_source_ext(path.as_bytes()).map_or(path.as_str(), |m| &path[..m.len()]);
    let module = module.strip_suffix("/__init__").unwrap_or(module).replace('/', ".");
    match id_qual(id, kind) {
        Some(q) => format!("{module}.{}", String::from_utf8_lossy(q).to_lowercase()),
        None => module,
    }
}

/// `a.b.Cls.meth`: entities named `meth` whose dotted name ends with the query's.
fn dotted_candidates(ix: &Index, text: &str, w: f32, cands: &mut HashMap<u32, Cand>) -> Result<()> {
    let lower = text.to_lowercase();
    let parts: Vec<&str> = lower.split('.').collect();
    let Some(last) = parts.last() else { return Ok(()) };
    let nodes = names::exact(ix, last.as_bytes())?;
    let mut scored: Vec<(u32, usize)> = Vec::new();
    for n in nodes {
        let full = dotted_of(ix, n);
        let fparts: Vec<&str> = full.split('.').collect();
        let matched =
            parts.iter().rev().zip(fparts.iter().rev()).take_while(|(a, b)| a == b).count();
        if matched >= 1 {
            scored.push((n, matched));
        }
    }
    let best = scored.iter().map(|x| x.1).max().unwrap_or(0);
    let spec = specificity(scored.iter().filter(|x| x.1 == best).count());
    for (n, matched) in scored {
        let r = if matched == parts.len() || matched >= 2 {
            Reason::Qualified
        } else {
            Reason::Name { case: ix.name(n) == text.rsplit('.').next().unwrap_or("").as_bytes() }
        };
        // A partial qualification is worth less than a full one.
        let frac = matched as f32 / parts.len() as f32;
        let s = r.tier() * w * spec * (0.5 + 0.5 * frac);
        cands.entry(n).or_default().add(r, s);
    }
    Ok(())
}

/// A traceback frame: the function named in it, inside the file named in it.
fn frame_candidates(
    ix: &Index,
    f: &crate::search::query::Frame,
    cands: &mut HashMap<u32, Cand>,
) -> Result<()> {
    let mut files: HashMap<u32, Cand> = HashMap::default();
    path_candidates(ix, &f.file, 1.0, &mut files)?;
    let Some(&file) = files.keys().next() else { return Ok(()) };
    let file_id = ix.id(file).to_vec();
    if f.function.is_empty() {
        // A line of a file (a link): the innermost definition holding it.
        let n = crate::get::enclosing(ix, file, f.line, f.line);
        if f.line > 0 && n != file {
            let w = crate::search::query::W_FRAME / W_IDENT;
            cands.entry(n).or_default().add(Reason::Frame, Reason::Frame.tier() * w * 0.8);
        }
        return Ok(());
    }
    // A frame names `func`, or `Class.method` as the other languages print it: look the last
    // part up and keep the definitions of this file whose qualified name ends with it all.
    let last = f.function.rsplit('.').next().unwrap_or("");
    if last.is_empty() {
        return Ok(());
    }
    for n in names::exact(ix, last.to_lowercase().as_bytes())? {
        let id = ix.id(n);
        let qual = id.get(file_id.len() + 1..).unwrap_or(b"");
        let whole = f.function.as_bytes();
        let named = qual == whole
            || (qual.len() > whole.len()
                && qual.ends_with(whole)
                && qual[qual.len() - whole.len() - 1] == b'.')
            || !f.function.contains('.');
        if named && id.starts_with(&file_id) && id.get(file_id.len()) == Some(&b':') {
            // Prefer the definition whose lines hold the frame's line.
            let (a, b) = ix.lines(n);
            let inside = f.line == 0 || (a..=b).contains(&f.line);
            let w = crate::search::query::W_FRAME / W_IDENT;
            let s = Reason::Frame.tier() * w * if inside { 1.0 } else { 0.8 };
            cands.entry(n).or_default().add(Reason::Frame, s);
        }
    }
    Ok(())
}

/// For a short query, a term the index does not know is probably a typo: add the known terms
/// one edit away (at half weight), so `santize` still finds `sanitize`.
fn with_typo_fixes(ix: &Index, terms: &[(String, f32)], short: bool) -> Result<Vec<(String, f32)>> {
    let mut out = terms.to_vec();
    if !short {
        return Ok(out);
    }
    for (term, weight) in terms {
        if term.chars().count() < 5 || ix.term_number(term.as_bytes())?.is_some() {
            continue;
        }
        let fixes = ix.terms_one_edit_away(term, 3)?;
        out.extend(fixes.into_iter().map(|f| (f, weight * 0.5)));
    }
    Ok(out)
}

/// The weight of another form of a query word, as a share of the word's.
const WORD_FORM_SHARE: f32 = 0.5;

/// The other forms of an issue-sized query's words that the index holds, at
/// [`WORD_FORM_SHARE`] of the word's weight: `deleting` also finds `delete`, `deleted` and
/// `deletion` (one English stem, Snowball's). Issues are prose about code, and code names
/// things in other forms than prose does. Forms are looked for among the terms that share the
/// word's first letters with its stem (at least four) and are at most [`MAX_FORM_SUFFIX`]
/// letters longer than the stem.
fn with_word_forms(ix: &Index, terms: Vec<(String, f32)>) -> Result<Terms> {
    let stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    let mut seen: HashSet<String> = terms.iter().map(|(t, _)| t.clone()).collect();
    let mut forms: Terms = Vec::new();
    // Words of one stem (`query`, `queries`) have the same forms: they are looked up once.
    let mut stems: HashSet<String> = HashSet::default();
    for (term, weight) in &terms {
        if term.len() < 4 || !term.bytes().all(|b| b.is_ascii_lowercase()) {
            continue;
        }
        let stem = stemmer.stem(term);
        if !stems.insert(stem.to_string()) {
            continue;
        }
        let common = stem.bytes().zip(term.bytes()).take_while(|(a, b)| a == b).count();
        if common < 4 {
            continue;
        }
        for form in ix.terms_with_prefix(&term[..common], stem.len() + MAX_FORM_SUFFIX)? {
            if stemmer.stem(&form) == stem && seen.insert(form.clone()) {
                forms.push((form, weight * WORD_FORM_SHARE));
            }
        }
    }
    let mut out = terms;
    out.extend(forms);
    Ok(out)
}

/// How much longer than its stem a form can be (`deletions` is `delet` and four letters).
const MAX_FORM_SUFFIX: usize = 5;

/// BM25 scores of every document matching a weighted term.
pub fn bm25_scores(ix: &Index, terms: &[(String, f32)]) -> Result<Vec<(u32, f32)>> {
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let post = ix.postings()?;
    let n = ix.len();
    let kinds = &ix.graph().kind;
    let n_docs = post.n_docs();
    // The known terms: number, how many documents hold it, weight.
    let mut known: Vec<(usize, usize, f32)> = Vec::new();
    for (term, weight) in terms {
        let Some(t) = ix.term_number(term.as_bytes())? else { continue };
        known.push((t, post.df(t), *weight));
    }
    // Terms in more than an eighth of all documents (`self`, `django`, `get`) carry little and
    // cost most (every posting is a page touched): skip them when a rarer term is there.
    let common = (n_docs / 8).max(64) as usize;
    let any_rare = known.iter().any(|&(_, df, _)| df <= common);
    known.retain(|&(_, df, _)| !any_rare || df <= common);
    // Scores add up per document: in a map when few documents match (a dense array over a
    // big index's nodes would cost a zeroed page per match), else in an array.
    let total: usize = known.iter().map(|&(_, df, _)| df).sum();
    let mut acc = Scores::new(n, total);
    for (t, df, weight) in known {
        let idf = bm25::idf(n_docs, df as u32);
        post.for_each(t, |doc, tf| {
            let doc = doc as usize;
            if doc >= n {
                return;
            }
            let dl = post.doc_len(doc);
            let k = ix.at(kinds, doc).copied().unwrap_or(0) as usize;
            acc.add(doc as u32, weight * idf * bm25::tf_weight(tf, dl, post.avgdl(k)));
        });
    }
    Ok(acc.into_vec())
}

/// Per-document score sums.
enum Scores {
    Sparse(HashMap<u32, f32>),
    Dense { acc: Vec<f32>, touched: Vec<u32> },
}

impl Scores {
    fn new(docs: usize, postings: usize) -> Scores {
        if postings < docs / 16 {
            let mut m = HashMap::default();
            m.reserve(postings);
            Scores::Sparse(m)
        } else {
            Scores::Dense { acc: vec![0.0; docs], touched: Vec::new() }
        }
    }

    fn add(&mut self, doc: u32, s: f32) {
        match self {
            Scores::Sparse(m) => *m.entry(doc).or_insert(0.0) += s,
            Scores::Dense { acc, touched } => {
                if acc[doc as usize] == 0.0 {
                    touched.push(doc);
                }
                acc[doc as usize] += s;
            }
        }
    }

    /// The sums (in no particular order: hits are ranked by a total order later).
    fn into_vec(self) -> Vec<(u32, f32)> {
        match self {
            Scores::Sparse(m) => m.into_iter().collect(),
            Scores::Dense { acc, touched } => {
                touched.into_iter().map(|d| (d, acc[d as usize])).collect()
            }
        }
    }
}

/// The query terms that contribute most to a document's BM25 score.
pub fn top_terms(ix: &Index, terms: &[(String, f32)], node: u32, k: usize) -> Result<Vec<String>> {
    let post = ix.postings()?;
    let mut found: Vec<(f32, &str)> = Vec::new();
    for (term, weight) in terms {
        let Some(t) = ix.term_number(term.as_bytes())? else { continue };
        if post.holds(t, node) {
            found.push((*weight * bm25::idf(post.n_docs(), post.df(t) as u32), term));
        }
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0));
    Ok(found.into_iter().take(k).map(|x| x.1.to_string()).collect())
}
