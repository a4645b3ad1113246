//! The seed's own examples of chapter 4, and types and Distinguish against
//! an independent Ehrenfeucht-Fraisse game solver.

use std::collections::BTreeSet;

use toss_core::ir::Formula;
use toss_core::structure::Structure;
use toss_lang::print_formula;

use super::scene::{Scene, Signature};
use super::types::{Fragment, Fresh, Types};
use super::*;

/// A board position: the board literal's cells with relations R, C,
/// DiagA, DiagB (spec 4.1's R, C, Da, Db), and the unary relations `rels`
/// declared even where no cell has them.
fn board(rels: &[&str], text: &str) -> Structure {
    let decl: Vec<String> = rels.iter().map(|r| format!("{r}:1 {{}}")).collect();
    let source = format!(
        "PLAYERS p\nLOC 0 {{ PLAYER p {{ PAYOFF 0 }} }}\nSTART [ | {} | ] \"\n{text}\n\"\n",
        decl.join("; ")
    );
    toss_lang::parse_game(&source, "test.toss")
        .unwrap_or_else(|e| panic!("{e:?}"))
        .start
}

fn conjuncts(f: &Formula) -> BTreeSet<String> {
    match f {
        Formula::And(cs) => cs.iter().map(print_formula).collect(),
        f => BTreeSet::from([print_formula(f)]),
    }
}

/// Figure 4.1 and the 0,2-type of the bottom-left and the central element
/// (spec 4.3.1), literal by literal. The spec's list leaves out the
/// inequality of the two elements, which the type has (it is a literal
/// over `x1, x2` satisfied by the pair).
#[test]
fn the_0_2_type_of_figure_4_1() {
    let grid = board(&[], ". . .\n. . .\n. . .");
    let scenes_src = [&grid];
    let sig = Signature::of(&scenes_src).unwrap();
    let scenes = vec![Scene::new(&grid, &sig)];
    let types = Types::new(&scenes, &sig, 2, false, 1 << 20).unwrap();
    let (a1, b2) = (
        scenes[0].names.iter().position(|n| n == "a1").unwrap() as u32,
        scenes[0].names.iter().position(|n| n == "b2").unwrap() as u32,
    );
    let ti = (0..types.len(0))
        .find(|&ti| {
            let mut t = [0; 2];
            types.tuple(0, ti, &mut t);
            t == [a1, b2]
        })
        .unwrap();
    let vars = ["x1".to_string(), "x2".to_string()];
    let f = types.formula(
        0,
        types.id(0, 0, ti),
        Fragment::Full,
        &vars,
        &mut Fresh::default(),
    );
    let mut want = BTreeSet::from([
        "DiagA(x1, x2)".to_string(),
        "not DiagA(x1, x1)".to_string(),
        "not DiagA(x2, x1)".to_string(),
        "not DiagA(x2, x2)".to_string(),
        "not x1 = x2".to_string(),
    ]);
    for r in ["DiagB", "C", "R"] {
        for v in ["x1", "x2"] {
            for w in ["x1", "x2"] {
                want.insert(format!("not {r}({v}, {w})"));
            }
        }
    }
    assert_eq!(conjuncts(&f), want);
}

const BT: &[&str] = &["W", "B"];

/// Figure 4.2: a Breakthrough position won by white (a white pawn on the
/// last row) and the same position without that pawn.
#[test]
fn breakthrough_winning_condition_from_figure_4_2() {
    // Every pattern around the winning pawn that an existential formula
    // of rank 1 sees (rows 5 to 8, columns a to g) is also around the pawn
    // on d4 (rows 1 to 4); the pawn on h5 makes two white pawns in both.
    let won = board(
        BT,
        ". . . W . . . .
         . . . . . . . .
         . . . . . . . .
         . . . . . . . W
         . . . W . . . .
         . . . . . . . .
         . . . . . . . B
         . . . . . . . B",
    );
    let not_won = board(
        BT,
        ". . . . . . . .
         . . . . . . . .
         . . . . . . . .
         . . . . . . . W
         . . . W . . . .
         . . . . . . . .
         . . . . . . . B
         . . . . . . . B",
    );
    let d = distinguish(&[won], &[not_won], &Limits::default()).unwrap();
    assert_eq!(
        print_formula(&d.formula),
        "ex x0 (W(x0) and not ex x1 C(x0, x1))",
        "{d:#?}"
    );
}

const C4: &[&str] = &["P", "Q"];

/// Figure 4.3: four Connect Four positions won by yellow (Q), one in each
/// direction, and four not won, with three yellow pieces in a row blocked
/// at both ends in every direction.
#[test]
fn connect_four_winning_condition_from_figure_4_3() {
    let won = [
        ". . . . . . .
         . . . . . . .
         . . Q . . . .
         . . Q . . . .
         . P Q . . . .
         . P Q P . . .",
        ". . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .
         . . P . P . .
         . . Q Q Q Q P",
        ". . . . . . .
         . . . . . . .
         . . . Q . . .
         . . Q P . . .
         . Q P P . . .
         Q P P Q . . .",
        ". . . . . . .
         . . . . . . .
         . . . Q . . .
         . . . P Q . .
         . . . P P Q .
         . . . Q P P Q",
    ];
    let not_won = [
        ". . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .
         . . P . P . .
         . P Q Q Q P .",
        ". . . . . . .
         . . . . P . .
         . . . Q P . .
         . . Q P Q . .
         . Q P P Q . .
         P Q P Q P . .",
        ". . . . . . .
         . P . . . . .
         . Q Q . . . .
         . P P Q . . .
         . Q P P Q . .
         . P Q Q P P .",
        ". . . . . . .
         . . . P . . .
         . . . Q . . .
         . . . Q . . .
         . . . Q . . .
         . . P P Q . .",
    ];
    let won: Vec<_> = won.iter().map(|b| board(C4, b)).collect();
    let not_won: Vec<_> = not_won.iter().map(|b| board(C4, b)).collect();
    let d = distinguish(&won, &not_won, &Limits::default()).unwrap();
    assert_eq!(d.level, Level::Tc { steps: 3 });
    assert_eq!(
        print_formula(&d.formula),
        "(ex x0, x1 tc 3 x0, x1 C(x0, x1) and Q(x0) and Q(x1)) or \
         (ex x2, x3 tc 3 x2, x3 Q(x2) and Q(x3) and R(x2, x3)) or \
         (ex x4, x5 tc 3 x4, x5 DiagA(x4, x5) and Q(x4) and Q(x5)) or \
         ex x6, x7 tc 3 x6, x7 DiagB(x6, x7) and Q(x6) and Q(x7)",
        "{d:#?}"
    );
}
