//! Syntax definitions (spec 2.2): the four kinds, automatic functional
//! forms (2.2.1), `GeneratedName` with its escapes and uniqueness suffix
//! and its exact inverse (2.2.2), the display function with the spacing
//! heuristic (2.2.3), and a set of definitions with unique names.
//!
//! Choices where the spec leaves room:
//! - A definition has at least one element and its strings are nonempty
//!   and hold no white space: they are tokens of the lexer (2.6.1). Non-ASCII
//!   characters pass through `GeneratedName` unescaped (the lexer treats
//!   them as alphanumeric).
//! - The escape table is read as `"` to `\qt` and `'` to `\ap` (quote and
//!   apostrophe; the spec's text shows both as the same glyph).
//! - The spacing heuristic omits the space between two digits, between two
//!   non-alphanumeric characters, after `(` or `[` before an alphanumeric
//!   one and before `)` or `]` after an alphanumeric one. The spec also
//!   lists "letters", which would glue `ala x ba` of its own examples into
//!   one word, so letters are separated.

use std::collections::HashMap;
use std::fmt;

use crate::types::Type;

/// The name of the special type `term_type`: the class `'term' 'type'`.
pub const TERM_TYPE: &str = "Tterm_type";

/// The special type `term_type`.
pub fn term_type() -> Type {
    Type::sym(TERM_TYPE, vec![])
}

/// The first component of a syntax definition. `Type` is a class (its
/// definitions are written `Class`), `Constructor` an element (`Element`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SyntaxKind {
    Type,
    Constructor,
    Function,
    Variable,
}

impl SyntaxKind {
    /// The first character of a generated name.
    pub fn letter(self) -> char {
        match self {
            SyntaxKind::Type => 'T',
            SyntaxKind::Constructor => 'C',
            SyntaxKind::Function => 'F',
            SyntaxKind::Variable => 'V',
        }
    }

    fn from_letter(c: char) -> Option<SyntaxKind> {
        Some(match c {
            'T' => SyntaxKind::Type,
            'C' => SyntaxKind::Constructor,
            'F' => SyntaxKind::Function,
            'V' => SyntaxKind::Variable,
            _ => return None,
        })
    }
}

impl fmt::Display for SyntaxKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SyntaxKind::Type => "type",
            SyntaxKind::Constructor => "constructor",
            SyntaxKind::Function => "function",
            SyntaxKind::Variable => "variable",
        })
    }
}

/// An element of the sequence `b`: a string or a type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum SyntaxElem {
    Str(String),
    Type(Type),
}

/// A syntax definition `(a, b, c)`; `c` is absent exactly for a type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SyntaxDef {
    kind: SyntaxKind,
    elems: Vec<SyntaxElem>,
    ty: Option<Type>,
}

/// Why a triple is not a syntax definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SyntaxError {
    /// No element at all.
    Empty,
    /// A string element that is empty or holds white space.
    BadString(String),
    /// A type without `c`, or `c` given for a type (conditions 1 and 3).
    ResultType(SyntaxKind),
    /// A type other than `term_type` in a type definition (condition 4).
    TypeInClass(Type),
    /// A constructor whose type is not `head(α1, ..., αn)` (condition 5).
    ConstructorType(Type),
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SyntaxError::Empty => write!(f, "a syntax definition needs at least one element"),
            SyntaxError::BadString(s) => write!(
                f,
                "the string {s:?} is empty or holds white space: strings of a syntax definition are tokens"
            ),
            SyntaxError::ResultType(SyntaxKind::Type) => {
                write!(f, "a class definition has no result type")
            }
            SyntaxError::ResultType(k) => write!(f, "a {k} definition needs a result type"),
            SyntaxError::TypeInClass(t) => write!(
                f,
                "a class definition may contain no type but term type, found {t}"
            ),
            SyntaxError::ConstructorType(t) => write!(
                f,
                "a constructor's type must be a type symbol over type variables, found {t}"
            ),
        }
    }
}

impl std::error::Error for SyntaxError {}

impl SyntaxDef {
    /// The triple `(kind, elems, ty)`, checked against conditions (1)-(5).
    pub fn new(
        kind: SyntaxKind,
        elems: Vec<SyntaxElem>,
        ty: Option<Type>,
    ) -> Result<SyntaxDef, SyntaxError> {
        if elems.is_empty() {
            return Err(SyntaxError::Empty);
        }
        for e in &elems {
            if let SyntaxElem::Str(s) = e
                && (s.is_empty() || s.chars().any(|c| c.is_whitespace() || c.is_control()))
            {
                return Err(SyntaxError::BadString(s.clone()));
            }
        }
        match (kind, &ty) {
            (SyntaxKind::Type, None) => {
                for e in &elems {
                    if let SyntaxElem::Type(t) = e
                        && *t != term_type()
                    {
                        return Err(SyntaxError::TypeInClass(t.clone()));
                    }
                }
            }
            (SyntaxKind::Type, Some(_)) | (_, None) => return Err(SyntaxError::ResultType(kind)),
            (SyntaxKind::Constructor, Some(c)) => match c {
                Type::Sym(_, args) if args.iter().all(|a| matches!(a, Type::Var(_))) => {}
                _ => return Err(SyntaxError::ConstructorType(c.clone())),
            },
            _ => {}
        }
        Ok(SyntaxDef { kind, elems, ty })
    }

    pub fn kind(&self) -> SyntaxKind {
        self.kind
    }

    pub fn elems(&self) -> &[SyntaxElem] {
        &self.elems
    }

    /// `c`: the result type (none for a type definition).
    pub fn result_type(&self) -> Option<&Type> {
        self.ty.as_ref()
    }

    /// The types appearing in `b`, in order.
    pub fn arg_types(&self) -> impl Iterator<Item = &Type> {
        self.elems.iter().filter_map(|e| match e {
            SyntaxElem::Type(t) => Some(t),
            SyntaxElem::Str(_) => None,
        })
    }

    /// The type of the term symbol this definition declares: `c` without
    /// types in `b`, else `R1, ..., Rn -> c` (the `C` of 2.2.1).
    pub fn symbol_type(&self) -> Option<Type> {
        let result = self.ty.clone()?;
        Some(Type::fun(self.arg_types().cloned().collect(), result))
    }

    /// The corresponding functional syntax definition (2.2.1); `None` for
    /// a type definition, which has none.
    pub fn functional(&self) -> Option<SyntaxDef> {
        if self.kind == SyntaxKind::Type {
            return None;
        }
        let open = || SyntaxElem::Str("{".into());
        let close = || SyntaxElem::Str("}".into());
        let has_types = self.arg_types().next().is_some();
        let mut elems = Vec::new();
        if !has_types {
            elems.push(open());
        }
        for e in &self.elems {
            match e {
                SyntaxElem::Str(_) => elems.push(e.clone()),
                SyntaxElem::Type(_) => {
                    elems.push(open());
                    elems.push(close());
                }
            }
        }
        if !has_types {
            elems.push(close());
        }
        Some(SyntaxDef {
            kind: self.kind,
            elems,
            ty: self.symbol_type(),
        })
    }

    /// The shape of the definition: its kind and strings, types as slots.
    pub fn shape(&self) -> NameShape {
        NameShape {
            kind: self.kind,
            parts: self
                .elems
                .iter()
                .map(|e| match e {
                    SyntaxElem::Str(s) => Part::Str(s.clone()),
                    SyntaxElem::Type(_) => Part::Slot,
                })
                .collect(),
            suffix: None,
        }
    }

    /// `GeneratedName` without a uniqueness suffix.
    pub fn generated_name(&self) -> String {
        self.shape().name()
    }

    /// The first argument of the display function: the strings, an empty
    /// string for each type.
    pub fn display_pattern(&self) -> Vec<&str> {
        self.elems
            .iter()
            .map(|e| match e {
                SyntaxElem::Str(s) => s.as_str(),
                SyntaxElem::Type(_) => "",
            })
            .collect()
    }
}

/// `kind b1 b2 ... : c`, strings quoted, types in the spec's notation.
impl fmt::Display for SyntaxDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        for e in &self.elems {
            match e {
                SyntaxElem::Str(s) => write!(f, " '{s}'")?,
                SyntaxElem::Type(t) => write!(f, " [{t}]")?,
            }
        }
        if let Some(t) = &self.ty {
            write!(f, " : {t}")?;
        }
        Ok(())
    }
}

/// One element of a generated name: a string, or `\?` for a type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    Str(String),
    Slot,
}

/// What a generated name says about its definition: exactly what
/// [`parse_generated_name`] recovers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NameShape {
    pub kind: SyntaxKind,
    pub parts: Vec<Part>,
    /// The uniqueness suffix `_N\`.
    pub suffix: Option<u64>,
}

/// The escapes of 2.2.2, in the order of its table.
const ESCAPES: [(char, &str); 10] = [
    ('\\', "\\\\"),
    ('_', "\\_"),
    ('(', "\\lb"),
    (')', "\\rb"),
    ('[', "\\ls"),
    (']', "\\rs"),
    (',', "\\cm"),
    ('"', "\\qt"),
    ('\'', "\\ap"),
    ('@', "\\at"),
];

impl NameShape {
    /// `GeneratedName`: the kind's letter, then the escaped strings and
    /// `\?` for types separated by `_`, then the suffix `_N\` if any.
    pub fn name(&self) -> String {
        let mut out = String::new();
        out.push(self.kind.letter());
        for (i, p) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push('_');
            }
            match p {
                Part::Slot => out.push_str("\\?"),
                Part::Str(s) => {
                    for c in s.chars() {
                        match ESCAPES.iter().find(|(e, _)| *e == c) {
                            Some((_, esc)) => out.push_str(esc),
                            None => out.push(c),
                        }
                    }
                }
            }
        }
        if let Some(n) = self.suffix {
            out.push('_');
            out.push_str(&n.to_string());
            out.push('\\');
        }
        out
    }
}

/// Why a string is not a generated name; `at` is a byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameError {
    pub at: usize,
    pub message: String,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {}: {}", self.at, self.message)
    }
}

impl std::error::Error for NameError {}

/// The exact inverse of `GeneratedName`: a backslash always starts an
/// escape, so an unescaped `_` separates parts, and a lone `\` at the very
/// end closes the uniqueness suffix whose digits form the last part.
pub fn parse_generated_name(name: &str) -> Result<NameShape, NameError> {
    fn err<T>(at: usize, message: &str) -> Result<T, NameError> {
        Err(NameError {
            at,
            message: message.into(),
        })
    }
    let mut chars = name.char_indices().peekable();
    let kind = match chars.next().map(|(_, c)| SyntaxKind::from_letter(c)) {
        Some(Some(k)) => k,
        _ => return err(0, "a generated name starts with T, C, F or V"),
    };
    // Parts as raw pieces: a string so far, or a slot.
    let mut parts: Vec<Part> = Vec::new();
    let mut current = String::new();
    let mut current_is_slot = false;
    let mut current_start = 1;
    let mut suffix = None;
    let finish = |current: &mut String, slot: &mut bool, parts: &mut Vec<Part>, at: usize| {
        if *slot {
            if !current.is_empty() {
                return err(at, "`\\?` must be a whole part");
            }
            parts.push(Part::Slot);
        } else {
            if current.is_empty() {
                return err(at, "empty part (two `_` in a row, or one at an end)");
            }
            parts.push(Part::Str(std::mem::take(current)));
        }
        *slot = false;
        Ok(())
    };
    while let Some((at, c)) = chars.next() {
        match c {
            '_' => {
                finish(&mut current, &mut current_is_slot, &mut parts, at)?;
                current_start = at + 1;
            }
            '\\' => {
                let Some(&(_, e)) = chars.peek() else {
                    // The suffix terminator: the current part is its digits.
                    if current_is_slot
                        || current.is_empty()
                        || !current.chars().all(|d| d.is_ascii_digit())
                        || parts.is_empty()
                    {
                        return err(at, "a final `\\` must close a suffix `_N\\`");
                    }
                    match current.parse::<u64>() {
                        Ok(n) => suffix = Some(n),
                        Err(_) => return err(current_start, "suffix number too large"),
                    }
                    current.clear();
                    break;
                };
                chars.next();
                let two = |chars: &mut std::iter::Peekable<std::str::CharIndices>, second: char| {
                    if chars.peek().map(|&(_, c)| c) == Some(second) {
                        chars.next();
                        true
                    } else {
                        false
                    }
                };
                let decoded = match e {
                    '\\' => '\\',
                    '_' => '_',
                    '?' => {
                        if current_is_slot || !current.is_empty() {
                            return err(at, "`\\?` must be a whole part");
                        }
                        current_is_slot = true;
                        continue;
                    }
                    'l' if two(&mut chars, 'b') => '(',
                    'r' if two(&mut chars, 'b') => ')',
                    'l' if two(&mut chars, 's') => '[',
                    'r' if two(&mut chars, 's') => ']',
                    'c' if two(&mut chars, 'm') => ',',
                    'q' if two(&mut chars, 't') => '"',
                    'a' if two(&mut chars, 'p') => '\'',
                    'a' if two(&mut chars, 't') => '@',
                    _ => return err(at, "unknown escape"),
                };
                if current_is_slot {
                    return err(at, "`\\?` must be a whole part");
                }
                current.push(decoded);
            }
            _ => {
                if current_is_slot {
                    return err(at, "`\\?` must be a whole part");
                }
                current.push(c);
            }
        }
    }
    if suffix.is_none() {
        finish(&mut current, &mut current_is_slot, &mut parts, name.len())?;
    }
    // The name must be exactly what GeneratedName gives (no escapes that
    // it would not write, such as a raw character it escapes).
    let shape = NameShape {
        kind,
        parts,
        suffix,
    };
    if shape.name() != name {
        return err(0, "not in the form GeneratedName writes");
    }
    Ok(shape)
}

/// Whether two generated names are corresponding: equal but for the first
/// letter and the optional suffix (used by parser preferences).
pub fn corresponding(a: &str, b: &str) -> bool {
    match (parse_generated_name(a), parse_generated_name(b)) {
        (Ok(x), Ok(y)) => x.parts == y.parts,
        _ => false,
    }
}

/// The display function of 2.2.3 with the spacing heuristic: `pattern`
/// holds strings, an empty one where an argument goes; `args` are the
/// (nonempty) displayed arguments.
pub fn display(pattern: &[&str], args: &[&str]) -> String {
    display_with(pattern, args, true)
}

/// The display function, with or without the spacing heuristic.
pub fn display_with(pattern: &[&str], args: &[&str], heuristic: bool) -> String {
    let mut pieces: Vec<String> = Vec::new();
    let mut next = args.iter();
    for p in pattern {
        if p.is_empty() {
            pieces.push(
                next.next()
                    .map_or_else(|| "{}".to_string(), |a| a.to_string()),
            );
        } else {
            pieces.push(p.to_string());
        }
    }
    let rest: Vec<&str> = next.copied().collect();
    if !rest.is_empty() {
        pieces.push(format!("({})", rest.join(",")));
    }
    let mut out = String::new();
    for piece in pieces {
        if let (Some(last), Some(first)) = (out.chars().last(), piece.chars().next())
            && (!heuristic || needs_space(last, first))
        {
            out.push(' ');
        }
        out.push_str(&piece);
    }
    out
}

/// Letters, digits and non-ASCII characters (alphanumeric for the lexer).
pub(crate) fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric() || !c.is_ascii()
}

fn needs_space(last: char, first: char) -> bool {
    let both_digits = last.is_ascii_digit() && first.is_ascii_digit();
    let both_other = !is_alnum(last) && !is_alnum(first);
    let open_then_alnum = matches!(last, '(' | '[') && is_alnum(first);
    let alnum_then_close = is_alnum(last) && matches!(first, ')' | ']');
    !(both_digits || both_other || open_then_alnum || alnum_then_close)
}

/// A set of syntax definitions, each under its generated name, made unique
/// by the suffix `_N\` (the smallest `N` from 0 not yet taken).
#[derive(Clone, Debug, Default)]
pub struct Definitions {
    defs: Vec<(String, SyntaxDef)>,
    index: HashMap<String, usize>,
}

impl Definitions {
    pub fn new() -> Definitions {
        Definitions::default()
    }

    /// Adds a definition and returns its unique generated name.
    pub fn add(&mut self, def: SyntaxDef) -> String {
        let mut shape = def.shape();
        let mut name = shape.name();
        let mut n = 0;
        while self.index.contains_key(&name) {
            shape.suffix = Some(n);
            name = shape.name();
            n += 1;
        }
        self.index.insert(name.clone(), self.defs.len());
        self.defs.push((name.clone(), def));
        name
    }

    /// The definition with the given generated name.
    pub fn get(&self, name: &str) -> Option<&SyntaxDef> {
        self.index.get(name).map(|&i| &self.defs[i].1)
    }

    /// All definitions with their names, in the order they were added.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &SyntaxDef)> {
        self.defs.iter().map(|(n, d)| (n.as_str(), d))
    }

    pub fn len(&self) -> usize {
        self.defs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// Displays a type in the user's syntax through the class definitions
    /// (a type variable as `?name`); a symbol no class defines is shown by
    /// its name in the functional way.
    pub fn display_type(&self, t: &Type) -> String {
        match t {
            Type::Var(x) => format!("?{x}"),
            Type::Sym(name, args) => {
                let shown: Vec<String> = args.iter().map(|a| self.display_type(a)).collect();
                let refs: Vec<&str> = shown.iter().map(String::as_str).collect();
                match self.get(name) {
                    Some(def) if def.kind == SyntaxKind::Type => {
                        display(&def.display_pattern(), &refs)
                    }
                    _ => display(&[name.as_str()], &refs),
                }
            }
            Type::Fun(args, result) => {
                let shown: Vec<String> = args.iter().map(|a| self.display_type(a)).collect();
                format!("{} -> {}", shown.join(", "), self.display_type(result))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(s: &str) -> SyntaxElem {
        SyntaxElem::Str(s.into())
    }
    fn ty(t: Type) -> SyntaxElem {
        SyntaxElem::Type(t)
    }
    fn a() -> Type {
        Type::var("a")
    }
    fn list(t: Type) -> Type {
        Type::sym("list", vec![t])
    }
    fn boolean() -> Type {
        Type::sym("boolean", vec![])
    }
    fn int() -> Type {
        Type::sym("int", vec![])
    }

    fn cons() -> SyntaxDef {
        SyntaxDef::new(
            SyntaxKind::Constructor,
            vec![ty(a()), st(":"), st(":"), ty(list(a()))],
            Some(list(a())),
        )
        .expect("valid")
    }

    #[test]
    fn examples_of_2_2_are_definitions() {
        let class = SyntaxDef::new(SyntaxKind::Type, vec![st("boolean")], None).expect("class");
        assert_eq!(class.generated_name(), "Tboolean");
        let t = SyntaxDef::new(SyntaxKind::Constructor, vec![st("true")], Some(boolean()));
        assert_eq!(t.expect("true").generated_name(), "Ctrue");
        assert_eq!(cons().generated_name(), "C\\?_:_:_\\?");
        let mw = SyntaxDef::new(
            SyntaxKind::Variable,
            vec![st("multiple"), st("word"), st("variable"), st("name")],
            Some(boolean()),
        )
        .expect("variable");
        assert_eq!(mw.generated_name(), "Vmultiple_word_variable_name");
    }

    #[test]
    fn bad_definitions_are_refused() {
        assert_eq!(
            SyntaxDef::new(SyntaxKind::Function, vec![], Some(boolean())),
            Err(SyntaxError::Empty)
        );
        assert_eq!(
            SyntaxDef::new(SyntaxKind::Type, vec![st("x"), ty(int())], None),
            Err(SyntaxError::TypeInClass(int()))
        );
        assert!(SyntaxDef::new(SyntaxKind::Type, vec![st("x"), ty(term_type())], None).is_ok());
        assert_eq!(
            SyntaxDef::new(SyntaxKind::Constructor, vec![st("x")], Some(list(int()))),
            Err(SyntaxError::ConstructorType(list(int())))
        );
        assert_eq!(
            SyntaxDef::new(SyntaxKind::Variable, vec![st("x")], None),
            Err(SyntaxError::ResultType(SyntaxKind::Variable))
        );
        assert_eq!(
            SyntaxDef::new(SyntaxKind::Type, vec![st("x")], Some(int())),
            Err(SyntaxError::ResultType(SyntaxKind::Type))
        );
        assert!(matches!(
            SyntaxDef::new(SyntaxKind::Function, vec![st("a b")], Some(int())),
            Err(SyntaxError::BadString(_))
        ));
    }

    /// The functional forms of 2.2.1.
    #[test]
    fn functional_forms_of_2_2_1() {
        let f = cons().functional().expect("functional");
        assert_eq!(f.display_pattern(), vec!["{", "}", ":", ":", "{", "}"]);
        assert_eq!(
            f.result_type(),
            Some(&Type::fun(vec![a(), list(a())], list(a())))
        );
        let eq = SyntaxDef::new(
            SyntaxKind::Function,
            vec![ty(a()), st("equals"), ty(a())],
            Some(boolean()),
        )
        .expect("equals");
        let f = eq.functional().expect("functional");
        assert_eq!(f.display_pattern(), vec!["{", "}", "equals", "{", "}"]);
        assert_eq!(f.result_type(), Some(&Type::fun(vec![a(), a()], boolean())));
        let x = SyntaxDef::new(SyntaxKind::Variable, vec![st("x")], Some(boolean())).expect("x");
        let f = x.functional().expect("functional");
        assert_eq!(f.display_pattern(), vec!["{", "x", "}"]);
        assert_eq!(f.result_type(), Some(&boolean()));
        let xx = SyntaxDef::new(
            SyntaxKind::Variable,
            vec![st("xx"), ty(boolean())],
            Some(boolean()),
        )
        .expect("xx");
        let f = xx.functional().expect("functional");
        assert_eq!(f.display_pattern(), vec!["xx", "{", "}"]);
        assert_eq!(
            f.result_type(),
            Some(&Type::fun(vec![boolean()], boolean()))
        );
        let class = SyntaxDef::new(SyntaxKind::Type, vec![st("boolean")], None).expect("class");
        assert_eq!(class.functional(), None);
    }

    /// The generated names of 2.2.2, with the suffix for a second list
    /// constructor.
    #[test]
    fn generated_names_of_2_2_2() {
        let mut defs = Definitions::new();
        assert_eq!(defs.add(cons()), "C\\?_:_:_\\?");
        let int_cons = SyntaxDef::new(
            SyntaxKind::Constructor,
            vec![ty(int()), st(":"), st(":"), ty(list(int()))],
            Some(list(Type::var("b"))),
        )
        .expect("valid");
        assert_eq!(defs.add(int_cons.clone()), "C\\?_:_:_\\?_0\\");
        assert_eq!(defs.add(int_cons), "C\\?_:_:_\\?_1\\");
        let nil = SyntaxDef::new(
            SyntaxKind::Constructor,
            vec![st("["), st("]")],
            Some(list(a())),
        )
        .expect("nil");
        assert_eq!(nil.generated_name(), "C\\ls_\\rs");
        let pair = SyntaxDef::new(
            SyntaxKind::Constructor,
            vec![
                st("("),
                ty(Type::var("a1")),
                st(","),
                ty(Type::var("a2")),
                st(")"),
            ],
            Some(Type::sym("pair", vec![Type::var("a1"), Type::var("a2")])),
        )
        .expect("pair");
        assert_eq!(pair.generated_name(), "C\\lb_\\?_\\cm_\\?_\\rb");
        let maja = SyntaxDef::new(
            SyntaxKind::Function,
            vec![ty(int()), st("a_maja"), ty(int()), st("\\psy")],
            Some(boolean()),
        )
        .expect("maja");
        assert_eq!(maja.generated_name(), "F\\?_a\\_maja_\\?_\\\\psy");
        // And back, exactly.
        for d in [cons(), nil, pair, maja] {
            let shape = parse_generated_name(&d.generated_name()).expect("parses");
            assert_eq!(shape, d.shape());
        }
        let shape = parse_generated_name("C\\?_:_:_\\?_0\\").expect("suffix");
        assert_eq!(shape.suffix, Some(0));
        assert_eq!(shape.parts, cons().shape().parts);
        assert!(corresponding("C\\?_:_:_\\?_0\\", "F\\?_:_:_\\?"));
        assert!(!corresponding("C\\?_:_:_\\?", "C\\?_:_\\?"));
    }

    #[test]
    fn bad_names_are_located() {
        for (bad, at) in [
            ("", 0),
            ("Xfoo", 0),
            ("Cfoo__bar", 5),
            ("Cfoo\\zz", 4),
            ("Cfoo\\", 4),
            ("C\\?x", 3),
            ("Ca_(b", 0),
        ] {
            let e = parse_generated_name(bad).expect_err(bad);
            assert_eq!(e.at, at, "{bad}: {e}");
        }
    }

    /// The display examples of 2.2.3, without and with the heuristic.
    #[test]
    fn display_examples_of_2_2_3() {
        let p = ["ala", "", "ba", "", "cen", "", "dak"];
        let plain = |args: &[&str]| display_with(&p, args, false);
        assert_eq!(plain(&["x"]), "ala x ba {} cen {} dak");
        assert_eq!(plain(&["x", "yy"]), "ala x ba yy cen {} dak");
        assert_eq!(plain(&["x", "yy", "z1"]), "ala x ba yy cen z1 dak");
        assert_eq!(plain(&["x", "yy", "z1", "u"]), "ala x ba yy cen z1 dak (u)");
        assert_eq!(
            plain(&["x", "yy", "z1", "u", "v"]),
            "ala x ba yy cen z1 dak (u,v)"
        );
        assert_eq!(
            display_with(&["", ":", ":", ""], &["x", "y"], false),
            "x : : y"
        );
        assert_eq!(
            display_with(&["1", "", "+", ""], &["2", "3"], false),
            "1 2 + 3"
        );
        // The heuristic.
        assert_eq!(display(&["", ":", ":", ""], &["x", "y"]), "x :: y");
        assert_eq!(display(&["1", "", "+", ""], &["2", "3"]), "12 + 3");
        assert_eq!(
            display(&p, &["x", "yy", "z1", "u", "v"]),
            "ala x ba yy cen z1 dak (u,v)"
        );
        assert_eq!(display(&["(", "", ")"], &["x"]), "(x)");
        assert_eq!(display(&["f", "(", "", ")"], &["x + y"]), "f (x + y)");
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        fn arb_shape() -> impl Strategy<Value = NameShape> {
            let part = prop_oneof![
                Just(Part::Slot),
                // Every escaped character, digits, and non-ASCII letters.
                "[a-z0-9_()\\[\\],\"'@\\\\?:é]{1,5}".prop_map(Part::Str),
            ];
            (
                prop_oneof![
                    Just(SyntaxKind::Type),
                    Just(SyntaxKind::Constructor),
                    Just(SyntaxKind::Function),
                    Just(SyntaxKind::Variable)
                ],
                prop::collection::vec(part, 1..6),
                prop::option::of(0u64..1000),
            )
                .prop_map(|(kind, parts, suffix)| NameShape {
                    kind,
                    parts,
                    suffix,
                })
        }

        proptest! {
            #[test]
            fn generated_names_round_trip(shape in arb_shape()) {
                let name = shape.name();
                prop_assert_eq!(parse_generated_name(&name).expect("parses"), shape);
            }

            #[test]
            fn different_shapes_have_different_names(a in arb_shape(), b in arb_shape()) {
                if a != b {
                    prop_assert_ne!(a.name(), b.name());
                }
            }

            #[test]
            fn any_text_parses_or_errs(s in "\\PC{0,12}") {
                // Never a panic; and what parses writes back to itself.
                if let Ok(shape) = parse_generated_name(&s) {
                    prop_assert_eq!(shape.name(), s);
                }
            }
        }
    }
}
