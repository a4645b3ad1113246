//! Static checks on the AST: names, arities, free variables, probabilities,
//! the shape of the game graph, the continuous parts (ODE orders, arithmetic
//! right-hand sides, kept derivatives, parameter intervals). All errors are
//! collected.
//!
//! This file holds the signature ([`Sig`]), the checker's state and the order
//! of the passes; each pass is an `impl Checker` block in its own file:
//! [`signature`] (structures), [`rules`], [`locations`], [`continuous`],
//! [`formulas`] (formulas and terms, used by the rule, location and REL
//! checks), [`payoffs`] (payoffs never finite) and [`reals`] (real
//! quantifiers); [`lowered`] checks what is easier to see in the lowered
//! game (REL cycles, saved plays). The calls between them go one
//! way: rules and locations use formulas, formulas use continuous (kept
//! derivatives) and reals.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::ast::*;
use crate::diagnostic::Diagnostic;

pub(crate) use lowered::lowered;

mod continuous;
mod formulas;
mod locations;
mod lowered;
mod payoffs;
mod reals;
mod rules;
mod signature;

/// Names and arities a game's formulas and rules may use.
#[derive(Debug, Default)]
pub(crate) struct Sig {
    /// Relations of the structure signature (START, its board, rule sides),
    /// in first-seen order, with their arity.
    pub rels: Vec<(String, usize)>,
    pub rel_index: HashMap<String, usize>,
    /// Relations first seen in rule sides (to declare in START).
    pub rule_only: Vec<(String, usize)>,
    /// Defined relations and their arity.
    pub defined: HashMap<String, usize>,
    /// Real functions of START (and its board) and of rule sides.
    pub funs: BTreeSet<String>,
    pub players: Vec<String>,
    /// The parameters (free real variables) of each rule.
    pub rule_params: HashMap<String, BTreeSet<String>>,
    pub locations: BTreeSet<usize>,
}

impl Sig {
    pub fn arity(&self, name: &str) -> Option<usize> {
        self.rel_index.get(name).map(|&i| self.rels[i].1)
    }
    fn add_rel(&mut self, name: &str, arity: usize) {
        if !self.rel_index.contains_key(name) {
            self.rel_index.insert(name.to_string(), self.rels.len());
            self.rels.push((name.to_string(), arity));
        }
    }
}

/// The relation a rule-side entry names: `_opt_R` is `R`.
pub(crate) fn base_relation(name: &str) -> (&str, bool) {
    match name.strip_prefix("_opt_") {
        Some(r) if !r.is_empty() => (r, true),
        _ => (name, false),
    }
}

struct Checker<'a> {
    file: &'a File,
    diags: Vec<Diagnostic>,
    sig: Sig,
    /// Per function with ODEs: their order and the first one's left side
    /// (spec 1.2: all equations for one function have one order).
    odes: HashMap<String, (u32, Span)>,
    /// Per rule: its parameters with the span of their first use.
    param_uses: HashMap<String, BTreeMap<String, Span>>,
}

/// Runs all checks; returns the signature for lowering, or the errors.
pub(crate) fn check(file: &File) -> Result<Sig, Vec<Diagnostic>> {
    let mut c = Checker {
        file,
        diags: Vec::new(),
        sig: Sig::default(),
        odes: HashMap::new(),
        param_uses: HashMap::new(),
    };
    c.run();
    if c.diags.is_empty() {
        Ok(c.sig)
    } else {
        Err(c.diags)
    }
}

/// Checks state structure literals on their own (a plays file): elements,
/// boards, and one arity per relation over all of them.
pub(crate) fn check_states(lits: &[&StructLit]) -> Result<Sig, Vec<Diagnostic>> {
    let empty = File { items: Vec::new() };
    let mut c = Checker {
        file: &empty,
        diags: Vec::new(),
        sig: Sig::default(),
        odes: HashMap::new(),
        param_uses: HashMap::new(),
    };
    for lit in lits {
        c.structure(lit, true);
    }
    if c.diags.is_empty() {
        Ok(c.sig)
    } else {
        Err(c.diags)
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    /// A REL body: free element/set variables must be parameters.
    RelBody,
    /// pre/inv/post: element names of one side are constants; free real
    /// variables are rule parameters.
    Constraint,
    /// A payoff: must be closed.
    Payoff,
    /// An update/ODE right-hand side.
    Equation,
}

struct Scope<'s> {
    ctx: Ctx,
    /// What the formula is, for messages ("a payoff", "REL Win").
    what: &'s str,
    /// Element names usable as constants / parameters.
    constants: &'s BTreeSet<String>,
    /// Free real variables found (rule parameters), with their first use.
    free_reals: BTreeMap<String, Span>,
    elems: Vec<String>,
    sets: Vec<String>,
    reals: Vec<String>,
    /// Locally bound relations (lfp/gfp/let) with arity.
    local_rels: Vec<(String, usize)>,
}

impl<'s> Scope<'s> {
    fn new(ctx: Ctx, what: &'s str, constants: &'s BTreeSet<String>) -> Self {
        Scope {
            ctx,
            what,
            constants,
            free_reals: BTreeMap::new(),
            elems: Vec::new(),
            sets: Vec::new(),
            reals: Vec::new(),
            local_rels: Vec::new(),
        }
    }
}

impl Checker<'_> {
    fn err(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn run(&mut self) {
        let file = self.file;
        let start = self.players_and_start();
        self.signature(start);
        self.data(file);
        // Before any formula: terms anywhere may read kept derivatives.
        self.odes(file);
        self.rel_bodies();
        self.rules();
        self.locations();
        self.parameter_intervals(file);
        self.history();
    }

    fn file_end(&self) -> Span {
        let end = self
            .file
            .items
            .iter()
            .map(|i| match i {
                Item::Players { span, .. } | Item::Data { span, .. } => span.end,
                Item::History { span, .. } | Item::Repetition { span, .. } => span.end,
                Item::Rel(r) => r.span.end,
                Item::Rule(r) => r.span.end,
                Item::Loc(l) => l.span.end,
                Item::Start(s) | Item::Model(s) => s.span.end,
            })
            .max()
            .unwrap_or(0);
        end..end
    }

    fn dup_params(&mut self, params: &[Ident]) {
        let mut seen = HashSet::new();
        for p in params {
            if !seen.insert(p.name.as_str()) {
                self.err(Diagnostic::new(
                    format!("duplicate parameter `{}`", p.name),
                    p.span.clone(),
                ));
            }
        }
    }
}

impl<'a> Checker<'a> {
    /// PLAYERS and START: duplicates, and a missing PLAYERS declaration.
    fn players_and_start(&mut self) -> Option<&'a StructLit> {
        let file = self.file;
        let mut players_item: Option<&Span> = None;
        let mut start: Option<(&StructLit, &Span)> = None;
        for item in &file.items {
            match item {
                Item::Players { names, span } => {
                    if let Some(first) = players_item {
                        self.err(
                            Diagnostic::new("duplicate PLAYERS declaration", span.clone())
                                .with_label(first.clone(), "first declared here"),
                        );
                    } else {
                        players_item = Some(span);
                        let mut seen: HashMap<&str, &Span> = HashMap::new();
                        for n in names {
                            if let Some(first) = seen.get(n.name.as_str()) {
                                let first = (*first).clone();
                                self.err(
                                    Diagnostic::new(
                                        format!("duplicate player `{}`", n.name),
                                        n.span.clone(),
                                    )
                                    .with_label(first, "first declared here"),
                                );
                            } else {
                                seen.insert(&n.name, &n.span);
                                self.sig.players.push(n.name.clone());
                            }
                        }
                    }
                }
                Item::Start(s) => {
                    if let Some((_, first)) = start {
                        self.err(
                            Diagnostic::new("duplicate START structure", s.span.clone())
                                .with_label(first.clone(), "first given here"),
                        );
                    } else {
                        start = Some((s, &s.span));
                    }
                }
                _ => {}
            }
        }
        let end = self.file_end();
        if players_item.is_none() {
            self.err(
                Diagnostic::new("missing PLAYERS declaration", end.clone())
                    .with_note("a game needs `PLAYERS name, ...`"),
            );
        }
        start.map(|(s, _)| s)
    }

    /// The structure signature: START (with its board), the defined
    /// relations, the rule sides and MODEL structures.
    fn signature(&mut self, start: Option<&'a StructLit>) {
        let file = self.file;
        let end = self.file_end();
        // ---- the structure signature: START (with its board), rule sides
        if let Some(s) = start {
            self.structure(s, true);
        } else {
            self.err(
                Diagnostic::new("missing START structure", end)
                    .with_note("a game needs `START [ elements | relations | functions ]`"),
            );
        }
        // ---- defined relations
        let mut rel_spans: HashMap<&str, &Span> = HashMap::new();
        for item in &file.items {
            if let Item::Rel(r) = item {
                if let Some(first) = rel_spans.get(r.name.name.as_str()) {
                    let first = (*first).clone();
                    self.err(
                        Diagnostic::new(
                            format!("duplicate definition of relation `{}`", r.name.name),
                            r.name.span.clone(),
                        )
                        .with_label(first, "first defined here"),
                    );
                    continue;
                }
                if self.sig.rel_index.contains_key(&r.name.name) {
                    self.err(Diagnostic::new(
                        format!(
                            "duplicate definition of relation `{}`: it is already a relation of the structures",
                            r.name.name
                        ),
                        r.name.span.clone(),
                    ));
                    continue;
                }
                rel_spans.insert(&r.name.name, &r.name.span);
                self.sig.defined.insert(r.name.name.clone(), r.params.len());
            }
        }
        let start_rels = self.sig.rels.len();
        for item in &file.items {
            if let Item::Rule(r) = item {
                self.structure(&r.lhs, false);
                self.structure(&r.rhs, false);
            }
        }
        self.sig.rule_only = self.sig.rels[start_rels..].to_vec();
        for item in &file.items {
            if let Item::Model(s) = item {
                self.structure(s, true);
            }
        }
    }

    /// The bodies of REL definitions.
    fn rel_bodies(&mut self) {
        let file = self.file;
        for item in &file.items {
            if let Item::Rel(r) = item {
                let consts = BTreeSet::new();
                let what = format!("the body of REL {}", r.name.name);
                let mut sc = Scope::new(Ctx::RelBody, &what, &consts);
                self.dup_params(&r.params);
                sc.elems = r.params.iter().map(|p| p.name.clone()).collect();
                self.formula(&r.body, &mut sc);
            }
        }
    }

    /// HISTORY moves name defined players, rules and locations.
    fn history(&mut self) {
        let file = self.file;
        for item in &file.items {
            if let Item::History { moves, .. } = item {
                for m in moves {
                    if !self.sig.players.contains(&m.player.name) {
                        self.err(Diagnostic::new(
                            format!("undefined player `{}`", m.player.name),
                            m.player.span.clone(),
                        ));
                    }
                    if !self.sig.rule_params.contains_key(&m.rule.name) {
                        self.err(Diagnostic::new(
                            format!("undefined rule `{}`", m.rule.name),
                            m.rule.span.clone(),
                        ));
                    }
                    if !self.sig.locations.contains(&m.target.value) {
                        self.err(Diagnostic::new(
                            format!("undefined location {}", m.target.value),
                            m.target.span.clone(),
                        ));
                    }
                }
            }
        }
    }
}
