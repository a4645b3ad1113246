//! The `Game` trait: the one interface that the interpreter and generated
//! code implement, and that players, benchmarks and the command line use.
//!
//! Semantics follow spec 1.4. A state is (structure, location, time). In a
//! location each player has labels; the *movers* are the players with at
//! least one label there, in player order, and the play is *terminal* when
//! some mover has no legal move (or nobody has a label). In a non-terminal
//! state every mover picks one move and the joint action (one move per
//! mover, in `movers` order) is applied at once; for turn-based games there
//! is exactly one mover. Chance (probabilistic edges, drawn interval
//! end-points) is resolved inside [`Game::apply`] with the explicit random
//! number generator, so a play is reproducible from its seed.
//!
//! Turns: a *turn* is a maximal run of consecutive plies with the same single
//! mover (in games of two or more players), so one player's move may take
//! several plies of the game graph (Reversi: place a disc, then flip every
//! bracketed disc at once; a die roll, then the move it allows). Perft and
//! random playouts count turns ([`Game::continues_turn`]); in games where
//! the mover always changes, a turn is a ply.

use rand_core::{Rng as _, SeedableRng};

use crate::structure::Structure;

/// Which heuristic to derive (spec 3.3-3.5); generated code may have
/// either compiled in ([`Game::heuristic_values`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeuristicKind {
    /// Sums over the TNF (spec 3.3).
    Existential,
    /// Guards, move formulas and a power (spec 3.5).
    RuleCondition,
}

/// The random number generator of all playouts: seeded explicitly.
pub type Rng = rand_xoshiro::Xoshiro256PlusPlus;

/// The payoffs of a playout, one per player. Kept inline for up to four
/// players so that a playout allocates nothing: in the short games
/// (tic-tac-toe) a heap vector was a fifth of a generated playout's work.
pub type Payoffs = smallvec::SmallVec<[f64; 4]>;

/// A generator seeded from a number.
pub fn rng_from_seed(seed: u64) -> Rng {
    Rng::seed_from_u64(seed)
}

/// A uniform index below `n` (`n > 0`) from the next 64 random bits `x`:
/// the high half of the 128-bit product `x * n` (Lemire's multiply-shift).
/// Every random choice among moves (playouts, the random player, UCT's
/// tie-breaks) draws through here, in the interpreter and in generated code
/// alike, so a seed gives the same choices in both. A product rather than
/// `x % n`: the 64-bit division was a sixth of a generated Connect Four
/// playout. The bias is below `n / 2^64`, as with the remainder.
#[inline]
pub fn index_below(rng: &mut Rng, n: usize) -> usize {
    ((rng.next_u64() as u128 * n as u128) >> 64) as usize
}

/// The words a value's `Hash` implementation writes, as a state key
/// ([`Game::state_key`]): derived `Hash` writes every field (and every
/// slice's length), so equal words mean equal values. Implementations
/// whose state derives `Hash` take their key from here.
pub fn hash_words<T: std::hash::Hash + ?Sized>(value: &T, out: &mut Vec<u64>) {
    out.clear();
    value.hash(&mut WordWriter(out));
}

/// A `Hasher` that records what it is given instead of mixing it.
struct WordWriter<'a>(&'a mut Vec<u64>);

impl std::hash::Hasher for WordWriter<'_> {
    fn finish(&self) -> u64 {
        0
    }
    fn write(&mut self, bytes: &[u8]) {
        // Length first, so that consecutive byte strings cannot run together.
        self.0.push(bytes.len() as u64);
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0.push(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.0.push(i as u64);
    }
    fn write_u16(&mut self, i: u16) {
        self.0.push(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.0.push(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0.push(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.0.push(i as u64);
    }
}

/// A uniform number in `[0, 1)` (53 random bits).
pub fn uniform01(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A game: states, joint moves, chance and payoffs.
pub trait Game {
    type State: Clone;
    /// One player's action.
    type Move: Clone + PartialEq + std::fmt::Debug;

    /// Player names; players are numbered from 0 in this order.
    fn player_names(&self) -> &[String];

    fn num_players(&self) -> usize {
        self.player_names().len()
    }

    fn initial_state(&self) -> Self::State;

    /// The players who choose an action in this state, in player order
    /// (cleared first). Empty iff the state is terminal. Turn-based games:
    /// one player.
    fn movers(&self, s: &Self::State, out: &mut Vec<usize>);

    /// The legal moves of `player` in canonical order (cleared first).
    fn legal_moves(&self, s: &Self::State, player: usize, out: &mut Vec<Self::Move>);

    /// Applies one move per mover (a joint action, in `movers` order); chance
    /// edges and drawn parameters use `rng`.
    fn apply(&self, s: &mut Self::State, joint: &[Self::Move], rng: &mut Rng);

    /// The movers of `s` (as [`Game::movers`]) and, for each of them in
    /// order, its legal moves (as [`Game::legal_moves`]); `moves` is
    /// resized to at least `movers.len()` entries (extra entries are left
    /// as they are, so their buffers can be reused). Both are empty in
    /// effect when `s` is terminal (`movers` is cleared). The default calls
    /// the two methods; an implementation that finds the movers by
    /// generating moves overrides it to generate them only once.
    fn movers_and_moves(
        &self,
        s: &Self::State,
        movers: &mut Vec<usize>,
        moves: &mut Vec<Vec<Self::Move>>,
    ) {
        self.movers(s, movers);
        if moves.len() < movers.len() {
            moves.resize_with(movers.len(), Vec::new);
        }
        for (i, &p) in movers.iter().enumerate() {
            self.legal_moves(s, p, &mut moves[i]);
        }
    }

    fn is_terminal(&self, s: &Self::State) -> bool {
        let mut m = Vec::new();
        self.movers(s, &mut m);
        m.is_empty()
    }

    /// The payoff of each player (`out.len() == num_players()`), from the
    /// payoff terms of the current location. Meaningful in terminal states;
    /// elsewhere it is the value the terms have now.
    fn payoffs(&self, s: &Self::State, out: &mut [f64]);

    /// The state viewed as a structure.
    fn to_structure(&self, s: &Self::State) -> Structure;

    /// The current location of the game graph.
    fn location(&self, s: &Self::State) -> usize;

    /// The derived heuristic of kind `kind` (spec 3.3-3.5, with the default
    /// `HeuristicConfig` of `toss-heuristics`) of every
    /// player in `s`, when the implementation has it compiled in: writes
    /// the values to `out` (`out.len() == num_players()`) and returns true.
    /// The default, for implementations without a compiled heuristic,
    /// returns false and leaves `out` as it is; players then evaluate the
    /// derived terms with the solver
    /// (`HeuristicEval` of `toss-heuristics`).
    fn heuristic_values(&self, _s: &Self::State, _kind: HeuristicKind, _out: &mut [f64]) -> bool {
        false
    }

    /// Why this game cannot be played on faithfully, once it cannot: an
    /// evaluation ran into a limit of the implementation (the interpreter's
    /// set-quantifier enumeration or its count of `*` move sets). From then
    /// on every state is terminal, so plays stop at once, and their results
    /// mean nothing: callers report the fault instead. The default: never.
    fn fault(&self) -> Option<String> {
        None
    }

    /// Records `message` as the fault of the play when a loop or search
    /// outside the game finds one (a turn past the limit of plies per
    /// turn); the first fault stays. The default keeps nothing (such a
    /// game has no [`Game::fault`]); the loops stop all the same.
    fn report_fault(&self, _message: String) {}

    /// An interval `(lo, hi)` that every payoff of every player lies in,
    /// in every state: UCT's payoff range Delta is `hi - lo` (spec 3.1),
    /// and heuristic values are mapped into it. `None` when the
    /// implementation does not know one (the default); players then assume
    /// `(-1, 1)`. Interpreted and generated games bound their payoff terms
    /// ([`crate::ir::bounds::payoff_bounds`]); GDL goals are in `(0, 100)`.
    fn payoff_bounds(&self) -> Option<(f64, f64)> {
        None
    }

    /// The payoff range players assume: [`Game::payoff_bounds`], or
    /// `(-1, 1)` when there are none; payoffs that are all one constant get
    /// a range of width 1 around it, so that Delta is never 0.
    fn payoff_range(&self) -> (f64, f64) {
        match self.payoff_bounds() {
            Some((lo, hi)) if hi > lo => (lo, hi),
            Some((lo, _)) => (lo - 0.5, lo + 0.5),
            None => (-1.0, 1.0),
        }
    }

    /// A readable form of a move, e.g. `Cross{a: b2}`.
    fn move_to_string(&self, s: &Self::State, player: usize, m: &Self::Move) -> String;

    /// Draws the continuous choices of move `m` of `player` at random: for
    /// a label with a time interval or parameter intervals (spec 1.4), the
    /// time bound and each parameter uniformly from its interval. Random
    /// players pick a legal move (whose choices come from a fixed grid) and
    /// then call this. The default, for games without such labels, leaves
    /// `m` as it is and draws nothing from `rng`.
    fn draw_continuous(
        &self,
        _s: &Self::State,
        _player: usize,
        _m: &mut Self::Move,
        _rng: &mut Rng,
    ) {
    }

    /// Whether a ply from a state with movers `before` to a state with
    /// movers `after` stays in one turn: `after` has a single mover who was
    /// a mover of `before` too (the same player again, as Reversi's flips
    /// after its placement; or one player of a simultaneous move, as the
    /// update plies of a translated GDL game after its joint move), and the
    /// game has at least two players (in a one-player game every ply is a
    /// turn). A ply into a terminal state ends its turn. A turn that goes
    /// on past [`PLIES_PER_TURN`](crate::limits::PLIES_PER_TURN) plies is a
    /// fault of the play ([`turn_fault`]).
    fn continues_turn(&self, before: &[usize], after: &[usize]) -> bool {
        after.len() == 1 && before.contains(&after[0]) && self.num_players() > 1
    }

    /// Whether some ply of the game can continue a turn (see
    /// [`Game::continues_turn`]). When `false`, [`Game::perft`] counts the
    /// moves of its last level without applying them. The default, `true`,
    /// is always correct; implementations that know better override it.
    fn has_compound_turns(&self) -> bool {
        true
    }

    /// Writes to `out` (cleared first) words that identify `s` as a
    /// position, and returns true: two states of this game with equal keys
    /// have the same movers, moves, successors and payoffs, so exact
    /// solvers share one table entry between them (a transposition). Keys
    /// are meaningful within one loaded game; [`Game::stable_keys`] says
    /// whether they are also the same when the file is loaded again. The
    /// default, for implementations without a key, returns false.
    fn state_key(&self, _s: &Self::State, _out: &mut Vec<u64>) -> bool {
        false
    }

    /// Whether [`Game::state_key`] gives the same words for the same
    /// position when the same description is loaded again by the same
    /// implementation, so that a table of keys written to a file can be
    /// read back (retrograde tables). False by default.
    fn stable_keys(&self) -> bool {
        false
    }

    /// Whether [`Game::apply`] may draw from its generator (probabilistic
    /// edges, drawn parameters, continuous evolution). The default, `true`,
    /// is always correct; deterministic implementations say `false`, and
    /// exact solvers then apply each joint move once.
    fn has_chance(&self) -> bool {
        true
    }

    /// The outcomes of chance when `joint` is applied in `s`: each
    /// successor with its probability (summing to 1) pushed to `out`
    /// (cleared first), and true. False when this implementation cannot
    /// enumerate them (a drawn real parameter, or no support for it): exact
    /// solvers then refuse the position. Deterministic games need not
    /// implement it (see [`Game::has_chance`]).
    fn chance_outcomes(
        &self,
        _s: &Self::State,
        _joint: &[Self::Move],
        _out: &mut Vec<(f64, Self::State)>,
    ) -> bool {
        false
    }

    /// Plays uniformly random joint moves from `s` (in place), with their
    /// continuous choices drawn ([`Game::draw_continuous`]), until the play
    /// is terminal or `max_turns` turns were played (see
    /// [`Game::continues_turn`]; a stop comes only between turns). Returns
    /// the number of turns played and the payoffs of the state reached (the
    /// payoff terms of its location, even when stopped before the end).
    fn random_playout_from(
        &self,
        s: &mut Self::State,
        rng: &mut Rng,
        max_turns: usize,
    ) -> (usize, Payoffs) {
        let mut movers = Vec::new();
        let mut before: Vec<usize> = Vec::new();
        let mut moves: Vec<Vec<Self::Move>> = Vec::new();
        let mut joint = Vec::new();
        let mut turns = 0;
        // Plies of the current turn so far.
        let mut turn_plies = 0;
        loop {
            self.movers_and_moves(s, &mut movers, &mut moves);
            if movers.is_empty() {
                break;
            }
            let continued = self.continues_turn(&before, &movers);
            if continued && turn_plies >= crate::limits::PLIES_PER_TURN.value {
                self.report_fault(turn_fault());
                break;
            }
            if !continued {
                if turns >= max_turns {
                    break;
                }
                turn_plies = 0;
            }
            joint.clear();
            for (ms, &p) in moves.iter_mut().zip(movers.iter()) {
                if ms.is_empty() {
                    break;
                }
                let i = index_below(rng, ms.len());
                let mut m = ms.swap_remove(i);
                self.draw_continuous(s, p, &mut m, rng);
                joint.push(m);
            }
            if joint.len() < movers.len() {
                break;
            }
            self.apply(s, &joint, rng);
            turn_plies += 1;
            if !continued {
                turns += 1;
            }
            std::mem::swap(&mut before, &mut movers);
        }
        let mut pay = Payoffs::from_elem(0.0, self.num_players());
        self.payoffs(s, &mut pay);
        (turns, pay)
    }

    /// A random playout from the initial state.
    fn random_playout(&self, rng: &mut Rng, max_plies: usize) -> (usize, Payoffs) {
        let mut s = self.initial_state();
        self.random_playout_from(&mut s, rng, max_plies)
    }

    /// The number of turn sequences of length `depth` from `s` (terminal
    /// positions are not expanded and count 0 below depth 0). A turn is one
    /// joint action, or several plies of one mover (see
    /// [`Game::continues_turn`]): a ply that continues the turn does not
    /// use up depth. Chance is not enumerated: each joint action is applied
    /// once with a generator seeded from 0, so for chance games this counts
    /// one sampled branch per move.
    fn perft(&self, s: &Self::State, depth: usize) -> u64 {
        perft_in_turn(self, s, depth, 0)
    }
}

/// The fault of a play where one player would move more plies in a row
/// than [`PLIES_PER_TURN`](crate::limits::PLIES_PER_TURN).
pub fn turn_fault() -> String {
    crate::limits::PLIES_PER_TURN.exceeded("a player would move", "plies in one turn")
}

/// [`Game::perft`] from a state reached by `turn_plies` plies of the
/// current turn (0 at the start of a turn). A turn past the limit of
/// plies per turn reports [`turn_fault`] and stops the count.
pub fn perft_in_turn<G: Game + ?Sized>(
    g: &G,
    s: &G::State,
    depth: usize,
    turn_plies: usize,
) -> u64 {
    let mut rng = rng_from_seed(0);
    let compound = g.has_compound_turns();
    let mut stopped = false;
    perft_rec(g, s, depth, compound, turn_plies, &mut stopped, &mut rng)
}

fn perft_rec<G: Game + ?Sized>(
    g: &G,
    s: &G::State,
    depth: usize,
    compound: bool,
    turn_plies: usize,
    stopped: &mut bool,
    rng: &mut Rng,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut movers = Vec::new();
    g.movers(s, &mut movers);
    if movers.is_empty() {
        return 0;
    }
    let per_player: Vec<Vec<G::Move>> = movers
        .iter()
        .map(|&p| {
            let mut v = Vec::new();
            g.legal_moves(s, p, &mut v);
            v
        })
        .collect();
    if depth == 1 && !compound {
        return per_player.iter().map(|v| v.len() as u64).product();
    }
    let mut total = 0;
    let mut idx = vec![0usize; per_player.len()];
    if per_player.iter().any(|v| v.is_empty()) {
        return 0;
    }
    let mut joint = Vec::with_capacity(per_player.len());
    let mut after = Vec::new();
    'outer: loop {
        joint.clear();
        joint.extend(idx.iter().zip(&per_player).map(|(&i, v)| v[i].clone()));
        let mut t = s.clone();
        g.apply(&mut t, &joint, rng);
        let continued = compound && {
            g.movers(&t, &mut after);
            g.continues_turn(&movers, &after)
        };
        if continued && turn_plies + 1 >= crate::limits::PLIES_PER_TURN.value {
            g.report_fault(turn_fault());
            *stopped = true;
        }
        if *stopped {
            return total;
        }
        let (rest, plies) = if continued {
            (depth, turn_plies + 1)
        } else {
            (depth - 1, 0)
        };
        total += perft_rec(g, &t, rest, compound, plies, stopped, rng);
        let mut p = idx.len();
        loop {
            if p == 0 {
                break 'outer;
            }
            p -= 1;
            idx[p] += 1;
            if idx[p] < per_player[p].len() {
                break;
            }
            idx[p] = 0;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every index is drawn, none out of range, with frequencies within
    /// five standard deviations of uniform.
    #[test]
    fn index_below_is_uniform() {
        let mut rng = rng_from_seed(11);
        assert_eq!(index_below(&mut rng, 1), 0);
        for n in [2usize, 3, 7, 10, 64] {
            let draws = 20_000 * n;
            let mut counts = vec![0usize; n];
            for _ in 0..draws {
                counts[index_below(&mut rng, n)] += 1;
            }
            let p = 1.0 / n as f64;
            let sd = (draws as f64 * p * (1.0 - p)).sqrt();
            for (i, &c) in counts.iter().enumerate() {
                let dev = (c as f64 - draws as f64 * p).abs();
                assert!(dev < 5.0 * sd, "n = {n}: index {i} drawn {c} times");
            }
        }
    }
}
