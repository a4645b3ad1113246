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
use toss_gdl::translate::{Translation, translate};
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
}

/// Every corpus game: translated (and then checked) or refused with a
/// reason from the closed list.
#[test]
fn corpus_structure_and_formulas() {
    let dir = corpus();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.ends_with(".kif").then_some(n)
        })
        .collect();
    names.sort();
    let mut report = Vec::new();
    let mut translated = 0;
    for n in &names {
        // A debugging aid: one game (or the games with this prefix) only.
        if std::env::var("TOSS_TRANSLATE_ONLY").is_ok_and(|only| !n.starts_with(&only)) {
            continue;
        }
        let src = read(&dir.join(n));
        let desc = parse_gdl(&src, n).expect("parses");
        let started = std::time::Instant::now();
        match translate(&desc) {
            Ok(t) => {
                let secs = started.elapsed().as_secs_f64();
                let states = check_formulas(n, &game(n), &t, 5, 300);
                translated += 1;
                report.push(format!(
                    "{n}: translated in {secs:.2}s, {states} states agree"
                ));
            }
            Err(r) => report.push(format!("{n}: refused: {r}")),
        }
        eprintln!("{}", report.last().expect("one line per game"));
    }
    eprintln!("translated {translated} of {}", names.len());
    if std::env::var("TOSS_TRANSLATE_ONLY").is_err() {
        // The count reached when these checks were written: a regression
        // fails here.
        assert!(translated >= 55, "{}", report.join("\n"));
        for must in [
            "ticTacToe.kif",
            "connect4.kif",
            "connectFour.kif",
            "breakthrough.kif",
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
