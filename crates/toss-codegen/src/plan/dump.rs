//! The text dump of a plan ([`Plan::dump`], snapshot-tested): what is
//! stable, the precomputed sets, the compiled conditions, the matchers
//! with their join orders, effects, locations, shared prefixes and the
//! heuristic, fallbacks included.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use toss_core::ir;
use toss_lang::print::print_real;

use super::builder::clean;
use super::visit::reads_only_relations;
use super::{
    AllEffect, Bound, Cond, FunRef, HeuristicPlan, LabelPlan, LocPlan, Num, Plan, PrefixNode, Rel2,
    Repr, RulePlan, SetExpr,
};

pub(crate) fn bound_text(b: Bound) -> String {
    match b {
        Bound::Left(i) => format!("e{i}"),
        Bound::Loop(i) => format!("q{i}"),
    }
}

pub(crate) fn cmp_text(op: ir::CmpOp) -> &'static str {
    match op {
        ir::CmpOp::Lt => "<",
        ir::CmpOp::Le => "<=",
        ir::CmpOp::Eq => "=",
        ir::CmpOp::Ne => "!=",
        ir::CmpOp::Ge => ">=",
        ir::CmpOp::Gt => ">",
    }
}

impl Plan {
    fn names(&self, members: &BTreeSet<u32>) -> String {
        let v: Vec<&str> = members
            .iter()
            .map(|&e| self.elements[e as usize].as_str())
            .collect();
        format!("{{{}}}", v.join(", "))
    }

    pub fn set_text(&self, s: &SetExpr) -> String {
        match s {
            SetExpr::Empty => "{}".into(),
            SetExpr::Universe => "U".into(),
            SetExpr::Mask(i) => format!("m{i}"),
            SetExpr::Fluent(i) => self.fluents[*i].name.clone(),
            SetExpr::FixVar(v) => format!("T{v}"),
            SetExpr::And(v) => {
                let p: Vec<String> = v.iter().map(|s| self.set_text(s)).collect();
                format!("({})", p.join(" & "))
            }
            SetExpr::Or(v) => {
                let p: Vec<String> = v.iter().map(|s| self.set_text(s)).collect();
                format!("({})", p.join(" | "))
            }
            SetExpr::Not(s) => format!("!{}", self.set_text(s)),
            SetExpr::Image { rel, of } => format!("{}[{}]", self.rel_text(rel), self.set_text(of)),
            SetExpr::AllIf(s) => format!("all_if({})", self.set_text(s)),
            SetExpr::Fix { var, body } => format!("lfp T{var}. {}", self.set_text(body)),
            SetExpr::Elem(b) => format!("{{{}}}", bound_text(*b)),
            SetExpr::Row { table, of } => format!("t{table}[{}]", bound_text(*of)),
            SetExpr::Row2 { table, a, b } => {
                format!("t{table}[{}, {}]", bound_text(*a), bound_text(*b))
            }
            SetExpr::If(c) => format!("all_if({})", self.cond_text(c)),
            SetExpr::Tuples { rel, args } => {
                let a: Vec<String> = args
                    .iter()
                    .map(|b| b.map_or_else(|| "x".to_string(), bound_text))
                    .collect();
                format!("{}({})", self.fluent_rels[*rel].name, a.join(", "))
            }
            SetExpr::Ray {
                table,
                from,
                through,
                up,
            } => format!(
                "ray t{table}[{}] through {} (cut at the {} blocker)",
                bound_text(*from),
                self.set_text(through),
                if *up { "least" } else { "greatest" }
            ),
        }
    }

    fn rel_text(&self, r: &Rel2) -> String {
        match r {
            Rel2::Shifts(v) => {
                let p: Vec<String> = v.iter().map(|(d, m)| format!("{d:+}@m{m}")).collect();
                format!("shift({})", p.join(" "))
            }
            Rel2::Table(t) => format!("t{t}"),
            Rel2::Fluent { rel, forward } => {
                let name = &self.fluent_rels[*rel].name;
                if *forward {
                    name.clone()
                } else {
                    format!("{name}^-1")
                }
            }
        }
    }

    pub fn cond_text(&self, c: &Cond) -> String {
        match c {
            Cond::Const(b) => b.to_string(),
            Cond::NonEmpty(s) => format!("nonempty {}", self.set_text(s)),
            Cond::Pattern { pattern, sets } => {
                let p: Vec<String> = sets.iter().map(|s| self.set_text(s)).collect();
                format!("p{pattern}({})", p.join(", "))
            }
            Cond::Not(c) => format!("not {}", self.cond_text(c)),
            Cond::And(v) => {
                let p: Vec<String> = v.iter().map(|c| self.cond_text(c)).collect();
                format!("({})", p.join(" and "))
            }
            Cond::Or(v) => {
                let p: Vec<String> = v.iter().map(|c| self.cond_text(c)).collect();
                format!("({})", p.join(" or "))
            }
            Cond::In(b, s) => format!("{} in {}", bound_text(*b), self.set_text(s)),
            Cond::Eq(a, b) => format!("{} = {}", bound_text(*a), bound_text(*b)),
            Cond::Holds { rel, args } => {
                let a: Vec<String> = args.iter().map(|b| bound_text(*b)).collect();
                format!("{}({})", self.fluent_rels[*rel].name, a.join(", "))
            }
            Cond::Cmp(a, op, b) => format!(
                "{} {} {}",
                self.num_text(a),
                cmp_text(*op),
                self.num_text(b)
            ),
            Cond::Exists { var, over, body } => format!(
                "ex q{var} in {} ({})",
                self.set_text(over),
                self.cond_text(body)
            ),
        }
    }

    pub fn num_text(&self, n: &Num) -> String {
        match n {
            Num::Const(c) => format!("{c}"),
            Num::Cond(c) => format!("[c{c}]"),
            Num::Count(s, k) => format!("{k} * #{}", self.set_text(s)),
            Num::Neg(a) => format!("-{}", self.num_text(a)),
            Num::Add(a, b) => format!("({} + {})", self.num_text(a), self.num_text(b)),
            Num::Sub(a, b) => format!("({} - {})", self.num_text(a), self.num_text(b)),
            Num::Mul(a, b) => format!("({} * {})", self.num_text(a), self.num_text(b)),
            Num::Fun(f, b) => {
                let name = match f {
                    FunRef::Stable(i) => &self.stable_funs[*i].name,
                    FunRef::Fluent(i) => &self.funs[*i].name,
                };
                format!(":{name}({})", bound_text(*b))
            }
            Num::Sum { var, over, body } => {
                let b = self.num_text(body);
                // Sums, differences and products print in parentheses.
                let b = match **body {
                    Num::Add(..) | Num::Sub(..) | Num::Mul(..) => b,
                    _ => format!("({b})"),
                };
                format!("sum q{var} in {} {b}", self.set_text(over))
            }
            Num::Solver(i) => format!("[h{i} by the solver]"),
        }
    }

    /// A one-line description of a matcher (for the dump and doc comments).
    pub fn matcher_text(&self, r: &RulePlan) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(j) = &r.join {
            let names = |o: &[usize]| {
                o.iter()
                    .map(|&e| r.lhs[e].as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let declared: Vec<usize> = (0..r.lhs.len()).collect();
            out.push(if j.reordered {
                format!(
                    "join order {} (estimated {:.1} partial matches, {:.1} in declaration order; \
                     about {:.1} matches, sorted into canonical order)",
                    names(&j.greedy),
                    j.greedy_cost,
                    j.declared_cost,
                    j.matches
                )
            } else if j.greedy == declared {
                format!(
                    "join order {} as declared, also the most selective first (estimated {:.1} \
                     partial matches)",
                    names(&declared),
                    j.declared_cost
                )
            } else {
                format!(
                    "join order {} as declared (estimated {:.1} partial matches; {} first would \
                     take {:.1} and a sort of about {:.1} matches)",
                    names(&declared),
                    j.declared_cost,
                    names(&j.greedy),
                    j.greedy_cost,
                    j.matches
                )
            });
        }
        for st in &r.steps {
            let mut line = format!("{} in {}", r.lhs[st.elem], self.set_text(&st.cand));
            for l in &st.links {
                line.push_str(&format!(" & t{}[{}]", l.table, r.lhs[l.from]));
            }
            for &j in &st.distinct_from {
                line.push_str(&format!(", != {}", r.lhs[j]));
            }
            for s in &st.inner {
                line.push_str(&format!(" & {}", self.set_text(s)));
            }
            for c in &st.checks {
                line.push_str(&format!(", if {}", self.cond_text(c)));
            }
            out.push(line);
        }
        if let Some(c) = &r.post {
            let on = if reads_only_relations(c) {
                " (applied to a copy of the fluent bitsets alone)"
            } else {
                ""
            };
            out.push(format!("after the effect{on}: {}", self.cond_text(c)));
        }
        // A label of multiplicity inf is one move, never counted by its
        // matches.
        let counted_label = self
            .locations
            .iter()
            .flat_map(|l| l.players.iter().flat_map(|p| &p.labels))
            .any(|l| !l.all && std::ptr::eq(&self.rules[l.rule], r));
        if counted_label && r.last_step_counted() && r.steps.len() > 1 {
            out.push(format!(
                "counted by a popcount of the candidates of {} per binding of the earlier elements",
                r.lhs[r.steps.len() - 1]
            ));
        }
        if let Some(why) = &r.interpreted {
            out.push(format!("matches from the interpreter ({why})"));
        }
        if let Some(why) = &r.check_fallback {
            out.push(format!("each match checked by the interpreter ({why})"));
        }
        if let Some((d, m)) = r.shift {
            out.push(format!(
                "as a shift: {} = {} {d:+} for {} in m{m}",
                r.lhs[1], r.lhs[0], r.lhs[0]
            ));
        }
        out
    }

    /// A shared-prefix forest, one line per node: the left element it
    /// binds, the labels through it and those ending there.
    fn prefix_text(
        &self,
        labels: &[LabelPlan],
        nodes: &[PrefixNode],
        indent: usize,
        o: &mut String,
    ) {
        for n in nodes {
            let r = &self.rules[n.rule];
            let name = |lb: &usize| self.rules[labels[*lb].rule].name.clone();
            let through: Vec<String> = n.labels.iter().map(name).collect();
            let ends: Vec<String> = n
                .ends
                .iter()
                .map(|lb| {
                    let rule = &self.rules[labels[*lb].rule];
                    let how = if rule.last_step_counted() {
                        "popcount"
                    } else {
                        "per match"
                    };
                    format!("{} ({how})", rule.name)
                })
                .collect();
            let mut line = format!(
                "{}{} [{}]",
                "    ".repeat(indent) + &"  ".repeat(n.depth),
                r.lhs[n.depth],
                through.join(", ")
            );
            if !ends.is_empty() {
                line.push_str(&format!(" ends {}", ends.join(", ")));
            }
            let _ = writeln!(o, "{line}");
            self.prefix_text(labels, &n.children, indent, o);
        }
    }

    /// The plan as text: what is stable, the precomputed sets, the
    /// compiled conditions and the matchers with their join orders.
    pub fn dump(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "players: {}\nelements: {} in {} word(s)",
            self.players.join(", "),
            self.elements.len(),
            self.words
        );
        let _ = writeln!(o, "stable: {}", self.stable.join(", "));
        match self.payoff_bounds {
            Some((lo, hi)) => {
                let _ = writeln!(o, "payoffs within [{lo}, {hi}]");
            }
            None => {
                let _ = writeln!(o, "payoffs without a bound found");
            }
        }
        self.dump_state(&mut o);
        self.dump_constants(&mut o);
        for r in &self.rules {
            self.dump_rule(r, &mut o);
        }
        for (li, l) in self.locations.iter().enumerate() {
            self.dump_location(li, l, &mut o);
        }
        if let Some(h) = &self.heuristic {
            self.dump_heuristic(h, &mut o);
        }
        o
    }

    /// The fluent relations (bitsets and the other arities) and functions.
    fn dump_state(&self, o: &mut String) {
        for (i, f) in self.fluents.iter().enumerate() {
            let m: BTreeSet<u32> = f.initial.iter().copied().collect();
            let _ = writeln!(
                o,
                "fluent {i}: {} (bitset), initially {}",
                f.name,
                self.names(&m)
            );
        }
        for (i, r) in self.fluent_rels.iter().enumerate() {
            let how = match r.repr {
                Repr::Dense => format!(
                    "dense: per element its successors and its predecessors, 2 x {} sets, \
                     and the set of loops",
                    self.elements.len()
                ),
                Repr::Sparse if r.arity == 0 => "sparse: the empty tuple while it holds".into(),
                Repr::Sparse => format!("sparse: a sorted list of {}-tuples", r.arity),
            };
            let tuples: Vec<String> = r
                .initial
                .iter()
                .map(|t| {
                    let names: Vec<&str> = t
                        .iter()
                        .map(|&e| self.elements[e as usize].as_str())
                        .collect();
                    format!("({})", names.join(", "))
                })
                .collect();
            let _ = writeln!(
                o,
                "fluent relation {i}: {}/{} ({how}), initially {{{}}}",
                r.name,
                r.arity,
                tuples.join(", ")
            );
        }
        for (i, f) in self.funs.iter().enumerate() {
            let _ = writeln!(o, "function {i}: :{} (values in the state)", f.name);
        }
    }

    /// The constant masks, tables and patterns, and the compiled conditions.
    fn dump_constants(&self, o: &mut String) {
        for (i, m) in self.masks.iter().enumerate() {
            let _ = writeln!(
                o,
                "mask m{i} = {}\n    ({})",
                self.names(&m.members),
                m.what
            );
        }
        for (i, t) in self.tables.iter().enumerate() {
            let n: usize = t.rows.iter().map(BTreeSet::len).sum();
            let _ = writeln!(o, "table t{i}: {} ({n} pairs)", t.what);
        }
        for (i, p) in self.patterns.iter().enumerate() {
            let _ = writeln!(
                o,
                "pattern p{i}({}): {} ({} tuples, {} offset groups)",
                p.vars.join(", "),
                p.what,
                p.tuples,
                p.groups.len()
            );
            for (offs, m) in &p.groups {
                let _ = writeln!(o, "    offsets {offs:?} from m{m}");
            }
        }
        for (i, (what, c)) in self.conds.iter().enumerate() {
            let _ = writeln!(o, "cond c{i} = {}\n    ({what})", self.cond_text(c));
        }
    }

    /// A rule: its sentence, matcher, effect and how it applies all matches.
    fn dump_rule(&self, r: &RulePlan, o: &mut String) {
        let _ = writeln!(o, "rule {}({}):", r.name, r.lhs.join(", "));
        if let Some(c) = r.sentence {
            let _ = writeln!(o, "    when c{c}");
        }
        for line in self.matcher_text(r) {
            let _ = writeln!(o, "    {line}");
        }
        let fx = |v: &[(usize, usize)]| -> String {
            let p: Vec<String> = v
                .iter()
                .map(|&(f, e)| format!("{}({})", self.fluents[f].name, r.lhs[e]))
                .collect();
            p.join(" ")
        };
        match &r.effect_fallback {
            None => {
                let mut removes = fx(&r.removes);
                for &t in &r.tuple_removes {
                    let sep = if removes.is_empty() { "" } else { " " };
                    let _ = write!(
                        removes,
                        "{sep}{}(over {})",
                        self.fluent_rels[t].name,
                        r.lhs.join(", ")
                    );
                }
                let mut adds = fx(&r.adds);
                for (t, args) in &r.tuple_adds {
                    let sep = if adds.is_empty() { "" } else { " " };
                    let a: Vec<&str> = args.iter().map(|&e| r.lhs[e].as_str()).collect();
                    let _ = write!(adds, "{sep}{}({})", self.fluent_rels[*t].name, a.join(", "));
                }
                let _ = writeln!(o, "    removes {removes}; adds {adds}");
                for (f, e, v) in &r.updates {
                    let _ = writeln!(
                        o,
                        "    sets :{}({}) = {}",
                        self.funs[*f].name,
                        r.lhs[*e],
                        self.num_text(v)
                    );
                }
            }
            Some(why) => {
                let _ = writeln!(o, "    applied by the interpreter ({why})");
            }
        }
        match &r.all {
            None => {}
            Some(AllEffect::Sets) => {
                let _ = writeln!(
                    o,
                    "    all matches at once: as sets of images per left element"
                );
            }
            Some(AllEffect::Sequential(why)) => {
                let _ = writeln!(
                    o,
                    "    all matches at once: listed, then applied one after the other ({why})"
                );
            }
        }
    }

    /// A location: its shared sets, and per player the payoff, the labels and
    /// the shared-prefix tree.
    fn dump_location(&self, li: usize, l: &LocPlan, o: &mut String) {
        let _ = writeln!(o, "location {li}:");
        for (i, s) in l.shared.iter().enumerate() {
            let _ = writeln!(o, "    computed once per ply: sh{i} = {}", self.set_text(s));
        }
        for (p, pl) in l.players.iter().enumerate() {
            let labels: Vec<String> = pl
                .labels
                .iter()
                .map(|lb| {
                    let t: Vec<String> = lb
                        .targets
                        .iter()
                        .map(|(l, pr)| {
                            if lb.targets.len() > 1 {
                                format!("{l} (p {pr})")
                            } else {
                                l.to_string()
                            }
                        })
                        .collect();
                    let mult = if lb.all { ", mult: inf" } else { "" };
                    format!("{}{mult} -> {}", self.rules[lb.rule].name, t.join("; "))
                })
                .collect();
            let payoff = match &pl.payoff {
                Ok(n) => self.num_text(n),
                Err(why) => format!("by the interpreter ({why})"),
            };
            let _ = writeln!(
                o,
                "    {}: payoff {payoff}; moves [{}]",
                self.players[p],
                labels.join(", ")
            );
            if !pl.prefixes.is_empty() {
                let _ = writeln!(
                    o,
                    "    {}: matches counted over shared prefixes (each node enumerated once):",
                    self.players[p]
                );
                self.prefix_text(&pl.labels, &pl.prefixes, 2, o);
            }
        }
    }

    /// The compiled heuristic and its parts on the solver.
    fn dump_heuristic(&self, h: &HeuristicPlan, o: &mut String) {
        let _ = writeln!(
            o,
            "heuristic (existential, default configuration): {} part(s) by the solver",
            h.fallback.len()
        );
        for (li, l) in h.per_location.iter().enumerate() {
            for (p, n) in l.iter().enumerate() {
                let _ = writeln!(
                    o,
                    "    location {li}, {}: {}",
                    self.players[p],
                    self.num_text(n)
                );
            }
        }
        for (i, (t, why)) in h.fallback.iter().enumerate() {
            let _ = writeln!(o, "    h{i} = {}\n        ({why})", clean(&print_real(t)));
        }
    }
}
