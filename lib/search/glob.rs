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

    /// True when a repository-relative path passes the filter.
    pub fn matches(&self, path: &[u8]) -> bool {
        match &self.ov {
            None => true,
            Some(ov) => !ov.matched(Path::new(OsStr::from_bytes(path)), false).is_ignore(),
        }
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
        assert!(Globs::new(&["a/{b".to_string()]).is_err());
    }
}
