//! Evaluation of derived heuristics during search: [`HeuristicEval`] (the
//! solver, on any implementation's states read back as structures) and
//! [`CompiledHeuristic`] (the terms compiled into a generated game), as
//! UCT's evaluation game ([`Evaluator`]) and alpha-beta's static evaluation
//! ([`StaticEval`]).

use toss_core::game::{Game as GameImpl, HeuristicKind, Rng};
use toss_core::ir::Game;
use toss_core::structure::Structure;
use toss_runtime::interpreter::{Interpreter, State};
use toss_runtime::solver::{RealId, Solver, SolverError};
use toss_search::alphabeta::StaticEval;
use toss_search::uct::Evaluator;

use crate::derive::Heuristics;

/// How heuristic values become payoffs for UCT: `mid + range/2 *
/// tanh(h / scale)`, a point distribution within the payoff range.
#[derive(Clone, Copy, Debug)]
pub struct PayoffMap {
    pub lo: f64,
    pub hi: f64,
    pub scale: f64,
}

impl Default for PayoffMap {
    fn default() -> Self {
        PayoffMap {
            lo: -1.0,
            hi: 1.0,
            scale: 4.0,
        }
    }
}

/// Evaluates derived heuristics on interpreter states.
pub struct HeuristicEval {
    solver: Solver,
    ids: Vec<Vec<RealId>>,
    pub map: PayoffMap,
}

impl HeuristicEval {
    /// Compiles `h` for `game` (the stable relations are tabulated).
    pub fn new(
        game: &Game,
        interp: &Interpreter,
        h: &Heuristics,
    ) -> Result<HeuristicEval, SolverError> {
        let mut solver = Solver::new(&game.start, &game.defined_relations)?;
        let ids = h
            .per_location
            .iter()
            .map(|ts| {
                ts.iter()
                    .map(|t| solver.compile_real(t, &[], &[]))
                    .collect()
            })
            .collect::<Result<Vec<Vec<RealId>>, _>>()?;
        solver.set_stable(interp.stable_relations());
        solver.set_stable_from(&game.start);
        Ok(HeuristicEval {
            solver,
            ids,
            map: PayoffMap::default(),
        })
    }

    /// The raw heuristic values of the players in `s`.
    pub fn values(&self, s: &State, out: &mut [f64]) {
        self.values_in(&s.structure, s.location, out);
    }

    /// The raw heuristic values of the players in a position given as its
    /// structure and location.
    pub fn values_in(&self, structure: &Structure, location: usize, out: &mut [f64]) {
        for (o, &t) in out.iter_mut().zip(&self.ids[location]) {
            *o = self.solver.value(structure, t, &[], &[]);
        }
    }

    /// The value of term `index` of `location` on `structure` alone (the
    /// parts of a compiled heuristic that fall back to the solver).
    pub fn term_value(&self, structure: &Structure, location: usize, index: usize) -> f64 {
        self.solver
            .value(structure, self.ids[location][index], &[], &[])
    }
}

/// Maps raw heuristic values to UCT payoffs in place.
fn to_payoffs(map: PayoffMap, out: &mut [f64]) {
    for o in out.iter_mut() {
        *o = (map.lo + map.hi) / 2.0 + (map.hi - map.lo) / 2.0 * (*o / map.scale).tanh();
    }
}

/// The heuristic of any implementation of the game (interpreted or
/// generated): its state is read back as a structure.
impl<G: GameImpl> Evaluator<G> for HeuristicEval {
    fn evaluate(&self, game: &G, s: &G::State, _rng: &mut Rng, out: &mut [f64]) {
        self.values_in(&game.to_structure(s), game.location(s), out);
        to_payoffs(self.map, out);
    }

    fn is_deterministic(&self) -> bool {
        true
    }
}

impl<G: GameImpl> StaticEval<G> for HeuristicEval {
    fn eval(&self, game: &G, s: &G::State, out: &mut [f64]) {
        self.values_in(&game.to_structure(s), game.location(s), out);
    }
}

/// The heuristic compiled into a generated game
/// ([`GameImpl::heuristic_values`]): the same terms as [`HeuristicEval`]
/// evaluates, without building structures. Only for games that have it
/// (see [`CompiledHeuristic::for_game`]).
#[derive(Clone, Copy, Debug)]
pub struct CompiledHeuristic {
    pub kind: HeuristicKind,
    pub map: PayoffMap,
}

impl CompiledHeuristic {
    /// The compiled heuristic of kind `kind` of `game`, if it has one.
    pub fn for_game<G: GameImpl>(game: &G, kind: HeuristicKind) -> Option<CompiledHeuristic> {
        let mut out = vec![0.0; game.num_players()];
        game.heuristic_values(&game.initial_state(), kind, &mut out)
            .then_some(CompiledHeuristic {
                kind,
                map: PayoffMap::default(),
            })
    }
}

impl<G: GameImpl> Evaluator<G> for CompiledHeuristic {
    fn evaluate(&self, game: &G, s: &G::State, _rng: &mut Rng, out: &mut [f64]) {
        game.heuristic_values(s, self.kind, out);
        to_payoffs(self.map, out);
    }

    fn is_deterministic(&self) -> bool {
        true
    }
}

impl<G: GameImpl> StaticEval<G> for CompiledHeuristic {
    fn eval(&self, game: &G, s: &G::State, out: &mut [f64]) {
        game.heuristic_values(s, self.kind, out);
    }
}
