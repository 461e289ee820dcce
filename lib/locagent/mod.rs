//! LocAgent's three LLM-facing tools over a cds index, with LocAgent's exact output text, so
//! LocAgent's prompts and fine-tuned models work unchanged (research/locagent-spec.md §3):
//!
//! * [`search_code_snippets`] (SearchEntity): per search term, an exact ID gives the complete
//!   code, `X.__init__` a preview of `X`, a name up to three previews or more folded lines;
//!   `line_nums` with a file give the code around those lines; results are merged, grouped by
//!   term and rendered with LocAgent's headers, `Found ...`, `Source: ...` and `Hint: ...`
//!   lines, numbered code, and the skeleton of a class or file over 100 lines;
//! * [`get_entity_contents`] (RetrieveEntity): the complete code of exact IDs;
//! * [`explore_tree_structure`] (TraverseGraph): LocAgent's expanded tree ([`crate::trav::tree`],
//!   byte-identical on a `cds-build --compat locagent` index) with LocAgent's input checks and
//!   hints for test entities and unknown names.
//!
//! Everything that does not depend on LocAgent's retrieval models is LocAgent's behaviour,
//! quirks included (the `Class` prefix bug, the `**/*.py` default that misses root-level files,
//! the joint term of several terms, the grouping order). Where LocAgent falls back to its BM25
//! indexes or rapidfuzz, cds's own search stands in:
//!
//! * LocAgent's BM25 over entity IDs (a name search in effect) is cds's name tiers (exact,
//!   qualified, prefix, fuzzy names), top 10; with no name hit, the top 3 hits of any kind (as
//!   LocAgent's fuzzy matcher always returns 3);
//! * LocAgent's BM25 over code chunks (of which it keeps the top chunk) is the class or
//!   function with the best BM25 content score;
//! * the candidates offered for an unknown start entity of the tree tool are cds's top 5 hits.
//!
//! The results may differ there; the format is LocAgent's. Test entities are recognised with
//! LocAgent's rule (any piece of the path, split on `/`, `_` and spaces, starting with `test`),
//! on any index. All code comes from the index, never from the file system.

pub mod skeleton;

use std::collections::HashMap;

use crate::error::Result;
use crate::graph::{EdgeKind, NodeKind};
use crate::index::Index;
use crate::search::{query, rank};

/// A tool's answer: LocAgent's text, and the entities it shows (for structured output).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    /// The text LocAgent's tool returns.
    pub text: String,
    /// The IDs of the entities shown, in order, each once.
    pub entities: Vec<String>,
}

impl Output {
    fn add_entity(&mut self, id: String) {
        if !self.entities.contains(&id) {
            self.entities.push(id);
        }
    }
}

/// A call LocAgent would reject with an `AssertionError` (its input checks): the message is
/// LocAgent's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidInput(pub String);

impl std::fmt::Display for InvalidInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// LocAgent's `is_test_file`: a piece of the path part of `id`, split on spaces, `_` and `/`,
/// starts with `test` (lower-cased).
pub fn is_test_file(id: &str) -> bool {
    crate::graph::is_locagent_test(id.as_bytes())
}

/// Python's `str.strip()` whitespace (`str.isspace`), which includes the ASCII separators
/// U+001C..U+001F that Rust's `char::is_whitespace` does not.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `s.strip().strip('.')`, as LocAgent cleans terms and names.
fn clean(s: &str) -> &str {
    s.trim_matches(py_space).trim_matches('.')
}

/// How much of an entity a result shows (LocAgent's `format_mode`), in priority order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mode {
    Complete,
    CodeSnippet,
    Preview,
    Fold,
}

const MODES: [Mode; 4] = [Mode::Complete, Mode::CodeSnippet, Mode::Preview, Mode::Fold];

/// One result (LocAgent's `QueryResult`). Queries are numbers into the call's query list:
/// LocAgent compares its `QueryInfo` objects by identity, so two equal terms stay distinct.
#[derive(Debug, Clone)]
struct Res {
    queries: Vec<usize>,
    mode: Mode,
    node: u32,
    /// Lines (LocAgent's `start_line`, `end_line`): set for previews and snippets.
    lines: Option<(u32, u32)>,
    src: String,
}

/// Node data as LocAgent's graph holds it.
struct Tools<'i> {
    ix: &'i Index,
}

impl<'i> Tools<'i> {
    fn id(&self, n: u32) -> String {
        crate::id::display(self.ix.id(n)).into_owned()
    }

    fn kind(&self, n: u32) -> &'static str {
        self.ix.kind(n).name()
    }

    /// A node that LocAgent's `has_node` accepts: in the graph and not in a test file.
    fn has_node(&self, id: &str) -> Option<u32> {
        if is_test_file(id) {
            return None;
        }
        self.ix.lookup_id(id.as_bytes())
    }

    /// The node's `code` attribute: a file's text, or a class's or function's source from its
    /// `class`/`def` keyword (decorators excluded), as `ast.get_source_segment` gives it; read
    /// as Python reads text files (universal newlines).
    fn code(&self, n: u32) -> String {
        let ix = self.ix;
        let Some(f) = ix.file_index(n) else { return String::new() };
        let content = ix.file_content(f);
        let bytes = match ix.kind(n) {
            NodeKind::File => content,
            NodeKind::Directory => return String::new(),
            _ => {
                let (head, _) = ix.sig_span(n);
                let (_, end) = ix.byte_span(n);
                content.get(head as usize..end as usize).unwrap_or(b"")
            }
        };
        universal_newlines(&String::from_utf8_lossy(bytes))
    }

    /// LocAgent's `start_line`, `end_line`: the `def`/`class` line and the last line; a file
    /// counts from 1 to the number of pieces of its text split on newlines.
    fn lines(&self, n: u32, code: &str) -> (u32, u32) {
        match self.ix.kind(n) {
            NodeKind::File => (1, code.split('\n').count() as u32),
            NodeKind::Directory => (0, 0),
            _ => (self.ix.head_line(n), self.ix.lines(n).1),
        }
    }

    /// The numbered code of a node (LocAgent's `get_node_data(..., return_code_content=True)`),
    /// or `None` when it has none (a directory, an empty file).
    fn numbered(&self, n: u32) -> Option<String> {
        let code = self.code(n);
        if code.is_empty() {
            return None;
        }
        let (start, _) = self.lines(n, &code);
        Some(wrap_code(&code, start.max(1)))
    }

    /// The non-test file IDs, in graph order.
    fn files(&self) -> Vec<(u32, String)> {
        (0..self.ix.len() as u32)
            .filter(|&n| self.ix.kind(n) == NodeKind::File)
            .map(|n| (n, self.id(n)))
            .filter(|(_, id)| !is_test_file(id))
            .collect()
    }

    /// The containing file's ID of a node, as LocAgent's `nid.split(':')[0]`.
    fn file_of(&self, n: u32) -> String {
        let id = self.id(n);
        id.split(':').next().unwrap_or("").to_string()
    }
}

/// Python's universal newlines: `\r\n` and `\r` read as `\n`.
fn universal_newlines(s: &str) -> String {
    if s.contains('\r') { s.replace("\r\n", "\n").replace('\r', "\n") } else { s.to_string() }
}

/// LocAgent's `wrap_code_snippet`: a fence, then each line as its number right-aligned to the
/// widest, ` | `, the text.
pub fn wrap_code(code: &str, start: u32) -> String {
    let lines: Vec<&str> = code.split('\n').collect();
    let last = start as usize + lines.len() - 1;
    let width = last.to_string().len();
    let mut out = String::with_capacity(code.len() + lines.len() * (width + 3) + 8);
    out.push_str("```\n");
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("{:>width$} | {l}", start as usize + i));
    }
    out.push_str("\n```");
    out
}

/// Python's `fnmatch.fnmatchcase`: `*` (any run, `/` included), `?`, `[seq]`, `[!seq]`.
pub fn fnmatch(name: &str, pat: &str) -> bool {
    let n: Vec<char> = name.chars().collect();
    let p: Vec<char> = pat.chars().collect();
    // Iterative matching with backtracking to the last `*`.
    let (mut i, mut j) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while i < n.len() {
        if j < p.len() {
            match p[j] {
                '*' => {
                    star = Some((j, i));
                    j += 1;
                    continue;
                }
                '?' => {
                    i += 1;
                    j += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = class_match(&p, j, n[i]) {
                        if matched {
                            i += 1;
                            j = next;
                            continue;
                        }
                    } else if n[i] == '[' {
                        // An unclosed `[` is a literal.
                        i += 1;
                        j += 1;
                        continue;
                    }
                }
                c if c == n[i] => {
                    i += 1;
                    j += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sj, si)) => {
                j = sj + 1;
                i = si + 1;
                star = Some((sj, si + 1));
            }
            None => return false,
        }
    }
    p[j..].iter().all(|&c| c == '*')
}

/// Matches `c` against the class starting at `p[j] == '['`: `(matched, index after the
/// class)`, or `None` when the class is not closed.
fn class_match(p: &[char], j: usize, c: char) -> Option<(bool, usize)> {
    let mut k = j + 1;
    let negate = p.get(k) == Some(&'!');
    if negate {
        k += 1;
    }
    // A `]` right after `[` or `[!` is a member.
    let first = k;
    let mut end = k;
    while end < p.len() && (p[end] != ']' || end == first) {
        end += 1;
    }
    if end >= p.len() {
        return None;
    }
    let set = &p[first..end];
    let mut hit = false;
    let mut x = 0;
    while x < set.len() {
        if x + 2 < set.len() && set[x + 1] == '-' {
            if set[x] <= c && c <= set[x + 2] {
                hit = true;
            }
            x += 3;
        } else {
            if set[x] == c {
                hit = true;
            }
            x += 1;
        }
    }
    Some((hit != negate, end + 1))
}

/// The file filter LocAgent passes to its name lookup.
enum Filter<'a> {
    /// No filter.
    All,
    /// The file must be one of these.
    Files(&'a std::collections::HashSet<String>),
    /// LocAgent's bug: a dotted term's prefix passed as the filter, so the file must be a
    /// substring of it.
    Substring(&'a str),
}

impl Filter<'_> {
    fn allows(&self, file: &str) -> bool {
        match self {
            Filter::All => true,
            Filter::Files(set) => set.is_empty() || set.contains(file),
            Filter::Substring(s) => s.is_empty() || s.contains(file),
        }
    }
}

/// Hits of LocAgent's name dictionaries, grouped by type in first-seen order.
type Found = Vec<(&'static str, Vec<u32>)>;

impl Tools<'_> {
    /// The keys LocAgent's `global_name_dict` files a node under: a file's name and stem, a
    /// class's or function's last name; none for directories.
    fn keys(&self, n: u32) -> Vec<String> {
        let id = self.id(n);
        if id.ends_with(".py") {
            let fname = id.rsplit('/').next().unwrap_or("").to_string();
            let stem = id[..id.len() - 3].rsplit('/').next().unwrap_or("").to_string();
            vec![fname, stem]
        } else if id.contains(':') {
            let q = id.rsplit(':').next().unwrap_or("");
            vec![q.rsplit('.').next().unwrap_or("").to_string()]
        } else {
            Vec::new()
        }
    }

    /// LocAgent's `search_entity_in_global_dict`: `None` when the term is not a key of either
    /// dictionary, else its hits (possibly none after filtering).
    fn dict_search(
        &self,
        term: &str,
        filter: &Filter,
        prefix: Option<&str>,
    ) -> Result<Option<Found>> {
        // LocAgent's prefix stripping, with its bug: `Class...` loses six characters.
        let term = if term.starts_with("class ") || term.starts_with("Class") {
            skip_chars(term, 6).trim_matches(py_space)
        } else if term.starts_with("function ") || term.starts_with("Function ") {
            skip_chars(term, 9).trim_matches(py_space)
        } else if term.starts_with("method ") || term.starts_with("Method ") {
            skip_chars(term, 7).trim_matches(py_space)
        } else if let Some(rest) = term.strip_prefix("def ") {
            rest.trim_matches(py_space)
        } else {
            term
        };
        let lower = term.to_lowercase();
        // The name index holds lower-cased names, file names and stems (but not `__init__`,
        // which LocAgent files every `__init__.py` under): look both up, then keep the nodes
        // LocAgent's dictionaries hold under the term.
        let mut cands = self.ix.lookup_key(lower.as_bytes())?;
        if !lower.ends_with(".py") {
            cands.extend(self.ix.lookup_key(format!("{lower}.py").as_bytes())?);
        }
        cands.sort_unstable();
        cands.dedup();
        let cands: Vec<(u32, Vec<String>)> = cands
            .into_iter()
            .filter(|&n| !is_test_file(&self.id(n)))
            .map(|n| (n, self.keys(n)))
            .collect();
        let mut nids: Vec<u32> =
            cands.iter().filter(|(_, k)| k.iter().any(|k| k == term)).map(|c| c.0).collect();
        if nids.is_empty() {
            nids = cands
                .iter()
                .filter(|(_, k)| k.iter().any(|k| k.to_lowercase() == lower))
                .map(|c| c.0)
                .collect();
        }
        if nids.is_empty() {
            return Ok(None);
        }
        let prefixes: Vec<String> = prefix
            .map(|p| p.to_lowercase().split('.').map(String::from).collect())
            .unwrap_or_default();
        let mut found: Found = Vec::new();
        for n in nids {
            let id = self.id(n);
            if !filter.allows(id.split(':').next().unwrap_or("")) {
                continue;
            }
            if prefix.is_some() {
                let low = id.to_lowercase().replace(".py", "");
                let mut parts: Vec<&str> = low.split(['.', '/', ':']).collect();
                parts.pop();
                if !prefixes.iter().all(|p| parts.contains(&p.as_str())) {
                    continue;
                }
            }
            let kind = self.kind(n);
            match found.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, v)) => v.push(n),
                None => found.push((kind, vec![n])),
            }
        }
        Ok(Some(found))
    }
}

/// `s` without its first `k` characters (Python's `s[k:]`).
fn skip_chars(s: &str, k: usize) -> &str {
    match s.char_indices().nth(k) {
        Some((i, _)) => &s[i..],
        None => "",
    }
}

/// The arguments of [`search_code_snippets`].
#[derive(Debug, Clone)]
pub struct SearchArgs {
    /// `search_terms`: names, IDs, keywords or code.
    pub search_terms: Vec<String>,
    /// `line_nums`: lines of the file `file_path_or_pattern` names.
    pub line_nums: Vec<i64>,
    /// `file_path_or_pattern`: a glob (`*`, `?`, `[`) or a substring of file paths; `None` or
    /// empty: every file.
    pub file_path_or_pattern: Option<String>,
}

impl Default for SearchArgs {
    fn default() -> SearchArgs {
        SearchArgs {
            search_terms: Vec::new(),
            line_nums: Vec::new(),
            file_path_or_pattern: Some(DEFAULT_PATTERN.to_string()),
        }
    }
}

/// LocAgent's default `file_path_or_pattern`.
pub const DEFAULT_PATTERN: &str = "**/*.py";

/// What cds's search found for one term, shared by the stand-ins for LocAgent's two BM25
/// stages.
struct Retrieved {
    /// Hits in rank order (non-test), with whether a name tier matched and the BM25 score.
    hits: Vec<(u32, bool, f32)>,
}

/// LocAgent's `search_code_snippets` over `ix` (see the module docs).
pub fn search_code_snippets(ix: &Index, args: &SearchArgs) -> Result<Output> {
    let t = Tools { ix };
    let files = t.files();
    let all_paths: Vec<&str> = files.iter().map(|(_, p)| p.as_str()).collect();
    let mut text = String::new();
    let pattern = args.file_path_or_pattern.as_deref().unwrap_or("");
    let include: std::collections::HashSet<String> = if pattern.is_empty() {
        all_paths.iter().map(|p| p.to_string()).collect()
    } else {
        let glob = pattern.contains(['*', '?', '[']);
        let m: std::collections::HashSet<String> = all_paths
            .iter()
            .filter(|p| if glob { fnmatch(p, pattern) } else { p.contains(pattern) })
            .map(|p| p.to_string())
            .collect();
        if m.is_empty() {
            text.push_str(&format!(
                "No files found for file pattern '{pattern}'. Will search all files.\n...\n"
            ));
            all_paths.iter().map(|p| p.to_string()).collect()
        } else {
            m
        }
    };
    let mut queries: Vec<String> = Vec::new();
    let mut fixed: Vec<usize> = Vec::new();
    let mut results: Vec<Res> = Vec::new();
    if !args.search_terms.is_empty() {
        let mut terms: Vec<String> = Vec::new();
        for term in &args.search_terms {
            if is_test_file(term) {
                text.push_str(&format!(
                    "No results for test files: `{term}`. Please do not search for any test \
                     files.\n\n"
                ));
            } else {
                terms.push(term.clone());
            }
        }
        let mut joint: Vec<String> = terms.clone();
        if terms.len() > 1 {
            terms.push(terms.join(" "));
        }
        let last = terms.len().saturating_sub(1);
        let mut i = 0;
        while i < terms.len() {
            let term = clean(&terms[i]).to_string();
            if term.is_empty() {
                i += 1;
                continue;
            }
            let q = queries.len();
            queries.push(term.clone());
            fixed.push(q);
            let (mut found, go_on, content) = search_entity(&t, q, &term, &include)?;
            if content {
                found.extend(content_search(&t, q, &term, &include)?);
            }
            if !go_on && i != last {
                joint[i] = String::new();
                let j: Vec<&str> = joint
                    .iter()
                    .filter(|s| !s.trim_matches(py_space).is_empty())
                    .map(String::as_str)
                    .collect();
                terms[last] = j.join(" ");
                if terms[..last].contains(&terms[last]) {
                    terms[last] = String::new();
                }
            }
            results.extend(found);
            i += 1;
        }
    }
    if let Some((file_node, file)) =
        files.iter().find(|(_, p)| Some(p.as_str()) == args.file_path_or_pattern.as_deref())
        && !args.line_nums.is_empty()
    {
        let nums: Vec<String> = args.line_nums.iter().map(i64::to_string).collect();
        let q = queries.len();
        queries.push(format!("{file}:line {}", nums.join(", ")));
        results.extend(line_results(&t, q, *file_node, &queries[q], &args.line_nums));
    }
    let merged = merge(results);
    let groups = rank(merged, &fixed);
    let mut out = Output::default();
    for (key, by_mode) in groups {
        let desc: Vec<String> = key.iter().map(|&q| format!("\"{}\"", queries[q])).collect();
        text.push_str(&format!(
            "##Searching for term {}...\n### Search Result:\n",
            desc.join(", ")
        ));
        let mut cur = String::new();
        for (mode, rs) in by_mode {
            render_mode(&t, mode, &rs, &mut cur, &mut out);
        }
        cur.push_str("\n\n");
        if cur.trim_matches(py_space).is_empty() {
            text.push_str("No locations found.\n\n");
        } else {
            text.push_str(&cur);
        }
    }
    out.text = text.trim_matches(py_space).to_string();
    Ok(out)
}

/// LocAgent's `search_entity`: exact ID, `X.__init__`, the name dictionaries, then (standing
/// in for its BM25 over entity IDs) cds's name search. Returns the results, whether the term
/// counts as not found exactly (LocAgent's `continue_search`), and whether the content search
/// should run.
fn search_entity(
    t: &Tools,
    q: usize,
    term: &str,
    include: &std::collections::HashSet<String>,
) -> Result<(Vec<Res>, bool, bool)> {
    let mut out = Vec::new();
    let mut go_on = true;
    if let Some(n) = t.has_node(term) {
        out.push(res(
            q,
            Mode::Complete,
            n,
            None,
            format!("Exact match found for entity name `{term}`."),
        ));
        return Ok((out, false, false));
    }
    if let Some(base) = term.strip_suffix(".__init__")
        && let Some(n) = t.has_node(base)
    {
        let code = t.code(n);
        let lines = t.lines(n, &code);
        out.push(res(
            q,
            Mode::Preview,
            n,
            Some(lines),
            format!("Exact match found for entity name `{base}`."),
        ));
        return Ok((out, false, false));
    }
    let files = Filter::Files(include);
    let mut found = t.dict_search(term, &files, None)?;
    if found.as_ref().is_none_or(Vec::is_empty) {
        found = t.dict_search(term, &Filter::All, None)?;
    }
    let mut sub_term = false;
    let mut used = term.to_string();
    if found.as_ref().is_none_or(Vec::is_empty) && term.contains('.') {
        let parts: Vec<&str> = term.split('.').collect();
        let head = parts[..parts.len() - 1].join(".");
        // `'.'.join(term.split('.')[:-1]).split()[-1]`, `None` on an IndexError.
        let prefix: Option<String> =
            head.split(py_space).rfind(|s| !s.is_empty()).map(String::from);
        let split = parts[parts.len() - 1].trim_matches(py_space).to_string();
        used = split.clone();
        found = t.dict_search(&split, &files, prefix.as_deref())?;
        if found.as_ref().is_none_or(Vec::is_empty) {
            // LocAgent passes the prefix as the file filter here (a bug kept on purpose).
            let f = match prefix.as_deref() {
                Some(p) => Filter::Substring(p),
                None => Filter::All,
            };
            found = t.dict_search(&split, &f, None)?;
        }
        if found.as_ref().is_none_or(Vec::is_empty) {
            sub_term = true;
            found = t.dict_search(&split, &Filter::All, None)?;
        }
    }
    if let Some(found) = found.filter(|f| !f.is_empty()) {
        for (kind, nids) in found {
            if !["function", "class", "file"].contains(&kind) || nids.is_empty() {
                continue;
            }
            let src = format!("Match found for entity name `{used}`.");
            if nids.len() <= 3 {
                for n in nids {
                    let code = t.code(n);
                    out.push(res(q, Mode::Preview, n, Some(t.lines(n, &code)), src.clone()));
                }
            } else {
                for n in nids {
                    out.push(res(q, Mode::Fold, n, None, src.clone()));
                }
                go_on = sub_term;
            }
        }
        // LocAgent goes on to its BM25 stages after up to three name hits; they mostly find
        // the same entities again (an entity ID holds its name), so cds stops here, though the
        // term still counts as not found exactly (for the joint term).
        if go_on && !out.is_empty() {
            return Ok((out, true, false));
        }
    }
    if go_on {
        let r = retrieve(t, term, include)?;
        // The name tiers, standing in for BM25 over entity IDs.
        let mut nodes: Vec<u32> = r.hits.iter().filter(|h| h.1).map(|h| h.0).take(10).collect();
        if nodes.is_empty() {
            // LocAgent's fuzzy fallback always offers three.
            nodes = r.hits.iter().map(|h| h.0).take(3).collect();
        }
        let mut shown = 0;
        for n in nodes.into_iter().take(5) {
            let src = "Retrieved entity using keyword search (bm25).".to_string();
            match t.ix.kind(n) {
                NodeKind::File | NodeKind::Directory => out.push(res(q, Mode::Fold, n, None, src)),
                _ if shown < 3 => {
                    shown += 1;
                    let code = t.code(n);
                    out.push(res(q, Mode::Preview, n, Some(t.lines(n, &code)), src));
                }
                _ => {}
            }
        }
    }
    Ok((out, go_on, go_on))
}

/// cds's search for one term, for the stand-ins of LocAgent's BM25 stages: non-test hits in
/// the included files (or anywhere, when none is there).
fn retrieve(
    t: &Tools,
    term: &str,
    include: &std::collections::HashSet<String>,
) -> Result<Retrieved> {
    let query = query::parse(term);
    if query.is_empty() {
        return Ok(Retrieved { hits: Vec::new() });
    }
    let opts = rank::SearchOptions { tests: true, limit: 50, ..Default::default() };
    let res = rank::search(t.ix, &query, &opts)?;
    let hits: Vec<(u32, bool, f32)> = res
        .hits
        .iter()
        .filter(|h| !is_test_file(&t.id(h.node)))
        .map(|h| {
            let named = h.reasons.iter().any(|r| !matches!(r, rank::Reason::Bm25(_)));
            (h.node, named, h.bm25)
        })
        .collect();
    let inside: Vec<(u32, bool, f32)> =
        hits.iter().copied().filter(|h| include.contains(&t.file_of(h.0))).collect();
    Ok(Retrieved { hits: if inside.is_empty() { hits } else { inside } })
}

/// Standing in for LocAgent's BM25 over code chunks (of which it uses the top chunk): the class
/// or function with the best BM25 content score, previewed.
fn content_search(
    t: &Tools,
    q: usize,
    term: &str,
    include: &std::collections::HashSet<String>,
) -> Result<Vec<Res>> {
    let r = retrieve(t, term, include)?;
    let best = r
        .hits
        .iter()
        .filter(|h| h.2 > 0.0 && matches!(t.ix.kind(h.0), NodeKind::Class | NodeKind::Function))
        .filter(|h| include.contains(&t.file_of(h.0)))
        .max_by(|a, b| a.2.total_cmp(&b.2));
    Ok(best
        .map(|h| {
            let code = t.code(h.0);
            res(
                q,
                Mode::Preview,
                h.0,
                Some(t.lines(h.0, &code)),
                "Retrieved code content using keyword search (bm25).".to_string(),
            )
        })
        .into_iter()
        .collect())
}

fn res(q: usize, mode: Mode, node: u32, lines: Option<(u32, u32)>, src: String) -> Res {
    Res { queries: vec![q], mode, node, lines, src }
}

/// LocAgent's `get_code_block_by_line_nums`: for each line, the top-level entity holding it
/// (or the method, in a class), else a window of 20 lines on each side; windows are merged.
fn line_results(t: &Tools, q: usize, file: u32, term: &str, nums: &[i64]) -> Vec<Res> {
    let ix = t.ix;
    let src = format!("Retrieved code context including {term}.");
    let code = t.code(file);
    let (_, file_end) = t.lines(file, &code);
    let mut out = Vec::new();
    let mut seen: Vec<u32> = Vec::new();
    let mut windows: Vec<(i64, i64)> = Vec::new();
    let holds = |n: u32, line: i64| {
        let s = i64::from(ix.head_line(n));
        let e = i64::from(ix.lines(n).1);
        s <= line && line <= e
    };
    let contained = |n: u32| {
        ix.out_edges(n)
            .filter(|e| e.kind == EdgeKind::Contain)
            .map(|e| e.node)
            .filter(|&c| matches!(ix.kind(c), NodeKind::Class | NodeKind::Function))
            .collect::<Vec<u32>>()
    };
    for &line in nums {
        let mut module = contained(file).into_iter().find(|&m| holds(m, line));
        if let Some(m) = module
            && ix.kind(m) == NodeKind::Class
            && let Some(f) = contained(m).into_iter().find(|&f| holds(f, line))
        {
            module = Some(f);
        }
        match module {
            None => windows.push(((line - 20).max(1), (line + 20).min(i64::from(file_end)))),
            Some(m) if !seen.contains(&m) => {
                seen.push(m);
                let c = t.code(m);
                out.push(res(q, Mode::Preview, m, Some(t.lines(m, &c)), src.clone()));
            }
            _ => {}
        }
    }
    windows.sort_by_key(|w| w.0);
    let mut merged: Vec<(i64, i64)> = Vec::new();
    for w in windows {
        match merged.last_mut() {
            Some(last) if w.0 <= last.1 => last.1 = last.1.max(w.1),
            _ => merged.push(w),
        }
    }
    for (a, b) in merged {
        let lines = (clamp_u32(a), clamp_u32(b));
        out.push(Res {
            queries: vec![q],
            mode: Mode::CodeSnippet,
            node: file,
            lines: Some(lines),
            src: src.clone(),
        });
    }
    out
}

fn clamp_u32(v: i64) -> u32 {
    u32::try_from(v.max(0)).unwrap_or(u32::MAX)
}

/// LocAgent's `merge_query_results`: one result per entity (the union of its queries, the
/// strongest mode), snippets never merged and listed first.
fn merge(results: Vec<Res>) -> Vec<Res> {
    let mut snippets = Vec::new();
    let mut merged: Vec<Res> = Vec::new();
    let mut at: HashMap<u32, usize> = HashMap::new();
    for r in results {
        if r.mode == Mode::CodeSnippet {
            snippets.push(r);
            continue;
        }
        match at.get(&r.node) {
            Some(&i) => {
                let m = &mut merged[i];
                if !m.queries.contains(&r.queries[0]) {
                    m.queries.extend(r.queries.iter().copied());
                }
                if r.mode < m.mode {
                    m.mode = r.mode;
                    m.lines = r.lines;
                    m.src = r.src;
                }
            }
            None => {
                at.insert(r.node, merged.len());
                merged.push(r);
            }
        }
    }
    snippets.extend(merged);
    snippets
}

/// Results grouped by their list of queries, each group's results by mode.
type Groups = Vec<(Vec<usize>, Vec<(Mode, Vec<Res>)>)>;

/// LocAgent's `rank_and_aggr_query_results`: results grouped by their list of queries, the
/// groups ordered by the first search term they hold, each group's results by mode.
fn rank(results: Vec<Res>, fixed: &[usize]) -> Groups {
    let mut groups: Vec<(Vec<usize>, Vec<Res>)> = Vec::new();
    for r in results {
        match groups.iter_mut().find(|(k, _)| *k == r.queries) {
            Some((_, v)) => v.push(r),
            None => groups.push((r.queries.clone(), vec![r])),
        }
    }
    let order =
        |key: &Vec<usize>| fixed.iter().position(|f| key.contains(f)).unwrap_or(fixed.len());
    groups.sort_by_key(|(k, _)| order(k));
    groups
        .into_iter()
        .map(|(k, rs)| {
            let by_mode: Vec<(Mode, Vec<Res>)> = MODES
                .iter()
                .map(|&m| (m, rs.iter().filter(|r| r.mode == m).cloned().collect::<Vec<Res>>()))
                .filter(|(_, v)| !v.is_empty())
                .collect();
            (k, by_mode)
        })
        .collect()
}

/// Renders one mode's results of a group (the body of LocAgent's output loop).
fn render_mode(t: &Tools, mode: Mode, rs: &[Res], cur: &mut String, out: &mut Output) {
    match mode {
        Mode::Fold => {
            let mut src = String::new();
            for r in rs {
                if src.is_empty() {
                    src = r.src.clone();
                }
                if src != r.src {
                    cur.push_str(&format!("Source: {src}\n\n"));
                    src = r.src.clone();
                }
                cur.push_str(&format_result(t, r, out));
            }
            cur.push_str(&format!("Source: {src}\n"));
            if rs.len() > 1 {
                cur.push_str(
                    "Hint: Use more detailed query to get the full content of some if needed.\n",
                );
            } else if let Some(r) = rs.first() {
                cur.push_str(&format!(
                    "Hint: Search `{}` for the full content if needed.\n",
                    t.id(r.node)
                ));
            }
            cur.push('\n');
        }
        Mode::Preview => {
            // Drop small results that lie inside an earlier one of the same file.
            let mut kept: Vec<&Res> = Vec::new();
            let mut by_file: Vec<(String, Vec<&Res>)> = Vec::new();
            for r in rs {
                let (s, e) = r.lines.unwrap_or((0, 0));
                if i64::from(e) - i64::from(s) < 100 {
                    let f = match t.ix.kind(r.node) {
                        NodeKind::Directory => String::new(),
                        _ => t.file_of(r.node),
                    };
                    match by_file.iter_mut().find(|(k, _)| *k == f) {
                        Some((_, v)) => v.push(r),
                        None => by_file.push((f, vec![r])),
                    }
                } else {
                    kept.push(r);
                }
            }
            for (_, mut v) in by_file {
                v.sort_by_key(|r| {
                    let (s, e) = r.lines.unwrap_or((0, 0));
                    (s, std::cmp::Reverse(e))
                });
                let mut max_end: i64 = -1;
                for r in v {
                    let e = i64::from(r.lines.unwrap_or((0, 0)).1);
                    if e > max_end {
                        kept.push(r);
                        max_end = e;
                    }
                }
            }
            for r in kept {
                cur.push_str(&format_result(t, r, out));
                cur.push('\n');
            }
        }
        Mode::Complete | Mode::CodeSnippet => {
            for r in rs {
                cur.push_str(&format_result(t, r, out));
                cur.push('\n');
            }
        }
    }
}

/// LocAgent's `QueryResult.format_output`.
fn format_result(t: &Tools, r: &Res, out: &mut Output) -> String {
    let id = t.id(r.node);
    let kind = t.kind(r.node);
    out.add_entity(id.clone());
    let mut s = String::new();
    match r.mode {
        Mode::Complete => {
            s.push_str(&format!("Found {kind} `{id}`.\nSource: {}\n", r.src));
            if let Some(code) = t.numbered(r.node) {
                s.push_str(&code);
                s.push('\n');
            }
        }
        Mode::Preview => {
            s.push_str(&format!("Found {kind} `{id}`.\nSource: {}\n", r.src));
            let code = t.code(r.node);
            match t.ix.kind(r.node) {
                NodeKind::Function if !code.is_empty() => {
                    let (start, _) = t.lines(r.node, &code);
                    s.push_str(&wrap_code(&code, start));
                    s.push('\n');
                }
                NodeKind::Class | NodeKind::File if !code.is_empty() => {
                    let (start, end) = t.lines(r.node, &code);
                    if end.saturating_sub(start) <= 100 {
                        s.push_str(&wrap_code(&code, start.max(1)));
                        s.push('\n');
                    } else {
                        s.push_str(&format!(
                            "Just show the structure of this {kind} due to response length \
                             limitations:\n```\n{}\n```\nHint: Search `{id}` to get the full \
                             content if needed.\n",
                            skeleton::skeleton(&code)
                        ));
                    }
                }
                _ => {}
            }
        }
        Mode::CodeSnippet => {
            s.push_str(&format!("Found code snippet in file `{id}`.\nSource: {}\n", r.src));
            let numbered = t.numbered(r.node).unwrap_or_default();
            let lines: Vec<&str> = numbered.split('\n').collect();
            let inner = if lines.len() >= 2 { &lines[1..lines.len() - 1] } else { &[][..] };
            let (a, b) = r.lines.unwrap_or((1, 0));
            let from = (a as usize).saturating_sub(1).min(inner.len());
            let to = (b as usize).min(inner.len()).max(from);
            s.push_str("```\n");
            s.push_str(&inner[from..to].join("\n"));
            s.push_str("\n```\n");
        }
        Mode::Fold => s.push_str(&format!("Found {kind} `{id}`.\n")),
    }
    s
}

/// LocAgent's `get_entity_contents`: the complete code of each name that is an exact,
/// non-test entity ID; LocAgent's "Invalid name" hint for any other.
pub fn get_entity_contents(ix: &Index, names: &[String]) -> Output {
    let t = Tools { ix };
    let mut out = Output::default();
    let mut text = String::new();
    for name in names {
        let name = clean(name);
        if name.is_empty() {
            continue;
        }
        text.push_str(&format!("##Searching for entity `{name}`...\n### Search Result:\n"));
        match t.has_node(name) {
            Some(n) => {
                let r = res(
                    0,
                    Mode::Complete,
                    n,
                    None,
                    format!("Exact match found for entity name `{name}`."),
                );
                text.push_str(&format_result(&t, &r, &mut out));
            }
            None => text.push_str(
                "Invalid name. \nHint: Valid entity name should be formatted as \
                 \"file_path:QualifiedName\" or just \"file_path\".",
            ),
        }
        text.push_str("\n\n");
    }
    out.text = text.trim_matches(py_space).to_string();
    out
}

/// The arguments of [`explore_tree_structure`].
#[derive(Debug, Clone)]
pub struct TreeArgs {
    /// `start_entities`.
    pub start_entities: Vec<String>,
    /// `direction`: `upstream`, `downstream` or `both`.
    pub direction: String,
    /// `traversal_depth`: -1 (20, as LocAgent) or a number of hops.
    pub traversal_depth: i64,
    /// `entity_type_filter`: `None` keeps every kind; a list keeps its kinds (unknown names
    /// match nothing, as in LocAgent, which does not check them).
    pub entity_type_filter: Option<Vec<String>>,
    /// `dependency_type_filter`: `None` follows every relation.
    pub dependency_type_filter: Option<Vec<String>>,
    /// At most this many lines per tree (0: no limit); a bound for servers, not LocAgent's.
    pub max_lines: usize,
}

impl Default for TreeArgs {
    fn default() -> TreeArgs {
        TreeArgs {
            start_entities: Vec::new(),
            direction: "downstream".to_string(),
            traversal_depth: 2,
            entity_type_filter: None,
            dependency_type_filter: None,
            max_lines: 0,
        }
    }
}

/// LocAgent's edge type names, in its `VALID_EDGE_TYPES` order.
const EDGE_TYPES: [&str; 4] = ["contains", "inherits", "invokes", "imports"];

/// Python's `repr` of a list of strings.
fn py_list(items: &[String]) -> String {
    let inner: Vec<String> = items
        .iter()
        .map(|s| {
            if s.contains('\'') && !s.contains('"') {
                format!("\"{s}\"")
            } else {
                format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
            }
        })
        .collect();
    format!("[{}]", inner.join(", "))
}

/// LocAgent's `explore_tree_structure`: checks the inputs (an invalid direction, depth or
/// dependency type is an [`InvalidInput`] with LocAgent's message), then prints the tree of
/// each valid start entity, joined by blank lines, then hints for test entities and unknown
/// names.
pub fn explore_tree_structure(
    ix: &Index,
    args: &TreeArgs,
) -> Result<std::result::Result<Output, InvalidInput>> {
    let direction = match args.direction.as_str() {
        "downstream" => crate::trav::Direction::Down,
        "upstream" => crate::trav::Direction::Up,
        "both" => crate::trav::Direction::Both,
        other => {
            return Ok(Err(InvalidInput(format!(
                "Invalid value for `direction`: Expected one of 'downstream', 'upstream', and \
                 'both'. Received: '{other}'."
            ))));
        }
    };
    let depth = args.traversal_depth;
    if depth != -1 && depth < 0 {
        return Ok(Err(InvalidInput(format!(
            "Invalid value for `traversal_depth`: It must be either -1 or a non-negative integer \
             (>= 0). Received: {depth}."
        ))));
    }
    // A filter that matches nothing: a bit no kind or relation has (an empty mask means all).
    const NOTHING: u8 = 0x80;
    let mut rels = 0u8;
    if let Some(list) = &args.dependency_type_filter {
        let bad: Vec<String> =
            list.iter().filter(|e| !EDGE_TYPES.contains(&e.as_str())).cloned().collect();
        if !bad.is_empty() {
            let valid: Vec<String> = EDGE_TYPES.iter().map(|s| s.to_string()).collect();
            return Ok(Err(InvalidInput(format!(
                "Invalid edge types {} in edge_type_filter. Expected edge type in {}",
                py_list(&bad),
                py_list(&valid)
            ))));
        }
        rels = NOTHING;
        for e in list {
            if let Some(k) = EdgeKind::parse(e) {
                rels |= 1 << k as u8;
            }
        }
    }
    let mut kinds = 0u8;
    if let Some(list) = &args.entity_type_filter {
        kinds = NOTHING;
        for k in list {
            if let Some(kind) = NodeKind::ALL.iter().find(|x| x.name() == k) {
                kinds |= 1 << *kind as u8;
            }
        }
    }
    let walk = crate::trav::Walk {
        // LocAgent reads -1 as 20 hops.
        hops: Some(if depth == -1 { 20 } else { u32::try_from(depth).unwrap_or(u32::MAX) }),
        direction,
        kinds,
        rels,
        tests: false,
        limit: args.max_lines,
        fanout: 0,
    };
    let t = Tools { ix };
    let mut out = Output::default();
    let mut hints = String::new();
    let mut trees: Vec<String> = Vec::new();
    for root in &args.start_entities {
        let mut name: &str = root;
        if name != "/" {
            name = name.trim_matches('/');
        }
        if let Some(base) = name.strip_suffix(".__init__") {
            name = base;
        }
        match ix.lookup_id(name.as_bytes()) {
            None => {
                let cands = candidates(&t, name)?;
                if cands.is_empty() {
                    hints.push_str(&format!(
                        "The entity name `{name}` is invalid. There are no possible candidate \
                         entities in record.\n"
                    ));
                } else {
                    hints.push_str(&format!(
                        "The entity name `{name}` is invalid. Based on your input, here are some \
                         candidate entities you might be referring to:\n"
                    ));
                    for n in cands {
                        hints.push_str(&format!("{}: `{}`\n", t.kind(n), t.id(n)));
                    }
                    hints.push_str("Source: Retrieved entity using keyword search (bm25).\n\n");
                }
            }
            Some(_) if is_test_file(name) => hints.push_str(&format!(
                "No results for the test entity: `{name}`. Please do not include any test \
                 entities.\n\n"
            )),
            Some(n) => {
                out.add_entity(t.id(n));
                trees.push(crate::trav::tree(ix, n, &walk, true).text);
            }
        }
    }
    let mut text = trees.join("\n\n");
    if !hints.trim_matches(py_space).is_empty() {
        text.push_str("\n\n");
        text.push_str(&hints);
    }
    out.text = text.trim_matches(py_space).to_string();
    Ok(Ok(out))
}

/// Up to five entities an unknown start entity may mean (standing in for LocAgent's BM25 over
/// entity IDs): cds's "did you mean" suggestions for an unknown ID, else its top search hits;
/// tests left out.
fn candidates(t: &Tools, name: &str) -> Result<Vec<u32>> {
    let not_test = |n: &u32| !is_test_file(&t.id(*n));
    let mut out: Vec<u32> = crate::search::names::suggest(t.ix, name.as_bytes(), 10)?
        .into_iter()
        .filter(not_test)
        .collect();
    if out.is_empty() {
        let query = query::parse(name);
        if !query.is_empty() {
            let opts = rank::SearchOptions { tests: true, limit: 20, ..Default::default() };
            out = rank::search(t.ix, &query, &opts)?
                .hits
                .iter()
                .map(|h| h.node)
                .filter(not_test)
                .collect();
        }
    }
    out.truncate(5);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_files_by_locagent_rule() {
        assert!(is_test_file("tests/test_x.py"));
        assert!(is_test_file("test_make"));
        assert!(is_test_file("pkg/my_testing.py:f"));
        assert!(!is_test_file("pkg/core.py:test_make"));
        assert!(!is_test_file("pkg/contest.py"));
    }

    #[test]
    fn fnmatch_like_python() {
        assert!(fnmatch("pkg/core.py", "**/*.py"));
        assert!(!fnmatch("setup.py", "**/*.py"));
        assert!(fnmatch("requests/api.py", "requests/[am]*.py"));
        assert!(!fnmatch("requests/utils.py", "requests/[am]*.py"));
        assert!(fnmatch("requests/utils.py", "requests/[!am]*.py"));
        assert!(fnmatch("a/b.py", "a/?.py"));
        assert!(fnmatch("a[b.py", "a[b.py"));
        assert!(!fnmatch("nosuchdir/x", "nosuchdir/**/y"));
    }

    #[test]
    fn numbered_code() {
        assert_eq!(wrap_code("a\nb", 9), "```\n 9 | a\n10 | b\n```");
        assert_eq!(wrap_code("x\n", 1), "```\n1 | x\n2 | \n```");
    }

    #[test]
    fn cleaning_and_slicing() {
        assert_eq!(clean("  pkg/util.py:get. "), "pkg/util.py:get");
        assert_eq!(clean(" . "), "");
        assert_eq!(skip_chars("ClassVar", 6), "ar");
        assert_eq!(py_list(&["calls".to_string()]), "['calls']");
    }
}
