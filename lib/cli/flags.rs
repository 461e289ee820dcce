//! The flag table and the lexopt driver that parses a command line against it.
//!
//! Each tool describes its command line once, as a static [`Tool`] holding a table of [`Flag`]s
//! (ripgrep's `defs.rs` habit, STYLE.md §3). The same table drives parsing here and, in
//! `doc.rs`, the short and long help, the man page and the shell completions, so they cannot
//! drift apart. Shared flags are written once, in [`common`], as generic `const fn`s.
//!
//! Every tool also gets built-in flags that are not in its table and cannot be overridden:
//! `-h` (short help), `--help` (long help), `-V/--version`, and the hidden `--generate KIND`.
//! [`check`] reports a table that tries to use one of their names, or breaks another rule.
//!
//! Accepted shapes: `--hops 2`, `--hops=2`, `-n 2`, `-n2`, `-n=2`, bundled switches `-q0`, `--`
//! to end options, and `-` as an ordinary value (stdin). Values are `OsStr` all the way to the
//! flag's `apply`, so a path that is not UTF-8 arrives intact. Repeating a flag applies it again
//! (so for most flags the last one wins, as in ripgrep). Every problem is an
//! [`crate::Error::Usage`] whose message names the flag as the user typed it.

use std::ffi::{OsStr, OsString};
use std::str::FromStr;

use super::Args;

/// How a shell should complete a flag's value or a positional argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Complete {
    /// Nothing to offer (a number, a name, an ID).
    Nothing,
    /// A file path.
    File,
    /// A directory path.
    Dir,
    /// One of the flag's [`Flag::choices`].
    Choices,
}

/// One flag of a tool: its names, its documentation, and how it changes the tool's arguments.
///
/// Build one with a struct literal or with [`Flag::new`] and the builder methods, both usable in
/// a `static` table.
pub struct Flag<A> {
    /// The long name without dashes (`"hops"` for `--hops`). Lower case, digits and `-`.
    pub long: &'static str,
    /// The short name (`Some('n')` for `-n`). `V` is reserved for the version; `h` is help
    /// unless a tool claims it (then help is `--help` only).
    pub short: Option<char>,
    /// The value's name in docs (`Some("N")`), or `None` for a switch that takes no value.
    pub value: Option<&'static str>,
    /// The allowed values, checked before `apply` and offered by completions; empty = any value.
    pub choices: &'static [&'static str],
    /// One line for `-h`; it must fit the 79-column short help (see [`check`]).
    pub doc: &'static str,
    /// Paragraphs for `--help` and the man page (plain text; a blank line starts a paragraph; a
    /// paragraph whose lines start with a space is kept verbatim). Empty: `doc` is used.
    pub long_doc: &'static str,
    /// How shells complete the value.
    pub complete: Complete,
    /// Left out of help, man page and completions (still accepted).
    pub hidden: bool,
    /// Records the flag in the tool's arguments: `None` for a switch, `Some(value)` otherwise.
    /// An `Err(reason)` becomes the usage error `invalid value 'V' for --flag: reason`.
    pub apply: fn(&mut A, Option<&OsStr>) -> Result<(), String>,
}

impl<A> Flag<A> {
    /// A visible switch `--long` with a one-line doc; refine it with the builder methods.
    pub const fn new(
        long: &'static str,
        doc: &'static str,
        apply: fn(&mut A, Option<&OsStr>) -> Result<(), String>,
    ) -> Flag<A> {
        Flag {
            long,
            short: None,
            value: None,
            choices: &[],
            doc,
            long_doc: "",
            complete: Complete::Nothing,
            hidden: false,
            apply,
        }
    }

    /// Adds the short name `-c`.
    pub const fn short(mut self, c: char) -> Flag<A> {
        self.short = Some(c);
        self
    }

    /// Makes the flag take a value, named `name` in docs.
    pub const fn value(mut self, name: &'static str) -> Flag<A> {
        self.value = Some(name);
        self
    }

    /// Restricts the value to `choices` (and completes them).
    pub const fn choices(mut self, choices: &'static [&'static str]) -> Flag<A> {
        self.choices = choices;
        self.complete = Complete::Choices;
        self
    }

    /// Sets the paragraphs for `--help` and the man page.
    pub const fn long_doc(mut self, text: &'static str) -> Flag<A> {
        self.long_doc = text;
        self
    }

    /// Sets how shells complete the value.
    pub const fn complete(mut self, complete: Complete) -> Flag<A> {
        self.complete = complete;
        self
    }

    /// Hides the flag from docs and completions.
    pub const fn hidden(mut self) -> Flag<A> {
        self.hidden = true;
        self
    }
}

/// The positional arguments of a tool (at most one kind, possibly repeated).
pub struct Positional<A> {
    /// Its name in docs, upper case (`"ID"`).
    pub name: &'static str,
    /// One line for the help.
    pub doc: &'static str,
    /// True if it may be given more than once (`[ID]...`).
    pub many: bool,
    /// How shells complete it.
    pub complete: Complete,
    /// Records one argument; an `Err(reason)` becomes a usage error.
    pub apply: fn(&mut A, OsString) -> Result<(), String>,
}

/// Everything about a tool's command line: the source of its parser, help, man page and
/// completions.
pub struct Tool<A: 'static> {
    /// The binary's name (`"cds-trav"`).
    pub name: &'static str,
    /// One line saying what the tool does.
    pub about: &'static str,
    /// Synopsis lines (`"cds-trav [OPTIONS] [ID]..."`); empty: one is made from the table.
    pub usage: &'static [&'static str],
    /// Paragraphs for `--help` and the man page's DESCRIPTION (same markup as `long_doc`).
    pub description: &'static str,
    /// The positional arguments, if the tool takes any.
    pub positional: Option<Positional<A>>,
    /// The tool's own flags, in the order docs list them; built-in flags come after.
    pub flags: &'static [Flag<A>],
    /// `(what it does, command line)` pairs: real pipelines for `--help` and the man page.
    pub examples: &'static [(&'static str, &'static str)],
    /// Related pages, as `"cds(7)"`, `"cds-get(1)"`.
    pub see_also: &'static [&'static str],
}

/// What a parsed command line asks for.
pub enum Action<A> {
    /// Run the tool with these arguments.
    Run(A),
    /// Print this text to stdout and exit 0 (help, version, a generated man page or
    /// completion script).
    Print(String),
}

/// The kinds `--generate` accepts.
pub const GENERATE_KINDS: &[&str] = &["man", "complete-bash", "complete-zsh", "complete-fish"];

/// Long names the driver keeps for itself.
const RESERVED_LONG: &[&str] = &["help", "version", "generate"];
/// Short names the driver keeps for itself. (`-h` is help unless a tool's table claims it,
/// as `cds-trav -h/--hops` does; `--help` always works.)
const RESERVED_SHORT: &[char] = &['V'];

/// The crate version, printed by `-V`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Parses a command line (without the program name) against `tool`.
pub fn parse<A, I>(tool: &Tool<A>, args: I) -> crate::Result<Action<A>>
where
    A: Args,
    I: IntoIterator,
    I::Item: Into<OsString>,
{
    use lexopt::Arg;

    let mut parser = lexopt::Parser::from_args(args);
    let mut out = A::default();
    let mut positionals = 0usize;
    loop {
        let arg = match parser.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => return Err(lexopt_error(e)),
        };
        // Look the flag up (built-ins first, so `-h` can never be taken) and remember how the
        // user spelled it for messages; the borrow of `parser` ends here.
        let (flag, typed) = match arg {
            Arg::Short('h') if !tool.flags.iter().any(|f| f.short == Some('h')) => {
                return Ok(Action::Print(super::doc::short_help(tool)));
            }
            Arg::Long("help") => return Ok(Action::Print(super::doc::long_help(tool))),
            Arg::Short('V') | Arg::Long("version") => {
                return Ok(Action::Print(format!("{} {VERSION}\n", tool.name)));
            }
            Arg::Long("generate") => {
                let kind = parser
                    .value()
                    .map_err(|_| missing_value("--generate", "KIND"))?
                    .to_string_lossy()
                    .into_owned();
                return match super::doc::generate(tool, &kind) {
                    Some(text) => Ok(Action::Print(text)),
                    None => Err(bad_choice("--generate", &kind, GENERATE_KINDS)),
                };
            }
            Arg::Short(c) => match tool.flags.iter().find(|f| f.short == Some(c)) {
                Some(flag) => (flag, format!("-{c}")),
                None => return Err(crate::Error::usage(format!("unknown flag -{c}"))),
            },
            Arg::Long(name) => match tool.flags.iter().find(|f| f.long == name) {
                Some(flag) => (flag, format!("--{name}")),
                None => return Err(unknown_long(tool, name)),
            },
            Arg::Value(value) => {
                let pos = match &tool.positional {
                    Some(pos) if pos.many || positionals == 0 => pos,
                    _ => {
                        return Err(crate::Error::usage(format!(
                            "unexpected argument '{}'",
                            value.to_string_lossy()
                        )));
                    }
                };
                positionals += 1;
                let shown = value.to_string_lossy().into_owned();
                (pos.apply)(&mut out, value).map_err(|reason| {
                    crate::Error::usage(format!("invalid {} '{shown}': {reason}", pos.name))
                })?;
                continue;
            }
        };
        match flag.value {
            None => (flag.apply)(&mut out, None)
                .map_err(|reason| crate::Error::usage(format!("{typed}: {reason}")))?,
            Some(name) => {
                let value = parser.value().map_err(|_| missing_value(&typed, name))?;
                if !flag.choices.is_empty() {
                    match value.to_str() {
                        Some(v) if flag.choices.contains(&v) => {}
                        _ => {
                            let v = value.to_string_lossy();
                            return Err(bad_choice(&typed, &v, flag.choices));
                        }
                    }
                }
                (flag.apply)(&mut out, Some(&value)).map_err(|reason| {
                    crate::Error::usage(format!(
                        "invalid value '{}' for {typed}: {reason}",
                        value.to_string_lossy()
                    ))
                })?;
            }
        }
    }
    Ok(Action::Run(out))
}

/// The value as UTF-8 text, for an `apply` function (a switch gets an error).
pub fn value_str(value: Option<&OsStr>) -> Result<&str, String> {
    match value {
        Some(v) => v.to_str().ok_or_else(|| "not valid UTF-8".to_string()),
        None => Err("a value is required".to_string()),
    }
}

/// The value parsed with `FromStr` (numbers and the like), for an `apply` function.
pub fn value_parse<T>(value: Option<&OsStr>) -> Result<T, String>
where
    T: FromStr,
    T::Err: std::fmt::Display,
{
    value_str(value)?.parse().map_err(|e: T::Err| e.to_string())
}

/// Problems with a tool's table, one message each; empty when the table is sound. Every tool
/// should assert this in a unit test:
/// `assert_eq!(cds::cli::flags::check(&TOOL), Vec::<String>::new())`.
pub fn check<A>(tool: &Tool<A>) -> Vec<String> {
    let mut problems = Vec::new();
    if tool.name.is_empty() || tool.about.is_empty() {
        problems.push("the tool needs a name and an about line".to_string());
    }
    for (i, flag) in tool.flags.iter().enumerate() {
        let name = format!("--{}", flag.long);
        let valid_long = flag.long.len() >= 2
            && !flag.long.starts_with('-')
            && flag.long.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
        if !valid_long {
            problems.push(format!("{name}: long names are 2+ chars of [a-z0-9-], not dash-first"));
        }
        if RESERVED_LONG.contains(&flag.long) {
            problems.push(format!("{name}: reserved for the built-in flag"));
        }
        if let Some(c) = flag.short {
            if RESERVED_SHORT.contains(&c) {
                problems.push(format!("{name}: -{c} is reserved for help/version"));
            }
            if !c.is_ascii_alphanumeric() {
                problems.push(format!("{name}: short name -{c} is not an ASCII letter or digit"));
            }
        }
        let earlier = &tool.flags[..i];
        if earlier.iter().any(|f| f.long == flag.long) {
            problems.push(format!("{name}: long name used twice"));
        }
        if flag.short.is_some() && earlier.iter().any(|f| f.short == flag.short) {
            problems.push(format!("{name}: short name used twice"));
        }
        if flag.value.is_none() && (!flag.choices.is_empty() || flag.complete != Complete::Nothing)
        {
            problems.push(format!("{name}: a switch cannot have choices or completion"));
        }
        if (flag.complete == Complete::Choices) == flag.choices.is_empty() {
            problems.push(format!("{name}: Complete::Choices goes with a non-empty choices"));
        }
        if flag.doc.is_empty() || flag.doc.contains('\n') {
            problems.push(format!("{name}: doc must be one non-empty line"));
        }
        if flag.choices.iter().any(|c| c.is_empty() || c.contains(char::is_whitespace)) {
            problems.push(format!("{name}: choices must be single words"));
        }
    }
    if let Some(pos) = &tool.positional
        && pos.complete == Complete::Choices
    {
        problems.push(format!("{}: positionals cannot complete choices", pos.name));
    }
    for line in super::doc::short_help(tool).lines() {
        if line.chars().count() > 79 {
            problems.push(format!("short help line longer than 79 columns: {line:?}"));
        }
    }
    problems
}

/// The usage error for a long flag the tool does not have, with the nearest real one.
fn unknown_long<A>(tool: &Tool<A>, typed: &str) -> crate::Error {
    let known = tool.flags.iter().filter(|f| !f.hidden).map(|f| f.long).chain(["help", "version"]);
    match suggest(typed, known) {
        Some(best) => {
            crate::Error::usage(format!("unknown flag --{typed}: did you mean --{best}?"))
        }
        None => crate::Error::usage(format!("unknown flag --{typed}")),
    }
}

/// The usage error for a value outside a flag's choices.
fn bad_choice(typed: &str, value: &str, choices: &[&str]) -> crate::Error {
    let mut text =
        format!("invalid value '{value}' for {typed}: expected one of {}", choices.join(", "));
    if let Some(best) = suggest(value, choices.iter().copied()) {
        text.push_str(&format!(" (did you mean {best}?)"));
    }
    crate::Error::usage(text)
}

/// The usage error for a flag given without its value.
fn missing_value(typed: &str, name: &str) -> crate::Error {
    crate::Error::usage(format!("{typed} needs a value: {typed} {name}"))
}

/// lexopt's own errors, reworded like ours.
fn lexopt_error(e: lexopt::Error) -> crate::Error {
    match e {
        lexopt::Error::UnexpectedValue { option, value } => crate::Error::usage(format!(
            "{option} takes no value (got '{}')",
            value.to_string_lossy()
        )),
        other => crate::Error::usage(other.to_string()),
    }
}

/// The candidate nearest to `typed` by edit distance, if it is near enough to be a typo: a
/// distance of 1 for short words, 2 from four characters on (a transposition counts 1).
fn suggest<'a>(typed: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = if typed.chars().count() < 4 { 1 } else { 2 };
    candidates
        .map(|c| (distance(typed, c), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions), by characters.
fn distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// The flags every tool shares, defined once. Put the ones a tool uses in its table:
/// `static FLAGS: &[Flag<MyArgs>] = &[common::color(), common::quiet(), ...];`
pub mod common {
    use std::ffi::OsStr;
    use std::path::PathBuf;

    use super::{Complete, Flag};
    use crate::cli::{Args, ColorChoice, Format};

    /// `--color WHEN`: auto, always or never.
    pub const fn color<A: Args>() -> Flag<A> {
        Flag::new("color", "When to use colours: auto, always, never", apply_color::<A>)
            .value("WHEN")
            .choices(&["auto", "always", "never"])
            .long_doc(
                "When to use colours in the output: auto, always or never. The default, auto, \
                 colours only when stdout is a terminal, the NO_COLOR environment variable is \
                 unset or empty, and TERM is set and not \"dumb\". JSON output (--json) is never \
                 coloured.",
            )
    }

    fn apply_color<A: Args>(args: &mut A, value: Option<&OsStr>) -> Result<(), String> {
        args.common().color = match value.and_then(OsStr::to_str) {
            Some("auto") => ColorChoice::Auto,
            Some("always") => ColorChoice::Always,
            Some("never") => ColorChoice::Never,
            _ => return Err("expected auto, always or never".to_string()),
        };
        Ok(())
    }

    /// `-q/--quiet`: no output and no warnings; the exit status tells the result.
    pub const fn quiet<A: Args>() -> Flag<A> {
        Flag::new("quiet", "Print nothing; the exit status tells the result", apply_quiet::<A>)
            .short('q')
            .long_doc(
                "Print nothing on stdout and no warnings on stderr; errors are still reported. \
                 The exit status tells the result: 0 if something was found, 1 if nothing was, \
                 2 on error. A tool may stop at its first result.",
            )
    }

    fn apply_quiet<A: Args>(args: &mut A, _: Option<&OsStr>) -> Result<(), String> {
        args.common().quiet = true;
        Ok(())
    }

    /// `--index DIR`: the index directory to use.
    pub const fn index<A: Args>() -> Flag<A> {
        Flag::new("index", "Use the index in DIR", apply_index::<A>)
            .value("DIR")
            .complete(Complete::Dir)
            .long_doc(
                "Use the index in DIR (a .cds directory) instead of looking for one. Without \
                 this flag the CDS_INDEX environment variable is used if set, and otherwise the \
                 tool looks for .cds in the current directory and then in each parent \
                 directory, the way git finds .git.",
            )
    }

    fn apply_index<A: Args>(args: &mut A, value: Option<&OsStr>) -> Result<(), String> {
        match value {
            Some(v) if !v.is_empty() => {
                args.common().index = Some(PathBuf::from(v));
                Ok(())
            }
            _ => Err("the directory must not be empty".to_string()),
        }
    }

    /// `--json`: JSON Lines output.
    pub const fn json<A: Args>() -> Flag<A> {
        Flag::new("json", "Print JSON Lines with every field", apply_json::<A>).long_doc(
            "Print one JSON object per line (JSON Lines) with every field, for programs and \
             jq; the schema is documented in cds(7). Other cds tools read this output too. \
             Overrides --ids.",
        )
    }

    fn apply_json<A: Args>(args: &mut A, _: Option<&OsStr>) -> Result<(), String> {
        args.common().format = Format::Json;
        Ok(())
    }

    /// `--ids`: bare IDs.
    pub const fn ids<A: Args>() -> Flag<A> {
        Flag::new("ids", "Print bare entity IDs, one per line", apply_ids::<A>).long_doc(
            "Print only the entity IDs, one per record, without the other columns. IDs that are \
             not plain text (a path that is not UTF-8, a control character, a backslash) are \
             printed in an escaped form that every cds tool reads back. Overrides --json.",
        )
    }

    fn apply_ids<A: Args>(args: &mut A, _: Option<&OsStr>) -> Result<(), String> {
        args.common().format = Format::Ids;
        Ok(())
    }

    /// `-0/--null`: NUL-terminated records.
    pub const fn null<A: Args>() -> Flag<A> {
        Flag::new("null", "End each record with NUL instead of a newline", apply_null::<A>)
            .short('0')
            .long_doc(
                "End each output record with a NUL byte instead of a newline, for xargs -0. \
                 cds tools recognise NUL-separated input on their own.",
            )
    }

    fn apply_null<A: Args>(args: &mut A, _: Option<&OsStr>) -> Result<(), String> {
        args.common().null = true;
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::cli::{ColorChoice, Common, Format};
    use std::path::PathBuf;

    /// The arguments of a sample tool that uses every kind of flag.
    #[derive(Default, Debug)]
    pub(crate) struct Sample {
        pub common: Common,
        pub hops: Option<u32>,
        pub relation: Vec<String>,
        pub all: bool,
        pub out: Option<OsString>,
        pub ids: Vec<OsString>,
        pub secret: bool,
    }

    impl Args for Sample {
        fn common(&mut self) -> &mut Common {
            &mut self.common
        }
    }

    fn apply_hops(a: &mut Sample, v: Option<&OsStr>) -> Result<(), String> {
        a.hops = Some(value_parse(v)?);
        Ok(())
    }

    fn apply_relation(a: &mut Sample, v: Option<&OsStr>) -> Result<(), String> {
        a.relation.push(value_str(v)?.to_string());
        Ok(())
    }

    fn apply_all(a: &mut Sample, _: Option<&OsStr>) -> Result<(), String> {
        a.all = true;
        Ok(())
    }

    fn apply_out(a: &mut Sample, v: Option<&OsStr>) -> Result<(), String> {
        a.out = v.map(OsStr::to_os_string);
        Ok(())
    }

    fn apply_secret(a: &mut Sample, _: Option<&OsStr>) -> Result<(), String> {
        a.secret = true;
        Ok(())
    }

    fn apply_id(a: &mut Sample, v: OsString) -> Result<(), String> {
        if v.is_empty() {
            return Err("an ID cannot be empty".to_string());
        }
        a.ids.push(v);
        Ok(())
    }

    pub(crate) static FLAGS: &[Flag<Sample>] = &[
        Flag::new("hops", "Follow N edges (default 1)", apply_hops)
            .short('n')
            .value("N")
            .long_doc("Follow N edges from each entity.\n\nZero prints the entities themselves."),
        Flag::new("relation", "Follow only edges of KIND", apply_relation)
            .short('r')
            .value("KIND")
            .choices(&["contain", "import", "invoke", "inherit"]),
        Flag::new("all", "Follow every edge kind", apply_all).short('a'),
        Flag::new("output", "Write to FILE instead of stdout", apply_out)
            .short('o')
            .value("FILE")
            .complete(Complete::File)
            .long_doc("Write to FILE.\n\n  $ cds-sample -o 'x.txt'\n  .dot-leading line\n\n.dot-leading paragraph"),
        Flag::new("secret", "A hidden flag", apply_secret).hidden(),
        common::color(),
        common::quiet(),
        common::index(),
        common::json(),
        common::ids(),
        common::null(),
    ];

    pub(crate) static SAMPLE: Tool<Sample> = Tool {
        name: "cds-sample",
        about: "Follow graph edges from entities",
        usage: &["cds-sample [OPTIONS] [ID]...", "cds-search QUERY | cds-sample [OPTIONS]"],
        description: "Reads entity IDs and prints their neighbours.\n\n\
                      Input is one ID per line; see cds(7) for the protocol.",
        positional: Some(Positional {
            name: "ID",
            doc: "Entity IDs (read from stdin when none are given)",
            many: true,
            complete: Complete::Nothing,
            apply: apply_id,
        }),
        flags: FLAGS,
        examples: &[
            ("Callers of a function", "cds-sample -r invoke 'pkg/mod.py:f'"),
            ("Two hops, as JSON", "cds-search sanitize | cds-sample -n2 --json | jq -r .id"),
        ],
        see_also: &["cds(7)", "cds-get(1)"],
    };

    fn run(args: &[&str]) -> crate::Result<Action<Sample>> {
        parse(&SAMPLE, args.iter().copied())
    }

    fn ok(args: &[&str]) -> Sample {
        match run(args) {
            Ok(Action::Run(a)) => a,
            Ok(Action::Print(text)) => panic!("{args:?} printed {text}"),
            Err(e) => panic!("{args:?} failed: {e}"),
        }
    }

    fn usage_error(args: &[&str]) -> String {
        match run(args) {
            Err(crate::Error::Usage(m)) => m,
            Err(e) => panic!("{args:?}: not a usage error: {e}"),
            Ok(_) => panic!("{args:?} parsed"),
        }
    }

    fn printed(args: &[&str]) -> String {
        match run(args) {
            Ok(Action::Print(text)) => text,
            _ => panic!("{args:?} did not print"),
        }
    }

    #[test]
    fn table_is_sound() {
        assert_eq!(check(&SAMPLE), Vec::<String>::new());
    }

    #[test]
    fn check_catches_mistakes() {
        static BAD: &[Flag<Sample>] = &[
            Flag::new("help", "x", apply_all).short('V'),
            Flag::new("all", "x", apply_all).short('a'),
            Flag::new("all", "x", apply_all).short('a'),
            Flag::new("Bad_Name", "x", apply_all).choices(&["a"]),
            Flag::new("long", "x", apply_out).value("V").complete(Complete::Choices),
            Flag::new(
                "wide",
                "a doc line so long that it cannot possibly fit on one line of \
                               the short help",
                apply_all,
            ),
        ];
        let tool = Tool { flags: BAD, positional: None, ..SAMPLE_SHAPE };
        let problems = check(&tool).join("\n");
        for want in [
            "--help: reserved",
            "-V is reserved",
            "--all: long name used twice",
            "--all: short name used twice",
            "--Bad_Name: long names",
            "--Bad_Name: a switch cannot have choices",
            "--long: Complete::Choices",
            "longer than 79",
        ] {
            assert!(problems.contains(want), "missing {want:?} in:\n{problems}");
        }
    }

    /// SAMPLE without its non-const parts, for struct update syntax in tests.
    const SAMPLE_SHAPE: Tool<Sample> = Tool {
        name: "cds-bad",
        about: "x",
        usage: &[],
        description: "",
        positional: None,
        flags: &[],
        examples: &[],
        see_also: &[],
    };

    #[test]
    fn defaults() {
        let a = ok(&[]);
        assert_eq!(a.common.color, ColorChoice::Auto);
        assert_eq!(a.common.format, Format::Text);
        assert!(!a.common.quiet && !a.common.null && a.common.index.is_none());
        assert!(a.hops.is_none() && a.ids.is_empty());
    }

    #[test]
    fn long_flag_shapes() {
        assert_eq!(ok(&["--hops", "2"]).hops, Some(2));
        assert_eq!(ok(&["--hops=3"]).hops, Some(3));
        assert_eq!(ok(&["--hops=3", "--hops", "4"]).hops, Some(4));
        assert_eq!(
            ok(&["--relation", "import", "--relation=invoke"]).relation,
            ["import", "invoke"]
        );
        // A value that looks like a flag is still the value.
        assert_eq!(ok(&["--output", "--json"]).out.as_deref(), Some(OsStr::new("--json")));
    }

    #[test]
    fn short_flag_shapes() {
        assert_eq!(ok(&["-n", "2"]).hops, Some(2));
        assert_eq!(ok(&["-n2"]).hops, Some(2));
        assert_eq!(ok(&["-n=2"]).hops, Some(2));
        let a = ok(&["-aq0"]);
        assert!(a.all && a.common.quiet && a.common.null);
        // A bundle may end with a flag that takes the rest as its value.
        let a = ok(&["-qn5"]);
        assert!(a.common.quiet);
        assert_eq!(a.hops, Some(5));
        assert_eq!(ok(&["-rinherit"]).relation, ["inherit"]);
    }

    #[test]
    fn common_flags() {
        let a = ok(&["--color", "never", "--index", "/tmp/x/.cds", "--json", "-q", "-0"]);
        assert_eq!(a.common.color, ColorChoice::Never);
        assert_eq!(a.common.index, Some(PathBuf::from("/tmp/x/.cds")));
        assert_eq!(a.common.format, Format::Json);
        assert!(a.common.quiet && a.common.null);
        assert_eq!(ok(&["--json", "--ids"]).common.format, Format::Ids);
        assert_eq!(ok(&["--ids", "--json"]).common.format, Format::Json);
        assert_eq!(ok(&["--color=always"]).common.color, ColorChoice::Always);
        assert!(ok(&["--secret"]).secret);
    }

    #[test]
    fn positionals_and_double_dash() {
        let a = ok(&["a.py:f", "-", "-n", "1", "--", "--json", "-q"]);
        assert_eq!(a.ids, ["a.py:f", "-", "--json", "-q"]);
        assert_eq!(a.common.format, Format::Text);
        assert!(!a.common.quiet);
        assert_eq!(usage_error(&[""]), "invalid ID '': an ID cannot be empty");
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_values_arrive_intact() {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        let bad = OsString::from_vec(b"caf\xe9.txt".to_vec());
        let mut eq = OsString::from("--output=");
        eq.push(&bad);
        let mut short = OsString::from("-o");
        short.push(&bad);
        for args in [vec![OsString::from("--output"), bad.clone()], vec![eq], vec![short]] {
            let Ok(Action::Run(a)) = parse(&SAMPLE, args) else { panic!("parse failed") };
            assert_eq!(a.out.as_deref().map(OsStrExt::as_bytes), Some(&b"caf\xe9.txt"[..]));
        }
        let Ok(Action::Run(a)) = parse(&SAMPLE, std::slice::from_ref(&bad)) else {
            panic!("parse failed")
        };
        assert_eq!(a.ids, std::slice::from_ref(&bad));
        // A choice or number must be text.
        let m = match parse(&SAMPLE, [OsString::from("-r"), bad.clone()]) {
            Err(crate::Error::Usage(m)) => m,
            _ => panic!("accepted"),
        };
        assert!(m.starts_with("invalid value 'caf\u{FFFD}.txt' for -r"), "{m}");
        assert!(matches!(parse(&SAMPLE, [OsString::from("-n"), bad]), Err(crate::Error::Usage(_))));
        // A long flag name that is not UTF-8 is just unknown.
        let name = OsString::from_vec(b"--h\xffps".to_vec());
        assert!(matches!(parse(&SAMPLE, [name]), Err(crate::Error::Usage(_))));
    }

    #[test]
    fn missing_value() {
        assert_eq!(usage_error(&["--hops"]), "--hops needs a value: --hops N");
        assert_eq!(usage_error(&["-a", "-n"]), "-n needs a value: -n N");
        assert_eq!(usage_error(&["--generate"]), "--generate needs a value: --generate KIND");
    }

    #[test]
    fn switch_with_value() {
        assert_eq!(usage_error(&["--all=yes"]), "--all takes no value (got 'yes')");
        assert_eq!(usage_error(&["-a=yes"]), "-a takes no value (got 'yes')");
    }

    #[test]
    fn unknown_flags() {
        assert_eq!(usage_error(&["--josn"]), "unknown flag --josn: did you mean --json?");
        assert_eq!(usage_error(&["--hop"]), "unknown flag --hop: did you mean --hops?");
        assert_eq!(
            usage_error(&["--colour=never"]),
            "unknown flag --colour: did you mean --color?"
        );
        assert_eq!(usage_error(&["--hlep"]), "unknown flag --hlep: did you mean --help?");
        assert_eq!(usage_error(&["--frobnicate"]), "unknown flag --frobnicate");
        // Hidden flags are accepted but never suggested.
        assert_eq!(usage_error(&["--secrte"]), "unknown flag --secrte");
        assert_eq!(usage_error(&["-x"]), "unknown flag -x");
    }

    #[test]
    fn bad_values() {
        assert_eq!(
            usage_error(&["--relation", "invokes"]),
            "invalid value 'invokes' for --relation: expected one of contain, import, invoke, \
             inherit (did you mean invoke?)"
        );
        assert_eq!(
            usage_error(&["--color=sometimes"]),
            "invalid value 'sometimes' for --color: expected one of auto, always, never"
        );
        assert_eq!(
            usage_error(&["-n", "two"]),
            "invalid value 'two' for -n: invalid digit found in string"
        );
        assert_eq!(
            usage_error(&["--index="]),
            "invalid value '' for --index: the directory must not be empty"
        );
        assert!(usage_error(&["--generate", "mam"]).contains("(did you mean man?)"));
    }

    #[test]
    fn builtins() {
        assert!(printed(&["-h"]).contains("USAGE:"));
        assert!(printed(&["--help"]).contains("EXAMPLES:"));
        assert_eq!(printed(&["-V"]), format!("cds-sample {VERSION}\n"));
        assert_eq!(printed(&["--version"]), format!("cds-sample {VERSION}\n"));
        assert!(printed(&["--generate", "man"]).contains("\n.TH CDS\\-SAMPLE 1 "));
        assert!(printed(&["--generate=complete-fish"]).contains("complete -c cds-sample"));
        // -h is help even in a bundle after a valid switch, never a tool flag.
        assert!(printed(&["-ah"]).contains("USAGE:"));
        // Help wins over later mistakes.
        assert!(printed(&["--help", "--nonsense"]).contains("USAGE:"));
    }

    #[test]
    fn single_positional() {
        static ONE: Tool<Sample> = Tool {
            positional: Some(Positional {
                name: "QUERY",
                doc: "What to look for",
                many: false,
                complete: Complete::Nothing,
                apply: apply_id,
            }),
            ..SAMPLE_SHAPE
        };
        let Ok(Action::Run(a)) = parse(&ONE, ["x"]) else { panic!("parse failed") };
        assert_eq!(a.ids, ["x"]);
        assert!(matches!(
            parse(&ONE, ["x", "y"]),
            Err(crate::Error::Usage(m)) if m == "unexpected argument 'y'"
        ));
        assert!(matches!(
            parse(&SAMPLE_SHAPE, ["x"]),
            Err(crate::Error::Usage(m)) if m == "unexpected argument 'x'"
        ));
    }

    #[test]
    fn edit_distance() {
        assert_eq!(distance("", ""), 0);
        assert_eq!(distance("json", "josn"), 1);
        assert_eq!(distance("hops", "hop"), 1);
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("ab", ""), 2);
        assert_eq!(suggest("x", ["ids", "json"].into_iter()), None);
    }
}
