//! Integration tests: the real binaries on fixture repositories.
