//! Static checks on the AST: names, arities, free variables, probabilities,
//! the shape of the game graph, the continuous parts (ODE orders, arithmetic
//! right-hand sides, kept derivatives, parameter intervals). All errors are
//! collected.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use toss_runtime::continuous::derivative_name;

use crate::ast::*;
use crate::board::{Board, parse_board};
use crate::diagnostic::Diagnostic;

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
        // ---- PLAYERS, START, duplicates of top-level items
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

        // ---- the structure signature: START (with its board), rule sides
        if let Some((s, _)) = start {
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
        self.data(file);
        // Before any formula: terms anywhere may read kept derivatives.
        self.odes(file);

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

        // ---- rules
        let mut rule_spans: HashMap<&str, &Span> = HashMap::new();
        for item in &file.items {
            if let Item::Rule(r) = item {
                if let Some(first) = rule_spans.get(r.name.name.as_str()) {
                    let first = (*first).clone();
                    self.err(
                        Diagnostic::new(
                            format!("duplicate definition of rule `{}`", r.name.name),
                            r.name.span.clone(),
                        )
                        .with_label(first, "first defined here"),
                    );
                    continue;
                }
                rule_spans.insert(&r.name.name, &r.name.span);
                let params = self.rule(r);
                self.sig
                    .rule_params
                    .insert(r.name.name.clone(), params.keys().cloned().collect());
                self.param_uses.insert(r.name.name.clone(), params);
            }
        }

        // ---- locations
        let mut loc_spans: HashMap<usize, &Span> = HashMap::new();
        for item in &file.items {
            if let Item::Loc(l) = item {
                if let Some(first) = loc_spans.get(&l.id.value) {
                    let first = (*first).clone();
                    self.err(
                        Diagnostic::new(
                            format!("duplicate definition of location {}", l.id.value),
                            l.id.span.clone(),
                        )
                        .with_label(first, "first defined here"),
                    );
                } else {
                    loc_spans.insert(l.id.value, &l.id.span);
                    self.sig.locations.insert(l.id.value);
                }
            }
        }
        if !self.sig.locations.contains(&0) {
            let span = file
                .items
                .iter()
                .find_map(|i| match i {
                    Item::Loc(l) => Some(l.span.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| self.file_end());
            self.err(
                Diagnostic::new("missing location 0", span)
                    .with_note("the play starts in location 0, so `LOC 0 { ... }` is required"),
            );
        }
        let n = self.sig.locations.len();
        for item in &file.items {
            if let Item::Loc(l) = item
                && l.id.value >= n
            {
                self.err(
                    Diagnostic::new(
                        format!(
                            "location numbers must be 0..{} without gaps, found {}",
                            n.saturating_sub(1),
                            l.id.value
                        ),
                        l.id.span.clone(),
                    )
                    .with_note(format!("there are {n} locations")),
                );
            }
        }
        for item in &file.items {
            if let Item::Loc(l) = item {
                self.location(l);
            }
        }
        self.parameter_intervals(file);

        // ---- history
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

    fn file_end(&self) -> Span {
        let end = self
            .file
            .items
            .iter()
            .map(|i| match i {
                Item::Players { span, .. } | Item::Data { span, .. } => span.end,
                Item::History { span, .. } => span.end,
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

    /// Registers a structure's relations and functions; checks duplicate
    /// elements, arities and the board.
    fn structure(&mut self, s: &StructLit, is_state: bool) {
        let mut seen: HashMap<&str, &Span> = HashMap::new();
        for e in &s.elements {
            if let Some(first) = seen.get(e.name.as_str()) {
                let first = (*first).clone();
                self.err(
                    Diagnostic::new(format!("duplicate element `{}`", e.name), e.span.clone())
                        .with_label(first, "first listed here"),
                );
            } else {
                seen.insert(&e.name, &e.span);
            }
        }
        // Rule sides check their tuples' elements; states add them.
        let elements: BTreeSet<&str> = if is_state {
            BTreeSet::new()
        } else {
            s.elements.iter().map(|e| e.name.as_str()).collect()
        };
        // The board first: its relations and functions.
        if let Some((text, span)) = &s.board {
            if !is_state {
                self.err(Diagnostic::new(
                    "a board string is only allowed after START or MODEL",
                    span.clone(),
                ));
            } else {
                match parse_board(text) {
                    Ok(board) => self.board_signature(&board, s),
                    Err((msg, off)) => {
                        let at = span.start + 1 + off;
                        self.err(Diagnostic::new(msg, at..at + 1));
                    }
                }
            }
        }
        let mut local: HashMap<&str, usize> = HashMap::new();
        for r in &s.relations {
            let (name, optional) = base_relation(&r.name.name);
            if name == "nondistinct" && !is_state {
                for (t, sp) in &r.tuples {
                    if t.len() != 2 {
                        self.err(Diagnostic::new(
                            format!("`nondistinct` takes 2 elements, found {}", t.len()),
                            sp.clone(),
                        ));
                    }
                    self.tuple_elements(t, &elements, is_state);
                }
                continue;
            }
            if let Some(&a) = self.sig.defined.get(name) {
                if is_state {
                    self.err(Diagnostic::new(
                        format!("`{name}` is a defined relation; it cannot be given tuples"),
                        r.name.span.clone(),
                    ));
                }
                for (t, sp) in &r.tuples {
                    if t.len() != a {
                        self.err(Diagnostic::new(
                            format!(
                                "arity mismatch: `{name}` has arity {a} but this tuple has {} element(s)",
                                t.len()
                            ),
                            sp.clone(),
                        ));
                    }
                    self.tuple_elements(t, &elements, is_state);
                }
                continue;
            }
            if optional && is_state {
                self.err(Diagnostic::new(
                    "optional tuples (`_opt_`) are only allowed in rules",
                    r.name.span.clone(),
                ));
            }
            let arity = r
                .declared_arity
                .as_ref()
                .map(|a| a.value)
                .or_else(|| r.tuples.first().map(|t| t.0.len()));
            let Some(arity) = arity else {
                self.err(Diagnostic::new(
                    format!(
                        "cannot tell the arity of `{name}`: write `{name}:n {{}}` to declare an empty relation"
                    ),
                    r.span.clone(),
                ));
                continue;
            };
            if let Some(d) = &r.declared_arity
                && d.value > 64
            {
                self.err(Diagnostic::new(
                    "arity too large (at most 64)",
                    d.span.clone(),
                ));
                continue;
            }
            for (t, sp) in &r.tuples {
                if t.len() != arity {
                    self.err(Diagnostic::new(
                        format!(
                            "arity mismatch: `{name}` has arity {arity} but this tuple has {} element(s)",
                            t.len()
                        ),
                        sp.clone(),
                    ));
                }
                self.tuple_elements(t, &elements, is_state);
            }
            let known = self.sig.arity(name).or_else(|| local.get(name).copied());
            match known {
                Some(a) if a != arity => self.err(Diagnostic::new(
                    format!("arity mismatch: `{name}` has arity {a} elsewhere, {arity} here"),
                    r.name.span.clone(),
                )),
                Some(_) => {}
                None => {
                    local.insert(name, arity);
                    self.sig.add_rel(name, arity);
                }
            }
        }
        for f in &s.functions {
            self.sig.funs.insert(f.name.name.clone());
            for (e, _) in &f.values {
                if !is_state && !elements.contains(e.name.as_str()) {
                    self.err(Diagnostic::new(
                        format!("unknown element `{}` in a rule side", e.name),
                        e.span.clone(),
                    ));
                }
            }
        }
    }

    /// Elements of a rule-side tuple must be listed in that side.
    fn tuple_elements(&mut self, t: &[Ident], elements: &BTreeSet<&str>, is_state: bool) {
        if is_state {
            return;
        }
        for e in t {
            if !elements.contains(e.name.as_str()) {
                self.err(Diagnostic::new(
                    format!("unknown element `{}`: not listed in this rule side", e.name),
                    e.span.clone(),
                ));
            }
        }
    }

    fn board_signature(&mut self, board: &Board, s: &StructLit) {
        let span = s.board.as_ref().map(|b| b.1.clone()).unwrap_or_default();
        for r in ["R", "C", "DiagA", "DiagB"] {
            self.board_rel(r, 2, &span, s);
        }
        for cell in &board.cells {
            for r in &cell.relations {
                self.board_rel(r, 1, &span, s);
            }
        }
        self.sig.funs.insert("x".into());
        self.sig.funs.insert("y".into());
    }

    fn board_rel(&mut self, name: &str, arity: usize, span: &Span, s: &StructLit) {
        let declared = s
            .relations
            .iter()
            .find(|r| r.name.name == name)
            .and_then(|r| {
                r.declared_arity
                    .as_ref()
                    .map(|a| a.value)
                    .or_else(|| r.tuples.first().map(|t| t.0.len()))
            });
        match declared.or_else(|| self.sig.arity(name)) {
            Some(a) if a != arity => self.err(Diagnostic::new(
                format!("arity mismatch: the board uses `{name}` with arity {arity}, declared with arity {a}"),
                span.clone(),
            )),
            _ => self.sig.add_rel(name, arity),
        }
    }

    // ---- rules

    /// An optional tuple of the right side is added iff its counterpart,
    /// the optional left tuple over the elements its elements replace, was
    /// present (spec 1.1): every element needs a left element it replaces
    /// (`with [r <- l]`, or a left element of the same name), and the left
    /// side needs that optional tuple.
    fn optional_right_tuples(
        &mut self,
        r: &RuleDef,
        lhs: &BTreeSet<String>,
        rhs: &BTreeSet<String>,
    ) {
        let replaced = |e: &str| -> Option<String> {
            match r.with.iter().find(|(rt, _)| rt.name == e) {
                Some((_, lt)) => Some(lt.name.clone()),
                None => lhs.contains(e).then(|| e.to_string()),
            }
        };
        let left_optional: BTreeSet<(String, Vec<String>)> = r
            .lhs
            .relations
            .iter()
            .filter(|e| base_relation(&e.name.name).1)
            .flat_map(|e| {
                let rel = base_relation(&e.name.name).0.to_string();
                e.tuples.iter().map(move |(args, _)| {
                    (rel.clone(), args.iter().map(|a| a.name.clone()).collect())
                })
            })
            .collect();
        for e in &r.rhs.relations {
            let (rel, optional) = base_relation(&e.name.name);
            if !optional {
                continue;
            }
            'tuples: for (args, span) in &e.tuples {
                let mut image = Vec::new();
                for a in args {
                    match replaced(&a.name) {
                        Some(l) => image.push(l),
                        // An element of neither side is reported elsewhere.
                        None if !rhs.contains(&a.name) => continue 'tuples,
                        None => {
                            self.err(
                                Diagnostic::new(
                                    format!(
                                        "optional right tuple over `{}`, which replaces no \
                                         left element",
                                        a.name
                                    ),
                                    a.span.clone(),
                                )
                                .with_note(
                                    "an optional right tuple is added iff its left counterpart \
                                     was matched (spec 1.1), so its elements must replace left \
                                     elements",
                                ),
                            );
                            image.clear();
                            break;
                        }
                    }
                }
                if image.len() != args.len() {
                    continue;
                }
                if !left_optional.contains(&(rel.to_string(), image.clone())) {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "optional right tuple without its left counterpart: the left \
                                 side has no `_opt_{rel}({})`",
                                image.join(", ")
                            ),
                            span.clone(),
                        )
                        .with_note(
                            "an optional right tuple is added iff the same optional tuple over \
                             the elements it replaces was matched on the left (spec 1.1)",
                        ),
                    );
                }
            }
        }
    }

    fn rule(&mut self, r: &RuleDef) -> BTreeMap<String, Span> {
        let lhs: BTreeSet<String> = r.lhs.elements.iter().map(|e| e.name.clone()).collect();
        let rhs: BTreeSet<String> = r.rhs.elements.iter().map(|e| e.name.clone()).collect();
        // Defined relations on the sides.
        for (side, is_rhs) in [(&r.lhs, false), (&r.rhs, true)] {
            for e in &side.relations {
                let (name, _) = base_relation(&e.name.name);
                if is_rhs && self.sig.defined.contains_key(name) {
                    self.err(Diagnostic::new(
                        format!(
                            "the defined relation `{name}` may not appear on a rule's right side"
                        ),
                        e.name.span.clone(),
                    ));
                }
            }
            if is_rhs {
                for e in &side.relations {
                    if e.name.name == "nondistinct" {
                        self.err(Diagnostic::new(
                            "`nondistinct` is only allowed in a rule's left side",
                            e.name.span.clone(),
                        ));
                    }
                }
            }
        }
        for e in &r.emb {
            if self.sig.arity(&e.name).is_none() {
                self.err(Diagnostic::new(
                    format!("undefined relation `{}`", e.name),
                    e.span.clone(),
                ));
            }
        }
        for (rt, lt) in &r.with {
            if !rhs.contains(&rt.name) {
                self.err(Diagnostic::new(
                    format!(
                        "unknown element `{}`: not in the rule's right side",
                        rt.name
                    ),
                    rt.span.clone(),
                ));
            }
            if !lhs.contains(&lt.name) {
                self.err(Diagnostic::new(
                    format!("unknown element `{}`: not in the rule's left side", lt.name),
                    lt.span.clone(),
                ));
            }
        }
        self.optional_right_tuples(r, &lhs, &rhs);
        let mut params: BTreeMap<String, Span> = BTreeMap::new();
        let name = &r.name.name;
        for (f, consts, what) in [
            (&r.pre, &lhs, format!("the precondition of rule {name}")),
            (&r.inv, &lhs, format!("the invariant of rule {name}")),
            (&r.post, &rhs, format!("the postcondition of rule {name}")),
        ] {
            if let Some(f) = f {
                let mut sc = Scope::new(Ctx::Constraint, &what, consts);
                self.formula(f, &mut sc);
                for (p, sp) in sc.free_reals {
                    params.entry(p).or_insert(sp);
                }
            }
        }
        for (eqs, is_update) in [(&r.update, true), (&r.dynamics, false)] {
            for eq in eqs {
                if !self.sig.funs.contains(&eq.function.name) {
                    self.err(Diagnostic::new(
                        format!(
                            "{} for unknown function `{}`",
                            if is_update { "update" } else { "ODE" },
                            eq.function.name
                        ),
                        eq.function.span.clone(),
                    ));
                }
                let side = if is_update { &rhs } else { &lhs };
                if !side.contains(&eq.element.name) {
                    self.err(Diagnostic::new(
                        format!(
                            "unknown element `{}`: not in the rule's {} side",
                            eq.element.name,
                            if is_update { "right" } else { "left" }
                        ),
                        eq.element.span.clone(),
                    ));
                }
                if !is_update && eq.order == 0 {
                    self.err(Diagnostic::new(
                        "an ODE must define a derivative like `:f'(a)`",
                        eq.function.span.clone(),
                    ));
                }
                // An update may set a derivative below the order of the
                // function's ODEs (kept between moves).
                if is_update && eq.order > 0 {
                    self.kept(
                        format!(
                            "`update :{}({})` sets a derivative that is not kept",
                            derivative_name(&eq.function.name, eq.order),
                            eq.element.name
                        ),
                        eq.target.clone(),
                        &eq.function.name,
                        eq.order,
                        Some(&eq.element.name),
                    );
                }
                if !is_update {
                    self.arithmetic(&eq.value);
                }
                let what = format!("an equation of rule {name}");
                let mut sc = Scope::new(Ctx::Equation, &what, &lhs);
                self.term(&eq.value, &mut sc);
                for (p, sp) in sc.free_reals {
                    params.entry(p).or_insert(sp);
                }
            }
        }
        params
    }

    // ---- continuous dynamics (spec 1.2)

    /// `DATA epsilon: e` must be a non-negative number (the epsilon of the
    /// comparisons in continuous games, spec 1.3).
    fn data(&mut self, file: &File) {
        for item in &file.items {
            if let Item::Data { entries, .. } = item {
                for (k, v) in entries {
                    if k.name == "epsilon"
                        && !v
                            .name
                            .parse::<f64>()
                            .is_ok_and(|e| e.is_finite() && e >= 0.0)
                    {
                        let mut d = Diagnostic::new(
                            format!("`DATA epsilon: {}` is not a non-negative number", v.name),
                            v.span.clone(),
                        );
                        d.expected = vec!["a non-negative number like `1e-9`".into()];
                        self.err(d);
                    }
                }
            }
        }
    }

    /// Records the order of each function's ODEs, reporting equations of
    /// another order than the function's first; then checks that structures
    /// give values only to kept derivatives.
    fn odes(&mut self, file: &File) {
        for item in &file.items {
            let Item::Rule(r) = item else { continue };
            for eq in &r.dynamics {
                if eq.order == 0 {
                    continue; // reported with the rule
                }
                let f = &eq.function.name;
                match self.odes.get(f) {
                    None => {
                        self.odes.insert(f.clone(), (eq.order, eq.target.clone()));
                    }
                    Some((k, _)) if *k == eq.order => {}
                    Some((k, first)) => {
                        let (k, first) = (*k, first.clone());
                        let mut d = Diagnostic::new(
                            format!(
                                "ODEs of different orders for `:{f}`: {} here, {k} in the first one",
                                eq.order
                            ),
                            eq.target.clone(),
                        )
                        .with_label(first, format!("the first ODE for `:{f}`, of order {k}"))
                        .with_note(
                            "all equations for one function must have the same order (spec 1.2)",
                        );
                        d.expected = vec![format!(
                            "an equation for `:{}({})`",
                            derivative_name(f, k),
                            eq.element.name
                        )];
                        self.err(d);
                    }
                }
            }
        }
        for item in &file.items {
            let structures: Vec<&StructLit> = match item {
                Item::Start(s) | Item::Model(s) => vec![s],
                Item::Rule(r) => vec![&r.lhs, &r.rhs],
                _ => continue,
            };
            for s in structures {
                for f in s.functions.iter().filter(|f| f.order > 0) {
                    self.kept(
                        format!(
                            "`{}` gives values of a derivative that is not kept",
                            derivative_name(&f.name.name, f.order)
                        ),
                        f.name.span.start..f.name.span.end + f.order as usize,
                        &f.name.name,
                        f.order,
                        None,
                    );
                }
            }
        }
    }

    /// Reports (with `message` at `span`) the derivative of order `order`
    /// of `f` unless the structure keeps it: the derivatives below the order
    /// of `f`'s ODEs are kept. `element` is the element it is read on, for
    /// the spelling of what is expected (`:f'(b)`; else `f'`).
    fn kept(&mut self, message: String, span: Span, f: &str, order: u32, element: Option<&str>) {
        let kept = self.odes.get(f).map(|(k, _)| *k);
        if kept.is_some_and(|k| order < k) {
            return;
        }
        let spell = |k: u32| match element {
            Some(e) => format!("`:{}({e})`", derivative_name(f, k)),
            None => format!("`{}`", derivative_name(f, k)),
        };
        let mut d = Diagnostic::new(message, span);
        d.expected = (0..kept.unwrap_or(1)).map(spell).collect();
        let d = match kept {
            Some(k) => {
                let first = self.odes[f].1.clone();
                d.with_label(first, format!("the ODEs for `:{f}` are of order {k}"))
                    .with_note(format!(
                        "an ODE of order {k} keeps the derivatives of `:{f}` of orders below {k}"
                    ))
            }
            None => d.with_note(format!(
                "no `dynamics` equation defines a derivative of `:{f}`; an ODE of order k keeps \
                 the derivatives of orders 1 to k-1 (`dynamics :{f}''(e) = ...` keeps `:{f}'`)"
            )),
        };
        self.err(d);
    }

    /// An ODE's right-hand side must be arithmetic (spec 1.2): numbers,
    /// function values and kept derivatives, rule parameters, `+ - * /`,
    /// `^` and roots. Reports each outermost term that is not.
    fn arithmetic(&mut self, t: &Term) {
        let what = match &t.kind {
            TermKind::Num(_) | TermKind::Var(_) | TermKind::Fun { .. } => return,
            TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => {
                return self.arithmetic(a);
            }
            TermKind::Add(a, b)
            | TermKind::Sub(a, b)
            | TermKind::Mul(a, b)
            | TermKind::Div(a, b)
            | TermKind::Pow(a, b) => {
                self.arithmetic(a);
                return self.arithmetic(b);
            }
            TermKind::Char(_) => "a characteristic function `:(...)`",
            TermKind::Sum { .. } => "a sum `Sum (...)`",
            TermKind::Product { .. } => "a product `Product (...)`",
            TermKind::Min { .. } => "a minimum `min :a (...)`",
            TermKind::Let { .. } => "a `let` term",
        };
        let mut d = Diagnostic::new(
            format!("{what} in an ODE's right-hand side"),
            t.span.clone(),
        )
        .with_note("the right-hand side of an ODE is arithmetic (spec 1.2)");
        d.expected = vec![
            "a number, a function value `:f(l)` or kept derivative `:f'(l)` of a left element, \
             a rule parameter `:p`, `+ - * /`, `^` or a root"
                .into(),
        ];
        self.err(d);
    }

    /// Every rule parameter gets its interval from a label (spec 1.2: the
    /// parameters are chosen with the move).
    fn parameter_intervals(&mut self, file: &File) {
        let mut given: HashMap<&str, HashSet<&str>> = HashMap::new();
        for item in &file.items {
            if let Item::Loc(l) = item {
                for pb in &l.players {
                    for label in &pb.moves {
                        given
                            .entry(label.rule.name.as_str())
                            .or_default()
                            .extend(label.intervals.iter().map(|(n, _, _)| n.name.as_str()));
                    }
                }
            }
        }
        for item in &file.items {
            let Item::Rule(r) = item else { continue };
            let Some(params) = self.param_uses.get(&r.name.name) else {
                continue;
            };
            let mut missing = Vec::new();
            for (p, sp) in params {
                if !given
                    .get(r.name.name.as_str())
                    .is_some_and(|g| g.contains(p.as_str()))
                {
                    missing.push((p.clone(), sp.clone()));
                }
            }
            for (p, sp) in missing {
                let mut d = Diagnostic::new(
                    format!(
                        "the parameter `:{p}` of rule `{}` gets no interval: no label gives one",
                        r.name.name
                    ),
                    sp,
                )
                .with_note(format!(
                    "a free real variable of a rule is a parameter, chosen with the move in the \
                     interval its label gives, like `[{}, {p}: 0 -- 1 -> 0]`",
                    r.name.name
                ));
                d.expected = vec!["a rule parameter with an interval, or a bound variable".into()];
                self.err(d);
            }
        }
    }

    // ---- locations

    fn location(&mut self, l: &LocDef) {
        let mut seen: HashMap<&str, &Span> = HashMap::new();
        for pb in &l.players {
            if !self.sig.players.contains(&pb.name.name) {
                self.err(Diagnostic::new(
                    format!("undefined player `{}`", pb.name.name),
                    pb.name.span.clone(),
                ));
            }
            if let Some(first) = seen.get(pb.name.name.as_str()) {
                let first = (*first).clone();
                self.err(
                    Diagnostic::new(
                        format!(
                            "duplicate definition of player `{}` in location {}",
                            pb.name.name, l.id.value
                        ),
                        pb.name.span.clone(),
                    )
                    .with_label(first, "first defined here"),
                );
            } else {
                seen.insert(&pb.name.name, &pb.name.span);
            }
            if let Some(t) = &pb.payoff {
                let consts = BTreeSet::new();
                let mut sc = Scope::new(Ctx::Payoff, "a payoff", &consts);
                self.term(t, &mut sc);
            }
            for label in &pb.moves {
                self.label(label);
            }
        }
        self.joint_edges(l);
    }

    /// Spec 1.4 labels the edges of a location by the tuple of the movers'
    /// labels, but a file gives each label its own targets. Where several
    /// players move at once, the joint action's edge is only well defined
    /// when all their labels lead to the same edges (same locations,
    /// probabilities and drawn end-points).
    fn joint_edges(&mut self, l: &LocDef) {
        let key = |t: &TargetDef| {
            (
                t.location.value,
                t.probability.as_ref().map(|p| p.value.to_bits()),
                t.draws
                    .iter()
                    .map(|(n, d)| (n.name.clone(), format!("{d:?}")))
                    .collect::<Vec<_>>(),
            )
        };
        let mut movers = l.players.iter().filter(|pb| !pb.moves.is_empty());
        let Some(first) = movers.next() else {
            return;
        };
        let others: Vec<&PlayerBlock> = movers.collect();
        if others.is_empty() {
            return;
        }
        let reference = &first.moves[0];
        let want: Vec<_> = reference.targets.iter().map(key).collect();
        for pb in std::iter::once(first).chain(others) {
            for label in &pb.moves {
                let got: Vec<_> = label.targets.iter().map(key).collect();
                if got != want {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "in location {}, players move simultaneously, but this label \
                                 of `{}` leads elsewhere than `{}`'s label `{}`",
                                l.id.value, pb.name.name, first.name.name, reference.rule.name
                            ),
                            label.span.clone(),
                        )
                        .with_label(reference.span.clone(), "the first label's edges")
                        .with_note(
                            "where several players have moves, the next location is the edge \
                             of the joint action: every label there must have the same targets \
                             (locations, probabilities and drawn end-points)",
                        ),
                    );
                }
            }
        }
    }

    fn label(&mut self, l: &LabelDef) {
        let params = self.sig.rule_params.get(&l.rule.name).cloned();
        if params.is_none() {
            self.err(Diagnostic::new(
                format!("undefined rule `{}`", l.rule.name),
                l.rule.span.clone(),
            ));
        }
        let mut drawn = Vec::new();
        let mut seen = HashSet::new();
        for (n, lo, hi) in &l.intervals {
            if !seen.insert(n.name.as_str()) {
                self.err(Diagnostic::new(
                    format!("duplicate interval for `{}`", n.name),
                    n.span.clone(),
                ));
            }
            if n.name != "t"
                && let Some(ps) = &params
                && !ps.contains(&n.name)
            {
                self.err(
                    Diagnostic::new(
                        format!("`{}` is not a parameter of rule `{}`", n.name, l.rule.name),
                        n.span.clone(),
                    )
                    .with_note(if ps.is_empty() {
                        "the rule has no parameters".to_string()
                    } else {
                        format!(
                            "its parameters are: {}",
                            ps.iter().cloned().collect::<Vec<_>>().join(", ")
                        )
                    }),
                );
            }
            for b in [lo, hi] {
                if let Bound::Name(id) = b {
                    drawn.push(id);
                }
            }
        }
        for t in &l.targets {
            if !self.sig.locations.contains(&t.location.value) {
                self.err(Diagnostic::new(
                    format!("undefined location {}", t.location.value),
                    t.location.span.clone(),
                ));
            }
            for d in &drawn {
                if !t.draws.iter().any(|(n, _)| n.name == d.name) {
                    self.err(Diagnostic::new(
                        format!(
                            "the edge to location {} must say how `{}` is drawn, e.g. `{} ~ uniform(0, 1)`",
                            t.location.value, d.name, d.name
                        ),
                        t.span.clone(),
                    ));
                }
            }
            if let Some(p) = &t.probability
                && !(p.value > 0.0 && p.value <= 1.0)
            {
                self.err(Diagnostic::new(
                    format!("a probability must be in (0, 1], found {}", p.value),
                    p.span.clone(),
                ));
            }
        }
        let with_p = l.targets.iter().filter(|t| t.probability.is_some()).count();
        if l.targets.len() > 1 || with_p > 0 {
            if with_p < l.targets.len() {
                self.err(Diagnostic::new(
                    "every edge of a label with several edges needs a probability `(p 0.5)`",
                    l.span.clone(),
                ));
            } else {
                let sum: f64 = l
                    .targets
                    .iter()
                    .filter_map(|t| t.probability.as_ref().map(|p| p.value))
                    .sum();
                if (sum - 1.0).abs() > 1e-9 {
                    self.err(Diagnostic::new(
                        format!("the probabilities of this label's edges sum to {sum}, not 1"),
                        l.span.clone(),
                    ));
                }
            }
        }
    }

    // ---- formulas and terms

    fn rel_use(&mut self, name: &Ident, n_args: usize, sc: &Scope) {
        let arity = sc
            .local_rels
            .iter()
            .rev()
            .find(|(n, _)| *n == name.name)
            .map(|(_, a)| *a)
            .or_else(|| self.sig.defined.get(&name.name).copied())
            .or_else(|| self.sig.arity(&name.name));
        match arity {
            None => self.err(Diagnostic::new(
                format!("undefined relation `{}`", name.name),
                name.span.clone(),
            )),
            Some(a) if a != n_args => self.err(Diagnostic::new(
                format!(
                    "arity mismatch: `{}` has arity {a} but is used with {n_args} argument(s)",
                    name.name
                ),
                name.span.clone(),
            )),
            Some(_) => {}
        }
    }

    fn elem_use(&mut self, x: &Ident, sc: &Scope) {
        if sc.elems.contains(&x.name) || sc.constants.contains(&x.name) {
            return;
        }
        let msg = match sc.ctx {
            Ctx::RelBody => format!(
                "free variable `{}` in {}: it is not a parameter",
                x.name, sc.what
            ),
            Ctx::Payoff => format!(
                "free variable `{}` in {}: a payoff must be a sentence",
                x.name, sc.what
            ),
            Ctx::Constraint | Ctx::Equation => format!(
                "free variable `{}` in {}: it is neither bound nor an element of the rule side",
                x.name, sc.what
            ),
        };
        self.err(Diagnostic::new(msg, x.span.clone()));
    }

    fn set_use(&mut self, x: &Ident, sc: &Scope) {
        if sc.sets.contains(&x.name) {
            return;
        }
        self.err(Diagnostic::new(
            format!("free set variable `{}` in {}", x.name, sc.what),
            x.span.clone(),
        ));
    }

    fn real_use(&mut self, x: &Ident, sc: &mut Scope) {
        if sc.reals.contains(&x.name) {
            return;
        }
        match sc.ctx {
            Ctx::Constraint | Ctx::Equation => {
                sc.free_reals
                    .entry(x.name.clone())
                    .or_insert_with(|| x.span.clone());
            }
            Ctx::Payoff | Ctx::RelBody => self.err(Diagnostic::new(
                format!("free real variable `:{}` in {}", x.name, sc.what),
                x.span.clone(),
            )),
        }
    }

    fn bind(sc: &mut Scope, vars: &[VarDecl]) -> [usize; 3] {
        let mark = [sc.elems.len(), sc.sets.len(), sc.reals.len()];
        for v in vars {
            match v.kind {
                VarKind::Element => sc.elems.push(v.name.name.clone()),
                VarKind::Set => sc.sets.push(v.name.name.clone()),
                VarKind::Real => sc.reals.push(v.name.name.clone()),
            }
        }
        mark
    }

    fn unbind(sc: &mut Scope, mark: [usize; 3]) {
        sc.elems.truncate(mark[0]);
        sc.sets.truncate(mark[1]);
        sc.reals.truncate(mark[2]);
    }

    fn elem_vars(vars: &[Ident]) -> Vec<VarDecl> {
        vars.iter()
            .map(|v| VarDecl {
                kind: VarKind::Element,
                name: v.clone(),
            })
            .collect()
    }

    fn formula(&mut self, f: &Formula, sc: &mut Scope) {
        match &f.kind {
            FormulaKind::True | FormulaKind::False => {}
            FormulaKind::Rel { name, args } => {
                self.rel_use(name, args.len(), sc);
                for a in args {
                    self.elem_use(a, sc);
                }
            }
            FormulaKind::Eq(a, b) | FormulaKind::Ne(a, b) => {
                self.elem_use(a, sc);
                self.elem_use(b, sc);
            }
            FormulaKind::In { element, set } => {
                self.elem_use(element, sc);
                self.set_use(set, sc);
            }
            FormulaKind::Cmp { lhs, rhs, .. } => {
                self.term(lhs, sc);
                self.term(rhs, sc);
            }
            FormulaKind::Not(g) => self.formula(g, sc),
            FormulaKind::And(fs) | FormulaKind::Or(fs) => {
                for g in fs {
                    self.formula(g, sc);
                }
            }
            FormulaKind::Implies(a, b) | FormulaKind::Iff(a, b) => {
                self.formula(a, sc);
                self.formula(b, sc);
            }
            FormulaKind::Exists { vars, body } | FormulaKind::Forall { vars, body } => {
                for v in vars.iter().filter(|v| v.kind == VarKind::Real) {
                    self.real_quantifier(&v.name, body);
                }
                let mark = Self::bind(sc, vars);
                self.formula(body, sc);
                Self::unbind(sc, mark);
            }
            FormulaKind::Fixpoint {
                relation,
                params,
                body,
                ..
            } => {
                sc.local_rels.push((relation.name.clone(), params.len()));
                let mark = Self::bind(sc, &Self::elem_vars(params));
                self.formula(body, sc);
                Self::unbind(sc, mark);
                sc.local_rels.pop();
                // A fixed point exists, and iteration reaches it, only when
                // the body is monotone in the relation: every occurrence
                // positive (under an even number of negations, outside
                // counting and real terms).
                let mut occ = Vec::new();
                occurrences(body, &relation.name, true, &mut occ);
                if let Some((span, _)) = occ.iter().find(|(_, positive)| !positive) {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "`{}` occurs negatively in the body of its own fixed point",
                                relation.name
                            ),
                            span.clone(),
                        )
                        .with_label(relation.span.clone(), "the fixed point's relation")
                        .with_note(
                            "an `lfp`/`gfp` body must be monotone in its relation: every \
                             occurrence under an even number of negations (`not`, the left \
                             of `->`), and none inside `<->` or a real term",
                        ),
                    );
                }
                // The fixed point holds of its parameters, which stay free.
                for p in params {
                    self.elem_use(p, sc);
                }
            }
            FormulaKind::Tc {
                steps,
                from,
                to,
                body,
            } => {
                if from.len() != to.len() || from.is_empty() {
                    self.err(Diagnostic::new(
                        format!(
                            "`tc` needs as many variables after the comma as before ({} and {})",
                            from.len(),
                            to.len()
                        ),
                        f.span.clone(),
                    ));
                }
                if let Some(s) = steps
                    && s.value == 0
                {
                    self.err(Diagnostic::new(
                        "the number of `tc` steps must be at least 1",
                        s.span.clone(),
                    ));
                }
                let mut all = from.clone();
                all.extend(to.iter().cloned());
                let mark = Self::bind(sc, &Self::elem_vars(&all));
                self.formula(body, sc);
                Self::unbind(sc, mark);
                for v in &all {
                    self.elem_use(v, sc);
                }
            }
            FormulaKind::Let {
                relation,
                params,
                def,
                body,
            } => {
                let mark = Self::bind(sc, &Self::elem_vars(params));
                self.formula(def, sc);
                Self::unbind(sc, mark);
                sc.local_rels.push((relation.name.clone(), params.len()));
                self.formula(body, sc);
                sc.local_rels.pop();
            }
            FormulaKind::LetReal { var, value, body } => {
                self.term(value, sc);
                sc.reals.push(var.name.clone());
                self.formula(body, sc);
                sc.reals.pop();
            }
        }
    }

    fn term(&mut self, t: &Term, sc: &mut Scope) {
        match &t.kind {
            TermKind::Num(_) => {}
            TermKind::Var(v) => self.real_use(v, sc),
            TermKind::Fun {
                name,
                order,
                element,
            } => {
                if !self.sig.funs.contains(&name.name) {
                    self.err(Diagnostic::new(
                        format!("undefined function `{}`", name.name),
                        name.span.clone(),
                    ));
                } else if *order > 0 {
                    self.kept(
                        format!(
                            "the derivative `:{}({})` is not kept",
                            derivative_name(&name.name, *order),
                            element.name
                        ),
                        t.span.clone(),
                        &name.name,
                        *order,
                        Some(&element.name),
                    );
                }
                self.elem_use(element, sc);
            }
            TermKind::Char(f) => self.formula(f, sc),
            TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => {
                if let TermKind::Root(n, _) = &t.kind
                    && n.value < 2
                {
                    self.err(Diagnostic::new(
                        "the root's degree must be at least 2",
                        n.span.clone(),
                    ));
                }
                self.term(a, sc)
            }
            TermKind::Add(a, b)
            | TermKind::Sub(a, b)
            | TermKind::Mul(a, b)
            | TermKind::Div(a, b)
            | TermKind::Pow(a, b) => {
                self.term(a, sc);
                self.term(b, sc);
            }
            TermKind::Sum { vars, guard, body } | TermKind::Product { vars, guard, body } => {
                let mark = Self::bind(sc, &Self::elem_vars(vars));
                self.formula(guard, sc);
                self.term(body, sc);
                Self::unbind(sc, mark);
            }
            TermKind::Min { var, body } => {
                self.real_quantifier(var, body);
                sc.reals.push(var.name.clone());
                self.formula(body, sc);
                sc.reals.pop();
            }
            TermKind::Let { var, value, body } => {
                self.term(value, sc);
                sc.reals.push(var.name.clone());
                self.term(body, sc);
                sc.reals.pop();
            }
        }
    }
}

impl Checker<'_> {
    /// A real quantifier (`ex :a`, `all :a`, `min :a`) is decided over the
    /// values its variable is compared with, so `:a` may occur only alone
    /// on one side of a comparison whose other side does not use it, nor a
    /// real variable bound inside the quantifier (spec 1.3's quantifier
    /// elimination is not implemented in general).
    fn real_quantifier(&mut self, var: &Ident, body: &Formula) {
        if let Err(d) = real_uses_in_formula(&var.name, body, &mut Vec::new()) {
            self.err(d.with_note(format!(
                "`:{}` is quantified here and may only occur alone on one side of a \
                 comparison, `:{} < t` or `t <= :{}`, with `t` free of it and of real \
                 variables bound inside its quantifier",
                var.name, var.name, var.name
            )));
        }
    }
}

/// Checks the uses of real variable `var` in `f` (see
/// [`Checker::real_quantifier`]); `inner` are the real variables bound
/// between its quantifier and here.
fn real_uses_in_formula(var: &str, f: &Formula, inner: &mut Vec<String>) -> Result<(), Diagnostic> {
    let is_var = |t: &Term| matches!(&t.kind, TermKind::Var(v) if v.name == var);
    match &f.kind {
        FormulaKind::Cmp { lhs, rhs, .. } => {
            let (l, r) = (term_uses(lhs, var), term_uses(rhs, var));
            let other = match (l, r) {
                (false, false) => {
                    real_uses_in_term(var, lhs, inner)?;
                    return real_uses_in_term(var, rhs, inner);
                }
                (true, false) if is_var(lhs) => rhs,
                (false, true) if is_var(rhs) => lhs,
                _ => {
                    return Err(Diagnostic::new(
                        format!("`:{var}` is not alone on one side of this comparison"),
                        f.span.clone(),
                    ));
                }
            };
            if let Some(b) = inner.iter().find(|b| term_uses(other, b)) {
                return Err(Diagnostic::new(
                    format!(
                        "`:{var}` is compared with a term using `:{b}`, a real variable bound \
                         inside its quantifier"
                    ),
                    other.span.clone(),
                ));
            }
            real_uses_in_term(var, other, inner)
        }
        FormulaKind::True
        | FormulaKind::False
        | FormulaKind::Rel { .. }
        | FormulaKind::Eq(..)
        | FormulaKind::Ne(..)
        | FormulaKind::In { .. } => Ok(()),
        FormulaKind::Not(g) => real_uses_in_formula(var, g, inner),
        FormulaKind::And(gs) | FormulaKind::Or(gs) => gs
            .iter()
            .try_for_each(|g| real_uses_in_formula(var, g, inner)),
        FormulaKind::Implies(a, b) | FormulaKind::Iff(a, b) => {
            real_uses_in_formula(var, a, inner)?;
            real_uses_in_formula(var, b, inner)
        }
        FormulaKind::Exists { vars, body } | FormulaKind::Forall { vars, body } => {
            let reals: Vec<&str> = vars
                .iter()
                .filter(|v| v.kind == VarKind::Real)
                .map(|v| v.name.name.as_str())
                .collect();
            if reals.contains(&var) {
                // Shadowed: the inner quantifier's own variable.
                return Ok(());
            }
            let mark = inner.len();
            inner.extend(reals.iter().map(|r| r.to_string()));
            let r = real_uses_in_formula(var, body, inner);
            inner.truncate(mark);
            r
        }
        FormulaKind::Fixpoint { body, .. } | FormulaKind::Tc { body, .. } => {
            real_uses_in_formula(var, body, inner)
        }
        FormulaKind::Let { def, body, .. } => {
            real_uses_in_formula(var, def, inner)?;
            real_uses_in_formula(var, body, inner)
        }
        FormulaKind::LetReal {
            var: bound,
            value,
            body,
        } => {
            if term_uses(value, var) {
                return Err(Diagnostic::new(
                    format!("`:{var}` in the value of a `let`"),
                    value.span.clone(),
                ));
            }
            if bound.name == var {
                return Ok(());
            }
            inner.push(bound.name.clone());
            let r = real_uses_in_formula(var, body, inner);
            inner.pop();
            r
        }
    }
}

/// Checks a term that is not compared with `var` directly: `var` may occur
/// in it only inside formulas (characteristic functions, guards).
fn real_uses_in_term(var: &str, t: &Term, inner: &mut Vec<String>) -> Result<(), Diagnostic> {
    match &t.kind {
        TermKind::Var(v) if v.name == var => Err(Diagnostic::new(
            format!("`:{var}` inside a term, not alone on one side of a comparison"),
            t.span.clone(),
        )),
        TermKind::Num(_) | TermKind::Var(_) | TermKind::Fun { .. } => Ok(()),
        TermKind::Char(f) => real_uses_in_formula(var, f, inner),
        TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => {
            real_uses_in_term(var, a, inner)
        }
        TermKind::Add(a, b)
        | TermKind::Sub(a, b)
        | TermKind::Mul(a, b)
        | TermKind::Div(a, b)
        | TermKind::Pow(a, b) => {
            real_uses_in_term(var, a, inner)?;
            real_uses_in_term(var, b, inner)
        }
        TermKind::Sum { guard, body, .. } | TermKind::Product { guard, body, .. } => {
            real_uses_in_formula(var, guard, inner)?;
            real_uses_in_term(var, body, inner)
        }
        TermKind::Min { var: bound, body } => {
            if bound.name == var {
                return Ok(());
            }
            inner.push(bound.name.clone());
            let r = real_uses_in_formula(var, body, inner);
            inner.pop();
            r
        }
        TermKind::Let {
            var: bound,
            value,
            body,
        } => {
            real_uses_in_term(var, value, inner)?;
            if bound.name == var {
                return Ok(());
            }
            inner.push(bound.name.clone());
            let r = real_uses_in_term(var, body, inner);
            inner.pop();
            r
        }
    }
}

/// Whether real variable `var` occurs free in `t`.
fn term_uses(t: &Term, var: &str) -> bool {
    match &t.kind {
        TermKind::Var(v) => v.name == var,
        TermKind::Num(_) | TermKind::Fun { .. } => false,
        TermKind::Char(f) => formula_uses(f, var),
        TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => term_uses(a, var),
        TermKind::Add(a, b)
        | TermKind::Sub(a, b)
        | TermKind::Mul(a, b)
        | TermKind::Div(a, b)
        | TermKind::Pow(a, b) => term_uses(a, var) || term_uses(b, var),
        TermKind::Sum { guard, body, .. } | TermKind::Product { guard, body, .. } => {
            formula_uses(guard, var) || term_uses(body, var)
        }
        TermKind::Min { var: bound, body } => bound.name != var && formula_uses(body, var),
        TermKind::Let {
            var: bound,
            value,
            body,
        } => term_uses(value, var) || (bound.name != var && term_uses(body, var)),
    }
}

/// Whether real variable `var` occurs free in `f`.
fn formula_uses(f: &Formula, var: &str) -> bool {
    match &f.kind {
        FormulaKind::Cmp { lhs, rhs, .. } => term_uses(lhs, var) || term_uses(rhs, var),
        FormulaKind::True
        | FormulaKind::False
        | FormulaKind::Rel { .. }
        | FormulaKind::Eq(..)
        | FormulaKind::Ne(..)
        | FormulaKind::In { .. } => false,
        FormulaKind::Not(g) => formula_uses(g, var),
        FormulaKind::And(gs) | FormulaKind::Or(gs) => gs.iter().any(|g| formula_uses(g, var)),
        FormulaKind::Implies(a, b) | FormulaKind::Iff(a, b) => {
            formula_uses(a, var) || formula_uses(b, var)
        }
        FormulaKind::Exists { vars, body } | FormulaKind::Forall { vars, body } => {
            !vars
                .iter()
                .any(|v| v.kind == VarKind::Real && v.name.name == var)
                && formula_uses(body, var)
        }
        FormulaKind::Fixpoint { body, .. } | FormulaKind::Tc { body, .. } => {
            formula_uses(body, var)
        }
        FormulaKind::Let { def, body, .. } => formula_uses(def, var) || formula_uses(body, var),
        FormulaKind::LetReal {
            var: bound,
            value,
            body,
        } => term_uses(value, var) || (bound.name != var && formula_uses(body, var)),
    }
}

/// The occurrences of relation `rel` in `f` with their polarity (`true`:
/// under an even number of negations). Occurrences inside `<->` and inside
/// real terms count as negative (they are not monotone in general); an
/// inner `lfp`/`gfp`/`let` binding the same name hides it; an occurrence in
/// the definition of a `let` relation takes the polarity of that relation's
/// uses in the `let` body.
fn occurrences(f: &Formula, rel: &str, positive: bool, out: &mut Vec<(Span, bool)>) {
    match &f.kind {
        FormulaKind::True
        | FormulaKind::False
        | FormulaKind::Eq(..)
        | FormulaKind::Ne(..)
        | FormulaKind::In { .. } => {}
        FormulaKind::Rel { name, .. } => {
            if name.name == rel {
                out.push((name.span.clone(), positive));
            }
        }
        FormulaKind::Cmp { lhs, rhs, .. } => {
            term_occurrences(lhs, rel, out);
            term_occurrences(rhs, rel, out);
        }
        FormulaKind::Not(g) => occurrences(g, rel, !positive, out),
        FormulaKind::And(fs) | FormulaKind::Or(fs) => {
            for g in fs {
                occurrences(g, rel, positive, out);
            }
        }
        FormulaKind::Implies(a, b) => {
            occurrences(a, rel, !positive, out);
            occurrences(b, rel, positive, out);
        }
        FormulaKind::Iff(a, b) => {
            occurrences(a, rel, false, out);
            occurrences(b, rel, false, out);
        }
        FormulaKind::Exists { body, .. }
        | FormulaKind::Forall { body, .. }
        | FormulaKind::Tc { body, .. } => occurrences(body, rel, positive, out),
        FormulaKind::Fixpoint { relation, body, .. } => {
            if relation.name != rel {
                occurrences(body, rel, positive, out);
            }
        }
        FormulaKind::Let {
            relation,
            def,
            body,
            ..
        } => {
            let mut in_def = Vec::new();
            occurrences(def, rel, true, &mut in_def);
            if !in_def.is_empty() {
                let mut uses = Vec::new();
                occurrences(body, &relation.name, positive, &mut uses);
                for (span, p) in &in_def {
                    for (_, q) in &uses {
                        out.push((span.clone(), p == q));
                    }
                }
            }
            if relation.name != rel {
                occurrences(body, rel, positive, out);
            }
        }
        FormulaKind::LetReal { value, body, .. } => {
            term_occurrences(value, rel, out);
            occurrences(body, rel, positive, out);
        }
    }
}

/// Occurrences of `rel` inside a real term, all counted as negative.
fn term_occurrences(t: &Term, rel: &str, out: &mut Vec<(Span, bool)>) {
    let mut inner = Vec::new();
    match &t.kind {
        TermKind::Num(_) | TermKind::Var(_) | TermKind::Fun { .. } => {}
        TermKind::Char(f) => occurrences(f, rel, true, &mut inner),
        TermKind::Neg(a) | TermKind::Sqrt(a) | TermKind::Root(_, a) => {
            term_occurrences(a, rel, &mut inner)
        }
        TermKind::Add(a, b)
        | TermKind::Sub(a, b)
        | TermKind::Mul(a, b)
        | TermKind::Div(a, b)
        | TermKind::Pow(a, b) => {
            term_occurrences(a, rel, &mut inner);
            term_occurrences(b, rel, &mut inner);
        }
        TermKind::Sum { guard, body, .. } | TermKind::Product { guard, body, .. } => {
            occurrences(guard, rel, true, &mut inner);
            term_occurrences(body, rel, &mut inner);
        }
        TermKind::Min { body, .. } => occurrences(body, rel, true, &mut inner),
        TermKind::Let { value, body, .. } => {
            term_occurrences(value, rel, &mut inner);
            term_occurrences(body, rel, &mut inner);
        }
    }
    out.extend(inner.into_iter().map(|(s, _)| (s, false)));
}
