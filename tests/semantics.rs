//! Game semantics (spec 1.4) checked on `.toss` sources against facts worked
//! out by hand: multiplicity `*` with and without `post`, the limits that
//! stop a play with a fault instead of a wrong answer, Hex's connection
//! (a least fixed point), simultaneous moves with a clash, chance edges and
//! drawn interval end-points with their closed-form expectations.

use toss::{Game, Interpreter, rng_from_seed};

fn interpret(source: &str) -> Interpreter {
    toss::interpret(source, "t.toss").unwrap_or_else(|e| panic!("{}", e.rendered))
}

fn load(name: &str) -> Interpreter {
    let path = format!("{}/games/{name}.toss", env!("CARGO_MANIFEST_DIR"));
    let source = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    toss::interpret(&source, &format!("{name}.toss")).unwrap_or_else(|e| panic!("{e}"))
}

/// `n` elements `e1 .. en`, none in `P`, one player marking them with
/// multiplicity `*` (and the postcondition `post`, if any).
fn marks(n: usize, post: &str) -> String {
    let elems: Vec<String> = (1..=n).map(|i| format!("e{i}")).collect();
    format!(
        "PLAYERS a\n\
         RULE Mark: [x | P:1 {{}} | ] -> [x | P (x) | ] emb P {post}\n\
         LOC 0 {{ PLAYER a {{ MOVES [Mark, mult: * -> 1] }} }}\n\
         LOC 1 {{}}\n\
         START [ {} | P:1 {{}} | ]\n",
        elems.join(", ")
    )
}

/// Multiplicity `*`: one move per non-empty set of pairwise disjoint
/// matches. Twelve disjoint matches give 2^12 - 1 sets, all of them (no
/// cut), each a different move.
#[test]
fn any_multiplicity_lists_every_set() {
    let g = interpret(&marks(12, ""));
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    assert_eq!(moves.len(), 4095);
    let texts: std::collections::BTreeSet<String> =
        moves.iter().map(|m| g.move_to_string(&s, 0, m)).collect();
    assert_eq!(texts.len(), 4095, "every set once");
    // Lexicographic order of match indices: {e1}, {e1, e2}, ..., and {e12}
    // alone last.
    assert_eq!(g.move_to_string(&s, 0, &moves[0]), "Mark{x: e1}");
    assert_eq!(g.move_to_string(&s, 0, &moves[1]), "Mark{x: e1}{x: e2}");
    assert_eq!(g.move_to_string(&s, 0, &moves[4094]), "Mark{x: e12}");
    // Applying the set of all twelve marks every element.
    let all = moves
        .iter()
        .find(|m| m.matches.len() == 12)
        .expect("the full set")
        .clone();
    let mut t = s.clone();
    g.apply(&mut t, &[all], &mut rng_from_seed(1));
    let p = t.structure.relation("P").expect("P");
    assert_eq!(t.structure.relation_len(p), 12);
    assert!(g.fault().is_none());
}

/// `post` holds in the structure after the rewriting (spec 1.1); for a set
/// of matches that is after all of them. "At least two marks" fails after
/// any single mark, so with multiplicity 1 there is no move, and with `*`
/// exactly the sets of two or three of the three elements: 3 + 1 moves.
#[test]
fn any_multiplicity_checks_post_on_the_whole_set() {
    let post = "post ex y, z (P(y) and P(z) and y != z)";
    let g = interpret(&marks(3, post));
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    let texts: Vec<String> = moves.iter().map(|m| g.move_to_string(&s, 0, m)).collect();
    assert_eq!(
        texts,
        [
            "Mark{x: e1}{x: e2}",
            "Mark{x: e1}{x: e2}{x: e3}",
            "Mark{x: e1}{x: e3}",
            "Mark{x: e2}{x: e3}",
        ]
    );
    assert!(!g.is_terminal(&s));
    let single = marks(3, post).replace("mult: *", "mult: 1");
    let g1 = interpret(&single);
    assert!(g1.is_terminal(&g1.initial_state()));
}

/// More sets than [`toss::runtime::interpreter::ANY_MOVES_LIMIT`] (17
/// disjoint matches: 131,071 sets) stop the play with a fault that says
/// why, instead of offering some of the sets.
#[test]
fn too_many_any_sets_are_a_fault_not_a_cut() {
    assert_eq!(toss::runtime::interpreter::ANY_MOVES_LIMIT, 65_536);
    let g = interpret(&marks(16, ""));
    assert_eq!(g.perft(&g.initial_state(), 1), 65_535);
    assert!(g.fault().is_none());
    let g = interpret(&marks(17, ""));
    let s = g.initial_state();
    let (mut movers, mut moves) = (Vec::new(), Vec::new());
    g.movers_and_moves(&s, &mut movers, &mut moves);
    assert!(movers.is_empty(), "a faulted game has no moves");
    assert!(g.is_terminal(&s));
    let (plies, _) = g.random_playout(&mut rng_from_seed(1), 10);
    assert_eq!(plies, 0);
    let fault = g.fault().expect("a fault");
    assert!(
        fault.contains("multiplicity `*`") && fault.contains("17 matches"),
        "{fault}"
    );
}

/// A set variable inside a fixed point is decided by enumerating subsets:
/// right on a small structure, refused when loading a large one (instead
/// of running for ever or overflowing).
#[test]
fn enumerated_set_quantifiers_are_limited() {
    // `Sep()`: some set X contains the source s, is closed under E inside
    // X's complement... simply: some X with s in X from which t is not
    // E-reachable through X. On the path s - m - t, X = {s} works.
    let game = |n: usize| {
        let extra: Vec<String> = (1..=n).map(|i| format!("z{i}")).collect();
        format!(
            "PLAYERS a\n\
             REL Sep() = ex X (ex x (S(x) and x in X) and \
               not (ex y (T(y) and (lfp Q(y) = y in X and (S(y) or ex w (Q(w) and E(w, y)))))))\n\
             RULE Go: [x | S (x) | ] -> [x | S (x) | ] pre Sep()\n\
             LOC 0 {{ PLAYER a {{ MOVES [Go -> 1] }} }}\n\
             LOC 1 {{}}\n\
             START [ s, m, t{} | S {{ s }}; T {{ t }}; E {{ (s, m); (m, t) }} | ]\n",
            extra.iter().map(|e| format!(", {e}")).collect::<String>()
        )
    };
    // 3 elements: X = {s} separates, so the move exists.
    let g = interpret(&game(0));
    assert_eq!(g.perft(&g.initial_state(), 1), 1);
    // 25 elements: refused at load, with the reason.
    let err = match toss::interpret(&game(22), "t.toss") {
        Ok(_) => panic!("a set quantifier over 25 elements must be refused"),
        Err(e) => e.rendered,
    };
    assert!(
        err.contains("2^25") && err.contains("limited to 20"),
        "{err}"
    );
}

/// Hex: red connects bottom and top with a chain that uses the one
/// diagonal of the sheared grid (f10 to e11 is a neighbour); the other
/// diagonal (f10 to g11) is not, so that chain does not win.
#[test]
fn hex_connection_is_hexagonal_adjacency() {
    let g = load("hex");
    let play = |last: &str| {
        let mut s = g.initial_state();
        let mut rng = rng_from_seed(1);
        let mut cells: Vec<String> = Vec::new();
        for r in 1..=10 {
            cells.push(format!("PlaceRed{{a: f{r}}}"));
            cells.push(format!("PlaceBlue{{a: a{r}}}"));
        }
        cells.push(format!("PlaceRed{{a: {last}}}"));
        for (i, want) in cells.iter().enumerate() {
            assert!(!g.is_terminal(&s), "ended before move {i}");
            let mut movers = Vec::new();
            g.movers(&s, &mut movers);
            let mut moves = Vec::new();
            g.legal_moves(&s, movers[0], &mut moves);
            let m = moves
                .iter()
                .find(|m| g.move_to_string(&s, movers[0], m) == *want)
                .unwrap_or_else(|| panic!("{want} is not legal"))
                .clone();
            g.apply(&mut s, &[m], &mut rng);
        }
        s
    };
    let won = play("e11");
    assert!(g.is_terminal(&won));
    let mut p = [0.0; 2];
    g.payoffs(&won, &mut p);
    assert_eq!(p, [1.0, -1.0]);
    let not_yet = play("g11");
    assert!(!g.is_terminal(&not_yet));
    g.payoffs(&not_yet, &mut p);
    assert_eq!(p, [0.0, 0.0]);
}

/// Concurrent tic-tac-toe: both players choose b2 at once; the cell gets
/// both marks, neither can choose it again, and a diagonal through it
/// counts for nobody.
#[test]
fn concurrent_tic_tac_toe_clash() {
    let g = load("concurrent-tic-tac-toe");
    let mut s = g.initial_state();
    let mut rng = rng_from_seed(1);
    let turn =
        |s: &mut toss::runtime::interpreter::State, x: &str, o: &str, rng: &mut toss::Rng| {
            let mut movers = Vec::new();
            g.movers(s, &mut movers);
            assert_eq!(movers, [0, 1], "both move");
            let pick = |p: usize, name: &str| {
                let mut moves = Vec::new();
                g.legal_moves(s, p, &mut moves);
                moves
                    .into_iter()
                    .find(|m| {
                        g.move_to_string(s, p, m)
                            .ends_with(&format!("{{a: {name}}}"))
                    })
                    .unwrap_or_else(|| panic!("{name} not legal for player {p}"))
            };
            let joint = [pick(0, x), pick(1, o)];
            g.apply(s, &joint, rng);
        };
    turn(&mut s, "b2", "b2", &mut rng);
    let b2 = s.structure.element("b2").expect("b2");
    for r in ["P", "Q"] {
        let rel = s.structure.relation(r).expect(r);
        assert!(s.structure.contains(rel, &[b2]), "b2 in {r}");
    }
    for p in 0..2 {
        let mut moves = Vec::new();
        g.legal_moves(&s, p, &mut moves);
        assert_eq!(moves.len(), 8, "b2 is blocked for player {p}");
    }
    turn(&mut s, "a1", "a2", &mut rng);
    turn(&mut s, "c3", "c1", &mut rng);
    // x holds a1 and c3 around the blocked b2: no line, play goes on.
    assert!(!g.is_terminal(&s));
    let mut p = [9.0; 2];
    g.payoffs(&s, &mut p);
    assert_eq!(p, [0.0, 0.0]);
}

/// Dice: the roll's three edges (probabilities 1/2, 1/4, 1/4) are taken
/// with those frequencies, within 4.5 standard errors over 20,000 rolls.
#[test]
fn dice_roll_frequencies() {
    let g = load("dice");
    let s = g.initial_state();
    let mut moves = Vec::new();
    g.legal_moves(&s, 0, &mut moves);
    assert_eq!(moves.len(), 1, "rolling is the only move");
    let n = 20_000;
    let mut counts = [0usize; 4];
    let mut rng = rng_from_seed(5);
    for _ in 0..n {
        let mut t = s.clone();
        g.apply(&mut t, std::slice::from_ref(&moves[0]), &mut rng);
        counts[g.location(&t)] += 1;
    }
    assert_eq!(counts[0], 0);
    for (loc, p) in [(1, 0.5), (2, 0.25), (3, 0.25)] {
        let f = counts[loc] as f64 / n as f64;
        let se = (p * (1.0 - p) / n as f64).sqrt();
        assert!((f - p).abs() < 4.5 * se, "location {loc}: {f} vs {p}");
    }
}

/// Drawn interval end-points (spec 1.4: `x ~ N(mu, sigma)`, `U(a, b)`,
/// `E(lambda)`): a player waits for the largest time on offer, t, in the
/// interval `0 -- T` with `T` drawn on the edge; the time that passes is
/// t clamped into the drawn interval, `min(t, T)`, whose mean has a closed
/// form for each distribution.
#[test]
fn drawn_end_points_follow_their_distributions() {
    // Standard normal density and upper tail.
    let phi = |z: f64| (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    for (dist, expected) in [
        // E min(t, T), T ~ Exp(2), t = 0.5 (the grid's top: the mean).
        (
            "exp(2)",
            Box::new(|t: f64| (1.0 - (-2.0 * t).exp()) / 2.0) as Box<dyn Fn(f64) -> f64>,
        ),
        // T ~ U(0, 1): t^2 / 2 + t (1 - t).
        (
            "uniform(0, 1)",
            Box::new(|t: f64| t * t / 2.0 + t * (1.0 - t)),
        ),
        // T ~ N(1, 0.1): t - E (t - T)^+, with z = (t - mu) / sigma:
        // E (t - T)^+ = sigma (phi(z) + z Phi(z)); at t = mu, sigma phi(0).
        (
            "normal(1, 0.1)",
            Box::new(move |t: f64| {
                assert!((t - 1.0).abs() < 1e-12, "the grid's top is the mean");
                t - 0.1 * phi(0.0)
            }),
        ),
    ] {
        let src = format!(
            "PLAYERS a\n\
             RULE Wait: [x | P (x) | ] -> [x | P (x) | ]\n\
             LOC 0 {{ PLAYER a {{ MOVES [Wait, t: 0 -- T -> 1 (T ~ {dist})] }} }}\n\
             LOC 1 {{}}\n\
             START [ e | P {{ e }} | ]\n"
        );
        let g = interpret(&src);
        let s = g.initial_state();
        let mut moves = Vec::new();
        g.legal_moves(&s, 0, &mut moves);
        let m = moves
            .iter()
            .max_by(|a, b| a.time.partial_cmp(&b.time).expect("times"))
            .expect("a move")
            .clone();
        let t = m.time.expect("a time");
        let n = 20_000;
        let mut rng = rng_from_seed(11);
        let mut sum = 0.0;
        let mut sum2 = 0.0;
        for _ in 0..n {
            let mut u = s.clone();
            g.apply(&mut u, std::slice::from_ref(&m), &mut rng);
            sum += u.time;
            sum2 += u.time * u.time;
        }
        let mean = sum / n as f64;
        let se = ((sum2 / n as f64 - mean * mean) / n as f64).sqrt();
        let want = expected(t);
        assert!(
            (mean - want).abs() < 4.5 * se,
            "{dist}: mean time {mean} +- {se}, closed form {want} (t = {t})"
        );
    }
}
