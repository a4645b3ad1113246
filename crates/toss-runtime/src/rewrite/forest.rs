//! Matching several rules at once where their join orders share a prefix.
//!
//! Rules of one player often differ only at the end of their left sides:
//! draughts' jump chains of one to twelve pieces repeat the same first
//! steps (the clock, the jumping king, the first captured piece, ...), a
//! man's step and its crowning step have the same left side. Matched one
//! by one, every rule enumerates the common prefix again. A [`MatchForest`]
//! merges the matcher steps that are the same in several rules (same
//! element, same candidate source, same checks, given the same earlier
//! steps) into one node; a rule's matches are reported where its last step
//! is, in the order its own enumeration would list them.

use std::cell::{Cell, RefCell};

use super::{CompiledRule, Match, Source, Step, Tup, fill_unary_mask, word_members, words_contain};
use toss_core::structure::{Elem, Structure};

/// At most this many rules share one forest (a match's active rules are a
/// bit mask).
const MAX_RULES: usize = 64;

#[derive(Debug)]
struct Node {
    /// The rule (index in the forest's list) whose step this is, and the
    /// step's index; the other rules through this node have the same step.
    rule: usize,
    depth: usize,
    children: Vec<usize>,
    /// Rules whose last step this is.
    ends: Vec<usize>,
    /// Bit mask of the rules through this node.
    below: u64,
}

/// The merged matchers of a list of rules (see the module docs).
#[derive(Debug)]
pub struct MatchForest {
    nodes: Vec<Node>,
    roots: Vec<usize>,
    /// Left sides' largest size.
    width: usize,
}

/// The buffers of one enumeration (assignment, tuple buffer, node masks),
/// kept per thread as the matcher's.
type Scratch = (Vec<Elem>, Vec<Elem>, Vec<Cell<u64>>);

thread_local! {
    static FOREST_SCRATCH: RefCell<Vec<Scratch>> = const { RefCell::new(Vec::new()) };
}

/// Whether step `a` of rule `ra` and step `b` of rule `rb` bind the same
/// element from the same source under the same checks.
fn same_step(ra: &CompiledRule, a: &Step, rb: &CompiledRule, b: &Step) -> bool {
    let same_tups = |xs: &[usize], tx: &[Tup], ys: &[usize], ty: &[Tup]| {
        xs.len() == ys.len()
            && xs
                .iter()
                .zip(ys)
                .all(|(&i, &j)| tx[i].rel == ty[j].rel && tx[i].args == ty[j].args)
    };
    a.elem == b.elem
        && a.source == b.source
        && a.distinct_from == b.distinct_from
        && a.unary == b.unary
        && same_tups(&a.checks, &ra.required, &b.checks, &rb.required)
        && same_tups(&a.forbidden, &ra.forbidden, &b.forbidden, &rb.forbidden)
}

impl MatchForest {
    /// The forest of `rules`, if at least two of them share their first
    /// step (else matching them one by one is as good). Rules with
    /// nondistinct pairs or without left elements are not supported.
    pub fn new(rules: &[&CompiledRule]) -> Option<MatchForest> {
        if rules.len() < 2
            || rules.len() > MAX_RULES
            || rules
                .iter()
                .any(|r| r.has_nondistinct || r.steps.is_empty())
        {
            return None;
        }
        let mut f = MatchForest {
            nodes: Vec::new(),
            roots: Vec::new(),
            width: rules.iter().map(|r| r.lhs_names.len()).max().unwrap_or(0),
        };
        for (ri, r) in rules.iter().enumerate() {
            let mut level: Option<usize> = None;
            for (d, st) in r.steps.iter().enumerate() {
                let siblings = match level {
                    None => &f.roots,
                    Some(n) => &f.nodes[n].children,
                };
                let found = siblings.iter().copied().find(|&n| {
                    let node = &f.nodes[n];
                    let other = rules[node.rule];
                    same_step(other, &other.steps[node.depth], r, st)
                });
                let n = match found {
                    Some(n) => n,
                    None => {
                        f.nodes.push(Node {
                            rule: ri,
                            depth: d,
                            children: Vec::new(),
                            ends: Vec::new(),
                            below: 0,
                        });
                        let n = f.nodes.len() - 1;
                        match level {
                            None => f.roots.push(n),
                            Some(p) => f.nodes[p].children.push(n),
                        }
                        n
                    }
                };
                f.nodes[n].below |= 1 << ri;
                level = Some(n);
            }
            if let Some(n) = level {
                f.nodes[n].ends.push(ri);
            }
        }
        (f.roots.len() < rules.len()).then_some(f)
    }

    /// The matches of each rule `rules[i]` (the list the forest was built
    /// from) with `active[i]`, in `out[i]` (cleared), in the order of
    /// [`CompiledRule::matches`]. `Err(i)` when rule `rules[i]` has more
    /// than [`MATCHES_PER_RULE`] matches: the enumeration stops there.
    ///
    /// [`MATCHES_PER_RULE`]: toss_core::limits::MATCHES_PER_RULE
    pub fn matches(
        &self,
        rules: &[&CompiledRule],
        s: &Structure,
        active: &[bool],
        out: &mut [Vec<Match>],
    ) -> Result<(), usize> {
        let mut on = 0u64;
        for (i, r) in rules.iter().enumerate() {
            out[i].clear();
            let nullary_ok = r.nullary_required.iter().all(|&n| s.contains(n, &[]))
                && !r.nullary_forbidden.iter().any(|&n| s.contains(n, &[]));
            if active[i] && nullary_ok {
                on |= 1 << i;
            }
        }
        if on == 0 {
            return Ok(());
        }
        let (mut assign, mut buf, mut masks) = FOREST_SCRATCH
            .with(|p| p.borrow_mut().pop())
            .unwrap_or_default();
        assign.clear();
        assign.resize(self.width, 0);
        let nw = s.live().words().len();
        masks.clear();
        masks.resize((nw + 1) * self.nodes.len(), Cell::new(0));
        let mut e = Enum {
            forest: self,
            rules,
            s,
            on,
            nw,
            masks: &masks,
            out,
            over: None,
        };
        for &n in &self.roots {
            if self.nodes[n].below & on != 0 && e.over.is_none() {
                e.extend(n, &mut assign, &mut buf);
            }
        }
        let over = e.over;
        for (i, r) in rules.iter().enumerate() {
            if !r.ordered {
                e.out[i].sort_unstable();
            }
        }
        FOREST_SCRATCH.with(|p| p.borrow_mut().push((assign, buf, masks)));
        match over {
            Some(i) => Err(i),
            None => Ok(()),
        }
    }
}

/// One enumeration over a forest.
struct Enum<'a, 'o> {
    forest: &'a MatchForest,
    rules: &'a [&'a CompiledRule],
    s: &'a Structure,
    on: u64,
    nw: usize,
    /// Per node: a word that is 1 once the mask is computed, then the mask
    /// (as `StepMasks`, per node instead of per rule).
    masks: &'a [Cell<u64>],
    out: &'o mut [Vec<Match>],
    /// The first rule found with more than [`MATCHES_PER_RULE`] matches:
    /// the enumeration stops.
    ///
    /// [`MATCHES_PER_RULE`]: toss_core::limits::MATCHES_PER_RULE
    over: Option<usize>,
}

impl<'a> Enum<'a, '_> {
    fn mask(&self, n: usize) -> &'a [Cell<u64>] {
        let masks: &'a [Cell<u64>] = self.masks;
        let start = n * (self.nw + 1);
        let mask = &masks[start + 1..start + 1 + self.nw];
        if masks[start].get() == 0 {
            masks[start].set(1);
            let node = &self.forest.nodes[n];
            fill_unary_mask(self.s, &self.rules[node.rule].steps[node.depth].unary, mask);
        }
        mask
    }

    fn extend(&mut self, n: usize, assign: &mut Vec<Elem>, buf: &mut Vec<Elem>) {
        let forest: &'a MatchForest = self.forest;
        let node = &forest.nodes[n];
        let rule: &'a CompiledRule = self.rules[node.rule];
        let step = &rule.steps[node.depth];
        let s: &'a Structure = self.s;
        let mask = self.mask(n);
        let try_one = |e: &mut Self, c: Elem, assign: &mut Vec<Elem>, buf: &mut Vec<Elem>| {
            if e.over.is_some()
                || !words_contain(mask, c)
                || step.distinct_from.iter().any(|&o| assign[o] == c)
            {
                return;
            }
            assign[step.elem] = c;
            if step
                .checks
                .iter()
                .any(|&i| !rule.holds(s, &rule.required[i], assign, buf))
                || step
                    .forbidden
                    .iter()
                    .any(|&i| rule.violates(s, &rule.forbidden[i], assign, buf))
            {
                return;
            }
            for &ri in &node.ends {
                if e.on >> ri & 1 == 1 {
                    let r = e.rules[ri];
                    let nl = r.lhs_names.len();
                    let mut optional = 0u64;
                    for (j, t) in r.optional.iter().enumerate() {
                        if r.holds(s, t, &assign[..nl], buf) {
                            optional |= 1 << j;
                        }
                    }
                    if e.out[ri].len() >= toss_core::limits::MATCHES_PER_RULE.value {
                        e.over = Some(ri);
                        return;
                    }
                    e.out[ri].push(Match {
                        elems: assign[..nl].into(),
                        optional,
                    });
                }
            }
            for &ch in &node.children {
                if forest.nodes[ch].below & e.on != 0 {
                    e.extend(ch, assign, buf);
                }
            }
        };
        match step.source {
            // The mask holds the live members of the source's relation.
            Source::All | Source::Unary(_) => {
                for c in word_members(mask) {
                    try_one(self, c, assign, buf);
                }
            }
            Source::Succ(r, from) => {
                for &c in s.successors(r, assign[from]) {
                    try_one(self, c, assign, buf);
                }
            }
            Source::Pred(r, from) => {
                for &c in s.predecessors(r, assign[from]) {
                    try_one(self, c, assign, buf);
                }
            }
        }
    }
}
