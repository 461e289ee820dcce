//! The command-line layer every cds tool shares, so that each binary stays a few lines long.
//!
//! * [`flags`]: the flag table ([`Tool`], [`Flag`], [`Positional`]), the lexopt driver, and the
//!   shared flags in [`common`];
//! * [`doc`]: short and long help, the man page and bash/zsh/fish completions, all generated
//!   from the table (`cds-x --generate man|complete-bash|complete-zsh|complete-fish`);
//! * [`out`]: the stdout writer (buffering, colour, `-0`, broken pipe);
//! * [`msg`]: `cds-x: ...` messages on stderr and the "errored" flag;
//! * [`input`]: the entity reader of the pipeline protocol (arguments, stdin, JSON Lines).
//!
//! A binary is a table and one call:
//!
//! ```no_run
//! use std::ffi::OsStr;
//!
//! use cds::cli::{self, Args, Common, Flag, Out, Status, Tool, common, flags::value_parse};
//!
//! #[derive(Default)]
//! struct Opts { common: Common, hops: u32 }
//! impl Args for Opts { fn common(&mut self) -> &mut Common { &mut self.common } }
//!
//! fn hops(o: &mut Opts, v: Option<&OsStr>) -> Result<(), String> {
//!     o.hops = value_parse(v)?;
//!     Ok(())
//! }
//!
//! static TOOL: Tool<Opts> = Tool {
//!     name: "cds-demo",
//!     about: "Show the shape of a cds tool",
//!     usage: &[],
//!     description: "",
//!     positional: None,
//!     flags: &[
//!         Flag::new("hops", "Follow N edges", hops).short('n').value("N"),
//!         common::color(), common::quiet(), common::null(),
//!     ],
//!     examples: &[("Two hops", "cds-demo -n2")],
//!     see_also: &["cds(7)"],
//! };
//!
//! fn run(opts: Opts) -> cds::Result<Status> {
//!     let mut out = Out::new(&opts.common);
//!     out.write_id(b"pkg/mod.py:f")?;
//!     out.record_end()?;
//!     out.finish()?;
//!     Ok(Status::Found)
//! }
//!
//! fn main() -> std::process::ExitCode {
//!     cli::main(&TOOL, run)
//! }
//! ```
//!
//! Exit statuses follow grep (DESIGN.md §5): 0 found, 1 nothing found, 2 error; a closed stdout
//! ends the tool quietly with 0.

pub mod doc;
pub mod flags;
pub mod input;
pub mod msg;
pub mod out;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub use flags::{Action, Complete, Flag, Positional, Tool, common};
pub use input::{EntityInputs, Record, entity_inputs};
pub use out::{Out, Style};

/// `--color WHEN`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal (and `NO_COLOR`, `TERM` allow it).
    #[default]
    Auto,
    /// Always colour (except JSON).
    Always,
    /// Never colour.
    Never,
}

/// The output format chosen by `--json` / `--ids` (the last one given wins).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// `ID<TAB>kind<TAB>lines<TAB>fold`, for people and LLMs (and valid input to other tools).
    #[default]
    Text,
    /// JSON Lines with every field (`--json`).
    Json,
    /// Bare IDs (`--ids`).
    Ids,
}

/// The settings of the shared flags ([`common`]); each tool's arguments embed one.
#[derive(Clone, Debug, Default)]
pub struct Common {
    /// `--color`.
    pub color: ColorChoice,
    /// `-q/--quiet`: no stdout output and no warnings.
    pub quiet: bool,
    /// `--index DIR`, as given; see [`Common::index_override`] for the `CDS_INDEX` fallback.
    pub index: Option<PathBuf>,
    /// `--json` / `--ids`.
    pub format: Format,
    /// `-0/--null`: records end with NUL.
    pub null: bool,
}

impl Common {
    /// The index directory the user asked for (see [`crate::index::requested`]).
    pub fn index_override(&self) -> Option<PathBuf> {
        crate::index::requested(self.index.as_deref())
    }

    /// Opens the index the user asked for, or the one found upward from the current directory.
    pub fn open_index(&self) -> crate::Result<crate::index::Index> {
        crate::index::Index::discover(self.index.as_deref())
    }
}

/// A tool's parsed arguments: built from `Default` and updated by each flag's `apply`.
pub trait Args: Default + 'static {
    /// The shared settings inside the arguments.
    fn common(&mut self) -> &mut Common;
}

/// How a run that did not fail ended, as grep's exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Something was found or done: exit status 0.
    Found,
    /// Nothing was found: exit status 1.
    NotFound,
}

impl From<bool> for Status {
    /// `true` (found something) is [`Status::Found`].
    fn from(found: bool) -> Status {
        if found { Status::Found } else { Status::NotFound }
    }
}

/// The whole life of a tool: parse the command line, run, report, and give the exit status.
///
/// * help, version and `--generate` print to stdout and exit 0;
/// * `Ok(Found)` exits 0 and `Ok(NotFound)` 1, unless a non-fatal error was reported
///   ([`msg::error_nonfatal`]), which makes it 2;
/// * a broken pipe (`| head`) exits 0 without a message;
/// * a usage error prints `cds-x: message` and `try 'cds-x --help'`, and exits 2;
/// * any other error prints `cds-x: message` and exits 2.
pub fn main<A: Args>(tool: &'static Tool<A>, run: fn(A) -> crate::Result<Status>) -> ExitCode {
    msg::set_tool(tool.name);
    let result = match flags::parse(tool, std::env::args_os().skip(1)) {
        Ok(Action::Print(text)) => print_stdout(&text).map(|()| Status::Found),
        Ok(Action::Run(mut args)) => {
            msg::set_quiet(args.common().quiet);
            // Index bytes that fail their checksum as a reader uses them end the run here,
            // with the corrupt-index error (see `index::read::Damaged`).
            crate::index::read::catch_damage(|| run(args))
        }
        Err(e) => Err(e),
    };
    ExitCode::from(exit_status(tool.name, result, msg::errored()))
}

/// Reports the result of a run on stderr and returns its exit status (see [`main`]).
fn exit_status(tool: &str, result: crate::Result<Status>, errored: bool) -> u8 {
    match result {
        Ok(_) if errored => 2,
        Ok(Status::Found) => 0,
        Ok(Status::NotFound) => 1,
        Err(e) if e.is_broken_pipe() => {
            if errored {
                2
            } else {
                0
            }
        }
        Err(crate::Error::Usage(text)) => {
            msg::error(text);
            msg::error(format_args!("try '{tool} --help'"));
            2
        }
        Err(e) => {
            msg::error(e);
            2
        }
    }
}

/// Prints help or generated text, flushing so a closed pipe shows up as an error here.
fn print_stdout(text: &str) -> crate::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_statuses() {
        assert_eq!(exit_status("t", Ok(Status::Found), false), 0);
        assert_eq!(exit_status("t", Ok(Status::NotFound), false), 1);
        assert_eq!(exit_status("t", Ok(Status::Found), true), 2);
        assert_eq!(exit_status("t", Ok(Status::NotFound), true), 2);
        assert_eq!(exit_status("t", Err(crate::Error::BrokenPipe), false), 0);
        assert_eq!(exit_status("t", Err(crate::Error::usage("bad")), false), 2);
        assert_eq!(exit_status("t", Err(crate::Error::msg("worse")), false), 2);
    }

    #[test]
    fn status_from_bool() {
        assert_eq!(Status::from(true), Status::Found);
        assert_eq!(Status::from(false), Status::NotFound);
    }
}
