//! The grounded form against the reasoner: seeded playouts in lockstep
//! (movers, legal sets in order, states, terminal, goals) and perft.

mod gdl_common;

use gdl_common::{corpus, game, read};
use toss_core::Game;
use toss_core::game::{index_below, rng_from_seed};
use toss_gdl::GdlGame;
use toss_gdl::ground::{GroundGame, GroundLimits};
use toss_gdl::kif::parse_gdl;

fn ground(rel: &str) -> GroundGame {
    let src = read(&corpus().join(rel));
    let desc = parse_gdl(&src, rel).unwrap_or_else(|_| panic!("{rel} parses"));
    GroundGame::from_description(&desc, GroundLimits::default())
        .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Plays `n` seeded random playouts on both at once, comparing everything
/// at every step; returns the number of steps compared.
fn lockstep(rel: &str, g: &GroundGame, r: &GdlGame, n: u64, max_steps: usize) -> usize {
    let mut steps = 0;
    for seed in 0..n {
        let mut rng = rng_from_seed(seed);
        let (mut s, mut t) = (g.initial_state(), r.initial_state());
        for step in 0..max_steps {
            let at = || format!("{rel} seed {seed} step {step}");
            assert_eq!(g.state_to_string(&s), r.state_to_string(&t), "{}", at());
            let term = g.is_terminal(&s);
            assert_eq!(term, r.is_terminal(&t), "terminal at {}", at());
            if term {
                break;
            }
            let mut joint_g = Vec::new();
            let mut joint_r = Vec::new();
            for p in 0..g.num_players() {
                let mut mg = Vec::new();
                let mut mr = Vec::new();
                g.legal_moves(&s, p, &mut mg);
                r.legal_moves(&t, p, &mut mr);
                let sg: Vec<String> = mg.iter().map(|m| g.move_to_string(&s, p, m)).collect();
                let sr: Vec<String> = mr.iter().map(|m| r.move_to_string(&t, p, m)).collect();
                assert_eq!(sg, sr, "legal moves of role {p} at {}", at());
                if mg.is_empty() {
                    return steps;
                }
                let i = index_below(&mut rng, mg.len());
                joint_g.push(mg[i]);
                joint_r.push(mr[i]);
            }
            g.apply(&mut s, &joint_g, &mut rng);
            r.apply(&mut t, &joint_r, &mut rng);
            steps += 1;
        }
        let term = g.is_terminal(&s);
        if term {
            assert_eq!(
                g.goal_values(&s),
                r.goal_values(&t),
                "{rel} seed {seed}: goals"
            );
        }
    }
    steps
}

#[test]
fn tictactoe_in_lockstep() {
    let g = ground("ticTacToe.kif");
    let r = game("ticTacToe.kif");
    assert!(lockstep("ticTacToe.kif", &g, &r, 200, 100) > 1000);
}

#[test]
#[ignore = "explores the whole corpus"]
fn corpus_summary() {
    let dir = corpus();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("corpus")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".kif"))
        .collect();
    names.sort();
    for n in names {
        let src = read(&dir.join(&n));
        let Ok(desc) = parse_gdl(&src, &n) else {
            println!("{n}: does not parse");
            continue;
        };
        let t0 = std::time::Instant::now();
        match GroundGame::from_description(&desc, GroundLimits::default()) {
            Ok(g) => {
                let p = g.program();
                let dt = t0.elapsed();
                let r = game(&n);
                let t1 = std::time::Instant::now();
                let steps = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    lockstep(&n, &g, &r, 5, 300)
                }));
                let t2 = std::time::Instant::now();
                let mut rng = rng_from_seed(1);
                let mut k = 0;
                while t2.elapsed().as_secs_f64() < 0.5 {
                    g.random_playout(&mut rng, 10_000);
                    k += 1;
                }
                let gps = k as f64 / t2.elapsed().as_secs_f64();
                let t3 = std::time::Instant::now();
                let mut k = 0;
                while t3.elapsed().as_secs_f64() < 0.5 {
                    r.random_playout(&mut rng, 10_000);
                    k += 1;
                }
                let rps = k as f64 / t3.elapsed().as_secs_f64();
                println!(
                    "{n}: ground {:.2}s, {} fluents {} gates {} lits {} loops; lockstep {:?} in {:.1}s; playouts/s ground {gps:.0} reasoner {rps:.0}",
                    dt.as_secs_f64(),
                    p.fluents.len(),
                    p.gates.len(),
                    p.num_literals(),
                    p.loops.len(),
                    steps.map_err(|e| e.downcast_ref::<String>().cloned().unwrap_or_default()),
                    t1.elapsed().as_secs_f64()
                );
            }
            Err(e) => println!("{n}: refused after {:.2}s: {e}", t0.elapsed().as_secs_f64()),
        }
    }
}

#[test]
#[ignore = "diagnostics"]
fn biggest_gates() {
    for n in std::env::var("GAMES").unwrap_or_default().split(',') {
        let g = ground(n);
        let p = g.program();
        let mut v: Vec<(usize, usize)> = p
            .gates
            .iter()
            .enumerate()
            .map(|(i, g)| (g.clauses.iter().map(Vec::len).sum(), i))
            .collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        println!(
            "== {n}: {} lits; state {} goal {} move {}",
            p.num_literals(),
            p.state_gates.len(),
            p.goal_gates.len(),
            p.move_gates.len()
        );
        let phase_lits = |r: std::ops::Range<usize>| -> usize {
            p.gates[r]
                .iter()
                .flat_map(|g| &g.clauses)
                .map(Vec::len)
                .sum()
        };
        println!(
            "lits: state {} goal {} move {}",
            phase_lits(p.state_gates.clone()),
            phase_lits(p.goal_gates.clone()),
            phase_lits(p.move_gates.clone())
        );
        for &(l, i) in v.iter().take(6) {
            let g = &p.gates[i];
            let ex: Vec<String> = g
                .clauses
                .iter()
                .take(3)
                .map(|c| {
                    c.iter()
                        .map(|&x| p.lit_name(x))
                        .collect::<Vec<_>>()
                        .join("&")
                })
                .collect();
            println!(
                "  g{i} {} lits={l} clauses={} e.g. {}",
                g.atom,
                g.clauses.len(),
                ex.join(" | ")
            );
        }
    }
}
