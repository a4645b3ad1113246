//! Terms (spec 2.3.1): trees of term symbols and term variables with a
//! `vtype` for the variables, the signature giving each term symbol its
//! type and kind (constructor or function name, 2.4.1), `TermVar`, the
//! internal display format (2.3.4) with the coding of strings, lists,
//! types and terms as terms, and a reader for the functional notation
//! `f(t1, ..., tn)`.
//!
//! Choices: a string is coded with the basic definitions as `string from`
//! a list of `char code` with eight bits, the most significant first, and
//! holds UTF-8 bytes; a term that codes bytes which are not UTF-8 is shown
//! as an ordinary term.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::rc::Rc;

use crate::decl::names;
use crate::diag::Located;
use crate::syntax::{Definitions, SyntaxDef, SyntaxKind, display};
use crate::types::Type;

/// What a node of a term holds. Names are shared strings: copying a
/// term (or building one from a shared term) copies no name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Head {
    /// A term symbol of Σ.
    Sym(Rc<str>),
    /// A term variable of V.
    Var(Rc<str>),
}

impl Head {
    pub fn name(&self) -> &str {
        match self {
            Head::Sym(n) | Head::Var(n) => n,
        }
    }
}

/// A term tree (2.4.1): a head and its children.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Term {
    pub head: Head,
    pub args: Vec<Term>,
}

/// `vtype`: the types of term variables.
pub type VType = BTreeMap<String, Type>;

impl Term {
    /// The symbol `name` applied to `args`.
    pub fn sym(name: impl Into<Rc<str>>, args: Vec<Term>) -> Term {
        Term {
            head: Head::Sym(name.into()),
            args,
        }
    }

    /// The variable `name` applied to `args` (none for a leaf).
    pub fn var(name: impl Into<Rc<str>>, args: Vec<Term>) -> Term {
        Term {
            head: Head::Var(name.into()),
            args,
        }
    }

    /// `TermVar` of 2.3.1.
    pub fn term_vars(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.collect_vars(&mut out);
        out
    }

    fn collect_vars(&self, out: &mut BTreeSet<String>) {
        if let Head::Var(x) = &self.head {
            out.insert(x.to_string());
        }
        self.args.iter().for_each(|a| a.collect_vars(out));
    }

    /// The number of nodes on the longest path from the root.
    pub fn depth(&self) -> usize {
        1 + self.args.iter().map(Term::depth).max().unwrap_or(0)
    }

    /// The number of nodes.
    pub fn size(&self) -> usize {
        1 + self.args.iter().map(Term::size).sum::<usize>()
    }

    /// The subterm at a path of child indices.
    pub fn at(&self, path: &[usize]) -> Option<&Term> {
        path.iter().try_fold(self, |t, &i| t.args.get(i))
    }
}

/// The functional notation `f(t1, t2)`, a leaf without brackets.
impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.head.name())?;
        if !self.args.is_empty() {
            write!(f, "(")?;
            for (i, a) in self.args.iter().enumerate() {
                if i > 0 {
                    write!(f, ", ")?;
                }
                write!(f, "{a}")?;
            }
            write!(f, ")")?;
        }
        Ok(())
    }
}

/// Constructor or function name (2.4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymKind {
    Constructor,
    Function,
}

/// The term symbols: `type: Σ -> 𝒢` and which are function names.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    syms: HashMap<String, (Type, SymKind)>,
}

impl Signature {
    pub fn new() -> Signature {
        Signature::default()
    }

    /// Declares (or redeclares) a term symbol.
    pub fn add(&mut self, name: impl Into<String>, ty: Type, kind: SymKind) {
        self.syms.insert(name.into(), (ty, kind));
    }

    /// The type and kind of a symbol.
    pub fn get(&self, name: &str) -> Option<&(Type, SymKind)> {
        self.syms.get(name)
    }

    pub fn is_function(&self, name: &str) -> bool {
        matches!(self.syms.get(name), Some((_, SymKind::Function)))
    }

    pub fn is_constructor(&self, name: &str) -> bool {
        matches!(self.syms.get(name), Some((_, SymKind::Constructor)))
    }

    /// The symbols of the constructor and function definitions (named by
    /// their generated names, typed by their functional forms) and the
    /// `vtype` of the variable definitions.
    pub fn from_definitions(defs: &Definitions) -> (Signature, VType) {
        let mut sig = Signature::new();
        let mut vars = VType::new();
        for (name, def) in defs.iter() {
            sig.add_definition(name, def, &mut vars);
        }
        (sig, vars)
    }

    /// Takes in one definition: a constructor or function as a symbol, a
    /// variable into `vars`, a class not at all.
    pub fn add_definition(&mut self, name: &str, def: &SyntaxDef, vars: &mut VType) {
        let Some(ty) = def.symbol_type() else {
            return;
        };
        match def.kind() {
            SyntaxKind::Constructor => self.add(name, ty, SymKind::Constructor),
            SyntaxKind::Function => self.add(name, ty, SymKind::Function),
            SyntaxKind::Variable => {
                vars.insert(name.to_string(), ty);
            }
            SyntaxKind::Type => {}
        }
    }
}

/// Deepest term the readers accept (they recurse).
pub const MAX_TERM_DEPTH: usize = 256;

/// Reads the functional notation `f(t1, ..., tn)`: a name is a variable if
/// `vtype` has it, else a symbol of `sig`. Names are runs of characters
/// other than white space, `(`, `)` and `,` (generated names qualify).
pub fn parse_functional(text: &str, sig: &Signature, vtype: &VType) -> Result<Term, Located> {
    let mut p = FunReader { text, pos: 0 };
    let t = p.term(sig, vtype, 0)?;
    p.skip_ws();
    if p.pos < text.len() {
        return Err(Located::new(p.pos, 1, "unexpected text after the term"));
    }
    Ok(t)
}

struct FunReader<'a> {
    text: &'a str,
    pos: usize,
}

impl FunReader<'_> {
    fn skip_ws(&mut self) {
        while let Some(c) = self.text[self.pos..].chars().next() {
            if !c.is_whitespace() {
                break;
            }
            self.pos += c.len_utf8();
        }
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn term(&mut self, sig: &Signature, vtype: &VType, depth: usize) -> Result<Term, Located> {
        self.skip_ws();
        if depth > MAX_TERM_DEPTH {
            return Err(Located::new(
                self.pos,
                1,
                format!("terms nest deeper than {MAX_TERM_DEPTH}"),
            ));
        }
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_whitespace() || "(),".contains(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        let name = &self.text[start..self.pos];
        if name.is_empty() {
            return Err(Located::new(start, 1, "expected a name"));
        }
        let head = if vtype.contains_key(name) {
            Head::Var(name.into())
        } else if sig.get(name).is_some() {
            Head::Sym(name.into())
        } else {
            return Err(Located::new(
                start,
                name.len(),
                format!("unknown name `{name}`"),
            ));
        };
        self.skip_ws();
        let mut args = Vec::new();
        if self.peek() == Some('(') {
            self.pos += 1;
            loop {
                args.push(self.term(sig, vtype, depth + 1)?);
                self.skip_ws();
                match self.peek() {
                    Some(',') => self.pos += 1,
                    Some(')') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(Located::new(self.pos, 1, "expected `,` or `)`")),
                }
            }
        }
        Ok(Term { head, args })
    }
}

// ---- Coding strings, lists, types and terms as terms (2.3.4) ----

/// `code_list`: `[]` and `::` of the basic definitions.
pub fn code_list(items: Vec<Term>) -> Term {
    items
        .into_iter()
        .rev()
        .fold(Term::sym(names::NIL, vec![]), |tail, head| {
            Term::sym(names::CONS, vec![head, tail])
        })
}

/// The items of a coded list, if `t` is one.
pub fn decode_list(t: &Term) -> Option<Vec<&Term>> {
    let mut out = Vec::new();
    let mut cur = t;
    loop {
        match (&cur.head, cur.args.as_slice()) {
            (Head::Sym(n), []) if &**n == names::NIL => return Some(out),
            (Head::Sym(n), [h, tail]) if &**n == names::CONS => {
                out.push(h);
                cur = tail;
            }
            _ => return None,
        }
    }
}

/// `code_string`: the UTF-8 bytes as `char code` terms of eight bits.
pub fn code_string(s: &str) -> Term {
    let chars = s
        .bytes()
        .map(|b| {
            let bits = (0..8)
                .rev()
                .map(|i| {
                    let name = if b >> i & 1 == 1 {
                        names::BIT1
                    } else {
                        names::BIT0
                    };
                    Term::sym(name, vec![])
                })
                .collect();
            Term::sym(names::CHAR_CODE, bits)
        })
        .collect();
    Term::sym(names::STRING_FROM, vec![code_list(chars)])
}

/// The string a term codes, if it codes one.
pub fn decode_string(t: &Term) -> Option<String> {
    match (&t.head, t.args.as_slice()) {
        (Head::Sym(n), [list]) if &**n == names::STRING_FROM => {
            let mut bytes = Vec::new();
            for c in decode_list(list)? {
                match (&c.head, c.args.as_slice()) {
                    (Head::Sym(n), bits) if &**n == names::CHAR_CODE && bits.len() == 8 => {
                        let mut b = 0u8;
                        for bit in bits {
                            b = b << 1
                                | match &bit.head {
                                    Head::Sym(n) if &**n == names::BIT0 && bit.args.is_empty() => 0,
                                    Head::Sym(n) if &**n == names::BIT1 && bit.args.is_empty() => 1,
                                    _ => return None,
                                };
                        }
                        bytes.push(b);
                    }
                    _ => return None,
                }
            }
            String::from_utf8(bytes).ok()
        }
        _ => None,
    }
}

/// A type coded as a term of `term type`.
pub fn code_type(t: &Type) -> Term {
    match t {
        Type::Var(x) => Term::sym(names::TYPE_VAR, vec![code_string(x)]),
        Type::Sym(name, args) => Term::sym(
            names::TYPE_SYM,
            vec![
                code_string(name),
                code_list(args.iter().map(code_type).collect()),
            ],
        ),
        Type::Fun(args, result) => Term::sym(
            names::TYPE_FUN,
            vec![
                code_list(args.iter().map(code_type).collect()),
                code_type(result),
            ],
        ),
    }
}

/// The type a term codes, if it codes one.
pub fn decode_type(t: &Term) -> Option<Type> {
    match (&t.head, t.args.as_slice()) {
        (Head::Sym(n), [s]) if &**n == names::TYPE_VAR => Some(Type::Var(decode_string(s)?)),
        (Head::Sym(n), [s, l]) if &**n == names::TYPE_SYM => Some(Type::Sym(
            decode_string(s)?,
            decode_list(l)?
                .into_iter()
                .map(decode_type)
                .collect::<Option<_>>()?,
        )),
        (Head::Sym(n), [l, r]) if &**n == names::TYPE_FUN => {
            let args: Vec<Type> = decode_list(l)?
                .into_iter()
                .map(decode_type)
                .collect::<Option<_>>()?;
            if args.is_empty() {
                return None;
            }
            Some(Type::Fun(args, Box::new(decode_type(r)?)))
        }
        _ => None,
    }
}

/// A term coded as a term of `term` (variables carry their types).
pub fn code_term(t: &Term, vtype: &VType) -> Term {
    let args = code_list(t.args.iter().map(|a| code_term(a, vtype)).collect());
    match &t.head {
        Head::Sym(f) => Term::sym(names::TERM_SYM, vec![code_string(f), args]),
        Head::Var(x) => {
            let ty = vtype.get(&**x).cloned().unwrap_or_else(|| Type::var(&**x));
            Term::sym(names::TERM_VAR, vec![code_string(x), code_type(&ty), args])
        }
    }
}

/// The term a term codes, with the types of its variables (`None` also
/// when one variable is coded with two types).
pub fn decode_term(t: &Term) -> Option<(Term, VType)> {
    let mut vtype = VType::new();
    let term = decode_term_into(t, &mut vtype)?;
    Some((term, vtype))
}

fn decode_term_into(t: &Term, vtype: &mut VType) -> Option<Term> {
    match (&t.head, t.args.as_slice()) {
        (Head::Sym(n), [s, l]) if &**n == names::TERM_SYM => Some(Term::sym(
            decode_string(s)?,
            decode_list(l)?
                .into_iter()
                .map(|a| decode_term_into(a, vtype))
                .collect::<Option<_>>()?,
        )),
        (Head::Sym(n), [s, ty, l]) if &**n == names::TERM_VAR => {
            let x = decode_string(s)?;
            let ty = decode_type(ty)?;
            // A term has one `vtype`: a variable coded with two types is
            // not a coded term.
            match vtype.get(&x) {
                Some(known) if *known != ty => return None,
                Some(_) => {}
                None => {
                    vtype.insert(x.clone(), ty);
                }
            }
            Some(Term::var(
                x,
                decode_list(l)?
                    .into_iter()
                    .map(|a| decode_term_into(a, vtype))
                    .collect::<Option<_>>()?,
            ))
        }
        _ => None,
    }
}

/// The internal display format of 2.3.4: `@'s@'` for strings, `@L[...]`
/// for lists, `@Y T` for types, `@T t` for coded terms, `@V[x@:T](...)`
/// for variables and `f(...)` otherwise. A variable missing from `vtype`
/// shows its own name as a type variable.
pub fn internal_display(t: &Term, vtype: &VType) -> String {
    let mut out = String::new();
    write_internal(t, vtype, &mut out);
    out
}

fn write_internal(t: &Term, vtype: &VType, out: &mut String) {
    if let Some(s) = decode_string(t) {
        out.push_str("@'");
        out.push_str(&s);
        out.push_str("@'");
        return;
    }
    if let Some(items) = decode_list(t) {
        out.push_str("@L[");
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_internal(item, vtype, out);
        }
        out.push(']');
        return;
    }
    if let Some(ty) = decode_type(t) {
        out.push_str("@Y ");
        out.push_str(&ty.type_name());
        return;
    }
    if let Some((inner, inner_vtype)) = decode_term(t) {
        out.push_str("@T ");
        write_internal(&inner, &inner_vtype, out);
        return;
    }
    match &t.head {
        Head::Sym(f) => out.push_str(f),
        Head::Var(x) => {
            let ty = vtype.get(&**x).cloned().unwrap_or_else(|| Type::var(&**x));
            out.push_str("@V[");
            out.push_str(x);
            out.push_str("@:");
            out.push_str(&ty.type_name());
            out.push(']');
        }
    }
    if !t.args.is_empty() {
        out.push('(');
        for (i, a) in t.args.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_internal(a, vtype, out);
        }
        out.push(')');
    }
}

/// A coded string as the parser's quoted token `"..."` (2.6.1), if `t`
/// codes one without a `"` in it.
pub fn shown_as_string(t: &Term) -> Option<String> {
    decode_string(t)
        .filter(|s| !s.contains('"'))
        .map(|s| format!("\"{s}\""))
}

/// Displays a term in the user's syntax with the display function of
/// 2.2.3 (a name no definition has is shown as itself, a coded string as
/// a quoted one). Like the spec's
/// function it adds no brackets, so `s s zero + s zero` is shown for
/// `+(s(s(zero)), s(zero))`; the parser (2.6) decides how such text reads.
pub fn display_term(t: &Term, defs: &Definitions) -> String {
    if let Some(s) = shown_as_string(t) {
        return s;
    }
    let args: Vec<String> = t.args.iter().map(|a| display_term(a, defs)).collect();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    match defs.get(t.head.name()) {
        Some(def) => display(&def.display_pattern(), &refs),
        None => display(&[t.head.name()], &refs),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::{basic_definitions, read_declarations};

    #[test]
    fn internal_format_of_2_3_4() {
        let vtype: VType = [("x".to_string(), Type::sym("int", vec![]))].into();
        let t = Term::sym(
            "f",
            vec![
                code_string("ab"),
                code_list(vec![Term::sym("c", vec![]), Term::var("x", vec![])]),
                code_type(&Type::sym("list", vec![Type::var("a")])),
                code_term(
                    &Term::var("y", vec![Term::sym("g", vec![])]),
                    &[(
                        "y".to_string(),
                        Type::fun(vec![Type::var("b")], Type::var("b")),
                    )]
                    .into(),
                ),
                Term::var("x", vec![]),
            ],
        );
        assert_eq!(
            internal_display(&t, &vtype),
            "f(@'ab@',@L[c,@V[x@:int]],@Y list(@?a),@T @V[y@:@F(@?b,@?b)](g),@V[x@:int])"
        );
        assert_eq!(internal_display(&code_list(vec![]), &vtype), "@L[]");
        assert_eq!(internal_display(&code_string(""), &vtype), "@'@'");
    }

    #[test]
    fn codings_decode_back() {
        for s in ["", "a", "zażółć", "@'"] {
            assert_eq!(decode_string(&code_string(s)).as_deref(), Some(s));
        }
        let ty = Type::fun(
            vec![Type::var("a")],
            Type::sym("list", vec![Type::var("a")]),
        );
        assert_eq!(decode_type(&code_type(&ty)), Some(ty.clone()));
        let vtype: VType = [("x".to_string(), ty)].into();
        let t = Term::sym("f", vec![Term::var("x", vec![Term::sym("c", vec![])])]);
        assert_eq!(decode_term(&code_term(&t, &vtype)), Some((t, vtype)));
        // Not UTF-8: an ordinary term.
        let bad = Term::sym(
            names::STRING_FROM,
            vec![code_list(vec![Term::sym(
                names::CHAR_CODE,
                (0..8).map(|_| Term::sym(names::BIT1, vec![])).collect(),
            )])],
        );
        assert_eq!(decode_string(&bad), None);
    }

    #[test]
    fn functional_reader() {
        let mut defs = basic_definitions();
        read_declarations(
            "Class 'nat'. Element 'zero' as nat. Element 's' nat as nat. Function nat '+' nat as nat.",
            &mut defs,
        )
        .expect("nat");
        let (sig, _) = Signature::from_definitions(&defs);
        let vtype: VType = [("x".to_string(), Type::sym("Tnat", vec![]))].into();
        let t = parse_functional("F\\?_+_\\?(Cs_\\?(x), Czero)", &sig, &vtype).expect("reads");
        assert_eq!(t.to_string(), "F\\?_+_\\?(Cs_\\?(x), Czero)");
        assert_eq!(t.term_vars(), ["x".to_string()].into());
        assert_eq!(display_term(&t, &defs), "s x + zero");
        for (bad, at) in [
            ("Cs_\\?(", 6),
            ("nope", 0),
            ("Czero)", 5),
            ("Cs_\\?(x y)", 8),
        ] {
            let e = parse_functional(bad, &sig, &vtype).expect_err(bad);
            assert_eq!(e.at, at, "{bad}: {e}");
        }
        let deep = "Cs_\\?(".repeat(1000);
        assert!(parse_functional(&deep, &sig, &vtype).is_err());
    }
}
