//! The code-aware tokenizer shared by indexing and querying.
//!
//! A word is a run of ASCII letters, digits, `_` or non-ASCII bytes, but for U+FEFF (a
//! byte-order mark, or a zero-width no-break space), which ends one. Each word yields its
//! lower-cased whole form and, when it has several parts, each part: `snake_case`, `camelCase`,
//! `ACRONYMWord` and letter/digit boundaries all split. So `getUserName` gives
//! `getusername get user name`, `XMLHttpRequest` gives `xmlhttprequest xml http request` and
//! `parse_json2dict` gives `parse_json2dict parse json 2 dict`... except that one-character
//! pieces are dropped (they match everything and carry nothing), as are words over
//! [`MAX_WORD`] bytes (hashes, base64).

/// Longest word indexed, in bytes.
pub const MAX_WORD: usize = 64;

/// Calls `emit(byte_offset, term)` for every term of `text`, in order.
pub fn tokens(text: &[u8], mut emit: impl FnMut(usize, &[u8])) {
    let mut buf: Vec<u8> = Vec::with_capacity(MAX_WORD);
    words(text, |start, word| word_terms(word, &mut buf, |t| emit(start, t)));
}

/// Calls `emit(byte_offset, word)` for every word of `text` that may have terms (those of at
/// most [`MAX_WORD`] bytes), in order; [`word_terms`] gives its terms.
pub fn words(text: &[u8], mut emit: impl FnMut(usize, &[u8])) {
    let mut i = 0;
    let n = text.len();
    while i < n {
        if !is_word_byte(text[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < n && is_word_byte(text[i]) {
            i += 1;
        }
        let word = &text[start..i];
        // U+FEFF is not a word's (a file's byte-order mark would be its first word's): rare,
        // so looked for only in the words that have its first byte.
        if word.contains(&0xEF) {
            let mut at = start;
            for part in bstr::ByteSlice::split_str(word, "\u{feff}") {
                if !part.is_empty() && part.len() <= MAX_WORD {
                    emit(at, part);
                }
                at += part.len() + 3;
            }
        } else if word.len() <= MAX_WORD {
            emit(start, word);
        }
    }
}

/// The terms of `text` as owned strings (for queries and tests).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    tokens(text.as_bytes(), |_, t| out.push(String::from_utf8_lossy(t).into_owned()));
    out
}

/// Which bytes make words, by byte value.
const WORD_BYTE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        t[b] = c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80;
        b += 1;
    }
    t
};

#[inline]
fn is_word_byte(b: u8) -> bool {
    WORD_BYTE[b as usize]
}

/// Emits the terms of one word: the whole word lower-cased, then its parts if it has several.
/// `buf` is scratch space.
pub fn word_terms(word: &[u8], buf: &mut Vec<u8>, mut emit: impl FnMut(&[u8])) {
    let trimmed = trim_underscores(word);
    if trimmed.len() < 2 {
        // No term, and at most one part (of one byte).
        return;
    }
    buf.clear();
    buf.extend_from_slice(trimmed);
    buf.make_ascii_lowercase();
    emit(buf);
    // The parts, as ranges of the word (a word is at most `MAX_WORD` bytes); lower-casing is
    // per byte, so a part's term is its range of the lower-cased word.
    let mut parts: smallvec::SmallVec<[(u8, u8); 16]> = smallvec::SmallVec::new();
    split_parts(trimmed, |p| {
        let a = p.as_ptr() as usize - trimmed.as_ptr() as usize;
        parts.push((a as u8, (a + p.len()) as u8));
    });
    if parts.len() <= 1 {
        return;
    }
    for &(a, b) in &parts {
        if b - a >= 2 {
            emit(&buf[a as usize..b as usize]);
        }
    }
}

fn trim_underscores(w: &[u8]) -> &[u8] {
    let s = w.iter().position(|&b| b != b'_').unwrap_or(w.len());
    let e = w.iter().rposition(|&b| b != b'_').map_or(s, |p| p + 1);
    &w[s..e]
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Lower,
    Upper,
    Digit,
}

fn class(b: u8) -> Class {
    // Words hold only ASCII letters and digits (pieces are split at `_`) or non-ASCII bytes,
    // which count as letters without case: they never split a word.
    if b.is_ascii_uppercase() {
        Class::Upper
    } else if b.is_ascii_digit() {
        Class::Digit
    } else {
        Class::Lower
    }
}

/// Splits a word into parts at `_`, lower->Upper, Upper->Upper+lower and letter/digit edges.
fn split_parts(w: &[u8], mut f: impl FnMut(&[u8])) {
    for piece in w.split(|&b| b == b'_').filter(|p| !p.is_empty()) {
        let mut start = 0;
        for i in 1..piece.len() {
            let (a, b) = (class(piece[i - 1]), class(piece[i]));
            let boundary = match (a, b) {
                (Class::Lower, Class::Upper) => true,
                (Class::Digit, Class::Lower | Class::Upper)
                | (Class::Lower | Class::Upper, Class::Digit) => true,
                // "HTTPServer": the boundary is before the last capital of a run.
                (Class::Upper, Class::Upper) => {
                    i + 1 < piece.len() && class(piece[i + 1]) == Class::Lower
                }
                _ => false,
            };
            if boundary {
                f(&piece[start..i]);
                start = i;
            }
        }
        f(&piece[start..]);
    }
}

/// The tokenizer as the `bm25` crate's trait, so its in-memory engine can check our scores.
#[derive(Debug, Clone, Copy, Default)]
pub struct CodeTokenizer;

impl bm25::Tokenizer for CodeTokenizer {
    fn tokenize(&self, input_text: &str) -> Vec<String> {
        terms(input_text)
    }
}

/// English words that carry no meaning in a query (dropped from queries, kept in documents:
/// `is`, `get` or `not` are identifiers in code).
pub const QUERY_STOPWORDS: &[&str] = &[
    "a", "about", "after", "again", "all", "also", "although", "am", "an", "and", "any", "are",
    "as", "at", "be", "because", "been", "before", "being", "but", "by", "can", "could", "did",
    "do", "does", "doing", "during", "each", "either", "even", "ever", "few", "for", "from",
    "further", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his", "how",
    "however", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "like", "may", "me",
    "might", "more", "most", "much", "must", "my", "no", "nor", "not", "of", "off", "on", "once",
    "only", "or", "other", "our", "ours", "out", "over", "own", "please", "really", "same",
    "seems", "she", "should", "since", "so", "some", "still", "such", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "thing", "things", "think", "this", "those",
    "though", "through", "to", "too", "under", "until", "up", "us", "use", "used", "using", "very",
    "want", "wants", "was", "way", "we", "were", "what", "when", "where", "which", "while", "who",
    "whom", "why", "will", "with", "within", "without", "would", "you", "your", "yours",
];

/// True for a query word to drop.
pub fn is_query_stopword(term: &[u8]) -> bool {
    std::str::from_utf8(term).is_ok_and(|t| QUERY_STOPWORDS.binary_search(&t).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_code_identifiers() {
        assert_eq!(terms("getUserName"), ["getusername", "get", "user", "name"]);
        assert_eq!(terms("get_user_name"), ["get_user_name", "get", "user", "name"]);
        assert_eq!(terms("XMLHttpRequest"), ["xmlhttprequest", "xml", "http", "request"]);
        assert_eq!(terms("HTTPServer"), ["httpserver", "http", "server"]);
        assert_eq!(terms("parse_json2dict"), ["parse_json2dict", "parse", "json", "dict"]);
        assert_eq!(terms("__init__"), ["init"]);
        assert_eq!(terms("os.path.join"), ["os", "path", "join"]);
        assert_eq!(terms("a b x1 v2"), ["x1", "v2"]);
        assert_eq!(terms("QuerySet"), ["queryset", "query", "set"]);
        assert_eq!(terms("utf8_decode"), ["utf8_decode", "utf", "decode"]);
    }

    #[test]
    fn ignores_punctuation_and_long_words() {
        assert_eq!(terms("(x, y) -> z!"), Vec::<String>::new());
        let long = "a".repeat(MAX_WORD + 1);
        assert!(terms(&long).is_empty());
    }

    #[test]
    fn non_ascii_is_kept_as_a_word() {
        assert_eq!(terms("café_au_lait"), ["café_au_lait", "café", "au", "lait"]);
        let mut seen = Vec::new();
        tokens(b"x \xff\xfe y", |_, t| seen.push(t.to_vec()));
        assert_eq!(seen, vec![b"\xff\xfe".to_vec()]);
    }

    #[test]
    fn a_byte_order_mark_is_no_part_of_a_word() {
        assert_eq!(terms("\u{feff}zebraStripes();"), ["zebrastripes", "zebra", "stripes"]);
        assert_eq!(terms("ab\u{feff}cd \u{feff}"), ["ab", "cd"]);
        let mut seen = Vec::new();
        tokens(b"\xef\xbb\xbfimport os", |at, t| seen.push((at, t.to_vec())));
        assert_eq!(seen, vec![(3, b"import".to_vec()), (10, b"os".to_vec())]);
        // Other bytes of its length are words' as before.
        assert_eq!(terms("\u{fefe}x"), ["\u{fefe}x"]);
    }

    #[test]
    fn query_stopwords_are_sorted() {
        let mut sorted = QUERY_STOPWORDS.to_vec();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, QUERY_STOPWORDS, "binary search needs a sorted, unique list");
        assert!(is_query_stopword(b"the"));
        assert!(!is_query_stopword(b"queryset"));
    }
}
