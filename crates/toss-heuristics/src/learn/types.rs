//! First-order types of tuples (spec 4.3.1-4.3.2), computed as interned
//! ids by partition refinement: the type of a `k`-tuple at quantifier rank
//! `n` is its atomic type and, for each way of requantifying (a position
//! in full first-order logic, a guard in the guarded fragment), the set of
//! rank `n - 1` types of the tuples reached. Two tuples, in any of the
//! examples, have the same id exactly when they have the same type, so
//! types are compared without building formulas; [`Types::formula`] turns
//! only the chosen ones into formulas.
//!
//! Full first-order types are computed over all `|A|^k` tuples, which the
//! caller bounds ([`Types::full_work`]). Guarded types are computed over the
//! tuples reachable from the diagonal `(a, ..., a)` by guarded
//! substitutions, which on a board are the adjacent ones: a few per
//! element instead of `|A|^k`.
//!
//! The existential guarded fragment uses the guarded ids: its formula for
//! an id is the guarded one without the universal parts, and whether it
//! holds at a tuple is a simulation, not an equality ([`Types::simulates`]).

use std::collections::HashMap;

use toss_core::ir::{Formula, Var};

use super::scene::{FastMap, Scene, Signature};

/// The fragments of spec 4.3, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Fragment {
    /// Guarded formulas in negation normal form without `all`.
    ExistentialGuarded,
    /// The guarded fragment (Definition 9).
    Guarded,
    /// All first-order formulas with `k` variables.
    Full,
}

impl std::fmt::Display for Fragment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Fragment::ExistentialGuarded => "existential guarded",
            Fragment::Guarded => "guarded",
            Fragment::Full => "first-order",
        })
    }
}

/// A literal position of atomic types over `k` variables.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Slot {
    Rel { rel: usize, vars: Vec<u8> },
    Eq(u8, u8),
}

/// A guard `R(v1, ..., vr)` requantifying the variables in `quantified`
/// (a bit mask): all of them occur in it, and so does another one.
#[derive(Clone, Debug)]
struct Guard {
    quantified: u32,
    rel: usize,
    vars: Vec<u8>,
}

/// An interning table: equal keys get equal ids.
#[derive(Default)]
struct Interner {
    map: FastMap<Vec<u32>, u32>,
    keys: Vec<Vec<u32>>,
}

impl Interner {
    fn intern(&mut self, key: Vec<u32>) -> u32 {
        if let Some(&id) = self.map.get(&key) {
            return id;
        }
        let id = self.keys.len() as u32;
        self.keys.push(key.clone());
        self.map.insert(key, id);
        id
    }
}

/// Separates the parts of a refinement key.
const SEP: u32 = u32::MAX;

/// The tuples of one example that types are computed for.
enum Space {
    /// All `len^k` tuples, indexed in base `len`, the first position lowest.
    Full { len: usize },
    /// The guarded tuples, with their successors per guard.
    Guarded {
        tuples: Vec<u32>,
        /// `succ[t * guards + g]..succ[t * guards + g + 1]` into `targets`.
        offsets: Vec<u32>,
        targets: Vec<u32>,
    },
}

/// Types of one rank.
#[derive(Default)]
struct Rank {
    interner: Interner,
    /// Per example, the id of each tuple of its space.
    ids: Vec<Vec<u32>>,
}

/// The types of `k`-tuples of a list of examples, in one kind of logic.
pub struct Types<'a> {
    k: usize,
    guarded: bool,
    scenes: &'a [Scene],
    sig: &'a Signature,
    slots: Vec<Slot>,
    guards: Vec<Guard>,
    spaces: Vec<Space>,
    ranks: Vec<Rank>,
}

/// Too many tuples to compute types for within the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    pub tuples: usize,
}

impl<'a> Types<'a> {
    /// Atomic types (rank 0) of the `k`-tuples of `scenes`: all of them
    /// (`guarded` false) or the guarded ones. `limit` bounds the number of
    /// tuples over all examples.
    pub fn new(
        scenes: &'a [Scene],
        sig: &'a Signature,
        k: usize,
        guarded: bool,
        limit: usize,
    ) -> Result<Types<'a>, TooLarge> {
        assert!((1..=4).contains(&k), "types of 1 to 4 variables");
        let mut slots = Vec::new();
        for (rel, sym) in sig.symbols.iter().enumerate() {
            for m in 0..k.pow(sym.arity as u32) {
                let vars = (0..sym.arity)
                    .map(|p| ((m / k.pow(p as u32)) % k) as u8)
                    .collect();
                slots.push(Slot::Rel { rel, vars });
            }
        }
        for i in 0..k as u8 {
            for j in i + 1..k as u8 {
                slots.push(Slot::Eq(i, j));
            }
        }
        let guards = if guarded { guards(sig, k) } else { Vec::new() };
        let mut types = Types {
            k,
            guarded,
            scenes,
            sig,
            slots,
            guards,
            spaces: Vec::new(),
            ranks: Vec::new(),
        };
        let mut total = 0usize;
        for s in scenes {
            let space = if guarded {
                types.guarded_space(s, limit.saturating_sub(total))?
            } else {
                let n = s.len().checked_pow(k as u32).unwrap_or(usize::MAX);
                if n > limit.saturating_sub(total) {
                    return Err(TooLarge {
                        tuples: total.saturating_add(n),
                    });
                }
                Space::Full { len: s.len() }
            };
            total += types.space_len(&space);
            types.spaces.push(space);
        }
        let mut rank = Rank::default();
        for (si, s) in scenes.iter().enumerate() {
            let n = types.space_len(&types.spaces[si]);
            let mut ids = Vec::with_capacity(n);
            let mut t = vec![0u32; k];
            for ti in 0..n {
                types.tuple(si, ti, &mut t);
                ids.push(rank.interner.intern(types.atomic_key(s, &t)));
            }
            rank.ids.push(ids);
        }
        types.ranks.push(rank);
        Ok(types)
    }

    /// The number of tuple visits refining full types to rank `n` costs:
    /// `n * k * sum |A|^(k+1)`.
    pub fn full_work(scenes: &[Scene], k: usize, n: usize) -> usize {
        scenes
            .iter()
            .map(|s| s.len().saturating_pow(k as u32 + 1))
            .fold(0usize, usize::saturating_add)
            .saturating_mul(k * n)
    }

    pub fn k(&self) -> usize {
        self.k
    }

    /// How many tuples of example `scene` have types.
    pub fn len(&self, scene: usize) -> usize {
        self.space_len(&self.spaces[scene])
    }

    fn space_len(&self, space: &Space) -> usize {
        match space {
            Space::Full { len } => len.pow(self.k as u32),
            Space::Guarded { tuples, .. } => tuples.len() / self.k,
        }
    }

    /// The elements of tuple `ti` of example `si`.
    pub fn tuple(&self, si: usize, ti: usize, out: &mut [u32]) {
        match &self.spaces[si] {
            Space::Full { len } => {
                let mut r = ti;
                for o in out.iter_mut() {
                    *o = (r % len) as u32;
                    r /= len;
                }
            }
            Space::Guarded { tuples, .. } => {
                out.copy_from_slice(&tuples[ti * self.k..(ti + 1) * self.k])
            }
        }
    }

    fn atomic_key(&self, s: &Scene, t: &[u32]) -> Vec<u32> {
        let mut key = vec![0u32; self.slots.len().div_ceil(32)];
        let mut args = Vec::new();
        for (i, slot) in self.slots.iter().enumerate() {
            let holds = match slot {
                Slot::Rel { rel, vars } => {
                    args.clear();
                    args.extend(vars.iter().map(|&v| t[v as usize]));
                    s.holds(*rel, &args)
                }
                Slot::Eq(a, b) => t[*a as usize] == t[*b as usize],
            };
            if holds {
                key[i / 32] |= 1 << (i % 32);
            }
        }
        key
    }

    /// The guarded tuples of `s`: the closure of the diagonal under guarded
    /// substitutions, breadth first, with the successors of each.
    fn guarded_space(&self, s: &Scene, limit: usize) -> Result<Space, TooLarge> {
        let k = self.k;
        let mut index: FastMap<Vec<u32>, u32> = FastMap::default();
        let mut tuples: Vec<u32> = Vec::new();
        for a in 0..s.len() as u32 {
            let t = vec![a; k];
            index.insert(t.clone(), index.len() as u32);
            tuples.extend(t);
        }
        let mut offsets = vec![0u32];
        let mut targets = Vec::new();
        let mut next = 0;
        let mut b = vec![0u32; k];
        while next * k < tuples.len() {
            let a = tuples[next * k..(next + 1) * k].to_vec();
            for g in &self.guards {
                // A position of the guard whose variable stays: the tuples
                // of the relation with that element there.
                let p = g
                    .vars
                    .iter()
                    .position(|&v| g.quantified & (1 << v) == 0)
                    .expect("a guard keeps a variable");
                for u in s.tuples_at(g.rel, p, a[g.vars[p] as usize]) {
                    b.copy_from_slice(&a);
                    let mut set = 0u32;
                    let fits = g.vars.iter().zip(u).all(|(&v, &e)| {
                        let bit = 1 << v;
                        if g.quantified & bit == 0 {
                            a[v as usize] == e
                        } else if set & bit != 0 {
                            b[v as usize] == e
                        } else {
                            set |= bit;
                            b[v as usize] = e;
                            true
                        }
                    });
                    if !fits {
                        continue;
                    }
                    let id = match index.get(&b) {
                        Some(&id) => id,
                        None => {
                            let id = index.len() as u32;
                            if id as usize >= limit {
                                return Err(TooLarge {
                                    tuples: id as usize + 1,
                                });
                            }
                            index.insert(b.clone(), id);
                            tuples.extend_from_slice(&b);
                            id
                        }
                    };
                    targets.push(id);
                }
                offsets.push(targets.len() as u32);
            }
            next += 1;
        }
        Ok(Space::Guarded {
            tuples,
            offsets,
            targets,
        })
    }

    /// The number of ranks computed so far, minus one.
    pub fn rank(&self) -> usize {
        self.ranks.len() - 1
    }

    /// Computes the types of the next rank.
    pub fn refine(&mut self) {
        let prev = self.ranks.last().expect("rank 0 exists");
        let mut rank = Rank::default();
        let mut set = Vec::new();
        for si in 0..self.scenes.len() {
            let old = &prev.ids[si];
            let mut ids = Vec::with_capacity(old.len());
            match &self.spaces[si] {
                Space::Full { len } => {
                    let len = *len;
                    for (ti, &own) in old.iter().enumerate() {
                        let mut key = vec![own];
                        let mut stride = 1;
                        for _ in 0..self.k {
                            let base = ti - (ti / stride % len) * stride;
                            set.clear();
                            set.extend((0..len).map(|b| old[base + b * stride]));
                            set.sort_unstable();
                            set.dedup();
                            key.push(SEP);
                            key.extend_from_slice(&set);
                            stride *= len;
                        }
                        ids.push(rank.interner.intern(key));
                    }
                }
                Space::Guarded {
                    offsets, targets, ..
                } => {
                    let g = self.guards.len();
                    for (ti, &own) in old.iter().enumerate() {
                        let mut key = vec![own];
                        for gi in 0..g {
                            let (from, to) = (offsets[ti * g + gi], offsets[ti * g + gi + 1]);
                            set.clear();
                            set.extend(
                                targets[from as usize..to as usize]
                                    .iter()
                                    .map(|&t| old[t as usize]),
                            );
                            set.sort_unstable();
                            set.dedup();
                            key.push(SEP);
                            key.extend_from_slice(&set);
                        }
                        ids.push(rank.interner.intern(key));
                    }
                }
            }
            rank.ids.push(ids);
        }
        self.ranks.push(rank);
    }

    /// The id of tuple `ti` of example `si` at rank `r`.
    pub fn id(&self, r: usize, si: usize, ti: usize) -> u32 {
        self.ranks[r].ids[si][ti]
    }

    /// The ids of all tuples of example `si` at rank `r`.
    pub fn ids(&self, r: usize, si: usize) -> &[u32] {
        &self.ranks[r].ids[si]
    }

    /// The atomic type (rank 0 id) of a type of rank `r`.
    fn atomic_of(&self, mut r: usize, mut id: u32) -> u32 {
        while r > 0 {
            id = self.ranks[r].interner.keys[id as usize][0];
            r -= 1;
        }
        id
    }

    /// The parts of a key of rank `r > 0`: per position or guard, the set
    /// of ids of rank `r - 1`.
    fn parts(&self, r: usize, id: u32) -> Vec<&[u32]> {
        let key = &self.ranks[r].interner.keys[id as usize];
        if key.len() == 1 {
            return Vec::new();
        }
        key[2..].split(|&x| x == SEP).collect()
    }

    /// Whether the existential guarded formula of type `id` (rank `r`)
    /// holds at tuple `ti` of example `si`: atomic types are equal and every
    /// successor type of each guard is simulated by a successor there.
    pub fn simulates(
        &self,
        r: usize,
        id: u32,
        si: usize,
        ti: usize,
        memo: &mut HashMap<(usize, u32, usize, usize), bool>,
    ) -> bool {
        if self.atomic_of(r, id) != self.ranks[0].ids[si][ti] {
            return false;
        }
        if r == 0 {
            return true;
        }
        if let Some(&b) = memo.get(&(r, id, si, ti)) {
            return b;
        }
        let Space::Guarded {
            offsets, targets, ..
        } = &self.spaces[si]
        else {
            panic!("simulation is for guarded types");
        };
        let g = self.guards.len();
        let parts = self.parts(r, id);
        let out = parts.iter().enumerate().all(|(gi, want)| {
            let (from, to) = (offsets[ti * g + gi], offsets[ti * g + gi + 1]);
            let have = &targets[from as usize..to as usize];
            want.iter().all(|&w| {
                have.iter()
                    .any(|&t| self.simulates(r - 1, w, si, t as usize, memo))
            })
        });
        memo.insert((r, id, si, ti), out);
        out
    }

    /// The number of formula nodes [`Types::formula`] builds for `id`.
    pub fn formula_size(
        &self,
        r: usize,
        id: u32,
        fragment: Fragment,
        memo: &mut HashMap<(usize, u32), usize>,
    ) -> usize {
        if let Some(&n) = memo.get(&(r, id)) {
            return n;
        }
        let atomic = self.slots.len() + 1;
        let n = if r == 0 {
            atomic
        } else {
            let parts = self.parts(r, id);
            let mut n = atomic;
            for set in parts {
                let sub: usize = set
                    .iter()
                    .map(|&s| self.formula_size(r - 1, s, fragment, memo))
                    .fold(0, usize::saturating_add);
                let copies = if fragment == Fragment::ExistentialGuarded {
                    1
                } else {
                    2
                };
                n = n.saturating_add(sub.saturating_mul(copies) + 3);
            }
            n
        };
        memo.insert((r, id), n);
        n
    }

    /// The type `id` of rank `r` as a formula in NNF (but for `->` under
    /// `all`, whose left side is a guard) whose free variables are `vars`
    /// (one name per position). Bound variables get fresh names from
    /// `fresh`, so no name is bound twice.
    ///
    /// The rank `r - 1` type of the tuple itself is not repeated: the sets
    /// of successor types of rank `r - 1` imply it, so the atomic type and
    /// the parts of rank `r` are the whole type.
    pub fn formula(
        &self,
        r: usize,
        id: u32,
        fragment: Fragment,
        vars: &[String],
        fresh: &mut Fresh,
    ) -> Formula {
        let mut conj = self.atomic_literals(self.atomic_of(r, id), vars);
        if r == 0 {
            return Formula::And(conj);
        }
        for (part, set) in self.parts(r, id).into_iter().enumerate() {
            let quantified: Vec<usize> = if self.guarded {
                let g = &self.guards[part];
                (0..self.k)
                    .filter(|&v| g.quantified & (1 << v) != 0)
                    .collect()
            } else {
                vec![part]
            };
            // The names inside one quantifier, and the guard over them.
            let scope = |fresh: &mut Fresh| {
                let mut inner = vars.to_vec();
                let mut bound = Vec::new();
                for &v in &quantified {
                    inner[v] = fresh.name();
                    bound.push(Var::Element(inner[v].clone()));
                }
                let guard = self.guarded.then(|| {
                    let g = &self.guards[part];
                    Formula::Rel {
                        name: self.sig.symbols[g.rel].name.clone(),
                        args: g.vars.iter().map(|&v| inner[v as usize].clone()).collect(),
                    }
                });
                (inner, bound, guard)
            };
            if fragment != Fragment::ExistentialGuarded {
                let (inner, bound, guard) = scope(fresh);
                let alts: Vec<Formula> = set
                    .iter()
                    .map(|&s| self.formula(r - 1, s, fragment, &inner, fresh))
                    .collect();
                conj.push(match guard {
                    Some(g) if alts.is_empty() => Formula::Not(Box::new(Formula::Exists {
                        vars: bound,
                        body: Box::new(g),
                    })),
                    Some(g) => Formula::Forall {
                        vars: bound,
                        body: Box::new(Formula::Implies(Box::new(g), Box::new(Formula::Or(alts)))),
                    },
                    None => Formula::Forall {
                        vars: bound,
                        body: Box::new(Formula::Or(alts)),
                    },
                });
            }
            for &s in set {
                let (inner, bound, guard) = scope(fresh);
                let body = self.formula(r - 1, s, fragment, &inner, fresh);
                let body = match guard {
                    Some(g) => Formula::And(vec![g, body]),
                    None => body,
                };
                conj.push(Formula::Exists {
                    vars: bound,
                    body: Box::new(body),
                });
            }
        }
        Formula::And(conj)
    }

    /// How many binary atoms of atomic type `id` (rank 0) hold from the
    /// second variable to the first: of a pair type and its reverse, which
    /// separate alike under `TC^m`, the one read forwards is preferred.
    pub fn backward_atoms(&self, id: u32) -> usize {
        let key = &self.ranks[0].interner.keys[id as usize];
        self.slots
            .iter()
            .enumerate()
            .filter(|(i, slot)| {
                key[i / 32] & (1 << (i % 32)) != 0
                    && matches!(slot, Slot::Rel { vars, .. } if vars[..] == [1, 0])
            })
            .count()
    }

    /// The literals of atomic type `id`: relation atoms first, then
    /// equalities, each positive or negated.
    fn atomic_literals(&self, id: u32, vars: &[String]) -> Vec<Formula> {
        let key = &self.ranks[0].interner.keys[id as usize];
        self.slots
            .iter()
            .enumerate()
            .map(|(i, slot)| {
                let atom = match slot {
                    Slot::Rel { rel, vars: vs } => Formula::Rel {
                        name: self.sig.symbols[*rel].name.clone(),
                        args: vs.iter().map(|&v| vars[v as usize].clone()).collect(),
                    },
                    Slot::Eq(a, b) => {
                        Formula::Eq(vars[*a as usize].clone(), vars[*b as usize].clone())
                    }
                };
                if key[i / 32] & (1 << (i % 32)) != 0 {
                    atom
                } else {
                    Formula::Not(Box::new(atom))
                }
            })
            .collect()
    }
}

/// Fresh variable names `x0`, `x1`, ...
#[derive(Default)]
pub struct Fresh {
    next: usize,
}

impl Fresh {
    pub fn name(&mut self) -> String {
        self.next += 1;
        format!("x{}", self.next - 1)
    }
}

/// The guards over `k` variables (spec 4.3.2): a relation atom over some
/// variables that contains all the requantified ones and at least one that
/// stays.
fn guards(sig: &Signature, k: usize) -> Vec<Guard> {
    let mut out = Vec::new();
    for quantified in 1..(1u32 << k) - 1 {
        for (rel, sym) in sig.symbols.iter().enumerate() {
            for m in 0..k.pow(sym.arity as u32) {
                let vars: Vec<u8> = (0..sym.arity)
                    .map(|p| ((m / k.pow(p as u32)) % k) as u8)
                    .collect();
                let image = vars.iter().fold(0u32, |acc, &v| acc | 1 << v);
                if image & quantified == quantified && image & !quantified != 0 {
                    out.push(Guard {
                        quantified,
                        rel,
                        vars,
                    });
                }
            }
        }
    }
    out
}
