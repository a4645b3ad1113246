//! Step 2 of grounding: the rule instances as a network of gates, folded,
//! shared, pruned and put in evaluation order (see the module
//! documentation of `ground`).

use std::ops::Range;

use crate::sccs;
use crate::terms::FxHashMap;

use super::instantiate::Instances;
use super::{Gate, GroundProgram, Lit};

/// Simplifies a disjunction of conjunctions: constants folded, literals
/// sorted and deduplicated, contradictory clauses dropped. `None` when a
/// clause is empty (the disjunction is true).
fn simplify(clauses: Vec<Vec<Lit>>) -> Option<Vec<Vec<Lit>>> {
    let mut out: Vec<Vec<Lit>> = Vec::with_capacity(clauses.len());
    'c: for mut c in clauses {
        if c.contains(&Lit::FALSE) {
            continue;
        }
        c.retain(|&l| l != Lit::TRUE);
        c.sort_unstable();
        c.dedup();
        for w in c.windows(2) {
            if w[0].signal() == w[1].signal() {
                continue 'c;
            }
        }
        if c.is_empty() {
            return None;
        }
        out.push(c);
    }
    out.sort_unstable();
    out.dedup();
    // A clause that contains another one adds nothing to the disjunction.
    if out.len() > 1 && out.len() <= 64 {
        let keep: Vec<bool> = (0..out.len())
            .map(|i| {
                !(0..out.len()).any(|j| {
                    j != i
                        && out[j].len() < out[i].len()
                        && out[j].iter().all(|l| out[i].binary_search(l).is_ok())
                })
            })
            .collect();
        let mut k = keep.into_iter();
        out.retain(|_| k.next().unwrap_or(true));
    }
    Some(out)
}

/// Shares the choice of a move between clauses: clauses that differ only
/// in one positive input of one role, `rest & does(r, m1) | rest & does(r,
/// m2) | ...`, become `rest & g` with `g = does(r, m1) | does(r, m2) | ...`
/// a gate of its own (an *input set*, which evaluation reads as one test of
/// the move chosen). Frame clauses (`next` keeps a cell unless the move
/// touches it) are the usual source: one clause per move otherwise.
/// The literal of "role `r` does one of `ins`" (sorted inputs): false for
/// none, the input itself for one, else a shared gate.
fn input_set(
    ins: &[Lit],
    r: u32,
    gates: &mut Vec<Gate>,
    shared: &mut FxHashMap<Vec<Vec<Lit>>, Lit>,
    roles: &[String],
    base: u32,
) -> Lit {
    match ins {
        [] => Lit::FALSE,
        [one] => *one,
        _ => {
            let key: Vec<Vec<Lit>> = ins.iter().map(|&i| vec![i]).collect();
            let n = ins.len();
            *shared.entry(key.clone()).or_insert_with(|| {
                gates.push(Gate {
                    atom: format!("(does {} one of {n})", roles[r as usize]),
                    clauses: key,
                });
                Lit::new(base + (gates.len() - 1) as u32, false)
            })
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn factor_inputs(
    cs: Vec<Vec<Lit>>,
    (first_input, role_of): &(u32, Vec<u32>),
    inert: &[bool],
    gates: &mut Vec<Gate>,
    shared: &mut FxHashMap<Vec<Vec<Lit>>, Lit>,
    roles: &[String],
    base: u32,
) -> Vec<Vec<Lit>> {
    let role = |l: Lit| {
        let s = l.signal();
        (s >= *first_input && s < base).then(|| role_of[(s - first_input) as usize])
    };
    let mut groups: std::collections::BTreeMap<(Vec<Lit>, u32), Vec<Lit>> = Default::default();
    let mut out = Vec::new();
    for c in cs {
        let inputs: Vec<Lit> = c.iter().copied().filter(|&l| role(l).is_some()).collect();
        match inputs.as_slice() {
            [i] if !i.negated() => {
                let rest: Vec<Lit> = c.into_iter().filter(|l| l != i).collect();
                groups
                    .entry((rest, role(*i).unwrap_or(0)))
                    .or_default()
                    .push(*i);
            }
            _ => out.push(c),
        }
    }
    if groups.is_empty() || groups.values().all(|v| v.len() == 1) {
        for ((mut rest, _), ins) in groups {
            rest.extend(ins);
            rest.sort_unstable();
            out.push(rest);
        }
        out.sort_unstable();
        return out;
    }
    for ((mut rest, r), mut ins) in groups {
        if ins.len() == 1 {
            rest.extend(ins);
        } else {
            // Every role does exactly one action, so "one of S" is "none of
            // the others": a frame clause's set (every move but the few that
            // touch its fluent) becomes the negation of a small set, which
            // changes only when one of those few moves is chosen.
            let all: Vec<Lit> = (0..role_of.len() as u32)
                .filter(|&i| role_of[i as usize] == r)
                .map(|i| Lit::new(first_input + i, false))
                .collect();
            ins.sort_unstable();
            ins.dedup();
            let negate = 2 * ins.len() > all.len();
            if negate {
                ins = all
                    .iter()
                    .copied()
                    .filter(|l| ins.binary_search(l).is_err())
                    .collect();
            }
            // The inert actions (those no rule reads, as `noop`) are in every
            // such complement: they get a gate of their own per role, so
            // that a turn that switches a role between `noop` and a move
            // flips that one gate, not every frame set.
            let (inert_part, mut ins): (Vec<Lit>, Vec<Lit>) = if negate {
                ins.iter()
                    .partition(|l| inert[(l.signal() - first_input) as usize])
            } else {
                (Vec::new(), ins)
            };
            if !inert_part.is_empty() && !ins.is_empty() {
                let l = input_set(&inert_part, r, gates, shared, roles, base);
                rest.push(!l);
            } else {
                ins.extend(inert_part);
                ins.sort_unstable();
            }
            let l = input_set(&ins, r, gates, shared, roles, base);
            let l = if negate { !l } else { l };
            if l == Lit::FALSE {
                continue;
            }
            if l != Lit::TRUE {
                rest.push(l);
            }
            if rest.is_empty() {
                return vec![Vec::new()];
            }
        }
        rest.sort_unstable();
        out.push(rest);
    }
    out.sort_unstable();
    out.dedup();
    out
}

pub(super) fn build(inst: Instances) -> GroundProgram {
    let n = inst.atoms.len();
    let base = inst.gate_base;
    let mut defs: Vec<Vec<Vec<Lit>>> = vec![Vec::new(); n];
    for (a, c) in inst.clauses {
        defs[a as usize].push(c);
    }
    let atom_of = |l: Lit| (l.signal() >= base).then(|| (l.signal() - base) as usize);
    let succ: Vec<Vec<usize>> = defs
        .iter()
        .map(|cs| {
            let mut v: Vec<usize> = cs.iter().flatten().filter_map(|&l| atom_of(l)).collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();

    // Fold and share, dependencies first. `resolved[a]` is the literal that
    // stands for atom `a` in the new numbering (gates `base + k`).
    let mut resolved: Vec<Lit> = vec![Lit::FALSE; n];
    let mut gates: Vec<Gate> = Vec::new();
    let mut loops: Vec<Range<usize>> = Vec::new();
    let mut shared: FxHashMap<Vec<Vec<Lit>>, Lit> = FxHashMap::default();
    let map = |resolved: &[Lit], l: Lit| match atom_of(l) {
        Some(a) => {
            let r = resolved[a];
            if l.negated() { !r } else { r }
        }
        None => l,
    };
    // The role of each input signal (index `signal - first input`).
    let first_input = base - inst.moves.iter().map(Vec::len).sum::<usize>() as u32;
    let roles_of_inputs: (u32, Vec<u32>) = (
        first_input,
        inst.moves
            .iter()
            .enumerate()
            .flat_map(|(r, ms)| std::iter::repeat_n(r as u32, ms.len()))
            .collect(),
    );
    // Inputs no rule instance reads (`noop`): see `factor_inputs`.
    let mut inert = vec![true; roles_of_inputs.1.len()];
    for l in defs.iter().flatten().flatten() {
        if (first_input..base).contains(&l.signal()) {
            inert[(l.signal() - first_input) as usize] = false;
        }
    }
    for comp in sccs(n, &succ) {
        let cyclic = comp.len() > 1 || succ[comp[0]].contains(&comp[0]);
        if cyclic {
            let start = gates.len();
            for (k, &a) in comp.iter().enumerate() {
                resolved[a] = Lit::new(base + (start + k) as u32, false);
            }
            for &a in &comp {
                let cs: Vec<Vec<Lit>> = defs[a]
                    .iter()
                    .map(|c| c.iter().map(|&l| map(&resolved, l)).collect())
                    .collect();
                let clauses = simplify(cs).unwrap_or_else(|| vec![vec![Lit::TRUE]]);
                gates.push(Gate {
                    atom: inst.atoms[a].clone(),
                    clauses,
                });
            }
            loops.push(start..gates.len());
            continue;
        }
        let a = comp[0];
        let cs: Vec<Vec<Lit>> = std::mem::take(&mut defs[a])
            .into_iter()
            .map(|c| c.into_iter().map(|l| map(&resolved, l)).collect())
            .collect();
        let cs = simplify(cs).and_then(|cs| {
            simplify(factor_inputs(
                cs,
                &roles_of_inputs,
                &inert,
                &mut gates,
                &mut shared,
                &inst.roles,
                base,
            ))
        });
        resolved[a] = match cs {
            None => Lit::TRUE,
            Some(cs) if cs.is_empty() => Lit::FALSE,
            Some(cs) if cs.len() == 1 && cs[0].len() == 1 => cs[0][0],
            Some(cs) => *shared.entry(cs.clone()).or_insert_with(|| {
                gates.push(Gate {
                    atom: inst.atoms[a].clone(),
                    clauses: cs,
                });
                Lit::new(base + (gates.len() - 1) as u32, false)
            }),
        };
    }

    let out = |l: Lit| map(&resolved, l);
    let terminal = out(inst.terminal);
    let legal: Vec<Vec<Lit>> = inst
        .legal
        .iter()
        .map(|ls| ls.iter().map(|&l| out(l)).collect())
        .collect();
    let goals: Vec<Vec<(u64, Lit)>> = inst
        .goals
        .iter()
        .map(|gs| gs.iter().map(|&(v, l)| (v, out(l))).collect())
        .collect();
    let next: Vec<Lit> = inst.next.iter().map(|&l| out(l)).collect();

    // Phases. A gate is a move gate when it reads an input, directly or
    // through another gate.
    let ng = gates.len();
    let gate_of = |l: Lit| (l.signal() >= base).then(|| (l.signal() - base) as usize);
    let input_range = (base - inst.moves.iter().map(Vec::len).sum::<usize>() as u32)..base;
    let mut is_move = vec![false; ng];
    for g in 0..ng {
        is_move[g] = gates[g].clauses.iter().flatten().any(|&l| {
            input_range.contains(&l.signal()) || gate_of(l).is_some_and(|h| h < g && is_move[h])
        });
    }
    // Loops: a member is a move gate when any member is.
    for l in &loops {
        if l.clone().any(|g| {
            gates[g].clauses.iter().flatten().any(|&x| {
                input_range.contains(&x.signal()) || gate_of(x).is_some_and(|h| is_move[h])
            })
        }) {
            l.clone().for_each(|g| is_move[g] = true);
        }
    }
    let mark = |roots: &mut dyn Iterator<Item = Lit>, seen: &mut Vec<bool>| {
        let mut stack: Vec<usize> = roots.filter_map(gate_of).collect();
        while let Some(g) = stack.pop() {
            if !seen[g] {
                seen[g] = true;
                stack.extend(
                    gates[g]
                        .clauses
                        .iter()
                        .flatten()
                        .filter_map(|&l| gate_of(l)),
                );
            }
        }
    };
    let mut play = vec![false; ng];
    mark(
        &mut std::iter::once(terminal)
            .chain(legal.iter().flatten().copied())
            .chain(next.iter().copied()),
        &mut play,
    );
    let mut goal = vec![false; ng];
    mark(&mut goals.iter().flatten().map(|&(_, l)| l), &mut goal);
    let state: Vec<usize> = (0..ng).filter(|&g| play[g] && !is_move[g]).collect();
    let goal_only: Vec<usize> = (0..ng)
        .filter(|&g| goal[g] && !play[g] && !is_move[g])
        .collect();
    let moves: Vec<usize> = (0..ng).filter(|&g| play[g] && is_move[g]).collect();
    let order: Vec<usize> = state
        .iter()
        .chain(&goal_only)
        .chain(&moves)
        .copied()
        .collect();
    let mut new_of = vec![u32::MAX; ng];
    for (i, &g) in order.iter().enumerate() {
        new_of[g] = i as u32;
    }
    let renum = |l: Lit| match gate_of(l) {
        Some(g) => Lit::new(base + new_of[g], l.negated()),
        None => l,
    };
    let mut final_gates: Vec<Gate> = Vec::with_capacity(order.len());
    for &g in &order {
        let gate = &gates[g];
        final_gates.push(Gate {
            atom: gate.atom.clone(),
            clauses: gate
                .clauses
                .iter()
                .map(|c| c.iter().map(|&l| renum(l)).collect())
                .collect(),
        });
    }
    let final_loops: Vec<Range<usize>> = loops
        .iter()
        .filter(|l| new_of[l.start] != u32::MAX)
        .map(|l| new_of[l.start] as usize..new_of[l.start] as usize + l.len())
        .collect();
    let (ns, ngoal) = (state.len(), goal_only.len());
    GroundProgram {
        roles: inst.roles,
        fluents: inst.fluents,
        fluent_parts: inst.fluent_parts,
        init: inst.init,
        moves: inst.moves,
        gates: final_gates,
        state_gates: 0..ns,
        goal_gates: ns..ns + ngoal,
        move_gates: ns + ngoal..order.len(),
        loops: final_loops,
        terminal: renum(terminal),
        legal: legal
            .iter()
            .map(|ls| ls.iter().map(|&l| renum(l)).collect())
            .collect(),
        goals: goals
            .iter()
            .map(|gs| gs.iter().map(|&(v, l)| (v, renum(l))).collect())
            .collect(),
        next: next.iter().map(|&l| renum(l)).collect(),
    }
}
