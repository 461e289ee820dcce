//! Integration tests: the real binaries on fixture repositories, and the library's resolution
//! rules on small in-memory repositories. One test binary (`autotests = false`).

#[macro_use]
mod util;

mod agents;
mod build;
mod callgraph;
mod corrupt;
mod fmt;
mod generated;
mod get;
mod history;
mod incremental;
mod kit;
mod lang_c;
mod lang_cpp;
mod lang_go;
mod lang_java;
mod lang_js;
mod lang_php;
mod lang_ruby;
mod lang_rust;
mod loc;
mod locagent;
mod mcp;
mod parity;
mod pipeline;
mod resolve;
mod search;
mod trav;
mod watch;
