//! Alpha-beta search with iterative deepening for turn-based games, with a
//! static evaluation (e.g. a derived heuristic, [`crate::heuristic`]).
//!
//! With two players the search maximises, for the player to move at the
//! root `r`, the difference `e_r - e_o` of the evaluations (pruning with
//! alpha and beta); with more players it is maximax (max^n): every mover
//! maximises its own component, without pruning. Terminal states count
//! their payoffs times [`AlphaBeta::terminal_weight`], sooner wins (and
//! later losses) slightly preferred. A state with several movers is
//! evaluated statically (simultaneous moves are UCT's business). Depth
//! counts turns: a ply that continues the mover's turn
//! ([`Game::continues_turn`], e.g. Reversi's flips after a placement) is
//! searched at the same depth.

use std::time::Instant;

use crate::player::{Budget, Player};
use toss_core::game::{Game, Rng, rng_from_seed, turn_fault};

/// A static evaluation: one value per player.
pub trait StaticEval<G: Game> {
    fn eval(&self, game: &G, s: &G::State, out: &mut [f64]);
}

/// How deep a search goes: turns left, and the plies of the current turn
/// played so far (a turn past the limit of plies per turn is a fault).
#[derive(Clone, Copy)]
struct Depth {
    turns: u32,
    turn_plies: usize,
}

impl Depth {
    fn turns(turns: u32) -> Depth {
        Depth {
            turns,
            turn_plies: 0,
        }
    }

    /// The depth left at `t`, reached by one ply from a state with movers
    /// `before`: one turn less, unless the ply continues the turn.
    fn after<G: Game>(self, game: &G, before: &[usize], t: &G::State) -> Depth {
        if game.has_compound_turns() {
            let mut after = Vec::new();
            game.movers(t, &mut after);
            if game.continues_turn(before, &after) {
                // A turn past the limit is a fault: searched no deeper.
                if self.turn_plies + 1 >= toss_core::limits::PLIES_PER_TURN.value {
                    game.report_fault(turn_fault());
                    return Depth::turns(0);
                }
                return Depth {
                    turns: self.turns,
                    turn_plies: self.turn_plies + 1,
                };
            }
        }
        Depth::turns(self.turns - 1)
    }
}

/// The payoff terms' current values as the evaluation.
#[derive(Clone, Copy, Debug, Default)]
pub struct PayoffEval;

impl<G: Game> StaticEval<G> for PayoffEval {
    fn eval(&self, game: &G, s: &G::State, out: &mut [f64]) {
        game.payoffs(s, out);
    }
}

/// Search statistics of the last move.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AbReport {
    /// The deepest completed iteration.
    pub depth: u32,
    pub nodes: u64,
    /// Its value for the player to move.
    pub value: f64,
    pub seconds: f64,
}

pub struct AlphaBeta<E> {
    pub eval: E,
    pub terminal_weight: f64,
    /// Depth limit with a time budget.
    pub max_depth: u32,
    rng: Rng,
    last: AbReport,
}

struct Aborted;

impl<E> AlphaBeta<E> {
    pub fn new(eval: E, seed: u64) -> AlphaBeta<E> {
        AlphaBeta {
            eval,
            terminal_weight: 1000.0,
            max_depth: 64,
            rng: rng_from_seed(seed),
            last: AbReport::default(),
        }
    }

    pub fn report(&self) -> &AbReport {
        &self.last
    }

    /// The value for the root player `r` (against `o` with two players)
    /// of `s`, searched `d` turns deep; `out` gets the evaluation vector.
    #[allow(clippy::too_many_arguments)]
    fn value<G: Game>(
        &mut self,
        game: &G,
        s: &G::State,
        d: Depth,
        mut alpha: f64,
        mut beta: f64,
        r: usize,
        deadline: Option<Instant>,
        out: &mut [f64],
    ) -> Result<(), Aborted>
    where
        E: StaticEval<G>,
    {
        self.last.nodes += 1;
        if let Some(t) = deadline
            && self.last.nodes.is_multiple_of(256)
            && Instant::now() >= t
        {
            return Err(Aborted);
        }
        let np = game.num_players();
        let mut movers = Vec::new();
        game.movers(s, &mut movers);
        if movers.is_empty() {
            game.payoffs(s, out);
            for o in out.iter_mut() {
                *o = *o * self.terminal_weight + o.signum() * d.turns as f64;
            }
            return Ok(());
        }
        if d.turns == 0 || movers.len() > 1 {
            self.eval.eval(game, s, out);
            return Ok(());
        }
        let m = movers[0];
        let mut moves = Vec::new();
        game.legal_moves(s, m, &mut moves);
        let score = |v: &[f64], p: usize| {
            if np == 2 { v[p] - v[1 - p] } else { v[p] }
        };
        let mut best = vec![f64::NEG_INFINITY; np];
        let mut first = true;
        let mut child = vec![0.0; np];
        let mut rng = rng_from_seed(0);
        for mv in &moves {
            let mut t = s.clone();
            game.apply(&mut t, std::slice::from_ref(mv), &mut rng);
            let d = d.after(game, &movers, &t);
            self.value(game, &t, d, alpha, beta, r, deadline, &mut child)?;
            if first || score(&child, m) > score(&best, m) {
                best.copy_from_slice(&child);
                first = false;
            }
            if np == 2 {
                let v = score(&best, r);
                if m == r {
                    alpha = alpha.max(v);
                } else {
                    beta = beta.min(v);
                }
                if alpha >= beta {
                    break;
                }
            }
        }
        out.copy_from_slice(&best);
        Ok(())
    }

    /// Iterative deepening from `s`: the index of the chosen move of the
    /// single mover, or `None` if terminal or simultaneous.
    pub fn search<G: Game>(&mut self, game: &G, s: &G::State, budget: Budget) -> Option<usize>
    where
        E: StaticEval<G>,
    {
        let start = Instant::now();
        let (max_depth, deadline) = match budget {
            Budget::Iterations(n) => (n.min(u32::MAX as u64) as u32, None),
            Budget::Time(t) => (self.max_depth, Some(start + t)),
        };
        let mut movers = Vec::new();
        game.movers(s, &mut movers);
        if movers.len() != 1 {
            return None;
        }
        let r = movers[0];
        let np = game.num_players();
        let mut moves = Vec::new();
        game.legal_moves(s, r, &mut moves);
        if moves.is_empty() {
            return None;
        }
        self.last = AbReport::default();
        let score = |v: &[f64]| if np == 2 { v[r] - v[1 - r] } else { v[r] };
        // Move order: the previous iteration's best first.
        let mut order: Vec<usize> = (0..moves.len()).collect();
        let mut chosen = 0;
        let mut rng = rng_from_seed(0);
        for depth in 1..=max_depth.max(1) {
            let mut vals: Vec<(usize, f64)> = Vec::new();
            let mut alpha = f64::NEG_INFINITY;
            let mut out = vec![0.0; np];
            let mut aborted = false;
            for &i in &order {
                let mut t = s.clone();
                game.apply(&mut t, std::slice::from_ref(&moves[i]), &mut rng);
                // A window just below the best so far finds equal moves too.
                let a = if alpha.is_finite() {
                    alpha - 1e-9
                } else {
                    alpha
                };
                let d = Depth::turns(depth).after(game, &movers, &t);
                if self
                    .value(game, &t, d, a, f64::INFINITY, r, deadline, &mut out)
                    .is_err()
                {
                    aborted = true;
                    break;
                }
                let v = score(&out);
                alpha = alpha.max(v);
                vals.push((i, v));
            }
            if aborted {
                break;
            }
            let best = vals.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max);
            let ties: Vec<usize> = vals.iter().filter(|x| x.1 >= best).map(|x| x.0).collect();
            chosen = ties[toss_core::game::index_below(&mut self.rng, ties.len())];
            vals.sort_by(|a, b| b.1.total_cmp(&a.1));
            order = vals.iter().map(|x| x.0).collect();
            self.last.depth = depth;
            self.last.value = best;
            // A decided game needs no deeper search.
            if best.abs() >= self.terminal_weight / 2.0 {
                break;
            }
        }
        self.last.seconds = start.elapsed().as_secs_f64();
        Some(chosen)
    }
}

impl<G: Game, E: StaticEval<G>> Player<G> for AlphaBeta<E> {
    fn name(&self) -> String {
        "alphabeta".into()
    }

    fn choose(&mut self, game: &G, state: &G::State, budget: Budget) -> Vec<G::Move> {
        let Some(i) = self.search(game, state, budget) else {
            return crate::player::RandomPlayer::new(0).choose(game, state, budget);
        };
        let mut movers = Vec::new();
        game.movers(state, &mut movers);
        let mut moves = Vec::new();
        // A fault found by the search (`Game::fault`) ends the play: no
        // mover, no move.
        let Some(&m) = movers.first() else {
            return Vec::new();
        };
        game.legal_moves(state, m, &mut moves);
        if i >= moves.len() {
            return Vec::new();
        }
        vec![moves.swap_remove(i)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::play_match;
    use std::collections::HashMap;
    use std::time::Duration;
    use toss_core::structure::CanonicalStructure;
    use toss_runtime::interpreter::Interpreter;
    use toss_runtime::interpreter::State;
    use toss_testkit::fixtures::tic_tac_toe;

    /// Full-depth alpha-beta on the payoffs plays tic-tac-toe perfectly:
    /// against itself every game is a draw, against random it never loses.
    #[test]
    fn full_depth_tic_tac_toe() {
        let g = Interpreter::new(&tic_tac_toe()).expect("loads");
        let mut a = AlphaBeta::new(PayoffEval, 1);
        let mut b = AlphaBeta::new(PayoffEval, 2);
        let mut players: [&mut dyn Player<Interpreter>; 2] = [&mut a, &mut b];
        let r = play_match(&g, &mut players, &[0, 1], Budget::Iterations(9), 0, 20);
        assert_eq!(r.payoffs, vec![0.0, 0.0]);
        for seed in 0..3 {
            let mut a = AlphaBeta::new(PayoffEval, seed);
            let mut rnd = crate::player::RandomPlayer::new(seed);
            let mut players: [&mut dyn Player<Interpreter>; 2] = [&mut a, &mut rnd];
            let r = play_match(&g, &mut players, &[1, 0], Budget::Iterations(9), seed, 20);
            assert!(r.payoffs[1] >= 0.0);
        }
    }

    /// Plain minimax, written apart from the search: the value of `s` for
    /// player 0 (1 win, 0 draw, -1 loss) with x maximising and o
    /// minimising, memoised on the board.
    fn minimax(
        g: &Interpreter,
        s: &State,
        memo: &mut HashMap<(CanonicalStructure, usize), f64>,
    ) -> f64 {
        let key = (s.structure.canonical(), s.location);
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let mut movers = Vec::new();
        g.movers(s, &mut movers);
        let v = if movers.is_empty() {
            let mut p = [0.0; 2];
            g.payoffs(s, &mut p);
            p[0]
        } else {
            let mut moves = Vec::new();
            g.legal_moves(s, movers[0], &mut moves);
            let vals = moves.iter().map(|m| {
                let mut t = s.clone();
                g.apply(&mut t, std::slice::from_ref(m), &mut rng_from_seed(0));
                minimax(g, &t, memo)
            });
            let vals: Vec<f64> = vals.collect();
            let best = if movers[0] == 0 { f64::max } else { f64::min };
            vals.into_iter().reduce(best).expect("a move")
        };
        memo.insert(key, v);
        v
    }

    /// The positions after 0, 1 and 2 plies and at random points of 60
    /// random plays, not terminal.
    fn positions(g: &Interpreter) -> Vec<State> {
        let s0 = g.initial_state();
        let mut out = vec![s0.clone()];
        let mut moves = Vec::new();
        g.legal_moves(&s0, 0, &mut moves);
        for m in &moves {
            let mut t = s0.clone();
            g.apply(&mut t, std::slice::from_ref(m), &mut rng_from_seed(0));
            let mut replies = Vec::new();
            g.legal_moves(&t, 1, &mut replies);
            for r in &replies {
                let mut u = t.clone();
                g.apply(&mut u, std::slice::from_ref(r), &mut rng_from_seed(0));
                out.push(u);
            }
            out.push(t);
        }
        let mut rng = rng_from_seed(5);
        for _ in 0..60 {
            let mut t = s0.clone();
            let plies = 3 + toss_core::game::index_below(&mut rng, 5);
            g.random_playout_from(&mut t, &mut rng, plies);
            if !g.is_terminal(&t) {
                out.push(t);
            }
        }
        out
    }

    /// At full depth the value alpha-beta reports for the player to move is
    /// the minimax value scaled by the terminal weight: a win is
    /// `2 * terminal_weight` plus twice the depth left (sooner is better),
    /// a draw 0, a loss the negative. The move it chooses keeps that value.
    #[test]
    fn full_depth_value_is_minimax() {
        let g = Interpreter::new(&tic_tac_toe()).expect("loads");
        let mut memo = HashMap::new();
        let positions = positions(&g);
        let mut wins = 0;
        for (i, s) in positions.iter().enumerate() {
            let mut movers = Vec::new();
            g.movers(s, &mut movers);
            let r = movers[0];
            let sign = if r == 0 { 1.0 } else { -1.0 };
            let exact = sign * minimax(&g, s, &mut memo);
            let mut ab = AlphaBeta::new(PayoffEval, i as u64);
            let chosen = ab.search(&g, s, Budget::Iterations(9)).expect("a move");
            let w = ab.terminal_weight;
            let v = ab.report().value;
            if exact == 0.0 {
                assert_eq!(v, 0.0, "position {i}");
            } else {
                wins += usize::from(exact > 0.0);
                assert!(
                    v * exact >= 2.0 * w && v * exact <= 2.0 * w + 18.0,
                    "position {i}: {v} for an exact value {exact}"
                );
            }
            let mut moves = Vec::new();
            g.legal_moves(s, r, &mut moves);
            let mut t = s.clone();
            g.apply(&mut t, &moves[chosen..=chosen], &mut rng_from_seed(0));
            assert_eq!(sign * minimax(&g, &t, &mut memo), exact, "position {i}");
        }
        // The positions include won ones (after a corner and an edge reply,
        // x wins), not only draws.
        assert!(wins > 0);
    }

    /// With a time budget the search deepens until the deadline: from the
    /// empty board it completes more than depth 1, returns a legal move,
    /// and stops near the deadline (the clock is read every 256 nodes).
    /// Once past depth 9 it has seen every play: the value is the draw.
    #[test]
    fn iterative_deepening_under_a_time_budget() {
        let g = Interpreter::new(&tic_tac_toe()).expect("loads");
        let s = g.initial_state();
        let mut ab = AlphaBeta::new(PayoffEval, 3);
        let budget = Duration::from_millis(300);
        let start = Instant::now();
        let chosen = ab.search(&g, &s, Budget::Time(budget)).expect("a move");
        let took = start.elapsed();
        assert!(chosen < 9);
        let r = ab.report();
        assert!(r.depth >= 2, "depth {}", r.depth);
        assert!(took < budget + Duration::from_secs(1), "{took:?}");
        if r.depth >= 9 {
            assert_eq!(r.value, 0.0);
        }
    }
}
