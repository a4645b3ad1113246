//! Declarations in the notation of 2.2.4 (`Class 'bit'.`, `Element 'bit'
//! '0' as bit.`, `Function 'if' boolean 'then' ?a 'else' ?a as ?a.`,
//! `Variable 'x' as boolean.`) read into [`Definitions`], and the basic
//! syntax definitions of 2.2.4 themselves ([`basic_definitions`]).
//!
//! The notation: a declaration starts with `Class`, `Element`, `Function`
//! or `Variable` (any case) and ends with a `.` that ends a word. A quoted
//! `'...'` is a string of the definition (`''` inside stands for an
//! apostrophe); unquoted words are types in the user's syntax, read with
//! the classes declared so far, `?x` being the type variable `x`. Adjacent
//! unquoted words may hold several types (`syntax element syntax element
//! sequence`): they are split in the one way every piece reads as a type.
//! The last unquoted `as` separates the elements from the result type.
//! `//` starts a comment to the end of the line. A string must be one
//! token of the parser's lexer (2.6.1): letters and digits, or a single
//! other character.
//!
//! Choices where the spec's text is garbled: the apostrophe syntax element
//! is `'''' string ''''`; `Element 'library' ':' '/' string` and `'file'`
//! likewise; the priority rule is `... as priority input rewrite rule of
//! ?a` (the spec shows `?a_1`).

use std::collections::HashMap;

use crate::diag::Located;
use crate::syntax::{Definitions, SyntaxDef, SyntaxElem, SyntaxKind};
use crate::types::Type;

/// Most words one run of unquoted words (or one type) may have: splitting
/// a run into types tries every split.
const MAX_RUN: usize = 32;

/// Most readings of one span kept: more is an ambiguity reported anyway.
const MAX_READINGS: usize = 16;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Quoted(String),
    Word(String),
    End,
}

/// Splits declaration text into quoted strings, words and `.` ends, each
/// with its byte span.
fn lex(text: &str) -> Result<Vec<(usize, usize, Tok)>, Located> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if b[i..].starts_with(b"//") {
            i = text[i..].find('\n').map_or(b.len(), |n| i + n);
        } else if c == b'\'' {
            let start = i;
            let mut s = String::new();
            i += 1;
            loop {
                match text[i..].find('\'') {
                    None => {
                        return Err(Located::new(start, 1, "unterminated quoted string"));
                    }
                    Some(n) => {
                        s.push_str(&text[i..i + n]);
                        i += n + 1;
                        if b.get(i) == Some(&b'\'') {
                            s.push('\'');
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
            }
            out.push((start, i - start, Tok::Quoted(s)));
        } else {
            let start = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'\'' {
                i += 1;
            }
            let word = &text[start..i];
            // A `.` ending a word (before space, a comment or the end) ends
            // the declaration.
            let at_end = i >= b.len() || b[i].is_ascii_whitespace();
            if at_end && word.ends_with('.') {
                let w = &word[..word.len() - 1];
                if !w.is_empty() {
                    out.push((start, w.len(), Tok::Word(w.to_string())));
                }
                out.push((i - 1, 1, Tok::End));
            } else {
                out.push((start, i - start, Tok::Word(word.to_string())));
            }
        }
    }
    Ok(out)
}

/// Reads declarations into `defs` (which may already hold classes the text
/// uses). Returns the generated names of the new definitions in order.
pub fn read_declarations(text: &str, defs: &mut Definitions) -> Result<Vec<String>, Located> {
    let toks = lex(text)?;
    let mut names = Vec::new();
    let mut start = 0;
    while start < toks.len() {
        let Some(len) = toks[start..].iter().position(|t| t.2 == Tok::End) else {
            let (at, l, _) = &toks[start];
            return Err(Located::new(*at, *l, "declaration not ended by `.`"));
        };
        let decl = &toks[start..start + len];
        start += len + 1;
        let Some(((at, l, first), rest)) = decl.split_first() else {
            return Err(Located::new(toks[start - 1].0, 1, "empty declaration"));
        };
        let kind = match first {
            Tok::Word(w) => match w.to_lowercase().as_str() {
                "class" => SyntaxKind::Type,
                "element" => SyntaxKind::Constructor,
                "function" => SyntaxKind::Function,
                "variable" => SyntaxKind::Variable,
                _ => {
                    return Err(Located::new(
                        *at,
                        *l,
                        "a declaration starts with Class, Element, Function or Variable",
                    ));
                }
            },
            _ => {
                return Err(Located::new(
                    *at,
                    *l,
                    "a declaration starts with Class, Element, Function or Variable",
                ));
            }
        };
        let (elem_toks, result) = if kind == SyntaxKind::Type {
            (rest, None)
        } else {
            let Some(i) = rest.iter().rposition(|t| t.2 == Tok::Word("as".into())) else {
                return Err(Located::new(*at, *l, "expected `as` and the result type"));
            };
            let (e, r) = (&rest[..i], &rest[i + 1..]);
            if r.is_empty() {
                return Err(Located::new(
                    rest[i].0,
                    2,
                    "expected the result type after `as`",
                ));
            }
            (e, Some(read_one_type(r, defs)?))
        };
        let mut elems = Vec::new();
        let mut i = 0;
        while i < elem_toks.len() {
            match &elem_toks[i].2 {
                Tok::Quoted(s) => {
                    // The parser matches strings against its tokens.
                    let one_token =
                        s.chars().all(crate::syntax::is_alnum) || s.chars().count() == 1;
                    if !one_token {
                        let (at, len, _) = &elem_toks[i];
                        return Err(Located::new(
                            *at,
                            *len,
                            format!(
                                "'{s}' is not one token of the parser (2.6.1): write each symbol apart, as in '+' '+'"
                            ),
                        ));
                    }
                    elems.push(SyntaxElem::Str(s.clone()));
                    i += 1;
                }
                _ => {
                    let j = elem_toks[i..]
                        .iter()
                        .position(|t| !matches!(t.2, Tok::Word(_)))
                        .map_or(elem_toks.len(), |n| i + n);
                    for t in read_types(&elem_toks[i..j], defs)? {
                        elems.push(SyntaxElem::Type(t));
                    }
                    i = j;
                }
            }
        }
        let def = SyntaxDef::new(kind, elems, result).map_err(|e| {
            let end = decl.last().map_or(*at + *l, |t| t.0 + t.1);
            Located::new(*at, end - *at, e.to_string())
        })?;
        names.push(defs.add(def));
    }
    Ok(names)
}

fn span_of(toks: &[(usize, usize, Tok)]) -> (usize, usize) {
    match (toks.first(), toks.last()) {
        (Some(f), Some(l)) => (f.0, l.0 + l.1 - f.0),
        _ => (0, 0),
    }
}

fn words(toks: &[(usize, usize, Tok)]) -> Result<Vec<&str>, Located> {
    toks.iter()
        .map(|(at, l, t)| match t {
            Tok::Word(w) => Ok(w.as_str()),
            _ => Err(Located::new(
                *at,
                *l,
                "a quoted string cannot be part of a type",
            )),
        })
        .collect()
}

fn read_one_type(toks: &[(usize, usize, Tok)], defs: &Definitions) -> Result<Type, Located> {
    let (at, len) = span_of(toks);
    let ws = words(toks)?;
    if ws.len() > MAX_RUN {
        return Err(Located::new(
            at,
            len,
            format!("more than {MAX_RUN} words in a type"),
        ));
    }
    let mut reader = TypeReader::new(&ws, defs);
    let readings = reader.one(0, ws.len());
    match readings.as_slice() {
        [t] => Ok(t.clone()),
        [] => Err(Located::new(
            at,
            len,
            format!("cannot read `{}` as a type", ws.join(" ")),
        )),
        many => Err(ambiguous(at, len, &ws, many.iter().map(|t| t.to_string()))),
    }
}

fn read_types(toks: &[(usize, usize, Tok)], defs: &Definitions) -> Result<Vec<Type>, Located> {
    let (at, len) = span_of(toks);
    let ws = words(toks)?;
    if ws.len() > MAX_RUN {
        return Err(Located::new(
            at,
            len,
            format!("more than {MAX_RUN} words of types in a row"),
        ));
    }
    let mut reader = TypeReader::new(&ws, defs);
    let readings = reader.seq(0);
    match readings.as_slice() {
        [ts] => Ok(ts.clone()),
        [] => Err(Located::new(
            at,
            len,
            format!("cannot read `{}` as types", ws.join(" ")),
        )),
        many => Err(ambiguous(
            at,
            len,
            &ws,
            many.iter().map(|ts| {
                ts.iter()
                    .map(|t| format!("[{t}]"))
                    .collect::<Vec<_>>()
                    .join(" ")
            }),
        )),
    }
}

fn ambiguous(
    at: usize,
    len: usize,
    ws: &[&str],
    readings: impl Iterator<Item = String>,
) -> Located {
    let list: Vec<String> = readings.collect();
    Located::new(
        at,
        len,
        format!(
            "`{}` reads in several ways: {}",
            ws.join(" "),
            list.join("; ")
        ),
    )
}

/// Reads words as types with the class definitions (memoised per span).
struct TypeReader<'a> {
    words: &'a [&'a str],
    classes: Vec<(&'a str, Vec<&'a str>)>,
    memo: HashMap<(usize, usize), Vec<Type>>,
}

impl<'a> TypeReader<'a> {
    fn new(words: &'a [&'a str], defs: &'a Definitions) -> TypeReader<'a> {
        let classes = defs
            .iter()
            .filter(|(_, d)| d.kind() == SyntaxKind::Type)
            .map(|(n, d)| (n, d.display_pattern()))
            .collect();
        TypeReader {
            words,
            classes,
            memo: HashMap::new(),
        }
    }

    /// All readings of `words[i..j]` as one type.
    fn one(&mut self, i: usize, j: usize) -> Vec<Type> {
        if let Some(r) = self.memo.get(&(i, j)) {
            return r.clone();
        }
        // Left recursion guard: a span being read reads as nothing inside.
        self.memo.insert((i, j), Vec::new());
        let mut out = Vec::new();
        if j == i + 1
            && let Some(v) = self.words[i].strip_prefix('?')
            && !v.is_empty()
        {
            out.push(Type::var(v));
        }
        for c in 0..self.classes.len() {
            let pattern = self.classes[c].1.clone();
            for args in self.pattern(&pattern, i, j) {
                out.push(Type::sym(self.classes[c].0, args));
                if out.len() > MAX_READINGS {
                    break;
                }
            }
        }
        out.dedup();
        self.memo.insert((i, j), out.clone());
        out
    }

    /// All argument lists with which `pattern` reads `words[i..j]`.
    fn pattern(&mut self, pattern: &[&str], i: usize, j: usize) -> Vec<Vec<Type>> {
        let Some((first, rest)) = pattern.split_first() else {
            return if i == j { vec![Vec::new()] } else { Vec::new() };
        };
        let mut out = Vec::new();
        if first.is_empty() {
            for end in i + 1..=j {
                for t in self.one(i, end) {
                    for mut more in self.pattern(rest, end, j) {
                        more.insert(0, t.clone());
                        out.push(more);
                    }
                }
                if out.len() > MAX_READINGS {
                    break;
                }
            }
        } else if i < j && self.words[i] == *first {
            out = self.pattern(rest, i + 1, j);
        }
        out
    }

    /// All readings of `words[i..]` as a nonempty sequence of types.
    fn seq(&mut self, i: usize) -> Vec<Vec<Type>> {
        let n = self.words.len();
        let mut out = Vec::new();
        for end in i + 1..=n {
            for t in self.one(i, end) {
                if end == n {
                    out.push(vec![t.clone()]);
                } else {
                    for mut more in self.seq(end) {
                        more.insert(0, t.clone());
                        out.push(more);
                    }
                }
            }
            if out.len() > MAX_READINGS {
                break;
            }
        }
        out
    }
}

/// The basic syntax definitions of 2.2.4, in the notation above.
pub const BASIC_DEFINITIONS: &str = r"
Class 'bit'.
Element 'bit' '0' as bit.
Element 'bit' '1' as bit.
Class 'char'.
Element 'char' 'code' bit bit bit bit bit bit bit bit as char.
Class 'term' 'type'.
Class term type 'list'.
Element '[' ']' as ?a list.
Element ?a ':' ':' ?a list as ?a list.
Class 'string'.
Element 'string' 'from' char list as string.
Class 'boolean'.
Element 'true' as boolean.
Element 'false' as boolean.
Class 'ternary' 'truth' 'value'.
Element 'true' as ternary truth value.
Element 'unknown' as ternary truth value.
Element 'false' as ternary truth value.
// Term types (the special type of term types).
Element '?' string as term type.
Element 'type' string ':' term type list as term type.
Element 'funtype' term type list '-' '>' term type as term type.
Class 'syntax' 'element'.
Element '''' string '''' as syntax element.
Element term type as syntax element.
Class 'syntax' 'element' 'sequence'.
Element syntax element as syntax element sequence.
Element syntax element syntax element sequence as syntax element sequence.
Class 'syntax' 'definition'.
Element 'class' syntax element sequence as syntax definition.
Element 'element' syntax element sequence 'as' term type as syntax definition.
Element 'function' syntax element sequence 'as' term type as syntax definition.
Element 'variable' syntax element sequence 'as' term type as syntax definition.
Class 'term'.
Element 'var' string ':' term type '(' term list ')' as term.
Element 'term' string '(' term list ')' as term.
Class 'constructor'.
Element 'constructor' string 'from' term type list 'to' term type as constructor.
Class 'rewrite' 'rule'.
Element 'rewrite' term 'to' term as rewrite rule.
Class 'input' 'rewrite' 'rule' 'of' term type.
Element 'let' ?a 'be' ?a as input rewrite rule of ?a.
Class 'priority' 'input' 'rewrite' 'rule' 'of' term type.
Element 'let' 'major' ?a 'be' ?a as priority input rewrite rule of ?a.
Class 'function' 'definition'.
Element 'function' string 'from' term type list 'to' term type as function definition.
Class 'class' 'definition'.
Element 'class' 'of' term type as class definition.
Class term type 'exception'.
Element '!' '!' ?a '!' '!' as ?other_than_a! exception.
Element '+' '+' ?a '+' '+' as ?a exception.
// If-then-else.
Function 'if' boolean 'then' ?a 'else' ?a as ?a.
// Bracketing = identity.
Function '(' ?b ')' as ?b.
// Verbatim function explained later.
Function '<' '|' ?b '|' '>' as ?b.
// Preference function used for disambiguating parses.
Function term 'parsed' 'preferred' 'to' term as ternary truth value.
// Preprocessing function to customize the parser.
Function '#' '#' '#' ?p as ?q.
// Meta-level functions allow changing the system dynamically.
Function 'code' ?a 'as' 'term' as term.
Function 'decode' term 'with' 'type' 'as' ?a as ?a.
Function 'get' 'class' 'definitions' as class definition list.
Function 'get' 'function' 'definitions' as function definition list.
Function 'get' 'constructors' as constructor list.
// Special class used for loading files.
Class 'outside' 'paths'.
Element 'library' ':' '/' string as outside paths.
Element 'file' ':' '/' string as outside paths.
Class 'load' 'command'.
Element 'load' 'state' outside paths as load command.
// Closing context removes visible variables from scope.
Class 'system' 'commands' 'of' term type.
Element 'close' 'context' as system commands of ?a.
";

/// The basic syntax definitions of 2.2.4.
pub fn basic_definitions() -> Definitions {
    let mut defs = Definitions::new();
    // The text is a constant of this crate, checked by the tests below.
    if let Err(e) = read_declarations(BASIC_DEFINITIONS, &mut defs) {
        unreachable!("the basic definitions read: {e}")
    }
    defs
}

/// Generated names of the basic definitions the rewriting machinery
/// gives a meaning to (2.5.2).
pub mod names {
    /// If-then-else.
    pub const IF: &str = "Fif_\\?_then_\\?_else_\\?";
    /// Bracketing, the identity removed before normalisation.
    pub const BRACKET: &str = "F\\lb_\\?_\\rb";
    /// Verbatim: its argument is not normalised.
    pub const VERBATIM: &str = "F<_|_\\?_|_>";
    /// The boolean constants.
    pub const TRUE: &str = "Ctrue";
    pub const FALSE: &str = "Cfalse";
    /// The boolean type.
    pub const BOOLEAN: &str = "Tboolean";
    /// Lists.
    pub const LIST: &str = "T\\?_list";
    pub const NIL: &str = "C\\ls_\\rs";
    pub const CONS: &str = "C\\?_:_:_\\?";
    /// Strings and characters.
    pub const STRING: &str = "Tstring";
    pub const STRING_FROM: &str = "Cstring_from_\\?";
    pub const CHAR_CODE: &str = "Cchar_code_\\?_\\?_\\?_\\?_\\?_\\?_\\?_\\?";
    pub const BIT0: &str = "Cbit_0";
    pub const BIT1: &str = "Cbit_1";
    /// Term types and coded terms.
    pub const TYPE_VAR: &str = "C?_\\?";
    pub const TYPE_SYM: &str = "Ctype_\\?_:_\\?";
    pub const TYPE_FUN: &str = "Cfuntype_\\?_-_>_\\?";
    pub const TERM_VAR: &str = "Cvar_\\?_:_\\?_\\lb_\\?_\\rb";
    pub const TERM_SYM: &str = "Cterm_\\?_\\lb_\\?_\\rb";
    /// The meta-level functions and what they give.
    pub const CODE: &str = "Fcode_\\?_as_term";
    pub const DECODE: &str = "Fdecode_\\?_with_type_as_\\?";
    pub const GET_CLASSES: &str = "Fget_class_definitions";
    pub const GET_FUNCTIONS: &str = "Fget_function_definitions";
    pub const GET_CONSTRUCTORS: &str = "Fget_constructors";
    pub const CLASS_OF: &str = "Cclass_of_\\?";
    pub const FUNCTION_DEF: &str = "Cfunction_\\?_from_\\?_to_\\?";
    pub const CONSTRUCTOR_DEF: &str = "Cconstructor_\\?_from_\\?_to_\\?";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{TERM_TYPE, term_type};

    #[test]
    fn basic_definitions_read_with_their_names() {
        let defs = basic_definitions();
        let names: Vec<&str> = defs.iter().map(|(n, _)| n).collect();
        for n in [
            names::IF,
            names::BRACKET,
            names::VERBATIM,
            names::TRUE,
            names::FALSE,
            names::BOOLEAN,
            names::LIST,
            names::NIL,
            names::CONS,
            names::STRING,
            names::STRING_FROM,
            names::CHAR_CODE,
            names::BIT0,
            names::BIT1,
            names::TYPE_VAR,
            names::TYPE_SYM,
            names::TYPE_FUN,
            names::TERM_VAR,
            names::TERM_SYM,
            names::CODE,
            names::DECODE,
            names::GET_CLASSES,
            names::GET_FUNCTIONS,
            names::GET_CONSTRUCTORS,
            names::CLASS_OF,
            names::FUNCTION_DEF,
            names::CONSTRUCTOR_DEF,
            TERM_TYPE,
        ] {
            assert!(names.contains(&n), "{n} missing from {names:?}");
        }
        // The ternary `true` and `false` come second: they get a suffix.
        assert!(names.contains(&"Ctrue_0\\") && names.contains(&"Cfalse_0\\"));
        let list_a = Type::sym(names::LIST, vec![Type::var("a")]);
        let cons = defs.get(names::CONS).expect("cons");
        assert_eq!(
            cons.symbol_type(),
            Some(Type::fun(vec![Type::var("a"), list_a.clone()], list_a))
        );
        let ite = defs.get(names::IF).expect("if");
        assert_eq!(
            ite.symbol_type(),
            Some(Type::fun(
                vec![
                    Type::sym(names::BOOLEAN, vec![]),
                    Type::var("a"),
                    Type::var("a")
                ],
                Type::var("a")
            ))
        );
        // Two types side by side: syntax element, syntax element sequence.
        let seq = defs
            .get("C\\?_\\?")
            .expect("element followed by a sequence");
        assert_eq!(seq.arg_types().count(), 2);
        let term_var = defs.get(names::TERM_VAR).expect("var");
        assert_eq!(term_var.arg_types().nth(1), Some(&term_type()));
        assert_eq!(
            defs.display_type(term_var.result_type().expect("type")),
            "term"
        );
        assert_eq!(
            defs.display_type(&Type::sym(names::LIST, vec![Type::sym("Tchar", vec![])])),
            "char list"
        );
    }

    #[test]
    fn errors_are_located() {
        let mut defs = basic_definitions();
        let cases = [
            (
                "Element 'x' as nothing.",
                "cannot read `nothing` as a type",
                15,
            ),
            ("Element 'x' as boolean", "not ended", 0),
            ("Elemen 'x' as boolean.", "starts with", 0),
            ("Element 'x boolean.", "unterminated", 8),
            ("Element 'x' boolean.", "expected `as`", 0),
            ("Class 'x' boolean.", "no type but term type", 0),
            ("Element 'x' as ?a.", "type symbol over type variables", 0),
            ("Function 'x' '++' as boolean.", "not one token", 13),
        ];
        let long = format!("Element 'x' as boolean{}.", " list".repeat(MAX_RUN));
        for (text, msg, at) in
            cases
                .into_iter()
                .chain([(long.as_str(), "more than 32 words in a type", 15)])
        {
            let e = read_declarations(text, &mut defs).expect_err(text);
            assert!(e.message.contains(msg), "{text}: {}", e.message);
            assert_eq!(e.at, at, "{text}: {}", e.message);
        }
    }

    #[test]
    fn ambiguity_lists_the_readings() {
        let mut defs = Definitions::new();
        read_declarations("Class 'a'. Class 'a' 'a'.", &mut defs).expect("classes");
        let e = read_declarations("Element 'x' a a as a.", &mut defs).expect_err("ambiguous");
        assert!(e.message.contains("several ways"), "{}", e.message);
        assert!(
            e.message.contains("[Ta] [Ta]") && e.message.contains("[Ta_a]"),
            "{}",
            e.message
        );
    }

    #[test]
    fn a_class_of_one_type_does_not_loop() {
        let mut defs = basic_definitions();
        read_declarations("Class term type.", &mut defs).expect("class");
        let names = read_declarations("Element 'x' as boolean.", &mut defs).expect("reads");
        assert_eq!(names, vec!["Cx".to_string()]);
    }
}
