//! Builders of a rule's plan (its effect on the state; the matcher is in
//! `matcher`), of labels, and of a location's plan (payoffs and labels per
//! player).

use toss_core::ir::{self, Multiplicity};

use super::builder::{Builder, Effect};
use super::{Bound, Fluent, LabelPlan, LocPlan, PlayerPlan, RulePlan, Unsupported};

impl Builder<'_> {
    pub(crate) fn rule(&mut self, r: &ir::Rule) -> RulePlan {
        let mut plan = RulePlan {
            name: r.name.clone(),
            lhs: r.lhs.elements.clone(),
            steps: Vec::new(),
            join: None,
            shift: None,
            sentence: None,
            removes: Vec::new(),
            adds: Vec::new(),
            tuple_removes: Vec::new(),
            tuple_adds: Vec::new(),
            updates: Vec::new(),
            post: None,
            interpreted: None,
            check_fallback: None,
            effect_fallback: None,
            all: None,
        };
        // Left elements in scope, for the conditions and update terms.
        let lhs_scope: Vec<(String, Bound)> = r
            .lhs
            .elements
            .iter()
            .enumerate()
            .map(|(i, l)| (l.clone(), Bound::Left(i)))
            .collect();
        self.scope = lhs_scope;
        match self.effect(r) {
            Ok(fx) => {
                plan.removes = fx.removes;
                plan.adds = fx.adds;
                plan.tuple_removes = fx.tuple_removes;
                plan.tuple_adds = fx.tuple_adds;
                plan.updates = fx.updates;
            }
            Err(e) => plan.effect_fallback = Some(e),
        }
        if let Err(e) = self.matcher(r, &mut plan) {
            plan.steps.clear();
            plan.join = None;
            plan.shift = None;
            plan.sentence = None;
            plan.post = None;
            plan.check_fallback = None;
            plan.interpreted = Some(e);
        }
        if plan.check_fallback.is_some() {
            // The interpreter checks the whole pre- and postcondition.
            plan.post = None;
        }
        self.scope.clear();
        plan
    }

    /// The effect on the state: fluent bits removed and added, tuples of
    /// other fluent relations removed and added, function updates.
    pub(crate) fn effect(&mut self, r: &ir::Rule) -> Result<Effect, Unsupported> {
        if !r.rhs.functions.is_empty() {
            return Err("function values on the right side are not specialized".into());
        }
        let lhs = &r.lhs.elements;
        let left_of = |b: &str| {
            r.map
                .iter()
                .find(|(rr, _)| rr == b)
                .and_then(|(_, l)| lhs.iter().position(|x| x == l))
                .ok_or_else(|| format!("right element {b} is new"))
        };
        let fluent_of = |n: &str, fl: &[Fluent]| fl.iter().position(|f| f.name == n);
        let mut removes = Vec::new();
        let mut tuple_removes = Vec::new();
        // A stable relation in `emb` keeps its tuples (the analysis found
        // that no rule changes it), whatever its arity.
        for e in &r.emb {
            if let Some(fi) = fluent_of(e, &self.fluents) {
                removes.extend((0..lhs.len()).map(|i| (fi, i)));
            } else if let Some(ri) = self.fluent_rel(e)
                && !tuple_removes.contains(&ri)
            {
                tuple_removes.push(ri);
            }
        }
        let mut adds = Vec::new();
        let mut tuple_adds = Vec::new();
        for t in &r.rhs.tuples {
            if t.optional {
                return Err("optional right tuples are not specialized".into());
            }
            if let Some(fi) = fluent_of(&t.relation, &self.fluents) {
                adds.push((fi, left_of(&t.args[0])?));
            } else if let Some(ri) = self.fluent_rel(&t.relation) {
                let args = t
                    .args
                    .iter()
                    .map(|a| left_of(a))
                    .collect::<Result<_, _>>()?;
                tuple_adds.push((ri, args));
            }
        }
        let mut updates = Vec::new();
        for u in &r.update {
            let f = self
                .funs
                .iter()
                .position(|f| f.name == u.function)
                .ok_or_else(|| format!("unknown function {}", u.function))?;
            let e = lhs
                .iter()
                .position(|l| *l == u.element)
                .ok_or_else(|| format!("update of {} on a right element", u.function))?;
            updates.push((f, e, self.num(&u.value)?));
        }
        Ok(Effect {
            removes,
            adds,
            tuple_removes,
            tuple_adds,
            updates,
        })
    }

    pub(crate) fn label(&mut self, l: &ir::Label) -> Result<LabelPlan, Unsupported> {
        if l.time.is_some() || !l.params.is_empty() {
            return Err("time and parameters are not specialized".into());
        }
        if l.multiplicity == Multiplicity::Any {
            // A move would be a set of matches, one of up to
            // `ANY_MOVES_LIMIT` sets of disjoint matches the interpreter
            // enumerates: not a fixed-size move of the generated code.
            return Err(
                "multiplicity * (a move is any set of disjoint matches) is not specialized".into(),
            );
        }
        let rule = self
            .game
            .rules
            .iter()
            .position(|r| r.name == l.rule)
            .ok_or_else(|| format!("unknown rule {}", l.rule))?;
        let mut targets = Vec::new();
        for t in &l.targets {
            if !t.draws.is_empty() {
                return Err("drawn interval end-points are not specialized".into());
            }
            targets.push((t.location, t.probability.unwrap_or(0.0)));
        }
        Ok(LabelPlan {
            rule,
            all: l.multiplicity == Multiplicity::All,
            targets,
        })
    }

    /// The plan of a location: per player the compiled payoff and the
    /// labels, and the movers.
    pub(crate) fn location(&mut self, loc: &ir::Location) -> Result<LocPlan, Unsupported> {
        let mut players = Vec::new();
        let mut movers = Vec::new();
        for (p, pl) in loc.players.iter().enumerate() {
            let payoff = self.num(&pl.payoff);
            let mut labels = Vec::new();
            for l in &pl.moves {
                labels.push(
                    self.label(l)
                        .map_err(|e| format!("label {}: {e}", l.rule))?,
                );
            }
            if !labels.is_empty() {
                movers.push(p);
            }
            players.push(PlayerPlan {
                payoff,
                labels,
                prefixes: Vec::new(),
            });
        }
        Ok(LocPlan {
            players,
            movers,
            shared: Vec::new(),
        })
    }
}
