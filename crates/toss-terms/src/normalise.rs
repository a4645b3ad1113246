//! Normalisation (spec 2.5.2): brackets removed first, then Algorithm 5
//! (constructors and variables normalise their arguments, verbatim stays,
//! if-then-else normalises its condition first, a function call is
//! rewritten until it cannot be), then the outermost verbatims removed;
//! with a memo table (RETRIEVE / MEMOISE) and a step limit that turns
//! non-termination into an error.
//!
//! Choices where the spec leaves room:
//! - The special function names are if-then-else, bracketing and
//!   verbatim (their names in [`crate::decl::names`]); if-then-else
//!   rewrites to its second argument on `true`, to its third on `false`.
//!   The meta-level functions of 2.2.4 are special too: a call of one,
//!   its arguments normalised, is rewritten by the function itself (one
//!   step), never by rules, and what it gives is normalised in turn:
//!   - `code t as term` gives the coding of `t` (2.3.4, `term` and `var`
//!     of the basic definitions; a variable carries its type from the
//!     `vtype` given with [`Normaliser::with_definitions`], an untyped
//!     one is an error). `t` is normalised first like any argument; a
//!     verbatim at the top of it is not coded, so `code <| t |> as term`
//!     codes `t` as written.
//!   - `decode c with type as e` gives the term `c` codes, checked against
//!     the signature and typed (2.3.3) with the type of the example `e`
//!     expected (its type variables renamed apart): `decode (code t as
//!     term) with type as e` is the normal form of `t` when `t` has `e`'s
//!     type. A `c` that is not a coded term (a variable, a call that
//!     stays) leaves the call as it is; a coded term that names unknown
//!     symbols, cannot be typed as `e`, or gives a variable a type other
//!     than the one it has is an error.
//!   - `get class definitions`, `get function definitions` and `get
//!     constructors` give, in the order they were declared, every class
//!     as `class of T(a1, ..., an)`, every function and every element as
//!     `function` / `constructor` with its generated name, its argument
//!     types and its result type (the types of its functional form). They
//!     need the definitions ([`Normaliser::with_definitions`]); without
//!     them a call is an error.
//! - In the if-then-else case the spec writes "NORMALISE t'" after a
//!   rewrite; read as NORMALISE(REWRITE t'), as in the function case.
//! - NORMALISE-SPECIAL rewrites only if-then-else (bracketing is gone
//!   already, verbatim stays): an if-then-else on an unknown condition
//!   keeps its branches as they are, apart from if-then-elses in them.
//! - The memo policy: a function call is memoised with its normal form
//!   when normalising it took at least [`Limits::memo_min_steps`] rewrite
//!   steps (the spec's heuristic is a sketch; one threshold is its core).
//! - Rewriting a term again at the same position is a loop, not a
//!   recursion, so only the nesting of terms uses the stack; it is bounded
//!   by [`Limits::max_depth`] and every rewrite result is checked against
//!   it, so a growing term is an error, never a stack overflow.
//! - Terms are normalised as shared terms (module `shared`): with the memo
//!   table equal terms are one node (without it nodes are not looked up
//!   when built, which is cheaper, and equal terms are compared where a
//!   left side repeats a variable), a substitution holds nodes, the memo
//!   table is keyed by them, and a node returned by NORMALISE is marked as
//!   a normal form, so it is never normalised again (doing so would take
//!   no step and give it back). A step then costs the same however large
//!   the terms it moves.
//!   A rule's right side is normalised as it is instantiated: its calls
//!   are rewritten without becoming nodes unless they stay or the memo
//!   table needs them. The steps are those of the plain algorithm on trees
//!   (a property test compares the two).
//! - Without the memo table and the trace, a right side without special
//!   function names or applied variables runs as postfix code
//!   (`Normaliser::exec`): the positions it rewrites on an explicit
//!   stack, the calls on its values matched (linear left sides in
//!   registers, the rules the first argument's constructor rejects
//!   skipped) and rewritten without becoming nodes, no depth check where
//!   the heights in the arena show none can fail. Anything else goes to
//!   the node-by-node loop, with the same steps in the same order.
//! - A marked normal form is checked against the depth limit by its
//!   height, verbatim contents included, where walking it would not enter
//!   them.

use std::fmt;
use std::rc::Rc;

use crate::decl::names;
use crate::rewrite::{
    CALL_ARGS, InstantiateError, Matcher, NO_CODE, NO_HEAD, NO_REGISTER, Op, REGISTERS, Registers,
    Rules, SharedOutcome, SharedRule, Template, register,
};
use crate::shared::{Arena, HeadId, INLINE, Id, Special, copy_few};
use crate::syntax::{Definitions, SyntaxKind};
use crate::term::{Head, Signature, Term, VType, code_list, code_string, code_term, code_type};
use crate::types::Type;
use crate::typing::{reconstruct, reconstruct_expecting};

/// The bounds of a normalisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most rewrite steps (rule applications and if-then-else choices).
    pub max_steps: u64,
    /// Deepest term normalised.
    pub max_depth: usize,
    /// Whether the memo table is used.
    pub memo: bool,
    /// Fewest steps a call must take for its result to be memoised.
    pub memo_min_steps: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: 1_000_000,
            max_depth: 1_000,
            memo: true,
            memo_min_steps: 1,
        }
    }
}

/// Why normalisation stopped without a normal form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NormError {
    /// More rewrite steps than the limit: likely non-termination. `term`
    /// is the call being rewritten when the limit was reached.
    StepLimit { limit: u64, term: Term },
    /// A term nested deeper than the limit.
    DepthLimit { limit: usize },
    /// A rule's right side could not be instantiated.
    Instantiate(InstantiateError),
    /// A meta-level function (2.2.4) could not be evaluated: `term` is
    /// the call, `message` says why.
    Meta { term: Term, message: String },
}

impl fmt::Display for NormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NormError::StepLimit { limit, term } => write!(
                f,
                "no normal form after {limit} rewrite steps (the rules may not terminate); rewriting {term}"
            ),
            NormError::DepthLimit { limit } => {
                write!(f, "a term nests deeper than {limit} during normalisation")
            }
            NormError::Instantiate(e) => write!(f, "{e}"),
            NormError::Meta { term, message } => write!(f, "{message}; evaluating {term}"),
        }
    }
}

impl std::error::Error for NormError {}

/// One rewrite step, for tracing: the term before and after.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub before: Term,
    pub after: Term,
}

/// Normalises terms with a signature and rules; the memo table lives as
/// long as the normaliser (the rules cannot change under it), and so do
/// the shared terms it is keyed by.
pub struct Normaliser<'a> {
    sig: &'a Signature,
    rules: &'a Rules,
    limits: Limits,
    arena: Arena,
    /// The rules of each head, compiled on first use (`None`: not yet).
    compiled: Vec<Option<Rc<[SharedRule]>>>,
    matcher: Matcher,
    /// The memo table: a call's id to its normal form's, `NO_ENTRY` if none.
    memo: Vec<Id>,
    /// Calls rewritten at the positions being normalised, with the step
    /// they were rewritten at (a stack over the nested positions).
    pending: Vec<(Id, u64)>,
    /// The bindings of the rules applied at the positions being
    /// normalised (a stack like `pending`).
    bound: Vec<Id>,
    /// The compiled right sides ([`SharedRule::code_start`]).
    code: Vec<Op>,
    /// The positions below the one [`Normaliser::exec`] runs the code of,
    /// outermost first.
    frames: Vec<Frame>,
    /// The values of [`Normaliser::exec`].
    values: Vec<Id>,
    /// The registers linear left sides are matched in.
    regs: Registers,
    steps: u64,
    steps_by_head: Vec<u64>,
    trace: Option<Vec<Step>>,
    /// The definitions the meta-level functions report.
    defs: Option<&'a Definitions>,
    /// The types of the term variables, for coding them (decoding adds
    /// those of the variables it brings in).
    vtype: VType,
}

const NO_ENTRY: Id = Id::MAX;

/// The first `arity` of `from` copied to `buf` (at most [`CALL_ARGS`]).
#[inline(always)]
fn take_args<'b>(buf: &'b mut [Id; CALL_ARGS], from: &[Id], arity: u32) -> &'b [Id] {
    let arity = arity as usize;
    copy_few(buf, &from[..arity]);
    &buf[..arity]
}

/// What a call in compiled code comes to.
enum Exec {
    /// A rule with code applied: its code's start (the bindings are in
    /// place).
    Rewrite(usize),
    /// The call's normal form.
    Value(Id),
}

/// The stacks of [`Normaliser::exec`]: values, bindings and the frames
/// of the positions below the one it runs the code of.
#[derive(Default)]
struct Stacks {
    values: Vec<Id>,
    bound: Vec<Id>,
    frames: Vec<Frame>,
}

/// Where [`Normaliser::exec`] is in the right side of the rule applied at
/// a position: the next instruction, where the bindings start in `bound`
/// and the depth of the position.
#[derive(Clone, Copy, Debug)]
struct Frame {
    pc: usize,
    bb: usize,
    depth: usize,
}

/// What is normalised at one position: a node, or a node of the right side
/// of a rule just applied (rules, which rule, which node of its right side,
/// where its bindings start in `bound`). A right side is instantiated as
/// it is normalised, so the calls in it become nodes only when they stay
/// or the memo table needs them.
enum Current {
    Node(Id),
    Instance(Rc<[SharedRule]>, usize, usize, usize),
}

impl<'a> Normaliser<'a> {
    pub fn new(sig: &'a Signature, rules: &'a Rules, limits: Limits) -> Normaliser<'a> {
        Normaliser {
            sig,
            rules,
            limits,
            // The memo table is keyed by nodes: equal terms must be one.
            arena: if limits.memo {
                Arena::new()
            } else {
                Arena::without_hash_consing()
            },
            compiled: Vec::new(),
            matcher: Matcher::default(),
            memo: Vec::new(),
            pending: Vec::new(),
            bound: Vec::new(),
            code: Vec::new(),
            frames: Vec::new(),
            values: Vec::new(),
            regs: [0; REGISTERS + INLINE],
            steps: 0,
            steps_by_head: Vec::new(),
            trace: None,
            defs: None,
            vtype: VType::new(),
        }
    }

    /// Gives the meta-level functions of 2.2.4 the definitions they report
    /// and the types of the term variables of the terms to be normalised.
    pub fn with_definitions(mut self, defs: &'a Definitions, vtype: &VType) -> Normaliser<'a> {
        self.defs = Some(defs);
        self.vtype = vtype.clone();
        self
    }

    /// Records every rewrite step from now on (see [`Normaliser::take_trace`]).
    pub fn trace(&mut self, on: bool) {
        self.trace = on.then(Vec::new);
    }

    /// The steps recorded since the last call.
    pub fn take_trace(&mut self) -> Vec<Step> {
        self.trace.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Rewrite steps taken so far (over all terms normalised).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Rewrite steps taken so far at calls of the function `f`.
    pub fn steps_of(&self, f: &str) -> u64 {
        self.arena
            .find_head(&Head::Sym(f.into()))
            .and_then(|h| self.steps_by_head.get(h as usize))
            .copied()
            .unwrap_or(0)
    }

    /// Entries in the memo table.
    pub fn memo_len(&self) -> usize {
        self.memo.iter().filter(|&&e| e != NO_ENTRY).count()
    }

    /// The whole normalisation of 2.5.2: brackets, Algorithm 5, verbatim.
    /// The step limit counts from the start of this call.
    pub fn normalise(&mut self, t: &Term) -> Result<Term, NormError> {
        let start = self.steps;
        // What an earlier call left after an error.
        self.arena.scratch.clear();
        self.pending.clear();
        self.bound.clear();
        self.frames.clear();
        self.values.clear();
        let t = self.remove_brackets(t, 0)?;
        let n = self.main(t, 0, start)?;
        self.remove_verbatim(n)
    }

    fn depth_error(&self) -> NormError {
        NormError::DepthLimit {
            limit: self.limits.max_depth,
        }
    }

    /// The first pass: every bracketing `( x )` replaced by `x`, the
    /// result shared.
    fn remove_brackets(&mut self, t: &Term, depth: usize) -> Result<Id, NormError> {
        if depth > self.limits.max_depth {
            return Err(self.depth_error());
        }
        let head = self.arena.head_id(&t.head, self.sig);
        if self.arena.info(head).special == Special::Bracket && t.args.len() == 1 {
            return self.remove_brackets(&t.args[0], depth + 1);
        }
        let base = self.arena.scratch.len();
        for a in &t.args {
            let id = self.remove_brackets(a, depth + 1)?;
            self.arena.scratch.push(id);
        }
        Ok(self.arena.intern_scratch(head, base))
    }

    /// The last pass: `verbatim(x) -> x` where no verbatim is above; the
    /// result as a tree.
    fn remove_verbatim(&self, t: Id) -> Result<Term, NormError> {
        self.arena
            .tree(t, true, self.limits.max_depth)
            .ok_or_else(|| self.depth_error())
    }

    /// One rewrite step from `before` to `after`: the step limit, the depth
    /// limit and the trace.
    fn count_step(&mut self, before: Id, after: Id, start: u64) -> Result<(), NormError> {
        self.steps += 1;
        self.count_head(self.arena.head(before));
        if self.steps - start > self.limits.max_steps {
            return Err(NormError::StepLimit {
                limit: self.limits.max_steps,
                term: self.arena.to_term(before),
            });
        }
        if self.arena.height(after) > self.limits.max_depth {
            return Err(self.depth_error());
        }
        if let Some(trace) = &mut self.trace {
            trace.push(Step {
                before: self.arena.to_term(before),
                after: self.arena.to_term(after),
            });
        }
        Ok(())
    }

    /// `t` with each argument replaced by `f` of it (the same id when no
    /// argument changed).
    fn map_args(
        &mut self,
        t: Id,
        depth: usize,
        start: u64,
        f: fn(&mut Self, Id, usize, u64) -> Result<Id, NormError>,
    ) -> Result<Id, NormError> {
        let arity = self.arena.arity(t);
        if arity == 0 {
            return Ok(t);
        }
        let base = self.arena.scratch.len();
        let mut changed = false;
        for i in 0..arity {
            let a = self.arena.arg(t, i);
            let n = f(self, a, depth + 1, start)?;
            changed |= n != a;
            self.arena.scratch.push(n);
        }
        if !changed {
            self.arena.scratch.truncate(base);
            return Ok(t);
        }
        let head = self.arena.head(t);
        Ok(self.arena.intern_scratch(head, base))
    }

    /// Algorithm 5 (NORMALISE); `start` is the step count when the whole
    /// normalisation began. Its result is marked as a normal form:
    /// normalising it again takes no step and gives it back, so a marked
    /// subterm is returned at once.
    fn main(&mut self, t: Id, depth: usize, start: u64) -> Result<Id, NormError> {
        if self.arena.is_normal(t) {
            self.check_normal(t, depth)?;
            return Ok(t);
        }
        self.run(Current::Node(t), depth, start)
    }

    /// Whether a normal form `t` at `depth` is within the depth limit
    /// (walking it would have met its deepest node).
    fn check_normal(&self, t: Id, depth: usize) -> Result<(), NormError> {
        if depth + self.arena.height(t) > self.limits.max_depth + 1 {
            return Err(self.depth_error());
        }
        Ok(())
    }

    /// NORMALISE of what is at one position; a rewrite there replaces it
    /// and goes round the loop again.
    fn run(&mut self, mut current: Current, depth: usize, start: u64) -> Result<Id, NormError> {
        // Its callers return normal nodes themselves.
        if depth > self.limits.max_depth {
            return Err(self.depth_error());
        }
        let pending_base = self.pending.len();
        let bound_base = self.bound.len();
        let result = loop {
            // A call with its arguments normalised: its head, where its
            // arguments start on the scratch and its node if it has one.
            let (head, base, node) = match current {
                Current::Node(t) => {
                    if self.arena.is_normal(t) {
                        self.check_normal(t, depth)?;
                        break t;
                    }
                    let info = self.arena.head_info(t);
                    if !info.function {
                        // A constructor or a variable.
                        break self.map_args(t, depth, start, Self::main)?;
                    }
                    match info.special {
                        Special::Verbatim => break t,
                        Special::If if self.arena.arity(t) == 3 => {
                            let [c, yes, no] = [0, 1, 2].map(|i| self.arena.arg(t, i));
                            let c2 = self.main(c, depth + 1, start)?;
                            let chosen = if self.arena.is_leaf(c2, Special::True) {
                                Some(yes)
                            } else if self.arena.is_leaf(c2, Special::False) {
                                Some(no)
                            } else {
                                None
                            };
                            let t2 = if c2 == c {
                                t
                            } else {
                                let head = self.arena.head(t);
                                self.arena.intern(head, &[c2, yes, no])
                            };
                            match chosen {
                                Some(next) => {
                                    self.count_step(t2, next, start)?;
                                    current = Current::Node(next);
                                    continue;
                                }
                                None => break self.special(t2, depth, start)?,
                            }
                        }
                        _ => {}
                    }
                    // A function call: arguments first.
                    let t2 = self.map_args(t, depth, start, Self::main)?;
                    (self.arena.head(t2), self.arena.scratch.len(), Some(t2))
                }
                Current::Instance(ref rules, r, n, bb) => {
                    let rules = Rc::clone(rules);
                    let rule = &rules[r];
                    let (head, kids) = match &rule.rhs[n] {
                        Template::Var(x) => {
                            current = Current::Node(self.bound[bb + x]);
                            continue;
                        }
                        Template::Ground(id) => {
                            current = Current::Node(*id);
                            continue;
                        }
                        Template::Node(head, kids) => (*head, kids),
                        Template::Applied(x, kids) => (
                            rule.applied_head(*x, &self.arena, &self.bound[bb..])
                                .map_err(NormError::Instantiate)?,
                            kids,
                        ),
                    };
                    let info = self.arena.info(head);
                    let function = info.function;
                    if function
                        && (info.special == Special::Verbatim
                            || (info.special == Special::If && kids.len() == 3))
                    {
                        // Their arguments are not normalised first: build
                        // them as they are.
                        let t = rule
                            .build(n, &mut self.arena, &self.bound[bb..])
                            .map_err(NormError::Instantiate)?;
                        current = Current::Node(t);
                        continue;
                    }
                    let base = self.arena.scratch.len();
                    for &k in kids.iter() {
                        let a = match rule.rhs[k] {
                            // Most arguments are variables or constants:
                            // straight to their nodes.
                            Template::Var(x) => self.main(self.bound[bb + x], depth + 1, start)?,
                            Template::Ground(id) => self.main(id, depth + 1, start)?,
                            _ => {
                                let next = Current::Instance(Rc::clone(&rules), r, k, bb);
                                self.run(next, depth + 1, start)?
                            }
                        };
                        self.arena.scratch.push(a);
                    }
                    if !function {
                        break self.arena.intern_scratch(head, base);
                    }
                    (head, base, None)
                }
            };
            if self.arena.info(head).special.is_meta() {
                let t2 = match node {
                    Some(t2) => t2,
                    None => self.arena.intern_scratch(head, base),
                };
                match self.meta(t2)? {
                    Some(next) => {
                        self.count_step(t2, next, start)?;
                        current = Current::Node(next);
                        continue;
                    }
                    None => break t2,
                }
            }
            // The memo table is keyed by nodes.
            let node = match node {
                None if self.limits.memo => Some(self.arena.intern_scratch(head, base)),
                other => other,
            };
            if self.limits.memo
                && let Some(t2) = node
                && let Some(&found) = self.memo.get(t2 as usize)
                && found != NO_ENTRY
            {
                break found;
            }
            // Ordered first-match rewriting.
            let rules = self.rules_of(head);
            let mut applied = None;
            for (i, rule) in rules.iter().enumerate() {
                let outcome = match node {
                    Some(t2) => rule.try_rule(&self.arena, t2, &mut self.matcher),
                    None => rule.try_call(
                        &self.arena,
                        head,
                        &self.arena.scratch[base..],
                        &mut self.matcher,
                    ),
                };
                match outcome {
                    SharedOutcome::Reject => continue,
                    SharedOutcome::Clog => break,
                    SharedOutcome::Apply => {
                        applied = Some(i);
                        break;
                    }
                }
            }
            let Some(i) = applied else {
                break match node {
                    Some(t2) => t2,
                    None => self.arena.intern_scratch(head, base),
                };
            };
            let rule = &rules[i];
            let bound = rule.bindings(&self.matcher);
            rule.check(&self.arena, bound)
                .map_err(NormError::Instantiate)?;
            self.bound.truncate(bound_base);
            // Pushed one by one: a call to memcpy costs more on so few.
            for &b in bound {
                self.bound.push(b);
            }
            self.count_rule(head, base, node, rule, bound_base, start)?;
            self.arena.scratch.truncate(base);
            // Only the memo table reads them.
            if self.limits.memo
                && let Some(t2) = node
            {
                self.pending.push((t2, self.steps - 1));
            }
            if rule.code_start != NO_CODE
                && !self.limits.memo
                && self.trace.is_none()
                && self.within_depth(rule, bound_base, depth)
            {
                break self.exec(rule.code_start, bound_base, depth, start)?;
            }
            current = Current::Instance(Rc::clone(&rules), i, rule.root(), bound_base);
        };
        self.arena.mark_normal(result);
        if self.limits.memo {
            for i in pending_base..self.pending.len() {
                let (call, at) = self.pending[i];
                if self.steps - at >= self.limits.memo_min_steps {
                    if self.memo.len() <= call as usize {
                        self.memo.resize(self.arena.len(), NO_ENTRY);
                    }
                    self.memo[call as usize] = result;
                }
            }
        }
        self.pending.truncate(pending_base);
        self.bound.truncate(bound_base);
        Ok(result)
    }

    /// Counts the rewrite of the call `head(scratch[base..])` (its node if
    /// it has one) by `rule` with the bindings from `bound[bb..]`.
    fn count_rule(
        &mut self,
        head: HeadId,
        base: usize,
        node: Option<Id>,
        rule: &SharedRule,
        bb: usize,
        start: u64,
    ) -> Result<(), NormError> {
        let over_limit = self.steps + 1 - start > self.limits.max_steps;
        if over_limit || self.trace.is_some() {
            // Both need the terms: build them (rarely, or when asked).
            let before = match node {
                Some(t2) => t2,
                None => {
                    let args = self.arena.scratch[base..].to_vec();
                    self.arena.intern(head, &args)
                }
            };
            let bound = self.bound[bb..].to_vec();
            let after = rule
                .build(rule.root(), &mut self.arena, &bound)
                .map_err(NormError::Instantiate)?;
            return self.count_step(before, after, start);
        }
        self.steps += 1;
        self.count_head(head);
        if !rule.fits(&self.arena, &self.bound[bb..], self.limits.max_depth) {
            return Err(self.depth_error());
        }
        Ok(())
    }

    fn count_head(&mut self, h: HeadId) {
        let h = h as usize;
        if self.steps_by_head.len() <= h {
            self.steps_by_head.resize(self.arena.heads_len(), 0);
        }
        self.steps_by_head[h] += 1;
    }

    /// The compiled rules of a head.
    fn rules_of(&mut self, head: HeadId) -> Rc<[SharedRule]> {
        match self.compiled.get(head as usize) {
            Some(Some(rules)) => Rc::clone(rules),
            _ => self.compile(head),
        }
    }

    fn compile(&mut self, head: HeadId) -> Rc<[SharedRule]> {
        let function = match &self.arena.info(head).head {
            Head::Sym(f) if self.sig.is_function(f) => Some(f.clone()),
            _ => None,
        };
        let rules: Rc<[SharedRule]> = match function {
            Some(f) => self
                .rules
                .of(&f)
                .iter()
                .map(|r| {
                    let mut rule = SharedRule::compile(r, &mut self.arena, self.sig);
                    if let Some(code) = rule.code(&self.arena) {
                        rule.code_start = self.code.len();
                        self.code.extend(code);
                    }
                    rule
                })
                .collect(),
            None => Rc::from([]),
        };
        if self.compiled.len() <= head as usize {
            self.compiled.resize(self.arena.heads_len(), None);
        }
        self.compiled[head as usize] = Some(Rc::clone(&rules));
        rules
    }

    /// Whether every node of the right side of `rule` instantiated with
    /// `bound[bb..]` at `depth` is certainly within the depth limit, with
    /// the instance itself no higher than the limit (what
    /// [`SharedRule::fits`] asks): then no depth check on the way can fail,
    /// so [`Normaliser::exec`] makes none.
    fn within_depth(&self, rule: &SharedRule, bb: usize, depth: usize) -> bool {
        let highest = self.bound[bb..]
            .iter()
            .map(|&b| self.arena.height(b))
            .max()
            .unwrap_or(0);
        rule.rhs_height() + highest + depth.max(1) <= self.limits.max_depth + 1
    }

    /// Normalises the right side of a rule just applied at a position at
    /// `depth`, its bindings in `bound[bb..]`, by running its code from
    /// `pc`: what [`Normaliser::run`] does node by node, with an explicit
    /// stack of positions instead of recursion and without building the
    /// calls that are rewritten. The values on its stack are normal forms;
    /// a call is matched on the values on top and, when a rule with code
    /// applies within the limits, its code runs in a new frame (at the same
    /// position for the call at the root). Anything else (no code, the step
    /// or depth limit near, a subterm without variables not yet normal)
    /// goes to [`Normaliser::run`] or [`Normaliser::main`], which count the
    /// same steps in the same order. Used without the memo table and the
    /// trace only.
    ///
    /// The stacks are in local variables while the code runs (so they
    /// are known apart from the rest of the normaliser, and their lengths
    /// stay in registers), and back in place around anything that may run
    /// code in turn.
    fn exec(
        &mut self,
        mut pc: usize,
        mut bb: usize,
        mut depth: usize,
        start: u64,
    ) -> Result<Id, NormError> {
        let mut st = Stacks::default();
        self.swap_stacks(&mut st);
        let floor = st.frames.len();
        loop {
            let op = self.code[pc];
            pc += 1;
            // The value of the right side, when this instruction gives it.
            let value = match op {
                Op::Var(x) => {
                    let v = st.bound[bb + x as usize];
                    debug_assert!(self.arena.is_normal(v));
                    st.values.push(v);
                    continue;
                }
                Op::Ground(id, j) => {
                    let v = if self.arena.is_normal(id) {
                        id
                    } else {
                        self.swap_stacks(&mut st);
                        let v = self.main(id, depth + j as usize, start)?;
                        self.swap_stacks(&mut st);
                        v
                    };
                    st.values.push(v);
                    continue;
                }
                Op::Build(head, arity) => {
                    let base = st.values.len() - arity as usize;
                    let v = self.arena.add_normal(head, &st.values[base..]);
                    st.values.truncate(base);
                    st.values.push(v);
                    continue;
                }
                Op::BuildRet(head, arity) => {
                    let base = st.values.len() - arity as usize;
                    let v = self.arena.add_normal(head, &st.values[base..]);
                    st.values.truncate(base);
                    v
                }
                Op::Call(head, arity, j) | Op::CallVars(head, arity, _, j) => {
                    let mut buf = [0; CALL_ARGS];
                    let args = match op {
                        Op::CallVars(.., x, _) => {
                            take_args(&mut buf, &st.bound[bb + x as usize..], arity)
                        }
                        _ => {
                            let base = st.values.len() - arity as usize;
                            let args = take_args(&mut buf, &st.values[base..], arity);
                            st.values.truncate(base);
                            args
                        }
                    };
                    let d = depth + j as usize;
                    let at = st.bound.len();
                    match self.exec_call(&mut st, head, args, d, start, at)? {
                        Exec::Rewrite(code) => {
                            st.frames.push(Frame { pc, bb, depth });
                            (pc, bb, depth) = (code, at, d);
                        }
                        Exec::Value(v) => st.values.push(v),
                    }
                    continue;
                }
                Op::TailCall(head, arity) | Op::TailCallVars(head, arity, _) => {
                    let mut buf = [0; CALL_ARGS];
                    let args = match op {
                        Op::TailCallVars(.., x) => {
                            take_args(&mut buf, &st.bound[bb + x as usize..], arity)
                        }
                        _ => {
                            let base = st.values.len() - arity as usize;
                            let args = take_args(&mut buf, &st.values[base..], arity);
                            st.values.truncate(base);
                            args
                        }
                    };
                    // The bindings of this frame are used up: the new ones
                    // take their place.
                    match self.exec_call(&mut st, head, args, depth, start, bb)? {
                        Exec::Rewrite(code) => {
                            pc = code;
                            continue;
                        }
                        Exec::Value(v) => v,
                    }
                }
                Op::Ret => match st.values.pop() {
                    Some(v) => v,
                    None => unreachable!("a right side leaves its value"),
                },
                Op::RetVar(x) => st.bound[bb + x as usize],
            };
            debug_assert!(self.arena.is_normal(value));
            st.bound.truncate(bb);
            if st.frames.len() == floor {
                self.swap_stacks(&mut st);
                return Ok(value);
            }
            let Some(f) = st.frames.pop() else {
                unreachable!("above the floor")
            };
            (pc, bb, depth) = (f.pc, f.bb, f.depth);
            st.values.push(value);
        }
    }

    /// Swaps the stacks [`Normaliser::exec`] works on with `st`.
    fn swap_stacks(&mut self, st: &mut Stacks) {
        std::mem::swap(&mut self.values, &mut st.values);
        std::mem::swap(&mut self.bound, &mut st.bound);
        std::mem::swap(&mut self.frames, &mut st.frames);
    }

    /// The call of `head` on the top `arity` values at `depth`, for
    /// [`Normaliser::exec`]: when a rule with code applies within the
    /// limits, the step is counted, the values popped, the bindings put
    /// in `bound[at..]` and the start of the rule's code returned;
    /// otherwise the call's normal form, the values popped. Linear left
    /// sides are matched in registers.
    #[inline(always)]
    fn exec_call(
        &mut self,
        st: &mut Stacks,
        head: HeadId,
        args: &[Id],
        depth: usize,
        start: u64,
        at: usize,
    ) -> Result<Exec, NormError> {
        let arity = args.len();
        let rules: &[SharedRule] = match self.compiled.get(head as usize) {
            Some(Some(rules)) => rules,
            _ => {
                self.compile(head);
                match self.compiled.get(head as usize) {
                    Some(Some(rules)) => rules,
                    _ => &[],
                }
            }
        };
        // The first argument's head, which rejects most rules at once (and
        // decides the rules with no other check).
        let (first, kids) = match args.first() {
            Some(&a) => {
                let v = self.arena.view(a);
                if v.opaque {
                    ((NO_HEAD, 0), v.kids)
                } else {
                    ((v.head, v.len), v.kids)
                }
            }
            None => ((NO_HEAD, 0), [0; INLINE]),
        };
        let mut applied = None;
        for rule in rules.iter() {
            let (h, n) = rule.first();
            if h != NO_HEAD && first.0 != NO_HEAD {
                if (h, n) != first {
                    continue;
                }
                let dst = rule.only_first() as usize;
                if dst != NO_REGISTER as usize && rule.arity() == arity {
                    self.regs[dst] = kids[0];
                    self.regs[dst + 1] = kids[1];
                    applied = Some(rule);
                    break;
                }
            }
            let outcome = if !rule.in_registers() {
                rule.try_call(&self.arena, head, args, &mut self.matcher)
            } else if rule.arity() == arity {
                rule.match_registers(&self.arena, args, &mut self.regs)
            } else {
                SharedOutcome::Reject
            };
            match outcome {
                SharedOutcome::Reject => continue,
                SharedOutcome::Clog => break,
                SharedOutcome::Apply => {
                    applied = Some(rule);
                    break;
                }
            }
        }
        let Some(rule) = applied else {
            return Ok(Exec::Value(self.arena.add_normal(head, args)));
        };
        st.bound.truncate(at);
        if rule.in_registers() {
            for &r in rule.var_regs() {
                st.bound.push(register(args, &self.regs, r));
            }
        } else {
            st.bound.extend_from_slice(self.matcher.bindings());
        }
        let code = rule.code_start;
        let (rhs_height, limit) = (rule.rhs_height(), self.limits.max_depth + 1);
        // Within the depth limit (see `within_depth`); the bindings are
        // subterms of the arguments: their heights first.
        let fits = |ids: &[Id]| {
            let mut h = 0;
            for &b in ids {
                h = h.max(self.arena.height(b));
            }
            rhs_height + h + depth.max(1) <= limit
        };
        let fast = code != NO_CODE
            && self.steps + 1 - start <= self.limits.max_steps
            && (rhs_height + self.arena.highest() + depth.max(1) <= limit
                || fits(args)
                || fits(&st.bound[at..]));
        if !fast {
            // The general loop matches again and counts the step itself.
            st.bound.truncate(at);
            let base_scratch = self.arena.scratch.len();
            self.arena.scratch.extend_from_slice(args);
            let t = self.arena.intern_scratch(head, base_scratch);
            self.swap_stacks(st);
            let v = self.run(Current::Node(t), depth, start);
            self.swap_stacks(st);
            return Ok(Exec::Value(v?));
        }
        self.steps += 1;
        self.count_head(head);
        Ok(Exec::Rewrite(code))
    }

    /// A call of a meta-level function, its arguments normalised: what it
    /// rewrites to, or `None` when it stays.
    fn meta(&mut self, t: Id) -> Result<Option<Id>, NormError> {
        let special = self.arena.head_info(t).special;
        let args = self.arena.args(t).to_vec();
        let out = match (special, args.as_slice()) {
            (Special::Code, &[a]) => {
                let a = if self.arena.head_info(a).special == Special::Verbatim
                    && self.arena.arity(a) == 1
                {
                    self.arena.arg(a, 0)
                } else {
                    a
                };
                let term = self.arena.to_term(a);
                if let Some(x) = term
                    .term_vars()
                    .into_iter()
                    .find(|x| !self.vtype.contains_key(x))
                {
                    return Err(
                        self.meta_error(t, format!("the term variable `{x}` has no type to code"))
                    );
                }
                code_term(&term, &self.vtype)
            }
            (Special::Decode, &[c, example]) => {
                let coded = self.arena.to_term(c);
                let Some((term, vtype)) = crate::term::decode_term(&coded) else {
                    return Ok(None);
                };
                self.check_decoded(t, &term, &vtype, example)?;
                term
            }
            (Special::GetClasses | Special::GetFunctions | Special::GetConstructors, []) => {
                let Some(defs) = self.defs else {
                    return Err(self.meta_error(t, "no definitions given to report".to_string()));
                };
                definitions_list(defs, special)
            }
            _ => return Ok(None),
        };
        // Within the depth limit before it is built (building recurses).
        if out.depth() > self.limits.max_depth {
            return Err(self.depth_error());
        }
        Ok(Some(self.arena.share(&out, self.sig)))
    }

    fn meta_error(&self, t: Id, message: String) -> NormError {
        NormError::Meta {
            term: self.arena.to_term(t),
            message,
        }
    }

    /// Checks a decoded term against the signature and the type of the
    /// example, and adds its variables' types to `vtype`.
    fn check_decoded(
        &mut self,
        call: Id,
        term: &Term,
        vtype: &VType,
        example: Id,
    ) -> Result<(), NormError> {
        let example = self.arena.to_term(example);
        let expected = reconstruct(self.sig, &example, &self.vtype)
            .map_err(|e| self.meta_error(call, format!("the example's type: {e}")))?
            .term_type()
            .clone();
        // The example's type variables renamed apart from the decoded ones.
        let mut taken = std::collections::BTreeSet::new();
        for ty in vtype.values() {
            ty.collect_vars(&mut taken);
        }
        let mut ours = std::collections::BTreeSet::new();
        expected.collect_vars(&mut ours);
        let mut renaming = crate::types::Subst::new();
        let mut n = 0;
        for v in ours {
            let fresh = loop {
                let name = format!("e{n}");
                n += 1;
                if !taken.contains(&name) {
                    break name;
                }
            };
            renaming.bind(v, Type::var(fresh));
        }
        let expected = renaming.apply(&expected);
        let rec = reconstruct_expecting(self.sig, term, vtype, Some(&expected)).map_err(|e| {
            self.meta_error(
                call,
                format!("the decoded term {term} as the example's type: {e}"),
            )
        })?;
        for (x, ty) in rec.reconstructed(vtype) {
            match self.vtype.get(&x) {
                Some(known) if *known != ty => {
                    return Err(self.meta_error(
                        call,
                        format!(
                            "the decoded variable `{x}` has type {} but {} elsewhere",
                            ty.type_name(),
                            known.type_name()
                        ),
                    ));
                }
                Some(_) => {}
                None => {
                    self.vtype.insert(x, ty);
                }
            }
        }
        Ok(())
    }

    /// NORMALISE-SPECIAL: only if-then-else is rewritten; verbatim stays.
    fn special(&mut self, t: Id, depth: usize, start: u64) -> Result<Id, NormError> {
        if depth > self.limits.max_depth {
            return Err(self.depth_error());
        }
        // A normal form has no if-then-else to choose outside verbatim.
        if self.arena.is_normal(t) || self.arena.head_info(t).special == Special::Verbatim {
            return Ok(t);
        }
        let t = self.map_args(t, depth, start, Self::special)?;
        if self.arena.head_info(t).special == Special::If && self.arena.arity(t) == 3 {
            let c = self.arena.arg(t, 0);
            let pick = if self.arena.is_leaf(c, Special::True) {
                Some(1)
            } else if self.arena.is_leaf(c, Special::False) {
                Some(2)
            } else {
                None
            };
            if let Some(i) = pick {
                let next = self.arena.arg(t, i);
                self.count_step(t, next, start)?;
                return Ok(next);
            }
        }
        Ok(t)
    }
}

/// What `get class definitions`, `get function definitions` or `get
/// constructors` give: a list of coded definitions in declaration order.
fn definitions_list(defs: &Definitions, which: Special) -> Term {
    let items = defs
        .iter()
        .filter_map(|(name, def)| match (which, def.kind()) {
            (Special::GetClasses, SyntaxKind::Type) => {
                let params = (1..=def.arg_types().count())
                    .map(|i| Type::var(format!("a{i}")))
                    .collect();
                Some(Term::sym(
                    names::CLASS_OF,
                    vec![code_type(&Type::sym(name, params))],
                ))
            }
            (Special::GetFunctions, SyntaxKind::Function)
            | (Special::GetConstructors, SyntaxKind::Constructor) => {
                let head = if which == Special::GetFunctions {
                    names::FUNCTION_DEF
                } else {
                    names::CONSTRUCTOR_DEF
                };
                let args = def.arg_types().map(code_type).collect();
                let result = code_type(def.result_type()?);
                Some(Term::sym(
                    head,
                    vec![code_string(name), code_list(args), result],
                ))
            }
            _ => None,
        })
        .collect();
    code_list(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::names;
    use crate::decl::{basic_definitions, read_declarations};
    use crate::rewrite::Rule;
    use crate::syntax::Definitions;
    use crate::term::{SymKind, VType, display_term, parse_functional};
    use crate::types::Type;

    /// Peano numbers in functional form, with equality and Fibonacci.
    struct Peano {
        sig: Signature,
        rules: Rules,
        vtype: VType,
    }

    fn nat() -> Type {
        Type::sym("nat", vec![])
    }

    fn peano() -> Peano {
        let mut sig = Signature::new();
        let b = Type::sym(names::BOOLEAN, vec![]);
        sig.add("zero", nat(), SymKind::Constructor);
        sig.add("s", Type::fun(vec![nat()], nat()), SymKind::Constructor);
        sig.add(names::TRUE, b.clone(), SymKind::Constructor);
        sig.add(names::FALSE, b.clone(), SymKind::Constructor);
        for f in ["plus", "times"] {
            sig.add(f, Type::fun(vec![nat(), nat()], nat()), SymKind::Function);
        }
        sig.add("fib", Type::fun(vec![nat()], nat()), SymKind::Function);
        sig.add(
            "iszero",
            Type::fun(vec![nat()], b.clone()),
            SymKind::Function,
        );
        sig.add("f", Type::fun(vec![nat()], nat()), SymKind::Function);
        sig.add("g", Type::fun(vec![nat()], nat()), SymKind::Function);
        sig.add("grow", Type::fun(vec![nat()], nat()), SymKind::Function);
        for f in ["pred", "keep"] {
            sig.add(f, Type::fun(vec![nat()], nat()), SymKind::Function);
        }
        sig.add(
            "same",
            Type::fun(vec![nat(), nat()], b.clone()),
            SymKind::Function,
        );
        let a = Type::var("a");
        sig.add(
            names::IF,
            Type::fun(vec![b, a.clone(), a.clone()], a.clone()),
            SymKind::Function,
        );
        sig.add(
            names::BRACKET,
            Type::fun(vec![a.clone()], a.clone()),
            SymKind::Function,
        );
        sig.add(
            names::VERBATIM,
            Type::fun(vec![a.clone()], a),
            SymKind::Function,
        );
        let vtype: VType = ["x", "y", "z"]
            .iter()
            .map(|x| (x.to_string(), nat()))
            .collect();
        let mut rules = Rules::new();
        for (l, r) in [
            ("plus(zero, y)", "y"),
            ("plus(s(x), y)", "s(plus(x, y))"),
            ("times(zero, y)", "zero"),
            ("times(s(x), y)", "plus(y, times(x, y))"),
            ("fib(zero)", "zero"),
            ("fib(s(zero))", "s(zero)"),
            ("fib(s(s(x)))", "plus(fib(s(x)), fib(x))"),
            ("iszero(zero)", "Ctrue"),
            ("iszero(s(x))", "Cfalse"),
            ("f(x)", "g(x)"),
            ("g(x)", "f(x)"),
            ("grow(x)", "grow(s(x))"),
            // If-then-else and verbatim on right sides.
            ("pred(s(x))", "x"),
            (
                "pred(x)",
                &format!("{}(iszero(x), zero, pred(x))", names::IF),
            ),
            ("keep(x)", &format!("s({}(plus(x, zero)))", names::VERBATIM)),
            // A repeated variable on a left side (matched by equality).
            ("same(x, x)", "Ctrue"),
            ("same(x, y)", "Cfalse"),
        ] {
            let lt = parse_functional(l, &sig, &vtype).expect("lhs");
            let rt = parse_functional(r, &sig, &vtype).expect("rhs");
            rules.add(Rule::new(&sig, lt, &vtype, rt, &vtype).expect("valid"));
        }
        Peano { sig, rules, vtype }
    }

    fn num(n: usize) -> String {
        format!("{}zero{}", "s(".repeat(n), ")".repeat(n))
    }

    /// The numeral n built directly (deeper than the reader accepts).
    fn numeral(n: usize) -> Term {
        (0..n).fold(Term::sym("zero", vec![]), |t, _| Term::sym("s", vec![t]))
    }

    impl Peano {
        fn term(&self, text: &str) -> Term {
            parse_functional(text, &self.sig, &self.vtype).expect("term")
        }
        fn norm(&self, text: &str, limits: Limits) -> Result<Term, NormError> {
            Normaliser::new(&self.sig, &self.rules, limits).normalise(&self.term(text))
        }
    }

    #[test]
    fn peano_addition() {
        let p = peano();
        assert_eq!(
            p.norm("plus(s(s(zero)), s(zero))", Limits::default()),
            Ok(p.term("s(s(s(zero)))"))
        );
        assert_eq!(
            p.norm(&format!("times({}, {})", num(3), num(4)), Limits::default()),
            Ok(p.term(&num(12)))
        );
        // Symbolic: plus(s(x), y) rewrites, plus(x, y) clogs.
        assert_eq!(
            p.norm("plus(s(zero), plus(x, zero))", Limits::default()),
            Ok(p.term("s(plus(x, zero))"))
        );
    }

    #[test]
    fn a_repeated_left_variable_matches_equal_arguments_only() {
        let p = peano();
        for (text, normal) in [
            (format!("same({}, {})", num(2), num(2)), "Ctrue"),
            (format!("same({}, {})", num(1), num(2)), "Cfalse"),
            ("same(x, x)".to_string(), "Ctrue"),
            (format!("same(plus({}, zero), {})", num(2), num(2)), "Ctrue"),
            // Built by rewriting on both sides (without the memo table,
            // equal terms built apart are different nodes).
            (
                format!(
                    "same(plus({}, {}), plus({}, {}))",
                    num(1),
                    num(2),
                    num(2),
                    num(1)
                ),
                "Ctrue",
            ),
            (
                format!(
                    "same(plus({}, {}), plus({}, {}))",
                    num(1),
                    num(2),
                    num(2),
                    num(2)
                ),
                "Cfalse",
            ),
            ("same(keep(zero), keep(zero))".to_string(), "Ctrue"),
        ] {
            for memo in [true, false] {
                assert_eq!(
                    p.norm(
                        &text,
                        Limits {
                            memo,
                            ..Limits::default()
                        }
                    ),
                    Ok(p.term(normal)),
                    "{text}, memo {memo}"
                );
            }
        }
    }

    #[test]
    fn the_f_g_loop_hits_the_step_limit() {
        let p = peano();
        let limits = Limits {
            max_steps: 10_000,
            ..Limits::default()
        };
        match p.norm("f(x)", limits) {
            Err(NormError::StepLimit { limit, .. }) => assert_eq!(limit, 10_000),
            other => panic!("expected the step limit, got {other:?}"),
        }
        // Without the memo table too.
        let limits = Limits {
            memo: false,
            ..limits
        };
        assert!(matches!(
            p.norm("f(zero)", limits),
            Err(NormError::StepLimit { .. })
        ));
        // A growing term is an error, not a stack overflow, with the memo
        // table and without it (compiled right sides).
        for memo in [true, false] {
            let e = p.norm(
                "grow(zero)",
                Limits {
                    memo,
                    ..Limits::default()
                },
            );
            assert!(
                matches!(
                    e,
                    Err(NormError::DepthLimit { .. } | NormError::StepLimit { .. })
                ),
                "{e:?}"
            );
        }
    }

    #[test]
    fn if_then_else_brackets_and_verbatim() {
        let p = peano();
        let ite = |c: &str, a: &str, b: &str| format!("{}({c}, {a}, {b})", names::IF);
        assert_eq!(
            p.norm(&ite("iszero(zero)", "s(zero)", "zero"), Limits::default()),
            Ok(p.term("s(zero)"))
        );
        assert_eq!(
            p.norm(
                &ite("iszero(s(x))", "s(zero)", "plus(zero, zero)"),
                Limits::default()
            ),
            Ok(p.term("zero"))
        );
        // An unknown condition: the branches are not rewritten by rules.
        let t = ite("iszero(x)", "plus(zero, zero)", "zero");
        assert_eq!(p.norm(&t, Limits::default()), Ok(p.term(&t)));
        // Brackets are removed, and what they held normalised.
        let t = format!("s({}(plus(s(zero), zero)))", names::BRACKET);
        assert_eq!(p.norm(&t, Limits::default()), Ok(p.term("s(s(zero))")));
        // Verbatim: kept as written, then the outer verbatim removed.
        let t = format!("s({}(plus(s(zero), zero)))", names::VERBATIM);
        assert_eq!(
            p.norm(&t, Limits::default()),
            Ok(p.term("s(plus(s(zero), zero))"))
        );
        let inner = format!("{}(plus(zero, zero))", names::VERBATIM);
        let t = format!("{}(s({inner}))", names::VERBATIM);
        assert_eq!(
            p.norm(&t, Limits::default()),
            Ok(p.term(&format!("s({inner})")))
        );
    }

    #[test]
    fn memo_makes_fibonacci_calls_linear() {
        let p = peano();
        let n = 15;
        let t = p.term(&format!("fib({})", num(n)));
        let mut with = Normaliser::new(&p.sig, &p.rules, Limits::default());
        let a = with.normalise(&t).expect("normal form");
        let mut without = Normaliser::new(
            &p.sig,
            &p.rules,
            Limits {
                memo: false,
                ..Limits::default()
            },
        );
        let b = without.normalise(&t).expect("normal form");
        assert_eq!(a, b);
        assert_eq!(a, numeral(610));
        // With the memo each fib(k), k = 0..=n, is rewritten once; without
        // it the calls number T(n) = T(n-1) + T(n-2) + 1 = 2 F(n+1) - 1.
        assert_eq!(with.steps_of("fib"), n as u64 + 1);
        assert_eq!(without.steps_of("fib"), 2 * 987 - 1);
        assert!(with.steps() < without.steps());
    }

    /// A variable applied to arguments on a right side takes the name it
    /// stands for, and is an error when it stands for more than a name.
    #[test]
    fn applied_variables_on_the_right() {
        let mut p = peano();
        let unary = Type::fun(vec![nat()], nat());
        p.sig.add(
            "apply",
            Type::fun(vec![unary.clone(), nat()], nat()),
            SymKind::Function,
        );
        p.vtype.insert("q".to_string(), unary);
        let rule = Rule::new(
            &p.sig,
            p.term("apply(q, x)"),
            &p.vtype,
            p.term("q(x)"),
            &p.vtype,
        )
        .expect("valid");
        p.rules.add(rule);
        assert_eq!(
            p.norm("apply(s, zero)", Limits::default()),
            Ok(p.term("s(zero)"))
        );
        assert!(matches!(
            p.norm("apply(s(zero), zero)", Limits::default()),
            Err(NormError::Instantiate(_))
        ));
    }

    #[test]
    fn trace_records_each_step() {
        let p = peano();
        let mut n = Normaliser::new(&p.sig, &p.rules, Limits::default());
        n.trace(true);
        n.normalise(&p.term("plus(s(zero), zero)"))
            .expect("normal form");
        let steps: Vec<String> = n
            .take_trace()
            .iter()
            .map(|s| format!("{} -> {}", s.before, s.after))
            .collect();
        assert_eq!(
            steps,
            vec![
                "plus(s(zero), zero) -> s(plus(zero, zero))",
                "plus(zero, zero) -> zero"
            ]
        );
    }

    /// Peano addition declared in the user's syntax and displayed in it.
    #[test]
    fn peano_in_the_users_syntax() {
        let mut defs: Definitions = basic_definitions();
        read_declarations(
            "Class 'nat'. Element 'zero' as nat. Element 's' nat as nat. \
             Function nat '+' nat as nat. Variable 'x' as nat. Variable 'y' as nat.",
            &mut defs,
        )
        .expect("declarations");
        let (sig, vtype) = Signature::from_definitions(&defs);
        let mut rules = Rules::new();
        for (l, r) in [
            ("F\\?_+_\\?(Czero, Vy)", "Vy"),
            ("F\\?_+_\\?(Cs_\\?(Vx), Vy)", "Cs_\\?(F\\?_+_\\?(Vx, Vy))"),
        ] {
            let lt = parse_functional(l, &sig, &vtype).expect("lhs");
            let rt = parse_functional(r, &sig, &vtype).expect("rhs");
            rules.add(Rule::new(&sig, lt, &vtype, rt, &vtype).expect("rule"));
        }
        let t = parse_functional(
            "F\\?_+_\\?(Cs_\\?(Cs_\\?(Czero)), Cs_\\?(Czero))",
            &sig,
            &vtype,
        )
        .expect("term");
        assert_eq!(display_term(&t, &defs), "s s zero + s zero");
        let n = Normaliser::new(&sig, &rules, Limits::default())
            .normalise(&t)
            .expect("normal form");
        assert_eq!(display_term(&n, &defs), "s s s zero");
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn arb_nat_term() -> impl Strategy<Value = String> {
            let leaf = prop_oneof![(0usize..4).prop_map(num), Just("x".to_string()),];
            leaf.prop_recursive(4, 16, 2, |inner| {
                prop_oneof![
                    inner.clone().prop_map(|a| format!("s({a})")),
                    (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("plus({a}, {b})")),
                    (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("times({a}, {b})")),
                    inner.clone().prop_map(|a| format!("fib({a})")),
                    inner.clone().prop_map(|a| format!("pred({a})")),
                    inner.clone().prop_map(|a| format!("keep({a})")),
                    inner
                        .clone()
                        .prop_map(|a| format!("{}({a})", names::BRACKET)),
                    inner
                        .clone()
                        .prop_map(|a| format!("{}({a})", names::VERBATIM)),
                    (inner.clone(), inner.clone(), inner.clone())
                        .prop_map(|(a, b, c)| format!("{}(iszero({a}), {b}, {c})", names::IF)),
                    (inner.clone(), inner.clone(), inner)
                        .prop_map(|(a, b, c)| format!("{}(same({a}, {b}), {b}, {c})", names::IF)),
                ]
            })
        }

        /// Algorithm 5 on term trees, without the memo table, as plainly
        /// as the spec writes it: the normal form and the steps taken, or
        /// `None` past `limit` steps.
        fn reference(p: &Peano, t: &Term, limit: u64) -> Option<(Term, u64)> {
            fn strip(t: &Term, name: &str, deep: bool) -> Term {
                if t.head.name() == name && t.args.len() == 1 {
                    return if deep {
                        strip(&t.args[0], name, deep)
                    } else {
                        t.args[0].clone()
                    };
                }
                Term {
                    head: t.head.clone(),
                    args: t.args.iter().map(|a| strip(a, name, deep)).collect(),
                }
            }
            fn step(steps: &mut u64, limit: u64) -> Option<()> {
                *steps += 1;
                (*steps <= limit).then_some(())
            }
            fn truth(t: &Term) -> Option<bool> {
                match (t.head.name(), t.args.len()) {
                    (names::TRUE, 0) => Some(true),
                    (names::FALSE, 0) => Some(false),
                    _ => None,
                }
            }
            fn special(t: &Term, steps: &mut u64, limit: u64) -> Option<Term> {
                if t.head.name() == names::VERBATIM {
                    return Some(t.clone());
                }
                let args = t
                    .args
                    .iter()
                    .map(|a| special(a, steps, limit))
                    .collect::<Option<Vec<_>>>()?;
                if t.head.name() == names::IF
                    && args.len() == 3
                    && let Some(c) = truth(&args[0])
                {
                    step(steps, limit)?;
                    return Some(args[if c { 1 } else { 2 }].clone());
                }
                Some(Term {
                    head: t.head.clone(),
                    args,
                })
            }
            fn main(p: &Peano, t: &Term, steps: &mut u64, limit: u64) -> Option<Term> {
                let function = p.sig.is_function(t.head.name()) && matches!(t.head, Head::Sym(_));
                if !function {
                    let args = t
                        .args
                        .iter()
                        .map(|a| main(p, a, steps, limit))
                        .collect::<Option<_>>()?;
                    return Some(Term {
                        head: t.head.clone(),
                        args,
                    });
                }
                if t.head.name() == names::VERBATIM {
                    return Some(t.clone());
                }
                if t.head.name() == names::IF && t.args.len() == 3 {
                    let c = main(p, &t.args[0], steps, limit)?;
                    let chosen = truth(&c).map(|b| t.args[if b { 1 } else { 2 }].clone());
                    let t2 = Term {
                        head: t.head.clone(),
                        args: vec![c, t.args[1].clone(), t.args[2].clone()],
                    };
                    return match chosen {
                        Some(next) => {
                            step(steps, limit)?;
                            main(p, &next, steps, limit)
                        }
                        None => special(&t2, steps, limit),
                    };
                }
                let args = t
                    .args
                    .iter()
                    .map(|a| main(p, a, steps, limit))
                    .collect::<Option<_>>()?;
                let t2 = Term {
                    head: t.head.clone(),
                    args,
                };
                match p.rules.rewrite(&p.sig, &t2).ok()? {
                    None => Some(t2),
                    Some(next) => {
                        step(steps, limit)?;
                        main(p, &next, steps, limit)
                    }
                }
            }
            let mut steps = 0;
            let n = main(p, &strip(t, names::BRACKET, true), &mut steps, limit)?;
            Some((strip(&n, names::VERBATIM, false), steps))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(200))]

            /// Shared terms change neither the normal form nor the steps.
            #[test]
            fn shared_normalisation_is_the_plain_algorithm(text in arb_nat_term()) {
                let p = peano();
                let limit = 20_000;
                let t = p.term(&text);
                let limits = Limits { max_steps: limit, memo: false, ..Limits::default() };
                let mut n = Normaliser::new(&p.sig, &p.rules, limits);
                let shared = n.normalise(&t);
                match reference(&p, &t, limit) {
                    Some((normal, steps)) => {
                        prop_assert_eq!(shared, Ok(normal));
                        prop_assert_eq!(n.steps(), steps);
                    }
                    None => prop_assert!(shared.is_err(), "{:?}", shared),
                }
            }

            #[test]
            fn memo_does_not_change_normal_forms(texts in prop::collection::vec(arb_nat_term(), 1..4)) {
                let p = peano();
                let limits = Limits { max_steps: 200_000, ..Limits::default() };
                // One normaliser per mode over several terms: the memo
                // table carries over between them.
                let mut with = Normaliser::new(&p.sig, &p.rules, limits);
                let mut without = Normaliser::new(&p.sig, &p.rules, Limits { memo: false, ..limits });
                for text in &texts {
                    let t = p.term(text);
                    let a = with.normalise(&t);
                    let b = without.normalise(&t);
                    if let (Ok(a), Ok(b)) = (&a, &b) {
                        prop_assert_eq!(a, b);
                    } else {
                        // Only a limit may stop one, and then memo-less too.
                        prop_assert!(b.is_err(), "{:?} vs {:?}", a, b);
                    }
                }
            }
        }
    }
}
