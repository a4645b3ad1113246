//! The pest-to-AST conversion of structures (elements, relation and
//! function entries) and of REL definitions.

use pest::iterators::Pair;

use crate::ast::*;

use super::build::{Builder, bad, ident, inner, parse_f64, parse_nat, span};
use super::{PResult, Rule};

impl Builder {
    pub(super) fn first_structure(&mut self, p: Pair<Rule>) -> PResult<StructLit> {
        let q = inner(p.clone())
            .into_iter()
            .next()
            .ok_or_else(|| bad(&p, "structure"))?;
        self.structure(q)
    }

    pub(super) fn rel_def(&mut self, p: Pair<Rule>) -> PResult<RelDef> {
        let sp = span(&p);
        let mut name = None;
        let mut params = Vec::new();
        let mut body = None;
        for q in inner(p.clone()) {
            match q.as_rule() {
                Rule::ident => name = Some(ident(&q)),
                Rule::param_list => params = inner(q).iter().map(ident).collect(),
                Rule::rel_eq_body | Rule::rel_brace_body => {
                    let f = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "body"))?;
                    body = Some(self.formula(f)?);
                }
                _ => return Err(bad(&q, "REL part")),
            }
        }
        Ok(RelDef {
            name: name.ok_or_else(|| bad(&p, "REL"))?,
            params,
            body: body.ok_or_else(|| bad(&p, "REL"))?,
            span: sp,
        })
    }

    pub(super) fn structure(&mut self, p: Pair<Rule>) -> PResult<StructLit> {
        let mut s = StructLit {
            span: span(&p),
            ..StructLit::default()
        };
        for q in inner(p) {
            match q.as_rule() {
                Rule::elem_section => s.elements = inner(q).iter().map(ident).collect(),
                Rule::rel_section => {
                    for e in inner(q) {
                        if e.as_rule() == Rule::rel_entry {
                            s.relations.push(self.rel_entry(e)?);
                        }
                    }
                }
                Rule::fun_section => {
                    for e in inner(q) {
                        if e.as_rule() == Rule::fun_entry {
                            s.functions.push(self.fun_entry(e)?);
                        }
                    }
                }
                Rule::string => {
                    let text = q.as_str();
                    let body = text
                        .strip_prefix('"')
                        .and_then(|t| t.strip_suffix('"'))
                        .unwrap_or("");
                    s.board = Some((body.to_string(), span(&q)));
                }
                _ => return Err(bad(&q, "structure part")),
            }
        }
        Ok(s)
    }

    pub(super) fn rel_entry(&mut self, p: Pair<Rule>) -> PResult<RelEntry> {
        let sp = span(&p);
        let mut name = None;
        let mut declared_arity = None;
        let mut tuples = Vec::new();
        for q in inner(p.clone()) {
            match q.as_rule() {
                Rule::ident => name = Some(ident(&q)),
                Rule::arity_decl => {
                    if let Some(n) = inner(q).first() {
                        declared_arity = Some(parse_nat::<usize>(n)?);
                    }
                }
                Rule::tuple => {
                    tuples.push((inner(q.clone()).iter().map(ident).collect(), span(&q)))
                }
                Rule::tuple_set => {
                    for t in inner(q) {
                        match t.as_rule() {
                            Rule::tuple => tuples
                                .push((inner(t.clone()).iter().map(ident).collect(), span(&t))),
                            _ => tuples.push((vec![ident(&t)], span(&t))),
                        }
                    }
                }
                _ => return Err(bad(&q, "relation part")),
            }
        }
        Ok(RelEntry {
            name: name.ok_or_else(|| bad(&p, "relation"))?,
            declared_arity,
            tuples,
            span: sp,
        })
    }

    pub(super) fn fun_entry(&mut self, p: Pair<Rule>) -> PResult<FunEntry> {
        let sp = span(&p);
        let mut name = None;
        let mut order = 0;
        let mut values = Vec::new();
        for q in inner(p.clone()) {
            match q.as_rule() {
                Rule::fun_name => {
                    for r in inner(q) {
                        match r.as_rule() {
                            Rule::primes => order = r.as_str().len() as u32,
                            _ => name = Some(ident(&r)),
                        }
                    }
                }
                Rule::fun_value => {
                    let kv = inner(q.clone());
                    match kv.as_slice() {
                        [e, v] => values.push((ident(e), parse_f64(v)?)),
                        _ => return Err(bad(&q, "function value")),
                    }
                }
                _ => return Err(bad(&q, "function part")),
            }
        }
        Ok(FunEntry {
            name: name.ok_or_else(|| bad(&p, "function"))?,
            order,
            values,
            span: sp,
        })
    }
}
