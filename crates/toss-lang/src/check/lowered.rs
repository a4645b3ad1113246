//! Checks on the lowered game, where boards are expanded into elements and
//! every relation a formula mentions is one walk away
//! ([`relations_used`]); the errors point into the source through the AST.

use std::collections::HashMap;

use toss_core::ir;
use toss_core::ir::walk::relations_used;

use super::formulas::first_occurrence;
use crate::ast::*;
use crate::diagnostic::Diagnostic;

/// The errors of the checks on the lowered `game` of `file`.
pub(crate) fn lowered(file: &File, game: &ir::Game) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    rel_cycles(file, game, &mut errors);
    history_elements(file, game, &mut errors);
    repetition(file, game, &mut errors);
    errors
}

/// `REPETITION :f(e) OF ...`: one at most; `f`, `e` and everything listed
/// are in START (relations of the structure, not defined ones); no rule
/// sets `f`, which the engines keep.
fn repetition(file: &File, game: &ir::Game, errors: &mut Vec<Diagnostic>) {
    let mut seen_one = false;
    for item in &file.items {
        let Item::Repetition {
            function,
            element,
            relations,
            functions,
            span,
        } = item
        else {
            continue;
        };
        if seen_one {
            errors.push(Diagnostic::new("a second REPETITION", span.clone()));
        }
        seen_one = true;
        if game.start.function(&function.name).is_none() {
            errors.push(Diagnostic::new(
                format!(
                    "REPETITION keeps `:{0}`, which START does not declare: add `{0} {{}}` to its functions",
                    function.name
                ),
                function.span.clone(),
            ));
        }
        if game.start.element(&element.name).is_none() {
            errors.push(Diagnostic::new(
                format!("no element `{}` in the starting structure", element.name),
                element.span.clone(),
            ));
        }
        for r in relations {
            if game.start.relation(&r.name).is_none() {
                let what = if game.defined_relations.iter().any(|d| d.name == r.name) {
                    "is a defined relation: a position is made of the structure's relations"
                } else {
                    "is not a relation of the structure"
                };
                errors.push(Diagnostic::new(
                    format!("`{}` {what}", r.name),
                    r.span.clone(),
                ));
            }
        }
        for f in functions {
            if game.start.function(&f.name).is_none() {
                errors.push(Diagnostic::new(
                    format!("`:{}` is not a function of the structure", f.name),
                    f.span.clone(),
                ));
            } else if f.name == function.name {
                errors.push(Diagnostic::new(
                    format!("`:{}` is the count itself, not part of a position", f.name),
                    f.span.clone(),
                ));
            }
        }
        for rule in &game.rules {
            let sets = rule.update.iter().any(|u| u.function == function.name)
                || rule.dynamics.iter().any(|d| d.function == function.name);
            if sets {
                errors.push(Diagnostic::new(
                    format!(
                        "rule `{}` sets `:{}`, which REPETITION keeps (the engines set it after every ply)",
                        rule.name, function.name
                    ),
                    function.span.clone(),
                ));
            }
        }
    }
}

/// A REL defined through itself, directly or through other RELs, is an
/// error at its definition (recursion needs `lfp`/`gfp`): otherwise the
/// interpreter refuses it later without a place.
fn rel_cycles(file: &File, game: &ir::Game, errors: &mut Vec<Diagnostic>) {
    let defs: Vec<&RelDef> = file
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Rel(r) => Some(r),
            _ => None,
        })
        .collect();
    let index: HashMap<&str, usize> = defs
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name.name.as_str(), i))
        .collect();
    // Edges: the RELs each body uses, with the span of the first use. The
    // lowered body names every relation it mentions (bound names too); the
    // source confirms a use and gives its place.
    let mut uses: Vec<Vec<(usize, Span)>> = Vec::with_capacity(defs.len());
    let lowered: HashMap<&str, &ir::Formula> = game
        .defined_relations
        .iter()
        .map(|d| (d.name.as_str(), &d.body))
        .collect();
    for r in &defs {
        let names = lowered
            .get(r.name.name.as_str())
            .map(|body| relations_used(body))
            .unwrap_or_default();
        uses.push(
            names
                .iter()
                .filter_map(|n| {
                    let &j = index.get(n.as_str())?;
                    Some((j, first_occurrence(&r.body, n)?))
                })
                .collect(),
        );
    }
    // Iterative depth-first search; a back edge closes a cycle, reported
    // once, at the first definition of the cycle in the file.
    let mut state = vec![0u8; defs.len()]; // 0 new, 1 on the path, 2 done
    let mut reported = vec![false; defs.len()];
    for root in 0..defs.len() {
        if state[root] != 0 {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(root, 0)];
        state[root] = 1;
        while let Some(&mut (v, ref mut next)) = path.last_mut() {
            let Some((w, span)) = uses[v].get(*next).cloned() else {
                state[v] = 2;
                path.pop();
                continue;
            };
            *next += 1;
            if state[w] == 0 {
                state[w] = 1;
                path.push((w, 0));
            } else if state[w] == 1 {
                let from = path.iter().position(|&(u, _)| u == w).unwrap_or(0);
                let cycle: Vec<usize> = path[from..].iter().map(|&(u, _)| u).collect();
                let first = *cycle.iter().min().unwrap_or(&w);
                if cycle.iter().any(|&u| reported[u]) {
                    continue;
                }
                cycle.iter().for_each(|&u| reported[u] = true);
                let names: Vec<&str> = cycle
                    .iter()
                    .chain(std::iter::once(&w))
                    .map(|&u| defs[u].name.name.as_str())
                    .collect();
                errors.push(
                    Diagnostic::new(
                        format!(
                            "REL `{}` is defined through itself: {}",
                            defs[first].name.name,
                            names.join(" -> ")
                        ),
                        defs[first].name.span.clone(),
                    )
                    .with_label(span, "the use that closes the cycle")
                    .with_note(
                        "a defined relation may not be recursive; \
                         write a fixed point with `lfp` or `gfp` instead",
                    ),
                );
            }
        }
    }
}

/// The elements a saved play's moves name: each left element must be one
/// of the rule's left side, and each element it is matched to one of the
/// starting or current structure (checked after lowering, which expands
/// boards into elements). When a rule creates elements, a later move may
/// name one of those, so the second check is left out.
fn history_elements(file: &File, game: &ir::Game, errors: &mut Vec<Diagnostic>) {
    let creates = toss_core::ir::bounds::creates_elements(game);
    let known = |name: &str| {
        game.start.element(name).is_some()
            || game
                .model
                .as_ref()
                .is_some_and(|m| m.element(name).is_some())
    };
    for item in &file.items {
        let Item::History { moves, .. } = item else {
            continue;
        };
        for m in moves {
            let lhs = file.items.iter().find_map(|i| match i {
                Item::Rule(r) if r.name.name == m.rule.name => Some(&r.lhs),
                _ => None,
            });
            for (left, elem) in &m.matching {
                if let Some(lhs) = lhs
                    && !lhs.elements.iter().any(|e| e.name == left.name)
                {
                    errors.push(Diagnostic::new(
                        format!(
                            "rule `{}` has no left-side element `{}`",
                            m.rule.name, left.name
                        ),
                        left.span.clone(),
                    ));
                }
                if !creates && !known(&elem.name) {
                    errors.push(Diagnostic::new(
                        format!(
                            "no element `{}` in the starting or the current structure",
                            elem.name
                        ),
                        elem.span.clone(),
                    ));
                }
            }
        }
    }
}
