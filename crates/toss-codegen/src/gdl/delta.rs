//! Terminal after a move, from what the move changed: the incremental
//! update of the compiled route.
//!
//! A move is made only in a state where terminal does not hold, so every
//! disjunct of terminal was false there. A disjunct that reads none of the
//! fluents the move may change is false in the next state too, and is not
//! evaluated; a disjunct that is itself a disjunction (a gate of one
//! positive gate literal) is opened the same way. What is left is the part
//! of terminal the move can make true: in Connect Four, the lines of the
//! mover's colour through the column played, instead of every line of
//! both colours.

use toss_gdl::ground::{GroundProgram, Lit};

use super::fold::Fold;

/// Terminal in the network with nothing fixed, with the fluents each of
/// its gates reads.
pub(super) struct TerminalDelta<'a> {
    fold: Fold<'a>,
    root: Lit,
    /// Per gate of terminal's cone: the fluents it reads, directly or
    /// through other gates, as a bitset.
    reads: Vec<Option<Vec<u64>>>,
    /// The cost of evaluating terminal whole ([`eval_cost`]).
    pub full_cost: usize,
}

impl<'a> TerminalDelta<'a> {
    pub fn new(p: &'a GroundProgram, loop_of: &'a [Option<usize>]) -> Self {
        let mut fold = Fold::new(p, loop_of, &[]);
        let root = fold.run(&[p.terminal])[0];
        let (gates, _) = fold.cone(&[root]);
        let words = p.fluents.len().div_ceil(64).max(1);
        let mut reads: Vec<Option<Vec<u64>>> = vec![None; p.gates.len()];
        // In network order: a gate reads gates before it, or its own
        // recursive group, whose members all read the group's union.
        let mut i = 0;
        while i < gates.len() {
            let group = match loop_of[gates[i]] {
                Some(k) => p.loops[k].clone(),
                None => gates[i]..gates[i] + 1,
            };
            let mut set = vec![0u64; words];
            for g in group.clone() {
                for &l in fold.clauses[g].iter().flatten() {
                    add_reads(&fold, &reads, l, &mut set);
                }
            }
            for g in group.clone() {
                reads[g] = Some(set.clone());
            }
            i += group.len();
        }
        let full_cost = eval_cost(&fold, &[vec![root]]);
        TerminalDelta {
            fold,
            root,
            reads,
            full_cost,
        }
    }

    /// Whether `l` reads a fluent of `changed`.
    fn touches(&self, l: Lit, changed: &[u64]) -> bool {
        if let Some(f) = self.fold.p.fluent_of(l) {
            return changed[f / 64] >> (f % 64) & 1 != 0;
        }
        let reads = self.fold.gate(l).and_then(|g| self.reads[g].as_ref());
        reads.is_some_and(|r| r.iter().zip(changed).any(|(a, b)| a & b != 0))
    }

    /// The clauses whose disjunction is terminal in the next state, when
    /// terminal did not hold in the state and only the fluents of
    /// `changed` (a bitset) may differ. Their literals are signals of the
    /// network (fluents and gates), to be read in the next state.
    pub fn clauses(&self, changed: &[u64]) -> Vec<Vec<Lit>> {
        let p = self.fold.p;
        let mut out: Vec<Vec<Lit>> = Vec::new();
        let mut opened = vec![false; p.gates.len()];
        let mut stack = vec![self.root];
        while let Some(l) = stack.pop() {
            if !self.touches(l, changed) {
                continue;
            }
            match self.fold.gate(l) {
                Some(g) if !l.negated() && self.fold.loop_of[g].is_none() => {
                    if std::mem::replace(&mut opened[g], true) {
                        continue;
                    }
                    // Every clause of `g` was false: those reading nothing
                    // changed still are.
                    for c in &self.fold.clauses[g] {
                        if !c.iter().any(|&l| self.touches(l, changed)) {
                            continue;
                        }
                        match c.as_slice() {
                            [m] if !m.negated() && self.fold.gate(*m).is_some() => stack.push(*m),
                            _ => out.push(c.clone()),
                        }
                    }
                }
                _ => out.push(vec![l]),
            }
        }
        out
    }
}

/// Adds the fluents `l` reads to `set` (a gate's from `reads`).
fn add_reads(fold: &Fold, reads: &[Option<Vec<u64>>], l: Lit, set: &mut [u64]) {
    if let Some(f) = fold.p.fluent_of(l) {
        set[f / 64] |= 1 << (f % 64);
    } else if let Some(g) = fold.gate(l)
        && let Some(r) = &reads[g]
    {
        for (a, b) in set.iter_mut().zip(r) {
            *a |= b;
        }
    }
}

/// The cost of evaluating `clauses` in `fold`, with the gates they read,
/// counted as the compiled route emits them: per conjunction, one for the
/// fluents of each state word (read as one mask test) and one for each
/// other literal; the clauses of one fluent of a gate, one per word and
/// sign.
pub(super) fn eval_cost(fold: &Fold, clauses: &[Vec<Lit>]) -> usize {
    let p = fold.p;
    let fluent_word = |l: Lit| p.fluent_of(l).map(|f| (f / 64, l.negated()));
    let gate = |cs: &[Vec<Lit>]| {
        let mut words = Vec::new();
        let mut others = 0;
        for c in cs {
            match c.as_slice() {
                [l] if fluent_word(*l).is_some() => words.push(fluent_word(*l)),
                _ => others += clause_cost(p, c),
            }
        }
        words.sort_unstable();
        words.dedup();
        words.len() + others
    };
    let roots: Vec<Lit> = clauses.iter().flatten().copied().collect();
    let (gates, _) = fold.cone(&roots);
    let inner: usize = gates.iter().map(|&g| gate(&fold.clauses[g])).sum();
    inner + gate(clauses)
}

/// The cost of one conjunction, as [`eval_cost`] counts it.
fn clause_cost(p: &GroundProgram, c: &[Lit]) -> usize {
    let mut words: Vec<usize> = Vec::new();
    let mut others = 0;
    for &l in c {
        match p.fluent_of(l) {
            Some(f) => words.push(f / 64),
            None => others += 1,
        }
    }
    words.sort_unstable();
    words.dedup();
    words.len() + others
}
