//! Shared terms for normalisation: an arena of nodes, each a head and the
//! ids of its children; hash-consed by default, so equal terms are equal
//! ids. The hash-consing table keeps each node's hash; a node keeps its
//! height and whether it is a normal form. This makes the cost of a
//! rewrite step independent of the size of the terms it moves around: a
//! substitution holds ids, comparing two terms compares two numbers and a
//! normal subterm is never normalised again. Without hash-consing (for a
//! normaliser without a memo table) a node is added without a look-up,
//! and comparing two terms walks them where their nodes differ.
//!
//! Nothing is ever freed: an arena lives as long as one normaliser, whose
//! step limit bounds its growth.

use std::collections::HashMap;

use crate::decl::names;
use crate::term::{Head, Signature, Term};

/// A term in an arena.
pub(crate) type Id = u32;

/// A head in an arena.
pub(crate) type HeadId = u32;

/// What normalisation needs to know about a head without a string
/// comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Special {
    None,
    If,
    Bracket,
    Verbatim,
    True,
    False,
    /// The meta-level functions of 2.2.4.
    Code,
    Decode,
    GetClasses,
    GetFunctions,
    GetConstructors,
}

impl Special {
    /// One of the meta-level functions of 2.2.4.
    pub fn is_meta(self) -> bool {
        matches!(
            self,
            Special::Code
                | Special::Decode
                | Special::GetClasses
                | Special::GetFunctions
                | Special::GetConstructors
        )
    }
}

#[derive(Clone, Debug)]
pub(crate) struct HeadInfo {
    pub head: Head,
    /// A function name of the signature.
    pub function: bool,
    pub special: Special,
}

impl HeadInfo {
    /// Opaque to matching (2.5.1): a variable or a function call.
    pub fn opaque(&self) -> bool {
        self.function || matches!(self.head, Head::Var(_))
    }
}

/// Children of a node: up to [`INLINE`] in the node itself (most terms
/// have few, and this saves a memory access per look-up), more in
/// [`Arena::children`] from `kids[0]` on.
pub(crate) const INLINE: usize = 2;

/// What matching reads of a node, with one look-up: its head, arity,
/// children when they are inline (at most [`INLINE`]) and whether its head
/// is opaque.
#[derive(Clone, Copy, Debug)]
pub(crate) struct View {
    pub head: HeadId,
    pub len: u32,
    pub kids: [Id; INLINE],
    pub opaque: bool,
}

/// A node in 16 bytes: its head, its children (inline, or where they
/// start in [`Arena::children`] and how many) and `meta`: the arity up to
/// [`INLINE`] ([`MORE`] above), whether it is a normal form, whether its
/// head is opaque to matching ([`HeadInfo::opaque`], kept here so matching
/// reads one node, not the head's entry too) and its height.
#[derive(Clone, Copy, Debug)]
struct Node {
    head: HeadId,
    kids: [Id; INLINE],
    meta: u32,
}

/// The arity code of a node with its children out of line.
const MORE: u32 = 3;
const NORMAL: u32 = 1 << 2;
const OPAQUE: u32 = 1 << 3;
const HEIGHT_SHIFT: u32 = 4;
/// The greatest height a node records: a term this high would take more
/// than 4 GiB of nodes. A node higher still records it, and its height
/// reads as over any depth limit.
const MAX_HEIGHT: u32 = (1 << (32 - HEIGHT_SHIFT)) - 1;

impl Node {
    fn len(&self) -> u32 {
        match self.meta & 3 {
            MORE => self.kids[1],
            len => len,
        }
    }

    fn height(&self) -> usize {
        match self.meta >> HEIGHT_SHIFT {
            MAX_HEIGHT => usize::MAX / 4,
            h => h as usize,
        }
    }

    fn normal(&self) -> bool {
        self.meta & NORMAL != 0
    }

    fn opaque(&self) -> bool {
        self.meta & OPAQUE != 0
    }

    fn args<'a>(&'a self, children: &'a [Id]) -> &'a [Id] {
        match self.meta & 3 {
            MORE => {
                let start = self.kids[0] as usize;
                &children[start..start + self.kids[1] as usize]
            }
            len => &self.kids[..len as usize],
        }
    }
}

const EMPTY: u32 = u32::MAX;

/// The arena: heads, nodes, their children and the hash-consing table.
#[derive(Debug)]
pub(crate) struct Arena {
    heads: Vec<HeadInfo>,
    head_ids: HashMap<Head, HeadId>,
    nodes: Vec<Node>,
    children: Vec<Id>,
    /// Open addressing, a power of two long, at most half full: a node
    /// and the low bits of its hash (most misses need no node read).
    table: Vec<(Id, u32)>,
    /// Children of nodes under construction (a stack: each builder pushes
    /// above what it found and truncates back).
    pub scratch: Vec<Id>,
    /// Whether nodes are looked up before they are added, so equal terms
    /// are one node (see [`Arena::without_hash_consing`]).
    hash_cons: bool,
    /// The greatest height of a node.
    highest: u32,
}

/// Copies the few ids of `src` to the start of `dst`: unrolled for the
/// usual lengths, where a call to memcpy (what a loop compiles to) costs
/// more than the copy.
#[inline]
pub(crate) fn copy_few(dst: &mut [Id], src: &[Id]) {
    match (src, dst) {
        ([], _) => {}
        ([a], [x, ..]) => *x = *a,
        ([a, b], [x, y, ..]) => (*x, *y) = (*a, *b),
        ([a, b, c], [x, y, z, ..]) => (*x, *y, *z) = (*a, *b, *c),
        ([a, b, c, d], [x, y, z, w, ..]) => (*x, *y, *z, *w) = (*a, *b, *c, *d),
        (src, dst) => dst[..src.len()].copy_from_slice(src),
    }
}

fn mix(h: u64, x: u64) -> u64 {
    (h.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

fn node_hash(head: HeadId, args: &[Id]) -> u32 {
    let h = args
        .iter()
        .fold(mix(0, u64::from(head)), |h, &a| mix(h, u64::from(a)));
    (h >> 32) as u32
}

impl Arena {
    pub fn new() -> Arena {
        Arena {
            heads: Vec::new(),
            head_ids: HashMap::new(),
            nodes: Vec::new(),
            children: Vec::new(),
            table: vec![(EMPTY, 0); 1 << 10],
            scratch: Vec::new(),
            hash_cons: true,
            highest: 0,
        }
    }

    /// An arena whose nodes are added without a look-up: equal terms may
    /// then be different nodes, and only [`Arena::equal`] says whether two
    /// terms are equal. Most nodes built by rewriting are new, and the
    /// look-up that finds so is a random access to the table; a normaliser
    /// without a memo table (keyed by nodes) needs no more.
    pub fn without_hash_consing() -> Arena {
        Arena {
            hash_cons: false,
            ..Arena::new()
        }
    }

    /// Whether `a` and `b` are the same term: the same node, or (without
    /// hash-consing) nodes with the same head and equal children. Without
    /// recursion, so deep terms cost no call frames.
    pub fn equal(&self, a: Id, b: Id) -> bool {
        if a == b || self.hash_cons {
            return a == b;
        }
        let mut todo = vec![(a, b)];
        while let Some((a, b)) = todo.pop() {
            if a == b {
                continue;
            }
            let (x, y) = (&self.nodes[a as usize], &self.nodes[b as usize]);
            if x.head != y.head || x.len() != y.len() || x.height() != y.height() {
                return false;
            }
            todo.extend(
                x.args(&self.children)
                    .iter()
                    .copied()
                    .zip(y.args(&self.children).iter().copied()),
            );
        }
        true
    }

    /// The id of a head, added with its kind on first sight.
    pub fn head_id(&mut self, head: &Head, sig: &Signature) -> HeadId {
        if let Some(&h) = self.head_ids.get(head) {
            return h;
        }
        let (function, special) = match head {
            Head::Var(_) => (false, Special::None),
            Head::Sym(f) => (
                sig.is_function(f),
                match &**f {
                    names::IF => Special::If,
                    names::BRACKET => Special::Bracket,
                    names::VERBATIM => Special::Verbatim,
                    names::TRUE => Special::True,
                    names::FALSE => Special::False,
                    names::CODE => Special::Code,
                    names::DECODE => Special::Decode,
                    names::GET_CLASSES => Special::GetClasses,
                    names::GET_FUNCTIONS => Special::GetFunctions,
                    names::GET_CONSTRUCTORS => Special::GetConstructors,
                    _ => Special::None,
                },
            ),
        };
        let h = u32::try_from(self.heads.len()).unwrap_or(EMPTY);
        self.heads.push(HeadInfo {
            head: head.clone(),
            function,
            special,
        });
        self.head_ids.insert(head.clone(), h);
        h
    }

    /// The id of a head if it was seen.
    pub fn find_head(&self, head: &Head) -> Option<HeadId> {
        self.head_ids.get(head).copied()
    }

    pub fn heads_len(&self) -> usize {
        self.heads.len()
    }

    pub fn info(&self, h: HeadId) -> &HeadInfo {
        &self.heads[h as usize]
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn head(&self, t: Id) -> HeadId {
        self.nodes[t as usize].head
    }

    pub fn head_info(&self, t: Id) -> &HeadInfo {
        self.info(self.head(t))
    }

    pub fn args(&self, t: Id) -> &[Id] {
        self.nodes[t as usize].args(&self.children)
    }

    /// What matching reads of `t`.
    #[inline]
    pub fn view(&self, t: Id) -> View {
        let n = &self.nodes[t as usize];
        View {
            head: n.head,
            len: n.len(),
            kids: n.kids,
            opaque: n.opaque(),
        }
    }

    /// Whether the head of `t` is opaque to matching (a variable or a
    /// function name).
    pub fn is_opaque(&self, t: Id) -> bool {
        self.nodes[t as usize].opaque()
    }

    pub fn arity(&self, t: Id) -> usize {
        self.nodes[t as usize].len() as usize
    }

    pub fn arg(&self, t: Id, i: usize) -> Id {
        self.args(t)[i]
    }

    /// The number of nodes on the longest path from the root.
    pub fn height(&self, t: Id) -> usize {
        self.nodes[t as usize].height()
    }

    /// The greatest height of a node: no term in the arena is higher.
    pub fn highest(&self) -> usize {
        match self.highest {
            MAX_HEIGHT => usize::MAX / 4,
            h => h as usize,
        }
    }

    /// Whether `t` is known to be a normal form of Algorithm 5.
    pub fn is_normal(&self, t: Id) -> bool {
        self.nodes[t as usize].normal()
    }

    pub fn mark_normal(&mut self, t: Id) {
        self.nodes[t as usize].meta |= NORMAL;
    }

    /// Whether `t` is the leaf of a special head.
    pub fn is_leaf(&self, t: Id, special: Special) -> bool {
        self.arity(t) == 0 && self.head_info(t).special == special
    }

    /// The node `head(scratch[base..])`; the scratch is truncated to `base`.
    pub fn intern_scratch(&mut self, head: HeadId, base: usize) -> Id {
        if !self.hash_cons {
            return self.add(head, base, false);
        }
        let hash = node_hash(head, &self.scratch[base..]);
        let mask = self.table.len() - 1;
        let mut slot = hash as usize & mask;
        loop {
            let (found, found_hash) = self.table[slot];
            if found == EMPTY {
                break;
            }
            if found_hash == hash {
                let n = &self.nodes[found as usize];
                let (a, b) = (n.args(&self.children), &self.scratch[base..]);
                // Element by element: a call to memcmp costs more on so few.
                if n.head == head && a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y) {
                    self.scratch.truncate(base);
                    return found;
                }
            }
            slot = (slot + 1) & mask;
        }
        let id = self.add(head, base, false);
        self.table[slot] = (id, hash);
        if self.nodes.len() * 2 > self.table.len() {
            self.grow();
        }
        id
    }

    /// A normal form `head(scratch[base..])` (its children are): found, or
    /// added and marked.
    pub fn intern_normal(&mut self, head: HeadId, base: usize) -> Id {
        if !self.hash_cons {
            return self.add(head, base, true);
        }
        let t = self.intern_scratch(head, base);
        self.mark_normal(t);
        t
    }

    /// A normal form `head(args)` (its children are): found, or added and
    /// marked.
    #[inline]
    pub fn add_normal(&mut self, head: HeadId, args: &[Id]) -> Id {
        if self.hash_cons {
            let base = self.scratch.len();
            self.scratch.extend_from_slice(args);
            return self.intern_normal(head, base);
        }
        self.add_node(head, args, true)
    }

    /// A new node `head(scratch[base..])`, not in the table; the scratch
    /// is truncated to `base`.
    fn add(&mut self, head: HeadId, base: usize, normal: bool) -> Id {
        let args = std::mem::take(&mut self.scratch);
        let id = self.add_node(head, &args[base..], normal);
        self.scratch = args;
        self.scratch.truncate(base);
        id
    }

    /// A new node `head(args)`, not in the table.
    #[inline]
    fn add_node(&mut self, head: HeadId, args: &[Id], normal: bool) -> Id {
        let mut height = 0;
        let mut kids = [0; INLINE];
        // Element by element: a call to memcpy costs more on so few.
        for (i, &a) in args.iter().enumerate() {
            height = height.max(self.nodes[a as usize].meta >> HEIGHT_SHIFT);
            if let Some(k) = kids.get_mut(i) {
                *k = a;
            }
        }
        let len = u32::try_from(args.len()).unwrap_or(EMPTY);
        let mut meta = if args.len() > INLINE {
            kids = [u32::try_from(self.children.len()).unwrap_or(EMPTY), len];
            self.children.extend_from_slice(args);
            MORE
        } else {
            len
        };
        if normal {
            meta |= NORMAL;
        }
        if self.heads[head as usize].opaque() {
            meta |= OPAQUE;
        }
        let height = (height + 1).min(MAX_HEIGHT);
        self.highest = self.highest.max(height);
        let id = u32::try_from(self.nodes.len()).unwrap_or(EMPTY);
        self.nodes.push(Node {
            head,
            kids,
            meta: meta | height << HEIGHT_SHIFT,
        });
        id
    }

    /// The node `head(args)`.
    pub fn intern(&mut self, head: HeadId, args: &[Id]) -> Id {
        let base = self.scratch.len();
        self.scratch.extend_from_slice(args);
        self.intern_scratch(head, base)
    }

    fn grow(&mut self) {
        let size = self.table.len() * 2;
        let mask = size - 1;
        let mut table = vec![(EMPTY, 0); size];
        for &(id, hash) in &self.table {
            if id == EMPTY {
                continue;
            }
            let mut slot = hash as usize & mask;
            while table[slot].0 != EMPTY {
                slot = (slot + 1) & mask;
            }
            table[slot] = (id, hash);
        }
        self.table = table;
    }

    /// A term tree into the arena.
    pub fn share(&mut self, t: &Term, sig: &Signature) -> Id {
        let head = self.head_id(&t.head, sig);
        let base = self.scratch.len();
        for a in &t.args {
            let id = self.share(a, sig);
            self.scratch.push(id);
        }
        self.intern_scratch(head, base)
    }

    /// The term tree of an id.
    pub fn to_term(&self, t: Id) -> Term {
        match self.tree(t, false, usize::MAX) {
            Some(term) => term,
            None => unreachable!("no depth limit"),
        }
    }

    /// The term tree of an id, each verbatim with no verbatim above it
    /// replaced by its argument when `strip`; `None` when a node outside
    /// verbatim is deeper than `max_depth` (the root at depth 0). Without
    /// recursion: the nodes to visit on a stack, the trees built on
    /// another, so deep terms cost no call frames.
    ///
    /// Built from the root down the last child of each node (the deep
    /// side of a numeral or a list), each node's other children built by
    /// [`Arena::subtree`]; so a deep spine needs no stack at all.
    pub fn tree(&self, t: Id, strip: bool, max_depth: usize) -> Option<Term> {
        let mut root = Term {
            head: self.head_info(t).head.clone(),
            args: Vec::new(),
        };
        let (mut cur, mut id, mut depth) = (&mut root, t, 0);
        loop {
            let n = &self.nodes[id as usize];
            if strip && self.heads[n.head as usize].special == Special::Verbatim && n.len() == 1 {
                *cur = self.to_term(n.kids[0]);
                return Some(root);
            }
            let kids = n.args(&self.children);
            let Some((&last, others)) = kids.split_last() else {
                return Some(root);
            };
            // The children are at `depth + 1`.
            if depth + 1 > max_depth {
                return None;
            }
            let mut args = Vec::with_capacity(kids.len());
            for &k in others {
                args.push(self.subtree(k, strip, max_depth - (depth + 1))?);
            }
            args.push(Term {
                head: self.head_info(last).head.clone(),
                args: Vec::new(),
            });
            cur.args = args;
            let Some(next) = cur.args.last_mut() else {
                unreachable!("the last child was pushed")
            };
            (cur, id, depth) = (next, last, depth + 1);
        }
    }

    /// [`Arena::tree`] by a stack of the nodes to visit and one of the
    /// trees built (for the children off the spine).
    fn subtree(&self, t: Id, strip: bool, max_depth: usize) -> Option<Term> {
        // A node and how many of its children were visited; room for the
        // term's height up front (up to a bound, past which it grows).
        let mut stack: Vec<(Id, u32)> = Vec::with_capacity(self.height(t).min(1 << 20));
        let mut done: Vec<Term> = Vec::new();
        let mut visit = t;
        loop {
            let n = &self.nodes[visit as usize];
            let info = &self.heads[n.head as usize];
            if strip && info.special == Special::Verbatim && n.len() == 1 {
                done.push(self.to_term(n.kids[0]));
            } else if n.len() == 0 {
                done.push(Term {
                    head: info.head.clone(),
                    args: Vec::new(),
                });
            } else {
                stack.push((visit, 0));
            }
            // Up to the next node to visit.
            loop {
                let Some(top) = stack.last_mut() else {
                    return done.pop();
                };
                let (id, next) = *top;
                let n = &self.nodes[id as usize];
                let len = n.len();
                if next < len {
                    top.1 += 1;
                    // The child is at depth `stack.len()`.
                    if stack.len() > max_depth {
                        return None;
                    }
                    visit = n.args(&self.children)[next as usize];
                    break;
                }
                stack.pop();
                let args = match (len, done.pop()) {
                    (1, Some(kid)) => vec![kid],
                    (_, kid) => {
                        done.extend(kid);
                        done.split_off(done.len() - len as usize)
                    }
                };
                done.push(Term {
                    head: self.heads[n.head as usize].head.clone(),
                    args,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::SymKind;
    use crate::types::Type;

    #[test]
    fn equal_terms_are_equal_ids() {
        let mut sig = Signature::new();
        let nat = Type::sym("nat", vec![]);
        sig.add("zero", nat.clone(), SymKind::Constructor);
        sig.add("s", Type::fun(vec![nat.clone()], nat), SymKind::Constructor);
        let mut a = Arena::new();
        let numeral =
            |n: usize| (0..n).fold(Term::sym("zero", vec![]), |t, _| Term::sym("s", vec![t]));
        // Enough nodes to grow the table a few times.
        let ids: Vec<Id> = (0..3000).map(|n| a.share(&numeral(n), &sig)).collect();
        assert_eq!(a.len(), 3000);
        for (n, &id) in ids.iter().enumerate().step_by(97) {
            assert_eq!(a.share(&numeral(n), &sig), id);
            assert_eq!(a.to_term(id), numeral(n));
            assert_eq!(a.height(id), n + 1);
        }
        assert_eq!(a.len(), 3000);
    }

    /// Without hash-consing, equal terms built apart are different nodes
    /// that [`Arena::equal`] finds equal, however deep.
    #[test]
    fn equality_without_hash_consing() {
        let mut sig = Signature::new();
        let nat = Type::sym("nat", vec![]);
        sig.add("zero", nat.clone(), SymKind::Constructor);
        sig.add(
            "s",
            Type::fun(vec![nat.clone()], nat.clone()),
            SymKind::Constructor,
        );
        sig.add(
            "p",
            Type::fun(vec![nat.clone(), nat.clone()], nat),
            SymKind::Constructor,
        );
        let numeral =
            |n: usize| (0..n).fold(Term::sym("zero", vec![]), |t, _| Term::sym("s", vec![t]));
        let mut a = Arena::without_hash_consing();
        let deep = 5_000;
        let (x, y) = (a.share(&numeral(deep), &sig), a.share(&numeral(deep), &sig));
        let z = a.share(&numeral(deep - 1), &sig);
        assert_ne!(x, y);
        assert!(a.equal(x, y) && a.equal(y, x) && a.equal(x, x));
        assert!(!a.equal(x, z));
        let p = |a: &mut Arena, l: usize, r: usize| {
            a.share(&Term::sym("p", vec![numeral(l), numeral(r)]), &sig)
        };
        let (u, v, w) = (p(&mut a, 2, 3), p(&mut a, 2, 3), p(&mut a, 3, 2));
        assert!(a.equal(u, v) && !a.equal(u, w));
        // With hash-consing, equal terms are one node.
        let mut b = Arena::new();
        let (x, y) = (b.share(&numeral(50), &sig), b.share(&numeral(50), &sig));
        assert_eq!(x, y);
        assert!(b.equal(x, y));
    }

    /// The spine builder of `tree` gives what the stack builder gives:
    /// verbatim on and off the spine, the depth limit met on and off it.
    #[test]
    fn the_spine_and_the_stack_build_the_same_trees() {
        let mut sig = Signature::new();
        let a = Type::var("a");
        sig.add("c", a.clone(), SymKind::Constructor);
        sig.add(
            "s",
            Type::fun(vec![a.clone()], a.clone()),
            SymKind::Constructor,
        );
        sig.add(
            "f",
            Type::fun(vec![a.clone(), a.clone()], a.clone()),
            SymKind::Constructor,
        );
        sig.add(
            "g",
            Type::fun(vec![a.clone(), a.clone(), a.clone()], a.clone()),
            SymKind::Constructor,
        );
        sig.add(
            names::VERBATIM,
            Type::fun(vec![a.clone()], a),
            SymKind::Function,
        );
        let c = || Term::sym("c", vec![]);
        let s = |x: Term| Term::sym("s", vec![x]);
        let f = |x: Term, y: Term| Term::sym("f", vec![x, y]);
        let g = |x: Term, y: Term, z: Term| Term::sym("g", vec![x, y, z]);
        let v = |x: Term| Term::sym(names::VERBATIM, vec![x]);
        let terms = [
            c(),
            v(f(c(), v(c()))),
            s(s(s(c()))),
            f(s(s(c())), f(c(), f(v(s(c())), c()))),
            f(c(), v(f(c(), v(s(c()))))),
            g(
                v(c()),
                s(s(s(s(c())))),
                f(f(f(c(), c()), c()), v(f(c(), c()))),
            ),
            s(v(s(v(c())))),
        ];
        let mut arena = Arena::new();
        for t in &terms {
            let id = arena.share(t, &sig);
            for strip in [false, true] {
                for max_depth in 0..7 {
                    assert_eq!(
                        arena.tree(id, strip, max_depth),
                        arena.subtree(id, strip, max_depth),
                        "{t}, strip {strip}, depth {max_depth}"
                    );
                }
            }
        }
    }

    /// Trees back from the arena: verbatim stripped where none is above,
    /// the depth limit counting nodes outside verbatim only.
    #[test]
    fn trees_strip_the_outer_verbatim_and_keep_the_depth_limit() {
        let mut sig = Signature::new();
        let a = Type::var("a");
        sig.add("c", a.clone(), SymKind::Constructor);
        sig.add(
            "f",
            Type::fun(vec![a.clone(), a.clone()], a.clone()),
            SymKind::Constructor,
        );
        sig.add(
            names::VERBATIM,
            Type::fun(vec![a.clone()], a),
            SymKind::Function,
        );
        let c = || Term::sym("c", vec![]);
        let f = |x: Term, y: Term| Term::sym("f", vec![x, y]);
        let v = |x: Term| Term::sym(names::VERBATIM, vec![x]);
        let mut arena = Arena::new();
        let t = f(v(f(v(c()), c())), f(c(), c()));
        let id = arena.share(&t, &sig);
        assert_eq!(arena.to_term(id), t);
        let stripped = f(f(v(c()), c()), f(c(), c()));
        assert_eq!(arena.tree(id, true, 2), Some(stripped.clone()));
        // Depth 2 reached outside verbatim (f's children's children).
        assert_eq!(arena.tree(id, true, 1), None);
        // Unstripped, the innermost `c` is at depth 4.
        assert_eq!(arena.tree(id, false, 3), None);
        assert_eq!(arena.tree(id, false, 4), Some(t));
        let leaf = arena.share(&c(), &sig);
        assert_eq!(arena.tree(leaf, true, 0), Some(c()));
    }
}
