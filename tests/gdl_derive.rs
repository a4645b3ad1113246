//! `#[derive(Game)]` with `gdl = "..."`: a GDL game compiled from its
//! propositional network (or, over the size limit, forwarding to the
//! interpreted network) plays exactly as `GroundGame` and the reasoner
//! `GdlGame` of the same file, in seeded random playouts compared at every
//! step, and has the same perft counts.

use toss::Game;
use toss::gdl::GdlGame;
use toss::gdl::ground::{GroundGame, GroundLimits};
use toss::rng_from_seed;

#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/ticTacToe.kif")]
struct TicTacToe;

#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/connect4.kif")]
struct Connect4;

#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/breakthrough.kif")]
struct Breakthrough;

#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/reversi.kif")]
struct Reversi;

/// Connect Four on 8 x 6, red first.
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/connectFour.kif")]
struct ConnectFour8x6;

/// Both players drop a piece at once.
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/connectFourSimultaneous.kif")]
struct ConnectFourSimultaneous;

/// A relation recursive through the state (cells joined by lit paths):
/// a loop of the network, evaluated to its least fixpoint.
#[derive(toss::Game)]
#[toss(gdl = "tests/fixtures/reach.kif")]
struct Reach;

/// A terminal clause made true by the turn control flipping while the
/// fluent the move may change keeps its value.
#[derive(toss::Game)]
#[toss(gdl = "tests/fixtures/flip-terminal.kif")]
struct FlipTerminal;

/// Over the size limit (66,654 literals): forwards to the interpreted
/// network.
#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/blockerSerial.kif")]
struct BlockerSerial;

fn ground(source: &str, name: &str) -> GroundGame {
    let desc = toss::gdl::kif::parse_gdl(source, name).unwrap_or_else(|_| panic!("{name} parses"));
    GroundGame::from_description(&desc, GroundLimits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn reasoner(source: &str, name: &str) -> GdlGame {
    toss::gdl::kif::load_game(source, name).unwrap_or_else(|_| panic!("{name} loads"))
}

fn legal_strings<G: Game>(g: &G, s: &G::State, p: usize) -> Vec<String> {
    let mut v = Vec::new();
    g.legal_moves(s, p, &mut v);
    v.iter().map(|m| g.move_to_string(s, p, m)).collect()
}

/// Plays `seeds` seeded random playouts on the derived game `d`, the
/// grounded game and the reasoner at once, comparing movers, legal moves
/// in order, states and terminal at every step, payoffs at the end; then
/// the derived game's own playout (its override) against the trait's on
/// the grounded game, seed for seed, to the end and cut short (payoffs of
/// states that are not terminal). Returns the number of plies compared.
fn lockstep<D: Game>(
    d: &D,
    d_state: impl Fn(&D::State) -> String,
    source: &str,
    name: &str,
    seeds: u64,
) -> usize {
    let (g, r) = (ground(source, name), reasoner(source, name));
    assert_eq!(d.player_names(), g.player_names());
    assert_eq!(d.payoff_bounds(), g.payoff_bounds());
    assert!(!d.has_compound_turns());
    let n = d.num_players();
    let mut plies = 0;
    for seed in 0..seeds {
        let mut rng = rng_from_seed(seed);
        let (mut s, mut t, mut u) = (d.initial_state(), g.initial_state(), r.initial_state());
        let (mut ms, mut mt, mut mu) = (Vec::new(), Vec::new(), Vec::new());
        for step in 0.. {
            let at = format!("{name} seed {seed} step {step}");
            let fluents = g.state_to_string(&t);
            assert_eq!(d_state(&s), fluents, "state at {at}");
            assert_eq!(fluents, r.state_to_string(&u), "reasoner state at {at}");
            assert_eq!(d.to_structure(&s), g.to_structure(&t), "structure at {at}");
            d.movers(&s, &mut ms);
            g.movers(&t, &mut mt);
            r.movers(&u, &mut mu);
            assert_eq!((&ms, &ms), (&mt, &mu), "movers at {at}");
            assert_eq!(d.is_terminal(&s), ms.is_empty(), "terminal at {at}");
            if ms.is_empty() {
                let (mut pd, mut pg, mut pr) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                d.payoffs(&s, &mut pd);
                g.payoffs(&t, &mut pg);
                r.payoffs(&u, &mut pr);
                assert_eq!((&pd, &pd), (&pg, &pr), "payoffs at {at}");
                break;
            }
            let (mut jd, mut jg, mut jr) = (Vec::new(), Vec::new(), Vec::new());
            for &p in &ms {
                let ls = legal_strings(d, &s, p);
                assert_eq!(ls, legal_strings(&g, &t, p), "legal moves of {p} at {at}");
                assert_eq!(
                    ls,
                    legal_strings(&r, &u, p),
                    "reasoner legal moves of {p} at {at}"
                );
                let (mut vd, mut vg, mut vr) = (Vec::new(), Vec::new(), Vec::new());
                d.legal_moves(&s, p, &mut vd);
                g.legal_moves(&t, p, &mut vg);
                r.legal_moves(&u, p, &mut vr);
                let i = toss::game::index_below(&mut rng, vd.len());
                jd.push(vd.swap_remove(i));
                jg.push(vg.swap_remove(i));
                jr.push(vr.swap_remove(i));
            }
            d.apply(&mut s, &jd, &mut rng);
            g.apply(&mut t, &jg, &mut rng);
            r.apply(&mut u, &jr, &mut rng);
            plies += 1;
        }
        let a = d.random_playout(&mut rng_from_seed(seed), 10_000);
        let b = g.random_playout(&mut rng_from_seed(seed), 10_000);
        assert_eq!(a, b, "{name} seed {seed}: playout");
        for max in [0, 1, 5] {
            let a = d.random_playout(&mut rng_from_seed(seed), max);
            let b = g.random_playout(&mut rng_from_seed(seed), max);
            assert_eq!(a, b, "{name} seed {seed}: playout of at most {max} turns");
        }
    }
    plies
}

fn perft_agrees<D: Game>(d: &D, source: &str, name: &str, depths: std::ops::RangeInclusive<usize>) {
    let g = ground(source, name);
    let (s, t) = (d.initial_state(), g.initial_state());
    for depth in depths {
        assert_eq!(
            d.perft(&s, depth),
            g.perft(&t, depth),
            "{name} depth {depth}"
        );
    }
}

#[test]
fn tic_tac_toe_is_compiled_and_plays_like_the_reasoner() {
    // One word of fluents, moves as indices: the compiled route.
    assert_eq!(std::mem::size_of::<<TicTacToe as Game>::State>(), 8);
    let plies = lockstep(
        &TicTacToe,
        |s| TicTacToe.state_to_string(s),
        TicTacToe::SOURCE,
        "ticTacToe.kif",
        200,
    );
    assert!(plies > 1000, "{plies}");
}

/// The number of complete plays from `s`: terminal states reached.
fn complete_plays<G: Game>(g: &G, s: &G::State) -> u64 {
    let (mut movers, mut moves) = (Vec::new(), Vec::new());
    g.movers_and_moves(s, &mut movers, &mut moves);
    if movers.is_empty() {
        return 1;
    }
    let mut total = 0;
    // Tic-tac-toe: one role marks, the other has only `noop`.
    for m in &moves[0] {
        for n in &moves[1] {
            let mut t = s.clone();
            g.apply(&mut t, &[m.clone(), n.clone()], &mut rng_from_seed(0));
            total += complete_plays(g, &t);
        }
    }
    total
}

#[test]
fn tic_tac_toe_has_the_known_perft_counts() {
    // Perft does not expand terminal states: depth 9 counts the plays
    // that fill the board.
    let s = TicTacToe.initial_state();
    let counts: Vec<u64> = (1..=9).map(|d| TicTacToe.perft(&s, d)).collect();
    assert_eq!(
        counts,
        [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
    );
    assert_eq!(complete_plays(&TicTacToe, &s), 255168);
}

/// The perft counts of `reference/gdl.md` section 7.4 (joint moves as one
/// ply), to the deepest depth given there: the reasoner's tests take the
/// last ones only in their ignored runs, the derived code in well under a
/// second each.
#[test]
fn derived_perft_has_the_reference_counts() {
    fn check<G: Game>(g: &G, name: &str, expected: &[u64]) {
        let s = g.initial_state();
        for (d, &n) in expected.iter().enumerate() {
            assert_eq!(g.perft(&s, d + 1), n, "{name}: perft({})", d + 1);
        }
    }
    check(
        &Connect4,
        "connect4.kif",
        &[7, 49, 343, 2401, 16807, 117649, 823536, 5673234],
    );
    check(
        &ConnectFour8x6,
        "connectFour.kif",
        &[8, 64, 512, 4096, 32768, 262144, 2097144],
    );
    check(
        &Breakthrough,
        "breakthrough.kif",
        &[22, 484, 11132, 256036, 6182818],
    );
}

#[test]
fn connect_four_8x6_plays_like_the_reasoner() {
    lockstep(
        &ConnectFour8x6,
        |s| ConnectFour8x6.state_to_string(s),
        ConnectFour8x6::SOURCE,
        "connectFour.kif",
        200,
    );
}

#[test]
fn connect4_plays_like_the_reasoner() {
    lockstep(
        &Connect4,
        |s| Connect4.state_to_string(s),
        Connect4::SOURCE,
        "connect4.kif",
        200,
    );
    perft_agrees(&Connect4, Connect4::SOURCE, "connect4.kif", 1..=5);
}

#[test]
fn breakthrough_plays_like_the_reasoner() {
    lockstep(
        &Breakthrough,
        |s| Breakthrough.state_to_string(s),
        Breakthrough::SOURCE,
        "breakthrough.kif",
        200,
    );
    perft_agrees(
        &Breakthrough,
        Breakthrough::SOURCE,
        "breakthrough.kif",
        1..=3,
    );
}

#[test]
fn reversi_plays_like_the_reasoner() {
    lockstep(
        &Reversi,
        |s| Reversi.state_to_string(s),
        Reversi::SOURCE,
        "reversi.kif",
        200,
    );
    perft_agrees(&Reversi, Reversi::SOURCE, "reversi.kif", 1..=3);
}

#[test]
fn a_simultaneous_game_plays_like_the_reasoner() {
    let plies = lockstep(
        &ConnectFourSimultaneous,
        |s| ConnectFourSimultaneous.state_to_string(s),
        ConnectFourSimultaneous::SOURCE,
        "connectFourSimultaneous.kif",
        200,
    );
    assert!(plies > 200, "{plies}");
    perft_agrees(
        &ConnectFourSimultaneous,
        ConnectFourSimultaneous::SOURCE,
        "connectFourSimultaneous.kif",
        1..=3,
    );
}

#[test]
fn a_network_over_the_limit_forwards_and_plays_like_the_reasoner() {
    // The forwarded route keeps the grounded game, ground on first use.
    assert!(BlockerSerial::ground_game().program().num_literals() > 60_000);
    lockstep(
        &BlockerSerial,
        |s| BlockerSerial.state_to_string(s),
        BlockerSerial::SOURCE,
        "blockerSerial.kif",
        200,
    );
    perft_agrees(
        &BlockerSerial,
        BlockerSerial::SOURCE,
        "blockerSerial.kif",
        1..=3,
    );
}

#[test]
fn a_recursive_relation_is_evaluated_to_its_fixpoint() {
    assert!(
        !ground(Reach::SOURCE, "reach.kif")
            .program()
            .loops
            .is_empty()
    );
    let plies = lockstep(
        &Reach,
        |s| Reach.state_to_string(s),
        Reach::SOURCE,
        "reach.kif",
        200,
    );
    assert!(plies > 400, "{plies}");
    perft_agrees(&Reach, Reach::SOURCE, "reach.kif", 1..=3);
}

/// Terminal is a bit of the derived state, set incrementally from what a
/// move changed, on the assumption that the move was made in a state that
/// is not terminal. A move applied after the end anyway (GDL still defines
/// legal actions and the next state there) evaluates terminal whole: the
/// derived game agrees with the grounded one past the end of a play.
#[test]
fn moves_after_the_end_keep_terminal_right() {
    fn past_the_end<D: Game>(d: &D, show: impl Fn(&D::State) -> String, source: &str, name: &str) {
        let g = ground(source, name);
        let mut moves_after_end = 0;
        for seed in 0..50 {
            let mut rng = rng_from_seed(seed);
            let (mut s, mut t) = (d.initial_state(), g.initial_state());
            let mut after_end = 0;
            for _ in 0..200 {
                let ended = d.is_terminal(&s);
                assert_eq!(ended, g.is_terminal(&t), "{name} seed {seed}");
                after_end += ended as usize;
                if after_end > 3 {
                    break;
                }
                // Every role's legal actions, even in a terminal state.
                let (mut jd, mut jg) = (Vec::new(), Vec::new());
                for p in 0..d.num_players() {
                    let ls = legal_strings(d, &s, p);
                    assert_eq!(ls, legal_strings(&g, &t, p), "{name} seed {seed}");
                    if ls.is_empty() {
                        break;
                    }
                    let i = toss::game::index_below(&mut rng, ls.len());
                    let (mut vd, mut vg) = (Vec::new(), Vec::new());
                    d.legal_moves(&s, p, &mut vd);
                    g.legal_moves(&t, p, &mut vg);
                    jd.push(vd.swap_remove(i));
                    jg.push(vg.swap_remove(i));
                }
                if jd.len() < d.num_players() {
                    break;
                }
                moves_after_end += ended as usize;
                d.apply(&mut s, &jd, &mut rng);
                g.apply(&mut t, &jg, &mut rng);
                assert_eq!(show(&s), g.state_to_string(&t), "{name} seed {seed}");
            }
        }
        assert!(moves_after_end > 0, "{name}: no move after the end");
    }
    past_the_end(
        &TicTacToe,
        |s| TicTacToe.state_to_string(s),
        TicTacToe::SOURCE,
        "ticTacToe.kif",
    );
    past_the_end(
        &Connect4,
        |s| Connect4.state_to_string(s),
        Connect4::SOURCE,
        "connect4.kif",
    );
    past_the_end(
        &Breakthrough,
        |s| Breakthrough.state_to_string(s),
        Breakthrough::SOURCE,
        "breakthrough.kif",
    );
}

/// After `press`, `arm`, `press`, the state is terminal: the second press
/// changes only `control` of the fluents terminal reads (`lit` already
/// held), though the network says it may change `lit`.
#[test]
fn terminal_seen_when_the_turn_control_flips() {
    let g = &FlipTerminal;
    let mut s = g.initial_state();
    let mut rng = rng_from_seed(0);
    let action = |s: &<FlipTerminal as Game>::State, p: usize, name: &str| {
        let mut ms = Vec::new();
        g.legal_moves(s, p, &mut ms);
        ms.into_iter()
            .find(|m| g.move_to_string(s, p, m) == name)
            .unwrap_or_else(|| panic!("{name} is legal"))
    };
    for (a, b) in [("press", "noop"), ("noop", "arm"), ("press", "noop")] {
        assert!(!g.is_terminal(&s), "before {a} {b}");
        let joint = [action(&s, 0, a), action(&s, 1, b)];
        g.apply(&mut s, &joint, &mut rng);
    }
    assert!(g.is_terminal(&s));
    let mut pay = vec![0.0; 2];
    g.payoffs(&s, &mut pay);
    assert_eq!(pay, vec![100.0, 0.0]);
    lockstep(
        g,
        |s| FlipTerminal.state_to_string(s),
        FlipTerminal::SOURCE,
        "flip-terminal.kif",
        100,
    );
}
