//! Entity IDs: escaping for non-UTF-8 paths and parsing.
