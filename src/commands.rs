//! The subcommands of `toss`. Each returns `Err(message)` to print on
//! standard error and exit non-zero.

use std::path::{Path, PathBuf};

use toss::Game;
use toss::load::load_toss;
use toss::matches::{self, PlayerSpec};
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

/// Loads a game file as an interpreter, diagnostics rendered.
fn interpreter(path: &Path, colour: bool) -> Result<toss::Interpreter, String> {
    let (game, _) = load_toss(path, colour).map_err(|e| e.rendered)?;
    toss::Interpreter::new(&game).map_err(|e| format!("{}: {e}", path.display()))
}

/// `toss perft FILE DEPTH [--divide]`.
pub fn perft(path: &Path, depth: usize, divide: bool, colour: bool) -> Result<(), String> {
    let g = interpreter(path, colour)?;
    let s = g.initial_state();
    let total = if divide {
        let rows = toss::play::perft_divide(&g, &s, depth);
        for (m, n) in &rows {
            println!("{m}: {n}");
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        g.perft(&s, depth)
    };
    println!("{total}");
    Ok(())
}

/// `toss playout FILE -n N [--seed S]`.
pub fn playout(
    path: &Path,
    n: u64,
    seed: u64,
    max_plies: usize,
    colour: bool,
) -> Result<(), String> {
    let g = interpreter(path, colour)?;
    let bar = indicatif::ProgressBar::new(n);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:40} {pos}/{len} playouts ({per_sec}, eta {eta})",
        )
        .map_err(|e| e.to_string())?,
    );
    // Updating the bar costs more than a tic-tac-toe playout: tick in batches.
    let step = (n / 200).max(1);
    let mut done = 0u64;
    let stats = toss::play::playouts(&g, n, seed, max_plies, || {
        done += 1;
        if done.is_multiple_of(step) {
            bar.set_position(done);
        }
    });
    bar.finish_and_clear();
    println!("{} playouts in {:.2} s", stats.playouts, stats.seconds);
    println!(
        "playouts/s: {:.0}",
        stats.playouts as f64 / stats.seconds.max(1e-9)
    );
    println!("mean length: {:.2} plies", stats.mean_plies);
    for (name, p) in g.player_names().iter().zip(&stats.mean_payoffs) {
        println!("mean payoff {name}: {p:.4}");
    }
    Ok(())
}

/// `toss play FILE [--player SPEC]...`.
pub fn play(path: &Path, specs: &[PlayerSpec], seed: u64, colour: bool) -> Result<(), String> {
    let (game, _) = load_toss(path, colour).map_err(|e| e.rendered)?;
    let g = toss::Interpreter::new(&game).map_err(|e| format!("{}: {e}", path.display()))?;
    if specs.len() > g.num_players() {
        return Err(format!(
            "{} --player given, the game has {} players",
            specs.len(),
            g.num_players()
        ));
    }
    let mut seats = Vec::new();
    for p in 0..g.num_players() {
        let default = if p == 0 { "human" } else { "random" };
        let spec = match specs.get(p) {
            Some(s) => s.clone(),
            None => default.parse()?,
        };
        let seat = matches::build(&spec, &game, &g, seed.wrapping_add(p as u64))?;
        seats.push(match seat.player {
            None => toss::play::Seat::Human,
            Some(player) => toss::play::Seat::Program(player, spec.budget),
        });
    }
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    toss::play::play(&g, &mut seats, seed, &mut input, &mut out).map_err(|e| e.to_string())?;
    Ok(())
}

/// `toss match FILE --player SPEC --player SPEC -n GAMES [--seed S] [--swap]`.
pub fn play_match(
    path: &Path,
    specs: &[PlayerSpec],
    games: u64,
    seed: u64,
    swap: bool,
    colour: bool,
) -> Result<(), String> {
    let (game, _) = load_toss(path, colour).map_err(|e| e.rendered)?;
    let g = toss::Interpreter::new(&game).map_err(|e| format!("{}: {e}", path.display()))?;
    let n = g.num_players();
    if specs.len() != n {
        return Err(format!(
            "the game has {n} players: give --player once for each"
        ));
    }
    if specs.iter().any(|s| s.kind == matches::Kind::Human) {
        return Err("a match is between programs: use `toss play` to play yourself".into());
    }
    // records[spec][seat]
    let mut records = vec![vec![matches::Record::default(); n]; n];
    let bar = indicatif::ProgressBar::new(games);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games (eta {eta}) {msg}")
            .map_err(|e| e.to_string())?,
    );
    for i in 0..games {
        // With --swap the seats rotate every game.
        let shift = if swap { (i % n as u64) as usize } else { 0 };
        let seat_of_spec: Vec<usize> = (0..n).map(|k| (k + shift) % n).collect();
        let game_seed = seed.wrapping_mul(1_000_003).wrapping_add(i);
        let mut seats = Vec::with_capacity(n);
        for p in 0..n {
            let k = seat_of_spec.iter().position(|&q| q == p).unwrap_or(p);
            seats.push(matches::build(
                &specs[k],
                &game,
                &g,
                game_seed.wrapping_add(97 * k as u64),
            )?);
        }
        let payoffs = matches::play_one(&g, &mut seats, game_seed, 100_000);
        for (k, &p) in seat_of_spec.iter().enumerate() {
            records[k][p].add(matches::outcome(&payoffs, p));
        }
        let total: matches::Record = records[0].iter().fold(Default::default(), |mut a, r| {
            a.add(*r);
            a
        });
        bar.set_message(format!("{}: {:.3}", specs[0].text, total.score()));
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!(
        "{:<24} {:<10} {:>6} {:>6} {:>6} {:>7} {:>8}",
        "player", "seat", "wins", "draws", "losses", "score", "95% ci"
    );
    let mut result = String::from("result");
    for (k, spec) in specs.iter().enumerate() {
        let mut total = matches::Record::default();
        for (p, r) in records[k].iter().enumerate() {
            if r.games() == 0 {
                continue;
            }
            total.add(*r);
            println!(
                "{:<24} {:<10} {:>6} {:>6} {:>6} {:>7.3} {:>8}",
                spec.text,
                g.player_names()[p],
                r.wins,
                r.draws,
                r.losses,
                r.score(),
                format!("+-{:.3}", r.ci95())
            );
        }
        println!(
            "{:<24} {:<10} {:>6} {:>6} {:>6} {:>7.3} {:>8}",
            spec.text,
            "all",
            total.wins,
            total.draws,
            total.losses,
            total.score(),
            format!("+-{:.3}", total.ci95())
        );
        result.push_str(&format!(" {} {:.4}", spec.text, total.score()));
    }
    println!("{result}");
    Ok(())
}

/// `toss heuristic FILE`: the derived heuristic of each player, per location.
pub fn heuristic(path: &Path, rule_condition: bool, colour: bool) -> Result<(), String> {
    use toss::runtime::heuristic::{HeuristicConfig, HeuristicKind, derive};
    let (game, _) = load_toss(path, colour).map_err(|e| e.rendered)?;
    let kind = if rule_condition {
        HeuristicKind::RuleCondition
    } else {
        HeuristicKind::Existential
    };
    let cfg = HeuristicConfig {
        kind,
        ..HeuristicConfig::default()
    };
    let h = derive(&game, &cfg);
    for (l, per_player) in h.per_location.iter().enumerate() {
        println!("LOC {l}");
        for (name, t) in game.players.iter().zip(per_player) {
            println!("  {name}: {}", toss::lang::print_real(t));
        }
    }
    Ok(())
}

/// `toss show FILE [--moves M1,M2,...] --svg OUT`.
pub fn show(path: &Path, moves: Option<&str>, svg: &Path, colour: bool) -> Result<(), String> {
    let g = interpreter(path, colour)?;
    let list: Vec<&str> = moves
        .map(|m| {
            m.split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let s = toss::play::replay(&g, &list, 0)?;
    let picture = toss::render::svg(&g.to_structure(&s));
    std::fs::write(svg, picture).map_err(|e| format!("cannot write {}: {e}", svg.display()))?;
    println!("wrote {}", svg.display());
    Ok(())
}
