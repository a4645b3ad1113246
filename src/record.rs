//! Saved plays of Toss games. A record is the game's own text followed by
//! the position reached as `MODEL` and the moves from `START` as `HISTORY`
//! (the file format since 2012: `START` the initial position, `MODEL` the
//! current one, the history in the file; `../shared/reference/toss-format.md`
//! section 7). `toss play --from FILE` resumes it, `toss show FILE` draws
//! its `MODEL`, and any command reads it as the game it holds.

use std::path::Path;

use toss::Game;
use toss::runtime::Interpreter;
use toss::runtime::interpreter::State;
use toss_core::ir;

use crate::play::{Ply, Resume};

/// `source` without its `MODEL` and `HISTORY` items: the game a record
/// plays. The rest is kept as written, comments and all.
pub fn game_text(source: &str) -> Result<String, String> {
    let file = toss::lang::parse_ast(source).map_err(|d| d.message)?;
    let mut cut: Vec<std::ops::Range<usize>> = Vec::new();
    for item in &file.items {
        match item {
            // The structure's span starts after the keyword.
            toss::lang::ast::Item::Model(lit) => {
                let start = source[..lit.span.start]
                    .rfind("MODEL")
                    .unwrap_or(lit.span.start);
                cut.push(start..lit.span.end);
            }
            toss::lang::ast::Item::History { span, .. } => cut.push(span.clone()),
            _ => {}
        }
    }
    let mut text = String::new();
    let mut at = 0;
    for r in cut {
        text.push_str(&source[at..r.start]);
        at = r.end;
    }
    text.push_str(&source[at..]);
    Ok(text)
}

/// The game of a record: its description with neither `MODEL` nor
/// `HISTORY`, which would change where a play starts.
pub fn without_play(game: &ir::Game) -> ir::Game {
    let mut g = game.clone();
    g.model = None;
    g.history.clear();
    g
}

/// The comment `save` writes above the saved play.
const HEADING: &str =
    "// The play saved by `toss play`: the position reached and the moves from START.";

/// Writes the play of `plies`, now at `current`, of the game `interp`
/// plays (described by `source`) to `path`.
pub fn save(
    interp: &Interpreter,
    source: &str,
    plies: &[Ply<Interpreter>],
    current: &State,
    path: &Path,
) -> Result<(), String> {
    let mut history = Vec::new();
    let mut movers = Vec::new();
    for (i, ply) in plies.iter().enumerate() {
        let after = plies.get(i + 1).map_or(current, |next| &next.before);
        let target = interp.location(after);
        interp.movers(&ply.before, &mut movers);
        for (&p, m) in movers.iter().zip(&ply.joint) {
            history.push(interp.history_move(&ply.before, p, m, target).ok_or_else(|| {
                format!(
                    "move {} ({}) applies its rule at several matches at once, which HISTORY \
                     cannot write",
                    i + 1,
                    interp.move_to_string(&ply.before, p, m)
                )
            })?);
        }
    }
    let mut text = game_text(source)?.trim_end().to_string();
    // A play saved again after `--from` keeps one heading, not one a save.
    if let Some(rest) = text.strip_suffix(HEADING) {
        text = rest.trim_end().to_string();
    }
    text.push_str("\n\n");
    text.push_str(HEADING);
    text.push('\n');
    text.push_str("MODEL ");
    text.push_str(&toss::lang::print_structure(&interp.to_structure(current)));
    text.push('\n');
    if !history.is_empty() {
        text.push_str(&toss::lang::print_history(&history));
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reads a record of the game `base` (which `interp` plays from its
/// `START`) from `path`: its moves replayed from the start with the
/// generator of `seed`, each checked legal, and the position they reach
/// checked against the record's `MODEL`.
pub fn load(
    interp: &Interpreter,
    base: &ir::Game,
    path: &Path,
    seed: u64,
) -> Result<Resume<Interpreter>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let shown = path.display().to_string();
    let record = toss::lang::parse_game(&text, &shown)
        .map_err(|d| toss::lang::render_diagnostics(&d, &text, &shown, false))?;
    let print = |g: &ir::Game| toss::lang::print_game(&without_play(g));
    if print(&record) != print(base) {
        return Err(format!("{shown} is a play of another game"));
    }
    let mut joints = Vec::new();
    let mut rng = toss::rng_from_seed(seed);
    let mut s = interp.initial_state();
    let mut movers = Vec::new();
    let mut legal = Vec::new();
    let mut entries = record.history.iter().enumerate().peekable();
    let names = interp.player_names();
    while entries.peek().is_some() {
        interp.movers(&s, &mut movers);
        let mut joint = Vec::new();
        let mut target = None;
        for &p in &movers {
            let Some((i, h)) = entries.next() else {
                return Err(format!(
                    "{shown}: HISTORY ends inside a joint move ({} is to move too)",
                    names[p]
                ));
            };
            let at = || format!("{shown}: HISTORY move {} ({}: {})", i + 1, h.player, h.rule);
            if h.player != names[p] {
                return Err(format!("{}: {} is to move here", at(), names[p]));
            }
            interp.legal_moves(&s, p, &mut legal);
            let same = |m: &toss::runtime::interpreter::Move| {
                interp
                    .history_move(&s, p, m, h.target)
                    .is_some_and(|x| x == *h)
            };
            let k = legal
                .iter()
                .position(same)
                .ok_or_else(|| format!("{}: not a legal move here", at()))?;
            joint.push(legal.swap_remove(k));
            target = Some((at(), h.target));
        }
        if movers.is_empty() {
            return Err(format!("{shown}: HISTORY goes on after the play has ended"));
        }
        interp.apply(&mut s, &joint, &mut rng);
        if let Some((at, t)) = target
            && interp.location(&s) != t
        {
            return Err(format!(
                "{at}: leads to location {}, not {t}",
                interp.location(&s)
            ));
        }
        joints.push(joint);
    }
    if record.model.is_some() {
        let recorded = Interpreter::new(&record)
            .map_err(|e| format!("{shown}: {e}"))?
            .initial_state();
        if interp.to_structure(&recorded) != interp.to_structure(&s) {
            return Err(format!(
                "{shown}: its MODEL is not the position its HISTORY leads to"
            ));
        }
    }
    Ok(crate::play::resume_from(interp, joints, seed))
}
