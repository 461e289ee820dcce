//! The one error type of the library and every tool.
//!
//! Each error renders as one line `what happened: what to do` (the tool prefixes its name), and
//! maps to grep's exit status 2. A closed stdout is not an error for the user: it is carried as
//! [`Error::BrokenPipe`] so the CLI layer can end quietly with status 0.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Result with the library's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong, with enough context for a one-line message.
#[derive(Debug)]
pub enum Error {
    /// Bad flags or arguments; the message says which and how to fix it.
    Usage(String),
    /// An I/O operation on a path failed.
    Io {
        /// What we were doing, e.g. "cannot read".
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The index is missing, corrupt, from another version, or otherwise unusable.
    Index {
        /// The index directory.
        path: PathBuf,
        /// What is wrong with it.
        problem: IndexProblem,
    },
    /// stdout was closed by the reader (`| head`): stop quietly, exit 0.
    BrokenPipe,
    /// Anything else, already phrased as `what happened: what to do`.
    Msg(String),
}

/// Why an index cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexProblem {
    /// No index was found walking up from the current directory.
    Missing,
    /// No index at the directory `--index` or `$CDS_INDEX` named (nothing above it is looked
    /// at).
    MissingAt,
    /// Built by an older cds (lower format version).
    Older,
    /// Built by a newer cds (higher format version).
    Newer,
    /// Not a cds index file at all (bad magic).
    Foreign(String),
    /// Structurally damaged: truncated, bad length, failed validation or CRC.
    Corrupt(String),
    /// Bytes a reader used failed their checksum, in a file that a build finding nothing
    /// changed does not read whole (so the advice is a build from scratch).
    Damaged(String),
}

impl Error {
    /// An I/O error with its action and path.
    pub fn io(action: &'static str, path: impl AsRef<Path>, source: io::Error) -> Error {
        if source.kind() == io::ErrorKind::BrokenPipe {
            return Error::BrokenPipe;
        }
        Error::Io { action, path: path.as_ref().to_path_buf(), source }
    }

    /// An index error.
    pub fn index(path: impl AsRef<Path>, problem: IndexProblem) -> Error {
        Error::Index { path: path.as_ref().to_path_buf(), problem }
    }

    /// A free-form message, already in `what: fix` form.
    pub fn msg(text: impl Into<String>) -> Error {
        Error::Msg(text.into())
    }

    /// A usage error (bad flag or argument).
    pub fn usage(text: impl Into<String>) -> Error {
        Error::Usage(text.into())
    }

    /// True when the error only means the reader went away.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::BrokenPipe)
    }
}

impl From<io::Error> for Error {
    /// Bare I/O errors come from writing output; a broken pipe is the common case.
    fn from(e: io::Error) -> Error {
        if e.kind() == io::ErrorKind::BrokenPipe {
            Error::BrokenPipe
        } else {
            Error::Msg(format!("cannot write output: {}", io_reason(&e)))
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Usage(m) => write!(f, "{m}"),
            Error::Io { action, path, source } => {
                write!(f, "{action} {}: {}", path.display(), io_reason(source))?;
                if matches!(
                    source.kind(),
                    io::ErrorKind::StorageFull
                        | io::ErrorKind::QuotaExceeded
                        | io::ErrorKind::FileTooLarge
                ) {
                    write!(f, ": free some space (or raise the limit) and try again")?;
                }
                Ok(())
            }
            Error::Index { path, problem } => {
                let p = path.display();
                match problem {
                    IndexProblem::Missing => write!(
                        f,
                        "no index found at {p} or above it: run cds-build in the repository \
                         (or pass --index DIR)"
                    ),
                    IndexProblem::MissingAt => write!(
                        f,
                        "no index found at {p}: run cds-build in the repository (or pass \
                         --index DIR naming its index)"
                    ),
                    IndexProblem::Older => {
                        write!(f, "index at {p} is from an older cds: run cds-build")
                    }
                    IndexProblem::Newer => write!(
                        f,
                        "index at {p} is from a newer cds: run this cds's cds-build, or upgrade"
                    ),
                    IndexProblem::Foreign(what) => {
                        write!(f, "index at {p} is not a cds index ({what}): run cds-build")
                    }
                    IndexProblem::Corrupt(what) => {
                        write!(f, "index at {p} is corrupt ({what}): run cds-build")
                    }
                    IndexProblem::Damaged(what) => {
                        write!(f, "index at {p} is corrupt ({what}): run cds-build --force")
                    }
                }
            }
            Error::BrokenPipe => write!(f, "broken pipe"),
            Error::Msg(m) => write!(f, "{m}"),
        }
    }
}

/// The OS error text without Rust's "(os error N)" suffix.
pub fn io_reason(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
