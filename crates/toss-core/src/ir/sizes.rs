//! The size of formulas once their defined relations are expanded, as the
//! solver compiles them: a defined relation with parameters is inlined at
//! every use; a closed one (no parameters) whose inlined size is above
//! [`SHARE_ABOVE`] is compiled once per formula and shared by its uses.
//! Translated GDL games define relations per ground instance (reversi's
//! piece count), which use each other as a DAG whose inlined tree is
//! exponential; shared, its size is the DAG's.

use std::collections::{BTreeSet, HashMap};

use super::walk::Node;
use super::{DefinedRelation, Formula};

/// In a formula whose inlined size is above [`SHARING_ABOVE`], a closed
/// defined relation whose inlined size is above this is compiled once
/// instead of at every use.
pub const SHARE_ABOVE: u64 = 64;

/// Formulas of at most this many atoms inlined are compiled without
/// sharing: inlined, the planner sees the whole formula (a closed part of
/// a small formula is decided set at a time, which a shared part is not).
pub const SHARING_ABOVE: u64 = 4_096;

/// Per defined relation (by index): its size in atoms with the relations
/// it uses inlined, saturating. A recursive use counts 1 (compilation
/// refuses it).
pub fn inlined_sizes(defs: &[DefinedRelation], index: &HashMap<String, usize>) -> Vec<u64> {
    struct Walk<'a> {
        defs: &'a [DefinedRelation],
        index: &'a HashMap<String, usize>,
        memo: Vec<Option<u64>>,
        stack: Vec<usize>,
    }
    impl Walk<'_> {
        fn def(&mut self, d: usize) -> u64 {
            if let Some(n) = self.memo[d] {
                return n;
            }
            if self.stack.contains(&d) {
                return 1;
            }
            self.stack.push(d);
            let n = self.formula(&self.defs[d].body).max(1);
            self.stack.pop();
            self.memo[d] = Some(n);
            n
        }
        fn formula(&mut self, f: &Formula) -> u64 {
            if let Formula::Rel { name, .. } = f {
                return match self.index.get(name) {
                    Some(&d) => self.def(d),
                    None => 1,
                };
            }
            let mut children = Vec::new();
            f.for_each_child(&mut |n, _| children.push(n));
            let mut total: u64 = if children.is_empty() { 1 } else { 0 };
            for c in children {
                let n = match c {
                    Node::Formula(g) => self.formula(g),
                    Node::Real(_) => 1,
                };
                total = total.saturating_add(n);
            }
            total
        }
    }
    let mut w = Walk {
        defs,
        index,
        memo: vec![None; defs.len()],
        stack: Vec::new(),
    };
    (0..defs.len()).map(|d| w.def(d)).collect()
}

/// Whether the solver shares defined relation `d` in a formula that has
/// sharing on (see the module).
pub fn shared(defs: &[DefinedRelation], inlined: &[u64], d: usize) -> bool {
    defs[d].params.is_empty() && inlined[d] > SHARE_ABOVE
}

/// The size (atoms) of a formula or real term with its defined relations
/// inlined (`inlined`: from [`inlined_sizes`]), saturating; formulas inside
/// real terms (`:(phi)`, sums' guards) count.
pub fn node_size(n: Node<'_>, index: &HashMap<String, usize>, inlined: &[u64]) -> u64 {
    if let Node::Formula(Formula::Rel { name, .. }) = n
        && let Some(&d) = index.get(name)
    {
        return inlined[d];
    }
    let mut children = Vec::new();
    match n {
        Node::Formula(f) => f.for_each_child(&mut |c, _| children.push(c)),
        Node::Real(t) => t.for_each_child(&mut |c, _| children.push(c)),
    }
    if children.is_empty() {
        return 1;
    }
    children.into_iter().fold(0u64, |acc, c| {
        acc.saturating_add(node_size(c, index, inlined))
    })
}

/// Per defined relation (by index): its size as compiled, saturating: the
/// relations it uses inlined, but each shared one counted once however
/// often it is used (its own body included once).
pub fn compiled_sizes(defs: &[DefinedRelation], index: &HashMap<String, usize>) -> Vec<u64> {
    let inlined = inlined_sizes(defs, index);
    // Per relation: its size with shared uses counted 1, and the shared
    // relations it uses (directly or through inlined ones).
    struct Local<'a> {
        defs: &'a [DefinedRelation],
        index: &'a HashMap<String, usize>,
        inlined: &'a [u64],
        memo: Vec<Option<(u64, BTreeSet<usize>)>>,
        stack: Vec<usize>,
    }
    impl Local<'_> {
        fn def(&mut self, d: usize) -> (u64, BTreeSet<usize>) {
            if let Some(m) = &self.memo[d] {
                return m.clone();
            }
            if self.stack.contains(&d) {
                return (1, BTreeSet::new());
            }
            self.stack.push(d);
            let mut uses = BTreeSet::new();
            let n = self.formula(&self.defs[d].body, &mut uses).max(1);
            self.stack.pop();
            self.memo[d] = Some((n, uses.clone()));
            (n, uses)
        }
        fn formula(&mut self, f: &Formula, uses: &mut BTreeSet<usize>) -> u64 {
            if let Formula::Rel { name, .. } = f {
                return match self.index.get(name) {
                    Some(&d) if shared(self.defs, self.inlined, d) => {
                        uses.insert(d);
                        1
                    }
                    Some(&d) => {
                        let (n, u) = self.def(d);
                        uses.extend(u);
                        n
                    }
                    None => 1,
                };
            }
            let mut children = Vec::new();
            f.for_each_child(&mut |n, _| children.push(n));
            let mut total: u64 = if children.is_empty() { 1 } else { 0 };
            for c in children {
                let n = match c {
                    Node::Formula(g) => self.formula(g, uses),
                    Node::Real(_) => 1,
                };
                total = total.saturating_add(n);
            }
            total
        }
    }
    let mut local = Local {
        defs,
        index,
        inlined: &inlined,
        memo: vec![None; defs.len()],
        stack: Vec::new(),
    };
    (0..defs.len())
        .map(|d| {
            if inlined[d] <= SHARING_ABOVE {
                return inlined[d];
            }
            let (mut total, uses) = local.def(d);
            // Every shared relation reachable, each body once.
            let mut seen: BTreeSet<usize> = BTreeSet::new();
            let mut todo: Vec<usize> = uses.into_iter().collect();
            while let Some(s) = todo.pop() {
                if s == d || !seen.insert(s) {
                    continue;
                }
                let (n, u) = local.def(s);
                total = total.saturating_add(n);
                todo.extend(u);
            }
            total
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, body: Formula) -> DefinedRelation {
        DefinedRelation {
            name: name.into(),
            params: Vec::new(),
            body,
        }
    }

    fn rel(name: &str) -> Formula {
        Formula::Rel {
            name: name.into(),
            args: Vec::new(),
        }
    }

    /// A chain where each relation uses the one before twice: inlined, its
    /// size doubles at each step; shared, it grows by a constant.
    #[test]
    fn a_chain_of_doubling_relations_is_counted_once_per_relation() {
        let mut defs = vec![def(
            "r0",
            Formula::Or((0..SHARE_ABOVE as usize + 1).map(|_| rel("p")).collect()),
        )];
        for i in 1..80 {
            let prev = format!("r{}", i - 1);
            defs.push(def(
                &format!("r{i}"),
                Formula::And(vec![rel(&prev), Formula::Not(Box::new(rel(&prev)))]),
            ));
        }
        let index: HashMap<String, usize> = defs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.clone(), i))
            .collect();
        let inlined = inlined_sizes(&defs, &index);
        assert_eq!(inlined[0], SHARE_ABOVE + 1);
        assert_eq!(inlined[1], 2 * (SHARE_ABOVE + 1));
        assert_eq!(inlined[79], u64::MAX, "saturates");
        let compiled = compiled_sizes(&defs, &index);
        // Small, inlined; large, r0's body once and 2 atoms for each
        // relation above it.
        assert_eq!(compiled[0], SHARE_ABOVE + 1);
        assert_eq!(compiled[1], 2 * (SHARE_ABOVE + 1));
        let first_shared = (0..80).find(|&i| inlined[i] > SHARING_ABOVE).expect("some");
        assert_eq!(compiled[first_shared - 1], inlined[first_shared - 1]);
        assert_eq!(
            compiled[first_shared],
            2 * first_shared as u64 + (SHARE_ABOVE + 1)
        );
        assert_eq!(compiled[79], 2 * 79 + (SHARE_ABOVE + 1));
    }
}
