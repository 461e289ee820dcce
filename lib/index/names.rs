//! The name index: `names.fst`, and over it the delta a rebuild writes when few nodes changed
//! (see [`NamesDelta`]).
//!
//! A whole `names.fst` is the largest part of a small rebuild that adds or removes a
//! definition: its values are node numbers, which shift after any node added or removed, and
//! its automaton is compiled from every key again (Django: 50-80 ms of a 110-125 ms JavaScript
//! edit). A node's keys depend on its ID and kind alone, so the previous generation's file
//! still holds the keys of every node that kept both. The delta says where those nodes went
//! and holds the keys of the others; readers merge the two ([`Names`]).

use std::path::Path;

use crate::error::{Error, IndexProblem, Result};
use crate::graph::{Node, NodeKind};
use crate::index::format::{
    MAGIC_NAMES, MAGIC_NAMES_DELTA, MAGIC_NAMES_MAP, NAMES_DELTA_FILE, NAMES_FILE, NAMES_MAP_FILE,
    NamesDelta,
};
use crate::index::fst_file::FstFile;
use crate::index::read::Mapped;
use crate::index::write::{self, MULTI_TAG, NameKeys, NameTable};

/// Most ranges a delta holds (readers search them for every node they decode).
const MAX_RANGES: usize = 1024;

/// Most nodes a delta names: a sixteenth of the nodes, at least 4,096 (past that a rebuild
/// writes `names.fst` whole again). `CDS_NAMES_DELTA` sets another bound (tests).
fn max_delta_nodes(nodes: usize) -> usize {
    let set = std::env::var("CDS_NAMES_DELTA").ok().and_then(|v| v.parse().ok());
    set.unwrap_or((nodes / 16).max(4096))
}

/// Where a base generation's nodes are in a later one: (base range, later range) pairs,
/// flattened, sorted and disjoint; between two pairs (and before the first) the nodes
/// correspond one to one, in order (see [`NamesDelta::replaced`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeMap {
    /// The ranges, numbered as in the base.
    pub base: Vec<u32>,
    /// The ranges, numbered as in the later generation.
    pub later: Vec<u32>,
}

impl NodeMap {
    /// The later number of base node `b`; None when a range replaced it.
    pub fn forward(&self, b: u32) -> Option<u32> {
        shift(&self.base, &self.later, b)
    }

    /// The base number of later node `n`; None when it is in a range (it has no base node).
    pub fn back(&self, n: u32) -> Option<u32> {
        shift(&self.later, &self.base, n)
    }

    /// Whether the ranges are paired, ordered, disjoint and within `base_nodes` and `nodes`,
    /// and the stretches between them as long on both sides.
    fn sound(&self, base_nodes: u32, nodes: u32) -> bool {
        let ordered = |r: &[u32], n: u32| {
            r.len().is_multiple_of(2)
                && r.windows(2).all(|w| w[0] <= w[1])
                && r.last().is_none_or(|&e| e <= n)
        };
        if self.base.len() != self.later.len()
            || !ordered(&self.base, base_nodes)
            || !ordered(&self.later, nodes)
        {
            return false;
        }
        // The stretches kept: from the end of each pair (or 0) to the start of the next (or
        // the end).
        let stretch = |r: &[u32], k: usize, n: u32| {
            let from = if k == 0 { 0 } else { r[2 * k - 1] };
            let to = r.get(2 * k).copied().unwrap_or(n);
            to - from
        };
        (0..=self.base.len() / 2)
            .all(|k| stretch(&self.base, k, base_nodes) == stretch(&self.later, k, nodes))
    }
}

/// `x` mapped from the side whose ranges are `from` to the side whose ranges are `to`.
fn shift(from: &[u32], to: &[u32], x: u32) -> Option<u32> {
    // The pairs starting at or before `x` (starts strictly increase: a node lies between two).
    let (mut lo, mut hi) = (0, from.len() / 2);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if from[2 * mid] <= x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if lo == 0 {
        return Some(x);
    }
    let end = from[2 * lo - 1];
    if x < end {
        return None;
    }
    Some(x - end + *to.get(2 * lo - 1)?)
}

/// A generation's name index as readers see it.
pub struct Names {
    /// `names.fst`: the base, numbered as its own generation's nodes were.
    pub base: FstFile,
    /// Its delta, when this generation has one.
    pub delta: Option<Delta>,
}

/// An open names delta.
pub struct Delta {
    /// `names-delta.fst`.
    pub keys: FstFile,
    /// `names-delta.rkyv`: where the base's nodes are in this generation, and the keys' multi
    /// table.
    pub map: DeltaMap,
}

/// What `names-delta.rkyv` holds, checked.
pub struct DeltaMap {
    /// Where the base's nodes are in this generation.
    pub nodes: NodeMap,
    multi_off: Vec<u32>,
    multi_ids: Vec<u32>,
}

impl Names {
    /// Opens the name index of the generation in `gen_dir`, which has `nodes` nodes.
    pub fn open(gen_dir: &Path, index_dir: &Path, nodes: u32) -> Result<Names> {
        let base = Mapped::open(&gen_dir.join(NAMES_FILE), MAGIC_NAMES, index_dir)?;
        let base_crc = base.header_crc();
        let base = FstFile::open(base, index_dir, NAMES_FILE)?;
        // Most generations have none: one `stat`, not a failed open and its error.
        let path = gen_dir.join(NAMES_MAP_FILE);
        if !path.exists() {
            return Ok(Names { base, delta: None });
        }
        let (map, _) = read_map(gen_dir, index_dir, base_crc, nodes)?;
        let keys = Mapped::open(&gen_dir.join(NAMES_DELTA_FILE), MAGIC_NAMES_DELTA, index_dir)?;
        let keys = FstFile::open(keys, index_dir, NAMES_DELTA_FILE)?;
        Ok(Names { base, delta: Some(Delta { keys, map }) })
    }

    /// Checks the files' checksums (once per process).
    pub fn check(&self) -> Result<()> {
        self.base.check()?;
        match &self.delta {
            Some(d) => d.keys.check(),
            None => Ok(()),
        }
    }
}

impl Delta {
    /// Decodes a `names-delta.fst` value into node numbers below `nodes`.
    pub fn value(&self, value: u64, nodes: u32, out: &mut Vec<u32>) {
        if value & MULTI_TAG == 0 {
            if value < nodes as u64 {
                out.push(value as u32);
            }
            return;
        }
        let k = (value & !MULTI_TAG) as usize;
        let m = &self.map;
        let (Some(&a), Some(&b)) = (m.multi_off.get(k), m.multi_off.get(k + 1)) else {
            return;
        };
        if let Some(ids) = m.multi_ids.get(a as usize..b as usize) {
            out.extend(ids.iter().copied().filter(|&x| x < nodes));
        }
    }
}

/// Reads `names-delta.rkyv` of the generation in `gen_dir` (which has `nodes` nodes, and whose
/// names.fst has the CRC `base_crc`), and the number of nodes its base numbers.
fn read_map(
    gen_dir: &Path,
    index_dir: &Path,
    base_crc: u32,
    nodes: u32,
) -> Result<(DeltaMap, u32)> {
    let m = Mapped::open(&gen_dir.join(NAMES_MAP_FILE), MAGIC_NAMES_MAP, index_dir)?;
    map_of(&m, base_crc, nodes)
        .map_err(|what| Error::index(index_dir, IndexProblem::Corrupt(what.to_string())))
}

/// Checks the names delta's map of the generation in `gen_dir` (with `nodes` nodes) against
/// its base and its nodes: what is wrong, for `cds-build --verify`.
pub fn check_map(gen_dir: &Path, index_dir: &Path, nodes: u32) -> std::result::Result<(), String> {
    let open = |name: &str, magic| Mapped::open(&gen_dir.join(name), magic, index_dir);
    let base_crc = open(NAMES_FILE, MAGIC_NAMES).map_err(|e| e.to_string())?.header_crc();
    let m = open(NAMES_MAP_FILE, MAGIC_NAMES_MAP).map_err(|e| e.to_string())?;
    map_of(&m, base_crc, nodes).map(|_| ()).map_err(str::to_string)
}

/// The map `m` holds (see [`read_map`]), or what is wrong with it.
fn map_of(m: &Mapped, base_crc: u32, nodes: u32) -> std::result::Result<(DeltaMap, u32), &str> {
    // Small (it holds only ranges and the changed nodes' multi table): checked whole.
    if !m.check_crc() {
        return Err("names-delta.rkyv is damaged");
    }
    let Ok(d) = rkyv::access::<rkyv::Archived<NamesDelta>, rkyv::rancor::Error>(m.payload()) else {
        return Err("names-delta.rkyv failed validation");
    };
    if base_crc != d.base_crc.to_native() {
        return Err("names-delta.rkyv belongs to another names.fst");
    }
    let native = |v: &rkyv::vec::ArchivedVec<rkyv::rend::u32_le>| -> Vec<u32> {
        v.iter().map(|x| x.to_native()).collect()
    };
    let map = NodeMap { base: native(&d.base_replaced), later: native(&d.replaced) };
    let base_nodes = d.base_nodes.to_native();
    let (multi_off, multi_ids) = (native(&d.multi_off), native(&d.multi_ids));
    if !map.sound(base_nodes, nodes)
        || multi_off.windows(2).any(|w| w[0] > w[1])
        || multi_off.last().is_some_and(|&e| e as usize > multi_ids.len())
    {
        return Err("names-delta.rkyv is inconsistent");
    }
    Ok((DeltaMap { nodes: map, multi_off, multi_ids }, base_nodes))
}

/// A previous generation's nodes, as a rebuild sees them: each node's ID and kind code.
pub trait PreviousNodes {
    /// How many there are.
    fn len(&self) -> usize;
    /// Node `n`'s ID and kind code (`NodeKind as u8`).
    fn node(&self, n: usize) -> (&[u8], u8);
    /// True when there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Writes the name index of a generation with `nodes` into `dir` as a delta over the name
/// index of the previous generation in `prev_dir` (with nodes `prev`, and the names' multi
/// table `prev_table`): its `names.fst` is linked, and the delta files written. None when
/// the previous files are unsound or the delta would be too big: `names.fst` is then written
/// whole. Returns the bytes written and the multi table the graph keeps (the base's).
pub fn write_delta(
    dir: &Path,
    prev_dir: &Path,
    prev: &dyn PreviousNodes,
    prev_table: NameTable,
    nodes: &[Node],
) -> Option<Result<(u64, NameTable)>> {
    let index_dir = prev_dir.parent()?;
    let from = prev_dir.join(NAMES_FILE);
    let base = Mapped::open(&from, MAGIC_NAMES, index_dir).ok().filter(Mapped::check_crc)?;
    let base_crc = base.header_crc();
    // Where the base's nodes were in the previous generation.
    let (before, base_nodes) = if prev_dir.join(NAMES_MAP_FILE).exists() {
        let (map, base_nodes) = read_map(prev_dir, index_dir, base_crc, prev.len() as u32).ok()?;
        (map.nodes, base_nodes)
    } else {
        (NodeMap::default(), prev.len() as u32)
    };
    let map = delta_map(&before, base_nodes, prev, nodes)?;
    let replaced = map.later.chunks_exact(2).flat_map(|r| r[0]..r[1]);
    let keys = NameKeys::of(replaced.map(|n| (n, &nodes[n as usize])));
    let table = keys.multi();
    let delta = NamesDelta {
        base_crc,
        base_nodes,
        replaced: map.later,
        base_replaced: map.base,
        multi_off: table.multi_off,
        multi_ids: table.multi_ids,
    };
    let to = dir.join(NAMES_FILE);
    let written =
        write::link_or_write(&from, &to, || write::write_payload(&to, MAGIC_NAMES, base.payload()))
            .and_then(|linked| {
                let keys_bytes = write::write_fst(
                    &dir.join(NAMES_DELTA_FILE),
                    MAGIC_NAMES_DELTA,
                    keys.entries(),
                )?;
                let map_bytes =
                    write::write_rkyv(&dir.join(NAMES_MAP_FILE), MAGIC_NAMES_MAP, &delta)?;
                Ok(linked + keys_bytes + map_bytes)
            });
    Some(written.map(|b| (b, prev_table)))
}

/// Links the previous generation's name index, delta and all, into `dir` (for nodes with the
/// previous numbers, IDs and kinds).
pub fn link_previous(prev_dir: &Path, dir: &Path) -> Result<u64> {
    let mut total = 0;
    for (name, magic) in [
        (NAMES_FILE, MAGIC_NAMES),
        (NAMES_DELTA_FILE, MAGIC_NAMES_DELTA),
        (NAMES_MAP_FILE, MAGIC_NAMES_MAP),
    ] {
        let (from, to) = (prev_dir.join(name), dir.join(name));
        if name != NAMES_FILE && !from.exists() {
            continue;
        }
        total += write::link_or_write(&from, &to, || {
            let index_dir = prev_dir.parent().unwrap_or(prev_dir);
            let m = Mapped::open(&from, magic, index_dir)?;
            write::write_payload(&to, magic, m.payload())
        })?;
    }
    Ok(total)
}

/// The ranges of a delta over a base with `base_nodes` nodes for a generation with `nodes`,
/// given where the base's nodes were in the previous generation (`before`) and the previous
/// generation's nodes: a node keeps its base keys when it has the ID and kind of a previous
/// node that had its base keys. None when the delta would be too big.
fn delta_map(
    before: &NodeMap,
    base_nodes: u32,
    prev: &dyn PreviousNodes,
    nodes: &[Node],
) -> Option<NodeMap> {
    let mut map = NodeMap::default();
    let (mut b0, mut n0) = (0u32, 0u32);
    let mut named = 0usize;
    let mut gap = |map: &mut NodeMap, b: u32, n: u32, b0: u32, n0: u32| {
        if (b, n) != (b0, n0) {
            map.base.extend([b0, b]);
            map.later.extend([n0, n]);
            named += (n - n0) as usize;
        }
    };
    for (p, n) in matched(prev, nodes) {
        let Some(b) = before.back(p) else { continue };
        if b < b0 || n < n0 || b >= base_nodes {
            return None;
        }
        gap(&mut map, b, n, b0, n0);
        (b0, n0) = (b + 1, n + 1);
    }
    let n = nodes.len() as u32;
    if b0 > base_nodes {
        return None;
    }
    gap(&mut map, base_nodes, n, b0, n0);
    (map.base.len() / 2 <= MAX_RANGES && named <= max_delta_nodes(nodes.len())).then_some(map)
}

/// (previous node, node) pairs with the same ID and kind, both increasing: the directories,
/// and the nodes of every file whose nodes (the file's, then its definitions') are all the
/// same, found by walking both lists in path order.
fn matched(prev: &dyn PreviousNodes, nodes: &[Node]) -> Vec<(u32, u32)> {
    let is_def = |k: u8| k == NodeKind::Class as u8 || k == NodeKind::Function as u8;
    // The length of the block at `i`: a file and its definitions, or one node.
    let block = |len: usize, kind: &dyn Fn(usize) -> u8, i: usize| {
        let mut j = i + 1;
        if kind(i) == NodeKind::File as u8 {
            while j < len && is_def(kind(j)) {
                j += 1;
            }
        }
        j - i
    };
    let prev_kind = |i: usize| prev.node(i).1;
    let new_kind = |j: usize| nodes[j].kind as u8;
    let (pn, nn) = (prev.len(), nodes.len());
    let mut out = Vec::with_capacity(nn);
    let (mut i, mut j) = (0, 0);
    while i < pn && j < nn {
        let (bi, bj) = (block(pn, &prev_kind, i), block(nn, &new_kind, j));
        match crate::walk::path_order(prev.node(i).0, &nodes[j].id) {
            std::cmp::Ordering::Less => i += bi,
            std::cmp::Ordering::Greater => j += bj,
            std::cmp::Ordering::Equal => {
                let same = bi == bj
                    && (0..bi).all(|k| prev.node(i + k) == (&nodes[j + k].id[..], new_kind(j + k)));
                if same {
                    out.extend((0..bi).map(|k| ((i + k) as u32, (j + k) as u32)));
                }
                i += bi;
                j += bj;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    impl PreviousNodes for Vec<Node> {
        fn len(&self) -> usize {
            <[Node]>::len(self)
        }
        fn node(&self, n: usize) -> (&[u8], u8) {
            (&self[n].id, self[n].kind as u8)
        }
    }

    fn node(id: &str, kind: NodeKind) -> Node {
        Node {
            kind,
            id: id.as_bytes().to_vec(),
            parent: 0,
            file: 0,
            def: crate::graph::NONE,
            flags: 0,
        }
    }

    /// A tree: the root, a directory, and files with their definitions.
    fn tree(files: &[(&str, &[&str])]) -> Vec<Node> {
        let mut out = vec![node("/", NodeKind::Directory), node("pkg", NodeKind::Directory)];
        for (f, defs) in files {
            out.push(node(f, NodeKind::File));
            out.extend(defs.iter().map(|d| node(&format!("{f}:{d}"), NodeKind::Function)));
        }
        out
    }

    /// Every node of `nodes` found from the base through `map` (the base's nodes with their
    /// IDs) or in the ranges, and no node twice: what readers see.
    fn check(map: &NodeMap, base: &[Node], nodes: &[Node]) {
        let mut seen = vec![false; nodes.len()];
        for (b, node) in base.iter().enumerate() {
            if let Some(n) = map.forward(b as u32) {
                assert_eq!(nodes[n as usize].id, node.id, "base node {b} maps to {n}");
                assert_eq!(map.back(n), Some(b as u32));
                assert!(!seen[n as usize]);
                seen[n as usize] = true;
            }
        }
        for r in map.later.chunks_exact(2) {
            for n in r[0]..r[1] {
                assert_eq!(map.back(n), None);
                assert!(!seen[n as usize], "node {n} both in the base and the delta");
                seen[n as usize] = true;
            }
        }
        assert!(seen.iter().all(|&s| s), "a node is neither in the base nor in the delta");
        assert!(map.sound(base.len() as u32, nodes.len() as u32));
    }

    #[test]
    fn a_delta_names_only_the_changed_files_nodes_and_maps_the_rest() {
        let base = tree(&[("pkg/a.py", &["f", "g"]), ("pkg/b.py", &["h"]), ("pkg/c.py", &[])]);
        // A definition added to a.py, c.py removed, d.py added.
        let next =
            tree(&[("pkg/a.py", &["f", "x", "g"]), ("pkg/b.py", &["h"]), ("pkg/d.py", &["k"])]);
        let map = delta_map(&NodeMap::default(), base.len() as u32, &base, &next).unwrap();
        check(&map, &base, &next);
        // a.py's block and c.py -> d.py's block are replaced; the directories and b.py kept.
        assert_eq!(map.later, vec![2, 6, 8, 10]);
        assert_eq!(map.base, vec![2, 5, 7, 8]);
        // A second rebuild over the same base: x removed again, b.py's h renamed.
        let third = tree(&[("pkg/a.py", &["f", "g"]), ("pkg/b.py", &["h2"]), ("pkg/d.py", &["k"])]);
        let map3 = delta_map(&map, base.len() as u32, &next, &third).unwrap();
        check(&map3, &base, &third);
        // a.py is its base self again, but was named by the previous delta: it stays named by
        // this one (its previous nodes have no base number).
        assert_eq!(map3.later, vec![2, 9]);
    }

    #[test]
    fn random_edits_always_give_a_map_readers_can_follow() {
        let mut seed = 7u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut files: Vec<(String, Vec<String>)> =
            (0..12).map(|i| (format!("pkg/m{i:02}.py"), vec!["a".to_string()])).collect();
        let as_tree = |files: &[(String, Vec<String>)]| {
            let owned: Vec<(&str, Vec<&str>)> = files
                .iter()
                .map(|(f, d)| (f.as_str(), d.iter().map(String::as_str).collect()))
                .collect();
            let refs: Vec<(&str, &[&str])> = owned.iter().map(|(f, d)| (*f, &d[..])).collect();
            tree(&refs)
        };
        let base = as_tree(&files);
        let (mut before, mut prev) = (NodeMap::default(), base.clone());
        for step in 0..200 {
            let f = (next() % files.len() as u64) as usize;
            match next() % 4 {
                0 => files[f].1.push(format!("d{step}")),
                1 => {
                    files[f].1.pop();
                }
                2 => files[f].0 = format!("pkg/m{:02}x{step}.py", f),
                _ => {}
            }
            files.sort();
            let now = as_tree(&files);
            let Some(map) = delta_map(&before, base.len() as u32, &prev, &now) else {
                continue;
            };
            check(&map, &base, &now);
            (before, prev) = (map, now);
        }
    }
}
