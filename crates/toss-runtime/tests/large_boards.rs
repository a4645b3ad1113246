//! Tic-tac-toe's rules (games/tic-tac-toe.toss) on a 60 x 60 board: the
//! stable defined relations (the diagonal neighbours `D1`, `D2` and the
//! lines `L`) are tabulated over 3,600 cells, and what the tables say is
//! checked, not how fast (`examples/load_speed.rs` times loading).

use toss_core::Game;
use toss_runtime::Interpreter;

/// games/tic-tac-toe.toss with an `n` x `n` board whose cells are `.`
/// except those given as (column, row from the top, mark).
fn tic_tac_toe(n: usize, marks: &[(usize, usize, char)]) -> String {
    let path = format!(
        "{}/../../games/tic-tac-toe.toss",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(&path).expect("games/tic-tac-toe.toss");
    let rules = &src[..src.find("START").expect("a START")];
    let mut board = String::new();
    for row in 0..n {
        board.push(' ');
        for col in 0..n {
            let mark = marks
                .iter()
                .find(|&&(c, r, _)| (c, r) == (col, row))
                .map_or('.', |&(_, _, m)| m);
            board.push(' ');
            board.push(mark);
        }
        board.push('\n');
    }
    format!("{rules}START [ | P:1 {{}}; Q:1 {{}} | ] \"\n{board}\"\n")
}

fn load(src: &str) -> Interpreter {
    let ir = toss_lang::parse_game(src, "tic-tac-toe-60.toss").expect("parses");
    Interpreter::new(&ir).expect("loads")
}

fn payoffs(g: &Interpreter) -> Vec<f64> {
    let mut out = vec![0.0; 2];
    g.payoffs(&g.initial_state(), &mut out);
    out
}

#[test]
fn every_cell_of_an_empty_60_by_60_board_is_a_move() {
    let g = load(&tic_tac_toe(60, &[]));
    let mut moves = Vec::new();
    g.legal_moves(&g.initial_state(), 0, &mut moves);
    assert_eq!(moves.len(), 60 * 60);
    g.legal_moves(&g.initial_state(), 1, &mut moves);
    assert!(moves.is_empty(), "oplayer moves second");
    assert_eq!(payoffs(&g), [0.0, 0.0]);
}

#[test]
fn lines_of_three_on_a_60_by_60_board_are_wins() {
    // Three in a row on each kind of line, far from the edges: a column,
    // a row, an up-right diagonal (D1), a down-right one (D2).
    let lines: [[(usize, usize); 3]; 4] = [
        [(30, 20), (30, 21), (30, 22)],
        [(40, 50), (41, 50), (42, 50)],
        [(10, 12), (11, 11), (12, 10)],
        [(55, 5), (56, 6), (57, 7)],
    ];
    for line in lines {
        let marks: Vec<_> = line.iter().map(|&(c, r)| (c, r, 'P')).collect();
        let g = load(&tic_tac_toe(60, &marks));
        assert_eq!(payoffs(&g), [1.0, -1.0], "P on {line:?}");
        let marks: Vec<_> = line.iter().map(|&(c, r)| (c, r, 'Q')).collect();
        let g = load(&tic_tac_toe(60, &marks));
        assert_eq!(payoffs(&g), [-1.0, 1.0], "Q on {line:?}");
        // The line is over: xplayer has no move.
        let mut moves = Vec::new();
        g.legal_moves(&g.initial_state(), 0, &mut moves);
        assert!(moves.is_empty(), "Q on {line:?}");
    }
    // Three marks with a gap, and three that bend, are no line.
    for marks in [
        [(5, 5, 'P'), (6, 6, 'P'), (8, 8, 'P')],
        [(5, 5, 'P'), (6, 6, 'P'), (7, 6, 'P')],
        // Not across the edge: the last column and the first.
        [(58, 3, 'P'), (59, 3, 'P'), (0, 4, 'P')],
    ] {
        let g = load(&tic_tac_toe(60, &marks));
        assert_eq!(payoffs(&g), [0.0, 0.0], "{marks:?}");
        let mut moves = Vec::new();
        g.legal_moves(&g.initial_state(), 0, &mut moves);
        assert_eq!(moves.len(), 60 * 60 - 3, "{marks:?}");
    }
}
