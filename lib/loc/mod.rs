//! `cds-loc`: from an issue to ranked code locations (files, modules, functions), without a model.
//!
//! The issue is read as a long query ([`query::parse_issue`]): identifiers, dotted names,
//! paths and traceback frames weigh more than prose, and every content word is also looked up
//! as a name. Each entity gets the search signals of [`rank::candidates`] (name matches and
//! BM25), normalised per kind. Then evidence flows along the graph:
//!
//! * a file scores from its own document and from its best entities (a file where several
//!   entities match is more likely than one with a single stray hit);
//! * a module (a top-level class or function) scores from its best member;
//! * methods of a strongly matched class inherit part of its score, since the change is
//!   usually inside the class the issue names.
//!
//! Tests are left out (gold patches of SWE-bench never touch them), and documentation,
//! examples and benchmarks are down-weighted. Every location carries the reasons it ranks.

pub mod cli;

use fxhash::FxHashMap as HashMap;

use crate::error::Result;
use crate::graph::{EdgeKind, FLAG_GENERATED, FLAG_TEST, NONE, NodeKind, id_path};
use crate::index::Index;
use crate::search::query;
use crate::search::rank::{self, Reason};

/// Tunable weights of the method; each was chosen on the dev split (see bench/loc/README.md).
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
    let comps: Vec<&[u8]> = path.split(|&c| c == b'/').collect();
    let base = comps.last().copied().unwrap_or(b"");
    comps.iter().take(comps.len().saturating_sub(1)).any(|c| {
        matches!(
            *c,
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

/// Locates an issue.
pub fn locate(ix: &Index, text: &str, limit: usize, w: &Weights) -> Result<Located> {
    let q = query::parse_issue(text);
    if q.is_empty() {
        return Ok(Located::default());
    }
    let (cands, terms) = rank::candidates(ix, &q)?;

    // BM25 normalised per kind (file documents are far longer than functions').
    let mut max_bm = [0f32; 4];
    for c in &cands {
        if ix.flags(c.node) & FLAG_TEST == 0 {
            let k = ix.kind(c.node) as usize;
            max_bm[k] = max_bm[k].max(c.bm25);
        }
    }
    let mut score: HashMap<u32, f32> = HashMap::default();
    let mut why: HashMap<u32, Vec<Reason>> = HashMap::default();
    for c in &cands {
        let n = c.node;
        if ix.flags(n) & FLAG_TEST != 0 {
            continue;
        }
        if ix.kind(n) == NodeKind::Directory {
            continue;
        }
        let k = ix.kind(n) as usize;
        let bm = if max_bm[k] > 0.0 { w.bm25_span * c.bm25 / max_bm[k] } else { 0.0 };
        let mut s = w.name_score(&c.parts) + bm;
        if is_auxiliary(id_path(ix.id(n))) || ix.flags(n) & FLAG_GENERATED != 0 {
            s *= w.aux_penalty;
        }
        if s <= 0.0 {
            continue;
        }
        score.insert(n, s);
        let mut r = c.reasons.clone();
        if c.bm25 > 0.0 {
            r.push(Reason::Bm25(Vec::new()));
        }
        why.insert(n, r);
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
                || is_auxiliary(id_path(ix.id(n)))
                || s <= 0.0
            {
                continue;
            }
            *score.entry(n).or_insert(0.0) += s;
            why.entry(n).or_default();
        }
    }

    // Path evidence: query words among a file's directory names and its name.
    let path = path_scores(ix, &terms);
    let max_path = path.values().copied().fold(0.0f32, f32::max);
    if max_path > 0.0 {
        for (&f, &p) in &path {
            let s = w.path_span * p / max_path;
            *score.entry(f).or_insert(0.0) += s;
            why.entry(f).or_default().push(Reason::FileName);
        }
        // Entities of a file share its path evidence (only those with evidence of their own).
        let ents: Vec<u32> =
            score.keys().copied().filter(|&n| ix.kind(n) != NodeKind::File).collect();
        for n in ents {
            if let Some(p) = ix.file_node(n).and_then(|f| path.get(&f)) {
                *score.entry(n).or_insert(0.0) += w.path_to_entity * w.path_span * p / max_path;
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
                let entry = score.entry(e.node).or_insert(0.0);
                *entry += s * w.class_to_method;
                why.entry(e.node).or_default();
            }
        }
    }

    // Files: their own score, their best entity, and a share of the others.
    let mut per_file: HashMap<u32, Vec<f32>> = HashMap::default();
    for (&n, &s) in &score {
        if ix.kind(n) == NodeKind::File {
            continue;
        }
        if let Some(f) = ix.file_node(n) {
            per_file.entry(f).or_default().push(s);
        }
    }
    let mut files: Vec<Location> = Vec::new();
    let mut file_ids: Vec<u32> = per_file.keys().copied().collect();
    file_ids.extend(score.keys().copied().filter(|&n| ix.kind(n) == NodeKind::File));
    file_ids.sort_unstable();
    file_ids.dedup();
    for f in file_ids {
        let own = score.get(&f).copied().unwrap_or(0.0);
        let mut ents = per_file.remove(&f).unwrap_or_default();
        ents.sort_by(|a, b| b.total_cmp(a));
        let best = ents.first().copied().unwrap_or(0.0);
        let rest: f32 = ents.iter().skip(1).take(w.file_top).sum();
        let s = own.max(best) + w.file_spread * (rest + own.min(best));
        files.push(Location { node: f, score: s, reasons: reasons(why.get(&f)) });
    }
    sort(ix, &mut files);

    // How a file ranks, in [0, 1], for the levels below it.
    let max_file = files.first().map_or(0.0, |l| l.score);
    let file_share: HashMap<u32, f32> = files
        .iter()
        .map(|l| (l.node, if max_file > 0.0 { l.score / max_file } else { 0.0 }))
        .collect();
    let file_of = |n: u32| ix.file_node(n).and_then(|f| file_share.get(&f).copied()).unwrap_or(0.0);

    // Modules: the top-level definition of each scored entity, helped by its file's rank.
    let mut modules: HashMap<u32, f32> = HashMap::default();
    for (&n, &s) in &score {
        if let Some(t) = top_level(ix, n) {
            let e = modules.entry(t).or_insert(0.0);
            *e = e.max(s);
        }
    }
    let mut modules: Vec<Location> = modules
        .into_iter()
        .map(|(n, s)| Location {
            node: n,
            score: s + w.module_file * file_of(n),
            reasons: reasons(why.get(&n)),
        })
        .collect();
    sort(ix, &mut modules);

    // Entities: functions and methods.
    let mut entities: Vec<Location> = score
        .iter()
        .filter(|(n, _)| ix.kind(**n) == NodeKind::Function)
        .map(|(&n, &s)| Location { node: n, score: s, reasons: reasons(why.get(&n)) })
        .collect();
    sort(ix, &mut entities);

    for level in [&mut files, &mut modules, &mut entities] {
        level.truncate(limit);
        for l in level.iter_mut() {
            fill_bm25_terms(ix, &terms, l)?;
        }
    }
    Ok(Located { files, modules, entities })
}

/// Path evidence per file node: the query weight of each distinct word of its path (directory
/// names and file stem, code-tokenized), times how rare that word is among all paths.
fn path_scores(ix: &Index, terms: &[(String, f32)]) -> HashMap<u32, f32> {
    let weight: HashMap<&str, f32> = terms.iter().map(|(t, w)| (t.as_str(), *w)).collect();
    let g = ix.graph();
    let files: Vec<u32> =
        g.file_node.iter().map(|x| x.to_native()).filter(|&n| n != NONE).collect();
    // Path words of every file (non-test), and in how many paths each occurs.
    let mut words_of: Vec<(u32, Vec<String>)> = Vec::with_capacity(files.len());
    let mut df: HashMap<String, u32> = HashMap::default();
    for &f in &files {
        if ix.flags(f) & FLAG_TEST != 0 {
            continue;
        }
        let path = id_path(ix.id(f));
        let path = crate::lang::strip_source_ext(path).unwrap_or(path);
        let mut words: Vec<String> = Vec::new();
        crate::search::tokenize::tokens(path, |_, t| {
            words.push(String::from_utf8_lossy(t).into_owned())
        });
        words.sort();
        words.dedup();
        for wd in &words {
            *df.entry(wd.clone()).or_insert(0) += 1;
        }
        words_of.push((f, words));
    }
    let n = words_of.len().max(1) as f32;
    let mut out = HashMap::default();
    for (f, words) in words_of {
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

fn sort(ix: &Index, v: &mut [Location]) {
    v.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| ix.id(a.node).cmp(ix.id(b.node))));
}

/// The top-level class or function containing `n` (itself if it is one).
pub fn top_level(ix: &Index, mut n: u32) -> Option<u32> {
    if !matches!(ix.kind(n), NodeKind::Class | NodeKind::Function) {
        return None;
    }
    loop {
        let p = ix.parent(n)?;
        if ix.kind(p) == NodeKind::File {
            return Some(n);
        }
        n = p;
    }
}
