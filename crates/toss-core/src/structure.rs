//! Relational structures with real-valued functions (spec 1.1, 1.2): the
//! state of a Toss game.
//!
//! Elements are dense ids (`Elem`) with names. Deleting an element frees its
//! id (it is no longer *live*) but never renumbers the others, so matches and
//! moves stay valid across clones. Each relation keeps its tuples in a form
//! chosen by arity: a bitset for unary relations, sorted adjacency lists both
//! ways for binary ones, an ordered set of tuples otherwise. Relation data and
//! element names sit behind `Arc`s and are copied only when written, so a
//! clone for a playout costs little, and relations no rule changes (the
//! stable ones: board adjacency) are never copied at all.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

/// An element of a structure.
pub type Elem = u32;
/// Index of a relation in a structure's signature.
pub type RelId = usize;
/// Index of a real-valued function in a structure's signature.
pub type FunId = usize;

/// A set of small non-negative integers as 64-bit words.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn with_capacity(bits: usize) -> Self {
        Self {
            words: vec![0; bits.div_ceil(64)],
        }
    }
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        let w = (i / 64) as usize;
        w < self.words.len() && self.words[w] >> (i % 64) & 1 == 1
    }
    /// Adds `i`; returns whether it was absent.
    #[inline]
    pub fn insert(&mut self, i: u32) -> bool {
        let w = (i / 64) as usize;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        let absent = self.words[w] >> (i % 64) & 1 == 0;
        self.words[w] |= 1 << (i % 64);
        absent
    }
    /// Removes `i`; returns whether it was present.
    #[inline]
    pub fn remove(&mut self, i: u32) -> bool {
        let w = (i / 64) as usize;
        if w >= self.words.len() {
            return false;
        }
        let present = self.words[w] >> (i % 64) & 1 == 1;
        self.words[w] &= !(1 << (i % 64));
        present
    }
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }
    pub fn words(&self) -> &[u64] {
        &self.words
    }
    pub fn words_mut(&mut self) -> &mut Vec<u64> {
        &mut self.words
    }
    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros();
                w &= w - 1;
                Some(wi as u32 * 64 + b)
            })
        })
    }
}

impl fmt::Debug for BitSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// The tuples of one relation, stored by arity.
#[derive(Clone, Debug)]
pub enum RelationData {
    /// Arity 0: holds or not.
    Nullary(bool),
    /// Arity 1: a bitset over element ids.
    Unary(BitSet),
    /// Arity 2: sorted successor and predecessor lists per element.
    Binary {
        fwd: Vec<Vec<Elem>>,
        bwd: Vec<Vec<Elem>>,
        len: usize,
    },
    /// Arity 3 and more: an ordered set of tuples with an index per
    /// position.
    General(Tuples),
}

/// The tuples of a relation of arity 3 or more: an ordered set, scanned by
/// range for a bound first element, and per later position a hashed index
/// from an element to the tuples having it there, so a pattern with any
/// bound position visits only the tuples that can match it.
#[derive(Clone, Debug, Default)]
pub struct Tuples {
    set: BTreeSet<Box<[Elem]>>,
    /// `by_position[i - 1]`: element -> the tuples with it at position `i`
    /// (ordered, so scans are in lexicographic order like the set's).
    by_position: Vec<HashMap<Elem, BTreeSet<Box<[Elem]>>>>,
}

impl Tuples {
    pub fn contains(&self, t: &[Elem]) -> bool {
        self.set.contains(t)
    }

    pub fn len(&self) -> usize {
        self.set.len()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// Adds a tuple; returns whether it was absent.
    pub fn insert(&mut self, t: &[Elem]) -> bool {
        if !self.set.insert(t.into()) {
            return false;
        }
        if self.by_position.len() < t.len().saturating_sub(1) {
            self.by_position.resize_with(t.len() - 1, HashMap::new);
        }
        for (i, &e) in t.iter().enumerate().skip(1) {
            self.by_position[i - 1]
                .entry(e)
                .or_default()
                .insert(t.into());
        }
        true
    }

    /// Removes a tuple; returns whether it was present.
    pub fn remove(&mut self, t: &[Elem]) -> bool {
        if !self.set.remove(t) {
            return false;
        }
        for (i, &e) in t.iter().enumerate().skip(1) {
            if let Some(ts) = self.by_position[i - 1].get_mut(&e) {
                ts.remove(t);
                if ts.is_empty() {
                    self.by_position[i - 1].remove(&e);
                }
            }
        }
        true
    }

    /// All tuples, in lexicographic order.
    pub fn iter(&self) -> impl Iterator<Item = &[Elem]> {
        self.set.iter().map(|t| &t[..])
    }

    /// How many tuples have `e` at `position`.
    pub fn count_at(&self, position: usize, e: Elem) -> usize {
        if position == 0 {
            return self.with_at(0, e).count();
        }
        self.by_position
            .get(position - 1)
            .and_then(|m| m.get(&e))
            .map_or(0, |ts| ts.len())
    }

    /// The tuples with `e` at `position`, in lexicographic order.
    pub fn with_at(&self, position: usize, e: Elem) -> Box<dyn Iterator<Item = &[Elem]> + '_> {
        if position == 0 {
            let lo = [e];
            let range = (
                std::ops::Bound::Included(&lo[..]),
                std::ops::Bound::Unbounded,
            );
            return Box::new(
                self.set
                    .range::<[Elem], _>(range)
                    .take_while(move |t| t[0] == e)
                    .map(|t| &t[..]),
            );
        }
        match self.by_position.get(position - 1).and_then(|m| m.get(&e)) {
            Some(ts) => Box::new(ts.iter().map(|t| &t[..])),
            None => Box::new(std::iter::empty()),
        }
    }
}

impl FromIterator<Box<[Elem]>> for Tuples {
    fn from_iter<I: IntoIterator<Item = Box<[Elem]>>>(iter: I) -> Self {
        let mut out = Tuples::default();
        for t in iter {
            out.insert(&t);
        }
        out
    }
}

impl RelationData {
    fn new(arity: usize) -> Self {
        match arity {
            0 => RelationData::Nullary(false),
            1 => RelationData::Unary(BitSet::new()),
            2 => RelationData::Binary {
                fwd: Vec::new(),
                bwd: Vec::new(),
                len: 0,
            },
            _ => RelationData::General(Tuples::default()),
        }
    }
}

/// Names of elements, shared between clones until one side adds or removes
/// an element.
#[derive(Clone, Debug, Default)]
struct Universe {
    names: Vec<String>,
    by_name: BTreeMap<String, Elem>,
    live: BitSet,
}

#[derive(Clone, Debug)]
struct RelationSlot {
    name: Arc<str>,
    arity: usize,
    data: Arc<RelationData>,
}

#[derive(Clone, Debug)]
struct FunctionSlot {
    name: Arc<str>,
    /// Value per element id; `0.0` where never set.
    values: Arc<Vec<f64>>,
}

/// A finite relational structure with real-valued functions on its elements.
#[derive(Clone, Default)]
pub struct Structure {
    universe: Arc<Universe>,
    relations: Vec<RelationSlot>,
    /// Relation ids by name: a signature may have millions of relations
    /// (a generated description), and looking each up by a scan made
    /// loading quadratic. Shared between clones; relations are never
    /// removed, so declaring is the only write.
    relation_ids: Arc<HashMap<Arc<str>, RelId>>,
    functions: Vec<FunctionSlot>,
}

impl Structure {
    pub fn new() -> Self {
        Self::default()
    }

    // ---- elements ----

    /// Adds an element with this name, or returns the live element that has
    /// it already.
    pub fn add_element(&mut self, name: &str) -> Elem {
        if let Some(&e) = self.universe.by_name.get(name)
            && self.universe.live.contains(e)
        {
            return e;
        }
        let u = Arc::make_mut(&mut self.universe);
        let e = u.names.len() as Elem;
        u.names.push(name.to_string());
        u.by_name.insert(name.to_string(), e);
        u.live.insert(e);
        e
    }

    /// Adds an element with a fresh name derived from `hint` (the hint
    /// itself if free, else `hint_1`, `hint_2`, ...).
    pub fn add_fresh_element(&mut self, hint: &str) -> Elem {
        if !self.universe.by_name.contains_key(hint) {
            return self.add_element(hint);
        }
        let mut i = self.universe.names.len();
        loop {
            let name = format!("{hint}_{i}");
            if !self.universe.by_name.contains_key(&name) {
                return self.add_element(&name);
            }
            i += 1;
        }
    }

    /// Removes an element and every tuple that mentions it. Its id is never
    /// reused.
    pub fn remove_element(&mut self, e: Elem) {
        if !self.is_live(e) {
            return;
        }
        for r in 0..self.relations.len() {
            let arity = self.relations[r].arity;
            if arity == 0 {
                continue;
            }
            let doomed: Vec<Vec<Elem>> = self
                .tuples(r)
                .into_iter()
                .filter(|t| t.contains(&e))
                .collect();
            for t in doomed {
                self.remove_tuple(r, &t);
            }
        }
        let u = Arc::make_mut(&mut self.universe);
        u.live.remove(e);
        let name = u.names[e as usize].clone();
        u.by_name.remove(&name);
    }

    pub fn is_live(&self, e: Elem) -> bool {
        self.universe.live.contains(e)
    }

    /// The live element with this name.
    pub fn element(&self, name: &str) -> Option<Elem> {
        self.universe
            .by_name
            .get(name)
            .copied()
            .filter(|&e| self.is_live(e))
    }

    /// The name of an element (also of a removed one).
    pub fn element_name(&self, e: Elem) -> &str {
        &self.universe.names[e as usize]
    }

    /// Live elements in increasing id order.
    pub fn elements(&self) -> impl Iterator<Item = Elem> + '_ {
        self.universe.live.iter()
    }

    /// The set of live elements.
    pub fn live(&self) -> &BitSet {
        &self.universe.live
    }

    /// Number of live elements.
    pub fn num_elements(&self) -> usize {
        self.universe.live.len()
    }

    /// One more than the largest element id ever used.
    pub fn id_bound(&self) -> usize {
        self.universe.names.len()
    }

    // ---- relations ----

    /// Declares a relation (idempotent for the same arity). Returns `None`
    /// if the name is declared with another arity.
    pub fn declare_relation(&mut self, name: &str, arity: usize) -> Option<RelId> {
        if let Some(r) = self.relation(name) {
            return (self.relations[r].arity == arity).then_some(r);
        }
        let name: Arc<str> = name.into();
        let r = self.relations.len();
        Arc::make_mut(&mut self.relation_ids).insert(name.clone(), r);
        self.relations.push(RelationSlot {
            name,
            arity,
            data: Arc::new(RelationData::new(arity)),
        });
        Some(r)
    }

    pub fn relation(&self, name: &str) -> Option<RelId> {
        self.relation_ids.get(name).copied()
    }

    pub fn num_relations(&self) -> usize {
        self.relations.len()
    }

    pub fn relation_name(&self, r: RelId) -> &str {
        &self.relations[r].name
    }

    pub fn arity(&self, r: RelId) -> usize {
        self.relations[r].arity
    }

    pub fn relation_data(&self, r: RelId) -> &RelationData {
        &self.relations[r].data
    }

    /// Whether two structures share the storage of relation `r` (so neither
    /// has written it since they were cloned apart).
    pub fn shares_relation(&self, other: &Structure, r: RelId) -> bool {
        Arc::ptr_eq(&self.relations[r].data, &other.relations[r].data)
    }

    #[inline]
    pub fn contains(&self, r: RelId, t: &[Elem]) -> bool {
        match &*self.relations[r].data {
            RelationData::Nullary(b) => *b,
            RelationData::Unary(s) => s.contains(t[0]),
            RelationData::Binary { fwd, .. } => fwd
                .get(t[0] as usize)
                .is_some_and(|v| v.binary_search(&t[1]).is_ok()),
            RelationData::General(s) => s.contains(t),
        }
    }

    /// Adds a tuple; returns whether it was absent.
    pub fn add_tuple(&mut self, r: RelId, t: &[Elem]) -> bool {
        debug_assert_eq!(t.len(), self.relations[r].arity);
        if self.contains(r, t) {
            return false;
        }
        match Arc::make_mut(&mut self.relations[r].data) {
            RelationData::Nullary(b) => *b = true,
            RelationData::Unary(s) => {
                s.insert(t[0]);
            }
            RelationData::Binary { fwd, bwd, len } => {
                let (a, b) = (t[0] as usize, t[1] as usize);
                let need = a.max(b) + 1;
                if fwd.len() < need {
                    fwd.resize(need, Vec::new());
                    bwd.resize(need, Vec::new());
                }
                let p = fwd[a].binary_search(&t[1]).unwrap_or_else(|p| p);
                fwd[a].insert(p, t[1]);
                let p = bwd[b].binary_search(&t[0]).unwrap_or_else(|p| p);
                bwd[b].insert(p, t[0]);
                *len += 1;
            }
            RelationData::General(s) => {
                s.insert(t);
            }
        }
        true
    }

    /// Removes a tuple; returns whether it was present.
    pub fn remove_tuple(&mut self, r: RelId, t: &[Elem]) -> bool {
        if !self.contains(r, t) {
            return false;
        }
        match Arc::make_mut(&mut self.relations[r].data) {
            RelationData::Nullary(b) => *b = false,
            RelationData::Unary(s) => {
                s.remove(t[0]);
            }
            RelationData::Binary { fwd, bwd, len } => {
                let (a, b) = (t[0] as usize, t[1] as usize);
                if let Ok(p) = fwd[a].binary_search(&t[1]) {
                    fwd[a].remove(p);
                }
                if let Ok(p) = bwd[b].binary_search(&t[0]) {
                    bwd[b].remove(p);
                }
                *len -= 1;
            }
            RelationData::General(s) => {
                s.remove(t);
            }
        }
        true
    }

    /// Removes the elements `es` from the unary relation `r`; the storage
    /// is written (and unshared) only when one of them is a member.
    pub fn remove_members(&mut self, r: RelId, es: &[Elem]) {
        let RelationData::Unary(s) = &*self.relations[r].data else {
            for &e in es {
                self.remove_tuple(r, &[e]);
            }
            return;
        };
        if !es.iter().any(|&e| s.contains(e)) {
            return;
        }
        if let RelationData::Unary(s) = Arc::make_mut(&mut self.relations[r].data) {
            for &e in es {
                s.remove(e);
            }
        }
    }

    /// The members of a unary relation.
    pub fn unary(&self, r: RelId) -> Option<&BitSet> {
        match &*self.relations[r].data {
            RelationData::Unary(s) => Some(s),
            _ => None,
        }
    }

    /// Successors of `a` in a binary relation, sorted.
    pub fn successors(&self, r: RelId, a: Elem) -> &[Elem] {
        match &*self.relations[r].data {
            RelationData::Binary { fwd, .. } => fwd.get(a as usize).map_or(&[], |v| v),
            _ => &[],
        }
    }

    /// Predecessors of `b` in a binary relation, sorted.
    pub fn predecessors(&self, r: RelId, b: Elem) -> &[Elem] {
        match &*self.relations[r].data {
            RelationData::Binary { bwd, .. } => bwd.get(b as usize).map_or(&[], |v| v),
            _ => &[],
        }
    }

    /// Number of tuples of a relation.
    pub fn relation_len(&self, r: RelId) -> usize {
        match &*self.relations[r].data {
            RelationData::Nullary(b) => *b as usize,
            RelationData::Unary(s) => s.len(),
            RelationData::Binary { len, .. } => *len,
            RelationData::General(s) => s.len(),
        }
    }

    /// All tuples of a relation, in lexicographic order of element ids.
    pub fn tuples(&self, r: RelId) -> Vec<Vec<Elem>> {
        match &*self.relations[r].data {
            RelationData::Nullary(b) => {
                if *b {
                    vec![vec![]]
                } else {
                    vec![]
                }
            }
            RelationData::Unary(s) => s.iter().map(|e| vec![e]).collect(),
            RelationData::Binary { fwd, .. } => fwd
                .iter()
                .enumerate()
                .flat_map(|(a, bs)| bs.iter().map(move |&b| vec![a as Elem, b]))
                .collect(),
            RelationData::General(s) => s.iter().map(|t| t.to_vec()).collect(),
        }
    }

    /// Appends words identifying the live elements, the tuples of every
    /// relation `keep` accepts and the values on live elements of every
    /// function `keep_function` accepts, by element id: equal words mean equal structures when the
    /// ids name the same elements (states of one game), and the words are a
    /// few per tuple, so exact solvers key their tables on them. Each part
    /// is preceded by its length, so parts never run together.
    pub fn key_words(
        &self,
        keep: impl Fn(RelId) -> bool,
        keep_function: impl Fn(FunId) -> bool,
        out: &mut Vec<u64>,
    ) {
        fn trimmed(words: &[u64]) -> &[u64] {
            let n = words.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
            &words[..n]
        }
        let live = trimmed(&self.universe.live.words);
        out.push(live.len() as u64);
        out.extend_from_slice(live);
        for (r, slot) in self.relations.iter().enumerate() {
            if !keep(r) {
                continue;
            }
            match &*slot.data {
                RelationData::Nullary(b) => out.push(*b as u64),
                RelationData::Unary(set) => {
                    let w = trimmed(&set.words);
                    out.push(w.len() as u64);
                    out.extend_from_slice(w);
                }
                RelationData::Binary { fwd, len, .. } => {
                    out.push(*len as u64);
                    for (a, bs) in fwd.iter().enumerate() {
                        for &b in bs {
                            out.push(((a as u64) << 32) | b as u64);
                        }
                    }
                }
                RelationData::General(t) => {
                    out.push(t.len() as u64);
                    for tuple in t.iter() {
                        out.extend(tuple.iter().map(|&e| e as u64));
                    }
                }
            }
        }
        for (f, slot) in self.functions.iter().enumerate() {
            if !keep_function(f) {
                continue;
            }
            for e in self.elements() {
                out.push(
                    slot.values
                        .get(e as usize)
                        .copied()
                        .unwrap_or(0.0)
                        .to_bits(),
                );
            }
        }
    }

    // ---- functions ----

    /// Declares a real-valued function (idempotent).
    pub fn declare_function(&mut self, name: &str) -> FunId {
        if let Some(f) = self.function(name) {
            return f;
        }
        self.functions.push(FunctionSlot {
            name: name.into(),
            values: Arc::new(Vec::new()),
        });
        self.functions.len() - 1
    }

    pub fn function(&self, name: &str) -> Option<FunId> {
        self.functions.iter().position(|f| &*f.name == name)
    }

    pub fn num_functions(&self) -> usize {
        self.functions.len()
    }

    pub fn function_name(&self, f: FunId) -> &str {
        &self.functions[f].name
    }

    /// The value of `f` on `e`; 0 where never set.
    #[inline]
    pub fn fun_value(&self, f: FunId, e: Elem) -> f64 {
        self.functions[f]
            .values
            .get(e as usize)
            .copied()
            .unwrap_or(0.0)
    }

    pub fn set_fun_value(&mut self, f: FunId, e: Elem, v: f64) {
        let vals = Arc::make_mut(&mut self.functions[f].values);
        if vals.len() <= e as usize {
            vals.resize(e as usize + 1, 0.0);
        }
        vals[e as usize] = v;
    }

    /// A canonical, name-based view: live element names (sorted), each
    /// relation's tuples by names (sorted), each function's values on live
    /// elements by name. Two structures are equal iff their views are.
    pub fn canonical(&self) -> CanonicalStructure {
        let elements: BTreeSet<String> = self
            .elements()
            .map(|e| self.element_name(e).to_string())
            .collect();
        let relations = self
            .relations
            .iter()
            .enumerate()
            .map(|(r, slot)| {
                let tuples = self
                    .tuples(r)
                    .into_iter()
                    .map(|t| {
                        t.iter()
                            .map(|&e| self.element_name(e).to_string())
                            .collect()
                    })
                    .collect();
                (slot.name.to_string(), (slot.arity, tuples))
            })
            .collect();
        let functions = self
            .functions
            .iter()
            .enumerate()
            .map(|(f, slot)| {
                let values = self
                    .elements()
                    .map(|e| {
                        (
                            self.element_name(e).to_string(),
                            self.fun_value(f, e).to_bits(),
                        )
                    })
                    .collect();
                (slot.name.to_string(), values)
            })
            .collect();
        CanonicalStructure {
            elements,
            relations,
            functions,
        }
    }
}

impl Structure {
    /// Makes `self` a copy of `orig`, reusing the relations and functions
    /// `self` holds unshared (written since it last matched `orig`) instead
    /// of allocating: a scratch copy that is changed and restored for every
    /// candidate move (checking a postcondition) then costs a few word
    /// copies per candidate, not a clone of the structure. Relations still
    /// shared with `orig` are left alone. Falls back to a clone when the
    /// signatures differ.
    pub fn restore_from(&mut self, orig: &Structure) {
        let same_sig = self.relations.len() == orig.relations.len()
            && self.functions.len() == orig.functions.len()
            && self
                .relations
                .iter()
                .zip(&orig.relations)
                .all(|(a, b)| a.arity == b.arity && same_name(&a.name, &b.name))
            && self
                .functions
                .iter()
                .zip(&orig.functions)
                .all(|(a, b)| same_name(&a.name, &b.name));
        if !same_sig {
            *self = orig.clone();
            return;
        }
        if !Arc::ptr_eq(&self.universe, &orig.universe) {
            self.universe = orig.universe.clone();
        }
        for (a, b) in self.relations.iter_mut().zip(&orig.relations) {
            if Arc::ptr_eq(&a.data, &b.data) {
                continue;
            }
            match (Arc::get_mut(&mut a.data), &*b.data) {
                (Some(RelationData::Nullary(x)), RelationData::Nullary(y)) => *x = *y,
                (Some(RelationData::Unary(x)), RelationData::Unary(y)) => {
                    x.words.clone_from(&y.words)
                }
                (
                    Some(RelationData::Binary { fwd, bwd, len }),
                    RelationData::Binary {
                        fwd: f2,
                        bwd: b2,
                        len: l2,
                    },
                ) => {
                    fwd.clone_from(f2);
                    bwd.clone_from(b2);
                    *len = *l2;
                }
                (Some(RelationData::General(x)), RelationData::General(y)) => x.clone_from(y),
                _ => a.data = b.data.clone(),
            }
        }
        for (a, b) in self.functions.iter_mut().zip(&orig.functions) {
            if Arc::ptr_eq(&a.values, &b.values) {
                continue;
            }
            match Arc::get_mut(&mut a.values) {
                Some(v) => v.clone_from(&b.values),
                None => a.values = b.values.clone(),
            }
        }
    }
}

/// Whether two declared names are equal (clones share the allocation, so
/// the pointers usually decide).
#[inline]
fn same_name(a: &Arc<str>, b: &Arc<str>) -> bool {
    Arc::ptr_eq(a, b) || a == b
}

/// Name-based canonical form of a structure, for comparison and printing.
/// Function values are kept as `f64` bit patterns so the form is `Eq`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CanonicalStructure {
    pub elements: BTreeSet<String>,
    /// Relation name -> (arity, tuples of element names).
    pub relations: BTreeMap<String, (usize, BTreeSet<Vec<String>>)>,
    /// Function name -> element name -> value bits.
    pub functions: BTreeMap<String, BTreeMap<String, u64>>,
}

impl PartialEq for Structure {
    /// Structures are equal when they have the same element names, the same
    /// relations (by name, arity and tuples of names) and the same function
    /// values; element ids and declaration order do not matter.
    fn eq(&self, other: &Self) -> bool {
        self.canonical() == other.canonical()
    }
}

impl fmt::Debug for Structure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.canonical();
        f.debug_struct("Structure")
            .field("elements", &c.elements)
            .field("relations", &c.relations)
            .field("functions", &c.functions)
            .finish()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The index of a relation of arity 4 answers "the tuples with e at
    /// position i" exactly as filtering all tuples does, in the same
    /// order, through insertions and removals.
    #[test]
    fn tuples_indexed_by_every_position() {
        let mut ts = Tuples::default();
        let mut all: BTreeSet<Vec<Elem>> = BTreeSet::new();
        let mut x: u64 = 7;
        let mut next = |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % n) as Elem
        };
        for step in 0..2000 {
            let t: Vec<Elem> = (0..4).map(|_| next(5)).collect();
            if step % 3 == 2 {
                assert_eq!(ts.remove(&t), all.remove(&t));
            } else {
                assert_eq!(ts.insert(&t), all.insert(t));
            }
            assert_eq!(ts.len(), all.len());
            if step % 50 == 0 {
                for pos in 0..4 {
                    for e in 0..5 {
                        let got: Vec<Vec<Elem>> = ts.with_at(pos, e).map(|t| t.to_vec()).collect();
                        let want: Vec<Vec<Elem>> =
                            all.iter().filter(|t| t[pos] == e).cloned().collect();
                        assert_eq!(got, want, "position {pos}, element {e}");
                        assert_eq!(ts.count_at(pos, e), want.len());
                    }
                }
            }
        }
    }

    #[test]
    fn tuples_by_arity_and_cheap_clones() {
        let mut s = Structure::new();
        let a = s.add_element("a");
        let b = s.add_element("b");
        let p = s.declare_relation("P", 1).expect("declared");
        let e = s.declare_relation("E", 2).expect("declared");
        let t = s.declare_relation("T", 3).expect("declared");
        assert!(s.add_tuple(p, &[a]));
        assert!(!s.add_tuple(p, &[a]));
        s.add_tuple(e, &[a, b]);
        s.add_tuple(t, &[a, b, a]);
        assert_eq!(s.successors(e, a), &[b]);
        assert_eq!(s.predecessors(e, b), &[a]);
        assert!(s.contains(t, &[a, b, a]));
        assert_eq!(s.declare_relation("P", 2), None);

        let mut c = s.clone();
        assert!(c.shares_relation(&s, e));
        c.remove_tuple(p, &[a]);
        assert!(c.shares_relation(&s, e));
        assert!(!c.shares_relation(&s, p));
        assert!(s.contains(p, &[a]) && !c.contains(p, &[a]));
        assert_ne!(s, c);

        c.remove_element(a);
        assert_eq!(c.num_elements(), 1);
        assert_eq!(c.relation_len(e), 0);
        assert_eq!(c.relation_len(t), 0);
        assert_eq!(c.element("a"), None);
    }

    /// Live elements, id bound, tuples per relation, value bits per
    /// function.
    type ById = (Vec<u32>, usize, Vec<Vec<Vec<Elem>>>, Vec<Vec<u64>>);

    /// The tuples and function values of `s` by element ids (equality of
    /// structures compares names only).
    fn by_ids(s: &Structure) -> ById {
        let rels = (0..s.num_relations()).map(|r| s.tuples(r)).collect();
        let funs = (0..s.num_functions())
            .map(|f| {
                (0..s.id_bound() as Elem)
                    .map(|e| s.fun_value(f, e).to_bits())
                    .collect()
            })
            .collect();
        (s.elements().collect(), s.id_bound(), rels, funs)
    }

    #[test]
    fn restore_from_undoes_every_change() {
        let mut s = Structure::new();
        let a = s.add_element("a");
        let b = s.add_element("b");
        let c = s.add_element("c");
        let p = s.declare_relation("P", 1).expect("declared");
        let e = s.declare_relation("E", 2).expect("declared");
        let t = s.declare_relation("T", 3).expect("declared");
        let z = s.declare_relation("Z", 0).expect("declared");
        let f = s.declare_function("f");
        s.add_tuple(p, &[a]);
        s.add_tuple(e, &[a, b]);
        s.add_tuple(t, &[a, b, c]);
        s.set_fun_value(f, b, 2.5);
        let want = by_ids(&s);

        let mut scratch = Structure::new();
        scratch.restore_from(&s);
        assert_eq!(by_ids(&scratch), want);
        // Several rounds: change every kind of data, restore, compare.
        for round in 0..3 {
            scratch.remove_tuple(p, &[a]);
            scratch.add_tuple(p, &[c]);
            scratch.add_tuple(e, &[b, c]);
            scratch.remove_tuple(e, &[a, b]);
            scratch.add_tuple(t, &[c, c, c]);
            scratch.add_tuple(z, &[]);
            scratch.set_fun_value(f, c, round as f64);
            if round == 1 {
                let d = scratch.add_fresh_element("d");
                scratch.add_tuple(p, &[d]);
                scratch.remove_element(a);
            }
            assert_ne!(by_ids(&scratch), want);
            scratch.restore_from(&s);
            assert_eq!(by_ids(&scratch), want, "round {round}");
            assert_eq!(scratch, s);
        }

        // Another signature: a plain copy.
        let mut other = Structure::new();
        other.add_element("x");
        other.declare_relation("Q", 2);
        other.restore_from(&s);
        assert_eq!(by_ids(&other), want);
        assert_eq!(other, s);
    }

    #[test]
    fn equality_ignores_ids_and_order() {
        let mut s = Structure::new();
        let a = s.add_element("a");
        let b = s.add_element("b");
        let e = s.declare_relation("E", 2).expect("declared");
        s.add_tuple(e, &[a, b]);
        let mut t = Structure::new();
        let b2 = t.add_element("b");
        let a2 = t.add_element("a");
        let e2 = t.declare_relation("E", 2).expect("declared");
        t.add_tuple(e2, &[a2, b2]);
        assert_eq!(s, t);
    }
}
