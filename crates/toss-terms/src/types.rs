//! Types (spec 2.1): polymorphic types, substitutions and their
//! composition (2.1.1-2.1.3), the unification algorithm with the occurs
//! check (2.1.4-2.1.5, Algorithm 1), internal type names and the lexer of
//! the internal format (2.1.6).
//!
//! Choices where the spec leaves room:
//! - A type symbol is identified by its name and its arity together, so
//!   `list(a)` and `list(a, b)` clash like two different symbols.
//! - A functional type `R1, ..., Rn -> R` has `n >= 1` (the symbols
//!   `h_n` start at `h_1`); [`Type::fun`] with no argument gives `R` itself.
//! - When both sides of a pair are type variables, Algorithm 1 may bind
//!   either; [`mgu2_keeping`] binds the one not in a given set of variables
//!   to keep (type reconstruction keeps the user's variables, which gives
//!   the substitution of the spec's example in 2.3.3), otherwise the first.
//! - The characters a symbol or variable name may not contain are
//!   `@ ( ) [ ] , " '` and white space (the spec's list, where the lexer of
//!   the internal format removes white space anyway).

use std::collections::BTreeSet;
use std::fmt;

/// A type (an element of the set 𝒢 of 2.1.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    /// A type variable (an element of Θ).
    Var(String),
    /// A type symbol of Γ applied to as many types as its arity.
    Sym(String, Vec<Type>),
    /// A functional type `R1, ..., Rn -> R` (the symbol `h_n`), `n >= 1`.
    Fun(Vec<Type>, Box<Type>),
}

impl Type {
    /// The type variable `name`.
    pub fn var(name: impl Into<String>) -> Type {
        Type::Var(name.into())
    }

    /// The type symbol `name` applied to `args` (none for a constant).
    pub fn sym(name: impl Into<String>, args: Vec<Type>) -> Type {
        Type::Sym(name.into(), args)
    }

    /// The functional type `args -> result`; with no argument, `result`
    /// itself (there is no `h_0`).
    pub fn fun(args: Vec<Type>, result: Type) -> Type {
        if args.is_empty() {
            result
        } else {
            Type::Fun(args, Box::new(result))
        }
    }

    /// `tyarity` of 2.1.1: the number of arguments of a functional type,
    /// zero for a simple type.
    pub fn tyarity(&self) -> usize {
        match self {
            Type::Fun(args, _) => args.len(),
            _ => 0,
        }
    }

    /// The result `R` of a functional type `... -> R`; a simple type is its
    /// own result (the `collapse` of 2.3.3).
    pub fn collapse(&self) -> &Type {
        match self {
            Type::Fun(_, result) => result,
            other => other,
        }
    }

    /// `TypeVar` of 2.1.1: the type variables occurring in the type.
    pub fn type_vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_vars(&mut out);
        out
    }

    pub(crate) fn collect_vars(&self, out: &mut BTreeSet<String>) {
        match self {
            Type::Var(x) => {
                out.insert(x.clone());
            }
            Type::Sym(_, args) => args.iter().for_each(|a| a.collect_vars(out)),
            Type::Fun(args, result) => {
                args.iter().for_each(|a| a.collect_vars(out));
                result.collect_vars(out);
            }
        }
    }

    /// Whether the type variable `x` occurs in the type.
    pub fn occurs(&self, x: &str) -> bool {
        match self {
            Type::Var(y) => x == y,
            Type::Sym(_, args) => args.iter().any(|a| a.occurs(x)),
            Type::Fun(args, result) => args.iter().any(|a| a.occurs(x)) || result.occurs(x),
        }
    }

    /// Replaces every occurrence of the variable `x` by `t` (the
    /// one-binding substitution `x <- t` of Algorithm 1).
    fn replace(&self, x: &str, t: &Type) -> Type {
        match self {
            Type::Var(y) if y == x => t.clone(),
            Type::Var(_) => self.clone(),
            Type::Sym(name, args) => {
                Type::Sym(name.clone(), args.iter().map(|a| a.replace(x, t)).collect())
            }
            Type::Fun(args, result) => Type::Fun(
                args.iter().map(|a| a.replace(x, t)).collect(),
                Box::new(result.replace(x, t)),
            ),
        }
    }

    /// The head of the type for the clash test of Algorithm 1: a symbol's
    /// name and arity, or the arity of a functional type.
    fn head(&self) -> Option<(&str, usize)> {
        match self {
            Type::Var(_) => None,
            Type::Sym(name, args) => Some((name, args.len())),
            Type::Fun(args, _) => Some(("@F", args.len())),
        }
    }

    /// The children of the type as a tree (a functional type's arguments,
    /// then its result).
    fn children(&self) -> Vec<&Type> {
        match self {
            Type::Var(_) => Vec::new(),
            Type::Sym(_, args) => args.iter().collect(),
            Type::Fun(args, result) => args.iter().chain(std::iter::once(&**result)).collect(),
        }
    }

    /// `TypeName` of 2.1.6.
    pub fn type_name(&self) -> String {
        let mut out = String::new();
        self.write_name(&mut out);
        out
    }

    fn write_name(&self, out: &mut String) {
        match self {
            Type::Var(x) => {
                out.push_str("@?");
                out.push_str(x);
            }
            Type::Sym(name, args) => {
                out.push_str(name);
                if !args.is_empty() {
                    out.push('(');
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            out.push(',');
                        }
                        a.write_name(out);
                    }
                    out.push(')');
                }
            }
            // The result comes first: `@F(R, R1, ..., Rn)`.
            Type::Fun(args, result) => {
                out.push_str("@F(");
                result.write_name(out);
                for a in args {
                    out.push(',');
                    a.write_name(out);
                }
                out.push(')');
            }
        }
    }
}

/// The spec's notation: `list(a)`, `a, b -> pair(a, b)`, variables bare.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Var(x) => write!(f, "{x}"),
            Type::Sym(name, args) => {
                write!(f, "{name}")?;
                if !args.is_empty() {
                    write!(f, "(")?;
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            write!(f, ", ")?;
                        }
                        write!(f, "{a}")?;
                    }
                    write!(f, ")")?;
                }
                Ok(())
            }
            Type::Fun(args, result) => {
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    // A functional argument needs brackets to stay readable.
                    if matches!(a, Type::Fun(..)) {
                        write!(f, "({a})")?;
                    } else {
                        write!(f, "{a}")?;
                    }
                }
                write!(f, " -> {result}")
            }
        }
    }
}

/// Whether `name` may be a `SymbolName` or the rest of a variable's name
/// (2.1.6): nonempty, none of `@ ( ) [ ] , " '`, no white space.
pub fn valid_symbol_name(name: &str) -> bool {
    !name.is_empty()
        && !name
            .chars()
            .any(|c| "@()[],\"'".contains(c) || c.is_whitespace() || c.is_control())
}

/// A substitution (2.1.2) in the representation of Algorithm 1: a finite
/// list of bindings `x <- t`, in the order they were appended. Applying it
/// replaces each variable by its binding at once (the bindings are kept
/// idempotent: no bound variable occurs in a binding).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subst {
    bindings: Vec<(String, Type)>,
}

impl Subst {
    /// The identity substitution.
    pub fn new() -> Subst {
        Subst::default()
    }

    /// The bindings `x <- t` in order.
    pub fn bindings(&self) -> &[(String, Type)] {
        &self.bindings
    }

    /// `σ(x)`: the binding of `x`, or `x` itself outside `Dom(σ)`.
    pub fn get(&self, x: &str) -> Option<&Type> {
        self.bindings.iter().find(|(y, _)| y == x).map(|(_, t)| t)
    }

    /// `Dom(σ)` of 2.1.2 (variables bound to themselves are not in it).
    pub fn domain(&self) -> BTreeSet<String> {
        self.bindings
            .iter()
            .filter(|(x, t)| *t != Type::Var(x.clone()))
            .map(|(x, _)| x.clone())
            .collect()
    }

    /// Adds the binding `x <- t` (replacing an earlier one for `x`).
    pub fn bind(&mut self, x: impl Into<String>, t: Type) {
        let x = x.into();
        match self.bindings.iter_mut().find(|(y, _)| *y == x) {
            Some(slot) => slot.1 = t,
            None => self.bindings.push((x, t)),
        }
    }

    /// `σ̄` of 2.1.2: the substitution extended to all types.
    pub fn apply(&self, t: &Type) -> Type {
        match t {
            Type::Var(x) => self.get(x).cloned().unwrap_or_else(|| t.clone()),
            Type::Sym(name, args) => {
                Type::Sym(name.clone(), args.iter().map(|a| self.apply(a)).collect())
            }
            Type::Fun(args, result) => Type::Fun(
                args.iter().map(|a| self.apply(a)).collect(),
                Box::new(self.apply(result)),
            ),
        }
    }

    /// The composition `σ̄ ∘ δ̄` of 2.1.3, with `self = σ`, `delta = δ`:
    /// first `δ`, then `σ`.
    pub fn compose(&self, delta: &Subst) -> Subst {
        let mut out = Subst::new();
        for (x, t) in &delta.bindings {
            out.bindings.push((x.clone(), self.apply(t)));
        }
        for (x, t) in &self.bindings {
            if delta.get(x).is_none() {
                out.bindings.push((x.clone(), t.clone()));
            }
        }
        out.bindings.retain(|(x, t)| *t != Type::Var(x.clone()));
        out
    }

    /// The substitution restricted to `vars` (Step Three of 2.3.3).
    pub fn restrict(&self, vars: &BTreeSet<String>) -> Subst {
        Subst {
            bindings: self
                .bindings
                .iter()
                .filter(|(x, _)| vars.contains(x))
                .cloned()
                .collect(),
        }
    }

    /// Whether `self` is more general than `other` (2.1.3): some `δ` with
    /// `δ̄ ∘ self = other`, checked on the union of both domains.
    pub fn more_general_than(&self, other: &Subst) -> bool {
        let mut dom = self.domain();
        dom.extend(other.domain());
        let mut delta = Subst::new();
        dom.iter().all(|x| {
            let mine = self.apply(&Type::var(x.as_str()));
            let theirs = other.apply(&Type::var(x.as_str()));
            match_into(&mine, &theirs, &mut delta)
        })
    }
}

/// Extends `delta` so that `δ̄(pattern) = target`, or says it cannot.
fn match_into(pattern: &Type, target: &Type, delta: &mut Subst) -> bool {
    match pattern {
        Type::Var(x) => match delta.get(x) {
            Some(bound) => bound == target,
            None => {
                delta.bind(x.clone(), target.clone());
                true
            }
        },
        _ => {
            pattern.head() == target.head()
                && pattern
                    .children()
                    .into_iter()
                    .zip(target.children())
                    .all(|(p, t)| match_into(p, t, delta))
        }
    }
}

/// `{x <- list(a), ...}`, in the order of the bindings.
impl fmt::Display for Subst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{")?;
        for (i, (x, t)) in self.bindings.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{x} <- {t}")?;
        }
        write!(f, "}}")
    }
}

/// Why a set of pairs cannot be unified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnifyError {
    /// The occurs check: `x` would have to equal a type that contains it.
    Occurs { var: String, ty: Type },
    /// Two different symbols (or arities) at corresponding places.
    Clash { left: Type, right: Type },
}

impl fmt::Display for UnifyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnifyError::Occurs { var, ty } => write!(
                f,
                "the type variable {var} would have to equal {ty}, which contains it"
            ),
            UnifyError::Clash { left, right } => write!(f, "cannot unify {left} with {right}"),
        }
    }
}

impl std::error::Error for UnifyError {}

/// Algorithm 1: a most general unifier of the pairs `{t_i, s_i}` (an
/// element of `MGU2`), or why there is none.
pub fn mgu2(pairs: &[(Type, Type)]) -> Result<Subst, UnifyError> {
    mgu2_keeping(pairs, &BTreeSet::new())
}

/// Algorithm 1, binding a variable of `keep` only when the other side is
/// not a variable outside `keep` (see the module doc).
///
/// The two `for all` loops of the algorithm are run as one worklist: a
/// pair with a variable side is eliminated, a pair of two applications is
/// decomposed, which is the same sequence of operations in a fair order.
pub fn mgu2_keeping(pairs: &[(Type, Type)], keep: &BTreeSet<String>) -> Result<Subst, UnifyError> {
    let mut s: std::collections::VecDeque<(Type, Type)> = pairs.iter().cloned().collect();
    let mut subst = Subst::new();
    while let Some((t, u)) = s.pop_front() {
        let (x, other) = match (&t, &u) {
            (Type::Var(a), Type::Var(b)) => {
                if a == b {
                    continue;
                }
                if keep.contains(a) && !keep.contains(b) {
                    (b.clone(), t.clone())
                } else {
                    (a.clone(), u.clone())
                }
            }
            (Type::Var(a), _) => (a.clone(), u.clone()),
            (_, Type::Var(b)) => (b.clone(), t.clone()),
            _ => {
                if t.head() != u.head() {
                    return Err(UnifyError::Clash { left: t, right: u });
                }
                // Appended at the end, as the algorithm appends to S.
                for (a, b) in t.children().into_iter().zip(u.children()) {
                    s.push_back((a.clone(), b.clone()));
                }
                continue;
            }
        };
        if other.occurs(&x) {
            return Err(UnifyError::Occurs { var: x, ty: other });
        }
        // apply x <- t to S, apply x <- t to subst, append x <- t to subst.
        for pair in s.iter_mut() {
            pair.0 = pair.0.replace(&x, &other);
            pair.1 = pair.1.replace(&x, &other);
        }
        for binding in subst.bindings.iter_mut() {
            binding.1 = binding.1.replace(&x, &other);
        }
        subst.bindings.push((x, other));
    }
    Ok(subst)
}

/// A token of the internal format (2.1.6, "Internal Format Lexer").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Token {
    /// One of the delimiters `( ) , [ ] @F @L @V @Y @T @: @' @?`.
    Delim(&'static str),
    /// A maximal run of other characters (white space removed).
    Name(String),
}

/// Why internal-format text could not be read; `at` is a byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InternalError {
    pub at: usize,
    pub message: String,
}

impl fmt::Display for InternalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.at, self.message)
    }
}

impl std::error::Error for InternalError {}

const DELIMS: [&str; 13] = [
    "@F", "@L", "@V", "@Y", "@T", "@:", "@'", "@?", "(", ")", ",", "[", "]",
];

/// The internal-format lexer: white space removed, the text split on the
/// delimiters. Each token comes with its byte offset. An `@` that starts
/// no delimiter is an error (no name may contain `@`).
pub fn lex_internal(text: &str) -> Result<Vec<(usize, Token)>, InternalError> {
    let mut out = Vec::new();
    let mut name = String::new();
    let mut name_at = 0;
    let mut i = 0;
    let flush = |name: &mut String, at: usize, out: &mut Vec<(usize, Token)>| {
        if !name.is_empty() {
            out.push((at, Token::Name(std::mem::take(name))));
        }
    };
    while i < text.len() {
        let rest = &text[i..];
        if let Some(d) = DELIMS.iter().find(|d| rest.starts_with(**d)) {
            flush(&mut name, name_at, &mut out);
            out.push((i, Token::Delim(d)));
            i += d.len();
            continue;
        }
        let Some(c) = rest.chars().next() else { break };
        if c == '@' {
            return Err(InternalError {
                at: i,
                message: "`@` starts no delimiter of the internal format".into(),
            });
        }
        if !c.is_whitespace() {
            if name.is_empty() {
                name_at = i;
            }
            name.push(c);
        }
        i += c.len_utf8();
    }
    flush(&mut name, name_at, &mut out);
    Ok(out)
}

/// Deepest type the internal-format reader accepts: the reader recurses.
pub const MAX_TYPE_DEPTH: usize = 256;

/// Reads a `TypeName` back into its type (the inverse of
/// [`Type::type_name`]).
pub fn parse_type_name(text: &str) -> Result<Type, InternalError> {
    let tokens = lex_internal(text)?;
    let mut pos = 0;
    let t = read_type(&tokens, &mut pos, text.len(), 0)?;
    match tokens.get(pos) {
        None => Ok(t),
        Some((at, tok)) => Err(InternalError {
            at: *at,
            message: format!("unexpected {} after the type", describe(tok)),
        }),
    }
}

fn describe(tok: &Token) -> String {
    match tok {
        Token::Delim(d) => format!("`{d}`"),
        Token::Name(n) => format!("name `{n}`"),
    }
}

pub(crate) fn read_type(
    tokens: &[(usize, Token)],
    pos: &mut usize,
    end: usize,
    depth: usize,
) -> Result<Type, InternalError> {
    let at = tokens.get(*pos).map_or(end, |(at, _)| *at);
    if depth > MAX_TYPE_DEPTH {
        return Err(InternalError {
            at,
            message: format!("types nest deeper than {MAX_TYPE_DEPTH}"),
        });
    }
    let err = |at: usize, message: String| Err(InternalError { at, message });
    match tokens.get(*pos) {
        Some((_, Token::Delim("@?"))) => {
            *pos += 1;
            match tokens.get(*pos) {
                Some((_, Token::Name(n))) => {
                    *pos += 1;
                    Ok(Type::Var(n.clone()))
                }
                _ => err(at, "`@?` must be followed by a variable name".into()),
            }
        }
        Some((_, Token::Delim("@F"))) => {
            *pos += 1;
            let mut parts = read_args(tokens, pos, end, depth)?;
            if parts.len() < 2 {
                return err(
                    at,
                    "a functional type `@F(...)` needs a result and at least one argument".into(),
                );
            }
            let result = parts.remove(0);
            Ok(Type::Fun(parts, Box::new(result)))
        }
        Some((_, Token::Name(n))) => {
            *pos += 1;
            let args = if matches!(tokens.get(*pos), Some((_, Token::Delim("(")))) {
                read_args(tokens, pos, end, depth)?
            } else {
                Vec::new()
            };
            Ok(Type::Sym(n.clone(), args))
        }
        Some((at, tok)) => err(*at, format!("expected a type, found {}", describe(tok))),
        None => err(end, "expected a type, found the end".into()),
    }
}

/// `( t1 , ... , tn )`, at least one type.
fn read_args(
    tokens: &[(usize, Token)],
    pos: &mut usize,
    end: usize,
    depth: usize,
) -> Result<Vec<Type>, InternalError> {
    let at = tokens.get(*pos).map_or(end, |(at, _)| *at);
    if !matches!(tokens.get(*pos), Some((_, Token::Delim("(")))) {
        return Err(InternalError {
            at,
            message: "expected `(`".into(),
        });
    }
    *pos += 1;
    let mut args = vec![read_type(tokens, pos, end, depth + 1)?];
    loop {
        match tokens.get(*pos) {
            Some((_, Token::Delim(","))) => {
                *pos += 1;
                args.push(read_type(tokens, pos, end, depth + 1)?);
            }
            Some((_, Token::Delim(")"))) => {
                *pos += 1;
                return Ok(args);
            }
            Some((at, tok)) => {
                return Err(InternalError {
                    at: *at,
                    message: format!("expected `,` or `)`, found {}", describe(tok)),
                });
            }
            None => {
                return Err(InternalError {
                    at: end,
                    message: "expected `,` or `)`, found the end".into(),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: &str) -> Type {
        Type::var(x)
    }
    fn s(n: &str, a: Vec<Type>) -> Type {
        Type::sym(n, a)
    }

    #[test]
    fn type_names_of_2_1_6() {
        // list(a): a node `list` of arity 1 over the variable `a`.
        let list_a = s("list", vec![v("a")]);
        assert_eq!(list_a.type_name(), "list(@?a)");
        assert_eq!(s("int", vec![]).type_name(), "int");
        // Functional types put the result first.
        let f = Type::fun(
            vec![v("a"), s("list", vec![v("a")])],
            s("list", vec![v("a")]),
        );
        assert_eq!(f.type_name(), "@F(list(@?a),@?a,list(@?a))");
        assert_eq!(f.tyarity(), 2);
        assert_eq!(list_a.tyarity(), 0);
    }

    #[test]
    fn lexer_of_the_spec_example() {
        // `list (@? a)` lexes to: name, delimiter, delimiter, name, delimiter.
        let toks: Vec<Token> = lex_internal("list (@? a)")
            .expect("lexes")
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        assert_eq!(
            toks,
            vec![
                Token::Name("list".into()),
                Token::Delim("("),
                Token::Delim("@?"),
                Token::Name("a".into()),
                Token::Delim(")"),
            ]
        );
        assert_eq!(
            parse_type_name("list (@? a)").expect("parses"),
            s("list", vec![v("a")])
        );
    }

    #[test]
    fn lexer_errors_are_located() {
        let e = lex_internal("list(@x)").expect_err("bad @");
        assert_eq!(e.at, 5);
        let e = parse_type_name("list(@?a").expect_err("unclosed");
        assert_eq!(e.at, 8);
        let e = parse_type_name("@F(int)").expect_err("no argument");
        assert!(e.message.contains("at least one argument"), "{e}");
        let deep = "l(".repeat(10_000);
        assert!(parse_type_name(&deep).is_err());
    }

    #[test]
    fn unification_finds_a_most_general_unifier() {
        // {pair(a, list(b)), pair(int, c)}
        let t = s("pair", vec![v("a"), s("list", vec![v("b")])]);
        let u = s("pair", vec![s("int", vec![]), v("c")]);
        let sigma = mgu2(&[(t.clone(), u.clone())]).expect("unifies");
        assert_eq!(sigma.apply(&t), sigma.apply(&u));
        assert_eq!(sigma.apply(&v("c")), s("list", vec![v("b")]));
        // It is more general than another unifier.
        let mut other = Subst::new();
        other.bind("a", s("int", vec![]));
        other.bind("b", s("bool", vec![]));
        other.bind("c", s("list", vec![s("bool", vec![])]));
        assert_eq!(other.apply(&t), other.apply(&u));
        assert!(sigma.more_general_than(&other));
        assert!(!other.more_general_than(&sigma));
    }

    #[test]
    fn occurs_check_fails() {
        let e = mgu2(&[(v("a"), s("list", vec![v("a")]))]).expect_err("occurs");
        assert_eq!(
            e,
            UnifyError::Occurs {
                var: "a".into(),
                ty: s("list", vec![v("a")])
            }
        );
        // Through a chain: a = list(b), b = a.
        assert!(matches!(
            mgu2(&[(v("a"), s("list", vec![v("b")])), (v("b"), v("a"))]),
            Err(UnifyError::Occurs { .. })
        ));
    }

    #[test]
    fn clash_fails() {
        let e = mgu2(&[(
            s("list", vec![s("int", vec![])]),
            s("list", vec![s("bool", vec![])]),
        )])
        .expect_err("clash");
        assert_eq!(
            e,
            UnifyError::Clash {
                left: s("int", vec![]),
                right: s("bool", vec![])
            }
        );
        // A functional type against a simple one, and different arities.
        assert!(mgu2(&[(Type::fun(vec![v("a")], v("b")), s("int", vec![]))]).is_err());
        assert!(mgu2(&[(s("p", vec![v("a")]), s("p", vec![v("a"), v("b")]))]).is_err());
    }

    #[test]
    fn composition_applies_the_right_one_first() {
        let mut sigma = Subst::new();
        sigma.bind("b", s("int", vec![]));
        let mut delta = Subst::new();
        delta.bind("a", s("list", vec![v("b")]));
        let comp = sigma.compose(&delta);
        for t in [v("a"), v("b"), s("pair", vec![v("a"), v("b")])] {
            assert_eq!(comp.apply(&t), sigma.apply(&delta.apply(&t)));
        }
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        fn arb_type() -> impl Strategy<Value = Type> {
            let leaf = prop_oneof![
                "[a-e]".prop_map(Type::Var),
                "(int|bool|nat)".prop_map(|n| Type::Sym(n, vec![])),
            ];
            leaf.prop_recursive(4, 24, 3, |inner| {
                prop_oneof![
                    (
                        "(list|pair|tree)",
                        prop::collection::vec(inner.clone(), 1..3)
                    )
                        .prop_map(|(n, a)| Type::Sym(n, a)),
                    (prop::collection::vec(inner.clone(), 1..3), inner)
                        .prop_map(|(a, r)| Type::fun(a, r)),
                ]
            })
        }

        proptest! {
            #[test]
            fn type_names_read_back(t in arb_type()) {
                prop_assert_eq!(parse_type_name(&t.type_name()).expect("reads"), t);
            }

            #[test]
            fn unifiers_unify(t in arb_type(), u in arb_type()) {
                if let Ok(sigma) = mgu2(&[(t.clone(), u.clone())]) {
                    prop_assert_eq!(sigma.apply(&t), sigma.apply(&u));
                    // Idempotent: applying twice changes nothing.
                    let once = sigma.apply(&t);
                    prop_assert_eq!(sigma.apply(&once), once);
                }
            }

            #[test]
            fn a_unifier_of_an_instance_is_found(t in arb_type(), u in arb_type()) {
                // t and t with some variables replaced by u always unify.
                let mut inst = Subst::new();
                inst.bind("a", u);
                let t2 = inst.apply(&t);
                let sigma = mgu2(&[(t.clone(), t2.clone())]);
                // Only the occurs check can fail (when u contains a).
                if let Err(e) = sigma {
                    let occurs = matches!(e, UnifyError::Occurs { .. });
                    prop_assert!(occurs, "{}", e);
                }
            }
        }
    }
}
