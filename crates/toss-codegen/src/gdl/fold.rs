//! The network partially evaluated: some fluents and inputs fixed, every
//! gate folded to a constant, to another literal, or to its remaining
//! clauses. The compiled route emits such folds instead of the whole
//! network: one per value of the turn-control fluents (the state phase
//! then evaluates only the mover's legal actions), and one per action of
//! the mover (the move phase then computes only the fluents that action
//! changes).

use toss_gdl::ground::{GroundProgram, Lit};

/// A fold of the network under fixed signals.
pub(super) struct Fold<'a> {
    pub p: &'a GroundProgram,
    /// Per signal: the literal it stands for. A signal that is not fixed
    /// and not folded stands for itself; gates not yet folded too.
    res: Vec<Lit>,
    /// Per gate: whether it was folded.
    done: Vec<bool>,
    /// Per gate that stands for itself: its clauses after folding.
    pub clauses: Vec<Vec<Vec<Lit>>>,
    /// Per gate: the recursive group it belongs to.
    pub loop_of: &'a [Option<usize>],
}

/// Per gate of `p`: its recursive group.
pub(super) fn loop_groups(p: &GroundProgram) -> Vec<Option<usize>> {
    let mut loop_of = vec![None; p.gates.len()];
    for (i, l) in p.loops.iter().enumerate() {
        l.clone().for_each(|g| loop_of[g] = Some(i));
    }
    loop_of
}

impl<'a> Fold<'a> {
    /// `fixed`: signals (fluents or inputs) with their values.
    pub fn new(p: &'a GroundProgram, loop_of: &'a [Option<usize>], fixed: &[(u32, bool)]) -> Self {
        let n = p.num_signals();
        let mut res: Vec<Lit> = (0..n as u32).map(|s| Lit::new(s, false)).collect();
        for &(s, v) in fixed {
            res[s as usize] = if v { Lit::TRUE } else { Lit::FALSE };
        }
        Fold {
            p,
            res,
            done: vec![false; p.gates.len()],
            clauses: vec![Vec::new(); p.gates.len()],
            loop_of,
        }
    }

    /// What `l` stands for (its gates folded).
    pub fn resolve(&self, l: Lit) -> Lit {
        let r = self.res[l.signal() as usize];
        if l.negated() { !r } else { r }
    }

    pub fn gate(&self, l: Lit) -> Option<usize> {
        let s = l.signal();
        (s >= self.p.gate_base()).then(|| (s - self.p.gate_base()) as usize)
    }

    /// Folds the gates `roots` read (in the whole network), and returns
    /// the roots resolved.
    pub fn run(&mut self, roots: &[Lit]) -> Vec<Lit> {
        let mut need = vec![false; self.p.gates.len()];
        let mut stack: Vec<Lit> = roots.to_vec();
        let mut any = Vec::new();
        while let Some(l) = stack.pop() {
            let Some(g) = self.gate(l) else { continue };
            if need[g] || self.done[g] {
                continue;
            }
            let group = match self.loop_of[g] {
                Some(i) => self.p.loops[i].clone(),
                None => g..g + 1,
            };
            for h in group {
                need[h] = true;
                any.push(h);
                stack.extend(self.p.gates[h].clauses.iter().flatten());
            }
        }
        any.sort_unstable();
        let mut i = 0;
        while i < any.len() {
            let g = any[i];
            match self.loop_of[g] {
                Some(k) => {
                    let group = self.p.loops[k].clone();
                    // A recursive group keeps its gates (their least
                    // fixpoint is evaluated at run time); only what they
                    // read from outside is folded.
                    for h in group.clone() {
                        let cs = self.fold_clauses(h);
                        self.clauses[h] = match cs {
                            Folded::Const(true) => vec![vec![]],
                            Folded::Const(false) => vec![],
                            Folded::Lit(l) => vec![vec![l]],
                            Folded::Clauses(cs) => cs,
                        };
                        self.done[h] = true;
                    }
                    i += group.len();
                }
                None => {
                    let sig = self.p.gate_signal(g) as usize;
                    match self.fold_clauses(g) {
                        Folded::Const(v) => self.res[sig] = if v { Lit::TRUE } else { Lit::FALSE },
                        Folded::Lit(l) => self.res[sig] = l,
                        Folded::Clauses(cs) => self.clauses[g] = cs,
                    }
                    self.done[g] = true;
                    i += 1;
                }
            }
        }
        roots.iter().map(|&l| self.resolve(l)).collect()
    }

    fn fold_clauses(&self, g: usize) -> Folded {
        let mut out: Vec<Vec<Lit>> = Vec::new();
        'clause: for c in &self.p.gates[g].clauses {
            let mut lits: Vec<Lit> = Vec::with_capacity(c.len());
            for &l in c {
                let r = self.resolve(l);
                if r == Lit::FALSE {
                    continue 'clause;
                }
                if r != Lit::TRUE {
                    lits.push(r);
                }
            }
            lits.sort_unstable();
            lits.dedup();
            if lits.windows(2).any(|w| w[0] == !w[1]) {
                continue;
            }
            if lits.is_empty() {
                return Folded::Const(true);
            }
            out.push(lits);
        }
        // A clause of one literal makes every other clause holding it
        // redundant (`f | f & x` is `f`): the frame rules of a move that
        // does not touch a fluent fold so to the fluent itself.
        let units: Vec<Lit> = out.iter().filter(|c| c.len() == 1).map(|c| c[0]).collect();
        if !units.is_empty() {
            out.retain(|c| c.len() == 1 || !c.iter().any(|l| units.contains(l)));
        }
        out.sort();
        out.dedup();
        match out.as_slice() {
            [] => Folded::Const(false),
            [c] if c.len() == 1 && self.loop_of[g].is_none() => Folded::Lit(c[0]),
            _ => Folded::Clauses(out),
        }
    }

    /// The gates that stand for themselves and that `roots` (resolved)
    /// read, directly or through others (a recursive group whole), in
    /// network order, and the fluents they all read, in order.
    pub fn cone(&self, roots: &[Lit]) -> (Vec<usize>, Vec<usize>) {
        let p = self.p;
        let mut seen = vec![false; p.gates.len()];
        let mut fluents = vec![false; p.fluents.len()];
        let mut stack: Vec<Lit> = roots.to_vec();
        while let Some(l) = stack.pop() {
            if let Some(f) = p.fluent_of(l) {
                fluents[f] = true;
            }
            let Some(g) = self.gate(l) else { continue };
            if seen[g] {
                continue;
            }
            let group = match self.loop_of[g] {
                Some(i) => p.loops[i].clone(),
                None => g..g + 1,
            };
            for h in group {
                seen[h] = true;
                stack.extend(self.clauses[h].iter().flatten());
            }
        }
        let pick = |v: Vec<bool>| -> Vec<usize> {
            v.iter().enumerate().filter(|x| *x.1).map(|x| x.0).collect()
        };
        (pick(seen), pick(fluents))
    }

    /// The number of literals of the gates `roots` read.
    pub fn cost(&self, roots: &[Lit]) -> usize {
        let (gates, _) = self.cone(roots);
        gates
            .iter()
            .map(|&g| self.clauses[g].iter().map(Vec::len).sum::<usize>())
            .sum()
    }

    /// Whether `l` (resolved) reads an input, directly or through gates.
    pub fn reads_input(&self, l: Lit, memo: &mut [Option<bool>]) -> bool {
        let p = self.p;
        let s = l.signal();
        if s >= p.input_base() && s < p.gate_base() {
            return true;
        }
        let Some(g) = self.gate(l) else { return false };
        if let Some(v) = memo[g] {
            return v;
        }
        // Iteratively: gates are in network order, so reading the clauses'
        // gates first (smaller indices, or the same recursive group) ends.
        memo[g] = Some(false);
        let mut stack = vec![g];
        let mut order = Vec::new();
        while let Some(h) = stack.pop() {
            order.push(h);
            for &l in self.clauses[h].iter().flatten() {
                if let Some(k) = self.gate(l)
                    && memo[k].is_none()
                {
                    memo[k] = Some(false);
                    stack.push(k);
                }
            }
        }
        // A fixpoint over the gates found (a recursive group reads itself).
        loop {
            let mut changed = false;
            for &h in &order {
                if memo[h] == Some(true) {
                    continue;
                }
                let v = self.clauses[h].iter().flatten().any(|&l| {
                    let s = l.signal();
                    (s >= p.input_base() && s < p.gate_base())
                        || self.gate(l).is_some_and(|k| memo[k] == Some(true))
                });
                if v {
                    memo[h] = Some(true);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        memo[g] == Some(true)
    }
}

enum Folded {
    Const(bool),
    Lit(Lit),
    Clauses(Vec<Vec<Lit>>),
}

/// The turn control: fluents of which exactly one holds in the initial
/// state, and each value of them (a case) fixes which roles have a single
/// legal action.
pub(super) struct Control {
    /// The fluents (indices), in order.
    pub fluents: Vec<usize>,
    /// Whether every reachable state has exactly one of them (so the last
    /// case needs no test and no other case exists); otherwise the
    /// unfolded network is the fallback.
    pub exclusive: bool,
    /// Per case (fluent `fluents[k]` true, the others false): per role,
    /// its single legal action when it has one whatever the rest of the
    /// state.
    pub forced: Vec<Vec<Option<usize>>>,
}

/// The signals fixed in case `k` of the control fluents `fluents`.
pub(super) fn case_fixed(p: &GroundProgram, fluents: &[usize], k: usize) -> Vec<(u32, bool)> {
    fluents
        .iter()
        .enumerate()
        .map(|(i, &f)| (p.fluent_signal(f), i == k))
        .collect()
}

/// The inputs fixed when role `r` plays action `m`.
pub(super) fn action_fixed(p: &GroundProgram, r: usize, m: usize) -> Vec<(u32, bool)> {
    (0..p.moves[r].len())
        .map(|a| (p.input_signal(r, a), a == m))
        .collect()
}

/// The fluents of one functor that read as the turn control, if any: at
/// least two, exactly one of them initial, and each case leaves some role
/// a single legal action (its `noop`). Of several such groups, the one
/// whose state phase folds smallest.
pub(super) fn find_control(p: &GroundProgram, loop_of: &[Option<usize>]) -> Option<Control> {
    let mut roots = vec![p.terminal];
    roots.extend(p.legal.iter().flatten());
    let mut groups: Vec<(&str, Vec<usize>)> = Vec::new();
    for (f, (functor, _)) in p.fluent_parts.iter().enumerate() {
        match groups.iter_mut().find(|(n, _)| *n == functor.as_str()) {
            Some((_, v)) => v.push(f),
            None => groups.push((functor, vec![f])),
        }
    }
    let mut best: Option<(usize, Control)> = None;
    for (_, fluents) in groups {
        if fluents.len() < 2 || fluents.len() > 2 * p.roles.len().max(2) {
            continue;
        }
        let init = fluents
            .iter()
            .filter(|&&f| p.init.contains(&(f as u32)))
            .count();
        if init != 1 {
            continue;
        }
        let mut cost = 0;
        let mut forced_all = Vec::new();
        let mut ok = true;
        for k in 0..fluents.len() {
            let mut fold = Fold::new(p, loop_of, &case_fixed(p, &fluents, k));
            let res = fold.run(&roots);
            cost += fold.cost(&res);
            let mut at = 1;
            let forced: Vec<Option<usize>> = p
                .legal
                .iter()
                .map(|ls| {
                    let rs = &res[at..at + ls.len()];
                    at += ls.len();
                    let mut t = rs.iter().enumerate().filter(|(_, l)| **l != Lit::FALSE);
                    match (t.next(), t.next()) {
                        (Some((m, &Lit::TRUE)), None) => Some(m),
                        _ => None,
                    }
                })
                .collect();
            if forced.iter().all(Option::is_none) {
                ok = false;
                break;
            }
            forced_all.push(forced);
        }
        if !ok || best.as_ref().is_some_and(|(c, _)| *c <= cost) {
            continue;
        }
        let exclusive = exclusive(p, loop_of, &fluents, &forced_all);
        best = Some((
            cost,
            Control {
                fluents,
                exclusive,
                forced: forced_all,
            },
        ));
    }
    best.map(|(_, c)| c)
}

/// Whether exactly one of `fluents` holds in every reachable state: it
/// does initially (checked by the caller), and in each case, whatever the
/// moves, the next state has exactly one of them.
fn exclusive(
    p: &GroundProgram,
    loop_of: &[Option<usize>],
    fluents: &[usize],
    forced: &[Vec<Option<usize>>],
) -> bool {
    (0..fluents.len()).all(|k| {
        let mut fixed = case_fixed(p, fluents, k);
        for (r, m) in forced[k].iter().enumerate() {
            if let Some(m) = m {
                fixed.extend(action_fixed(p, r, *m));
            }
        }
        let mut fold = Fold::new(p, loop_of, &fixed);
        let next: Vec<Lit> = fluents.iter().map(|&f| p.next[f]).collect();
        let res = fold.run(&next);
        res.iter().all(|l| l.is_const()) && res.iter().filter(|&&l| l == Lit::TRUE).count() == 1
    })
}
