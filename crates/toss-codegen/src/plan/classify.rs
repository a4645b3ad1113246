//! Classification: which relations and functions are stable (constant
//! tables, evaluated here) and which are fluent (in the generated state),
//! how each fluent relation of arity other than 1 is kept ([`Repr`]), and
//! the check that the state is a fixed set of elements (no rule creates,
//! deletes or copies one).

use std::collections::BTreeSet;

use toss_core::Structure;
use toss_core::ir;
use toss_runtime::Interpreter;
use toss_runtime::solver::Solver;

use super::{Fluent, FluentRel, FunPlan, MAX_DENSE_ELEMENTS, Repr, Unsupported};

/// What the classification found: the starting structure, the solver on
/// it (stable relations marked), and the relations and functions by kind.
pub(crate) struct Classified {
    pub(crate) sig: Structure,
    pub(crate) solver: Solver,
    /// Stable relation names, sorted.
    pub(crate) stable: Vec<String>,
    /// Fluent relation names (any arity), and `:f` for fluent functions.
    pub(crate) fluent_names: BTreeSet<String>,
    /// Unary fluents in signature order.
    pub(crate) fluents: Vec<Fluent>,
    /// The other fluent relations in signature order.
    pub(crate) fluent_rels: Vec<FluentRel>,
    pub(crate) funs: Vec<FunPlan>,
    pub(crate) stable_funs: Vec<FunPlan>,
}

/// Classifies the relations and functions of `sig` (the starting
/// structure of `game`), or says why the game is outside the fragment.
pub(crate) fn classify(
    game: &ir::Game,
    interp: &Interpreter,
    sig: Structure,
) -> Result<Classified, Unsupported> {
    let n = sig.num_elements();
    if sig.id_bound() != n {
        return Err("the starting structure has deleted elements".into());
    }
    let stable_ids: BTreeSet<usize> = interp.stable_relations().iter().copied().collect();
    let mut solver = Solver::new(&sig, &game.defined_relations).map_err(|e| e.message)?;
    solver.set_stable(interp.stable_relations());
    solver.set_stable_from(&sig);

    let mut stable = Vec::new();
    let mut fluent_names = BTreeSet::new();
    let mut fluents = Vec::new();
    let mut fluent_rels = Vec::new();
    for r in 0..sig.num_relations() {
        let name = sig.relation_name(r).to_string();
        if stable_ids.contains(&r) {
            stable.push(name);
            continue;
        }
        fluent_names.insert(name.clone());
        let arity = sig.arity(r);
        if arity != 1 {
            let repr = if arity == 2 && n <= MAX_DENSE_ELEMENTS {
                Repr::Dense
            } else {
                Repr::Sparse
            };
            let mut initial = sig.tuples(r);
            initial.sort();
            fluent_rels.push(FluentRel {
                name,
                arity,
                repr,
                initial,
            });
            continue;
        }
        let initial = sig.unary(r).map(|b| b.iter().collect()).unwrap_or_default();
        fluents.push(Fluent { name, initial });
    }
    stable.sort();
    elements_kept(game)?;
    let (funs, stable_funs) = functions(game, &sig, &mut fluent_names);
    Ok(Classified {
        sig,
        solver,
        stable,
        fluent_names,
        fluents,
        fluent_rels,
        funs,
        stable_funs,
    })
}

/// The state keeps the elements: no rule may create, delete or copy one
/// (the interpreter path handles such games).
fn elements_kept(game: &ir::Game) -> Result<(), Unsupported> {
    for r in &game.rules {
        if !r.dynamics.is_empty() {
            return Err(format!(
                "rule {}: continuous dynamics are not specialized",
                r.name
            ));
        }
        let mut images = BTreeSet::new();
        for b in &r.rhs.elements {
            let l = r
                .map
                .iter()
                .find(|(rr, _)| rr == b)
                .map(|(_, l)| l.clone())
                .ok_or_else(|| format!("rule {}: right element {b} is new", r.name))?;
            if !images.insert(l) {
                return Err(format!(
                    "rule {}: right element {b} copies a left element",
                    r.name
                ));
            }
        }
        if images.len() != r.lhs.elements.len() {
            return Err(format!("rule {}: the rule deletes elements", r.name));
        }
    }
    Ok(())
}

/// Functions some rule updates are fluent (values in the state, their
/// names added to `fluent_names` with a `:`); the others are constant
/// tables.
fn functions(
    game: &ir::Game,
    sig: &Structure,
    fluent_names: &mut BTreeSet<String>,
) -> (Vec<FunPlan>, Vec<FunPlan>) {
    let n = sig.num_elements();
    let updated: BTreeSet<&str> = game
        .rules
        .iter()
        .flat_map(|r| {
            r.update
                .iter()
                .map(|u| u.function.as_str())
                .chain(r.rhs.functions.iter().map(|(f, _, _)| f.as_str()))
        })
        // REPETITION's count is set by the engine after every ply.
        .chain(game.repetition.iter().map(|r| r.function.as_str()))
        .collect();
    let (mut funs, mut stable_funs) = (Vec::new(), Vec::new());
    for f in 0..sig.num_functions() {
        let name = sig.function_name(f).to_string();
        let values = (0..n as u32).map(|e| sig.fun_value(f, e)).collect();
        if updated.contains(name.as_str()) {
            fluent_names.insert(format!(":{name}"));
            funs.push(FunPlan {
                name,
                values,
                used: true,
            });
        } else {
            stable_funs.push(FunPlan {
                name,
                values,
                used: false,
            });
        }
    }
    (funs, stable_funs)
}
