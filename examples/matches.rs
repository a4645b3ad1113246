//! `toss match` on the generated (`#[derive(Game)]`) implementations of the
//! benchmark games: the same players, seats, seeds and table, with the
//! moves, playouts, payoffs and derived heuristics of the compiled game
//! (`heuristics` in the attribute compiles the existential heuristic;
//! `heur=rule` players evaluate theirs with the solver on the structure of
//! each state):
//!
//! ```text
//! cargo run --release --example matches -- GAME --player SPEC --player SPEC \
//!     [-n GAMES] [--seed S] [--swap] [--max-plies M]
//! ```
//!
//! GAME is breakthrough, chess, connect4, gomoku or tic-tac-toe; SPEC as in
//! `toss match` (`uct:iters=1000`, `uct+heur:time=0.1`, ...).

use toss::Game;
use toss_cli::Finish;
use toss_cli::matches::{MatchPlan, PlayerSpec, run_match};

#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe.toss", heuristics)]
struct TicTacToe;
#[derive(toss::Game)]
#[toss(file = "games/connect4.toss", heuristics)]
struct Connect4;
#[derive(toss::Game)]
#[toss(file = "games/breakthrough.toss", heuristics)]
struct Breakthrough;
#[derive(toss::Game)]
#[toss(file = "games/gomoku.toss", heuristics)]
struct Gomoku;

#[derive(toss::Game)]
#[toss(file = "games/chess.toss", heuristics)]
struct Chess;

struct Args {
    specs: Vec<PlayerSpec>,
    plan: MatchPlan,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut a = Args {
        specs: Vec::new(),
        plan: MatchPlan {
            games: 10,
            seed: 0,
            swap: false,
            max_plies: toss_cli::DEFAULT_MAX_PLIES,
        },
    };
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--player" => a.specs.push(value()?.parse()?),
            "-n" => a.plan.games = value()?.parse().map_err(|e| format!("-n: {e}"))?,
            "--seed" => a.plan.seed = value()?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--swap" => a.plan.swap = true,
            "--max-plies" => {
                a.plan.max_plies = value()?.parse().map_err(|e| format!("--max-plies: {e}"))?
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn run<G: Game + Sync + 'static>(g: &G, name: &str, a: &Args) -> Result<Finish, String>
where
    G::State: Send + Sync,
    G::Move: Send + Sync,
{
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("games/{name}.toss"));
    let (game, _) = toss_cli::load::load_toss(&path, false).map_err(|e| e.rendered)?;
    let interp = toss::Interpreter::new(&game).map_err(|e| e.to_string())?;
    run_match(g, &game, &interp, &a.specs, &a.plan)
}

fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_default();
    let result = parse(args).and_then(|a| match name.as_str() {
        "tic-tac-toe" => run(&TicTacToe, &name, &a),
        "connect4" => run(&Connect4, &name, &a),
        "breakthrough" => run(&Breakthrough, &name, &a),
        "gomoku" => run(&Gomoku, &name, &a),
        "chess" => run(&Chess, &name, &a),
        other => Err(format!(
            "unknown game `{other}`: breakthrough, chess, connect4, gomoku or tic-tac-toe"
        )),
    });
    match result {
        Ok(Finish::Complete) => std::process::ExitCode::SUCCESS,
        // A game was cut at --max-plies (the table says how many).
        Ok(Finish::Cut) => std::process::ExitCode::from(toss_cli::LIMIT_STATUS),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
