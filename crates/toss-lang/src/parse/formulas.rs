//! The pest-to-AST conversion of formulas and real terms (operator chains,
//! binders, comparisons).

use pest::iterators::Pair;

use crate::ast::*;

use super::build::{
    Builder, bad, ident, inner, parse_f64, parse_nat, real_var_ident, span, var_decl,
};
use super::{PResult, Rule};

impl Builder {
    pub(super) fn formula(&mut self, p: Pair<Rule>) -> PResult<Formula> {
        match p.as_rule() {
            Rule::formula => self.chain(p, true),
            Rule::imp => self.chain(p, false),
            Rule::disj | Rule::conj => {
                let sp = span(&p);
                let is_or = p.as_rule() == Rule::disj;
                let parts = inner(p.clone());
                if parts.len() == 1 {
                    let only = parts.into_iter().next().ok_or_else(|| bad(&p, "formula"))?;
                    return self.formula(only);
                }
                self.enter(&p, 0)?;
                let mut fs = Vec::with_capacity(parts.len());
                for q in parts {
                    fs.push(self.formula(q)?);
                }
                self.leave(0);
                Ok(Formula {
                    kind: if is_or {
                        FormulaKind::Or(fs)
                    } else {
                        FormulaKind::And(fs)
                    },
                    span: sp,
                })
            }
            Rule::unary => {
                let parts = inner(p.clone());
                let nots = parts.iter().filter(|q| q.as_rule() == Rule::not_op).count();
                let last = parts.into_iter().last().ok_or_else(|| bad(&p, "formula"))?;
                let not_starts: Vec<usize> = inner(p.clone())
                    .iter()
                    .filter(|q| q.as_rule() == Rule::not_op)
                    .map(|q| q.as_span().start())
                    .collect();
                self.enter(&p, nots)?;
                let mut f = self.formula(last)?;
                self.leave(nots);
                for start in not_starts.into_iter().rev() {
                    let sp = start..f.span.end;
                    f = Formula {
                        kind: FormulaKind::Not(Box::new(f)),
                        span: sp,
                    };
                }
                Ok(f)
            }
            _ => {
                self.enter(&p, 0)?;
                let r = self.formula_node(p);
                self.leave(0);
                r
            }
        }
    }

    /// `a <-> b <-> c` (left fold) or `a -> b -> c` (right fold).
    pub(super) fn chain(&mut self, p: Pair<Rule>, iff: bool) -> PResult<Formula> {
        let parts = inner(p.clone());
        let n = parts.len();
        if n == 1 {
            let only = parts.into_iter().next().ok_or_else(|| bad(&p, "formula"))?;
            return self.formula(only);
        }
        self.enter(&p, n)?;
        let mut fs = Vec::with_capacity(n);
        for q in parts {
            fs.push(self.formula(q)?);
        }
        self.leave(n);
        let mk = |a: Formula, b: Formula| {
            let sp = a.span.start..b.span.end;
            let kind = if iff {
                FormulaKind::Iff(Box::new(a), Box::new(b))
            } else {
                FormulaKind::Implies(Box::new(a), Box::new(b))
            };
            Formula { kind, span: sp }
        };
        let mut it = fs.into_iter();
        if iff {
            let first = it.next().ok_or_else(|| bad(&p, "formula"))?;
            Ok(it.fold(first, mk))
        } else {
            let mut rev = it.rev();
            let last = rev.next().ok_or_else(|| bad(&p, "formula"))?;
            Ok(rev.fold(last, |acc, a| mk(a, acc)))
        }
    }

    pub(super) fn formula_node(&mut self, p: Pair<Rule>) -> PResult<Formula> {
        let sp = span(&p);
        let rule = p.as_rule();
        let parts = inner(p.clone());
        let kind = match rule {
            Rule::true_f => FormulaKind::True,
            Rule::false_f => FormulaKind::False,
            Rule::rel_atom => {
                let name = parts.first().map(ident).ok_or_else(|| bad(&p, "atom"))?;
                FormulaKind::Rel {
                    name,
                    args: parts[1..].iter().map(ident).collect(),
                }
            }
            Rule::elem_eq | Rule::elem_ne => match parts.as_slice() {
                [a, b] => {
                    if rule == Rule::elem_eq {
                        FormulaKind::Eq(ident(a), ident(b))
                    } else {
                        FormulaKind::Ne(ident(a), ident(b))
                    }
                }
                _ => return Err(bad(&p, "equality")),
            },
            Rule::in_atom => match parts.as_slice() {
                [a, b] => FormulaKind::In {
                    element: ident(a),
                    set: ident(b),
                },
                _ => return Err(bad(&p, "membership")),
            },
            Rule::cmp => match parts.as_slice() {
                [l, o, r] => {
                    let op = match o.as_str() {
                        "<" => CmpOp::Lt,
                        "<=" | "=<" => CmpOp::Le,
                        "=" => CmpOp::Eq,
                        "!=" => CmpOp::Ne,
                        ">=" => CmpOp::Ge,
                        _ => CmpOp::Gt,
                    };
                    FormulaKind::Cmp {
                        lhs: self.term(l.clone())?,
                        op,
                        rhs: self.term(r.clone())?,
                    }
                }
                _ => return Err(bad(&p, "comparison")),
            },
            Rule::exists | Rule::forall => {
                let (vl, body) = match parts.as_slice() {
                    [vl, body] => (vl.clone(), body.clone()),
                    _ => return Err(bad(&p, "quantifier")),
                };
                let vars = inner(vl).iter().map(var_decl).collect();
                let body = Box::new(self.formula(body)?);
                if rule == Rule::exists {
                    FormulaKind::Exists { vars, body }
                } else {
                    FormulaKind::Forall { vars, body }
                }
            }
            Rule::lfp | Rule::gfp => {
                let mut relation = None;
                let mut params = Vec::new();
                let mut body = None;
                for q in parts {
                    match q.as_rule() {
                        Rule::ident => relation = Some(ident(&q)),
                        Rule::param_list => params = inner(q).iter().map(ident).collect(),
                        _ => body = Some(self.formula(q)?),
                    }
                }
                FormulaKind::Fixpoint {
                    kind: if rule == Rule::lfp {
                        FixpointKind::Least
                    } else {
                        FixpointKind::Greatest
                    },
                    relation: relation.ok_or_else(|| bad(&p, "fixed point"))?,
                    params,
                    body: Box::new(body.ok_or_else(|| bad(&p, "fixed point"))?),
                }
            }
            Rule::tc => {
                let mut steps = None;
                let mut sides: Vec<Vec<Ident>> = Vec::new();
                let mut body = None;
                for q in parts {
                    match q.as_rule() {
                        Rule::tc_steps => {
                            if let Some(n) = inner(q).first() {
                                steps = Some(parse_nat::<u32>(n)?);
                            }
                        }
                        Rule::tc_vars => sides.push(inner(q).iter().map(ident).collect()),
                        _ => body = Some(self.formula(q)?),
                    }
                }
                let to = sides.pop().unwrap_or_default();
                let from = sides.pop().unwrap_or_default();
                FormulaKind::Tc {
                    steps,
                    from,
                    to,
                    body: Box::new(body.ok_or_else(|| bad(&p, "tc"))?),
                }
            }
            Rule::let_rel => {
                let mut relation = None;
                let mut params = Vec::new();
                let mut fs = Vec::new();
                for q in parts {
                    match q.as_rule() {
                        Rule::ident => relation = Some(ident(&q)),
                        Rule::param_list => params = inner(q).iter().map(ident).collect(),
                        _ => fs.push(self.formula(q)?),
                    }
                }
                let body = fs.pop().ok_or_else(|| bad(&p, "let"))?;
                let def = fs.pop().ok_or_else(|| bad(&p, "let"))?;
                FormulaKind::Let {
                    relation: relation.ok_or_else(|| bad(&p, "let"))?,
                    params,
                    def: Box::new(def),
                    body: Box::new(body),
                }
            }
            Rule::let_real_f => match parts.as_slice() {
                [v, t, f] => FormulaKind::LetReal {
                    var: real_var_ident(v),
                    value: self.term(t.clone())?,
                    body: Box::new(self.formula(f.clone())?),
                },
                _ => return Err(bad(&p, "let")),
            },
            Rule::formula | Rule::imp | Rule::disj | Rule::conj | Rule::unary => {
                return self.formula(p);
            }
            _ => return Err(bad(&p, "formula")),
        };
        Ok(Formula { kind, span: sp })
    }

    // ---- terms

    pub(super) fn term(&mut self, p: Pair<Rule>) -> PResult<Term> {
        let rule = p.as_rule();
        match rule {
            Rule::term | Rule::product => {
                // operand (op operand)*, left fold
                let parts = inner(p.clone());
                let n = parts.len() / 2;
                if n == 0 {
                    let only = parts.into_iter().next().ok_or_else(|| bad(&p, "term"))?;
                    return self.term(only);
                }
                self.enter(&p, n)?;
                let mut it = parts.into_iter();
                let first = it.next().ok_or_else(|| bad(&p, "term"))?;
                let mut acc = self.term(first)?;
                while let (Some(op), Some(rhs)) = (it.next(), it.next()) {
                    let rhs = self.term(rhs)?;
                    let sp = acc.span.start..rhs.span.end;
                    let (a, b) = (Box::new(acc), Box::new(rhs));
                    let kind = match op.as_str() {
                        "+" => TermKind::Add(a, b),
                        "-" => TermKind::Sub(a, b),
                        "*" => TermKind::Mul(a, b),
                        _ => TermKind::Div(a, b),
                    };
                    acc = Term { kind, span: sp };
                }
                self.leave(n);
                Ok(acc)
            }
            Rule::neg => {
                let parts = inner(p.clone());
                let starts: Vec<usize> = parts
                    .iter()
                    .filter(|q| q.as_rule() == Rule::neg_op)
                    .map(|q| q.as_span().start())
                    .collect();
                let last = parts.into_iter().last().ok_or_else(|| bad(&p, "term"))?;
                let n = starts.len();
                self.enter(&p, n)?;
                let mut t = self.term(last)?;
                self.leave(n);
                for s in starts.into_iter().rev() {
                    let sp = s..t.span.end;
                    t = Term {
                        kind: TermKind::Neg(Box::new(t)),
                        span: sp,
                    };
                }
                Ok(t)
            }
            Rule::power => {
                let parts = inner(p.clone());
                let n = parts.len();
                if n == 1 {
                    let only = parts.into_iter().next().ok_or_else(|| bad(&p, "term"))?;
                    return self.term(only);
                }
                self.enter(&p, n)?;
                let mut ts = Vec::with_capacity(n);
                for q in parts {
                    ts.push(self.term(q)?);
                }
                self.leave(n);
                let mut rev = ts.into_iter().rev();
                let last = rev.next().ok_or_else(|| bad(&p, "term"))?;
                Ok(rev.fold(last, |acc, a| {
                    let sp = a.span.start..acc.span.end;
                    Term {
                        kind: TermKind::Pow(Box::new(a), Box::new(acc)),
                        span: sp,
                    }
                }))
            }
            _ => {
                self.enter(&p, 0)?;
                let r = self.term_node(p);
                self.leave(0);
                r
            }
        }
    }

    pub(super) fn term_node(&mut self, p: Pair<Rule>) -> PResult<Term> {
        let sp = span(&p);
        let rule = p.as_rule();
        let parts = inner(p.clone());
        let kind = match rule {
            Rule::unsigned => TermKind::Num(parse_f64(&p)?),
            Rule::real_var => TermKind::Var(real_var_ident(&p)),
            Rule::fun_t => {
                let mut name = None;
                let mut order = 0;
                let mut element = None;
                for q in parts {
                    match q.as_rule() {
                        Rule::real_var => name = Some(real_var_ident(&q)),
                        Rule::primes => order = q.as_str().len() as u32,
                        _ => element = Some(ident(&q)),
                    }
                }
                TermKind::Fun {
                    name: name.ok_or_else(|| bad(&p, "function"))?,
                    order,
                    element: element.ok_or_else(|| bad(&p, "function"))?,
                }
            }
            Rule::char_t => {
                let f = parts.into_iter().next().ok_or_else(|| bad(&p, "term"))?;
                TermKind::Char(Box::new(self.formula(f)?))
            }
            Rule::sqrt_t => {
                let t = parts.into_iter().next().ok_or_else(|| bad(&p, "term"))?;
                TermKind::Sqrt(Box::new(self.term(t)?))
            }
            Rule::root_t => match parts.as_slice() {
                [n, t] => TermKind::Root(parse_nat::<u32>(n)?, Box::new(self.term(t.clone())?)),
                _ => return Err(bad(&p, "root")),
            },
            Rule::sum_t | Rule::product_t => match parts.as_slice() {
                [vs, g, t] => {
                    let vars = inner(vs.clone()).iter().map(ident).collect();
                    let guard = Box::new(self.formula(g.clone())?);
                    let body = Box::new(self.term(t.clone())?);
                    if rule == Rule::sum_t {
                        TermKind::Sum { vars, guard, body }
                    } else {
                        TermKind::Product { vars, guard, body }
                    }
                }
                _ => return Err(bad(&p, "sum")),
            },
            Rule::min_t => match parts.as_slice() {
                [v, f] => TermKind::Min {
                    var: real_var_ident(v),
                    body: Box::new(self.formula(f.clone())?),
                },
                _ => return Err(bad(&p, "min")),
            },
            Rule::let_t => match parts.as_slice() {
                [v, a, b] => TermKind::Let {
                    var: real_var_ident(v),
                    value: Box::new(self.term(a.clone())?),
                    body: Box::new(self.term(b.clone())?),
                },
                _ => return Err(bad(&p, "let")),
            },
            Rule::term | Rule::product | Rule::neg | Rule::power => return self.term(p),
            _ => return Err(bad(&p, "term")),
        };
        Ok(Term { kind, span: sp })
    }
}
