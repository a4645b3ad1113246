//! The GDL front end: KIF text to the runtime's GDL IR
//! ([`crate::Description`]), with diagnostics that point into
//! the source, and [`load_game`] to build a playable
//! [`GdlGame`](crate::GdlGame).
//!
//! Pipeline: [`syntax::read`] (tokens and S-expressions, explicit stack),
//! conversion to the syntax tree with spans ([`syntax::AClause`]), the
//! static checks and lowering of [`check`] (disjunctions expanded).

pub mod check;
pub mod syntax;

use crate::reasoner::ProgramError;
use crate::{Description, GdlGame, TermId};

use toss_lang::Diagnostic;

/// The outcome of reading and checking a KIF source.
#[derive(Debug, Default)]
pub struct GdlCheck {
    /// The lowered description when there is no error.
    pub description: Option<Description>,
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
    /// The number of top-level forms read.
    pub forms: usize,
    /// The lowered description despite errors, when every error is one of
    /// GDL's restrictions on rules (safety, stratification, recursion,
    /// dependence on `true` / `does`) and none is of syntax or of a
    /// keyword's use: the reasoner checks safety and stratification again
    /// when it compiles, so such a description may still be played, as
    /// servers send them.
    pub unchecked: Option<Description>,
    /// Per rule of the lowered description, the span of its head in the
    /// source (a clause with a disjunction gives several rules).
    pub rule_spans: Vec<syntax::Span>,
}

/// Reads and checks a KIF source, keeping errors and warnings apart.
pub fn check_gdl(source: &str) -> GdlCheck {
    match syntax::read(source) {
        Ok(forms) => check_gdl_forms(&forms),
        Err(d) => GdlCheck {
            errors: vec![d],
            ..GdlCheck::default()
        },
    }
}

/// Checks a description already read as S-expressions (e.g. the rules
/// inside a START message); spans are those of the forms.
pub fn check_gdl_forms(forms: &[syntax::SExpr]) -> GdlCheck {
    let mut out = GdlCheck {
        forms: forms.len(),
        ..GdlCheck::default()
    };
    let mut conv = syntax::Conv::default();
    let mut clauses = conv.clauses(forms);
    out.errors = conv.errors;
    out.warnings = conv.warnings;
    check::sees_every_role(&mut clauses, &mut out.warnings);
    let syntax_errors = out.errors.len();
    let desc = check::check(
        &clauses,
        &mut out.errors,
        &mut out.warnings,
        &mut out.rule_spans,
    );
    let restriction = |d: &Diagnostic| {
        d.message.starts_with("unsafe rule")
            || d.message.starts_with("not stratified")
            || d.message.starts_with("recursion restriction")
            || d.message.contains("must not depend on")
    };
    if out.errors.is_empty() {
        out.description = desc;
    } else if syntax_errors == 0 && out.errors.iter().all(restriction) {
        out.unchecked = desc;
    }
    out
}

/// Parses and checks a GDL description. `file_name` is used only in
/// messages (render diagnostics with
/// [`render_diagnostics`](toss_lang::render_diagnostics) or
/// [`Diagnostic::location`] for `file:line:col`). Warnings are dropped; see
/// [`check_gdl`].
pub fn parse_gdl(source: &str, file_name: &str) -> Result<Description, Vec<Diagnostic>> {
    let _ = file_name;
    let c = check_gdl(source);
    match c.description {
        Some(d) if c.errors.is_empty() => Ok(d),
        _ => Err(c.errors),
    }
}

/// Builds a game from a checked description. A description that is a
/// valid program but not a game (no `role`, `legal`, `goal` or `terminal`)
/// is an error at the start of the file.
pub fn build_game(desc: &Description) -> Result<GdlGame, Diagnostic> {
    build_game_with_limit(desc, toss_core::limits::GDL_FACTS_PER_RELATION.value)
}

/// [`build_game`] with the reasoner's memory bounded: at most `facts`
/// facts per relation ([`GdlGame::with_fact_limit`]).
pub fn build_game_with_limit(desc: &Description, facts: usize) -> Result<GdlGame, Diagnostic> {
    build(desc, facts, &[])
}

/// [`build_game`] where an error about a relation (past the limit of facts
/// per relation) points at the head of the first rule defining it, given
/// the spans of the description's rules ([`GdlCheck::rule_spans`]).
pub fn build_game_at(
    desc: &Description,
    rule_spans: &[syntax::Span],
) -> Result<GdlGame, Diagnostic> {
    build(
        desc,
        toss_core::limits::GDL_FACTS_PER_RELATION.value,
        rule_spans,
    )
}

fn build(
    desc: &Description,
    facts: usize,
    rule_spans: &[syntax::Span],
) -> Result<GdlGame, Diagnostic> {
    let mut missing = Vec::new();
    for (kw, arity) in [("role", 1), ("legal", 2), ("goal", 2), ("terminal", 0)] {
        let has = desc.symbol(kw).is_some_and(|s| {
            desc.rules
                .iter()
                .any(|r| r.head.rel == s && r.head.args.len() == arity)
        });
        if !has {
            missing.push(format!("`{kw}`"));
        }
    }
    if !missing.is_empty() {
        return Err(Diagnostic::new(
            format!(
                "not a game: nothing defines {}",
                toss_lang::diagnostic::join_words(&missing)
            ),
            0..0,
        ));
    }
    GdlGame::with_fact_limit(desc, facts).map_err(|e| {
        let span = match &e {
            ProgramError::TooManyFacts(name, _) => desc
                .symbol(name)
                .and_then(|r| desc.rules.iter().position(|x| x.head.rel == r))
                .and_then(|i| rule_spans.get(i).cloned()),
            _ => None,
        };
        Diagnostic::new(e.to_string(), span.unwrap_or(0..0))
    })
}

/// Each relation with its position `file:line:col`: the head of the
/// first rule defining it, given the spans of the description's rules
/// ([`GdlCheck::rule_spans`]) in `source`.
pub fn relation_positions(
    desc: &Description,
    rule_spans: &[syntax::Span],
    source: &str,
    file_name: &str,
) -> Vec<(String, String)> {
    let mut first: Vec<(usize, &str)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (rule, span) in desc.rules.iter().zip(rule_spans) {
        if seen.insert(rule.head.rel) {
            first.push((
                span.start.min(source.len()),
                &desc.symbols[rule.head.rel as usize],
            ));
        }
    }
    // One forward scan over the offsets in order (a `line_col` per
    // relation would be quadratic in long files).
    first.sort_unstable();
    let (mut at, mut line, mut line_start) = (0, 1, 0);
    first
        .into_iter()
        .map(|(start, name)| {
            for (i, b) in source.as_bytes()[at..start].iter().enumerate() {
                if *b == b'\n' {
                    line += 1;
                    line_start = at + i + 1;
                }
            }
            at = start;
            let col = 1 + String::from_utf8_lossy(&source.as_bytes()[line_start..start])
                .chars()
                .count();
            (name.to_string(), format!("{file_name}:{line}:{col}"))
        })
        .collect()
}

/// Parses, checks and builds a game.
pub fn load_game(source: &str, file_name: &str) -> Result<GdlGame, Vec<Diagnostic>> {
    let d = parse_gdl(source, file_name)?;
    build_game(&d).map_err(|e| vec![e])
}

/// Reads one ground term (e.g. a move `(mark 1 1)`) against a game's
/// symbols. Unknown symbols are an error (such a term cannot occur).
pub fn parse_ground_term(game: &GdlGame, text: &str) -> Result<TermId, Diagnostic> {
    let forms = syntax::read(text)?;
    match forms.as_slice() {
        [one] => ground(game, one),
        _ => Err(Diagnostic::new("expected exactly one term", 0..text.len())),
    }
}

/// Reads a parenthesised list of ground terms, e.g. a state
/// `((cell 1 1 b) (control xplayer))`.
pub fn parse_ground_terms(game: &GdlGame, text: &str) -> Result<Vec<TermId>, Diagnostic> {
    let t = text.trim();
    let inner = t
        .strip_prefix('(')
        .and_then(|x| x.strip_suffix(')'))
        .ok_or_else(|| Diagnostic::new("expected one list of terms", 0..text.len()))?;
    // The list starts with a list, which descriptions may not do: read
    // its items as a sequence.
    let forms = syntax::read(inner)?;
    forms.iter().map(|e| ground(game, e)).collect()
}

/// Converts one S-expression to a ground term of the game (unknown
/// symbols and variables are errors).
pub fn ground(game: &GdlGame, e: &syntax::SExpr) -> Result<TermId, Diagnostic> {
    let unknown = |n: &str, s: std::ops::Range<usize>| {
        Diagnostic::new(format!("the game has no symbol `{n}`"), s)
    };
    match e {
        syntax::SExpr::Atom(n, s) => {
            if n.starts_with('?') {
                return Err(Diagnostic::new("a ground term has no variables", s.clone()));
            }
            game.make_term(n, &[]).ok_or_else(|| unknown(n, s.clone()))
        }
        syntax::SExpr::List(items, s) => {
            let Some(syntax::SExpr::Atom(f, fs)) = items.first() else {
                return Err(Diagnostic::new("empty list", s.clone()));
            };
            if items.len() == 1 {
                // `(f)` is not `f` (see `syntax`).
                let f = format!("({f})");
                return game
                    .make_term(&f, &[])
                    .ok_or_else(|| unknown(&f, fs.clone()));
            }
            let args = items[1..]
                .iter()
                .map(|a| ground(game, a))
                .collect::<Result<Vec<_>, _>>()?;
            game.make_term(f, &args)
                .ok_or_else(|| unknown(f, fs.clone()))
        }
    }
}
