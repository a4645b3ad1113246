//! `.terms` files: declarations, rewrite rules and parser preferences in
//! the user's own notation, on top of the basic definitions of 2.2.4.
//!
//! The format, statement by statement, each ending with a `.` that ends a
//! word (a `.` followed by white space or the end of the file); `//`
//! starts a comment to the end of the line:
//!
//! - a declaration (2.2, notation of [`crate::decl`]): `Class 'nat'.`,
//!   `Element 's' nat as nat.`, `Function nat '+' nat as nat.`,
//!   `Variable 'x' as nat.`;
//! - a rewrite rule in the user's syntax, read by the parser with the
//!   basic definition `let ?a be ?a`: `Let s x + y be s (x + y).`; rules
//!   of a function are tried in the order written, and `Let major ... be
//!   ...` puts a rule before the others of its function;
//! - a preference for the parser (2.6.4): `(x * y) + z preferred to x *
//!   (y + z).`, read with the file-level definition `?a 'preferred' 'to'
//!   ?a`; it applies to what is parsed after it.
//!
//! A term statement is parsed with the declarations before it. Every
//! error is located in the file.

use crate::decl::{basic_definitions, read_declarations};
use crate::diag::Located;
use crate::normalise::{Limits, NormError, Normaliser, Step};
use crate::parse::{Grammar, Parsed, Preference, display_user, parse, strip_brackets};
use crate::rewrite::{Rule, RuleError, Rules, Side};
use crate::term::Term;
use crate::types::Type;

/// Definitions every `.terms` file has beside the basic ones.
const FILE_DEFINITIONS: &str = "
Class 'preference' 'of' term type.
Element ?a 'preferred' 'to' ?a as preference of ?a.
";

const LET: &str = "Clet_\\?_be_\\?";
const LET_MAJOR: &str = "Clet_major_\\?_be_\\?";
const RULE_CLASS: &str = "Tinput_rewrite_rule_of_\\?";
const PRIORITY_CLASS: &str = "Tpriority_input_rewrite_rule_of_\\?";
const PREFERENCE_CLASS: &str = "Tpreference_of_\\?";
const PREFERRED: &str = "C\\?_preferred_to_\\?";

/// A loaded program: the grammar (definitions and preferences) and rules.
#[derive(Clone, Debug)]
pub struct Program {
    pub grammar: Grammar,
    pub rules: Rules,
}

impl Default for Program {
    fn default() -> Program {
        Program::new()
    }
}

impl Program {
    /// The basic definitions and the file-level ones, no rule.
    pub fn new() -> Program {
        let mut defs = basic_definitions();
        if let Err(e) = read_declarations(FILE_DEFINITIONS, &mut defs) {
            unreachable!("the file-level definitions read: {e}")
        }
        Program {
            grammar: Grammar::new(defs),
            rules: Rules::new(),
        }
    }

    /// Reads a whole `.terms` text.
    pub fn load(text: &str) -> Result<Program, Located> {
        let mut p = Program::new();
        p.add_statements(text, 0)?;
        Ok(p)
    }

    /// Adds the statements of `text` (which starts at byte `base` of the
    /// source errors refer to).
    /// The statements before an error stay added.
    pub fn add_statements(&mut self, text: &str, base: usize) -> Result<(), Located> {
        for (at, stmt) in statements(text) {
            self.add_statement(&stmt, base + at)?;
        }
        Ok(())
    }

    fn add_statement(&mut self, stmt: &str, at: usize) -> Result<(), Located> {
        let shift = |e: Located| Located::new(e.at + at, e.len, e.message);
        let first = stmt.split_whitespace().next().unwrap_or("").to_lowercase();
        if matches!(
            first.as_str(),
            "class" | "element" | "function" | "variable"
        ) {
            // A declaration adds nothing when it is in error.
            let names = read_declarations(stmt, &mut self.grammar.defs).map_err(shift)?;
            self.grammar.extend(&names);
            return Ok(());
        }
        // Without the final `.`.
        let body = stmt.trim_end().strip_suffix('.').unwrap_or(stmt);
        let parsed = parse(&self.grammar, body, at, None)?;
        let tokens = crate::parse::lex(body, at)?;
        let class = match &parsed.ty {
            Type::Sym(c, _) => c.as_str(),
            _ => "",
        };
        match class {
            RULE_CLASS | PRIORITY_CLASS => self.add_rule(parsed, &tokens),
            PREFERENCE_CLASS => {
                let (t, _) = strip_brackets(parsed.term, parsed.spans, 0);
                match (t.head.name(), <[Term; 2]>::try_from(t.args)) {
                    (PREFERRED, Ok([better, worse])) => {
                        self.grammar.preferences.push(Preference { better, worse });
                        Ok(())
                    }
                    _ => Err(Located::new(at, body.len(), "not a preference")),
                }
            }
            _ => Err(Located::new(
                at,
                body.len(),
                format!(
                    "a statement is a declaration (Class, Element, Function, Variable), a rule (Let ... be ...) or a preference (... preferred to ...); this is a term of type {}",
                    self.grammar.defs.display_type(&parsed.ty)
                ),
            )),
        }
    }

    fn add_rule(&mut self, parsed: Parsed, tokens: &[crate::parse::Token]) -> Result<(), Located> {
        let whole = parsed.byte_span(tokens, &[]);
        let vtype = parsed.vtype.clone();
        let (t, spans) = strip_brackets(parsed.term, parsed.spans, 0);
        let major = match t.head.name() {
            LET => false,
            LET_MAJOR => true,
            _ => return Err(Located::new(whole.0, whole.1, "not a rule")),
        };
        let Ok([lhs, rhs]) = <[Term; 2]>::try_from(t.args) else {
            return Err(Located::new(whole.0, whole.1, "not a rule"));
        };
        let sides = Parsed {
            term: Term::sym("", vec![]),
            ty: parsed.ty,
            vtype: vtype.clone(),
            spans,
        };
        let rule =
            Rule::new(&self.grammar.sig, lhs, &vtype, rhs, &vtype).map_err(|e: RuleError| {
                let (side, path) = e.location();
                let mut full = vec![match side {
                    Side::Left => 0,
                    Side::Right => 1,
                }];
                full.extend(path);
                let (a, l) = sides.byte_span(tokens, &full);
                Located::new(a, l, e.to_string())
            })?;
        if major {
            self.rules.add_first(rule);
        } else {
            self.rules.add(rule);
        }
        Ok(())
    }

    /// Parses a term (at `base` in its source) with the program's grammar.
    pub fn parse_term(&self, text: &str, base: usize) -> Result<Parsed, Located> {
        parse(&self.grammar, text, base, None)
    }

    /// Parses and normalises a term; the normal form in the user's syntax
    /// and, with `trace`, each rewrite step shown the same way.
    pub fn evaluate(
        &self,
        text: &str,
        limits: Limits,
        trace: bool,
    ) -> Result<Evaluation, EvalError> {
        let parsed = self.parse_term(text, 0).map_err(EvalError::Parse)?;
        let mut n = Normaliser::new(&self.grammar.sig, &self.rules, limits)
            .with_definitions(&self.grammar.defs, &parsed.vtype);
        n.trace(trace);
        let result = n.normalise(&parsed.term);
        let steps: Vec<(String, String)> = n
            .take_trace()
            .iter()
            .map(|Step { before, after }| (self.show(before), self.show(after)))
            .collect();
        let normal = result.map_err(|e| EvalError::Normalise(e, steps.clone()))?;
        Ok(Evaluation {
            normal_form: self.show(&normal),
            term: normal,
            steps,
            rewrites: n.steps(),
        })
    }

    /// A normalisation error with its term in the user's syntax.
    pub fn describe(&self, e: &NormError) -> String {
        match e {
            NormError::StepLimit { limit, term } => format!(
                "no normal form after {limit} rewrite steps (the rules may not terminate); rewriting {}",
                self.show(term)
            ),
            NormError::Meta { term, message } => {
                format!("{message}; evaluating {}", self.show(term))
            }
            other => other.to_string(),
        }
    }

    /// A term in the user's syntax (bracketed only where needed).
    pub fn show(&self, t: &Term) -> String {
        display_user(t, &self.grammar)
    }
}

/// The result of [`Program::evaluate`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Evaluation {
    pub term: Term,
    pub normal_form: String,
    /// Each step, before and after, in the user's syntax (with `trace`).
    pub steps: Vec<(String, String)>,
    pub rewrites: u64,
}

/// Why a term could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    Parse(Located),
    /// Normalisation failed; the steps traced until then.
    Normalise(NormError, Vec<(String, String)>),
}

/// Splits text into statements: each ends with a `.` that ends a word,
/// outside quotes (`'` in declarations, `"` elsewhere) and comments. A
/// trailing part without its `.` is a statement too (its parse says what
/// is wrong). Offsets are of the statement's first character; comments
/// inside a statement are blanked with spaces, so offsets stay.
pub fn statements(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        // Skip space and comments before a statement.
        loop {
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            if b[i..].starts_with(b"//") {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
            } else {
                break;
            }
        }
        if i >= b.len() {
            return out;
        }
        let start = i;
        let first: String = text[i..]
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .collect::<String>()
            .to_lowercase();
        let quote = if matches!(
            first.as_str(),
            "class" | "element" | "function" | "variable"
        ) {
            b'\''
        } else {
            b'"'
        };
        let mut in_quote = false;
        let mut end = b.len();
        let mut comments = Vec::new();
        while i < b.len() {
            let c = b[i];
            if c == quote {
                in_quote = !in_quote;
            } else if !in_quote && b[i..].starts_with(b"//") {
                let stop = text[i..].find('\n').map_or(b.len(), |n| i + n);
                comments.push((i - start, stop - start));
                i = stop;
                continue;
            } else if !in_quote && c == b'.' && (i + 1 >= b.len() || b[i + 1].is_ascii_whitespace())
            {
                end = i + 1;
                i += 1;
                break;
            }
            i += 1;
        }
        let mut stmt = text[start..end.min(b.len())].to_string();
        for (from, to) in comments {
            let to = to.min(stmt.len());
            if from < to {
                let blank = " ".repeat(stmt[from..to].chars().count());
                stmt.replace_range(from..to, &blank);
            }
        }
        out.push((start, stmt));
        if end >= b.len() {
            return out;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PEANO: &str = include_str!("../examples/peano.terms");

    fn eval(p: &Program, text: &str) -> String {
        match p.evaluate(text, Limits::default(), false) {
            Ok(e) => e.normal_form,
            Err(e) => panic!("{text}: {e:?}"),
        }
    }

    #[test]
    fn peano_and_lists_in_the_users_syntax() {
        let p = Program::load(PEANO).expect("loads");
        assert_eq!(eval(&p, "s s zero + s zero"), "s s s zero");
        assert_eq!(eval(&p, "s s zero * s s s zero"), "s s s s s s zero");
        assert_eq!(eval(&p, "length (zero :: s zero :: [ ])"), "s s zero");
        assert_eq!(
            eval(&p, "(zero :: [ ]) ++ (s zero :: [ ])"),
            "zero :: s zero ::[]"
        );
        // Symbolic: x + zero stays (zero + y is the rule, x clogs).
        assert_eq!(eval(&p, "s zero + x"), "s x");
    }

    /// Long but plain inputs stay within the parser's bounds.
    #[test]
    fn long_terms_parse() {
        let p = Program::load(PEANO).expect("loads");
        let numeral = format!("{}zero", "s ".repeat(190));
        assert_eq!(eval(&p, &numeral), numeral.trim_end());
        let list = format!("length ({}[ ])", "zero :: ".repeat(60));
        assert_eq!(eval(&p, &list), format!("{}zero", "s ".repeat(60)));
        // 41 parses, the preferences pick one.
        let sum = format!("{}zero + s zero", "s ".repeat(40));
        assert_eq!(eval(&p, &sum), format!("{}zero", "s ".repeat(41)));
    }

    #[test]
    fn trace_shows_each_step() {
        let p = Program::load(PEANO).expect("loads");
        let e = p
            .evaluate("s zero + zero", Limits::default(), true)
            .expect("evaluates");
        assert_eq!(
            e.steps,
            vec![
                ("s zero + zero".to_string(), "s (zero + zero)".to_string()),
                ("zero + zero".to_string(), "zero".to_string()),
            ]
        );
    }

    #[test]
    fn the_loop_is_a_step_limit_error() {
        let p = Program::load(PEANO).expect("loads");
        let limits = Limits {
            max_steps: 1000,
            ..Limits::default()
        };
        assert!(matches!(
            p.evaluate("f zero", limits, false),
            Err(EvalError::Normalise(NormError::StepLimit { .. }, _))
        ));
    }

    #[test]
    fn errors_are_located_in_the_file() {
        let cases = [
            (
                "Class 'nat'.\nElement 'zero' as nat.\nLet zero be zero.",
                "function name",
                "zero",
            ),
            (
                "Class 'nat'.\nElement 'zero' as nat.\nFunction 'f' nat as nat.\nVariable 'x' as nat.\nVariable 'y' as nat.\nLet f x be y.",
                "not on the left",
                "y",
            ),
            (
                "Class 'nat'.\nElement 'zero' as nat.\nzero zero.",
                "cannot parse",
                "zero zero",
            ),
            (
                "Class 'nat'.\nElement 'zero' as nat.\nzero.",
                "a statement is",
                "zero",
            ),
            (
                "Class 'nat'.\nElement 'zero' as bool.",
                "cannot read `bool`",
                "bool",
            ),
        ];
        for (text, msg, underlined) in cases {
            let e = Program::load(text).expect_err(text);
            assert!(e.message.contains(msg), "{text}: {}", e.message);
            assert_eq!(
                &text[e.at..e.at + e.len],
                underlined,
                "{text}: {}",
                e.message
            );
            let shown = e.render("f.terms", text);
            assert!(shown.starts_with("f.terms:"), "{shown}");
        }
    }

    /// Peano with a variable of type `term` for the meta-level tests.
    fn meta_program() -> Program {
        let mut p = Program::load(PEANO).expect("loads");
        p.add_statements("Variable 'c' as term.", 0)
            .expect("a term variable");
        p
    }

    fn eval_term(p: &Program, text: &str) -> Term {
        match p.evaluate(text, Limits::default(), false) {
            Ok(e) => e.term,
            Err(e) => panic!("{text}: {e:?}"),
        }
    }

    fn numeral(n: usize) -> Term {
        (0..n).fold(Term::sym("Czero", vec![]), |t, _| {
            Term::sym("Cs_\\?", vec![t])
        })
    }

    /// `code t as term` is the coding of 2.3.4 of `t`'s normal form, or of
    /// `t` as written under verbatim; a variable carries its type.
    #[test]
    fn code_gives_the_coding_of_2_3_4() {
        use crate::term::{VType, code_term};
        let p = meta_program();
        let none = VType::new();
        assert_eq!(
            eval_term(&p, "code s zero + s zero as term"),
            code_term(&numeral(2), &none)
        );
        let plus = |a: Term, b: Term| Term::sym("F\\?_+_\\?", vec![a, b]);
        assert_eq!(
            eval_term(&p, "code <| s zero + s zero |> as term"),
            code_term(&plus(numeral(1), numeral(1)), &none)
        );
        let vtype: VType = [("Vx".to_string(), Type::sym("Tnat", vec![]))].into();
        let x_plus_zero = plus(Term::var("Vx", vec![]), numeral(0));
        assert_eq!(
            eval_term(&p, "code x + zero as term"),
            code_term(&x_plus_zero, &vtype)
        );
        let coded = eval_term(&p, "code x + zero as term");
        assert_eq!(
            crate::term::internal_display(&coded, &VType::new()),
            "@T F\\?_+_\\?(@V[Vx@:Tnat],Czero)"
        );
    }

    /// A coded term is shown with its strings quoted, and reads back.
    #[test]
    fn coded_terms_show_their_strings_quoted() {
        let mut p = meta_program();
        assert_eq!(eval(&p, "code zero as term"), "term \"Czero\"([])");
        // A quoted string in a rule keeps its characters.
        p.add_statements(
            "Function 'name' string as nat. Let name \"ab\" be zero. Let name \"b\" be s zero.",
            0,
        )
        .expect("rules over strings");
        assert_eq!(eval(&p, "name \"b\""), "s zero");
        assert_eq!(eval(&p, "name \"ab\""), "zero");
        for text in [
            "code zero as term",
            "code x + zero as term",
            "code (zero :: [ ]) ++ l as term",
        ] {
            let e = p
                .evaluate(text, Limits::default(), false)
                .unwrap_or_else(|e| panic!("{text}: {e:?}"));
            assert!(!e.normal_form.contains("char code"), "{}", e.normal_form);
            let back = p.parse_term(&e.normal_form, 0).expect("reads back");
            let (t, _) = strip_brackets(back.term, back.spans, 0);
            assert_eq!(t, e.term, "{}", e.normal_form);
        }
    }

    /// The round trip: decoding a coded term gives the term back (then
    /// normalised, as what a rewrite gives is).
    #[test]
    fn decode_of_code_is_the_term() {
        let p = meta_program();
        for (text, normal) in [
            ("zero", "zero"),
            ("s s zero + s zero", "s s s zero"),
            ("<| s zero + zero |>", "s zero"),
            ("x + zero", "x + zero"),
            ("s zero + x", "s x"),
            ("(x * s zero) + y", "x * s zero + y"),
        ] {
            let round = format!("decode (code {text} as term) with type as zero");
            assert_eq!(eval(&p, &round), normal, "{round}");
        }
        // Lists: the example gives a list type.
        assert_eq!(
            eval(
                &p,
                "decode (code zero :: s zero :: [ ] as term) with type as [ ]"
            ),
            "zero :: s zero ::[]"
        );
        assert_eq!(
            eval(
                &p,
                "length (decode (code zero :: zero :: [ ] as term) with type as [ ])"
            ),
            "s s zero"
        );
        // Code of decode: the coded term back, normalised.
        let coded = eval_term(&p, "code s zero + zero as term");
        assert_eq!(
            eval_term(
                &p,
                "code (decode (code <| s zero + zero |> as term) with type as zero) as term"
            ),
            coded
        );
    }

    /// What is not a coded term stays; a coded term that cannot be what
    /// the example says is an error naming the call.
    #[test]
    fn decode_errors_and_clogs() {
        let p = meta_program();
        assert_eq!(
            eval(&p, "decode c with type as zero"),
            "decode c with type as zero"
        );
        let cases = [
            (
                "decode (code zero as term) with type as [ ]",
                "as the example's type",
            ),
            (
                "decode (term \"Cnope\" ([ ])) with type as zero",
                "unknown term symbol `Cnope`",
            ),
            (
                "decode (term \"Cs_\\?\" (code zero as term :: code zero as term :: [ ])) with type as zero",
                "takes 1 arguments, given 2",
            ),
        ];
        for (text, msg) in cases {
            match p.evaluate(text, Limits::default(), false) {
                Err(EvalError::Normalise(e @ NormError::Meta { .. }, _)) => {
                    let shown = p.describe(&e);
                    assert!(shown.contains(msg), "{text}: {shown}");
                    assert!(shown.contains("evaluating decode"), "{text}: {shown}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
    }

    /// `get class definitions`, `get function definitions` and `get
    /// constructors` list the definitions in the order declared, the
    /// basic ones first.
    #[test]
    fn get_definitions_lists_them() {
        use crate::decl::names;
        use crate::term::{code_list, code_string, code_type, decode_list};
        let p = meta_program();
        let nat = Type::sym("Tnat", vec![]);
        let list_of = |t: Type| Type::sym(names::LIST, vec![t]);
        let items = |text: &str| -> Vec<Term> {
            let t = eval_term(&p, text);
            decode_list(&t)
                .unwrap_or_else(|| panic!("{text}: not a list"))
                .into_iter()
                .cloned()
                .collect()
        };
        let classes = items("get class definitions");
        let class = |t: Type| Term::sym(names::CLASS_OF, vec![code_type(&t)]);
        let list_class = class(list_of(Type::var("a1")));
        let nat_class = class(nat.clone());
        let at = |v: &[Term], t: &Term| v.iter().position(|x| x == t);
        assert_eq!(classes.first(), Some(&class(Type::sym("Tbit", vec![]))));
        assert!(at(&classes, &list_class) < at(&classes, &nat_class));
        assert!(at(&classes, &nat_class).is_some(), "{classes:?}");
        let def = |head: &str, name: &str, args: Vec<Type>, result: Type| {
            Term::sym(
                head,
                vec![
                    code_string(name),
                    code_list(args.iter().map(code_type).collect()),
                    code_type(&result),
                ],
            )
        };
        let functions = items("get function definitions");
        assert_eq!(
            functions.first(),
            Some(&def(
                names::FUNCTION_DEF,
                names::IF,
                vec![
                    Type::sym(names::BOOLEAN, vec![]),
                    Type::var("a"),
                    Type::var("a")
                ],
                Type::var("a")
            ))
        );
        let plus = def(
            names::FUNCTION_DEF,
            "F\\?_+_\\?",
            vec![nat.clone(), nat.clone()],
            nat.clone(),
        );
        let length = def(
            names::FUNCTION_DEF,
            "Flength_\\?",
            vec![list_of(Type::var("a"))],
            nat.clone(),
        );
        assert!(at(&functions, &plus) < at(&functions, &length));
        assert!(at(&functions, &plus).is_some(), "{functions:?}");
        // Only functions: no element among them.
        assert!(
            functions
                .iter()
                .all(|f| f.head.name() == names::FUNCTION_DEF)
        );
        let constructors = items("get constructors");
        let zero = def(names::CONSTRUCTOR_DEF, "Czero", vec![], nat.clone());
        let succ = def(names::CONSTRUCTOR_DEF, "Cs_\\?", vec![nat.clone()], nat);
        assert_eq!(
            at(&constructors, &zero).map(|i| i + 1),
            at(&constructors, &succ)
        );
        assert!(at(&constructors, &zero).is_some());
        assert_eq!(
            constructors.first(),
            Some(&def(
                names::CONSTRUCTOR_DEF,
                names::BIT0,
                vec![],
                Type::sym("Tbit", vec![])
            ))
        );
        // The number of each kind declared.
        let count = |k: crate::syntax::SyntaxKind| {
            p.grammar.defs.iter().filter(|(_, d)| d.kind() == k).count()
        };
        assert_eq!(classes.len(), count(crate::syntax::SyntaxKind::Type));
        assert_eq!(functions.len(), count(crate::syntax::SyntaxKind::Function));
        assert_eq!(
            constructors.len(),
            count(crate::syntax::SyntaxKind::Constructor)
        );
    }

    #[test]
    fn major_rules_come_first() {
        let text = "Class 'nat'. Element 'zero' as nat. Element 'one' as nat. \
                    Function 'f' nat as nat. Variable 'x' as nat.\n\
                    Let f x be zero.\nLet major f x be one.";
        let p = Program::load(text).expect("loads");
        assert_eq!(eval(&p, "f zero"), "one");
    }

    #[test]
    fn statements_split_outside_quotes_and_comments() {
        let text = "Element 'a.' as b. // c. d.\nx \"y. z\" w.\n";
        let s: Vec<String> = statements(text).into_iter().map(|(_, s)| s).collect();
        assert_eq!(s, vec!["Element 'a.' as b.", "x \"y. z\" w."]);
        let text = "x // c.\n + y.";
        let s = statements(text);
        assert_eq!(s, vec![(0, "x      \n + y.".to_string())]);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// Statements and terms from the example's own words, shuffled.
        fn arb_words() -> impl Strategy<Value = String> {
            let word = prop_oneof![
                Just("s"),
                Just("zero"),
                Just("+"),
                Just("*"),
                Just("("),
                Just(")"),
                Just("x"),
                Just("y"),
                Just("::"),
                Just("["),
                Just("]"),
                Just("length"),
                Just("let"),
                Just("be"),
                Just("preferred"),
                Just("to"),
                Just("f"),
                Just("if"),
                Just("then"),
                Just("else"),
                Just("<"),
                Just("|"),
                Just(">"),
                Just("\""),
                Just("."),
                Just("'"),
                Just("Class"),
                Just("Element"),
                Just("as"),
            ];
            prop::collection::vec(word, 0..24).prop_map(|w| w.join(" "))
        }

        /// Peano terms in the user's syntax, bracketed.
        fn arb_nat_text() -> impl Strategy<Value = String> {
            let leaf = prop_oneof![
                Just("zero".to_string()),
                Just("x".to_string()),
                Just("y".to_string())
            ];
            leaf.prop_recursive(4, 12, 2, |inner| {
                prop_oneof![
                    inner.clone().prop_map(|a| format!("s ({a})")),
                    (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) + ({b})")),
                    (inner.clone(), inner).prop_map(|(a, b)| format!("({a}) * ({b})")),
                ]
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(100))]

            /// decode (code t as term) = t, for t as written (verbatim)
            /// and for its normal form.
            #[test]
            fn decode_code_round_trip(text in arb_nat_text()) {
                let p = meta_program();
                let normal = eval_term(&p, &text);
                let quoted = format!("decode (code <| {text} |> as term) with type as zero");
                prop_assert_eq!(&eval_term(&p, &quoted), &normal);
                let plain = format!("decode (code {text} as term) with type as zero");
                prop_assert_eq!(&eval_term(&p, &plain), &normal);
                // Coding the decoded term gives the same coding again.
                let coded = eval_term(&p, &format!("code {text} as term"));
                let again = eval_term(&p, &format!("code (decode (code {text} as term) with type as zero) as term"));
                prop_assert_eq!(again, coded);
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(300))]

            #[test]
            fn any_term_text_evaluates_or_errs_located(text in arb_words()) {
                let p = Program::load(PEANO).expect("loads");
                let limits = Limits { max_steps: 20_000, ..Limits::default() };
                match p.evaluate(&text, limits, false) {
                    Ok(e) => {
                        // The normal form reads back as itself.
                        let back = p.parse_term(&e.normal_form, 0).expect("reads back");
                        let (t, _) = strip_brackets(back.term, back.spans, 0);
                        prop_assert_eq!(t, e.term);
                    }
                    Err(EvalError::Parse(e)) => {
                        prop_assert!(e.at + e.len <= text.len(), "{:?}", e);
                    }
                    Err(EvalError::Normalise(..)) => {}
                }
            }

            #[test]
            fn any_file_text_loads_or_errs_located(text in arb_words()) {
                let full = format!("{PEANO}\n{text}");
                if let Err(e) = Program::load(&full) {
                    prop_assert!(e.at + e.len <= full.len(), "{:?}", e);
                    let _ = e.render("f.terms", &full);
                }
            }
        }
    }
}
