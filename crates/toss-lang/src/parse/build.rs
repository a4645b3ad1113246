//! The AST builder's base: the `Builder` and its depth limit, and the
//! helpers every part of it shares (spans, names, numbers, variables).

use pest::iterators::Pair;

use crate::ast::*;
use crate::diagnostic::Diagnostic;

use super::{MAX_TREE_DEPTH, PResult, Rule};

pub(super) struct Builder {
    /// Current depth of the tree being built.
    pub(super) depth: usize,
}

pub(super) fn span(p: &Pair<Rule>) -> Span {
    p.as_span().start()..p.as_span().end()
}

pub(super) fn ident(p: &Pair<Rule>) -> Ident {
    Ident {
        name: p.as_str().to_string(),
        span: span(p),
    }
}

/// Inner pairs without keyword tokens.
pub(super) fn inner<'a>(p: Pair<'a, Rule>) -> Vec<Pair<'a, Rule>> {
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

pub(super) fn bad(p: &Pair<Rule>, what: &str) -> Diagnostic {
    Diagnostic::new(format!("internal parser error: unexpected {what}"), span(p))
}

pub(super) fn parse_f64(p: &Pair<Rule>) -> PResult<f64> {
    p.as_str()
        .parse::<f64>()
        .map_err(|_| Diagnostic::new(format!("invalid number `{}`", p.as_str()), span(p)))
}

pub(super) fn parse_nat<T: std::str::FromStr>(p: &Pair<Rule>) -> PResult<Num<T>> {
    p.as_str()
        .parse::<T>()
        .map(|value| Num {
            value,
            span: span(p),
        })
        .map_err(|_| Diagnostic::new(format!("number `{}` is too large", p.as_str()), span(p)))
}

pub(super) fn var_decl(p: &Pair<Rule>) -> VarDecl {
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

pub(super) fn real_var_ident(p: &Pair<Rule>) -> Ident {
    let s = span(p);
    Ident {
        name: p.as_str().trim_start_matches(':').to_string(),
        span: s,
    }
}

impl Builder {
    pub(super) fn enter(&mut self, p: &Pair<Rule>, extra: usize) -> PResult<()> {
        self.depth += 1 + extra;
        if self.depth > MAX_TREE_DEPTH {
            return Err(Diagnostic::new(
                format!("expression too deeply nested (more than {MAX_TREE_DEPTH} levels)"),
                span(p),
            ));
        }
        Ok(())
    }

    pub(super) fn leave(&mut self, extra: usize) {
        self.depth -= 1 + extra;
    }
}
