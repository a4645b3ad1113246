//! Loading game files for the CLI and for users who interpret games at run
//! time: read bytes, parse, and render diagnostics with file, line, column
//! and a caret.

use std::path::Path;

use toss_core::ir;

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

/// A game loaded from either input language.
// One per command, made once and borrowed after: the size of the variants
// does not matter, and boxing the interpreter would only add a deref.
#[allow(clippy::large_enum_variant)]
pub enum Loaded {
    /// A `.toss` description and its interpreter.
    Toss {
        game: Box<ir::Game>,
        interpreter: toss_runtime::Interpreter,
    },
    /// A GDL description (`.kif`, `.gdl`) and its reasoner.
    Gdl(toss_gdl::GdlGame),
}

/// Whether a path names a GDL file (by its extension).
pub fn is_gdl(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("kif") || e.eq_ignore_ascii_case("gdl"))
}

/// Reads and parses a GDL file; diagnostics rendered like the Toss ones.
pub fn load_gdl(path: &Path, colour: bool) -> Result<toss_gdl::GdlGame, LoadError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| LoadError {
        rendered: format!("error: cannot read {shown}: {e}\n"),
        count: 1,
    })?;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            let lossy = String::from_utf8_lossy(&bytes).into_owned();
            let d = toss_lang::utf8_error(&bytes, e);
            return Err(LoadError {
                rendered: toss_lang::render_diagnostics(&[d], &lossy, &shown, colour),
                count: 1,
            });
        }
    };
    toss_gdl::kif::load_game(text, &shown).map_err(|diags| LoadError {
        rendered: toss_lang::render_diagnostics(&diags, text, &shown, colour),
        count: diags.len(),
    })
}

/// Loads a game in the language its extension says, ready to play.
pub fn load(path: &Path, colour: bool) -> Result<Loaded, LoadError> {
    if is_gdl(path) {
        return load_gdl(path, colour).map(Loaded::Gdl);
    }
    let (game, _) = load_toss(path, colour)?;
    let interpreter = toss_runtime::Interpreter::new(&game).map_err(|e| LoadError {
        rendered: format!("{}: {e}\n", path.display()),
        count: 1,
    })?;
    Ok(Loaded::Toss {
        game: Box::new(game),
        interpreter,
    })
}
