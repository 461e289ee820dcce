//! `-g GLOB` path filters, with gitignore syntax (`*.py`, `django/db/**`, `!tests/`), through
//! the `ignore` crate's overrides, so they behave like ripgrep's and fd's `-g`.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use ignore::overrides::{Override, OverrideBuilder};

use crate::error::{Error, Result};

/// A set of path globs; an empty set matches everything.
pub struct Globs {
    ov: Option<Override>,
}

impl Globs {
    /// Compiles the globs (a usage error names the bad one).
    pub fn new(globs: &[String]) -> Result<Globs> {
        if globs.is_empty() {
            return Ok(Globs { ov: None });
        }
        let mut b = OverrideBuilder::new("");
        for g in globs {
            b.add(g).map_err(|e| Error::usage(format!("invalid glob '{g}': {e}")))?;
        }
        let ov = b.build().map_err(|e| Error::usage(format!("invalid glob: {e}")))?;
        Ok(Globs { ov: Some(ov) })
    }

    /// True when a repository-relative path passes the filter: as in a ripgrep or fd walk,
    /// where a directory a glob excludes (`!tests/`, `!src/*/sansio`) is never entered, each
    /// directory above the file is matched as a directory first, then the file itself.
    pub fn matches(&self, path: &[u8]) -> bool {
        let Some(ov) = &self.ov else { return true };
        let dirs = path.iter().enumerate().filter(|&(_, &b)| b == b'/').map(|(i, _)| &path[..i]);
        for dir in dirs.filter(|d| !d.is_empty()) {
            if ov.matched(Path::new(OsStr::from_bytes(dir)), true).is_ignore() {
                return false;
            }
        }
        !ov.matched(Path::new(OsStr::from_bytes(path)), false).is_ignore()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignore_style_globs() {
        let g = Globs::new(&["django/db/**".to_string()]).unwrap();
        assert!(g.matches(b"django/db/models/query.py"));
        assert!(!g.matches(b"django/http/request.py"));
        let g = Globs::new(&["*.py".to_string(), "!tests/**".to_string()]).unwrap();
        assert!(g.matches(b"a/b.py"));
        assert!(!g.matches(b"tests/test_a.py"));
        assert!(Globs::new(&[]).unwrap().matches(b"anything"));
        // A directory glob excludes what lies below it, as in a walk (the help's own example).
        let g = Globs::new(&["!tests/".to_string()]).unwrap();
        assert!(!g.matches(b"tests/test_a.py"));
        assert!(!g.matches(b"tests/deep/er/test_b.py"));
        assert!(g.matches(b"src/tests.py"), "a file named like the directory stays");
        assert!(g.matches(b"src/app.py"));
        let g = Globs::new(&["*.py".to_string(), "!src/flask/sansio/".to_string()]).unwrap();
        assert!(!g.matches(b"src/flask/sansio/app.py"));
        assert!(g.matches(b"src/flask/app.py"));
        assert!(!g.matches(b"src/flask/app.txt"), "not a whitelisted name");
        // Unanchored: a directory of that name at any depth, as in .gitignore.
        let g = Globs::new(&["!migrations/".to_string()]).unwrap();
        assert!(!g.matches(b"django/contrib/auth/migrations/0001_initial.py"));
        assert!(Globs::new(&["a/{b".to_string()]).is_err());
    }
}
