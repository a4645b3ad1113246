//! A small tree-walking evaluator with the API of the logic solver
//! (`crate::solver::Solver`), used by the interpreter until the solver
//! lands: first-order formulas over the signature and defined relations,
//! and arithmetic real terms. Second-order variables, fixed points,
//! transitive closure, sums and products are not supported here.

use crate::ir::{self, CmpOp, Formula, RealExpr};
use crate::structure::{Elem, RelId, Structure};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FormulaId(pub u32);
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RealId(pub u32);
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolverError {
    pub message: String,
}

struct Compiled<T> {
    body: T,
    constants: Vec<String>,
    params: Vec<String>,
}

pub struct Solver {
    defined: Vec<ir::DefinedRelation>,
    formulas: Vec<Compiled<Formula>>,
    reals: Vec<Compiled<RealExpr>>,
}

#[derive(Clone)]
enum Val {
    E(Elem),
    R(f64),
}

struct Env<'a> {
    s: &'a Structure,
    vars: Vec<(String, Val)>,
}

impl Env<'_> {
    fn elem(&self, n: &str) -> Elem {
        for (k, v) in self.vars.iter().rev() {
            if k == n
                && let Val::E(e) = v
            {
                return *e;
            }
        }
        self.s.element(n).unwrap_or(Elem::MAX)
    }
    fn real(&self, n: &str) -> f64 {
        for (k, v) in self.vars.iter().rev() {
            if k == n
                && let Val::R(r) = v
            {
                return *r;
            }
        }
        0.0
    }
}

impl Solver {
    pub fn new(
        _signature: &Structure,
        defined: &[ir::DefinedRelation],
    ) -> Result<Solver, SolverError> {
        Ok(Solver {
            defined: defined.to_vec(),
            formulas: Vec::new(),
            reals: Vec::new(),
        })
    }

    pub fn compile_formula(
        &mut self,
        f: &Formula,
        constants: &[&str],
        params: &[&str],
    ) -> Result<FormulaId, SolverError> {
        self.formulas.push(Compiled {
            body: f.clone(),
            constants: constants.iter().map(|s| s.to_string()).collect(),
            params: params.iter().map(|s| s.to_string()).collect(),
        });
        Ok(FormulaId(self.formulas.len() as u32 - 1))
    }

    pub fn compile_real(
        &mut self,
        t: &RealExpr,
        constants: &[&str],
        params: &[&str],
    ) -> Result<RealId, SolverError> {
        self.reals.push(Compiled {
            body: t.clone(),
            constants: constants.iter().map(|s| s.to_string()).collect(),
            params: params.iter().map(|s| s.to_string()).collect(),
        });
        Ok(RealId(self.reals.len() as u32 - 1))
    }

    fn env<'a, T>(
        &self,
        s: &'a Structure,
        c: &Compiled<T>,
        constants: &[Elem],
        params: &[f64],
    ) -> Env<'a> {
        let mut vars = Vec::new();
        for (n, &e) in c.constants.iter().zip(constants) {
            vars.push((n.clone(), Val::E(e)));
        }
        for (n, &p) in c.params.iter().zip(params) {
            vars.push((n.clone(), Val::R(p)));
        }
        Env { s, vars }
    }

    pub fn holds(&self, s: &Structure, f: FormulaId, constants: &[Elem], params: &[f64]) -> bool {
        let c = &self.formulas[f.0 as usize];
        let mut env = self.env(s, c, constants, params);
        self.eval(&c.body, &mut env)
    }

    pub fn value(&self, s: &Structure, t: RealId, constants: &[Elem], params: &[f64]) -> f64 {
        let c = &self.reals[t.0 as usize];
        let mut env = self.env(s, c, constants, params);
        self.real(&c.body, &mut env)
    }

    pub fn set_stable(&mut self, _stable: &[RelId]) {}

    fn eval(&self, f: &Formula, env: &mut Env) -> bool {
        match f {
            Formula::True => true,
            Formula::False => false,
            Formula::Rel { name, args } => {
                if let Some(r) = env.s.relation(name) {
                    let t: Vec<Elem> = args.iter().map(|a| env.elem(a)).collect();
                    return t.iter().all(|&e| env.s.is_live(e)) && env.s.contains(r, &t);
                }
                let Some(d) = self.defined.iter().find(|d| &d.name == name) else {
                    return false;
                };
                let vals: Vec<Elem> = args.iter().map(|a| env.elem(a)).collect();
                let mark = env.vars.len();
                for (p, v) in d.params.iter().zip(vals) {
                    env.vars.push((p.clone(), Val::E(v)));
                }
                let r = self.eval(&d.body, env);
                env.vars.truncate(mark);
                r
            }
            Formula::Eq(a, b) => env.elem(a) == env.elem(b),
            Formula::Not(g) => !self.eval(g, env),
            Formula::And(gs) => gs.iter().all(|g| self.eval(g, env)),
            Formula::Or(gs) => gs.iter().any(|g| self.eval(g, env)),
            Formula::Implies(a, b) => !self.eval(a, env) || self.eval(b, env),
            Formula::Iff(a, b) => self.eval(a, env) == self.eval(b, env),
            Formula::Exists { vars, body } => self.quant(vars, body, env, true),
            Formula::Forall { vars, body } => {
                !self.quant(vars, &Formula::Not(body.clone()), env, true)
            }
            Formula::Cmp { lhs, op, rhs } => {
                let (a, b) = (self.real(lhs, env), self.real(rhs, env));
                match op {
                    CmpOp::Lt => a < b,
                    CmpOp::Le => a <= b,
                    CmpOp::Eq => a == b,
                    CmpOp::Ne => a != b,
                    CmpOp::Ge => a >= b,
                    CmpOp::Gt => a > b,
                }
            }
            _ => false,
        }
    }

    fn quant(&self, vars: &[ir::Var], body: &Formula, env: &mut Env, _ex: bool) -> bool {
        let Some((first, rest)) = vars.split_first() else {
            return self.eval(body, env);
        };
        let ir::Var::Element(x) = first else {
            return false;
        };
        let elems: Vec<Elem> = env.s.elements().collect();
        for e in elems {
            env.vars.push((x.clone(), Val::E(e)));
            let r = self.quant(rest, body, env, true);
            env.vars.pop();
            if r {
                return true;
            }
        }
        false
    }

    fn real(&self, t: &RealExpr, env: &mut Env) -> f64 {
        match t {
            RealExpr::Const(c) => *c,
            RealExpr::Var(v) => env.real(v),
            RealExpr::Fun { name, element } => match env.s.function(name) {
                Some(f) => env.s.fun_value(f, env.elem(element)),
                None => 0.0,
            },
            RealExpr::Char(f) => {
                if self.eval(f, env) {
                    1.0
                } else {
                    0.0
                }
            }
            RealExpr::Neg(a) => -self.real(a, env),
            RealExpr::Add(a, b) => self.real(a, env) + self.real(b, env),
            RealExpr::Sub(a, b) => self.real(a, env) - self.real(b, env),
            RealExpr::Mul(a, b) => self.real(a, env) * self.real(b, env),
            RealExpr::Div(a, b) => self.real(a, env) / self.real(b, env),
            _ => f64::NAN,
        }
    }
}
