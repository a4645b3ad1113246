//! Differential tests of the compiled heuristics: for the games derived
//! with `#[toss(file = "...", heuristics)]`, the heuristic values the
//! generated code computes equal (to 1e-9 relative) those of the solver on
//! the same derived terms (`HeuristicEval`, on the state's structure), in
//! every state of seeded random playouts; and the players built from either
//! choose the same moves. Chess is left out: deriving its heuristic takes
//! minutes (see the README).

use toss::Game;
use toss::heuristics::{CompiledHeuristic, HeuristicConfig, HeuristicEval, HeuristicKind, derive};
use toss::search::alphabeta::AlphaBeta;
use toss::search::player::{Budget, Player};

/// The solver's evaluation of the derived heuristic of a game file (`file`
/// relative to the repository root), as `toss match` builds it.
fn solver_eval(file: &str) -> HeuristicEval {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("game file");
    let game = toss::lang::parse_game(&source, file).expect("valid game");
    let interp = toss::Interpreter::new(&game).expect("the game loads");
    let h = derive(&game, &HeuristicConfig::default());
    HeuristicEval::new(&game, &interp, &h).expect("the heuristic compiles")
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Compares the two evaluations in every state of `playouts` seeded random
/// playouts; returns the number of states where some value is non-zero
/// (so that a test cannot pass on heuristics that are all zero).
fn agrees<G: Game>(g: &G, file: &str, playouts: u64, max_plies: usize) -> usize {
    let eval = solver_eval(file);
    let n = g.num_players();
    let (mut compiled, mut solved) = (vec![0.0; n], vec![0.0; n]);
    let (mut movers, mut moves) = (Vec::new(), Vec::new());
    let mut nonzero = 0;
    for seed in 0..playouts {
        let mut rng = toss::rng_from_seed(seed);
        let mut s = g.initial_state();
        for ply in 0..=max_plies {
            assert!(
                g.heuristic_values(&s, HeuristicKind::Existential, &mut compiled),
                "{file}: no compiled heuristic"
            );
            eval.values_in(&g.to_structure(&s), g.location(&s), &mut solved);
            for p in 0..n {
                assert!(
                    close(compiled[p], solved[p]),
                    "{file} seed {seed} ply {ply} player {p}: compiled {} solver {}",
                    compiled[p],
                    solved[p]
                );
            }
            if compiled.iter().any(|&v| v != 0.0) {
                nonzero += 1;
            }
            g.movers(&s, &mut movers);
            if movers.is_empty() || ply == max_plies {
                break;
            }
            let mut joint = Vec::new();
            for &p in &movers {
                g.legal_moves(&s, p, &mut moves);
                let i = toss::game::index_below(&mut rng, moves.len());
                joint.push(moves.swap_remove(i));
            }
            g.apply(&mut s, &joint, &mut rng);
        }
    }
    nonzero
}

macro_rules! compiled_heuristic {
    ($test:ident, $ty:ident, $path:literal, $playouts:literal, $plies:literal) => {
        #[derive(toss::Game)]
        #[toss(file = $path, heuristics)]
        struct $ty;

        #[test]
        fn $test() {
            let nonzero = agrees(&$ty, $path, $playouts, $plies);
            assert!(nonzero > 0, "{}: the heuristic is zero everywhere", $path);
            // Only the existential heuristic is compiled.
            let mut out = vec![0.0; $ty.num_players()];
            let s = $ty.initial_state();
            assert!(!$ty.heuristic_values(&s, HeuristicKind::RuleCondition, &mut out));
        }
    };
}

compiled_heuristic!(tic_tac_toe, TicTacToe, "games/tic-tac-toe.toss", 100, 9);
compiled_heuristic!(
    breakthrough,
    Breakthrough,
    "games/breakthrough.toss",
    20,
    200
);
compiled_heuristic!(connect4, Connect4, "games/connect4.toss", 50, 42);
compiled_heuristic!(gomoku, Gomoku, "games/gomoku.toss", 10, 100);
compiled_heuristic!(hex, Hex, "games/hex.toss", 20, 121);
compiled_heuristic!(dice, Dice, "games/dice.toss", 50, 200);
compiled_heuristic!(
    concurrent_tic_tac_toe,
    ConcurrentTicTacToe,
    "games/concurrent-tic-tac-toe.toss",
    50,
    9
);
compiled_heuristic!(
    english_draughts,
    EnglishDraughts,
    "games/english-draughts.toss",
    5,
    60
);
// A heuristic with a part outside the fragment (a payoff that divides):
// that part is evaluated by the solver from its embedded text.
compiled_heuristic!(
    partially_specialized,
    Partial,
    "crates/toss-codegen/tests/fixtures/partial.toss",
    50,
    20
);

#[derive(toss::Game)]
#[toss(file = "games/tic-tac-toe.toss")]
struct TicTacToePlain;

/// Players find the compiled heuristic through the `Game` trait: only
/// games derived with `heuristics` have one.
#[test]
fn compiled_heuristic_only_when_asked_for() {
    assert!(CompiledHeuristic::for_game(&TicTacToe, HeuristicKind::Existential).is_some());
    assert!(CompiledHeuristic::for_game(&TicTacToe, HeuristicKind::RuleCondition).is_none());
    assert!(CompiledHeuristic::for_game(&TicTacToePlain, HeuristicKind::Existential).is_none());
    let interp = toss::interpret(TicTacToe::SOURCE, "tic-tac-toe.toss").expect("valid game");
    assert!(CompiledHeuristic::for_game(&interp, HeuristicKind::Existential).is_none());
}

/// Alpha-beta with the compiled heuristic and with the solver's choose the
/// same moves, with the same seed, along a Connect Four game.
#[test]
fn alphabeta_chooses_alike() {
    let file = "games/connect4.toss";
    let compiled = CompiledHeuristic::for_game(&Connect4, HeuristicKind::Existential)
        .expect("a compiled heuristic");
    let mut a = AlphaBeta::new(compiled, 11);
    let mut b = AlphaBeta::new(solver_eval(file), 11);
    let g = Connect4;
    let mut s = g.initial_state();
    let mut rng = toss::rng_from_seed(3);
    let mut plies = 0;
    while !g.is_terminal(&s) && plies < 12 {
        let ma = a.choose(&g, &s, Budget::Iterations(3));
        let mb = b.choose(&g, &s, Budget::Iterations(3));
        assert_eq!(ma, mb, "ply {plies}");
        g.apply(&mut s, &ma, &mut rng);
        plies += 1;
    }
    assert_eq!(plies, 12);
}
