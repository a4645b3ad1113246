//! Random valid games for property tests.
//!
//! Generation is driven by a list of choices (`Vec<u32>`) that proptest
//! produces and shrinks: every decision reads the next choice modulo the
//! number of options, and an exhausted list reads as 0, which is always the
//! simplest option (no more elements, no more depth, the constant `true`).
//! Shrinking the list therefore shrinks the game.
//!
//! The games are small but cover every construct of the IR in the forms the
//! front end produces: formulas of bounded depth over the declared relations
//! with their arities and over variables in scope, real terms, rules with
//! optional tuples, maps, constraints, update and ODE equations, locations
//! with payoffs and labels (time and parameter intervals, multiplicities,
//! probabilities that sum to 1, drawn end-points), START / MODEL structures
//! and a history.

use proptest::prelude::*;
use toss_core::ir::*;
use toss_core::structure::Structure;

/// A proptest strategy for random valid games.
pub fn arb_game() -> impl Strategy<Value = Game> {
    prop::collection::vec(any::<u32>(), 0..600).prop_map(|c| Choices::new(c).game())
}

/// A proptest strategy for random formulas over a fixed small signature.
pub fn arb_formula() -> impl Strategy<Value = Formula> {
    prop::collection::vec(any::<u32>(), 0..200).prop_map(|c| {
        let mut ch = Choices::new(c);
        let sig = Sig::default_small();
        let scope = Scope {
            elems: vec!["x".into(), "y".into()],
            ..Scope::default()
        };
        ch.formula(&sig, &scope, 3)
    })
}

pub struct Choices {
    data: Vec<u32>,
    pos: usize,
}

/// The signature a formula may use.
#[derive(Clone, Default)]
pub struct Sig {
    /// Relations with their arities (declared and defined ones).
    pub relations: Vec<(String, usize)>,
    pub functions: Vec<String>,
    /// The order of the ODEs of each function (all of one function's ODEs
    /// have one order), aligned with `functions`.
    pub orders: Vec<u32>,
}

impl Sig {
    fn default_small() -> Self {
        Sig {
            relations: vec![("P".into(), 1), ("E".into(), 2), ("Won".into(), 0)],
            functions: vec!["f".into()],
            orders: vec![1],
        }
    }
}

/// Names in scope for a formula.
#[derive(Clone, Default)]
pub struct Scope {
    /// First-order variables and element constants.
    pub elems: Vec<String>,
    /// Which of `elems` are element constants (rule elements), not
    /// variables.
    pub consts: Vec<String>,
    pub sets: Vec<String>,
    /// Real variables usable in any term: rule parameters and `let`-bound
    /// values.
    pub reals: Vec<String>,
    /// Quantified real variables (`ex :a`, `all :a`, `min :a`), with the
    /// length of `reals` when they were bound: the front end allows one
    /// only alone on one side of a comparison whose other side uses
    /// neither it nor a real bound inside its quantifier.
    pub qreals: Vec<(String, usize)>,
    /// Local relations (`let`, fixed points) with arities.
    pub local_rels: Vec<(String, usize)>,
}

impl Scope {
    /// The first-order variables in scope (not the constants), distinct.
    fn vars(&self) -> Vec<String> {
        let mut vs: Vec<String> = Vec::new();
        for e in &self.elems {
            if !self.consts.contains(e) && !vs.contains(e) {
                vs.push(e.clone());
            }
        }
        vs
    }
    /// Binds a local relation, shadowing one of the same name.
    fn bind_rel(&mut self, name: &str, arity: usize) {
        self.local_rels.retain(|(n, _)| n != name);
        self.local_rels.push((name.to_string(), arity));
    }
    fn has_vars(&self, n: usize) -> bool {
        self.vars().len() >= n
    }
    /// Binds a value real (`let`), shadowing a quantified one of the name.
    fn bind_real(&mut self, name: &str) {
        self.qreals.retain(|(q, _)| q != name);
        self.reals.push(name.to_string());
    }
    /// Binds a quantified real, shadowing a value real of the name.
    fn bind_qreal(&mut self, name: &str) {
        self.qreals.retain(|(q, _)| q != name);
        self.qreals.push((name.to_string(), self.reals.len()));
    }
    /// The value reals not shadowed by a quantified one.
    fn usable_reals(&self) -> Vec<String> {
        self.reals
            .iter()
            .filter(|r| !self.qreals.iter().any(|(q, _)| q == *r))
            .cloned()
            .collect()
    }
}

const FO_VARS: &[&str] = &["x", "y", "z", "u", "v"];
const SET_VARS: &[&str] = &["X", "Y"];
const REAL_VARS: &[&str] = &["a", "b", "c"];
const LOCAL_RELS: &[&str] = &["T", "S"];
const NUMBERS: &[f64] = &[
    0.0, 1.0, 2.0, 0.5, 3.25, 10.0, 0.1, 1e-7, 2.5e10, 1e300, 4.0, 7.5,
];

/// `t` made finite in some state, as the checker wants of a payoff (one
/// infinite or NaN in every state is an error): literals at most 10,
/// exponents 2, divisors and roots' arguments positive literals. The rest
/// of the term's shape is kept.
fn finite_somewhere(t: RealExpr) -> RealExpr {
    use RealExpr::*;
    let fix = |t: Box<RealExpr>| Box::new(finite_somewhere(*t));
    match t {
        Const(c) => Const(if c > 10.0 { 10.0 } else { c }),
        Neg(a) => Neg(fix(a)),
        Add(a, b) => Add(fix(a), fix(b)),
        Sub(a, b) => Sub(fix(a), fix(b)),
        Mul(a, b) => Mul(fix(a), fix(b)),
        Div(a, _) => Div(fix(a), Box::new(Const(4.0))),
        Pow(a, _) => Pow(fix(a), Box::new(Const(2.0))),
        Root(n, _) => Root(n, Box::new(Const(7.5))),
        Sum { vars, guard, body } => Sum {
            vars,
            guard,
            body: fix(body),
        },
        Product { vars, guard, body } => Product {
            vars,
            guard,
            body: fix(body),
        },
        Let { var, value, body } => Let {
            var,
            value: fix(value),
            body: fix(body),
        },
        other => other,
    }
}

impl Choices {
    pub fn new(data: Vec<u32>) -> Self {
        Choices { data, pos: 0 }
    }

    /// A number in `0..n` (0 when the choices are used up).
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let c = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        c as usize % n
    }

    fn flip(&mut self) -> bool {
        self.below(2) == 1
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }

    /// A few distinct items of `pool` (between `min` and `max`), in pool
    /// order rotated by a random offset.
    fn distinct(&mut self, pool: &[&str], min: usize, max: usize) -> Vec<String> {
        let n = min + self.below(max.min(pool.len()) - min + 1);
        let off = self.below(pool.len());
        (0..n)
            .map(|i| pool[(off + i) % pool.len()].to_string())
            .collect()
    }

    fn number(&mut self) -> f64 {
        let x = *self.pick(NUMBERS);
        if self.below(4) == 3 { -x } else { x }
    }

    fn nonneg(&mut self) -> f64 {
        *self.pick(NUMBERS)
    }

    // ---- formulas ----

    pub fn formula(&mut self, sig: &Sig, scope: &Scope, depth: u32) -> Formula {
        let choice = if depth == 0 {
            self.below(5)
        } else {
            self.below(19)
        };
        match choice {
            0 => Formula::True,
            1 => Formula::False,
            2..=4 => self.atom(sig, scope),
            5 => Formula::Not(Box::new(self.formula(sig, scope, depth - 1))),
            6 | 7 => {
                let n = 2 + self.below(2);
                let fs = (0..n)
                    .map(|_| self.formula(sig, scope, depth - 1))
                    .collect();
                if choice == 6 {
                    Formula::And(fs)
                } else {
                    Formula::Or(fs)
                }
            }
            8 => Formula::Implies(
                Box::new(self.formula(sig, scope, depth - 1)),
                Box::new(self.formula(sig, scope, depth - 1)),
            ),
            9 => Formula::Iff(
                Box::new(self.formula(sig, scope, depth - 1)),
                Box::new(self.formula(sig, scope, depth - 1)),
            ),
            10 | 11 => {
                let mut inner = scope.clone();
                let n = 1 + self.below(2);
                let mut vars = Vec::new();
                for _ in 0..n {
                    let v = match self.below(3) {
                        0 => {
                            let v = self.pick(FO_VARS).to_string();
                            inner.elems.push(v.clone());
                            Var::Element(v)
                        }
                        1 => {
                            let v = self.pick(SET_VARS).to_string();
                            inner.sets.push(v.clone());
                            Var::Set(v)
                        }
                        _ => {
                            let v = self.pick(REAL_VARS).to_string();
                            inner.bind_qreal(&v);
                            Var::Real(v)
                        }
                    };
                    if !vars.contains(&v) {
                        vars.push(v);
                    }
                }
                let body = Box::new(self.formula(sig, &inner, depth - 1));
                if choice == 10 {
                    Formula::Exists { vars, body }
                } else {
                    Formula::Forall { vars, body }
                }
            }
            12 if scope.has_vars(1) => {
                // The parameters of a fixed point are free in the formula
                // (it holds of them): take them from the scope.
                let relation = self.pick(LOCAL_RELS).to_string();
                let mut params: Vec<String> = Vec::new();
                let vars = scope.vars();
                for _ in 0..1 + self.below(2) {
                    let v = self.pick(&vars).clone();
                    if !params.contains(&v) {
                        params.push(v);
                    }
                }
                let mut inner = scope.clone();
                inner.bind_rel(&relation, params.len());
                // Positive occurrences only (the front end requires a
                // monotone body): the body is a disjunction of a base case
                // that does not mention the relation (nor an outer one of
                // the same name, which it would now denote) and an atom of
                // the fixed-point relation.
                let mut base_scope = scope.clone();
                base_scope.local_rels.retain(|(n, _)| *n != relation);
                base_scope.elems = inner.elems.clone();
                let base = self.formula(sig, &base_scope, depth - 1);
                let args = (0..params.len())
                    .map(|_| self.pick(&inner.elems).clone())
                    .collect();
                let body = Box::new(Formula::Or(vec![
                    base,
                    Formula::Rel {
                        name: relation.clone(),
                        args,
                    },
                ]));
                let kind = if self.flip() {
                    FixpointKind::Least
                } else {
                    FixpointKind::Greatest
                };
                Formula::Fixpoint {
                    kind,
                    relation,
                    params,
                    body,
                }
            }
            13 if scope.has_vars(2) => {
                // `tc x, y phi` holds of its (free) variables: take them
                // from the scope, distinct.
                let all = scope.vars();
                let n = 1 + self.below(all.len().min(4) / 2);
                let off = self.below(all.len());
                let vars: Vec<String> = (0..2 * n)
                    .map(|i| all[(off + i) % all.len()].clone())
                    .collect();
                let (from, to) = vars.split_at(n);
                let inner = scope.clone();
                let steps = if self.flip() {
                    Some(1 + self.below(4) as u32)
                } else {
                    None
                };
                let mut body = self.formula(sig, &inner, depth - 1);
                // The grammar ends the variable lists of `tc` at the first
                // name followed by `(` (or `=`, `<`, `>`, `in`), so a body
                // whose text starts with `(` (a bracketed first operand) or
                // with `min :a` cannot be written.
                let text = toss_lang::print_formula(&body);
                if text.starts_with('(') || text.starts_with("min ") {
                    body = Formula::True;
                }
                Formula::Tc {
                    steps,
                    from: from.to_vec(),
                    to: to.to_vec(),
                    body: Box::new(body),
                }
            }
            14 => {
                let relation = self.pick(LOCAL_RELS).to_string();
                let params = self.distinct(FO_VARS, 0, 2);
                let mut def_scope = scope.clone();
                def_scope.elems.extend(params.iter().cloned());
                let def = Box::new(self.formula(sig, &def_scope, depth - 1));
                let mut inner = scope.clone();
                inner.bind_rel(&relation, params.len());
                let body = Box::new(self.formula(sig, &inner, depth - 1));
                Formula::Let {
                    relation,
                    params,
                    def,
                    body,
                }
            }
            15 => {
                let var = self.pick(REAL_VARS).to_string();
                let value = self.real(sig, scope, depth - 1);
                let mut inner = scope.clone();
                inner.bind_real(&var);
                Formula::LetReal {
                    var,
                    value,
                    body: Box::new(self.formula(sig, &inner, depth - 1)),
                }
            }
            12 | 13 => self.atom(sig, scope),
            _ => self.cmp(sig, scope, depth - 1),
        }
    }

    fn atom(&mut self, sig: &Sig, scope: &Scope) -> Formula {
        let mut rels: Vec<(String, usize)> = sig.relations.clone();
        rels.extend(scope.local_rels.iter().cloned());
        let elems_ok = !scope.elems.is_empty();
        match self.below(4) {
            1 if elems_ok => Formula::Eq(
                self.pick(&scope.elems).clone(),
                self.pick(&scope.elems).clone(),
            ),
            2 if elems_ok && !scope.sets.is_empty() => Formula::In {
                element: self.pick(&scope.elems).clone(),
                set: self.pick(&scope.sets).clone(),
            },
            _ => {
                let usable: Vec<&(String, usize)> =
                    rels.iter().filter(|(_, a)| *a == 0 || elems_ok).collect();
                if usable.is_empty() {
                    return Formula::True;
                }
                let (name, arity) = (*self.pick(&usable)).clone();
                let args = (0..arity)
                    .map(|_| self.pick(&scope.elems).clone())
                    .collect();
                Formula::Rel { name, args }
            }
        }
    }

    fn cmp(&mut self, sig: &Sig, scope: &Scope, depth: u32) -> Formula {
        let op = *self.pick(&[
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Ge,
            CmpOp::Gt,
        ]);
        if !scope.qreals.is_empty() && self.flip() {
            // A quantified real alone on one side, the other side over the
            // reals bound outside its quantifier only.
            let (q, outer) = self.pick(&scope.qreals).clone();
            let mut other_scope = scope.clone();
            other_scope.reals.truncate(outer);
            other_scope.reals = other_scope.usable_reals();
            other_scope.qreals.clear();
            let q = RealExpr::Var(q);
            let t = self.real(sig, &other_scope, depth);
            let (lhs, rhs) = if self.flip() { (q, t) } else { (t, q) };
            return Formula::Cmp { lhs, op, rhs };
        }
        Formula::Cmp {
            lhs: self.real(sig, scope, depth),
            op,
            rhs: self.real(sig, scope, depth),
        }
    }

    // ---- real terms ----

    pub fn real(&mut self, sig: &Sig, scope: &Scope, depth: u32) -> RealExpr {
        let choice = if depth == 0 {
            self.below(4)
        } else {
            self.below(17)
        };
        let sub = |s: &mut Self| Box::new(s.real(sig, scope, depth.saturating_sub(1)));
        match choice {
            // Terms have unsigned literals only: `-1` is `Neg(Const(1))`.
            0 | 1 => RealExpr::Const(self.nonneg()),
            2 if !scope.usable_reals().is_empty() => {
                RealExpr::Var(self.pick(&scope.usable_reals()).clone())
            }
            3 if !scope.elems.is_empty() && !sig.functions.is_empty() => RealExpr::Fun {
                name: self.pick(&sig.functions).clone(),
                element: self.pick(&scope.elems).clone(),
            },
            2 | 3 => RealExpr::Const(self.nonneg()),
            4 => RealExpr::Char(Box::new(self.formula(sig, scope, depth - 1))),
            5 => RealExpr::Neg(sub(self)),
            6 => RealExpr::Add(sub(self), sub(self)),
            7 => RealExpr::Sub(sub(self), sub(self)),
            8 => RealExpr::Mul(sub(self), sub(self)),
            9 => RealExpr::Div(sub(self), sub(self)),
            10 => RealExpr::Pow(sub(self), sub(self)),
            11 => RealExpr::Root(2 + self.below(3) as u32, sub(self)),
            12 | 13 => {
                let vars = self.distinct(FO_VARS, 1, 2);
                let mut inner = scope.clone();
                inner.elems.extend(vars.iter().cloned());
                let guard = Box::new(self.formula(sig, &inner, depth - 1));
                let body = Box::new(self.real(sig, &inner, depth - 1));
                if choice == 12 {
                    RealExpr::Sum { vars, guard, body }
                } else {
                    RealExpr::Product { vars, guard, body }
                }
            }
            14 => {
                let var = self.pick(REAL_VARS).to_string();
                let mut inner = scope.clone();
                inner.bind_qreal(&var);
                RealExpr::Min {
                    var,
                    body: Box::new(self.formula(sig, &inner, depth - 1)),
                }
            }
            15 => {
                let var = self.pick(REAL_VARS).to_string();
                let value = sub(self);
                let mut inner = scope.clone();
                inner.bind_real(&var);
                RealExpr::Let {
                    var,
                    value,
                    body: Box::new(self.real(sig, &inner, depth - 1)),
                }
            }
            _ => RealExpr::Const(self.nonneg()),
        }
    }

    /// An arithmetic term (spec 1.2), as an ODE's right-hand side must be:
    /// numbers, parameters (the scope's reals), function values of the
    /// scope's elements, `+ - * /`, `^` and roots.
    fn arith(&mut self, sig: &Sig, scope: &Scope, depth: u32) -> RealExpr {
        let choice = if depth == 0 {
            self.below(3)
        } else {
            self.below(10)
        };
        let sub = |s: &mut Self| Box::new(s.arith(sig, scope, depth.saturating_sub(1)));
        match choice {
            1 if !scope.usable_reals().is_empty() => {
                RealExpr::Var(self.pick(&scope.usable_reals()).clone())
            }
            2 if !scope.elems.is_empty() && !sig.functions.is_empty() => RealExpr::Fun {
                name: self.pick(&sig.functions).clone(),
                element: self.pick(&scope.elems).clone(),
            },
            3 => RealExpr::Neg(sub(self)),
            4 => RealExpr::Add(sub(self), sub(self)),
            5 => RealExpr::Sub(sub(self), sub(self)),
            6 => RealExpr::Mul(sub(self), sub(self)),
            7 => RealExpr::Div(sub(self), sub(self)),
            8 => RealExpr::Pow(sub(self), sub(self)),
            9 => RealExpr::Root(2 + self.below(3) as u32, sub(self)),
            _ => RealExpr::Const(self.nonneg()),
        }
    }

    // ---- structures ----

    fn structure(&mut self, relations: &[(String, usize)], functions: &[String]) -> Structure {
        const CELLS: &[&str] = &["a1", "b1", "a2", "b2", "1", "2", "e_3", "k"];
        let names = self.distinct(CELLS, 0, 5);
        let mut s = Structure::new();
        let elems: Vec<u32> = names.iter().map(|n| s.add_element(n)).collect();
        for (name, arity) in relations {
            let Some(r) = s.declare_relation(name, *arity) else {
                continue;
            };
            if *arity > 0 && elems.is_empty() {
                continue;
            }
            let n = self.below(4);
            for _ in 0..n {
                let t: Vec<u32> = (0..*arity).map(|_| *self.pick(&elems)).collect();
                s.add_tuple(r, &t);
            }
        }
        for name in functions {
            let f = s.declare_function(name);
            for &e in &elems {
                if self.below(3) > 0 {
                    let v = self.number();
                    s.set_fun_value(f, e, v);
                }
            }
        }
        s
    }

    // ---- rules ----

    fn rule_side(
        &mut self,
        elements: &[String],
        relations: &[(String, usize)],
        functions: &[String],
        optional_ok: &[String],
    ) -> RuleSide {
        let mut tuples: Vec<RuleTuple> = Vec::new();
        let n = self.below(4);
        for _ in 0..n {
            let (relation, arity) = self.pick(relations).clone();
            if arity > 0 && elements.is_empty() {
                continue;
            }
            let args: Vec<String> = (0..arity).map(|_| self.pick(elements).clone()).collect();
            let optional = self.below(4) == 3 && args.iter().all(|a| optional_ok.contains(a));
            let t = RuleTuple {
                relation,
                args,
                optional,
            };
            if !tuples.contains(&t) {
                tuples.push(t);
            }
        }
        let mut fvals = Vec::new();
        for f in functions {
            for e in elements {
                if self.below(4) == 3 {
                    fvals.push((f.clone(), e.clone(), self.number()));
                }
            }
        }
        RuleSide {
            elements: elements.to_vec(),
            tuples,
            functions: fvals,
        }
    }

    fn rule(
        &mut self,
        name: String,
        sig: &Sig,
        declared: &[(String, usize)],
        params: &[String],
    ) -> Rule {
        const LHS: &[&str] = &["a", "b", "1"];
        const RHS_NEW: &[&str] = &["c", "2"];
        let lhs_elems = self.distinct(LHS, 1, 3);
        let mut rhs_elems: Vec<String> = lhs_elems
            .iter()
            .filter(|_| self.below(5) > 0)
            .cloned()
            .collect();
        for n in self.distinct(RHS_NEW, 0, 1) {
            rhs_elems.push(n);
        }
        let lhs = self.rule_side(&lhs_elems, declared, &sig.functions, &lhs_elems);
        let mut rhs = self.rule_side(&rhs_elems, declared, &sig.functions, &lhs_elems);

        // The map as lowering builds it: in right-side order, an explicit
        // entry or else the left element of the same name.
        let mut map = Vec::new();
        for r in &rhs_elems {
            if self.below(4) == 3 {
                map.push((r.clone(), self.pick(&lhs_elems).clone()));
            } else if lhs_elems.contains(r) {
                map.push((r.clone(), r.clone()));
            }
        }
        // An optional right tuple needs the optional left tuple over the
        // elements it replaces (spec 1.1); keep only those that have it.
        rhs.tuples.retain(|t| {
            if !t.optional {
                return true;
            }
            let image: Option<Vec<String>> = t
                .args
                .iter()
                .map(|a| map.iter().find(|(r, _)| r == a).map(|(_, l)| l.clone()))
                .collect();
            image.is_some_and(|image| {
                lhs.tuples
                    .iter()
                    .any(|l| l.optional && l.relation == t.relation && l.args == image)
            })
        });
        let emb: Vec<String> = declared
            .iter()
            .filter(|_| self.flip())
            .map(|(n, _)| n.clone())
            .collect();
        let mut nondistinct = Vec::new();
        if lhs_elems.len() >= 2 && self.below(4) == 3 {
            nondistinct.push((lhs_elems[0].clone(), lhs_elems[1].clone()));
        }

        let lscope = Scope {
            elems: lhs_elems.clone(),
            consts: lhs_elems.clone(),
            reals: params.to_vec(),
            ..Scope::default()
        };
        let rscope = Scope {
            elems: rhs_elems.clone(),
            consts: rhs_elems.clone(),
            ..Scope::default()
        };
        let pre = self.constraint(sig, &lscope);
        let inv = self.constraint(sig, &lscope);
        let post = self.constraint(sig, &rscope);

        let mut update = Vec::new();
        let mut dynamics = Vec::new();
        if !sig.functions.is_empty() {
            for r in &rhs_elems {
                if self.flip() {
                    update.push(UpdateEquation {
                        function: self.pick(&sig.functions).clone(),
                        element: r.clone(),
                        value: self.real(sig, &lscope, 2),
                    });
                }
            }
            // Every parameter shows up in the ODEs.
            for p in params {
                let f = self.below(sig.functions.len());
                dynamics.push(OdeEquation {
                    function: sig.functions[f].clone(),
                    order: sig.orders[f],
                    element: self.pick(&lhs_elems).clone(),
                    value: RealExpr::Add(
                        Box::new(RealExpr::Var(p.clone())),
                        Box::new(self.arith(sig, &lscope, 1)),
                    ),
                });
            }
        }
        Rule {
            name,
            lhs,
            rhs,
            emb,
            map,
            nondistinct,
            pre,
            inv,
            post,
            update,
            dynamics,
        }
    }

    fn constraint(&mut self, sig: &Sig, scope: &Scope) -> Formula {
        if self.flip() {
            self.formula(sig, scope, 2)
        } else {
            Formula::True
        }
    }

    // ---- the game graph ----

    fn label(&mut self, rule: &Rule, params: &[String], num_locs: usize) -> Label {
        let mut drawn: Vec<String> = Vec::new();
        let bound = |s: &mut Self, drawn: &mut Vec<String>| {
            if s.below(5) == 4 {
                let n = ["T", "Lo", "Hi"][s.below(3)].to_string();
                if !drawn.contains(&n) {
                    drawn.push(n.clone());
                }
                Bound::Drawn(n)
            } else {
                Bound::Num(s.number())
            }
        };
        let time = if self.flip() {
            let mut i = Interval {
                lo: bound(self, &mut drawn),
                hi: bound(self, &mut drawn),
            };
            for b in [&mut i.lo, &mut i.hi] {
                if let Bound::Num(x) = b {
                    *x = x.abs();
                }
            }
            Some(ordered(i))
        } else {
            None
        };
        let params = params
            .iter()
            .map(|p| {
                (
                    p.clone(),
                    ordered(Interval {
                        lo: bound(self, &mut drawn),
                        hi: bound(self, &mut drawn),
                    }),
                )
            })
            .collect();
        let multiplicity = *self.pick(&[Multiplicity::One, Multiplicity::Any, Multiplicity::All]);
        const SPLITS: &[&[f64]] = &[&[1.0], &[0.5, 0.5], &[0.25, 0.75], &[0.25, 0.25, 0.5]];
        let split = if drawn.is_empty() {
            *self.pick(SPLITS)
        } else {
            SPLITS[self.below(2)]
        };
        let several = split.len() > 1;
        let targets = split
            .iter()
            .map(|&p| Target {
                location: self.below(num_locs),
                probability: several.then_some(p),
                draws: drawn
                    .iter()
                    .map(|n| {
                        let d = match self.below(3) {
                            0 => Distribution::Normal {
                                mean: self.number(),
                                std_dev: self.nonneg(),
                            },
                            1 => Distribution::Uniform {
                                lo: self.number(),
                                hi: self.number(),
                            },
                            _ => Distribution::Exponential {
                                rate: self.nonneg(),
                            },
                        };
                        (n.clone(), d)
                    })
                    .collect(),
            })
            .collect();
        Label {
            rule: rule.name.clone(),
            time,
            params,
            multiplicity,
            targets,
        }
    }

    pub fn game(&mut self) -> Game {
        const PLAYERS: &[&str] = &["white", "black", "1", "2", "nature"];
        const RELS: &[(&str, usize)] = &[
            ("P", 1),
            ("Q", 1),
            ("E", 2),
            ("Line", 3),
            ("Won", 0),
            ("R", 2),
        ];
        const FUNS: &[&str] = &["x", "vx", "f"];
        const DATA: &[(&str, &str)] = &[("depth", "3"), ("adv_ratio", "4"), ("r1", "circle")];

        let players = self.distinct(PLAYERS, 1, 3);
        let data: Vec<(String, String)> = DATA
            .iter()
            .filter(|_| self.flip())
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let nrels = 1 + self.below(4);
        let off = self.below(RELS.len());
        let declared: Vec<(String, usize)> = (0..nrels)
            .map(|i| {
                let (n, a) = RELS[(off + i) % RELS.len()];
                (n.to_string(), a)
            })
            .collect();
        let functions = self.distinct(FUNS, 0, 2);
        let orders = functions.iter().map(|_| 1 + self.below(2) as u32).collect();
        let mut sig = Sig {
            relations: declared.clone(),
            functions: functions.clone(),
            orders,
        };

        let mut defined_relations = Vec::new();
        for i in 0..self.below(3) {
            let name = format!("D{i}");
            let params = self.distinct(FO_VARS, 0, 2);
            let scope = Scope {
                elems: params.clone(),
                ..Scope::default()
            };
            let body = self.formula(&sig, &scope, 3);
            sig.relations.push((name.clone(), params.len()));
            defined_relations.push(DefinedRelation { name, params, body });
        }

        let mut rules = Vec::new();
        let mut rule_params = Vec::new();
        for i in 0..1 + self.below(2) {
            let params = if functions.is_empty() {
                Vec::new()
            } else {
                self.distinct(&["vx", "vy"], 0, 2)
            };
            rules.push(self.rule(format!("Move{i}"), &sig, &declared, &params));
            rule_params.push(params);
        }

        let num_locs = 1 + self.below(3);
        let closed = Scope::default();
        let mut locations: Vec<Location> = (0..num_locs)
            .map(|id| Location {
                id,
                players: players
                    .iter()
                    .map(|_| {
                        let payoff = if self.flip() {
                            finite_somewhere(self.real(&sig, &closed, 2))
                        } else {
                            RealExpr::Const(0.0)
                        };
                        let moves = (0..self.below(3))
                            .map(|_| {
                                let r = self.below(rules.len());
                                self.label(&rules[r], &rule_params[r], num_locs)
                            })
                            .collect();
                        PlayerLocation { payoff, moves }
                    })
                    .collect(),
            })
            .collect();

        // Every parameter gets an interval: a rule with parameters that no
        // label uses gets one in location 0.
        for (r, rule) in rules.iter().enumerate() {
            let used = locations.iter().any(|l| {
                l.players
                    .iter()
                    .any(|p| p.moves.iter().any(|m| m.rule == rule.name))
            });
            if !used && !rule_params[r].is_empty() {
                let label = self.label(rule, &rule_params[r], num_locs);
                locations[0].players[0].moves.push(label);
            }
        }

        // Where several players move, the joint action has one edge: all
        // labels there get the same targets (those of the first label, with
        // a draw for every end-point any of the labels draws).
        for loc in &mut locations {
            let movers = loc.players.iter().filter(|p| !p.moves.is_empty()).count();
            if movers < 2 {
                continue;
            }
            let mut names: Vec<String> = Vec::new();
            for m in loc.players.iter().flat_map(|p| &p.moves) {
                for i in m.time.iter().chain(m.params.iter().map(|(_, i)| i)) {
                    for b in [&i.lo, &i.hi] {
                        if let Bound::Drawn(n) = b
                            && !names.contains(n)
                        {
                            names.push(n.clone());
                        }
                    }
                }
            }
            let mut targets = loc
                .players
                .iter()
                .find_map(|p| p.moves.first())
                .map(|m| m.targets.clone())
                .unwrap_or_default();
            for t in &mut targets {
                for n in &names {
                    if !t.draws.iter().any(|(d, _)| d == n) {
                        t.draws
                            .push((n.clone(), Distribution::Uniform { lo: 0.0, hi: 1.0 }));
                    }
                }
            }
            for m in loc.players.iter_mut().flat_map(|p| &mut p.moves) {
                m.targets = targets.clone();
            }
        }

        // The structures may give the derivatives the ODEs keep (`x'` for
        // an ODE of order 2).
        let mut start_functions = functions.clone();
        for rule in &rules {
            for d in &rule.dynamics {
                let name = format!("{}'", d.function);
                if d.order == 2 && !start_functions.contains(&name) {
                    start_functions.push(name);
                }
            }
        }
        let start = self.structure(&declared, &start_functions);
        let model = self
            .flip()
            .then(|| self.structure(&declared, &start_functions));
        let start_elems: Vec<String> = start
            .elements()
            .map(|e| start.element_name(e).to_string())
            .collect();
        let mut history = Vec::new();
        if !start_elems.is_empty() {
            for _ in 0..self.below(3) {
                let r = self.below(rules.len());
                let rule = &rules[r];
                history.push(HistoryMove {
                    player: self.pick(&players).clone(),
                    rule: rule.name.clone(),
                    matching: rule
                        .lhs
                        .elements
                        .iter()
                        .map(|l| (l.clone(), self.pick(&start_elems).clone()))
                        .collect(),
                    time: self.flip().then(|| self.nonneg()),
                    params: rule_params[r]
                        .iter()
                        .map(|p| (p.clone(), self.number()))
                        .collect(),
                    target: self.below(num_locs),
                });
            }
        }

        Game {
            players,
            data,
            defined_relations,
            rules,
            locations,
            start,
            model,
            history,
            repetition: None,
        }
    }
}

/// Swaps numeric end-points that are out of order.
fn ordered(i: Interval) -> Interval {
    match (&i.lo, &i.hi) {
        (Bound::Num(a), Bound::Num(b)) if a > b => Interval { lo: i.hi, hi: i.lo },
        _ => i,
    }
}
