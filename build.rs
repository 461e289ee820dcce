//! Fingerprints the sources that decide what a file's extracted facts are (the language
//! frontends, the shared extraction code, the queries and the term tokenizer), so that an
//! index's cached facts are reused only by a cds-build that would extract the same facts;
//! those that decide what a walk finds, for the same reason with a walk's record; and those
//! that make the graph from the facts (nodes, resolution, linking), so that a cds-build of
//! other linking code links every file again rather than keep the edges an older one made.

use std::hash::Hasher;
use std::path::Path;

const FACTS: &[&str] =
    &["lib/lang", "lib/extract", "queries", "lib/search/tokenize.rs", "lib/search/bm25.rs"];
const WALK: &[&str] = &["lib/walk", "lib/lang"];
const LINK: &[&str] = &["lib/graph", "lib/lang", "lib/build/relink.rs"];

fn main() {
    println!("cargo:rustc-env=CDS_FACTS_FINGERPRINT={:016x}", fingerprint(FACTS));
    println!("cargo:rustc-env=CDS_WALK_FINGERPRINT={:016x}", fingerprint(WALK));
    println!("cargo:rustc-env=CDS_LINK_FINGERPRINT={:016x}", fingerprint(LINK));
}

fn fingerprint(inputs: &[&str]) -> u64 {
    let mut files = Vec::new();
    for input in inputs {
        println!("cargo:rerun-if-changed={input}");
        collect(Path::new(input), &mut files);
    }
    files.sort();
    // FNV-1a over each path and content: stable across Rust versions (std's hasher is not).
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    for f in &files {
        h.write(f.to_string_lossy().as_bytes());
        h.write(&std::fs::read(f).unwrap_or_default());
    }
    h.finish()
}

fn collect(p: &Path, out: &mut Vec<std::path::PathBuf>) {
    match std::fs::read_dir(p) {
        Ok(rd) => rd.flatten().for_each(|e| collect(&e.path(), out)),
        Err(_) if p.is_file() => out.push(p.to_path_buf()),
        Err(_) => {}
    }
}

struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
