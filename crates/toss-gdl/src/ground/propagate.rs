//! Evaluating the network by propagating changes, as the propnets of
//! GGPLib and Sancho do: every clause counts its satisfied literals and
//! every gate its satisfied clauses, so when a fluent or an action flips
//! only the clauses that read it are touched, and a gate's readers only
//! when the gate itself flips. A move in a board game changes a handful of
//! fluents, so a step costs what changes, not the size of the network.
//!
//! Counting is exact only without cycles: a recursive group could keep
//! itself true after its support is gone. Networks with loops are
//! evaluated in full instead (`game::Flat`).

use super::{GroundProgram, Lit};

/// The fixed part: who reads each signal, and the shape of each clause.
#[derive(Clone, Debug)]
pub(super) struct PropNet {
    /// Signal `s` is read by `readers[reader_start[s]..reader_start[s + 1]]`,
    /// each `clause << 1 | negated`.
    reader_start: Vec<u32>,
    readers: Vec<u32>,
    /// Per clause: its number of literals, and its gate.
    shape: Vec<(u32, u32)>,
    /// Per gate: its clauses (for the first, full evaluation).
    gate_clauses: Vec<std::ops::Range<u32>>,
    clause_lits: Vec<std::ops::Range<u32>>,
    lits: Vec<Lit>,
    gate_base: u32,
    /// The outputs a signal drives: `watches[watch_start[s]..watch_start[s
    /// + 1]]`, each `slot << 1 | negated`, a bit of [`Counts::out`].
    watch_start: Vec<u32>,
    watches: Vec<u32>,
    /// Output bits that are constant true.
    const_out: Vec<u64>,
    /// The first word of each role's legal actions in [`Counts::out`],
    /// then the first word of the next state's fluents.
    pub legal_word: Vec<usize>,
    pub next_word: usize,
    /// Per role: the guards of its legal actions, each with the actions
    /// it guards (bits; `Lit::TRUE` for the unguarded).
    guards: Vec<Vec<(Lit, Vec<u64>)>>,
    /// The number of signals, with the guarded copies of legal gates.
    signals: usize,
}

/// The changing part: signal values and the counts, for one state and one
/// joint move.
#[derive(Clone, Debug, Default)]
pub(super) struct Counts {
    pub vals: Vec<u8>,
    /// The outputs as bits, kept up to date on every flip: each role's
    /// legal actions from [`PropNet::legal_word`] (a word-aligned run per
    /// role), the next state's fluents from [`PropNet::next_word`].
    pub out: Vec<u64>,
    satisfied: Vec<u32>,
    true_clauses: Vec<u32>,
    stack: Vec<u32>,
}

/// The literals every clause of a gate has.
fn common_literals(clauses: &[Vec<Lit>]) -> Vec<Lit> {
    let mut common = clauses.first().cloned().unwrap_or_default();
    for c in &clauses[1.min(clauses.len())..] {
        common.retain(|l| c.binary_search(l).is_ok());
    }
    common
}

impl PropNet {
    /// `None` when the network has a recursive group.
    ///
    /// The legal outputs are split on their guard, as Sancho splits on the
    /// turn-control fluent: when the gates of a role's legal actions share
    /// a literal in all their clauses (`(true (control white))`), each
    /// action's output reads a copy of its gate without it, and the role's
    /// legal set is the union of the outputs of the guards that hold. A
    /// change of turn then flips two literals instead of every legal
    /// clause, and gates only the legal outputs read are not propagated.
    pub fn new(p: &GroundProgram) -> Option<PropNet> {
        if !p.loops.is_empty() {
            return None;
        }
        let base = p.gate_base();
        let gate_of = |l: Lit| (l.signal() >= base).then(|| (l.signal() - base) as usize);
        let mut gates: Vec<Vec<Vec<Lit>>> = p.gates.iter().map(|g| g.clauses.clone()).collect();
        let mut legal = p.legal.clone();
        let mut guards = Vec::new();
        for ls in legal.iter_mut() {
            let commons: Vec<Vec<Lit>> = ls
                .iter()
                .map(|&l| match gate_of(l) {
                    Some(g) if !l.negated() => common_literals(&gates[g]),
                    _ => Vec::new(),
                })
                .collect();
            let mut freq: std::collections::BTreeMap<Lit, usize> = Default::default();
            commons
                .iter()
                .flatten()
                .for_each(|&x| *freq.entry(x).or_default() += 1);
            let words = ls.len().div_ceil(64);
            let mut groups: Vec<(Lit, Vec<u64>)> = Vec::new();
            for (m, common) in commons.iter().enumerate() {
                let best = common
                    .iter()
                    .copied()
                    .max_by_key(|x| (freq[x], std::cmp::Reverse(*x)))
                    .filter(|x| freq[x] >= 2);
                let guard = match (best, gate_of(ls[m])) {
                    (Some(x), Some(g)) => {
                        let rest: Vec<Vec<Lit>> = gates[g]
                            .iter()
                            .map(|c| c.iter().copied().filter(|&l| l != x).collect())
                            .collect();
                        gates.push(rest);
                        ls[m] = Lit::new(base + (gates.len() - 1) as u32, false);
                        x
                    }
                    _ => Lit::TRUE,
                };
                let k = match groups.iter().position(|(g, _)| *g == guard) {
                    Some(k) => k,
                    None => {
                        groups.push((guard, vec![0; words]));
                        groups.len() - 1
                    }
                };
                groups[k].1[m / 64] |= 1 << (m % 64);
            }
            guards.push(groups);
        }
        // Gates no output reads (the legal gates replaced above) are left
        // out of propagation.
        let mut live = vec![false; gates.len()];
        let mut stack: Vec<usize> = std::iter::once(p.terminal)
            .chain(p.goals.iter().flatten().map(|&(_, l)| l))
            .chain(p.next.iter().copied())
            .chain(legal.iter().flatten().copied())
            .chain(guards.iter().flatten().map(|&(g, _)| g))
            .filter_map(gate_of)
            .collect();
        while let Some(g) = stack.pop() {
            if !live[g] {
                live[g] = true;
                stack.extend(gates[g].iter().flatten().filter_map(|&l| gate_of(l)));
            }
        }
        for (g, cs) in gates.iter_mut().enumerate() {
            if !live[g] {
                cs.clear();
            }
        }

        let n = base as usize + gates.len();
        let mut degree = vec![0u32; n + 1];
        let mut net = PropNet {
            reader_start: Vec::new(),
            readers: Vec::new(),
            shape: Vec::new(),
            gate_clauses: Vec::new(),
            clause_lits: Vec::new(),
            lits: Vec::new(),
            gate_base: base,
            watch_start: Vec::new(),
            watches: Vec::new(),
            const_out: Vec::new(),
            legal_word: Vec::new(),
            next_word: 0,
            guards,
            signals: n,
        };
        for (g, clauses) in gates.iter().enumerate() {
            let c0 = net.shape.len() as u32;
            for c in clauses {
                let l0 = net.lits.len() as u32;
                net.lits.extend_from_slice(c);
                net.clause_lits.push(l0..net.lits.len() as u32);
                net.shape.push((c.len() as u32, g as u32));
                for l in c {
                    degree[l.signal() as usize] += 1;
                }
            }
            net.gate_clauses.push(c0..net.shape.len() as u32);
        }
        // Counting sort of the readers by signal.
        let mut start = vec![0u32; n + 1];
        for s in 0..n {
            start[s + 1] = start[s] + degree[s];
        }
        let mut fill = start.clone();
        net.readers = vec![0; start[n] as usize];
        for (c, r) in net.clause_lits.iter().enumerate() {
            for l in &net.lits[r.start as usize..r.end as usize] {
                let s = l.signal() as usize;
                net.readers[fill[s] as usize] = (c as u32) << 1 | l.negated() as u32;
                fill[s] += 1;
            }
        }
        net.reader_start = start;

        // Output slots: each role's legal actions, then the next state.
        let mut slots: Vec<(usize, Lit)> = Vec::new();
        let mut word = 0;
        for ls in &legal {
            net.legal_word.push(word);
            slots.extend(ls.iter().enumerate().map(|(m, &l)| (word * 64 + m, l)));
            word += ls.len().div_ceil(64);
        }
        net.next_word = word;
        slots.extend(p.next.iter().enumerate().map(|(f, &l)| (word * 64 + f, l)));
        // As many words as a state has: at least one, even with no fluent.
        word += p.next.len().div_ceil(64).max(1);
        net.const_out = vec![0; word];
        let mut wdeg = vec![0u32; n + 1];
        for &(_, l) in &slots {
            wdeg[l.signal() as usize] += 1;
        }
        let mut start = vec![0u32; n + 1];
        for s in 0..n {
            start[s + 1] = start[s] + wdeg[s];
        }
        let mut fill = start.clone();
        net.watches = vec![0; start[n] as usize];
        for &(slot, l) in &slots {
            if l == Lit::TRUE {
                net.const_out[slot / 64] |= 1 << (slot % 64);
            }
            let s = l.signal() as usize;
            net.watches[fill[s] as usize] = (slot as u32) << 1 | l.negated() as u32;
            fill[s] += 1;
        }
        net.watch_start = start;
        Some(net)
    }

    /// The legal actions of role `r`, as bits (cleared first).
    pub fn legal_words(&self, c: &Counts, r: usize, out: &mut Vec<u64>) {
        let w0 = self.legal_word[r];
        out.clear();
        let Some(first) = self.guards[r].first() else {
            return;
        };
        out.resize(first.1.len(), 0);
        for (guard, mask) in &self.guards[r] {
            if c.vals[guard.signal() as usize] ^ guard.negated() as u8 == 1 {
                for (k, (o, m)) in out.iter_mut().zip(mask).enumerate() {
                    *o |= c.out[w0 + k] & m;
                }
            }
        }
    }

    /// Values and counts for signals `vals` (constant, fluents and inputs
    /// set; gates computed here, in their order, which is topological).
    pub fn reset(&self, mut vals: Vec<u8>, out: &mut Counts) {
        vals.resize(self.signals, 0);
        out.vals = vals;
        out.satisfied.clear();
        out.satisfied.resize(self.shape.len(), 0);
        out.true_clauses.clear();
        out.true_clauses.resize(self.gate_clauses.len(), 0);
        for (g, cs) in self.gate_clauses.iter().enumerate() {
            for c in cs.clone() {
                let r = &self.clause_lits[c as usize];
                let k = self.lits[r.start as usize..r.end as usize]
                    .iter()
                    .filter(|l| out.vals[l.signal() as usize] ^ l.negated() as u8 == 1)
                    .count() as u32;
                out.satisfied[c as usize] = k;
                if k == self.shape[c as usize].0 {
                    out.true_clauses[g] += 1;
                }
            }
            out.vals[self.gate_base as usize + g] = (out.true_clauses[g] > 0) as u8;
        }
        out.out.clear();
        out.out.extend_from_slice(&self.const_out);
        for s in 1..out.vals.len() {
            let w = self.watch_start[s] as usize..self.watch_start[s + 1] as usize;
            for &x in &self.watches[w] {
                if out.vals[s] ^ (x & 1) as u8 == 1 {
                    let slot = (x >> 1) as usize;
                    out.out[slot / 64] |= 1 << (slot % 64);
                }
            }
        }
    }

    /// Sets signal `s` (a fluent or an input) to `v`; call [`PropNet::settle`]
    /// after the last change.
    #[inline]
    pub fn set(&self, c: &mut Counts, s: u32, v: u8) {
        let s = s as usize;
        if c.vals[s] == v {
            return;
        }
        c.vals[s] = v;
        let out = &mut c.out[..];
        for &x in &self.watches[self.watch_start[s] as usize..self.watch_start[s + 1] as usize] {
            let slot = (x >> 1) as usize;
            let bit = 1u64 << (slot % 64);
            if v ^ (x & 1) as u8 == 1 {
                out[slot / 64] |= bit;
            } else {
                out[slot / 64] &= !bit;
            }
        }
        // Local slices: the counters are not reloaded through `c` per reader.
        let satisfied = &mut c.satisfied[..];
        let true_clauses = &mut c.true_clauses[..];
        let shape = &self.shape[..];
        let stack = &mut c.stack;
        for &x in &self.readers[self.reader_start[s] as usize..self.reader_start[s + 1] as usize] {
            let clause = (x >> 1) as usize;
            let (need, g) = shape[clause];
            let k = &mut satisfied[clause];
            if v ^ (x & 1) as u8 == 1 {
                *k += 1;
                if *k == need {
                    let t = &mut true_clauses[g as usize];
                    *t += 1;
                    if *t == 1 {
                        stack.push(g);
                    }
                }
            } else {
                if *k == need {
                    let t = &mut true_clauses[g as usize];
                    *t -= 1;
                    if *t == 0 {
                        stack.push(g);
                    }
                }
                *k -= 1;
            }
        }
    }

    /// Propagates the changes set so far until every gate agrees with its
    /// counts. A gate may be pushed more than once (it flipped and flipped
    /// back); it is compared with its count when popped.
    pub fn settle(&self, c: &mut Counts) {
        while let Some(g) = c.stack.pop() {
            let v = (c.true_clauses[g as usize] > 0) as u8;
            self.set(c, self.gate_base + g, v);
        }
    }
}
