//! Applying a joint action: the rules of the movers' labels, update terms,
//! the next location drawn among targets, time; the [`Game`] impl of the
//! interpreter, and the one-rule entry points generated code falls back on.
//!
//! Uses `moves` (legal moves, the per-match checks). With [`evolve`] it is
//! one algorithm, applying a joint action: a continuous game's action is
//! applied there, which draws the target with [`Interpreter::choose_target`]
//! from here.

use super::evolve::{self, Evolution};
use super::moves::{IMAGES, PreCache};
use super::{Interpreter, LabelInfo, Move, State, bound_value, sample};
use crate::rewrite::Match;
use toss_core::game::{Game, Rng, uniform01};
use toss_core::ir;
use toss_core::structure::{Elem, Structure};

impl Interpreter {
    /// [`Game::apply`] that stops the evolution at absolute time `until`
    /// (no rule applies then) and shows `observe` the structure with the
    /// absolute time after every integration step and after the rules
    /// applied. Reports the rules applied. For games that are not
    /// continuous it is [`Game::apply`], reporting every rule applied.
    pub fn apply_observed(
        &self,
        s: &mut State,
        joint: &[Move],
        rng: &mut Rng,
        until: f64,
        observe: Option<evolve::Observer<'_>>,
    ) -> Evolution {
        if self.continuous {
            let ev = self.apply_continuous(s, joint, rng, until, observe);
            self.record(s);
            return ev;
        }
        let loc = &self.locations[s.location];
        let mut applied = Vec::new();
        for (&p, mv) in loc.label_players.iter().zip(joint) {
            let rule = self.rules[loc.labels[p][mv.label].rule].rule.name();
            applied.extend(mv.matches.iter().map(|_| rule.to_string()));
        }
        let before = s.time;
        self.apply(s, joint, rng);
        Evolution {
            applied,
            elapsed: s.time - before,
            ..Evolution::default()
        }
    }

    /// `REPETITION`'s count after a ply (see [`super::record_position`]).
    fn record(&self, s: &mut State) {
        if let Some(rep) = &self.repetition {
            super::record_position(rep, s);
        }
    }

    /// The edge a label takes: its only target, or one drawn by
    /// probability.
    pub(super) fn choose_target<'a>(&self, label: &'a LabelInfo, rng: &mut Rng) -> &'a ir::Target {
        if label.targets.len() == 1 {
            return &label.targets[0];
        }
        let u = uniform01(rng);
        let mut acc = 0.0;
        for t in &label.targets {
            acc += t.probability.unwrap_or(0.0);
            if u < acc {
                return t;
            }
        }
        &label.targets[label.targets.len() - 1]
    }

    /// Whether the match `elems` of rule `rule` (index in `ir::Game::rules`)
    /// passes the whole precondition (its per-state and per-match parts) and
    /// the postcondition, as move generation decides. For generated code
    /// that specializes the matching of a rule but not all its conditions.
    pub fn rule_match_passes(&self, rule: usize, s: &Structure, elems: &[Elem]) -> bool {
        let ri = &self.rules[rule];
        if let Some(pre) = ri.pre_state
            && !self.solver.holds(s, pre, &[], &[])
        {
            return false;
        }
        let opt = ri.rule.optional_mask(s, elems);
        self.match_ok(ri, s, elems, opt, &[])
    }

    /// The matches of rule `rule` that pass its pre- and postcondition, in
    /// canonical order (rules without parameters).
    pub fn rule_matches(&self, rule: usize, s: &Structure, out: &mut Vec<Match>) {
        let ri = &self.rules[rule];
        out.clear();
        if let Some(pre) = ri.pre_state
            && !self.solver.holds(s, pre, &[], &[])
        {
            return;
        }
        if !ri.rule.matches(s, out) {
            self.too_many_matches(rule);
            out.clear();
            return;
        }
        out.retain(|m| self.match_ok(ri, s, &m.elems, m.optional, &[]));
    }

    /// Applies rule `rule` on the match `elems`, update terms included, as
    /// [`Game::apply`] does for one move.
    pub fn apply_rule_match(&self, rule: usize, s: &mut Structure, elems: &[Elem]) {
        let ri = &self.rules[rule];
        let m = Match {
            elems: elems.into(),
            optional: ri.rule.optional_mask(s, elems),
        };
        let vals: Vec<f64> = ri
            .updates
            .iter()
            .map(|&u| self.solver.value(s, u, elems, &[]))
            .collect();
        ri.rule.apply(s, &m, &vals);
    }
}

impl Game for Interpreter {
    type State = State;
    type Move = Move;

    fn player_names(&self) -> &[String] {
        &self.players
    }

    fn initial_state(&self) -> State {
        self.initial.clone()
    }

    fn movers(&self, s: &State, out: &mut Vec<usize>) {
        out.clear();
        // Past a fault every state is terminal: no matching at all.
        if self.faulted() {
            return;
        }
        let loc = &self.locations[s.location];
        PreCache::with(|cache| {
            for &p in &loc.label_players {
                if !self.has_legal_move(s, p, cache) {
                    out.clear();
                    return;
                }
                out.push(p);
            }
        });
        if self.faulted() {
            out.clear();
        }
    }

    fn legal_moves(&self, s: &State, player: usize, out: &mut Vec<Move>) {
        if self.faulted() {
            out.clear();
            return;
        }
        PreCache::with(|cache| self.player_moves(s, player, out, cache));
        if self.faulted() {
            out.clear();
        }
    }

    /// The movers are the label players when each has a legal move, so the
    /// moves generated to find out are the moves returned: one pass of
    /// matching per state instead of two.
    fn movers_and_moves(&self, s: &State, movers: &mut Vec<usize>, moves: &mut Vec<Vec<Move>>) {
        movers.clear();
        if self.faulted() {
            return;
        }
        let loc = &self.locations[s.location];
        if moves.len() < loc.label_players.len() {
            moves.resize_with(loc.label_players.len(), Vec::new);
        }
        PreCache::with(|cache| {
            for (&p, out) in loc.label_players.iter().zip(moves.iter_mut()) {
                self.player_moves(s, p, out, cache);
                if out.is_empty() {
                    movers.clear();
                    return;
                }
                movers.push(p);
            }
        });
        if self.faulted() {
            movers.clear();
        }
    }

    fn payoff_bounds(&self) -> Option<(f64, f64)> {
        self.payoff_bounds
    }

    fn fault(&self) -> Option<String> {
        self.fault
            .get()
            .map(|f| f.to_string())
            .or_else(|| self.solver.fault().map(|f| f.to_string()))
    }

    fn report_fault(&self, message: String) {
        let _ = self.fault.set(message);
    }

    fn apply(&self, s: &mut State, joint: &[Move], rng: &mut Rng) {
        let loc = &self.locations[s.location];
        let movers = &loc.label_players;
        assert_eq!(
            joint.len(),
            movers.len(),
            "one move per mover expected (movers {movers:?})"
        );
        if joint.is_empty() {
            return;
        }
        // The edge taken: the first mover's label decides.
        let first = &loc.labels[movers[0]][joint[0].label];
        if self.continuous {
            self.apply_continuous(s, joint, rng, f64::INFINITY, None);
        } else {
            let target = self.choose_target(first, rng);
            let draws: Vec<(String, f64)> = target
                .draws
                .iter()
                .map(|(n, d)| (n.clone(), sample(d, rng)))
                .collect();
            self.apply_along(s, joint, target, &draws);
        }
        self.record(s);
        self.check_elements(&s.structure, first.rule);
    }

    fn state_key(&self, s: &State, out: &mut Vec<u64>) -> bool {
        out.clear();
        out.push(s.location as u64);
        out.push(s.time.to_bits());
        s.structure.key_words(
            |r| self.stable.binary_search(&r).is_err(),
            |f| self.fluent_functions.get(f).copied().unwrap_or(true),
            out,
        );
        // With REPETITION the future depends on the positions before.
        for fp in s.history.iter() {
            out.extend([(fp >> 64) as u64, fp as u64]);
        }
        true
    }

    /// Element ids come from the file and from the moves that created
    /// the elements, so a position reached the same way has the same key.
    fn stable_keys(&self) -> bool {
        true
    }

    fn has_chance(&self) -> bool {
        self.continuous
            || self.locations.iter().any(|l| {
                l.labels.iter().flatten().any(|label| {
                    label.targets.len() > 1 || label.targets.iter().any(|t| !t.draws.is_empty())
                })
            })
    }

    /// Probabilistic edges are enumerated; drawn parameters and continuous
    /// evolution are not (their outcomes are real numbers).
    fn chance_outcomes(&self, s: &State, joint: &[Move], out: &mut Vec<(f64, State)>) -> bool {
        out.clear();
        if self.continuous {
            return false;
        }
        let loc = &self.locations[s.location];
        if joint.is_empty() {
            out.push((1.0, s.clone()));
            return true;
        }
        let first = &loc.labels[loc.label_players[0]][joint[0].label];
        if first.targets.iter().any(|t| !t.draws.is_empty()) {
            return false;
        }
        let single = first.targets.len() == 1;
        for target in &first.targets {
            let mut t = s.clone();
            self.apply_along(&mut t, joint, target, &[]);
            self.record(&mut t);
            let p = if single {
                1.0
            } else {
                target.probability.unwrap_or(0.0)
            };
            out.push((p, t));
        }
        true
    }

    fn draw_continuous(&self, s: &State, player: usize, m: &mut Move, rng: &mut Rng) {
        self.draw_choices(s, player, m, rng);
    }

    fn payoffs(&self, s: &State, out: &mut [f64]) {
        let n = self.locations[s.location].payoffs.len();
        for (p, o) in out.iter_mut().enumerate().take(n) {
            *o = self.payoff_value(s.location, p, &s.structure);
        }
    }

    fn to_structure(&self, s: &State) -> Structure {
        s.structure.clone()
    }

    fn location(&self, s: &State) -> usize {
        s.location
    }

    fn has_compound_turns(&self) -> bool {
        self.compound_turns
    }

    fn move_to_string(&self, s: &State, player: usize, m: &Move) -> String {
        let Some(label) = self.locations[s.location].labels[player].get(m.label) else {
            return format!("{m:?}");
        };
        let ri = &self.rules[label.rule];
        let mut out = ri.rule.name().to_string();
        for mt in m.matches.iter() {
            out.push('{');
            for (i, (l, &e)) in ri.rule.lhs_names().iter().zip(&mt.elems).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(l);
                out.push_str(": ");
                out.push_str(s.structure.element_name(e));
            }
            out.push('}');
        }
        if let Some(t) = m.time {
            out.push_str(&format!(" t: {t}"));
        }
        for (n, v) in ri.params.iter().zip(&m.params) {
            out.push_str(&format!(" {n}: {v}"));
        }
        out
    }
}

impl Interpreter {
    /// `m`, played by `player` from `s` into location `target`, as an
    /// entry of a saved play's `HISTORY` (spec: the move history is stored
    /// in the file). None for a move of several matches, which the
    /// syntax has no place for, or a move not of `s`.
    pub fn history_move(
        &self,
        s: &State,
        player: usize,
        m: &Move,
        target: usize,
    ) -> Option<ir::HistoryMove> {
        let label = self.locations[s.location].labels[player].get(m.label)?;
        let ri = &self.rules[label.rule];
        let [mt] = &m.matches[..] else {
            return None;
        };
        Some(ir::HistoryMove {
            player: self.players.get(player)?.clone(),
            rule: ri.rule.name().to_string(),
            matching: ri
                .rule
                .lhs_names()
                .iter()
                .zip(&mt.elems)
                .map(|(l, &e)| (l.to_string(), s.structure.element_name(e).to_string()))
                .collect(),
            time: m.time,
            params: ri
                .params
                .iter()
                .cloned()
                .zip(m.params.iter().copied())
                .collect(),
            target,
        })
    }

    /// Applies `joint` (one move per mover of `s`) along the edge `target`,
    /// with the values `draws` drawn for its named distributions.
    fn apply_along(
        &self,
        s: &mut State,
        joint: &[Move],
        target: &ir::Target,
        draws: &[(String, f64)],
    ) {
        let loc = &self.locations[s.location];
        let movers = &loc.label_players;
        let mut t0: Option<f64> = None;
        // Update values come from the structure before the move (spec 1.2:
        // the values of the left side), also when one move applies several
        // matches (`*`, `inf`) or several players move at once: all are
        // computed first, then the matches are applied in order.
        let one_update = joint.len() == 1 && joint[0].matches.len() == 1;
        let mut vals = Vec::new();
        let mut applications: Vec<(usize, &Match, std::ops::Range<usize>)> = Vec::new();
        for (&p, mv) in movers.iter().zip(joint) {
            let label = &loc.labels[p][mv.label];
            let ri = &self.rules[label.rule];
            let clamp = |v: f64, i: &ir::Interval| {
                let lo = bound_value(&i.lo, draws, label.targets.first());
                let hi = bound_value(&i.hi, draws, label.targets.first());
                if lo <= hi { v.clamp(lo, hi) } else { v }
            };
            let mut params = mv.params.clone();
            for (k, i) in &label.params {
                if let Some(v) = params.get_mut(*k) {
                    *v = clamp(*v, i);
                }
            }
            if let (Some(t), Some(i)) = (mv.time, &label.time) {
                let t = clamp(t, i);
                t0 = Some(t0.map_or(t, |x: f64| x.min(t)));
            }
            for m in mv.matches.iter() {
                let start = vals.len();
                vals.extend(
                    ri.updates
                        .iter()
                        .map(|&u| self.solver.value(&s.structure, u, &m.elems, &params)),
                );
                if one_update {
                    IMAGES.with(|b| {
                        ri.rule
                            .apply_into(&mut s.structure, m, &vals, &mut b.borrow_mut())
                    });
                } else {
                    applications.push((label.rule, m, start..vals.len()));
                }
            }
        }
        for (rule, m, range) in applications {
            // A match whose elements an earlier one deleted is skipped.
            if !m.elems.iter().all(|&e| s.structure.is_live(e)) {
                continue;
            }
            IMAGES.with(|b| {
                self.rules[rule].rule.apply_into(
                    &mut s.structure,
                    m,
                    &vals[range],
                    &mut b.borrow_mut(),
                )
            });
        }
        s.location = target.location;
        s.time += t0.unwrap_or(0.0);
    }
}
