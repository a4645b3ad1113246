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
    need: Vec<u32>,
    clause_gate: Vec<u32>,
    /// Per gate: its clauses (for the first, full evaluation).
    gate_clauses: Vec<std::ops::Range<u32>>,
    clause_lits: Vec<std::ops::Range<u32>>,
    lits: Vec<Lit>,
    gate_base: u32,
}

/// The changing part: signal values and the counts, for one state and one
/// joint move.
#[derive(Clone, Debug, Default)]
pub(super) struct Counts {
    pub vals: Vec<u8>,
    satisfied: Vec<u32>,
    true_clauses: Vec<u32>,
    stack: Vec<u32>,
}

impl PropNet {
    /// `None` when the network has a recursive group.
    pub fn new(p: &GroundProgram) -> Option<PropNet> {
        if !p.loops.is_empty() {
            return None;
        }
        let n = p.num_signals();
        let mut degree = vec![0u32; n + 1];
        let mut net = PropNet {
            reader_start: Vec::new(),
            readers: Vec::new(),
            need: Vec::new(),
            clause_gate: Vec::new(),
            gate_clauses: Vec::new(),
            clause_lits: Vec::new(),
            lits: Vec::new(),
            gate_base: p.gate_base(),
        };
        for (g, gate) in p.gates.iter().enumerate() {
            let c0 = net.need.len() as u32;
            for c in &gate.clauses {
                let l0 = net.lits.len() as u32;
                net.lits.extend_from_slice(c);
                net.clause_lits.push(l0..net.lits.len() as u32);
                net.need.push(c.len() as u32);
                net.clause_gate.push(g as u32);
                for l in c {
                    degree[l.signal() as usize] += 1;
                }
            }
            net.gate_clauses.push(c0..net.need.len() as u32);
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
        Some(net)
    }

    /// Values and counts for signals `vals` (constant, fluents and inputs
    /// set; gates computed here, in their order, which is topological).
    pub fn reset(&self, vals: Vec<u8>, out: &mut Counts) {
        out.vals = vals;
        out.satisfied.clear();
        out.satisfied.resize(self.need.len(), 0);
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
                if k == self.need[c as usize] {
                    out.true_clauses[g] += 1;
                }
            }
            out.vals[self.gate_base as usize + g] = (out.true_clauses[g] > 0) as u8;
        }
    }

    /// Sets signal `s` (a fluent or an input) to `v`; call [`PropNet::settle`]
    /// after the last change.
    #[inline]
    pub fn set(&self, c: &mut Counts, s: u32, v: u8) {
        if c.vals[s as usize] == v {
            return;
        }
        c.vals[s as usize] = v;
        let r = self.reader_start[s as usize] as usize..self.reader_start[s as usize + 1] as usize;
        for &x in &self.readers[r] {
            let clause = (x >> 1) as usize;
            let need = self.need[clause];
            if v ^ (x & 1) as u8 == 1 {
                c.satisfied[clause] += 1;
                if c.satisfied[clause] == need {
                    let g = self.clause_gate[clause] as usize;
                    c.true_clauses[g] += 1;
                    if c.true_clauses[g] == 1 {
                        c.stack.push(g as u32);
                    }
                }
            } else {
                if c.satisfied[clause] == need {
                    let g = self.clause_gate[clause] as usize;
                    c.true_clauses[g] -= 1;
                    if c.true_clauses[g] == 0 {
                        c.stack.push(g as u32);
                    }
                }
                c.satisfied[clause] -= 1;
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
