//! The solver as a player: it looks the position up in a retrograde table
//! when it has one, and otherwise solves it within its budget, playing a
//! move that keeps the exact value when it proves one, and the move with
//! the best proven bound when it cannot (counted, so a match can say how
//! many moves were played without a proof).

use std::sync::Arc;
use std::time::Instant;

use toss_core::game::{Game, Rng, rng_from_seed, uniform01};

use super::matrix::solve_matrix;
use super::retro::RetroTable;
use super::{Limits, Solver, joint_pair, joint_with, matrix_movers, single_chooser};
use crate::player::{Budget, Player};

/// Plays perfectly where its budget allows a proof.
pub struct SolverPlayer {
    solver: Solver,
    table: Option<Arc<RetroTable>>,
    rng: Rng,
    /// Moves chosen with a proof (table or exact search), and without.
    pub proven: u64,
    pub unproven: u64,
    /// Why the last unproven move was not proven.
    pub last_reason: Option<String>,
}

impl SolverPlayer {
    /// A player whose table holds at most `memory_bytes`; `seed` draws its
    /// mixed strategies at simultaneous moves.
    pub fn new(memory_bytes: usize, seed: u64) -> SolverPlayer {
        let limits = Limits {
            memory_bytes,
            ..Limits::default()
        };
        let mut solver = Solver::new(limits);
        solver.value_moves = true;
        SolverPlayer {
            solver,
            table: None,
            rng: rng_from_seed(seed),
            proven: 0,
            unproven: 0,
            last_reason: None,
        }
    }

    /// Reads moves from `table` where it has the position.
    pub fn with_table(mut self, table: Arc<RetroTable>) -> SolverPlayer {
        self.table = Some(table);
        self
    }

    fn table_move<G: Game>(&self, game: &G, s: &G::State) -> Option<u32> {
        let table = self.table.as_ref()?;
        let mut key = Vec::new();
        game.state_key(s, &mut key).then_some(())?;
        let (_, best) = table.get(&key)?;
        (best != u32::MAX).then_some(best)
    }
}

impl<G: Game> Player<G> for SolverPlayer {
    fn name(&self) -> String {
        "solver".into()
    }

    fn choose(&mut self, game: &G, state: &G::State, budget: Budget) -> Vec<G::Move> {
        let mut movers = Vec::new();
        let mut moves: Vec<Vec<G::Move>> = Vec::new();
        game.movers_and_moves(state, &mut movers, &mut moves);
        if movers.is_empty() {
            return Vec::new();
        }
        let moves = &moves[..movers.len()];
        match budget {
            Budget::Time(t) => {
                self.solver.limits.deadline = Some(Instant::now() + t);
                self.solver.limits.max_positions = None;
            }
            Budget::Iterations(n) => {
                self.solver.limits.deadline = None;
                self.solver.limits.max_positions = Some(n);
            }
        }
        let Some(k) = single_chooser(&movers, moves) else {
            return self.simultaneous(game, state, &movers, moves);
        };
        if let Some(best) = self.table_move(game, state)
            && (best as usize) < moves[k].len()
        {
            self.proven += 1;
            return joint_with(moves, k, best as usize);
        }
        match self.solver.solve(game, state) {
            Ok(sol) => {
                let c = movers[k];
                let exact = sol.values[c].0 == sol.values[c].1;
                // The best proven lower bound, then the best upper bound.
                let pick = sol
                    .moves
                    .iter()
                    .fold(None::<&super::MoveValue>, |b, m| match b {
                        Some(b) if (b.lo, b.hi) >= (m.lo, m.hi) => Some(b),
                        _ => Some(m),
                    })
                    .map(|m| m.index)
                    .or(sol.best)
                    .unwrap_or(0);
                if exact {
                    self.proven += 1;
                } else {
                    self.unproven += 1;
                    self.last_reason = sol.stopped.map(|s| s.to_string());
                }
                joint_with(moves, k, pick.min(moves[k].len() - 1))
            }
            Err(e) => {
                self.unproven += 1;
                self.last_reason = Some(e.to_string());
                joint_with(moves, k, 0)
            }
        }
    }

    fn summary(&self) -> Option<String> {
        let total = self.proven + self.unproven;
        if self.unproven == 0 {
            return Some(format!("solver: all {total} moves proven perfect"));
        }
        Some(format!(
            "solver: {} of {total} moves proven perfect; {} played on bounds ({})",
            self.proven,
            self.unproven,
            self.last_reason.as_deref().unwrap_or("no proof")
        ))
    }
}

impl SolverPlayer {
    /// Both players choose at once: each child solved, the matrix game's
    /// optimal mixed strategy drawn from.
    fn simultaneous<G: Game>(
        &mut self,
        game: &G,
        state: &G::State,
        movers: &[usize],
        moves: &[Vec<G::Move>],
    ) -> Vec<G::Move> {
        let fallback = || moves.iter().map(|ms| ms[0].clone()).collect::<Vec<_>>();
        let (r, c) = match matrix_movers(game, &moves[..movers.len()]) {
            Ok(rc) => rc,
            Err(e) => {
                self.unproven += 1;
                self.last_reason = Some(e.to_string());
                return fallback();
            }
        };
        let (m, n) = (moves[r].len(), moves[c].len());
        let mut a = vec![0.0; m * n];
        let mut exact = true;
        for i in 0..m {
            for j in 0..n {
                let joint = joint_pair(moves, (r, i), (c, j));
                let mut t = state.clone();
                // Chance after a simultaneous move is averaged by the
                // solver only below the matrix; here one outcome is
                // sampled, so such a value is not counted as proven.
                exact &= !game.has_chance();
                game.apply(&mut t, &joint, &mut self.rng);
                match self.solver.solve(game, &t) {
                    Ok(sol) => {
                        let (lo, hi) = sol.values[0];
                        exact &= lo == hi;
                        a[i * n + j] = (lo + hi) / 2.0;
                    }
                    Err(e) => {
                        self.unproven += 1;
                        self.last_reason = Some(e.to_string());
                        return fallback();
                    }
                }
            }
        }
        let sol = solve_matrix(&a, m, n);
        let mut joint = fallback();
        joint[r] = moves[r][draw(&sol.rows, &mut self.rng)].clone();
        joint[c] = moves[c][draw(&sol.columns, &mut self.rng)].clone();
        if exact {
            self.proven += 1;
        } else {
            self.unproven += 1;
            self.last_reason = Some("a successor's value was not proven".into());
        }
        joint
    }
}

/// An index drawn with the given probabilities.
fn draw(p: &[f64], rng: &mut Rng) -> usize {
    let u = uniform01(rng);
    let mut acc = 0.0;
    for (i, &x) in p.iter().enumerate() {
        acc += x;
        if u < acc {
            return i;
        }
    }
    p.len() - 1
}
