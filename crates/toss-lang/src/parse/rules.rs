//! The pest-to-AST conversion of rules (sides, constraints, dynamics and
//! updates), locations, labels, targets and history moves.

use pest::iterators::Pair;

use crate::ast::*;
use crate::diagnostic::Diagnostic;

use super::build::{Builder, bad, ident, inner, parse_f64, parse_nat, span};
use super::{PResult, Rule};

impl Builder {
    pub(super) fn rule_def(&mut self, p: Pair<Rule>) -> PResult<RuleDef> {
        let sp = span(&p);
        let mut name = None;
        let mut sides = Vec::new();
        let mut r = RuleDef {
            name: Ident {
                name: String::new(),
                span: sp.clone(),
            },
            lhs: StructLit::default(),
            rhs: StructLit::default(),
            emb: Vec::new(),
            with: Vec::new(),
            update: Vec::new(),
            dynamics: Vec::new(),
            pre: None,
            inv: None,
            post: None,
            span: sp,
        };
        for q in inner(p) {
            match q.as_rule() {
                Rule::ident => name = Some(ident(&q)),
                Rule::structure => sides.push(self.structure(q)?),
                Rule::emb => r.emb.extend(inner(q).iter().map(ident)),
                Rule::with => {
                    for w in inner(q) {
                        let kv = inner(w.clone());
                        match kv.as_slice() {
                            [a, b] => r.with.push((ident(a), ident(b))),
                            _ => return Err(bad(&w, "with")),
                        }
                    }
                }
                Rule::update | Rule::dynamics => {
                    let is_update = q.as_rule() == Rule::update;
                    for e in inner(q) {
                        let eq = self.equation(e)?;
                        if is_update {
                            r.update.push(eq);
                        } else {
                            r.dynamics.push(eq);
                        }
                    }
                }
                Rule::pre | Rule::inv | Rule::post => {
                    let which = q.as_rule();
                    let f = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "constraint"))?;
                    let f = self.formula(f)?;
                    let slot = match which {
                        Rule::pre => &mut r.pre,
                        Rule::inv => &mut r.inv,
                        _ => &mut r.post,
                    };
                    // A repeated clause is conjoined with the earlier one.
                    *slot = Some(match slot.take() {
                        None => f,
                        Some(old) => {
                            let sp = old.span.start..f.span.end;
                            Formula {
                                kind: FormulaKind::And(vec![old, f]),
                                span: sp,
                            }
                        }
                    });
                }
                _ => return Err(bad(&q, "rule part")),
            }
        }
        if let Some(n) = name {
            r.name = n;
        }
        let mut sides = sides.into_iter();
        r.lhs = sides.next().unwrap_or_default();
        r.rhs = sides.next().unwrap_or_default();
        Ok(r)
    }

    pub(super) fn equation(&mut self, p: Pair<Rule>) -> PResult<Equation> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let [lhs, value] = parts.as_slice() else {
            return Err(bad(&p, "equation"));
        };
        let lhs = self.term(lhs.clone())?;
        let target = lhs.span.clone();
        let TermKind::Fun {
            name,
            order,
            element,
        } = lhs.kind
        else {
            return Err(bad(&p, "equation"));
        };
        Ok(Equation {
            function: name,
            order,
            element,
            target,
            value: self.term(value.clone())?,
            span: sp,
        })
    }

    // ---- locations

    pub(super) fn loc_def(&mut self, p: Pair<Rule>) -> PResult<LocDef> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let id = parse_nat::<usize>(parts.first().ok_or_else(|| bad(&p, "LOC"))?)?;
        let mut players = Vec::new();
        for q in parts.into_iter().skip(1) {
            players.push(self.player_block(q)?);
        }
        Ok(LocDef {
            id,
            players,
            span: sp,
        })
    }

    pub(super) fn player_block(&mut self, p: Pair<Rule>) -> PResult<PlayerBlock> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let name = parts.first().map(ident).ok_or_else(|| bad(&p, "PLAYER"))?;
        let mut payoff = None;
        let mut moves = Vec::new();
        for q in parts.into_iter().skip(1) {
            match q.as_rule() {
                Rule::payoff => {
                    let t = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "payoff"))?;
                    payoff = Some(self.term(t)?);
                }
                Rule::moves => {
                    for l in inner(q) {
                        moves.push(self.label(l)?);
                    }
                }
                _ => return Err(bad(&q, "player part")),
            }
        }
        Ok(PlayerBlock {
            name,
            payoff,
            moves,
            span: sp,
        })
    }

    pub(super) fn label(&mut self, p: Pair<Rule>) -> PResult<LabelDef> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let rule = parts.first().map(ident).ok_or_else(|| bad(&p, "label"))?;
        let mut l = LabelDef {
            rule,
            multiplicity: None,
            intervals: Vec::new(),
            targets: Vec::new(),
            span: sp,
        };
        for q in parts.into_iter().skip(1) {
            match q.as_rule() {
                Rule::mult => {
                    let v = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "mult"))?;
                    let m = match v.as_str() {
                        "1" => Multiplicity::One,
                        "*" => Multiplicity::Any,
                        _ => Multiplicity::All,
                    };
                    l.multiplicity = Some(Num {
                        value: m,
                        span: span(&q),
                    });
                }
                Rule::interval => {
                    let kv = inner(q.clone());
                    let [n, lo, hi] = kv.as_slice() else {
                        return Err(bad(&q, "interval"));
                    };
                    l.intervals
                        .push((ident(n), self.bound(lo.clone())?, self.bound(hi.clone())?));
                }
                Rule::target => l.targets.push(self.target(q)?),
                _ => return Err(bad(&q, "label part")),
            }
        }
        Ok(l)
    }

    pub(super) fn bound(&mut self, p: Pair<Rule>) -> PResult<Bound> {
        let q = inner(p.clone())
            .into_iter()
            .next()
            .ok_or_else(|| bad(&p, "bound"))?;
        Ok(match q.as_rule() {
            Rule::number => Bound::Num(parse_f64(&q)?),
            _ => Bound::Name(ident(&q)),
        })
    }

    pub(super) fn target(&mut self, p: Pair<Rule>) -> PResult<TargetDef> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let location = parse_nat::<usize>(parts.first().ok_or_else(|| bad(&p, "target"))?)?;
        let mut t = TargetDef {
            location,
            probability: None,
            draws: Vec::new(),
            span: sp,
        };
        for q in parts.into_iter().skip(1) {
            match q.as_rule() {
                Rule::prob => {
                    let n = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "probability"))?;
                    t.probability = Some(Num {
                        value: parse_f64(&n)?,
                        span: span(&n),
                    });
                }
                Rule::draw => {
                    let kv = inner(q.clone());
                    let [n, d] = kv.as_slice() else {
                        return Err(bad(&q, "draw"));
                    };
                    t.draws.push((ident(n), distribution(d)?));
                }
                _ => return Err(bad(&q, "target part")),
            }
        }
        Ok(t)
    }

    pub(super) fn hist_move(&mut self, p: Pair<Rule>) -> PResult<HistMove> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let (player, rule) = match parts.as_slice() {
            [a, b, ..] => (ident(a), ident(b)),
            _ => return Err(bad(&p, "history move")),
        };
        let mut m = HistMove {
            player,
            rule,
            matching: Vec::new(),
            values: Vec::new(),
            target: Num {
                value: 0,
                span: sp.clone(),
            },
            span: sp,
        };
        for q in parts.into_iter().skip(2) {
            match q.as_rule() {
                Rule::hist_pair => {
                    let kv = inner(q.clone());
                    let [a, b] = kv.as_slice() else {
                        return Err(bad(&q, "matching"));
                    };
                    m.matching.push((ident(a), ident(b)));
                }
                Rule::hist_value => {
                    let kv = inner(q.clone());
                    let [a, b] = kv.as_slice() else {
                        return Err(bad(&q, "value"));
                    };
                    m.values.push((ident(a), parse_f64(b)?));
                }
                Rule::nat => m.target = parse_nat::<usize>(&q)?,
                _ => return Err(bad(&q, "history part")),
            }
        }
        Ok(m)
    }
}

fn distribution(p: &Pair<Rule>) -> PResult<Distribution> {
    let parts = inner(p.clone());
    let name = parts.first().map(|q| q.as_str()).unwrap_or("");
    let mut args = Vec::new();
    for q in parts.iter().skip(1) {
        args.push(parse_f64(q)?);
    }
    let wrong = |n: usize| {
        Diagnostic::new(
            format!(
                "the distribution `{name}` takes {n} argument(s), found {}",
                args.len()
            ),
            span(p),
        )
    };
    Ok(match (name, args.as_slice()) {
        ("normal", [m, s]) => Distribution::Normal {
            mean: *m,
            std_dev: *s,
        },
        ("uniform", [a, b]) => Distribution::Uniform { lo: *a, hi: *b },
        ("exp", [r]) => Distribution::Exponential { rate: *r },
        ("exp", _) => return Err(wrong(1)),
        _ => return Err(wrong(2)),
    })
}
