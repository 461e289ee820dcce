//! The entity record every tool prints and reads: one text line or one JSON object.
//!
//! Text (the default, for people and LLMs, and valid input for the next tool):
//!
//! ```text
//! ID<TAB>kind<TAB>start-end<TAB>fold[<TAB>extra]
//! django/db/models/query.py:QuerySet.filter  function  1423-1434  def filter(self, *args, **kwargs):
//! ```
//!
//! (the gaps are TABs).
//!
//! JSON (`--json`, one object per line; documented in cds(7)): the fields of [`Entity`], plus
//! whatever a tool adds (`score` and `reasons` from cds-search, `hop` and `via` from cds-trav,
//! `code` from cds-get). Unknown fields are ignored by readers, and only `id` is required, so
//! `jq` can reshape records freely. IDs that are not UTF-8 are written in the escaped form of
//! [`crate::id::display`], which every tool reads back.

use serde::{Deserialize, Serialize};

use crate::graph::{FLAG_TEST, NodeKind};
use crate::index::Index;

/// The common fields of an entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entity {
    /// The entity ID (`pkg/mod.py:Class.method`).
    pub id: String,
    /// `directory`, `file`, `class` or `function`.
    pub kind: String,
    /// The file path (the ID up to the `:`); the path itself for files and directories.
    pub path: String,
    /// The last component of the name.
    pub name: String,
    /// First line (decorators included); 0 for directories.
    pub start: u32,
    /// Last line; 0 for directories.
    pub end: u32,
    /// The signature on one line (`def f(a, b):`); empty for files and directories.
    pub fold: String,
    /// True when the entity is in a test file.
    pub test: bool,
}

impl Entity {
    /// The record of node `n`.
    pub fn of(ix: &Index, n: u32) -> Entity {
        let id = ix.id(n);
        let (start, end) = ix.lines(n);
        Entity {
            id: crate::id::display(id).into_owned(),
            kind: ix.kind(n).name().to_string(),
            path: crate::id::display(ix.path(n)).into_owned(),
            name: crate::id::display(ix.name(n)).into_owned(),
            start,
            end,
            fold: ix.fold(n),
            test: ix.flags(n) & FLAG_TEST != 0,
        }
    }

    /// `start-end`, or `-` for a directory.
    pub fn lines(&self) -> String {
        if self.kind == NodeKind::Directory.name() {
            "-".to_string()
        } else {
            format!("{}-{}", self.start, self.end)
        }
    }
}

/// Writes the text line of node `n` (`ID<TAB>kind<TAB>lines<TAB>fold`), then `extra` as one
/// more TAB-separated field when it is not empty, then the record terminator.
pub fn write_line(out: &mut crate::cli::Out, ix: &Index, n: u32, extra: &str) -> crate::Result<()> {
    use crate::cli::Style;
    use std::io::Write;
    let e = Entity::of(ix, n);
    out.paint(Style::Id, e.id.as_bytes())?;
    out.write_all(b"\t")?;
    out.paint(Style::Kind, e.kind.as_bytes())?;
    out.write_all(b"\t")?;
    out.paint(Style::LineNo, e.lines().as_bytes())?;
    out.write_all(b"\t")?;
    // A fold never holds a TAB or newline (whitespace is collapsed), so the line stays parseable.
    out.write_all(e.fold.as_bytes())?;
    if !extra.is_empty() {
        out.write_all(b"\t")?;
        out.paint(Style::Dim, extra.as_bytes())?;
    }
    out.record_end()
}

/// The fields of node `n`'s [`Entity`], as a JSON object.
pub fn fields(ix: &Index, n: u32) -> serde_json::Map<String, serde_json::Value> {
    match serde_json::to_value(Entity::of(ix, n)) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    }
}

/// Writes the JSON object of node `n` with a tool's extra fields after its own. The entity's
/// own fields always come from the index: an extra field of the same name (from a record read
/// on stdin) is dropped.
pub fn write_json(
    out: &mut crate::cli::Out,
    ix: &Index,
    n: u32,
    extra: serde_json::Map<String, serde_json::Value>,
) -> crate::Result<()> {
    let mut v = fields(ix, n);
    for (k, x) in extra {
        v.entry(k).or_insert(x);
    }
    out.json_line(&serde_json::Value::Object(v))
}
