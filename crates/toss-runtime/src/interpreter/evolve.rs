//! Simultaneous application with continuous evolution (spec 1.2, 1.3).
//!
//! A joint action of a continuous game is applied as follows. Every match
//! of every mover's move is a *group*: a rule, its match, its parameters and
//! the move's time bound (clamped into the label's realised interval; a
//! label without a time interval has bound 0). The ODE system is the sum of
//! the active groups' `dynamics` (an equation `:f^(k)(l) = t` of a group
//! adds `t` to the k-th derivative of `f` on the element matched to `l`;
//! the derivatives below `k` are state, see [`crate::continuous`]); all
//! other function values stay constant. It is integrated from the current
//! values to the least bound of the active moves, testing the invariants of
//! the active groups at the test points of every step (at most
//! [`crate::ode::EVENT_RESOLUTION`] apart, inside a step on the
//! integrator's interpolant). Then:
//! - if an invariant stops holding (the moment located by bisection, see
//!   [`crate::ode`] for what is found and how precisely), each group whose invariant fails there is applied at
//!   that moment if its `post` holds after the application; if no such
//!   group's `post` holds, those groups are dropped (their dynamics no
//!   longer count, their moves' bounds neither) and time goes on;
//! - when the least bound is reached, the groups of the moves with that
//!   bound are applied (each if its `post` holds afterwards).
//!
//! The action ends with the first rule applications: their update terms are
//! evaluated on the evolved values, the state's time advances by the time
//! evolved, and the next location is the target of the first mover's label.
//! If the solution stops being finite, the evolution stops at the last
//! finite state and no rule applies.

use nalgebra::DVector;

use super::{Interpreter, LabelInfo, Move, State, bound_value};
use crate::continuous::{Arith, TermFn};
use crate::ode::{Integrator, OdeError, Outcome};
use crate::rewrite::Match;
use crate::solver::FormulaId;
use toss_core::game::{Rng, uniform01};
use toss_core::ir;
use toss_core::structure::{Elem, FunId, Structure};

/// The continuous part of a rule, resolved against the signature.
pub(super) struct RuleCont {
    /// Per input: the structure function holding it and the left element.
    pub inputs: Vec<(FunId, usize)>,
    /// Per `dynamics` equation: the function (order 0 id) and left element
    /// whose highest derivative it defines.
    pub targets: Vec<(FunId, usize)>,
    pub dynamics: Vec<Arith>,
    pub compiled_dynamics: Option<TermFn>,
    /// A compiled form of the update terms (generated code).
    pub compiled_update: Option<TermFn>,
}

/// Sees the structure, with the absolute time, during an evolution.
pub type Observer<'a> = &'a mut dyn FnMut(f64, &Structure);

/// What one application of a joint action did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evolution {
    /// The names of the rules applied, in order (one per match applied).
    pub applied: Vec<String>,
    /// The time evolved.
    pub elapsed: f64,
    /// Whether the evolution stopped at the time limit before any rule
    /// applied.
    pub limited: bool,
    /// Why the integration stopped early, if it did.
    pub error: Option<OdeError>,
}

struct Group {
    mover: usize,
    rule: usize,
    m: Match,
    params: Vec<f64>,
    inv: Option<FormulaId>,
}

/// Mutable evaluation buffers of a group.
struct Buffers {
    x: Vec<f64>,
    out: Vec<f64>,
    /// Per input: an ODE variable, or a constant value.
    src: Vec<Result<usize, f64>>,
    /// Per dynamics equation: the variable it differentiates.
    target: Vec<usize>,
}

/// The ODE system of the active groups.
struct System<'a> {
    interp: &'a Interpreter,
    groups: &'a [Group],
    active: &'a [bool],
    bufs: &'a mut [Buffers],
    /// Per variable, the variable that is its derivative (lower orders).
    next: &'a [Option<usize>],
}

impl crate::ode::OdeSystem for System<'_> {
    fn rhs(&mut self, _t: f64, y: &[f64], dy: &mut [f64]) {
        for (d, n) in dy.iter_mut().zip(self.next) {
            *d = n.map_or(0.0, |k| y[k]);
        }
        for ((g, b), _) in self
            .groups
            .iter()
            .zip(self.bufs.iter_mut())
            .zip(self.active)
            .filter(|(_, a)| **a)
        {
            let Some(c) = &self.interp.rules[g.rule].cont else {
                continue;
            };
            if c.dynamics.is_empty() {
                continue;
            }
            for (x, s) in b.x.iter_mut().zip(&b.src) {
                *x = match *s {
                    Ok(k) => y[k],
                    Err(v) => v,
                };
            }
            match c.compiled_dynamics {
                Some(f) => f(&b.x, &g.params, &mut b.out),
                None => {
                    for (o, t) in b.out.iter_mut().zip(&c.dynamics) {
                        *o = t.eval(&b.x, &g.params);
                    }
                }
            }
            for (&k, &v) in b.target.iter().zip(&b.out) {
                dy[k] += v;
            }
        }
    }
}

impl Interpreter {
    /// Uniform draws of a move's time and parameters in its label's
    /// intervals (drawn end-points count as their means).
    pub(super) fn draw_choices(&self, s: &State, player: usize, m: &mut Move, rng: &mut Rng) {
        let Some(label) = self.locations[s.location]
            .labels
            .get(player)
            .and_then(|ls| ls.get(m.label))
        else {
            return;
        };
        let first = label.targets.first();
        let mut draw = |i: &ir::Interval| {
            let lo = bound_value(&i.lo, &[], first);
            let hi = bound_value(&i.hi, &[], first);
            if lo.is_finite() && hi.is_finite() && lo < hi {
                Some(lo + (hi - lo) * uniform01(rng))
            } else {
                None
            }
        };
        if let (Some(i), Some(t)) = (&label.time, m.time.as_mut())
            && let Some(v) = draw(i)
        {
            *t = v;
        }
        for (k, i) in &label.params {
            if let Some(v) = draw(i)
                && let Some(p) = m.params.get_mut(*k)
            {
                *p = v;
            }
        }
    }

    /// Applies a joint action of a continuous game (see the module
    /// documentation), stopping the evolution at absolute time `until`;
    /// `observe` sees the structure after every integration step and after
    /// the rules applied, with the absolute time.
    pub(super) fn apply_continuous(
        &self,
        s: &mut State,
        joint: &[Move],
        rng: &mut Rng,
        until: f64,
        mut observe: Option<Observer<'_>>,
    ) -> Evolution {
        let mut ev = Evolution::default();
        let loc = &self.locations[s.location];
        let movers = &loc.label_players;
        assert_eq!(
            joint.len(),
            movers.len(),
            "one move per mover expected (movers {movers:?})"
        );
        if joint.is_empty() {
            return ev;
        }
        let first = &loc.labels[movers[0]][joint[0].label];
        let target = self.choose_target(first, rng);
        let draws: Vec<(String, f64)> = target
            .draws
            .iter()
            .map(|(n, d)| (n.clone(), super::sample(d, rng)))
            .collect();

        // Groups and bounds.
        let mut groups: Vec<Group> = Vec::new();
        let mut bounds: Vec<f64> = Vec::with_capacity(joint.len());
        for (mi, (&p, mv)) in movers.iter().zip(joint).enumerate() {
            let label: &LabelInfo = &loc.labels[p][mv.label];
            let clamp = |v: f64, i: &ir::Interval| {
                let lo = bound_value(&i.lo, &draws, label.targets.first());
                let hi = bound_value(&i.hi, &draws, label.targets.first());
                if lo <= hi { v.clamp(lo, hi) } else { v }
            };
            let mut params = mv.params.clone();
            for (k, i) in &label.params {
                if let Some(v) = params.get_mut(*k) {
                    *v = clamp(*v, i);
                }
            }
            bounds.push(match (mv.time, &label.time) {
                (Some(t), Some(i)) => clamp(t, i).max(0.0),
                (Some(t), None) => t.max(0.0),
                _ => 0.0,
            });
            for m in mv.matches.iter() {
                groups.push(Group {
                    mover: mi,
                    rule: label.rule,
                    m: m.clone(),
                    params: params.clone(),
                    inv: self.rules[label.rule].inv,
                });
            }
        }
        let mut active = vec![true; groups.len()];
        let mut elapsed = 0.0;
        if let Some(obs) = observe.as_deref_mut() {
            obs(s.time, &s.structure);
        }
        let mut scratch = s.structure.clone();
        let fired: Vec<usize> = loop {
            // The least bound among moves with an active group.
            let bound = groups
                .iter()
                .zip(&active)
                .filter(|(_, a)| **a)
                .map(|(g, _)| bounds[g.mover])
                .fold(f64::INFINITY, f64::min);
            if bound == f64::INFINITY {
                // Every group was dropped: nothing applies.
                break Vec::new();
            }
            let (end, limited) = if s.time + bound > until {
                ((until - s.time).max(elapsed), true)
            } else {
                (bound, false)
            };
            let (outcome, time) = self.integrate(
                s,
                &mut scratch,
                &groups,
                &active,
                elapsed,
                end,
                &mut observe,
            );
            elapsed = time;
            match outcome {
                Err(e) => {
                    ev.error = Some(e);
                    break Vec::new();
                }
                Ok(Outcome::Reached) if limited => {
                    ev.limited = true;
                    break Vec::new();
                }
                Ok(Outcome::Reached) => {
                    break (0..groups.len())
                        .filter(|&i| active[i] && bounds[groups[i].mover] <= bound)
                        .filter(|&i| self.post_after(&s.structure, &groups[i]))
                        .collect();
                }
                Ok(Outcome::Event(_)) => {
                    let failing: Vec<usize> = (0..groups.len())
                        .filter(|&i| active[i] && !self.inv_holds(&s.structure, &groups[i]))
                        .collect();
                    if failing.is_empty() {
                        // Cannot happen (the event is where an invariant
                        // fails); ends the action rather than loop.
                        break Vec::new();
                    }
                    let ok: Vec<usize> = failing
                        .iter()
                        .copied()
                        .filter(|&i| self.post_after(&s.structure, &groups[i]))
                        .collect();
                    if !ok.is_empty() {
                        break ok;
                    }
                    for i in failing {
                        active[i] = false;
                    }
                }
            }
        };
        // The rules at the moment reached: every update value from the
        // evolved values before any rule rewrites (spec 1.2), then the
        // rules applied one after the other.
        let mut vals = Vec::new();
        let mut all_vals = Vec::with_capacity(fired.len());
        for &i in &fired {
            let g = &groups[i];
            self.update_values(&s.structure, g.rule, &g.m.elems, &g.params, &mut vals);
            all_vals.push(std::mem::take(&mut vals));
        }
        for (i, vals) in fired.into_iter().zip(all_vals) {
            let g = &groups[i];
            if !g.m.elems.iter().all(|&e| s.structure.is_live(e)) {
                continue;
            }
            self.rules[g.rule].rule.apply(&mut s.structure, &g.m, &vals);
            ev.applied.push(self.rules[g.rule].rule.name().to_string());
        }
        if !ev.limited && ev.error.is_none() {
            s.location = target.location;
        }
        s.time += elapsed;
        ev.elapsed = elapsed;
        if let Some(obs) = observe
            && !ev.applied.is_empty()
        {
            obs(s.time, &s.structure);
        }
        ev
    }

    /// The update values of rule `ri` on match `elems`: the compiled terms
    /// when there are, else the solver's.
    pub(super) fn update_values(
        &self,
        s: &Structure,
        ri: usize,
        elems: &[Elem],
        params: &[f64],
        out: &mut Vec<f64>,
    ) {
        let r = &self.rules[ri];
        out.clear();
        if let Some(c) = &r.cont
            && let Some(f) = c.compiled_update
        {
            let x: Vec<f64> = c
                .inputs
                .iter()
                .map(|&(fun, l)| s.fun_value(fun, elems[l]))
                .collect();
            out.resize(r.updates.len(), 0.0);
            f(&x, params, out);
            return;
        }
        out.extend(
            r.updates
                .iter()
                .map(|&u| self.solver.value(s, u, elems, params)),
        );
    }

    fn inv_holds(&self, s: &Structure, g: &Group) -> bool {
        g.inv
            .is_none_or(|f| self.solver.holds(s, f, &g.m.elems, &g.params))
    }

    /// Whether the `post` of `g`'s rule holds after applying it to `s`.
    fn post_after(&self, s: &Structure, g: &Group) -> bool {
        let ri = &self.rules[g.rule];
        let Some(post) = ri.post else {
            return true;
        };
        if !g.m.elems.iter().all(|&e| s.is_live(e)) {
            return false;
        }
        let mut t = s.clone();
        let mut vals = Vec::new();
        self.update_values(s, g.rule, &g.m.elems, &g.params, &mut vals);
        let img = ri.rule.apply(&mut t, &g.m, &vals);
        self.solver.holds(&t, post, &img, &g.params)
    }

    /// Integrates the active groups' system on `s.structure` from `from` to
    /// `to` (times since the action began); writes the values reached into
    /// `s.structure` and returns the outcome and the time reached. An
    /// invariant failing at `from` already is an event at `from`.
    #[allow(clippy::too_many_arguments)]
    fn integrate(
        &self,
        s: &mut State,
        scratch: &mut Structure,
        groups: &[Group],
        active: &[bool],
        from: f64,
        to: f64,
        observe: &mut Option<Observer<'_>>,
    ) -> (Result<Outcome, OdeError>, f64) {
        let st = &s.structure;
        let inv_ok = |st: &Structure| {
            groups
                .iter()
                .zip(active)
                .all(|(g, a)| !*a || self.inv_holds(st, g))
        };
        if !inv_ok(st) {
            return (Ok(Outcome::Event(from)), from);
        }
        // The variables: every stored order of every function an active
        // group's dynamics defines, on the matched element.
        let mut vars: Vec<(FunId, Elem)> = Vec::new();
        let mut next: Vec<Option<usize>> = Vec::new();
        let mut bufs: Vec<Buffers> = Vec::with_capacity(groups.len());
        let slot = |vars: &mut Vec<(FunId, Elem)>, next: &mut Vec<Option<usize>>, v| match vars
            .iter()
            .position(|w| *w == v)
        {
            Some(k) => k,
            None => {
                vars.push(v);
                next.push(None);
                vars.len() - 1
            }
        };
        for (g, _) in groups.iter().zip(active).filter(|(_, a)| **a) {
            let Some(c) = &self.rules[g.rule].cont else {
                continue;
            };
            for &(base, l) in &c.targets {
                let chain = &self.derivatives[base];
                let e = g.m.elems[l];
                let mut prev: Option<usize> = None;
                for &f in chain {
                    let k = slot(&mut vars, &mut next, (f, e));
                    if let Some(p) = prev {
                        next[p] = Some(k);
                    }
                    prev = Some(k);
                }
            }
        }
        for (g, &a) in groups.iter().zip(active) {
            let mut b = Buffers {
                x: Vec::new(),
                out: Vec::new(),
                src: Vec::new(),
                target: Vec::new(),
            };
            if a && let Some(c) = &self.rules[g.rule].cont {
                b.x = vec![0.0; c.inputs.len()];
                b.out = vec![0.0; c.dynamics.len()];
                b.src = c
                    .inputs
                    .iter()
                    .map(|&(f, l)| {
                        let e = g.m.elems[l];
                        vars.iter()
                            .position(|&w| w == (f, e))
                            .ok_or_else(|| st.fun_value(f, e))
                    })
                    .collect();
                b.target = c
                    .targets
                    .iter()
                    .map(|&(base, l)| {
                        let top = *self.derivatives[base].last().unwrap_or(&base);
                        let e = g.m.elems[l];
                        vars.iter().position(|&w| w == (top, e)).unwrap_or(0)
                    })
                    .collect();
            }
            bufs.push(b);
        }
        if vars.is_empty() || to <= from {
            // Nothing evolves: only the invariants at this moment matter,
            // and they hold.
            return (Ok(Outcome::Reached), to.max(from));
        }
        let mut y =
            DVector::from_iterator(vars.len(), vars.iter().map(|&(f, e)| st.fun_value(f, e)));
        scratch.clone_from(st);
        let write = |sc: &mut Structure, y: &[f64]| {
            for (&(f, e), &v) in vars.iter().zip(y) {
                sc.set_fun_value(f, e, v);
            }
        };
        let mut trace: Vec<(f64, Vec<f64>)> = Vec::new();
        let tracing = observe.is_some();
        let mut sys = System {
            interp: self,
            groups,
            active,
            bufs: &mut bufs,
            next: &next,
        };
        let mut integrator = Integrator::new(self.method, vars.len());
        let res = integrator.integrate(
            &mut sys,
            from,
            to,
            &mut y,
            |_, y| {
                write(scratch, y);
                inv_ok(scratch)
            },
            |t, y| {
                if tracing {
                    trace.push((t, y.to_vec()));
                }
            },
        );
        let reached = match &res {
            Ok(Outcome::Reached) => to,
            Ok(Outcome::Event(t)) => *t,
            Err(
                OdeError::NotFinite(t) | OdeError::StepUnderflow(t) | OdeError::TooManySteps(t),
            ) => *t,
        };
        let st = &mut s.structure;
        write(st, y.as_slice());
        if let Some(obs) = observe.as_deref_mut() {
            let base = s.time;
            for (t, v) in &trace {
                write(scratch, v);
                obs(base + t, scratch);
            }
        }
        (res, reached)
    }
}
