//! LocAgent v2.3's graph, reproduced from the same facts (`cds-build --compat locagent`).
//!
//! Placeholder: filled in by the compat work (see the module docs once written).

use crate::graph::{Graph, Source};

/// Builds LocAgent v2.3's graph.
pub fn build(_files: &[Source], _dirs: &[Vec<u8>]) -> Graph {
    Graph::default()
}
