//! The subcommands of `toss`. Each returns `Err(message)` to print on
//! standard error and exit non-zero.

use std::io::Write;
use std::path::{Path, PathBuf};

use toss::Game;
use toss::analysis::fluent_relations;
use toss::ir;
use toss_cli::Finish;
use toss_cli::fault_check;
use toss_cli::load::{Engine, load_toss};
use toss_cli::matches::{self, PlayerSpec};
use toss_cli::play::PipeStdout;

/// `writeln!` on standard output ([`PipeStdout`]: a closed pipe ends the
/// program quietly), returning any other write error from the command.
macro_rules! outln {
    ($($arg:tt)*) => {
        writeln!(PipeStdout, $($arg)*).map_err(stdout_error)?
    };
}

/// `write!` on standard output, as [`outln!`].
macro_rules! out {
    ($($arg:tt)*) => {
        write!(PipeStdout, $($arg)*).map_err(stdout_error)?
    };
}

fn stdout_error(e: std::io::Error) -> String {
    format!("cannot write to standard output: {e}")
}

/// [`load_toss`] for the commands that need a Toss description. A GDL
/// file is translated to Toss with `via_toss` (the game and its printed
/// text), and otherwise refused with the reason rather than a syntax error.
fn load_toss_only(
    path: &Path,
    command: &str,
    via_toss: bool,
    colour: bool,
) -> Result<(ir::Game, String), toss_cli::load::LoadError> {
    if toss_cli::load::is_gdl(path) {
        if via_toss {
            let game = toss_cli::load::translate_gdl(path, colour)?.game;
            let text = toss::lang::print_game(&game);
            return Ok((game, text));
        }
        return Err(toss_cli::load::LoadError {
            rendered: format!(
                "{}: `toss {command}` needs a Toss description (.toss), or a GDL file with \
                 --via-toss (translated to Toss); GDL files themselves are taken by check, \
                 perft, playout, play, match, show, build, ground, translate and heuristic\n",
                path.display()
            ),
            count: 1,
        });
    }
    load_toss(path, colour)
}

/// `toss check FILE...`: a one-screen summary per game, or its diagnostics.
pub fn check(files: &[PathBuf], via_toss: bool, colour: bool) -> Result<(), String> {
    let mut failed = 0;
    for (i, path) in files.iter().enumerate() {
        if i > 0 {
            outln!();
        }
        if toss_cli::load::is_gdl(path) && !via_toss {
            match toss_cli::load::load_gdl_with_warnings(path, colour) {
                // The first state's legal moves are listed: a game past a
                // limit there cannot be played at all.
                Ok((g, warnings)) => {
                    eprint!("{warnings}");
                    let summary = gdl_summary(path, &g);
                    match g.fault() {
                        None => out!("{summary}"),
                        // A fault about a relation starts with its place.
                        Some(f) if f.starts_with(&format!("{}:", path.display())) => {
                            eprintln!("error: {f}");
                            failed += 1;
                        }
                        Some(f) => {
                            eprintln!("error: {}: {f}", path.display());
                            failed += 1;
                        }
                    }
                }
                Err(e) => {
                    eprint!("{e}");
                    failed += 1;
                }
            }
            continue;
        }
        // A file that checks is also loaded as `toss play` would load it:
        // the interpreter refuses what it cannot run (a set quantifier that
        // only enumeration decides, on a structure past its limit).
        let loaded = load_toss_only(path, "check", via_toss, colour).and_then(|(game, source)| {
            toss_cli::load::build_interpreter(&game, &source, &path.display().to_string())
                .map(|_| (game, source))
                .map_err(|e| toss_cli::load::LoadError {
                    rendered: format!("error: {e}\n"),
                    count: 1,
                })
        });
        match loaded {
            Ok((game, source)) => {
                out!("{}", summary(path, &game));
                let shown = path.display().to_string();
                for w in toss::lang::limits::match_warnings(&game, &source, &shown) {
                    outln!("warning: {w}");
                }
            }
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
    let _ = match toss::ir::bounds::payoff_bounds(game) {
        Some(b) => writeln!(out, "  payoffs    within [{}, {}]", b.lo, b.hi),
        None => writeln!(out, "  payoffs    no bound found (players assume [-1, 1])"),
    };
    out
}

/// The summary `toss check` prints for a GDL game that loads.
pub fn gdl_summary(path: &Path, g: &toss::gdl::GdlGame) -> String {
    let s = g.initial_state();
    let mut movers = Vec::new();
    g.movers(&s, &mut movers);
    let mut moves = Vec::new();
    let counts: Vec<String> = movers
        .iter()
        .map(|&p| {
            g.legal_moves(&s, p, &mut moves);
            format!("{} {}", g.player_names()[p], moves.len())
        })
        .collect();
    format!(
        "{}: ok (GDL)\n  roles      {}\n  first legal moves per role: {}\n",
        path.display(),
        g.player_names().join(", "),
        counts.join(", ")
    )
}

/// Runs `$body` with `$g` bound to the loaded game, whichever language.
macro_rules! with_game {
    ($loaded:expr, $g:ident => $body:expr) => {
        match $loaded {
            toss_cli::load::Loaded::Toss {
                interpreter: $g, ..
            } => $body,
            toss_cli::load::Loaded::Gdl($g) => $body,
            toss_cli::load::Loaded::Grounded($g) => $body,
        }
    };
}

/// `toss simulate FILE --until T [--step H] [--seed S] [--player P]...
/// [--plot out.svg]`.
pub fn simulate(
    path: &Path,
    opts: &toss_cli::simulate::Options,
    plot: Option<&Path>,
    via_toss: bool,
    colour: bool,
) -> Result<Finish, String> {
    let (game, source) =
        load_toss_only(path, "simulate", via_toss, colour).map_err(|e| e.rendered)?;
    let shown = path.display().to_string();
    let mut interp = toss_cli::load::build_interpreter(&game, &source, &shown)?;
    let sim =
        toss_cli::simulate::simulate(&game, &mut interp, opts, plot.is_some(), &mut PipeStdout)?;
    fault_check(&interp)?;
    if let Some(svg) = plot {
        let title = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        toss_cli::simulate::plot(&sim.trajectories, &title, svg)?;
    }
    Ok(sim.finish)
}

/// `toss fmt FILE`: the formatted description on standard output. A `.toss`
/// file is formatted from its text (its comments and boards kept), once it
/// loads; a GDL file with `--via-toss` has no Toss text, so its translation
/// is printed in the canonical form.
pub fn fmt(path: &Path, via_toss: bool, colour: bool) -> Result<(), String> {
    let (game, source) = load_toss_only(path, "fmt", via_toss, colour).map_err(|e| e.rendered)?;
    if toss_cli::load::is_gdl(path) {
        out!("{}", toss::lang::print_game(&game));
        return Ok(());
    }
    let shown = path.display().to_string();
    let formatted = toss::lang::format_source(&source)
        .map_err(|d| toss::lang::render_diagnostics(&[d], &source, &shown, colour))?;
    out!("{formatted}");
    Ok(())
}

/// `toss term FILE [TERM]... [--trace] [--max-steps N]`.
/// `toss term FILE [TERM]...`: an error (status 1) when a term was not
/// read, else [`Finish::Cut`] when a term reached the step or depth limit
/// without a normal form.
pub fn term(path: &Path, terms: &[String], trace: bool, max_steps: u64) -> Result<Finish, String> {
    use toss_terms::program::Program;
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    let mut program = Program::load(&text).map_err(|e| e.render(&name, &text))?;
    let limits = toss_terms::normalise::Limits {
        max_steps,
        ..toss_terms::normalise::Limits::default()
    };
    if !terms.is_empty() {
        let (mut failed, mut limited) = (false, false);
        for (i, t) in terms.iter().enumerate() {
            let source = format!("<term {}>", i + 1);
            match evaluate_term(&program, t, &source, limits, trace)? {
                TermResult::Normal => {}
                TermResult::Failed => failed = true,
                TermResult::Limited => limited = true,
            }
        }
        return match (failed, limited) {
            (true, _) => Err(String::new()),
            (false, true) => Ok(Finish::Cut),
            (false, false) => Ok(Finish::Complete),
        };
    }
    // Interactive: a line ending with `.` adds statements, others are terms.
    let stdin = std::io::stdin();
    let mut line = String::new();
    let mut number = 0;
    loop {
        line.clear();
        number += 1;
        match std::io::BufRead::read_line(&mut stdin.lock(), &mut line) {
            Ok(0) => return Ok(Finish::Complete),
            Ok(_) => {}
            Err(e) => return Err(format!("cannot read standard input: {e}")),
        }
        let input = line.trim_end();
        let source = format!("<stdin line {number}>");
        if input.trim().is_empty() {
            continue;
        }
        if input.ends_with('.') {
            if let Err(e) = program.add_statements(input, 0) {
                eprint!("{}", e.render(&source, input));
            }
        } else {
            evaluate_term(&program, input, &source, limits, trace)?;
        }
    }
}

/// What became of a term given to `toss term`.
enum TermResult {
    Normal,
    /// Not read (a syntax or type error), or not rewritten.
    Failed,
    /// No normal form within the step or depth limit.
    Limited,
}

/// Prints a term's normal form (and its steps with `trace`), or its error
/// on standard error.
fn evaluate_term(
    program: &toss_terms::program::Program,
    text: &str,
    source: &str,
    limits: toss_terms::normalise::Limits,
    trace: bool,
) -> Result<TermResult, String> {
    use toss_terms::normalise::NormError;
    use toss_terms::program::EvalError;
    let print_steps = |steps: &[(String, String)]| -> Result<(), String> {
        for (before, after) in steps {
            outln!("  {before}  ->  {after}");
        }
        Ok(())
    };
    match program.evaluate(text, limits, trace) {
        Ok(e) => {
            print_steps(&e.steps)?;
            outln!("{}", e.normal_form);
            Ok(TermResult::Normal)
        }
        Err(EvalError::Parse(e)) => {
            eprint!("{}", e.render(source, text));
            Ok(TermResult::Failed)
        }
        Err(EvalError::Normalise(e, steps)) => {
            print_steps(&steps)?;
            eprintln!("{source}: error: {}", program.describe(&e));
            Ok(match e {
                NormError::StepLimit { .. } | NormError::DepthLimit { .. } => TermResult::Limited,
                NormError::Instantiate(_) | NormError::Meta { .. } => TermResult::Failed,
            })
        }
    }
}

/// `toss perft FILE DEPTH [--divide]`.
pub fn perft(
    path: &Path,
    depth: usize,
    divide: bool,
    engine: Engine,
    colour: bool,
) -> Result<(), String> {
    let loaded = toss_cli::load::load_with(path, colour, engine).map_err(|e| e.rendered)?;
    with_game!(&loaded, g => perft_game(g, depth, divide))
}

fn perft_game<G: Game>(g: &G, depth: usize, divide: bool) -> Result<(), String> {
    let s = g.initial_state();
    // Nothing is printed of a count a fault stopped.
    let total = if divide {
        let rows = toss_cli::play::perft_divide(g, &s, depth);
        fault_check(g)?;
        for (m, n) in &rows {
            outln!("{m}: {n}");
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        g.perft(&s, depth)
    };
    fault_check(g)?;
    outln!("{total}");
    Ok(())
}

/// `toss playout FILE -n N [--seed S] [--max-plies M]`; [`Finish::Cut`]
/// when a playout was cut at the limit.
pub fn playout(
    path: &Path,
    n: u64,
    seed: u64,
    max_plies: usize,
    engine: Engine,
    colour: bool,
) -> Result<Finish, String> {
    if n == 0 {
        return Err("-n 0: give the number of playouts to run, at least 1".into());
    }
    let loaded = toss_cli::load::load_with(path, colour, engine).map_err(|e| e.rendered)?;
    with_game!(&loaded, g => playout_game(g, n, seed, max_plies))
}

fn playout_game<G: Game>(g: &G, n: u64, seed: u64, max_plies: usize) -> Result<Finish, String> {
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
    let stats = toss_cli::play::playouts(g, n, seed, max_plies, || {
        done += 1;
        if done.is_multiple_of(step) {
            bar.set_position(done);
        }
    });
    bar.finish_and_clear();
    fault_check(g)?;
    toss_cli::play::write_playout_stats(&mut PipeStdout, g.player_names(), &stats, max_plies)
        .map_err(stdout_error)?;
    Ok(if stats.cut > 0 {
        Finish::Cut
    } else {
        Finish::Complete
    })
}

/// `toss play [FILE] [--from RECORD] [--player SPEC]... [--max-plies
/// M]`; [`Finish::Cut`] when the play was cut at the limit.
pub fn play(
    file: Option<&Path>,
    from: Option<&Path>,
    specs: &[PlayerSpec],
    seed: u64,
    max_plies: usize,
    engine: Engine,
    colour: bool,
) -> Result<Finish, String> {
    let Some(path) = file.or(from) else {
        return Err("give the game's FILE or a saved play with --from FILE".into());
    };
    let loaded = toss_cli::load::load_with(path, colour, engine).map_err(|e| e.rendered)?;
    let n = with_game!(&loaded, g => g.num_players());
    if specs.len() > n {
        return Err(format!(
            "{} --player given, the game has {n} players",
            specs.len()
        ));
    }
    let mut full = Vec::new();
    for p in 0..n {
        let default = if p == 0 { "human" } else { "random" };
        full.push(match specs.get(p) {
            Some(s) => s.clone(),
            None => default.parse()?,
        });
    }
    let full = with_description_id(&full, path, &loaded)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = PipeStdout;
    let ending = match &loaded {
        toss_cli::load::Loaded::Toss { game, interpreter } => {
            use toss_cli::record;
            // A play starts at START; a saved play's MODEL and HISTORY are
            // where it is continued from.
            let base = record::without_play(game);
            let saved = game.model.is_some() || !game.history.is_empty();
            let fresh;
            let interpreter = if saved {
                fresh = toss::Interpreter::new(&base)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                &fresh
            } else {
                interpreter
            };
            let source = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let resume = match from.or(saved.then_some(path)) {
                Some(r) => Some(record::load(interpreter, &base, r, seed)?),
                None => None,
            };
            let mut seats = Vec::new();
            for (p, spec) in full.iter().enumerate() {
                let seat = matches::build(
                    spec,
                    interpreter,
                    game,
                    interpreter,
                    seed.wrapping_add(p as u64),
                )?;
                seats.push(match seat.player {
                    None => toss_cli::play::Seat::Human,
                    Some(player) => toss_cli::play::Seat::Program(player, spec.budget),
                });
            }
            let save =
                |plies: &[toss_cli::play::Ply<toss::Interpreter>],
                 now: &toss::runtime::interpreter::State,
                 to: &Path| { record::save(interpreter, &source, plies, now, to) };
            let load = |from: &Path| record::load(interpreter, &base, from, seed);
            let records = toss_cli::play::Records {
                save: &save,
                load: &load,
            };
            let ending = toss_cli::play::play_session(
                interpreter,
                &mut seats,
                seed,
                max_plies,
                &mut input,
                &mut out,
                Some(&records),
                resume,
            )
            .map_err(|e| e.to_string())?;
            fault_check(interpreter)?;
            ending
        }
        _ if from.is_some() => {
            return Err(
                "--from continues a play of a Toss game (its MODEL and HISTORY); a GDL game \
                 has no saved plays"
                    .into(),
            );
        }
        toss_cli::load::Loaded::Gdl(g) => {
            play_generic(g, &full, seed, max_plies, &mut input, &mut out)?
        }
        toss_cli::load::Loaded::Grounded(g) => {
            play_generic(g, &full, seed, max_plies, &mut input, &mut out)?
        }
    };
    Ok(match ending {
        toss_cli::play::Ending::Finished { .. } | toss_cli::play::Ending::Quit { .. } => {
            Finish::Complete
        }
        toss_cli::play::Ending::Cut { .. } => Finish::Cut,
    })
}

/// Terminal play of a game without a `.toss` description (GDL).
fn play_generic<G: Game + Sync + 'static>(
    g: &G,
    full: &[PlayerSpec],
    seed: u64,
    max_plies: usize,
    input: &mut impl std::io::BufRead,
    out: &mut PipeStdout,
) -> Result<toss_cli::play::Ending, String>
where
    G::State: Send + Sync,
    G::Move: Send + Sync,
{
    let mut seats = Vec::new();
    for (p, spec) in full.iter().enumerate() {
        let player = matches::build_generic(spec, g, seed.wrapping_add(p as u64))?;
        seats.push(match player {
            None => toss_cli::play::Seat::Human,
            Some(player) => toss_cli::play::Seat::Program(player, spec.budget),
        });
    }
    let ending = toss_cli::play::play(g, &mut seats, seed, max_plies, input, out)
        .map_err(|e| e.to_string())?;
    fault_check(g)?;
    Ok(ending)
}

/// `toss match FILE --player SPEC --player SPEC -n GAMES [--seed S]
/// [--swap] [--max-plies M]`; [`Finish::Cut`] when a game was cut.
pub fn play_match(
    path: &Path,
    specs: &[PlayerSpec],
    plan: &matches::MatchPlan,
    engine: Engine,
    colour: bool,
) -> Result<Finish, String> {
    let loaded = toss_cli::load::load_with(path, colour, engine).map_err(|e| e.rendered)?;
    let specs = &with_description_id(specs, path, &loaded)?;
    match loaded {
        // A fault stops the match inside `run_match`.
        toss_cli::load::Loaded::Toss { game, interpreter } => {
            matches::run_match(&interpreter, &game, &interpreter, specs, plan)
        }
        toss_cli::load::Loaded::Gdl(g) => matches::run_match_generic(&g, specs, plan),
        toss_cli::load::Loaded::Grounded(g) => matches::run_match_generic(&g, specs, plan),
    }
}

/// `specs` with the identity of the loaded description set, which a
/// solver's table must match.
fn with_description_id(
    specs: &[PlayerSpec],
    path: &Path,
    loaded: &toss_cli::load::Loaded,
) -> Result<Vec<PlayerSpec>, String> {
    let mut out = specs.to_vec();
    if out.iter().any(|s| s.table.is_some()) {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let id = toss_cli::solve::description_id(&bytes, loaded.engine_name());
        for s in &mut out {
            s.description_id = id;
        }
    }
    Ok(out)
}

/// `toss ground FILE.kif [--summary]`: the propositional network.
pub fn ground(path: &Path, summary: bool, colour: bool) -> Result<(), String> {
    if !toss_cli::load::is_gdl(path) {
        return Err(format!(
            "{}: `toss ground` takes a GDL file (.kif or .gdl)",
            path.display()
        ));
    }
    let (_, desc) = toss_cli::load::load_gdl_description(path, colour).map_err(|e| e.rendered)?;
    let t = std::time::Instant::now();
    let p = toss::gdl::ground::ground(&desc)
        .map_err(|e| format!("{}: not grounded: {e}", path.display()))?;
    let secs = t.elapsed().as_secs_f64();
    let dump = p.dump();
    if summary {
        outln!("{}", dump.lines().nth(1).unwrap_or_default());
        outln!("grounded in {secs:.3} s");
    } else {
        out!("{dump}");
    }
    Ok(())
}

/// The Toss translation of a GDL file, or the refusal as an error message.
fn translated(path: &Path, colour: bool) -> Result<toss::gdl::translate::Translation, String> {
    toss_cli::load::translate_gdl(path, colour).map_err(|e| e.rendered)
}

/// `toss translate FILE.kif`: the Toss game of a GDL game.
pub fn translate(path: &Path, explain: bool, colour: bool) -> Result<(), String> {
    if !toss_cli::load::is_gdl(path) {
        return Err(format!(
            "{}: `toss translate` takes a GDL file (.kif or .gdl)",
            path.display()
        ));
    }
    let t = std::time::Instant::now();
    let tr = translated(path, colour)?;
    let secs = t.elapsed().as_secs_f64();
    if explain {
        outln!("// Translated from {} in {secs:.3} s.", path.display());
        for line in tr.explain().lines() {
            outln!("// {line}");
        }
        outln!();
    }
    out!("{}", toss::lang::print_game(&tr.game));
    Ok(())
}

/// `toss heuristic FILE`: the derived heuristic of each player, per location.
pub fn heuristic(path: &Path, rule_condition: bool, colour: bool) -> Result<(), String> {
    use toss::heuristics::{HeuristicConfig, HeuristicKind, derive};
    let game = if toss_cli::load::is_gdl(path) {
        translated(path, colour)?.game
    } else {
        load_toss_only(path, "heuristic", false, colour)
            .map_err(|e| e.rendered)?
            .0
    };
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
        outln!("LOC {l}");
        for (name, t) in game.players.iter().zip(per_player) {
            outln!("{}", heuristic_text(name, t));
        }
    }
    Ok(())
}

/// Lines as long as this at most in `toss heuristic`, but for a part that
/// cannot be broken (a long atom).
const WIDTH: usize = 100;

/// `  player: term` on one line if it fits, else `  player:` with the term
/// laid out below it ([`toss_cli::layout`]).
fn heuristic_text(player: &str, t: &ir::RealExpr) -> String {
    let head = format!("  {player}:");
    let one_line = toss::lang::print_real(t);
    if head.len() + 1 + one_line.chars().count() <= WIDTH {
        return format!("{head} {one_line}");
    }
    let indent = 4;
    format!(
        "{head}\n{}{}",
        " ".repeat(indent),
        toss_cli::layout::real(t, indent, indent, WIDTH)
    )
}

/// The arguments of `toss solve`.
#[derive(clap::Args)]
pub struct SolveOptions {
    pub file: PathBuf,
    /// Moves as in `toss play`, separated by commas, played first.
    #[arg(long)]
    pub moves: Option<String>,
    /// A file of moves as in `toss play`, one per line (a game record),
    /// played first.
    #[arg(long, conflicts_with = "moves")]
    pub moves_file: Option<PathBuf>,
    /// The deepest iteration, in turns.
    #[arg(long, default_value_t = 1000)]
    pub depth: u32,
    /// The memory bound of the table, e.g. 512M or 4G.
    #[arg(long, default_value = "2G")]
    pub memory: String,
    /// Stop after this many seconds with the bounds proved so far.
    #[arg(long)]
    pub time: Option<f64>,
    /// Enumerate the reachable positions and solve them backwards.
    #[arg(long)]
    pub retrograde: bool,
    /// With --retrograde: write the solved positions to this file, for
    /// the `solver:table=FILE` player.
    #[arg(long, requires = "retrograde")]
    pub table: Option<PathBuf>,
    /// Print the number of distinct positions after each number of
    /// plies up to N, instead of solving.
    #[arg(long, conflicts_with = "retrograde")]
    pub layers: Option<usize>,
}

/// `toss solve FILE`: the exact value and best moves, by search or by
/// retrograde analysis.
pub fn solve(opts: &SolveOptions, engine: Engine, colour: bool) -> Result<(), String> {
    let path = opts.file.as_path();
    let memory = toss_cli::solve::parse_bytes(&opts.memory)?;
    if let Some(t) = opts.time
        && !(t > 0.0 && t < 1e9)
    {
        return Err(format!("--time {t}: give a positive number of seconds"));
    }
    if opts.depth == 0 {
        return Err("--depth 0: give the deepest iteration, at least 1".into());
    }
    let moves: Vec<String> = match (&opts.moves, &opts.moves_file) {
        (Some(m), _) => m.split(',').map(|m| m.trim().to_string()).collect(),
        (None, Some(f)) => std::fs::read_to_string(f)
            .map_err(|e| format!("{}: {e}", f.display()))?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect(),
        (None, None) => Vec::new(),
    };
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let loaded = toss_cli::load::load_with(path, colour, engine).map_err(|e| e.rendered)?;
    let id = toss_cli::solve::description_id(&text, loaded.engine_name());
    let run = toss_cli::solve::Run {
        moves: &moves,
        depth: opts.depth,
        memory,
        time: opts.time,
        retrograde: opts.retrograde,
        table: opts.table.as_deref(),
        layers: opts.layers,
        game_id: id,
    };
    let mut out = PipeStdout;
    with_game!(&loaded, g => toss_cli::solve::run(g, &run, &mut out))
}

/// `toss show FILE [--moves M1,M2,...] --svg OUT`.
pub fn show(path: &Path, moves: Option<&str>, svg: &Path, colour: bool) -> Result<(), String> {
    let loaded = toss_cli::load::load(path, colour).map_err(|e| e.rendered)?;
    let list: Vec<&str> = moves
        .map(|m| {
            m.split(',')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let (structure, players) = with_game!(&loaded, g => {
        let s = toss_cli::play::replay(g, &list, 0)?;
        fault_check(g)?;
        (g.to_structure(&s), g.player_names().to_vec())
    });
    std::fs::write(svg, toss_cli::render::svg_with(&structure, &players))
        .map_err(|e| format!("cannot write {}: {e}", svg.display()))?;
    outln!("wrote {}", svg.display());
    Ok(())
}

/// The `main.rs` of a crate made by `toss build`: the game derived from
/// `game.toss` next to its `Cargo.toml`, with subcommands run by the
/// generated code. `NAME` is replaced by the binary's default name, the
/// game file's stem.
const BUILD_MAIN: &str = r#"//! A game compiled by `toss build`.

use std::io::Write;
use std::process::ExitCode;

use toss::Game;
use toss_cli::play::{PipeStdout, Seat};
use toss::search::player::Budget;
use toss::search::uct::{RandomPlayout, Uct, UctConfig};

#[derive(toss::Game)]
#[toss(file = "game.toss")]
struct Compiled;

const USAGE: &str = "usage:
  NAME play [--seed S] [--iters N] [--max-plies M]
      play first against UCT (N iterations per move)
  NAME playout [-n N] [--seed S] [--max-plies M]
      random playouts: playouts/s, finished and cut playouts, mean length and
      payoffs of the finished
  NAME perft DEPTH [--divide]
      move sequences of that length from the start
  NAME solve [--moves M1,M2,...] [--depth D] [--memory 2G] [--time S]
        [--retrograde [--table OUT]] [--layers N]
      the exact value and best moves (as `toss solve`)
  NAME --help
      this text
exit status: 0 done, 1 an error, 2 a bad command line, 3 a game cut at its
limit (--max-plies, default 100000)";

/// `writeln!` on standard output: a closed pipe ends the program quietly.
macro_rules! outln {
    ($($arg:tt)*) => {
        writeln!(PipeStdout, $($arg)*)
            .map_err(|e| format!("cannot write to standard output: {e}"))?
    };
}

/// The value after `flag` in `args`, parsed, or `default`.
fn option<T: std::str::FromStr>(args: &[String], flag: &str, default: T) -> Result<T, String> {
    match args.iter().position(|a| a == flag) {
        None => Ok(default),
        Some(i) => args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| format!("{flag} needs a number")),
    }
}


/// Runs a subcommand; `Ok(true)` when a limit cut a game (exit status 3).
fn run(args: &[String]) -> Result<bool, String> {
    let g = Compiled;
    match args.first().map(String::as_str) {
        Some("play") => {
            let seed = option(args, "--seed", 0u64)?;
            let iters = option(args, "--iters", 5000u64)?;
            let max_plies = option(args, "--max-plies", toss_cli::DEFAULT_MAX_PLIES)?;
            let mut seats: Vec<Seat<Compiled>> = vec![Seat::Human];
            for p in 1..g.num_players() {
                let uct = Uct::new(
                    UctConfig::for_game(&g),
                    RandomPlayout { max_plies: 1000 },
                    seed.wrapping_add(p as u64),
                );
                seats.push(Seat::Program(Box::new(uct), Budget::Iterations(iters)));
            }
            let mut input = std::io::stdin().lock();
            let mut out = PipeStdout;
            let ending = toss_cli::play::play(&g, &mut seats, seed, max_plies, &mut input, &mut out)
                .map_err(|e| e.to_string())?;
            toss_cli::fault_check(&g)?;
            Ok(matches!(ending, toss_cli::play::Ending::Cut { .. }))
        }
        Some("playout") => {
            let n = option(args, "-n", 1000u64)?;
            if n == 0 {
                return Err("-n 0: give the number of playouts to run, at least 1".into());
            }
            let seed = option(args, "--seed", 0u64)?;
            let max_plies = option(args, "--max-plies", toss_cli::DEFAULT_MAX_PLIES)?;
            let stats = toss_cli::play::playouts(&g, n, seed, max_plies, || {});
            toss_cli::fault_check(&g)?;
            let names = g.player_names();
            toss_cli::play::write_playout_stats(&mut PipeStdout, names, &stats, max_plies)
                .map_err(|e| format!("cannot write to standard output: {e}"))?;
            Ok(stats.cut > 0)
        }
        Some("perft") => {
            let depth: usize = args
                .get(1)
                .and_then(|d| d.parse().ok())
                .ok_or_else(|| format!("perft needs a DEPTH\n{USAGE}"))?;
            let s = g.initial_state();
            let total = if args.iter().any(|a| a == "--divide") {
                let rows = toss_cli::play::perft_divide(&g, &s, depth);
                for (m, n) in &rows {
                    outln!("{m}: {n}");
                }
                rows.iter().map(|(_, n)| n).sum()
            } else {
                g.perft(&s, depth)
            };
            toss_cli::fault_check(&g)?;
            outln!("{total}");
            Ok(false)
        }
        Some("solve") => {
            let text = |flag: &str| {
                args.iter()
                    .position(|a| a == flag)
                    .and_then(|i| args.get(i + 1))
                    .cloned()
            };
            let moves: Vec<String> = text("--moves")
                .map(|m| m.split(',').map(|m| m.trim().to_string()).collect())
                .unwrap_or_default();
            let memory = toss_cli::solve::parse_bytes(&text("--memory").unwrap_or("2G".into()))?;
            let time = match text("--time") {
                Some(t) => Some(
                    t.parse::<f64>()
                        .ok()
                        .filter(|t| *t > 0.0 && *t < 1e9)
                        .ok_or("--time needs a positive number of seconds")?,
                ),
                None => None,
            };
            let table = text("--table").map(std::path::PathBuf::from);
            let layers = match text("--layers") {
                Some(n) => Some(n.parse().map_err(|_| "--layers needs a number")?),
                None => None,
            };
            let depth = option(args, "--depth", 1000u32)?.max(1);
            let run = toss_cli::solve::Run {
                moves: &moves,
                depth,
                memory,
                time,
                retrograde: args.iter().any(|a| a == "--retrograde"),
                table: table.as_deref(),
                layers,
                game_id: toss_cli::solve::description_id(include_bytes!("../GAME_FILE"), "generated"),
            };
            toss_cli::solve::run(&g, &run, &mut PipeStdout)?;
            toss_cli::fault_check(&g)?;
            Ok(false)
        }
        _ => Err(USAGE.to_string()),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--help" | "-h" | "help") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some("play" | "playout" | "perft" | "solve") => {}
        // A bad command line, as clap reports one: status 2.
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    }
    match run(&args) {
        Ok(true) => ExitCode::from(toss_cli::LIMIT_STATUS),
        Ok(false) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
"#;

/// A package name made of the game file's stem: `game-` and lower-case
/// letters, digits and `-` (a crate name starts with a letter; `game-`
/// also keeps it from naming one of the workspace's crates, `toss.toss`).
fn package_name(stem: &str) -> String {
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("game-{name}")
}

/// The target directory the workspace's release build went to:
/// `CARGO_TARGET_DIR` if set, else the one this program was built in
/// (`<target>/release/toss`), else `<workspace>/target`.
fn workspace_target_dir(workspace: &Path) -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir);
    }
    let built_in = std::env::current_exe().ok().and_then(|exe| {
        let profile_dir = exe.parent()?;
        let target = profile_dir.parent()?;
        (profile_dir.file_name()? == "release" && target.join("CACHEDIR.TAG").exists())
            .then(|| target.to_path_buf())
    });
    built_in.unwrap_or_else(|| workspace.join("target"))
}

/// `toss build FILE [-o PATH]`: a standalone release binary running the
/// game's generated code, built by Cargo from a crate under
/// `<target>/toss-build/crates` into the workspace's target directory,
/// reusing the dependencies its release build compiled.
pub fn build(
    path: &Path,
    output: Option<&Path>,
    via_toss: bool,
    colour: bool,
) -> Result<(), String> {
    // The game file is copied beside the crate; its errors are shown here
    // first, as `toss check` shows them, rather than by the derive. With
    // `via_toss`, a GDL game is built from its translation.
    let (source, game_file, attribute) = if toss_cli::load::is_gdl(path) && !via_toss {
        toss_cli::load::load_gdl(path, colour).map_err(|e| e.rendered)?;
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        (text, "game.kif", "gdl = \"game.kif\"")
    } else {
        let (game, source) =
            load_toss_only(path, "build", via_toss, colour).map_err(|e| e.rendered)?;
        toss::Interpreter::new(&game).map_err(|e| format!("{}: {e}", path.display()))?;
        (source, "game.toss", "file = \"game.toss\"")
    };
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{}: no file name", path.display()))?;
    let name = package_name(stem);
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = workspace_target_dir(workspace);
    let crate_dir = target_dir.join("toss-build").join("crates").join(&name);
    let src_dir = crate_dir.join("src");
    let io = |what: &str, p: &Path, e: std::io::Error| format!("{what} {}: {e}", p.display());
    std::fs::create_dir_all(&src_dir).map_err(|e| io("cannot create", &src_dir, e))?;
    // A Cargo manifest too, so that the crate also builds on its own
    // (`cargo build --release --manifest-path ...`, from scratch).
    let manifest = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\ntoss = {{ path = {:?} }}\ntoss-cli = {{ path = {:?} }}\n\n\
         [profile.release]\ncodegen-units = 1\n\n\
         # Not a member of the toss workspace.\n[workspace]\n",
        // The game through the facade; the terminal play, playouts and
        // perft of the binary's subcommands from the CLI's library.
        workspace.join("crates").join("toss").display().to_string(),
        workspace.display().to_string(),
    );
    // Write only what changed: an unchanged crate is not compiled again.
    let write = |p: PathBuf, text: &str| -> Result<(), String> {
        if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
            std::fs::write(&p, text).map_err(|e| io("cannot write", &p, e))?;
        }
        Ok(())
    };
    write(crate_dir.join("Cargo.toml"), &manifest)?;
    write(crate_dir.join(game_file), &source)?;
    let main = BUILD_MAIN
        .replace("NAME", stem)
        .replace("file = \"game.toss\"", attribute)
        .replace("GAME_FILE", game_file);
    write(src_dir.join("main.rs"), &main)?;
    let libs = workspace_libraries(workspace, &target_dir)?;
    let built = crate_dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let dep_info = crate_dir.join(format!("{name}.d"));
    if is_fresh(&built, &dep_info, &[&libs.facade, &libs.cli]) {
        eprintln!("{} is up to date", built.display());
    } else {
        eprintln!("compiling {} ({})", path.display(), crate_dir.display());
        let started = std::time::Instant::now();
        let mut rustc =
            std::process::Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()));
        // The workspace's directory, for its rust-toolchain.toml: the
        // libraries were compiled by that rustc, and no other reads them.
        rustc.current_dir(workspace);
        rustc
            .args(["--edition", "2024", "--crate-type", "bin", "--crate-name"])
            .arg(name.replace('-', "_"))
            .args(["-C", "opt-level=3", "-C", "codegen-units=1"])
            .args(["-C", "debuginfo=line-tables-only"])
            .arg(format!(
                "--emit=link={},dep-info={}",
                built.display(),
                dep_info.display()
            ))
            .arg("-L")
            .arg(format!("dependency={}", libs.deps.display()))
            .arg("--extern")
            .arg(format!("toss={}", libs.facade.display()))
            .arg("--extern")
            .arg(format!("toss_cli={}", libs.cli.display()))
            .args(rustflags())
            .arg(src_dir.join("main.rs"))
            // The derive reads the game file beside the crate's manifest.
            .env("CARGO_MANIFEST_DIR", &crate_dir);
        let status = rustc
            .status()
            .map_err(|e| format!("cannot run rustc: {e}"))?;
        if !status.success() {
            return Err(format!("rustc failed for {}", path.display()));
        }
        eprintln!("compiled in {:.1} s", started.elapsed().as_secs_f64());
    }
    let out = match output {
        Some(p) => p.to_path_buf(),
        None => PathBuf::from(format!("{stem}{}", std::env::consts::EXE_SUFFIX)),
    };
    std::fs::copy(&built, &out)
        .map_err(|e| format!("cannot copy {} to {}: {e}", built.display(), out.display()))?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// The compiled libraries a built game links: the facade `toss`, the CLI's
/// library and the directory of their dependencies.
struct Libraries {
    facade: PathBuf,
    cli: PathBuf,
    deps: PathBuf,
}

/// Builds (or finds up to date) the workspace's release libraries `toss`
/// and `toss-cli` with Cargo. A game is then one rustc call against them:
/// its crate as a Cargo package of its own would compile every crate of
/// the workspace again (Cargo tells a path dependency's artifacts apart
/// by the workspace that builds it), minutes instead of seconds.
fn workspace_libraries(workspace: &Path, target_dir: &Path) -> Result<Libraries, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = std::process::Command::new(cargo)
        .current_dir(workspace)
        .args([
            "build",
            "--release",
            "--lib",
            "-p",
            "toss",
            "-p",
            "toss-cli",
        ])
        .arg("--manifest-path")
        .arg(workspace.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target_dir)
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("cargo could not build the workspace's libraries toss and toss-cli".into());
    }
    // Cargo copies the libraries of the packages it was asked for here.
    let release = target_dir.join("release");
    Ok(Libraries {
        facade: release.join("libtoss.rlib"),
        cli: release.join("libtoss_cli.rlib"),
        deps: release.join("deps"),
    })
}

/// `RUSTFLAGS` as Cargo reads them (`CARGO_ENCODED_RUSTFLAGS` first): the
/// libraries were compiled with them, and so is the game.
fn rustflags() -> Vec<String> {
    if let Ok(encoded) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        return encoded
            .split('\x1f')
            .filter(|f| !f.is_empty())
            .map(String::from)
            .collect();
    }
    std::env::var("RUSTFLAGS")
        .map(|f| f.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// Whether `built` is newer than every file its last compilation read:
/// those rustc's dep-info lists (the source, the game file) and `libs`
/// (which stable rustc's dep-info leaves out).
fn is_fresh(built: &Path, dep_info: &Path, libs: &[&Path]) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let (Some(at), Ok(info)) = (modified(built), std::fs::read_to_string(dep_info)) else {
        return false;
    };
    if !libs.iter().all(|l| modified(l).is_some_and(|m| m <= at)) {
        return false;
    }
    // The first rule, `target: inputs...`; a space in a path is `\ `.
    let Some(rule) = info.lines().find(|l| !l.trim().is_empty()) else {
        return false;
    };
    let Some((_, inputs)) = rule.split_once(": ") else {
        return false;
    };
    let inputs = inputs.replace("\\ ", "\u{0}");
    inputs.split_whitespace().all(|input| {
        let p = PathBuf::from(input.replace('\u{0}', " "));
        modified(&p).is_some_and(|m| m <= at)
    })
}

/// `toss synthesize FAMILY GAME`: the family, its values, the proven
/// period, the derived program; optionally the program checked against
/// the direct evaluation.
pub fn synthesize(
    family: &str,
    game: &str,
    play: Option<toss_synthesis::family::Play>,
    bound: u64,
    emit: &str,
    check: Option<u64>,
) -> Result<(), String> {
    use toss_synthesis::family::{Family, Octal, Play, Subtraction};
    use toss_synthesis::{Values, max_bound};
    let (prolog, rust) = match emit {
        "prolog" => (true, false),
        "rust" => (false, true),
        "both" => (true, true),
        "none" => (false, false),
        _ => {
            return Err(format!(
                "--emit takes prolog, rust, both or none, not `{emit}`"
            ));
        }
    };
    let family = match family {
        "subtraction" => Family::Subtraction(Subtraction::parse(
            game,
            play.unwrap_or(Play::EmptyTableWins),
        )?),
        "octal" => {
            if play.is_some() {
                return Err(
                    "--play is for subtraction games; octal games are under normal play".into(),
                );
            }
            Family::Octal(Octal::parse(game)?)
        }
        other => {
            return Err(format!(
                "unknown family `{other}`: subtraction (GAME a set of moves such as 1,2) or \
                 octal (GAME a code such as 0.77)"
            ));
        }
    };
    // Refused before any work, as the bound is.
    if let Some(n) = check
        && n > max_bound(&family)
    {
        return Err(format!(
            "--check {n} is above the limit {} for this family",
            max_bound(&family)
        ));
    }
    outln!("family: {family}");
    let s = toss_synthesis::synthesize(&family, bound).map_err(|e| e.to_string())?;
    let (a, p) = (s.preperiod(), s.period());
    let shown = (a + 2 * p).clamp(30, 120).min(s.computed());
    let more = if shown < s.computed() { " ..." } else { "" };
    match &s.values {
        Values::Answers(_) => outln!(
            "values (n = 0..{}; * already won, - lost, else the smallest winning move): {}{more}",
            shown - 1,
            s.values.prefix(shown)
        ),
        Values::Grundy(_) => outln!(
            "values (Grundy, n = 0..{}): {}{more}",
            shown - 1,
            s.values.prefix(shown)
        ),
    }
    outln!("computed: n = 0..={} (bound {bound})", s.computed() - 1);
    match s.outcome_preperiod {
        Some(o) => outln!(
            "period {p}, preperiod {a}: the automaton's cycle of {p} starts at n = {a} (the \
             answers repeat from n = {}, won/lost from n = {o}; a lost position is no state)",
            s.periodicity.preperiod
        ),
        None if a > 0 => outln!(
            "period {p}, preperiod {a} (last exception at n = {})",
            a - 1
        ),
        None => outln!("period {p}, preperiod 0 (periodic from n = 0)"),
    }
    let verified = match &s.values {
        Values::Answers(v) => s.periodicity.check(v),
        Values::Grundy(v) => s.periodicity.check(v),
    };
    outln!(
        "proof: {}; re-checked: {}",
        s.periodicity,
        if verified { "holds" } else { "FAILS" }
    );
    if !verified {
        return Err("the proof of the period does not check".into());
    }
    if let Some(n) = check {
        let r = toss_synthesis::check(&s, n)?;
        let what = match &s.family {
            Family::Subtraction(_) => "the original win/2",
            Family::Octal(_) => "the Grundy values by mex",
        };
        outln!(
            "check: the logic program (interpreted) and the Rust table answer as {what} for every \
             n <= {}; {} winning positions in 0..={}",
            r.upto,
            r.winning,
            r.upto
        );
    }
    if prolog {
        outln!();
        out!("{}", s.logic_program());
    }
    if rust {
        outln!();
        out!("{}", s.rust_program());
    }
    Ok(())
}

/// `toss plays FILE.toss [-n N] [--first-wins N] ... [--player SPEC]...`.
pub fn plays(
    path: &Path,
    req: &toss_cli::plays::Request,
    specs: &[PlayerSpec],
    teach: bool,
    output: Option<&Path>,
    via_toss: bool,
    colour: bool,
) -> Result<(), String> {
    if teach && req.games > 0 {
        return Err(
            "--teach chooses plays of the kinds asked for (--first-wins, --second-wins, \
                    --not-won, --illegal); -n is for plays as they come"
                .into(),
        );
    }
    let total = req.games + req.first_wins + req.second_wins + req.not_won + req.illegal;
    if total == 0 {
        return Err(
            "no plays asked for: give -n N, --first-wins, --second-wins, --not-won or --illegal"
                .into(),
        );
    }
    let (game, source) = load_toss_only(path, "plays", via_toss, colour).map_err(|e| e.rendered)?;
    let shown = path.display().to_string();
    let interp = toss_cli::load::build_interpreter(&game, &source, &shown)?;
    let specs: Vec<PlayerSpec> = match specs.len() {
        0 => vec!["random".parse::<PlayerSpec>()?; 2],
        2 => specs.to_vec(),
        n => return Err(format!("give one --player per player (2), not {n}")),
    };
    if let Some(s) = specs.iter().find(|s| s.kind == matches::Kind::Human) {
        return Err(format!("`{}`: plays are made by programs", s.text));
    }
    let bar = indicatif::ProgressBar::new(total);
    let mut seats = |seed: u64| {
        specs
            .iter()
            .enumerate()
            .map(|(i, spec)| matches::build(spec, &interp, &game, &interp, seed + i as u64))
            .collect::<Result<Vec<_>, String>>()
    };
    let plays = if teach {
        let limits = toss::heuristics::learn::Limits::default();
        toss_cli::plays::teach(&interp, &mut seats, req, &limits, &mut || bar.inc(1))
    } else {
        toss_cli::plays::make_plays(&interp, &mut seats, req, &mut || bar.inc(1))
    };
    bar.finish_and_clear();
    let text = toss::lang::plays::print_plays(&plays?);
    match output {
        Some(o) => std::fs::write(o, text).map_err(|e| format!("{}: {e}", o.display())),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}

/// `toss learn PLAYS... [--explain] [-o OUT]`.
pub fn learn(
    files: &[PathBuf],
    explain: bool,
    output: Option<&Path>,
    colour: bool,
) -> Result<(), String> {
    use toss::heuristics::learn::{Limits, learn_game};
    let mut all = toss_core::plays::Plays::default();
    // Errors of the learner name plays by their place in this list.
    let mut origin = Vec::new();
    for f in files {
        let source = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let plays = toss::lang::plays::parse_plays(&source).map_err(|ds| {
            toss::lang::render_diagnostics(&ds, &source, &f.display().to_string(), colour)
        })?;
        if all.players.is_empty() {
            all.players = plays.players;
        }
        for p in plays.plays {
            origin.push(f.display().to_string());
            all.plays.push(p);
        }
    }
    let learnt = learn_game(&all, &Limits::default()).map_err(|e| {
        let mut m = e.to_string();
        if files.len() > 1 {
            m.push_str(&format!(
                " (plays are numbered across {})",
                origin.join(", ")
            ));
        }
        m
    })?;
    let mut text = String::new();
    if explain {
        let f = toss::lang::print_formula;
        text.push_str(&format!(
            "// Learnt from {} plays in {:.3} s.\n",
            all.plays.len(),
            learnt.time.as_secs_f64()
        ));
        for note in &learnt.notes {
            text.push_str(&format!("// Note: {note}.\n"));
        }
        for c in &learnt.calls {
            text.push_str(&format!(
                "//\n// Distinguish, {}: {} positive, {} negative examples, {:.3} s.\n",
                c.what,
                c.positives,
                c.negatives,
                c.result.time.as_secs_f64()
            ));
            for a in &c.result.attempts {
                let outcome = match &a.outcome {
                    toss::heuristics::learn::Outcome::Separates => "separates".to_string(),
                    toss::heuristics::learn::Outcome::NotSeparated { positive } => {
                        format!("every type of positive {} is also negative", positive + 1)
                    }
                    toss::heuristics::learn::Outcome::Skipped(why) => format!("skipped: {why}"),
                };
                text.push_str(&format!(
                    "//   {}: {outcome} ({:.3} s)\n",
                    a.level,
                    a.time.as_secs_f64()
                ));
            }
            text.push_str(&format!(
                "//   before shortening: {}\n",
                f(&c.result.before)
            ));
            text.push_str(&format!(
                "//   after shortening:  {}\n",
                f(&c.result.formula)
            ));
        }
        text.push('\n');
    }
    text.push_str(&toss::lang::print_game(&learnt.game));
    match output {
        Some(o) => std::fs::write(o, text).map_err(|e| format!("{}: {e}", o.display())),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}
