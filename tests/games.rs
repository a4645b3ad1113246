//! Every game in `games/` loads, and the benchmark games play by the same
//! rules as the peer systems: perft counts and random-playout statistics
//! from `shared/reference/benchmark-games.md`.

use toss::{Game, Interpreter};

fn load(name: &str) -> Interpreter {
    let path = format!("{}/games/{name}.toss", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    toss::interpret(&source, &format!("{name}.toss")).unwrap_or_else(|e| panic!("{e}"))
}

fn perft(name: &str, depths: &[u64]) {
    let g = load(name);
    let s = g.initial_state();
    let counts: Vec<u64> = (1..=depths.len()).map(|d| g.perft(&s, d)).collect();
    assert_eq!(counts, depths, "{name}");
}

/// The games of `games/`, each with the bounds of its payoffs read off its
/// PAYOFF terms by hand: a win and a loss are `:(phi) - :(psi)` or
/// constants in [-1, 1], the physics examples pay 0.
const GAMES: [(&str, (f64, f64)); 26] = [
    ("amazons", (-1.0, 1.0)),
    ("bounce", (0.0, 0.0)),
    ("breakthrough", (-1.0, 1.0)),
    ("cat-and-mouse", (-1.0, 1.0)),
    ("chess", (-1.0, 1.0)),
    ("chess-plus", (-1.0, 1.0)),
    ("chess-threefold", (-1.0, 1.0)),
    ("concurrent-tic-tac-toe", (-1.0, 1.0)),
    ("connect4", (-1.0, 1.0)),
    ("dice", (-1.0, 1.0)),
    ("dobble", (-1.0, 1.0)),
    ("english-draughts", (-1.0, 1.0)),
    ("gomoku", (-1.0, 1.0)),
    ("hex", (-1.0, 1.0)),
    ("magic-chess", (-1.0, 1.0)),
    ("pawn-whopping", (-1.0, 1.0)),
    ("pursuit", (-1.0, 1.0)),
    ("reversi", (-1.0, 1.0)),
    ("rock-paper-scissors", (-1.0, 1.0)),
    ("sokoban", (0.0, 1.0)),
    ("sokoban-2", (0.0, 1.0)),
    ("sokoban-3", (0.0, 1.0)),
    ("sokoban-plus", (0.0, 1.0)),
    ("throw", (0.0, 0.0)),
    ("tic-tac-toe", (-1.0, 1.0)),
    ("tic-tac-toe-coin", (-1.0, 1.0)),
];

#[test]
fn every_game_file_loads() {
    let dir = format!("{}/games", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("games directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toss"))
        .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
        .collect();
    names.sort();
    let expected: Vec<&str> = GAMES.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, expected, "the games in games/");
    for (name, bounds) in GAMES {
        let g = load(name);
        assert_eq!(g.payoff_bounds(), Some(bounds), "{name}: payoff bounds");
        // Every game can be played to its end from the start, and pays
        // within its bounds.
        for seed in 0..3 {
            let (_, payoffs) = g.random_playout(&mut toss::rng_from_seed(seed), 100_000);
            assert_eq!(payoffs.len(), g.num_players(), "{name}");
            assert!(
                payoffs.iter().all(|&v| bounds.0 <= v && v <= bounds.1),
                "{name}: payoffs {payoffs:?}"
            );
        }
    }
}

#[test]
fn tic_tac_toe_perft() {
    perft(
        "tic-tac-toe",
        &[9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872],
    );
}

#[test]
fn connect4_perft() {
    perft("connect4", &[7, 49, 343, 2401, 16807, 117649]);
}

#[test]
fn breakthrough_perft() {
    perft("breakthrough", &[22, 484, 11132, 256036]);
}

/// Breakthrough's payoffs are formulas of the position: 0 for both while
/// the play goes on; at the end the player to move (who cannot) has lost,
/// whether the opponent reached its home row or it has no legal move.
#[test]
fn breakthrough_payoffs_follow_the_position() {
    let g = load("breakthrough");
    let mut rng = toss::rng_from_seed(5);
    let mut pay = [0.0; 2];
    let mut movers = Vec::new();
    for _ in 0..200 {
        let mut s = g.initial_state();
        loop {
            g.movers(&s, &mut movers);
            g.payoffs(&s, &mut pay);
            if movers.is_empty() {
                break;
            }
            assert_eq!(pay, [0.0, 0.0]);
            let mut moves = Vec::new();
            g.legal_moves(&s, movers[0], &mut moves);
            let m = moves[rand_index(&mut rng, moves.len())].clone();
            g.apply(&mut s, &[m], &mut rng);
        }
        // Location 0: white to move, so white lost.
        let expected = if s.location == 0 {
            [-1.0, 1.0]
        } else {
            [1.0, -1.0]
        };
        assert_eq!(pay, expected);
    }
    // A player left without pawns has no move and loses.
    let mut s = g.initial_state();
    let w = s.structure.relation("W").expect("W");
    let whites: Vec<_> = s.structure.tuples(w).into_iter().map(|t| t[0]).collect();
    for x in whites {
        s.structure.remove_tuple(w, &[x]);
    }
    g.payoffs(&s, &mut pay);
    assert_eq!(pay, [-1.0, 1.0]);
    assert!(g.is_terminal(&s));
}

fn rand_index(rng: &mut toss::Rng, n: usize) -> usize {
    (toss::game::uniform01(rng) * n as f64) as usize % n
}

/// The heuristic derived from Breakthrough's payoffs (spec 3.4, example 5
/// on the real board): the last row is described by a chain of seven
/// column steps, so a white pawn on row r counts sum_{k<r} alpha^(7-k); one
/// step from row 2 to row 3 adds alpha^5, from row 6 to 7 alpha.
#[test]
fn breakthrough_heuristic_measures_the_distance_to_the_last_row() {
    use toss::heuristics::{HeuristicConfig, HeuristicEval, derive};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("games/breakthrough.toss");
    let (game, _) =
        toss_cli::load::load_toss(&path, false).unwrap_or_else(|e| panic!("{}", e.rendered));
    let g = Interpreter::new(&game).expect("loads");
    let cfg = HeuristicConfig::default();
    let eval = HeuristicEval::new(&game, &g, &derive(&game, &cfg)).expect("compiles");
    let mut s = g.initial_state();
    let mut v = [0.0; 2];
    eval.values(&s, &mut v);
    assert_eq!(v, [0.0, 0.0]);
    let w = s.structure.relation("W").expect("W");
    let at = |s: &toss::runtime::interpreter::State, n: &str| s.structure.element(n).expect(n);
    let (a2, a3, a6, a7) = (at(&s, "a2"), at(&s, "a3"), at(&s, "a6"), at(&s, "a7"));
    let alpha = cfg.alpha;
    s.structure.remove_tuple(w, &[a2]);
    s.structure.add_tuple(w, &[a3]);
    eval.values(&s, &mut v);
    assert!((v[0] - alpha.powi(5)).abs() < 1e-12, "{v:?}");
    assert!((v[1] + alpha.powi(5)).abs() < 1e-12, "{v:?}");
    s.structure.remove_tuple(w, &[a3]);
    s.structure.add_tuple(w, &[a6]);
    eval.values(&s, &mut v);
    let on_six = v[0];
    s.structure.remove_tuple(w, &[a6]);
    s.structure.add_tuple(w, &[a7]);
    eval.values(&s, &mut v);
    assert!((v[0] - on_six - alpha).abs() < 1e-12, "{v:?} vs {on_six}");
}

/// Mean and standard error of the mean.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// Random playouts agree with the peer figures (mean length in plies, mean
/// score of the first player on 0-100) within 4.5 standard errors. The
/// games' payoffs are -1/0/1, so a score is 50 * (payoff + 1).
fn peer_statistics(name: &str, playouts: u64, peer_length: f64, peer_score: f64) {
    let g = load(name);
    let mut rng = toss::rng_from_seed(2026);
    let (mut lengths, mut scores) = (Vec::new(), Vec::new());
    for _ in 0..playouts {
        let (plies, pay) = g.random_playout(&mut rng, 100_000);
        lengths.push(plies as f64);
        scores.push(50.0 * (pay[0] + 1.0));
    }
    let (len, len_se) = mean_se(&lengths);
    let (score, score_se) = mean_se(&scores);
    assert!(
        (len - peer_length).abs() < 4.5 * len_se,
        "{name}: mean length {len:.2} +- {len_se:.2}, peer {peer_length}"
    );
    assert!(
        (score - peer_score).abs() < 4.5 * score_se,
        "{name}: score {score:.2} +- {score_se:.2}, peer {peer_score}"
    );
}

#[test]
fn tic_tac_toe_plays_like_the_peers() {
    peer_statistics("tic-tac-toe", 20_000, 7.63, 64.9);
}

#[test]
fn connect4_plays_like_the_peers() {
    peer_statistics("connect4", 3_000, 21.31, 55.7);
}

#[test]
fn breakthrough_plays_like_the_peers() {
    peer_statistics("breakthrough", 1_500, 64.1, 50.9);
}

#[test]
fn hex_plays_like_the_peers() {
    peer_statistics("hex", 300, 107.5, 52.4);
}

#[test]
fn gomoku_plays_like_the_peers() {
    peer_statistics("gomoku", 200, 109.0, 51.0);
}

fn load_fixture(name: &str) -> Interpreter {
    let path = format!("{}/tests/fixtures/{name}.toss", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    toss::interpret(&source, &format!("{name}.toss")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn english_draughts_perft() {
    perft("english-draughts", &[7, 49, 302, 1469, 7361]);
}

#[test]
fn english_draughts_plays_like_the_peers() {
    peer_statistics("english-draughts", 500, 66.8, 49.3);
}

#[test]
fn chess_perft() {
    perft("chess", &[20, 400, 8902, 197281]);
}

/// About 6 s in release (quiet machine); left out of the default run, as
/// the interpreter's deepest perft, but `tests/differential.rs` checks the
/// same count on the generated code by default.
#[test]
#[ignore]
fn chess_perft_depth_5() {
    let g = load("chess");
    assert_eq!(g.perft(&g.initial_state(), 5), 4_865_609);
}

/// Castling through and out of attacked squares, promotions, pins, en
/// passant: the chess rules from three standard perft positions.
#[test]
fn chess_perft_test_positions() {
    for (name, counts) in [
        ("chess-kiwipete", [48u64, 2039]),
        ("chess-position3", [14, 191]),
        ("chess-position4", [6, 264]),
    ] {
        let g = load_fixture(name);
        let s = g.initial_state();
        let got: Vec<u64> = (1..=2).map(|d| g.perft(&s, d)).collect();
        assert_eq!(got, counts, "{name}");
    }
}

/// Random chess playouts are long (408.8 plies at the peers', many of them
/// ended by the 100-ply rule) and mostly drawn.
#[test]
fn chess_plays_like_the_peers() {
    peer_statistics("chess", 400, 408.8, 49.7);
}

#[test]
fn amazons_plays_like_the_peers() {
    peer_statistics("amazons", 1_000, 71.5, 50.1);
}

/// Pawn-whopping against an independent move generator written from the
/// file's header rules (`tests/oracles/pawn_whopping_perft.py`, which prints
/// 16, 256, 3846, 57744, 815760): captures appear from depth 3 and blocked
/// files from depth 2.
#[test]
fn pawn_whopping_perft() {
    perft("pawn-whopping", &[16, 256, 3846, 57744]);
}

#[test]
fn amazons_first_moves() {
    perft("amazons", &[2176]);
}

/// Othello perft from the standard start, passes counted as moves.
#[test]
fn reversi_perft() {
    perft("reversi", &[4, 12, 56, 244, 1396, 8200, 55092]);
}

/// About 16 s in release (quiet machine); the generated code's count is
/// checked by default in `tests/differential.rs`.
#[test]
#[ignore]
fn reversi_perft_depths_8_and_9() {
    let g = load("reversi");
    let s = g.initial_state();
    assert_eq!(g.perft(&s, 8), 390_216);
    assert_eq!(g.perft(&s, 9), 3_005_288);
}

/// A move, the placement and its flips, is one turn: 60.4 turns per
/// random playout, passes included.
#[test]
fn reversi_plays_like_the_peers() {
    peer_statistics("reversi", 1_000, 60.4, 47.8);
}

/// The GDL reversi of the corpus (standard Othello, with explicit `noop`
/// passes and a joint move per turn) run by the GDL reasoner, a second
/// engine: the same perft counts.
#[test]
fn reversi_agrees_with_the_gdl_reversi() {
    let source = toss_testkit::corpus::gdl_source("reversi.kif");
    let gdl = toss::gdl::kif::load_game(&source, "reversi.kif").unwrap_or_else(|e| panic!("{e:?}"));
    let toss = load("reversi");
    let (a, b) = (gdl.initial_state(), toss.initial_state());
    for d in 1..=6 {
        assert_eq!(gdl.perft(&a, d), toss.perft(&b, d), "depth {d}");
    }
}

/// One Reversi move worked by hand: black on d4 encloses e4 and f4 (right,
/// closed by g4), d5 and d6 (up, closed by d7) and c5 (up-left, closed by
/// b6), but not c4 (left, open at b4) nor e3 (down-right, open at f2). The
/// flip rule has multiplicity inf: one move of the flip location turns all
/// five at once, and the turn is the placement and the flips.
#[test]
fn reversi_flips_every_enclosed_line_at_once() {
    let path = format!("{}/games/reversi.toss", env!("CARGO_MANIFEST_DIR"));
    let mut source = std::fs::read_to_string(&path).expect("reversi.toss");
    source.push_str(
        r#"MODEL [ | B:1 {}; W:1 {}; New:1 {} | ] "
  . . . . . . . .
  . . . B . . . .
  . B . W . . . .
  . . W W . . . .
  . . W . W W B .
  . . . B W . . .
  . . . . . . . .
  . . . . . . . .
""#,
    );
    let g = toss::interpret(&source, "reversi.toss").unwrap_or_else(|e| panic!("{e}"));
    let mut s = g.initial_state();
    let mut rng = toss::rng_from_seed(0);
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    let place = moves
        .iter()
        .find(|m| g.move_to_string(&s, 0, m) == "PlaceB{a: d4}")
        .expect("d4 is legal")
        .clone();
    g.apply(&mut s, &[place], &mut rng);
    let (mut before, mut after) = (Vec::new(), Vec::new());
    g.movers(&s, &mut before);
    assert_eq!((g.location(&s), before.clone()), (1, vec![0]));
    g.legal_moves(&s, 0, &mut moves);
    assert_eq!(moves.len(), 1, "one move: all matches");
    let shown = g.move_to_string(&s, 0, &moves[0]);
    for x in ["c5", "d5", "d6", "e4", "f4"] {
        assert!(shown.contains(&format!("x: {x}}}")), "{shown}");
    }
    assert_eq!(shown.matches("{n: d4, x: ").count(), 5, "{shown}");
    g.apply(&mut s, &moves[..1], &mut rng);
    let st = g.to_structure(&s);
    let members = |r: &str| {
        let r = st.relation(r).expect("relation");
        let mut v: Vec<&str> = st
            .elements()
            .filter(|&e| st.contains(r, &[e]))
            .map(|e| st.element_name(e))
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(
        members("B"),
        ["b6", "c5", "d3", "d4", "d5", "d6", "d7", "e4", "f4", "g4"]
    );
    assert_eq!(members("W"), ["c4", "e3"]);
    assert!(members("New").is_empty());
    // White moves next: the flips ended black's turn.
    g.movers(&s, &mut after);
    assert_eq!((g.location(&s), after.clone()), (2, vec![1]));
    assert!(!g.continues_turn(&before, &after));
}

/// Only Reversi (a placement, then the flips), dice (a roll, then the
/// move), tic-tac-toe-coin (the joint toss, then the first mark of the
/// player it chose), chess++ (the move, then the optional king move) and
/// magic chess (the move, then the end of the turn) have turns of several
/// plies; in every other game the mover
/// changes every ply, so a turn is a ply and their perft and playout
/// figures are counted as before.
#[test]
fn compound_turns_only_where_one_player_moves_twice() {
    let dir = format!("{}/games", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("games directory")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".toss").map(str::to_string))
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    for name in names {
        let compound = matches!(
            name.as_str(),
            "reversi" | "dice" | "tic-tac-toe-coin" | "chess-plus" | "magic-chess"
        );
        assert_eq!(load(&name).has_compound_turns(), compound, "{name}");
    }
}
