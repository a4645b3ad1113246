//! Move generation (spec 1.4): the matches of each label that pass `pre`
//! and `post`, per time/parameter choice and multiplicity, labels matched
//! together in forests, and the per-state cache of independent
//! preconditions.

use super::{ANY_MOVES_LIMIT, Interpreter, LabelForest, LabelInfo, Matches, Move, RuleInfo, State};
use crate::rewrite::{CompiledRule, Match};
use crate::solver::{FormulaId, SetMemo};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use toss_core::ir::Multiplicity;
use toss_core::limits::{LEGAL_MOVES_PER_STATE, MATCHES_PER_RULE};
use toss_core::structure::{BitSet, Elem, Structure};

impl Interpreter {
    /// Whether match `m` of rule `ri` passes the match-dependent part of
    /// `pre` and `post`.
    pub(super) fn match_ok(
        &self,
        ri: &RuleInfo,
        s: &Structure,
        elems: &[Elem],
        opt: u64,
        params: &[f64],
    ) -> bool {
        self.match_ok_with(ri, s, elems, opt, params, true, &mut SetMemo::default())
    }

    /// [`Interpreter::match_ok`], checking `post` only if `with_post` (a
    /// label of multiplicity `Any` checks it per set of matches).
    /// `memo`: the values of the current state's structure-only parts.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn match_ok_with(
        &self,
        ri: &RuleInfo,
        s: &Structure,
        elems: &[Elem],
        opt: u64,
        params: &[f64],
        with_post: bool,
        memo: &mut SetMemo,
    ) -> bool {
        if let Some(pre) = ri.pre
            && !self.solver.holds_memo(s, pre, elems, params, memo)
        {
            return false;
        }
        // With dynamics, `post` is checked after the evolution.
        if let Some(post) = ri.post
            && ri.cont.is_none()
            && with_post
        {
            let m = Match {
                elems: elems.into(),
                optional: opt,
            };
            // The update values, in a per-thread buffer (this runs per
            // candidate move).
            let mut vals = UPDATE_VALUES.with(|b| std::mem::take(&mut *b.borrow_mut()));
            vals.clear();
            vals.extend(
                ri.updates
                    .iter()
                    .map(|&u| self.solver.value(s, u, elems, params)),
            );
            // The candidate's result is built in a per-thread copy of `s`
            // that is restored, not cloned, for each candidate.
            let mut t = POST_SCRATCH
                .with(|c| c.borrow_mut().take())
                .unwrap_or_default();
            t.restore_from(s);
            let ok = IMAGES.with(|b| {
                let img = &mut b.borrow_mut();
                ri.rule.apply_into(&mut t, &m, &vals, img);
                self.solver.holds(&t, post, img, params)
            });
            POST_SCRATCH.with(|c| *c.borrow_mut() = Some(t));
            UPDATE_VALUES.with(|b| *b.borrow_mut() = vals);
            return ok;
        }
        true
    }

    /// Whether `post` of rule `ri` holds for every match of `set` in the
    /// structure after all of them are applied to `s` (in order, with the
    /// update terms evaluated in `s`, as [`Game::apply`](toss_core::game::Game::apply) does).
    pub(super) fn set_post_ok(
        &self,
        ri: &RuleInfo,
        s: &Structure,
        set: &[Match],
        params: &[f64],
    ) -> bool {
        let (Some(post), None) = (ri.post, &ri.cont) else {
            return true;
        };
        let mut t = s.clone();
        let mut images: Vec<Vec<Elem>> = Vec::with_capacity(set.len());
        for m in set {
            let vals: Vec<f64> = ri
                .updates
                .iter()
                .map(|&u| self.solver.value(s, u, &m.elems, params))
                .collect();
            let mut img = Vec::new();
            ri.rule.apply_into(&mut t, m, &vals, &mut img);
            images.push(img);
        }
        images
            .iter()
            .all(|img| self.solver.holds(&t, post, img, params))
    }

    pub(super) fn independent_pre_ok(
        &self,
        ri: &RuleInfo,
        s: &Structure,
        params: &[f64],
        cache: &mut PreCache,
    ) -> bool {
        match ri.pre_state {
            Some(pre) => {
                if let Some(&(_, _, v)) = cache
                    .0
                    .iter()
                    .find(|(f, ps, _)| *f == pre && ps[..] == *params)
                {
                    return v;
                }
                let v = self.solver.holds(s, pre, &[], params);
                cache.0.push((pre, params.to_vec(), v));
                v
            }
            None => true,
        }
    }

    /// The elements matcher step `k` of rule `ri` may bind, given the
    /// elements bound before: the intersection of the step's set-at-a-time
    /// conjuncts of `pre` (`None`: no restriction).
    pub(super) fn step_set(
        &self,
        ri: &RuleInfo,
        s: &Structure,
        k: usize,
        assign: &[Elem],
        params: &[f64],
        memo: &mut StepSets,
    ) -> Option<BitSet> {
        let mut out: Option<BitSet> = None;
        for (f, consts) in ri.step_sets.get(k)? {
            let set = if consts.len() <= 3 && params.is_empty() {
                // The common case, without an allocation: a conjunct and
                // up to three bound elements in one word.
                let mut key = u128::from(f.0);
                for (j, &i) in consts.iter().enumerate() {
                    key |= u128::from(assign[i]) << (32 * (j + 1));
                }
                memo.2.get_or_insert_with(key, |_| {
                    let cs: Vec<Elem> = consts.iter().map(|&i| assign[i]).collect();
                    self.solver.set_of_memo(s, *f, &cs, params, &mut memo.0)
                })
            } else {
                let key = StepKey(
                    *f,
                    consts.iter().map(|&i| assign[i]).collect(),
                    params.iter().map(|p| p.to_bits()).collect(),
                );
                memo.1.get_or_insert_with(key, |key| {
                    self.solver.set_of_memo(s, *f, &key.1, params, &mut memo.0)
                })
            };
            out = Some(match out {
                None => set,
                Some(mut acc) => {
                    for (i, w) in acc.words_mut().iter_mut().enumerate() {
                        *w &= set.words().get(i).copied().unwrap_or(0);
                    }
                    acc
                }
            });
        }
        out
    }

    pub(super) fn has_legal_move(&self, s: &State, player: usize, cache: &mut PreCache) -> bool {
        let loc = &self.locations[s.location];
        for (li, label) in loc.labels[player].iter().enumerate() {
            let ri = &self.rules[label.rule];
            if label.multiplicity == Multiplicity::Any && ri.post.is_some() && ri.cont.is_none() {
                // A set may pass `post` where no single match does.
                let mut moves = Vec::new();
                self.label_moves(s, li, label, &mut moves, cache);
                if !moves.is_empty() {
                    return true;
                }
                continue;
            }
            for (_, params) in &label.choices {
                if !self.independent_pre_ok(ri, &s.structure, params, cache) {
                    continue;
                }
                // The matches tried are counted: a rule whose matches all
                // fail `pre` must not be enumerated past the limit either.
                let mut left = MATCHES_PER_RULE.value;
                let mut over = false;
                let found = !ri.rule.for_each_match_filtered(
                    &s.structure,
                    |k, assign| self.step_set(ri, &s.structure, k, assign, params, &mut cache.1),
                    |elems, opt| {
                        if left == 0 {
                            over = true;
                            return false;
                        }
                        left -= 1;
                        !self.match_ok(ri, &s.structure, elems, opt, params)
                    },
                );
                if over {
                    self.too_many_matches(label.rule);
                    return false;
                }
                if found {
                    return true;
                }
            }
        }
        false
    }

    pub(super) fn label_moves(
        &self,
        s: &State,
        li: usize,
        label: &LabelInfo,
        out: &mut Vec<Move>,
        cache: &mut PreCache,
    ) {
        let ri = &self.rules[label.rule];
        let with_post = label.multiplicity != Multiplicity::Any;
        // The matches, computed at most once per label (choices without
        // set-at-a-time conjuncts share them).
        let mut all = MATCH_BUFFERS
            .with(|b| b.borrow_mut().pop())
            .unwrap_or_default();
        let mut have_all = false;
        let filtered = ri.pre.is_some() || ri.post.is_some();
        let last = label.choices.len().saturating_sub(1);
        for (ci, (time, params)) in label.choices.iter().enumerate() {
            if !self.independent_pre_ok(ri, &s.structure, params, cache) {
                continue;
            }
            if ri.step_sets.iter().any(|v| !v.is_empty()) {
                // Parts of `pre` restrict the matcher per choice: only
                // their matches are listed.
                if !ri.rule.matches_where(
                    &s.structure,
                    &mut all,
                    |k, assign| self.step_set(ri, &s.structure, k, assign, params, &mut cache.1),
                    |_| true,
                ) {
                    self.too_many_matches(label.rule);
                    break;
                }
                if filtered {
                    all.retain(|m| {
                        self.match_ok_with(
                            ri,
                            &s.structure,
                            &m.elems,
                            m.optional,
                            params,
                            with_post,
                            &mut cache.1.0,
                        )
                    });
                }
                self.push_moves(&s.structure, li, label, *time, params, &mut all, out);
                continue;
            }
            if !have_all {
                if !ri.rule.matches(&s.structure, &mut all) {
                    self.too_many_matches(label.rule);
                    break;
                }
                have_all = true;
            }
            if ci == last {
                // The last choice takes the list.
                if filtered {
                    all.retain(|m| {
                        self.match_ok_with(
                            ri,
                            &s.structure,
                            &m.elems,
                            m.optional,
                            params,
                            with_post,
                            &mut cache.1.0,
                        )
                    });
                }
                self.push_moves(&s.structure, li, label, *time, params, &mut all, out);
            } else {
                let mut ok: Vec<Match> = all
                    .iter()
                    .filter(|m| {
                        !filtered
                            || self.match_ok_with(
                                ri,
                                &s.structure,
                                &m.elems,
                                m.optional,
                                params,
                                with_post,
                                &mut cache.1.0,
                            )
                    })
                    .cloned()
                    .collect();
                self.push_moves(&s.structure, li, label, *time, params, &mut ok, out);
            }
        }
        all.clear();
        MATCH_BUFFERS.with(|b| b.borrow_mut().push(all));
    }

    /// The moves of label `li` for one choice of time and parameters, from
    /// the matches `ok` that pass `pre` and (but for `Any`) `post`, by
    /// multiplicity (`ok` is left empty).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_moves(
        &self,
        s: &Structure,
        li: usize,
        label: &LabelInfo,
        time: Option<f64>,
        params: &[f64],
        ok: &mut Vec<Match>,
        out: &mut Vec<Move>,
    ) {
        let mk = |matches: Matches| Move {
            label: li,
            matches,
            time,
            params: params.to_vec(),
        };
        match label.multiplicity {
            Multiplicity::One => out.extend(ok.drain(..).map(|m| mk(Matches::One(m)))),
            Multiplicity::All => {
                if !ok.is_empty() {
                    out.push(mk(Matches::Many(std::mem::take(ok))));
                }
            }
            Multiplicity::Any => {
                let mut sets = Vec::new();
                if !disjoint_sets(ok, 0, &mut Vec::new(), &mut sets) {
                    let ri = &self.rules[label.rule];
                    let _ = self.fault.set(format!(
                        "rule `{}` has multiplicity `*` and more than {ANY_MOVES_LIMIT} sets of \
                         pairwise disjoint matches here ({} matches): listing them all is out \
                         of reach",
                        ri.rule.name(),
                        ok.len()
                    ));
                    ok.clear();
                    return;
                }
                let ri = &self.rules[label.rule];
                for set in sets {
                    let set: Vec<Match> = set.iter().map(|&i| ok[i].clone()).collect();
                    if self.set_post_ok(ri, s, &set, params) {
                        out.push(mk(Matches::Many(set)));
                    }
                }
                ok.clear();
            }
        }
    }
}

/// Values of independent preconditions (sentences like `not WinQ()`) on one
/// state, per formula and parameter values: all labels of a state that share
/// a precondition evaluate it once.
/// It also keeps the state-only parts of the set-at-a-time conjuncts.
#[derive(Default)]
pub(super) struct PreCache(Vec<(FormulaId, Vec<f64>, bool)>, StepSets);

/// The set-at-a-time conjuncts evaluated on one state: the memo of their
/// state-only parts, and each value by formula, constants and parameters
/// (rules sharing a conjunct, like a bishop's moves and captures, evaluate
/// it once per bound piece).
///
/// A conjunct's constants always number the same (its free variables),
/// so up to three of them and the conjunct's id make one `u128` key; other
/// keys are [`StepKey`]s.
#[derive(Default)]
pub(super) struct StepSets(SetMemo, SmallMemo<StepKey>, SmallMemo<u128>);

/// Sets by key: a list while it is short (most states of most games),
/// indexed by a hash map once it is not (a translated GDL rule of several
/// elements evaluates a conjunct for every value of the elements bound
/// before it, thousands per state).
pub(super) struct SmallMemo<K> {
    sets: Vec<(K, BitSet)>,
    index: HashMap<K, usize, BuildHasherDefault<WordHasher>>,
}

impl<K> Default for SmallMemo<K> {
    fn default() -> Self {
        SmallMemo {
            sets: Vec::new(),
            index: HashMap::default(),
        }
    }
}

impl<K: Eq + std::hash::Hash + Clone> SmallMemo<K> {
    /// Up to this many sets are searched in turn.
    const LIST: usize = 16;

    fn get(&self, key: &K) -> Option<&BitSet> {
        if self.sets.len() <= Self::LIST {
            self.sets.iter().find(|(k, _)| k == key).map(|(_, s)| s)
        } else {
            self.index.get(key).map(|&i| &self.sets[i].1)
        }
    }

    /// The set of `key`, made by `make` the first time.
    fn get_or_insert_with(&mut self, key: K, make: impl FnOnce(&K) -> BitSet) -> BitSet {
        if let Some(set) = self.get(&key) {
            return set.clone();
        }
        let set = make(&key);
        self.insert(key, set.clone());
        set
    }

    fn insert(&mut self, key: K, set: BitSet) {
        let n = self.sets.len() + 1;
        if n == Self::LIST + 1 {
            self.index.extend(
                self.sets
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| (k.clone(), i)),
            );
        }
        if n > Self::LIST {
            self.index.insert(key.clone(), n - 1);
        }
        self.sets.push((key, set));
    }

    fn clear(&mut self) {
        self.sets.clear();
        self.index.clear();
    }
}

/// A multiplicative hash of one word: the keys are small integers packed
/// into a `u128`, where SipHash cost more than the set look-up saved.
#[derive(Default)]
pub(super) struct WordHasher(u64);

impl Hasher for WordHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }
    fn write_u128(&mut self, x: u128) {
        let folded = (x as u64) ^ ((x >> 64) as u64).rotate_left(29);
        self.0 = (self.0 ^ folded).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 ^= self.0 >> 32;
    }
}

/// A set-at-a-time conjunct, the values of its bound elements, and the
/// bits of the parameters.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct StepKey(FormulaId, Vec<Elem>, Vec<u64>);

impl StepSets {
    pub(super) fn clear(&mut self) {
        self.0.clear();
        self.1.clear();
        self.2.clear();
    }
}

impl PreCache {
    /// Runs `f` with an empty cache taken from a per-thread pool (one cache
    /// per state; reusing them saves their allocations).
    pub(super) fn with<R>(f: impl FnOnce(&mut PreCache) -> R) -> R {
        let mut c = PRE_CACHES
            .with(|p| p.borrow_mut().pop())
            .unwrap_or_default();
        c.0.clear();
        c.1.clear();
        let out = f(&mut c);
        PRE_CACHES.with(|p| p.borrow_mut().push(c));
        out
    }
}

thread_local! {
    /// The structure in which postconditions are checked (see
    /// [`Structure::restore_from`]).
    static POST_SCRATCH: std::cell::RefCell<Option<Structure>> =
        const { std::cell::RefCell::new(None) };
    /// Boxed: a cache is taken out and put back once per state, and
    /// moving the box copies a pointer, not the caches' maps.
    #[allow(clippy::vec_box)]
    static PRE_CACHES: std::cell::RefCell<Vec<Box<PreCache>>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// The update values of the candidate whose postcondition is checked.
    static UPDATE_VALUES: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The images of right elements of the last rule application.
    pub(super) static IMAGES: std::cell::RefCell<Vec<Elem>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Buffers for the matches of one label, kept between labels and
    /// states (a board position has tens to thousands of matches).
    static MATCH_BUFFERS: std::cell::RefCell<Vec<Vec<Match>>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// Per label of a [`LabelForest`], its matches (kept as `MATCH_BUFFERS`).
    static FOREST_LISTS: std::cell::RefCell<Vec<Vec<Vec<Match>>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

impl Interpreter {
    pub(super) fn player_moves(
        &self,
        s: &State,
        player: usize,
        out: &mut Vec<Move>,
        cache: &mut PreCache,
    ) {
        out.clear();
        let loc = &self.locations[s.location];
        match &loc.forests[player] {
            Some(lf) => self.forest_moves(s, &loc.labels[player], lf, out, cache),
            None => {
                for (li, label) in loc.labels[player].iter().enumerate() {
                    self.label_moves(s, li, label, out, cache);
                    if self.too_many_moves(out) {
                        return;
                    }
                }
            }
        }
        self.too_many_moves(out);
    }

    /// Whether `out` holds more than [`LEGAL_MOVES_PER_STATE`] moves: then
    /// the play stops with that fault and `out` is emptied (checked after
    /// each label, so at most one label's moves more are ever held).
    fn too_many_moves(&self, out: &mut Vec<Move>) -> bool {
        if out.len() <= LEGAL_MOVES_PER_STATE.value {
            return false;
        }
        let _ = self
            .fault
            .set(LEGAL_MOVES_PER_STATE.exceeded("a player has", "legal moves in one state"));
        out.clear();
        true
    }

    /// Stops the play: rule `rule` has more than [`MATCHES_PER_RULE`]
    /// matches in one state. The message starts with the rule's file
    /// position when it is known ([`Interpreter::set_rule_positions`]).
    pub(super) fn too_many_matches(&self, rule: usize) {
        let name = self.rules[rule].rule.name();
        self.rule_fault(
            rule,
            &MATCHES_PER_RULE.exceeded(&format!("rule `{name}` has"), "matches in one state"),
        );
    }

    /// [`Interpreter::player_moves`] for a player with a [`LabelForest`]:
    /// its labels are matched together, then filtered and turned into
    /// moves in label order as `label_moves` does.
    #[inline(never)]
    pub(super) fn forest_moves(
        &self,
        s: &State,
        labels: &[LabelInfo],
        lf: &LabelForest,
        out: &mut Vec<Move>,
        cache: &mut PreCache,
    ) {
        let active: Vec<bool> = lf
            .labels
            .iter()
            .map(|&li| {
                let ri = &self.rules[labels[li].rule];
                self.independent_pre_ok(ri, &s.structure, &[], cache)
            })
            .collect();
        let rules: Vec<&CompiledRule> = lf
            .labels
            .iter()
            .map(|&li| &self.rules[labels[li].rule].rule)
            .collect();
        let mut lists = FOREST_LISTS
            .with(|b| b.borrow_mut().pop())
            .unwrap_or_default();
        if lists.len() < rules.len() {
            lists.resize_with(rules.len(), Vec::new);
        }
        if let Err(k) = lf
            .forest
            .matches(&rules, &s.structure, &active, &mut lists[..rules.len()])
        {
            self.too_many_matches(labels[lf.labels[k]].rule);
            lists.iter_mut().for_each(Vec::clear);
            FOREST_LISTS.with(|b| b.borrow_mut().push(lists));
            return;
        }
        for (li, label) in labels.iter().enumerate() {
            let Some(k) = lf.slot[li] else {
                self.label_moves(s, li, label, out, cache);
                continue;
            };
            let ri = &self.rules[label.rule];
            let list = &mut lists[k];
            if ri.pre.is_some() || ri.post.is_some() {
                let with_post = label.multiplicity != Multiplicity::Any;
                list.retain(|m| {
                    self.match_ok_with(
                        ri,
                        &s.structure,
                        &m.elems,
                        m.optional,
                        &[],
                        with_post,
                        &mut cache.1.0,
                    )
                });
            }
            self.push_moves(&s.structure, li, label, None, &[], list, out);
            list.clear();
        }
        FOREST_LISTS.with(|b| b.borrow_mut().push(lists));
    }
}

/// Appends to `out`, in lexicographic order of index lists, every non-empty
/// set of pairwise disjoint matches extending `cur` with indices from
/// `start` on; false (with `out` incomplete) when there are more than
/// [`ANY_MOVES_LIMIT`].
pub(super) fn disjoint_sets(
    ms: &[Match],
    start: usize,
    cur: &mut Vec<usize>,
    out: &mut Vec<Vec<usize>>,
) -> bool {
    for i in start..ms.len() {
        if out.len() >= ANY_MOVES_LIMIT {
            return false;
        }
        let clash = cur
            .iter()
            .any(|&j| ms[j].elems.iter().any(|e| ms[i].elems.contains(e)));
        if clash {
            continue;
        }
        cur.push(i);
        out.push(cur.clone());
        if !disjoint_sets(ms, i + 1, cur, out) {
            return false;
        }
        cur.pop();
    }
    true
}
