//! Name lookups over `names.fst`: exact, prefix and fuzzy (Levenshtein), and the "did you mean"
//! suggestions every tool gives for an unknown ID.
//!
//! Keys are lower-cased names (`filter`), file names and stems (`query.py`, `query`) and paths
//! (`django/db/models/query.py`); see `index::write::node_keys`. A qualified name is found
//! through its last component and checked against the ID.
//!
//! The fst crate builds a Levenshtein automaton eagerly, and its cost grows quickly with the
//! term's length and the distance (27 ms for 16 characters at distance 2 on our machine), so
//! the distance is bounded by the term's length: see [`max_distance`].

use fst::Automaton;
use fst::automaton::{Levenshtein, Str};

use crate::error::Result;
use crate::index::Index;

/// A name-index hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHit {
    /// The matching key.
    pub key: Vec<u8>,
    /// Edit distance from the query (0 for exact and prefix hits).
    pub distance: u32,
    /// The nodes stored under the key.
    pub nodes: Vec<u32>,
}

/// Lower-cases a query the way keys were lower-cased.
pub fn normalize(text: &[u8]) -> Vec<u8> {
    use bstr::ByteSlice;
    text.trim().to_lowercase()
}

/// The largest edit distance worth its cost for a term of `chars` characters: none for very
/// short terms (everything is one edit away), 1 up to 20 characters, none beyond.
pub fn max_distance(chars: usize) -> u32 {
    match chars {
        0..=3 => 0,
        4..=20 => 1,
        _ => 0,
    }
}

/// Nodes stored under exactly this (lower-cased) key.
pub fn exact(ix: &Index, key: &[u8]) -> Result<Vec<u32>> {
    ix.lookup_key(key)
}

/// Keys starting with `prefix`, at most `limit` of them (in key order).
pub fn prefix(ix: &Index, prefix: &[u8], limit: usize) -> Result<Vec<KeyHit>> {
    let Ok(p) = std::str::from_utf8(prefix) else { return Ok(Vec::new()) };
    let mut out = Vec::new();
    ix.search_names(Str::new(p).starts_with(), |k, nodes| {
        out.push(KeyHit { key: k.to_vec(), distance: 0, nodes });
        out.len() < limit
    })?;
    Ok(out)
}

/// Keys within `distance` edits of `term` (the exact key excluded), closest first, at most
/// `limit` of them.
pub fn fuzzy(ix: &Index, term: &[u8], distance: u32, limit: usize) -> Result<Vec<KeyHit>> {
    let Ok(t) = std::str::from_utf8(term) else { return Ok(Vec::new()) };
    if distance == 0 || t.is_empty() {
        return Ok(Vec::new());
    }
    let Ok(aut) = Levenshtein::new_with_limit(t, distance, 10_000) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    // Collect a bounded number of candidates, then rank them by true distance.
    ix.search_names(aut, |k, nodes| {
        if k == term {
            return true;
        }
        let d = edit_distance(term, k);
        out.push(KeyHit { key: k.to_vec(), distance: d, nodes });
        out.len() < limit * 8
    })?;
    // Two letters swapped (`Bluepirnt`), the commonest typo, are two edits for Levenshtein:
    // each swap is looked up exactly, as one edit.
    let mut swapped = term.to_vec();
    for i in 0..term.len().saturating_sub(1) {
        if term[i] == term[i + 1] || !term[i].is_ascii() || !term[i + 1].is_ascii() {
            continue;
        }
        swapped.swap(i, i + 1);
        if !out.iter().any(|h| h.key == swapped) {
            let nodes = ix.lookup_key(&swapped)?;
            if !nodes.is_empty() {
                out.push(KeyHit { key: swapped.clone(), distance: 1, nodes });
            }
        }
        swapped.swap(i, i + 1);
    }
    out.sort_by(|a, b| {
        a.distance.cmp(&b.distance).then(a.key.len().cmp(&b.key.len())).then(a.key.cmp(&b.key))
    });
    out.truncate(limit);
    Ok(out)
}

/// Up to `limit` entities a user probably meant by an unknown ID or name: the name's exact
/// matches first (preferring the same file), then names one edit away, then prefixes.
pub fn suggest(ix: &Index, text: &[u8], limit: usize) -> Result<Vec<u32>> {
    let text = normalize(text);
    let (path, qual) = match text.iter().position(|&c| c == b':') {
        Some(i) => (&text[..i], &text[i + 1..]),
        None => (&text[..], &text[..0]),
    };
    // The most specific part a user typed: the qualified name's last component, else the
    // path's last component.
    let last_of = |s: &[u8], sep: u8| -> Vec<u8> {
        s.rsplit(|&c| c == sep).find(|p| !p.is_empty()).unwrap_or(s).to_vec()
    };
    let name = if qual.is_empty() { last_of(path, b'/') } else { last_of(qual, b'.') };
    let mut out: Vec<u32> = Vec::new();
    let push = |nodes: &[u32], out: &mut Vec<u32>| {
        for &n in nodes {
            if !out.contains(&n) {
                out.push(n);
            }
        }
    };
    let mut exact_hits = Vec::new();
    for key in [qual, path, name.as_slice()] {
        if !key.is_empty() {
            exact_hits.extend(exact(ix, key)?);
        }
    }
    // Same file first: a typo in a method name usually keeps the path right.
    exact_hits.sort_by_key(|&n| !ix.id(n).to_ascii_lowercase().starts_with(path));
    push(&exact_hits, &mut out);
    let chars = String::from_utf8_lossy(&name).chars().count();
    for hit in fuzzy(ix, &name, max_distance(chars).max(u32::from(chars >= 3)), limit * 4)? {
        let mut nodes = hit.nodes;
        nodes.sort_by_key(|&n| !ix.id(n).to_ascii_lowercase().starts_with(path));
        push(&nodes, &mut out);
    }
    if out.len() < limit && name.len() >= 3 {
        for hit in prefix(ix, &name, limit * 4)? {
            push(&hit.nodes, &mut out);
        }
    }
    // Entities in the file the user named come first, then the rest; the file itself after
    // its own entities (a typo in a method name keeps the path right).
    let in_path = |n: u32| {
        ix.kind(n) != crate::graph::NodeKind::File
            && ix.id(n).to_ascii_lowercase().starts_with(path)
            && !path.is_empty()
    };
    out.sort_by_key(|&n| !in_path(n));
    out.truncate(limit);
    Ok(out)
}

/// Levenshtein distance in characters, as the fst automaton counts them (a byte that is not
/// UTF-8 counts as one U+FFFD).
pub fn edit_distance(a: &[u8], b: &[u8]) -> u32 {
    strsim::levenshtein(&String::from_utf8_lossy(a), &String::from_utf8_lossy(b)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance(b"filter", b"filter"), 0);
        assert_eq!(edit_distance(b"filter", b"filtre"), 2);
        assert_eq!(edit_distance(b"filter", b"filters"), 1);
        assert_eq!(edit_distance(b"", b"abc"), 3);
        assert_eq!(edit_distance(b"queryset", b"querset"), 1);
    }

    #[test]
    fn distance_is_bounded_by_length() {
        assert_eq!(max_distance(3), 0);
        assert_eq!(max_distance(8), 1);
        assert_eq!(max_distance(40), 0);
    }
}
