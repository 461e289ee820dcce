//! `cds-loc`: from an issue to ranked code locations (files, modules, functions), without a
//! language model.
//!
//! The issue is read as a long query ([`query::parse_issue`]): identifiers, dotted names,
//! paths and traceback frames weigh more than prose, and every content word is also looked up
//! as a name. Each node gets the search signals of [`rank::candidates`] (name matches by kind,
//! BM25), BM25 over the issue's code terms and over its title alone, path evidence, evidence
//! passed along calls, inheritance and class membership, and the hand-set score of the first
//! cds-loc (kept as one feature among others). Past `MAX_CANDIDATES` (50,000) nodes (a large
//! repository and a common word), only the best by the hand-set score pass evidence on and
//! become candidates.
//!
//! Then three levels are ranked in order by linear models fitted on the SWE-bench dev splits
//! (`bench/loc/fit.py`, weights generated into `weights.rs`; features in [`model`]):
//!
//! * files: the best 100 by the hand-set score, with their own and their entities' evidence;
//! * functions (a nested function counts as its outermost one): the best 300 by the hand-set
//!   score and every function of the best 20 files, with their own evidence, their rank within
//!   their file and their file's rank under the file model (how many per file to keep is
//!   learned through these);
//! * modules (top-level classes and functions): with their file's rank and their best
//!   function's score.
//!
//! Tests are left out (gold patches of SWE-bench never touch them), and documentation,
//! examples and benchmarks are marked (a feature). Every location carries the reasons it
//! ranks.

pub mod cli;
pub mod model;
mod weights;

use fxhash::FxHashMap as HashMap;

use crate::error::Result;
use crate::graph::{
    EdgeKind, FLAG_GENERATED, FLAG_NAMESPACE, FLAG_OWNED, FLAG_TEST, NONE, NodeKind,
};
use crate::history;
use crate::index::Index;
use crate::index::format::{ArchivedHistoryFile, ArchivedMessagesFile};
use crate::search::bm25;
use crate::search::query;
use crate::search::rank::{self, Reason};
use model::{FILE_CANDIDATES, GAP_FLOOR, NF, dot, lrank};

/// The hand-set weights of the first cds-loc: its score is the `heur` feature of every level
/// (and the ranking with `--tune model=0`).
#[derive(Debug, Clone)]
pub struct Weights {
    /// BM25 scaled to [0, bm25_span] per kind.
    pub bm25_span: f32,
    /// Share of a file's other entities added to its best one.
    pub file_spread: f32,
    /// How many of a file's other entities count.
    pub file_top: usize,
    /// Share of a class's score given to its methods.
    pub class_to_method: f32,
    /// Multiplier for documentation, examples and benchmarks.
    pub aux_penalty: f32,
    /// Multiplier for matches of a path (often library paths in a traceback).
    pub path: f32,
    /// Multiplier for traceback-frame matches (a function named in a frame of the issue).
    pub frame: f32,
    /// Multiplier for qualified-name matches.
    pub qualified: f32,
    /// Multiplier for exact-name matches.
    pub name: f32,
    /// Multiplier for file and directory name matches.
    pub file_name: f32,
    /// Share of the other name signals added to the best one.
    pub name_spread: f32,
    /// Path evidence (query words in a file's directories and name) scaled to [0, path_span].
    pub path_span: f32,
    /// Share of a file's path evidence given to its entities.
    pub path_to_entity: f32,
    /// How many of the best entities pass evidence to their graph neighbours.
    pub graph_k: usize,
    /// Share passed to callees and base classes.
    pub graph_out: f32,
    /// Share passed to callers and subclasses.
    pub graph_in: f32,
    /// A module's file score, scaled to [0, module_file], added to the module's own score.
    pub module_file: f32,
    /// Rank by the fitted model (false: by the hand-set score above, for comparison).
    pub model: bool,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            bm25_span: 100.0,
            file_spread: 0.3,
            file_top: 3,
            class_to_method: 0.3,
            aux_penalty: 0.4,
            path: 0.6,
            frame: 0.34,
            qualified: 1.0,
            name: 1.0,
            file_name: 1.0,
            name_spread: 0.25,
            path_span: 40.0,
            path_to_entity: 0.3,
            graph_k: 20,
            graph_out: 0.1,
            graph_in: 0.1,
            module_file: 70.0,
            model: true,
        }
    }
}

impl Weights {
    /// Applies `key=value,...` overrides (the hidden `--tune` flag, for benchmarks).
    pub fn tune(&mut self, spec: &str) -> std::result::Result<(), String> {
        for kv in spec.split(',').filter(|s| !s.is_empty()) {
            let (k, v) =
                kv.split_once('=').ok_or_else(|| format!("expected key=value, got '{kv}'"))?;
            let v: f32 = v.parse().map_err(|_| format!("bad number in '{kv}'"))?;
            match k {
                "bm25_span" => self.bm25_span = v,
                "file_spread" => self.file_spread = v,
                "file_top" => self.file_top = v as usize,
                "class_to_method" => self.class_to_method = v,
                "aux_penalty" => self.aux_penalty = v,
                "path" => self.path = v,
                "frame" => self.frame = v,
                "qualified" => self.qualified = v,
                "name" => self.name = v,
                "file_name" => self.file_name = v,
                "name_spread" => self.name_spread = v,
                "path_span" => self.path_span = v,
                "path_to_entity" => self.path_to_entity = v,
                "graph_k" => self.graph_k = v as usize,
                "graph_out" => self.graph_out = v,
                "graph_in" => self.graph_in = v,
                "module_file" => self.module_file = v,
                "model" => self.model = v != 0.0,
                _ => return Err(format!("unknown weight '{k}'")),
            }
        }
        Ok(())
    }

    fn reason(&self, r: &Reason) -> f32 {
        match r {
            Reason::ExactId | Reason::PathSuffix => self.path,
            Reason::Frame => self.frame,
            Reason::Qualified => self.qualified,
            Reason::Name { .. } | Reason::Joined => self.name,
            Reason::FileName => self.file_name,
            // Prefix and fuzzy matches only arise for short queries, never for an issue.
            Reason::Prefix | Reason::Fuzzy(_) | Reason::Bm25(_) => 1.0,
        }
    }

    /// The name score of an entity under these weights: best signal plus a share of the rest.
    fn name_score(&self, parts: &[(Reason, f32)]) -> f32 {
        let mut v: Vec<f32> = parts.iter().map(|(r, s)| s * self.reason(r)).collect();
        v.sort_by(|a, b| b.total_cmp(a));
        v.first().copied().unwrap_or(0.0) + v.iter().skip(1).sum::<f32>() * self.name_spread
    }
}

/// One ranked location.
#[derive(Debug, Clone)]
pub struct Location {
    /// The node.
    pub node: u32,
    /// Its score.
    pub score: f32,
    /// Why it ranks.
    pub reasons: Vec<String>,
}

/// The result: each level ranked, best first.
#[derive(Debug, Clone, Default)]
pub struct Located {
    /// Files.
    pub files: Vec<Location>,
    /// Top-level classes and functions (`file.py:Name`).
    pub modules: Vec<Location>,
    /// Functions and methods.
    pub entities: Vec<Location>,
}

/// True for paths of documentation, examples, benchmarks and build scripts.
pub fn is_auxiliary(path: &[u8]) -> bool {
    // Asked of every candidate (300,000 of an issue on the Linux kernel): no allocation.
    let (dirs, base) = match path.iter().rposition(|&c| c == b'/') {
        Some(i) => (&path[..i], &path[i + 1..]),
        None => (&b""[..], path),
    };
    dirs.split(|&c| c == b'/').any(|c| {
        matches!(
            c,
            b"doc"
                | b"docs"
                | b"example"
                | b"examples"
                | b"benchmarks"
                | b"benchmark"
                | b"asv_bench"
                | b"tutorials"
                | b"galleries"
                | b"gallery"
                | b"demo"
                | b"demos"
                | b"benches"
                | b"dist"
        )
    }) || base == b"setup.py"
        || base == b"conftest.py"
}

/// The raw evidence of one node, before any level is ranked.
#[derive(Debug, Clone, Copy, Default)]
struct Sig {
    /// Named by ID or path.
    exact: f32,
    /// Named by a traceback frame.
    frame: f32,
    /// A dotted name matched its qualified name.
    qual: f32,
    /// Its name (or joined words) matched.
    name: f32,
    /// Its file or directory name matched.
    fname: f32,
    /// BM25 over its document, over the best of its kind.
    bm25: f32,
    /// BM25 of the issue's code terms only, over the best of its kind.
    code_bm: f32,
    /// BM25 of the title terms only, over the best of its kind.
    title_bm: f32,
    /// Evidence received along call and inheritance edges.
    graph: f32,
    /// Evidence received from its class.
    class: f32,
    /// The hand-set score (the first cds-loc's).
    heur: f32,
}

/// Every candidate of one level with its features, ranked by the model.
#[derive(Debug, Clone, Default)]
pub struct Level {
    /// Candidate nodes.
    pub nodes: Vec<u32>,
    /// Their features (the level's feature list, in order).
    pub x: Vec<Vec<f32>>,
    /// Their file node (themselves for files).
    pub file: Vec<u32>,
    /// Their module (top-level class or function; themselves for modules, none for files).
    pub module: Vec<u32>,
    /// Their model scores.
    pub score: Vec<f32>,
}

impl Level {
    fn push(&mut self, n: u32, x: Vec<f32>, file: u32, module: u32) {
        self.nodes.push(n);
        self.x.push(x);
        self.file.push(file);
        self.module.push(module);
    }

    /// Indices of the candidates, best first (ties by ID).
    fn order(&self, ix: &Index) -> Vec<usize> {
        let mut o: Vec<usize> = (0..self.nodes.len()).collect();
        o.sort_by(|&a, &b| {
            self.score[b]
                .total_cmp(&self.score[a])
                .then_with(|| ix.id(self.nodes[a]).cmp(ix.id(self.nodes[b])))
        });
        o
    }
}

/// All candidates of an issue with their features and scores (what `--features` dumps).
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    /// Files.
    pub files: Level,
    /// Functions and methods.
    pub functions: Level,
    /// Top-level classes and functions.
    pub modules: Level,
}

/// Documentation, examples, demos, bundles: code that is rarely what an issue is about.
fn is_aux_node(ix: &Index, n: u32) -> bool {
    is_auxiliary(ix.path(n)) || ix.flags(n) & FLAG_GENERATED != 0
}

/// Locates an issue.
pub fn locate(ix: &Index, text: &str, limit: usize, w: &Weights) -> Result<Located> {
    let Some((cands, why, terms)) = candidates(ix, text, w)? else {
        return Ok(Located::default());
    };
    let reasons_of = |n: u32| reasons(why.get(&n));
    let mut out = Located::default();
    for (level, dst) in [
        (&cands.files, &mut out.files),
        (&cands.modules, &mut out.modules),
        (&cands.functions, &mut out.entities),
    ] {
        for i in level.order(ix).into_iter().take(limit) {
            let node = level.nodes[i];
            dst.push(Location { node, score: level.score[i], reasons: reasons_of(node) });
        }
    }
    for level in [&mut out.files, &mut out.modules, &mut out.entities] {
        for l in level.iter_mut() {
            fill_bm25_terms(ix, &terms, l)?;
        }
    }
    Ok(out)
}

type Why = HashMap<u32, Vec<Reason>>;

/// A map with room for `n` entries (grown by doubling, the maps of a large candidate set spend
/// more on rehashing than on their entries).
fn sized<K, V>(n: usize) -> HashMap<K, V> {
    HashMap::with_capacity_and_hasher(n, Default::default())
}

/// The candidates of an issue, the reasons of each node, and the BM25 terms.
pub type Ranked = (Candidates, Why, Vec<(String, f32)>);

/// Every candidate of every level with its features and its score (`None` for an issue with
/// nothing to search for), the reasons of each node, and the BM25 terms.
pub fn candidates(ix: &Index, text: &str, w: &Weights) -> Result<Option<Ranked>> {
    let q = query::parse_issue(text);
    if q.is_empty() {
        return Ok(None);
    }
    let (cands, terms) = rank::candidates(ix, &q)?;
    let (c, why) = candidates_of(ix, &q, w, &cands, &terms)?;
    Ok(Some((c, why, terms)))
}

/// How likely each candidate of an issue-sized query is the one to change, by the model:
/// the softmax of its level's scores (files, modules, functions), the best level for a node
/// that is a candidate of two. This is how `cds-search` ranks a whole issue, from the search
/// signals it already has (`rank::candidates` of the same query).
pub fn likelihoods(
    ix: &Index,
    q: &query::Query,
    cands: &[rank::Scored],
    terms: &rank::Terms,
) -> Result<HashMap<u32, f32>> {
    let (c, _) = candidates_of(ix, q, &Weights::default(), cands, terms)?;
    let mut out: HashMap<u32, f32> = HashMap::default();
    for level in [&c.files, &c.modules, &c.functions] {
        let top = level.score.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let z: f32 = level.score.iter().map(|s| (s - top).exp()).sum();
        for (&n, &s) in level.nodes.iter().zip(&level.score) {
            let p = (s - top).exp() / z;
            let e = out.entry(n).or_insert(0.0);
            *e = e.max(p);
        }
    }
    Ok(out)
}

fn candidates_of(
    ix: &Index,
    q: &query::Query,
    w: &Weights,
    cands: &[rank::Scored],
    terms: &rank::Terms,
) -> Result<(Candidates, Why)> {
    let skip = |n: u32| ix.flags(n) & FLAG_TEST != 0 || ix.kind(n) == NodeKind::Directory;

    // BM25 normalised per kind (file documents are far longer than functions').
    let mut max_bm = [0f32; 4];
    for c in cands {
        if !skip(c.node) {
            let k = ix.kind(c.node) as usize;
            max_bm[k] = max_bm[k].max(c.bm25);
        }
    }
    // BM25 ranks per kind.
    let mut bm_rank: HashMap<u32, usize> = HashMap::default();
    {
        let mut by_kind: [Vec<(u32, f32)>; 4] = Default::default();
        for c in cands.iter().filter(|c| c.bm25 > 0.0 && !skip(c.node)) {
            by_kind[ix.kind(c.node) as usize].push((c.node, c.bm25));
        }
        for v in &mut by_kind {
            v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            bm_rank.extend(tied_ranks(v));
        }
    }
    let bm_lrank = |n: u32| bm_rank.get(&n).map_or(lrank(2000), |&r| lrank(r));
    // BM25 of the code terms alone (identifiers in a function's body), and of the title.
    let subset = |set: &[String]| -> Vec<(String, f32)> {
        terms.iter().filter(|(t, _)| set.binary_search(t).is_ok()).cloned().collect()
    };
    let code_bm = partial_bm25(ix, &subset(&q.code_terms), &skip)?;
    let title_bm = partial_bm25(ix, &subset(&q.title_terms), &skip)?;
    // The hand-set score of each candidate; past MAX_CANDIDATES, only the best go on (the
    // others keep their signals, which a function of a best file reads).
    let mut first: Vec<(usize, f32)> = Vec::with_capacity(cands.len());
    // Whether each file's path is auxiliary (0: not known yet, 1: no, 2: yes), asked once per
    // file rather than once per candidate.
    let mut aux_path = vec![0u8; ix.graph().file_node.len()];
    let mut is_aux = |n: u32| {
        let path_aux = match ix.file_index(n) {
            Some(f) => {
                let known = &mut aux_path[f as usize];
                if *known == 0 {
                    *known = 1 + u8::from(is_auxiliary(ix.path(n)));
                }
                *known == 2
            }
            None => is_auxiliary(ix.path(n)),
        };
        path_aux || ix.flags(n) & FLAG_GENERATED != 0
    };
    for (i, c) in cands.iter().enumerate() {
        if skip(c.node) {
            continue;
        }
        let k = ix.kind(c.node) as usize;
        let norm = if max_bm[k] > 0.0 { c.bm25 / max_bm[k] } else { 0.0 };
        let mut s = w.name_score(&c.parts) + w.bm25_span * norm;
        if is_aux(c.node) {
            s *= w.aux_penalty;
        }
        first.push((i, s));
    }
    let last = last_kept(first.iter().map(|&(i, s)| (cands[i].node, s)), MAX_CANDIDATES);
    let kept = first.len().min(MAX_CANDIDATES);
    let mut sig: HashMap<u32, Sig> = sized(first.len());
    let mut score: HashMap<u32, f32> = sized(kept);
    let mut why: Why = sized(kept);
    for &(i, s) in &first {
        let c = &cands[i];
        let n = c.node;
        let k = ix.kind(n) as usize;
        let norm = if max_bm[k] > 0.0 { c.bm25 / max_bm[k] } else { 0.0 };
        let mut g = Sig { bm25: norm, ..Sig::default() };
        for (r, v) in &c.parts {
            let slot = match r {
                Reason::ExactId | Reason::PathSuffix => &mut g.exact,
                Reason::Frame => &mut g.frame,
                Reason::Qualified => &mut g.qual,
                Reason::FileName => &mut g.fname,
                _ => &mut g.name,
            };
            *slot = slot.max(v / 100.0);
        }
        sig.insert(n, g);
        if s <= 0.0 || last.is_some_and(|l| by_score((n, s), l).is_gt()) {
            continue;
        }
        score.insert(n, s);
        let mut r = c.reasons.clone();
        if c.bm25 > 0.0 {
            r.push(Reason::Bm25(Vec::new()));
        }
        why.insert(n, r);
    }
    for (&n, &s) in &code_bm {
        sig.entry(n).or_default().code_bm = s;
    }
    for (&n, &s) in &title_bm {
        sig.entry(n).or_default().title_bm = s;
    }

    // Graph expansion: the best entities pass evidence to their neighbours (the change is often
    // one call away from what the issue names).
    if w.graph_out > 0.0 || w.graph_in > 0.0 {
        let mut top: Vec<(u32, f32)> = score
            .iter()
            .filter(|(n, _)| matches!(ix.kind(**n), NodeKind::Function | NodeKind::Class))
            .map(|(n, s)| (*n, *s))
            .collect();
        top.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        top.truncate(w.graph_k);
        let mut add: Vec<(u32, f32)> = Vec::new();
        for (n, s) in top {
            let outs = ix.out_edges(n).map(|e| (e, w.graph_out));
            for (e, share) in outs.chain(ix.in_edges(n).map(|e| (e, w.graph_in))) {
                if matches!(e.kind, EdgeKind::Invoke | EdgeKind::Inherit) {
                    add.push((e.node, s * share));
                }
            }
        }
        for (n, s) in add {
            if ix.flags(n) & (FLAG_TEST | FLAG_GENERATED) != 0
                || is_auxiliary(ix.path(n))
                || s <= 0.0
            {
                continue;
            }
            *score.entry(n).or_insert(0.0) += s;
            sig.entry(n).or_default().graph += s / 100.0;
            why.entry(n).or_default();
        }
    }

    // Path evidence: query words among a file's directory names and its name.
    let path = path_scores(ix, terms);
    let max_path = path.values().copied().fold(0.0f32, f32::max);
    let path_of =
        |f: u32| if max_path > 0.0 { path.get(&f).map_or(0.0, |p| p / max_path) } else { 0.0 };
    if max_path > 0.0 {
        for (&f, &p) in &path {
            let s = w.path_span * p / max_path;
            *score.entry(f).or_insert(0.0) += s;
            why.entry(f).or_default().push(Reason::FileName);
        }
        // Entities of a file share its path evidence (only those with evidence of their own).
        for (&n, s) in score.iter_mut() {
            if ix.kind(n) == NodeKind::File {
                continue;
            }
            if let Some(p) = ix.file_node(n).and_then(|f| path.get(&f)) {
                *s += w.path_to_entity * w.path_span * p / max_path;
            }
        }
    }

    // Methods inherit part of their class's score.
    let classes: Vec<(u32, f32)> = score
        .iter()
        .filter(|(n, _)| ix.kind(**n) == NodeKind::Class)
        .map(|(n, s)| (*n, *s))
        .collect();
    for (c, s) in classes {
        for e in ix.out_edges(c) {
            if e.kind == EdgeKind::Contain && ix.kind(e.node) == NodeKind::Function {
                *score.entry(e.node).or_insert(0.0) += s * w.class_to_method;
                sig.entry(e.node).or_default().class += s * w.class_to_method / 100.0;
                why.entry(e.node).or_default();
            }
        }
    }
    for (&n, &s) in &score {
        sig.entry(n).or_default().heur = s / 100.0;
    }
    let sig_of = |n: u32| sig.get(&n).copied().unwrap_or_default();
    let named = |n: u32| {
        let s = sig_of(n);
        s.exact + s.qual + s.name + s.frame > 0.0
    };

    // Files, by the hand-set score: their own score, their best entity, and a share of the
    // others.
    let mut per_file: HashMap<u32, Vec<(f32, u32)>> = sized(score.len() / 8);
    for (&n, &s) in &score {
        if ix.kind(n) == NodeKind::File {
            continue;
        }
        if let Some(f) = ix.file_node(n) {
            per_file.entry(f).or_default().push((s, n));
        }
    }
    for v in per_file.values_mut() {
        v.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    }
    let mut file_ids: Vec<u32> = per_file.keys().copied().collect();
    file_ids.extend(score.keys().copied().filter(|&n| ix.kind(n) == NodeKind::File));
    file_ids.sort_unstable();
    file_ids.dedup();
    let mut heur_files: Vec<(u32, f32)> = file_ids
        .iter()
        .map(|&f| {
            let own = score.get(&f).copied().unwrap_or(0.0);
            let ents = per_file.get(&f).map_or(&[][..], |v| &v[..]);
            let best = ents.first().map_or(0.0, |x| x.0);
            let rest: f32 = ents.iter().skip(1).take(w.file_top).map(|x| x.0).sum();
            (f, own.max(best) + w.file_spread * (rest + own.min(best)))
        })
        .collect();
    sort_scored(ix, &mut heur_files);
    let max_heur_file = heur_files.first().map_or(0.0, |x| x.1);
    let heur_file: HashMap<u32, f32> = heur_files.iter().copied().collect();

    // Test names the issue mentions point at the module they test (`test_client` -> `client`).
    let tested: Vec<String> = q
        .names
        .iter()
        .filter_map(|n| {
            let last = n.text.rsplit(['/', '.', ':']).find(|s| !s.is_empty() && *s != "py")?;
            let l = last.to_lowercase();
            let stem = l.strip_prefix("test_").or(l.strip_suffix("_test"))?;
            (!stem.is_empty()).then(|| stem.to_string())
        })
        .collect();

    // The file level.
    let history = ix.history()?;
    let n_files = heur_files.len().min(FILE_CANDIDATES);
    let messages = ix.messages()?.map_or_else(
        || vec![0.0; n_files],
        |m| message_scores(m, ix, &q.terms, heur_files.iter().take(n_files).map(|c| c.0)),
    );
    let mut c = Candidates::default();
    let file_ranks: Vec<usize> = tied_ranks(&heur_files[..n_files]).map(|(_, r)| r).collect();
    for (rank, &(f, hs)) in heur_files.iter().take(n_files).enumerate() {
        let s = sig_of(f);
        let ents = per_file.get(&f).map_or(&[][..], |v| &v[..]);
        let mut best_fn_bm = 0f32;
        let mut best_cls_bm = 0f32;
        let mut frames = 0usize;
        let mut named = 0usize;
        let mut best_name = 0f32;
        for &(_, n) in ents {
            let e = sig_of(n);
            match ix.kind(n) {
                NodeKind::Function => best_fn_bm = best_fn_bm.max(e.bm25),
                NodeKind::Class => best_cls_bm = best_cls_bm.max(e.bm25),
                _ => {}
            }
            frames += usize::from(e.frame > 0.0);
            let nm = e.exact + e.qual + e.name + e.frame;
            named += usize::from(nm > 0.0);
            best_name = best_name.max(nm);
        }
        let p = ix.path(f);
        let stem = file_stem(p);
        let mut x = vec![
            hs / 100.0,
            lrank(file_ranks[rank]),
            s.exact,
            s.fname,
            s.bm25,
            bm_lrank(f),
            path_of(f),
            ents.first().map_or(0.0, |x| x.0) / 100.0,
            ents.iter().skip(1).take(3).map(|x| x.0).sum::<f32>() / 100.0,
            lrank(ents.len()),
            lrank(named),
            best_fn_bm,
            best_cls_bm,
            lrank(frames),
            best_name,
            f32::from(u8::from(is_auxiliary(p) || ix.flags(f) & FLAG_GENERATED != 0)),
            f32::from(u8::from(matches!(stem, b"__init__" | b"index" | b"mod" | b"lib"))),
            lrank(children(ix, f).len()),
            p.split(|&b| b == b'/').count() as f32,
            f32::from(u8::from(tested.iter().any(|t| t.as_bytes() == stem))),
            s.code_bm,
            s.title_bm,
            lrank(
                heur_files
                    .iter()
                    .take(5)
                    .filter(|&&(o, _)| o != f && file_stem(ix.path(o)) == stem)
                    .count(),
            ),
            lrank(
                heur_files
                    .iter()
                    .take(10)
                    .filter(|&&(o, _)| o != f && parent_dir(ix.path(o)) == parent_dir(p))
                    .count(),
            ),
        ];
        x.extend(file_history(history, ix, f));
        x.push(messages[rank]);
        c.files.push(f, x, f, NONE);
    }
    debug_assert!(c.files.x.iter().all(|x| x.len() == NF));
    c.files.score = c.files.x.iter().map(|x| dot(&weights::FILE, x)).collect();

    // The function level: the best functions by the hand-set score (a nested function counts
    // as its outermost one), and every function of the best files.
    let mut fn_heur: HashMap<u32, f32> = sized(score.len());
    for (&n, &s) in &score {
        if ix.kind(n) != NodeKind::Function {
            continue;
        }
        if let Some(o) = outer_function(ix, n) {
            let e = fn_heur.entry(o).or_insert(0.0);
            *e = e.max(s);
        }
    }
    let mut heur_fns: Vec<(u32, f32)> = fn_heur.iter().map(|(&n, &s)| (n, s)).collect();
    sort_scored(ix, &mut heur_fns);
    let heur_fn_rank: HashMap<u32, usize> = tied_ranks(&heur_fns).collect();
    let mut fn_cands: Vec<u32> = heur_fns.iter().take(FUNCTION_CANDIDATES).map(|x| x.0).collect();
    for &(f, _) in heur_files.iter().take(FN_FILES_EXPANDED) {
        for n in children(ix, f) {
            if ix.kind(n) == NodeKind::Function {
                fn_cands.push(n);
            }
        }
    }
    fn_cands.sort_unstable();
    fn_cands.dedup();
    fn_cands.retain(|&n| !skip(n));
    // Rank within its file by the hand-set score, and by BM25.
    let mut in_file: HashMap<u32, usize> = HashMap::default();
    let mut in_file_bm: HashMap<u32, usize> = HashMap::default();
    {
        let mut by_file: HashMap<u32, Vec<(u32, f32)>> = HashMap::default();
        let mut by_file_bm: HashMap<u32, Vec<(u32, f32)>> = HashMap::default();
        for &n in &fn_cands {
            let f = ix.file_node(n).unwrap_or(NONE);
            by_file.entry(f).or_default().push((n, fn_heur.get(&n).copied().unwrap_or(0.0)));
            by_file_bm.entry(f).or_default().push((n, sig_of(n).bm25));
        }
        for (v, dst) in [(&mut by_file, &mut in_file), (&mut by_file_bm, &mut in_file_bm)] {
            for v in v.values_mut() {
                sort_scored(ix, v);
                dst.extend(tied_ranks(v));
            }
        }
    }
    let doc_bm = doc_bm25(ix, terms, &fn_cands)?;
    let file_model = FileRanks::new(ix, &c.files);
    for &n in &fn_cands {
        let s = sig_of(n);
        let f = ix.file_node(n).unwrap_or(NONE);
        let parent = ix.parent(n).filter(|&p| ix.kind(p) == NodeKind::Class);
        let ps = parent.map(sig_of).unwrap_or_default();
        let name = ix.name(n);
        let dunder = name.len() > 4 && name.starts_with(b"__") && name.ends_with(b"__");
        let (a, b) = ix.lines(n);
        let callers = ix.in_edges(n).filter(|e| e.kind == EdgeKind::Invoke).count();
        let nbr_named = ix
            .in_edges(n)
            .chain(ix.out_edges(n))
            .filter(|e| e.kind == EdgeKind::Invoke && e.node != n && named(e.node))
            .count();
        let sib_named = parent.map_or(0, |p| {
            ix.out_edges(p)
                .filter(|e| e.kind == EdgeKind::Contain && e.node != n && named(e.node))
                .count()
        });
        let (f_lrank, f_gap, f_top1) = file_model.get(f);
        let x = vec![
            fn_heur.get(&n).copied().unwrap_or(0.0) / 100.0,
            heur_fn_rank.get(&n).map_or(lrank(5000), |&r| lrank(r)),
            s.exact,
            s.frame,
            s.qual,
            s.name,
            s.bm25,
            bm_lrank(n),
            s.graph,
            s.class,
            ps.exact + ps.qual + ps.name,
            ps.bm25,
            lrank(in_file.get(&n).copied().unwrap_or(0)),
            f32::from(u8::from(parent.is_some())),
            f32::from(u8::from(dunder)),
            f32::from(u8::from(name.starts_with(b"_") && !dunder)),
            lrank(b.saturating_sub(a) as usize),
            f32::from(u8::from(
                name == b"__init__"
                    || name == b"constructor"
                    || parent.is_some_and(|p| ix.name(p) == name),
            )),
            f_lrank,
            f_gap,
            f_top1,
            f32::from(u8::from(is_aux_node(ix, n))),
            path_of(f),
            s.code_bm,
            lrank(callers),
            lrank(nbr_named),
            lrank(sib_named),
            s.title_bm,
            lrank(in_file_bm.get(&n).copied().unwrap_or(0)),
            doc_bm.get(&n).copied().unwrap_or(0.0),
        ];
        c.functions.push(n, x, f, top_level(ix, n).unwrap_or(n));
    }
    c.functions.score = c.functions.x.iter().map(|x| dot(&weights::FUNCTION, x)).collect();

    // The module level: the top-level definitions of the candidate functions, of the best
    // scored entities, and of the best files.
    let mut mod_heur: HashMap<u32, f32> = sized(score.len());
    let mut mod_ev: HashMap<u32, usize> = sized(score.len());
    let mut mod_named: HashMap<u32, usize> = HashMap::default();
    for (&n, &s) in &score {
        if let Some(t) = top_level(ix, n) {
            let e = mod_heur.entry(t).or_insert(0.0);
            *e = e.max(s);
            *mod_ev.entry(t).or_insert(0) += 1;
            if t != n && named(n) {
                *mod_named.entry(t).or_insert(0) += 1;
            }
        }
    }
    let file_share = |n: u32| {
        let f = ix.file_node(n).unwrap_or(NONE);
        if max_heur_file > 0.0 {
            heur_file.get(&f).copied().unwrap_or(0.0) / max_heur_file
        } else {
            0.0
        }
    };
    let mut heur_mods: Vec<(u32, f32)> =
        mod_heur.iter().map(|(&n, &s)| (n, s + w.module_file * file_share(n))).collect();
    sort_scored(ix, &mut heur_mods);
    let heur_mod_rank: HashMap<u32, usize> = tied_ranks(&heur_mods).collect();
    let mut mod_cands: Vec<u32> = heur_mods.iter().take(MODULE_CANDIDATES).map(|x| x.0).collect();
    mod_cands.extend(c.functions.module.iter().copied());
    for &(f, _) in heur_files.iter().take(FILES_EXPANDED) {
        for e in ix.out_edges(f) {
            if e.kind == EdgeKind::Contain
                && matches!(ix.kind(e.node), NodeKind::Class | NodeKind::Function)
            {
                mod_cands.push(e.node);
            }
        }
    }
    mod_cands.sort_unstable();
    mod_cands.dedup();
    mod_cands.retain(|&n| !skip(n) && top_level(ix, n) == Some(n));
    let fn_best = FunctionBest::new(&c.functions);
    for &m in &mod_cands {
        let s = sig_of(m);
        let f = ix.file_node(m).unwrap_or(NONE);
        let (f_lrank, f_gap, f_top1) = file_model.get(f);
        let (a, b) = ix.lines(m);
        let x = vec![
            heur_mods
                .get(heur_mod_rank.get(&m).copied().unwrap_or(usize::MAX))
                .map_or(0.0, |x| x.1)
                / 100.0,
            heur_mod_rank.get(&m).map_or(lrank(5000), |&r| lrank(r)),
            s.exact + s.qual + s.name + s.frame,
            s.bm25,
            bm_lrank(m),
            mod_heur.get(&m).copied().unwrap_or(0.0) / 100.0,
            lrank(mod_ev.get(&m).copied().unwrap_or(0)),
            f32::from(u8::from(ix.kind(m) == NodeKind::Class)),
            lrank(b.saturating_sub(a) as usize),
            f_lrank,
            f_gap,
            f_top1,
            fn_best.gap(m),
            s.graph,
            f32::from(u8::from(is_aux_node(ix, m))),
            s.code_bm,
            lrank(mod_named.get(&m).copied().unwrap_or(0)),
            s.title_bm,
        ];
        c.modules.push(m, x, f, m);
    }
    c.modules.score = c.modules.x.iter().map(|x| dot(&weights::MODULE, x)).collect();

    if !w.model {
        // The hand-set ranking (for comparison): the `heur` feature alone.
        for level in [&mut c.files, &mut c.functions, &mut c.modules] {
            level.score = level.x.iter().map(|x| x[0]).collect();
        }
    }
    Ok((c, why))
}

/// Most candidates of an issue the levels are built from: past it, the best by the hand-set
/// score. The 470 dev issues have at most 35,000 (all kept); an issue on the Linux kernel has
/// 300,000, most matching one common word of it, and building every level from all of them
/// took 0.45 s.
const MAX_CANDIDATES: usize = 50_000;
/// Candidates (node, hand-set score) best first: a higher score, then the lower node.
fn by_score(a: (u32, f32), b: (u32, f32)) -> std::cmp::Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// The last of the `max` best candidates ([`by_score`]) when there are more (`None`: every
/// candidate is kept).
fn last_kept(scored: impl ExactSizeIterator<Item = (u32, f32)>, max: usize) -> Option<(u32, f32)> {
    debug_assert!(max > 0);
    if scored.len() <= max {
        return None;
    }
    let mut v: Vec<(u32, f32)> = scored.collect();
    Some(*v.select_nth_unstable_by(max - 1, |a, b| by_score(*a, *b)).1)
}

/// Functions ranked by the hand-set score before the model reads them.
const FUNCTION_CANDIDATES: usize = 300;
/// Modules ranked by the hand-set score before the model reads them.
const MODULE_CANDIDATES: usize = 200;
/// Files (by the hand-set score) whose every module is a candidate.
const FILES_EXPANDED: usize = 10;
/// Files (by the hand-set score) whose every function is a candidate.
const FN_FILES_EXPANDED: usize = 20;

/// The file model's ranking, as features of the levels below.
struct FileRanks {
    rank: HashMap<u32, (usize, f32)>,
    best: f32,
}

impl FileRanks {
    fn new(ix: &Index, files: &Level) -> FileRanks {
        let order = files.order(ix);
        let best = order.first().map_or(0.0, |&i| files.score[i]);
        let rank = order.iter().enumerate().map(|(r, &i)| (files.nodes[i], (r, files.score[i])));
        FileRanks { rank: rank.collect(), best }
    }

    /// (ln(1 + rank), score gap to the best, is the first) of a file.
    fn get(&self, f: u32) -> (f32, f32, f32) {
        match self.rank.get(&f) {
            Some(&(r, s)) => {
                (lrank(r), (s - self.best).max(GAP_FLOOR), f32::from(u8::from(r == 0)))
            }
            None => (lrank(FILE_CANDIDATES), GAP_FLOOR, 0.0),
        }
    }
}

/// The best function score per module, as a feature of the module level.
struct FunctionBest {
    best: HashMap<u32, f32>,
    top: f32,
}

impl FunctionBest {
    fn new(fns: &Level) -> FunctionBest {
        let mut best: HashMap<u32, f32> = HashMap::default();
        for (m, &s) in fns.module.iter().zip(&fns.score) {
            let e = best.entry(*m).or_insert(f32::NEG_INFINITY);
            *e = e.max(s);
        }
        let top = fns.score.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        FunctionBest { best, top }
    }

    fn gap(&self, m: u32) -> f32 {
        self.best.get(&m).map_or(GAP_FLOOR, |&s| (s - self.top).max(GAP_FLOOR))
    }
}

/// File node `f`'s history features: `ln(1 + commits since it last changed)` and `ln(1 +
/// commits among the last few hundred that changed it)`; the same for every file without a
/// history (a constant cannot change an issue's ranking).
fn file_history(h: Option<&ArchivedHistoryFile>, ix: &Index, f: u32) -> [f32; 2] {
    let i = ix.file_index(f).map(|i| i as usize);
    let at = |col: &[rkyv::Archived<u16>]| i.and_then(|i| col.get(i)).map(|v| v.to_native());
    let age = h.and_then(|h| at(&h.age)).unwrap_or(history::WINDOW);
    let churn = h.and_then(|h| at(&h.churn)).unwrap_or(0);
    [lrank(age.into()), lrank(churn.into())]
}

/// Per file of `files`: `ln(1 + BM25)` of the issue's terms over the messages of the commits
/// that changed it, the documents being the messages of those files (their statistics are the
/// candidates', so a term common in the history of these files weighs little); 0 without any.
fn message_scores(
    m: &ArchivedMessagesFile,
    ix: &Index,
    terms: &[(String, f32)],
    files: impl Iterator<Item = u32>,
) -> Vec<f32> {
    let term_at = |i: usize| {
        let (a, b) = (m.vocab_off[i].to_native() as usize, m.vocab_off[i + 1].to_native() as usize);
        m.vocab.get(a..b).unwrap_or_default()
    };
    let n_terms = m.vocab_off.len().saturating_sub(1);
    // The query's terms in the vocabulary, with their weights.
    let query: Vec<(u32, f32)> = terms
        .iter()
        .filter_map(|(t, w)| {
            let i = bm25::partition_point(n_terms, |i| term_at(i) < t.as_bytes());
            (i < n_terms && term_at(i) == t.as_bytes()).then_some((i as u32, *w))
        })
        .collect();
    // Per file: its messages' length and the counts of the query's terms.
    let docs: Vec<(u32, Vec<u32>)> = files
        .map(|f| {
            let Some(i) =
                ix.file_index(f).map(|i| i as usize).filter(|&i| i + 1 < m.file_off.len())
            else {
                return (0, vec![0; query.len()]);
            };
            let r = m.file_off[i].to_native() as usize..m.file_off[i + 1].to_native() as usize;
            let (term, count) = (&m.term[r.clone()], &m.count[r]);
            let len = count.iter().fold(0u32, |a, c| a.saturating_add(c.to_native()));
            let tf = query
                .iter()
                .map(|&(t, _)| match term.binary_search_by_key(&t, |x| x.to_native()) {
                    Ok(j) => count[j].to_native(),
                    Err(_) => 0,
                })
                .collect();
            (len, tf)
        })
        .collect();
    let with_messages = docs.iter().filter(|d| d.0 > 0).count();
    if with_messages == 0 {
        return vec![0.0; docs.len()];
    }
    let avgdl = docs.iter().map(|d| d.0 as f32).sum::<f32>() / with_messages as f32;
    let idf: Vec<f32> = (0..query.len())
        .map(|k| {
            let df = docs.iter().filter(|d| d.1[k] > 0).count();
            bm25::idf(docs.len() as u32, df as u32)
        })
        .collect();
    docs.iter()
        .map(|(len, tf)| {
            let s: f32 = (0..query.len())
                .filter(|&k| tf[k] > 0)
                .map(|k| query[k].1 * idf[k] * bm25::tf_weight(tf[k], *len, avgdl))
                .sum();
            s.ln_1p()
        })
        .collect()
}

/// The rank of each node of a list sorted best first, tied scores sharing the better rank:
/// two files alike but for their names differ in their other features (their history), not
/// in a rank that only their IDs' order set.
fn tied_ranks(sorted: &[(u32, f32)]) -> impl Iterator<Item = (u32, usize)> + '_ {
    let mut first = 0;
    sorted.iter().enumerate().map(move |(i, &(n, s))| {
        if i > 0 && s != sorted[i - 1].1 {
            first = i;
        }
        (n, first)
    })
}

fn sort_scored(ix: &Index, v: &mut [(u32, f32)]) {
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| ix.id(a.0).cmp(ix.id(b.0))));
}

/// BM25 over a subset of the query's terms, normalised per kind (the best of each kind is 1).
fn partial_bm25(
    ix: &Index,
    terms: &[(String, f32)],
    skip: &dyn Fn(u32) -> bool,
) -> Result<HashMap<u32, f32>> {
    let mut out: HashMap<u32, f32> = HashMap::default();
    let mut max = [0f32; 4];
    for (n, s) in rank::bm25_scores(ix, terms)? {
        if !skip(n) {
            let k = ix.kind(n) as usize;
            max[k] = max[k].max(s);
            out.insert(n, s);
        }
    }
    for (&n, s) in out.iter_mut() {
        let m = max[ix.kind(n) as usize];
        *s = if m > 0.0 { *s / m } else { 0.0 };
    }
    Ok(out)
}

/// BM25 of the issue's terms over each of `nodes`' docstring alone (what a function says it
/// does, in the words an issue uses), over the best one's: the terms' IDF and the weights of the
/// main query, the documents' lengths the docstrings', averaged over `nodes`.
fn doc_bm25(ix: &Index, terms: &[(String, f32)], nodes: &[u32]) -> Result<HashMap<u32, f32>> {
    let post = ix.postings()?;
    let n_docs = post.n_docs();
    let mut slot: HashMap<&[u8], usize> = HashMap::default();
    let mut weight: Vec<f32> = Vec::new();
    for (t, w) in terms {
        if let Some(num) = ix.term_number(t.as_bytes())? {
            slot.insert(t.as_bytes(), weight.len());
            weight.push(w * bm25::idf(n_docs, post.df(num) as u32));
        }
    }
    // Per docstring: its node, its length in terms, and the query terms it holds, with counts.
    type Counts = (u32, u32, Vec<(usize, u32)>);
    let mut docs: Vec<Counts> = Vec::new();
    let mut buf = Vec::new();
    for &n in nodes {
        let (Some((a, b)), Some(f)) = (ix.doc_span(n), ix.file_index(n)) else { continue };
        let Some(text) = ix.file_content(f).get(a as usize..b as usize) else { continue };
        let (mut len, mut tf) = (0u32, Vec::<(usize, u32)>::new());
        crate::search::tokenize::words(text, |_, word| {
            crate::search::tokenize::word_terms(word, &mut buf, |t| {
                len += 1;
                if let Some(&i) = slot.get(t) {
                    match tf.iter_mut().find(|x| x.0 == i) {
                        Some(x) => x.1 += 1,
                        None => tf.push((i, 1)),
                    }
                }
            })
        });
        if !tf.is_empty() {
            docs.push((n, len, tf));
        }
    }
    let avgdl = docs.iter().map(|d| d.1 as f32).sum::<f32>() / docs.len().max(1) as f32;
    let mut out: HashMap<u32, f32> = docs
        .iter()
        .map(|(n, len, tf)| {
            let s = tf.iter().map(|&(i, c)| weight[i] * bm25::tf_weight(c, *len, avgdl)).sum();
            (*n, s)
        })
        .collect();
    let max = out.values().copied().fold(0f32, f32::max);
    if max > 0.0 {
        out.values_mut().for_each(|s| *s /= max);
    }
    Ok(out)
}

/// The directory part of a path (`a/b/c.py` -> `a/b`).
fn parent_dir(p: &[u8]) -> &[u8] {
    match p.iter().rposition(|&b| b == b'/') {
        Some(i) => &p[..i],
        None => b"",
    }
}

/// The stem of a path's file name (`a/b/client.py` -> `client`).
fn file_stem(p: &[u8]) -> &[u8] {
    let base = p.rsplit(|&b| b == b'/').next().unwrap_or(p);
    match base.iter().rposition(|&b| b == b'.') {
        Some(i) if i > 0 => &base[..i],
        _ => base,
    }
}

/// The classes and functions of a file or class, recursively, but not inside functions (their
/// code belongs to the function).
fn children(ix: &Index, n: u32) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    // (A damaged index may hold a cycle of contain edges: a tree has at most every node once.)
    while let Some(p) = stack.pop()
        && out.len() < ix.len()
    {
        for e in ix.out_edges(p) {
            if e.kind != EdgeKind::Contain {
                continue;
            }
            match ix.kind(e.node) {
                NodeKind::Class => {
                    out.push(e.node);
                    stack.push(e.node);
                }
                NodeKind::Function => out.push(e.node),
                _ => {}
            }
        }
    }
    out
}

/// The outermost function containing `n` (itself when it is not nested in a function).
fn outer_function(ix: &Index, n: u32) -> Option<u32> {
    let mut best = (ix.kind(n) == NodeKind::Function).then_some(n);
    let mut cur = n;
    // (Bounded: a damaged index may hold a cycle of parents.)
    for _ in 0..MAX_NESTING {
        let Some(p) = ix.parent(cur) else { break };
        match ix.kind(p) {
            NodeKind::Function => best = Some(p),
            NodeKind::File | NodeKind::Directory => break,
            NodeKind::Class => {}
        }
        cur = p;
    }
    best
}

/// Path evidence per file node: the query weight of each distinct word of its path (directory
/// names and file stem, code-tokenized), times how rare that word is among all paths.
fn path_scores(ix: &Index, terms: &[(String, f32)]) -> HashMap<u32, f32> {
    let weight: HashMap<&str, f32> = terms.iter().map(|(t, w)| (t.as_str(), *w)).collect();
    let g = ix.graph();
    let files: Vec<u32> =
        ix.sound(&g.file_node).iter().map(|x| x.to_native()).filter(|&n| n != NONE).collect();
    // The query words among each file's path words (non-test files), and in how many paths
    // each occurs; only those are kept (the Linux kernel has 70,000 paths).
    let mut matched: Vec<(u32, Vec<String>)> = Vec::new();
    let mut df: HashMap<String, u32> = HashMap::default();
    let mut n_files = 0usize;
    for &f in &files {
        if ix.flags(f) & FLAG_TEST != 0 {
            continue;
        }
        n_files += 1;
        let path = ix.path(f);
        let path = crate::lang::strip_source_ext(path).unwrap_or(path);
        let mut words: Vec<String> = Vec::new();
        crate::search::tokenize::tokens(path, |_, t| {
            let wd = String::from_utf8_lossy(t);
            if weight.contains_key(&*wd) {
                words.push(wd.into_owned());
            }
        });
        if words.is_empty() {
            continue;
        }
        words.sort();
        words.dedup();
        for wd in &words {
            *df.entry(wd.clone()).or_insert(0) += 1;
        }
        matched.push((f, words));
    }
    let n = n_files.max(1) as f32;
    let mut out = HashMap::default();
    for (f, words) in matched {
        let s: f32 = words
            .iter()
            .filter_map(|wd| {
                let qw = weight.get(wd.as_str())?;
                let d = *df.get(wd)? as f32;
                Some(qw * (1.0 + (n / d).ln()))
            })
            .sum();
        if s > 0.0 {
            out.insert(f, s);
        }
    }
    out
}

fn reasons(r: Option<&Vec<Reason>>) -> Vec<String> {
    r.map(|v| v.iter().map(|x| x.text()).collect()).unwrap_or_default()
}

fn fill_bm25_terms(ix: &Index, terms: &[(String, f32)], l: &mut Location) -> Result<()> {
    if let Some(r) = l.reasons.iter_mut().find(|r| r.starts_with("bm25")) {
        let t = rank::top_terms(ix, terms, l.node, 4)?;
        *r = format!("bm25: {}", t.join(" "));
    }
    if l.reasons.is_empty() {
        l.reasons.push("in a matched class or file".to_string());
    }
    Ok(())
}

/// The top-level class or function containing `n` (itself if it is one).
///
/// DESIGN §8: the chain of enclosing definitions is cut after its first element that is not a
/// namespace (a TS namespace, a Rust inline `mod`), so a class inside namespaces is the module,
/// not the outermost namespace.
pub fn top_level(ix: &Index, mut n: u32) -> Option<u32> {
    if !matches!(ix.kind(n), NodeKind::Class | NodeKind::Function) {
        return None;
    }
    let mut outermost_real = n;
    for _ in 0..MAX_NESTING {
        let p = ix.parent(n)?;
        if ix.kind(p) == NodeKind::File {
            return Some(if ix.flags(n) & FLAG_NAMESPACE != 0 { outermost_real } else { n });
        }
        if ix.flags(p) & FLAG_NAMESPACE == 0 {
            outermost_real = p;
        }
        n = p;
    }
    // A cycle of parents, in a damaged index.
    None
}

/// Deeper nesting than any code has: a walk up the parents that goes on longer is in a cycle,
/// which only a damaged index holds.
const MAX_NESTING: usize = 1024;

/// The ID of a module-level entity as DESIGN §8 writes it: the node's own, except for a method
/// whose type lives in another file ([`FLAG_OWNED`]), whose module is `FILE:Type`, an entity
/// with no node in this file.
pub fn module_id(ix: &Index, n: u32) -> Vec<u8> {
    if ix.flags(n) & FLAG_OWNED != 0
        && let Some(p) = ix.parent(n)
    {
        return crate::graph::owned_module_id(ix.id(n), ix.id(p), ix.kind(p));
    }
    ix.id(n).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_limit_the_best_candidates_are_kept_ties_by_node() {
        let scored = [(7, 1.0), (3, 5.0), (9, 2.0), (1, 2.0), (4, 0.5), (2, 2.0)];
        assert_eq!(last_kept(scored.iter().copied(), 6), None, "all fit");
        assert_eq!(last_kept(scored.iter().copied(), 10), None);
        // Best first: 3 (5.0), then the three at 2.0 by node (1, 2, 9), then 7, then 4.
        assert_eq!(last_kept(scored.iter().copied(), 1), Some((3, 5.0)));
        assert_eq!(last_kept(scored.iter().copied(), 2), Some((1, 2.0)));
        assert_eq!(last_kept(scored.iter().copied(), 3), Some((2, 2.0)));
        let last = last_kept(scored.iter().copied(), 4).unwrap();
        let kept: Vec<u32> =
            scored.iter().filter(|&&c| !by_score(c, last).is_gt()).map(|c| c.0).collect();
        assert_eq!(kept, [3, 9, 1, 2], "exactly four, in their first order");
    }

    #[test]
    fn auxiliary_paths_are_told_by_their_directories_and_names() {
        for p in ["docs/conf.py", "a/examples/x.py", "benchmarks/b.py", "setup.py", "a/conftest.py"]
        {
            assert!(is_auxiliary(p.as_bytes()), "{p}");
        }
        for p in ["src/docs.py", "examples.py", "a/b/c.py", "", "/", "a/docs", "lib/setup.py.in"] {
            assert!(!is_auxiliary(p.as_bytes()), "{p}");
        }
    }
}
