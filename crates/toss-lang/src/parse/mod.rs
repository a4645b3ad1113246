//! Parsing: a lexical nesting pre-pass ([`check_nesting`]), the pest
//! grammar (`toss.pest`), and the AST builder. Syntax errors become
//! [`Diagnostic`]s that say in words what was expected.
//!
//! The builder is one `impl Builder` over several files, whose calls go one
//! way: items (here) use rules and structures, rules use structures and
//! formulas, structures (REL bodies) use formulas, and all of them the base
//! in `build`.

use std::num::NonZeroUsize;

use pest::Parser as _;
use pest::iterators::Pair;

use crate::ast::*;
use crate::diagnostic::Diagnostic;

mod build;
mod errors;
mod formulas;
mod nesting;
mod rules;
mod structures;

use build::{Builder, bad, ident, inner, real_var_ident, span};
use errors::syntax_error;
pub use nesting::check_nesting;

#[derive(pest_derive::Parser)]
#[grammar = "toss.pest"]
struct TossParser;

/// The deepest nesting of brackets and binders (`ex`, `all`, `lfp`, `gfp`,
/// `tc`, `let`) the front end accepts.
pub const MAX_NESTING: usize = 200;

/// The most `and`s and `or`s one description may have. The parser's token
/// queue and the syntax tree take close to 900 bytes per atom of a long
/// disjunction: two million atoms (a 29 MB file) needed 1.7 GB and 12 s
/// before reaching the checks. At this limit a disjunction over as many
/// declared relations loads in about 7 s within 400 MB (2-core Xeon).
pub const MAX_CONNECTIVES: usize = 250_000;

/// The deepest syntax tree (counting operator chains such as `a + b + c`,
/// which nest in the IR) the front end accepts.
pub const MAX_TREE_DEPTH: usize = 500;

type PResult<T> = Result<T, Diagnostic>;

/// Parses a whole file into its AST.
pub fn parse_file(source: &str) -> PResult<File> {
    check_nesting(source)?;
    let pairs = run_parser(Rule::file, source)?;
    let mut b = Builder { depth: 0 };
    let mut items = Vec::new();
    for pair in pairs.into_iter().flat_map(|p| p.into_inner()) {
        if pair.as_rule() == Rule::EOI {
            continue;
        }
        items.push(b.item(pair)?);
    }
    Ok(File { items })
}

/// Parses a plays file into its AST.
pub fn parse_plays_file(source: &str) -> PResult<PlaysFile> {
    use toss_core::plays::PlayLabel;
    check_nesting(source)?;
    let pairs = run_parser(Rule::plays_file, source)?;
    let mut b = Builder { depth: 0 };
    let mut out = PlaysFile::default();
    for pair in pairs.into_iter().flat_map(|p| p.into_inner()) {
        match pair.as_rule() {
            Rule::players => out.players = inner(pair).iter().map(ident).collect(),
            Rule::play => {
                let whole = span(&pair);
                let mut label = None;
                let mut positions = Vec::new();
                for q in inner(pair) {
                    match q.as_rule() {
                        Rule::play_label => {
                            label = inner(q).first().map(|l| match l.as_rule() {
                                Rule::label_first => PlayLabel::FirstWins,
                                Rule::label_second => PlayLabel::SecondWins,
                                Rule::label_not_won => PlayLabel::NotWon,
                                _ => PlayLabel::Illegal,
                            });
                        }
                        Rule::structure => positions.push(b.structure(q)?),
                        _ => {}
                    }
                }
                let end = positions.first().map_or(whole.end, |p| p.span.start);
                out.plays.push(PlayLit {
                    label: label
                        .ok_or_else(|| Diagnostic::new("expected a play label", whole.clone()))?,
                    span: whole.start..end,
                    positions,
                });
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Parses a lone formula (for tests and tools).
pub fn parse_formula_ast(source: &str) -> PResult<Formula> {
    check_nesting(source)?;
    let pairs = run_parser(Rule::formula_only, source)?;
    let mut b = Builder { depth: 0 };
    for pair in pairs.into_iter().flat_map(|p| p.into_inner()) {
        if pair.as_rule() == Rule::formula {
            return b.formula(pair);
        }
    }
    Err(Diagnostic::new("expected a formula", 0..0))
}

/// Parses a lone real term (for tests and tools).
pub fn parse_term_ast(source: &str) -> PResult<Term> {
    check_nesting(source)?;
    let pairs = run_parser(Rule::term_only, source)?;
    let mut b = Builder { depth: 0 };
    for pair in pairs.into_iter().flat_map(|p| p.into_inner()) {
        if pair.as_rule() == Rule::term {
            return b.term(pair);
        }
    }
    Err(Diagnostic::new("expected a real term", 0..0))
}

fn run_parser(rule: Rule, source: &str) -> PResult<pest::iterators::Pairs<'_, Rule>> {
    // A budget of parser calls proportional to the input, so that no input
    // can make the backtracking parser run for long.
    let budget = source.len().saturating_mul(400).saturating_add(2_000_000);
    pest::set_call_limit(NonZeroUsize::new(budget));
    TossParser::parse(rule, source).map_err(|e| {
        let detail = detailed_expectation(rule, source);
        syntax_error(source, e, detail)
    })
}

/// Re-parses with pest's error detail on (errors only, so the cost is paid
/// once) to learn the literal tokens expected at the furthest position.
fn detailed_expectation(rule: Rule, source: &str) -> Option<(usize, Vec<String>)> {
    pest::set_error_detail(true);
    let result = TossParser::parse(rule, source);
    pest::set_error_detail(false);
    let attempts = result.err()?.parse_attempts()?;
    let mut tokens: Vec<String> = Vec::new();
    for t in attempts.expected_tokens() {
        // Only literal strings: not character ranges (`a..z`), built-in
        // rules, whitespace or comments.
        let token = t.to_string();
        if token.trim().is_empty()
            || token.contains("..")
            || token == "//"
            || token == "\u{FEFF}"
            || token.chars().any(|c| c.is_whitespace())
            || token.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        {
            continue;
        }
        let word = format!("`{token}`");
        if !tokens.contains(&word) {
            tokens.push(word);
        }
    }
    Some((attempts.max_position, tokens))
}

impl Builder {
    fn item(&mut self, p: Pair<Rule>) -> PResult<Item> {
        let sp = span(&p);
        Ok(match p.as_rule() {
            Rule::players => Item::Players {
                names: inner(p).iter().map(ident).collect(),
                span: sp,
            },
            Rule::data => Item::Data {
                entries: inner(p)
                    .into_iter()
                    .map(|e| {
                        let kv = inner(e);
                        let k = kv.first().map(ident).unwrap_or(Ident {
                            name: String::new(),
                            span: sp.clone(),
                        });
                        let v = kv.get(1).map(ident).unwrap_or(Ident {
                            name: String::new(),
                            span: sp.clone(),
                        });
                        (k, v)
                    })
                    .collect(),
                span: sp,
            },
            Rule::repetition => {
                let parts = inner(p);
                let (Some(f), Some(e)) = (parts.first(), parts.get(1)) else {
                    return Err(Diagnostic::new("expected `:f(e)` after REPETITION", sp));
                };
                let (function, element) = (real_var_ident(f), ident(e));
                let (mut relations, mut functions) = (Vec::new(), Vec::new());
                for item in parts.iter().skip(2) {
                    match item.clone().into_inner().next() {
                        Some(q) if q.as_rule() == Rule::real_var => {
                            functions.push(real_var_ident(&q))
                        }
                        Some(q) => relations.push(ident(&q)),
                        None => {}
                    }
                }
                Item::Repetition {
                    function,
                    element,
                    relations,
                    functions,
                    span: sp,
                }
            }
            Rule::rel_def => Item::Rel(self.rel_def(p)?),
            Rule::rule_def => Item::Rule(self.rule_def(p)?),
            Rule::loc_def => Item::Loc(self.loc_def(p)?),
            Rule::start => Item::Start(self.first_structure(p)?),
            Rule::model => Item::Model(self.first_structure(p)?),
            Rule::history => {
                let mut moves = Vec::new();
                for m in inner(p) {
                    moves.push(self.hist_move(m)?);
                }
                Item::History { moves, span: sp }
            }
            _ => return Err(bad(&p, "item")),
        })
    }
}
