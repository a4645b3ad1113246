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
    let parsed = with_progress(&shown, "parsing and checking", || {
        toss_lang::parse_game_bytes(&bytes, &shown)
    });
    match parsed {
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
    /// A GDL description grounded into a propositional network.
    Grounded(toss_gdl::ground::GroundGame),
}

impl Loaded {
    /// What runs the game: `interpreter`, `reasoner` or `grounded`.
    pub fn engine_name(&self) -> &'static str {
        match self {
            Loaded::Toss { .. } => "interpreter",
            Loaded::Gdl(_) => "reasoner",
            Loaded::Grounded(_) => "grounded",
        }
    }
}

/// What runs a GDL game: the grounded network, the reasoner, or whichever
/// is faster on this game (`auto`). Both give the same moves, states and
/// goals (the tests play them in lockstep), so the choice changes speed
/// only, never a seeded result. `toss`: the game translated to Toss (spec
/// chapter 5) on the interpreter, the same game with Toss moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Engine {
    #[default]
    Auto,
    Grounded,
    Reasoner,
    Toss,
}

impl std::str::FromStr for Engine {
    type Err = String;
    fn from_str(s: &str) -> Result<Engine, String> {
        match s {
            "auto" => Ok(Engine::Auto),
            "grounded" => Ok(Engine::Grounded),
            "reasoner" => Ok(Engine::Reasoner),
            "toss" => Ok(Engine::Toss),
            _ => Err(format!(
                "unknown engine `{s}`: expected auto, grounded, reasoner or toss"
            )),
        }
    }
}

/// Random playout turns per second on `game` from its initial state, run
/// as the player's playouts run them (one turn at a time, the clock read
/// before each), for `time`.
pub fn turns_per_second<G: toss_core::Game>(game: &G, time: std::time::Duration) -> f64 {
    let mut rng = toss_core::game::rng_from_seed(0);
    let start = std::time::Instant::now();
    let init = game.initial_state();
    let mut s = init.clone();
    let (mut turns, mut plies) = (0u64, 0usize);
    while start.elapsed() < time {
        let (n, _) = game.random_playout_from(&mut s, &mut rng, 1);
        // A call on a terminal state (its payoffs) counts as a turn too.
        turns += 1;
        plies += n;
        if n == 0 || plies >= 1000 {
            s = init.clone();
            plies = 0;
        }
    }
    turns as f64 / start.elapsed().as_secs_f64().max(1e-9)
}

/// The grounded form of a GDL game when `engine` asks for it and it
/// grounds; with `auto`, only when random playouts run faster on it than
/// on the reasoner (a fraction of a second of each). The error says why
/// the reasoner runs it.
pub fn choose_engine(
    desc: &toss_gdl::Description,
    reasoner: &toss_gdl::GdlGame,
    engine: Engine,
) -> Result<toss_gdl::ground::GroundGame, String> {
    use toss_gdl::ground::{GroundGame, GroundLimits};
    if engine == Engine::Reasoner {
        return Err("asked for".into());
    }
    let g =
        GroundGame::from_description(desc, GroundLimits::default()).map_err(|e| e.to_string())?;
    if engine == Engine::Auto {
        let time = std::time::Duration::from_millis(50);
        let (fast, slow) = (turns_per_second(&g, time), turns_per_second(reasoner, time));
        if fast < slow {
            return Err(format!(
                "faster here: {slow:.0} playout turns/s against {fast:.0} on the grounded network"
            ));
        }
    }
    Ok(g)
}

/// Whether a path names a GDL file (by its extension).
pub fn is_gdl(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("kif") || e.eq_ignore_ascii_case("gdl"))
}

/// Reads and parses a GDL file; diagnostics rendered like the Toss ones.
pub fn load_gdl(path: &Path, colour: bool) -> Result<toss_gdl::GdlGame, LoadError> {
    load_gdl_description(path, colour).map(|(g, _)| g)
}

/// [`load_gdl`], with the checker's warnings rendered (empty without any),
/// for `toss check`.
pub fn load_gdl_with_warnings(
    path: &Path,
    colour: bool,
) -> Result<(toss_gdl::GdlGame, String), LoadError> {
    read_gdl(path, colour).map(|g| (g.game, g.warnings))
}

/// [`load_gdl`], with the checked description.
pub fn load_gdl_description(
    path: &Path,
    colour: bool,
) -> Result<(toss_gdl::GdlGame, toss_gdl::Description), LoadError> {
    read_gdl(path, colour).map(|g| (g.game, g.desc))
}

/// A GDL file read, checked and built: its text, the description with the
/// span of each rule, and the reasoner.
struct ReadGdl {
    shown: String,
    text: String,
    desc: toss_gdl::Description,
    rule_spans: Vec<toss_gdl::kif::syntax::Span>,
    game: toss_gdl::GdlGame,
    /// The checker's warnings, rendered like errors.
    warnings: String,
}

fn read_gdl(path: &Path, colour: bool) -> Result<ReadGdl, LoadError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| LoadError {
        rendered: format!("error: cannot read {shown}: {e}\n"),
        count: 1,
    })?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let bytes = e.as_bytes();
            let lossy = String::from_utf8_lossy(bytes).into_owned();
            let d = toss_lang::utf8_error(bytes, e.utf8_error());
            return Err(LoadError {
                rendered: toss_lang::render_diagnostics(&[d], &lossy, &shown, colour),
                count: 1,
            });
        }
    };
    let checked = toss_gdl::kif::check_gdl(&text);
    let warnings = toss_lang::render_warnings(&checked.warnings, &text, &shown, colour);
    // Errors first, then the warnings, which may explain them.
    let rendered = |diags: Vec<toss_lang::Diagnostic>| LoadError {
        rendered: toss_lang::render_diagnostics(&diags, &text, &shown, colour) + &warnings,
        count: diags.len(),
    };
    let desc = match checked.description {
        Some(d) if checked.errors.is_empty() => d,
        _ => return Err(rendered(checked.errors)),
    };
    let mut game =
        toss_gdl::kif::build_game_at(&desc, &checked.rule_spans).map_err(|d| rendered(vec![d]))?;
    game.set_relation_positions(toss_gdl::kif::relation_positions(
        &desc,
        &checked.rule_spans,
        &text,
        &shown,
    ));
    Ok(ReadGdl {
        shown,
        text,
        desc,
        rule_spans: checked.rule_spans,
        game,
        warnings,
    })
}

/// A GDL file translated to Toss (spec chapter 5). A refusal is an error
/// at the clause it is about (the `legal` clause whose rules could not be
/// built, the first clause of the relation it names), or at the file when
/// no clause is to blame.
pub fn translate_gdl(
    path: &Path,
    colour: bool,
) -> Result<toss_gdl::translate::Translation, LoadError> {
    let g = read_gdl(path, colour)?;
    let located = match toss_gdl::translate::translate_located(&g.desc) {
        Ok(t) => return Ok(t),
        Err(l) => l,
    };
    let rendered = match located.diagnostic(&g.rule_spans) {
        Some(d) => toss_lang::render_diagnostics(&[d], &g.text, &g.shown, colour),
        None => format!("error: {}: {}\n", g.shown, located.message()),
    };
    Err(LoadError { rendered, count: 1 })
}

/// Loads a game in the language its extension says, ready to play (GDL on
/// the engine [`Engine::Auto`] picks).
pub fn load(path: &Path, colour: bool) -> Result<Loaded, LoadError> {
    load_with(path, colour, Engine::Auto)
}

/// [`load`], with the engine of GDL games chosen by `engine`.
pub fn load_with(path: &Path, colour: bool, engine: Engine) -> Result<Loaded, LoadError> {
    if is_gdl(path) {
        if engine == Engine::Toss {
            let fail = |why: String| LoadError {
                rendered: format!("error: {}: {why}\n", path.display()),
                count: 1,
            };
            let t = translate_gdl(path, colour)?;
            let interpreter =
                toss_runtime::Interpreter::new(&t.game).map_err(|e| fail(e.to_string()))?;
            return Ok(Loaded::Toss {
                game: Box::new(t.game),
                interpreter,
            });
        }
        let (reasoner, desc) = load_gdl_description(path, colour)?;
        return Ok(match choose_engine(&desc, &reasoner, engine) {
            Ok(g) => Loaded::Grounded(g),
            Err(why) if engine == Engine::Grounded => {
                return Err(LoadError {
                    rendered: format!("error: {}: not grounded: {why}\n", path.display()),
                    count: 1,
                });
            }
            Err(_) => Loaded::Gdl(reasoner),
        });
    }
    let shown = path.display().to_string();
    let (game, source) = load_toss(path, colour)?;
    let interpreter = build_interpreter(&game, &source, &shown).map_err(|e| LoadError {
        rendered: format!("{e}\n"),
        count: 1,
    })?;
    Ok(Loaded::Toss {
        game: Box::new(game),
        interpreter,
    })
}

/// The interpreter of `game` (read from `source`, shown as `shown`), with a
/// progress line when building it is slow and the rules' positions, so a
/// fault about a rule (a resource limit) says where the rule is. The error
/// starts with the position of the rule or `REL` it is about, else with
/// `shown`.
pub fn build_interpreter(
    game: &ir::Game,
    source: &str,
    shown: &str,
) -> Result<toss_runtime::Interpreter, String> {
    let mut interpreter = with_progress(shown, "building the interpreter", || {
        toss_runtime::Interpreter::new(game)
    })
    .map_err(|e| {
        let at = toss_lang::limits::item_position(source, shown, e.item.as_deref());
        format!("{at}: {e}")
    })?;
    interpreter.set_rule_positions(&toss_lang::limits::rule_positions(source, shown));
    Ok(interpreter)
}

/// How long a phase of loading runs before [`with_progress`] says so.
const PROGRESS_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

/// Runs `f`, one phase of loading `file`; if it takes longer than
/// [`PROGRESS_AFTER`], a line on stderr says what is being done, and
/// another how long it took, so a long load is not mistaken for a hang.
pub fn with_progress<T>(file: &str, phase: &str, f: impl FnOnce() -> T) -> T {
    let start = std::time::Instant::now();
    let (done, wait) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        s.spawn(move || {
            if wait.recv_timeout(PROGRESS_AFTER).is_ok() {
                return;
            }
            eprintln!("{file}: {phase}...");
            // Returns when `done` is sent or dropped.
            let _ = wait.recv();
            eprintln!(
                "{file}: {phase} took {:.1} s",
                start.elapsed().as_secs_f64()
            );
        });
        let out = f();
        let _ = done.send(());
        out
    })
}
