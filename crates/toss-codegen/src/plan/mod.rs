//! The specialization plan: the code generator's own IR.
//!
//! Built at compile time from the game IR, the starting structure and the
//! interpreter's analysis of stable relations, it decides everything the
//! emitted code hard-wires:
//! - the element numbering (the ids of the starting structure) and the
//!   bitset width `W` (`64 * W >= elements`);
//! - which relations are stable (tabulated once, here) and which unary
//!   relations are fluent (one `Bits<W>` each in the generated state);
//! - how each fluent relation of another arity is kept ([`Repr`]): a
//!   binary one over at most `MAX_DENSE_ELEMENTS` elements densely (per
//!   element the set of its successors and of its predecessors, and the
//!   set of loops), any other as a sorted list of tuples. A matcher walks
//!   it from the elements bound before ([`SetExpr::Tuples`]: a row of
//!   successors or predecessors), a condition tests a tuple of bound
//!   elements ([`Cond::Holds`]), `{x | ex y (S(y) and E(y, x))}` is its
//!   image ([`Rel2::Fluent`]), and an effect removes the tuples over the
//!   matched elements (`emb`) and adds the right side's;
//! - constant masks (stable sets such as "the top row"), neighbour tables
//!   (per element, the set of its neighbours in a stable binary relation)
//!   and offset groups (a stable binary relation that is a grid step is
//!   "add `d` to the id" on a mask of sources: a shift);
//! - for every formula, a set expression (one free element variable) or a
//!   condition (a sentence) in bitset algebra: stable sub-formulas are
//!   evaluated here by the runtime solver and become masks or tables;
//!   `ex x1..xk (S1(x1) and .. and Sk(xk) and Stable(x1..xk))` becomes a
//!   *pattern*: the tuples of the stable part grouped by their id offsets,
//!   each group tested with shifts (the lines of tic-tac-toe, Connect Four,
//!   Gomoku); an existential whose body ties its variables through a
//!   fluent disjunction is distributed over it into such patterns (a piece
//!   that can jump: a king in any direction or a man forward); a monadic
//!   least fixed point becomes an iteration on bitsets;
//! - *offset form*, for `{x | ex y ..}` whose variables are tied through
//!   fluent relations (the lines of Reversi: from `x`, white discs, then a
//!   black one): each quantified variable is `x + o` for each offset `o`
//!   the stable relation linking it to the earlier ones allows, one branch
//!   per offset, united; in a branch a fluent `F(v)` is `F` shifted by the
//!   offset of `v`, a stable conjunct a mask of `x` (a table row when it
//!   also mentions the one bound element allowed, as `n` in `FlipsB(n,
//!   x)`), `v = n` a shifted singleton. The pairs (`x`, bound element) the
//!   stable conjuncts around a branch allow are tracked at build time and
//!   a branch they exclude is cut, so a line walked from `x` keeps its
//!   direction: Reversi's legal placements and flipped discs come out as
//!   eight directions of shifts, like a hand-written bitboard generator;
//! - for every rule, a matcher: one candidate set per left element (the
//!   positive unary tuples, the exactness of `emb` relations as negated
//!   bits, and the precondition conjuncts about that element alone),
//!   neighbour tables linking each element to earlier ones, sets of the
//!   fluent relations of other arities and of the exactness of `emb`
//!   relations of other arities given the earlier elements, and a shift
//!   for two-element rules linked by a grid step. The join order is chosen
//!   here ([`JoinOrder`]): greedily the element with the fewest estimated
//!   candidates on the starting structure given those bound before,
//!   against the declaration order, which lists the matches in the
//!   interpreter's canonical order for free; another order is taken only
//!   when it saves more than sorting its matches costs (the move list is
//!   then sorted, and the rule leaves the shared-prefix trees);
//! - the effect of each rule on the fluent bitsets and on fluent functions
//!   (functions some rule updates: per-element values in the state);
//! - labels with multiplicity `inf` (all matches at once, spec 1.4): one
//!   move when the rule has a match, whose matches are found in the state
//!   before the move, as the interpreter does, and applied either as sets
//!   (per left element, the set of its images loses and gains the rule's
//!   bits: the same as one after the other when no element is the image
//!   of two left elements and no function is updated, [`AllEffect::Sets`])
//!   or one after the other in canonical order;
//! - conditions on elements bound by the matcher or by a loop: a
//!   precondition over several left elements is a set computed once the
//!   earlier ones are bound, or a test per candidate; what set algebra
//!   cannot say at once becomes a loop `ex x in S (...)`; an existential
//!   precondition over several left elements is also tested, weakened to
//!   its conjuncts about the elements bound so far, at each earlier step
//!   (a chain of jumps is cut at its first impossible jump); `tc` from a bound
//!   element is a fixed point, a look-up in a table of rays when it steps
//!   in one grid direction; postconditions are tested after the effect
//!   (on a copy of the fluent bitsets alone when they read nothing else);
//! - for every mover, a shared-prefix tree ([`PrefixNode`]) of the labels a
//!   playout counts: matchers that agree on their first steps (the clock
//!   and the moving piece of draughts' jump chains, the amazon and its
//!   destination in amazons) enumerate those steps once per ply for all of
//!   them; a label whose last step has no per-candidate test is counted by
//!   a popcount per binding of the earlier elements
//!   ([`RulePlan::last_step_counted`]);
//! - per location, the sets a playout would compute more than once per
//!   ply (a rule's set of matches and a sentence of another label: the
//!   legal placements of Reversi and its pass rule's `CanB()`), computed
//!   once ([`shared_sets`]).
//!
//! Per rule and per payoff, what is outside this fragment runs on the
//! interpreter: a rule's matches ([`RulePlan::interpreted`]), the check of
//! each specialized match ([`RulePlan::check_fallback`]), its effect
//! ([`RulePlan::effect_fallback`]), a payoff. Only a game whose state is
//! not a fixed set of elements (rules that create or delete elements),
//! or whose moves
//! are not one label and one match (time, parameters, multiplicity `*`:
//! a move would be any of the sets of disjoint matches), makes
//! [`Plan::build`] fail; it then keeps the interpreter path, and the
//! generated impl's doc comment says why. [`Plan::dump`] prints the plan as text
//! (snapshot-tested), fallbacks included.
//!
//! The plan is built in one pass over the game ([`Plan::build_with`]): the
//! classification decides what is stable and what is fluent and how each
//! fluent relation is kept; the builders compile formulas, rules and
//! labels; then the passes run over the rule and location plans. Where
//! each part lives:
//! - `types`: the plan's IR (the data types above, [`Plan`] and its parts);
//! - `classify`: stable and fluent relations and functions, the
//!   representation of each fluent relation ([`Repr`]), the check that the
//!   state is a fixed set of elements;
//! - `builder`: the builder's state, formula utilities (relation names,
//!   renaming, inlining), build-time evaluation of stable formulas, masks
//!   and tables;
//! - builders per concern: `sets` (formulas with one free variable to set
//!   expressions), `oform` (the offset form), `conds` (sentences to
//!   conditions, patterns), `nums` (real terms, payoffs, heuristics),
//!   `rules` (a rule's plan, its effect, labels), `matcher` (a rule's
//!   matcher), `join` (its join order);
//! - passes over the built rules and locations, one file each: `prefix`
//!   (the shared-prefix trees), `all_effect` (how multiplicity `inf` is
//!   applied), `shared` (the sets computed once per ply);
//! - `visit`: what the builders, passes and emitters ask of an expression
//!   (loop depth, canonical numbering, what it reads);
//! - `dump`: the text dump.
//!
//! Formula compilation is one recursive algorithm spread over `sets`,
//! `oform`, `conds` and `nums` (methods of one builder that call each
//! other: a set's condition, a condition's set, a count's set); apart from
//! these, the modules do not depend on each other in a cycle.

mod all_effect;
mod builder;
mod classify;
mod conds;
mod dump;
mod join;
mod matcher;
mod nums;
mod oform;
mod prefix;
mod rules;
mod sets;
mod shared;
mod types;
mod visit;

use toss_core::game::Game as _;
use toss_core::ir;
use toss_heuristics::Heuristics;
use toss_runtime::Interpreter;

pub(crate) use shared::{cond_occurrences, set_occurrences};
pub use types::{
    AllEffect, Bound, Cond, Fluent, FluentRel, FunPlan, FunRef, HeuristicPlan, JoinOrder,
    LabelPlan, Link, LocPlan, Mask, Num, Pattern, Plan, PlayerPlan, PrefixNode, Rel2,
    RepetitionPlan, Repr, RulePlan, SetExpr, Step, Table,
};
pub use visit::line_doubling;
pub(crate) use visit::reads_only_relations;

use all_effect::all_effect;
use builder::Builder;
use prefix::prefix_forest;
use shared::shared_sets;

/// Why a game (or a part of it) is outside the specialized fragment.
pub type Unsupported = String;

/// A fluent binary relation over at most this many elements is dense (a
/// set of successors and one of predecessors per element): 2 N W words,
/// 4 KiB at 128 elements, in a state that is copied for postconditions and
/// kept per node of a search tree. Over more elements, or of another arity,
/// a fluent relation is a sorted list of tuples.
pub(crate) const MAX_DENSE_ELEMENTS: usize = 128;
/// At most this many offset groups make a stable binary relation a set of
/// shifts; more become a neighbour table.
pub(crate) const MAX_SHIFTS: usize = 8;
/// At most this many tuples over the left elements of a rule are tested
/// for exact matching on one relation (the interpreter's limit).
pub(crate) const MAX_EXACT_TUPLES: usize = 1 << 16;
/// At most this many tuples are tabulated for a pattern.
pub(crate) const MAX_PATTERN_TUPLES: usize = 200_000;
/// At most this many rows (elements squared) for a table of pairs.
pub(crate) const MAX_PAIR_ROWS: usize = 16_384;
/// At most this many patterns from distributing an existential over the
/// disjunctions in its body.
pub(crate) const MAX_DISTRIBUTED: usize = 8;
/// At most this many offsets for a variable of a formula in offset form,
/// and this many branches (offset choices) in all.
pub(crate) const MAX_OFFSETS: usize = 16;
pub(crate) const MAX_OFFSET_BRANCHES: usize = 4096;

impl Plan {
    /// Plans the specialization of `game`, or says why it is outside the
    /// supported fragment.
    pub fn build(game: &ir::Game) -> Result<Plan, Unsupported> {
        Plan::build_with(game, None)
    }

    /// [`Plan::build`], also compiling the derived heuristics `heuristics`
    /// (the terms `toss_heuristics::derive` gives for `game`).
    pub fn build_with(
        game: &ir::Game,
        heuristics: Option<&Heuristics>,
    ) -> Result<Plan, Unsupported> {
        let interp = Interpreter::new(game).map_err(|e| e.message)?;
        Plan::build_from(game, &interp, heuristics)
    }

    /// [`Plan::build_with`] from the interpreter of `game` already built
    /// (the derive builds it once, for the check that the game loads and
    /// for the plan).
    pub fn build_from(
        game: &ir::Game,
        interp: &Interpreter,
        heuristics: Option<&Heuristics>,
    ) -> Result<Plan, Unsupported> {
        let init = interp.initial_state();
        let c = classify::classify(game, interp, init.structure.clone())?;
        let n = c.sig.num_elements();
        let stable = c.stable.clone();
        let mut b = Builder::new(game, c);
        let mut rules = Vec::new();
        for r in &game.rules {
            rules.push(b.rule(r));
        }
        let mut locations = Vec::new();
        for loc in &game.locations {
            locations.push(b.location(loc)?);
        }
        passes(&mut rules, &mut locations, &b.conds);
        let heuristic = heuristics.map(|h| b.heuristic(h));
        let elements = (0..n as u32)
            .map(|e| b.sig.element_name(e).to_string())
            .collect();
        let repetition = game.repetition.as_ref().and_then(|r| {
            Some(RepetitionPlan {
                count: b.funs.iter().position(|f| f.name == r.function)?,
                element: b.sig.element(&r.element)?,
                unary: (b.fluents.iter().enumerate())
                    .filter(|(_, f)| r.relations.contains(&f.name))
                    .map(|(i, _)| i)
                    .collect(),
                tuples: (b.fluent_rels.iter().enumerate())
                    .filter(|(_, f)| r.relations.contains(&f.name))
                    .map(|(i, _)| i)
                    .collect(),
                funs: (b.funs.iter().enumerate())
                    .filter(|(_, f)| r.functions.contains(&f.name))
                    .map(|(i, _)| i)
                    .collect(),
            })
        });
        Ok(Plan {
            players: game.players.clone(),
            elements,
            words: n.div_ceil(64).max(1),
            stable,
            fluents: b.fluents,
            fluent_rels: b.fluent_rels,
            funs: b.funs,
            stable_funs: b.stable_funs,
            masks: b.masks,
            tables: b.tables,
            patterns: b.patterns,
            conds: b.conds,
            rules,
            locations,
            initial_location: init.location,
            heuristic,
            payoff_bounds: interp.payoff_bounds(),
            rule_positions: Vec::new(),
            repetition,
        })
    }

    /// The largest number of left elements of a rule (at least 1).
    pub fn max_lhs(&self) -> usize {
        self.rules
            .iter()
            .map(|r| r.lhs.len())
            .max()
            .unwrap_or(1)
            .max(1)
    }
}

/// The passes over the built rules and locations: the shared-prefix trees
/// of the labels a playout counts, how labels of multiplicity `inf` apply
/// their rules, and the sets computed once per ply.
fn passes(rules: &mut [RulePlan], locations: &mut [LocPlan], conds: &[(String, Cond)]) {
    for loc in locations.iter_mut() {
        for pl in &mut loc.players {
            // A label of multiplicity inf is one move whatever its
            // number of matches: it is not counted in the forest.
            let members: Vec<usize> = (0..pl.labels.len())
                .filter(|&lb| !pl.labels[lb].all && rules[pl.labels[lb].rule].in_prefix_tree())
                .collect();
            pl.prefixes = prefix_forest(rules, &pl.labels, &members, 0);
        }
    }
    for loc in locations.iter() {
        for l in loc.players.iter().flat_map(|p| &p.labels) {
            if l.all && rules[l.rule].all.is_none() {
                let r: &mut RulePlan = &mut rules[l.rule];
                r.all = Some(all_effect(r));
            }
        }
    }
    for loc in locations.iter_mut() {
        loc.shared = shared_sets(rules, conds, loc);
    }
}
