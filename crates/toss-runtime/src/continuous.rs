//! The continuous part of a rule (spec 1.2) in the form both engines share:
//! its ODE right-hand sides and update terms as arithmetic over a fixed list
//! of *inputs* (function values of left elements) and rule parameters.
//!
//! The interpreter evaluates these [`Arith`] trees; the code generator
//! writes each rule's trees as a plain Rust function of the same inputs
//! ([`TermFn`]) and hands them to the interpreter
//! ([`crate::Interpreter::with_compiled`]), which then calls them instead.
//!
//! Derivatives: an equation `:f^(k)(l) = t` makes `f, f', ..., f^(k-1)` the
//! state of the evolution on each matched element. The derivatives below
//! `k` are kept between moves as functions of the structure named with
//! primes (`f'`, `f''`, see [`derivative_name`]); they start at the values
//! the starting structure gives (`f' { a -> 5 }`), 0 where it gives none,
//! and update equations may set them (`update :f'(r) = ...`).
//!
//! The front end (`toss_lang`) reports every error [`ContinuousRule::new`]
//! and the interpreter check here (non-arithmetic terms, ODEs of different
//! orders, derivatives that are not kept, parameters without an interval)
//! with its position in the game file; the checks stay as a defence for IR
//! built by other means.

use toss_core::ir::{self, RealExpr};

use toss_core::ir::derivative_name;

/// A compiled term list: `out[i]` is the value of the `i`-th term for the
/// inputs `x` and the rule parameters `p`.
pub type TermFn = fn(x: &[f64], p: &[f64], out: &mut [f64]);

/// Compiled terms of one rule, handed by generated code to the interpreter.
#[derive(Clone, Copy, Debug)]
pub struct CompiledTerms {
    /// The rule's name.
    pub rule: &'static str,
    /// The right-hand sides of its `dynamics`, in source order.
    pub dynamics: Option<TermFn>,
    /// Its `update` terms, in source order (when they are all arithmetic).
    pub update: Option<TermFn>,
}

/// A function value of a left element used by a term: `:f(l)` (order 0) or
/// a stored derivative `:f'(l)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub function: String,
    pub order: u32,
    pub element: String,
}

impl Input {
    /// The name of the structure's function holding this value.
    pub fn stored_name(&self) -> String {
        derivative_name(&self.function, self.order)
    }
}

/// An arithmetic term of spec 1.2: numbers, inputs, parameters, `+ - * /`,
/// powers and natural roots.
#[derive(Clone, Debug, PartialEq)]
pub enum Arith {
    Const(f64),
    /// Index into the inputs.
    Input(usize),
    /// Index into the rule parameters.
    Param(usize),
    Neg(Box<Arith>),
    Add(Box<Arith>, Box<Arith>),
    Sub(Box<Arith>, Box<Arith>),
    Mul(Box<Arith>, Box<Arith>),
    Div(Box<Arith>, Box<Arith>),
    Pow(Box<Arith>, Box<Arith>),
    Root(u32, Box<Arith>),
}

/// The natural `n`-th root, as the logic solver computes it (odd roots of
/// negative numbers are negative).
#[inline]
pub fn root(n: u32, v: f64) -> f64 {
    if n == 1 {
        v
    } else if n == 2 {
        v.sqrt()
    } else if v < 0.0 && n % 2 == 1 {
        -(-v).powf(1.0 / n as f64)
    } else {
        v.powf(1.0 / n as f64)
    }
}

impl Arith {
    pub fn eval(&self, x: &[f64], p: &[f64]) -> f64 {
        match self {
            Arith::Const(c) => *c,
            Arith::Input(i) => x[*i],
            Arith::Param(i) => p[*i],
            Arith::Neg(a) => -a.eval(x, p),
            Arith::Add(a, b) => a.eval(x, p) + b.eval(x, p),
            Arith::Sub(a, b) => a.eval(x, p) - b.eval(x, p),
            Arith::Mul(a, b) => a.eval(x, p) * b.eval(x, p),
            Arith::Div(a, b) => a.eval(x, p) / b.eval(x, p),
            Arith::Pow(a, b) => a.eval(x, p).powf(b.eval(x, p)),
            Arith::Root(n, a) => root(*n, a.eval(x, p)),
        }
    }
}

/// The continuous part of one rule over its inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct ContinuousRule {
    /// What the terms read, in first-use order (dynamics first, then
    /// updates).
    pub inputs: Vec<Input>,
    /// One right-hand side per `dynamics` equation, in source order.
    pub dynamics: Vec<Arith>,
    /// One term per `update` equation, in source order, when every update
    /// term is arithmetic over left elements (otherwise the logic solver
    /// evaluates them, and `None`).
    pub update: Option<Vec<Arith>>,
}

/// Translates `t` into an [`Arith`] over `inputs` (extended as new function
/// values are met) and `params`.
fn arith(t: &RealExpr, inputs: &mut Vec<Input>, params: &[String]) -> Result<Arith, String> {
    let b = |t: &RealExpr, inputs: &mut Vec<Input>| arith(t, inputs, params).map(Box::new);
    let mut input = |function: &str, order: u32, element: &str| {
        let i = Input {
            function: function.to_string(),
            order,
            element: element.to_string(),
        };
        Arith::Input(match inputs.iter().position(|j| *j == i) {
            Some(k) => k,
            None => {
                inputs.push(i);
                inputs.len() - 1
            }
        })
    };
    Ok(match t {
        RealExpr::Const(c) => Arith::Const(*c),
        RealExpr::Var(v) => match params.iter().position(|p| p == v) {
            Some(k) => Arith::Param(k),
            None => {
                return Err(format!(
                    "`:{v}` is not a parameter of the rule (no label gives it an interval)"
                ));
            }
        },
        RealExpr::Fun { name, element } => input(name, 0, element),
        RealExpr::Derivative {
            name,
            order,
            element,
        } => input(name, *order, element),
        RealExpr::Neg(a) => Arith::Neg(b(a, inputs)?),
        RealExpr::Add(x, y) => Arith::Add(b(x, inputs)?, b(y, inputs)?),
        RealExpr::Sub(x, y) => Arith::Sub(b(x, inputs)?, b(y, inputs)?),
        RealExpr::Mul(x, y) => Arith::Mul(b(x, inputs)?, b(y, inputs)?),
        RealExpr::Div(x, y) => Arith::Div(b(x, inputs)?, b(y, inputs)?),
        RealExpr::Pow(x, y) => Arith::Pow(b(x, inputs)?, b(y, inputs)?),
        RealExpr::Root(n, x) => Arith::Root(*n, b(x, inputs)?),
        _ => {
            return Err(
                "only numbers, function values, parameters, + - * / ^ and roots are allowed \
                 (spec 1.2)"
                    .into(),
            );
        }
    })
}

impl ContinuousRule {
    /// The continuous part of `rule` with rule parameters `params` (in the
    /// interpreter's order, [`crate::Interpreter::rule_params`]). Errors
    /// when a `dynamics` term is not arithmetic.
    pub fn new(rule: &ir::Rule, params: &[String]) -> Result<ContinuousRule, String> {
        let mut inputs = Vec::new();
        let mut dynamics = Vec::with_capacity(rule.dynamics.len());
        for d in &rule.dynamics {
            dynamics.push(arith(&d.value, &mut inputs, params).map_err(|e| {
                format!(
                    "rule {}: the equation for :{}(",
                    rule.name,
                    derivative_name(&d.function, d.order)
                ) + &format!("{}): {e}", d.element)
            })?);
        }
        let mut more = inputs.clone();
        let update = rule
            .update
            .iter()
            .map(|u| arith(&u.value, &mut more, params))
            .collect::<Result<Vec<_>, _>>()
            .ok();
        if update.is_some() {
            inputs = more;
        }
        Ok(ContinuousRule {
            inputs,
            dynamics,
            update,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_in_first_use_order_and_evaluation() {
        let f = |n: &str, e: &str| RealExpr::Fun {
            name: n.into(),
            element: e.into(),
        };
        let rule = ir::Rule {
            name: "R".into(),
            lhs: ir::RuleSide::default(),
            rhs: ir::RuleSide::default(),
            emb: vec![],
            map: vec![],
            nondistinct: vec![],
            pre: ir::Formula::True,
            inv: ir::Formula::True,
            post: ir::Formula::True,
            update: vec![ir::UpdateEquation {
                function: "x".into(),
                element: "a".into(),
                value: RealExpr::Mul(Box::new(RealExpr::Const(2.0)), Box::new(f("y", "a"))),
            }],
            dynamics: vec![ir::OdeEquation {
                function: "x".into(),
                order: 2,
                element: "a".into(),
                value: RealExpr::Sub(
                    Box::new(RealExpr::Var("k".into())),
                    Box::new(RealExpr::Derivative {
                        name: "x".into(),
                        order: 1,
                        element: "a".into(),
                    }),
                ),
            }],
        };
        let c = ContinuousRule::new(&rule, &["k".into()]).expect("arithmetic");
        let names: Vec<String> = c.inputs.iter().map(Input::stored_name).collect();
        assert_eq!(names, ["x'", "y"]);
        assert_eq!(c.dynamics[0].eval(&[1.5, 7.0], &[4.0]), 2.5);
        assert_eq!(
            c.update.as_ref().expect("arithmetic")[0].eval(&[1.5, 7.0], &[4.0]),
            14.0
        );
        assert!(ContinuousRule::new(&rule, &[]).is_err());
        assert_eq!(root(3, -8.0), -2.0);
    }
}
