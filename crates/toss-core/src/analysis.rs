//! Analyses of a game's IR that every engine needs.
//!
//! *Fluent* relations are those some rule can change; all others are
//! *stable*: their extension in every reachable state is the one in the
//! starting structure, so engines may tabulate them once (board adjacency,
//! rows, diagonals), and heuristics treat them as fixed (spec 3.3).

use std::collections::BTreeSet;

use crate::ir::{Game, Rule};

/// The relations a rule can change (add or remove tuples of).
///
/// A rule adds a tuple when its right side has one whose counterpart (the
/// tuple of left elements the right elements replace) is not on the left
/// side; it removes one when an `emb` relation has a left tuple whose
/// counterpart is not on the right side. Deleting a matched element removes
/// every tuple on it, which may touch any relation: such a rule changes all
/// relations; so may copying one (a left element that two right elements
/// replace: the copy gets its tuples). `all_relations` are the relations
/// such reshaping can touch (those of arity 1 and more).
pub fn changed_relations(rule: &Rule, all_relations: &[String]) -> BTreeSet<String> {
    let mut changed = BTreeSet::new();
    let lhs_of = |r: &str| {
        rule.map
            .iter()
            .find(|(rr, _)| rr == r)
            .map(|(_, l)| l.as_str())
    };
    let images = |l: &String| rule.map.iter().filter(|(_, ml)| ml == l).count();
    if rule.lhs.elements.iter().any(|l| images(l) != 1) {
        return all_relations.iter().cloned().collect();
    }
    let on_lhs = |rel: &str, args: &[&str]| {
        rule.lhs.tuples.iter().any(|t| {
            t.relation == rel
                && !t.optional
                && t.args.iter().map(String::as_str).eq(args.iter().copied())
        })
    };
    for t in &rule.rhs.tuples {
        let mapped: Option<Vec<&str>> = t.args.iter().map(|a| lhs_of(a)).collect();
        match mapped {
            Some(args) if !t.optional && on_lhs(&t.relation, &args) => {}
            _ => {
                changed.insert(t.relation.clone());
            }
        }
    }
    for t in &rule.lhs.tuples {
        if !rule.emb.contains(&t.relation) {
            continue;
        }
        let kept = rule.rhs.tuples.iter().any(|rt| {
            !rt.optional
                && !t.optional
                && rt.relation == t.relation
                && rt.args.len() == t.args.len()
                && rt
                    .args
                    .iter()
                    .zip(&t.args)
                    .all(|(ra, la)| lhs_of(ra) == Some(la.as_str()))
        });
        if !kept {
            changed.insert(t.relation.clone());
        }
    }
    changed
}

/// Names of the fluent relations of a game, sorted.
pub fn fluent_relations(game: &Game) -> BTreeSet<String> {
    let s = &game.start;
    let all: Vec<String> = (0..s.num_relations())
        .filter(|&r| s.arity(r) > 0)
        .map(|r| s.relation_name(r).to_string())
        .collect();
    game.rules
        .iter()
        .flat_map(|r| changed_relations(r, &all))
        .collect()
}

/// The players with labels in each location (the movers of its
/// non-terminal states), in player order.
pub fn label_players(game: &Game) -> Vec<Vec<usize>> {
    game.locations
        .iter()
        .map(|l| {
            (l.players.iter().enumerate())
                .filter(|(_, pl)| !pl.moves.is_empty())
                .map(|(p, _)| p)
                .collect()
        })
        .collect()
}

/// Whether some ply can continue a turn (`Game::continues_turn`): a label
/// of a player with labels in a location leads to a location where one of
/// that location's players is the only one with labels (Reversi's
/// placement, then its flips; a die roll, then the move; a joint move,
/// then one player's update plies). Only in games of two or more players.
pub fn has_compound_turns(game: &Game) -> bool {
    let players = label_players(game);
    game.players.len() > 1
        && game.locations.iter().zip(&players).any(|(loc, ps)| {
            ps.iter().any(|&p| {
                loc.players[p].moves.iter().any(|l| {
                    l.targets.iter().any(|t| {
                        players
                            .get(t.location)
                            .is_some_and(|to| to.len() == 1 && ps.contains(&to[0]))
                    })
                })
            })
        })
}

/// The representative of `i`'s part in a union-find forest (`part[i]` its
/// parent, a root its own), halving the path on the way.
pub fn union_find_root(part: &mut [usize], mut i: usize) -> usize {
    while part[i] != i {
        part[i] = part[part[i]];
        i = part[i];
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Formula, RuleSide, RuleTuple};

    fn side(elements: &[&str], tuples: &[(&str, &[&str])]) -> RuleSide {
        RuleSide {
            elements: elements.iter().map(|s| s.to_string()).collect(),
            tuples: tuples
                .iter()
                .map(|(r, a)| RuleTuple {
                    relation: r.to_string(),
                    args: a.iter().map(|s| s.to_string()).collect(),
                    optional: false,
                })
                .collect(),
            functions: vec![],
        }
    }

    fn rule(lhs: RuleSide, rhs: RuleSide, emb: &[&str], map: &[(&str, &str)]) -> Rule {
        Rule {
            name: "r".into(),
            lhs,
            rhs,
            emb: emb.iter().map(|s| s.to_string()).collect(),
            map: map
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            nondistinct: vec![],
            pre: Formula::True,
            inv: Formula::True,
            post: Formula::True,
            update: vec![],
            dynamics: vec![],
        }
    }

    #[test]
    fn a_breakthrough_step_changes_only_the_pieces() {
        // [a, b | W(a); C(a, b)] -> [a, b | W(b); C(a, b)] emb W, B
        let r = rule(
            side(&["a", "b"], &[("W", &["a"]), ("C", &["a", "b"])]),
            side(&["a", "b"], &[("W", &["b"]), ("C", &["a", "b"])]),
            &["W", "B"],
            &[("a", "a"), ("b", "b")],
        );
        let all = ["W", "B", "C", "R"].map(String::from);
        let changed: Vec<_> = changed_relations(&r, &all).into_iter().collect();
        assert_eq!(changed, ["W"]);
    }

    #[test]
    fn deleting_an_element_may_change_everything() {
        let r = rule(side(&["a"], &[]), side(&[], &[]), &[], &[]);
        let all = ["P", "E"].map(String::from);
        assert_eq!(changed_relations(&r, &all).len(), 2);
    }
}
