//! Loading game files for the CLI and for users who interpret games at run
//! time: read bytes, parse, and render diagnostics with file, line, column
//! and a caret.

use std::path::Path;

use toss_runtime::ir;

/// A game file that failed to load: the rendered diagnostics, ready to print.
#[derive(Debug)]
pub struct LoadError {
    pub rendered: String,
    /// How many errors were found.
    pub count: usize,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.rendered)
    }
}

impl std::error::Error for LoadError {}

/// Reads and parses a `.toss` file. `colour` adds ANSI colours to the
/// rendered diagnostics.
pub fn load_toss(path: &Path, colour: bool) -> Result<(ir::Game, String), LoadError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| LoadError {
        rendered: format!("error: cannot read {shown}: {e}\n"),
        count: 1,
    })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    match toss_lang::parse_game_bytes(&bytes, &shown) {
        Ok(game) => Ok((game, text)),
        Err(diags) => Err(LoadError {
            rendered: toss_lang::render_diagnostics(&diags, &text, &shown, colour),
            count: diags.len(),
        }),
    }
}
