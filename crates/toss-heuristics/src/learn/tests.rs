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

/// Small random structures with a unary `P` and a binary `E`, and a brute
/// force Ehrenfeucht-Fraisse game solver on them, written without the
/// types: the independent facts the types and Distinguish are checked
/// against.
mod games {
    use toss_core::structure::Structure;

    #[derive(Clone, Debug)]
    pub struct Small {
        pub p: Vec<bool>,
        pub e: Vec<Vec<bool>>,
    }

    /// xorshift64*: a seeded generator for the tests.
    pub struct Rng(pub u64);

    impl Rng {
        pub fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
        }

        pub fn small(&mut self, min: usize, max: usize) -> Small {
            let n = min + self.below(max - min + 1);
            Small {
                p: (0..n).map(|_| self.below(2) == 0).collect(),
                e: (0..n)
                    .map(|_| (0..n).map(|_| self.below(3) == 0).collect())
                    .collect(),
            }
        }
    }

    impl Small {
        pub fn len(&self) -> usize {
            self.p.len()
        }

        pub fn structure(&self) -> Structure {
            let mut s = Structure::new();
            let es: Vec<_> = (0..self.len())
                .map(|i| s.add_element(&format!("e{i}")))
                .collect();
            let p = s.declare_relation("P", 1).unwrap();
            let e = s.declare_relation("E", 2).unwrap();
            for i in 0..self.len() {
                if self.p[i] {
                    s.add_tuple(p, &[es[i]]);
                }
                for j in 0..self.len() {
                    if self.e[i][j] {
                        s.add_tuple(e, &[es[i], es[j]]);
                    }
                }
            }
            s
        }

        /// All tuples of length `k`.
        pub fn tuples(&self, k: usize) -> Vec<Vec<usize>> {
            let mut out = vec![vec![]];
            for _ in 0..k {
                out = out
                    .into_iter()
                    .flat_map(|t| {
                        (0..self.len()).map(move |a| {
                            let mut t = t.clone();
                            t.push(a);
                            t
                        })
                    })
                    .collect();
            }
            out
        }

        /// The successors of `t` under the guard `E(x_i, x_j)` (`forward`) or
        /// `E(x_j, x_i)` requantifying `x_i`.
        pub fn guarded(&self, t: &[usize], i: usize, j: usize, forward: bool) -> Vec<Vec<usize>> {
            (0..self.len())
                .filter(|&c| {
                    if forward {
                        self.e[c][t[j]]
                    } else {
                        self.e[t[j]][c]
                    }
                })
                .map(|c| {
                    let mut u = t.to_vec();
                    u[i] = c;
                    u
                })
                .collect()
        }

        /// The tuples reachable from the diagonal by guarded substitutions.
        pub fn guarded_tuples(&self, k: usize) -> Vec<Vec<usize>> {
            let mut seen: Vec<Vec<usize>> = (0..self.len()).map(|a| vec![a; k]).collect();
            let mut next = 0;
            while next < seen.len() {
                let t = seen[next].clone();
                for (i, j, f) in guards(k) {
                    for u in self.guarded(&t, i, j, f) {
                        if !seen.contains(&u) {
                            seen.push(u);
                        }
                    }
                }
                next += 1;
            }
            seen
        }
    }

    pub fn guards(k: usize) -> Vec<(usize, usize, bool)> {
        let mut out = Vec::new();
        for i in 0..k {
            for j in 0..k {
                if i != j {
                    out.push((i, j, true));
                    out.push((i, j, false));
                }
            }
        }
        out
    }

    /// The pebbles span isomorphic substructures.
    pub fn iso(a: &Small, at: &[usize], b: &Small, bt: &[usize]) -> bool {
        (0..at.len()).all(|i| {
            a.p[at[i]] == b.p[bt[i]]
                && (0..at.len()).all(|j| {
                    (at[i] == at[j]) == (bt[i] == bt[j]) && a.e[at[i]][at[j]] == b.e[bt[i]][bt[j]]
                })
        })
    }

    /// Games between two structures, remembering positions solved.
    pub struct Games<'s> {
        pub a: &'s Small,
        pub b: &'s Small,
        memo: std::collections::HashMap<(Vec<usize>, Vec<usize>, usize, u8), bool>,
    }

    impl<'s> Games<'s> {
        pub fn new(a: &'s Small, b: &'s Small) -> Games<'s> {
            Games {
                a,
                b,
                memo: Default::default(),
            }
        }

        /// Duplicator wins the `n`-round `k`-pebble game from `(at, bt)`.
        pub fn fo(&mut self, at: &[usize], bt: &[usize], n: usize) -> bool {
            let (a, b) = (self.a, self.b);
            if !iso(a, at, b, bt) {
                return false;
            }
            if n == 0 {
                return true;
            }
            let key = (at.to_vec(), bt.to_vec(), n, 0);
            if let Some(&w) = self.memo.get(&key) {
                return w;
            }
            let moved = |t: &[usize], i: usize, c: usize| {
                let mut u = t.to_vec();
                u[i] = c;
                u
            };
            let w = (0..at.len()).all(|i| {
                (0..a.len()).all(|c| {
                    (0..b.len()).any(|d| self.fo(&moved(at, i, c), &moved(bt, i, d), n - 1))
                }) && (0..b.len()).all(|d| {
                    (0..a.len()).any(|c| self.fo(&moved(at, i, c), &moved(bt, i, d), n - 1))
                })
            });
            self.memo.insert(key, w);
            w
        }

        /// Duplicator wins the `n`-round guarded game (both directions), or
        /// the simulation game (`existential`: Spoiler plays in `a` only).
        pub fn guarded(&mut self, at: &[usize], bt: &[usize], n: usize, existential: bool) -> bool {
            let (a, b) = (self.a, self.b);
            if !iso(a, at, b, bt) {
                return false;
            }
            if n == 0 {
                return true;
            }
            let key = (at.to_vec(), bt.to_vec(), n, 1 + existential as u8);
            if let Some(&w) = self.memo.get(&key) {
                return w;
            }
            let w = guards(at.len()).into_iter().all(|(i, j, f)| {
                let (sa, sb) = (a.guarded(at, i, j, f), b.guarded(bt, i, j, f));
                sa.iter()
                    .all(|u| sb.iter().any(|v| self.guarded(u, v, n - 1, existential)))
                    && (existential
                        || sb
                            .iter()
                            .all(|v| sa.iter().any(|u| self.guarded(u, v, n - 1, existential))))
            });
            self.memo.insert(key, w);
            w
        }
    }
}

/// Types of the same id exactly when Duplicator wins the game, for full
/// first-order and guarded types, `k, n <= 2`, on random structures.
#[test]
fn types_agree_with_the_ehrenfeucht_fraisse_game() {
    let mut rng = games::Rng(0x70_55);
    for round in 0..30 {
        let smalls: Vec<games::Small> = (0..4).map(|_| rng.small(2, 4)).collect();
        let structures: Vec<Structure> = smalls.iter().map(|s| s.structure()).collect();
        let refs: Vec<&Structure> = structures.iter().collect();
        let sig = Signature::of(&refs).unwrap();
        let scenes: Vec<Scene> = structures.iter().map(|s| Scene::new(s, &sig)).collect();
        for k in 1..=2 {
            for guarded in [false, true] {
                let mut types = Types::new(&scenes, &sig, k, guarded, 1 << 20).unwrap();
                for n in 0..=2 {
                    while types.rank() < n {
                        types.refine();
                    }
                    let all: Vec<(usize, usize, Vec<usize>)> = (0..scenes.len())
                        .flat_map(|si| {
                            let types = &types;
                            (0..types.len(si)).map(move |ti| {
                                let mut t = vec![0u32; k];
                                types.tuple(si, ti, &mut t);
                                (si, ti, t.into_iter().map(|e| e as usize).collect())
                            })
                        })
                        .collect();
                    if guarded {
                        // The guarded tuples are those of the brute force.
                        for (si, s) in smalls.iter().enumerate() {
                            let mut want = s.guarded_tuples(k);
                            let mut have: Vec<Vec<usize>> = all
                                .iter()
                                .filter(|x| x.0 == si)
                                .map(|x| x.2.clone())
                                .collect();
                            want.sort();
                            have.sort();
                            assert_eq!(have, want, "round {round}, k {k}");
                        }
                    }
                    for (si, ti, at) in &all {
                        for (sj, tj, bt) in &all {
                            let same = types.id(n, *si, *ti) == types.id(n, *sj, *tj);
                            let (a, b) = (&smalls[*si], &smalls[*sj]);
                            let mut g = games::Games::new(a, b);
                            let wins = if guarded {
                                g.guarded(at, bt, n, false)
                            } else {
                                g.fo(at, bt, n)
                            };
                            assert_eq!(
                                same, wins,
                                "round {round}, k {k}, n {n}, guarded {guarded}: {at:?} in {a:?} and {bt:?} in {b:?}"
                            );
                            if guarded {
                                let ok = types.simulates(
                                    n,
                                    types.id(n, *si, *ti),
                                    *sj,
                                    *tj,
                                    &mut Default::default(),
                                );
                                assert_eq!(
                                    ok,
                                    g.guarded(at, bt, n, true),
                                    "simulation, round {round}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Whether `level` separates the positives from the negatives, by the
/// games: every positive has a tuple that no negative tuple matches.
fn separates(level: Level, pos: &[games::Small], neg: &[games::Small], max_tc: u32) -> bool {
    pos.iter().all(|a| match level {
        Level::Types { k, n, fragment } => {
            let top = |s: &games::Small| match fragment {
                Fragment::Full => s.tuples(k),
                _ => s.guarded_tuples(k),
            };
            top(a).iter().any(|at| {
                neg.iter().all(|b| {
                    let mut g = games::Games::new(a, b);
                    top(b).iter().all(|bt| match fragment {
                        Fragment::Full => !g.fo(at, bt, n),
                        Fragment::Guarded => !g.guarded(at, bt, n, false),
                        Fragment::ExistentialGuarded => !g.guarded(at, bt, n, true),
                    })
                })
            })
        }
        Level::Tc { .. } => {
            // A walk of `m` steps, each a pair of distinct elements joined
            // by `E` and isomorphic to the pair `t`.
            let walks = |s: &games::Small, t: &[usize], m: u32| {
                let step = |u: usize, v: usize| u != v && games::iso(a, t, s, &[u, v]);
                let mut layer = vec![true; s.len()];
                for _ in 0..m {
                    layer = (0..s.len())
                        .map(|v| (0..s.len()).any(|u| layer[u] && step(u, v)))
                        .collect();
                }
                layer.iter().any(|&x| x)
            };
            a.tuples(2).iter().any(|t| {
                t[0] != t[1]
                    && (a.e[t[0]][t[1]] || a.e[t[1]][t[0]])
                    && (2..=max_tc).any(|m| walks(a, t, m) && neg.iter().all(|b| !walks(b, t, m)))
            })
        }
    })
}

/// On 1,000 random instances that Distinguish separates: the sentence holds
/// in every positive and no negative (by the solver), the level it reports
/// separates, and no earlier level of the search order does (by the games).
#[test]
fn distinguish_finds_the_first_level_that_separates() {
    let limits = Limits {
        max_k: 2,
        max_tc_steps: 4,
        ..Limits::default()
    };
    let order: Vec<Level> = {
        let mut v: Vec<Level> = (0..=2)
            .map(|n| Level::Types {
                k: 1,
                n,
                fragment: Fragment::Full,
            })
            .collect();
        v.push(Level::Tc { steps: 0 });
        v.push(Level::Types {
            k: 2,
            n: 0,
            fragment: Fragment::Full,
        });
        for n in 1..=3 {
            for fragment in [
                Fragment::ExistentialGuarded,
                Fragment::Guarded,
                Fragment::Full,
            ] {
                v.push(Level::Types { k: 2, n, fragment });
            }
        }
        v
    };
    let same_kind = |a: Level, b: Level| match (a, b) {
        (Level::Tc { .. }, Level::Tc { .. }) => true,
        (a, b) => a == b,
    };
    let mut rng = games::Rng(0xd15_7194);
    let (mut found, mut not_found) = (0, 0);
    let mut levels = std::collections::BTreeMap::new();
    while found < 1000 {
        let pos: Vec<games::Small> = (0..1 + rng.below(2)).map(|_| rng.small(2, 3)).collect();
        let neg: Vec<games::Small> = (0..1 + rng.below(3)).map(|_| rng.small(2, 3)).collect();
        let (ps, ns): (Vec<Structure>, Vec<Structure>) = (
            pos.iter().map(|s| s.structure()).collect(),
            neg.iter().map(|s| s.structure()).collect(),
        );
        match distinguish(&ps, &ns, &limits) {
            Ok(d) => {
                for (s, want) in ps
                    .iter()
                    .map(|s| (s, true))
                    .chain(ns.iter().map(|s| (s, false)))
                {
                    let mut solver = toss_runtime::solver::Solver::new(s, &[]).unwrap();
                    let f = solver.compile_formula(&d.formula, &[], &[]).unwrap();
                    assert_eq!(
                        solver.holds(s, f, &[], &[]),
                        want,
                        "{}",
                        print_formula(&d.formula)
                    );
                }
                let at = order.iter().position(|&l| same_kind(l, d.level)).unwrap();
                assert!(
                    separates(order[at], &pos, &neg, 4),
                    "{:?} {pos:?} {neg:?}",
                    d.level
                );
                for &earlier in &order[..at] {
                    assert!(
                        !separates(earlier, &pos, &neg, 4),
                        "{earlier:?} separates before {:?}: {pos:?} {neg:?}",
                        d.level
                    );
                }
                *levels.entry(format!("{}", order[at])).or_insert(0) += 1;
                found += 1;
            }
            Err(DistinguishError::Same { .. }) => {}
            Err(DistinguishError::NotFound { .. }) => {
                // Then no level separates either.
                assert!(
                    order.iter().all(|&l| !separates(l, &pos, &neg, 4)),
                    "{pos:?} {neg:?}"
                );
                not_found += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    eprintln!("levels {levels:?}, not found {not_found}");
    // The instances reach past the first levels.
    assert!(levels.len() >= 5, "{levels:?}");
    assert!(not_found > 0, "{levels:?}");
}

/// Figure 4.5: a legal and an illegal drop in Connect Four, the changed
/// cell marked. The precondition found says there is a yellow piece
/// below it.
#[test]
fn connect_four_drop_precondition_from_figure_4_5() {
    let mark = |s: &mut Structure, cell: &str| {
        let r = s.declare_relation("Changed_1", 1).unwrap();
        let e = s.element(cell).unwrap();
        s.add_tuple(r, &[e]);
    };
    let position = ". . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .
         . . Q P . . .
         . P Q Q P . .";
    let mut legal = board(C4, position);
    mark(&mut legal, "c3");
    let mut illegal = board(C4, position);
    mark(&mut illegal, "f2");
    let d = distinguish_anchored(
        &[legal],
        &[illegal],
        &["Changed_1".into()],
        &Limits::default(),
    )
    .unwrap();
    assert_eq!(
        print_formula(&d.formula),
        "ex x0, x1 (C(x0, x1) and Changed_1(x1) and Q(x0))",
        "{d:#?}"
    );
}
