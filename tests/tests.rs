//! Integration tests: the real binaries on fixture repositories, and the library's resolution
//! rules on small in-memory repositories. One test binary (`autotests = false`).

#[macro_use]
mod util;

mod build;
mod generated;
mod parity;
mod resolve;
