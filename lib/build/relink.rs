//! Relinking only the language families an edit reached.
//!
//! A family's links (import, invoke and inherit edges between its files' nodes) are a function
//! of its own files (their paths and facts but positions) and the project files; no family
//! reads another's (Python's tables hold only Python files, and each resolver looks only for
//! its family's files). So when the options and the project files are the previous
//! generation's, a family with no file added, removed, renamed or changed in what linking reads
//! keeps its previous edges, renumbered to this build's nodes, and only the other families are
//! linked again: an edit of a JavaScript file of Django no longer solves Python's value flow
//! again.
//!
//! Inside a family without a value flow (not Python's) and without edges a file links from
//! another file's nodes (not Rust's `impl Trait for Type`), a file whose edit changed only its
//! calls is linked again alone: no table reads another file's calls, and each file's links
//! depend only on the tables and the file (see `graph::scope`), so the family's other files
//! keep their edges, and its edges come file by file as a cold build's do. A file whose edit
//! changed its definitions, imports or bindings is linked again with the files that change can
//! reach (`Previous::reached_by` in `build`); its nodes still there are matched to the previous
//! ones by ID, so the other files' edges to them are kept.
//!
//! The graph file lists each node's neighbours in the order their first edge was linked
//! (`index::write`), so the kept edges must come back in an order that gives every node the
//! order it had: a topological order of the two chains each edge belongs to, its source's
//! out-list and its target's in-list, which the previous generation's graph file holds.

use fxhash::FxHashMap as HashMap;

use crate::graph::{self, Edge, EdgeKind, NONE, NodeKind};
use crate::index::read::ArchivedGraph;
use crate::index::write::Adjacency;
use crate::lang::Family;

/// A rebuild that links some families again and keeps the others' previous edges.
pub(super) struct Plan {
    /// The families linked again, in [`Family`] order (those linked file by file included).
    pub relinked: Vec<Family>,
    /// Families linked again only in some files (this build's numbers, in order), the other
    /// files keeping their edges: each file's edges depend on the family's tables and the file
    /// alone, and those files changed only their calls, which no table reads.
    pub by_file: Vec<(Family, Vec<u32>)>,
    /// The families kept (those of the files but the relinked), in [`Family`] order.
    pub kept: Vec<Family>,
    /// Their previous edges (of those that have some) in this build's node numbers.
    kept_edges: Vec<(Family, Vec<Edge>)>,
}

/// This build's files and the previous generation's: each one's family, and for each of this
/// build's its number in the previous generation (None: new).
pub(super) struct Files<'a> {
    pub new: &'a [Family],
    pub old: &'a [Option<Family>],
    pub old_of: &'a [Option<usize>],
}

/// The families a value flow or edges from other files (Rust's `impl Trait for Type`) keep
/// from being linked file by file.
pub(super) fn whole_family(f: Family) -> bool {
    matches!(f, Family::Python | Family::Rust)
}

impl Plan {
    /// The plan for a rebuild of `files` that links the families `relinked` again (those of
    /// the files new, gone or changed; see `Previous::file_changes`). `blocks`: each previous
    /// file's first node and node count. None when no family is kept, or when the previous
    /// graph does not fit this build's nodes (then everything is linked, as in a cold build).
    pub fn new(
        prev: &ArchivedGraph,
        blocks: &[(u32, u32)],
        files: Files,
        mut relinked: Vec<Family>,
        by_file: Vec<(Family, Vec<u32>)>,
        nodes: &[graph::Node],
    ) -> Option<Plan> {
        if blocks.len() != files.old.len() || files.old_of.len() != files.new.len() {
            return None;
        }
        relinked.sort_unstable();
        let kept_family = |f: &Family| !relinked.contains(f);
        // This build's files linked again one by one; the rest of their families keep edges.
        let mut again = vec![false; files.new.len()];
        for (_, fs) in &by_file {
            for &f in fs {
                *again.get_mut(f as usize)? = true;
            }
        }
        let keeps = |old: Option<Family>, now: Option<u32>| match old {
            Some(f) if kept_family(&f) => true,
            Some(f) => {
                by_file.iter().any(|(b, _)| *b == f) && now.is_some_and(|j| !again[j as usize])
            }
            None => false,
        };
        // Per previous file, its number now, when its family is kept (it must still be there).
        let new_of = new_numbers(files.old_of, files.old.len())?;
        let keep_old: Vec<bool> =
            files.old.iter().zip(&new_of).map(|(f, n)| keeps(*f, *n)).collect();
        if !keep_old.contains(&true) || keep_old.iter().zip(&new_of).any(|(k, n)| *k && n.is_none())
        {
            return None;
        }
        let again_old: Vec<bool> =
            new_of.iter().map(|n| n.is_some_and(|j| again[j as usize])).collect();
        let map = node_map(prev, blocks, &keep_old, &again_old, &new_of, nodes)?;
        let (adj, node_file) = previous_adjacency(prev);
        let edges = kept_edges(&adj, &node_file, &map, &keep_old)?;
        // Split by family, each family's edges in the order found (a stable partition keeps
        // every node's order: a node's link edges are of one family, but for a directory's).
        // (Each family's sized up front: millions of edges, grown, were copied over and over.)
        let fams: Vec<Family> =
            edges.iter().map(|e| files.new[nodes[e.src as usize].file as usize]).collect();
        let mut kept_edges: Vec<(Family, Vec<Edge>)> = Vec::new();
        for (e, &fam) in edges.into_iter().zip(&fams) {
            match kept_edges.iter_mut().find(|(f, _)| *f == fam) {
                Some((_, v)) => v.push(e),
                None => {
                    let mut v = Vec::with_capacity(fams.iter().filter(|&&f| f == fam).count());
                    v.push(e);
                    kept_edges.push((fam, v));
                }
            }
        }
        let mut kept: Vec<Family> = files.new.iter().copied().filter(kept_family).collect();
        kept.sort_unstable();
        kept.dedup();
        Some(Plan { relinked, by_file, kept, kept_edges })
    }

    /// Every link edge: the relinked families' `linked` edges, the `fresh` ones of the files
    /// linked one by one, and the kept ones, family by family in [`Family`] order, as a cold
    /// build's link lists them: a family linked file by file lists its files' edges in file
    /// order, each file's in the order it emitted them (`nodes`: this build's).
    pub fn edges(
        self,
        linked: Vec<(Family, Vec<Edge>)>,
        fresh: Vec<(Family, Vec<Edge>)>,
        nodes: &[graph::Node],
    ) -> Vec<Edge> {
        let (mut all, mut fresh) = (linked, fresh);
        for (family, mut kept) in self.kept_edges {
            if let Some(at) = fresh.iter().position(|(f, _)| *f == family) {
                kept.extend(fresh.swap_remove(at).1);
                kept = by_source_file(&kept, nodes);
            }
            all.push((family, kept));
        }
        all.extend(fresh);
        all.sort_by_key(|(f, _)| *f);
        let mut out = Vec::with_capacity(all.iter().map(|(_, e)| e.len()).sum());
        for (_, e) in all {
            out.extend(e);
        }
        out
    }
}

/// `edges` in the order of their sources' files (a directory's, of no file, last), each
/// file's in the order given: a stable counting sort (a comparison sort of the Linux kernel's
/// 4 million C edges, looking each source up, took 0.2 s of a one-file edit).
fn by_source_file(edges: &[Edge], nodes: &[graph::Node]) -> Vec<Edge> {
    let file: Vec<u32> = edges.iter().map(|e| nodes[e.src as usize].file).collect();
    let files = file.iter().filter(|&&f| f != NONE).max().map_or(0, |&f| f as usize + 1);
    let row = |f: u32| if f == NONE { files } else { f as usize };
    let (_, order) = crate::index::write::buckets(
        files + 1,
        file.iter().enumerate().map(|(i, &f)| (row(f), i as u32)),
    );
    order.iter().map(|&i| edges[i as usize]).collect()
}

/// Per previous file (of `old`), its number in this build, given each of this build's files'
/// previous number (`old_of`). None when one is out of range.
pub(super) fn new_numbers(old_of: &[Option<usize>], old: usize) -> Option<Vec<Option<u32>>> {
    let mut new_of = vec![None; old];
    for (j, i) in old_of.iter().enumerate() {
        if let Some(i) = *i {
            *new_of.get_mut(i)? = Some(j as u32);
        }
    }
    Some(new_of)
}

/// Previous node -> this build's node, for the nodes of the previous files still there (now
/// file `new_of`) with as many nodes, and every directory still there (NONE for the rest). A
/// file's nodes are its node and its definitions' after it, the same number of them for the
/// same definitions, in the same order in both generations; a directory is found by its ID
/// (its path), and so are the nodes of a file linked again on its own (`again_old`), whose
/// definitions may have changed. None when a kept file's (`keep_old`) do not match.
fn node_map(
    prev: &ArchivedGraph,
    blocks: &[(u32, u32)],
    keep_old: &[bool],
    again_old: &[bool],
    new_of: &[Option<u32>],
    nodes: &[graph::Node],
) -> Option<Vec<u32>> {
    let mut map = vec![NONE; prev.kind.len()];
    let files = nodes.iter().filter(|n| n.kind == NodeKind::File).count();
    let mut file_start = vec![NONE; files];
    for (n, node) in nodes.iter().enumerate() {
        if node.kind == NodeKind::File && (node.file as usize) < file_start.len() {
            file_start[node.file as usize] = n as u32;
        }
    }
    for (i, &(old, len)) in blocks.iter().enumerate() {
        let Some(j) = new_of[i] else { continue };
        let new = *file_start.get(j as usize)?;
        let run = match nodes.get(new as usize..) {
            Some(rest) => rest.iter().take_while(|x| x.file == j).count(),
            None => 0,
        };
        // A file linked again on its own may have changed its definitions (added, removed,
        // renamed): its nodes still there are found by ID, since kept edges lead to them.
        if again_old[i] && new != NONE {
            let ids: HashMap<&[u8], u32> =
                (new..new + run as u32).map(|n| (&nodes[n as usize].id[..], n)).collect();
            for k in old..old + len {
                if let Some(&n) = ids.get(id_of(prev, k)) {
                    map[k as usize] = n;
                }
            }
            continue;
        }
        if new == NONE || run != len as usize {
            match keep_old[i] {
                true => return None,
                false => continue,
            }
        }
        let slots = map.get_mut(old as usize..(old + len) as usize)?;
        for (k, slot) in slots.iter_mut().enumerate() {
            *slot = new + k as u32;
        }
    }
    let by_id: Vec<u32> = prev.by_id.iter().map(|x| x.to_native()).collect();
    for (n, node) in nodes.iter().enumerate() {
        if node.kind != NodeKind::Directory {
            continue;
        }
        // (A directory new to this build has no previous node.)
        let Ok(at) = by_id.binary_search_by(|&o| id_of(prev, o).cmp(&node.id[..])) else {
            continue;
        };
        let old = by_id[at] as usize;
        if prev.kind.get(old) != Some(&(NodeKind::Directory as u8)) {
            return None;
        }
        map[old] = n as u32;
    }
    Some(map)
}

/// The ID of node `n` of the previous graph (empty when out of range).
fn id_of(prev: &ArchivedGraph, n: u32) -> &[u8] {
    let off = |i: usize| prev.id_off.get(i).map(|x| x.to_native() as usize);
    match (off(n as usize), off(n as usize + 1)) {
        (Some(a), Some(b)) => prev.id_blob.get(a..b).unwrap_or(&[]),
        _ => &[],
    }
}

/// The previous graph's edge columns and each node's file, copied out of the archive.
fn previous_adjacency(prev: &ArchivedGraph) -> (Adjacency, Vec<u32>) {
    let words = |v: &rkyv::vec::ArchivedVec<rkyv::rend::u32_le>| -> Vec<u32> {
        v.iter().map(|x| x.to_native()).collect()
    };
    let adj = Adjacency {
        out_off: words(&prev.out_off),
        out_dst: words(&prev.out_dst),
        out_kind: prev.out_kind.to_vec(),
        out_meta: prev.out_meta.to_vec(),
        in_off: words(&prev.in_off),
        in_src: words(&prev.in_src),
        in_kind: prev.in_kind.to_vec(),
        in_meta: prev.in_meta.to_vec(),
    };
    (adj, words(&prev.file))
}

/// The link edges of `adj` (a previous graph's, `node_file` its nodes' files) whose source lies
/// in a kept file, in this build's node numbers (`map`), and in an order that lists each node's
/// out-edges and in-edges as `adj` does. None when one of them leads to a node this build
/// lacks, or `adj` is not one graph's two directions.
fn kept_edges(
    adj: &Adjacency,
    node_file: &[u32],
    map: &[u32],
    keep_file: &[bool],
) -> Option<Vec<Edge>> {
    let n = node_file.len();
    if adj.out_off.len() != n + 1 || adj.in_off.len() != n + 1 || map.len() != n {
        return None;
    }
    let kept_src = |s: usize| keep_file.get(node_file[s] as usize) == Some(&true);
    let row = |off: &[u32], i: usize| off[i] as usize..off[i + 1] as usize;
    let contain = EdgeKind::Contain as u8;
    // Each kept edge once, numbered along the out-lists; `next[e]`: the edge after it in its
    // source's out-list and in its target's in-list; `preds[e]`: how many of those two chains
    // have an edge before it.
    let most = (0..n).filter(|&s| kept_src(s)).map(|s| row(&adj.out_off, s).len()).sum();
    let mut edges: Vec<Edge> = Vec::with_capacity(most);
    let mut next: Vec<[u32; 2]> = Vec::with_capacity(most);
    let mut preds: Vec<u8> = Vec::with_capacity(most);
    // Per source, its kept edges as (target, kind, edge) sorted, to find an in-list's entry
    // among them (`by_src[first[s]..first[s + 1]]`; a hash table of every edge was 0.75 s of
    // the Linux kernel's 4 million).
    let mut by_src: Vec<(u32, u8, u32)> = Vec::with_capacity(most);
    let mut first: Vec<u32> = Vec::with_capacity(n + 1);
    for s in 0..n {
        first.push(by_src.len() as u32);
        if !kept_src(s) {
            continue;
        }
        let mut before = NONE;
        for j in row(&adj.out_off, s) {
            let (kind, dst) = (*adj.out_kind.get(j)?, *adj.out_dst.get(j)?);
            if kind == contain {
                continue;
            }
            let (src_new, dst_new) = (map[s], *map.get(dst as usize)?);
            if src_new == NONE || dst_new == NONE {
                return None;
            }
            let e = edges.len() as u32;
            let meta = *adj.out_meta.get(j)?;
            edges.push(Edge { src: src_new, dst: dst_new, kind: EdgeKind::from_code(kind)?, meta });
            by_src.push((dst, kind, e));
            next.push([NONE; 2]);
            preds.push(0);
            if before != NONE {
                next[before as usize][0] = e;
                preds[e as usize] += 1;
            }
            before = e;
        }
        let at = first[s] as usize;
        by_src[at..].sort_unstable();
    }
    first.push(by_src.len() as u32);
    for d in 0..n {
        let mut before = NONE;
        for j in row(&adj.in_off, d) {
            let (kind, src) = (*adj.in_kind.get(j)?, *adj.in_src.get(j)?);
            if kind == contain || src as usize >= n || !kept_src(src as usize) {
                continue;
            }
            let of_src = &by_src[first[src as usize] as usize..first[src as usize + 1] as usize];
            let at = of_src.binary_search_by(|x| (x.0, x.1).cmp(&(d as u32, kind))).ok()?;
            let e = of_src[at].2;
            if before != NONE {
                next[before as usize][1] = e;
                preds[e as usize] += 1;
            }
            before = e;
        }
    }
    // Kahn's algorithm, first come first out.
    let mut order: Vec<u32> = (0..edges.len() as u32).filter(|&e| preds[e as usize] == 0).collect();
    let mut at = 0;
    while at < order.len() {
        let e = order[at] as usize;
        at += 1;
        for succ in next[e] {
            if succ != NONE {
                preds[succ as usize] -= 1;
                if preds[succ as usize] == 0 {
                    order.push(succ);
                }
            }
        }
    }
    // (Both chains come from one earlier order, so they cannot form a cycle; a damaged graph
    // that has one is linked anew.)
    if order.len() != edges.len() {
        return None;
    }
    Some(order.into_iter().map(|e| edges[e as usize]).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::write::adjacency;

    #[test]
    fn kept_edges_come_back_in_an_order_that_gives_every_node_its_neighbour_order() {
        // Nodes 0-1 of file 0, 2-4 of file 1 (the directory's contain edges left out), linked
        // in an order that is neither the sources' nor the targets' numbering, a pair twice.
        let node_file = [0, 0, 1, 1, 1];
        let e = |src, dst, kind| Edge { src, dst, kind, meta: 1 };
        let (inv, imp, inh) = (EdgeKind::Invoke, EdgeKind::Import, EdgeKind::Inherit);
        let links = vec![
            e(0, 1, EdgeKind::Contain),
            e(2, 3, EdgeKind::Contain),
            e(2, 4, EdgeKind::Contain),
            e(4, 1, inv),
            e(0, 4, inv),
            e(3, 1, inv),
            e(0, 1, inv),
            e(2, 0, imp),
            e(4, 0, inv),
            e(0, 3, inv),
            e(4, 1, inh),
            e(3, 1, inv),
        ];
        let before = adjacency(5, &links);
        let identity: Vec<u32> = (0..5).collect();
        let kept = kept_edges(&before, &node_file, &identity, &[true, true]).unwrap();
        assert_eq!(kept.len(), 8, "a repeated edge is kept once");
        // Laid out again after the contain edges, the kept edges list every node's neighbours
        // as before.
        let mut again: Vec<Edge> =
            links.iter().filter(|x| x.kind == EdgeKind::Contain).copied().collect();
        again.extend(&kept);
        assert_eq!(adjacency(5, &again), before);
        // Not simply the sources' order: node 1's in-list (a contain edge first).
        let row = before.in_off[1] as usize..before.in_off[2] as usize;
        assert_eq!(before.in_src[row], [0, 0, 4, 4, 3]);
        // Only file 0's sources kept: file 1's edges are left out.
        let kept_0 = kept_edges(&before, &node_file, &identity, &[true, false]).unwrap();
        assert_eq!(kept_0.len(), 3);
        assert!(kept_0.iter().all(|x| node_file[x.src as usize] == 0));
        // Renumbered: file 1's nodes moved up by two.
        let moved: Vec<u32> = vec![0, 1, 4, 5, 6];
        let kept_moved = kept_edges(&before, &node_file, &moved, &[true, true]).unwrap();
        assert!(
            kept_moved
                .iter()
                .zip(&kept)
                .all(|(a, b)| a.src == moved[b.src as usize] && a.dst == moved[b.dst as usize])
        );
        // A target this build lacks: nothing is kept.
        let mut gone = identity.clone();
        gone[1] = NONE;
        assert!(kept_edges(&before, &node_file, &gone, &[true, true]).is_none());
    }
}
