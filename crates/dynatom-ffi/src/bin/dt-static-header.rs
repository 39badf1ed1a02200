//! `dt-static-header`: writes the C header of a static atom set for dynatom's C ABI.
//!
//! ```text
//! dt-static-header --set http [-o http_atoms.h] [texts.txt]
//! ```
//!
//! The texts file (standard input when absent or `-`) holds one text per line. A line
//! `NAME=text` names its entry (everything after the first `=` is the text, so a text with
//! an `=` in it needs a name); otherwise the name is the text upper-cased, with every
//! character that cannot be in a C identifier made `_` (`content-type` is `CONTENT_TYPE`).
//! Empty lines and lines starting with `#` are skipped. Names must be C identifiers; a
//! name or a text given twice is an error, as is a derived name that is not an identifier.
//!
//! The header defines, for set `http`, one constant per text (`HTTP_CONTENT_TYPE`: the
//! atom word that `dynatom::StaticText::new(..).bits()` gives the text, the word of every
//! table's atom of it once the set is registered), `HTTP_STATIC_ATOMS_COUNT`, the entries
//! `http_static_atoms[]` (names, texts, words) and `http_static_atoms_register()`, which
//! calls `dt_static_set_register`. A library of another version refuses the set
//! (`DT_ERR_WORD_MISMATCH`): regenerate the header when dynatom changes.
//!
//! Including the header registers its set before `main`, from a constructor (GCC and
//! Clang): a header whose register call was forgotten, or made after the first intern,
//! would have every text over 7 bytes miss its constant without a word (short texts are
//! inline atoms and match anyway). Registration is idempotent, so every translation unit
//! that includes the header may register it. A refused registration (a text interned
//! before, by an earlier constructor; a header from another version) cannot be returned
//! from a constructor and would leave the constants matching nothing: the constructor
//! writes why to standard error and aborts (in a shared library, when it is loaded: a
//! `dlopen`ed plugin too). A program that wants the status instead
//! defines `DT_STATIC_ATOMS_REGISTER_BY_HAND` before including the header and calls
//! `http_static_atoms_register()` itself; on a compiler with no constructors known here
//! (MSVC among them), the header is an `#error` until it does, rather than compiling into
//! a program whose switches silently fall through.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Read as _;
use std::process::ExitCode;

use dynatom_core::StaticText;

/// One entry of the set: its name (a C identifier) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    name: String,
    text: String,
}

/// Whether `name` is a C identifier: a letter or `_`, then letters, digits and `_`.
fn is_c_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The name of an entry given by its text alone: upper-cased, every character that
/// cannot be in a C identifier made `_`. `None` when that is not an identifier (empty, or
/// starting with a digit).
fn derive_name(text: &str) -> Option<String> {
    let name: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_uppercase() } else { '_' })
        .collect();
    is_c_identifier(&name).then_some(name)
}

/// The constant that the header defines for the set's count; no entry may take its name.
const COUNT_NAME: &str = "STATIC_ATOMS_COUNT";

/// The entries of a texts file, or the first error, as `line N: why`.
fn parse(input: &str) -> Result<Vec<Entry>, String> {
    let mut entries = Vec::new();
    let mut names: HashMap<String, usize> = HashMap::new();
    let mut texts: HashMap<String, usize> = HashMap::new();
    for (index, raw) in input.lines().enumerate() {
        let line = index + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let (name, text) = match raw.split_once('=') {
            Some((name, text)) => {
                if !is_c_identifier(name) {
                    return Err(format!("line {line}: {name:?} (before the `=`) is not a C identifier"));
                }
                (name.to_owned(), text.to_owned())
            }
            None => {
                let name = derive_name(raw).ok_or_else(|| {
                    format!("line {line}: {raw:?} gives no C identifier as a name: write it as NAME={raw}")
                })?;
                (name, raw.to_owned())
            }
        };
        if name == COUNT_NAME {
            return Err(format!("line {line}: the name {COUNT_NAME} is the header's count: choose another"));
        }
        if let Some(first) = texts.insert(text.clone(), line) {
            return Err(format!("line {line}: the text {text:?} is given twice (first on line {first})"));
        }
        if let Some(first) = names.insert(name.clone(), line) {
            return Err(format!("line {line}: the name {name} is given twice (first on line {first})"));
        }
        entries.push(Entry { name, text });
    }
    if entries.is_empty() {
        return Err("no texts: the set needs at least one".to_owned());
    }
    Ok(entries)
}

/// `bytes` as the inside of a C string literal: printable ASCII as itself (but `"`, `\`
/// and `?`, against trigraphs, escaped), every other byte a three-digit octal escape,
/// which no following digit can extend.
fn c_string(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &byte in bytes {
        match byte {
            b'"' | b'\\' | b'?' => {
                out.push('\\');
                out.push(char::from(byte));
            }
            0x20..=0x7e => out.push(char::from(byte)),
            _ => {
                let _ = write!(out, "\\{byte:03o}");
            }
        }
    }
    out
}

/// The header for set `set` (a C identifier) of `entries`; `source` names the texts file
/// in its first comment.
fn render(set: &str, entries: &[Entry], source: &str) -> String {
    let prefix = set.to_ascii_uppercase();
    let array = format!("{set}_static_atoms");
    let count = format!("{prefix}_{COUNT_NAME}");
    let mut h = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        h,
        "/* The static atom set \"{set}\" ({} texts) for dynatom's C ABI (dynatom.h).\n\
         \x20* Generated by dt-static-header (dynatom-ffi {}) from {}; do not edit by hand.\n\
         \x20*\n\
         \x20* Including this header registers the set before main (a constructor; see the end of\n\
         \x20* the header): from then on every table's atom of a text has the word defined for it\n\
         \x20* below, so `switch (atom.w) {{ case {prefix}_{}: ... }}` works. A library of another\n\
         \x20* version refuses the set with DT_ERR_WORD_MISMATCH: regenerate this header. */",
        entries.len(),
        env!("CARGO_PKG_VERSION"),
        source.replace("*/", "*\\/"),
        entries[0].name,
    );
    let _ = writeln!(h, "#ifndef DT_STATIC_ATOMS_{prefix}_H\n#define DT_STATIC_ATOMS_{prefix}_H\n");
    let _ = writeln!(h, "#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n#include \"dynatom.h\"\n");
    let _ = writeln!(h, "#define {count} {}\n", entries.len());
    for entry in entries {
        let word = StaticText::bits_of(entry.text.as_bytes()) as u64;
        let shown = c_string(entry.text.as_bytes()).replace("*/", "*\\/");
        let _ = writeln!(h, "#define {prefix}_{} UINT64_C(0x{word:016x}) /* \"{shown}\" */", entry.name);
    }
    let _ = writeln!(h, "\nstatic const dt_static_entry {array}[{count}] = {{");
    for entry in entries {
        let _ = writeln!(
            h,
            "    {{(const uint8_t *)\"{}\", {}, (const uint8_t *)\"{}\", {}, {prefix}_{}}},",
            c_string(entry.name.as_bytes()),
            entry.name.len(),
            c_string(entry.text.as_bytes()),
            entry.text.len(),
            entry.name,
        );
    }
    let _ = writeln!(h, "}};\n");
    let _ = writeln!(
        h,
        "/* Registers the set; DT_OK, or a dt_status (dt_status_message explains it). Registering\n\
         \x20* it again, as every translation unit including this header does, is DT_OK. */\n\
         static inline dt_status {array}_register(void) {{\n    \
         return dt_static_set_register((const uint8_t *)\"{set}\", {}, {array}, {count});\n}}\n",
        set.len(),
    );
    render_constructor(&mut h, set, &array);
    let _ = writeln!(h, "#endif /* DT_STATIC_ATOMS_{prefix}_H */");
    h
}

/// The macro that keeps a generated header from registering its set from a constructor.
const BY_HAND: &str = "DT_STATIC_ATOMS_REGISTER_BY_HAND";

/// The header's registration before `main`. A set registered late misroutes its long texts
/// without a word, so forgetting the call must be impossible: the constructor registers
/// it, and a refusal, which a constructor cannot return, stops the program with the reason
/// rather than let it run on constants that match nothing.
fn render_constructor(h: &mut String, set: &str, array: &str) {
    let _ = writeln!(
        h,
        "/* Registration before main: every translation unit that includes this header registers\n\
         \x20* the set from a constructor (registering it again is free), so no intern, in main or\n\
         \x20* after, can come before it. A refusal cannot be returned from there, and would leave\n\
         \x20* the constants above matching nothing: the constructor writes why to stderr and aborts.\n\
         \x20* Define {BY_HAND} before including the header to call\n\
         \x20* {array}_register() yourself and handle its status; compilers without a\n\
         \x20* known constructor attribute (MSVC: put a pointer to a function that calls it in a\n\
         \x20* `.CRT$XCU` section) must define it, and call it before the first intern. */\n\
         #if !defined({BY_HAND})\n\
         #if defined(__GNUC__) || defined(__clang__)\n\
         __attribute__((constructor)) static void {array}_register_before_main(void) {{\n    \
         dt_status status = {array}_register();\n    \
         if (status != DT_OK) {{\n        \
         fprintf(stderr,\n                \
         \"dynatom: the static atom set \\\"{set}\\\" could not be registered before main: %s; \"\n                \
         \"its constants would match no atom, so the program stops (define \"\n                \
         \"{BY_HAND} to register it yourself)\\n\",\n                \
         dt_status_message(status));\n        \
         abort();\n    \
         }}\n\
         }}\n\
         #else\n\
         #error \"dynatom: no constructor to register the static atom set \\\"{set}\\\" before main with this compiler: define {BY_HAND} and call {array}_register() before the first intern\"\n\
         #endif\n\
         #endif /* {BY_HAND} */\n",
    );
}

const USAGE: &str = "usage: dt-static-header --set NAME [-o OUTPUT.h] [TEXTS_FILE | -]\n\
    Writes a C header declaring the static atom set NAME (a C identifier) of the texts in\n\
    TEXTS_FILE (standard input when absent or -): one text per line, or NAME=text; empty\n\
    lines and lines starting with # are skipped. The header goes to OUTPUT.h, else to\n\
    standard output.";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    set: String,
    output: Option<String>,
    input: Option<String>,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let (mut set, mut output, mut input) = (None, None, None);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--set" => set = Some(args.next().ok_or("--set needs a name")?.clone()),
            "-o" | "--output" => output = Some(args.next().ok_or("-o needs a file name")?.clone()),
            "-h" | "--help" => return Err(String::new()),
            "-" => input = Some("-".to_owned()),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            file if input.is_none() => input = Some(file.to_owned()),
            extra => return Err(format!("one texts file only ({extra} is a second)")),
        }
    }
    let set = set.ok_or("--set NAME is required")?;
    if !is_c_identifier(&set) {
        return Err(format!("the set's name {set:?} is not a C identifier"));
    }
    Ok(Options { set, output, input: input.filter(|file| file != "-") })
}

fn run(options: &Options) -> Result<(), String> {
    let (source, bytes) = match &options.input {
        Some(file) => (file.clone(), std::fs::read(file).map_err(|err| format!("{file}: {err}"))?),
        None => {
            let mut bytes = Vec::new();
            std::io::stdin().read_to_end(&mut bytes).map_err(|err| format!("standard input: {err}"))?;
            ("standard input".to_owned(), bytes)
        }
    };
    let text = String::from_utf8(bytes).map_err(|_| format!("{source}: not UTF-8"))?;
    let entries = parse(&text).map_err(|err| format!("{source}: {err}"))?;
    let header = render(&options.set, &entries, &source);
    match &options.output {
        Some(path) => std::fs::write(path, header).map_err(|err| format!("{path}: {err}")),
        None => {
            print!("{header}");
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let options = match parse_args(&args) {
        Ok(options) => options,
        Err(why) => {
            if !why.is_empty() {
                eprintln!("dt-static-header: {why}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("dt-static-header: {why}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, text: &str) -> Entry {
        Entry { name: name.to_owned(), text: text.to_owned() }
    }

    #[test]
    fn names_are_derived_by_upper_casing_and_replacing_what_no_identifier_holds() {
        assert_eq!(derive_name("content-type").as_deref(), Some("CONTENT_TYPE"));
        assert_eq!(derive_name(":path").as_deref(), Some("_PATH"));
        assert_eq!(derive_name("accept").as_deref(), Some("ACCEPT"));
        assert_eq!(derive_name("x_forwarded_for2").as_deref(), Some("X_FORWARDED_FOR2"));
        assert_eq!(derive_name("a b.c/d").as_deref(), Some("A_B_C_D"));
        assert_eq!(derive_name("café").as_deref(), Some("CAF_"), "one _ per character, not per byte");
        assert_eq!(derive_name("404-not-found"), None, "starts with a digit");
        assert_eq!(derive_name(""), None);
    }

    #[test]
    fn identifiers_are_c_identifiers() {
        for good in ["A", "_", "_x1", "CONTENT_TYPE", "http"] {
            assert!(is_c_identifier(good), "{good}");
        }
        for bad in ["", "1A", "A-B", "a b", "é", "A="] {
            assert!(!is_c_identifier(bad), "{bad}");
        }
    }

    #[test]
    fn lines_give_named_and_derived_entries() {
        let input = "# HTTP headers\ncontent-type\r\n\nLENGTH=content-length\nEQ=a=b\n:path\n";
        let entries = parse(input).unwrap();
        assert_eq!(
            entries,
            [
                entry("CONTENT_TYPE", "content-type"),
                entry("LENGTH", "content-length"),
                entry("EQ", "a=b"),
                entry("_PATH", ":path"),
            ]
        );
    }

    #[test]
    fn duplicates_and_invalid_names_are_refused() {
        let twice_text = parse("content-type\nCT=content-type\n").unwrap_err();
        assert!(twice_text.contains("line 2") && twice_text.contains("given twice (first on line 1)"), "{twice_text}");
        let twice_name = parse("content-type\ncontent_type\n").unwrap_err();
        assert!(twice_name.contains("name CONTENT_TYPE is given twice"), "{twice_name}");
        let bad_name = parse("content-type=x\n").unwrap_err();
        assert!(bad_name.contains("line 1") && bad_name.contains("not a C identifier"), "{bad_name}");
        let underivable = parse("404-not-found\n").unwrap_err();
        assert!(underivable.contains("write it as NAME=404-not-found"), "{underivable}");
        assert!(parse("STATIC_ATOMS_COUNT=x\n").unwrap_err().contains("choose another"));
        assert!(parse("# only a comment\n\n").unwrap_err().contains("no texts"));
    }

    #[test]
    fn c_strings_escape_what_a_literal_cannot_hold() {
        assert_eq!(c_string(b"content-type"), "content-type");
        assert_eq!(c_string(b"a\"b\\c??="), "a\\\"b\\\\c\\?\\?=");
        assert_eq!(c_string("\u{e9}\n1".as_bytes()), "\\303\\251\\0121");
    }

    #[test]
    fn the_header_defines_the_library_words() {
        let entries = parse("content-type\nSTAR=*/*\n").unwrap();
        let header = render("http", &entries, "texts.txt");
        let word = StaticText::new("CONTENT_TYPE", b"content-type").bits();
        assert!(header.contains(&format!("#define HTTP_CONTENT_TYPE UINT64_C(0x{word:016x}) /* \"content-type\" */")));
        assert!(header.contains("#define HTTP_STATIC_ATOMS_COUNT 2\n"));
        assert!(header.contains("/* \"*\\/*\" */"), "a text cannot end the comment:\n{header}");
        assert!(header.contains(
            "{(const uint8_t *)\"CONTENT_TYPE\", 12, (const uint8_t *)\"content-type\", 12, HTTP_CONTENT_TYPE},"
        ));
        assert!(header.contains("static inline dt_status http_static_atoms_register(void)"));
        assert!(header.contains(
            "dt_static_set_register((const uint8_t *)\"http\", 4, http_static_atoms, HTTP_STATIC_ATOMS_COUNT)"
        ));
    }

    #[test]
    fn the_header_registers_its_set_before_main_and_stops_if_refused() {
        let header = render("http", &parse("content-type\n").unwrap(), "texts.txt");
        let constructor = header
            .find("__attribute__((constructor)) static void http_static_atoms_register_before_main(void) {")
            .expect("a constructor registers the set");
        let register = header.find("static inline dt_status http_static_atoms_register(void)").unwrap();
        assert!(register < constructor, "the constructor calls the register function defined above it");
        let body = &header[constructor..];
        assert!(body.contains("dt_status status = http_static_atoms_register();"));
        assert!(body.contains("if (status != DT_OK) {"));
        assert!(body.contains("dt_status_message(status));\n        abort();"), "a refusal stops:\n{header}");
        assert!(body.contains("the static atom set \\\"http\\\" could not be registered before main"));
        // Only GCC and Clang get the constructor; anything else must opt out by hand.
        let guarded = "#if !defined(DT_STATIC_ATOMS_REGISTER_BY_HAND)\n#if defined(__GNUC__) || defined(__clang__)\n";
        assert!(header.contains(guarded), "{header}");
        assert!(header.contains("#else\n#error \"dynatom: no constructor to register the static atom set"));
        assert!(header.contains("#include <stdio.h>\n#include <stdlib.h>\n"));
        assert!(header.ends_with("#endif /* DT_STATIC_ATOMS_HTTP_H */\n"), "all inside the include guard");
    }

    #[test]
    fn the_command_line_needs_a_set_that_is_an_identifier() {
        let args = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            parse_args(&args(&["--set", "http", "texts.txt"])),
            Ok(Options { set: "http".to_owned(), output: None, input: Some("texts.txt".to_owned()) })
        );
        assert_eq!(parse_args(&args(&["--set", "http", "-"])).unwrap().input, None);
        assert!(parse_args(&args(&["texts.txt"])).unwrap_err().contains("--set NAME is required"));
        assert!(parse_args(&args(&["--set", "my-set"])).unwrap_err().contains("not a C identifier"));
        assert!(parse_args(&args(&["--set", "s", "a", "b"])).unwrap_err().contains("one texts file only"));
    }
}
