//! Query understanding: from a name, a phrase or a whole issue to weighted search signals.
//!
//! A query is scanned once. What looks like code weighs more than prose:
//!
//! | signal | example | weight |
//! | --- | --- | --- |
//! | traceback frame (file, function) | `File "django/db/models/query.py", line 9, in filter` | [`W_FRAME`] |
//! | file path or entity ID | `django/db/models/query.py`, `a.py:Cls.meth` | [`W_PATH`] |
//! | dotted name | `models.QuerySet.filter` | [`W_DOTTED`] |
//! | identifier with a code shape | `bulk_create`, `QuerySet`, `getUserName`, `foo()` | [`W_IDENT`] |
//! | word inside code (backticks, fenced blocks) | `` `filter` `` | [`W_CODE_WORD`] |
//! | prose word | `related` | [`W_WORD`] |
//!
//! Every signal also feeds BM25 with its weight, so a long issue's identifiers dominate its
//! prose. A short query (a few words on one line) is taken literally: each word is a name to
//! look up, and the words joined (`prefetch related objects` -> `prefetch_related_objects`,
//! `PrefetchRelatedObjects`) are tried as names too.

use std::collections::HashMap;

use crate::search::tokenize;

/// Weight of a traceback frame's file and function.
pub const W_FRAME: f32 = 4.0;
/// Weight of a file path or an entity ID.
pub const W_PATH: f32 = 3.5;
/// Weight of a dotted name.
pub const W_DOTTED: f32 = 3.0;
/// Weight of an identifier that looks like code.
pub const W_IDENT: f32 = 2.5;
/// Weight of a plain word inside code.
pub const W_CODE_WORD: f32 = 1.5;
/// Weight of a prose word.
pub const W_WORD: f32 = 1.0;

/// Multiplier for the words of a long query's first line (its title).
pub const TITLE_BOOST: f32 = 2.0;
/// Longest query text read, in bytes (a 100 KB issue is read whole; beyond that, the start).
pub const MAX_QUERY: usize = 512 << 10;
/// Most distinct BM25 terms kept (the heaviest).
pub const MAX_TERMS: usize = 256;
/// Most name terms looked up.
pub const MAX_NAMES: usize = 200;

/// What kind of name a [`NameTerm`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameShape {
    /// A file path or entity ID (`a/b.py`, `a/b.py:C.m`).
    Path,
    /// A dotted name (`a.b.C`).
    Dotted,
    /// A single identifier.
    Ident,
    /// Several query words joined into one identifier.
    Joined,
}

/// A name to look up in the name index.
#[derive(Debug, Clone, PartialEq)]
pub struct NameTerm {
    /// As written (case kept).
    pub text: String,
    /// Its shape.
    pub shape: NameShape,
    /// Its weight.
    pub weight: f32,
}

/// A traceback frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The file as written (often absolute).
    pub file: String,
    /// The line.
    pub line: u32,
    /// The function.
    pub function: String,
}

/// The understood query.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Names to look up, heaviest first, deduplicated.
    pub names: Vec<NameTerm>,
    /// BM25 terms (lower-cased tokens) with weights, heaviest first.
    pub terms: Vec<(String, f32)>,
    /// Traceback frames, innermost last (as Python prints them).
    pub frames: Vec<Frame>,
    /// True for a short, one-line query (taken literally).
    pub short: bool,
    /// The BM25 terms that came from code (identifiers, paths, frames, words in code), sorted.
    pub code_terms: Vec<String>,
    /// The BM25 terms of the title (a long query's first line) and exception lines, sorted.
    pub title_terms: Vec<String>,
}

impl Query {
    /// True when nothing in the query can be searched for.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty() && self.terms.is_empty()
    }
}

/// Understands `text`.
pub fn parse(text: &str) -> Query {
    parse_with(text, false)
}

/// Understands an issue for localization: every content word is also looked up as a name
/// (at prose weight), because issues name modules in plain words (`sqlmigrate`, `fitsrec`).
pub fn parse_issue(text: &str) -> Query {
    parse_with(text, true)
}

fn parse_with(text: &str, words_as_names: bool) -> Query {
    let text = if text.len() > MAX_QUERY {
        let mut end = MAX_QUERY;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        &text[..end]
    } else {
        text
    };
    let trimmed = text.trim();
    let words: Vec<&str> = trimmed.split_whitespace().collect();
    let short = !trimmed.contains('\n') && words.len() <= 8;
    let mut b = Builder { words_as_names, boost: 1.0, ..Builder::default() };

    for frame in frames(text) {
        let shape = if frame.function.contains('.') { NameShape::Dotted } else { NameShape::Ident };
        b.name(&frame.function, shape, W_FRAME);
        b.name(&frame.file, NameShape::Path, W_FRAME);
        b.terms(&frame.function, W_FRAME);
        b.terms(&frame.file, W_FRAME / 2.0);
        b.frames.push(frame);
    }

    // Code regions: fenced blocks and `inline code`. The title (first line of a long text)
    // says what is wrong in the fewest words: it weighs double.
    let mut in_fence = false;
    let mut title = !short;
    for line in text.lines() {
        b.boost = if (title && !line.trim().is_empty()) || is_exception_line(line) {
            TITLE_BOOST
        } else {
            1.0
        };
        if !line.trim().is_empty() {
            title = false;
        }
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if line.trim_start().starts_with("File \"") {
            continue; // handled as a frame
        }
        // Links to a file of the repository name its path (and maybe a line): the path
        // replaces the link, and a line makes a frame (the definition holding it).
        let linked;
        let line = if line.contains("://") {
            let mut out = String::with_capacity(line.len());
            for word in line.split_inclusive(char::is_whitespace) {
                match source_link(word) {
                    Some((at, path, n)) => {
                        out.push_str(&word[..at]);
                        out.push(' ');
                        out.push_str(&path);
                        out.push(' ');
                        if n > 0 {
                            b.frames.push(Frame { file: path, line: n, function: String::new() });
                        }
                    }
                    None => out.push_str(word),
                }
            }
            linked = out;
            linked.as_str()
        } else {
            line
        };
        let mut in_tick = false;
        for (i, part) in line.split('`').enumerate() {
            if i > 0 {
                in_tick = !in_tick;
            }
            b.chunks(part, short, in_fence || in_tick);
        }
    }

    let content_words =
        words.iter().filter(|w| !tokenize::is_query_stopword(w.to_lowercase().as_bytes())).count();
    if short && content_words >= 2 && words.len() <= 6 && words.iter().all(|w| is_identifier(w)) {
        // Every run of two or more adjacent words, joined snake_case and CamelCase.
        let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
        for len in (2..=lower.len().min(4)).rev() {
            for run in lower.windows(len) {
                b.name(&run.join("_"), NameShape::Joined, W_IDENT);
                let camel: String = run
                    .iter()
                    .map(|w| {
                        let mut c = w.chars();
                        c.next().map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
                    })
                    .collect();
                b.name(&camel, NameShape::Joined, W_IDENT);
            }
        }
    }
    b.finish(short)
}

#[derive(Default)]
struct Builder {
    words_as_names: bool,
    /// Multiplier for the line being read (the title weighs more).
    boost: f32,
    names: Vec<NameTerm>,
    terms: HashMap<String, f32>,
    code_terms: std::collections::BTreeSet<String>,
    title_terms: std::collections::BTreeSet<String>,
    frames: Vec<Frame>,
}

impl Builder {
    fn name(&mut self, text: &str, shape: NameShape, weight: f32) {
        let weight = weight * self.boost.max(1.0);
        let text = text
            .trim_matches(|c: char| c == '.' || c == ':' || c == '/' && shape != NameShape::Path);
        if text.is_empty() || text.len() > 300 {
            return;
        }
        match self.names.iter_mut().find(|n| n.text == text) {
            Some(n) => n.weight = n.weight.max(weight),
            None => self.names.push(NameTerm { text: text.to_string(), shape, weight }),
        }
    }

    fn terms(&mut self, text: &str, weight: f32) {
        let code = weight >= W_CODE_WORD;
        let title = self.boost > 1.0;
        let weight = weight * self.boost.max(1.0);
        tokenize::tokens(text.as_bytes(), |_, t| {
            if tokenize::is_query_stopword(t) {
                return;
            }
            let t = String::from_utf8_lossy(t).into_owned();
            if code && !self.code_terms.contains(&t) {
                self.code_terms.insert(t.clone());
            }
            if title && !self.title_terms.contains(&t) {
                self.title_terms.insert(t.clone());
            }
            let w = self.terms.entry(t).or_insert(0.0);
            // Repeats add up, with diminishing returns.
            *w = if *w == 0.0 { weight } else { *w + weight * 0.25 };
        });
    }

    /// Splits a piece of text into code-ish chunks (`[\w./:-]+`) and classifies each.
    fn chunks(&mut self, text: &str, short: bool, code: bool) {
        for raw in text.split(|c: char| !(c.is_alphanumeric() || "_./:-".contains(c))) {
            let chunk = raw.trim_matches(|c: char| ".:-/".contains(c));
            // `Rack::Request`, `Regex::new`, `UnitTestImpl::RunAllTests`: Ruby, Rust, C++ and
            // PHP qualify names with `::` where IDs use `.`.
            let dotted;
            let chunk = if chunk.contains("::") && !chunk.contains('/') {
                dotted = chunk.replace("::", ".");
                dotted.trim_matches('.')
            } else {
                chunk
            };
            if chunk.is_empty() {
                continue;
            }
            if is_path(chunk) {
                self.name(chunk, NameShape::Path, W_PATH);
                self.terms(chunk, W_PATH / 2.0);
                continue;
            }
            if chunk.contains('.') && chunk.split('.').all(is_identifier) {
                let chain =
                    chunk.strip_prefix("self.").or(chunk.strip_prefix("cls.")).unwrap_or(chunk);
                if chain.contains('.') {
                    self.name(chain, NameShape::Dotted, W_DOTTED);
                }
                for part in chain.split('.') {
                    self.ident(part, short, true);
                }
                continue;
            }
            for part in chunk.split(|c: char| ".:-/".contains(c)) {
                self.ident(part, short, code);
            }
        }
    }

    /// One identifier-or-word.
    fn ident(&mut self, word: &str, short: bool, code: bool) {
        if word.is_empty() || !is_identifier(word) {
            self.terms(word, W_WORD);
            return;
        }
        let lower = word.to_lowercase();
        let stop = tokenize::is_query_stopword(lower.as_bytes());
        let weight = if looks_like_code(word) {
            W_IDENT
        } else if code {
            W_CODE_WORD
        } else {
            W_WORD
        };
        if short && !stop {
            // A short query is a list of names.
            self.name(word, NameShape::Ident, weight.max(W_IDENT));
        } else if (weight >= W_CODE_WORD || self.words_as_names) && !stop && word.len() >= 3 {
            self.name(word, NameShape::Ident, weight);
        }
        self.terms(word, weight);
    }

    fn finish(mut self, short: bool) -> Query {
        self.names.sort_by(|a, b| b.weight.total_cmp(&a.weight));
        self.names.truncate(MAX_NAMES);
        let mut terms: Vec<(String, f32)> = self.terms.into_iter().collect();
        terms.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        terms.truncate(MAX_TERMS);
        let kept = |set: std::collections::BTreeSet<String>| -> Vec<String> {
            set.into_iter().filter(|t| terms.iter().any(|(x, _)| x == t)).collect()
        };
        let code_terms = kept(self.code_terms);
        let title_terms = kept(self.title_terms);
        Query { names: self.names, terms, frames: self.frames, short, code_terms, title_terms }
    }
}

/// `[A-Za-z_][A-Za-z0-9_]*` (Unicode letters allowed).
pub fn is_identifier(s: &str) -> bool {
    let mut c = s.chars();
    c.next().is_some_and(|f| f.is_alphabetic() || f == '_')
        && c.all(|x| x.is_alphanumeric() || x == '_')
}

/// An identifier shaped like code rather than an English word: `snake_case`, `camelCase`,
/// `CamelCase` with an inner capital, `__dunder__`, or with digits.
pub fn looks_like_code(s: &str) -> bool {
    let inner_upper = s.chars().skip(1).any(|c| c.is_uppercase());
    let has_lower = s.chars().any(|c| c.is_lowercase());
    (s.contains('_') && s.len() > 1)
        || (inner_upper && has_lower)
        || s.chars().any(|c| c.is_ascii_digit()) && s.chars().any(|c| c.is_alphabetic())
}

/// A file path: ends in a source extension of an indexed language (optionally followed by
/// `:Qualified.name`), or contains `/`.
fn is_path(s: &str) -> bool {
    let path = s.split(':').next().unwrap_or(s);
    crate::lang::strip_source_ext(path.as_bytes()).is_some_and(|stem| !stem.is_empty())
        || (path.contains('/') && path.split('/').filter(|p| !p.is_empty()).count() >= 2)
}

/// Traceback frames: Python's `File "x.py", line 12, in func`, pytest's
/// `path/x.py:12: in func`, and the stack frames of the other languages
/// ([`crate::search::frames`]).
pub fn frames(text: &str) -> Vec<Frame> {
    let mut out = crate::search::frames::frames(text);
    for line in text.lines() {
        let l = line.trim();
        if let Some(f) = pytest_frame(l) {
            out.push(f);
            continue;
        }
        let Some(rest) = l.strip_prefix("File \"") else { continue };
        let Some((file, rest)) = rest.split_once('"') else { continue };
        let rest = rest.trim_start_matches(',').trim();
        let Some(rest) = rest.strip_prefix("line ") else { continue };
        let (num, rest) = rest.split_once(',').unwrap_or((rest, ""));
        let function = rest.trim().strip_prefix("in ").unwrap_or("").trim().to_string();
        out.push(Frame { file: file.to_string(), line: num.trim().parse().unwrap_or(0), function });
    }
    out
}

/// `ValueError: message`, `E   TypeError: RST.__init__() got ...`: the line naming what went
/// wrong at the end of a traceback.
fn is_exception_line(line: &str) -> bool {
    let l = line.trim_start_matches(|c: char| c == 'E' || c.is_whitespace());
    let Some((head, _)) = l.split_once(": ") else { return false };
    let name = head.rsplit('.').next().unwrap_or(head);
    is_identifier(name)
        && (name.ends_with("Error") || name.ends_with("Exception") || name.ends_with("Warning"))
}

/// A link to a file of a repository in a word (`https://github.com/o/r/blob/REF/a/x.py#L93`,
/// GitLab's `/-/blob/REF/`, Bitbucket's `/src/REF/`): where the link starts in the word, the
/// path in the repository, and the line it points at (0 for none).
fn source_link(word: &str) -> Option<(usize, String, u32)> {
    let sep = word.find("://")?;
    // The scheme's letters (a link often follows `(`, `[text](` or a zero-width space).
    let start = word[..sep]
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphabetic())
        .last()
        .map_or(sep, |(i, _)| i);
    let rest =
        word[sep + 3..].trim_end_matches(|c: char| c.is_whitespace() || ")]>.,;:'\"".contains(c));
    let (rest, anchor) = rest.split_once('#').unwrap_or((rest, ""));
    let rest = rest.split('?').next().unwrap_or(rest);
    let segs: Vec<&str> = rest.split('/').collect();
    // host / owner / repository / (-) / blob / REF / path...
    let i = segs.iter().position(|s| matches!(*s, "blob" | "tree" | "src" | "blame"))?;
    if i < 3 {
        return None;
    }
    let path: Vec<&str> = segs.get(i + 2..)?.iter().copied().filter(|s| !s.is_empty()).collect();
    if path.is_empty() {
        return None;
    }
    let digits: String = anchor
        .strip_prefix('L')
        .or(anchor.strip_prefix("lines-"))
        .unwrap_or("")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    Some((start, path.join("/"), digits.parse().unwrap_or(0)))
}

/// `path/x.py:12: in func` (pytest's traceback lines).
fn pytest_frame(l: &str) -> Option<Frame> {
    let (file, rest) = l.split_once(".py:")?;
    let (num, rest) = rest.split_once(':')?;
    let function = rest.trim().strip_prefix("in ")?.trim();
    if file.contains(char::is_whitespace) || !is_identifier(function) {
        return None;
    }
    Some(Frame {
        file: format!("{file}.py"),
        line: num.trim().parse().ok()?,
        function: function.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(q: &Query) -> Vec<(&str, NameShape)> {
        q.names.iter().map(|n| (n.text.as_str(), n.shape)).collect()
    }

    #[test]
    fn double_colons_qualify_like_dots() {
        for (q, want) in [
            ("Rack::Request", "Rack.Request"),
            ("regex::Regex::new", "regex.Regex.new"),
            ("::std::mem::swap", "std.mem.swap"),
            ("see UnitTestImpl::RunAllTests here", "UnitTestImpl.RunAllTests"),
        ] {
            let q = parse(q);
            assert!(names(&q).contains(&(want, NameShape::Dotted)), "{q:?}");
        }
        // An ID's one colon stays a path.
        let q = parse("shop/cart.py:Cart.total");
        assert!(names(&q).iter().all(|n| n.1 != NameShape::Dotted || !n.0.contains("::")));
    }

    #[test]
    fn short_queries_are_names() {
        let q = parse("QuerySet");
        assert!(q.short);
        assert_eq!(names(&q), [("QuerySet", NameShape::Ident)]);
        let q = parse("QuerySet.filter");
        assert!(names(&q).contains(&("QuerySet.filter", NameShape::Dotted)));
        let q = parse("django/db/models/query.py");
        assert_eq!(names(&q)[0], ("django/db/models/query.py", NameShape::Path));
    }

    #[test]
    fn joined_words_become_names() {
        let q = parse("prefetch related objects");
        let n = names(&q);
        assert!(n.contains(&("prefetch_related_objects", NameShape::Joined)), "{n:?}");
        assert!(n.contains(&("PrefetchRelatedObjects", NameShape::Joined)), "{n:?}");
        assert!(q.terms.iter().any(|(t, _)| t == "prefetch"));
    }

    #[test]
    fn issues_weigh_code_over_prose() {
        let text = "The `bulk_create` method ignores the batch size.\n\nWhen I call QuerySet.bulk_create() it fails:\n\n```\nTraceback (most recent call last):\n  File \"/venv/lib/django/db/models/query.py\", line 470, in bulk_create\n    self._batched_insert(objs)\n```\n";
        let q = parse(text);
        assert!(!q.short);
        assert_eq!(q.frames.len(), 1);
        assert_eq!(q.frames[0].function, "bulk_create");
        assert_eq!(q.frames[0].line, 470);
        let n = names(&q);
        assert!(n.contains(&("bulk_create", NameShape::Ident)), "{n:?}");
        assert!(n.contains(&("QuerySet.bulk_create", NameShape::Dotted)), "{n:?}");
        assert!(n.contains(&("/venv/lib/django/db/models/query.py", NameShape::Path)), "{n:?}");
        assert!(n.contains(&("_batched_insert", NameShape::Ident)), "{n:?}");
        // Prose words are BM25 terms, not names.
        assert!(!n.iter().any(|(t, _)| *t == "ignores"), "{n:?}");
        let w = |t: &str| q.terms.iter().find(|(x, _)| x == t).map(|x| x.1).unwrap_or(0.0);
        assert!(w("bulk_create") > w("ignores"), "{:?}", q.terms);
        assert_eq!(w("the"), 0.0);
    }

    #[test]
    fn pytest_frames_and_titles() {
        let q = parse("boom\n../site-packages/sklearn/calibration.py:764: in predict_proba\n");
        assert_eq!(q.frames[0].file, "../site-packages/sklearn/calibration.py");
        assert_eq!(q.frames[0].function, "predict_proba");
        assert_eq!(q.frames[0].line, 764);
        let q = parse("Isotonic output breaks\n\nsome body text mentioning isotonic once\n");
        let w = |t: &str| q.terms.iter().find(|(x, _)| x == t).map(|x| x.1).unwrap_or(0.0);
        assert!(w("breaks") > w("body"), "{:?}", q.terms);
    }

    #[test]
    fn source_links_name_paths_and_lines() {
        let q = parse(
            "Crash in timesince\n\nthe pivot here: https://github.com/django/django/blob/\
             d2310f6/django/utils/timesince.py#L93-L100 does not keep tzinfo.\n\
             See (https://gitlab.com/o/r/-/blob/main/src/lib.rs) and https://example.com/a/b\n",
        );
        assert!(names(&q).contains(&("django/utils/timesince.py", NameShape::Path)), "{q:?}");
        assert!(names(&q).contains(&("src/lib.rs", NameShape::Path)), "{q:?}");
        assert_eq!(q.frames.len(), 1);
        assert_eq!(q.frames[0].file, "django/utils/timesince.py");
        assert_eq!(q.frames[0].line, 93);
        assert!(q.frames[0].function.is_empty());
        assert!(!q.terms.iter().any(|(t, _)| t == "d2310f6" || t == "blob"), "{:?}", q.terms);
        assert_eq!(source_link("https://github.com/o/r/issues/12"), None);
        let zw = "[x](\u{200b}https://github.com/o/r/blob/stable/1.1.x/a/b.py#L7).";
        assert_eq!(source_link(zw), Some((7, "1.1.x/a/b.py".to_string(), 7)));
        assert_eq!(source_link("\u{200b}://x"), None);
    }

    #[test]
    fn exception_lines() {
        assert!(is_exception_line("ValueError: could not broadcast"));
        assert!(is_exception_line("E   TypeError: RST.__init__() got an unexpected keyword"));
        assert!(is_exception_line("django.db.utils.IntegrityError: duplicate key"));
        assert!(!is_exception_line("Error handling is wrong: it fails"));
        assert!(!is_exception_line("see: the docs"));
    }

    #[test]
    fn stopwords_only_is_empty_and_huge_input_is_bounded() {
        assert!(parse("the of and").is_empty());
        assert!(parse("   ").is_empty());
        let big = "word_".repeat(50_000) + " QuerySet";
        let q = parse(&big);
        assert!(q.terms.len() <= MAX_TERMS);
        assert!(q.names.len() <= MAX_NAMES);
    }

    #[test]
    fn code_shapes() {
        assert!(looks_like_code("bulk_create"));
        assert!(looks_like_code("QuerySet"));
        assert!(looks_like_code("getUserName"));
        assert!(looks_like_code("__init__"));
        assert!(looks_like_code("utf8"));
        assert!(!looks_like_code("Django"));
        assert!(!looks_like_code("ignores"));
        assert!(!looks_like_code("HTTP"));
    }
}
