//! The subcommands of `toss`. Each returns `Err(message)` to print on
//! standard error and exit non-zero.

use std::path::{Path, PathBuf};

use toss::load::load_toss;
use toss::runtime::analysis::fluent_relations;
use toss::runtime::ir;

/// `toss check FILE...`: a one-screen summary per game, or its diagnostics.
pub fn check(files: &[PathBuf], colour: bool) -> Result<(), String> {
    let mut failed = 0;
    for (i, path) in files.iter().enumerate() {
        if i > 0 {
            println!();
        }
        match load_toss(path, colour) {
            Ok((game, _)) => print!("{}", summary(path, &game)),
            Err(e) => {
                eprint!("{e}");
                eprintln!(
                    "{}: {} error{}",
                    path.display(),
                    e.count,
                    if e.count == 1 { "" } else { "s" }
                );
                failed += 1;
            }
        }
    }
    if failed > 0 {
        Err(format!("{failed} of {} file(s) have errors", files.len()))
    } else {
        Ok(())
    }
}

/// The summary `toss check` prints for a game that loads.
pub fn summary(path: &Path, game: &ir::Game) -> String {
    use std::fmt::Write;
    let s = &game.start;
    let fluent = fluent_relations(game);
    let mut out = String::new();
    let _ = writeln!(out, "{}: ok", path.display());
    let _ = writeln!(out, "  players    {}", game.players.join(", "));
    let _ = writeln!(out, "  elements   {}", s.num_elements());
    let _ = writeln!(out, "  relations  {}", s.num_relations());
    for r in 0..s.num_relations() {
        let name = s.relation_name(r);
        let kind = if fluent.contains(name) {
            "fluent"
        } else {
            "stable"
        };
        let _ = writeln!(
            out,
            "    {name:<16} arity {}  {kind:<6}  {} tuple(s) at start",
            s.arity(r),
            s.relation_len(r)
        );
    }
    if s.num_functions() > 0 {
        let names: Vec<&str> = (0..s.num_functions()).map(|f| s.function_name(f)).collect();
        let _ = writeln!(out, "  functions  {}", names.join(", "));
    }
    if !game.defined_relations.is_empty() {
        let names: Vec<String> = game
            .defined_relations
            .iter()
            .map(|d| format!("{}/{}", d.name, d.params.len()))
            .collect();
        let _ = writeln!(out, "  defined    {}", names.join(", "));
    }
    let rules: Vec<&str> = game.rules.iter().map(|r| r.name.as_str()).collect();
    let _ = writeln!(out, "  rules      {} ({})", rules.len(), rules.join(", "));
    let _ = writeln!(out, "  locations  {}", game.locations.len());
    for loc in &game.locations {
        let moves: Vec<String> = loc
            .players
            .iter()
            .zip(&game.players)
            .filter(|(pl, _)| !pl.moves.is_empty())
            .map(|(pl, name)| {
                let labels: Vec<&str> = pl.moves.iter().map(|l| l.rule.as_str()).collect();
                format!("{name}: {}", labels.join(", "))
            })
            .collect();
        let moves = if moves.is_empty() {
            "no moves (the play ends)".into()
        } else {
            moves.join("; ")
        };
        let _ = writeln!(out, "    LOC {:<3} {moves}", loc.id);
    }
    out
}

/// `toss fmt FILE`: the canonical form on standard output.
pub fn fmt(path: &Path, colour: bool) -> Result<(), String> {
    let (game, _) = load_toss(path, colour).map_err(|e| e.rendered)?;
    print!("{}", toss::lang::print_game(&game));
    Ok(())
}
