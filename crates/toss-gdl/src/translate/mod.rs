//! The translation of a GDL game into a Toss game (spec chapter 5).
//!
//! The pipeline, each step in its own file:
//! 1. player elimination (`players`);
//! 2. expanding the game (`expand`): `legal` clauses whose move is a
//!    variable are unfolded, relations that use `does` are inlined into
//!    the `next` clauses;
//! 3. the aggregate playout: the relaxed program of grounding
//!    ([`crate::ground`]) over-approximates the reachable state terms S;
//! 4. frame clauses, fluent paths, elements as classes of state terms,
//!    coordinate paths and the unchanging predicates (`elements`);
//! 5. formulas: clause bodies over the elements, the defined relations
//!    for `terminal` and `goal`, and the fact and subterm-equality
//!    relations they need (`formulas`);
//! 6. the turn cycle and its locations, and the rewriting rules from
//!    `legal` x `next` clause tuples (`rules`, spec 5.2.4 and the
//!    turn-based case of 5.2.7).
//!
//! Games the translation cannot handle are refused with a [`Refusal`], a
//! closed list of reasons.

mod elements;
mod expand;
mod formulas;
mod markers;
mod names;
mod players;
mod rules;

use std::collections::{HashMap, HashSet};
use std::fmt;

use toss_core::ir::{self, Formula, Location, PlayerLocation, RealExpr};
use toss_core::structure::Structure;
use toss_lang::Diagnostic;

use crate::ground::{GroundError, aggregate};
use crate::reasoner::Program;
use crate::{Description, Term};

use elements::Elements;
use formulas::{Formulas, term_of};
use names::Namer;

/// Why a game was not translated: the closed list of reasons.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// GDL-II (`random`, `sees`): hidden information and chance.
    GdlII,
    /// The relaxed game could not be evaluated within its limits.
    Aggregate(String),
    /// A `true` or `next` whose state term is a variable.
    VariableStateTerm,
    /// Non-frame `next` clauses of one root choose different fluent paths.
    SeveralFluentPaths { root: String },
    /// A state term that lacks its root's fluent path.
    TermWithoutFluentPath { term: String },
    /// A state-dependent relation whose ground instance depends on
    /// itself, where its calls are not of one shape (which would make a
    /// least fixed point).
    Recursion { relation: String },
    /// A construct the translation does not handle yet.
    Unsupported { what: String },
    /// The translation would exceed a size limit.
    SizeLimit { what: String },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::GdlII => write!(f, "GDL-II (`random` or `sees`) is not translated"),
            Refusal::Aggregate(e) => write!(f, "the aggregate playout failed: {e}"),
            Refusal::VariableStateTerm => {
                write!(
                    f,
                    "a state term that is a variable (`(true ?x)`, `(next ?x)`)"
                )
            }
            Refusal::SeveralFluentPaths { root } => write!(
                f,
                "the `next` clauses of `{root}` change it at different paths (several fluent paths)"
            ),
            Refusal::TermWithoutFluentPath { term } => {
                write!(f, "the state term {term} lacks the fluent path of its root")
            }
            Refusal::Recursion { relation } => write!(
                f,
                "`{relation}` depends on itself through the state at a ground instance (recursion is translated as a fixed point only where every recursive call has the arguments' shape)"
            ),
            Refusal::Unsupported { what } => write!(f, "not translated yet: {what}"),
            Refusal::SizeLimit { what } => write!(f, "size limit: {what}"),
        }
    }
}

impl std::error::Error for Refusal {}

/// Most facts per relation of the aggregate playout.
pub const AGGREGATE_FACTS: usize = 1_000_000;

/// A translated game with the maps between GDL states and structures.
pub struct Translation {
    /// The Toss game.
    pub game: ir::Game,
    desc: Description,
    els: Elements,
    /// The structure without fluents (elements and unchanging relations).
    base: Structure,
    /// Every state term of the aggregate playout, in KIF, with its element
    /// and fluent predicate.
    by_kif: HashMap<String, (usize, String)>,
    /// The fluent predicates, for decoding.
    fluent_preds: Vec<String>,
    terminal: Option<String>,
    goals: Vec<Vec<(u64, String)>>,
    /// Per rule: how its GDL move is read off a match.
    moves: HashMap<String, rules::MoveOf>,
    /// What the simplifications of spec 5.3 did, for `explain`.
    simplified: Simplified,
}

/// What the simplifications of spec 5.3 did to a translation's rules.
#[derive(Clone, Debug, Default)]
struct Simplified {
    /// Precondition atoms moved to left sides.
    to_left: usize,
    /// Rules dropped: their precondition is false on every matchable tuple.
    dropped: usize,
    /// Relations made by joining stable pairs.
    joined: usize,
    /// Quantified variables merged with an equal element.
    merged: usize,
}

impl Translation {
    /// The defined relation (no parameters) that translates `terminal`.
    pub fn terminal_relation(&self) -> Option<&str> {
        self.terminal.as_deref()
    }

    /// Per role, the goal values the aggregate playout allows, each with
    /// the defined relation that translates `(goal role value)`.
    pub fn goal_relations(&self) -> &[Vec<(u64, String)>] {
        &self.goals
    }

    /// The structure of a GDL state given by its fluents in KIF. `None`
    /// when a fluent is outside the aggregate playout (no reachable state
    /// has it).
    pub fn encode<'s>(&self, fluents: impl IntoIterator<Item = &'s str>) -> Option<Structure> {
        let mut s = self.base.clone();
        for f in fluents {
            let (e, pred) = self.by_kif.get(f)?;
            let r = s.relation(pred).expect("declared fluent predicate");
            let el = s
                .element(&self.els.elements[*e].name)
                .expect("declared element");
            s.add_tuple(r, &[el]);
        }
        Some(s)
    }

    /// The GDL move of a match of rule `rule` (its left elements matched to
    /// the elements named `matched`, in order): the role's index and the
    /// move in KIF (spec 5.2.5).
    pub fn gdl_move(&self, rule: &str, matched: &[&str]) -> Option<(usize, String)> {
        let m = self.moves.get(rule)?;
        if let Some((f, arity)) = m.element {
            // The move's element: `(does_f role args..)`.
            let name = *matched.first()?;
            let e = self.els.elements.iter().position(|x| x.name == name)?;
            let Term::Fn(_, args) = &self.els.elements[e].key else {
                return None;
            };
            let t = if arity == 0 {
                Term::Const(f)
            } else {
                Term::Fn(f, args.get(1..)?.to_vec())
            };
            return Some((m.role, self.desc.term_to_string(&t, &[])));
        }
        let mut bind = HashMap::new();
        for (v, k, path) in &m.from {
            let name = *matched.get(*k)?;
            let e = self.els.elements.iter().position(|x| x.name == name)?;
            let (_, value) = self.els.elements[e]
                .coords
                .iter()
                .find(|(p, _)| p == path)?;
            bind.insert(*v, value.clone());
        }
        let t = formulas::apply(&m.term, &bind);
        Some((m.role, self.desc.term_to_string(&t, &[])))
    }

    /// Whether rule `rule` is a move of a role (the others are the update
    /// plies that follow a move in the same turn, see [`markers`]: each
    /// has exactly one move, which no GDL move stands for).
    pub fn is_move_rule(&self, rule: &str) -> bool {
        self.moves.contains_key(rule)
    }

    /// The fluents, in KIF and sorted, of a structure of this game.
    pub fn decode(&self, s: &Structure) -> Vec<String> {
        let mut out = Vec::new();
        for pred in &self.fluent_preds {
            let Some(r) = s.relation(pred) else { continue };
            for t in s.tuples(r) {
                let name = s.element_name(t[0]);
                if let Some(e) = self.els.elements.iter().position(|x| x.name == name)
                    && let Some(term) = self.els.term_of(e, pred)
                {
                    out.push(self.desc.term_to_string(&term, &[]));
                }
            }
        }
        out.sort();
        out
    }

    /// What the translation chose: fluent paths, elements, coordinates,
    /// and the sizes of what it made.
    pub fn explain(&self) -> String {
        use std::fmt::Write;
        let d = &self.desc;
        let mut out = String::new();
        let _ = writeln!(out, "players: {}", self.game.players.join(", "));
        let _ = writeln!(out, "frame clauses: {}", self.els.frame.len());
        let _ = writeln!(out, "roots (state term shapes):");
        for (k, r) in self.els.roots.iter().enumerate() {
            let n = self.els.elements.iter().filter(|e| e.root == k).count();
            match &r.fluent {
                Some(p) => {
                    let vals: Vec<String> =
                        r.values.keys().map(|v| d.term_to_string(v, &[])).collect();
                    let _ = writeln!(
                        out,
                        "  {}/{}: fluent path {}, values {{{}}}, {n} elements",
                        d.symbols[r.sym as usize],
                        r.arity,
                        elements::path_name(d, p),
                        vals.join(", ")
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "  {}/{}: no fluent path (each term an element, presence `{}`), {n} elements",
                        d.symbols[r.sym as usize],
                        r.arity,
                        r.presence.as_deref().unwrap_or("")
                    );
                }
            }
        }
        let mut paths: Vec<String> = self
            .els
            .coord
            .keys()
            .map(|(p, _)| elements::path_name(d, p))
            .collect();
        paths.dedup();
        let _ = writeln!(out, "coordinate paths: {}", paths.join(" "));
        let _ = writeln!(out, "elements: {}", self.els.elements.len());
        let movers: Vec<String> = self
            .game
            .locations
            .iter()
            .map(|l| {
                let who: Vec<&str> = l
                    .players
                    .iter()
                    .zip(&self.game.players)
                    .filter(|(p, _)| !p.moves.is_empty())
                    .map(|(_, n)| n.as_str())
                    .collect();
                format!("{} ({})", l.id, who.join(", "))
            })
            .collect();
        let _ = writeln!(out, "locations (a cycle): {}", movers.join(" -> "));
        let _ = writeln!(out, "rules: {}", self.game.rules.len());
        let Simplified {
            to_left,
            dropped,
            joined,
            merged,
        } = self.simplified;
        let _ = writeln!(
            out,
            "simplified (spec 5.3): {to_left} precondition atoms moved to left sides, {dropped} rules dropped (never matched), {joined} relations joined from stable pairs, {merged} quantified variables merged with an equal element"
        );
        let _ = writeln!(
            out,
            "defined relations: {}",
            self.game.defined_relations.len()
        );
        out
    }
}

/// Translates a checked GDL description: structure, formulas, rules and
/// locations.
pub fn translate(original: &Description) -> Result<Translation, Refusal> {
    translate_located(original).map_err(|l| l.refusal)
}

/// A refusal with the clause it is about, when one is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    pub refusal: Refusal,
    /// The index of the clause in the description given to
    /// [`translate_located`] (with `kif::check_gdl`'s `rule_spans`, where
    /// it is in the file).
    pub clause: Option<usize>,
}

impl Located {
    /// The refusal as a diagnostic at its clause, given the span of each
    /// rule (`kif::check_gdl`'s `rule_spans`); `None` when no clause is
    /// to blame.
    pub fn diagnostic(&self, rule_spans: &[crate::kif::syntax::Span]) -> Option<Diagnostic> {
        let span = rule_spans.get(self.clause?)?;
        Some(Diagnostic::new(self.message(), span.clone()))
    }

    /// What a refusal says, in the words of the CLI and the derive.
    pub fn message(&self) -> String {
        format!("not translated to Toss: {}", self.refusal)
    }
}

/// [`translate`], saying which clause a refusal is about: the `legal`
/// clause whose rules could not be built, or the first clause of the
/// relation or state term the reason names.
pub fn translate_located(original: &Description) -> Result<Translation, Located> {
    let mut at = At::default();
    let first = translate_parts(original, true, false, &mut at);
    // Moves the rules cannot express: moves as marks and update plies.
    let (result, at) = match first {
        Err(_) if at.rules_reached => {
            let mut again = At::default();
            (translate_parts(original, true, true, &mut again), again)
        }
        r => (r, at),
    };
    result.map_err(|refusal| {
        let clause = at
            .clause
            .and_then(|c| at.origin.get(c).copied())
            .or_else(|| first_clause_about(original, &refusal));
        Located { refusal, clause }
    })
}

/// Where the translation is, for locating a refusal: the clause being
/// translated (an index into the expanded description) and the clause of
/// the original description each expanded clause comes from.
#[derive(Default)]
struct At {
    clause: Option<usize>,
    origin: Vec<usize>,
    /// Whether the rules were reached (a refusal from there on is about
    /// the turns or the moves).
    rules_reached: bool,
}

/// The first clause of `desc` that a refusal names: the relation of a
/// recursion, a `next` clause of the root with several fluent paths, a
/// state term that is a variable, a `sees` or `random` clause.
fn first_clause_about(desc: &Description, r: &Refusal) -> Option<usize> {
    let name = |s: crate::Sym| desc.symbols[s as usize].as_str();
    let state_root = |t: &Term| match t {
        Term::Const(s) | Term::Fn(s, _) => Some(name(*s)),
        Term::Var(_) => None,
    };
    let is = |s: crate::Sym, k: &str| name(s).eq_ignore_ascii_case(k);
    desc.rules.iter().position(|c| match r {
        Refusal::Recursion { relation } => name(c.head.rel) == relation,
        Refusal::SeveralFluentPaths { root } => {
            is(c.head.rel, "next") && c.head.args.first().and_then(state_root) == Some(root)
        }
        Refusal::VariableStateTerm => {
            let var_state = |a: &crate::Atom| {
                (is(a.rel, "next") || is(a.rel, "true"))
                    && matches!(a.args.first(), Some(Term::Var(_)))
            };
            var_state(&c.head)
                || c.body.iter().any(|l| match l {
                    crate::Literal::Pos(a) | crate::Literal::Neg(a) => var_state(a),
                    _ => false,
                })
        }
        Refusal::GdlII => {
            is(c.head.rel, "sees")
                || (is(c.head.rel, "role")
                    && matches!(c.head.args.first(), Some(Term::Const(s)) if is(*s, "random")))
        }
        _ => false,
    })
}

/// The structure and the formulas (`terminal`, goals, payoffs) of the
/// translation, without rules: a game whose only location has no moves.
/// For checking those parts on games whose moves are not translated yet.
pub fn translate_structure(original: &Description) -> Result<Translation, Refusal> {
    translate_parts(original, false, false, &mut At::default())
}

fn translate_parts(
    original: &Description,
    with_rules: bool,
    as_marks: bool,
    at: &mut At,
) -> Result<Translation, Refusal> {
    let desc = original;
    let sym = |n: &str| desc.symbol(n);
    if sym("sees").is_some()
        || desc.rules.iter().any(|r| {
            r.head.rel == sym("role").unwrap_or(u32::MAX)
                && r.head
                    .args
                    .iter()
                    .any(|a| Some(a) == sym("random").map(Term::Const).as_ref())
        })
    {
        return Err(Refusal::GdlII);
    }
    let role_sym = sym("role");
    let mut roles = Vec::new();
    for r in &desc.rules {
        if Some(r.head.rel) == role_sym && r.body.is_empty() && r.head.args.len() == 1 {
            match r.head.args[0] {
                Term::Const(c) if !roles.contains(&c) => roles.push(c),
                Term::Const(_) => {}
                _ => {
                    return Err(Refusal::Unsupported {
                        what: "a role that is not a constant".to_string(),
                    });
                }
            }
        }
    }
    let (desc, mut origin) = players::eliminate(
        desc,
        &roles,
        [sym("legal"), sym("goal"), sym("does"), role_sym],
    );
    // Each step maps its clauses to those of the step before.
    let mut compose = |step: Vec<usize>| {
        origin = step.into_iter().map(|i| origin[i]).collect();
    };
    let desc = match sym("legal") {
        Some(legal) => {
            let keywords: Vec<_> = ["true", "does", "next", "init", "role", "goal", "terminal"]
                .iter()
                .filter_map(|k| sym(k))
                .collect();
            let (d, step) = expand::unfold_legal(&desc, legal, &keywords);
            compose(step);
            d
        }
        None => desc,
    };
    let desc = match (sym("next"), sym("does")) {
        (Some(next), Some(does)) => {
            let keywords: Vec<_> = ["true", "init", "role", "legal", "goal", "terminal"]
                .iter()
                .filter_map(|k| sym(k))
                .collect();
            let (d, step) = expand::inline_does_relations(&desc, next, does, &keywords);
            compose(step);
            d
        }
        _ => desc,
    };
    at.origin = origin;
    let evaluated = match sym("does") {
        Some(does) => expand::safe_for_evaluation(&desc, does),
        None => desc.clone(),
    };
    let agg = aggregate(&evaluated, AGGREGATE_FACTS).map_err(|e| match e {
        GroundError::Program(p) => Refusal::Aggregate(p.to_string()),
        e => Refusal::Aggregate(e.to_string()),
    })?;
    let levels = Program::new(&evaluated).map_err(|e| Refusal::Aggregate(e.to_string()))?;
    // S, in the canonical order of terms.
    let mut states: Vec<crate::terms::TermId> = match agg.reach {
        Some(r) => agg.engine.tuples(&agg.prog, r).map(|t| t[0]).collect(),
        None => Vec::new(),
    };
    states.sort_unstable_by(|a, b| agg.prog.cmp_terms(&agg.engine.terms, *a, *b));
    states.dedup();
    let mut state_terms: Vec<Term> = states.iter().map(|&t| term_of(&agg, t)).collect();
    let (next, true_) = match (sym("next"), sym("true")) {
        (Some(n), Some(t)) => (n, t),
        _ => {
            return Err(Refusal::Unsupported {
                what: "a game without `next` or `true`".to_string(),
            });
        }
    };
    let marked = if as_marks {
        let mut facts = Vec::new();
        if let Some(r) = sym("legal").and_then(|l| agg.prog.relation(l, 2)) {
            for t in agg.engine.tuples(&agg.prog, r) {
                facts.push((term_of(&agg, t[0]), term_of(&agg, t[1])));
            }
        }
        let m = markers::prepare(&desc, &facts, sym("does"), true_)?;
        state_terms.extend(m.move_terms.iter().cloned());
        Some(m)
    } else {
        None
    };
    // With moves as state terms, relations that use `does` are state
    // relations like the others.
    let (desc, levels) = match &marked {
        Some(m) => (
            m.desc.clone(),
            Program::new(&markers::for_levels(&m.desc))
                .map_err(|e| Refusal::Aggregate(e.to_string()))?,
        ),
        None => (desc, levels),
    };
    let mut namer = Namer::default();
    let els = elements::build(&desc, &state_terms, next, true_, &mut namer)?;

    let mut tr = Formulas::new(&desc, &agg, &els, &mut namer, &levels, true_);
    if let Some(m) = &marked {
        tr.rewritten = m.rewritten.iter().copied().collect();
    }
    let terminal = match sym("terminal") {
        Some(t) => Some(tr.atom_relation(t, &[])?),
        None => None,
    };
    // Goals: one relation per role and value the aggregate playout allows.
    let mut payoffs: Vec<RealExpr> = Vec::new();
    let mut goals: Vec<Vec<(u64, String)>> = Vec::new();
    let goal_rel = sym("goal").and_then(|g| agg.prog.relation(g, 2));
    for &r in &roles {
        let mut sum: Option<RealExpr> = None;
        let mut values: Vec<(u64, Term)> = Vec::new();
        if let Some(g) = goal_rel {
            for t in agg.engine.tuples(&agg.prog, g) {
                if term_of(&agg, t[0]) != Term::Const(r) {
                    continue;
                }
                let v = term_of(&agg, t[1]);
                if let Term::Const(c) = v
                    && let Some(n) = crate::parse_nat(&desc.symbols[c as usize])
                {
                    values.push((n, v));
                }
            }
        }
        values.sort_by_key(|(n, _)| *n);
        values.dedup();
        let mut mine = Vec::new();
        for (n, v) in values {
            let name = tr.atom_relation(sym("goal").expect("goal"), &[Term::Const(r), v])?;
            mine.push((n, name.clone()));
            let term = RealExpr::Mul(
                Box::new(RealExpr::Const(n as f64)),
                Box::new(RealExpr::Char(Box::new(Formula::Rel {
                    name,
                    args: Vec::new(),
                }))),
            );
            sum = Some(match sum {
                None => term,
                Some(s) => RealExpr::Add(Box::new(s), Box::new(term)),
            });
        }
        payoffs.push(sum.unwrap_or(RealExpr::Const(0.0)));
        goals.push(mine);
    }
    // Every state term of the aggregate playout by its KIF.
    let mut by_kif = HashMap::new();
    for t in &state_terms {
        if let Some((e, pred)) = els.locate(t) {
            by_kif.insert(desc.term_to_string(t, &[]), (e, pred.to_string()));
        }
    }
    // Rules and locations (turn-based games).
    let built = if with_rules {
        rules_of(
            original,
            &desc,
            &roles,
            &els,
            &by_kif,
            &mut tr,
            terminal.as_deref(),
            next,
            true_,
            marked.as_ref(),
            at,
        )?
    } else {
        rules::Built {
            rules: Vec::new(),
            moves: HashMap::new(),
            labels: vec![Vec::new()],
            marks: Vec::new(),
        }
    };
    let defined = std::mem::take(&mut tr.defined);
    let sizes = formulas::compiled_sizes(&defined);
    let biggest = terminal
        .iter()
        .chain(goals.iter().flatten().map(|(_, n)| n))
        .map(|n| sizes.get(n).copied().unwrap_or(1))
        .max()
        .unwrap_or(0);
    if biggest > formulas::MAX_INLINED_ATOMS {
        // The sizes saturate: the largest means "too many to count".
        let atoms = if biggest == u64::MAX {
            "more than 2^64".to_string()
        } else {
            biggest.to_string()
        };
        return Err(Refusal::SizeLimit {
            what: format!(
                "a formula of {atoms} atoms once its defined relations are expanded (limit {})",
                formulas::MAX_INLINED_ATOMS
            ),
        });
    }
    let made = std::mem::take(&mut tr.relations);
    drop(tr);

    // The structure: elements, root and coordinate predicates, fluent
    // predicates (declared empty), the made relations.
    let mut base = Structure::new();
    let ids: Vec<_> = els
        .elements
        .iter()
        .map(|e| base.add_element(&e.name))
        .collect();
    for (k, info) in els.roots.iter().enumerate() {
        let r = base
            .declare_relation(&info.root_pred, 1)
            .expect("fresh name");
        for (i, e) in els.elements.iter().enumerate() {
            if e.root == k {
                base.add_tuple(r, &[ids[i]]);
            }
        }
    }
    for (name, es) in els.coord.values() {
        let r = base.declare_relation(name, 1).expect("fresh name");
        for &e in es {
            base.add_tuple(r, &[ids[e]]);
        }
    }
    let mut fluent_preds = Vec::new();
    for info in &els.roots {
        for pred in info
            .presence
            .iter()
            .chain(info.values.values().map(|(_, p)| p))
        {
            base.declare_relation(pred, 1).expect("fresh name");
            fluent_preds.push(pred.clone());
        }
    }
    for m in &built.marks {
        base.declare_relation(m, 1).expect("fresh name");
    }
    for m in &made {
        let r = base.declare_relation(&m.name, m.arity).expect("fresh name");
        for t in &m.tuples {
            let t: Vec<_> = t.iter().map(|&e| ids[e]).collect();
            base.add_tuple(r, &t);
        }
    }
    let players: Vec<String> = roles
        .iter()
        .map(|&r| desc.symbols[r as usize].clone())
        .collect();
    let locations: Vec<Location> = built
        .labels
        .iter()
        .enumerate()
        .map(|(i, labels)| Location {
            id: i,
            players: payoffs
                .iter()
                .enumerate()
                .map(|(p, payoff)| PlayerLocation {
                    payoff: payoff.clone(),
                    moves: labels.get(p).cloned().unwrap_or_default(),
                })
                .collect(),
        })
        .collect();
    let mut tr = Translation {
        game: ir::Game {
            players,
            data: Vec::new(),
            defined_relations: defined,
            rules: built.rules,
            locations,
            start: Structure::new(),
            model: None,
            history: Vec::new(),
            repetition: None,
        },
        desc: desc.clone(),
        els,
        base,
        by_kif,
        fluent_preds,
        terminal,
        goals,
        moves: built.moves,
        simplified: Simplified::default(),
    };
    // The start: the `init` fluents, facts and those derived by rules
    // (from static relations only, so the aggregate playout has them
    // exactly).
    let mut init = Vec::new();
    if let Some(r) = sym("init").and_then(|i| agg.prog.relation(i, 1)) {
        for t in agg.engine.tuples(&agg.prog, r) {
            init.push(desc.term_to_string(&term_of(&agg, t[0]), &[]));
        }
    }
    let start = tr
        .encode(init.iter().map(String::as_str))
        .ok_or_else(|| Refusal::Unsupported {
            what: "an initial state term outside the aggregate playout".to_string(),
        })?;
    tr.game.start = start;
    simplify(&mut tr);
    Ok(tr)
}

/// The simplifications of spec 5.3 on the rules. What the matcher can
/// start from goes to the left sides; what the board's geometry decides
/// in the preconditions is folded, and the rules it excludes dropped (a
/// GDL move's outcomes are split into rules by which frame conditions
/// hold, 5.2.4, and most splits are impossible for the elements the
/// move's left side can match); stable pairs are joined.
fn simplify(tr: &mut Translation) {
    let defined: HashSet<String> = tr
        .game
        .defined_relations
        .iter()
        .map(|d| d.name.clone())
        .collect();
    let is_defined = |n: &str| defined.contains(n);
    for r in &mut tr.game.rules {
        tr.simplified.to_left += ir::simplify::pre_atoms_to_left_side(r, &is_defined);
    }
    let fluent = toss_core::analysis::fluent_relations(&tr.game);
    let stable = |n: &str| !fluent.contains(n) && !defined.contains(n);
    for r in &mut tr.game.rules {
        let (pre, n) = ir::simplify::merge_equal_elements(&r.pre, &tr.game.start, &stable);
        r.pre = pre;
        tr.simplified.merged += n;
    }
    for d in &mut tr.game.defined_relations {
        let (body, n) = ir::simplify::merge_equal_elements(&d.body, &tr.game.start, &stable);
        d.body = body;
        tr.simplified.merged += n;
    }
    let mut never = HashSet::new();
    for r in &mut tr.game.rules {
        if !ir::simplify::fold_stable_parts(r, &tr.game.start, &stable) {
            never.insert(r.name.clone());
        }
    }
    tr.simplified.dropped = never.len();
    tr.game.rules.retain(|r| !never.contains(&r.name));
    for loc in &mut tr.game.locations {
        for p in &mut loc.players {
            p.moves.retain(|l| !never.contains(&l.rule));
        }
    }
    tr.moves.retain(|name, _| !never.contains(name));
    let before = tr.game.start.num_relations();
    tr.simplified.joined =
        ir::simplify::join_stable_pairs(&mut tr.game.rules, &mut tr.game.start, &stable);
    // The joined relations belong to every state: `encode` starts from
    // `base` (whose element ids are the start's).
    for r in before..tr.game.start.num_relations() {
        let s = &tr.game.start;
        let b = tr
            .base
            .declare_relation(s.relation_name(r), s.arity(r))
            .expect("a relation new to the start is new to the base");
        for t in s.tuples(r) {
            tr.base.add_tuple(b, &t);
        }
    }
}

/// Turn detection and the rules (spec 5.2.4-5.2.7).
#[allow(clippy::too_many_arguments)]
fn rules_of(
    original: &Description,
    desc: &Description,
    roles: &[crate::Sym],
    els: &Elements,
    by_kif: &HashMap<String, (usize, String)>,
    tr: &mut Formulas<'_>,
    terminal: Option<&str>,
    next: crate::Sym,
    true_: crate::Sym,
    marked: Option<&markers::Marked>,
    at: &mut At,
) -> Result<rules::Built, Refusal> {
    let sym = |n: &str| desc.symbol(n);
    let reasoner = crate::GdlGame::new(original).map_err(|e| Refusal::Aggregate(e.to_string()))?;
    at.rules_reached = true;
    let turns = rules::detect_turns(&reasoner, desc, roles);
    let kw = rules::Keywords {
        legal: sym("legal").ok_or_else(|| Refusal::Unsupported {
            what: "a game without `legal`".to_string(),
        })?,
        next,
        does: sym("does").unwrap_or(u32::MAX),
        true_,
    };
    if let Some(m) = marked {
        // Turns that follow no cycle, or moves at once: every role moves
        // in every joint move, as GDL says.
        let turns = turns.ok();
        return markers::build(
            tr,
            desc,
            m,
            roles,
            turns.as_ref(),
            &kw,
            terminal,
            &mut at.clause,
        );
    }
    let turns = turns?;
    // Per root, what the sampled plays show: `single`, its elements with
    // one value at a time; `sole`, at most one element holding a fluent
    // at a time.
    let mut single = vec![true; els.roots.len()];
    let mut sole = vec![true; els.roots.len()];
    for st in &turns.states {
        let mut values: HashMap<usize, usize> = HashMap::new();
        let mut holding: HashMap<usize, usize> = HashMap::new();
        for f in st {
            if let Some((e, _)) = by_kif.get(f) {
                let root = els.elements[*e].root;
                let n = values.entry(*e).or_insert(0);
                *n += 1;
                if *n > 1 {
                    single[root] = false;
                }
                // A second element of the root holding a fluent.
                if *holding.entry(root).or_insert(*e) != *e {
                    sole[root] = false;
                }
            }
        }
    }
    rules::build(
        tr,
        desc,
        els,
        roles,
        &turns,
        &kw,
        terminal,
        &single,
        &sole,
        &mut at.clause,
    )
}
