//! Using the cds library directly: open an index and answer from it.
//!
//! ```text
//! cargo run --example query_index -- examples/demo-repo/.cds shop/cart.py:Cart.total
//! ```
//!
//! It looks an entity up by ID (or, failing that, by name), prints its callers and callees, and
//! the first lines of its code, all from the memory-mapped index: no parsing, no walking.

use std::path::PathBuf;

use cds::graph::EdgeKind;
use cds::index::Index;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().map(PathBuf::from);
    let wanted = args.next().unwrap_or_else(|| "shop/cart.py:Cart.total".to_string());

    // `discover` walks up from the current directory like git, unless told where the index is.
    let ix = Index::discover(dir.as_deref())?;
    println!("index of {} with {} nodes", ix.root().display(), ix.len());

    // Exact lookup by ID, else by (lower-cased) name through the fst name index.
    let nodes = match ix.lookup_id(wanted.as_bytes()) {
        Some(n) => vec![n],
        None => ix.lookup_key(wanted.to_lowercase().as_bytes())?,
    };
    for n in nodes {
        let (start, end) = ix.lines(n);
        println!(
            "\n{} ({}, lines {start}-{end}): {}",
            cds::id::display(ix.id(n)),
            ix.kind(n).name(),
            ix.fold(n)
        );
        for e in ix.in_edges(n).filter(|e| e.kind == EdgeKind::Invoke) {
            println!("  called by {}", cds::id::display(ix.id(e.node)));
        }
        for e in ix.out_edges(n).filter(|e| e.kind == EdgeKind::Invoke) {
            let how = match e.meta {
                0 => "resolved".to_string(),
                1 => "a guess".to_string(),
                k => format!("one of {k} candidates"),
            };
            println!("  calls {} ({how})", cds::id::display(ix.id(e.node)));
        }
        let code = String::from_utf8_lossy(ix.text(n)).into_owned();
        for (i, line) in code.lines().take(5).enumerate() {
            println!("  {:>4} | {line}", start as usize + i);
        }
    }
    Ok(())
}
