//! Rewrite rules and choosing the rule to apply (spec 2.4.1, 2.4.2,
//! 2.5.1): the six conditions of a rewrite rule, each its own located
//! error; substitution for term variables; Algorithm 4 with REJECT, CLOG
//! and APPLY and its SUB ALGORITHM; function calls below the top treated
//! as temporary variables; ordered first-match rewriting.
//!
//! Choices where the spec leaves room:
//! - Condition (1), `TermType(l) = TermType(r)`, is read up to the choice
//!   of a most general typing: `r` must be typable with its type equal to
//!   the type of `l`, instantiating no type variable of `l`'s type nor of
//!   the variables' reconstructed types. The variables of the rule get the
//!   types type reconstruction of `l` gives them.
//! - The temporary variables replacing function calls are not materialised:
//!   a subterm below the top whose head is a function name or a term
//!   variable is opaque to matching, and two opaque subterms are the same
//!   temporary variable exactly when they are equal trees, which is the
//!   one-to-one correspondence the spec asks for.

use std::fmt;

use crate::shared::{Arena, HeadId, INLINE, Id, Special, copy_few};
use crate::term::{Head, Signature, SymKind, Term, VType};
use crate::types::Type;
use crate::typing::{TypeError, reconstruct, reconstruct_expecting};

/// Which side of a rule an error is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Left => "left",
            Side::Right => "right",
        })
    }
}

/// Why a pair of terms is not a rewrite rule; paths are child indices from
/// the root of the side named.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// A side cannot be typed.
    Untyped { side: Side, error: TypeError },
    /// Condition (1): the two sides have different types.
    TypeDiffers { left: Type, right: Option<Type> },
    /// Condition (2): a variable of the right side not on the left.
    RightVariable { path: Vec<usize>, name: String },
    /// Condition (3): a variable typed differently on the two sides.
    VariableType {
        name: String,
        left: Type,
        right: Type,
    },
    /// Condition (4): a variable of the left side with children.
    VariableNotLeaf { path: Vec<usize>, name: String },
    /// Condition (5): the top of the left side is not a function name.
    TopNotFunction { name: String },
    /// Condition (6): a function name below the top of the left side.
    FunctionBelowTop { path: Vec<usize>, name: String },
}

impl RuleError {
    /// The side and position the error points at.
    pub fn location(&self) -> (Side, Vec<usize>) {
        match self {
            RuleError::Untyped { side, error } => (
                *side,
                match error {
                    TypeError::UnknownSymbol { path, .. }
                    | TypeError::UntypedVariable { path, .. }
                    | TypeError::Arity { path, .. } => path.clone(),
                    TypeError::Unify(_) => Vec::new(),
                },
            ),
            RuleError::TypeDiffers { .. } => (Side::Right, Vec::new()),
            RuleError::RightVariable { path, .. } => (Side::Right, path.clone()),
            RuleError::VariableType { .. } => (Side::Right, Vec::new()),
            RuleError::VariableNotLeaf { path, .. } | RuleError::FunctionBelowTop { path, .. } => {
                (Side::Left, path.clone())
            }
            RuleError::TopNotFunction { .. } => (Side::Left, Vec::new()),
        }
    }
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleError::Untyped { side, error } => write!(f, "the {side} side: {error}"),
            RuleError::TypeDiffers {
                left,
                right: Some(right),
            } => write!(
                f,
                "the left side has type {left} but the right side {right}"
            ),
            RuleError::TypeDiffers { left, right: None } => {
                write!(f, "the right side cannot have the left side's type {left}")
            }
            RuleError::RightVariable { name, .. } => {
                write!(
                    f,
                    "the variable `{name}` of the right side is not on the left"
                )
            }
            RuleError::VariableType { name, left, right } => write!(
                f,
                "the variable `{name}` has type {left} on the left and {right} on the right"
            ),
            RuleError::VariableNotLeaf { name, .. } => write!(
                f,
                "the variable `{name}` has arguments on the left side: variables there must be leaves"
            ),
            RuleError::TopNotFunction { name } => write!(
                f,
                "the left side must start with a function name, `{name}` is not one"
            ),
            RuleError::FunctionBelowTop { name, .. } => {
                write!(f, "the function `{name}` is below the top of the left side")
            }
        }
    }
}

impl std::error::Error for RuleError {}

/// A rewrite rule `l -> r` satisfying the six conditions of 2.4.1.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rule {
    lhs: Term,
    rhs: Term,
    vtype: VType,
}

fn walk<'t>(
    t: &'t Term,
    path: &mut Vec<usize>,
    f: &mut impl FnMut(&'t Term, &[usize]) -> bool,
) -> bool {
    if !f(t, path) {
        return false;
    }
    for (i, a) in t.args.iter().enumerate() {
        path.push(i);
        let go_on = walk(a, path, f);
        path.pop();
        if !go_on {
            return false;
        }
    }
    true
}

/// The first node (preorder) where `bad` holds, with its path.
fn find<'t>(
    t: &'t Term,
    mut bad: impl FnMut(&'t Term, &[usize]) -> bool,
) -> Option<(&'t Term, Vec<usize>)> {
    let mut found = None;
    walk(t, &mut Vec::new(), &mut |n, p| {
        if bad(n, p) {
            found = Some((n, p.to_vec()));
            false
        } else {
            true
        }
    });
    found
}

impl Rule {
    /// Checks `(lhs, lhs_vtype) -> (rhs, rhs_vtype)` against the six
    /// conditions; the structural ones (4, 5, 6, 2, 3) first, then typing.
    pub fn new(
        sig: &Signature,
        lhs: Term,
        lhs_vtype: &VType,
        rhs: Term,
        rhs_vtype: &VType,
    ) -> Result<Rule, RuleError> {
        // (5)
        match &lhs.head {
            Head::Sym(f) if sig.is_function(f) => {}
            Head::Sym(f) if sig.get(f).is_none() => {
                return Err(RuleError::Untyped {
                    side: Side::Left,
                    error: TypeError::UnknownSymbol {
                        path: Vec::new(),
                        name: f.to_string(),
                    },
                });
            }
            head => {
                return Err(RuleError::TopNotFunction {
                    name: head.name().to_string(),
                });
            }
        }
        // (4)
        if let Some((n, path)) = find(&lhs, |n, _| {
            matches!(n.head, Head::Var(_)) && !n.args.is_empty()
        }) {
            return Err(RuleError::VariableNotLeaf {
                path,
                name: n.head.name().to_string(),
            });
        }
        // (6)
        if let Some((n, path)) = find(&lhs, |n, p| {
            !p.is_empty() && matches!(&n.head, Head::Sym(f) if sig.is_function(f))
        }) {
            return Err(RuleError::FunctionBelowTop {
                path,
                name: n.head.name().to_string(),
            });
        }
        // (2)
        let left_vars = lhs.term_vars();
        if let Some((n, path)) = find(
            &rhs,
            |n, _| matches!(&n.head, Head::Var(x) if !left_vars.contains(&**x)),
        ) {
            return Err(RuleError::RightVariable {
                path,
                name: n.head.name().to_string(),
            });
        }
        // (3)
        for x in rhs.term_vars() {
            if let (Some(l), Some(r)) = (lhs_vtype.get(&x), rhs_vtype.get(&x))
                && l != r
            {
                return Err(RuleError::VariableType {
                    name: x,
                    left: l.clone(),
                    right: r.clone(),
                });
            }
        }
        // Typing, then (1).
        let left = reconstruct(sig, &lhs, lhs_vtype).map_err(|error| RuleError::Untyped {
            side: Side::Left,
            error,
        })?;
        let vtype: VType = left
            .reconstructed(lhs_vtype)
            .into_iter()
            .filter(|(x, _)| left_vars.contains(x))
            .collect();
        let left_type = left.term_type().clone();
        let right_alone = reconstruct(sig, &rhs, &vtype).map_err(|error| RuleError::Untyped {
            side: Side::Right,
            error,
        })?;
        let differs = || RuleError::TypeDiffers {
            left: left_type.clone(),
            right: Some(right_alone.term_type().clone()),
        };
        let right =
            reconstruct_expecting(sig, &rhs, &vtype, Some(&left_type)).map_err(|_| differs())?;
        // No rigid variable may be instantiated.
        let mut rigid = left_type.type_vars();
        for x in rhs.term_vars() {
            if let Some(t) = vtype.get(&x) {
                rigid.extend(t.type_vars());
            }
        }
        if rigid.iter().any(|v| {
            right
                .sigma
                .get(v)
                .is_some_and(|t| *t != Type::var(v.as_str()))
        }) {
            return Err(differs());
        }
        Ok(Rule { lhs, rhs, vtype })
    }

    pub fn lhs(&self) -> &Term {
        &self.lhs
    }

    pub fn rhs(&self) -> &Term {
        &self.rhs
    }

    /// The reconstructed types of the rule's variables.
    pub fn vtype(&self) -> &VType {
        &self.vtype
    }

    /// The function name at the top of the left side.
    pub fn function(&self) -> &str {
        self.lhs.head.name()
    }
}

/// The answer of Algorithm 4.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Reject,
    Clog,
    /// The substitution `x <- ω` with `s̄(l) = t`.
    Apply(Vec<(String, Term)>),
}

/// The SUB ALGORITHM's answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Sub {
    Pass,
    Clog,
    Reject,
}

/// Whether a subterm of the term being rewritten is opaque (a variable, or
/// a function call: a temporary variable of 2.5.1).
fn opaque(sig: &Signature, t: &Term) -> bool {
    match &t.head {
        Head::Var(_) => true,
        Head::Sym(f) => sig.is_function(f),
    }
}

/// Algorithm 4: whether the rule with left side `lhs` applies to `t`.
pub fn try_rule(sig: &Signature, lhs: &Term, t: &Term) -> Outcome {
    let mut subst: Vec<(&str, &Term)> = Vec::new();
    let mut clog = false;
    // STEP ONE
    if step_one(sig, lhs, t, true, &mut subst, &mut clog).is_err() {
        return Outcome::Reject;
    }
    if clog {
        return Outcome::Clog;
    }
    // STEP TWO, variables in the order first seen.
    let mut vars: Vec<&str> = Vec::new();
    for (x, _) in &subst {
        if !vars.contains(x) {
            vars.push(x);
        }
    }
    for x in &vars {
        let set: Vec<&Term> = subst
            .iter()
            .filter(|(y, _)| y == x)
            .map(|(_, w)| *w)
            .collect();
        match sub_algorithm(sig, &set) {
            Sub::Reject => return Outcome::Reject,
            Sub::Clog => clog = true,
            Sub::Pass => {}
        }
    }
    if clog {
        return Outcome::Clog;
    }
    // Every set passed with a single element: a proper substitution.
    Outcome::Apply(
        vars.into_iter()
            .filter_map(|x| {
                subst
                    .iter()
                    .find(|(y, _)| *y == x)
                    .map(|(_, w)| (x.to_string(), (*w).clone()))
            })
            .collect(),
    )
}

struct RejectNow;

fn step_one<'l, 't>(
    sig: &Signature,
    a: &'l Term,
    b: &'t Term,
    top: bool,
    subst: &mut Vec<(&'l str, &'t Term)>,
    clog: &mut bool,
) -> Result<(), RejectNow> {
    if let Head::Var(x) = &a.head {
        subst.push((x, b));
        return Ok(());
    }
    if !top && opaque(sig, b) {
        // Report CLOG, continue, abandon the positions below.
        *clog = true;
        return Ok(());
    }
    if a.head != b.head || a.args.len() != b.args.len() {
        return Err(RejectNow);
    }
    for (x, y) in a.args.iter().zip(&b.args) {
        step_one(sig, x, y, false, subst, clog)?;
    }
    Ok(())
}

/// The SUB ALGORITHM on a set of term trees (duplicates are one element).
fn sub_algorithm(sig: &Signature, items: &[&Term]) -> Sub {
    let mut set: Vec<&Term> = Vec::new();
    for t in items {
        if !set.contains(t) {
            set.push(t);
        }
    }
    if set.len() <= 1 {
        return Sub::Pass;
    }
    let constructors: Vec<&Term> = set.iter().copied().filter(|t| !opaque(sig, t)).collect();
    if let Some(first) = constructors.first()
        && constructors
            .iter()
            .any(|t| t.head != first.head || t.args.len() != first.args.len())
    {
        return Sub::Reject;
    }
    if constructors.len() < set.len() {
        return Sub::Clog;
    }
    let arity = set[0].args.len();
    let mut worst = Sub::Pass;
    for k in 0..arity {
        let column: Vec<&Term> = set.iter().map(|t| &t.args[k]).collect();
        worst = worst.max(sub_algorithm(sig, &column));
    }
    worst
}

/// Why instantiating a right side failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstantiateError {
    pub variable: String,
    pub value: Term,
}

impl fmt::Display for InstantiateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the variable `{}` is applied to arguments but stands for `{}`, which is not a name",
            self.variable, self.value
        )
    }
}

impl std::error::Error for InstantiateError {}

/// `s̄` of 2.4.1 on a term tree: a variable with arguments takes the head
/// of its value, which must then be a leaf (rule iii).
pub fn instantiate(t: &Term, s: &[(String, Term)]) -> Result<Term, InstantiateError> {
    let args = t
        .args
        .iter()
        .map(|a| instantiate(a, s))
        .collect::<Result<Vec<_>, _>>()?;
    if let Head::Var(x) = &t.head
        && let Some((_, value)) = s.iter().find(|(y, _)| **y == **x)
    {
        if args.is_empty() {
            return Ok(value.clone());
        }
        if !value.args.is_empty() {
            return Err(InstantiateError {
                variable: x.to_string(),
                value: value.clone(),
            });
        }
        return Ok(Term {
            head: value.head.clone(),
            args,
        });
    }
    Ok(Term {
        head: t.head.clone(),
        args,
    })
}

/// The rules of a program, per function name in their order of importance.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    by_function: std::collections::HashMap<String, Vec<Rule>>,
}

impl Rules {
    pub fn new() -> Rules {
        Rules::default()
    }

    /// Adds a rule after the others of its function (less important).
    pub fn add(&mut self, rule: Rule) {
        self.by_function
            .entry(rule.function().to_string())
            .or_default()
            .push(rule);
    }

    /// Adds a rule before the others of its function (most important).
    pub fn add_first(&mut self, rule: Rule) {
        self.by_function
            .entry(rule.function().to_string())
            .or_default()
            .insert(0, rule);
    }

    /// The rules of a function name, most important first.
    pub fn of(&self, f: &str) -> &[Rule] {
        self.by_function.get(f).map_or(&[], Vec::as_slice)
    }

    /// Ordered first-match rewriting of a term with a function name at the
    /// top: the first rule that applies rewrites it; a clog, or no rule
    /// applying, leaves it (`None`).
    pub fn rewrite(&self, sig: &Signature, t: &Term) -> Result<Option<Term>, InstantiateError> {
        let Head::Sym(f) = &t.head else {
            return Ok(None);
        };
        if !matches!(sig.get(f), Some((_, SymKind::Function))) {
            return Ok(None);
        }
        for rule in self.of(f) {
            match try_rule(sig, &rule.lhs, t) {
                Outcome::Reject => continue,
                Outcome::Clog => return Ok(None),
                Outcome::Apply(s) => return instantiate(&rule.rhs, &s).map(Some),
            }
        }
        Ok(None)
    }
}

// ---- Algorithm 4 on shared terms (what normalisation uses) ----

/// A left side with its variables numbered in the order first seen.
#[derive(Clone, Debug)]
enum Pattern {
    Var(usize),
    Node(HeadId, Vec<Pattern>),
}

/// A node of a right side: variables by number, subterms without
/// variables built once, children by their index in [`SharedRule::rhs`].
#[derive(Clone, Debug)]
pub(crate) enum Template {
    Var(usize),
    /// A variable with arguments (rule iii of 2.4.1).
    Applied(usize, Box<[usize]>),
    Node(HeadId, Box<[usize]>),
    Ground(Id),
}

/// One instruction of a right side compiled to postfix code, run by the
/// normaliser on a stack of values (each a normal form), with the rule's
/// bindings and the depth of the position it rewrites. Only right sides
/// without special function names and without variables applied to
/// arguments are compiled; the others are instantiated node by node.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Op {
    /// Push the value of a variable.
    Var(u32),
    /// Push the normal form of a subterm without variables, at this depth
    /// below the position.
    Ground(Id, u32),
    /// Replace the top values by the constructor node over them.
    Build(HeadId, u32),
    /// [`Op::Build`] at the root: the node is the value.
    BuildRet(HeadId, u32),
    /// Replace the top values by the normal form of the call of this
    /// function on them, at this depth below the position.
    Call(HeadId, u32, u32),
    /// The call at the root of the right side: rewritten at the position
    /// itself, or its normal form is the value.
    TailCall(HeadId, u32),
    /// [`Op::Call`] on this many variables from this one on, read where
    /// they are bound.
    CallVars(HeadId, u32, u32, u32),
    /// [`Op::TailCall`] on consecutive variables, like [`Op::CallVars`].
    TailCallVars(HeadId, u32, u32),
    /// The end: the top value is the normal form of the right side.
    Ret,
    /// The right side is a variable: its value is the value.
    RetVar(u32),
}

/// The most arguments of a call in compiled code (they are copied out of
/// the stacks); a right side with a call of more is not compiled.
pub(crate) const CALL_ARGS: usize = 8;

/// Registers for matching a linear left side: its arguments first, then
/// the children of each constructor it checks. Left sides needing more
/// are matched the general way.
pub(crate) const REGISTERS: usize = 32;

/// The registers: [`REGISTERS`] and room for a check to write both inline
/// children whatever its arity (a register past its own is written by a
/// later check before it is read).
pub(crate) type Registers = [Id; REGISTERS + INLINE];

/// Register `r`: an argument, or a child a check put there.
#[inline]
pub(crate) fn register(args: &[Id], regs: &Registers, r: usize) -> Id {
    match args.get(r) {
        Some(&a) => a,
        None => regs[r],
    }
}

/// A constructor of a linear left side below its top, in preorder: the
/// register holding the subterm it is checked against, where the
/// subterm's children go when it matches, and how many checks below it a
/// clog skips.
#[derive(Clone, Copy, Debug)]
struct Check {
    src: u32,
    head: HeadId,
    arity: u32,
    dst: u32,
    below: u32,
}

/// A rule compiled against an arena.
#[derive(Clone, Debug)]
pub(crate) struct SharedRule {
    lhs: Pattern,
    /// The left side's arity.
    arity: usize,
    /// The constructors of a linear left side checked in preorder, with
    /// at most [`REGISTERS`] registers (then `registers`).
    checks: Box<[Check]>,
    registers: bool,
    /// The head and arity the first argument must have, when the first
    /// check is on it ([`NO_HEAD`] otherwise): a first argument with
    /// another constructor rejects the rule before it is matched.
    first: (HeadId, u32),
    /// Where the first argument's children go when that check is the
    /// only one and they are inline: then the check decides the match
    /// ([`NO_REGISTER`] otherwise).
    only_first: u32,
    /// The register of each variable of a linear left side.
    var_regs: Box<[usize]>,
    /// The right side's nodes, children before parents: the root is last.
    pub rhs: Vec<Template>,
    /// The variables' names, by number.
    vars: Vec<String>,
    /// The variables applied to arguments on the right.
    applied: Vec<usize>,
    /// The right side's height with its variables as height 0.
    rhs_height: usize,
    /// Where the right side's code starts in the normaliser's code, or
    /// [`NO_CODE`].
    pub code_start: usize,
}

/// No register: see [`SharedRule::only_first`].
pub(crate) const NO_REGISTER: u32 = u32::MAX;

/// No head: see [`SharedRule::first`].
pub(crate) const NO_HEAD: HeadId = HeadId::MAX;

/// No code: the right side is instantiated node by node.
pub(crate) const NO_CODE: usize = usize::MAX;

/// The answer of Algorithm 4 on shared terms; the substitution is in the
/// matcher's bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SharedOutcome {
    Reject,
    Clog,
    Apply,
}

/// Bindings found by STEP ONE: each variable with every subterm it met.
#[derive(Debug, Default)]
pub(crate) struct Matcher {
    found: Vec<(usize, Id)>,
    /// The first subterm of each variable.
    first: Vec<Id>,
}

impl Matcher {
    /// The substitution found by the last successful match, by variable
    /// number.
    pub fn bindings(&self) -> &[Id] {
        &self.first
    }
}

impl SharedRule {
    pub fn compile(rule: &Rule, arena: &mut Arena, sig: &Signature) -> SharedRule {
        let mut vars = Vec::new();
        let mut linear = true;
        let lhs = compile_pattern(&rule.lhs, arena, sig, &mut vars, &mut linear);
        let mut rhs = Vec::new();
        compile_template(&rule.rhs, arena, sig, &vars, &mut rhs);
        let applied = rhs
            .iter()
            .filter_map(|n| match n {
                Template::Applied(x, _) => Some(*x),
                _ => None,
            })
            .collect();
        let mut checks = Vec::new();
        let mut var_regs = vec![0; vars.len()];
        let mut arity = 0;
        if let Pattern::Node(_, args) = &lhs {
            arity = args.len();
            let mut next = arity;
            for (i, a) in args.iter().enumerate() {
                compile_checks(a, i, &mut next, &mut checks, &mut var_regs);
            }
            if next > REGISTERS {
                linear = false;
            }
        }
        let rule = SharedRule {
            lhs,
            arity,
            first: match checks.first() {
                Some(c) if c.src == 0 && linear => (c.head, c.arity),
                _ => (NO_HEAD, 0),
            },
            only_first: match *checks {
                [c] if c.src == 0 && c.arity as usize <= INLINE && linear => c.dst,
                _ => NO_REGISTER,
            },
            checks: checks.into(),
            registers: linear,
            var_regs: var_regs.into(),
            rhs,
            vars,
            applied,
            rhs_height: 0,
            code_start: NO_CODE,
        };
        SharedRule {
            rhs_height: rule.height_of(rule.root(), arena, &vec![Id::MAX; rule.vars.len()]),
            ..rule
        }
    }

    /// The index of the right side's root in [`SharedRule::rhs`].
    pub fn root(&self) -> usize {
        self.rhs.len() - 1
    }

    /// The right side's height with its variables as height 0.
    pub fn rhs_height(&self) -> usize {
        self.rhs_height
    }

    /// The right side as postfix code, its last instruction giving the
    /// value ([`Op::Ret`] and the like), or `None`
    /// when it has a special function name or a variable applied to
    /// arguments.
    pub fn code(&self, arena: &Arena) -> Option<Vec<Op>> {
        let mut out = Vec::new();
        self.emit(self.root(), 0, arena, &mut out)?;
        // The root's instruction is last: it gives the value.
        let root = out.pop()?;
        match root {
            Op::Build(head, arity) => out.push(Op::BuildRet(head, arity)),
            Op::Var(x) => out.push(Op::RetVar(x)),
            Op::TailCall(..) | Op::TailCallVars(..) => out.push(root),
            _ => out.extend([root, Op::Ret]),
        }
        Some(out)
    }

    fn emit(&self, n: usize, depth: u32, arena: &Arena, out: &mut Vec<Op>) -> Option<()> {
        let small = |x: usize| u32::try_from(x).ok();
        match &self.rhs[n] {
            Template::Var(x) => out.push(Op::Var(small(*x)?)),
            Template::Ground(id) => out.push(Op::Ground(*id, depth)),
            Template::Applied(..) => return None,
            Template::Node(head, kids) => {
                let info = arena.info(*head);
                if info.function && info.special != Special::None {
                    return None;
                }
                let arity = small(kids.len())?;
                if info.function && kids.len() > CALL_ARGS {
                    return None;
                }
                // A call on consecutive variables reads them where they are.
                let vars: Option<Vec<usize>> = kids
                    .iter()
                    .map(|&k| match self.rhs[k] {
                        Template::Var(x) => Some(x),
                        _ => None,
                    })
                    .collect();
                if let Some(vars) = vars
                    && info.function
                    && let Some(&x) = vars.first()
                    && vars.iter().enumerate().all(|(i, &y)| y == x + i)
                {
                    let x = small(x)?;
                    out.push(if depth == 0 {
                        Op::TailCallVars(*head, arity, x)
                    } else {
                        Op::CallVars(*head, arity, x, depth)
                    });
                    return Some(());
                }
                for &k in kids.iter() {
                    self.emit(k, depth + 1, arena, out)?;
                }
                out.push(if !info.function {
                    Op::Build(*head, arity)
                } else if depth == 0 {
                    Op::TailCall(*head, arity)
                } else {
                    Op::Call(*head, arity, depth)
                });
            }
        }
        Some(())
    }

    /// Algorithm 4: whether the rule applies to `t`.
    pub fn try_rule(&self, arena: &Arena, t: Id, m: &mut Matcher) -> SharedOutcome {
        self.try_call(arena, arena.head(t), arena.args(t), m)
    }

    /// Algorithm 4 on the call `head(args)`, which need not be a node.
    pub fn try_call(
        &self,
        arena: &Arena,
        head: HeadId,
        args: &[Id],
        m: &mut Matcher,
    ) -> SharedOutcome {
        m.found.clear();
        let mut clog = false;
        // STEP ONE, the top by hand: it is no node of the arena.
        let Pattern::Node(top, patterns) = &self.lhs else {
            return SharedOutcome::Reject;
        };
        if *top != head || patterns.len() != args.len() {
            return SharedOutcome::Reject;
        }
        if self.registers {
            let mut regs = [0; REGISTERS + INLINE];
            let outcome = self.match_registers(arena, args, &mut regs);
            if outcome == SharedOutcome::Apply {
                m.first.clear();
                m.first
                    .extend(self.var_regs.iter().map(|&r| register(args, &regs, r)));
            }
            return outcome;
        }
        for (p, &a) in patterns.iter().zip(args) {
            if shared_step_one(arena, p, a, &mut m.found, &mut clog).is_err() {
                return SharedOutcome::Reject;
            }
        }
        if clog {
            return SharedOutcome::Clog;
        }
        m.first.clear();
        m.first.resize(self.vars.len(), Id::MAX);
        for &(x, w) in &m.found {
            if m.first[x] == Id::MAX {
                m.first[x] = w;
            }
        }
        // STEP TWO, variables in the order first seen (their numbers).
        for x in 0..self.vars.len() {
            let set: Vec<Id> = m
                .found
                .iter()
                .filter(|(y, _)| *y == x)
                .map(|&(_, w)| w)
                .collect();
            match shared_sub_algorithm(arena, &set) {
                Sub::Reject => return SharedOutcome::Reject,
                Sub::Clog => clog = true,
                Sub::Pass => {}
            }
        }
        if clog {
            SharedOutcome::Clog
        } else {
            SharedOutcome::Apply
        }
    }

    /// STEP ONE on a linear left side, whose STEP TWO always passes, on
    /// `args` ([`SharedRule::arity`] of them, checked by the caller), the
    /// first registers (read where they are: copying values just pushed
    /// would stall on the loads): each constructor checked in preorder, its
    /// children put in their registers; the variables' values are then in
    /// their registers ([`register`] of [`SharedRule::var_regs`]). A subterm whose head
    /// is the pattern's is no clog (the pattern's head is a constructor);
    /// only on a difference is it asked whether it is opaque. Only for
    /// rules with checks.
    #[inline(always)]
    pub fn match_registers(
        &self,
        arena: &Arena,
        args: &[Id],
        regs: &mut Registers,
    ) -> SharedOutcome {
        let checks = &*self.checks;
        let mut clog = false;
        let mut i = 0;
        while i < checks.len() {
            let c = checks[i];
            let t = register(args, regs, c.src as usize);
            let n = arena.view(t);
            if n.head == c.head && n.len == c.arity {
                let dst = c.dst as usize;
                if c.arity as usize <= INLINE {
                    regs[dst] = n.kids[0];
                    regs[dst + 1] = n.kids[1];
                } else {
                    copy_few(&mut regs[dst..], arena.args(t));
                }
                i += 1;
            } else if n.opaque {
                // Report CLOG, continue, abandon the positions below.
                clog = true;
                i += 1 + c.below as usize;
            } else {
                return SharedOutcome::Reject;
            }
        }
        if clog {
            SharedOutcome::Clog
        } else {
            SharedOutcome::Apply
        }
    }

    /// Whether the rule is matched in registers ([`SharedRule::match_registers`]).
    pub fn in_registers(&self) -> bool {
        self.registers
    }

    /// The head and arity the first argument must have, or [`NO_HEAD`].
    pub fn first(&self) -> (HeadId, u32) {
        self.first
    }

    /// Where the first argument's children go when its check is the only
    /// one, or [`NO_REGISTER`].
    pub fn only_first(&self) -> u32 {
        self.only_first
    }

    /// The left side's arity.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// The register of each variable, by number (rules matched in
    /// registers).
    pub fn var_regs(&self) -> &[usize] {
        &self.var_regs
    }

    /// The substitution found by the last successful match, by variable
    /// number.
    pub fn bindings<'m>(&self, m: &'m Matcher) -> &'m [Id] {
        &m.first
    }

    /// Whether `s̄(r)` exists: a variable applied to arguments must stand
    /// for a name (rule iii).
    pub fn check(&self, arena: &Arena, bound: &[Id]) -> Result<(), InstantiateError> {
        for &x in &self.applied {
            self.applied_head(x, arena, bound)?;
        }
        Ok(())
    }

    /// The head that the variable `x`, applied to arguments, stands for.
    pub fn applied_head(
        &self,
        x: usize,
        arena: &Arena,
        bound: &[Id],
    ) -> Result<HeadId, InstantiateError> {
        let value = bound[x];
        if arena.arity(value) > 0 {
            return Err(InstantiateError {
                variable: self.vars[x].clone(),
                value: arena.to_term(value),
            });
        }
        Ok(arena.head(value))
    }

    /// The node `n` of the right side instantiated with `bound`.
    pub fn build(&self, n: usize, arena: &mut Arena, bound: &[Id]) -> Result<Id, InstantiateError> {
        let (head, kids) = match &self.rhs[n] {
            Template::Var(x) => return Ok(bound[*x]),
            Template::Ground(id) => return Ok(*id),
            Template::Node(head, kids) => (*head, kids),
            Template::Applied(x, kids) => (self.applied_head(*x, arena, bound)?, kids),
        };
        let base = arena.scratch.len();
        for &k in kids.iter() {
            let id = self.build(k, arena, bound)?;
            arena.scratch.push(id);
        }
        Ok(arena.intern_scratch(head, base))
    }

    /// Whether the right side instantiated with `bound` is at most `limit`
    /// high, without building it.
    pub fn fits(&self, arena: &Arena, bound: &[Id], limit: usize) -> bool {
        // First a bound: the right side's own height plus the highest value.
        let highest = bound.iter().map(|&b| arena.height(b)).max().unwrap_or(0);
        self.rhs_height + highest <= limit || self.height_of(self.root(), arena, bound) <= limit
    }

    /// The height of the node `n` of the right side instantiated with
    /// `bound`.
    fn height_of(&self, n: usize, arena: &Arena, bound: &[Id]) -> usize {
        match &self.rhs[n] {
            // No value yet: while compiling.
            Template::Var(x) if bound[*x] == Id::MAX => 0,
            Template::Var(x) => arena.height(bound[*x]),
            Template::Ground(id) => arena.height(*id),
            Template::Node(_, kids) | Template::Applied(_, kids) => {
                1 + kids
                    .iter()
                    .map(|&k| self.height_of(k, arena, bound))
                    .max()
                    .unwrap_or(0)
            }
        }
    }
}

/// Adds the checks of the pattern `p` matched against register `src` to
/// `checks` (children's registers from `next` on) and records the
/// register of each variable.
fn compile_checks(
    p: &Pattern,
    src: usize,
    next: &mut usize,
    checks: &mut Vec<Check>,
    var_regs: &mut [usize],
) {
    match p {
        Pattern::Var(x) => var_regs[*x] = src,
        Pattern::Node(head, args) => {
            let at = checks.len();
            let dst = *next;
            *next += args.len();
            let small = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
            checks.push(Check {
                src: small(src),
                head: *head,
                arity: small(args.len()),
                dst: small(dst),
                below: 0,
            });
            for (i, a) in args.iter().enumerate() {
                compile_checks(a, dst + i, next, checks, var_regs);
            }
            checks[at].below = small(checks.len() - at - 1);
        }
    }
}

fn compile_pattern(
    t: &Term,
    arena: &mut Arena,
    sig: &Signature,
    vars: &mut Vec<String>,
    linear: &mut bool,
) -> Pattern {
    if let Head::Var(x) = &t.head {
        // Variables of a left side are leaves (condition 4).
        if let Some(i) = vars.iter().position(|y| **y == **x) {
            *linear = false;
            return Pattern::Var(i);
        }
        vars.push(x.to_string());
        return Pattern::Var(vars.len() - 1);
    }
    let head = arena.head_id(&t.head, sig);
    let args = t
        .args
        .iter()
        .map(|a| compile_pattern(a, arena, sig, vars, linear))
        .collect();
    Pattern::Node(head, args)
}

/// Adds the nodes of `t` to `out`, children first; the index of its root.
fn compile_template(
    t: &Term,
    arena: &mut Arena,
    sig: &Signature,
    vars: &[String],
    out: &mut Vec<Template>,
) -> usize {
    let kids: Box<[usize]> = t
        .args
        .iter()
        .map(|a| compile_template(a, arena, sig, vars, out))
        .collect();
    let node = if let Head::Var(x) = &t.head
        && let Some(i) = vars.iter().position(|y| **y == **x)
    {
        if kids.is_empty() {
            Template::Var(i)
        } else {
            Template::Applied(i, kids)
        }
    } else {
        let head = arena.head_id(&t.head, sig);
        let ground: Option<Vec<Id>> = kids
            .iter()
            .map(|&k| match out[k] {
                Template::Ground(id) => Some(id),
                _ => None,
            })
            .collect();
        match ground {
            Some(ids) => Template::Ground(arena.intern(head, &ids)),
            None => Template::Node(head, kids),
        }
    };
    out.push(node);
    out.len() - 1
}

fn shared_step_one(
    arena: &Arena,
    a: &Pattern,
    b: Id,
    found: &mut Vec<(usize, Id)>,
    clog: &mut bool,
) -> Result<(), RejectNow> {
    let (head, args) = match a {
        Pattern::Var(x) => {
            found.push((*x, b));
            return Ok(());
        }
        Pattern::Node(head, args) => (*head, args),
    };
    // Below the top (which the caller matches by hand).
    if arena.is_opaque(b) {
        // Report CLOG, continue, abandon the positions below.
        *clog = true;
        return Ok(());
    }
    if head != arena.head(b) || args.len() != arena.arity(b) {
        return Err(RejectNow);
    }
    for (i, x) in args.iter().enumerate() {
        shared_step_one(arena, x, arena.arg(b, i), found, clog)?;
    }
    Ok(())
}

/// The SUB ALGORITHM on a set of shared terms (equal ones are one element).
fn shared_sub_algorithm(arena: &Arena, items: &[Id]) -> Sub {
    let mut set: Vec<Id> = Vec::new();
    for &t in items {
        if !set.iter().any(|&u| arena.equal(u, t)) {
            set.push(t);
        }
    }
    if set.len() <= 1 {
        return Sub::Pass;
    }
    let constructors: Vec<Id> = set
        .iter()
        .copied()
        .filter(|&t| !arena.is_opaque(t))
        .collect();
    if let Some(&first) = constructors.first()
        && constructors
            .iter()
            .any(|&t| arena.head(t) != arena.head(first) || arena.arity(t) != arena.arity(first))
    {
        return Sub::Reject;
    }
    if constructors.len() < set.len() {
        return Sub::Clog;
    }
    let arity = arena.arity(set[0]);
    let mut worst = Sub::Pass;
    for k in 0..arity {
        let column: Vec<Id> = set.iter().map(|&t| arena.arg(t, k)).collect();
        worst = worst.max(shared_sub_algorithm(arena, &column));
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::term::parse_functional;

    fn bool_() -> Type {
        Type::sym("Tboolean", vec![])
    }
    fn int() -> Type {
        Type::sym("int", vec![])
    }

    /// and, equals, f, g, h as functions; true, false, C, 1, 2 as
    /// constructors.
    fn sig() -> Signature {
        let mut s = Signature::new();
        s.add("Ctrue", bool_(), SymKind::Constructor);
        s.add("Cfalse", bool_(), SymKind::Constructor);
        s.add(
            "and",
            Type::fun(vec![bool_(), bool_()], bool_()),
            SymKind::Function,
        );
        s.add(
            "equals",
            Type::fun(vec![Type::var("a"), Type::var("a")], bool_()),
            SymKind::Function,
        );
        s.add("f", Type::fun(vec![int()], int()), SymKind::Function);
        s.add("g", Type::fun(vec![int()], int()), SymKind::Function);
        s.add("h", Type::fun(vec![int()], int()), SymKind::Function);
        s.add("1", int(), SymKind::Constructor);
        s.add("2", int(), SymKind::Constructor);
        s.add("C", Type::fun(vec![int()], int()), SymKind::Constructor);
        s.add(
            "C2",
            Type::fun(vec![int(), int()], int()),
            SymKind::Constructor,
        );
        s.add("p", Type::fun(vec![int(), int()], int()), SymKind::Function);
        s
    }

    fn vt(pairs: &[(&str, Type)]) -> VType {
        pairs
            .iter()
            .map(|(x, t)| (x.to_string(), t.clone()))
            .collect()
    }

    fn term(text: &str, vtype: &VType) -> Term {
        parse_functional(text, &sig(), vtype).expect("term")
    }

    fn rule(l: &str, r: &str, vtype: &VType) -> Result<Rule, RuleError> {
        Rule::new(&sig(), term(l, vtype), vtype, term(r, vtype), vtype)
    }

    fn rules(list: &[(&str, &str)], vtype: &VType) -> Rules {
        let mut rs = Rules::new();
        for (l, r) in list {
            rs.add(rule(l, r, vtype).expect("valid rule"));
        }
        rs
    }

    #[test]
    fn the_six_conditions_each_have_an_error() {
        let v = vt(&[("x", int()), ("y", int()), ("b", bool_())]);
        // (1)
        assert!(matches!(
            rule("f(x)", "Ctrue", &v),
            Err(RuleError::TypeDiffers { .. })
        ));
        // (2)
        assert_eq!(
            rule("f(x)", "g(y)", &v),
            Err(RuleError::RightVariable {
                path: vec![0],
                name: "y".into()
            })
        );
        // (3)
        let e = Rule::new(
            &sig(),
            term("f(x)", &v),
            &v,
            term("x", &v),
            &vt(&[("x", bool_())]),
        );
        assert!(matches!(e, Err(RuleError::VariableType { .. })), "{e:?}");
        // (4)
        let hv = vt(&[("q", Type::fun(vec![int()], int())), ("x", int())]);
        let e = Rule::new(&sig(), term("f(q(x))", &hv), &hv, term("x", &hv), &hv);
        assert_eq!(
            e,
            Err(RuleError::VariableNotLeaf {
                path: vec![0],
                name: "q".into()
            })
        );
        // (5)
        assert_eq!(
            rule("C(x)", "x", &v),
            Err(RuleError::TopNotFunction { name: "C".into() })
        );
        assert_eq!(
            rule("x", "x", &v),
            Err(RuleError::TopNotFunction { name: "x".into() })
        );
        // (6)
        assert_eq!(
            rule("f(C(g(x)))", "x", &v),
            Err(RuleError::FunctionBelowTop {
                path: vec![0, 0],
                name: "g".into()
            })
        );
        // Untyped sides.
        assert!(matches!(
            rule("and(x, b)", "b", &v),
            Err(RuleError::Untyped {
                side: Side::Left,
                ..
            })
        ));
        // Valid rules, polymorphic ones included.
        assert!(rule("f(C(x))", "g(x)", &v).is_ok());
        let a = vt(&[("x", Type::var("a"))]);
        let r = rule("equals(x, x)", "Ctrue", &a).expect("valid");
        assert_eq!(r.vtype().get("x"), Some(&Type::var("a")));
        // The right side may not fix a type variable of the left side.
        let mut s = sig();
        s.add(
            "id",
            Type::fun(vec![Type::var("a")], Type::var("a")),
            SymKind::Function,
        );
        let e = Rule::new(
            &s,
            parse_functional("id(x)", &s, &a).expect("t"),
            &a,
            parse_functional("1", &s, &a).expect("t"),
            &a,
        );
        assert!(matches!(e, Err(RuleError::TypeDiffers { .. })), "{e:?}");
        let ok = Rule::new(
            &s,
            parse_functional("id(x)", &s, &a).expect("t"),
            &a,
            parse_functional("x", &s, &a).expect("t"),
            &a,
        );
        assert!(ok.is_ok());
    }

    /// The first example of 2.5.1: and(z, true) clogs on and(true, true).
    #[test]
    fn and_of_a_variable_clogs() {
        let v = vt(&[("x", bool_()), ("y", bool_()), ("z", bool_())]);
        let rs = rules(
            &[("and(Ctrue, Ctrue)", "Ctrue"), ("and(x, y)", "Cfalse")],
            &v,
        );
        let s = sig();
        assert_eq!(rs.rewrite(&s, &term("and(z, Ctrue)", &v)), Ok(None));
        assert_eq!(
            rs.rewrite(&s, &term("and(Ctrue, Ctrue)", &v)),
            Ok(Some(term("Ctrue", &v)))
        );
        assert_eq!(
            rs.rewrite(&s, &term("and(Cfalse, Ctrue)", &v)),
            Ok(Some(term("Cfalse", &v)))
        );
    }

    /// The second example of 2.5.1: function calls as temporary variables.
    #[test]
    fn equals_of_function_calls() {
        let v = vt(&[("x", Type::var("a")), ("y", Type::var("a")), ("z", int())]);
        let rs = rules(&[("equals(x, x)", "Ctrue"), ("equals(x, y)", "Cfalse")], &v);
        let s = sig();
        assert_eq!(rs.rewrite(&s, &term("equals(f(z), g(z))", &v)), Ok(None));
        assert_eq!(
            rs.rewrite(&s, &term("equals(f(z), f(z))", &v)),
            Ok(Some(term("Ctrue", &v)))
        );
        assert_eq!(
            rs.rewrite(&s, &term("equals(C(1), C(2))", &v)),
            Ok(Some(term("Cfalse", &v)))
        );
        assert_eq!(
            rs.rewrite(&s, &term("equals(C(z), C(2))", &v)),
            Ok(None),
            "z might be 2"
        );
    }

    #[test]
    fn algorithm_4_outcomes() {
        let v = vt(&[("x", int()), ("y", int()), ("z", int())]);
        let s = sig();
        // The spec's false clog: l = p(C2(1, x), C2(2, y)), t = p(z, z).
        assert_eq!(
            try_rule(&s, &term("p(C2(1, x), C2(2, y))", &v), &term("p(z, z)", &v)),
            Outcome::Clog
        );
        // f(C(x)) on f(x): a clog.
        assert_eq!(
            try_rule(&s, &term("f(C(x))", &v), &term("f(x)", &v)),
            Outcome::Clog
        );
        // A difference elsewhere wins over a clog.
        assert_eq!(
            try_rule(&s, &term("p(C(x), 1)", &v), &term("p(z, 2)", &v)),
            Outcome::Reject
        );
        // Two different constructor trees for one variable: reject.
        assert_eq!(
            try_rule(&s, &term("p(x, x)", &v), &term("p(C(1), C(2))", &v)),
            Outcome::Reject
        );
        assert_eq!(
            try_rule(&s, &term("p(x, y)", &v), &term("p(C(1), z)", &v)),
            Outcome::Apply(vec![
                ("x".into(), term("C(1)", &v)),
                ("y".into(), term("z", &v))
            ])
        );
    }

    #[test]
    fn first_match_in_order() {
        let v = vt(&[("x", int())]);
        let s = sig();
        let rs = rules(&[("f(x)", "1"), ("f(C(x))", "2")], &v);
        assert_eq!(
            rs.rewrite(&s, &term("f(C(1))", &v)),
            Ok(Some(term("1", &v)))
        );
        let rs = rules(&[("f(C(x))", "2"), ("f(x)", "1")], &v);
        assert_eq!(
            rs.rewrite(&s, &term("f(C(1))", &v)),
            Ok(Some(term("2", &v)))
        );
        assert_eq!(rs.rewrite(&s, &term("f(1)", &v)), Ok(Some(term("1", &v))));
        // A constructor or a function without rules is not rewritten.
        assert_eq!(rs.rewrite(&s, &term("C(1)", &v)), Ok(None));
        assert_eq!(rs.rewrite(&s, &term("g(1)", &v)), Ok(None));
    }

    #[test]
    fn instantiation_of_applied_variables() {
        let s = vec![("q".to_string(), Term::sym("f", vec![]))];
        let t = Term::var("q", vec![Term::sym("1", vec![])]);
        assert_eq!(
            instantiate(&t, &s),
            Ok(Term::sym("f", vec![Term::sym("1", vec![])]))
        );
        let s = vec![(
            "q".to_string(),
            Term::sym("C", vec![Term::sym("1", vec![])]),
        )];
        assert!(instantiate(&t, &s).is_err());
    }
}
