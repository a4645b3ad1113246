//! The specialization plan and the generated code: every game in games/ is
//! in the specialized fragment; snapshots of the plan dumps and of the
//! formatted expansions of tic-tac-toe and Breakthrough; the output is
//! deterministic.

use std::path::{Path, PathBuf};

use quote::quote;
use toss_codegen::plan::Plan;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn game(name: &str) -> toss_core::ir::Game {
    let path = root().join(format!("games/{name}.toss"));
    let text = std::fs::read_to_string(&path).expect("game file");
    toss_lang::parse_game(&text, name).expect("valid game")
}

const GAMES: [&str; 12] = [
    "tic-tac-toe",
    "breakthrough",
    "connect4",
    "gomoku",
    "pawn-whopping",
    "hex",
    "dice",
    "concurrent-tic-tac-toe",
    "english-draughts",
    "chess",
    "amazons",
    "reversi",
];

#[test]
fn every_game_is_specialized() {
    for g in GAMES {
        if let Err(e) = Plan::build(&game(g)) {
            panic!("{g} is not specialized: {e}");
        }
    }
}

fn dump(name: &str) -> String {
    Plan::build(&game(name))
        .map(|p| p.dump())
        .unwrap_or_else(|e| e)
}

#[test]
fn tic_tac_toe_plan() {
    insta::assert_snapshot!(dump("tic-tac-toe"));
}

#[test]
fn breakthrough_plan() {
    insta::assert_snapshot!(dump("breakthrough"));
}

#[test]
fn hex_plan() {
    insta::assert_snapshot!(dump("hex"));
}

/// The formatted expansion of `#[derive(Game)]` for a game, with the
/// machine-dependent path redacted.
fn expansion(ty: &str, file: &str) -> String {
    let ident = syn::Ident::new(ty, proc_macro2::Span::call_site());
    let input = quote! {
        #[toss(file = #file)]
        pub struct #ident;
    };
    let base = root();
    let tokens = toss_codegen::derive_game_in(input, &base);
    let parsed: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    let text = prettyplease::unparse(&parsed);
    text.replace(&base.to_string_lossy().into_owned(), "[root]")
}

/// The expansion of `#[toss(gdl = file)]`, as [`expansion`].
fn gdl_expansion(ty: &str, file: &str) -> String {
    let ident = syn::Ident::new(ty, proc_macro2::Span::call_site());
    let input = quote! {
        #[toss(gdl = #file)]
        pub struct #ident;
    };
    let base = root();
    let tokens = toss_codegen::derive_game_in(input, &base);
    let parsed: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    let text = prettyplease::unparse(&parsed);
    text.replace(&base.to_string_lossy().into_owned(), "[root]")
}

/// A GDL game compiled from its network: the three phases as
/// straight-line code.
#[test]
fn gdl_tic_tac_toe_expansion() {
    insta::assert_snapshot!(gdl_expansion(
        "TicTacToe",
        "../shared/corpus/gdl/ticTacToe.kif"
    ));
}

#[test]
fn gdl_expansion_is_deterministic() {
    for (ty, g) in [
        ("Breakthrough", "../shared/corpus/gdl/breakthrough.kif"),
        ("Reversi", "../shared/corpus/gdl/reversi.kif"),
    ] {
        assert_eq!(gdl_expansion(ty, g), gdl_expansion(ty, g), "{g}");
    }
}

#[test]
fn tic_tac_toe_expansion() {
    insta::assert_snapshot!(expansion("TicTacToe", "games/tic-tac-toe.toss"));
}

#[test]
fn breakthrough_expansion() {
    insta::assert_snapshot!(expansion("Breakthrough", "games/breakthrough.toss"));
}

#[test]
fn expansion_is_deterministic() {
    for (ty, g) in [("Gomoku", "games/gomoku.toss"), ("Hex", "games/hex.toss")] {
        assert_eq!(expansion(ty, g), expansion(ty, g), "{g}");
    }
}

#[test]
fn games_outside_the_fragment_forward_to_the_interpreter() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = quote! {
        #[toss(file = "tests/fixtures/grow.toss")]
        struct Grow;
    };
    let tokens = toss_codegen::derive_game_in(input, base);
    let parsed: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    let text = prettyplease::unparse(&parsed);
    assert!(text.contains("right element y is new"), "{text}");
    assert!(text.contains("::toss::Game::legal_moves(Grow::interpreter()"));
}

/// Amazons is specialized whole: its queen rays (`tc` from a bound element)
/// are fixed points on bitsets.
#[test]
fn amazons_plan() {
    insta::assert_snapshot!(dump("amazons"));
}

/// Draughts, chess, amazons and reversi need nothing from the interpreter: every
/// matcher, condition, effect and payoff is compiled.
#[test]
fn large_games_have_no_fallback() {
    for g in ["english-draughts", "chess", "amazons", "reversi"] {
        let plan = Plan::build(&game(g)).unwrap_or_else(|e| panic!("{g}: {e}"));
        assert!(!plan.has_fallback(), "{g}:\n{}", plan.dump());
    }
}

fn fixture(name: &str) -> toss_core::ir::Game {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/{name}.toss"));
    let text = std::fs::read_to_string(&path).expect("fixture file");
    toss_lang::parse_game(&text, name).expect("valid game")
}

/// A game with a part of each kind outside the fragment: the plan keeps
/// the rest specialized and says what runs on the interpreter.
#[test]
fn partial_plan() {
    let plan = Plan::build(&fixture("partial")).map(|p| p.dump());
    insta::assert_snapshot!(plan.unwrap_or_else(|e| e));
}

/// The impl's doc comment names what runs on the interpreter, and the code
/// calls it for exactly those parts.
#[test]
fn partial_expansion_names_its_fallbacks() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = quote! {
        #[toss(file = "tests/fixtures/partial.toss")]
        struct Partial;
    };
    let tokens = toss_codegen::derive_game_in(input, base);
    let parsed: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    let text = prettyplease::unparse(&parsed);
    for part in [
        "the matches of rule `Hop`",
        "the check of each match of rule `Mark`",
        "the effect of rule `Flip`",
        "the payoff of a in location 0",
    ] {
        assert!(text.contains(part), "{part}");
    }
    assert!(!text.contains("the effect of rule `Mark`"));
    assert!(!text.contains("the effect of rule `Hop`"));
    for call in [
        ".rule_matches(2,",
        ".rule_match_passes(0,",
        ".apply_rule_match(1,",
        ".payoff_value(0, 0,",
    ] {
        assert!(text.contains(call), "{call}");
    }
}

/// A fluent binary relation (the edges of tests/fixtures/edge-walk.toss,
/// deleted and added by the rules) over few elements is dense: per element
/// its successors and its predecessors. Walking it from a bound element,
/// its exactness (`emb E`), its effects, and its use in a precondition and
/// the payoffs are compiled.
#[test]
fn edge_walk_plan() {
    let path = root().join("tests/fixtures/edge-walk.toss");
    let text = std::fs::read_to_string(&path).expect("fixture file");
    let g = toss_lang::parse_game(&text, "edge-walk").expect("valid game");
    let plan = Plan::build(&g).unwrap_or_else(|e| panic!("{e}"));
    assert!(!plan.has_fallback(), "{}", plan.dump());
    insta::assert_snapshot!(plan.dump());
}

/// Join orders chosen at build time: the edge walk's Cut binds the visited
/// node (one at the start) before the edge's source (any node), Link keeps
/// its declared order (the other order saves less than sorting its matches
/// would cost); no rule of the games in games/ is worth reordering (their
/// first declared element is already the most selective, or sorting the
/// matches would cost more than the order saves).
#[test]
fn join_orders() {
    let text = std::fs::read_to_string(root().join("tests/fixtures/edge-walk.toss"))
        .expect("fixture file");
    let g = toss_lang::parse_game(&text, "edge-walk").expect("valid game");
    let plan = Plan::build(&g).unwrap_or_else(|e| panic!("{e}"));
    let rule = |name: &str| plan.rules.iter().find(|r| r.name == name).expect("rule");
    let cut = rule("Cut");
    assert!(cut.reordered() && !cut.in_prefix_tree());
    assert_eq!(cut.steps.iter().map(|s| s.elem).collect::<Vec<_>>(), [1, 0]);
    let link = rule("Link");
    let join = link.join.as_ref().expect("a join order");
    assert!(!link.reordered() && join.greedy == [1, 0] && join.greedy_cost < join.declared_cost);
    assert!(!rule("Walk").reordered());
    for name in GAMES {
        let plan = Plan::build(&game(name)).expect("specialized");
        for r in &plan.rules {
            assert!(
                !r.reordered(),
                "{name}: {}",
                plan.matcher_text(r).join("\n")
            );
        }
    }
}

/// Over many elements (the edge walk beside an unused board of 132 cells)
/// a binary relation is a sorted list of pairs, and so is a ternary one
/// over few: the plan says which, and nothing falls back.
#[test]
fn sparse_relations() {
    for (file, name, arity) in [
        ("tests/fixtures/edge-walk-large.toss", "E", 2),
        ("tests/fixtures/peg-routes.toss", "Route", 3),
    ] {
        let text = std::fs::read_to_string(root().join(file)).expect("fixture file");
        let g = toss_lang::parse_game(&text, file).expect("valid game");
        let plan = Plan::build(&g).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!plan.has_fallback(), "{}", plan.dump());
        let r = &plan.fluent_rels[0];
        assert_eq!((r.name.as_str(), r.arity), (name, arity));
        assert_eq!(r.repr, toss_codegen::plan::Repr::Sparse, "{file}");
        let line = format!("fluent relation 0: {name}/{arity} (sparse: a sorted list of");
        assert!(plan.dump().contains(&line), "{}", plan.dump());
    }
}

/// A game with dynamics: its ODE right-hand sides and update terms become
/// functions of the type, the rest forwards to the interpreter built with
/// them.
#[test]
fn bounce_expansion() {
    let text = expansion("Bounce", "games/bounce.toss");
    assert!(text.contains("checked_interpreter_compiled"), "{text}");
    insta::assert_snapshot!(text);
}

/// Continuous games are outside the specialized fragment.
#[test]
fn continuous_games_keep_the_interpreter() {
    for g in ["bounce", "cat-and-mouse", "pursuit"] {
        assert!(toss_codegen::ode::has_dynamics(&game(g)), "{g}");
        assert!(Plan::build(&game(g)).is_err(), "{g}");
    }
}

fn heuristic_plan(g: &toss_core::ir::Game) -> Plan {
    use toss_heuristics::{HeuristicConfig, derive};
    let h = derive(g, &HeuristicConfig::default());
    Plan::build_with(g, Some(&h)).unwrap_or_else(|e| panic!("{e}"))
}

/// The derived heuristic of tic-tac-toe compiles whole: nested sums over
/// the lines, each step a neighbour-table row.
#[test]
fn tic_tac_toe_heuristic_plan() {
    let plan = heuristic_plan(&game("tic-tac-toe"));
    let dump = plan.dump();
    let i = dump.find("heuristic (").expect("a heuristic section");
    insta::assert_snapshot!(&dump[i..]);
}

/// The cheap-to-derive games' heuristics compile with nothing on the
/// solver.
#[test]
fn heuristics_compile_whole() {
    for g in ["connect4", "gomoku", "hex", "dice", "english-draughts"] {
        let plan = heuristic_plan(&game(g));
        let h = plan.heuristic.as_ref().expect("a heuristic plan");
        assert!(h.fallback.is_empty(), "{g}:\n{}", plan.dump());
    }
}

/// With `heuristics`, the part of the heuristic outside the fragment goes
/// to the solver: the plan, the doc comments and the code say so.
#[test]
fn heuristic_fallback_is_named() {
    let plan = heuristic_plan(&fixture("partial"));
    let dump = plan.dump();
    assert!(
        dump.contains("1 part(s) by the solver")
            && dump.contains("location 0, a: [h0 by the solver]")
            && dump.contains("h0 = Sum (x | Q(x) : :v(x) / 2.0)"),
        "{dump}"
    );
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    let input = quote! {
        #[toss(file = "tests/fixtures/partial.toss", heuristics)]
        struct Partial;
    };
    let tokens = toss_codegen::derive_game_in(input, base);
    let parsed: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
    let text = prettyplease::unparse(&parsed);
    for part in [
        "heuristic part h0 on the solver (cannot compile the term",
        "fn heuristic_fallback()",
        ".term_value(",
        "fn heuristic_values(",
    ] {
        assert!(text.contains(part), "{part}");
    }
}

/// The expansion with a compiled heuristic is deterministic too.
#[test]
fn heuristic_expansion_is_deterministic() {
    let expand = || {
        let input = quote! {
            #[toss(file = "games/gomoku.toss", heuristics)]
            pub struct Gomoku;
        };
        let tokens = toss_codegen::derive_game_in(input, &root());
        let parsed: syn::File = syn::parse2(tokens).expect("the expansion parses as a file");
        prettyplease::unparse(&parsed)
    };
    let a = expand();
    assert!(a.contains("pub fn heuristic(s: &State, out: &mut [f64])"));
    assert_eq!(a, expand());
}

/// Draughts: `CanJumpB()` (a king jumps in any direction, a man forward)
/// is distributed into two patterns of shifts, not a loop over pieces, and
/// computed once for the three rules that test it; a king's chain of jumps
/// is tested jump by jump as its captured pieces are bound, not only once
/// the whole chain is.
#[test]
fn draughts_conditions_and_chains() {
    let plan = Plan::build(&game("english-draughts")).expect("specialized");
    let copies = plan
        .conds
        .iter()
        .filter(|(what, _)| what == "not CanJumpB()")
        .count();
    assert_eq!(copies, 1, "{}", plan.dump());
    let (_, c) = plan
        .conds
        .iter()
        .find(|(what, _)| what == "not CanJumpB()")
        .expect("CanJumpB");
    let text = plan.cond_text(c);
    assert!(text.contains("p0(") && text.contains("p1("), "{text}");
    assert!(!text.contains("ex q"), "{text}");
    let rule = plan
        .rules
        .iter()
        .find(|r| r.name == "BlackKingJump3")
        .expect("rule");
    // Steps k, a, o1, o2, o3, e: o1 and o2 each end a jump of the chain
    // (a set of the element given the earlier ones, or a test per
    // candidate).
    for step in [2, 3] {
        let st = &rule.steps[step];
        assert!(
            !st.checks.is_empty() || !st.inner.is_empty(),
            "{}",
            plan.matcher_text(rule).join("\n")
        );
    }
}

/// The number of nodes of a shared-prefix forest through both labels.
fn shared_steps(nodes: &[toss_codegen::plan::PrefixNode], a: usize, b: usize) -> usize {
    nodes
        .iter()
        .find(|n| n.labels.contains(&a) && n.labels.contains(&b))
        .map_or(0, |n| 1 + shared_steps(&n.children, a, b))
}

/// Every draughts rule starts from the clock; the men's jump chains also
/// agree on the moving man and the first jumped piece, and the two- and
/// three-jump chains on the first landing square and the second jumped
/// piece: a playout enumerates each of these prefixes once.
#[test]
fn draughts_jump_chains_share_prefixes() {
    let plan = Plan::build(&game("english-draughts")).expect("specialized");
    let black = &plan.locations[0].players[0];
    let label = |name: &str| {
        black
            .labels
            .iter()
            .position(|l| plan.rules[l.rule].name == name)
            .expect("label")
    };
    assert_eq!(black.prefixes.len(), 1, "{}", plan.dump());
    assert_eq!(black.prefixes[0].labels.len(), 26, "{}", plan.dump());
    let forest = &black.prefixes;
    let (j1, j2, j3) = (
        label("BlackManJump1"),
        label("BlackManJump2"),
        label("BlackManJump3"),
    );
    assert_eq!(shared_steps(forest, j1, label("BlackManJump3Crown")), 3);
    assert_eq!(shared_steps(forest, j1, j2), 3);
    assert_eq!(shared_steps(forest, j2, j3), 5);
    assert_eq!(shared_steps(forest, j1, label("BlackKingJump1")), 1);
    // A step ends where a jump chain continues: the step's last element
    // is counted by a popcount.
    let step = &plan.rules[black.labels[label("BlackManStep")].rule];
    assert!(step.last_step_counted(), "{}", plan.dump());
}

/// Reversi: the placements and the flipped discs in offset form (eight
/// directions of shifts), the flips (multiplicity inf) applied as sets.
#[test]
fn reversi_plan() {
    insta::assert_snapshot!(dump("reversi"));
}

/// Lines of four and five cells are covered by doubling (each step at
/// most doubles the covered length); shorter lines and offsets that are
/// not one step apart keep a shift per cell.
#[test]
fn lines_by_doubling() {
    use toss_codegen::plan::line_doubling;
    assert_eq!(line_doubling(&[0, -7, -14, -21]), Some(vec![-7, -14]));
    assert_eq!(line_doubling(&[0, 1, 2, 3, 4]), Some(vec![1, 2, 1]));
    assert_eq!(
        line_doubling(&[0, 8, 16, 24, 32, 40, 48, 56]),
        Some(vec![8, 16, 32])
    );
    assert_eq!(line_doubling(&[0, 1, 2]), None);
    assert_eq!(line_doubling(&[0, 1, 3, 4]), None);
    assert_eq!(line_doubling(&[0, 0, 0, 0]), None);
}

/// Reversi's legal placements are computed once per placement ply, for
/// the placement rule's matches and the pass rule's `CanB()` (`CanW()`).
#[test]
fn reversi_shares_the_legal_placements() {
    let plan = Plan::build(&game("reversi")).expect("specialized");
    for li in [0, 2] {
        assert_eq!(plan.locations[li].shared.len(), 1, "location {li}");
    }
    for li in [1, 3] {
        assert!(plan.locations[li].shared.is_empty(), "location {li}");
    }
    let c4 = Plan::build(&game("connect4")).expect("specialized");
    assert!(c4.locations.iter().all(|l| l.shared.is_empty()));
}

/// Several matches in one ply with fluent functions (`tests/fixtures/
/// shift-and-swap.toss` of the workspace): specialized whole, with the
/// update values read from the state before the ply.
#[test]
fn several_matches_read_updates_from_the_state_before() {
    let path = root().join("tests/fixtures/shift-and-swap.toss");
    let text = std::fs::read_to_string(&path).expect("fixture file");
    let game = toss_lang::parse_game(&text, "shift-and-swap").expect("valid game");
    let plan = Plan::build(&game).unwrap_or_else(|e| panic!("{e}"));
    assert!(!plan.has_fallback(), "{}", plan.dump());
    let text = expansion("ShiftAndSwap", "tests/fixtures/shift-and-swap.toss");
    assert!(
        text.contains("apply_rule_from(s, Some(&before), m.rule, &m.elems)"),
        "{text}"
    );
    assert!(text.contains("apply_rule_from(s, Some(before),"), "{text}");
}

/// A payoff without a finite bound (a sum of function values) is compiled
/// with a check that reports a value not finite as the play's
/// fault; a bounded one (tic-tac-toe's) is not, so its code is unchanged.
#[test]
fn unbounded_payoffs_check_their_value() {
    let text = expansion("GrowingValue", "tests/fixtures/growing-value.toss");
    assert!(text.contains("payoffs without a bound found"), "{text}");
    let payoffs = text
        .split("pub fn payoffs(s: &State, out: &mut [f64])")
        .nth(1)
        .expect("a payoffs function");
    let body = &payoffs[..payoffs.find("\n    }\n").unwrap_or(payoffs.len())];
    assert!(
        body.contains("is_finite()") && body.contains("payoff_fault(0, 0,"),
        "{body}"
    );
    assert!(
        !body.contains("payoff_value"),
        "compiled, not on the interpreter: {body}"
    );
    let ttt = expansion("TicTacToe", "games/tic-tac-toe.toss");
    assert!(!ttt.contains("payoff_fault"));
}

/// Terminal is compiled incrementally where every action's part pays
/// (the lines through the cell played), and in the state phase where it
/// reads the legal moves (reversi: "no move left"); the impl's doc
/// comment says which.
#[test]
fn gdl_terminal_is_incremental_where_it_pays() {
    for (file, incremental) in [
        ("../shared/corpus/gdl/ticTacToe.kif", true),
        ("../shared/corpus/gdl/connect4.kif", true),
        ("../shared/corpus/gdl/breakthrough.kif", true),
        ("tests/fixtures/flip-terminal.kif", true),
        ("../shared/corpus/gdl/reversi.kif", false),
    ] {
        let text = gdl_expansion("G", file);
        assert_eq!(
            text.contains("Terminal: incremental"),
            incremental,
            "{file}"
        );
        assert_eq!(
            text.contains("Terminal: evaluated in the state phase"),
            !incremental,
            "{file}"
        );
    }
}
