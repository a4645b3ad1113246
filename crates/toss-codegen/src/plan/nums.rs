//! Real terms to [`Num`]: payoffs, update values and the derived
//! heuristics (whose parts outside the fragment fall back to the solver).

use toss_core::ir::RealExpr;
use toss_heuristics::Heuristics;
use toss_lang::print::{print_formula, print_real};

use super::builder::{Builder, free_vars};
use super::{Bound, FunRef, HeuristicPlan, Num, Unsupported};

impl Builder<'_> {
    pub(crate) fn num(&mut self, t: &RealExpr) -> Result<Num, Unsupported> {
        let bx = |n: Num| Box::new(n);
        Ok(match t {
            RealExpr::Const(c) => Num::Const(*c),
            RealExpr::Neg(a) => Num::Neg(bx(self.num(a)?)),
            RealExpr::Add(a, b) => Num::Add(bx(self.num(a)?), bx(self.num(b)?)),
            RealExpr::Sub(a, b) => Num::Sub(bx(self.num(a)?), bx(self.num(b)?)),
            RealExpr::Mul(a, b) => Num::Mul(bx(self.num(a)?), bx(self.num(b)?)),
            RealExpr::Char(f) => {
                if !free_vars(f).is_empty() {
                    return Err(format!(
                        "characteristic term with free variables `{}`",
                        print_real(t)
                    ));
                }
                let c = self.cond(f)?;
                Num::Cond(self.cond_id(print_formula(f), c))
            }
            RealExpr::Fun { name, element } => {
                let of = self
                    .bound(element)
                    .ok_or_else(|| format!("unbound element in `{}`", print_real(t)))?;
                let fun = if let Some(i) = self.funs.iter().position(|f| f.name == *name) {
                    FunRef::Fluent(i)
                } else if let Some(i) = self.stable_funs.iter().position(|f| f.name == *name) {
                    self.stable_funs[i].used = true;
                    FunRef::Stable(i)
                } else {
                    return Err(format!("unknown function {name}"));
                };
                Num::Fun(fun, of)
            }
            RealExpr::Sum { vars, guard, body } if vars.len() == 1 => {
                let over = self.set(guard, &vars[0])?;
                if let RealExpr::Const(k) = **body {
                    return Ok(Num::Count(over, k));
                }
                let var = self.next_loop;
                self.next_loop += 1;
                self.scope.push((vars[0].clone(), Bound::Loop(var)));
                let body = self.num(body);
                self.scope.pop();
                Num::Sum {
                    var,
                    over,
                    body: bx(body?),
                }
            }
            _ => return Err(format!("cannot compile the term `{}`", print_real(t))),
        })
    }

    /// A heuristic term: sums, differences and products are split, each
    /// maximal part that does not compile goes to the solver.
    pub(crate) fn heuristic_num(
        &mut self,
        t: &RealExpr,
        fallback: &mut Vec<(RealExpr, Unsupported)>,
    ) -> Num {
        let bx = |n: Num| Box::new(n);
        match t {
            RealExpr::Neg(a) => Num::Neg(bx(self.heuristic_num(a, fallback))),
            RealExpr::Add(a, b) => Num::Add(
                bx(self.heuristic_num(a, fallback)),
                bx(self.heuristic_num(b, fallback)),
            ),
            RealExpr::Sub(a, b) => Num::Sub(
                bx(self.heuristic_num(a, fallback)),
                bx(self.heuristic_num(b, fallback)),
            ),
            RealExpr::Mul(a, b) => Num::Mul(
                bx(self.heuristic_num(a, fallback)),
                bx(self.heuristic_num(b, fallback)),
            ),
            t => match self.num(t) {
                Ok(n) => n,
                Err(why) => {
                    let i = match fallback.iter().position(|(u, _)| u == t) {
                        Some(i) => i,
                        None => {
                            fallback.push((t.clone(), why));
                            fallback.len() - 1
                        }
                    };
                    Num::Solver(i)
                }
            },
        }
    }

    pub(crate) fn heuristic(&mut self, h: &Heuristics) -> HeuristicPlan {
        let mut fallback = Vec::new();
        let per_location = h
            .per_location
            .iter()
            .map(|ts| {
                ts.iter()
                    .map(|t| self.heuristic_num(t, &mut fallback))
                    .collect()
            })
            .collect();
        HeuristicPlan {
            per_location,
            fallback,
        }
    }
}
