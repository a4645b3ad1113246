//! The structure signature: the relations and functions of START (with its
//! board), rule sides and MODEL structures, their arities, duplicate
//! elements, and the optional (`_opt_`) tuples of right-hand sides.

use std::collections::{BTreeSet, HashMap};

use crate::ast::*;
use crate::board::{Board, parse_board};
use crate::diagnostic::Diagnostic;

use super::{Checker, base_relation};

impl Checker<'_> {
    /// Registers a structure's relations and functions; checks duplicate
    /// elements, arities and the board.
    pub(super) fn structure(&mut self, s: &StructLit, is_state: bool) {
        let mut seen: HashMap<&str, &Span> = HashMap::new();
        for e in &s.elements {
            if let Some(first) = seen.get(e.name.as_str()) {
                let first = (*first).clone();
                self.err(
                    Diagnostic::new(format!("duplicate element `{}`", e.name), e.span.clone())
                        .with_label(first, "first listed here"),
                );
            } else {
                seen.insert(&e.name, &e.span);
            }
        }
        // Rule sides check their tuples' elements; states add them.
        let elements: BTreeSet<&str> = if is_state {
            BTreeSet::new()
        } else {
            s.elements.iter().map(|e| e.name.as_str()).collect()
        };
        // The board first: its relations and functions.
        if let Some((text, span)) = &s.board {
            if !is_state {
                self.err(Diagnostic::new(
                    "a board string is only allowed after START or MODEL",
                    span.clone(),
                ));
            } else {
                match parse_board(text) {
                    Ok(board) => self.board_signature(&board, s),
                    Err((msg, off)) => {
                        let at = span.start + 1 + off;
                        self.err(Diagnostic::new(msg, at..at + 1));
                    }
                }
            }
        }
        let mut local: HashMap<&str, usize> = HashMap::new();
        for r in &s.relations {
            let (name, optional) = base_relation(&r.name.name);
            if optional && !crate::board::is_ident(name) {
                // `_opt_1e9P` lexes as a name, but `1e9P` does not: the
                // relation could not be written back.
                self.err(Diagnostic::new(
                    format!("`_opt_` must be followed by a relation name, found `{name}`"),
                    r.name.span.clone(),
                ));
                continue;
            }
            if name == "nondistinct" && !is_state {
                for (t, sp) in &r.tuples {
                    if t.len() != 2 {
                        self.err(Diagnostic::new(
                            format!("`nondistinct` takes 2 elements, found {}", t.len()),
                            sp.clone(),
                        ));
                    }
                    self.tuple_elements(t, &elements, is_state);
                }
                continue;
            }
            if let Some(&a) = self.sig.defined.get(name) {
                if is_state {
                    self.err(Diagnostic::new(
                        format!("`{name}` is a defined relation; it cannot be given tuples"),
                        r.name.span.clone(),
                    ));
                }
                for (t, sp) in &r.tuples {
                    if t.len() != a {
                        self.err(Diagnostic::new(
                            format!(
                                "arity mismatch: `{name}` has arity {a} but this tuple has {} element(s)",
                                t.len()
                            ),
                            sp.clone(),
                        ));
                    }
                    self.tuple_elements(t, &elements, is_state);
                }
                continue;
            }
            if optional && is_state {
                self.err(Diagnostic::new(
                    "optional tuples (`_opt_`) are only allowed in rules",
                    r.name.span.clone(),
                ));
            }
            let arity = r
                .declared_arity
                .as_ref()
                .map(|a| a.value)
                .or_else(|| r.tuples.first().map(|t| t.0.len()));
            let Some(arity) = arity else {
                self.err(Diagnostic::new(
                    format!(
                        "cannot tell the arity of `{name}`: write `{name}:n {{}}` to declare an empty relation"
                    ),
                    r.span.clone(),
                ));
                continue;
            };
            if let Some(d) = &r.declared_arity
                && d.value > 64
            {
                self.err(Diagnostic::new(
                    "arity too large (at most 64)",
                    d.span.clone(),
                ));
                continue;
            }
            for (t, sp) in &r.tuples {
                if t.len() != arity {
                    self.err(Diagnostic::new(
                        format!(
                            "arity mismatch: `{name}` has arity {arity} but this tuple has {} element(s)",
                            t.len()
                        ),
                        sp.clone(),
                    ));
                }
                self.tuple_elements(t, &elements, is_state);
            }
            let known = self.sig.arity(name).or_else(|| local.get(name).copied());
            match known {
                Some(a) if a != arity => self.err(Diagnostic::new(
                    format!("arity mismatch: `{name}` has arity {a} elsewhere, {arity} here"),
                    r.name.span.clone(),
                )),
                Some(_) => {}
                None => {
                    local.insert(name, arity);
                    self.sig.add_rel(name, arity);
                }
            }
        }
        for f in &s.functions {
            self.sig.funs.insert(f.name.name.clone());
            for (e, _) in &f.values {
                if !is_state && !elements.contains(e.name.as_str()) {
                    self.err(Diagnostic::new(
                        format!("unknown element `{}` in a rule side", e.name),
                        e.span.clone(),
                    ));
                }
            }
        }
    }

    /// Elements of a rule-side tuple must be listed in that side.
    pub(super) fn tuple_elements(
        &mut self,
        t: &[Ident],
        elements: &BTreeSet<&str>,
        is_state: bool,
    ) {
        if is_state {
            return;
        }
        for e in t {
            if !elements.contains(e.name.as_str()) {
                self.err(Diagnostic::new(
                    format!("unknown element `{}`: not listed in this rule side", e.name),
                    e.span.clone(),
                ));
            }
        }
    }

    pub(super) fn board_signature(&mut self, board: &Board, s: &StructLit) {
        let span = s.board.as_ref().map(|b| b.1.clone()).unwrap_or_default();
        for r in ["R", "C", "DiagA", "DiagB"] {
            self.board_rel(r, 2, &span, s);
        }
        for cell in &board.cells {
            for r in &cell.relations {
                self.board_rel(r, 1, &span, s);
            }
        }
        self.sig.funs.insert("x".into());
        self.sig.funs.insert("y".into());
    }

    pub(super) fn board_rel(&mut self, name: &str, arity: usize, span: &Span, s: &StructLit) {
        let declared = s
            .relations
            .iter()
            .find(|r| r.name.name == name)
            .and_then(|r| {
                r.declared_arity
                    .as_ref()
                    .map(|a| a.value)
                    .or_else(|| r.tuples.first().map(|t| t.0.len()))
            });
        match declared.or_else(|| self.sig.arity(name)) {
            Some(a) if a != arity => self.err(Diagnostic::new(
                format!("arity mismatch: the board uses `{name}` with arity {arity}, declared with arity {a}"),
                span.clone(),
            )),
            _ => self.sig.add_rel(name, arity),
        }
    }

    // ---- rules

    /// An optional tuple of the right side is added iff its counterpart,
    /// the optional left tuple over the elements its elements replace, was
    /// present (spec 1.1): every element needs a left element it replaces
    /// (`with [r <- l]`, or a left element of the same name), and the left
    /// side needs that optional tuple.
    pub(super) fn optional_right_tuples(
        &mut self,
        r: &RuleDef,
        lhs: &BTreeSet<String>,
        rhs: &BTreeSet<String>,
    ) {
        let replaced = |e: &str| -> Option<String> {
            match r.with.iter().find(|(rt, _)| rt.name == e) {
                Some((_, lt)) => Some(lt.name.clone()),
                None => lhs.contains(e).then(|| e.to_string()),
            }
        };
        let left_optional: BTreeSet<(String, Vec<String>)> = r
            .lhs
            .relations
            .iter()
            .filter(|e| base_relation(&e.name.name).1)
            .flat_map(|e| {
                let rel = base_relation(&e.name.name).0.to_string();
                e.tuples.iter().map(move |(args, _)| {
                    (rel.clone(), args.iter().map(|a| a.name.clone()).collect())
                })
            })
            .collect();
        for e in &r.rhs.relations {
            let (rel, optional) = base_relation(&e.name.name);
            if !optional {
                continue;
            }
            'tuples: for (args, span) in &e.tuples {
                let mut image = Vec::new();
                for a in args {
                    match replaced(&a.name) {
                        Some(l) => image.push(l),
                        // An element of neither side is reported elsewhere.
                        None if !rhs.contains(&a.name) => continue 'tuples,
                        None => {
                            self.err(
                                Diagnostic::new(
                                    format!(
                                        "optional right tuple over `{}`, which replaces no \
                                         left element",
                                        a.name
                                    ),
                                    a.span.clone(),
                                )
                                .with_note(
                                    "an optional right tuple is added iff its left counterpart \
                                     was matched (spec 1.1), so its elements must replace left \
                                     elements",
                                ),
                            );
                            image.clear();
                            break;
                        }
                    }
                }
                if image.len() != args.len() {
                    continue;
                }
                if !left_optional.contains(&(rel.to_string(), image.clone())) {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "optional right tuple without its left counterpart: the left \
                                 side has no `_opt_{rel}({})`",
                                image.join(", ")
                            ),
                            span.clone(),
                        )
                        .with_note(
                            "an optional right tuple is added iff the same optional tuple over \
                             the elements it replaces was matched on the left (spec 1.1)",
                        ),
                    );
                }
            }
        }
    }
}
