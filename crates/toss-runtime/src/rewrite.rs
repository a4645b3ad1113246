//! Structure rewriting (spec 1.1), compiled once per rule.
//!
//! A [`CompiledRule`] is built from an [`ir::Rule`] against the game
//! signature (a structure that declares every relation and function): names
//! are resolved to ids, the exactness conditions of `emb` relations are
//! expanded into a list of forbidden tuples, and a join order for matching is
//! chosen once.
//!
//! **Matching.** A match is a (tau_e, tau_h)-embedding sigma of the left side
//! L into the structure A: injective (except for the pairs listed in
//! `nondistinct`), positive on every relation (each tuple of L is in A), and
//! exact on the `emb` relations: for every tuple over the left elements of
//! such a relation that L does *not* list, its image must not be in A.
//! Optional tuples (`_opt_R`) may or may not be present; a match records, as
//! a bit mask, which ones were (an optional tuple of the right side is added
//! iff its counterpart on the left was present). Tuples of *defined*
//! relations on the left side are not matched here: they are constraints,
//! which [`CompiledRule::defined_constraints`] hands to the caller to add to
//! the precondition. Function values written on the left side are ignored.
//!
//! Matches are enumerated by backtracking along the join order; the public
//! enumeration [`CompiledRule::matches`] returns them in canonical order:
//! lexicographic by the element ids of the left elements in declaration
//! order.
//!
//! **Application** ([`CompiledRule::apply`]) computes
//! `A[L ->_s R / sigma]` in place:
//! - a right element `b` with `s(b)` defined *reuses* the id and name of
//!   `sigma(s(b))` (identity is preserved across moves); if several right
//!   elements map to one element, the first in declaration order reuses it
//!   and the others are fresh copies; right elements without `s(b)` are new
//!   elements, named after the right-side name (made fresh);
//! - matched elements that no right element reuses are deleted;
//! - relations: a tuple of A survives, mapped through the reuse, unless it is
//!   an `emb` relation tuple whose elements are all matched (those are
//!   replaced by the right side's tuples); copies receive the tuples of
//!   their source the same way; then R's tuples are added;
//! - functions: update equations (values computed by the caller, see
//!   [`CompiledRule::update_targets`]) and function literals of the right
//!   side set right elements' values; otherwise reused elements keep theirs,
//!   copies take their source's values and new elements have 0.
//!
//! Compiling a rule is in `compile`, the matching of several rules together
//! in `forest`.
//!
//! [`ir::Rule`]: toss_core::ir::Rule

use std::cell::{Cell, RefCell};

use toss_core::structure::{BitSet, Elem, FunId, RelId, Structure};

/// An error in a rule that makes it impossible to compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RewriteError {
    pub message: String,
}

impl std::fmt::Display for RewriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RewriteError {}

fn err<T>(message: String) -> Result<T, RewriteError> {
    Err(RewriteError { message })
}

/// A match of a rule's left side: `elems[i]` is the image of the `i`-th left
/// element (declaration order); bit `j` of `optional` is set iff the `j`-th
/// optional tuple of the left side (in source order) is present.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Match {
    pub elems: Elems,
    pub optional: u64,
}

/// Inline capacity of [`Elems`].
const INLINE_ELEMS: usize = 6;

/// The element images of a match: a slice stored inline when short (left
/// sides of board games have one to four elements), so that generating a
/// move allocates nothing for them. Behaves as `[Elem]` (`Deref`); equality,
/// order and hashing are those of the slice.
#[derive(Clone)]
pub struct Elems(ElemsRepr);

#[derive(Clone)]
enum ElemsRepr {
    Inline(u8, [Elem; INLINE_ELEMS]),
    Heap(Vec<Elem>),
}

impl From<&[Elem]> for Elems {
    fn from(v: &[Elem]) -> Self {
        if v.len() <= INLINE_ELEMS {
            let mut a = [0; INLINE_ELEMS];
            a[..v.len()].copy_from_slice(v);
            Elems(ElemsRepr::Inline(v.len() as u8, a))
        } else {
            Elems(ElemsRepr::Heap(v.to_vec()))
        }
    }
}

impl From<Vec<Elem>> for Elems {
    fn from(v: Vec<Elem>) -> Self {
        if v.len() <= INLINE_ELEMS {
            Elems::from(&v[..])
        } else {
            Elems(ElemsRepr::Heap(v))
        }
    }
}

impl std::ops::Deref for Elems {
    type Target = [Elem];
    #[inline]
    fn deref(&self) -> &[Elem] {
        match &self.0 {
            ElemsRepr::Inline(n, a) => &a[..*n as usize],
            ElemsRepr::Heap(v) => v,
        }
    }
}

impl<'a> IntoIterator for &'a Elems {
    type Item = &'a Elem;
    type IntoIter = std::slice::Iter<'a, Elem>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Elems {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}
impl Eq for Elems {}
impl PartialOrd for Elems {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Elems {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}
impl std::hash::Hash for Elems {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (**self).hash(h)
    }
}
impl std::fmt::Debug for Elems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// A tuple over left (or right) element indices.
#[derive(Clone, Debug)]
struct Tup {
    rel: RelId,
    args: Vec<usize>,
}

/// Where the candidates of one element come from during matching.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Source {
    /// Every live element.
    All,
    /// The members of a unary relation.
    Unary(RelId),
    /// Successors of an already bound left element in a binary relation.
    Succ(RelId, usize),
    /// Predecessors of an already bound left element in a binary relation.
    Pred(RelId, usize),
}

/// One step of the join order: bind `elem` from `source`, then check.
#[derive(Clone, Debug)]
struct Step {
    elem: usize,
    source: Source,
    /// Indices into `required` that become fully bound at this step.
    checks: Vec<usize>,
    /// Indices into `forbidden` that become fully bound at this step.
    forbidden: Vec<usize>,
    /// Earlier-bound left elements this one must differ from.
    distinct_from: Vec<usize>,
    /// `(relation, wanted)`: the unary tuples on `elem` among `checks`
    /// (wanted present) and `forbidden` (wanted absent; only without
    /// nondistinct pairs), and the source's relation when it is unary.
    /// Matching intersects them into one candidate mask per step and state
    /// (see [`StepMasks`]). Exactness makes these the most common checks
    /// (`emb W, B`: the target is neither).
    unary: Vec<(RelId, bool)>,
}

/// Per matcher step, the live elements that pass the step's unary checks,
/// computed when an enumeration first reaches the step: a candidate then
/// costs one bit test instead of a look-up per unary relation. (Steps that
/// are never reached, as in rules whose first element has no candidate,
/// cost nothing.)
struct StepMasks<'a> {
    rule: &'a CompiledRule,
    s: &'a Structure,
    /// Words per step.
    nw: usize,
    /// Per step: a word that is 1 once the mask is computed, then the mask.
    words: Vec<Cell<u64>>,
}

impl<'a> StepMasks<'a> {
    /// Masks in the buffer `words`.
    fn new(rule: &'a CompiledRule, s: &'a Structure, mut words: Vec<Cell<u64>>) -> StepMasks<'a> {
        let nw = s.live().words().len();
        words.clear();
        words.resize((nw + 1) * rule.steps.len(), Cell::new(0));
        StepMasks { rule, s, nw, words }
    }

    /// The mask of step `depth`.
    #[inline]
    fn of(&self, depth: usize) -> &[Cell<u64>] {
        let start = depth * (self.nw + 1);
        let mask = &self.words[start + 1..start + 1 + self.nw];
        if self.words[start].get() == 0 {
            self.words[start].set(1);
            self.compute(depth, mask);
        }
        mask
    }

    /// Fills `mask` with the live elements passing step `depth`'s unary
    /// checks.
    #[inline(never)]
    fn compute(&self, depth: usize, mask: &[Cell<u64>]) {
        fill_unary_mask(self.s, &self.rule.steps[depth].unary, mask);
    }
}

/// Fills `mask` with the live elements of `s` that are in (`true`) or out
/// of (`false`) each unary relation of `unary`, word by word (one pass over
/// the relations per word). The candidate mask of a matcher step, shared by
/// single rules ([`StepMasks`]) and prefix forests.
fn fill_unary_mask(s: &Structure, unary: &[(RelId, bool)], mask: &[Cell<u64>]) {
    let live = s.live().words();
    for (i, m) in mask.iter().enumerate() {
        let mut w = live.get(i).copied().unwrap_or(0);
        for &(r, want) in unary {
            if w == 0 {
                break;
            }
            let b = s
                .unary(r)
                .and_then(|b| b.words().get(i).copied())
                .unwrap_or(0);
            w &= if want { b } else { !b };
        }
        m.set(w);
    }
}

/// The buffers of one enumeration, kept per thread between enumerations
/// (matching runs for every rule in every state; allocating them each time
/// cost more than matching the rules that have no match).
#[derive(Default)]
struct Scratch {
    assign: Vec<Elem>,
    buf: Vec<Elem>,
    masks: Vec<Cell<u64>>,
}

thread_local! {
    static SCRATCH: RefCell<Vec<Scratch>> = const { RefCell::new(Vec::new()) };
    static APPLY_SCRATCH: RefCell<Vec<ApplyScratch>> = const { RefCell::new(Vec::new()) };
}

/// The buffers of one rule application ([`CompiledRule::apply_into`]).
#[derive(Default)]
struct ApplyScratch {
    matched: Vec<Elem>,
    claimed: Vec<Elem>,
    doomed: Vec<Elem>,
    buf: Vec<Elem>,
}

#[inline]
fn words_contain(w: &[Cell<u64>], e: Elem) -> bool {
    let i = e as usize;
    i / 64 < w.len() && w[i / 64].get() >> (i % 64) & 1 == 1
}

/// The members of a set given as words, in increasing order.
fn word_members(w: &[Cell<u64>]) -> impl Iterator<Item = Elem> + '_ {
    w.iter().enumerate().flat_map(|(wi, w)| {
        let mut w = w.get();
        std::iter::from_fn(move || {
            if w == 0 {
                return None;
            }
            let b = w.trailing_zeros();
            w &= w - 1;
            Some(wi as Elem * 64 + b)
        })
    })
}

/// A tuple of the right side.
#[derive(Clone, Debug)]
struct RhsTuple {
    tup: Tup,
    /// For an optional tuple: the index of the left optional tuple it
    /// depends on.
    depends_on: Option<usize>,
}

/// A rule compiled against a signature.
#[derive(Clone, Debug)]
pub struct CompiledRule {
    name: String,
    lhs_names: Vec<String>,
    rhs_names: Vec<String>,
    /// Required tuples of L over signature relations.
    required: Vec<Tup>,
    /// Optional tuples of L (bit `j` of a match's mask).
    optional: Vec<Tup>,
    /// Tuples over emb relations that L does not list (exactness).
    forbidden: Vec<Tup>,
    /// Arity-0 required / forbidden tuples, checked once per structure.
    nullary_required: Vec<RelId>,
    nullary_forbidden: Vec<RelId>,
    /// Tuples of defined relations on the left side (constraints).
    defined: Vec<(String, Vec<String>)>,
    /// `emb_mask[r]`: relation `r` is matched exactly.
    emb_mask: Vec<bool>,
    emb: Vec<RelId>,
    has_nondistinct: bool,
    steps: Vec<Step>,
    /// Join order is declaration order (no sorting needed).
    ordered: bool,
    /// s: right element -> left element.
    s_map: Vec<Option<usize>>,
    rhs: Vec<RhsTuple>,
    rhs_fun_literals: Vec<(FunId, usize, f64)>,
    /// `(function, right element)` of each update equation, in order.
    updates: Vec<(FunId, usize)>,
}

impl CompiledRule {
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Left element names in declaration order (the constants of `pre`).
    pub fn lhs_names(&self) -> &[String] {
        &self.lhs_names
    }

    /// Right element names in declaration order (the constants of `post`).
    pub fn rhs_names(&self) -> &[String] {
        &self.rhs_names
    }

    /// Tuples of defined relations on the left side, as `(relation, left
    /// element names)`: the caller must check them with the solver (they
    /// are part of the precondition).
    pub fn defined_constraints(&self) -> &[(String, Vec<String>)] {
        &self.defined
    }

    /// `(function, right element index)` set by each update equation, in the
    /// order of `ir::Rule::update`; [`apply`](Self::apply) takes their
    /// values in this order.
    pub fn update_targets(&self) -> &[(FunId, usize)] {
        &self.updates
    }

    fn holds(&self, s: &Structure, t: &Tup, assign: &[Elem], buf: &mut Vec<Elem>) -> bool {
        buf.clear();
        buf.extend(t.args.iter().map(|&a| assign[a]));
        s.contains(t.rel, buf)
    }

    /// Whether forbidden tuple `t` is violated; with nondistinct pairs, an
    /// image that equals the image of a listed tuple is allowed.
    fn violates(&self, s: &Structure, t: &Tup, assign: &[Elem], buf: &mut Vec<Elem>) -> bool {
        if !self.holds(s, t, assign, buf) {
            return false;
        }
        if self.has_nondistinct {
            let same = |l: &Tup| {
                l.rel == t.rel
                    && l.args
                        .iter()
                        .zip(&t.args)
                        .all(|(&x, &y)| assign[x] == assign[y])
            };
            if self.required.iter().chain(self.optional.iter()).any(same) {
                return false;
            }
        }
        true
    }

    /// Calls `f(elems, optional_mask)` for every match, in join order (not
    /// canonical), until `f` returns `false`. Returns `false` iff stopped.
    pub fn for_each_match(&self, s: &Structure, f: impl FnMut(&[Elem], u64) -> bool) -> bool {
        self.for_each_match_filtered(s, |_, _| None, f)
    }

    /// The left elements in the order the matcher binds them (step `k`
    /// binds element `join_order()[k]`).
    pub fn join_order(&self) -> Vec<usize> {
        self.steps.iter().map(|st| st.elem).collect()
    }

    /// As [`CompiledRule::for_each_match`], where before step `k` binds its
    /// element, `filter(k, assignment so far)` may return the set of
    /// elements it may take (a precondition evaluated set at a time): the
    /// others are skipped.
    pub fn for_each_match_filtered(
        &self,
        s: &Structure,
        mut filter: impl FnMut(usize, &[Elem]) -> Option<BitSet>,
        mut f: impl FnMut(&[Elem], u64) -> bool,
    ) -> bool {
        if self.nullary_required.iter().any(|&r| !s.contains(r, &[]))
            || self.nullary_forbidden.iter().any(|&r| s.contains(r, &[]))
        {
            return true;
        }
        if let Some(mut cands) = self.unary_candidates(s) {
            if let Some(set) = filter(0, &[0]) {
                let w = cands.words_mut();
                for (i, x) in w.iter_mut().enumerate() {
                    *x &= set.words().get(i).copied().unwrap_or(0);
                }
            }
            return cands.iter().all(|c| f(&[c], 0));
        }
        let mut sc = SCRATCH.with(|p| p.borrow_mut().pop()).unwrap_or_default();
        sc.assign.clear();
        sc.assign.resize(self.lhs_names.len(), 0);
        let masks = StepMasks::new(self, s, std::mem::take(&mut sc.masks));
        let found = self.extend(
            s,
            &masks,
            0,
            &mut sc.assign,
            &mut sc.buf,
            &mut filter,
            &mut f,
        );
        sc.masks = masks.words;
        SCRATCH.with(|p| p.borrow_mut().push(sc));
        found
    }

    /// For a rule whose left side is one element constrained by unary
    /// tuples only (placement rules: `[a | P:1 {} | ] emb P, Q`), its
    /// matches as one bitset computed with word operations, in the order
    /// `extend` would list them (increasing ids). `None` for other rules.
    fn unary_candidates(&self, s: &Structure) -> Option<BitSet> {
        let [step] = &self.steps[..] else {
            return None;
        };
        if !step.checks.is_empty()
            || !step.forbidden.is_empty()
            || !step.distinct_from.is_empty()
            || !self.optional.is_empty()
        {
            return None;
        }
        if matches!(step.source, Source::Succ(..) | Source::Pred(..)) {
            return None;
        }
        let mut words = s.live().words().to_vec();
        for &(r, want) in &step.unary {
            let set = s.unary(r).map_or(&[][..], |b| b.words());
            for (i, w) in words.iter_mut().enumerate() {
                let b = set.get(i).copied().unwrap_or(0);
                *w &= if want { b } else { !b };
            }
        }
        let mut out = BitSet::new();
        *out.words_mut() = words;
        Some(out)
    }

    #[allow(clippy::too_many_arguments)]
    fn extend(
        &self,
        s: &Structure,
        masks: &StepMasks<'_>,
        depth: usize,
        assign: &mut Vec<Elem>,
        buf: &mut Vec<Elem>,
        filter: &mut impl FnMut(usize, &[Elem]) -> Option<BitSet>,
        f: &mut impl FnMut(&[Elem], u64) -> bool,
    ) -> bool {
        let Some(step) = self.steps.get(depth) else {
            let mut mask = 0u64;
            for (j, t) in self.optional.iter().enumerate() {
                if self.holds(s, t, assign, buf) {
                    mask |= 1 << j;
                }
            }
            return f(assign, mask);
        };
        let allowed = filter(depth, assign);
        let mask = masks.of(depth);
        let mut try_one = |c: Elem, assign: &mut Vec<Elem>, buf: &mut Vec<Elem>| -> bool {
            if !words_contain(mask, c)
                || step.distinct_from.iter().any(|&o| assign[o] == c)
                || allowed.as_ref().is_some_and(|set| !set.contains(c))
            {
                return true;
            }
            assign[step.elem] = c;
            if step
                .checks
                .iter()
                .any(|&i| !self.holds(s, &self.required[i], assign, buf))
            {
                return true;
            }
            if step
                .forbidden
                .iter()
                .any(|&i| self.violates(s, &self.forbidden[i], assign, buf))
            {
                return true;
            }
            self.extend(s, masks, depth + 1, assign, buf, filter, f)
        };
        match step.source {
            // The mask holds the live members of the source's relation.
            Source::All | Source::Unary(_) => {
                for c in word_members(mask) {
                    if !try_one(c, assign, buf) {
                        return false;
                    }
                }
            }
            Source::Succ(r, from) => {
                for &c in s.successors(r, assign[from]) {
                    if !try_one(c, assign, buf) {
                        return false;
                    }
                }
            }
            Source::Pred(r, from) => {
                for &c in s.predecessors(r, assign[from]) {
                    if !try_one(c, assign, buf) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// All matches in canonical order (appended to `out`, which is cleared).
    /// False when there are more than [`MATCHES_PER_RULE`] (`out` then
    /// holds some of them only).
    ///
    /// [`MATCHES_PER_RULE`]: toss_core::limits::MATCHES_PER_RULE
    pub fn matches(&self, s: &Structure, out: &mut Vec<Match>) -> bool {
        self.matches_where(s, out, |_, _| None, |_| true)
    }

    /// The matches whose element images pass `keep`, with the candidates
    /// of each step restricted by `filter` (see
    /// [`CompiledRule::for_each_match_filtered`]), in the order of
    /// [`CompiledRule::matches`]. False when the matcher found more than
    /// [`MATCHES_PER_RULE`] matches (kept or not): the enumeration stops
    /// there, so neither time nor `out` grows past the limit.
    ///
    /// [`MATCHES_PER_RULE`]: toss_core::limits::MATCHES_PER_RULE
    pub fn matches_where(
        &self,
        s: &Structure,
        out: &mut Vec<Match>,
        filter: impl FnMut(usize, &[Elem]) -> Option<BitSet>,
        mut keep: impl FnMut(&[Elem]) -> bool,
    ) -> bool {
        out.clear();
        let mut left = toss_core::limits::MATCHES_PER_RULE.value;
        let complete = self.for_each_match_filtered(s, filter, |elems, optional| {
            if left == 0 {
                return false;
            }
            left -= 1;
            if keep(elems) {
                out.push(Match {
                    elems: elems.into(),
                    optional,
                });
            }
            true
        });
        if !self.ordered {
            out.sort_unstable();
        }
        complete
    }

    /// The optional-tuple mask of a match given by its element images (bit
    /// `j` set iff the `j`-th optional left tuple is present), as
    /// enumeration computes it.
    pub fn optional_mask(&self, s: &Structure, elems: &[Elem]) -> u64 {
        let mut buf = Vec::with_capacity(4);
        let mut mask = 0u64;
        for (j, t) in self.optional.iter().enumerate() {
            if self.holds(s, t, elems, &mut buf) {
                mask |= 1 << j;
            }
        }
        mask
    }

    /// Whether there is at least one match.
    pub fn has_match(&self, s: &Structure) -> bool {
        !self.for_each_match(s, |_, _| false)
    }

    /// Applies the rule on match `m` in place and returns the element of the
    /// result that each right element became. `update_values[i]` is the new
    /// value for `update_targets()[i]`.
    pub fn apply(&self, s: &mut Structure, m: &Match, update_values: &[f64]) -> Vec<Elem> {
        let mut rimg = Vec::with_capacity(self.rhs_names.len());
        self.apply_into(s, m, update_values, &mut rimg);
        rimg
    }

    /// [`CompiledRule::apply`], writing the images of the right elements
    /// into `rimg` (cleared first); its working buffers are kept per thread
    /// (a rule is applied once per ply of every playout).
    pub fn apply_into(
        &self,
        s: &mut Structure,
        m: &Match,
        update_values: &[f64],
        rimg: &mut Vec<Elem>,
    ) {
        let mut sc = APPLY_SCRATCH
            .with(|p| p.borrow_mut().pop())
            .unwrap_or_default();
        self.apply_buffered(s, m, update_values, rimg, &mut sc);
        APPLY_SCRATCH.with(|p| p.borrow_mut().push(sc));
    }

    fn apply_buffered(
        &self,
        s: &mut Structure,
        m: &Match,
        update_values: &[f64],
        rimg: &mut Vec<Elem>,
        sc: &mut ApplyScratch,
    ) {
        debug_assert_eq!(m.elems.len(), self.lhs_names.len());
        let ApplyScratch {
            matched,
            claimed,
            doomed,
            buf,
        } = sc;
        matched.clear();
        matched.extend_from_slice(&m.elems);
        matched.sort_unstable();
        matched.dedup();
        let matched = &matched[..];
        let in_matched = |e: Elem, matched: &[Elem]| matched.binary_search(&e).is_ok();

        // Images of right elements.
        claimed.clear();
        rimg.clear();
        let mut copies: Vec<(usize, Elem)> = Vec::new();
        for (b, src) in self.s_map.iter().enumerate() {
            match *src {
                Some(l) => {
                    let e = m.elems[l];
                    if claimed.contains(&e) {
                        let c = s.add_fresh_element(&self.rhs_names[b]);
                        copies.push((b, e));
                        rimg.push(c);
                    } else {
                        claimed.push(e);
                        rimg.push(e);
                    }
                }
                None => rimg.push(s.add_fresh_element(&self.rhs_names[b])),
            }
        }

        // Copies receive the tuples of their sources (rare: s not injective
        // or nondistinct merges).
        if !copies.is_empty() {
            // Only fresh elements were added so far: the tuples are A's.
            let original = s.clone();
            self.copy_tuples(&original, s, m, matched, rimg);
            for &(b, src) in &copies {
                for f in 0..s.num_functions() {
                    let v = original.fun_value(f, src);
                    s.set_fun_value(f, rimg[b], v);
                }
            }
        }

        // Exact relations: tuples over matched elements are replaced.
        for &r in &self.emb {
            match s.arity(r) {
                0 => {
                    s.remove_tuple(r, &[]);
                }
                1 => s.remove_members(r, matched),
                2 => {
                    for &a in matched {
                        doomed.clear();
                        doomed.extend(
                            s.successors(r, a)
                                .iter()
                                .copied()
                                .filter(|&b| in_matched(b, matched)),
                        );
                        for &b in doomed.iter() {
                            s.remove_tuple(r, &[a, b]);
                        }
                    }
                }
                _ => {
                    let mut all: Vec<Vec<Elem>> = s.tuples(r);
                    all.retain(|t| t.iter().all(|&e| in_matched(e, matched)));
                    for t in all {
                        s.remove_tuple(r, &t);
                    }
                }
            }
        }

        // Deleted elements.
        for &e in matched {
            if !claimed.contains(&e) {
                s.remove_element(e);
            }
        }

        // Tuples of the right side.
        for t in &self.rhs {
            if let Some(j) = t.depends_on
                && m.optional >> j & 1 == 0
            {
                continue;
            }
            buf.clear();
            buf.extend(t.tup.args.iter().map(|&b| rimg[b]));
            s.add_tuple(t.tup.rel, buf);
        }

        // Function values.
        for &(f, b, v) in &self.rhs_fun_literals {
            s.set_fun_value(f, rimg[b], v);
        }
        for (&(f, b), &v) in self.updates.iter().zip(update_values) {
            s.set_fun_value(f, rimg[b], v);
        }
    }

    /// Adds to `s` every image of a tuple of `original` touching a matched
    /// element, with matched positions replaced by each of their right-side
    /// preimages (the general definition of spec 1.1).
    fn copy_tuples(
        &self,
        original: &Structure,
        s: &mut Structure,
        m: &Match,
        matched: &[Elem],
        rimg: &[Elem],
    ) {
        // preimages[e] for matched e: the right elements b with sigma(s(b)) = e.
        let pre = |e: Elem| -> Vec<Elem> {
            self.s_map
                .iter()
                .enumerate()
                .filter(|(_, l)| l.is_some_and(|l| m.elems[l] == e))
                .map(|(b, _)| rimg[b])
                .collect()
        };
        for r in 0..original.num_relations() {
            if original.arity(r) == 0 {
                continue;
            }
            let exact = self.emb_mask[r];
            for t in original.tuples(r) {
                if !t.iter().any(|e| matched.binary_search(e).is_ok()) {
                    continue;
                }
                if exact && t.iter().all(|e| matched.binary_search(e).is_ok()) {
                    continue;
                }
                let choices: Vec<Vec<Elem>> = t
                    .iter()
                    .map(|&e| {
                        if matched.binary_search(&e).is_ok() {
                            pre(e)
                        } else {
                            vec![e]
                        }
                    })
                    .collect();
                if choices.iter().any(|c| c.is_empty()) {
                    continue;
                }
                let mut idx = vec![0usize; t.len()];
                'odometer: loop {
                    let tuple: Vec<Elem> = idx.iter().zip(&choices).map(|(&i, c)| c[i]).collect();
                    s.add_tuple(r, &tuple);
                    let mut p = t.len();
                    loop {
                        if p == 0 {
                            break 'odometer;
                        }
                        p -= 1;
                        idx[p] += 1;
                        if idx[p] < choices[p].len() {
                            break;
                        }
                        idx[p] = 0;
                    }
                }
            }
        }
    }
}

/// Chooses the join order: repeatedly the unbound element with the fewest
/// estimated candidates (a successor/predecessor list of a bound element,
/// the smallest unary relation on it, or all elements), estimated from the
/// relation sizes of `sig`; ties go to declaration order.
fn plan(
    sig: &Structure,
    nl: usize,
    required: &[Tup],
    forbidden: &[Tup],
    may_merge: &[bool],
    has_nondistinct: bool,
) -> Vec<Step> {
    let n = sig.num_elements().max(1) as f64;
    let mut bound = vec![false; nl];
    let mut steps: Vec<Step> = Vec::with_capacity(nl);
    for _ in 0..nl {
        let mut best: Option<(f64, usize, Source, Option<usize>)> = None;
        for x in 0..nl {
            if bound[x] {
                continue;
            }
            let mut cost = n;
            let mut source = Source::All;
            // The required tuple the source enumerates (holds by
            // construction, so it is not checked again).
            let mut source_tuple = None;
            for (i, t) in required.iter().enumerate() {
                if !t.args.contains(&x) {
                    continue;
                }
                let len = sig.relation_len(t.rel) as f64;
                if t.args.len() == 1 {
                    if len < cost {
                        cost = len;
                        source = Source::Unary(t.rel);
                        source_tuple = Some(i);
                    }
                } else if t.args.len() == 2 {
                    let avg = (len / n).max(1.0);
                    if t.args[0] != x && bound[t.args[0]] && t.args[1] == x && avg < cost {
                        cost = avg;
                        source = Source::Succ(t.rel, t.args[0]);
                        source_tuple = Some(i);
                    } else if t.args[1] != x && bound[t.args[1]] && t.args[0] == x && avg < cost {
                        cost = avg;
                        source = Source::Pred(t.rel, t.args[1]);
                        source_tuple = Some(i);
                    }
                }
            }
            if best.as_ref().is_none_or(|b| cost < b.0) {
                best = Some((cost, x, source, source_tuple));
            }
        }
        let Some((_, x, source, source_tuple)) = best else {
            break;
        };
        bound[x] = true;
        let newly = |args: &[usize]| args.contains(&x) && args.iter().all(|&a| bound[a]);
        let checks = (0..required.len())
            .filter(|&i| newly(&required[i].args) && Some(i) != source_tuple)
            .collect();
        let forb = (0..forbidden.len())
            .filter(|&i| newly(&forbidden[i].args))
            .collect();
        let distinct_from = steps
            .iter()
            .map(|s| s.elem)
            .filter(|&o| !may_merge[o * nl + x])
            .collect();
        let is_unary = |t: &Tup| t.args.len() == 1 && sig.arity(t.rel) == 1;
        let mut unary = Vec::new();
        let mut checks: Vec<usize> = checks;
        let mut forb: Vec<usize> = forb;
        checks.retain(|&i| {
            let keep = !is_unary(&required[i]);
            if !keep {
                unary.push((required[i].rel, true));
            }
            keep
        });
        if let Source::Unary(r) = source {
            unary.push((r, true));
        }
        if !has_nondistinct {
            forb.retain(|&i| {
                let keep = !is_unary(&forbidden[i]);
                if !keep {
                    unary.push((forbidden[i].rel, false));
                }
                keep
            });
        }
        steps.push(Step {
            elem: x,
            source,
            checks,
            forbidden: forb,
            distinct_from,
            unary,
        });
    }
    steps
}

mod compile;
mod forest;
pub use forest::MatchForest;

#[cfg(test)]
pub(crate) mod tests;
