//! KIF syntax: tokens, S-expressions and the GDL syntax tree with spans.
//!
//! Tokenising follows ggp-base: `;` starts a comment to the end of the
//! line, `(` and `)` are tokens wherever they are (`(init(cell 1 1 b))`),
//! every other run of non-space characters is a symbol, and `\r` is a
//! space. Symbols are compared ASCII case-insensitively (their key is the
//! lower-cased text); the first spelling seen is kept for output. `(p)`
//! is read as ggp-base reads it: a relation (or, as a term, a function) of
//! no arguments, distinct from the proposition (constant) `p`, so that the
//! two never match (with a warning); it is the symbol `(p)`, and printed
//! so. A list may not start with a list. The reader uses an explicit stack, so nesting depth
//! costs no native stack; the tree passes recurse and are limited to
//! [`MAX_DEPTH`] levels.

use std::ops::Range;

use toss_lang::Diagnostic;

/// Deepest nesting of parentheses accepted.
pub const MAX_DEPTH: usize = 256;

pub type Span = Range<usize>;

/// An S-expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SExpr {
    Atom(String, Span),
    /// Items and the span from `(` to `)` inclusive.
    List(Vec<SExpr>, Span),
}

impl SExpr {
    pub fn span(&self) -> Span {
        match self {
            SExpr::Atom(_, s) | SExpr::List(_, s) => s.clone(),
        }
    }
}

/// Reads the top-level S-expressions; stops at the first syntax error.
pub fn read(src: &str) -> Result<Vec<SExpr>, Diagnostic> {
    read_sexprs(src, false)
}

/// Reads S-expressions that are data rather than GDL sentences, such as
/// the messages of the match protocol, in which a list may start with a
/// list (`(START m r ((role x) ...) 10 5)`, `(PLAY m ((mark 1 1) noop))`).
pub fn read_data(src: &str) -> Result<Vec<SExpr>, Diagnostic> {
    read_sexprs(src, true)
}

fn read_sexprs(src: &str, list_head_may_be_list: bool) -> Result<Vec<SExpr>, Diagnostic> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut top = Vec::new();
    // Open lists: start offset and items.
    let mut stack: Vec<(usize, Vec<SExpr>)> = Vec::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                if !list_head_may_be_list
                    && let Some((_, items)) = stack.last()
                    && items.is_empty()
                {
                    return Err(
                        Diagnostic::new("a list may not start with a list", i..i + 1)
                            .with_note("the first item of a list is a relation or function name"),
                    );
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(Diagnostic::new(
                        format!("parentheses nested deeper than {MAX_DEPTH} levels"),
                        i..i + 1,
                    ));
                }
                stack.push((i, Vec::new()));
                i += 1;
            }
            b')' => {
                let Some((start, items)) = stack.pop() else {
                    return Err(Diagnostic::new("unmatched `)`", i..i + 1));
                };
                let e = SExpr::List(items, start..i + 1);
                match stack.last_mut() {
                    Some((_, items)) => items.push(e),
                    None => top.push(e),
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < b.len()
                    && !b[i].is_ascii_whitespace()
                    && !matches!(b[i], b'(' | b')' | b';')
                {
                    i += 1;
                }
                let e = SExpr::Atom(src[start..i].to_string(), start..i);
                match stack.last_mut() {
                    Some((_, items)) => items.push(e),
                    None => top.push(e),
                }
            }
        }
    }
    if let Some((start, _)) = stack.last() {
        return Err(Diagnostic::new("unclosed `(`", *start..*start + 1)
            .with_note("every `(` needs a matching `)`"));
    }
    Ok(top)
}

/// A symbol occurrence: its text as written, its key (lower case), where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub key: String,
    pub span: Span,
}

impl Name {
    fn new(text: &str, span: Span) -> Self {
        Name {
            text: text.to_string(),
            key: text.to_ascii_lowercase(),
            span,
        }
    }
}

/// A term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ATerm {
    Var(Name),
    Const(Name),
    Fn(Name, Vec<ATerm>, Span),
}

impl ATerm {
    pub fn span(&self) -> Span {
        match self {
            ATerm::Var(n) | ATerm::Const(n) => n.span.clone(),
            ATerm::Fn(_, _, s) => s.clone(),
        }
    }

    pub fn vars<'a>(&'a self, out: &mut Vec<&'a Name>) {
        match self {
            ATerm::Var(n) => out.push(n),
            ATerm::Const(_) => {}
            ATerm::Fn(_, a, _) => a.iter().for_each(|t| t.vars(out)),
        }
    }

    pub fn is_ground(&self) -> bool {
        match self {
            ATerm::Var(_) => false,
            ATerm::Const(_) => true,
            ATerm::Fn(_, a, _) => a.iter().all(ATerm::is_ground),
        }
    }

    /// Syntactic equality up to spans and case.
    pub fn same(&self, o: &ATerm) -> bool {
        match (self, o) {
            (ATerm::Var(a), ATerm::Var(b)) | (ATerm::Const(a), ATerm::Const(b)) => a.key == b.key,
            (ATerm::Fn(f, a, _), ATerm::Fn(g, b, _)) => {
                f.key == g.key && a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            _ => false,
        }
    }
}

/// An atomic sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AAtom {
    pub rel: Name,
    pub args: Vec<ATerm>,
    pub span: Span,
}

impl AAtom {
    /// `name/arity`, the identity of a relation.
    pub fn key(&self) -> (String, usize) {
        (self.rel.key.clone(), self.args.len())
    }

    pub fn vars<'a>(&'a self, out: &mut Vec<&'a Name>) {
        self.args.iter().for_each(|t| t.vars(out));
    }
}

/// A body literal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ALit {
    Pos(AAtom),
    Neg(AAtom, Span),
    Distinct(ATerm, ATerm, Span),
    /// `(not (distinct a b))`: not GDL, read as the equality of `a` and `b`.
    Equal(ATerm, ATerm, Span),
    Or(Vec<ALit>, Span),
}

impl ALit {
    pub fn span(&self) -> Span {
        match self {
            ALit::Pos(a) => a.span.clone(),
            ALit::Neg(_, s) | ALit::Distinct(_, _, s) | ALit::Equal(_, _, s) | ALit::Or(_, s) => {
                s.clone()
            }
        }
    }
}

/// A fact or rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AClause {
    pub head: AAtom,
    pub body: Vec<ALit>,
    /// Written with `<=`.
    pub is_rule: bool,
    pub span: Span,
}

/// Converting S-expressions to clauses: errors and warnings.
#[derive(Default)]
pub struct Conv {
    pub errors: Vec<Diagnostic>,
    pub warnings: Vec<Diagnostic>,
}

const DATALOG_KEYWORDS: [&str; 4] = ["not", "or", "distinct", "<="];

/// The error for a list that does not start with a name: empty, or (read
/// by [`read_data`]) starting with a list.
fn list_head_error(items: &[SExpr], span: &Span, what: &str) -> Diagnostic {
    match items.first() {
        None => Diagnostic::new(format!("empty list where {what} is expected"), span.clone()),
        Some(first) => Diagnostic::new("a list may not start with a list", first.span())
            .with_note("the first item of a list is a relation or function name"),
    }
}

fn is_var(s: &str) -> bool {
    s.starts_with('?')
}

impl Conv {
    pub fn clauses(&mut self, forms: &[SExpr]) -> Vec<AClause> {
        let mut out = Vec::new();
        for f in forms {
            if let Some(c) = self.clause(f) {
                out.push(c);
            }
        }
        out
    }

    fn clause(&mut self, f: &SExpr) -> Option<AClause> {
        if let SExpr::List(items, span) = f
            && let Some(SExpr::Atom(h, _)) = items.first()
        {
            let k = h.to_ascii_lowercase();
            if k == "<=" {
                let Some(head) = items.get(1) else {
                    self.errors.push(Diagnostic::new(
                        "a rule `(<= head body...)` needs a head",
                        span.clone(),
                    ));
                    return None;
                };
                let head = self.sentence(head, "the head of a rule")?;
                let mut body = Vec::new();
                for b in &items[2..] {
                    if let Some(l) = self.literal(b, 0) {
                        body.push(l);
                    }
                }
                if items.len() == 2 {
                    self.warnings.push(Diagnostic::new(
                        "rule with an empty body (read as a fact)",
                        span.clone(),
                    ));
                }
                return Some(AClause {
                    head,
                    body,
                    is_rule: true,
                    span: span.clone(),
                });
            }
            if k == "not" || k == "or" || k == "distinct" {
                self.errors.push(Diagnostic::new(
                    format!("`{h}` may appear only in the body of a rule, not at the top level"),
                    span.clone(),
                ));
                return None;
            }
        }
        let head = self.sentence(f, "a fact")?;
        Some(AClause {
            head,
            body: Vec::new(),
            is_rule: false,
            span: f.span(),
        })
    }

    /// An atomic sentence (`what` names the place for messages).
    fn sentence(&mut self, e: &SExpr, what: &str) -> Option<AAtom> {
        match e {
            SExpr::Atom(s, span) => {
                if is_var(s) {
                    self.errors.push(Diagnostic::new(
                        format!("a variable cannot be {what}: a sentence is expected"),
                        span.clone(),
                    ));
                    return None;
                }
                if self.keyword_check(s, span) {
                    return None;
                }
                Some(AAtom {
                    rel: Name::new(s, span.clone()),
                    args: Vec::new(),
                    span: span.clone(),
                })
            }
            SExpr::List(items, span) => {
                let Some(SExpr::Atom(h, hspan)) = items.first() else {
                    self.errors.push(list_head_error(items, span, what));
                    return None;
                };
                if is_var(h) {
                    self.errors.push(Diagnostic::new(
                        "a relation name cannot be a variable",
                        hspan.clone(),
                    ));
                    return None;
                }
                if DATALOG_KEYWORDS.contains(&h.to_ascii_lowercase().as_str()) {
                    self.errors.push(Diagnostic::new(
                        format!("`{h}` cannot be {what}"),
                        span.clone(),
                    ));
                    return None;
                }
                let name = if items.len() == 1 {
                    self.warnings.push(Diagnostic::new(
                        format!("zero-arity relation `({h})` written in parentheses: as in ggp-base, it is not the bare `{h}`"),
                        span.clone(),
                    ));
                    format!("({h})")
                } else {
                    h.clone()
                };
                let mut args = Vec::new();
                for a in &items[1..] {
                    args.push(self.term(a, 0)?);
                }
                Some(AAtom {
                    rel: Name::new(&name, hspan.clone()),
                    args,
                    span: span.clone(),
                })
            }
        }
    }

    /// Reports a Datalog keyword used as a name; true if it was one.
    fn keyword_check(&mut self, s: &str, span: &Span) -> bool {
        if DATALOG_KEYWORDS.contains(&s.to_ascii_lowercase().as_str()) {
            self.errors.push(Diagnostic::new(
                format!("keyword `{s}` used as a constant or name"),
                span.clone(),
            ));
            return true;
        }
        false
    }

    fn term(&mut self, e: &SExpr, depth: usize) -> Option<ATerm> {
        if depth > MAX_DEPTH {
            self.errors
                .push(Diagnostic::new("term nested too deeply", e.span()));
            return None;
        }
        match e {
            SExpr::Atom(s, span) => {
                if is_var(s) {
                    if s.len() == 1 {
                        self.errors.push(Diagnostic::new(
                            "a variable needs a name after `?`",
                            span.clone(),
                        ));
                        return None;
                    }
                    return Some(ATerm::Var(Name::new(s, span.clone())));
                }
                if self.keyword_check(s, span) {
                    return None;
                }
                Some(ATerm::Const(Name::new(s, span.clone())))
            }
            SExpr::List(items, span) => {
                let Some(SExpr::Atom(h, hspan)) = items.first() else {
                    self.errors.push(list_head_error(items, span, "a term"));
                    return None;
                };
                if is_var(h) {
                    self.errors.push(Diagnostic::new(
                        "a function name cannot be a variable",
                        hspan.clone(),
                    ));
                    return None;
                }
                if self.keyword_check(h, hspan) {
                    return None;
                }
                if items.len() == 1 {
                    // A function of no arguments (ggp-base's reading).
                    self.warnings.push(Diagnostic::new(
                        format!("function `({h})` of no arguments written in parentheses: as in ggp-base, it is not the constant `{h}`"),
                        span.clone(),
                    ));
                    return Some(ATerm::Const(Name::new(&format!("({h})"), hspan.clone())));
                }
                let mut args = Vec::new();
                for a in &items[1..] {
                    args.push(self.term(a, depth + 1)?);
                }
                Some(ATerm::Fn(Name::new(h, hspan.clone()), args, span.clone()))
            }
        }
    }

    /// `(not (distinct a b))` (`inner` is the `distinct`, `span` the
    /// whole): not GDL, but servers send it; read, with a warning, as
    /// ggp-base's prover reads it: `a` and `b` are the same term.
    fn equality(&mut self, inner: &SExpr, span: &Span, depth: usize) -> Option<ALit> {
        let Some(ALit::Distinct(a, b, _)) = self.literal(inner, depth + 1) else {
            return None;
        };
        self.warnings.push(
            Diagnostic::new(
                "`(not (distinct a b))` is not GDL; read as equality: `a` and `b` are the same term",
                span.clone(),
            )
            .with_note("GDL negates only atomic sentences; ggp-base's prover reads this as equality"),
        );
        Some(ALit::Equal(a, b, span.clone()))
    }

    fn literal(&mut self, e: &SExpr, depth: usize) -> Option<ALit> {
        if depth > MAX_DEPTH {
            self.errors
                .push(Diagnostic::new("literal nested too deeply", e.span()));
            return None;
        }
        if let SExpr::List(items, span) = e
            && let Some(SExpr::Atom(h, _)) = items.first()
        {
            match h.to_ascii_lowercase().as_str() {
                "not" => {
                    if items.len() != 2 {
                        self.errors.push(Diagnostic::new(
                            "`not` takes exactly one atomic sentence",
                            span.clone(),
                        ));
                        return None;
                    }
                    if let SExpr::List(inner, ispan) = &items[1]
                        && let Some(SExpr::Atom(ih, _)) = inner.first()
                    {
                        match ih.to_ascii_lowercase().as_str() {
                            "distinct" => return self.equality(&items[1], span, depth),
                            "not" | "or" => {
                                self.errors.push(Diagnostic::new(
                                    format!("`not` must contain an atomic sentence, not `{ih}`"),
                                    ispan.clone(),
                                ));
                                return None;
                            }
                            _ => {}
                        }
                    }
                    let a = self.sentence(&items[1], "negated")?;
                    return Some(ALit::Neg(a, span.clone()));
                }
                "distinct" => {
                    if items.len() != 3 {
                        self.errors.push(Diagnostic::new(
                            "`distinct` takes exactly two terms",
                            span.clone(),
                        ));
                        return None;
                    }
                    let a = self.term(&items[1], 0)?;
                    let b = self.term(&items[2], 0)?;
                    return Some(ALit::Distinct(a, b, span.clone()));
                }
                "or" => {
                    if items.len() == 1 {
                        self.warnings.push(Diagnostic::new(
                            "empty disjunction `(or)` is false",
                            span.clone(),
                        ));
                    }
                    let mut ls = Vec::new();
                    for x in &items[1..] {
                        if matches!(x, SExpr::List(i, _) if matches!(i.first(), Some(SExpr::Atom(h, _)) if h.eq_ignore_ascii_case("or")))
                        {
                            self.warnings
                                .push(Diagnostic::new("nested disjunction", x.span()));
                        }
                        ls.push(self.literal(x, depth + 1)?);
                    }
                    return Some(ALit::Or(ls, span.clone()));
                }
                _ => {}
            }
        }
        let a = self.sentence(e, "a body literal")?;
        Some(ALit::Pos(a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_lists_may_start_with_a_list_descriptions_may_not() {
        let text = "(PLAY m ((mark 1 1) noop))";
        let e = read(text).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.span.clone()),
            ("a list may not start with a list", 9..10)
        );
        let forms = read_data(text).unwrap();
        let SExpr::List(items, _) = &forms[0] else {
            panic!("{forms:?}")
        };
        assert!(matches!(&items[2], SExpr::List(moves, s) if moves.len() == 2 && *s == (8..25)));
        // Rules read as data are still checked: the error points at the
        // inner list.
        let forms = read_data("((role x)) ((init (p)) q)").unwrap();
        let mut conv = Conv::default();
        conv.clauses(&forms);
        let spans: Vec<(String, Span)> = conv
            .errors
            .iter()
            .map(|d| (d.message.clone(), d.span.clone()))
            .collect();
        assert_eq!(
            spans,
            [
                ("a list may not start with a list".to_string(), 1..9),
                ("a list may not start with a list".to_string(), 12..22),
            ]
        );
    }
}
