//! Game semantics on small hand-built games (IR constructed directly).

use super::*;
use toss_core::game::rng_from_seed;
use toss_core::ir::{Game as IrGame, Interval, Target};
use toss_testkit::fixtures::*;

fn three_cells() -> Structure {
    st(&["a", "b", "c"], &[("P", 1, &[]), ("Q", 1, &[])], &[])
}

fn strings(g: &Interpreter, s: &State, p: usize, ms: &[Move]) -> Vec<String> {
    ms.iter().map(|m| g.move_to_string(s, p, m)).collect()
}

#[test]
fn multiplicity_one_any_all() {
    for (mult, expected) in [
        (
            Multiplicity::One,
            vec!["Mark{x: a}", "Mark{x: b}", "Mark{x: c}"],
        ),
        (
            Multiplicity::Any,
            vec![
                "Mark{x: a}",
                "Mark{x: a}{x: b}",
                "Mark{x: a}{x: b}{x: c}",
                "Mark{x: a}{x: c}",
                "Mark{x: b}",
                "Mark{x: b}{x: c}",
                "Mark{x: c}",
            ],
        ),
        (Multiplicity::All, vec!["Mark{x: a}{x: b}{x: c}"]),
    ] {
        let g = game(
            &["A"],
            vec![mark("Mark", "P")],
            vec![vec![player(
                0.0,
                vec![label("Mark", mult, vec![target(0)])],
            )]],
            three_cells(),
        );
        let g = Interpreter::new(&g).expect("loads");
        let s = g.initial_state();
        let mut ms = Vec::new();
        g.legal_moves(&s, 0, &mut ms);
        assert_eq!(strings(&g, &s, 0, &ms), expected, "{mult:?}");
        // The last move marks c (and, for Any/All, the others listed).
        let mut t = s.clone();
        let last = ms.last().expect("a move").clone();
        g.apply(&mut t, std::slice::from_ref(&last), &mut rng_from_seed(1));
        let p = t.structure.relation("P").expect("P");
        assert_eq!(t.structure.relation_len(p), last.matches.len());
        // After All, nothing is left to mark: terminal.
        if mult == Multiplicity::All {
            assert!(g.is_terminal(&t));
        }
    }
}

#[test]
fn any_sets_are_pairwise_disjoint() {
    let start = st(
        &["a", "b", "c", "d"],
        &[
            ("E", 2, &[&["a", "b"], &["b", "c"], &["c", "d"]]),
            ("P", 1, &[]),
            ("Q", 1, &[]),
        ],
        &[],
    );
    let r = rule(
        "Cut",
        side(&["x", "y"], &[("E", &["x", "y"])]),
        side(&["x", "y"], &[]),
        &["E"],
    );
    let g = game(
        &["A"],
        vec![r],
        vec![vec![player(
            0.0,
            vec![label("Cut", Multiplicity::Any, vec![target(0)])],
        )]],
        start,
    );
    let g = Interpreter::new(&g).expect("loads");
    let s = g.initial_state();
    let mut ms = Vec::new();
    g.legal_moves(&s, 0, &mut ms);
    assert_eq!(
        strings(&g, &s, 0, &ms),
        vec![
            "Cut{x: a, y: b}",
            "Cut{x: a, y: b}{x: c, y: d}",
            "Cut{x: b, y: c}",
            "Cut{x: c, y: d}",
        ]
    );
}

/// Two players alternate marking three cells; B's move ends A's options
/// (pre `not ex x Q(x)` is match-independent); payoffs of the final location.
#[test]
fn turns_terminal_detection_and_payoffs() {
    let mut mark_p = mark("MarkP", "P");
    mark_p.pre = Formula::Not(Box::new(ex("y", rel("Q", &["y"]))));
    let g = game(
        &["A", "B"],
        vec![mark_p, mark("MarkQ", "Q")],
        vec![
            vec![
                player(
                    1.0,
                    vec![label("MarkP", Multiplicity::One, vec![target(1)])],
                ),
                player(-1.0, vec![]),
            ],
            vec![
                player(2.0, vec![]),
                player(
                    -2.0,
                    vec![label("MarkQ", Multiplicity::One, vec![target(0)])],
                ),
            ],
        ],
        three_cells(),
    );
    let g = Interpreter::new(&g).expect("loads");
    assert!(g.rules[0].pre_state.is_some() && g.rules[0].pre.is_none());
    let mut s = g.initial_state();
    let mut movers = Vec::new();
    g.movers(&s, &mut movers);
    assert_eq!(movers, vec![0]);
    assert_eq!(g.perft(&s, 1), 3);
    assert_eq!(g.perft(&s, 2), 6);
    // After A and B moved once, A's precondition fails: no third ply.
    assert_eq!(g.perft(&s, 3), 0);

    let mut ms = Vec::new();
    g.legal_moves(&s, 0, &mut ms);
    g.apply(&mut s, &[ms[0].clone()], &mut rng_from_seed(0));
    assert_eq!(g.location(&s), 1);
    g.movers(&s, &mut movers);
    assert_eq!(movers, vec![1]);
    g.legal_moves(&s, 1, &mut ms);
    assert_eq!(strings(&g, &s, 1, &ms), vec!["MarkQ{x: b}", "MarkQ{x: c}"]);
    g.apply(&mut s, &[ms[0].clone()], &mut rng_from_seed(0));
    assert!(g.is_terminal(&s));
    g.movers(&s, &mut movers);
    assert!(movers.is_empty());
    let mut pay = [0.0; 2];
    g.payoffs(&s, &mut pay);
    assert_eq!(pay, [1.0, -1.0]);

    let (plies, pay) = g.random_playout(&mut rng_from_seed(7), 100);
    assert_eq!(plies, 2);
    assert_eq!(pay[..], [1.0, -1.0]);
}

/// A match-dependent precondition and a postcondition filter matches.
#[test]
fn pre_and_post_filter_matches() {
    let start = st(
        &["a", "b", "c"],
        &[
            ("P", 1, &[]),
            ("Q", 1, &[]),
            ("Hot", 1, &[&["a"]]),
            ("Cold", 1, &[&["c"]]),
        ],
        &[],
    );
    let mut r = mark("Mark", "P");
    r.pre = Formula::Not(Box::new(rel("Hot", &["x"])));
    r.post = Formula::Not(Box::new(rel("Cold", &["x"])));
    let g = game(
        &["A"],
        vec![r],
        vec![vec![player(
            0.0,
            vec![label("Mark", Multiplicity::One, vec![target(0)])],
        )]],
        start,
    );
    let g = Interpreter::new(&g).expect("loads");
    // `not Hot(x)` restricts the matcher's candidates set at a time; nothing
    // is left to check per match or per state.
    assert!(g.rules[0].pre.is_none() && g.rules[0].pre_state.is_none());
    assert_eq!(g.rules[0].step_sets[0].len(), 1);
    let s = g.initial_state();
    let mut ms = Vec::new();
    g.legal_moves(&s, 0, &mut ms);
    assert_eq!(strings(&g, &s, 0, &ms), vec!["Mark{x: b}"]);
    // Only P is changed: Mark is exact on Q (emb P, Q) but neither removes
    // nor adds a Q tuple, so Q is stable like Hot and Cold.
    let names: Vec<&str> = g
        .stable_relations()
        .iter()
        .map(|&r| s.structure.relation_name(r))
        .collect();
    assert_eq!(names, vec!["Q", "Hot", "Cold"]);
}

/// Both players move in one location; the joint action applies both rules.
#[test]
fn simultaneous_moves() {
    let g = game(
        &["A", "B"],
        vec![
            rule(
                "P",
                side(&["x"], &[]),
                side(&["x"], &[("P", &["x"])]),
                &["P"],
            ),
            rule(
                "Q",
                side(&["x"], &[]),
                side(&["x"], &[("Q", &["x"])]),
                &["Q"],
            ),
        ],
        vec![vec![
            player(0.0, vec![label("P", Multiplicity::One, vec![target(0)])]),
            player(0.0, vec![label("Q", Multiplicity::One, vec![target(0)])]),
        ]],
        three_cells(),
    );
    let g = Interpreter::new(&g).expect("loads");
    let mut s = g.initial_state();
    let mut movers = Vec::new();
    g.movers(&s, &mut movers);
    assert_eq!(movers, vec![0, 1]);
    assert_eq!(g.perft(&s, 1), 9);
    assert_eq!(g.perft(&s, 2), 9 * 4);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    g.legal_moves(&s, 0, &mut a);
    g.legal_moves(&s, 1, &mut b);
    g.apply(&mut s, &[a[0].clone(), b[0].clone()], &mut rng_from_seed(0));
    let st = &s.structure;
    let (p, q) = (st.relation("P").expect("P"), st.relation("Q").expect("Q"));
    let x = st.element("a").expect("a");
    assert!(st.contains(p, &[x]) && st.contains(q, &[x]));
    // Three joint moves fill both relations, then nobody can move.
    let (plies, _) = g.random_playout(&mut rng_from_seed(3), 100);
    assert_eq!(plies, 3);
}

/// A chance label goes to location 1 with probability 0.3 and 2 with 0.7;
/// over 20,000 seeded samples the frequency is within 99.9% bounds.
#[test]
fn chance_edges_frequencies() {
    let noop = rule(
        "Noop",
        side(&["x"], &[("S", &["x"])]),
        side(&["x"], &[("S", &["x"])]),
        &[],
    );
    let mut l = label("Noop", Multiplicity::One, vec![target(1), target(2)]);
    l.targets[0].probability = Some(0.3);
    l.targets[1].probability = Some(0.7);
    let g = game(
        &["A"],
        vec![noop],
        vec![
            vec![player(0.0, vec![l])],
            vec![player(1.0, vec![])],
            vec![player(2.0, vec![])],
        ],
        st(&["a"], &[("S", 1, &[&["a"]])], &[]),
    );
    let g = Interpreter::new(&g).expect("loads");
    let s0 = g.initial_state();
    let mut ms = Vec::new();
    g.legal_moves(&s0, 0, &mut ms);
    assert_eq!(ms.len(), 1);
    let mut rng = rng_from_seed(2024);
    let n = 20_000;
    let mut ones = 0;
    for _ in 0..n {
        let mut s = s0.clone();
        g.apply(&mut s, &ms, &mut rng);
        match g.location(&s) {
            1 => ones += 1,
            2 => {}
            l => panic!("unexpected location {l}"),
        }
    }
    let freq = ones as f64 / n as f64;
    let bound = 3.291 * (0.3f64 * 0.7 / n as f64).sqrt();
    assert!((freq - 0.3).abs() < bound, "frequency {freq}");
}

/// A time interval with a drawn end-point: the grid uses the mean, the
/// chosen value is clamped into the realised interval.
#[test]
fn drawn_time_bounds() {
    let noop = rule(
        "Wait",
        side(&["x"], &[("S", &["x"])]),
        side(&["x"], &[("S", &["x"])]),
        &[],
    );
    let mut l = label("Wait", Multiplicity::One, vec![target(0)]);
    l.time = Some(Interval {
        lo: Bound::Num(0.0),
        hi: Bound::Drawn("T".into()),
    });
    l.targets[0].draws = vec![("T".into(), Distribution::Uniform { lo: 1.0, hi: 3.0 })];
    let g = game(
        &["A"],
        vec![noop],
        vec![vec![player(0.0, vec![l])]],
        st(&["a"], &[("S", 1, &[&["a"]])], &[]),
    );
    let g = Interpreter::new(&g).expect("loads");
    let s0 = g.initial_state();
    let mut ms = Vec::new();
    g.legal_moves(&s0, 0, &mut ms);
    let times: Vec<Option<f64>> = ms.iter().map(|m| m.time).collect();
    assert_eq!(times, vec![Some(0.0), Some(1.0), Some(2.0)]);
    // Choosing t = 2 gives min(2, T) with T ~ U(1, 3): mean 1.75.
    let mut rng = rng_from_seed(5);
    let n = 20_000;
    let mut sum = 0.0;
    for _ in 0..n {
        let mut s = s0.clone();
        g.apply(&mut s, &[ms[2].clone()], &mut rng);
        assert!(s.time <= 2.0 && s.time >= 1.0);
        sum += s.time;
    }
    let mean = sum / n as f64;
    // sd of min(2, U(1,3)) is below 0.4.
    assert!(
        (mean - 1.75).abs() < 3.291 * 0.4 / (n as f64).sqrt(),
        "mean {mean}"
    );
}

/// The standard normal CDF, by Abramowitz and Stegun 7.1.26 (absolute
/// error below 1.5e-7, far below what the test below can resolve).
fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    0.5 * (1.0 + erf.copysign(z))
}

/// The Kolmogorov-Smirnov distance between the sample `xs` (sorted) and
/// the CDF `cdf`.
fn ks_distance(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let n = xs.len() as f64;
    xs.iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).max((i + 1) as f64 / n - f)
        })
        .fold(0.0, f64::max)
}

/// Drawn end-points follow their distributions: the Kolmogorov-Smirnov
/// distance of 20,000 draws from each CDF is below its 1% critical value
/// 1.628 / sqrt(n), and the means lie within 3.29 standard errors.
#[test]
fn sampling_distributions() {
    // Tabled values of the standard normal CDF.
    for (z, p) in [
        (0.0, 0.5),
        (1.959_964, 0.975),
        (-1.0, 0.158_655_25),
        (3.0, 0.998_650_1),
    ] {
        assert!(
            (normal_cdf(z) - p).abs() < 1e-6,
            "Phi({z}) = {}",
            normal_cdf(z)
        );
    }
    let mut rng = rng_from_seed(11);
    let n = 20_000;
    type Cdf = Box<dyn Fn(f64) -> f64>;
    let cases: [(Distribution, f64, f64, Cdf); 3] = [
        (
            Distribution::Normal {
                mean: 1.0,
                std_dev: 2.0,
            },
            1.0,
            2.0,
            Box::new(|x| normal_cdf((x - 1.0) / 2.0)),
        ),
        (
            Distribution::Exponential { rate: 4.0 },
            0.25,
            0.25,
            Box::new(|x: f64| if x < 0.0 { 0.0 } else { 1.0 - (-4.0 * x).exp() }),
        ),
        (
            Distribution::Uniform { lo: -1.0, hi: 1.0 },
            0.0,
            (1.0f64 / 3.0).sqrt(),
            Box::new(|x: f64| ((x + 1.0) / 2.0).clamp(0.0, 1.0)),
        ),
    ];
    for (d, m, sd, cdf) in cases {
        let mut xs: Vec<f64> = (0..n).map(|_| sample(&d, &mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        assert!(
            (mean - m).abs() < 3.291 * sd / (n as f64).sqrt(),
            "{d:?}: mean {mean}"
        );
        xs.sort_by(f64::total_cmp);
        let ks = ks_distance(&xs, cdf);
        assert!(
            ks < 1.628 / (n as f64).sqrt(),
            "{d:?}: Kolmogorov-Smirnov distance {ks}"
        );
    }
    // The wrong distribution is told apart: normal draws against a normal
    // CDF with a standard deviation 10% too large.
    let mut xs: Vec<f64> = (0..n)
        .map(|_| {
            sample(
                &Distribution::Normal {
                    mean: 0.0,
                    std_dev: 1.0,
                },
                &mut rng,
            )
        })
        .collect();
    xs.sort_by(f64::total_cmp);
    let ks = ks_distance(&xs, |x| normal_cdf(x / 1.1));
    assert!(ks > 1.628 / (n as f64).sqrt(), "{ks}");
}

/// Same seed, same playout; the chance game mixes in random edges.
#[test]
fn determinism() {
    let g = game(
        &["A", "B"],
        vec![mark("MarkP", "P"), mark("MarkQ", "Q")],
        vec![
            vec![
                player(
                    1.0,
                    vec![label(
                        "MarkP",
                        Multiplicity::One,
                        vec![
                            Target {
                                location: 1,
                                probability: Some(0.5),
                                draws: vec![],
                            },
                            Target {
                                location: 0,
                                probability: Some(0.5),
                                draws: vec![],
                            },
                        ],
                    )],
                ),
                player(0.0, vec![]),
            ],
            vec![
                player(0.0, vec![]),
                player(
                    1.0,
                    vec![label("MarkQ", Multiplicity::One, vec![target(0)])],
                ),
            ],
        ],
        st(
            &["a", "b", "c", "d", "e", "f", "g", "h"],
            &[("P", 1, &[]), ("Q", 1, &[])],
            &[],
        ),
    );
    let g = Interpreter::new(&g).expect("loads");
    let play = |seed: u64| {
        let mut s = g.initial_state();
        let r = g.random_playout_from(&mut s, &mut rng_from_seed(seed), 1000);
        (r, s.structure.canonical(), s.location)
    };
    assert_eq!(play(42), play(42));
    let distinct: std::collections::BTreeSet<_> = (0..20).map(|seed| play(seed).1).collect();
    assert!(
        distinct.len() > 1,
        "different seeds should give different plays"
    );
}

/// Update equations go through the solver with left elements as constants.
#[test]
fn update_equations() {
    let mut start = st(&["a"], &[("S", 1, &[&["a"]])], &["v"]);
    let a = start.element("a").expect("a");
    start.set_fun_value(0, a, 1.5);
    let mut r = rule(
        "Inc",
        side(&["x"], &[("S", &["x"])]),
        side(&["x"], &[("S", &["x"])]),
        &[],
    );
    r.update = vec![ir::UpdateEquation {
        function: "v".into(),
        element: "x".into(),
        value: RealExpr::Add(
            Box::new(RealExpr::Fun {
                name: "v".into(),
                element: "x".into(),
            }),
            Box::new(RealExpr::Const(1.0)),
        ),
    }];
    let g = game(
        &["A"],
        vec![r],
        vec![vec![player(
            0.0,
            vec![label("Inc", Multiplicity::One, vec![target(0)])],
        )]],
        start,
    );
    let g = Interpreter::new(&g).expect("loads");
    let mut s = g.initial_state();
    let (plies, _) = g.random_playout_from(&mut s, &mut rng_from_seed(0), 3);
    assert_eq!(plies, 3);
    assert_eq!(s.structure.fun_value(0, a), 4.5);
}

#[test]
fn load_errors() {
    let g = game(
        &["A"],
        vec![mark("Mark", "P")],
        vec![vec![player(
            0.0,
            vec![label("Nope", Multiplicity::One, vec![target(0)])],
        )]],
        three_cells(),
    );
    assert!(Interpreter::new(&g).is_err());
    let g = game(
        &["A"],
        vec![mark("Mark", "P")],
        vec![vec![player(
            0.0,
            vec![label("Mark", Multiplicity::One, vec![target(3)])],
        )]],
        three_cells(),
    );
    assert!(Interpreter::new(&g).is_err());
}

/// Perft of tic-tac-toe at depth 6: 54720, because 1440 of the 15120
/// 5-move sequences are already won by x (terminal detection).
#[test]
fn tic_tac_toe_deep_perft() {
    let g = Interpreter::new(&tic_tac_toe()).expect("loads");
    let s = g.initial_state();
    assert_eq!(g.perft(&s, 5), 15120);
    assert_eq!(g.perft(&s, 6), 54720);
}

/// Perft of tic-tac-toe (9, 72, 504, 3024) and random playouts: a play
/// shorter than 9 plies was won by someone.
#[test]
fn tic_tac_toe_perft_and_playouts() {
    let g = Interpreter::new(&tic_tac_toe()).expect("loads");
    let s = g.initial_state();
    let stable: Vec<&str> = g
        .stable_relations()
        .iter()
        .map(|&r| s.structure.relation_name(r))
        .collect();
    assert_eq!(stable, vec!["R", "C"]);
    let counts: Vec<u64> = (1..=4).map(|d| g.perft(&s, d)).collect();
    assert_eq!(counts, vec![9, 72, 504, 3024]);
    let mut rng = rng_from_seed(9);
    for _ in 0..200 {
        let (plies, pay) = g.random_playout(&mut rng, 100);
        assert!((5..=9).contains(&plies));
        assert_eq!(pay[0], -pay[1]);
        if plies < 9 {
            assert_ne!(pay[0], 0.0);
        }
    }
}

/// Breakthrough on 8x8 without goal conditions (formula-free: measures
/// matching, application and state cloning).
fn breakthrough_moves_only() -> IrGame {
    let mut s = Structure::new();
    let name = |c: usize, r: usize| format!("{}{}", (b'a' + c as u8) as char, r + 1);
    for c in 0..8 {
        for r in 0..8 {
            s.add_element(&name(c, r));
        }
    }
    let rel_ids: Vec<RelId> = ["C", "DiagA", "DiagB", "W", "B"]
        .iter()
        .zip([2, 2, 2, 1, 1])
        .map(|(n, a)| s.declare_relation(n, a).expect("rel"))
        .collect();
    let e = |s: &Structure, c: usize, r: usize| s.element(&name(c, r)).expect("cell");
    for c in 0..8 {
        for r in 0..8 {
            let x = e(&s, c, r);
            if r + 1 < 8 {
                let y = e(&s, c, r + 1);
                s.add_tuple(rel_ids[0], &[x, y]);
                if c + 1 < 8 {
                    let y = e(&s, c + 1, r + 1);
                    s.add_tuple(rel_ids[1], &[x, y]);
                }
            }
            if r > 0 && c + 1 < 8 {
                let y = e(&s, c + 1, r - 1);
                s.add_tuple(rel_ids[2], &[x, y]);
            }
            if r < 2 {
                s.add_tuple(rel_ids[3], &[x]);
            }
            if r > 5 {
                s.add_tuple(rel_ids[4], &[x]);
            }
        }
    }
    // [a, b | me(a); step; _opt_other(b)] -> [a, b | me(b)] emb W, B
    let mv = |name: &str, me: &str, other: &str, step: (&str, [&str; 2]), capture: bool| {
        let opt = format!("_opt_{other}");
        let mut lhs: Vec<(&str, &[&str])> = vec![(me, &["a"]), (step.0, &step.1)];
        if capture {
            lhs.push((&opt, &["b"]));
        }
        rule(
            name,
            side(&["a", "b"], &lhs),
            side(&["a", "b"], &[(me, &["b"])]),
            &["W", "B"],
        )
    };
    let rules = vec![
        mv("WS", "W", "B", ("C", ["a", "b"]), false),
        mv("WA", "W", "B", ("DiagA", ["a", "b"]), true),
        mv("WB", "W", "B", ("DiagB", ["b", "a"]), true),
        mv("BS", "B", "W", ("C", ["b", "a"]), false),
        mv("BA", "B", "W", ("DiagA", ["b", "a"]), true),
        mv("BB", "B", "W", ("DiagB", ["a", "b"]), true),
    ];
    let lab = |r: &str, t: usize| label(r, Multiplicity::One, vec![target(t)]);
    game(
        &["white", "black"],
        rules,
        vec![
            vec![
                player(0.0, vec![lab("WS", 1), lab("WA", 1), lab("WB", 1)]),
                player(0.0, vec![]),
            ],
            vec![
                player(0.0, vec![]),
                player(0.0, vec![lab("BS", 0), lab("BA", 0), lab("BB", 0)]),
            ],
        ],
        s,
    )
}

/// Known Breakthrough perft values: 22, 484, 11132 (no game ends that early).
#[test]
fn breakthrough_perft() {
    let g = Interpreter::new(&breakthrough_moves_only()).expect("loads");
    let s = g.initial_state();
    assert_eq!(g.perft(&s, 1), 22);
    assert_eq!(g.perft(&s, 2), 484);
    assert_eq!(g.perft(&s, 3), 11132);
}

/// Timing of matching and application (run with --release --ignored
/// --nocapture).
#[test]
#[ignore = "timing"]
fn breakthrough_speed() {
    let g = Interpreter::new(&breakthrough_moves_only()).expect("loads");
    let s = g.initial_state();
    let t = std::time::Instant::now();
    let n = g.perft(&s, 4);
    let dt = t.elapsed().as_secs_f64();
    println!("perft(4) = {n} in {dt:.3}s ({:.0} leaves/s)", n as f64 / dt);
    let t = std::time::Instant::now();
    let mut rng = rng_from_seed(1);
    let mut plies = 0;
    let games = 2000;
    for _ in 0..games {
        plies += g.random_playout(&mut rng, 300).0;
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{games} playouts, {plies} plies in {dt:.3}s ({:.0} playouts/s, {:.0} plies/s)",
        games as f64 / dt,
        plies as f64 / dt
    );
}

/// Timing of tic-tac-toe playouts with the solver (run with --release
/// --ignored --nocapture).
#[test]
#[ignore = "timing"]
fn tic_tac_toe_speed() {
    let g = Interpreter::new(&tic_tac_toe()).expect("loads");
    let t = std::time::Instant::now();
    let mut rng = rng_from_seed(1);
    let games = 20_000;
    let mut plies = 0;
    for _ in 0..games {
        plies += g.random_playout(&mut rng, 100).0;
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{games} playouts, {plies} plies in {dt:.3}s ({:.0} playouts/s)",
        games as f64 / dt
    );
}

/// A payoff dividing by a fluent count: finite while the count is
/// positive, a fault naming the payoff and the state once it is 0.
const COUNT_DIVISOR: &str = "PLAYERS a
START [ x, y | P:1 {x; y} | ]
RULE Take: [z | P(z) | ] -> [z | | ] emb P
LOC 0 {
  PLAYER a { PAYOFF 1 / Sum (z | P(z) : 1) MOVES [Take -> 0] }
}
";

#[test]
fn payoff_not_finite_is_a_fault() {
    let ir = toss_lang::parse_game(COUNT_DIVISOR, "count.toss").expect("valid game");
    let g = Interpreter::new(&ir).expect("loads");
    let mut s = g.initial_state();
    let mut pay = [0.0];
    g.payoffs(&s, &mut pay);
    assert_eq!(pay, [0.5]);
    assert!(g.fault().is_none());
    let mut rng = rng_from_seed(1);
    let mut moves = Vec::new();
    while !g.is_terminal(&s) {
        g.legal_moves(&s, 0, &mut moves);
        g.apply(&mut s, &moves[..1], &mut rng);
    }
    g.payoffs(&s, &mut pay);
    let fault = g.fault().expect("a fault");
    assert!(
        fault.contains("payoff of player `a` in location 0 is inf") && fault.contains("P {}"),
        "{fault}"
    );
    // Faulted: every state is terminal, so plays stop.
    assert!(g.is_terminal(&g.initial_state()));
}
