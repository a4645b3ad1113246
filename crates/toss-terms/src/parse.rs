//! The parser (spec 2.6): the lexer (2.6.1), a bottom-up chart parser over
//! the syntax definitions with type reconstruction each time a definition
//! is completed (2.6.2, 2.6.3), and disambiguation by generality and by
//! user preferences (2.6.4). A remaining ambiguity is an error listing
//! the parses.
//!
//! Choices where the spec leaves room:
//! - A quoted `"..."` is one token holding the text between the quotes;
//!   `&"` is the quote character as an ordinary token. The entities
//!   `&amp; &quot; &apos; &lt; &gt;` are single tokens anywhere.
//! - Besides each definition, its functional form (2.2.1) parses too, to
//!   the definition's symbol as a leaf (`{ } + { }` is the function `+`).
//! - A preference `p1 preferred to p2` (patterns with variables) says a
//!   parse `t1` is better than `t2` when they differ only inside one
//!   position where `t1` is an instance of `p1` and `t2` the same instance
//!   of `p2`. The spec routes this through a user-defined function over
//!   coded terms; patterns express the same rules without meta-level
//!   coding.
//! - Unary definitions (a single type, `Element term type as syntax
//!   element`) are applied at most [`UNARY_ROUNDS`] times per span, so
//!   cycles among them cannot loop; a span holds at most
//!   [`MAX_ITEMS`] parses, more is an error, and so is typing more than
//!   [`MAX_COMPLETIONS`] partial parses in one parse (a text that reads in
//!   very many ways, like a run of `?`, each a term type `? string`).

use std::collections::HashMap;

use crate::decl::names;
use crate::diag::Located;
use crate::syntax::{Definitions, SyntaxDef, SyntaxElem, SyntaxKind, display, is_alnum};
use crate::term::{Head, Signature, Term, VType, code_list, code_string};
use crate::types::Type;
use crate::typing::reconstruct;

/// Most parses kept for one span of tokens.
pub const MAX_ITEMS: usize = 64;
/// Most tokens of one input.
pub const MAX_TOKENS: usize = 200;
/// Rounds of unary definitions per span.
pub const UNARY_ROUNDS: usize = 3;
/// Most partial parses typed in one parse (each is a type
/// reconstruction): more is an error, where a text reading in very many
/// ways would otherwise take hours.
pub const MAX_COMPLETIONS: usize = 5_000;

/// A token with its byte span in the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub text: String,
    /// Whether it came from a quoted `"..."`.
    pub quoted: bool,
    pub at: usize,
    pub len: usize,
}

const ENTITIES: [(&str, &str); 5] = [
    ("&amp;", "&"),
    ("&quot;", "\""),
    ("&apos;", "'"),
    ("&lt;", "<"),
    ("&gt;", ">"),
];

/// The lexer of 2.6.1; `base` is added to every offset (the input's place
/// in a larger file).
pub fn lex(text: &str, base: usize) -> Result<Vec<Token>, Located> {
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let tok = |text: &str, quoted, at: usize, len| Token {
        text: text.to_string(),
        quoted,
        at: base + at,
        len,
    };
    while let Some(c) = text[i..].chars().next() {
        let rest = &text[i..];
        if c.is_whitespace() {
            i += c.len_utf8();
        } else if rest.starts_with("&\"") {
            out.push(tok("\"", false, i, 2));
            i += 2;
        } else if let Some((e, ch)) = ENTITIES.iter().find(|(e, _)| rest.starts_with(e)) {
            out.push(tok(ch, false, i, e.len()));
            i += e.len();
        } else if c == '"' {
            let Some(n) = rest[1..].find('"') else {
                return Err(Located::new(base + i, 1, "unterminated quoted string"));
            };
            out.push(tok(&rest[1..1 + n], true, i, n + 2));
            i += n + 2;
        } else if is_alnum(c) {
            let n = rest.find(|d: char| !is_alnum(d)).unwrap_or(rest.len());
            out.push(tok(&rest[..n], false, i, n));
            i += n;
        } else {
            out.push(tok(&rest[..c.len_utf8()], false, i, c.len_utf8()));
            i += c.len_utf8();
        }
    }
    // The first word, if capitalised but not all capitals, is lowercased.
    if let Some(first) = out.iter_mut().find(|t| t.text != "'")
        && !first.quoted
    {
        let mut chars = first.text.chars();
        if let Some(c) = chars.next()
            && c.is_uppercase()
            && first.text.chars().any(|d| d.is_lowercase())
        {
            first.text = c.to_lowercase().chain(chars).collect();
        }
    }
    Ok(out)
}

/// The token spans of a parsed term, in its shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spans {
    /// Token range `[from, to)`.
    pub tokens: (usize, usize),
    pub children: Vec<Spans>,
}

/// A parse: the term, its type, its variables' reconstructed types and
/// where each node came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub term: Term,
    pub ty: Type,
    pub vtype: VType,
    pub spans: Spans,
}

impl Parsed {
    /// The byte span of the node at `path` in the input the tokens are of.
    pub fn byte_span(&self, tokens: &[Token], path: &[usize]) -> (usize, usize) {
        let mut s = &self.spans;
        for &i in path {
            match s.children.get(i) {
                Some(c) => s = c,
                None => break,
            }
        }
        let (from, to) = s.tokens;
        match (tokens.get(from), tokens.get(to.saturating_sub(1))) {
            (Some(a), Some(b)) => (a.at, (b.at + b.len).saturating_sub(a.at)),
            _ => (0, 0),
        }
    }
}

/// One way a definition reads: its pattern and what it builds.
#[derive(Clone, Debug)]
struct Production {
    /// Strings (`Ok`), or a slot with its type (`Err`).
    pattern: Vec<Result<String, Type>>,
    head: Head,
    /// A type definition builds the coded type `type name : args`.
    class: bool,
}

/// A preference of 2.6.4: parses like `better` beat parses like `worse`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Preference {
    pub better: Term,
    pub worse: Term,
}

/// The syntax definitions in force with what parsing needs of them.
#[derive(Clone, Debug)]
pub struct Grammar {
    pub defs: Definitions,
    pub sig: Signature,
    pub vtype: VType,
    productions: Vec<Production>,
    pub preferences: Vec<Preference>,
}

impl Grammar {
    pub fn new(defs: Definitions) -> Grammar {
        let names: Vec<String> = defs.iter().map(|(n, _)| n.to_string()).collect();
        let mut g = Grammar {
            defs,
            sig: Signature::new(),
            vtype: VType::new(),
            productions: Vec::new(),
            preferences: Vec::new(),
        };
        g.extend(&names);
        g
    }

    /// Takes in definitions just added to `defs` (by their names): their
    /// symbols or variables and their productions. Adding declarations one
    /// by one so costs each its own size, not the size of all before it.
    pub fn extend(&mut self, names: &[String]) {
        for name in names {
            let Some(def) = self.defs.get(name) else {
                continue;
            };
            self.sig.add_definition(name, def, &mut self.vtype);
            self.productions.push(production(name, def));
            if let Some(f) = def.functional() {
                let head = head_of(name, def);
                self.productions.push(Production {
                    pattern: f
                        .elems()
                        .iter()
                        .filter_map(|e| match e {
                            SyntaxElem::Str(s) => Some(Ok(s.clone())),
                            SyntaxElem::Type(_) => None,
                        })
                        .collect(),
                    head,
                    class: false,
                });
            }
        }
    }
}

fn head_of(name: &str, def: &SyntaxDef) -> Head {
    if def.kind() == SyntaxKind::Variable {
        Head::Var(name.into())
    } else {
        Head::Sym(name.into())
    }
}

fn production(name: &str, def: &SyntaxDef) -> Production {
    Production {
        pattern: def
            .elems()
            .iter()
            .map(|e| match e {
                SyntaxElem::Str(s) => Ok(s.clone()),
                SyntaxElem::Type(t) => Err(t.clone()),
            })
            .collect(),
        head: head_of(name, def),
        class: def.kind() == SyntaxKind::Type,
    }
}

#[derive(Clone, Debug)]
struct Item {
    term: Term,
    ty: Type,
    vtype: VType,
    spans: Spans,
}

struct Chart<'g> {
    g: &'g Grammar,
    tokens: &'g [Token],
    cells: HashMap<(usize, usize), Vec<Item>>,
    /// For each start, the ends of its nonempty cells (ascending), so that
    /// a slot only tries spans that parse.
    ends: Vec<Vec<usize>>,
    /// Partial parses typed so far (see [`MAX_COMPLETIONS`]).
    completions: usize,
}

impl Chart<'_> {
    /// All argument lists with which `pattern` reads tokens `[i, j)`.
    fn matches(
        &self,
        pattern: &[Result<String, Type>],
        i: usize,
        j: usize,
    ) -> Vec<Vec<(Term, Spans)>> {
        let Some((first, rest)) = pattern.split_first() else {
            return if i == j { vec![Vec::new()] } else { Vec::new() };
        };
        // Each element takes at least one token.
        if j - i < pattern.len() {
            return Vec::new();
        }
        let mut out = Vec::new();
        match first {
            Ok(s) => {
                let t = &self.tokens[i];
                if !t.quoted && t.text == *s {
                    out = self.matches(rest, i + 1, j);
                }
            }
            Err(ty) if *ty == Type::sym(names::STRING, vec![]) => {
                for mut more in self.matches(rest, i + 1, j) {
                    let leaf = Spans {
                        tokens: (i, i + 1),
                        children: Vec::new(),
                    };
                    more.insert(0, (code_string(&self.tokens[i].text), leaf));
                    out.push(more);
                }
            }
            Err(_) => {
                let last = j - rest.len();
                for &end in self.ends[i].iter().take_while(|&&e| e <= last) {
                    let Some(items) = self.cells.get(&(i, end)) else {
                        continue;
                    };
                    if items.is_empty() {
                        continue;
                    }
                    let tails = self.matches(rest, end, j);
                    for item in items {
                        for tail in &tails {
                            let mut args = vec![(item.term.clone(), item.spans.clone())];
                            args.extend(tail.iter().cloned());
                            out.push(args);
                            if out.len() > MAX_ITEMS * 4 {
                                return out;
                            }
                        }
                    }
                }
            }
        }
        out
    }

    /// Counts one completion against [`MAX_COMPLETIONS`].
    fn spend(&mut self, i: usize, j: usize) -> Result<(), Located> {
        self.completions += 1;
        if self.completions > MAX_COMPLETIONS {
            let (a, b) = (&self.tokens[i], &self.tokens[j - 1]);
            return Err(Located::new(
                a.at,
                b.at + b.len - a.at,
                format!(
                    "this reads in too many ways (more than {MAX_COMPLETIONS} partial parses tried here): add brackets"
                ),
            ));
        }
        Ok(())
    }

    /// Builds the term of a production over arguments and types it.
    fn complete(
        &self,
        p: &Production,
        args: Vec<(Term, Spans)>,
        i: usize,
        j: usize,
    ) -> Option<Item> {
        let (terms, spans): (Vec<Term>, Vec<Spans>) = args.into_iter().unzip();
        let term = if p.class {
            Term::sym(
                names::TYPE_SYM,
                vec![code_string(p.head.name()), code_list(terms)],
            )
        } else {
            Term {
                head: p.head.clone(),
                args: terms,
            }
        };
        // A class's coded type: its children are the coded arguments.
        let spans = if p.class {
            Spans {
                tokens: (i, j),
                children: vec![
                    Spans {
                        tokens: (i, j),
                        children: Vec::new(),
                    },
                    Spans {
                        tokens: (i, j),
                        children: spans,
                    },
                ],
            }
        } else {
            Spans {
                tokens: (i, j),
                children: spans,
            }
        };
        let vars: VType = term
            .term_vars()
            .into_iter()
            .filter_map(|x| self.g.vtype.get(&x).map(|t| (x, t.clone())))
            .collect();
        let r = reconstruct(&self.g.sig, &term, &vars).ok()?;
        Some(Item {
            ty: r.term_type().clone(),
            vtype: r.reconstructed(&vars),
            term,
            spans,
        })
    }

    fn fill(&mut self, i: usize, j: usize) -> Result<(), Located> {
        let g = self.g;
        let mut items: Vec<Item> = Vec::new();
        let add = |items: &mut Vec<Item>, item: Item| -> Result<bool, Located> {
            if items.iter().any(|o| o.term == item.term) {
                return Ok(false);
            }
            if items.len() >= MAX_ITEMS {
                let (a, b) = (&self.tokens[i], &self.tokens[j - 1]);
                return Err(Located::new(
                    a.at,
                    b.at + b.len - a.at,
                    format!("more than {MAX_ITEMS} parses of this part: add brackets"),
                ));
            }
            items.push(item);
            Ok(true)
        };
        let (unary, others): (Vec<&Production>, Vec<&Production>) = g
            .productions
            .iter()
            .partition(|p| p.pattern.len() == 1 && p.pattern[0].is_err());
        let (first, last) = (&self.tokens[i], &self.tokens[j - 1]);
        let fits = |p: &Production| {
            let ok = |e: Option<&Result<String, Type>>, t: &Token| match e {
                Some(Ok(s)) => !t.quoted && t.text == *s,
                _ => true,
            };
            ok(p.pattern.first(), first) && ok(p.pattern.last(), last)
        };
        for p in others.into_iter().filter(|p| fits(p)) {
            for args in self.matches(&p.pattern, i, j) {
                self.spend(i, j)?;
                if let Some(item) = self.complete(p, args, i, j) {
                    add(&mut items, item)?;
                }
            }
        }
        if items.is_empty() {
            return Ok(());
        }
        self.ends[i].push(j);
        // Unary definitions read this span's own parses: a few rounds.
        for _ in 0..UNARY_ROUNDS {
            self.cells.insert((i, j), items.clone());
            let mut grew = false;
            for p in &unary {
                for args in self.matches(&p.pattern, i, j) {
                    self.spend(i, j)?;
                    if let Some(item) = self.complete(p, args, i, j) {
                        grew |= add(&mut items, item)?;
                    }
                }
            }
            if !grew {
                break;
            }
        }
        self.cells.insert((i, j), items);
        Ok(())
    }
}

/// Whether `pattern` matches `t`: some substitution for the pattern's
/// variables (leaves) turns it into `t`.
pub fn matches_term(pattern: &Term, t: &Term) -> bool {
    fn go<'a>(p: &'a Term, t: &'a Term, s: &mut Vec<(&'a str, &'a Term)>) -> bool {
        if let Head::Var(x) = &p.head
            && p.args.is_empty()
        {
            if let Some((_, bound)) = s.iter().find(|(y, _)| **y == **x) {
                return *bound == t;
            }
            s.push((x, t));
            return true;
        }
        p.head == t.head
            && p.args.len() == t.args.len()
            && p.args.iter().zip(&t.args).all(|(a, b)| go(a, b, s))
    }
    go(pattern, t, &mut Vec::new())
}

/// Whether the preference says `a` is better than `b` (see the module doc).
fn prefers(pref: &Preference, a: &Term, b: &Term) -> bool {
    let mut x = a;
    let mut y = b;
    loop {
        if x == y {
            return false;
        }
        // Here: the same instance of both patterns?
        let both = Term::sym("", vec![pref.better.clone(), pref.worse.clone()]);
        let pair = Term::sym("", vec![x.clone(), y.clone()]);
        if matches_term(&both, &pair) {
            return true;
        }
        // Descend while the two differ in exactly one child.
        if x.head != y.head || x.args.len() != y.args.len() {
            return false;
        }
        let differing: Vec<usize> = (0..x.args.len())
            .filter(|&k| x.args[k] != y.args[k])
            .collect();
        match differing.as_slice() {
            [k] => {
                x = &x.args[*k];
                y = &y.args[*k];
            }
            _ => return false,
        }
    }
}

/// Parses a token sequence into one term of a type unifying with
/// `expected` (if given), disambiguating by generality and preferences.
pub fn parse_tokens(
    g: &Grammar,
    tokens: &[Token],
    expected: Option<&Type>,
) -> Result<Parsed, Located> {
    let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
        return Err(Located::new(0, 0, "nothing to parse"));
    };
    let whole = (first.at, last.at + last.len - first.at);
    if tokens.len() > MAX_TOKENS {
        return Err(Located::new(
            whole.0,
            whole.1,
            format!("more than {MAX_TOKENS} tokens"),
        ));
    }
    let mut chart = Chart {
        g,
        tokens,
        cells: HashMap::new(),
        ends: vec![Vec::new(); tokens.len()],
        completions: 0,
    };
    let n = tokens.len();
    for len in 1..=n {
        for i in 0..=n - len {
            chart.fill(i, i + len)?;
        }
    }
    let mut items = chart.cells.remove(&(0, n)).unwrap_or_default();
    if let Some(e) = expected {
        items.retain(|it| crate::types::mgu2(&[(it.ty.clone(), e.clone())]).is_ok());
    }
    if items.is_empty() {
        let what = expected.map_or(String::new(), |e| format!(" as {}", g.defs.display_type(e)));
        return Err(Located::new(
            whole.0,
            whole.1,
            format!("cannot parse this{what}"),
        ));
    }
    // Generality: drop v when some u matches v but not the reverse.
    let general: Vec<bool> = (0..items.len())
        .map(|v| {
            !(0..items.len()).any(|u| {
                u != v
                    && matches_term(&items[u].term, &items[v].term)
                    && !matches_term(&items[v].term, &items[u].term)
            })
        })
        .collect();
    let mut items: Vec<Item> = items
        .into_iter()
        .zip(general)
        .filter_map(|(it, keep)| keep.then_some(it))
        .collect();
    // Preferences: drop every parse for which there is a better one.
    if items.len() > 1 && !g.preferences.is_empty() {
        let beaten: Vec<bool> = (0..items.len())
            .map(|v| {
                (0..items.len()).any(|u| {
                    u != v
                        && g.preferences
                            .iter()
                            .any(|p| prefers(p, &items[u].term, &items[v].term))
                })
            })
            .collect();
        if beaten.iter().any(|b| !b) {
            items = items
                .into_iter()
                .zip(beaten)
                .filter_map(|(it, b)| (!b).then_some(it))
                .collect();
        }
    }
    if items.len() > 1 {
        let list: Vec<String> = items
            .iter()
            .map(|it| display_bracketed(&it.term, &g.defs))
            .collect();
        return Err(Located::new(
            whole.0,
            whole.1,
            format!("ambiguous: {} parses: {}", list.len(), list.join("  |  ")),
        ));
    }
    let Some(it) = items.pop() else {
        return Err(Located::new(whole.0, whole.1, "cannot parse this"));
    };
    Ok(Parsed {
        term: it.term,
        ty: it.ty,
        vtype: it.vtype,
        spans: it.spans,
    })
}

/// Lexes and parses `text` (at `base` in its file).
pub fn parse(
    g: &Grammar,
    text: &str,
    base: usize,
    expected: Option<&Type>,
) -> Result<Parsed, Located> {
    let tokens = lex(text, base)?;
    if tokens.is_empty() {
        return Err(Located::new(base, text.len(), "nothing to parse"));
    }
    parse_tokens(g, &tokens, expected)
}

/// The user's syntax with every argument of more than one token in
/// brackets: text that reads back as the same tree. The spacing is the
/// heuristic's of 2.2.3, so `x *(y + z)` (two non-alphanumerics meet).
pub fn display_bracketed(t: &Term, defs: &Definitions) -> String {
    if let Some(s) = crate::term::shown_as_string(t) {
        return s;
    }
    let args: Vec<String> = t
        .args
        .iter()
        .map(|a| {
            let s = display_bracketed(a, defs);
            let bracketed = matches!(&a.head, Head::Sym(f) if &**f == names::BRACKET);
            let in_brackets = matches!(&t.head, Head::Sym(f) if &**f == names::BRACKET);
            let string = crate::term::shown_as_string(a).is_some();
            if a.args.is_empty() || bracketed || in_brackets || string {
                s
            } else {
                format!("({s})")
            }
        })
        .collect();
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    match defs.get(t.head.name()) {
        Some(def) => display(&def.display_pattern(), &refs),
        None => display(&[t.head.name()], &refs),
    }
}

/// The user's syntax, with brackets only if the plain display (2.2.3)
/// would not read back as `t` in this grammar.
pub fn display_user(t: &Term, g: &Grammar) -> String {
    let plain = crate::term::display_term(t, &g.defs);
    match parse(g, &plain, 0, None) {
        Ok(p) if p.term == *t => plain,
        _ => display_bracketed(t, &g.defs),
    }
}

/// Removes bracketing (the identity of 2.2.4) from a parsed term and its
/// spans alike.
pub fn strip_brackets(t: Term, s: Spans, depth: usize) -> (Term, Spans) {
    if depth > crate::term::MAX_TERM_DEPTH * 4 {
        return (t, s);
    }
    if matches!(&t.head, Head::Sym(f) if &**f == names::BRACKET) && t.args.len() == 1 {
        let (Some(inner), Some(inner_s)) =
            (t.args.into_iter().next(), s.children.into_iter().next())
        else {
            return (
                Term::sym(names::BRACKET, vec![]),
                Spans {
                    tokens: s.tokens,
                    children: vec![],
                },
            );
        };
        return strip_brackets(inner, inner_s, depth + 1);
    }
    // A token coded as a term (a quoted string, a class's coded type)
    // has fewer spans than children: nothing in it was bracketed.
    if s.children.len() != t.args.len() {
        return (t, s);
    }
    let children = s.children;
    let (args, spans): (Vec<Term>, Vec<Spans>) = t
        .args
        .into_iter()
        .zip(children)
        .map(|(a, c)| strip_brackets(a, c, depth + 1))
        .unzip();
    (
        Term { head: t.head, args },
        Spans {
            tokens: s.tokens,
            children: spans,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::{basic_definitions, read_declarations};

    fn texts(toks: &[Token]) -> Vec<&str> {
        toks.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn lexer_of_2_6_1() {
        let t = lex("Book x+1 \"a b\" &\"c&apos;d&amp; Zażółć", 0).expect("lexes");
        assert_eq!(
            texts(&t),
            vec![
                "book",
                "x",
                "+",
                "1",
                "a b",
                "\"",
                "c",
                "'",
                "d",
                "&",
                "Zażółć"
            ]
        );
        assert!(t[4].quoted && !t[5].quoted);
        assert_eq!((t[4].at, t[4].len), (9, 5));
        // All capitals stay; an apostrophe is not the first word.
        assert_eq!(
            texts(&lex("NASA is", 0).expect("lexes")),
            vec!["NASA", "is"]
        );
        assert_eq!(texts(&lex("'Book", 0).expect("lexes")), vec!["'", "book"]);
        let e = lex("a \"b", 0).expect_err("unterminated");
        assert_eq!(e.at, 2);
    }

    fn arith() -> Grammar {
        let mut defs = basic_definitions();
        read_declarations(
            "Class 'nat'. Element 'zero' as nat. Element 's' nat as nat. \
             Function nat '+' nat as nat. Function nat '*' nat as nat. \
             Variable 'x' as nat. Variable 'y' as nat. Variable 'z' as nat. \
             Variable 'p' as boolean.",
            &mut defs,
        )
        .expect("declarations");
        Grammar::new(defs)
    }

    fn show(g: &Grammar, p: &Parsed) -> String {
        display_bracketed(&p.term, &g.defs)
    }

    #[test]
    fn parses_with_types() {
        let g = arith();
        let p = parse(&g, "s s zero", 0, None).expect("parses");
        assert_eq!(p.term.to_string(), "Cs_\\?(Cs_\\?(Czero))");
        assert_eq!(p.ty, Type::sym("Tnat", vec![]));
        // Brackets parse to the bracketing function.
        let p = parse(&g, "(x + y) * z", 0, None).expect("parses");
        assert_eq!(show(&g, &p), "(x + y)* z");
        // Typing prunes: `if p then x else zero` but not `if x then ...`.
        let p = parse(&g, "if p then x else zero", 0, None).expect("parses");
        assert_eq!(p.term.head.name(), names::IF);
        let e = parse(&g, "if x then p else zero", 0, None).expect_err("ill-typed");
        assert!(e.message.contains("cannot parse"), "{}", e.message);
        // A list of nats through the basic definitions.
        let p = parse(&g, "zero :: s zero :: [ ]", 0, None).expect("parses");
        assert_eq!(
            p.ty,
            Type::sym(names::LIST, vec![Type::sym("Tnat", vec![])])
        );
        // Verbatim.
        let p = parse(&g, "< | x + y | >", 0, None).expect("parses");
        assert_eq!(p.term.head.name(), names::VERBATIM);
        // A string token.
        let p = parse(&g, "string from [ ]", 0, None).expect("parses");
        assert_eq!(p.ty, Type::sym(names::STRING, vec![]));
    }

    #[test]
    fn ambiguity_is_an_error_listing_the_parses() {
        let g = arith();
        let e = parse(&g, "x * y + z", 0, None).expect_err("ambiguous");
        assert!(e.message.contains("ambiguous: 2 parses"), "{}", e.message);
        assert!(e.message.contains("(x * y)+ z"), "{}", e.message);
        assert!(e.message.contains("x *(y + z)"), "{}", e.message);
        assert_eq!((e.at, e.len), (0, 9));
    }

    /// The preference example of 2.6.4.
    #[test]
    fn preference_of_2_6_4() {
        let mut g = arith();
        let better = parse(&g, "(x * y) + z", 0, None).expect("better");
        let worse = parse(&g, "x * (y + z)", 0, None).expect("worse");
        let (better, _) = strip_brackets(better.term, better.spans, 0);
        let (worse, _) = strip_brackets(worse.term, worse.spans, 0);
        g.preferences.push(Preference { better, worse });
        let p = parse(&g, "x * y + z", 0, None).expect("disambiguated");
        assert_eq!(show(&g, &p), "(x * y)+ z");
        // Also deeper in a term and with other instances.
        let p = parse(&g, "s (x * y + z)", 0, None).expect("disambiguated");
        assert_eq!(show(&g, &p), "s ((x * y)+ z)");
    }

    #[test]
    fn generality_prefers_the_general_parse() {
        // `a` reads as a variable of any type or as the constant a of t:
        // the variable matches the constant, not the reverse.
        let mut defs = basic_definitions();
        read_declarations(
            "Class 't'. Element 'a' as t. Variable 'a' as ?q. Function 'f' t as t.",
            &mut defs,
        )
        .expect("declarations");
        let g = Grammar::new(defs);
        let p = parse(&g, "f a", 0, None).expect("parses");
        assert_eq!(p.term.to_string(), "Ff_\\?(Va)");
    }

    #[test]
    fn functional_forms_parse_to_leaves() {
        let g = arith();
        let p = parse(&g, "{ } + { }", 0, None).expect("parses");
        assert_eq!(p.term, Term::sym("F\\?_+_\\?", vec![]));
        assert_eq!(p.ty.tyarity(), 2);
    }

    #[test]
    fn display_user_brackets_only_when_needed() {
        let g = arith();
        let t = parse(&g, "s s zero", 0, None).expect("parses").term;
        assert_eq!(display_user(&t, &g), "s s zero");
        let t = parse(&g, "x * (y + z)", 0, None).expect("parses");
        let (t, _) = strip_brackets(t.term, t.spans, 0);
        assert_eq!(display_user(&t, &g), "x *(y + z)");
    }

    #[test]
    fn bad_input_never_panics() {
        let g = arith();
        for text in [
            "",
            "(",
            ")",
            "+ +",
            "s",
            "zero zero",
            "\"",
            &"( ".repeat(190),
            &"s ".repeat(300),
        ] {
            assert!(parse(&g, text, 0, None).is_err(), "{text}");
        }
    }
}
