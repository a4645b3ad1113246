//! Matches between players described by short specs, as `toss match` and
//! `toss play` take them: `random`, `uct:iters=2000`, `uct:time=0.5`,
//! `uct+heur:iters=2000`, `alphabeta:depth=4`, `solver:time=1`,
//! `solver:table=ttt.table`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::Arc;
use std::time::Duration;

use toss_core::game::{Game, rng_from_seed};
use toss_core::ir;
use toss_heuristics::{
    CompiledHeuristic, HeuristicConfig, HeuristicEval, HeuristicKind, Heuristics, PayoffMap, derive,
};
use toss_runtime::Interpreter;
use toss_search::alphabeta::AlphaBeta;
use toss_search::player::{Budget, Player, RandomPlayer};
use toss_search::solve::player::SolverPlayer;
use toss_search::solve::retro::RetroTable;
use toss_search::uct::{Parallelism, PlayoutPolicy, RandomPlayout, Uct, UctConfig};

use crate::Finish;
use crate::play::{Ending, play_over};

/// A parsed player spec.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerSpec {
    /// The text it was parsed from, used in tables and the result line.
    pub text: String,
    pub kind: Kind,
    pub budget: Budget,
    /// UCT exploration constant.
    pub c: Option<f64>,
    pub threads: usize,
    /// How the threads share a search.
    pub parallelism: Parallelism,
    pub heuristic: HeuristicKind,
    pub playout: Option<PlayoutPolicy>,
    /// E: evaluation plays in each new child (spec 3.1).
    pub evals: u32,
    /// E' (1 <= E' <= E): the visit count a new child starts with, the
    /// weight of its evaluation against the later plays through it.
    pub weight: u32,
    /// The heuristic h of a player becomes the payoff `tanh(h / scale)`.
    pub scale: Option<f64>,
    /// The solver's table bound in bytes.
    pub memory: usize,
    /// The solver's retrograde table file (`toss solve --retrograde
    /// --table FILE`).
    pub table: Option<std::path::PathBuf>,
    /// Identifies the description and engine a table must have been
    /// written for ([`crate::solve::description_id`]); set by the command
    /// that loads the game.
    pub description_id: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Human,
    Random,
    Uct,
    UctHeuristic,
    AlphaBeta,
    Solver,
}

impl std::str::FromStr for PlayerSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<PlayerSpec, String> {
        let (head, args) = text.split_once(':').unwrap_or((text, ""));
        let kind = match head {
            "human" => Kind::Human,
            "random" => Kind::Random,
            "uct" => Kind::Uct,
            "uct+heur" => Kind::UctHeuristic,
            "alphabeta" => Kind::AlphaBeta,
            "solver" => Kind::Solver,
            other => {
                return Err(format!(
                    "unknown player `{other}`: expected human, random, uct, uct+heur, alphabeta or solver"
                ));
            }
        };
        let mut spec = PlayerSpec {
            text: text.to_string(),
            kind,
            budget: match kind {
                Kind::AlphaBeta => Budget::Iterations(3),
                Kind::Solver => Budget::Time(Duration::from_secs(1)),
                _ => Budget::Iterations(1000),
            },
            c: None,
            threads: 1,
            parallelism: Parallelism::Tree,
            heuristic: HeuristicKind::Existential,
            playout: None,
            evals: 1,
            weight: 1,
            scale: None,
            memory: 1 << 30,
            table: None,
            description_id: 0,
        };
        for arg in args.split(',').filter(|a| !a.is_empty()) {
            let (key, value) = arg
                .split_once('=')
                .ok_or_else(|| format!("`{arg}` in `{text}`: expected key=value"))?;
            let number = || {
                value
                    .parse::<f64>()
                    .map_err(|_| format!("`{arg}`: `{value}` is not a number"))
            };
            let count = || {
                value
                    .parse::<u64>()
                    .map_err(|_| format!("`{arg}`: `{value}` is not a count"))
            };
            // A count in `range`, else "give ..." with `what`.
            let count_in = |range: std::ops::RangeInclusive<u64>, what: &str| {
                let n = count()?;
                if range.contains(&n) {
                    Ok(n)
                } else {
                    Err(format!("`{arg}`: give {what}"))
                }
            };
            match key {
                "iters" if matches!(kind, Kind::Uct | Kind::UctHeuristic) => {
                    spec.budget =
                        Budget::Iterations(count_in(1..=u64::MAX, "at least 1 iteration")?)
                }
                "depth" if kind == Kind::AlphaBeta => spec.budget = Budget::Iterations(count()?),
                "positions" if kind == Kind::Solver => {
                    spec.budget = Budget::Iterations(count_in(1..=u64::MAX, "at least 1 position")?)
                }
                "memory" if kind == Kind::Solver => spec.memory = crate::solve::parse_bytes(value)?,
                "table" if kind == Kind::Solver => spec.table = Some(value.into()),
                "time" if kind != Kind::Human && kind != Kind::Random => {
                    let t = number()?;
                    if !(t > 0.0 && t < 1e6) {
                        return Err(format!("`{arg}`: the time must be positive seconds"));
                    }
                    spec.budget = Budget::Time(Duration::from_secs_f64(t));
                }
                "c" if matches!(kind, Kind::Uct | Kind::UctHeuristic) => {
                    let c = number()?;
                    if !(c >= 0.0 && c.is_finite()) {
                        return Err(format!(
                            "`{arg}`: the exploration constant must be a number >= 0"
                        ));
                    }
                    spec.c = Some(c)
                }
                "threads" if matches!(kind, Kind::Uct | Kind::UctHeuristic) => {
                    spec.threads = count_in(1..=64, "1 to 64 threads")? as usize
                }
                "parallel" if matches!(kind, Kind::Uct | Kind::UctHeuristic) => {
                    spec.parallelism = match value {
                        "tree" => Parallelism::Tree,
                        "root" => Parallelism::Root,
                        _ => {
                            return Err(format!(
                                "`{arg}`: expected parallel=tree or parallel=root"
                            ));
                        }
                    }
                }
                "heur" if matches!(kind, Kind::UctHeuristic | Kind::AlphaBeta) => {
                    spec.heuristic = match value {
                        "existential" => HeuristicKind::Existential,
                        "rule" => HeuristicKind::RuleCondition,
                        _ => {
                            return Err(format!("`{arg}`: expected heur=existential or heur=rule"));
                        }
                    }
                }
                "evals" if matches!(kind, Kind::Uct | Kind::UctHeuristic) => {
                    spec.evals = count_in(1..=1 << 20, "1 to 1,048,576 evaluations")? as u32
                }
                "weight" if matches!(kind, Kind::Uct | Kind::UctHeuristic) => {
                    spec.weight = count()?.clamp(1, 1 << 20) as u32
                }
                "scale" if matches!(kind, Kind::UctHeuristic) => {
                    let x = number()?;
                    if !(x > 0.0 && x.is_finite()) {
                        return Err(format!("`{arg}`: the scale must be a positive number"));
                    }
                    spec.scale = Some(x);
                }
                "playout" if matches!(kind, Kind::Uct | Kind::UctHeuristic) => {
                    spec.playout = Some(match value {
                        "evaluate" => PlayoutPolicy::Evaluate,
                        "random" => PlayoutPolicy::Random,
                        "basic" => PlayoutPolicy::Basic,
                        _ => match (value.strip_prefix("cutoff"), value.strip_prefix("mix")) {
                            (Some(k), _) if k.parse::<u32>().is_ok_and(|k| k > 0) => {
                                PlayoutPolicy::Cutoff(k.parse().unwrap_or(1))
                            }
                            (_, Some(l))
                                if l.parse::<f64>().is_ok_and(|l| (0.0..=1.0).contains(&l)) =>
                            {
                                PlayoutPolicy::Mix(l.parse().unwrap_or(0.5))
                            }
                            _ => {
                                return Err(format!(
                                    "`{arg}`: expected playout=evaluate, random, basic, \
                                     cutoffK (K random turns, then the evaluation; K >= 1) or \
                                     mixL (L times the evaluation plus 1 - L times a random \
                                     playout; 0 <= L <= 1)"
                                ));
                            }
                        },
                    })
                }
                _ => return Err(format!("`{key}` is not an option of `{head}`")),
            }
        }
        if spec.weight > spec.evals {
            if text.contains("evals=") {
                return Err(format!(
                    "`{text}`: weight={} exceeds evals={}; spec 3.1 has 1 <= E' <= E",
                    spec.weight, spec.evals
                ));
            }
            // A deterministic evaluation repeated E times is the same
            // sample, so `weight=K` alone means E = E' = K.
            spec.evals = spec.weight;
        }
        Ok(spec)
    }
}

/// A player ready to play a game, with its own budget.
pub struct Seat<G: Game> {
    pub spec: PlayerSpec,
    pub player: Option<Box<dyn Player<G>>>,
}

/// Builds a player that works for any game (random or plain UCT); `None`
/// for a human. Heuristic players need a `.toss` game: see [`build`].
pub fn build_generic<G: Game + Sync + 'static>(
    spec: &PlayerSpec,
    g: &G,
    seed: u64,
) -> Result<Option<Box<dyn Player<G>>>, String>
where
    G::State: Send + Sync,
    G::Move: Send + Sync,
{
    let (lo, hi) = g.payoff_range();
    let config = UctConfig {
        c: spec.c.unwrap_or(UctConfig::default().c),
        delta: hi - lo,
        threads: spec.threads,
        parallelism: spec.parallelism,
        playout: spec.playout.unwrap_or(PlayoutPolicy::Random),
        evals: spec.evals,
        evals_weight: spec.weight,
        ..UctConfig::default()
    };
    Ok(match spec.kind {
        Kind::Human => None,
        Kind::Random => Some(Box::new(RandomPlayer::new(seed))),
        Kind::Uct => Some(Box::new(Uct::new(
            config,
            RandomPlayout { max_plies: 100_000 },
            seed,
        ))),
        Kind::Solver => Some(solver_player(spec, g, seed)?),
        Kind::UctHeuristic | Kind::AlphaBeta => {
            return Err(format!(
                "`{}` derives its heuristic from a .toss description; this game has none",
                spec.text
            ));
        }
    })
}

/// The solver player of `spec`, with its retrograde table read when it
/// names one.
pub fn solver_player<G: Game + 'static>(
    spec: &PlayerSpec,
    g: &G,
    seed: u64,
) -> Result<Box<dyn Player<G>>, String> {
    type Tables = std::collections::HashMap<(std::path::PathBuf, u64), Arc<RetroTable>>;
    // Seats are made afresh for every game of a match: a table is read once.
    static TABLES: std::sync::Mutex<Option<Tables>> = std::sync::Mutex::new(None);
    let mut player = SolverPlayer::new(spec.memory, seed);
    if let Some(path) = &spec.table {
        let mut tables = TABLES.lock().unwrap_or_else(|e| e.into_inner());
        let tables = tables.get_or_insert_with(Default::default);
        let key = (path.clone(), spec.description_id);
        let table = match tables.get(&key) {
            Some(t) => t.clone(),
            None => {
                let mut f =
                    std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
                let t = RetroTable::read(&mut f, spec.description_id, g.num_players())
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let t = Arc::new(t);
                tables.insert(key, t.clone());
                t
            }
        };
        player = player.with_table(table);
    }
    Ok(Box::new(player))
}

/// Builds the player a spec describes; `None` for a human (the caller reads
/// moves). Heuristic players use the heuristic compiled into `g` when it
/// has one (`#[toss(file = "...", heuristics)]`,
/// [`Game::heuristic_values`]); otherwise the heuristic is derived from
/// `game` (the description that `g` implements, interpreted as `interp` or
/// generated) and evaluated by the solver on the structures of `g`'s
/// states. Both give the same values.
pub fn build<G: Game + Sync + 'static>(
    spec: &PlayerSpec,
    g: &G,
    game: &ir::Game,
    interp: &Interpreter,
    seed: u64,
) -> Result<Seat<G>, String>
where
    G::State: Send + Sync,
    G::Move: Send + Sync,
{
    build_with(spec, g, game, interp, seed, None)
}

/// Whether the player of `spec` evaluates a heuristic derived from the
/// description, rather than one compiled into `g` (or none).
pub fn needs_derived_heuristic<G: Game>(spec: &PlayerSpec, g: &G) -> bool {
    matches!(spec.kind, Kind::UctHeuristic | Kind::AlphaBeta)
        && CompiledHeuristic::for_game(g, spec.heuristic).is_none()
}

/// The heuristic a `spec` player derives from `game` (spec 3.3-3.5).
pub fn derive_heuristic(spec: &PlayerSpec, game: &ir::Game) -> Heuristics {
    let cfg = HeuristicConfig {
        kind: spec.heuristic,
        ..HeuristicConfig::default()
    };
    derive(game, &cfg)
}

/// [`build`], given the heuristic [`derive_heuristic`] makes for `spec`
/// (`None`: derive it here when needed), so that a match derives it once
/// rather than for every game and seat (seconds for Breakthrough).
pub fn build_with<G: Game + Sync + 'static>(
    spec: &PlayerSpec,
    g: &G,
    game: &ir::Game,
    interp: &Interpreter,
    seed: u64,
    derived: Option<&Heuristics>,
) -> Result<Seat<G>, String>
where
    G::State: Send + Sync,
    G::Move: Send + Sync,
{
    let (lo, hi) = g.payoff_range();
    let map = PayoffMap {
        lo,
        hi,
        scale: spec.scale.unwrap_or(PayoffMap::default().scale),
    };
    let heuristic_eval = || {
        let derived_here;
        let h = match derived {
            Some(h) => h,
            None => {
                derived_here = derive_heuristic(spec, game);
                &derived_here
            }
        };
        let mut e = HeuristicEval::new(game, interp, h)
            .map_err(|e| format!("the derived heuristic does not compile: {e}"))?;
        e.map = map;
        Ok::<_, String>(e)
    };
    let uct_config = |default_playout| UctConfig {
        c: spec.c.unwrap_or(UctConfig::default().c),
        delta: hi - lo,
        threads: spec.threads,
        parallelism: spec.parallelism,
        playout: spec.playout.unwrap_or(default_playout),
        evals: spec.evals,
        evals_weight: spec.weight,
        ..UctConfig::default()
    };
    let compiled = CompiledHeuristic::for_game(g, spec.heuristic).map(|mut h| {
        h.map = map;
        h
    });
    let player: Option<Box<dyn Player<G>>> = match spec.kind {
        Kind::Human => None,
        Kind::Random => Some(Box::new(RandomPlayer::new(seed))),
        Kind::Uct => Some(Box::new(Uct::new(
            uct_config(PlayoutPolicy::Random),
            RandomPlayout { max_plies: 100_000 },
            seed,
        ))),
        Kind::UctHeuristic => match compiled {
            Some(h) => Some(Box::new(Uct::new(
                uct_config(PlayoutPolicy::Evaluate),
                h,
                seed,
            ))),
            None => Some(Box::new(Uct::new(
                uct_config(PlayoutPolicy::Evaluate),
                heuristic_eval()?,
                seed,
            ))),
        },
        Kind::Solver => Some(solver_player(spec, g, seed)?),
        Kind::AlphaBeta => {
            if let Some(loc) = simultaneous_location(game) {
                return Err(format!(
                    "`{}`: alpha-beta searches turn-based games, and location {loc} has \
                     simultaneous moves; use uct or uct+heur",
                    spec.text
                ));
            }
            match compiled {
                Some(h) => Some(Box::new(AlphaBeta::new(h, seed))),
                None => Some(Box::new(AlphaBeta::new(heuristic_eval()?, seed))),
            }
        }
    };
    Ok(Seat {
        spec: spec.clone(),
        player,
    })
}

/// A location where several players have moves, if any.
fn simultaneous_location(game: &ir::Game) -> Option<usize> {
    game.locations
        .iter()
        .find(|l| l.players.iter().filter(|p| !p.moves.is_empty()).count() > 1)
        .map(|l| l.id)
}

/// The joint move the seats' players choose in `s` (one move per mover, in
/// `movers` order), after which every player observes it; `None` when a
/// mover's seat has no program or its player gives no move.
pub fn choose_joint<G: Game>(
    g: &G,
    s: &G::State,
    seats: &mut [Seat<G>],
    movers: &[usize],
) -> Option<Vec<G::Move>> {
    let mut joint = Vec::with_capacity(movers.len());
    for (k, &p) in movers.iter().enumerate() {
        let seat = &mut seats[p];
        let player = seat.player.as_mut()?;
        joint.push(player.choose(g, s, seat.spec.budget).into_iter().nth(k)?);
    }
    for seat in seats.iter_mut() {
        if let Some(player) = seat.player.as_mut() {
            player.observe(g, s, &joint);
        }
    }
    Some(joint)
}

/// Plays one game: `seats[p]` plays game player `p`. After `max_plies`
/// joint moves a game that has not ended is cut: it has no payoffs.
pub fn play_one<G: Game>(g: &G, seats: &mut [Seat<G>], seed: u64, max_plies: usize) -> Ending {
    let mut rng = rng_from_seed(seed);
    let mut s = g.initial_state();
    let mut movers = Vec::new();
    let mut plies = 0;
    while plies < max_plies {
        g.movers(&s, &mut movers);
        if movers.is_empty() {
            break;
        }
        if movers.iter().any(|&p| seats[p].player.is_none()) {
            return Ending::Finished {
                payoffs: vec![0.0; g.num_players()],
                plies,
            };
        }
        let Some(joint) = choose_joint(g, &s, seats, &movers) else {
            break;
        };
        g.apply(&mut s, &joint, &mut rng);
        plies += 1;
    }
    if plies >= max_plies && !play_over(g, &s) {
        return Ending::Cut { plies };
    }
    let mut payoffs = vec![0.0; g.num_players()];
    g.payoffs(&s, &mut payoffs);
    Ending::Finished { payoffs, plies }
}

/// The progress line of one game of a match: its number, which spec
/// played which seat, the result and the plies, e.g.
/// `game 3/10: white uct+heur:iters=100, black uct:iters=100; black wins; 57 plies`,
/// or for a game stopped at the ply limit `...; cut at 500 plies`.
/// `specs_by_seat[p]` is the spec that played seat `p`.
pub fn game_line(
    number: u64,
    games: u64,
    seat_names: &[String],
    specs_by_seat: &[&str],
    ending: &Ending,
) -> String {
    let seats: Vec<String> = seat_names
        .iter()
        .zip(specs_by_seat)
        .map(|(name, spec)| format!("{name} {spec}"))
        .collect();
    let result = match ending {
        Ending::Cut { plies } => format!("cut at {plies} plies"),
        Ending::Quit { plies } => format!("stopped at {plies} plies"),
        Ending::Finished { payoffs, plies } => {
            let winner = match (0..payoffs.len()).find(|&p| outcome(payoffs, p).wins == 1) {
                Some(p) => format!("{} wins", seat_names[p]),
                None => "draw".to_string(),
            };
            format!("{winner}; {plies} plies")
        }
    };
    format!("game {number}/{games}: {}; {result}", seats.join(", "))
}

/// What a match plays: `games` games from `seed`.
#[derive(Clone, Copy, Debug)]
pub struct MatchPlan {
    pub games: u64,
    pub seed: u64,
    /// Rotate the seats every game.
    pub swap: bool,
    /// A game still going after this many joint moves is cut.
    pub max_plies: usize,
}

/// A match of `plan.games` games between programs, one spec per game
/// player (see [`MatchPlan`]). Shows a progress bar, prints one line
/// per game to stderr ([`game_line`]), then the table of wins, draws and
/// losses per spec and seat (of the games that finished), the number of
/// cut games, then a `result` line. [`Finish::Cut`] when a game was cut. `g`
/// implements the description `game` (interpreted as `interp`, or
/// generated). A heuristic the players derive is derived once, before the
/// first game (stderr says how long it took).
pub fn run_match<G: Game + Sync + 'static>(
    g: &G,
    game: &ir::Game,
    interp: &Interpreter,
    specs: &[PlayerSpec],
    plan: &MatchPlan,
) -> Result<Finish, String>
where
    G::State: Send + Sync,
    G::Move: Send + Sync,
{
    check_match(g, specs, plan.games)?;
    let mut derived: Vec<Option<Heuristics>> = Vec::with_capacity(specs.len());
    for spec in specs {
        if !needs_derived_heuristic(spec, g) {
            derived.push(None);
            continue;
        }
        // Specs of one heuristic kind share a derivation.
        let earlier = specs
            .iter()
            .zip(&derived)
            .find_map(|(s, h)| h.as_ref().filter(|_| s.heuristic == spec.heuristic));
        derived.push(Some(match earlier {
            Some(h) => h.clone(),
            None => {
                let start = std::time::Instant::now();
                let h = derive_heuristic(spec, game);
                eprintln!(
                    "{}: heuristic derived in {:.2} s",
                    spec.text,
                    start.elapsed().as_secs_f64()
                );
                h
            }
        }));
    }
    play_match(g, specs, plan, |k, seed| {
        build_with(&specs[k], g, game, interp, seed, derived[k].as_ref())
    })
}

/// [`run_match`] for a game without a Toss description (a GDL game):
/// random and UCT players only, since the others derive their heuristic
/// from the description.
pub fn run_match_generic<G: Game + Sync + 'static>(
    g: &G,
    specs: &[PlayerSpec],
    plan: &MatchPlan,
) -> Result<Finish, String>
where
    G::State: Send + Sync,
    G::Move: Send + Sync,
{
    check_match(g, specs, plan.games)?;
    for spec in specs {
        build_generic::<G>(spec, g, 0)?;
    }
    play_match(g, specs, plan, |k, seed| {
        Ok(Seat {
            spec: specs[k].clone(),
            player: build_generic(&specs[k], g, seed)?,
        })
    })
}

/// Refuses a match that cannot be played: the wrong number of specs, a
/// human, no games.
fn check_match<G: Game>(g: &G, specs: &[PlayerSpec], games: u64) -> Result<(), String> {
    let n = g.num_players();
    if specs.len() != n {
        return Err(format!(
            "the game has {n} players: give --player once for each"
        ));
    }
    if specs.iter().any(|s| s.kind == Kind::Human) {
        return Err("a match is between programs: use `toss play` to play yourself".into());
    }
    if games == 0 {
        return Err("-n 0: a match needs at least one game (-n 1 or more)".into());
    }
    Ok(())
}

/// Plays the games of a match with seats from `seat(k, seed)` for spec `k`
/// and prints the results (see [`run_match`]).
fn play_match<G: Game>(
    g: &G,
    specs: &[PlayerSpec],
    plan: &MatchPlan,
    mut seat: impl FnMut(usize, u64) -> Result<Seat<G>, String>,
) -> Result<Finish, String> {
    let &MatchPlan {
        games,
        seed,
        swap,
        max_plies,
    } = plan;
    let n = g.num_players();
    // records[spec][seat]; a cut game has no result, so it is only counted.
    let mut records = vec![vec![Record::default(); n]; n];
    let mut cut = 0u64;
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
            seats.push(seat(k, game_seed.wrapping_add(97 * k as u64))?);
        }
        let ending = play_one(g, &mut seats, game_seed, max_plies);
        // A fault (a payoff not finite, a limit reached) leaves the payoffs
        // meaningless: no game of the match is scored from then on.
        if let Err(e) = crate::fault_check(g) {
            bar.finish_and_clear();
            return Err(format!("game {}: {e}", i + 1));
        }
        match &ending {
            Ending::Finished { payoffs, .. } => {
                for (k, &p) in seat_of_spec.iter().enumerate() {
                    records[k][p].add(outcome(payoffs, p));
                }
            }
            // Stopped before its end (a match is not stopped by a
            // person, but the ending is the same): no result either.
            Ending::Cut { .. } | Ending::Quit { .. } => cut += 1,
        }
        let by_seat: Vec<&str> = seats.iter().map(|s| s.spec.text.as_str()).collect();
        let mut line = game_line(i + 1, games, g.player_names(), &by_seat, &ending);
        for note in seats
            .iter()
            .filter_map(|s| s.player.as_ref().and_then(|p| p.summary()))
        {
            let _ = write!(line, " ({note})");
        }
        // Printed above the bar (and also when the bar is hidden because
        // stderr is not a terminal), so a long match shows its progress.
        bar.suspend(|| eprintln!("{line}"));
        let total: Record = records[0].iter().fold(Default::default(), |mut a, r| {
            a.add(*r);
            a
        });
        bar.set_message(format!("{}: {:.3}", specs[0].text, total.score()));
        bar.inc(1);
    }
    bar.finish_and_clear();
    let mut table = String::new();
    // Without a finished game there is no score: `-`, not 0.
    let score = |r: &Record, digits: usize| {
        if r.games() == 0 {
            "-".to_string()
        } else {
            format!("{:.digits$}", r.score())
        }
    };
    // Columns as wide as the longest player and seat names.
    let spec_width = specs
        .iter()
        .map(|s| s.text.chars().count())
        .chain([6])
        .max()
        .unwrap_or(6);
    let seat_width = g
        .player_names()
        .iter()
        .map(|n| n.chars().count())
        .chain([4])
        .max()
        .unwrap_or(4);
    let row = |t: &mut String, spec: &str, seat: &str, r: &Record| {
        let (lo, hi) = r.wilson95();
        let _ = writeln!(
            t,
            "{spec:<spec_width$} {seat:<seat_width$} {:>6} {:>6} {:>6} {:>7} {:>16}",
            r.wins,
            r.draws,
            r.losses,
            score(r, 3),
            format!("[{lo:.3}, {hi:.3}]")
        );
    };
    let _ = writeln!(
        table,
        "{:<spec_width$} {:<seat_width$} {:>6} {:>6} {:>6} {:>7} {:>16}",
        "player", "seat", "wins", "draws", "losses", "score", "95% ci (Wilson)"
    );
    let mut result = String::from("result");
    for (k, spec) in specs.iter().enumerate() {
        let mut total = Record::default();
        for (p, r) in records[k].iter().enumerate() {
            if r.games() == 0 {
                continue;
            }
            total.add(*r);
            row(&mut table, &spec.text, &g.player_names()[p], r);
        }
        row(&mut table, &spec.text, "all", &total);
        let _ = write!(result, " {} {}", spec.text, score(&total, 4));
    }
    // Only when it happened: most matches have no cut game.
    if cut > 0 {
        let _ = writeln!(
            table,
            "cut at {max_plies} plies (no result, not in the table): {cut} of {games} games"
        );
    }
    let mut out = crate::play::PipeStdout;
    writeln!(out, "{table}{result}")
        .map_err(|e| format!("cannot write to standard output: {e}"))?;
    Ok(if cut > 0 {
        Finish::Cut
    } else {
        Finish::Complete
    })
}

/// Wins, draws and losses of one spec in one seat.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Record {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
    /// (wins + draws / 2) / games.
    pub fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games().max(1) as f64
    }
    /// The 95% Wilson score interval of the score: the proportions p
    /// whose normal test does not reject the observed score s in n games,
    /// (s + z^2/2n +- z sqrt(s(1 - s)/n + z^2/4n^2)) / (1 + z^2/n) with
    /// z = 1.96, draws counting as half a win. Unlike the normal
    /// approximation it is not empty at scores 0 and 1, and it stays in
    /// [0, 1]. `(0, 1)` without games.
    pub fn wilson95(&self) -> (f64, f64) {
        let n = self.games() as f64;
        if n == 0.0 {
            return (0.0, 1.0);
        }
        const Z: f64 = 1.96;
        let s = self.score();
        let z2n = Z * Z / n;
        let centre = (s + z2n / 2.0) / (1.0 + z2n);
        let half = Z * (s * (1.0 - s) / n + z2n / (4.0 * n)).sqrt() / (1.0 + z2n);
        ((centre - half).max(0.0), (centre + half).min(1.0))
    }
    pub fn add(&mut self, other: Record) {
        self.wins += other.wins;
        self.draws += other.draws;
        self.losses += other.losses;
    }
}

/// Win, draw or loss of player `p`: more payoff than every other player is
/// a win, less than some other a loss, otherwise a draw.
pub fn outcome(payoffs: &[f64], p: usize) -> Record {
    let mine = payoffs[p];
    let others = payoffs
        .iter()
        .enumerate()
        .filter(|&(q, _)| q != p)
        .map(|(_, &v)| v);
    let best_other = others.fold(f64::NEG_INFINITY, f64::max);
    if mine > best_other {
        Record {
            wins: 1,
            ..Record::default()
        }
    } else if mine < best_other {
        Record {
            losses: 1,
            ..Record::default()
        }
    } else {
        Record {
            draws: 1,
            ..Record::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_of_nothing_are_refused_like_a_time_of_zero() {
        for (text, why) in [
            ("uct:time=0", "the time must be positive"),
            ("uct:iters=0", "at least 1 iteration"),
            ("uct:threads=0", "1 to 64 threads"),
            ("uct:threads=65", "1 to 64 threads"),
            ("uct:evals=0", "1 to 1,048,576 evaluations"),
            ("solver:positions=0", "at least 1 position"),
        ] {
            let e = text.parse::<PlayerSpec>().err().unwrap_or_default();
            assert!(e.contains(why), "{text}: {e}");
        }
        assert!("uct:iters=1,threads=64".parse::<PlayerSpec>().is_ok());
    }

    #[test]
    fn a_game_line_names_the_seats_the_winner_and_the_plies() {
        let names = ["white".to_string(), "black".to_string()];
        assert_eq!(
            game_line(
                3,
                10,
                &names,
                &["uct:iters=5", "random"],
                &Ending::Finished {
                    payoffs: vec![-1.0, 1.0],
                    plies: 57
                }
            ),
            "game 3/10: white uct:iters=5, black random; black wins; 57 plies"
        );
        assert_eq!(
            game_line(
                1,
                1,
                &names,
                &["random", "random"],
                &Ending::Finished {
                    payoffs: vec![0.0, 0.0],
                    plies: 9
                }
            ),
            "game 1/1: white random, black random; draw; 9 plies"
        );
        // A cut game names no winner, even where the payoffs would.
        assert_eq!(
            game_line(
                2,
                2,
                &names,
                &["random", "random"],
                &Ending::Cut { plies: 50 }
            ),
            "game 2/2: white random, black random; cut at 50 plies"
        );
    }

    /// Wilson intervals against values worked out by hand with z = 1.96
    /// (z^2 = 3.8416): for 10 wins of 10, z^2/n = 0.38416, the centre is
    /// (1 + 0.19208) / 1.38416 = 0.86123 and the half-width 1.96 *
    /// sqrt(0.009604) / 1.38416 = 0.13877.
    #[test]
    fn wilson_intervals_match_hand_computed_values() {
        let r = |wins, draws, losses| Record {
            wins,
            draws,
            losses,
        };
        for (record, lo, hi) in [
            (r(10, 0, 0), 0.72246, 1.0),
            (r(0, 0, 10), 0.0, 0.27754),
            // Score 0.4: draws count as half a win.
            (r(3, 2, 5), 0.16818, 0.68733),
            (r(0, 1, 0), 0.05462, 0.94538),
            (r(15, 0, 5), 0.53129, 0.88814),
        ] {
            let (l, h) = record.wilson95();
            assert!(
                (l - lo).abs() < 1e-5 && (h - hi).abs() < 1e-5,
                "{record:?}: ({l}, {h}), expected ({lo}, {hi})"
            );
            assert!(l <= record.score() && record.score() <= h);
        }
        assert_eq!(Record::default().wilson95(), (0.0, 1.0));
    }

    #[test]
    fn threads_share_one_tree_unless_told_otherwise() {
        let spec: PlayerSpec = "uct:time=0.1,threads=2".parse().expect("parses");
        assert_eq!((spec.threads, spec.parallelism), (2, Parallelism::Tree));
        let spec: PlayerSpec = "uct+heur:threads=2,parallel=root".parse().expect("parses");
        assert_eq!((spec.threads, spec.parallelism), (2, Parallelism::Root));
        let err = "uct:parallel=leaf".parse::<PlayerSpec>().unwrap_err();
        assert!(err.contains("parallel=tree or parallel=root"), "{err}");
        let err = "random:parallel=root".parse::<PlayerSpec>().unwrap_err();
        assert!(err.contains("not an option"), "{err}");
    }

    #[test]
    fn mix_playouts_parse_with_their_weight() {
        let spec: PlayerSpec = "uct+heur:time=0.05,playout=mix0.25"
            .parse()
            .expect("parses");
        assert_eq!(spec.playout, Some(PlayoutPolicy::Mix(0.25)));
        let spec: PlayerSpec = "uct+heur:playout=mix1".parse().expect("parses");
        assert_eq!(spec.playout, Some(PlayoutPolicy::Mix(1.0)));
        for bad in ["mix", "mix1.5", "mix-0.1", "mixnan", "mixed"] {
            let err = format!("uct+heur:playout={bad}")
                .parse::<PlayerSpec>()
                .expect_err(bad);
            assert!(err.contains("0 <= L <= 1"), "{bad}: {err}");
        }
    }
}
