//! Syntax errors in words: what each grammar rule is called, what was
//! expected and what was found instead.

use pest::error::{ErrorVariant, InputLocation};

use crate::diagnostic::Diagnostic;

use super::Rule;

pub(super) fn describe(rule: Rule) -> Option<&'static str> {
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
        R::repetition => "`REPETITION`",
        R::rep_item => "a relation name or `:function`",
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

pub(super) fn syntax_error(
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

pub(super) fn found_at(source: &str, pos: usize) -> String {
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

pub(super) fn describe_found(found: &str) -> String {
    match found {
        "" => "end of input".to_string(),
        "\0" => "a NUL byte".to_string(),
        s => format!("`{}`", s.escape_debug()),
    }
}
