//! Every corpus game that grounds, derived (`#[toss(gdl = ...)]`: 56
//! compiled, 7 forwarded to the interpreted network) and played in lockstep
//! with the interpreted network (`GroundGame`) over 1,000 seeded playouts,
//! every step compared (movers, legal moves in order, states, terminal,
//! payoffs), and with the reasoner over 20 of them (the grounded network is
//! checked against the reasoner over 1,000 in
//! `crates/toss-gdl/tests/gdl_ground.rs`); the perft counts of each derived
//! game against the reasoner's, and chess's against the standard ones.
//! Behind the feature
//! `corpus-derive`, as deriving the 63 games compiles for minutes:
//!
//! ```text
//! cargo test --release --features corpus-derive --test gdl_derive_corpus
//! ```}
#![cfg(feature = "corpus-derive")]

use toss::Game;
use toss::gdl::ground::{GroundGame, GroundLimits};
use toss::rng_from_seed;

macro_rules! games {
    ($($ty:ident $file:literal;)*) => {
        $(
            #[derive(toss::Game)]
            #[toss(gdl = $file)]
            struct $ty;
        )*

        #[test]
        fn every_grounded_corpus_game_derives_and_plays_like_the_network() {
            $(
                lockstep(&$ty, |s| $ty.state_to_string(s), $ty::SOURCE, $file);
            )*
        }

        #[test]
        fn every_grounded_corpus_game_derives_with_the_reasoner_perft() {
            $(
                perft_agrees(&$ty, $ty::SOURCE, $file);
            )*
        }
    };
}

games! {
    G2pffa "../shared/corpus/gdl/2pffa.kif";
    G2pttc "../shared/corpus/gdl/2pttc.kif";
    G3pConnectFour "../shared/corpus/gdl/3pConnectFour.kif";
    G4pffa "../shared/corpus/gdl/4pffa.kif";
    G4pttc "../shared/corpus/gdl/4pttc.kif";
    Amazons8x8 "../shared/corpus/gdl/amazons_8x8.kif";
    Blocker "../shared/corpus/gdl/blocker.kif";
    BlockerSerial "../shared/corpus/gdl/blockerSerial.kif";
    Breakthrough "../shared/corpus/gdl/breakthrough.kif";
    BreakthroughSmall "../shared/corpus/gdl/breakthroughSmall.kif";
    BreakthroughWalls "../shared/corpus/gdl/breakthroughWalls.kif";
    Buttons "../shared/corpus/gdl/buttons.kif";
    CheckLines "../shared/corpus/gdl/checkLines.kif";
    CheckersNewgoals "../shared/corpus/gdl/checkers-newgoals.kif";
    Checkers "../shared/corpus/gdl/checkers.kif";
    Chess200 "../shared/corpus/gdl/chess_200.kif";
    ChineseCheckers3 "../shared/corpus/gdl/chineseCheckers3.kif";
    ChineseCheckers6 "../shared/corpus/gdl/chineseCheckers6.kif";
    Chomp "../shared/corpus/gdl/chomp.kif";
    Cittaceot "../shared/corpus/gdl/cittaceot.kif";
    Coins "../shared/corpus/gdl/coins.kif";
    Connect4 "../shared/corpus/gdl/connect4.kif";
    ConnectFour "../shared/corpus/gdl/connectFour.kif";
    ConnectFourLarge "../shared/corpus/gdl/connectFourLarge.kif";
    ConnectFourSimultaneous "../shared/corpus/gdl/connectFourSimultaneous.kif";
    ConnectFourSuicide "../shared/corpus/gdl/connectFourSuicide.kif";
    DualConnect4 "../shared/corpus/gdl/dualConnect4.kif";
    EightPuzzle "../shared/corpus/gdl/eightPuzzle.kif";
    EnglishDraughts "../shared/corpus/gdl/englishDraughts.kif";
    EscortLatch "../shared/corpus/gdl/escortLatch.kif";
    GtCentipede "../shared/corpus/gdl/gt_centipede.kif";
    GtChicken "../shared/corpus/gdl/gt_chicken.kif";
    GtPrisoner "../shared/corpus/gdl/gt_prisoner.kif";
    GtTwoThirds4p "../shared/corpus/gdl/gt_two_thirds_4p.kif";
    Hanoi "../shared/corpus/gdl/hanoi.kif";
    Hex "../shared/corpus/gdl/hex.kif";
    Kalaha2009 "../shared/corpus/gdl/kalaha_2009.kif";
    KnightThrough "../shared/corpus/gdl/knightThrough.kif";
    KnightsTour "../shared/corpus/gdl/knightsTour.kif";
    LightsOut "../shared/corpus/gdl/lightsOut.kif";
    MaxKnights "../shared/corpus/gdl/max_knights.kif";
    Maze "../shared/corpus/gdl/maze.kif";
    Minichess "../shared/corpus/gdl/minichess.kif";
    Mummymaze2p "../shared/corpus/gdl/mummymaze2p.kif";
    Nim1 "../shared/corpus/gdl/nim1.kif";
    Nim4 "../shared/corpus/gdl/nim4.kif";
    NineBoardTicTacToe "../shared/corpus/gdl/nineBoardTicTacToe.kif";
    OthelloComp2007 "../shared/corpus/gdl/othello-comp2007.kif";
    Pacman3p "../shared/corpus/gdl/pacman3p.kif";
    Pentago "../shared/corpus/gdl/pentago.kif";
    Queens08lg "../shared/corpus/gdl/queens08lg.kif";
    Qyshinsu "../shared/corpus/gdl/qyshinsu.kif";
    Reversi "../shared/corpus/gdl/reversi.kif";
    Roshambo2 "../shared/corpus/gdl/roshambo2.kif";
    Smallest4player "../shared/corpus/gdl/smallest_4player.kif";
    Snake2p "../shared/corpus/gdl/snake2p.kif";
    SpeedChess "../shared/corpus/gdl/speedChess.kif";
    SudokuGrade1 "../shared/corpus/gdl/sudokuGrade1.kif";
    TicTacToe "../shared/corpus/gdl/ticTacToe.kif";
    TicTacToeLarge "../shared/corpus/gdl/ticTacToeLarge.kif";
    TicTacToeParallel "../shared/corpus/gdl/ticTacToeParallel.kif";
    TicTicToe "../shared/corpus/gdl/ticTicToe.kif";
    Tictactoe3player "../shared/corpus/gdl/tictactoe_3player.kif";
}

/// Perft of the derived game against the reasoner's, from depth 1 to the
/// first depth whose count passes [`PERFT_NODES`] (and to depth 6 at
/// most).
fn perft_agrees<D: Game>(d: &D, source: &str, name: &str) {
    let r = toss::gdl::kif::load_game(source, name).unwrap_or_else(|_| panic!("{name} loads"));
    let (s, u) = (d.initial_state(), r.initial_state());
    for depth in 1..=6 {
        let n = d.perft(&s, depth);
        assert_eq!(n, r.perft(&u, depth), "{name}: perft({depth})");
        if n > PERFT_NODES {
            break;
        }
    }
}

/// See [`perft_agrees`]: the reasoner takes up to a few seconds for as
/// many nodes on the largest games.
const PERFT_NODES: u64 = 5_000;

/// Chess perft from the initial position (chessprogramming.org, as
/// `reference/gdl.md` 7.5 lists it): chess_200 has the standard rules to
/// depth 4; speedChess, without the check rule, to depth 3.
#[test]
fn derived_chess_has_the_standard_perft() {
    let standard = [20, 400, 8_902, 197_281];
    let s = Chess200.initial_state();
    for (d, &n) in standard.iter().enumerate() {
        assert_eq!(Chess200.perft(&s, d + 1), n, "chess_200: perft({})", d + 1);
    }
    let s = SpeedChess.initial_state();
    for (d, &n) in standard[..3].iter().enumerate() {
        assert_eq!(
            SpeedChess.perft(&s, d + 1),
            n,
            "speedChess: perft({})",
            d + 1
        );
    }
}

fn strings<G: Game>(g: &G, s: &G::State, p: usize) -> Vec<String> {
    let mut v = Vec::new();
    g.legal_moves(s, p, &mut v);
    v.iter().map(|m| g.move_to_string(s, p, m)).collect()
}

/// Seeded random playouts on the derived game and the grounded one (and,
/// for the first 20 seeds, the reasoner) at once, compared at every step.
fn lockstep<D: Game>(d: &D, d_state: impl Fn(&D::State) -> String, source: &str, name: &str) {
    let desc = toss::gdl::kif::parse_gdl(source, name).unwrap_or_else(|_| panic!("{name} parses"));
    let g = GroundGame::from_description(&desc, GroundLimits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let r = toss::gdl::kif::load_game(source, name).unwrap_or_else(|_| panic!("{name} loads"));
    let n = d.num_players();
    // The largest networks play fewer: a playout of the reasoner or of
    // the network interpreted takes a large part of a second there.
    let seeds = if g.program().num_literals() > 100_000 {
        100
    } else {
        1000
    };
    for seed in 0..seeds {
        let with_reasoner = seed < 20;
        let mut rng = rng_from_seed(seed);
        let (mut s, mut t, mut u) = (d.initial_state(), g.initial_state(), r.initial_state());
        let (mut ms, mut mt) = (Vec::new(), Vec::new());
        for step in 0..10_000 {
            let at = || format!("{name} seed {seed} step {step}");
            assert_eq!(d_state(&s), g.state_to_string(&t), "state at {}", at());
            if with_reasoner {
                assert_eq!(
                    g.state_to_string(&t),
                    r.state_to_string(&u),
                    "reasoner at {}",
                    at()
                );
            }
            d.movers(&s, &mut ms);
            g.movers(&t, &mut mt);
            assert_eq!(ms, mt, "movers at {}", at());
            if with_reasoner {
                assert_eq!(
                    ms.is_empty(),
                    r.is_terminal(&u),
                    "reasoner terminal at {}",
                    at()
                );
            }
            if ms.is_empty() {
                let (mut pd, mut pg) = (vec![0.0; n], vec![0.0; n]);
                d.payoffs(&s, &mut pd);
                g.payoffs(&t, &mut pg);
                assert_eq!(pd, pg, "payoffs at {}", at());
                if with_reasoner {
                    let mut pr = vec![0.0; n];
                    r.payoffs(&u, &mut pr);
                    assert_eq!(pd, pr, "reasoner payoffs at {}", at());
                }
                break;
            }
            let (mut jd, mut jg, mut jr) = (Vec::new(), Vec::new(), Vec::new());
            for &p in &ms {
                let ls = strings(d, &s, p);
                assert_eq!(ls, strings(&g, &t, p), "legal moves of {p} at {}", at());
                if with_reasoner {
                    assert_eq!(
                        ls,
                        strings(&r, &u, p),
                        "reasoner legal moves of {p} at {}",
                        at()
                    );
                }
                if ls.is_empty() {
                    break;
                }
                let i = toss::game::index_below(&mut rng, ls.len());
                let (mut vd, mut vg, mut vr) = (Vec::new(), Vec::new(), Vec::new());
                d.legal_moves(&s, p, &mut vd);
                g.legal_moves(&t, p, &mut vg);
                jd.push(vd.swap_remove(i));
                jg.push(vg.swap_remove(i));
                if with_reasoner {
                    r.legal_moves(&u, p, &mut vr);
                    jr.push(vr.swap_remove(i));
                }
            }
            if jd.len() < ms.len() {
                break;
            }
            d.apply(&mut s, &jd, &mut rng);
            g.apply(&mut t, &jg, &mut rng);
            if with_reasoner {
                r.apply(&mut u, &jr, &mut rng);
            }
        }
        let a = d.random_playout(&mut rng_from_seed(seed), 10_000);
        let b = g.random_playout(&mut rng_from_seed(seed), 10_000);
        assert_eq!(a, b, "{name} seed {seed}: playout");
    }
}
