//! Rules: duplicate names, the two sides, the constraints (`pre`, `inv`,
//! `post`), dynamics and update equations, and the rule parameters (free
//! real variables) each rule has.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use toss_core::ir::derivative_name;

use crate::ast::*;
use crate::diagnostic::Diagnostic;

use super::{Checker, Ctx, Scope, base_relation};

impl Checker<'_> {
    /// Rule definitions: duplicates, then each rule; records its parameters.
    pub(super) fn rules(&mut self) {
        let file = self.file;
        // ---- rules
        let mut rule_spans: HashMap<&str, &Span> = HashMap::new();
        for item in &file.items {
            if let Item::Rule(r) = item {
                if let Some(first) = rule_spans.get(r.name.name.as_str()) {
                    let first = (*first).clone();
                    self.err(
                        Diagnostic::new(
                            format!("duplicate definition of rule `{}`", r.name.name),
                            r.name.span.clone(),
                        )
                        .with_label(first, "first defined here"),
                    );
                    continue;
                }
                rule_spans.insert(&r.name.name, &r.name.span);
                let params = self.rule(r);
                self.sig
                    .rule_params
                    .insert(r.name.name.clone(), params.keys().cloned().collect());
                self.param_uses.insert(r.name.name.clone(), params);
            }
        }
    }

    pub(super) fn rule(&mut self, r: &RuleDef) -> BTreeMap<String, Span> {
        let lhs: BTreeSet<String> = r.lhs.elements.iter().map(|e| e.name.clone()).collect();
        let rhs: BTreeSet<String> = r.rhs.elements.iter().map(|e| e.name.clone()).collect();
        // Defined relations on the sides.
        for (side, is_rhs) in [(&r.lhs, false), (&r.rhs, true)] {
            for e in &side.relations {
                let (name, _) = base_relation(&e.name.name);
                if is_rhs && self.sig.defined.contains_key(name) {
                    self.err(Diagnostic::new(
                        format!(
                            "the defined relation `{name}` may not appear on a rule's right side"
                        ),
                        e.name.span.clone(),
                    ));
                }
            }
            if is_rhs {
                for e in &side.relations {
                    if e.name.name == "nondistinct" {
                        self.err(Diagnostic::new(
                            "`nondistinct` is only allowed in a rule's left side",
                            e.name.span.clone(),
                        ));
                    }
                }
            }
        }
        for e in &r.emb {
            if self.sig.arity(&e.name).is_none() {
                self.err(Diagnostic::new(
                    format!("undefined relation `{}`", e.name),
                    e.span.clone(),
                ));
            }
        }
        for (rt, lt) in &r.with {
            if !rhs.contains(&rt.name) {
                self.err(Diagnostic::new(
                    format!(
                        "unknown element `{}`: not in the rule's right side",
                        rt.name
                    ),
                    rt.span.clone(),
                ));
            }
            if !lhs.contains(&lt.name) {
                self.err(Diagnostic::new(
                    format!("unknown element `{}`: not in the rule's left side", lt.name),
                    lt.span.clone(),
                ));
            }
        }
        self.optional_right_tuples(r, &lhs, &rhs);
        let mut params: BTreeMap<String, Span> = BTreeMap::new();
        let name = &r.name.name;
        for (f, consts, what) in [
            (&r.pre, &lhs, format!("the precondition of rule {name}")),
            (&r.inv, &lhs, format!("the invariant of rule {name}")),
            (&r.post, &rhs, format!("the postcondition of rule {name}")),
        ] {
            if let Some(f) = f {
                let mut sc = Scope::new(Ctx::Constraint, &what, consts);
                self.formula(f, &mut sc);
                for (p, sp) in sc.free_reals {
                    params.entry(p).or_insert(sp);
                }
            }
        }
        for (eqs, is_update) in [(&r.update, true), (&r.dynamics, false)] {
            for eq in eqs {
                if !self.sig.funs.contains(&eq.function.name) {
                    self.err(Diagnostic::new(
                        format!(
                            "{} for unknown function `{}`",
                            if is_update { "update" } else { "ODE" },
                            eq.function.name
                        ),
                        eq.function.span.clone(),
                    ));
                }
                let side = if is_update { &rhs } else { &lhs };
                if !side.contains(&eq.element.name) {
                    self.err(Diagnostic::new(
                        format!(
                            "unknown element `{}`: not in the rule's {} side",
                            eq.element.name,
                            if is_update { "right" } else { "left" }
                        ),
                        eq.element.span.clone(),
                    ));
                }
                if !is_update && eq.order == 0 {
                    self.err(Diagnostic::new(
                        "an ODE must define a derivative like `:f'(a)`",
                        eq.function.span.clone(),
                    ));
                }
                // An update may set a derivative below the order of the
                // function's ODEs (kept between moves).
                if is_update && eq.order > 0 {
                    self.kept(
                        format!(
                            "`update :{}({})` sets a derivative that is not kept",
                            derivative_name(&eq.function.name, eq.order),
                            eq.element.name
                        ),
                        eq.target.clone(),
                        &eq.function.name,
                        eq.order,
                        Some(&eq.element.name),
                    );
                }
                if !is_update {
                    self.arithmetic(&eq.value);
                }
                let what = format!("an equation of rule {name}");
                let mut sc = Scope::new(Ctx::Equation, &what, &lhs);
                self.term(&eq.value, &mut sc);
                for (p, sp) in sc.free_reals {
                    params.entry(p).or_insert(sp);
                }
            }
        }
        params
    }
}
