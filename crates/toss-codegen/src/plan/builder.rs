//! The builder: its state while a plan is built (the masks, tables,
//! patterns and conditions found so far, the variables in scope), formula
//! utilities (relation names, fluency, renaming, inlining of definitions),
//! build-time evaluation of stable formulas by the runtime solver, and the
//! constant masks and neighbour tables it records.

use std::collections::{BTreeMap, BTreeSet};

use toss_core::Structure;
use toss_core::ir::subst::{BoundNames, Substitution};
use toss_core::ir::{self, Formula, functions_used, relations_used};
use toss_lang::print::print_formula;
use toss_runtime::solver::Solver;

use super::classify::Classified;
use super::{
    Bound, Cond, Fluent, FluentRel, FunPlan, MAX_SHIFTS, Mask, Num, Pattern, Rel2, SetExpr, Table,
    Unsupported,
};

/// The state of a plan being built: the game, its starting structure and
/// solver, what the classification found, and what the builders have
/// recorded so far.
pub(crate) struct Builder<'g> {
    pub(crate) game: &'g ir::Game,
    pub(crate) sig: Structure,
    pub(crate) solver: Solver,
    pub(crate) n: u32,
    /// Fluent relation names (any arity).
    pub(crate) fluent_names: BTreeSet<String>,
    /// Unary fluents in signature order.
    pub(crate) fluents: Vec<Fluent>,
    /// The other fluent relations in signature order.
    pub(crate) fluent_rels: Vec<FluentRel>,
    pub(crate) masks: Vec<Mask>,
    pub(crate) tables: Vec<Table>,
    pub(crate) patterns: Vec<Pattern>,
    pub(crate) conds: Vec<(String, Cond)>,
    /// Names of the fixed-point variables in scope, innermost last.
    pub(crate) fix_scope: Vec<(String, usize)>,
    pub(crate) next_fix: usize,
    pub(crate) fresh: usize,
    /// Bound element variables in scope, innermost last.
    pub(crate) scope: Vec<(String, Bound)>,
    pub(crate) next_loop: usize,
    pub(crate) funs: Vec<FunPlan>,
    pub(crate) stable_funs: Vec<FunPlan>,
    /// Tuples of stable relations, per relation and arity (offset form).
    pub(crate) atom_tuples: BTreeMap<(String, usize), Vec<Vec<u32>>>,
    /// Whether sets may be compiled in offset form (see
    /// [`Builder::offset_set`]): `Some(true)` yes, `Some(false)` no,
    /// `None` only where a condition would otherwise loop in loops.
    pub(crate) offsets: Option<bool>,
}

/// The effect of a rule (see the fields of [`RulePlan`] of the same names).
pub(crate) struct Effect {
    pub(crate) removes: Vec<(usize, usize)>,
    pub(crate) adds: Vec<(usize, usize)>,
    pub(crate) tuple_removes: Vec<usize>,
    pub(crate) tuple_adds: Vec<(usize, Vec<usize>)>,
    pub(crate) updates: Vec<(usize, usize, Num)>,
}

/// How many masks, tables, patterns and conditions a builder had (what a
/// compilation that is discarded must not leave behind).
pub(crate) type Mark = (usize, usize, usize, usize);

// Free element variables and the names a formula reads come from the IR's
// one traversal, shared with the heuristics, so that both agree on which
// formulas are stable (`tc x, y phi` and `lfp T(x) = phi` have `x`, `y`
// free).
pub(crate) use toss_core::ir::free_vars;

/// The names a formula reads (not following definitions): its relations,
/// and its functions prefixed with `:`, so that fluent ones make a formula
/// fluent.
pub(crate) fn rel_names(f: &Formula) -> BTreeSet<String> {
    let mut out = relations_used(f);
    out.extend(functions_used(f).into_iter().map(|n| format!(":{n}")));
    out
}

/// `s` without the `__N` suffixes of renamed variables (for display).
pub(crate) fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("__") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 2..];
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            out.push_str("__");
        }
        rest = &tail[digits..];
    }
    out.push_str(rest);
    out
}

pub(crate) fn flatten_and(f: &Formula, out: &mut Vec<Formula>) {
    match f {
        Formula::And(gs) => gs.iter().for_each(|g| flatten_and(g, out)),
        Formula::True => {}
        g => out.push(g.clone()),
    }
}

pub(crate) fn and_of(mut v: Vec<SetExpr>) -> SetExpr {
    v.retain(|s| *s != SetExpr::Universe);
    if v.contains(&SetExpr::Empty) {
        return SetExpr::Empty;
    }
    match v.len() {
        0 => SetExpr::Universe,
        1 => v.remove(0),
        _ => SetExpr::And(v),
    }
}

impl<'g> Builder<'g> {
    /// A builder for `game`, on what its classification found.
    pub(crate) fn new(game: &'g ir::Game, c: Classified) -> Self {
        Builder {
            game,
            n: c.sig.num_elements() as u32,
            sig: c.sig,
            solver: c.solver,
            fluent_names: c.fluent_names,
            fluents: c.fluents,
            fluent_rels: c.fluent_rels,
            masks: Vec::new(),
            tables: Vec::new(),
            patterns: Vec::new(),
            conds: Vec::new(),
            fix_scope: Vec::new(),
            next_fix: 0,
            fresh: 0,
            scope: Vec::new(),
            next_loop: 0,
            funs: c.funs,
            stable_funs: c.stable_funs,
            atom_tuples: BTreeMap::new(),
            offsets: None,
        }
    }
}

impl Builder<'_> {
    pub(crate) fn def(&self, name: &str) -> Option<&ir::DefinedRelation> {
        self.game.defined_relations.iter().find(|d| d.name == name)
    }

    /// The index of a fluent relation of arity other than 1.
    pub(crate) fn fluent_rel(&self, name: &str) -> Option<usize> {
        self.fluent_rels.iter().position(|r| r.name == name)
    }

    /// Whether `f` depends on the state: it mentions, through definitions,
    /// a fluent relation or a fixed-point variable in scope.
    pub(crate) fn is_fluent(&self, f: &Formula) -> bool {
        let names = rel_names(f);
        let mut seen = BTreeSet::new();
        let mut todo: Vec<String> = names.into_iter().collect();
        while let Some(n) = todo.pop() {
            if !seen.insert(n.clone()) {
                continue;
            }
            if self.fluent_names.contains(&n) || self.fix_scope.iter().any(|(v, _)| *v == n) {
                return true;
            }
            if let Some(d) = self.def(&n) {
                todo.extend(rel_names(&d.body));
            }
        }
        false
    }

    pub(crate) fn fresh(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}__{}", self.fresh)
    }

    /// `f` with free element variables renamed by `map` and every bound
    /// element variable renamed fresh (no capture).
    pub(crate) fn rename(&mut self, f: &Formula, map: &BTreeMap<String, String>) -> Formula {
        let counter = &mut self.fresh;
        let mut fresh = |base: &str| {
            *counter += 1;
            format!("{base}__{}", *counter)
        };
        Substitution {
            bound: BoundNames::Fresh,
            fresh: &mut fresh,
        }
        .formula(f, map)
    }

    /// The body of a defined relation applied to `args`.
    pub(crate) fn inline(&mut self, name: &str, args: &[String]) -> Result<Formula, Unsupported> {
        let d = self
            .def(name)
            .ok_or_else(|| format!("unknown relation {name}"))?
            .clone();
        if d.params.len() != args.len() {
            return Err(format!("{name} applied to {} arguments", args.len()));
        }
        let map = d.params.iter().cloned().zip(args.iter().cloned()).collect();
        Ok(self.rename(&d.body, &map))
    }

    /// The tuples for `vars` satisfying the stable formula `f`.
    pub(crate) fn query(
        &mut self,
        f: &Formula,
        vars: &[String],
    ) -> Result<Vec<Vec<u32>>, Unsupported> {
        let free: Vec<&str> = vars.iter().map(String::as_str).collect();
        let id = self
            .solver
            .compile_query(f, &free, &[], &[])
            .map_err(|e| format!("evaluating `{}`: {}", print_formula(f), e.message))?;
        Ok(self.solver.satisfying(&self.sig, id, &[], &[]))
    }

    pub(crate) fn holds(&mut self, f: &Formula) -> Result<bool, Unsupported> {
        let id = self
            .solver
            .compile_formula(f, &[], &[])
            .map_err(|e| format!("evaluating `{}`: {}", print_formula(f), e.message))?;
        Ok(self.solver.holds(&self.sig, id, &[], &[]))
    }

    pub(crate) fn mask(&mut self, what: String, members: BTreeSet<u32>) -> SetExpr {
        if members.is_empty() {
            return SetExpr::Empty;
        }
        if members.len() == self.n as usize {
            return SetExpr::Universe;
        }
        if let Some(i) = self.masks.iter().position(|m| m.members == members) {
            return SetExpr::Mask(i);
        }
        self.masks.push(Mask {
            what: clean(&what),
            members,
        });
        SetExpr::Mask(self.masks.len() - 1)
    }

    pub(crate) fn mask_index(&mut self, what: String, members: BTreeSet<u32>) -> usize {
        if let Some(i) = self.masks.iter().position(|m| m.members == members) {
            return i;
        }
        self.masks.push(Mask {
            what: clean(&what),
            members,
        });
        self.masks.len() - 1
    }

    pub(crate) fn table(&mut self, what: String, pairs: &[(u32, u32)]) -> usize {
        let mut rows = vec![BTreeSet::new(); self.n as usize];
        for &(y, x) in pairs {
            rows[y as usize].insert(x);
        }
        if let Some(i) = self.tables.iter().position(|t| t.rows == rows) {
            return i;
        }
        self.tables.push(Table {
            what: clean(&what),
            rows,
        });
        self.tables.len() - 1
    }

    /// A stable binary relation of pairs `(y, x)`, as shifts or a table.
    pub(crate) fn rel2(&mut self, what: &str, pairs: &[(u32, u32)]) -> Rel2 {
        let mut by_offset: BTreeMap<i32, BTreeSet<u32>> = BTreeMap::new();
        for &(y, x) in pairs {
            by_offset.entry(x as i32 - y as i32).or_default().insert(y);
        }
        if by_offset.len() <= MAX_SHIFTS {
            Rel2::Shifts(
                by_offset
                    .into_iter()
                    .map(|(d, ys)| {
                        let m = self.mask_index(format!("sources of offset {d} in {what}"), ys);
                        (d, m)
                    })
                    .collect(),
            )
        } else {
            Rel2::Table(self.table(what.to_string(), pairs))
        }
    }

    /// The binding of a variable in scope.
    pub(crate) fn bound(&self, v: &str) -> Option<Bound> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == v)
            .map(|&(_, b)| b)
    }

    pub(crate) fn mark(&self) -> Mark {
        (
            self.masks.len(),
            self.tables.len(),
            self.patterns.len(),
            self.conds.len(),
        )
    }

    /// Forgets what was added since `m`.
    pub(crate) fn reset(&mut self, m: Mark) {
        self.masks.truncate(m.0);
        self.tables.truncate(m.1);
        self.patterns.truncate(m.2);
        self.conds.truncate(m.3);
    }

    /// `f` run with the offset form allowed or not (see
    /// [`Builder::offsets`]).
    pub(crate) fn with_offsets<T>(
        &mut self,
        mode: Option<bool>,
        f: impl FnOnce(&mut Self) -> T,
    ) -> T {
        let saved = std::mem::replace(&mut self.offsets, mode);
        let out = f(self);
        self.offsets = saved;
        out
    }
}
