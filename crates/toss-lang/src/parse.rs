//! Parsing: a lexical nesting pre-pass, the pest grammar (`toss.pest`), and
//! the AST builder. Syntax errors become [`Diagnostic`]s that say in words
//! what was expected.

use std::num::NonZeroUsize;

use pest::Parser as _;
use pest::error::{ErrorVariant, InputLocation};
use pest::iterators::Pair;

use crate::ast::*;
use crate::diagnostic::Diagnostic;

#[derive(pest_derive::Parser)]
#[grammar = "toss.pest"]
struct TossParser;

/// The deepest nesting of brackets and binders (`ex`, `all`, `lfp`, `gfp`,
/// `tc`, `let`) the front end accepts.
pub const MAX_NESTING: usize = 200;

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

// ------------------------------------------------------------------ nesting

/// Rejects inputs nested deeper than [`MAX_NESTING`] before the (recursive)
/// parser sees them. Counts open brackets, plus binders, which extend as far
/// right as possible and so nest everything after them up to the closing
/// bracket of their level.
pub fn check_nesting(source: &str) -> PResult<()> {
    let bytes = source.as_bytes();
    // binders[i]: binders seen at bracket level i (level 0 = outside).
    let mut binders: Vec<usize> = vec![0];
    let mut total = 0usize;
    let mut i = 0;
    let too_deep = |at: usize, len: usize| {
        Diagnostic::new(
            format!("nesting too deep: more than {MAX_NESTING} levels of brackets and binders"),
            at..at + len,
        )
        .with_note(format!(
            "the front end accepts at most {MAX_NESTING} nested brackets, quantifiers, fixed points and lets"
        ))
    };
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            b'(' | b'[' | b'{' => {
                total += 1;
                binders.push(0);
                if total > MAX_NESTING {
                    return Err(too_deep(i, 1));
                }
            }
            b')' | b']' | b'}' if binders.len() > 1 => {
                let b = binders.pop().unwrap_or(0);
                total = total.saturating_sub(b + 1);
            }
            b';' => {
                if let Some(last) = binders.last_mut() {
                    total -= *last;
                    *last = 0;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &source[start..i];
                match word {
                    "ex" | "all" | "lfp" | "gfp" | "tc" | "let" => {
                        total += 1;
                        if let Some(last) = binders.last_mut() {
                            *last += 1;
                        }
                        if total > MAX_NESTING {
                            return Err(too_deep(start, word.len()));
                        }
                    }
                    "REL" | "RULE" | "LOC" | "START" | "MODEL" | "HISTORY" | "PLAYERS" | "DATA"
                    | "PLAYER" | "PAYOFF" | "MOVES" | "pre" | "inv" | "post" | "update"
                    | "dynamics" | "emb" | "with" => {
                        if let Some(last) = binders.last_mut() {
                            total -= *last;
                            *last = 0;
                        }
                    }
                    _ => {}
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

// ------------------------------------------------------------------ errors

fn describe(rule: Rule) -> Option<&'static str> {
    use Rule as R;
    Some(match rule {
        R::EOI => "end of input",
        R::ident | R::raw_ident | R::param_list => "a name",
        R::elem | R::selem | R::elem_section => "an element name",
        R::nat | R::tc_steps => "a natural number",
        R::number | R::unsigned | R::bound => "a number",
        R::real_var => "a real variable like `:a`",
        R::string => "a board string",
        R::players => "`PLAYERS`",
        R::player_name => "a player name",
        R::data => "`DATA`",
        R::data_entry => "`key: value`",
        R::data_value => "a value",
        R::rel_def => "`REL`",
        R::rule_def => "`RULE`",
        R::loc_def => "`LOC`",
        R::start => "`START`",
        R::model => "`MODEL`",
        R::history => "`HISTORY`",
        R::rel_eq_body | R::rel_brace_body => "`=` or `{` and a formula",
        R::structure => "a structure `[ elements | relations | functions ]`",
        R::rel_section | R::rel_entry => "a relation entry",
        R::fun_section | R::fun_entry | R::fun_name => "a function entry `f { a -> 1 }`",
        R::fun_value => "`element -> number`",
        R::dash => "`-`",
        R::arity_decl => "`:arity`",
        R::tuple => "a tuple `(a, b)`",
        R::tuple_set => "a tuple set `{ ... }`",
        R::formula | R::formula_only | R::imp | R::disj | R::conj | R::unary => "a formula",
        R::iff_op => "`<->`",
        R::or_op => "`or`",
        R::and_op => "`and`",
        R::not_op => "`not`",
        R::exists | R::kw_ex => "`ex`",
        R::forall | R::kw_all => "`all`",
        R::var_list => "variables",
        R::lfp | R::kw_lfp => "`lfp`",
        R::gfp | R::kw_gfp => "`gfp`",
        R::tc | R::kw_tc => "`tc`",
        R::tc_vars => "element variables",
        R::let_rel | R::let_real_f | R::let_t | R::kw_let => "`let`",
        R::kw_in => "`in`",
        R::true_f | R::false_f | R::rel_atom | R::elem_eq | R::elem_ne | R::in_atom => "a formula",
        R::cmp => "a comparison",
        R::cmp_op => "a comparison operator",
        R::term | R::term_only | R::product | R::neg | R::power => "a real term",
        R::add_op => "`+` or `-`",
        R::mul_op => "`*` or `/`",
        R::neg_op => "`-`",
        R::fun_t => "a function value `:f(x)`",
        R::primes => "`'`",
        R::char_t => "`:(formula)`",
        R::sqrt_t | R::root_t | R::sum_t | R::product_t | R::min_t => "a real term",
        R::emb | R::kw_emb => "`emb`",
        R::with | R::kw_with => "`with`",
        R::with_pair => "`right <- left`",
        R::update | R::kw_update => "`update`",
        R::dynamics | R::kw_dynamics => "`dynamics`",
        R::equation => "an equation `:f(a) = term`",
        R::pre | R::kw_pre => "`pre`",
        R::inv | R::kw_inv => "`inv`",
        R::post | R::kw_post => "`post`",
        R::player_block => "`PLAYER`",
        R::payoff => "`PAYOFF`",
        R::moves => "`MOVES`",
        R::label => "a label `[Rule -> location]`",
        R::mult => "`mult:`",
        R::mult_value => "`1`, `*` or `inf`",
        R::interval => "an interval `name: a -- b`",
        R::target => "a target location",
        R::prob => "`p probability`",
        R::draw => "`name ~ distribution`",
        R::distribution | R::dist_name => "`normal(m, s)`, `uniform(a, b)` or `exp(rate)`",
        R::hist_move => "a move `player: Rule {...} -> location`",
        R::hist_pair => "`element: element`",
        R::hist_value => "`name: number`",
        _ => return None,
    })
}

fn syntax_error(
    source: &str,
    e: pest::error::Error<Rule>,
    detail: Option<(usize, Vec<String>)>,
) -> Diagnostic {
    let rule_pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    // Prefer the furthest position the detailed re-parse reached when it
    // knows what literal tokens were expected there.
    let (mut pos, literals, use_rules) = match detail {
        Some((at, toks)) if at > rule_pos && !toks.is_empty() => {
            (at.min(source.len()), toks, false)
        }
        Some((at, toks)) if at == rule_pos => (rule_pos, toks, true),
        _ => (rule_pos, Vec::new(), true),
    };
    // Point at the next token, not at the blanks before it.
    let rest = source.get(pos..).unwrap_or("");
    pos += rest.len() - rest.trim_start().len();
    let found = found_at(source, pos);
    // At the end of input, point just after the last token.
    let pos = if found.is_empty() {
        pos.min(source.trim_end().len())
    } else {
        pos
    };
    let end = (pos + found.len().max(1)).min(source.len()).max(pos);
    match e.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            let mut expected: Vec<String> = Vec::new();
            let positives = if use_rules { positives } else { Vec::new() };
            for r in positives {
                if let Some(d) = describe(r)
                    && !expected.iter().any(|e| e == d)
                {
                    expected.push(d.to_string());
                }
            }
            // The start tokens of a formula or term say less than its name.
            let covered = expected
                .iter()
                .any(|e| e == "a formula" || e == "a real term");
            for l in literals {
                if !covered && !expected.contains(&l) {
                    expected.push(l);
                }
            }
            expected.truncate(10);
            let message = if expected.is_empty() {
                format!("syntax error: unexpected {}", describe_found(&found))
            } else {
                format!(
                    "syntax error: expected {}, found {}",
                    crate::diagnostic::join_words(&expected),
                    describe_found(&found)
                )
            };
            let mut d = Diagnostic::new(message, pos..end);
            d.expected = expected;
            d
        }
        ErrorVariant::CustomError { message } => {
            let msg = if message.contains("stack limit") {
                "nesting too deep for the parser".to_string()
            } else if message.contains("call limit") {
                "input too complex: the parser gave up (too much backtracking)".to_string()
            } else {
                format!("syntax error: {message}")
            };
            Diagnostic::new(msg, pos..end)
        }
    }
}

fn found_at(source: &str, pos: usize) -> String {
    let rest = source.get(pos..).unwrap_or("");
    let mut chars = rest.chars();
    match chars.next() {
        None => String::new(),
        Some(c) if c.is_ascii_alphanumeric() || c == '_' => rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .take(40)
            .collect(),
        Some(c) => c.to_string(),
    }
}

fn describe_found(found: &str) -> String {
    match found {
        "" => "end of input".to_string(),
        "\0" => "a NUL byte".to_string(),
        s => format!("`{}`", s.escape_debug()),
    }
}

// ------------------------------------------------------------------ builder

struct Builder {
    /// Current depth of the tree being built.
    depth: usize,
}

fn span(p: &Pair<Rule>) -> Span {
    p.as_span().start()..p.as_span().end()
}

fn ident(p: &Pair<Rule>) -> Ident {
    Ident {
        name: p.as_str().to_string(),
        span: span(p),
    }
}

/// Inner pairs without keyword tokens.
fn inner<'a>(p: Pair<'a, Rule>) -> Vec<Pair<'a, Rule>> {
    p.into_inner()
        .filter(|q| {
            !matches!(
                q.as_rule(),
                Rule::kw_ex
                    | Rule::kw_all
                    | Rule::kw_lfp
                    | Rule::kw_gfp
                    | Rule::kw_tc
                    | Rule::kw_let
                    | Rule::kw_in
                    | Rule::kw_emb
                    | Rule::kw_with
                    | Rule::kw_update
                    | Rule::kw_dynamics
                    | Rule::kw_pre
                    | Rule::kw_inv
                    | Rule::kw_post
                    | Rule::and_op
                    | Rule::or_op
            )
        })
        .collect()
}

fn bad(p: &Pair<Rule>, what: &str) -> Diagnostic {
    Diagnostic::new(format!("internal parser error: unexpected {what}"), span(p))
}

fn parse_f64(p: &Pair<Rule>) -> PResult<f64> {
    p.as_str()
        .parse::<f64>()
        .map_err(|_| Diagnostic::new(format!("invalid number `{}`", p.as_str()), span(p)))
}

fn parse_nat<T: std::str::FromStr>(p: &Pair<Rule>) -> PResult<Num<T>> {
    p.as_str()
        .parse::<T>()
        .map(|value| Num {
            value,
            span: span(p),
        })
        .map_err(|_| Diagnostic::new(format!("number `{}` is too large", p.as_str()), span(p)))
}

fn var_decl(p: &Pair<Rule>) -> VarDecl {
    let text = p.as_str();
    if let Some(name) = text.strip_prefix(':') {
        let s = span(p);
        VarDecl {
            kind: VarKind::Real,
            name: Ident {
                name: name.to_string(),
                span: s,
            },
        }
    } else {
        let kind = if text.starts_with(|c: char| c.is_ascii_uppercase()) {
            VarKind::Set
        } else {
            VarKind::Element
        };
        VarDecl {
            kind,
            name: ident(p),
        }
    }
}

fn real_var_ident(p: &Pair<Rule>) -> Ident {
    let s = span(p);
    Ident {
        name: p.as_str().trim_start_matches(':').to_string(),
        span: s,
    }
}

impl Builder {
    fn enter(&mut self, p: &Pair<Rule>, extra: usize) -> PResult<()> {
        self.depth += 1 + extra;
        if self.depth > MAX_TREE_DEPTH {
            return Err(Diagnostic::new(
                format!("expression too deeply nested (more than {MAX_TREE_DEPTH} levels)"),
                span(p),
            ));
        }
        Ok(())
    }

    fn leave(&mut self, extra: usize) {
        self.depth -= 1 + extra;
    }

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

    fn first_structure(&mut self, p: Pair<Rule>) -> PResult<StructLit> {
        let q = inner(p.clone())
            .into_iter()
            .next()
            .ok_or_else(|| bad(&p, "structure"))?;
        self.structure(q)
    }

    fn rel_def(&mut self, p: Pair<Rule>) -> PResult<RelDef> {
        let sp = span(&p);
        let mut name = None;
        let mut params = Vec::new();
        let mut body = None;
        for q in inner(p.clone()) {
            match q.as_rule() {
                Rule::ident => name = Some(ident(&q)),
                Rule::param_list => params = inner(q).iter().map(ident).collect(),
                Rule::rel_eq_body | Rule::rel_brace_body => {
                    let f = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "body"))?;
                    body = Some(self.formula(f)?);
                }
                _ => return Err(bad(&q, "REL part")),
            }
        }
        Ok(RelDef {
            name: name.ok_or_else(|| bad(&p, "REL"))?,
            params,
            body: body.ok_or_else(|| bad(&p, "REL"))?,
            span: sp,
        })
    }

    fn structure(&mut self, p: Pair<Rule>) -> PResult<StructLit> {
        let mut s = StructLit {
            span: span(&p),
            ..StructLit::default()
        };
        for q in inner(p) {
            match q.as_rule() {
                Rule::elem_section => s.elements = inner(q).iter().map(ident).collect(),
                Rule::rel_section => {
                    for e in inner(q) {
                        if e.as_rule() == Rule::rel_entry {
                            s.relations.push(self.rel_entry(e)?);
                        }
                    }
                }
                Rule::fun_section => {
                    for e in inner(q) {
                        if e.as_rule() == Rule::fun_entry {
                            s.functions.push(self.fun_entry(e)?);
                        }
                    }
                }
                Rule::string => {
                    let text = q.as_str();
                    let body = text
                        .strip_prefix('"')
                        .and_then(|t| t.strip_suffix('"'))
                        .unwrap_or("");
                    s.board = Some((body.to_string(), span(&q)));
                }
                _ => return Err(bad(&q, "structure part")),
            }
        }
        Ok(s)
    }

    fn rel_entry(&mut self, p: Pair<Rule>) -> PResult<RelEntry> {
        let sp = span(&p);
        let mut name = None;
        let mut declared_arity = None;
        let mut tuples = Vec::new();
        for q in inner(p.clone()) {
            match q.as_rule() {
                Rule::ident => name = Some(ident(&q)),
                Rule::arity_decl => {
                    if let Some(n) = inner(q).first() {
                        declared_arity = Some(parse_nat::<usize>(n)?);
                    }
                }
                Rule::tuple => {
                    tuples.push((inner(q.clone()).iter().map(ident).collect(), span(&q)))
                }
                Rule::tuple_set => {
                    for t in inner(q) {
                        match t.as_rule() {
                            Rule::tuple => tuples
                                .push((inner(t.clone()).iter().map(ident).collect(), span(&t))),
                            _ => tuples.push((vec![ident(&t)], span(&t))),
                        }
                    }
                }
                _ => return Err(bad(&q, "relation part")),
            }
        }
        Ok(RelEntry {
            name: name.ok_or_else(|| bad(&p, "relation"))?,
            declared_arity,
            tuples,
            span: sp,
        })
    }

    fn fun_entry(&mut self, p: Pair<Rule>) -> PResult<FunEntry> {
        let sp = span(&p);
        let mut name = None;
        let mut order = 0;
        let mut values = Vec::new();
        for q in inner(p.clone()) {
            match q.as_rule() {
                Rule::fun_name => {
                    for r in inner(q) {
                        match r.as_rule() {
                            Rule::primes => order = r.as_str().len() as u32,
                            _ => name = Some(ident(&r)),
                        }
                    }
                }
                Rule::fun_value => {
                    let kv = inner(q.clone());
                    match kv.as_slice() {
                        [e, v] => values.push((ident(e), parse_f64(v)?)),
                        _ => return Err(bad(&q, "function value")),
                    }
                }
                _ => return Err(bad(&q, "function part")),
            }
        }
        Ok(FunEntry {
            name: name.ok_or_else(|| bad(&p, "function"))?,
            order,
            values,
            span: sp,
        })
    }

    // ---- formulas

    fn formula(&mut self, p: Pair<Rule>) -> PResult<Formula> {
        match p.as_rule() {
            Rule::formula => self.chain(p, true),
            Rule::imp => self.chain(p, false),
            Rule::disj | Rule::conj => {
                let sp = span(&p);
                let is_or = p.as_rule() == Rule::disj;
                let parts = inner(p.clone());
                if parts.len() == 1 {
                    let only = parts.into_iter().next().ok_or_else(|| bad(&p, "formula"))?;
                    return self.formula(only);
                }
                self.enter(&p, 0)?;
                let mut fs = Vec::with_capacity(parts.len());
                for q in parts {
                    fs.push(self.formula(q)?);
                }
                self.leave(0);
                Ok(Formula {
                    kind: if is_or {
                        FormulaKind::Or(fs)
                    } else {
                        FormulaKind::And(fs)
                    },
                    span: sp,
                })
            }
            Rule::unary => {
                let parts = inner(p.clone());
                let nots = parts.iter().filter(|q| q.as_rule() == Rule::not_op).count();
                let last = parts.into_iter().last().ok_or_else(|| bad(&p, "formula"))?;
                let not_starts: Vec<usize> = inner(p.clone())
                    .iter()
                    .filter(|q| q.as_rule() == Rule::not_op)
                    .map(|q| q.as_span().start())
                    .collect();
                self.enter(&p, nots)?;
                let mut f = self.formula(last)?;
                self.leave(nots);
                for start in not_starts.into_iter().rev() {
                    let sp = start..f.span.end;
                    f = Formula {
                        kind: FormulaKind::Not(Box::new(f)),
                        span: sp,
                    };
                }
                Ok(f)
            }
            _ => {
                self.enter(&p, 0)?;
                let r = self.formula_node(p);
                self.leave(0);
                r
            }
        }
    }

    /// `a <-> b <-> c` (left fold) or `a -> b -> c` (right fold).
    fn chain(&mut self, p: Pair<Rule>, iff: bool) -> PResult<Formula> {
        let parts = inner(p.clone());
        let n = parts.len();
        if n == 1 {
            let only = parts.into_iter().next().ok_or_else(|| bad(&p, "formula"))?;
            return self.formula(only);
        }
        self.enter(&p, n)?;
        let mut fs = Vec::with_capacity(n);
        for q in parts {
            fs.push(self.formula(q)?);
        }
        self.leave(n);
        let mk = |a: Formula, b: Formula| {
            let sp = a.span.start..b.span.end;
            let kind = if iff {
                FormulaKind::Iff(Box::new(a), Box::new(b))
            } else {
                FormulaKind::Implies(Box::new(a), Box::new(b))
            };
            Formula { kind, span: sp }
        };
        let mut it = fs.into_iter();
        if iff {
            let first = it.next().ok_or_else(|| bad(&p, "formula"))?;
            Ok(it.fold(first, mk))
        } else {
            let mut rev = it.rev();
            let last = rev.next().ok_or_else(|| bad(&p, "formula"))?;
            Ok(rev.fold(last, |acc, a| mk(a, acc)))
        }
    }

    fn formula_node(&mut self, p: Pair<Rule>) -> PResult<Formula> {
        let sp = span(&p);
        let rule = p.as_rule();
        let parts = inner(p.clone());
        let kind = match rule {
            Rule::true_f => FormulaKind::True,
            Rule::false_f => FormulaKind::False,
            Rule::rel_atom => {
                let name = parts.first().map(ident).ok_or_else(|| bad(&p, "atom"))?;
                FormulaKind::Rel {
                    name,
                    args: parts[1..].iter().map(ident).collect(),
                }
            }
            Rule::elem_eq | Rule::elem_ne => match parts.as_slice() {
                [a, b] => {
                    if rule == Rule::elem_eq {
                        FormulaKind::Eq(ident(a), ident(b))
                    } else {
                        FormulaKind::Ne(ident(a), ident(b))
                    }
                }
                _ => return Err(bad(&p, "equality")),
            },
            Rule::in_atom => match parts.as_slice() {
                [a, b] => FormulaKind::In {
                    element: ident(a),
                    set: ident(b),
                },
                _ => return Err(bad(&p, "membership")),
            },
            Rule::cmp => match parts.as_slice() {
                [l, o, r] => {
                    let op = match o.as_str() {
                        "<" => CmpOp::Lt,
                        "<=" | "=<" => CmpOp::Le,
                        "=" => CmpOp::Eq,
                        "!=" => CmpOp::Ne,
                        ">=" => CmpOp::Ge,
                        _ => CmpOp::Gt,
                    };
                    FormulaKind::Cmp {
                        lhs: self.term(l.clone())?,
                        op,
                        rhs: self.term(r.clone())?,
                    }
                }
                _ => return Err(bad(&p, "comparison")),
            },
            Rule::exists | Rule::forall => {
                let (vl, body) = match parts.as_slice() {
                    [vl, body] => (vl.clone(), body.clone()),
                    _ => return Err(bad(&p, "quantifier")),
                };
                let vars = inner(vl).iter().map(var_decl).collect();
                let body = Box::new(self.formula(body)?);
                if rule == Rule::exists {
                    FormulaKind::Exists { vars, body }
                } else {
                    FormulaKind::Forall { vars, body }
                }
            }
            Rule::lfp | Rule::gfp => {
                let mut relation = None;
                let mut params = Vec::new();
                let mut body = None;
                for q in parts {
                    match q.as_rule() {
                        Rule::ident => relation = Some(ident(&q)),
                        Rule::param_list => params = inner(q).iter().map(ident).collect(),
                        _ => body = Some(self.formula(q)?),
                    }
                }
                FormulaKind::Fixpoint {
                    kind: if rule == Rule::lfp {
                        FixpointKind::Least
                    } else {
                        FixpointKind::Greatest
                    },
                    relation: relation.ok_or_else(|| bad(&p, "fixed point"))?,
                    params,
                    body: Box::new(body.ok_or_else(|| bad(&p, "fixed point"))?),
                }
            }
            Rule::tc => {
                let mut steps = None;
                let mut sides: Vec<Vec<Ident>> = Vec::new();
                let mut body = None;
                for q in parts {
                    match q.as_rule() {
                        Rule::tc_steps => {
                            if let Some(n) = inner(q).first() {
                                steps = Some(parse_nat::<u32>(n)?);
                            }
                        }
                        Rule::tc_vars => sides.push(inner(q).iter().map(ident).collect()),
                        _ => body = Some(self.formula(q)?),
                    }
                }
                let to = sides.pop().unwrap_or_default();
                let from = sides.pop().unwrap_or_default();
                FormulaKind::Tc {
                    steps,
                    from,
                    to,
                    body: Box::new(body.ok_or_else(|| bad(&p, "tc"))?),
                }
            }
            Rule::let_rel => {
                let mut relation = None;
                let mut params = Vec::new();
                let mut fs = Vec::new();
                for q in parts {
                    match q.as_rule() {
                        Rule::ident => relation = Some(ident(&q)),
                        Rule::param_list => params = inner(q).iter().map(ident).collect(),
                        _ => fs.push(self.formula(q)?),
                    }
                }
                let body = fs.pop().ok_or_else(|| bad(&p, "let"))?;
                let def = fs.pop().ok_or_else(|| bad(&p, "let"))?;
                FormulaKind::Let {
                    relation: relation.ok_or_else(|| bad(&p, "let"))?,
                    params,
                    def: Box::new(def),
                    body: Box::new(body),
                }
            }
            Rule::let_real_f => match parts.as_slice() {
                [v, t, f] => FormulaKind::LetReal {
                    var: real_var_ident(v),
                    value: self.term(t.clone())?,
                    body: Box::new(self.formula(f.clone())?),
                },
                _ => return Err(bad(&p, "let")),
            },
            Rule::formula | Rule::imp | Rule::disj | Rule::conj | Rule::unary => {
                return self.formula(p);
            }
            _ => return Err(bad(&p, "formula")),
        };
        Ok(Formula { kind, span: sp })
    }

    // ---- terms

    fn term(&mut self, p: Pair<Rule>) -> PResult<Term> {
        let rule = p.as_rule();
        match rule {
            Rule::term | Rule::product => {
                // operand (op operand)*, left fold
                let parts = inner(p.clone());
                let n = parts.len() / 2;
                if n == 0 {
                    let only = parts.into_iter().next().ok_or_else(|| bad(&p, "term"))?;
                    return self.term(only);
                }
                self.enter(&p, n)?;
                let mut it = parts.into_iter();
                let first = it.next().ok_or_else(|| bad(&p, "term"))?;
                let mut acc = self.term(first)?;
                while let (Some(op), Some(rhs)) = (it.next(), it.next()) {
                    let rhs = self.term(rhs)?;
                    let sp = acc.span.start..rhs.span.end;
                    let (a, b) = (Box::new(acc), Box::new(rhs));
                    let kind = match op.as_str() {
                        "+" => TermKind::Add(a, b),
                        "-" => TermKind::Sub(a, b),
                        "*" => TermKind::Mul(a, b),
                        _ => TermKind::Div(a, b),
                    };
                    acc = Term { kind, span: sp };
                }
                self.leave(n);
                Ok(acc)
            }
            Rule::neg => {
                let parts = inner(p.clone());
                let starts: Vec<usize> = parts
                    .iter()
                    .filter(|q| q.as_rule() == Rule::neg_op)
                    .map(|q| q.as_span().start())
                    .collect();
                let last = parts.into_iter().last().ok_or_else(|| bad(&p, "term"))?;
                let n = starts.len();
                self.enter(&p, n)?;
                let mut t = self.term(last)?;
                self.leave(n);
                for s in starts.into_iter().rev() {
                    let sp = s..t.span.end;
                    t = Term {
                        kind: TermKind::Neg(Box::new(t)),
                        span: sp,
                    };
                }
                Ok(t)
            }
            Rule::power => {
                let parts = inner(p.clone());
                let n = parts.len();
                if n == 1 {
                    let only = parts.into_iter().next().ok_or_else(|| bad(&p, "term"))?;
                    return self.term(only);
                }
                self.enter(&p, n)?;
                let mut ts = Vec::with_capacity(n);
                for q in parts {
                    ts.push(self.term(q)?);
                }
                self.leave(n);
                let mut rev = ts.into_iter().rev();
                let last = rev.next().ok_or_else(|| bad(&p, "term"))?;
                Ok(rev.fold(last, |acc, a| {
                    let sp = a.span.start..acc.span.end;
                    Term {
                        kind: TermKind::Pow(Box::new(a), Box::new(acc)),
                        span: sp,
                    }
                }))
            }
            _ => {
                self.enter(&p, 0)?;
                let r = self.term_node(p);
                self.leave(0);
                r
            }
        }
    }

    fn term_node(&mut self, p: Pair<Rule>) -> PResult<Term> {
        let sp = span(&p);
        let rule = p.as_rule();
        let parts = inner(p.clone());
        let kind = match rule {
            Rule::unsigned => TermKind::Num(parse_f64(&p)?),
            Rule::real_var => TermKind::Var(real_var_ident(&p)),
            Rule::fun_t => {
                let mut name = None;
                let mut order = 0;
                let mut element = None;
                for q in parts {
                    match q.as_rule() {
                        Rule::real_var => name = Some(real_var_ident(&q)),
                        Rule::primes => order = q.as_str().len() as u32,
                        _ => element = Some(ident(&q)),
                    }
                }
                TermKind::Fun {
                    name: name.ok_or_else(|| bad(&p, "function"))?,
                    order,
                    element: element.ok_or_else(|| bad(&p, "function"))?,
                }
            }
            Rule::char_t => {
                let f = parts.into_iter().next().ok_or_else(|| bad(&p, "term"))?;
                TermKind::Char(Box::new(self.formula(f)?))
            }
            Rule::sqrt_t => {
                let t = parts.into_iter().next().ok_or_else(|| bad(&p, "term"))?;
                TermKind::Sqrt(Box::new(self.term(t)?))
            }
            Rule::root_t => match parts.as_slice() {
                [n, t] => TermKind::Root(parse_nat::<u32>(n)?, Box::new(self.term(t.clone())?)),
                _ => return Err(bad(&p, "root")),
            },
            Rule::sum_t | Rule::product_t => match parts.as_slice() {
                [vs, g, t] => {
                    let vars = inner(vs.clone()).iter().map(ident).collect();
                    let guard = Box::new(self.formula(g.clone())?);
                    let body = Box::new(self.term(t.clone())?);
                    if rule == Rule::sum_t {
                        TermKind::Sum { vars, guard, body }
                    } else {
                        TermKind::Product { vars, guard, body }
                    }
                }
                _ => return Err(bad(&p, "sum")),
            },
            Rule::min_t => match parts.as_slice() {
                [v, f] => TermKind::Min {
                    var: real_var_ident(v),
                    body: Box::new(self.formula(f.clone())?),
                },
                _ => return Err(bad(&p, "min")),
            },
            Rule::let_t => match parts.as_slice() {
                [v, a, b] => TermKind::Let {
                    var: real_var_ident(v),
                    value: Box::new(self.term(a.clone())?),
                    body: Box::new(self.term(b.clone())?),
                },
                _ => return Err(bad(&p, "let")),
            },
            Rule::term | Rule::product | Rule::neg | Rule::power => return self.term(p),
            _ => return Err(bad(&p, "term")),
        };
        Ok(Term { kind, span: sp })
    }

    // ---- rules

    fn rule_def(&mut self, p: Pair<Rule>) -> PResult<RuleDef> {
        let sp = span(&p);
        let mut name = None;
        let mut sides = Vec::new();
        let mut r = RuleDef {
            name: Ident {
                name: String::new(),
                span: sp.clone(),
            },
            lhs: StructLit::default(),
            rhs: StructLit::default(),
            emb: Vec::new(),
            with: Vec::new(),
            update: Vec::new(),
            dynamics: Vec::new(),
            pre: None,
            inv: None,
            post: None,
            span: sp,
        };
        for q in inner(p) {
            match q.as_rule() {
                Rule::ident => name = Some(ident(&q)),
                Rule::structure => sides.push(self.structure(q)?),
                Rule::emb => r.emb.extend(inner(q).iter().map(ident)),
                Rule::with => {
                    for w in inner(q) {
                        let kv = inner(w.clone());
                        match kv.as_slice() {
                            [a, b] => r.with.push((ident(a), ident(b))),
                            _ => return Err(bad(&w, "with")),
                        }
                    }
                }
                Rule::update | Rule::dynamics => {
                    let is_update = q.as_rule() == Rule::update;
                    for e in inner(q) {
                        let eq = self.equation(e)?;
                        if is_update {
                            r.update.push(eq);
                        } else {
                            r.dynamics.push(eq);
                        }
                    }
                }
                Rule::pre | Rule::inv | Rule::post => {
                    let which = q.as_rule();
                    let f = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "constraint"))?;
                    let f = self.formula(f)?;
                    let slot = match which {
                        Rule::pre => &mut r.pre,
                        Rule::inv => &mut r.inv,
                        _ => &mut r.post,
                    };
                    // A repeated clause is conjoined with the earlier one.
                    *slot = Some(match slot.take() {
                        None => f,
                        Some(old) => {
                            let sp = old.span.start..f.span.end;
                            Formula {
                                kind: FormulaKind::And(vec![old, f]),
                                span: sp,
                            }
                        }
                    });
                }
                _ => return Err(bad(&q, "rule part")),
            }
        }
        if let Some(n) = name {
            r.name = n;
        }
        let mut sides = sides.into_iter();
        r.lhs = sides.next().unwrap_or_default();
        r.rhs = sides.next().unwrap_or_default();
        Ok(r)
    }

    fn equation(&mut self, p: Pair<Rule>) -> PResult<Equation> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let [lhs, value] = parts.as_slice() else {
            return Err(bad(&p, "equation"));
        };
        let lhs = self.term(lhs.clone())?;
        let target = lhs.span.clone();
        let TermKind::Fun {
            name,
            order,
            element,
        } = lhs.kind
        else {
            return Err(bad(&p, "equation"));
        };
        Ok(Equation {
            function: name,
            order,
            element,
            target,
            value: self.term(value.clone())?,
            span: sp,
        })
    }

    // ---- locations

    fn loc_def(&mut self, p: Pair<Rule>) -> PResult<LocDef> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let id = parse_nat::<usize>(parts.first().ok_or_else(|| bad(&p, "LOC"))?)?;
        let mut players = Vec::new();
        for q in parts.into_iter().skip(1) {
            players.push(self.player_block(q)?);
        }
        Ok(LocDef {
            id,
            players,
            span: sp,
        })
    }

    fn player_block(&mut self, p: Pair<Rule>) -> PResult<PlayerBlock> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let name = parts.first().map(ident).ok_or_else(|| bad(&p, "PLAYER"))?;
        let mut payoff = None;
        let mut moves = Vec::new();
        for q in parts.into_iter().skip(1) {
            match q.as_rule() {
                Rule::payoff => {
                    let t = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "payoff"))?;
                    payoff = Some(self.term(t)?);
                }
                Rule::moves => {
                    for l in inner(q) {
                        moves.push(self.label(l)?);
                    }
                }
                _ => return Err(bad(&q, "player part")),
            }
        }
        Ok(PlayerBlock {
            name,
            payoff,
            moves,
            span: sp,
        })
    }

    fn label(&mut self, p: Pair<Rule>) -> PResult<LabelDef> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let rule = parts.first().map(ident).ok_or_else(|| bad(&p, "label"))?;
        let mut l = LabelDef {
            rule,
            multiplicity: None,
            intervals: Vec::new(),
            targets: Vec::new(),
            span: sp,
        };
        for q in parts.into_iter().skip(1) {
            match q.as_rule() {
                Rule::mult => {
                    let v = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "mult"))?;
                    let m = match v.as_str() {
                        "1" => Multiplicity::One,
                        "*" => Multiplicity::Any,
                        _ => Multiplicity::All,
                    };
                    l.multiplicity = Some(Num {
                        value: m,
                        span: span(&q),
                    });
                }
                Rule::interval => {
                    let kv = inner(q.clone());
                    let [n, lo, hi] = kv.as_slice() else {
                        return Err(bad(&q, "interval"));
                    };
                    l.intervals
                        .push((ident(n), self.bound(lo.clone())?, self.bound(hi.clone())?));
                }
                Rule::target => l.targets.push(self.target(q)?),
                _ => return Err(bad(&q, "label part")),
            }
        }
        Ok(l)
    }

    fn bound(&mut self, p: Pair<Rule>) -> PResult<Bound> {
        let q = inner(p.clone())
            .into_iter()
            .next()
            .ok_or_else(|| bad(&p, "bound"))?;
        Ok(match q.as_rule() {
            Rule::number => Bound::Num(parse_f64(&q)?),
            _ => Bound::Name(ident(&q)),
        })
    }

    fn target(&mut self, p: Pair<Rule>) -> PResult<TargetDef> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let location = parse_nat::<usize>(parts.first().ok_or_else(|| bad(&p, "target"))?)?;
        let mut t = TargetDef {
            location,
            probability: None,
            draws: Vec::new(),
            span: sp,
        };
        for q in parts.into_iter().skip(1) {
            match q.as_rule() {
                Rule::prob => {
                    let n = inner(q.clone())
                        .into_iter()
                        .next()
                        .ok_or_else(|| bad(&q, "probability"))?;
                    t.probability = Some(Num {
                        value: parse_f64(&n)?,
                        span: span(&n),
                    });
                }
                Rule::draw => {
                    let kv = inner(q.clone());
                    let [n, d] = kv.as_slice() else {
                        return Err(bad(&q, "draw"));
                    };
                    t.draws.push((ident(n), distribution(d)?));
                }
                _ => return Err(bad(&q, "target part")),
            }
        }
        Ok(t)
    }

    fn hist_move(&mut self, p: Pair<Rule>) -> PResult<HistMove> {
        let sp = span(&p);
        let parts = inner(p.clone());
        let (player, rule) = match parts.as_slice() {
            [a, b, ..] => (ident(a), ident(b)),
            _ => return Err(bad(&p, "history move")),
        };
        let mut m = HistMove {
            player,
            rule,
            matching: Vec::new(),
            values: Vec::new(),
            target: Num {
                value: 0,
                span: sp.clone(),
            },
            span: sp,
        };
        for q in parts.into_iter().skip(2) {
            match q.as_rule() {
                Rule::hist_pair => {
                    let kv = inner(q.clone());
                    let [a, b] = kv.as_slice() else {
                        return Err(bad(&q, "matching"));
                    };
                    m.matching.push((ident(a), ident(b)));
                }
                Rule::hist_value => {
                    let kv = inner(q.clone());
                    let [a, b] = kv.as_slice() else {
                        return Err(bad(&q, "value"));
                    };
                    m.values.push((ident(a), parse_f64(b)?));
                }
                Rule::nat => m.target = parse_nat::<usize>(&q)?,
                _ => return Err(bad(&q, "history part")),
            }
        }
        Ok(m)
    }
}

fn distribution(p: &Pair<Rule>) -> PResult<Distribution> {
    let parts = inner(p.clone());
    let name = parts.first().map(|q| q.as_str()).unwrap_or("");
    let mut args = Vec::new();
    for q in parts.iter().skip(1) {
        args.push(parse_f64(q)?);
    }
    let wrong = |n: usize| {
        Diagnostic::new(
            format!(
                "the distribution `{name}` takes {n} argument(s), found {}",
                args.len()
            ),
            span(p),
        )
    };
    Ok(match (name, args.as_slice()) {
        ("normal", [m, s]) => Distribution::Normal {
            mean: *m,
            std_dev: *s,
        },
        ("uniform", [a, b]) => Distribution::Uniform { lo: *a, hi: *b },
        ("exp", [r]) => Distribution::Exponential { rate: *r },
        ("exp", _) => return Err(wrong(1)),
        _ => return Err(wrong(2)),
    })
}
