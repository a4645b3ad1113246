//! The UCT tree (spec 3.1) in an arena: nodes with their visit counts, the
//! per-player sums of payoffs and of their squares, recording a payoff,
//! adding the children of a leaf, and keeping a subtree between moves.

use std::collections::VecDeque;

use super::bandit::moments;

pub(super) const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    /// First child, `NONE` while not expanded.
    pub(super) first: u32,
    /// Number of children.
    pub(super) len: u32,
    /// Visits.
    pub(super) n: u32,
}

/// Bytes a tree node takes for `players` players.
pub fn node_bytes(players: usize) -> usize {
    std::mem::size_of::<Node>() + 16 * players
}

/// A UCT tree in an arena: nodes and, per node, `(sum, sum of squares)`
/// for each player.
#[derive(Clone, Debug)]
pub struct Tree {
    pub(super) nodes: Vec<Node>,
    pub(super) stats: Vec<f64>,
    pub(super) np: usize,
}

/// The statistics of a child of the root.
#[derive(Clone, Debug, PartialEq)]
pub struct ChildStats {
    /// Index of the joint move (mixed radix over the movers' legal moves).
    pub joint: usize,
    pub n: u64,
    pub mean: Vec<f64>,
}

impl Tree {
    pub(super) fn new(np: usize) -> Tree {
        let mut t = Tree {
            nodes: Vec::new(),
            stats: Vec::new(),
            np,
        };
        t.push_leaf();
        t
    }

    fn push_leaf(&mut self) -> u32 {
        self.nodes.push(Node {
            first: NONE,
            len: 0,
            n: 0,
        });
        self.stats.extend(std::iter::repeat_n(0.0, 2 * self.np));
        self.nodes.len() as u32 - 1
    }

    /// Reserves room for `k` more nodes, growing by half at most up to `cap`.
    pub(super) fn reserve(&mut self, k: usize, cap: usize) {
        let need = self.nodes.len() + k;
        if need > self.nodes.capacity() {
            let target = (self.nodes.capacity() * 3 / 2).max(need).min(cap.max(need));
            self.nodes.reserve_exact(target - self.nodes.len());
            self.stats
                .reserve_exact(target * 2 * self.np - self.stats.len());
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Bytes allocated by the arena.
    pub fn allocated_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>() + self.stats.capacity() * 8
    }

    pub(super) fn mean(&self, v: u32, p: usize) -> f64 {
        let n = self.nodes[v as usize].n;
        if n == 0 {
            return 0.0;
        }
        self.stats[v as usize * 2 * self.np + 2 * p] / n as f64
    }

    pub(super) fn variance(&self, v: u32, p: usize) -> f64 {
        let n = self.nodes[v as usize].n;
        if n == 0 {
            return 0.0;
        }
        let base = v as usize * 2 * self.np + 2 * p;
        moments(self.stats[base], self.stats[base + 1], f64::from(n)).1
    }

    pub(super) fn record(&mut self, v: u32, pay: &[f64], weight: u32) {
        self.nodes[v as usize].n += weight;
        let base = v as usize * 2 * self.np;
        for (p, &x) in pay.iter().enumerate() {
            self.stats[base + 2 * p] += x * weight as f64;
            self.stats[base + 2 * p + 1] += x * x * weight as f64;
        }
    }

    /// Makes `stats.len() / (2 * np)` new nodes, with visit count `n` and
    /// the statistics `stats` (`(sum, sum of squares)` per player), the
    /// children of the leaf `v`; returns the first.
    pub(super) fn add_children(&mut self, v: u32, n: u32, stats: &[f64]) -> u32 {
        let total = stats.len() / (2 * self.np);
        let first = self.nodes.len() as u32;
        self.nodes.extend(std::iter::repeat_n(
            Node {
                first: NONE,
                len: 0,
                n,
            },
            total,
        ));
        self.stats.extend_from_slice(stats);
        let node = &mut self.nodes[v as usize];
        node.first = first;
        node.len = total as u32;
        first
    }

    /// The subtree of `v` as a new tree (breadth-first, children contiguous).
    pub(super) fn subtree(&self, v: u32) -> Tree {
        let np = self.np;
        let mut t = Tree {
            nodes: Vec::new(),
            stats: Vec::new(),
            np,
        };
        let copy = |t: &mut Tree, o: u32| {
            let mut n = self.nodes[o as usize];
            n.first = NONE;
            t.nodes.push(n);
            let b = o as usize * 2 * np;
            t.stats.extend_from_slice(&self.stats[b..b + 2 * np]);
        };
        copy(&mut t, v);
        let mut q = VecDeque::from([(v, 0u32)]);
        while let Some((o, nw)) = q.pop_front() {
            let on = self.nodes[o as usize];
            if on.first == NONE {
                continue;
            }
            let nf = t.nodes.len() as u32;
            t.nodes[nw as usize].first = nf;
            t.nodes[nw as usize].len = on.len;
            for c in 0..on.len {
                copy(&mut t, on.first + c);
                q.push_back((on.first + c, nf + c));
            }
        }
        t
    }

    /// Whether the root is a leaf or has one child per joint move of a
    /// state with `total` joint moves.
    pub(super) fn root_fits(&self, total: usize) -> bool {
        let r = self.nodes[0];
        r.first == NONE || r.len as usize == total
    }

    pub(super) fn root_children(&self) -> Vec<ChildStats> {
        let r = self.nodes[0];
        if r.first == NONE {
            return Vec::new();
        }
        (0..r.len)
            .map(|c| {
                let w = r.first + c;
                ChildStats {
                    joint: c as usize,
                    n: self.nodes[w as usize].n as u64,
                    mean: (0..self.np).map(|p| self.mean(w, p)).collect(),
                }
            })
            .collect()
    }
}
