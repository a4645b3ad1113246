//! The exact solver and retrograde analysis against known game values and
//! counts: tic-tac-toe (a draw; 5,478 reachable positions; 255,168
//! complete games), Connect Four on small boards solved two independent
//! ways, the positions after n plies of 7x6 Connect Four (OEIS A212693),
//! chance and simultaneous moves against hand-worked values.

use std::sync::Arc;

use toss::gdl::ground::{GroundGame, GroundLimits};
use toss::search::player::{Budget, Player, RandomPlayer, play_match};
use toss::search::solve::player::SolverPlayer;
use toss::search::solve::retro::{Graph, positions_by_plies};
use toss::search::solve::{Limits, Method, Solver, Stopped};
use toss::search::uct::{RandomPlayout, Uct, UctConfig};
use toss::{Game, Interpreter};

fn source(name: &str) -> String {
    let path = format!("{}/games/{name}.toss", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn interpret(text: &str, name: &str) -> Interpreter {
    toss::interpret(text, name).unwrap_or_else(|e| panic!("{e}"))
}

/// Connect Four with `columns` x `rows` cells: the rules of
/// `games/connect4.toss` with its board literal replaced.
fn connect4(columns: usize, rows: usize) -> Interpreter {
    let text = source("connect4");
    let start = text.find("START").expect("a START");
    let row = vec!["."; columns].join(" ");
    let board = vec![format!("  {row}"); rows].join("\n");
    let game = format!(
        "{}START [ | P:1 {{}}; Q:1 {{}} | ] \"\n{board}\n\"\n",
        &text[..start]
    );
    interpret(&game, &format!("connect4-{columns}x{rows}.toss"))
}

#[test]
fn tic_tac_toe_is_a_draw() {
    let g = interpret(&source("tic-tac-toe"), "tic-tac-toe.toss");
    let mut solver = Solver::new(Limits::default());
    let sol = solver.solve(&g, &g.initial_state()).expect("solvable");
    assert_eq!(sol.values, vec![(0.0, 0.0), (0.0, 0.0)], "{sol:?}");
    assert_eq!(sol.method, Method::ConstantSum { sum: Some(0.0) });
    assert_eq!(sol.stopped, None);
    // Every first move draws with perfect play.
    assert_eq!(sol.best_moves().len(), 9, "{sol:?}");
}

#[test]
fn tic_tac_toe_has_5478_positions_and_255168_games() {
    let g = interpret(&source("tic-tac-toe"), "tic-tac-toe.toss");
    let graph = Graph::enumerate(&g, &g.initial_state(), 1 << 30, |_| {}).expect("enumerable");
    assert_eq!(graph.len(), 5478);
    assert_eq!(graph.complete_plays(), Some(255_168));
    let solved = graph.solve();
    assert_eq!(solved.unresolved(), 0);
    assert_eq!(solved.values[0].as_deref(), Some(&[0.0, 0.0][..]));
}

/// Solves Connect Four on a `c` x `r` board by search and by retrograde
/// analysis, and checks that both find the same value.
fn solver_and_retrograde_agree(c: usize, r: usize) {
    {
        let g = connect4(c, r);
        let s = g.initial_state();
        let mut solver = Solver::new(Limits::default());
        solver.value_moves = false;
        let sol = solver.solve(&g, &s).expect("solvable");
        let graph = Graph::enumerate(&g, &s, 4 << 30, |_| {}).expect("enumerable");
        let retro = graph.solve();
        assert_eq!(retro.unresolved(), 0);
        let v = retro.values[0].clone().expect("resolved");
        assert_eq!(sol.values[0], (v[0], v[0]), "{c}x{r}: {sol:?}");
        eprintln!("{c}x{r}: value {} ({} positions)", v[0], graph.len());
    }
}

#[test]
fn connect_four_4x4_solver_and_retrograde_agree() {
    solver_and_retrograde_agree(4, 4);
}

#[test]
#[ignore = "about 90 s: 3.9 million and 1.7 million positions"]
fn connect_four_5x4_and_4x5_solver_and_retrograde_agree() {
    solver_and_retrograde_agree(5, 4);
    solver_and_retrograde_agree(4, 5);
}

#[test]
fn connect_four_positions_after_n_plies_are_oeis_a212693() {
    let g = connect4(7, 6);
    let counts = positions_by_plies(&g, &g.initial_state(), 6, 1 << 30).expect("countable");
    assert_eq!(counts, [1, 7, 49, 238, 1120, 4263, 16422]);
}

#[test]
#[ignore = "about a minute: the 184,275 positions of ply 8"]
fn connect_four_positions_after_eight_plies_are_oeis_a212693() {
    let g = connect4(7, 6);
    let counts = positions_by_plies(&g, &g.initial_state(), 8, 1 << 30).expect("countable");
    assert_eq!(counts, [1, 7, 49, 238, 1120, 4263, 16422, 54859, 184275]);
}

#[test]
fn a_memory_bound_stops_the_search_with_what_was_reached() {
    let g = connect4(7, 6);
    let limits = Limits {
        memory_bytes: 200_000,
        ..Limits::default()
    };
    let mut solver = Solver::new(limits);
    let sol = solver
        .solve(&g, &g.initial_state())
        .expect("a bounded answer");
    assert_eq!(sol.stopped, Some(Stopped::Memory));
    assert!(sol.table_bytes <= 200_000);
    assert!(sol.positions > 0);
    let err = Graph::enumerate(&g, &g.initial_state(), 200_000, |_| {}).err();
    assert!(
        matches!(err, Some(toss::search::solve::retro::RetroError::Memory { positions }) if positions > 0),
    );
}

fn gdl(name: &str) -> (toss::gdl::GdlGame, GroundGame) {
    let source = toss_testkit::corpus::gdl_source(name);
    let desc = toss::gdl::kif::parse_gdl(&source, name).unwrap_or_else(|_| panic!("{name} parses"));
    let reasoner = toss::gdl::GdlGame::new(&desc).unwrap_or_else(|e| panic!("{name}: {e}"));
    let grounded = GroundGame::from_description(&desc, GroundLimits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (reasoner, grounded)
}

/// Solves the start of `g` with default limits.
fn solve<G: Game>(g: &G) -> toss::search::solve::Solution {
    let mut solver = Solver::new(Limits::default());
    let sol = solver.solve(g, &g.initial_state()).expect("solvable");
    assert_eq!(sol.stopped, None, "{sol:?}");
    sol
}

#[test]
fn gdl_games_have_their_known_values_on_both_engines() {
    // Tic-tac-toe is a draw; Chomp is a first-player win (strategy
    // stealing); Nim with heaps 1, 5, 4, 2 (nim-sum 2, not 0) is a
    // first-player win; Roshambo is symmetric, so worth half to each.
    for (name, value) in [
        ("ticTacToe.kif", [50.0, 50.0]),
        ("chomp.kif", [100.0, 0.0]),
        ("nim1.kif", [100.0, 0.0]),
        ("roshambo2.kif", [50.0, 50.0]),
    ] {
        let (reasoner, grounded) = gdl(name);
        for sol in [solve(&reasoner), solve(&grounded)] {
            let got: Vec<f64> = sol
                .values
                .iter()
                .map(|&(lo, hi)| {
                    assert_eq!(lo, hi, "{name}");
                    lo
                })
                .collect();
            assert_eq!(got, value, "{name}");
        }
    }
}

#[test]
fn a_general_sum_simultaneous_game_has_no_single_value() {
    let (reasoner, _) = gdl("gt_prisoner.kif");
    let mut solver = Solver::new(Limits::default());
    let err = solver.solve(&reasoner, &reasoner.initial_state()).err();
    assert_eq!(err, Some(toss::search::solve::SolveError::Simultaneous));
}

/// A gamble against a sure thing: `Gamble` wins (1) with probability 3/4
/// and loses (-1) with 1/4, worth 1/2; `Safe` is worth 0.
const GAMBLE: &str = r#"
PLAYERS a, b
RULE Gamble:
  [d | Die (d) | ] -> [d | Die (d) | ]
RULE Safe:
  [d | Die (d) | ] -> [d | Die (d) | ]
LOC 0 {
  PLAYER a {
    PAYOFF 0
    MOVES [Gamble -> 1 (p 0.75); 2 (p 0.25)]; [Safe -> 3]
  }
  PLAYER b { PAYOFF 0 }
}
LOC 1 { PLAYER a { PAYOFF 1 } PLAYER b { PAYOFF -1 } }
LOC 2 { PLAYER a { PAYOFF -1 } PLAYER b { PAYOFF 1 } }
LOC 3 { PLAYER a { PAYOFF 0 } PLAYER b { PAYOFF 0 } }
START [ d | Die (d) | ]
"#;

#[test]
fn chance_is_an_expectation() {
    let g = interpret(GAMBLE, "gamble.toss");
    let sol = solve(&g);
    assert_eq!(sol.values, vec![(0.5, 0.5), (-0.5, -0.5)]);
    assert_eq!(sol.best_moves(), vec![0]);
    let graph = Graph::enumerate(&g, &g.initial_state(), 1 << 20, |_| {}).expect("enumerable");
    assert_eq!(graph.solve().values[0].as_deref(), Some(&[0.5, -0.5][..]));
}

/// A player thinking with its own budget, whatever the match gives.
struct WithBudget<'a>(&'a mut dyn Player<Interpreter>, Budget);

impl Player<Interpreter> for WithBudget<'_> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn choose(
        &mut self,
        game: &Interpreter,
        state: &<Interpreter as Game>::State,
        _budget: Budget,
    ) -> Vec<<Interpreter as Game>::Move> {
        self.0.choose(game, state, self.1)
    }
}

/// Plays `games` games of tic-tac-toe between `a` and `b`, alternating
/// seats; returns the solver's losses.
fn losses(games: u64, mut make_solver: impl FnMut(u64) -> SolverPlayer, opponent: &str) -> u64 {
    let g = interpret(&source("tic-tac-toe"), "tic-tac-toe.toss");
    let mut lost = 0;
    for i in 0..games {
        let mut solver = make_solver(i);
        let mut other: Box<dyn Player<Interpreter>> = match opponent {
            "random" => Box::new(RandomPlayer::new(i)),
            _ => Box::new(Uct::new(
                UctConfig::default(),
                RandomPlayout { max_plies: 100 },
                i,
            )),
        };
        // UCT thinks 1,000 iterations; the solver may visit a million
        // positions (a search from the start visits about 30,000).
        let mut other = WithBudget(other.as_mut(), Budget::Iterations(1000));
        let seat = (i % 2) as usize;
        let mut players: [&mut dyn Player<Interpreter>; 2] = [&mut solver, &mut other];
        let controllers = if seat == 0 { [0, 1] } else { [1, 0] };
        let r = play_match(
            &g,
            &mut players,
            &controllers,
            Budget::Iterations(1_000_000),
            i,
            100,
        );
        if r.payoffs[seat] < 0.0 {
            lost += 1;
        }
        assert_eq!(solver.unproven, 0, "every move proven");
    }
    lost
}

#[test]
fn the_solver_player_never_loses_tic_tac_toe() {
    let g = interpret(&source("tic-tac-toe"), "tic-tac-toe.toss");
    let graph = Graph::enumerate(&g, &g.initial_state(), 1 << 30, |_| {}).expect("enumerable");
    let table = Arc::new(graph.table(&graph.solve(), 0));
    let with_table = |i| SolverPlayer::new(1 << 26, i).with_table(table.clone());
    assert_eq!(losses(100, with_table, "uct"), 0);
    assert_eq!(losses(100, with_table, "random"), 0);
    // Searching every move instead of reading the table.
    assert_eq!(losses(10, |i| SolverPlayer::new(1 << 26, i), "uct"), 0);
}

#[test]
#[ignore = "a few minutes: 1,000 games against each opponent"]
fn the_solver_player_never_loses_a_thousand_games() {
    let g = interpret(&source("tic-tac-toe"), "tic-tac-toe.toss");
    let graph = Graph::enumerate(&g, &g.initial_state(), 1 << 30, |_| {}).expect("enumerable");
    let table = Arc::new(graph.table(&graph.solve(), 0));
    let with_table = |i| SolverPlayer::new(1 << 26, i).with_table(table.clone());
    assert_eq!(losses(1000, with_table, "uct"), 0);
    assert_eq!(losses(1000, with_table, "random"), 0);
    assert_eq!(losses(1000, |i| SolverPlayer::new(1 << 26, i), "uct"), 0);
}

#[test]
fn the_dice_race_is_solved_alike_by_search_and_retrograde() {
    let g = interpret(&source("dice"), "dice.toss");
    let sol = solve(&g);
    let graph = Graph::enumerate(&g, &g.initial_state(), 1 << 30, |_| {}).expect("enumerable");
    let retro = graph.solve();
    assert_eq!(retro.unresolved(), 0);
    let v = retro.values[0].clone().expect("resolved");
    let (lo, hi) = sol.values[0];
    assert_eq!(lo, hi);
    assert!((lo - v[0]).abs() < 1e-12, "{lo} vs {}", v[0]);
    // The first to roll is ahead, but a roll can waste pips: not a sure win.
    assert!(lo > 0.0 && lo < 1.0, "{lo}");
}
