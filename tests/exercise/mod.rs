//! Exercising a game from arbitrary bytes: parse and check it, load it into
//! its engines, play a few seeded random plies and read every view of the
//! states (payoffs, moves as text, structures, faults). Shared by the
//! deterministic mutation test (`tests/mutated_games.rs`) and the fuzz
//! target `fuzz/fuzz_targets/play.rs` (included there by path), so both
//! check the same thing: bad input gives diagnostics or a fault, never a
//! panic, a hang or unbounded memory.

use toss_core::game::{Game, rng_from_seed};

/// Plies played from the initial state of a game that loads.
pub const PLIES: usize = 12;

/// The GDL reasoner's facts per relation: small, so a mutant that makes a
/// relation explode stops at the bound quickly.
pub const GDL_FACTS: usize = 20_000;

/// How far an input got: so a test can tell that its inputs exercised the
/// engines and not only the parser.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reached {
    /// Refused by the front end.
    #[default]
    Refused,
    /// Parsed, but no engine loaded it.
    Parsed,
    /// Loaded into an engine and played (possibly zero plies).
    Played,
}

/// A `.toss` description: the front end, the interpreter, a few plies.
pub fn exercise_toss(bytes: &[u8], seed: u64) -> Reached {
    let Ok(game) = toss_lang::parse_game_bytes(bytes, "input.toss") else {
        return Reached::Refused;
    };
    let _ = toss_lang::print_game(&game);
    let Ok(interpreter) = toss_runtime::Interpreter::new(&game) else {
        return Reached::Parsed;
    };
    play_a_few(&interpreter, seed);
    Reached::Played
}

/// A GDL description: the KIF reader and checker, then the reasoner and
/// the grounded network, a few plies each.
pub fn exercise_kif(bytes: &[u8], seed: u64) -> Reached {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Reached::Refused;
    };
    let Some(desc) = check_kif(text) else {
        return Reached::Refused;
    };
    let mut reached = Reached::Parsed;
    if let Ok(reasoner) = toss_gdl::kif::build_game_with_limit(&desc, GDL_FACTS) {
        play_a_few(&reasoner, seed);
        reached = Reached::Played;
    }
    let limits = toss_gdl::ground::GroundLimits {
        facts: GDL_FACTS,
        instances: 5 * GDL_FACTS,
    };
    if let Ok(grounded) = toss_gdl::ground::GroundGame::from_description(&desc, limits) {
        play_a_few(&grounded, seed);
        reached = Reached::Played;
    }
    reached
}

/// The KIF reader and checker: a description or diagnostics, each pointing
/// into the text (its caret is drawn from that span) and rendered.
pub fn check_kif(text: &str) -> Option<toss_gdl::Description> {
    let checked = toss_gdl::kif::check_gdl(text);
    assert!(
        checked.errors.is_empty() == checked.description.is_some(),
        "a description and errors together, or neither"
    );
    let all: Vec<_> = checked
        .errors
        .iter()
        .chain(&checked.warnings)
        .cloned()
        .collect();
    for d in &all {
        let spans = std::iter::once(&d.span).chain(d.labels.iter().map(|(s, _)| s));
        for s in spans {
            assert!(
                text.get(s.clone()).is_some(),
                "span {s:?} of `{}` is outside the text or splits a character",
                d.message
            );
        }
    }
    let _ = toss_lang::render_diagnostics(&all, text, "input.kif", false);
    checked.description
}

/// Seeded random plies, reading each state the ways the CLI reads it.
fn play_a_few<G: Game>(g: &G, seed: u64) {
    let mut rng = rng_from_seed(seed);
    let mut s = g.initial_state();
    let mut movers = Vec::new();
    let mut moves = Vec::new();
    let mut pay = vec![0.0; g.num_players()];
    for _ in 0..PLIES {
        g.movers_and_moves(&s, &mut movers, &mut moves);
        for (ms, &p) in moves.iter().zip(&movers) {
            if let Some(m) = ms.first() {
                let _ = g.move_to_string(&s, p, m);
            }
        }
        let _ = g.to_structure(&s);
        g.payoffs(&s, &mut pay);
        if g.fault().is_some() {
            return;
        }
        let (turns, _) = g.random_playout_from(&mut s, &mut rng, 1);
        if turns == 0 {
            return;
        }
    }
}
