//! Locations: numbering without gaps from 0, player blocks, payoffs, labels
//! (rules, time and parameter intervals, targets and probabilities) and the
//! edges of simultaneous moves.

use std::collections::{BTreeSet, HashMap, HashSet};

use crate::ast::*;
use crate::diagnostic::Diagnostic;

use super::{Checker, Ctx, Scope};

impl Checker<'_> {
    /// Location definitions: duplicates, location 0, no gaps, then each one.
    pub(super) fn locations(&mut self) {
        let file = self.file;
        // ---- locations
        let mut loc_spans: HashMap<usize, &Span> = HashMap::new();
        for item in &file.items {
            if let Item::Loc(l) = item {
                if let Some(first) = loc_spans.get(&l.id.value) {
                    let first = (*first).clone();
                    self.err(
                        Diagnostic::new(
                            format!("duplicate definition of location {}", l.id.value),
                            l.id.span.clone(),
                        )
                        .with_label(first, "first defined here"),
                    );
                } else {
                    loc_spans.insert(l.id.value, &l.id.span);
                    self.sig.locations.insert(l.id.value);
                }
            }
        }
        if !self.sig.locations.contains(&0) {
            let span = file
                .items
                .iter()
                .find_map(|i| match i {
                    Item::Loc(l) => Some(l.span.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| self.file_end());
            self.err(
                Diagnostic::new("missing location 0", span)
                    .with_note("the play starts in location 0, so `LOC 0 { ... }` is required"),
            );
        }
        let n = self.sig.locations.len();
        for item in &file.items {
            if let Item::Loc(l) = item
                && l.id.value >= n
            {
                self.err(
                    Diagnostic::new(
                        format!(
                            "location numbers must be 0..{} without gaps, found {}",
                            n.saturating_sub(1),
                            l.id.value
                        ),
                        l.id.span.clone(),
                    )
                    .with_note(format!("there are {n} locations")),
                );
            }
        }
        for item in &file.items {
            if let Item::Loc(l) = item {
                self.location(l);
            }
        }
    }

    pub(super) fn location(&mut self, l: &LocDef) {
        let mut seen: HashMap<&str, &Span> = HashMap::new();
        for pb in &l.players {
            if !self.sig.players.contains(&pb.name.name) {
                self.err(Diagnostic::new(
                    format!("undefined player `{}`", pb.name.name),
                    pb.name.span.clone(),
                ));
            }
            if let Some(first) = seen.get(pb.name.name.as_str()) {
                let first = (*first).clone();
                self.err(
                    Diagnostic::new(
                        format!(
                            "duplicate definition of player `{}` in location {}",
                            pb.name.name, l.id.value
                        ),
                        pb.name.span.clone(),
                    )
                    .with_label(first, "first defined here"),
                );
            } else {
                seen.insert(&pb.name.name, &pb.name.span);
            }
            if let Some(t) = &pb.payoff {
                let consts = BTreeSet::new();
                let mut sc = Scope::new(Ctx::Payoff, "a payoff", &consts);
                self.term(t, &mut sc);
                self.payoff_finite(t);
            }
            for label in &pb.moves {
                self.label(label);
            }
        }
        self.joint_edges(l);
    }

    /// Spec 1.4 labels the edges of a location by the tuple of the movers'
    /// labels, but a file gives each label its own targets. Where several
    /// players move at once, the joint action's edge is only well defined
    /// when all their labels lead to the same edges (same locations,
    /// probabilities and drawn end-points).
    pub(super) fn joint_edges(&mut self, l: &LocDef) {
        let key = |t: &TargetDef| {
            (
                t.location.value,
                t.probability.as_ref().map(|p| p.value.to_bits()),
                t.draws
                    .iter()
                    .map(|(n, d)| (n.name.clone(), format!("{d:?}")))
                    .collect::<Vec<_>>(),
            )
        };
        let mut movers = l.players.iter().filter(|pb| !pb.moves.is_empty());
        let Some(first) = movers.next() else {
            return;
        };
        let others: Vec<&PlayerBlock> = movers.collect();
        if others.is_empty() {
            return;
        }
        let reference = &first.moves[0];
        let want: Vec<_> = reference.targets.iter().map(key).collect();
        for pb in std::iter::once(first).chain(others) {
            for label in &pb.moves {
                let got: Vec<_> = label.targets.iter().map(key).collect();
                if got != want {
                    self.err(
                        Diagnostic::new(
                            format!(
                                "in location {}, players move simultaneously, but this label \
                                 of `{}` leads elsewhere than `{}`'s label `{}`",
                                l.id.value, pb.name.name, first.name.name, reference.rule.name
                            ),
                            label.span.clone(),
                        )
                        .with_label(reference.span.clone(), "the first label's edges")
                        .with_note(
                            "where several players have moves, the next location is the edge \
                             of the joint action: every label there must have the same targets \
                             (locations, probabilities and drawn end-points)",
                        ),
                    );
                }
            }
        }
    }

    pub(super) fn label(&mut self, l: &LabelDef) {
        let params = self.sig.rule_params.get(&l.rule.name).cloned();
        if params.is_none() {
            self.err(Diagnostic::new(
                format!("undefined rule `{}`", l.rule.name),
                l.rule.span.clone(),
            ));
        }
        let mut drawn = Vec::new();
        let mut seen = HashSet::new();
        for (n, lo, hi) in &l.intervals {
            if !seen.insert(n.name.as_str()) {
                self.err(Diagnostic::new(
                    format!("duplicate interval for `{}`", n.name),
                    n.span.clone(),
                ));
            }
            if n.name != "t"
                && let Some(ps) = &params
                && !ps.contains(&n.name)
            {
                self.err(
                    Diagnostic::new(
                        format!("`{}` is not a parameter of rule `{}`", n.name, l.rule.name),
                        n.span.clone(),
                    )
                    .with_note(if ps.is_empty() {
                        "the rule has no parameters".to_string()
                    } else {
                        format!(
                            "its parameters are: {}",
                            ps.iter().cloned().collect::<Vec<_>>().join(", ")
                        )
                    }),
                );
            }
            for b in [lo, hi] {
                if let Bound::Name(id) = b {
                    drawn.push(id);
                }
            }
        }
        for t in &l.targets {
            if !self.sig.locations.contains(&t.location.value) {
                self.err(Diagnostic::new(
                    format!("undefined location {}", t.location.value),
                    t.location.span.clone(),
                ));
            }
            for d in &drawn {
                if !t.draws.iter().any(|(n, _)| n.name == d.name) {
                    self.err(Diagnostic::new(
                        format!(
                            "the edge to location {} must say how `{}` is drawn, e.g. `{} ~ uniform(0, 1)`",
                            t.location.value, d.name, d.name
                        ),
                        t.span.clone(),
                    ));
                }
            }
            if let Some(p) = &t.probability
                && !(p.value > 0.0 && p.value <= 1.0)
            {
                self.err(Diagnostic::new(
                    format!("a probability must be in (0, 1], found {}", p.value),
                    p.span.clone(),
                ));
            }
        }
        let with_p = l.targets.iter().filter(|t| t.probability.is_some()).count();
        if l.targets.len() > 1 || with_p > 0 {
            if with_p < l.targets.len() {
                self.err(Diagnostic::new(
                    "every edge of a label with several edges needs a probability `(p 0.5)`",
                    l.span.clone(),
                ));
            } else {
                let sum: f64 = l
                    .targets
                    .iter()
                    .filter_map(|t| t.probability.as_ref().map(|p| p.value))
                    .sum();
                if (sum - 1.0).abs() > 1e-9 {
                    self.err(Diagnostic::new(
                        format!("the probabilities of this label's edges sum to {sum}, not 1"),
                        l.span.clone(),
                    ));
                }
            }
        }
    }
}
