//! Continuous games (spec 1.2, 1.3) against closed forms and hand-worked
//! cases, and the code `#[derive(Game)]` generates for them (compiled ODE
//! right-hand sides and update terms) against the interpreter.

use toss::runtime::interpreter::{Move, State};
use toss::runtime::ode::Method;
use toss::search::player::{Budget, RandomPlayer, play_match};
use toss::search::uct::{RandomPlayout, Uct, UctConfig};
use toss::{Game, Interpreter, Structure};

const G: f64 = 9.81;

fn load(file: &str) -> Interpreter {
    let path = format!("{}/games/{file}", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).expect("game file");
    toss::interpret(&source, file).unwrap_or_else(|e| panic!("{e}"))
}

fn fun(s: &Structure, f: &str, e: &str) -> f64 {
    s.fun_value(
        s.function(f).expect("function"),
        s.element(e).expect("element"),
    )
}

/// The only move of a one-mover state.
fn only_move<G: Game>(g: &G, s: &G::State) -> Option<G::Move> {
    let mut movers = Vec::new();
    g.movers(s, &mut movers);
    if movers.is_empty() {
        return None;
    }
    let mut ms = Vec::new();
    g.legal_moves(s, movers[0], &mut ms);
    assert_eq!(ms.len(), 1);
    ms.pop()
}

/// Bounce times, and (height, velocity) just after each bounce.
fn bounces(g: &Interpreter) -> (Vec<f64>, Vec<(f64, f64)>) {
    let mut rng = toss::rng_from_seed(0);
    let mut s = g.initial_state();
    let (mut times, mut states) = (Vec::new(), Vec::new());
    while let Some(m) = only_move(g, &s) {
        let ev = g.apply_observed(&mut s, &[m], &mut rng, f64::INFINITY, None);
        assert_eq!(ev.applied, ["Bounce"]);
        times.push(s.time);
        states.push((fun(&s.structure, "y", "b"), fun(&s.structure, "y'", "b")));
    }
    (times, states)
}

/// The first bounce at sqrt(2 * 10 / g), each flight after it 0.8 times
/// the one before, and the energy g y + v^2 / 2 after bounce k equal to
/// 0.64^k times the initial 10 g; with the adaptive method and with RK4
/// (both exact on the parabola; the error is the bisection's and epsilon's).
#[test]
fn bounce_matches_the_closed_form() {
    for method in [Method::ADAPTIVE, Method::Rk4 { step: 0.01 }] {
        let mut g = load("bounce.toss");
        g.set_method(method);
        let (times, states) = bounces(&g);
        assert_eq!(times.len(), 10, "{method:?}");
        let first = (2.0 * 10.0 / G).sqrt();
        assert!((times[0] - first).abs() < 1e-9, "{method:?}: {}", times[0]);
        let flights: Vec<f64> = std::iter::once(times[0])
            .chain(times.windows(2).map(|w| w[1] - w[0]))
            .collect();
        // The first flight after a bounce rises and falls: 2 v / g.
        let v1 = 0.8 * G * first;
        assert!((flights[1] - 2.0 * v1 / G).abs() < 1e-8, "{flights:?}");
        for w in flights[1..].windows(2) {
            assert!((w[1] - 0.8 * w[0]).abs() < 1e-8, "{method:?}: {flights:?}");
        }
        // The ball hits the floor when y >= 0 stops holding, at y = -2 eps
        // (epsilon semantics): it has gained g 2 eps of kinetic energy
        // then, of which 0.64 is left after the bounce.
        let depth = 2.0 * toss::runtime::interpreter::DEFAULT_EPSILON;
        let mut predicted = G * 10.0;
        for (k, &(y, v)) in states.iter().enumerate() {
            assert_eq!(y, 0.0);
            let energy = G * y + v * v / 2.0;
            predicted = 0.64 * (predicted + G * depth);
            assert!(
                (energy / predicted - 1.0).abs() < 1e-9,
                "{method:?} bounce {k}: energy {energy}, predicted {predicted}"
            );
            // Without the epsilon the energy would be 0.64^k of the start's.
            let ideal = 0.64f64.powi(k as i32 + 1) * G * 10.0;
            assert!((energy / ideal - 1.0).abs() < 1e-7);
        }
    }
}

/// The time of the first rule application of a one-mover game from its
/// start (the only move each time).
fn first_application<D: Game<State = State, Move = Move>>(g: &D) -> f64 {
    let mut s = g.initial_state();
    let m = only_move(g, &s).expect("a move");
    g.apply(&mut s, &[m], &mut toss::rng_from_seed(0));
    s.time
}

/// Throw: START gives the kept derivative `y' { b -> 5 }`, so the ball goes
/// up at 5 from height 2 and first hits the floor at (v0 + sqrt(v0^2 +
/// 2 g h)) / g, in the interpreter (both methods) and in the derived code;
/// each flight after it lasts 0.8 times the one before.
#[test]
fn throw_starts_with_the_given_velocity() {
    let (v0, h) = (5.0f64, 2.0);
    let exact = (v0 + (v0 * v0 + 2.0 * G * h).sqrt()) / G;
    for method in [Method::ADAPTIVE, Method::Rk4 { step: 0.01 }] {
        let mut g = load("throw.toss");
        g.set_method(method);
        let s = g.initial_state();
        assert_eq!(fun(&s.structure, "y'", "b"), v0);
        let (times, _) = bounces(&g);
        assert_eq!(times.len(), 10, "{method:?}");
        assert!((times[0] - exact).abs() < 1e-6, "{method:?}: {}", times[0]);
        let v1 = 0.8 * (v0 * v0 + 2.0 * G * h).sqrt();
        assert!(
            ((times[1] - times[0]) - 2.0 * v1 / G).abs() < 1e-6,
            "{times:?}"
        );
        for w in times.windows(3) {
            assert!(
                ((w[2] - w[1]) - 0.8 * (w[1] - w[0])).abs() < 1e-6,
                "{times:?}"
            );
        }
    }
    let t = first_application(&Throw);
    assert!((t - exact).abs() < 1e-6, "derived: {t}");
}

/// A dip of the invariant inside one integration step: y = (t - 0.47)^2 -
/// 0.025^2 is below 0 on (0.445, 0.495) only, between the ends of the steps
/// (RK4 with step 0.1: 0.4 and 0.5), so testing the invariant at step ends
/// alone would reach the bound 1. The interior test points (at most 0.01
/// apart) find it, and the rule applies at the first moment `y >= 0` fails
/// under the epsilon semantics, y = -2e-9: t = a - sqrt(d^2 - 2e-9), to the
/// bisection's 1e-12. In both methods, and in the derived code.
#[test]
fn an_invariant_failing_inside_a_step_is_found() {
    let path = format!("{}/tests/fixtures/dip.toss", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(path).expect("fixture");
    let depth = 2.0 * toss::runtime::interpreter::DEFAULT_EPSILON;
    // y = y0 + v0 t + t^2 from START's values: a = -v0 / 2, d^2 = a^2 - y0.
    let (y0, v0): (f64, f64) = (0.220275, -0.94);
    let a = -v0 / 2.0;
    let exact = a - (a * a - y0 - depth).sqrt();
    assert!((exact - 0.445).abs() < 1e-7 && exact > 0.445);
    for method in [Method::ADAPTIVE, Method::Rk4 { step: 0.1 }] {
        let mut g = toss::interpret(&source, "dip.toss").unwrap_or_else(|e| panic!("{e}"));
        g.set_method(method);
        let mut s = g.initial_state();
        let m = only_move(&g, &s).expect("a move");
        let ev = g.apply_observed(
            &mut s,
            &[m],
            &mut toss::rng_from_seed(0),
            f64::INFINITY,
            None,
        );
        assert_eq!(ev.applied, ["Dip"], "{method:?}");
        assert!(
            s.time >= exact - 1e-13 && s.time - exact <= 1e-11,
            "{method:?}: {} vs {exact}",
            s.time
        );
        assert!((fun(&s.structure, "y", "b") + depth).abs() < 1e-12);
    }
    let t = first_application(&Dip);
    assert!(
        t >= exact - 1e-13 && t - exact <= 1e-11,
        "derived: {t} vs {exact}"
    );
}

/// With `DATA epsilon: 0.5`, `y >= 0` holds down to y = -1 (spec 1.3: `a <
/// b` needs `a + eps < b - eps`), so the ball falls 11 before bouncing.
#[test]
fn epsilon_semantics_of_invariants() {
    let path = format!("{}/games/bounce.toss", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(path)
        .expect("game file")
        .replace("PLAYERS ball", "PLAYERS ball\nDATA epsilon: 0.5");
    let g = toss::interpret(&source, "bounce.toss").unwrap_or_else(|e| panic!("{e}"));
    let (times, _) = bounces(&g);
    assert!(
        (times[0] - (2.0 * 11.0 / G).sqrt()).abs() < 1e-9,
        "{}",
        times[0]
    );
}

/// Cat and mouse (the example of spec 1.2) with moves drawn at random: after
/// every joint move both have moved in a straight line with their chosen
/// speeds for the lesser of the chosen times, and the rule of the player
/// with that time applied.
#[test]
fn cat_and_mouse_matches_the_closed_form() {
    for method in [Method::ADAPTIVE, Method::Rk4 { step: 0.1 }] {
        let mut g = load("cat-and-mouse.toss");
        g.set_method(method);
        assert_eq!(g.rule_params(0), ["vx", "vy"]);
        let mut rng = toss::rng_from_seed(11);
        let mut choose = toss::rng_from_seed(12);
        for _ in 0..20 {
            let mut s = g.initial_state();
            let mut plies = 0;
            loop {
                let mut movers = Vec::new();
                g.movers(&s, &mut movers);
                if movers.is_empty() {
                    break;
                }
                assert_eq!(movers, [0, 1]);
                let mut joint: Vec<Move> = Vec::new();
                for p in [0, 1] {
                    let mut ms = Vec::new();
                    g.legal_moves(&s, p, &mut ms);
                    assert_eq!(ms.len(), 27, "3 times x 3 x 3 speeds");
                    let mut m = ms.swap_remove(plies % 27);
                    g.draw_continuous(&s, p, &mut m, &mut choose);
                    joint.push(m);
                }
                let (tc, tm) = (joint[0].time.expect("t"), joint[1].time.expect("t"));
                let t0 = tc.min(tm);
                let before: State = s.clone();
                let ev = g.apply_observed(&mut s, &joint, &mut rng, f64::INFINITY, None);
                let mut expected = Vec::new();
                if tc == t0 {
                    expected.push("CatRun");
                }
                if tm == t0 {
                    expected.push("MouseRun");
                }
                assert_eq!(ev.applied, expected);
                assert!((s.time - before.time - t0).abs() < 1e-12);
                for (mv, e) in joint.iter().zip(["c", "m"]) {
                    for (f, v) in [("x", mv.params[0]), ("y", mv.params[1])] {
                        let want = fun(&before.structure, f, e) + v * t0;
                        let got = fun(&s.structure, f, e);
                        assert!(
                            (got - want).abs() < 1e-9,
                            "{method:?} {f}({e}): {got} vs {want}"
                        );
                    }
                }
                plies += 1;
            }
            assert!(plies > 0);
        }
    }
}

/// Two simultaneous rules: A's invariant `x <= 1` fails at t = 1. When its
/// `post` fails, A is dropped (x stays 1) and time goes on to B's bound 3;
/// when its `post` holds, A applies at t = 1 and B does not.
#[test]
fn failing_invariant_applies_the_rule_or_drops_it() {
    let game = |post: &str| {
        format!(
            "PLAYERS a, b
RULE Go: [e | A (e) | ] -> [e | A (e) | ] update :n(e) = 1
  dynamics :x'(e) = 1 pre :n(e) < 1 inv :x(e) <= 1 post {post}
RULE Wait: [e | B (e) | ] -> [e | B (e) | ] update :n(e) = 1
  dynamics :x'(e) = 2 pre :n(e) < 1
LOC 0 {{
  PLAYER a {{ MOVES [Go, t: 5 -- 5 -> 0] }}
  PLAYER b {{ MOVES [Wait, t: 3 -- 3 -> 0] }}
}}
START [ p, q | A (p); B (q) | x {{ p -> 0, q -> 0 }}; n {{ p -> 0, q -> 0 }} ]"
        )
    };
    for (post, applied, time, xa, xb) in [
        (":n(e) > 5", "Wait", 3.0, 1.0, 6.0),
        ("true", "Go", 1.0, 1.0, 2.0),
    ] {
        let g = toss::interpret(&game(post), "two.toss").unwrap_or_else(|e| panic!("{e}"));
        let mut s = g.initial_state();
        let joint: Vec<Move> = [0, 1]
            .iter()
            .map(|&p| {
                let mut ms = Vec::new();
                g.legal_moves(&s, p, &mut ms);
                ms.pop().expect("a move")
            })
            .collect();
        let ev = g.apply_observed(&mut s, &joint, &mut toss::rng_from_seed(0), 100.0, None);
        assert_eq!(ev.applied, [applied], "post {post}");
        // Epsilon semantics: `x <= 1` fails above 1 + 2e-9.
        assert!((s.time - time).abs() < 1e-8, "post {post}: {}", s.time);
        // x(p) stops at the invariant's boundary (to the bisection's 1e-12
        // plus epsilon's 2e-9).
        assert!(
            (fun(&s.structure, "x", "p") - xa).abs() < 1e-8,
            "post {post}"
        );
        assert!(
            (fun(&s.structure, "x", "q") - xb).abs() < 1e-8,
            "post {post}"
        );
    }
}

/// Pursuit: UCT as the pursuer (100 iterations a move, choosing among the
/// grid of times and speeds) catches a random evader (whose times and
/// speeds are drawn uniformly) in each of 4 matches, and the catching move
/// stops when the two are 1 apart; a random pursuer rarely catches it.
#[test]
fn uct_plays_pursuit() {
    use toss::search::player::Player;
    let g = load("pursuit.toss");
    for seed in 0..4 {
        let mut uct = Uct::new(
            UctConfig::default(),
            RandomPlayout { max_plies: 1000 },
            seed,
        );
        let mut random = RandomPlayer::new(seed + 100);
        let mut rng = toss::rng_from_seed(seed);
        let mut s = g.initial_state();
        while !g.is_terminal(&s) {
            let m = if g.location(&s) == 0 {
                uct.choose(&g, &s, Budget::Iterations(100))
            } else {
                random.choose(&g, &s, Budget::Iterations(1))
            };
            g.apply(&mut s, &m, &mut rng);
        }
        let mut pay = [0.0; 2];
        g.payoffs(&s, &mut pay);
        assert_eq!(pay, [1.0, -1.0], "seed {seed}");
        let d = (fun(&s.structure, "x", "p") - fun(&s.structure, "x", "e"))
            .hypot(fun(&s.structure, "y", "p") - fun(&s.structure, "y", "e"));
        assert!(
            d < 1.0 && d > 1.0 - 1e-6,
            "seed {seed}: distance at the catch {d}"
        );
    }
    let mut random_wins = 0;
    for seed in 0..20 {
        let mut a = RandomPlayer::new(seed);
        let mut b = RandomPlayer::new(seed + 100);
        let r = play_match(
            &g,
            &mut [&mut a, &mut b],
            &[0, 1],
            Budget::Iterations(1),
            seed,
            100,
        );
        if r.payoffs[0] > 0.0 {
            random_wins += 1;
        }
    }
    assert!(random_wins <= 5, "random pursuer won {random_wins} of 20");
}

// ---- generated code against the interpreter

#[derive(toss::Game)]
#[toss(file = "games/bounce.toss")]
struct Bounce;

#[derive(toss::Game)]
#[toss(file = "games/cat-and-mouse.toss")]
struct CatAndMouse;

#[derive(toss::Game)]
#[toss(file = "games/pursuit.toss")]
struct Pursuit;

#[derive(toss::Game)]
#[toss(file = "games/throw.toss")]
struct Throw;

#[derive(toss::Game)]
#[toss(file = "games/dobble.toss")]
struct Dobble;

#[derive(toss::Game)]
#[toss(file = "tests/fixtures/dip.toss")]
struct Dip;

/// Function values and times of the two engines may differ by this much:
/// the compiled terms compute the same operations in the same order, so in
/// practice they agree exactly.
const TOLERANCE: f64 = 1e-12;

fn close(a: &Structure, b: &Structure) -> f64 {
    let mut worst: f64 = 0.0;
    assert_eq!(a.num_functions(), b.num_functions());
    for f in 0..a.num_functions() {
        assert_eq!(a.function_name(f), b.function_name(f));
        for e in a.elements() {
            worst = worst.max((a.fun_value(f, e) - b.fun_value(f, e)).abs());
        }
    }
    worst
}

/// Plays `playouts` seeded random playouts of the derived game and the
/// interpreter in lockstep: the same movers, legal moves (in order), drawn
/// times and parameters, locations, times and function values (within
/// `TOLERANCE`) after every ply, and the same payoffs and terminal test at
/// the end.
fn lockstep<D: Game<State = State, Move = Move>>(d: &D, file: &str, playouts: u64) {
    let it = if file.contains('/') {
        let path = format!("{}/{file}", env!("CARGO_MANIFEST_DIR"));
        let source = std::fs::read_to_string(&path).expect("game file");
        toss::interpret(&source, file).unwrap_or_else(|e| panic!("{e}"))
    } else {
        load(file)
    };
    let mut worst: f64 = 0.0;
    for seed in 0..playouts {
        let mut choose = toss::rng_from_seed(seed);
        let (mut rd, mut ri) = (toss::rng_from_seed(seed + 1), toss::rng_from_seed(seed + 1));
        let (mut sd, mut si) = (d.initial_state(), it.initial_state());
        for ply in 0..200 {
            let (mut md, mut mi) = (Vec::new(), Vec::new());
            d.movers(&sd, &mut md);
            it.movers(&si, &mut mi);
            assert_eq!(md, mi, "{file} seed {seed} ply {ply}");
            if md.is_empty() {
                break;
            }
            let (mut jd, mut ji) = (Vec::new(), Vec::new());
            for &p in &md {
                let (mut ld, mut li) = (Vec::new(), Vec::new());
                d.legal_moves(&sd, p, &mut ld);
                it.legal_moves(&si, p, &mut li);
                assert_eq!(ld, li, "{file} seed {seed} ply {ply}");
                let k = toss::game::index_below(&mut choose, ld.len());
                let mut c2 = choose.clone();
                let (mut a, mut b) = (ld[k].clone(), li[k].clone());
                d.draw_continuous(&sd, p, &mut a, &mut choose);
                it.draw_continuous(&si, p, &mut b, &mut c2);
                assert_eq!(a, b);
                jd.push(a);
                ji.push(b);
            }
            d.apply(&mut sd, &jd, &mut rd);
            it.apply(&mut si, &ji, &mut ri);
            assert_eq!(d.location(&sd), it.location(&si));
            assert!(
                (sd.time - si.time).abs() <= TOLERANCE,
                "{file} seed {seed} ply {ply}"
            );
            worst = worst.max(close(&sd.structure, &si.structure));
            assert!(worst <= TOLERANCE, "{file} seed {seed} ply {ply}: {worst}");
        }
        let (mut pd, mut pi) = (vec![0.0; d.num_players()], vec![0.0; it.num_players()]);
        d.payoffs(&sd, &mut pd);
        it.payoffs(&si, &mut pi);
        assert_eq!(pd, pi, "{file} seed {seed}: payoffs");
        assert_eq!(
            d.is_terminal(&sd),
            it.is_terminal(&si),
            "{file} seed {seed}: terminal"
        );
    }
}

/// 1000 seeded lockstep playouts of each continuous game.
#[test]
fn generated_continuous_games_agree_over_1000_playouts() {
    lockstep(&Bounce, "bounce.toss", 1000);
    lockstep(&CatAndMouse, "cat-and-mouse.toss", 1000);
    lockstep(&Pursuit, "pursuit.toss", 1000);
    lockstep(&Throw, "throw.toss", 1000);
    lockstep(&Dobble, "dobble.toss", 1000);
}

#[test]
fn generated_continuous_games_agree_with_the_interpreter() {
    lockstep(&Dip, "tests/fixtures/dip.toss", 1);
    // The generated type uses its compiled terms.
    assert_eq!(Bounce::COMPILED.len(), 1);
    assert!(Bounce::COMPILED[0].dynamics.is_some() && Bounce::COMPILED[0].update.is_some());
    // Bounce's update terms read x = [:y'(b), :n(b)]: y = 0, y' = -0.8 y',
    // n = n + 1.
    let mut out = [0.0; 3];
    (Bounce::COMPILED[0].update.expect("compiled"))(&[-3.0, 10.0], &[], &mut out);
    assert_eq!(out, [0.0, 2.4000000000000004, 11.0]);
}
