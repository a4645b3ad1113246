//! Learning a whole game from example plays (spec 4.4-4.6).
//!
//! - Winning conditions (4.4): for each player, `Distinguish` separates the
//!   last positions of the plays that player won from every other position
//!   of the examples.
//! - Moves (4.5): the elements whose unary relations change between two
//!   consecutive positions, with the relations among them, are the move's
//!   *prototype*; each prototype of a player becomes a rule. When illegal
//!   moves of a prototype were shown, its precondition separates the
//!   positions before its legal applications from those before the
//!   illegal ones, the changed elements marked.
//! - The game: the players alternate, the first one first; every move
//!   requires that nobody has won; payoffs are 1 for a win and -1 for a
//!   loss, as in the project's games.
//!
//! Moves may change unary relations only (the pieces on a board); the
//! other relations (the board) must be the same in every position.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use toss_core::ir::{
    self, DefinedRelation, Formula, Label, Location, Multiplicity, PlayerLocation, RealExpr,
    RuleSide, RuleTuple, Target,
};
use toss_core::plays::{PlayLabel, Plays};
use toss_core::structure::Structure;

use super::distinguish::{
    DistinguishError, Distinguished, Limits, distinguish, distinguish_anchored,
};
use super::tidy::{map, tidy};

/// The most elements one move may change.
pub const MAX_CHANGED: usize = 6;

/// A position of the examples: play and position indices (0-based) and
/// their lines in the file (0 if unknown).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Where {
    pub play: usize,
    pub position: usize,
    pub line: usize,
}

impl std::fmt::Display for Where {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "play {}, position {}", self.play + 1, self.position + 1)?;
        if self.line > 0 {
            write!(f, " (line {})", self.line)?;
        }
        Ok(())
    }
}

/// Why no game was learnt.
#[derive(Debug)]
pub enum LearnError {
    NoPlays,
    /// A position whose elements are not those of the first position.
    Elements {
        at: Where,
    },
    /// A relation of arity 2 or more differs from the first position's.
    Board {
        at: Where,
        relation: String,
    },
    /// A play does not start where the first one does.
    Start {
        at: Where,
    },
    /// Two consecutive positions are the same.
    NoChange {
        at: Where,
    },
    /// A move changes more than [`MAX_CHANGED`] elements.
    TooManyChanges {
        at: Where,
        changed: usize,
    },
    /// The same position is labelled won in one place and not in another.
    Inconsistent {
        won: Where,
        not_won: Where,
        player: usize,
    },
    /// The same application of a move is shown legal and illegal.
    LegalAndIllegal {
        legal: Where,
        illegal: Where,
    },
    /// Distinguish found nothing for a winning condition or a precondition.
    Distinguish {
        what: String,
        error: DistinguishError,
    },
}

impl std::fmt::Display for LearnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LearnError::NoPlays => write!(f, "no plays given"),
            LearnError::Elements { at } => write!(
                f,
                "{at}: its elements are not those of the first position (moves may only change \
                 unary relations)"
            ),
            LearnError::Board { at, relation } => write!(
                f,
                "{at}: relation `{relation}` differs from the first position (moves may only \
                 change unary relations)"
            ),
            LearnError::Start { at } => {
                write!(
                    f,
                    "{at}: the play does not start from the first play's first position"
                )
            }
            LearnError::NoChange { at } => {
                write!(
                    f,
                    "{at}: the position is the same as the one before (no move)"
                )
            }
            LearnError::TooManyChanges { at, changed } => write!(
                f,
                "{at}: the move to this position changes {changed} elements, more than \
                 {MAX_CHANGED}"
            ),
            LearnError::Inconsistent {
                won,
                not_won,
                player,
            } => write!(
                f,
                "inconsistent labels: the position at {won} is won by player {}, the same \
                 position at {not_won} is not",
                player + 1
            ),
            LearnError::LegalAndIllegal { legal, illegal } => write!(
                f,
                "inconsistent labels: the move to {illegal} is shown illegal, the same move \
                 from the same position to {legal} is shown legal"
            ),
            LearnError::Distinguish { what, error } => write!(f, "{what}: {error}"),
        }
    }
}

impl std::error::Error for LearnError {}

/// One call of Distinguish, for `--explain`.
#[derive(Clone, Debug)]
pub struct Call {
    /// What it learnt: a winning condition or a rule's precondition.
    pub what: String,
    pub positives: usize,
    pub negatives: usize,
    pub result: Distinguished,
}

/// A learnt game and how it was learnt.
#[derive(Clone, Debug)]
pub struct Learnt {
    pub game: ir::Game,
    pub calls: Vec<Call>,
    /// What the learner could not use or assumed, in words.
    pub notes: Vec<String>,
    pub time: Duration,
}

/// The examples with elements numbered as in the first position and each
/// position's unary relations per element as a bit mask.
struct Examples<'p> {
    plays: &'p Plays,
    /// The unary relations, sorted.
    unary: Vec<String>,
    /// Per play and position, per element, the unary relations holding.
    labels: Vec<Vec<Vec<u64>>>,
    /// The relations of arity 2 or more as element-index tuples.
    board: Vec<(String, Vec<Vec<usize>>)>,
    names: Vec<String>,
}

impl<'p> Examples<'p> {
    fn new(plays: &'p Plays) -> Result<Examples<'p>, LearnError> {
        let first = plays
            .plays
            .first()
            .and_then(|p| p.positions.first())
            .ok_or(LearnError::NoPlays)?;
        let names: Vec<String> = first
            .elements()
            .map(|e| first.element_name(e).to_string())
            .collect();
        let index: HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut unary = BTreeSet::new();
        for p in &plays.plays {
            for s in &p.positions {
                for r in 0..s.num_relations() {
                    if s.arity(r) == 1 {
                        unary.insert(s.relation_name(r).to_string());
                    }
                }
            }
        }
        let unary: Vec<String> = unary.into_iter().collect();
        let board_of = |s: &Structure| -> Option<Vec<(String, Vec<Vec<usize>>)>> {
            let mut out = Vec::new();
            for r in 0..s.num_relations() {
                if s.arity(r) == 1 {
                    continue;
                }
                let mut ts: Vec<Vec<usize>> = s
                    .tuples(r)
                    .iter()
                    .map(|t| {
                        t.iter()
                            .map(|&e| index.get(s.element_name(e)).copied())
                            .collect()
                    })
                    .collect::<Option<_>>()?;
                ts.sort();
                out.push((s.relation_name(r).to_string(), ts));
            }
            out.sort();
            Some(out)
        };
        let board = board_of(first).expect("the first position's own elements");
        let mut labels = Vec::new();
        for (pi, p) in plays.plays.iter().enumerate() {
            let mut per = Vec::new();
            for (si, s) in p.positions.iter().enumerate() {
                let at = Where {
                    play: pi,
                    position: si,
                    line: p.position_lines.get(si).copied().unwrap_or(0),
                };
                let same_elements = s.num_elements() == names.len()
                    && s.elements().all(|e| index.contains_key(s.element_name(e)));
                if !same_elements {
                    return Err(LearnError::Elements { at });
                }
                let b = board_of(s).ok_or(LearnError::Elements { at })?;
                if b != board {
                    let relation = board
                        .iter()
                        .chain(&b)
                        .find(|r| !b.contains(r) || !board.contains(r))
                        .map(|r| r.0.clone())
                        .unwrap_or_default();
                    return Err(LearnError::Board { at, relation });
                }
                let mut l = vec![0u64; names.len()];
                for r in 0..s.num_relations() {
                    if s.arity(r) != 1 {
                        continue;
                    }
                    let bit = unary
                        .iter()
                        .position(|u| u == s.relation_name(r))
                        .expect("collected");
                    for t in s.tuples(r) {
                        l[index[s.element_name(t[0])]] |= 1 << bit;
                    }
                }
                per.push(l);
            }
            labels.push(per);
        }
        Ok(Examples {
            plays,
            unary,
            labels,
            board,
            names,
        })
    }

    fn at(&self, play: usize, position: usize) -> Where {
        Where {
            play,
            position,
            line: self.plays.plays[play]
                .position_lines
                .get(position)
                .copied()
                .unwrap_or(0),
        }
    }
}

/// A prototype in canonical form: per changed element its relations before
/// and after, and the tuples of the board among the changed elements.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Prototype {
    changes: Vec<(u64, u64)>,
    tuples: Vec<(usize, Vec<usize>)>,
}

/// The canonical prototype of a move changing `changed` (elements with
/// their relations before and after), and every ordering of `changed`
/// that gives it.
fn prototype(ex: &Examples, changed: &[(usize, u64, u64)]) -> (Prototype, Vec<Vec<usize>>) {
    let mut best: Option<(Prototype, Vec<Vec<usize>>)> = None;
    let mut order: Vec<usize> = (0..changed.len()).collect();
    permutations(&mut order, 0, &mut |perm| {
        let elems: Vec<usize> = perm.iter().map(|&i| changed[i].0).collect();
        let mut tuples = Vec::new();
        for (r, (_, ts)) in ex.board.iter().enumerate() {
            for t in ts {
                let pos: Option<Vec<usize>> = t
                    .iter()
                    .map(|e| elems.iter().position(|x| x == e))
                    .collect();
                if let Some(pos) = pos {
                    tuples.push((r, pos));
                }
            }
        }
        tuples.sort();
        let p = Prototype {
            changes: perm.iter().map(|&i| (changed[i].1, changed[i].2)).collect(),
            tuples,
        };
        match &mut best {
            Some((b, orders)) if *b == p => orders.push(elems),
            Some((b, _)) if *b < p => {}
            _ => best = Some((p, vec![elems])),
        }
    });
    best.expect("at least one ordering")
}

fn permutations(v: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
    if k == v.len() {
        f(v);
        return;
    }
    for i in k..v.len() {
        v.swap(k, i);
        permutations(v, k + 1, f);
        v.swap(k, i);
    }
}

/// The applications of one prototype by one player.
#[derive(Default)]
struct Applications {
    /// The position before and the ordering of the changed elements.
    legal: Vec<(Where, Vec<usize>)>,
    illegal: Vec<(Where, Vec<Vec<usize>>)>,
}

/// Learns a game from example plays (spec 4.4-4.6).
pub fn learn_game(plays: &Plays, limits: &Limits) -> Result<Learnt, LearnError> {
    let start = Instant::now();
    let ex = Examples::new(plays)?;
    let mut notes = Vec::new();
    let mut calls = Vec::new();
    // Every play starts where the first one does.
    for (pi, _) in plays.plays.iter().enumerate() {
        if ex.labels[pi][0] != ex.labels[0][0] {
            return Err(LearnError::Start { at: ex.at(pi, 0) });
        }
    }

    // Positions by content, with where each was seen, its last position
    // being the won one of a play for that player.
    let mut seen: BTreeMap<&Vec<u64>, Where> = BTreeMap::new();
    let mut won: [BTreeMap<&Vec<u64>, Where>; 2] = Default::default();
    for (pi, p) in plays.plays.iter().enumerate() {
        let len = p.positions.len();
        let legal = if p.label == PlayLabel::Illegal {
            len - 1
        } else {
            len
        };
        for si in 0..legal {
            let at = ex.at(pi, si);
            let last = si + 1 == len;
            match p.label {
                PlayLabel::FirstWins if last => {
                    won[0].entry(&ex.labels[pi][si]).or_insert(at);
                }
                PlayLabel::SecondWins if last => {
                    won[1].entry(&ex.labels[pi][si]).or_insert(at);
                }
                _ => {
                    seen.entry(&ex.labels[pi][si]).or_insert(at);
                }
            }
        }
    }
    let structure = |at: Where| &plays.plays[at.play].positions[at.position];
    let mut win_formulas = Vec::new();
    for player in 0..2 {
        let other = &won[1 - player];
        for (key, &at) in &won[player] {
            if let Some(&not_won) = seen.get(key).or_else(|| other.get(key)) {
                return Err(LearnError::Inconsistent {
                    won: at,
                    not_won,
                    player,
                });
            }
        }
        let what = format!("the winning condition of player {}", player + 1);
        if won[player].is_empty() {
            notes.push(format!(
                "no play is won by player {}: its winning condition is `false`",
                player + 1
            ));
            win_formulas.push(Formula::False);
            continue;
        }
        let pos: Vec<Structure> = won[player]
            .values()
            .map(|&w| structure(w).clone())
            .collect();
        let neg: Vec<Structure> = seen
            .values()
            .chain(other.values())
            .map(|&w| structure(w).clone())
            .collect();
        let d = distinguish(&pos, &neg, limits).map_err(|error| LearnError::Distinguish {
            what: what.clone(),
            error,
        })?;
        win_formulas.push(d.formula.clone());
        calls.push(Call {
            what,
            positives: pos.len(),
            negatives: neg.len(),
            result: d,
        });
    }

    // Moves.
    let mut protos: BTreeMap<(usize, Prototype), Applications> = BTreeMap::new();
    // Illegal moves wait for all legal ones: a prototype may first be
    // seen legal after it was shown illegal.
    let mut illegal = Vec::new();
    for (pi, p) in plays.plays.iter().enumerate() {
        for si in 1..p.positions.len() {
            let (before, after) = (&ex.labels[pi][si - 1], &ex.labels[pi][si]);
            let changed: Vec<(usize, u64, u64)> = (0..ex.names.len())
                .filter(|&e| before[e] != after[e])
                .map(|e| (e, before[e], after[e]))
                .collect();
            let at = ex.at(pi, si);
            if changed.is_empty() {
                return Err(LearnError::NoChange { at });
            }
            if changed.len() > MAX_CHANGED {
                return Err(LearnError::TooManyChanges {
                    at,
                    changed: changed.len(),
                });
            }
            let (proto, orders) = prototype(&ex, &changed);
            let player = (si - 1) % 2;
            let from = ex.at(pi, si - 1);
            if p.label == PlayLabel::Illegal && si + 1 == p.positions.len() {
                illegal.push((at, from, player, proto, orders));
            } else {
                let apps = protos.entry((player, proto)).or_default();
                apps.legal.push((from, orders[0].clone()));
            }
        }
    }
    for (at, from, player, proto, orders) in illegal {
        match protos.get_mut(&(player, proto)) {
            Some(apps) => apps.illegal.push((from, orders)),
            None => notes.push(format!(
                "the illegal move to {at} changes the position as no legal move does: no rule \
                 allows it, nothing to learn from it"
            )),
        }
    }

    // The relations moves change: the pieces, matched exactly by the rules.
    let mut pieces = 0u64;
    for (_, proto) in protos.keys() {
        for &(b, a) in &proto.changes {
            pieces |= b ^ a;
        }
    }
    let emb: Vec<String> = (0..ex.unary.len())
        .filter(|&i| pieces & (1 << i) != 0)
        .map(|i| ex.unary[i].clone())
        .collect();
    let player_names: Vec<String> = if plays.players.len() == 2 {
        plays.players.clone()
    } else {
        vec!["first".into(), "second".into()]
    };
    let win_names = ["Win1", "Win2"];
    let nobody_won = Formula::And(
        win_names
            .iter()
            .map(|w| {
                Formula::Not(Box::new(Formula::Rel {
                    name: w.to_string(),
                    args: vec![],
                }))
            })
            .collect(),
    );
    let mut rules = Vec::new();
    let mut moves: [Vec<String>; 2] = Default::default();
    let mut counts = [0usize; 2];
    for ((player, proto), apps) in &protos {
        counts[*player] += 1;
        let name = format!("{}{}", capitalised(&player_names[*player]), counts[*player]);
        let elems: Vec<String> = (0..proto.changes.len()).map(element_name).collect();
        let side = |masks: Vec<u64>, with_board: bool| RuleSide {
            elements: elems.clone(),
            tuples: masks
                .iter()
                .enumerate()
                .flat_map(|(i, &m)| {
                    let elems = &elems;
                    let unary = &ex.unary;
                    (0..unary.len())
                        .filter(move |&u| m & pieces & (1 << u) != 0)
                        .map(move |u| RuleTuple {
                            relation: unary[u].clone(),
                            args: vec![elems[i].clone()],
                            optional: false,
                        })
                })
                .chain(
                    proto
                        .tuples
                        .iter()
                        .filter(|_| with_board)
                        .map(|(r, pos)| RuleTuple {
                            relation: ex.board[*r].0.clone(),
                            args: pos.iter().map(|&p| elems[p].clone()).collect(),
                            optional: false,
                        }),
                )
                .collect(),
            functions: Vec::new(),
        };
        let mut pre = vec![nobody_won.clone()];
        if !apps.illegal.is_empty() {
            let what = format!("the precondition of rule {name}");
            let marked = |at: Where, order: &[usize]| {
                let mut s = structure(at).clone();
                for (i, &e) in order.iter().enumerate() {
                    let r = s.declare_relation(&mark(i), 1).expect("a fresh name");
                    let el = s.element(&ex.names[e]).expect("same elements");
                    s.add_tuple(r, &[el]);
                }
                s
            };
            let pos: Vec<Structure> = apps.legal.iter().map(|(at, o)| marked(*at, o)).collect();
            let mut neg = Vec::new();
            for (at, orders) in &apps.illegal {
                for o in orders {
                    let m = marked(*at, o);
                    if let Some(i) = pos.iter().position(|p| *p == m) {
                        return Err(LearnError::LegalAndIllegal {
                            legal: apps.legal[i].0,
                            illegal: *at,
                        });
                    }
                    neg.push(m);
                }
            }
            let marks: Vec<String> = (0..elems.len()).map(mark).collect();
            let d = distinguish_anchored(&pos, &neg, &marks, limits).map_err(|error| {
                LearnError::Distinguish {
                    what: what.clone(),
                    error,
                }
            })?;
            pre.push(unmark(&d.formula, &elems));
            calls.push(Call {
                what,
                positives: pos.len(),
                negatives: neg.len(),
                result: d,
            });
        }
        rules.push(ir::Rule {
            name: name.clone(),
            lhs: side(proto.changes.iter().map(|c| c.0).collect(), true),
            rhs: side(proto.changes.iter().map(|c| c.1).collect(), false),
            emb: emb.clone(),
            map: elems.iter().map(|e| (e.clone(), e.clone())).collect(),
            nondistinct: Vec::new(),
            pre: tidy(&Formula::And(pre)),
            inv: Formula::True,
            post: Formula::True,
            update: Vec::new(),
            dynamics: Vec::new(),
        });
        moves[*player].push(name);
    }
    let win = |i: usize| {
        RealExpr::Char(Box::new(Formula::Rel {
            name: win_names[i].to_string(),
            args: vec![],
        }))
    };
    let payoff = |p: usize| RealExpr::Sub(Box::new(win(p)), Box::new(win(1 - p)));
    let locations = (0..2)
        .map(|loc| Location {
            id: loc,
            players: (0..2)
                .map(|p| PlayerLocation {
                    payoff: payoff(p),
                    moves: if p == loc {
                        moves[p]
                            .iter()
                            .map(|r| Label {
                                rule: r.clone(),
                                time: None,
                                params: Vec::new(),
                                multiplicity: Multiplicity::One,
                                targets: vec![Target {
                                    location: 1 - loc,
                                    probability: None,
                                    draws: Vec::new(),
                                }],
                            })
                            .collect()
                    } else {
                        Vec::new()
                    },
                })
                .collect(),
        })
        .collect();
    let mut start_structure = plays.plays[0].positions[0].clone();
    for u in &ex.unary {
        start_structure.declare_relation(u, 1);
    }
    let game = ir::Game {
        players: player_names,
        data: Vec::new(),
        defined_relations: win_formulas
            .into_iter()
            .enumerate()
            .map(|(i, body)| DefinedRelation {
                name: win_names[i].to_string(),
                params: Vec::new(),
                body,
            })
            .collect(),
        rules,
        locations,
        start: start_structure,
        model: None,
        history: Vec::new(),
        repetition: None,
    };
    Ok(Learnt {
        game,
        calls,
        notes,
        time: start.elapsed(),
    })
}

/// `a`, `b`, ..., `z`, `a1`, ...
fn element_name(i: usize) -> String {
    let letter = (b'a' + (i % 26) as u8) as char;
    if i < 26 {
        letter.to_string()
    } else {
        format!("{letter}{}", i / 26)
    }
}

fn capitalised(s: &str) -> String {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) => c.to_uppercase().chain(cs).collect(),
        None => String::new(),
    }
}

/// The unary relation marking the `i`-th changed element (spec 4.5).
fn mark(i: usize) -> String {
    format!("Changed_{}", i + 1)
}

/// `Changed_i(x)` replaced by `x = e_i`, the rule's element.
fn unmark(f: &Formula, elems: &[String]) -> Formula {
    fn go(f: &Formula, elems: &[String]) -> Formula {
        match f {
            Formula::Rel { name, args } if args.len() == 1 => {
                match elems.iter().enumerate().find(|(i, _)| *name == mark(*i)) {
                    Some((_, e)) => Formula::Eq(args[0].clone(), e.clone()),
                    None => f.clone(),
                }
            }
            f => map(f, &mut |c| go(c, elems)),
        }
    }
    tidy(&go(f, elems))
}
