//! Printing the game IR back to canonical `.toss` text.
//!
//! The output parses back to the same IR: `parse_game(&print_game(g)) == g`
//! for every game the front end can produce. The canonical form is:
//!
//! - top-level sections in the order `PLAYERS`, `DATA`, `REL`, `RULE`, `LOC`,
//!   `START`, `MODEL`, `HISTORY`, separated by blank lines;
//! - structures as explicit bracket literals (never a board string):
//!   elements in id order, every relation in declaration order with all its
//!   tuples (`R:n {}` when it has none), every function in declaration order
//!   with its values that are not `+0.0` (`f {}` when there are none), a
//!   kept derivative under its primed name (`f' {a -> 5.0}`);
//! - formulas and real terms with the fewest parentheses that still parse
//!   back to the same tree under the precedence of the language reference
//!   (`not` > `and` > `or` > `->` > `<->`; quantifiers, fixed points, `tc`
//!   and `let` extend as far right as possible), plus parentheses around a
//!   quantifier body that is a binary connective, for readability;
//! - numbers in Rust's shortest round-trip form (`1.0`, `-0.5`, `1e-7`),
//!   infinities as `1e999` / `-1e999`;
//! - 2-space indentation, lines wrapped at about 80 columns inside long
//!   structures.
//!
//! Everything is deterministic: the printer only follows the order of the
//! IR's lists and the id order of structures.

use std::fmt::Write as _;

use toss_core::ir::{
    Bound, CmpOp, Distribution, FixpointKind, Formula, Game, HistoryMove, Interval, Label,
    Location, Multiplicity, OdeEquation, RealExpr, Rule, RuleSide, RuleTuple, Target,
    UpdateEquation, Var,
};
use toss_core::structure::Structure;

/// Width after which lists inside structures wrap to a new line.
const WRAP: usize = 78;

/// The whole game as canonical `.toss` text, ending with a newline.
pub fn print_game(g: &Game) -> String {
    let mut sections: Vec<String> = Vec::new();

    sections.push(format!("PLAYERS {}", g.players.join(", ")));

    if !g.data.is_empty() {
        let items: Vec<String> = g.data.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        sections.push(format!("DATA {}", items.join(", ")));
    }

    if let Some(r) = &g.repetition {
        let items: Vec<String> = (r.relations.iter().cloned())
            .chain(r.functions.iter().map(|f| format!(":{f}")))
            .collect();
        sections.push(format!(
            "REPETITION :{}({}) OF {}",
            r.function,
            r.element,
            items.join(", ")
        ));
    }

    if !g.defined_relations.is_empty() {
        let rels: Vec<String> = g
            .defined_relations
            .iter()
            .map(|d| {
                format!(
                    "REL {}({}) = {}",
                    d.name,
                    d.params.join(", "),
                    print_formula(&d.body)
                )
            })
            .collect();
        sections.push(rels.join("\n"));
    }

    for r in &g.rules {
        sections.push(print_rule(r));
    }

    for loc in &g.locations {
        sections.push(print_location(loc, &g.players));
    }

    sections.push(format!("START {}", print_structure(&g.start)));

    if let Some(m) = &g.model {
        sections.push(format!("MODEL {}", print_structure(m)));
    }

    if !g.history.is_empty() {
        sections.push(print_history(&g.history));
    }

    let mut out = sections.join("\n\n");
    out.push('\n');
    out
}

/// A number as the language writes it, parsing back to the identical `f64`:
/// Rust's shortest round-trip form (`1.0`, `-0.0`, `0.1`, `1e-7`, `1.5e300`),
/// infinities as `1e999` and `-1e999` (which overflow back to them). NaN has
/// no literal; it prints as `NaN`, which does not parse.
pub fn print_number(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "1e999" } else { "-1e999" }.to_string()
    } else {
        format!("{x:?}")
    }
}

// ---------------------------------------------------------------------------
// Formulas

/// Binding strength of formula constructs, loosest first. A subformula is
/// parenthesized when it binds looser than its position requires.
mod fprec {
    pub const IFF: u8 = 0;
    pub const IMPLIES: u8 = 1;
    pub const OR: u8 = 2;
    pub const AND: u8 = 3;
    /// `not`, quantifiers, fixed points, `tc`, `let`.
    pub const PREFIX: u8 = 4;
    pub const ATOM: u8 = 5;
}

/// A formula in canonical form, with minimal safe parentheses.
pub fn print_formula(f: &Formula) -> String {
    let mut out = String::new();
    formula(&mut out, f, fprec::IFF, false);
    out
}

fn formula_prec(f: &Formula) -> u8 {
    match f {
        Formula::Iff(..) => fprec::IFF,
        Formula::Implies(..) => fprec::IMPLIES,
        Formula::Or(fs) if fs.len() >= 2 => fprec::OR,
        Formula::And(fs) if fs.len() >= 2 => fprec::AND,
        Formula::Not(_)
        | Formula::Exists { .. }
        | Formula::Forall { .. }
        | Formula::Fixpoint { .. }
        | Formula::Tc { .. }
        | Formula::Let { .. }
        | Formula::LetReal { .. } => fprec::PREFIX,
        // A single-element `and`/`or` prints as its element: take its
        // strength.
        Formula::And(fs) | Formula::Or(fs) if fs.len() == 1 => formula_prec(&fs[0]),
        _ => fprec::ATOM,
    }
}

/// Whether the construct extends as far right as possible, so that it must
/// be parenthesized when anything follows it.
fn formula_open_right(f: &Formula) -> bool {
    match f {
        Formula::Exists { .. }
        | Formula::Forall { .. }
        | Formula::Fixpoint { .. }
        | Formula::Tc { .. }
        | Formula::Let { .. }
        | Formula::LetReal { .. } => true,
        // `not` passes `followed` on to its operand, which brackets itself.
        Formula::And(fs) | Formula::Or(fs) if fs.len() == 1 => formula_open_right(&fs[0]),
        _ => false,
    }
}

/// Prints `f` at a position that needs binding strength at least `min`;
/// `followed` says whether more formula text follows at this nesting level.
fn formula(out: &mut String, f: &Formula, min: u8, followed: bool) {
    let parens = formula_prec(f) < min || (followed && formula_open_right(f));
    if parens {
        out.push('(');
        formula_bare(out, f, false);
        out.push(')');
    } else {
        formula_bare(out, f, followed);
    }
}

fn formula_bare(out: &mut String, f: &Formula, followed: bool) {
    match f {
        Formula::True => out.push_str("true"),
        Formula::False => out.push_str("false"),
        Formula::Rel { name, args } => {
            let _ = write!(out, "{name}({})", args.join(", "));
        }
        Formula::Eq(x, y) => {
            let _ = write!(out, "{x} = {y}");
        }
        Formula::In { element, set } => {
            let _ = write!(out, "{element} in {set}");
        }
        Formula::Cmp { lhs, op, rhs } => {
            cmp_operand(out, lhs);
            out.push(' ');
            out.push_str(cmp_op(*op));
            out.push(' ');
            cmp_operand(out, rhs);
        }
        Formula::Not(g) => {
            out.push_str("not ");
            formula(out, g, fprec::PREFIX, followed);
        }
        Formula::And(fs) => connective(out, fs, " and ", fprec::PREFIX, "true", followed),
        Formula::Or(fs) => connective(out, fs, " or ", fprec::AND, "false", followed),
        Formula::Implies(a, b) => {
            formula(out, a, fprec::OR, true);
            out.push_str(" -> ");
            formula(out, b, fprec::IMPLIES, followed);
        }
        Formula::Iff(a, b) => {
            formula(out, a, fprec::IMPLIES, true);
            out.push_str(" <-> ");
            formula(out, b, fprec::IMPLIES, followed);
        }
        Formula::Exists { vars, body } => quantifier(out, "ex", vars, body, followed),
        Formula::Forall { vars, body } => quantifier(out, "all", vars, body, followed),
        Formula::Fixpoint {
            kind,
            relation,
            params,
            body,
        } => {
            let kw = match kind {
                FixpointKind::Least => "lfp",
                FixpointKind::Greatest => "gfp",
            };
            let _ = write!(out, "{kw} {relation}({}) = ", params.join(", "));
            body_formula(out, body, followed);
        }
        Formula::Tc {
            steps,
            from,
            to,
            body,
        } => {
            out.push_str("tc ");
            if let Some(m) = steps {
                let _ = write!(out, "{m} ");
            }
            let _ = write!(out, "{}, {} ", from.join(" "), to.join(" "));
            // The body extends right like a quantifier's; it is printed
            // unbracketed, which the grammar reads back the same way (the
            // variable lists end where the body's first atom or term starts).
            formula(out, body, fprec::IFF, followed);
        }
        Formula::Let {
            relation,
            params,
            def,
            body,
        } => {
            let _ = write!(out, "let {relation}({}) = ", params.join(", "));
            // `in` also spells membership: keep the definition bracketed
            // unless it is a relation atom or a constant.
            if matches!(**def, Formula::Rel { .. } | Formula::True | Formula::False) {
                formula_bare(out, def, true);
            } else {
                out.push('(');
                formula_bare(out, def, false);
                out.push(')');
            }
            out.push_str(" in ");
            body_formula(out, body, followed);
        }
        Formula::LetReal { var, value, body } => {
            let _ = write!(out, "let :{var} = ");
            real(out, value, rprec::SUM, true);
            out.push_str(" in ");
            body_formula(out, body, followed);
        }
    }
}

/// `and` / `or` over a list: an empty list is its unit, one element prints
/// as itself.
fn connective(out: &mut String, fs: &[Formula], sep: &str, min: u8, unit: &str, followed: bool) {
    match fs {
        [] => out.push_str(unit),
        [f] => formula_bare(out, f, followed),
        _ => {
            for (i, f) in fs.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                let last = i + 1 == fs.len();
                formula(out, f, min, !last || followed);
            }
        }
    }
}

/// The body of a binder: binary connectives are bracketed for readability
/// (`ex x (P(x) and Q(x))`), anything else is written as is.
fn body_formula(out: &mut String, body: &Formula, followed: bool) {
    formula(out, body, fprec::PREFIX, followed);
}

fn quantifier(out: &mut String, kw: &str, vars: &[Var], body: &Formula, followed: bool) {
    out.push_str(kw);
    out.push(' ');
    for (i, v) in vars.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        match v {
            Var::Element(n) | Var::Set(n) => out.push_str(n),
            Var::Real(n) => {
                out.push(':');
                out.push_str(n);
            }
        }
    }
    out.push(' ');
    body_formula(out, body, followed);
}

fn cmp_op(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Eq => "=",
        CmpOp::Ne => "!=",
        CmpOp::Ge => ">=",
        CmpOp::Gt => ">",
    }
}

/// A side of a comparison: a whole sum is fine, but anything extending to
/// the right is bracketed so the comparison cannot be taken into it.
fn cmp_operand(out: &mut String, t: &RealExpr) {
    real(out, t, rprec::SUM, true);
}

// ---------------------------------------------------------------------------
// Real terms

mod rprec {
    /// `+`, `-` (left associative).
    pub const SUM: u8 = 0;
    /// `*`, `/` (left associative).
    pub const PRODUCT: u8 = 1;
    /// Unary minus, negative literals.
    pub const NEG: u8 = 2;
    /// `^`.
    pub const POW: u8 = 3;
    pub const ATOM: u8 = 4;
}

/// A real term in canonical form, with minimal safe parentheses.
pub fn print_real(t: &RealExpr) -> String {
    let mut out = String::new();
    real(&mut out, t, rprec::SUM, false);
    out
}

fn real_prec(t: &RealExpr) -> u8 {
    match t {
        RealExpr::Add(..) | RealExpr::Sub(..) | RealExpr::Let { .. } => rprec::SUM,
        RealExpr::Mul(..) | RealExpr::Div(..) => rprec::PRODUCT,
        RealExpr::Neg(_) => rprec::NEG,
        RealExpr::Const(c) if c.is_sign_negative() => rprec::NEG,
        RealExpr::Pow(..) => rprec::POW,
        _ => rprec::ATOM,
    }
}

/// Whether the term extends as far right as possible (`let ... in t`).
fn real_open_right(t: &RealExpr) -> bool {
    matches!(t, RealExpr::Let { .. })
}

fn real(out: &mut String, t: &RealExpr, min: u8, followed: bool) {
    let parens = real_prec(t) < min || (followed && real_open_right(t));
    if parens {
        out.push('(');
        real_bare(out, t, false);
        out.push(')');
    } else {
        real_bare(out, t, followed);
    }
}

fn real_bare(out: &mut String, t: &RealExpr, followed: bool) {
    match t {
        // Terms take only unsigned literals: a negative constant prints as
        // `-` applied to its magnitude, which reads back as `Neg(Const(|c|))`
        // (the same value; the front end never makes a negative `Const`).
        RealExpr::Const(c) => out.push_str(&print_number(*c)),
        RealExpr::Var(v) => {
            let _ = write!(out, ":{v}");
        }
        RealExpr::Fun { name, element } => {
            let _ = write!(out, ":{name}({element})");
        }
        RealExpr::Derivative {
            name,
            order,
            element,
        } => {
            let _ = write!(out, ":{name}{}({element})", "'".repeat(*order as usize));
        }
        RealExpr::Char(f) => {
            out.push_str(":(");
            formula(out, f, fprec::IFF, false);
            out.push(')');
        }
        RealExpr::Neg(a) => {
            // `-` applies to a power: `-:a ^ 2` is `-(:a ^ 2)`.
            out.push('-');
            real(out, a, rprec::POW, followed);
        }
        RealExpr::Add(a, b) => binary(out, a, " + ", b, rprec::SUM, followed),
        RealExpr::Sub(a, b) => binary(out, a, " - ", b, rprec::SUM, followed),
        RealExpr::Mul(a, b) => binary(out, a, " * ", b, rprec::PRODUCT, followed),
        RealExpr::Div(a, b) => binary(out, a, " / ", b, rprec::PRODUCT, followed),
        RealExpr::Pow(a, b) => {
            // Right associative: `a ^ b ^ c` is `a ^ (b ^ c)`.
            real(out, a, rprec::ATOM, true);
            out.push_str(" ^ ");
            real(out, b, rprec::POW, followed);
        }
        RealExpr::Root(n, a) => {
            if *n == 2 {
                out.push_str("sqrt(");
            } else {
                let _ = write!(out, "root({n}, ");
            }
            real(out, a, rprec::SUM, false);
            out.push(')');
        }
        RealExpr::Sum { vars, guard, body } => aggregate(out, "Sum", vars, guard, body),
        RealExpr::Product { vars, guard, body } => aggregate(out, "Product", vars, guard, body),
        RealExpr::Min { var, body } => {
            let _ = write!(out, "min :{var} (");
            formula(out, body, fprec::IFF, false);
            out.push(')');
        }
        RealExpr::Let { var, value, body } => {
            let _ = write!(out, "let :{var} = ");
            real(out, value, rprec::SUM, true);
            out.push_str(" in ");
            real(out, body, rprec::SUM, followed);
        }
    }
}

/// A left-associative binary operator of strength `prec`: the left operand
/// may have the same strength, the right one must bind tighter.
fn binary(out: &mut String, a: &RealExpr, op: &str, b: &RealExpr, prec: u8, followed: bool) {
    real(out, a, prec, true);
    out.push_str(op);
    real(out, b, prec + 1, followed);
}

fn aggregate(out: &mut String, kw: &str, vars: &[String], guard: &Formula, body: &RealExpr) {
    let _ = write!(out, "{kw} ({} | ", vars.join(", "));
    formula(out, guard, fprec::IFF, true);
    out.push_str(" : ");
    real(out, body, rprec::SUM, false);
    out.push(')');
}

// ---------------------------------------------------------------------------
// Structures

/// A structure as an explicit bracket literal `[ elements | relations |
/// functions ]`, on several lines when it does not fit on one.
pub fn print_structure(s: &Structure) -> String {
    let elements: Vec<String> = s
        .elements()
        .map(|e| s.element_name(e).to_string())
        .collect();
    let relations: Vec<String> = (0..s.num_relations())
        .map(|r| {
            let name = s.relation_name(r);
            let arity = s.arity(r);
            let tuples = s.tuples(r);
            if tuples.is_empty() {
                return format!("{name}:{arity} {{}}");
            }
            let items: Vec<String> = tuples
                .iter()
                .map(|t| {
                    let names: Vec<&str> = t.iter().map(|&e| s.element_name(e)).collect();
                    if arity == 1 {
                        names[0].to_string()
                    } else {
                        format!("({})", names.join(", "))
                    }
                })
                .collect();
            braced(name, &items, "; ")
        })
        .collect();
    let functions: Vec<String> = (0..s.num_functions())
        .map(|f| {
            let items: Vec<String> = s
                .elements()
                .filter_map(|e| {
                    let v = s.fun_value(f, e);
                    (v.to_bits() != 0)
                        .then(|| format!("{} -> {}", s.element_name(e), print_number(v)))
                })
                .collect();
            braced(s.function_name(f), &items, ", ")
        })
        .collect();
    bracket_literal(&elements, &relations, &functions)
}

/// `name {a; b; c}`, wrapped inside the braces when long.
fn braced(name: &str, items: &[String], sep: &str) -> String {
    if items.is_empty() {
        return format!("{name} {{}}");
    }
    let one_line = format!("{name} {{{}}}", items.join(sep));
    if one_line.len() <= WRAP {
        return one_line;
    }
    let mut out = format!("{name} {{\n");
    wrap_items(&mut out, items, sep.trim_end(), "    ");
    out.push_str("\n  }");
    out
}

/// Items joined by `sep` and a space, filled into lines of at most `WRAP`
/// columns, each line starting with `indent`. No trailing newline.
fn wrap_items(out: &mut String, items: &[String], sep: &str, indent: &str) {
    let mut line = String::from(indent);
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{item}{sep}")
        } else {
            item.clone()
        };
        if line.len() > indent.len() && line.len() + 1 + piece.len() > WRAP {
            out.push_str(line.trim_end());
            out.push('\n');
            line = String::from(indent);
        }
        if line.len() > indent.len() {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    out.push_str(&line);
}

/// `[ elements | relations | functions ]` on one line.
fn one_line_bracket(elements: &[String], relations: &[String], functions: &[String]) -> String {
    let mut out = String::from("[");
    if elements.is_empty() {
        out.push(' ');
    } else {
        out.push_str(&elements.join(", "));
        out.push(' ');
    }
    out.push('|');
    if !relations.is_empty() {
        out.push(' ');
        out.push_str(&relations.join("; "));
    }
    out.push_str(" |");
    if functions.is_empty() {
        out.push(' ');
    } else {
        out.push(' ');
        out.push_str(&functions.join("; "));
    }
    out.push(']');
    out
}

/// `[ elements | relations | functions ]`: on one line if short, else one
/// section per block with 2-space indentation (relations and functions one
/// per line).
fn bracket_literal(elements: &[String], relations: &[String], functions: &[String]) -> String {
    let one_line = one_line_bracket(elements, relations, functions);
    if one_line.len() <= WRAP && !one_line.contains('\n') {
        return one_line;
    }
    let mut out = String::from("[\n");
    if !elements.is_empty() {
        wrap_items(&mut out, elements, ",", "  ");
        out.push('\n');
    }
    out.push_str("|\n");
    for (i, r) in relations.iter().enumerate() {
        let sep = if i + 1 < relations.len() { ";" } else { "" };
        let _ = writeln!(out, "  {r}{sep}");
    }
    out.push_str("|\n");
    for (i, f) in functions.iter().enumerate() {
        let sep = if i + 1 < functions.len() { ";" } else { "" };
        let _ = writeln!(out, "  {f}{sep}");
    }
    out.push(']');
    out
}

// ---------------------------------------------------------------------------
// Rules

fn print_rule(r: &Rule) -> String {
    let mut out = format!("RULE {}:\n  ", r.name);
    let lhs = rule_side(&r.lhs, &r.nondistinct);
    let rhs = rule_side(&r.rhs, &[]);
    if lhs.len() + rhs.len() + 6 <= WRAP {
        let _ = write!(out, "{lhs} -> {rhs}");
    } else {
        let _ = write!(out, "{lhs}\n  -> {rhs}");
    }
    if !r.emb.is_empty() {
        let _ = write!(out, "\n  emb {}", r.emb.join(", "));
    }
    let explicit: Vec<String> = explicit_map(r)
        .into_iter()
        .map(|(rr, l)| format!("{rr} <- {l}"))
        .collect();
    if !explicit.is_empty() {
        let _ = write!(out, "\n  with [{}]", explicit.join(", "));
    }
    if !r.update.is_empty() {
        let eqs: Vec<String> = r.update.iter().map(update_eq).collect();
        let _ = write!(out, "\n  update {}", eqs.join("; "));
    }
    if !r.dynamics.is_empty() {
        let eqs: Vec<String> = r.dynamics.iter().map(ode_eq).collect();
        let _ = write!(out, "\n  dynamics {}", eqs.join("; "));
    }
    for (kw, f) in [("pre", &r.pre), ("inv", &r.inv), ("post", &r.post)] {
        if *f != Formula::True {
            let _ = write!(out, "\n  {kw} {}", print_formula(f));
        }
    }
    out
}

/// The entries of the map `s` that differ from the default (a right element
/// maps to the left element of the same name), as `(right, left)`. Lowering
/// rebuilds the full map from these.
fn explicit_map(r: &Rule) -> Vec<(String, String)> {
    r.map.iter().filter(|(rr, l)| rr != l).cloned().collect()
}

fn update_eq(u: &UpdateEquation) -> String {
    format!(":{}({}) = {}", u.function, u.element, print_real(&u.value))
}

fn ode_eq(o: &OdeEquation) -> String {
    format!(
        ":{}{}({}) = {}",
        o.function,
        "'".repeat(o.order as usize),
        o.element,
        print_real(&o.value)
    )
}

/// A rule side `[a, b | R (a, b); _opt_S (b) | f {a -> 1.0}]`: consecutive
/// tuples of one relation are grouped into `R {(a, b); (b, a)}`. The pairs
/// that may match one element are written last, as the pseudo-relation
/// `nondistinct {(a, b)}` (left side only).
fn rule_side(side: &RuleSide, nondistinct: &[(String, String)]) -> String {
    let mut relations = Vec::new();
    let mut i = 0;
    while i < side.tuples.len() {
        let first = &side.tuples[i];
        let mut j = i + 1;
        while j < side.tuples.len()
            && side.tuples[j].relation == first.relation
            && side.tuples[j].optional == first.optional
            && side.tuples[j].args.len() == first.args.len()
        {
            j += 1;
        }
        relations.push(tuple_group(&side.tuples[i..j]));
        i = j;
    }
    if !nondistinct.is_empty() {
        let pairs: Vec<String> = nondistinct
            .iter()
            .map(|(a, b)| format!("({a}, {b})"))
            .collect();
        relations.push(format!("nondistinct {{{}}}", pairs.join("; ")));
    }
    let mut functions = Vec::new();
    let mut i = 0;
    while i < side.functions.len() {
        let name = &side.functions[i].0;
        let mut j = i + 1;
        while j < side.functions.len() && side.functions[j].0 == *name {
            j += 1;
        }
        let items: Vec<String> = side.functions[i..j]
            .iter()
            .map(|(_, e, v)| format!("{e} -> {}", print_number(*v)))
            .collect();
        functions.push(format!("{name} {{{}}}", items.join(", ")));
        i = j;
    }
    one_line_bracket(&side.elements, &relations, &functions)
}

fn tuple_group(ts: &[RuleTuple]) -> String {
    let first = &ts[0];
    let name = if first.optional {
        format!("_opt_{}", first.relation)
    } else {
        first.relation.clone()
    };
    if ts.len() == 1 {
        return format!("{name}({})", first.args.join(", "));
    }
    let items: Vec<String> = ts
        .iter()
        .map(|t| format!("({})", t.args.join(", ")))
        .collect();
    format!("{name} {{{}}}", items.join("; "))
}

// ---------------------------------------------------------------------------
// Locations

fn print_location(loc: &Location, players: &[String]) -> String {
    let mut blocks = Vec::new();
    for (p, pl) in loc.players.iter().enumerate() {
        let payoff_zero = matches!(pl.payoff, RealExpr::Const(c) if c.to_bits() == 0);
        if payoff_zero && pl.moves.is_empty() {
            continue;
        }
        let name = players.get(p).map_or("?", String::as_str);
        let mut lines = Vec::new();
        if !payoff_zero {
            lines.push(format!("PAYOFF {}", print_real(&pl.payoff)));
        }
        if !pl.moves.is_empty() {
            let labels: Vec<String> = pl.moves.iter().map(print_label).collect();
            let one_line = format!("MOVES {}", labels.join("; "));
            if one_line.len() + 4 <= WRAP {
                lines.push(one_line);
            } else {
                lines.push(format!("MOVES\n      {}", labels.join(";\n      ")));
            }
        }
        if lines.len() == 1 && !lines[0].contains('\n') && lines[0].len() + name.len() + 16 <= WRAP
        {
            blocks.push(format!("  PLAYER {name} {{ {} }}", lines[0]));
        } else {
            let mut b = format!("  PLAYER {name} {{\n");
            for l in lines {
                let _ = writeln!(b, "    {l}");
            }
            b.push_str("  }");
            blocks.push(b);
        }
    }
    if blocks.is_empty() {
        format!("LOC {} {{}}", loc.id)
    } else {
        format!("LOC {} {{\n{}\n}}", loc.id, blocks.join("\n"))
    }
}

fn print_label(l: &Label) -> String {
    let mut out = format!("[{}", l.rule);
    if let Some(t) = &l.time {
        let _ = write!(out, ", t: {}", interval(t));
    }
    for (p, i) in &l.params {
        let _ = write!(out, ", {p}: {}", interval(i));
    }
    match l.multiplicity {
        Multiplicity::One => {}
        Multiplicity::Any => out.push_str(", mult: *"),
        Multiplicity::All => out.push_str(", mult: inf"),
    }
    out.push_str(" -> ");
    let targets: Vec<String> = l.targets.iter().map(target).collect();
    out.push_str(&targets.join("; "));
    out.push(']');
    out
}

fn interval(i: &Interval) -> String {
    format!("{} -- {}", bound(&i.lo), bound(&i.hi))
}

fn bound(b: &Bound) -> String {
    match b {
        Bound::Num(x) => print_number(*x),
        Bound::Drawn(n) => n.clone(),
    }
}

fn target(t: &Target) -> String {
    let mut extras = Vec::new();
    if let Some(p) = t.probability {
        extras.push(format!("p {}", print_number(p)));
    }
    for (name, d) in &t.draws {
        extras.push(format!("{name} ~ {}", distribution(d)));
    }
    if extras.is_empty() {
        t.location.to_string()
    } else {
        format!("{} ({})", t.location, extras.join(", "))
    }
}

fn distribution(d: &Distribution) -> String {
    match d {
        Distribution::Normal { mean, std_dev } => {
            format!(
                "normal({}, {})",
                print_number(*mean),
                print_number(*std_dev)
            )
        }
        Distribution::Uniform { lo, hi } => {
            format!("uniform({}, {})", print_number(*lo), print_number(*hi))
        }
        Distribution::Exponential { rate } => format!("exp({})", print_number(*rate)),
    }
}

// ---------------------------------------------------------------------------
// Saved plays

/// A saved play's moves, `HISTORY` and one move a line.
pub fn print_history(moves: &[HistoryMove]) -> String {
    let items: Vec<String> = moves.iter().map(history_move).collect();
    format!("HISTORY\n  {}", items.join(";\n  "))
}

fn history_move(m: &HistoryMove) -> String {
    let matching: Vec<String> = m
        .matching
        .iter()
        .map(|(l, e)| format!("{l}: {e}"))
        .collect();
    let mut out = format!("{}: {} {{{}}}", m.player, m.rule, matching.join(", "));
    if let Some(t) = m.time {
        let _ = write!(out, " t: {}", print_number(t));
    }
    for (p, v) in &m.params {
        let _ = write!(out, " {p}: {}", print_number(*v));
    }
    let _ = write!(out, " -> {}", m.target);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(name: &str, args: &[&str]) -> Formula {
        Formula::Rel {
            name: name.into(),
            args: args.iter().map(|s| s.to_string()).collect(),
        }
    }
    fn p(x: &str) -> Formula {
        rel("P", &[x])
    }
    fn ex(x: &str, body: Formula) -> Formula {
        Formula::Exists {
            vars: vec![Var::Element(x.into())],
            body: Box::new(body),
        }
    }
    fn c(x: f64) -> RealExpr {
        RealExpr::Const(x)
    }
    fn v(x: &str) -> RealExpr {
        RealExpr::Var(x.into())
    }
    fn b(t: RealExpr) -> Box<RealExpr> {
        Box::new(t)
    }

    #[test]
    fn numbers_round_trip_through_text() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.5,
            0.1,
            1e-7,
            1.5e300,
            -2.5e-300,
            f64::MIN_POSITIVE,
            f64::MAX,
            5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let s = print_number(x);
            let back: f64 = s.parse().expect("parses");
            assert_eq!(back.to_bits(), x.to_bits(), "{s}");
        }
        assert_eq!(print_number(2.0), "2.0");
        assert_eq!(print_number(-0.0), "-0.0");
        assert_eq!(print_number(1e-7), "1e-7");
    }

    #[test]
    fn connectives_get_minimal_parentheses() {
        let a = p("a");
        let bb = p("b");
        let cc = p("c");
        let and = Formula::And(vec![a.clone(), bb.clone()]);
        let or = Formula::Or(vec![and.clone(), cc.clone()]);
        assert_eq!(print_formula(&or), "P(a) and P(b) or P(c)");
        let and2 = Formula::And(vec![Formula::Or(vec![a.clone(), bb.clone()]), cc.clone()]);
        assert_eq!(print_formula(&and2), "(P(a) or P(b)) and P(c)");
        let nested = Formula::And(vec![and.clone(), cc.clone()]);
        assert_eq!(print_formula(&nested), "(P(a) and P(b)) and P(c)");
        let imp = Formula::Implies(
            Box::new(a.clone()),
            Box::new(Formula::Implies(Box::new(bb.clone()), Box::new(cc.clone()))),
        );
        assert_eq!(print_formula(&imp), "P(a) -> P(b) -> P(c)");
        let imp_left = Formula::Implies(
            Box::new(Formula::Implies(Box::new(a.clone()), Box::new(bb.clone()))),
            Box::new(cc.clone()),
        );
        assert_eq!(print_formula(&imp_left), "(P(a) -> P(b)) -> P(c)");
        let iff = Formula::Iff(Box::new(imp.clone()), Box::new(or.clone()));
        assert_eq!(
            print_formula(&iff),
            "P(a) -> P(b) -> P(c) <-> P(a) and P(b) or P(c)"
        );
        let not = Formula::Not(Box::new(and.clone()));
        assert_eq!(print_formula(&not), "not (P(a) and P(b))");
        let not_eq = Formula::Not(Box::new(Formula::Eq("x".into(), "y".into())));
        assert_eq!(print_formula(&not_eq), "not x = y");
    }

    #[test]
    fn binders_extend_right() {
        let q = ex("x", Formula::And(vec![p("x"), p("y")]));
        assert_eq!(print_formula(&q), "ex x (P(x) and P(y))");
        // Last operand: no parentheses needed.
        let last = Formula::And(vec![p("y"), q.clone()]);
        assert_eq!(print_formula(&last), "P(y) and ex x (P(x) and P(y))");
        // Followed by more text: parenthesized.
        let first = Formula::And(vec![q.clone(), p("y")]);
        assert_eq!(print_formula(&first), "(ex x (P(x) and P(y))) and P(y)");
        // Last operand of an inner conjunction that is itself followed.
        let inner = Formula::Or(vec![Formula::And(vec![p("y"), ex("x", p("x"))]), p("z")]);
        assert_eq!(print_formula(&inner), "P(y) and (ex x P(x)) or P(z)");
        let neg = Formula::Implies(
            Box::new(Formula::Not(Box::new(ex("x", p("x"))))),
            Box::new(p("z")),
        );
        assert_eq!(print_formula(&neg), "not (ex x P(x)) -> P(z)");
        let all = Formula::Forall {
            vars: vec![
                Var::Element("x".into()),
                Var::Set("X".into()),
                Var::Real("a".into()),
            ],
            body: Box::new(Formula::In {
                element: "x".into(),
                set: "X".into(),
            }),
        };
        assert_eq!(print_formula(&all), "all x, X, :a x in X");
        let tc = Formula::Tc {
            steps: Some(3),
            from: vec!["x".into(), "y".into()],
            to: vec!["u".into(), "v".into()],
            body: Box::new(rel("E", &["x", "u"])),
        };
        assert_eq!(print_formula(&tc), "tc 3 x y, u v E(x, u)");
        let lfp = Formula::Fixpoint {
            kind: FixpointKind::Least,
            relation: "T".into(),
            params: vec!["x".into()],
            body: Box::new(Formula::Or(vec![p("x"), ex("y", rel("T", &["y"]))])),
        };
        assert_eq!(print_formula(&lfp), "lfp T(x) = (P(x) or ex y T(y))");
        let let_f = Formula::Let {
            relation: "D".into(),
            params: vec!["x".into()],
            def: Box::new(Formula::In {
                element: "x".into(),
                set: "X".into(),
            }),
            body: Box::new(rel("D", &["z"])),
        };
        assert_eq!(print_formula(&let_f), "let D(x) = (x in X) in D(z)");
    }

    #[test]
    fn real_terms() {
        let t = RealExpr::Sub(
            b(RealExpr::Char(Box::new(rel("W", &[])))),
            b(RealExpr::Add(b(c(1.0)), b(v("a")))),
        );
        assert_eq!(print_real(&t), ":(W()) - (1.0 + :a)");
        let t = RealExpr::Add(b(RealExpr::Sub(b(c(1.0)), b(v("a")))), b(c(2.0)));
        assert_eq!(print_real(&t), "1.0 - :a + 2.0");
        let t = RealExpr::Mul(b(c(-2.0)), b(RealExpr::Neg(b(c(3.0)))));
        assert_eq!(print_real(&t), "-2.0 * -3.0");
        let t = RealExpr::Pow(b(c(-2.0)), b(RealExpr::Pow(b(v("a")), b(c(2.0)))));
        assert_eq!(print_real(&t), "(-2.0) ^ :a ^ 2.0");
        let t = RealExpr::Root(3, b(RealExpr::Root(2, b(v("a")))));
        assert_eq!(print_real(&t), "root(3, sqrt(:a))");
        let t = RealExpr::Add(
            b(RealExpr::Let {
                var: "a".into(),
                value: b(c(1.0)),
                body: b(v("a")),
            }),
            b(RealExpr::Derivative {
                name: "x".into(),
                order: 2,
                element: "e".into(),
            }),
        );
        assert_eq!(print_real(&t), "(let :a = 1.0 in :a) + :x''(e)");
        let t = RealExpr::Sum {
            vars: vec!["x".into(), "y".into()],
            guard: Box::new(rel("E", &["x", "y"])),
            body: b(RealExpr::Fun {
                name: "f".into(),
                element: "x".into(),
            }),
        };
        assert_eq!(print_real(&t), "Sum (x, y | E(x, y) : :f(x))");
        let f = Formula::Cmp {
            lhs: RealExpr::Min {
                var: "a".into(),
                body: Box::new(Formula::Cmp {
                    lhs: v("a"),
                    op: CmpOp::Ge,
                    rhs: c(0.5),
                }),
            },
            op: CmpOp::Ne,
            rhs: c(1e-7),
        };
        assert_eq!(print_formula(&f), "min :a (:a >= 0.5) != 1e-7");
    }

    #[test]
    fn structures_list_everything() {
        let mut s = Structure::new();
        let a = s.add_element("a");
        let one = s.add_element("1");
        let e = s.declare_relation("E", 2).unwrap_or_default();
        let pp = s.declare_relation("P", 1).unwrap_or_default();
        s.declare_relation("Q", 1);
        let w = s.declare_relation("Won", 0).unwrap_or_default();
        s.declare_relation("Lost", 0);
        s.add_tuple(e, &[a, one]);
        s.add_tuple(pp, &[one]);
        s.add_tuple(w, &[]);
        let f = s.declare_function("f");
        s.declare_function("g");
        s.set_fun_value(f, one, -1.5);
        assert_eq!(
            print_structure(&s),
            "[a, 1 | E {(a, 1)}; P {1}; Q:1 {}; Won {()}; Lost:0 {} | f {1 -> -1.5}; g {}]"
        );
        assert_eq!(print_structure(&Structure::new()), "[ | | ]");
    }
}
