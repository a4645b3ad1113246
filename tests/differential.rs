//! Differential tests: for every game in games/, the code `#[derive(Game)]`
//! generates and the interpreter of the same file play in lockstep over
//! seeded random playouts: the same movers, the same legal moves in the same
//! order, the same structure after every ply, the same payoffs; their
//! perft counts agree, and so do their random playouts for a seed. The
//! continuous games (bounce, throw, cat-and-mouse, pursuit) are compared in
//! tests/continuous.rs, within a tolerance on function values, with their
//! times and parameters drawn at random.

use toss::{Game, Interpreter, Structure};

const MAX_PLIES: usize = 400;

/// Structure equality, fast when both sides number elements alike and
/// share their stable relations; otherwise the name-based `==`.
fn same_structure(a: &Structure, b: &Structure) -> bool {
    let fast = a.id_bound() == b.id_bound()
        && a.num_relations() == b.num_relations()
        && a.num_functions() == b.num_functions()
        && (0..a.id_bound() as u32)
            .all(|e| a.is_live(e) == b.is_live(e) && a.element_name(e) == b.element_name(e))
        && (0..a.num_relations()).all(|r| a.relation_name(r) == b.relation_name(r));
    if !fast {
        return a == b;
    }
    let rels_equal =
        (0..a.num_relations()).all(|r| a.shares_relation(b, r) || a.tuples(r) == b.tuples(r));
    let funs_equal = (0..a.num_functions()).all(|f| {
        a.function_name(f) == b.function_name(f)
            && (0..a.id_bound() as u32)
                .all(|e| a.fun_value(f, e).to_bits() == b.fun_value(f, e).to_bits())
    });
    (rels_equal && funs_equal) || a == b
}

/// The interpreter of a game file, `file` relative to the repository root.
fn interpreter(file: &str) -> Interpreter {
    let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("game file");
    toss::interpret(&source, file).expect("valid game")
}

/// Plays `playouts` seeded random playouts of both engines in lockstep.
fn lockstep<G: Game>(g: &G, file: &str, playouts: u64) {
    let it = interpreter(file);
    assert_eq!(g.player_names(), it.player_names());
    assert_eq!(
        g.payoff_bounds(),
        it.payoff_bounds(),
        "{file}: payoff bounds"
    );
    let n = g.num_players();
    let (mut mg, mut mi) = (Vec::new(), Vec::new());
    let (mut lg, mut li) = (Vec::new(), Vec::new());
    let (mut pg, mut pi) = (vec![0.0; n], vec![0.0; n]);
    let mut total_plies = 0;
    for seed in 0..playouts {
        let mut choose = toss::rng_from_seed(seed);
        let mut rng_g = toss::rng_from_seed(seed ^ 0x5eed);
        let mut rng_i = rng_g.clone();
        let mut sg = g.initial_state();
        let mut si = it.initial_state();
        assert!(
            same_structure(&g.to_structure(&sg), &it.to_structure(&si)),
            "{file}: initial state"
        );
        for ply in 0..MAX_PLIES {
            g.movers(&sg, &mut mg);
            it.movers(&si, &mut mi);
            assert_eq!(mg, mi, "{file} seed {seed} ply {ply}: movers");
            if mg.is_empty() {
                break;
            }
            let mut joint_g = Vec::new();
            let mut joint_i = Vec::new();
            for &p in &mg {
                g.legal_moves(&sg, p, &mut lg);
                it.legal_moves(&si, p, &mut li);
                let names_g: Vec<String> = lg.iter().map(|m| g.move_to_string(&sg, p, m)).collect();
                let names_i: Vec<String> =
                    li.iter().map(|m| it.move_to_string(&si, p, m)).collect();
                assert_eq!(
                    names_g, names_i,
                    "{file} seed {seed} ply {ply}: moves of {p}"
                );
                let k = toss::game::index_below(&mut choose, lg.len());
                joint_g.push(lg[k].clone());
                joint_i.push(li[k].clone());
            }
            g.apply(&mut sg, &joint_g, &mut rng_g);
            it.apply(&mut si, &joint_i, &mut rng_i);
            total_plies += 1;
            assert_eq!(
                g.location(&sg),
                it.location(&si),
                "{file} seed {seed} ply {ply}: location"
            );
            assert!(
                same_structure(&g.to_structure(&sg), &it.to_structure(&si)),
                "{file} seed {seed} ply {ply}: structures differ"
            );
        }
        g.payoffs(&sg, &mut pg);
        it.payoffs(&si, &mut pi);
        assert_eq!(pg, pi, "{file} seed {seed}: payoffs");
        if let Some((lo, hi)) = g.payoff_bounds() {
            assert!(
                pg.iter().all(|&v| lo <= v && v <= hi),
                "{file} seed {seed}: payoffs {pg:?} outside [{lo}, {hi}]"
            );
        }
        assert_eq!(
            g.is_terminal(&sg),
            it.is_terminal(&si),
            "{file} seed {seed}: terminal"
        );
    }
    assert!(
        total_plies >= playouts as usize,
        "{file}: playouts too short"
    );
}

/// The generated playout loop (which counts and selects moves its own way)
/// draws exactly as the interpreter's default loop for the same seeds.
fn playouts_agree<G: Game>(g: &G, file: &str, seeds: u64) {
    let it = interpreter(file);
    for seed in 0..seeds {
        let a = g.random_playout(&mut toss::rng_from_seed(seed), MAX_PLIES);
        let b = it.random_playout(&mut toss::rng_from_seed(seed), MAX_PLIES);
        assert_eq!(a, b, "{file} seed {seed}: random playout");
    }
}

fn perft_agrees<G: Game>(g: &G, file: &str, depth: usize) -> Vec<u64> {
    let it = interpreter(file);
    let (sg, si) = (g.initial_state(), it.initial_state());
    (1..=depth)
        .map(|d| {
            let (a, b) = (g.perft(&sg, d), it.perft(&si, d));
            assert_eq!(a, b, "{file}: perft {d}");
            a
        })
        .collect()
}

macro_rules! differential {
    ($test:ident, $ty:ident, $path:literal, $depth:literal) => {
        differential!($test, $ty, $path, $depth, 1000);
    };
    ($test:ident, $ty:ident, $path:literal, $depth:literal, $playouts:literal) => {
        #[derive(toss::Game)]
        #[toss(file = $path)]
        struct $ty;

        #[test]
        fn $test() {
            lockstep(&$ty, $path, $playouts);
            perft_agrees(&$ty, $path, $depth);
            playouts_agree(&$ty, $path, ($playouts as u64).min(20));
        }
    };
}

differential!(tic_tac_toe, TicTacToe, "games/tic-tac-toe.toss", 5);
differential!(breakthrough, Breakthrough, "games/breakthrough.toss", 3);
differential!(connect4, Connect4, "games/connect4.toss", 4);
differential!(gomoku, Gomoku, "games/gomoku.toss", 2);
differential!(hex, Hex, "games/hex.toss", 2);
differential!(pawn_whopping, PawnWhopping, "games/pawn-whopping.toss", 3);
differential!(dice, Dice, "games/dice.toss", 4);
differential!(
    concurrent_tic_tac_toe,
    ConcurrentTicTacToe,
    "games/concurrent-tic-tac-toe.toss",
    3
);
// The games of the thesis's rule patterns (tests/patterns.rs).
differential!(sokoban, Sokoban, "games/sokoban.toss", 5);
differential!(sokoban_plus, SokobanPlus, "games/sokoban-plus.toss", 5);
differential!(
    rock_paper_scissors,
    RockPaperScissors,
    "games/rock-paper-scissors.toss",
    1
);
differential!(
    tic_tac_toe_coin,
    TicTacToeCoin,
    "games/tic-tac-toe-coin.toss",
    4
);
differential!(chess_plus, ChessPlus, "games/chess-plus.toss", 2, 100);
differential!(
    chess_threefold,
    ChessThreefold,
    "games/chess-threefold.toss",
    2,
    100
);
// REPETITION's count, kept by the generated state's history.
differential!(
    repetition,
    Repetition,
    "tests/fixtures/repetition.toss",
    5,
    20
);
differential!(magic_chess, MagicChess, "games/magic-chess.toss", 2, 100);
// The interpreter, the reference here, is slow on these: together about
// two minutes.
differential!(
    english_draughts,
    EnglishDraughts,
    "games/english-draughts.toss",
    3,
    1000
);
differential!(chess, Chess, "games/chess.toss", 2, 1000);
differential!(amazons, Amazons, "games/amazons.toss", 1, 1000);
// A game with a part of each kind outside the specialized fragment (an
// interpreted precondition, effect, matcher and payoff).
differential!(
    partially_specialized,
    Partial,
    "crates/toss-codegen/tests/fixtures/partial.toss",
    4,
    300
);
// Quantified variables named like a rule's left element, in its pre- and
// postconditions: they must not stand for the element.
differential!(
    variable_capture,
    Capture,
    "crates/toss-codegen/tests/fixtures/capture.toss",
    2,
    300
);
// The flips have multiplicity inf: one move with every match, applied as
// sets of images.
differential!(reversi, Reversi, "games/reversi.toss", 4, 1000);

// Fluent function values updated by several matches in one ply: a rule of
// multiplicity inf, then two players at once.
differential!(
    shift_and_swap,
    ShiftAndSwap,
    "tests/fixtures/shift-and-swap.toss",
    2,
    20
);

/// The fixture's header works the values out: each update reads the
/// values before the ply, so the shift gives n3 the 2 of n2 and the
/// simultaneous moves swap 10 and 20; both engines pay 10 and 2.
#[test]
fn updates_read_the_state_before_the_ply() {
    let path = "tests/fixtures/shift-and-swap.toss";
    assert_eq!(perft_agrees(&ShiftAndSwap, path, 2), [1, 1]);
    let it = interpreter(path);
    let (_, generated) = ShiftAndSwap.random_playout(&mut toss::rng_from_seed(0), 10);
    let (_, interpreted) = it.random_playout(&mut toss::rng_from_seed(0), 10);
    assert_eq!(generated.as_slice(), [10.0, 2.0]);
    assert_eq!(interpreted.as_slice(), [10.0, 2.0]);
}

// A fluent binary relation (the edges, deleted and added), dense.
differential!(
    edge_walk,
    EdgeWalk,
    "tests/fixtures/edge-walk.toss",
    5,
    1000
);

// The same game beside 132 unused cells: too many elements for a dense
// relation, the edges are a sorted list of pairs.
differential!(
    edge_walk_large,
    EdgeWalkLarge,
    "tests/fixtures/edge-walk-large.toss",
    5,
    1000
);

// A fluent ternary relation (the unused lines of a peg solitaire), a
// sorted list of triples.
differential!(
    peg_routes,
    PegRoutes,
    "tests/fixtures/peg-routes.toss",
    6,
    1000
);

/// Cut binds its visited node `t` before the edge's source `a` (a join
/// order chosen at build time), and lists its moves in the canonical order
/// all the same: by `a`, then `t`. After the walk to n2, the edges n4 -> n2
/// and n5 -> n1 can be cut; `t` first would find n5 -> n1 (t = n1) first.
#[test]
fn edge_walk_moves_in_canonical_order() {
    let mut s = EdgeWalk.initial_state();
    let mut moves = Vec::new();
    EdgeWalk.legal_moves(&s, 0, &mut moves);
    assert_eq!(
        EdgeWalk.move_to_string(&s, 0, &moves[0]),
        "Walk{a: n1, b: n2}"
    );
    EdgeWalk.apply(&mut s, &moves[..1], &mut toss::rng_from_seed(0));
    EdgeWalk.legal_moves(&s, 1, &mut moves);
    let names: Vec<String> = moves
        .iter()
        .map(|m| EdgeWalk.move_to_string(&s, 1, m))
        .collect();
    assert_eq!(
        names,
        [
            "Link{a: n7, t: n2}",
            "Cut{a: n4, t: n2}",
            "Cut{a: n5, t: n1}"
        ]
    );
}

/// Counted by hand in the fixture's header: 3 jumps for p, then 4.
#[test]
fn peg_routes_perft() {
    assert_eq!(
        perft_agrees(&PegRoutes, "tests/fixtures/peg-routes.toss", 2),
        [3, 4]
    );
}

/// Counted by hand in the fixture's header: 4 moves for p, then 13; the
/// same with either representation of the edges.
#[test]
fn edge_walk_perft() {
    assert_eq!(
        perft_agrees(&EdgeWalk, "tests/fixtures/edge-walk.toss", 2),
        [4, 13]
    );
    assert_eq!(
        perft_agrees(&EdgeWalkLarge, "tests/fixtures/edge-walk-large.toss", 2),
        [4, 13]
    );
}

#[test]
fn known_perft_counts() {
    assert_eq!(
        perft_agrees(&TicTacToe, "games/tic-tac-toe.toss", 4),
        [9, 72, 504, 3024]
    );
    assert_eq!(
        perft_agrees(&Breakthrough, "games/breakthrough.toss", 3),
        [22, 484, 11132]
    );
    assert_eq!(
        perft_agrees(&Connect4, "games/connect4.toss", 4),
        [7, 49, 343, 2401]
    );
}

/// Hand-counted: player p may mark any of the 5 empty cells; then player
/// q any empty cell whose next but one is empty (2, 2, 1, 2, 2 after p's
/// mark on c2 .. c6). A captured variable would leave no move.
#[test]
fn variable_capture_perft() {
    assert_eq!(
        perft_agrees(
            &Capture,
            "crates/toss-codegen/tests/fixtures/capture.toss",
            2
        ),
        [5, 9]
    );
}

/// The generated code's perft counts from the start at `depths`.
fn perft<G: Game>(g: &G, depths: std::ops::RangeInclusive<usize>) -> Vec<u64> {
    let s = g.initial_state();
    depths.map(|d| g.perft(&s, d)).collect()
}

/// The generated code alone (the interpreter is too slow for these depths
/// here) against the known perft counts of the games.
#[test]
fn generated_known_perft_counts() {
    assert_eq!(perft(&Chess, 1..=4), [20, 400, 8902, 197_281]);
    assert_eq!(perft(&EnglishDraughts, 1..=5), [7, 49, 302, 1469, 7361]);
    assert_eq!(perft(&Amazons, 1..=1), [2176]);
}

/// The generated code alone to the depths the interpreter's tests check
/// (tests/games.rs), against the known counts (Reversi's count turns, a
/// placement and its flips).
#[test]
fn generated_perft_to_the_interpreter_depths() {
    assert_eq!(
        perft(&TicTacToe, 1..=9),
        [9, 72, 504, 3024, 15120, 54720, 148_176, 200_448, 127_872]
    );
    assert_eq!(perft(&Connect4, 1..=6), [7, 49, 343, 2401, 16807, 117_649]);
    assert_eq!(perft(&Breakthrough, 1..=4), [22, 484, 11132, 256_036]);
    assert_eq!(perft(&Reversi, 1..=7), [4, 12, 56, 244, 1396, 8200, 55092]);
    // Against the independent move generator tests/oracles/pawn_whopping_perft.py.
    assert_eq!(perft(&PawnWhopping, 1..=4), [16, 256, 3846, 57744]);
}

/// Deeper than the interpreter's tests go, against counts from elsewhere:
/// Connect Four and Breakthrough as the GDL reasoner counts them on the
/// corpus's connect4.kif and breakthrough.kif (`gdl_perft.rs`), English
/// draughts as the published checkers perft (a jump chain is one move),
/// Gomoku, hex and concurrent tic-tac-toe counted by hand.
#[test]
fn generated_perft_beyond_the_interpreter_depths() {
    assert_eq!(perft(&Connect4, 7..=8), [823_536, 5_673_234]);
    // Depth 6 is the count of games/README.md, found by the interpreter at
    // the time.
    assert_eq!(perft(&Breakthrough, 5..=6), [6_182_818, 149_264_638]);
    assert_eq!(
        perft(&EnglishDraughts, 6..=9),
        [36768, 179_740, 845_931, 3_963_680]
    );
    // Three stones make no line of five (Gomoku) and no chain across the
    // board (hex), so every empty cell is a move: 225 x 224 x 223 and
    // 121 x 120 x 119.
    assert_eq!(perft(&Gomoku, 1..=3), [225, 50400, 11_239_200]);
    assert_eq!(perft(&Hex, 1..=3), [121, 14520, 1_727_880]);
    // Joint moves: 9 x 9 at first; then 72 turns leave 7 empty cells (7 x 7
    // replies each) and 9 clashes block their cell, leaving 8 (8 x 8):
    // 72 x 49 + 9 x 64.
    assert_eq!(perft(&ConcurrentTicTacToe, 1..=2), [81, 4104]);
}

#[test]
fn generated_reversi_perft_depths_8_and_9() {
    assert_eq!(perft(&Reversi, 8..=9), [390_216, 3_005_288]);
}

#[test]
fn generated_chess_perft_depth_5() {
    assert_eq!(Chess.perft(&Chess.initial_state(), 5), 4_865_609);
}

// The chess test positions of tests/games.rs: the same rules from another
// starting structure, each derived from its own file.
#[derive(toss::Game)]
#[toss(file = "tests/fixtures/chess-kiwipete.toss")]
struct ChessKiwipete;

#[derive(toss::Game)]
#[toss(file = "tests/fixtures/chess-position3.toss")]
struct ChessPosition3;

#[derive(toss::Game)]
#[toss(file = "tests/fixtures/chess-position4.toss")]
struct ChessPosition4;

/// Castling through and out of attacked squares, promotions, pins, en
/// passant: the standard perft counts of "Kiwipete" and "position 4" to
/// depth 3 and of "position 3" to depth 5 (the interpreter's test stops at
/// 2), and the interpreter's counts to depth 2.
#[test]
fn generated_chess_test_positions() {
    assert_eq!(
        perft(&ChessPosition3, 1..=5),
        [14, 191, 2812, 43238, 674_624]
    );
    perft_agrees(&ChessPosition3, "tests/fixtures/chess-position3.toss", 2);
    lockstep(&ChessPosition3, "tests/fixtures/chess-position3.toss", 4);
    assert_eq!(perft(&ChessKiwipete, 1..=3), [48, 2039, 97862]);
    assert_eq!(perft(&ChessPosition4, 1..=3), [6, 264, 9467]);
    perft_agrees(&ChessKiwipete, "tests/fixtures/chess-kiwipete.toss", 2);
    perft_agrees(&ChessPosition4, "tests/fixtures/chess-position4.toss", 2);
    lockstep(&ChessKiwipete, "tests/fixtures/chess-kiwipete.toss", 4);
    lockstep(&ChessPosition4, "tests/fixtures/chess-position4.toss", 4);
}

#[test]
fn generated_chess_test_positions_depth_4() {
    let s = ChessKiwipete.initial_state();
    assert_eq!(ChessKiwipete.perft(&s, 4), 4_085_603);
    let s = ChessPosition4.initial_state();
    assert_eq!(ChessPosition4.perft(&s, 4), 422_333);
}
