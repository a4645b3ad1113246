//! The Toss language front end: `.toss` text to the game IR of
//! `toss-core`, with diagnostics that point into the source.
//!
//! Pipeline: a lexical nesting check, the pest grammar (`toss.pest`), the
//! AST with spans ([`ast`]), checks ([`check`]) and lowering ([`lower`]);
//! [`print`] writes the IR back as canonical `.toss` text; [`format_source`]
//! formats a source keeping its comments and board literals; [`limits`]
//! places rules in the source for the resource limits' messages.
//! The front end never panics on user input, whatever the bytes.
//!
//! Dependency rule: `toss-core` only (no solver, no interpreter, no
//! nalgebra): whatever parses a game can do so without the engine.

pub mod ast;
mod board;
mod check;
pub mod diagnostic;
mod format;
pub mod limits;
pub mod lower;
pub mod parse;
pub mod plays;
pub mod print;

pub use diagnostic::{Diagnostic, line_col, render_diagnostics, render_warnings};
pub use parse::{MAX_CONNECTIVES, MAX_NESTING, MAX_TREE_DEPTH};
pub use print::{
    print_formula, print_game, print_history, print_number, print_real, print_structure,
};

use toss_core::ir;

/// Stack size of the thread the front end runs on: the parser and the
/// passes recurse over the (depth-limited) syntax tree.
const STACK_SIZE: usize = 256 * 1024 * 1024;

/// Runs `f` on a thread with a large stack (falls back to the current
/// thread if one cannot be spawned).
fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let f = std::sync::Mutex::new(Some(f));
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("toss-lang".into())
            .stack_size(STACK_SIZE)
            .spawn_scoped(s, || {
                let f = f.lock().ok().and_then(|mut g| g.take());
                f.map(|f| f())
            });
        let result = match spawned {
            Ok(h) => h.join().ok().flatten(),
            Err(_) => None,
        };
        match result {
            Some(r) => r,
            None => {
                let f = f.lock().ok().and_then(|mut g| g.take());
                match f {
                    Some(f) => f(),
                    // The thread took `f` and panicked: re-run is impossible.
                    None => std::panic::resume_unwind(Box::new("toss-lang front end panicked")),
                }
            }
        }
    })
}

/// Parses, checks and lowers a `.toss` source. `file_name` is only used in
/// messages. All check errors are returned together; a syntax error stops
/// at the first one.
pub fn parse_game(source: &str, file_name: &str) -> Result<ir::Game, Vec<Diagnostic>> {
    let _ = file_name;
    with_big_stack(|| {
        let file = parse::parse_file(source).map_err(|d| vec![d])?;
        let sig = check::check(&file)?;
        let game = lower::lower(&file, &sig);
        let errors = check::lowered(&file, &game);
        if errors.is_empty() {
            Ok(game)
        } else {
            Err(errors)
        }
    })
}

/// Like [`parse_game`] on raw bytes: invalid UTF-8 is reported as a
/// diagnostic at its byte offset.
pub fn parse_game_bytes(bytes: &[u8], file_name: &str) -> Result<ir::Game, Vec<Diagnostic>> {
    match std::str::from_utf8(bytes) {
        Ok(s) => parse_game(s, file_name),
        Err(e) => Err(vec![utf8_error(bytes, e)]),
    }
}

/// The diagnostic for invalid UTF-8 at `e.valid_up_to()`. Its span is a byte
/// range of the valid prefix's end (so it renders against the valid part).
pub fn utf8_error(bytes: &[u8], e: std::str::Utf8Error) -> Diagnostic {
    let at = e.valid_up_to();
    Diagnostic::new(
        format!(
            "invalid UTF-8 at byte offset {at} (byte 0x{:02x})",
            bytes.get(at).copied().unwrap_or(0)
        ),
        at..at,
    )
    .with_note("a game file (.toss or .kif) must be UTF-8 text")
}

/// Parses one formula (e.g. for tests and tools) and lowers it without
/// checking names.
pub fn parse_formula(source: &str) -> Result<ir::Formula, Diagnostic> {
    with_big_stack(|| parse::parse_formula_ast(source).map(|f| lower::formula(&f)))
}

/// Parses one real term and lowers it without checking names.
pub fn parse_term(source: &str) -> Result<ir::RealExpr, Diagnostic> {
    with_big_stack(|| parse::parse_term_ast(source).map(|t| lower::term(&t)))
}

/// Parses a file into its syntax tree only (no checks).
pub fn parse_ast(source: &str) -> Result<ast::File, Diagnostic> {
    with_big_stack(|| parse::parse_file(source))
}

/// Formats a `.toss` source (`toss fmt`): the layout is fixed, but comments,
/// board literals, numbers and parentheses stay as written, so the result
/// parses to the same syntax tree (up to spans) and lowers to the same game.
/// Formatting its own output changes nothing. Only the syntax is checked: a
/// syntax error is returned as the parser reports it.
pub fn format_source(source: &str) -> Result<String, Diagnostic> {
    with_big_stack(|| {
        let file = parse::parse_file(source)?;
        Ok(format::format_file(source, &file))
    })
}
