//! Documentation generated from a tool's flag table: `-h`, `--help`, the man page, and bash, zsh
//! and fish completions (ripgrep's `flags/doc` and `flags/complete`, STYLE.md §3).
//!
//! Everything here is a pure function of the [`Tool`], with no date or environment in it, so the
//! generated files committed under `man/` and `completions/` can be checked for staleness by
//! regenerating and diffing (`cds-x --generate man` and so on).
//!
//! Text markup in `description` and `long_doc` is deliberately tiny: paragraphs are separated by
//! a blank line and re-wrapped; a paragraph whose first line starts with a space is verbatim
//! (a command, a table) and kept as it is.

use super::flags::{Complete, Flag, Positional, Tool, VERSION};

/// The date in the man page header. It is fixed (not today) so that regenerating a page gives
/// the same bytes; bump it when a release changes the pages.
pub const MAN_DATE: &str = "2026-11-22";

/// The width help text is wrapped to.
const WIDTH: usize = 79;

/// The generated text of `kind` (one of [`super::flags::GENERATE_KINDS`]), or `None` for an
/// unknown kind.
pub fn generate<A>(tool: &Tool<A>, kind: &str) -> Option<String> {
    match kind {
        "man" => Some(man(tool)),
        "complete-bash" => Some(bash(tool)),
        "complete-zsh" => Some(zsh(tool)),
        "complete-fish" => Some(fish(tool)),
        _ => None,
    }
}

/// What the generators need to know about one flag; the tool's flags and the built-in ones
/// alike.
struct Entry {
    long: &'static str,
    short: Option<char>,
    value: Option<&'static str>,
    choices: &'static [&'static str],
    doc: &'static str,
    long_doc: &'static str,
    complete: Complete,
}

impl Entry {
    fn from_flag<A>(f: &Flag<A>) -> Entry {
        Entry {
            long: f.long,
            short: f.short,
            value: f.value,
            choices: f.choices,
            doc: f.doc,
            long_doc: f.long_doc,
            complete: f.complete,
        }
    }

    /// `-n, --hops N` (or `    --color WHEN`, aligned under the long names).
    fn left(&self) -> String {
        let mut s = match self.short {
            Some(c) => format!("-{c}, --{}", self.long),
            None => format!("    --{}", self.long),
        };
        if let Some(v) = self.value {
            s.push(' ');
            s.push_str(v);
        }
        s
    }

    /// The paragraphs for long help and the man page.
    fn long_text(&self) -> &'static str {
        if self.long_doc.is_empty() { self.doc } else { self.long_doc }
    }
}

/// The visible flags in doc order: the tool's, then the built-in ones.
fn entries<A>(tool: &Tool<A>) -> Vec<Entry> {
    let mut all: Vec<Entry> =
        tool.flags.iter().filter(|f| !f.hidden).map(Entry::from_flag).collect();
    // A tool may claim -h for itself (cds-trav's -h/--hops, as LocAgent users type it); then
    // help is --help only.
    if tool.flags.iter().any(|f| f.short == Some('h')) {
        all.push(Entry {
            long: "help",
            short: None,
            value: None,
            choices: &[],
            doc: "Print help",
            long_doc: "Print help: the full text with examples.",
            complete: Complete::Nothing,
        });
    } else {
        all.push(Entry {
            long: "help",
            short: Some('h'),
            value: None,
            choices: &[],
            doc: "Print help (-h a summary, --help everything)",
            long_doc: "Print help: -h prints a summary, --help the full text with examples.",
            complete: Complete::Nothing,
        });
    }
    all.push(Entry {
        long: "version",
        short: Some('V'),
        value: None,
        choices: &[],
        doc: "Print the version",
        long_doc: "",
        complete: Complete::Nothing,
    });
    all
}

/// `[ID]...` or `[ID]`.
fn positional_label<A>(pos: &Positional<A>) -> String {
    if pos.many { format!("[{}]...", pos.name) } else { format!("[{}]", pos.name) }
}

/// The synopsis lines: the tool's own, or one made from the table.
fn usage_lines<A>(tool: &Tool<A>) -> Vec<String> {
    if !tool.usage.is_empty() {
        return tool.usage.iter().map(|s| s.to_string()).collect();
    }
    let mut line = format!("{} [OPTIONS]", tool.name);
    if let Some(pos) = &tool.positional {
        line.push(' ');
        line.push_str(&positional_label(pos));
    }
    vec![line]
}

/// `-h`: usage, the about line, and one aligned line per argument and flag.
pub fn short_help<A>(tool: &Tool<A>) -> String {
    let mut out = format!("{} {VERSION}\n{}\n\nUSAGE:\n", tool.name, tool.about);
    for line in usage_lines(tool) {
        out.push_str(&format!("  {line}\n"));
    }
    let flags = entries(tool);
    let mut rows: Vec<(String, &str)> = Vec::new();
    if let Some(pos) = &tool.positional {
        rows.push((positional_label(pos), pos.doc));
    }
    let first_flag = rows.len();
    rows.extend(flags.iter().map(|e| (e.left(), e.doc)));
    // The doc column starts after the widest left part, but never so far right that docs are
    // squeezed; a left part wider than that puts its doc on the next line.
    let column = rows.iter().map(|(l, _)| l.len() + 2).max().unwrap_or(0).min(30);
    let row = |out: &mut String, (left, doc): &(String, &str)| {
        if left.len() + 2 <= column {
            out.push_str(&format!("  {left:column$}{doc}\n"));
        } else {
            out.push_str(&format!("  {left}\n  {:column$}{doc}\n", ""));
        }
    };
    if first_flag > 0 {
        out.push_str("\nARGUMENTS:\n");
        rows[..first_flag].iter().for_each(|r| row(&mut out, r));
    }
    out.push_str("\nOPTIONS:\n");
    rows[first_flag..].iter().for_each(|r| row(&mut out, r));
    out
}

/// `--help`: everything in the man page, as plain text.
pub fn long_help<A>(tool: &Tool<A>) -> String {
    let mut out = format!("{} {VERSION}\n{}\n\nUSAGE:\n", tool.name, tool.about);
    for line in usage_lines(tool) {
        out.push_str(&format!("    {line}\n"));
    }
    if !tool.description.is_empty() {
        out.push_str("\nDESCRIPTION:\n");
        push_lines(&mut out, &wrap(tool.description, 4));
    }
    if let Some(pos) = &tool.positional {
        out.push_str(&format!("\nARGUMENTS:\n    {}\n", positional_label(pos)));
        push_lines(&mut out, &wrap(pos.doc, 8));
    }
    out.push_str("\nOPTIONS:\n");
    for (i, e) in entries(tool).iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&format!("    {}\n", e.left().trim_start()));
        push_lines(&mut out, &wrap(e.long_text(), 8));
        if !e.choices.is_empty() {
            out.push('\n');
            push_lines(&mut out, &wrap(&format!("Possible values: {}.", e.choices.join(", ")), 8));
        }
    }
    if !tool.examples.is_empty() {
        out.push_str("\nEXAMPLES:\n");
        for (i, (what, command)) in tool.examples.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            push_lines(&mut out, &wrap(&format!("{what}:"), 4));
            out.push_str(&format!("        $ {command}\n"));
        }
    }
    out.push_str("\nEXIT STATUS:\n");
    push_lines(&mut out, &wrap(EXIT_STATUS_TEXT, 4));
    if !tool.see_also.is_empty() {
        out.push_str(&format!("\nSEE ALSO:\n    {}\n", tool.see_also.join(", ")));
    }
    out
}

/// The exit status summary of long help.
const EXIT_STATUS_TEXT: &str = "0 if something was found (or the work was done), 1 if nothing \
    was found, 2 if an error occurred, even one the tool could go on after. A closed output \
    pipe is not an error.";

/// Appends lines, each ended by a newline.
fn push_lines(out: &mut String, lines: &[String]) {
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
}

/// One paragraph of doc markup.
enum Para<'a> {
    /// Words to re-wrap.
    Text(Vec<&'a str>),
    /// Lines kept as they are.
    Verbatim(Vec<&'a str>),
}

/// Moves the collected `lines` into `paras` as one paragraph.
fn flush<'a>(lines: &mut Vec<&'a str>, paras: &mut Vec<Para<'a>>) {
    if lines.is_empty() {
        return;
    }
    let taken = std::mem::take(lines);
    if taken[0].starts_with(' ') {
        paras.push(Para::Verbatim(taken.iter().map(|l| l.trim_end()).collect()));
    } else {
        paras.push(Para::Text(taken.iter().flat_map(|l| l.split_whitespace()).collect()));
    }
}

/// Splits doc markup into paragraphs (see the module docs).
fn paragraphs(text: &str) -> Vec<Para<'_>> {
    let mut paras = Vec::new();
    let mut lines: Vec<&str> = Vec::new();
    // A paragraph ends at a blank line; a wrapped Rust string literal's `\` continuation has
    // already joined its lines.
    let mut all = text.lines().peekable();
    while let Some(line) = all.next() {
        if line.trim().is_empty() {
            flush(&mut lines, &mut paras);
        } else {
            lines.push(line);
        }
        if all.peek().is_none() {
            flush(&mut lines, &mut paras);
        }
    }
    paras
}

/// Doc markup as lines of at most [`WIDTH`] columns (a longer word keeps its own line),
/// indented by `indent`, with a blank line between paragraphs.
fn wrap(text: &str, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    let mut lines = Vec::new();
    for (i, para) in paragraphs(text).into_iter().enumerate() {
        if i > 0 {
            lines.push(String::new());
        }
        match para {
            Para::Verbatim(vl) => lines.extend(vl.iter().map(|l| format!("{pad}{l}"))),
            Para::Text(words) => {
                let mut line = pad.clone();
                for word in words {
                    let width = line.chars().count();
                    if width > indent && width + 1 + word.chars().count() > WIDTH {
                        lines.push(std::mem::replace(&mut line, pad.clone()));
                    }
                    if line.len() > indent {
                        line.push(' ');
                    }
                    line.push_str(word);
                }
                lines.push(line);
            }
        }
    }
    lines
}

// ---------------------------------------------------------------------------------------------
// Man page.

/// Escapes text for roff: backslashes, hyphens (as `\-`, so `--json` stays ASCII and can be
/// copied), quotes that groff would curl, and a leading `.` or `'` that would read as a request.
fn roff(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    if text.starts_with(['.', '\'']) {
        out.push_str("\\&");
    }
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\e"),
            '-' => out.push_str("\\-"),
            '\'' => out.push_str("\\(aq"),
            '`' => out.push_str("\\(ga"),
            c => out.push(c),
        }
    }
    out
}

/// Words as roff text lines of at most 80 bytes (mandoc's style limit), each made safe on its
/// own: a word like `.cds` may start a line, where it would read as a request without `\&`.
fn roff_fill(out: &mut String, words: &[&str]) {
    let mut line = String::new();
    for word in words {
        // roff() guards a leading `.` with `\&` in every word, harmless mid-line, needed
        // wherever the word ends up starting a line.
        let word = roff(word);
        if !line.is_empty() && line.len() + 1 + word.len() > 80 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
}

/// Doc markup as roff: `.PP` (or `sep`) between paragraphs, verbatim ones in `.nf`.
fn roff_paragraphs(out: &mut String, text: &str, sep: &str) {
    for (i, para) in paragraphs(text).into_iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        match para {
            Para::Text(words) => roff_fill(out, &words),
            Para::Verbatim(lines) => {
                out.push_str(".nf\n");
                for line in lines {
                    // In no-fill mode leading spaces are kept; an empty line would be a
                    // blank-line warning in mandoc, so use the zero-width `\&`.
                    out.push_str(if line.is_empty() { "\\&" } else { "" });
                    out.push_str(&roff(line));
                    out.push('\n');
                }
                out.push_str(".fi\n");
            }
        }
    }
}

/// The man page, section 1.
pub fn man<A>(tool: &Tool<A>) -> String {
    let name = roff(tool.name);
    let mut out = format!(
        ".\\\" Generated by `{} --generate man`; do not edit.\n\
         .TH {} 1 {MAN_DATE} \"cds {VERSION}\" \"User Commands\"\n\
         .SH NAME\n{name} \\- {}\n.SH SYNOPSIS\n",
        tool.name,
        roff(&tool.name.to_uppercase()),
        roff(tool.about),
    );
    for (i, line) in usage_lines(tool).iter().enumerate() {
        if i > 0 {
            out.push_str(".br\n");
        }
        // Bold the tool's own name where the line starts with it.
        match line.strip_prefix(tool.name) {
            Some(rest) => out.push_str(&format!("\\fB{name}\\fR{}\n", roff(rest))),
            None => out.push_str(&format!("{}\n", roff(line))),
        }
    }
    if !tool.description.is_empty() {
        out.push_str(".SH DESCRIPTION\n");
        roff_paragraphs(&mut out, tool.description, ".PP\n");
    }
    out.push_str(".SH OPTIONS\n");
    if let Some(pos) = &tool.positional {
        let dots = if pos.many { "..." } else { "" };
        out.push_str(&format!(".TP\n\\fI{}\\fR{dots}\n", roff(pos.name)));
        roff_paragraphs(&mut out, pos.doc, ".sp\n");
    }
    for e in entries(tool) {
        out.push_str(".TP\n");
        if let Some(c) = e.short {
            out.push_str(&format!("\\fB\\-{}\\fR, ", roff(&c.to_string())));
        }
        out.push_str(&format!("\\fB\\-\\-{}\\fR", roff(e.long)));
        if let Some(v) = e.value {
            out.push_str(&format!(" \\fI{}\\fR", roff(v)));
        }
        out.push('\n');
        roff_paragraphs(&mut out, e.long_text(), ".sp\n");
        if !e.choices.is_empty() {
            out.push_str(&format!(".sp\nPossible values: {}.\n", roff(&e.choices.join(", "))));
        }
    }
    if !tool.examples.is_empty() {
        out.push_str(".SH EXAMPLES\n");
        for (i, (what, command)) in tool.examples.iter().enumerate() {
            if i > 0 {
                out.push_str(".PP\n");
            }
            out.push_str(&format!(
                "{}:\n.PP\n.RS 4\n.nf\n$ {}\n.fi\n.RE\n",
                roff(what),
                roff(command)
            ));
        }
    }
    out.push_str(
        ".SH EXIT STATUS\n\
         .TP\n.B 0\nSomething was found (or, for a tool that does not search, the work was done).\n\
         .TP\n.B 1\nNothing was found.\n\
         .TP\n.B 2\nAn error occurred, even one the tool could go on after.\n\
         .PP\nA closed output pipe (as in \\fB| head\\fR) is not an error:\nthe tool stops quietly.\n",
    );
    let has = |long: &str| tool.flags.iter().any(|f| f.long == long);
    if has("index") || has("color") {
        out.push_str(".SH ENVIRONMENT\n");
        if has("index") {
            out.push_str(
                ".TP\n.B CDS_INDEX\nThe index directory to use when \\fB\\-\\-index\\fR is not \
                 given.\n",
            );
        }
        if has("color") {
            out.push_str(
                ".TP\n.B NO_COLOR\nWhen set and not empty, \\fB\\-\\-color auto\\fR does not \
                 colour output.\n.TP\n.B TERM\nWhen unset or \\fBdumb\\fR, \\fB\\-\\-color \
                 auto\\fR does not colour output.\n",
            );
        }
    }
    if !tool.see_also.is_empty() {
        out.push_str(".SH SEE ALSO\n");
        let refs: Vec<String> = tool
            .see_also
            .iter()
            .map(|r| match r.split_once('(') {
                Some((page, section)) => format!("\\fB{}\\fR({}", roff(page), roff(section)),
                None => format!("\\fB{}\\fR", roff(r)),
            })
            .collect();
        out.push_str(&refs.join(",\n"));
        out.push('\n');
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Completions.

/// A shell function name for the tool: `_cds_trav`.
fn function_name(tool: &str) -> String {
    let body: String =
        tool.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("_{body}")
}

/// Text inside single quotes, for bash and zsh.
fn sh_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The bash completion script (`complete -F`).
pub fn bash<A>(tool: &Tool<A>) -> String {
    let func = function_name(tool.name);
    let flags = entries(tool);
    let mut words: Vec<String> = Vec::new();
    for e in &flags {
        words.push(format!("--{}", e.long));
        if let Some(c) = e.short {
            words.push(format!("-{c}"));
        }
    }
    let mut out = format!(
        "# bash completion for {name}\n\
         # Generated by `{name} --generate complete-bash`; do not edit.\n\n\
         {func}() {{\n\
         \x20   local cur prev\n\
         \x20   cur=\"${{COMP_WORDS[COMP_CWORD]}}\"\n\
         \x20   prev=\"\"\n\
         \x20   if (( COMP_CWORD > 0 )); then prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"; fi\n\
         \x20   # bash splits --flag=value at '=': complete the value of --flag.\n\
         \x20   if [[ \"$cur\" == \"=\" ]]; then\n\
         \x20       cur=\"\"\n\
         \x20   elif [[ \"$prev\" == \"=\" ]] && (( COMP_CWORD > 1 )); then\n\
         \x20       prev=\"${{COMP_WORDS[COMP_CWORD-2]}}\"\n\
         \x20   fi\n\
         \x20   COMPREPLY=()\n\
         \x20   case \"$prev\" in\n",
        name = tool.name
    );
    for e in flags.iter().filter(|e| e.value.is_some()) {
        let mut pattern = format!("--{}", e.long);
        if let Some(c) = e.short {
            pattern = format!("-{c}|{pattern}");
        }
        out.push_str(&format!("        {pattern})\n"));
        out.push_str(&bash_action(e.complete, e.choices));
        out.push_str("            return 0\n            ;;\n");
    }
    out.push_str(&format!(
        "    esac\n\
         \x20   if [[ \"$cur\" == -* ]]; then\n\
         \x20       COMPREPLY=($(compgen -W '{}' -- \"$cur\"))\n\
         \x20       return 0\n\
         \x20   fi\n",
        words.join(" ")
    ));
    if let Some(pos) = &tool.positional {
        out.push_str(&bash_action(pos.complete, &[]).replace("            ", "    "));
    }
    out.push_str(&format!("}}\n\ncomplete -F {func} {}\n", tool.name));
    out
}

/// The body of one bash `case` branch: fill COMPREPLY for a value.
fn bash_action(complete: Complete, choices: &[&str]) -> String {
    match complete {
        Complete::Nothing => String::new(),
        Complete::Choices => format!(
            "            COMPREPLY=($(compgen -W {} -- \"$cur\"))\n",
            sh_quote(&choices.join(" "))
        ),
        // File names may hold spaces: split compgen's output on newlines only.
        Complete::File => "            local IFS=$'\\n'\n            \
                           compopt -o filenames 2>/dev/null\n            \
                           COMPREPLY=($(compgen -f -- \"$cur\"))\n"
            .to_string(),
        Complete::Dir => "            local IFS=$'\\n'\n            \
                          compopt -o filenames 2>/dev/null\n            \
                          COMPREPLY=($(compgen -d -- \"$cur\"))\n"
            .to_string(),
    }
}

/// Escapes a description for inside zsh's `[...]`.
fn zsh_desc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '[' | ']' | ':') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The zsh `_arguments` action for a value.
fn zsh_action(complete: Complete, choices: &[&str]) -> String {
    match complete {
        Complete::Nothing => String::new(),
        Complete::File => "_files".to_string(),
        Complete::Dir => "_files -/".to_string(),
        Complete::Choices => format!("({})", choices.join(" ")),
    }
}

/// The zsh completion script (`#compdef`, `_arguments`).
pub fn zsh<A>(tool: &Tool<A>) -> String {
    let func = function_name(tool.name);
    let mut out = format!(
        "#compdef {name}\n\
         # Generated by `{name} --generate complete-zsh`; do not edit.\n\n\
         {func}() {{\n  local -a args\n  args=(\n",
        name = tool.name
    );
    for e in entries(tool) {
        let desc = zsh_desc(e.doc);
        // Help and version end the command line: nothing else makes sense after them.
        let exclusive = matches!(e.long, "help" | "version");
        let (short_suffix, long_suffix) = if e.value.is_some() { ("+", "=") } else { ("", "") };
        let value = match e.value {
            Some(v) => format!(":{}:{}", zsh_desc(v), zsh_action(e.complete, e.choices)),
            None => String::new(),
        };
        let spec = format!("[{desc}]{value}");
        let line = match e.short {
            Some(c) => {
                let excl =
                    if exclusive { "(- *)".to_string() } else { format!("(-{c} --{})", e.long) };
                format!(
                    "{}{{-{c}{short_suffix},--{}{long_suffix}}}{}",
                    sh_quote(&excl),
                    e.long,
                    sh_quote(&spec)
                )
            }
            None => sh_quote(&format!("--{}{long_suffix}{spec}", e.long)),
        };
        out.push_str(&format!("    {line}\n"));
    }
    if let Some(pos) = &tool.positional {
        let lead = if pos.many { "*" } else { "" };
        let spec = format!(
            "{lead}:{}:{}",
            zsh_desc(&pos.name.to_lowercase()),
            zsh_action(pos.complete, &[])
        );
        out.push_str(&format!("    {}\n", sh_quote(&spec)));
    }
    out.push_str(&format!(
        "  )\n  _arguments -s -S : $args\n}}\n\n\
         if [[ $zsh_eval_context[-1] == loadautofunc ]]; then\n\
         \x20 {func} \"$@\"\n\
         else\n\
         \x20 compdef {func} {}\n\
         fi\n",
        tool.name
    ));
    out
}

/// Text inside single quotes, for fish.
fn fish_quote(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The fish completion script (`complete -c`).
pub fn fish<A>(tool: &Tool<A>) -> String {
    let mut out =
        format!("# Generated by `{} --generate complete-fish`; do not edit.\n", tool.name);
    let positional = tool.positional.as_ref().map_or(Complete::Nothing, |p| p.complete);
    // Arguments that are not flag values: fish offers files unless told otherwise.
    match positional {
        Complete::File => {}
        Complete::Dir => out.push_str(&format!(
            "complete -c {} -f -a '(__fish_complete_directories (commandline -ct))'\n",
            tool.name
        )),
        Complete::Nothing | Complete::Choices => {
            out.push_str(&format!("complete -c {} -f\n", tool.name));
        }
    }
    for e in entries(tool) {
        let mut line = format!("complete -c {}", tool.name);
        if let Some(c) = e.short {
            line.push_str(&format!(" -s {c}"));
        }
        line.push_str(&format!(" -l {}", e.long));
        if e.value.is_some() {
            match e.complete {
                Complete::Nothing => line.push_str(" -x"),
                Complete::File => line.push_str(" -r -F"),
                Complete::Dir => {
                    line.push_str(" -x -a '(__fish_complete_directories (commandline -ct))'")
                }
                Complete::Choices => {
                    line.push_str(&format!(" -x -a {}", fish_quote(&e.choices.join(" "))));
                }
            }
        }
        line.push_str(&format!(" -d {}\n", fish_quote(e.doc)));
        out.push_str(&line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::flags::tests::SAMPLE;
    use std::io::Write;
    use std::process::{Command, Stdio};

    /// Every visible flag of the sample tool, as `--long`.
    fn visible_longs() -> Vec<String> {
        SAMPLE.flags.iter().filter(|f| !f.hidden).map(|f| format!("--{}", f.long)).collect()
    }

    #[test]
    fn short_help_shape() {
        let help = short_help(&SAMPLE);
        for long in visible_longs().iter().chain(&["--help".into(), "--version".into()]) {
            assert!(help.contains(long.as_str()), "{long} missing from -h:\n{help}");
        }
        assert!(!help.contains("--secret"));
        assert!(help.contains("  -n, --hops N "));
        assert!(help.contains("      --color WHEN "));
        assert!(help.contains("  [ID]... "));
        assert!(help.lines().all(|l| l.chars().count() <= 79 && l.trim_end() == l));
    }

    #[test]
    fn long_help_shape() {
        let help = long_help(&SAMPLE);
        for long in visible_longs() {
            assert!(help.contains(&long), "{long} missing from --help");
        }
        assert!(!help.contains("--secret"));
        assert!(help.contains("Zero prints the entities themselves."));
        assert!(help.contains("Possible values: contain, import, invoke, inherit."));
        assert!(help.contains("        $ cds-search sanitize | cds-sample -n2 --json | jq -r .id"));
        assert!(help.contains("      $ cds-sample -o 'x.txt'\n"), "verbatim kept:\n{help}");
        assert!(help.lines().all(|l| l.trim_end() == l), "trailing spaces");
        for line in help.lines() {
            // Only a verbatim line or a single long word may exceed the width.
            assert!(line.chars().count() <= 79 || !line.trim().contains(' ') || line.contains('$'));
        }
    }

    #[test]
    fn wrapping() {
        let text = "one two three\nfour\n\n  verbatim  line\n  second\n\nlast";
        assert_eq!(
            wrap(text, 2),
            ["  one two three four", "", "    verbatim  line", "    second", "", "  last"]
        );
        let long = "word ".repeat(40);
        let lines = wrap(&long, 8);
        assert!(
            lines.len() > 1 && lines.iter().all(|l| l.len() <= 79 && l.starts_with("        w"))
        );
        assert_eq!(wrap("", 4), Vec::<String>::new());
    }

    #[test]
    fn roff_escaping() {
        assert_eq!(roff("a-b\\c"), "a\\-b\\ec");
        assert_eq!(roff(".leading dot"), "\\&.leading dot");
        assert_eq!(roff("'quote' `tick`"), "\\&\\(aqquote\\(aq \\(gatick\\(ga");
    }

    #[test]
    fn man_page_shape() {
        let page = man(&SAMPLE);
        assert!(page.contains(&format!(".TH CDS\\-SAMPLE 1 {MAN_DATE} \"cds {VERSION}\"")));
        for section in [
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "EXAMPLES",
            "EXIT STATUS",
            "ENVIRONMENT",
            "SEE ALSO",
        ] {
            assert!(page.contains(&format!(".SH {section}\n")), "{section} missing");
        }
        for f in SAMPLE.flags.iter().filter(|f| !f.hidden) {
            let long = format!("\\fB\\-\\-{}\\fR", f.long.replace('-', "\\-"));
            assert!(page.contains(&long), "{long} missing from man page");
        }
        assert!(!page.contains("secret"));
        assert!(page.contains("\\fB\\-n\\fR, \\fB\\-\\-hops\\fR \\fIN\\fR\n"));
        assert!(page.contains("\n\\&.dot\\-leading paragraph\n"));
        assert!(page.contains("\n  .dot\\-leading line\n"));
        assert!(page.contains("CDS_INDEX") && page.contains("NO_COLOR"));
        assert!(page.contains("\\fBcds\\fR(7),\n\\fBcds\\-get\\fR(1)\n"));
        // No request line is produced by the text itself; every line is roff-safe.
        for line in page.lines() {
            assert!(!line.is_empty(), "blank line in man page");
            assert_eq!(line.trim_end(), line, "trailing space: {line:?}");
        }
    }

    #[test]
    fn completions_name_every_flag() {
        for (kind, text) in
            [("bash", bash(&SAMPLE)), ("zsh", zsh(&SAMPLE)), ("fish", fish(&SAMPLE))]
        {
            for f in SAMPLE.flags.iter().filter(|f| !f.hidden) {
                let long =
                    if kind == "fish" { format!("-l {}", f.long) } else { format!("--{}", f.long) };
                assert!(text.contains(&long), "{kind}: {long} missing");
            }
            assert!(!text.contains("secret"), "{kind} shows a hidden flag");
            for choice in ["contain", "inherit", "auto", "never"] {
                assert!(text.contains(choice), "{kind}: choice {choice} missing");
            }
        }
        let z = zsh(&SAMPLE);
        assert!(z.contains("'(-n --hops)'{-n+,--hops=}'[Follow N edges (default 1)]:N:'"), "{z}");
        assert!(z.contains("'--index=[Use the index in DIR]:DIR:_files -/'"));
        assert!(z.contains(
            "'(-o --output)'{-o+,--output=}'[Write to FILE instead of stdout]:FILE:_files'"
        ));
        assert!(z.contains("'*:id:'"));
        let f = fish(&SAMPLE);
        assert!(f.contains(
            "complete -c cds-sample -s r -l relation -x -a 'contain import invoke inherit'"
        ));
        assert!(f.contains("complete -c cds-sample -s o -l output -r -F"));
        assert!(f.contains("complete -c cds-sample -f\n"));
    }

    #[test]
    fn generate_kinds() {
        for kind in crate::cli::flags::GENERATE_KINDS {
            assert!(generate(&SAMPLE, kind).is_some(), "{kind}");
        }
        assert!(generate(&SAMPLE, "complete-powershell").is_none());
    }

    #[test]
    fn deterministic() {
        assert_eq!(man(&SAMPLE), man(&SAMPLE));
        assert_eq!(bash(&SAMPLE), bash(&SAMPLE));
    }

    /// Runs `program args` with `input` on stdin; `None` when the program is not installed
    /// (these checks run where the tools exist, and are skipped elsewhere).
    fn run_with(program: &str, args: &[&str], input: &str) -> Option<(bool, String)> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?;
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        let out = child.wait_with_output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        Some((out.status.success(), text))
    }

    #[test]
    fn external_checkers_accept_the_output() {
        if let Some((_, text)) = run_with("mandoc", &["-T", "lint", "-W", "warning"], &man(&SAMPLE))
        {
            // mandoc names its input "<stdin>"; any message is a lint finding.
            assert!(text.trim().is_empty(), "mandoc -T lint:\n{text}");
        }
        if let Some((ok, text)) = run_with("bash", &["-n"], &bash(&SAMPLE)) {
            assert!(ok, "bash -n:\n{text}");
        }
        if let Some((ok, text)) = run_with("zsh", &["-n"], &zsh(&SAMPLE)) {
            assert!(ok, "zsh -n:\n{text}");
        }
        if let Some((ok, text)) = run_with("fish", &["--no-execute"], &fish(&SAMPLE)) {
            assert!(ok, "fish --no-execute:\n{text}");
        }
    }
}
