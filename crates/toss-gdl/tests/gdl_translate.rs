//! The translation to Toss (spec chapter 5) checked against the spec's
//! worked example and, game by game, against the reasoner: every state of
//! seeded playouts encodes into a structure that decodes back to the same
//! fluents, and the translated `terminal` and goals, evaluated by the
//! Toss solver on that structure, agree with the reasoner's.

mod gdl_common;

use gdl_common::{corpus, game, read};
use toss_core::Game;
use toss_core::game::{index_below, rng_from_seed};
use toss_core::ir::Formula;
use toss_gdl::GdlGame;
use toss_gdl::kif::{load_game, parse_gdl};
use toss_gdl::translate::{Translation, translate, translate_structure};
use toss_runtime::Interpreter;
use toss_runtime::solver::Solver;

/// Figure 5.1 of the spec: tic-tac-toe as the translation chapter gives it.
const FIGURE_5_1: &str = "
(role x) (role o)
(init (cell a a b)) (init (cell b a b)) (init (cell c a b))
(init (cell a b b)) (init (cell b b b)) (init (cell c b b))
(init (cell a c b)) (init (cell b c b)) (init (cell c c b))
(init (control x))
(<= (next (control ?r)) (does ?r noop))
(<= (next (cell ?x ?y ?r)) (does ?r (mark ?x ?y)))
(<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does ?r (mark ?x1 ?y1))
  (or (distinct ?x ?x1) (distinct ?y ?y1)))
(<= (legal ?r (mark ?x ?y)) (true (control ?r)) (true (cell ?x ?y b)))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (goal ?r 100) (conn3 ?r))
(<= (goal ?r 50) (role ?r) (not exists_line3))
(<= (goal x 0) (conn3 o))
(<= (goal o 0) (conn3 x))
(<= terminal exists_line3)
(<= terminal (not exists_blank))
(<= exists_blank (true (cell ?x ?y b)))
(<= exists_line3 (role ?r) (conn3 ?r))
(<= (conn3 ?r) (or (col ?r) (row ?r) (diag1 ?r) (diag2 ?r)))
(<= (row ?r) (true (cell ?a ?y ?r)) (nextcol ?a ?b) (true (cell ?b ?y ?r))
  (nextcol ?b ?c) (true (cell ?c ?y ?r)))
(<= (col ?r) (true (cell ?x ?a ?r)) (nextcol ?a ?b) (true (cell ?x ?b ?r))
  (nextcol ?b ?c) (true (cell ?x ?c ?r)))
(<= (diag1 ?r) (true (cell ?x1 ?y1 ?r)) (nextcol ?x1 ?x2) (nextcol ?y1 ?y2)
  (true (cell ?x2 ?y2 ?r)) (nextcol ?x2 ?x3) (nextcol ?y2 ?y3) (true (cell ?x3 ?y3 ?r)))
(<= (diag2 ?r) (true (cell ?x1 ?y5 ?r)) (nextcol ?x1 ?x2) (nextcol ?y4 ?y5)
  (true (cell ?x2 ?y4 ?r)) (nextcol ?x2 ?x3) (nextcol ?y3 ?y4) (true (cell ?x3 ?y3 ?r)))
(nextcol a b)
(nextcol b c)
";

/// Examples 12, 17 and 18: the fluent paths, the elements, the coordinate
/// paths and the predicates of the translated tic-tac-toe.
#[test]
fn spec_examples_12_17_18() {
    let desc = parse_gdl(FIGURE_5_1, "figure-5-1.kif").expect("parses");
    let t = translate(&desc).expect("translates");
    let explain = t.explain();
    assert!(
        explain.contains("cell/3: fluent path (cell,3)"),
        "{explain}"
    );
    assert!(
        explain.contains("control/1: fluent path (control,1)"),
        "{explain}"
    );
    assert!(
        explain.contains("coordinate paths: (cell,1) (cell,2)\n"),
        "{explain}"
    );
    let s = &t.game.start;
    // 10 elements: the control element and the 9 cells.
    assert_eq!(s.num_elements(), 10);
    let members = |pred: &str| -> Vec<String> {
        let r = s
            .relation(pred)
            .unwrap_or_else(|| panic!("{pred} declared"));
        let mut v: Vec<String> = s
            .tuples(r)
            .iter()
            .map(|t| s.element_name(t[0]).to_string())
            .collect();
        v.sort();
        v
    };
    // Fluent predicates: b, x, o at (cell,3); x, o at (control,1). In the
    // start, every cell is blank and x has control.
    assert_eq!(members("cell3_b").len(), 9);
    assert!(members("cell3_x").is_empty() && members("cell3_o").is_empty());
    assert_eq!(members("control1_x"), vec!["control".to_string()]);
    assert!(members("control1_o").is_empty());
    // Coordinate predicates: 6, e.g. (cell,2) = a is the bottom row.
    assert_eq!(members("cell2_a"), vec!["cell_a_a", "cell_b_a", "cell_c_a"]);
    for p in ["cell1_a", "cell1_b", "cell1_c", "cell2_b", "cell2_c"] {
        assert_eq!(members(p).len(), 3, "{p}");
    }
    // Root predicates: the control element, and the 9 board elements.
    assert_eq!(members("Root_control"), vec!["control".to_string()]);
    assert_eq!(members("Root_cell").len(), 9);
    // The start decodes back to the init facts.
    let mut init: Vec<String> = ["a", "b", "c"]
        .iter()
        .flat_map(|y| ["a", "b", "c"].map(|x| format!("(cell {x} {y} b)")))
        .collect();
    init.push("(control x)".to_string());
    init.sort();
    assert_eq!(t.decode(s), init);
}

/// The solver's verdicts on the translated `terminal` and goals.
struct Verdicts {
    solver: Solver,
    terminal: Option<toss_runtime::solver::FormulaId>,
    goals: Vec<Vec<(u64, toss_runtime::solver::FormulaId)>>,
}

fn verdicts(t: &Translation) -> Verdicts {
    let mut solver = Solver::new(&t.game.start, &t.game.defined_relations).expect("compiles");
    let mut f = |name: &str| {
        solver
            .compile_formula(
                &Formula::Rel {
                    name: name.to_string(),
                    args: Vec::new(),
                },
                &[],
                &[],
            )
            .expect("compiles")
    };
    let terminal = t.terminal_relation().map(&mut f);
    let goals = t
        .goal_relations()
        .iter()
        .map(|gs| gs.iter().map(|(v, n)| (*v, f(n))).collect())
        .collect();
    Verdicts {
        solver,
        terminal,
        goals,
    }
}

/// Seeded playouts on the reasoner; at every state, the encoding round
/// trip and the translated terminal and goals. Returns the states checked.
fn check_formulas(
    rel: &str,
    g: &GdlGame,
    t: &Translation,
    playouts: u64,
    max_steps: usize,
) -> usize {
    let v = verdicts(t);
    let mut checked = 0;
    for seed in 0..playouts {
        let mut rng = rng_from_seed(seed);
        let mut s = g.initial_state();
        for step in 0..max_steps {
            let at = || format!("{rel} seed {seed} step {step}");
            let fluents: Vec<String> = s.0.iter().map(|&f| g.term_to_string(f)).collect();
            let st = t
                .encode(fluents.iter().map(String::as_str))
                .unwrap_or_else(|| panic!("a fluent outside the aggregate playout at {}", at()));
            let mut sorted = fluents.clone();
            sorted.sort();
            assert_eq!(t.decode(&st), sorted, "round trip at {}", at());
            if step == 0 {
                // The relations the simplifications add are in every
                // encoded state, as in the start.
                assert_eq!(
                    st.canonical(),
                    t.game.start.canonical(),
                    "start at {}",
                    at()
                );
            }
            let term = g.is_terminal(&s);
            if let Some(tf) = v.terminal {
                assert_eq!(
                    v.solver.holds(&st, tf, &[], &[]),
                    term,
                    "terminal at {}",
                    at()
                );
            }
            let goals = g.goal_values(&s);
            for (r, gs) in v.goals.iter().enumerate() {
                let mine: Vec<u64> = gs
                    .iter()
                    .filter(|(_, f)| v.solver.holds(&st, *f, &[], &[]))
                    .map(|(x, _)| *x)
                    .collect();
                let mut theirs = goals[r].clone();
                theirs.sort_unstable();
                theirs.dedup();
                assert_eq!(mine, theirs, "goals of role {r} at {}", at());
            }
            checked += 1;
            if term {
                break;
            }
            let mut joint = Vec::new();
            for p in 0..g.num_players() {
                let mut ms = Vec::new();
                g.legal_moves(&s, p, &mut ms);
                if ms.is_empty() {
                    return checked;
                }
                joint.push(ms[index_below(&mut rng, ms.len())]);
            }
            g.apply(&mut s, &joint, &mut rng);
        }
    }
    checked
}

#[test]
fn figure_5_1_formulas_agree_with_the_reasoner() {
    let desc = parse_gdl(FIGURE_5_1, "figure-5-1.kif").expect("parses");
    let t = translate(&desc).expect("translates");
    let g = load_game(FIGURE_5_1, "figure-5-1.kif").expect("loads");
    // 200 playouts reach every kind of end: rows, columns, diagonals, draws.
    assert!(check_formulas("figure 5.1", &g, &t, 200, 20) > 1000);
    assert!(check_rules("figure 5.1", &g, &t, 200, 20) > 1000);
}

/// Figure 5.1 written the way many corpus games are: the legal move is a
/// variable bound by a helper relation, and the frame clause reads
/// relations that use `does` (one with a variable of its own, `?x` of
/// `markedRow`), negated and positive. Expanding the game (unfolding
/// `legal`, inlining those relations) must give the same game.
#[test]
fn expanded_legal_and_does_relations_agree_with_the_reasoner() {
    let frame = "(<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (does ?r (mark ?x1 ?y1))
  (or (distinct ?x ?x1) (distinct ?y ?y1)))";
    let legal = "(<= (legal ?r (mark ?x ?y)) (true (control ?r)) (true (cell ?x ?y b)))";
    assert!(FIGURE_5_1.contains(frame) && FIGURE_5_1.contains(legal));
    let text = FIGURE_5_1
        .replace(
            frame,
            "(<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (not (markedRow ?y)))
(<= (next (cell ?x ?y ?c)) (true (cell ?x ?y ?c)) (markedRow ?y) (not (marked ?x ?y)))
(<= (markedRow ?y) (does ?r (mark ?x ?y)))
(<= (marked ?x ?y) (does ?r (mark ?x ?y)))",
        )
        .replace(
            legal,
            "(<= (legal ?r ?m) (true (control ?r)) (canMark ?m))
(<= (canMark (mark ?x ?y)) (true (cell ?x ?y b)))",
        );
    let desc = parse_gdl(&text, "expanded.kif").expect("parses");
    let t = translate(&desc).expect("translates");
    let g = load_game(&text, "expanded.kif").expect("loads");
    assert!(check_formulas("expanded", &g, &t, 200, 20) > 1000);
    assert!(check_rules("expanded", &g, &t, 200, 20) > 1000);
}

/// Seeded playouts on the reasoner and the interpreted translation in
/// lockstep (Theorem 11): at every step the translated moves map one to
/// one onto the reasoner's legal moves of the mover (every other role has
/// only its idle move), "no Toss move" exactly when `terminal`, the states
/// decode to the same fluents, and the payoffs at the end are the goals.
/// Returns the steps compared.
/// Plays the update plies that follow a move (moves as marks): each has
/// exactly one move, of the same mover.
fn settle(
    t: &Translation,
    interp: &Interpreter,
    ts: &mut toss_runtime::interpreter::State,
    rng: &mut toss_core::game::Rng,
    at: &str,
) {
    loop {
        let mut movers = Vec::new();
        interp.movers(ts, &mut movers);
        let [p] = movers[..] else { return };
        let labels = &t.game.locations[ts.location].players[p].moves;
        if labels.iter().any(|l| t.is_move_rule(&l.rule)) {
            return;
        }
        let mut ms = Vec::new();
        interp.legal_moves(ts, p, &mut ms);
        assert_eq!(ms.len(), 1, "one move of an update ply at {at}");
        interp.apply(ts, &ms, rng);
    }
}

fn check_rules(rel: &str, g: &GdlGame, t: &Translation, playouts: u64, max_steps: usize) -> usize {
    let interp = Interpreter::new(&t.game).unwrap_or_else(|e| panic!("{rel}: {e:?}"));
    let mut steps = 0;
    for seed in 0..playouts {
        let mut rng = rng_from_seed(seed);
        let mut s = g.initial_state();
        let mut ts = interp.initial_state();
        for step in 0..max_steps {
            let at = || format!("{rel} seed {seed} step {step}");
            let mut fl: Vec<String> = s.0.iter().map(|&f| g.term_to_string(f)).collect();
            fl.sort();
            assert_eq!(t.decode(&ts.structure), fl, "state at {}", at());
            let term = g.is_terminal(&s);
            // The translated moves of every role, as GDL moves.
            let mut movers = Vec::new();
            interp.movers(&ts, &mut movers);
            let mut toss_moves: Vec<(usize, String, toss_runtime::interpreter::Move)> = Vec::new();
            for &p in &movers {
                let mut ms = Vec::new();
                interp.legal_moves(&ts, p, &mut ms);
                for m in ms {
                    let label = &t.game.locations[ts.location].players[p].moves[m.label];
                    let names: Vec<&str> = m.matches[0]
                        .elems
                        .iter()
                        .map(|&e| ts.structure.element_name(e))
                        .collect();
                    let (role, kif) = t
                        .gdl_move(&label.rule, &names)
                        .unwrap_or_else(|| panic!("rule {} has a move at {}", label.rule, at()));
                    assert_eq!(role, p, "the rule's role at {}", at());
                    toss_moves.push((p, kif, m));
                }
            }
            assert_eq!(
                toss_moves.is_empty(),
                term,
                "no Toss move iff terminal at {}",
                at()
            );
            if term {
                let mut pay = vec![0.0; g.num_players()];
                interp.payoffs(&ts, &mut pay);
                let goals = g.goal_values(&s);
                for (r, gv) in goals.iter().enumerate() {
                    if gv.len() == 1 {
                        assert_eq!(pay[r], gv[0] as f64, "payoff of role {r} at {}", at());
                    }
                }
                break;
            }
            let mut joint = Vec::new();
            let mut tjoint = vec![None; g.num_players()];
            for (p, chosen) in tjoint.iter_mut().enumerate() {
                let mut ms = Vec::new();
                g.legal_moves(&s, p, &mut ms);
                let mut theirs: Vec<String> = ms.iter().map(|m| g.term_to_string(m.0)).collect();
                theirs.sort();
                let mut mine: Vec<String> = toss_moves
                    .iter()
                    .filter(|(q, _, _)| *q == p)
                    .map(|(_, k, _)| k.clone())
                    .collect();
                mine.sort();
                if movers.contains(&p) {
                    assert_eq!(mine, theirs, "legal moves of role {p} at {}", at());
                } else {
                    assert_eq!(theirs.len(), 1, "an idle role has one move at {}", at());
                }
                if ms.is_empty() {
                    return steps;
                }
                let i = index_below(&mut rng, ms.len());
                joint.push(ms[i]);
                if movers.contains(&p) {
                    let kif = g.term_to_string(ms[i].0);
                    *chosen = toss_moves
                        .iter()
                        .find(|(q, k, _)| *q == p && *k == kif)
                        .map(|(_, _, m)| m.clone());
                }
            }
            g.apply(&mut s, &joint, &mut rng);
            let tj: Vec<_> = movers
                .iter()
                .map(|&q| tjoint[q].clone().expect("each mover's move is translated"))
                .collect();
            interp.apply(&mut ts, &tj, &mut rng);
            settle(t, &interp, &mut ts, &mut rng, &at());
            steps += 1;
        }
    }
    steps
}

fn corpus_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus())
        .expect("the corpus directory lists")
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.ends_with(".kif").then_some(n)
        })
        .collect();
    names.sort();
    // A debugging aid: one game (or the games with this prefix) only.
    if let Ok(only) = std::env::var("TOSS_TRANSLATE_ONLY") {
        names.retain(|n| n.starts_with(&only));
    }
    names
}

/// Every corpus game's structure and formulas: translated and checked, or
/// refused with a reason from the closed list.
#[test]
fn corpus_structure_and_formulas() {
    let mut report = Vec::new();
    let mut translated = 0;
    let names = corpus_names();
    for n in &names {
        let desc = parse_gdl(&read(&corpus().join(n)), n).expect("parses");
        match translate_structure(&desc) {
            Ok(t) => {
                let states = check_formulas(n, &game(n), &t, 5, 300);
                translated += 1;
                report.push(format!("{n}: {states} states agree"));
            }
            Err(r) => report.push(format!("{n}: refused: {r}")),
        }
        eprintln!("{}", report.last().expect("one line per game"));
    }
    eprintln!(
        "structure and formulas translated for {translated} of {}",
        names.len()
    );
    if std::env::var("TOSS_TRANSLATE_ONLY").is_err() {
        // The count reached when these checks were written: a regression
        // fails here.
        assert!(translated >= 57, "{}", report.join("\n"));
    }
}

/// Every corpus game: translated whole (rules and locations too) and
/// checked in lockstep with the reasoner, or refused with a reason.
#[test]
fn corpus_translated_games_agree_with_the_reasoner() {
    let mut report = Vec::new();
    let mut translated = 0;
    let names = corpus_names();
    for n in &names {
        let desc = parse_gdl(&read(&corpus().join(n)), n).expect("parses");
        let started = std::time::Instant::now();
        match translate(&desc) {
            Ok(t) => {
                let secs = started.elapsed().as_secs_f64();
                if std::env::var("TOSS_TRANSLATE_PRINT").is_ok() {
                    eprintln!("{}", toss_lang::print::print_game(&t.game));
                }
                let g = game(n);
                let states = check_formulas(n, &g, &t, 5, 300);
                // Update plies make a play tens of times longer on the
                // interpreter (englishDraughts: seconds): 5 playouts here,
                // 1,000 in the ignored check.
                let updates = t.game.rules.iter().any(|r| !t.is_move_rule(&r.name));
                let playouts = if updates { 5 } else { 20 };
                let steps = check_rules(n, &g, &t, playouts, 300);
                translated += 1;
                report.push(format!(
                    "{n}: translated in {secs:.2}s, {} rules, {states} states and {steps} moves agree",
                    t.game.rules.len()
                ));
            }
            Err(r) => report.push(format!("{n}: refused: {r}")),
        }
        eprintln!("{}", report.last().expect("one line per game"));
    }
    eprintln!("translated {translated} of {}", names.len());
    if std::env::var("TOSS_TRANSLATE_ONLY").is_err() {
        assert!(translated >= 52, "{}", report.join("\n"));
        // escortLatch and buttons count their steps (a counter, an element
        // per value); queens08lg and max_knights have fluents no frame
        // clause copies. (escortLatch fails the ignored 1,000-playout
        // check: a pass at one's own turn, never sampled, has no rule.)
        // The rest have moves as marks and update plies: a drop or a jump
        // changes squares the move does not name (connect4, chineseCheckers3,
        // hanoi, nim1, pentago), a frame clause reads the state (chomp,
        // checkLines), a relation uses `does` inside a condition (2pffa,
        // lightsOut); and games whose turns follow no cycle of single movers
        // have every role move at every joint move (roshambo2, blocker,
        // mummymaze2p, englishDraughts, kalaha_2009).
        for must in [
            "ticTacToe.kif",
            "connectFour.kif",
            "breakthrough.kif",
            "escortLatch.kif",
            "buttons.kif",
            "queens08lg.kif",
            "max_knights.kif",
            "connect4.kif",
            "chineseCheckers3.kif",
            "hanoi.kif",
            "nim1.kif",
            "pentago.kif",
            "chomp.kif",
            "checkLines.kif",
            "2pffa.kif",
            "lightsOut.kif",
            "checkers.kif",
            "roshambo2.kif",
            "blocker.kif",
            "mummymaze2p.kif",
            "englishDraughts.kif",
            "kalaha_2009.kif",
            // Recursive relations (least fixed points, and reversi's piece
            // count as shared relations).
            "coins.kif",
            "reversi.kif",
        ] {
            assert!(
                report
                    .iter()
                    .any(|l| l.starts_with(&format!("{must}: translated"))),
                "{must} not translated"
            );
        }
    }
}

/// Perft of the translated game on the interpreter equals the reasoner's
/// at every depth up to `depth`.
fn perft_agrees(name: &str, depth: usize) {
    let g = game(name);
    let desc = parse_gdl(&read(&corpus().join(name)), name).expect("parses");
    let t = translate(&desc).expect("translates");
    let interp = Interpreter::new(&t.game).expect("loads");
    let (s, ts) = (g.initial_state(), interp.initial_state());
    for d in 1..=depth {
        assert_eq!(interp.perft(&ts, d), g.perft(&s, d), "{name} perft {d}");
    }
}

/// Perft counts of translated games against the reasoner's, at depths the
/// default run affords (tic-tac-toe 1-5, Connect Four and Breakthrough 1-3).
#[test]
fn translated_perft_equals_the_reasoners() {
    perft_agrees("ticTacToe.kif", 5);
    perft_agrees("connectFour.kif", 3);
    perft_agrees("breakthroughSmall.kif", 3);
    // Moves as marks and update plies (a drop changes a square it does
    // not name).
    perft_agrees("connect4.kif", 3);
    perft_agrees("nim1.kif", 3);
    // Recursive relations as least fixed points; reversi's piece count, a
    // DAG of relations per ground instance, shared by the solver.
    perft_agrees("coins.kif", 3);
    perft_agrees("reversi.kif", 4);
}

/// The same to the depths of the list where a game translates
/// (tic-tac-toe 1-9, Breakthrough 1-4, connect4 1-7, reversi 1-6) and
/// connectFour 1-6.
#[test]
#[ignore]
fn translated_perft_equals_the_reasoners_deep() {
    perft_agrees("ticTacToe.kif", 9);
    perft_agrees("connectFour.kif", 6);
    perft_agrees("breakthrough.kif", 4);
    perft_agrees("connect4.kif", 7);
    perft_agrees("reversi.kif", 6);
}

/// A relation that calls itself on the same shape of arguments (coins'
/// `zerobetween ?x ?y` through `zerobetween ?z ?y`) becomes a least fixed
/// point; the argument every call passes on unchanged (`?y`) is a free
/// parameter, so the fixed point is unary (computed set at a time).
#[test]
fn recursive_relations_become_least_fixed_points() {
    let n = "coins.kif";
    let desc = parse_gdl(&read(&corpus().join(n)), n).expect("parses");
    let t = translate(&desc).expect("translates");
    let between: Vec<&toss_core::ir::DefinedRelation> = t
        .game
        .defined_relations
        .iter()
        .filter(|d| d.name.starts_with("zerobetween_") && d.params.len() == 2)
        .collect();
    assert!(!between.is_empty());
    for d in between {
        match &d.body {
            Formula::Fixpoint { params, .. } => assert_eq!(params, &vec!["p1".to_string()]),
            b => panic!("{}: not a fixed point: {b:?}", d.name),
        }
    }
}

/// The printed translation parses back, and translating twice prints the
/// same bytes.
#[test]
fn printed_translation_parses_back_and_is_stable() {
    for n in [
        "ticTacToe.kif",
        "breakthrough.kif",
        "connectFour.kif",
        "connect4.kif",
    ] {
        let desc = parse_gdl(&read(&corpus().join(n)), n).expect("parses");
        let a = toss_lang::print::print_game(&translate(&desc).expect("translates").game);
        let b = toss_lang::print::print_game(&translate(&desc).expect("translates").game);
        assert_eq!(a, b, "{n}: two translations differ");
        let back = toss_lang::parse_game(&a, n).unwrap_or_else(|ds| {
            panic!("{n}: {}", toss_lang::render_diagnostics(&ds, &a, n, false))
        });
        assert_eq!(
            toss_lang::print::print_game(&back),
            a,
            "{n}: print of the parse"
        );
    }
}

/// The full check of the issue: 1,000 seeded playouts in lockstep for
/// every translated corpus game (minutes; run before changing the
/// translation: `cargo test --release -p toss-gdl --test gdl_translate --
/// --ignored`).
#[test]
#[ignore]
fn corpus_translated_games_1000_playouts() {
    for n in &corpus_names() {
        let desc = parse_gdl(&read(&corpus().join(n)), n).expect("parses");
        if let Ok(t) = translate(&desc) {
            let g = game(n);
            let steps = check_rules(n, &g, &t, 1000, 300);
            eprintln!("{n}: 1000 playouts, {steps} moves agree");
        }
    }
}

/// Breakthrough's moves, simplified (spec 5.3): one rule per player and
/// direction (straight, and the two diagonals, capturing or not), each
/// starting from the mover's pawn and one joined step relation; the 12
/// outcome splits the board excludes (the pawn's old square keeping a
/// pawn) dropped. The lockstep and perft checks above play it.
#[test]
fn breakthrough_rules_are_simplified() {
    let n = "breakthrough.kif";
    let desc = parse_gdl(&read(&corpus().join(n)), n).expect("parses");
    let t = translate(&desc).expect("translates");
    assert_eq!(t.game.rules.len(), 6);
    assert!(
        t.explain().contains("12 rules dropped (never matched)"),
        "{}",
        t.explain()
    );
    for r in &t.game.rules {
        let required: Vec<&str> = r
            .lhs
            .tuples
            .iter()
            .filter(|x| !x.optional)
            .map(|x| x.relation.as_str())
            .collect();
        assert!(
            required.iter().any(|x| x.starts_with("cellHolds3_")),
            "{}: {required:?}",
            r.name
        );
        assert_eq!(
            required.iter().filter(|x| x.contains("_and_")).count(),
            1,
            "{}: {required:?}",
            r.name
        );
    }
}
