//! The player of GDL-II matches (hidden information, reference/gdl.md
//! section 5): the player does not see the other roles' moves, only its
//! own move and its `sees` percepts after each step.
//!
//! Belief: a set of candidate states, each consistent with the history
//! (our move of every step and the percepts received after it), with a
//! weight, its probability when `random` and the other players choose
//! uniformly among their legal moves (so that Monty Hall's host, who must
//! open the one door left when the candidate's door hides nothing, makes
//! switching worth 2/3). After a step, every candidate is advanced by
//! every joint move in which our role plays its move (the other roles'
//! joint moves enumerated when there are at most
//! [`HiddenConfig::joint_moves`] of them, else that many drawn at random),
//! and a successor is kept when our role's percepts there are the ones
//! received; equal states are merged, their weights added. Past
//! [`HiddenConfig::particles`] candidates, that many are drawn by weight.
//! When no candidate survives (all were dropped by the bound), candidates
//! are searched again from the initial state: a depth-first search over
//! the consistent joint moves of every step of the history, in random
//! order, within [`HiddenConfig::resample_nodes`] states (equal weights);
//! when that fails too, the old candidates are advanced by random joint
//! moves with our move, ignoring the percepts (the player then plays on
//! a guess, and the log says so). A message whose turn is further on
//! than the next one (PLAYs this player never got, or refused) is played
//! on too: the candidates are advanced over the missed steps by random
//! joint moves (a guess from then on). The work of a step is bounded by
//! these numbers and by the clock: the player never hangs.
//!
//! Move choice: flat Monte Carlo over the candidates. Our legal moves are
//! those of a candidate; each in turn is tried on a candidate drawn by
//! weight (where it is legal) with random moves of the other roles, `random`
//! included, followed by a random playout (on the reasoner without its
//! play's fault: a file that gives a role several goals, as
//! kriegTTT_4x4.kif does, counts the largest); the move with the best mean
//! goal of our role is played. At most [`HiddenConfig::playouts`]
//! playouts, and none past the clock. Given a seed, and when the clock
//! leaves room for the playout budget, the moves are the same on every
//! run.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use toss_core::Game;
use toss_core::game::{Rng, index_below, rng_from_seed, uniform01};
use toss_gdl::kif::syntax::SExpr;
use toss_gdl::{GdlGame, GdlMove, GdlState, TermId};

use super::{GgpError, PlayerConfig, Turn, goals_text, quote, sexpr_to_string};

/// The bounds of the GDL-II player's work.
#[derive(Clone, Debug)]
pub struct HiddenConfig {
    /// Candidate states kept at most.
    pub particles: usize,
    /// Joint moves of the other roles tried per candidate and step.
    pub joint_moves: usize,
    /// Playouts per move choice at most.
    pub playouts: u64,
    /// States the depth-first search for new candidates visits at most.
    pub resample_nodes: usize,
    /// Plies of a playout at most.
    pub max_plies: usize,
}

impl Default for HiddenConfig {
    fn default() -> Self {
        HiddenConfig {
            particles: 512,
            joint_moves: 64,
            playouts: 4000,
            resample_nodes: 20_000,
            max_plies: 1000,
        }
    }
}

/// A GDL-II match in progress.
pub(crate) struct HiddenMatch {
    game: GdlGame,
    role: usize,
    /// Joint moves played so far.
    pub(crate) step: usize,
    /// Our move of each step and the percepts received after it (sorted
    /// by id, without repetitions).
    history: Vec<(GdlMove, Vec<TermId>)>,
    /// The candidate states, consistent with `history` (unless `guessing`).
    particles: Vec<GdlState>,
    /// The weight of each candidate (summing to 1): its probability when
    /// `random` and the other players choose uniformly among their legal
    /// moves (the chance of Monty Hall's host opening a door).
    weights: Vec<f64>,
    /// Our reply to the last PLAY, not yet followed by its percepts.
    pending: Option<GdlMove>,
    /// The candidates are a guess: no state consistent with the history
    /// was found.
    guessing: bool,
    /// Steps were missed: the history cannot be replayed from the start.
    history_lost: bool,
    rng: Rng,
    config: HiddenConfig,
    random_moves: bool,
    start_clock: f64,
    play_clock: f64,
    pub(crate) last_message: Instant,
}

/// The running sums of `weights`.
fn cumulative(weights: &[f64]) -> Vec<f64> {
    let mut acc = 0.0;
    weights
        .iter()
        .map(|w| {
            acc += w.max(0.0);
            acc
        })
        .collect()
}

/// An index drawn with probability proportional to its weight (uniform
/// when the weights sum to nothing).
fn draw(cumulative: &[f64], rng: &mut Rng) -> usize {
    let total = cumulative.last().copied().unwrap_or(0.0);
    if !(total > 0.0 && total.is_finite()) {
        return index_below(rng, cumulative.len().max(1));
    }
    let u = uniform01(rng) * total;
    cumulative
        .partition_point(|&c| c <= u)
        .min(cumulative.len() - 1)
}

/// Sorted by id, without repetitions (how percepts are compared).
fn as_set(mut v: Vec<TermId>) -> Vec<TermId> {
    v.sort_unstable();
    v.dedup();
    v
}

impl HiddenMatch {
    pub(crate) fn new(
        game: GdlGame,
        role: usize,
        config: &PlayerConfig,
        seed: u64,
        clocks: (f64, f64),
        received: Instant,
    ) -> HiddenMatch {
        HiddenMatch {
            particles: vec![game.initial_state()],
            weights: vec![1.0],
            game,
            role,
            step: 0,
            history: Vec::new(),
            pending: None,
            guessing: false,
            history_lost: false,
            rng: rng_from_seed(seed ^ 0x0D15_C10D),
            config: config.hidden.clone(),
            random_moves: config.random_moves,
            start_clock: clocks.0,
            play_clock: clocks.1,
            last_message: received,
        }
    }

    /// How long the match is kept without a message: well past any clock.
    pub(crate) fn idle_limit(&self) -> Duration {
        Duration::from_secs_f64(60.0 + 4.0 * (self.start_clock + self.play_clock))
    }

    /// The preparation of START: nothing to search before the first
    /// percepts; the detail for the log.
    pub(crate) fn prepare(&mut self, _deadline: Instant, engine: &str) -> String {
        format!(
            "role {}, clocks {} s / {} s, {engine}",
            self.game.player_names()[self.role],
            self.start_clock,
            self.play_clock
        )
    }

    /// The candidate states (for tests).
    #[cfg(test)]
    pub(crate) fn candidates(&self) -> &[GdlState] {
        &self.particles
    }

    /// The weights of the candidates (for tests).
    #[cfg(test)]
    pub(crate) fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// The game (for tests).
    #[cfg(test)]
    pub(crate) fn game(&self) -> &GdlGame {
        &self.game
    }

    /// Reads the turn, our last move and the percepts of a PLAY or STOP
    /// that reports a step: `None` when the message reports none (the
    /// first PLAY); else the steps missed before it (a turn further on
    /// than the next one: messages this player never got or refused), our
    /// move and the percepts.
    #[allow(clippy::type_complexity)]
    fn read_step(
        &self,
        percepts: Option<Vec<SExpr>>,
        turn: Option<Turn>,
    ) -> Result<Option<(usize, GdlMove, Vec<TermId>)>, GgpError> {
        let first = self.pending.is_none() && self.step == 0;
        let nothing = |last: &Option<SExpr>, percepts: &Option<Vec<SExpr>>| {
            last.is_none() && percepts.as_ref().is_none_or(Vec::is_empty)
        };
        let (missed, last) = match turn {
            Some(Turn {
                number: 0,
                last_move,
            }) => {
                if !first {
                    return Err(GgpError::bad(
                        "turn 0 (the first PLAY) came again: this player already answered it",
                    ));
                }
                if !nothing(&last_move, &percepts) {
                    return Err(GgpError::bad(
                        "the first PLAY of a match (turn 0) carries no move and no percepts (nil)",
                    ));
                }
                return Ok(None);
            }
            Some(Turn { number, last_move }) => {
                let expected = self.step as u64 + 1;
                if number < expected {
                    return Err(GgpError::bad(format!(
                        "turn {number} in the message, but this player expected turn {expected}"
                    )));
                }
                ((number - expected) as usize, last_move)
            }
            None if first => {
                if !nothing(&None, &percepts) {
                    return Err(GgpError::bad(
                        "the first PLAY of a match carries no percepts (nil)",
                    ));
                }
                return Ok(None);
            }
            None => (0, None),
        };
        let ours = match last {
            Some(e) => {
                let text = sexpr_to_string(&e);
                let t = toss_gdl::kif::ground(&self.game, &e).map_err(|d| {
                    GgpError::bad(format!(
                        "the last move `{}` is not a move of the game: {}",
                        quote(&text),
                        d.message
                    ))
                })?;
                GdlMove(t)
            }
            None => self.pending.ok_or_else(|| {
                GgpError::bad(format!(
                    "a step was reported after step {} without our move, and this player \
                     was not asked to move",
                    self.step
                ))
            })?,
        };
        let mut seen = Vec::new();
        for e in percepts.unwrap_or_default() {
            let t = toss_gdl::kif::ground(&self.game, &e).map_err(|d| {
                GgpError::bad(format!(
                    "the percept `{}` is not a term of the game: {}",
                    quote(&sexpr_to_string(&e)),
                    d.message
                ))
            })?;
            seen.push(t);
        }
        Ok(Some((missed, ours, as_set(seen))))
    }

    /// Steps this player never heard of: the candidates advanced by random
    /// joint moves (a guess), and the history no longer replayable.
    fn skip(&mut self, steps: usize) {
        if steps == 0 {
            return;
        }
        for _ in 0..steps {
            let old = std::mem::take(&mut self.particles);
            let old_weights = std::mem::take(&mut self.weights);
            for (s, w) in old.iter().zip(old_weights) {
                let next = match self.legal(s) {
                    Some(legal) if !self.game.terminal(s) => {
                        let j: Vec<GdlMove> = legal
                            .iter()
                            .map(|l| l[index_below(&mut self.rng, l.len())])
                            .collect();
                        self.game.next_state(s, &j)
                    }
                    _ => s.clone(),
                };
                self.particles.push(next);
                self.weights.push(w);
            }
            self.step += 1;
        }
        self.history_lost = true;
        self.guessing = true;
        self.pending = None;
    }

    /// PLAY: the step reported applied to the candidates, then our move
    /// and the detail for the log.
    pub(crate) fn play(
        &mut self,
        match_id: &str,
        percepts: Option<Vec<SExpr>>,
        turn: Option<Turn>,
        received: Instant,
        config: &PlayerConfig,
    ) -> Result<(String, String), GgpError> {
        self.last_message = received;
        let deadline = config.deadline(self.play_clock, received);
        let budget_start = Instant::now();
        let reported = self.read_step(percepts, turn)?;
        if reported.is_none() && self.pending.is_some() {
            return Err(GgpError::bad(format!(
                "PLAY with nil, but a step was already played in match `{}`",
                quote(match_id)
            )));
        }
        let mut detail = String::new();
        if let Some((missed, ours, seen)) = reported {
            if missed > 0 {
                self.skip(missed);
                detail = format!(", {missed} steps missed");
            }
            // Half the time left for the update, the rest for the choice.
            let mid = budget_start + deadline.saturating_duration_since(budget_start) / 2;
            detail += &self.observe(ours, seen, mid);
        }
        // The game goes on: the candidates are not terminal.
        let game = &self.game;
        let live: Vec<bool> = self.particles.iter().map(|s| !game.terminal(s)).collect();
        if !live.contains(&true) {
            return Err(GgpError::bad(format!(
                "PLAY at step {}, but every candidate state is terminal (expected STOP)",
                self.step + 1
            )));
        }
        let mut keep = live.iter();
        self.particles
            .retain(|_| keep.next().copied().unwrap_or(false));
        let mut keep = live.iter();
        self.weights
            .retain(|_| keep.next().copied().unwrap_or(false));
        let (mv, how) = self.choose(deadline)?;
        self.pending = Some(mv);
        let text = self.game.term_to_string(mv.0);
        Ok((
            text,
            format!(
                "step {}, {} candidate states{}{}, {how}",
                self.step + 1,
                self.particles.len(),
                if self.guessing { " (a guess)" } else { "" },
                detail
            ),
        ))
    }

    /// STOP: the last step applied; the detail for the log (our goal in
    /// the candidate states).
    pub(crate) fn stop(
        &mut self,
        percepts: Option<Vec<SExpr>>,
        turn: Option<Turn>,
    ) -> Result<String, GgpError> {
        if let Some((missed, ours, seen)) = self.read_step(percepts, turn)? {
            self.skip(missed);
            let deadline = Instant::now() + Duration::from_secs_f64(self.play_clock.min(10.0));
            self.observe(ours, seen, deadline);
        }
        let game = &self.game;
        let mut goals: Vec<u64> = self
            .particles
            .iter()
            .filter(|s| game.terminal(s))
            .filter_map(|s| game.gdl2_goals(s).ok())
            .map(|g| g[self.role])
            .collect();
        goals.sort_unstable();
        goals.dedup();
        Ok(match goals.as_slice() {
            [] => format!("after {} steps, in no terminal candidate state", self.step),
            [g] => format!(
                "after {} steps, goals {}",
                self.step,
                goals_text(&self.game.player_names()[self.role..=self.role], &[*g])
            ),
            _ => format!(
                "after {} steps, goal of {} one of {goals:?} (hidden)",
                self.step,
                self.game.player_names()[self.role]
            ),
        })
    }

    /// The joint moves of `legal` with our role playing `ours`: all of
    /// them when there are at most `joint_moves`, else that many drawn at
    /// random (without repetitions).
    fn joints(&mut self, legal: &[Vec<GdlMove>], ours: GdlMove) -> (Vec<Vec<GdlMove>>, f64) {
        let n = legal.len();
        let mut total: usize = 1;
        for (p, l) in legal.iter().enumerate() {
            if p != self.role {
                total = total.saturating_mul(l.len());
            }
        }
        let pick = |p: usize, i: usize| if p == self.role { ours } else { legal[p][i] };
        let mut out = Vec::new();
        if total <= self.config.joint_moves.max(1) {
            let mut idx = vec![0usize; n];
            for _ in 0..total {
                out.push((0..n).map(|p| pick(p, idx[p])).collect());
                for p in (0..n).rev() {
                    if p == self.role {
                        continue;
                    }
                    idx[p] += 1;
                    if idx[p] < legal[p].len() {
                        break;
                    }
                    idx[p] = 0;
                }
            }
            (out, 1.0 / total as f64)
        } else {
            // Drawn with repetitions: each draw is a share of the weight,
            // and repeated draws add up when the successors are merged.
            for _ in 0..self.config.joint_moves {
                let j: Vec<GdlMove> = (0..n)
                    .map(|p| {
                        if p == self.role {
                            ours
                        } else {
                            legal[p][index_below(&mut self.rng, legal[p].len())]
                        }
                    })
                    .collect();
                out.push(j);
            }
            (out, 1.0 / self.config.joint_moves as f64)
        }
    }

    /// The legal moves of every role in `s`; `None` if one has none.
    fn legal(&self, s: &GdlState) -> Option<Vec<Vec<GdlMove>>> {
        let mut out = Vec::new();
        for p in 0..self.game.num_players() {
            let mut v = Vec::new();
            self.game.legal_moves(s, p, &mut v);
            if v.is_empty() {
                return None;
            }
            out.push(v);
        }
        Some(out)
    }

    /// The successors of `s` consistent with our move `ours` and the
    /// percepts `seen`, each with its probability given `s` (the other
    /// roles choosing uniformly; a sampled joint move counts for its share
    /// of the samples).
    fn consistent(&mut self, s: &GdlState, ours: GdlMove, seen: &[TermId]) -> Vec<(GdlState, f64)> {
        if self.game.terminal(s) {
            return Vec::new();
        }
        let Some(legal) = self.legal(s) else {
            return Vec::new();
        };
        if !legal[self.role].contains(&ours) {
            return Vec::new();
        }
        let mut out = Vec::new();
        let (joints, p) = self.joints(&legal, ours);
        for j in joints {
            let (next, percepts) = self.game.next_and_percepts(s, &j);
            if as_set(percepts[self.role].clone()) == seen {
                out.push((next, p));
            }
        }
        out
    }

    /// Applies a reported step to the candidates (see the module's
    /// documentation); the detail for the log.
    fn observe(&mut self, ours: GdlMove, seen: Vec<TermId>, deadline: Instant) -> String {
        let old = std::mem::take(&mut self.particles);
        let old_weights = std::mem::take(&mut self.weights);
        let mut next = Vec::new();
        let mut weights = Vec::new();
        let mut merged: HashMap<GdlState, usize> = HashMap::new();
        let mut add =
            |t: GdlState, w: f64, next: &mut Vec<GdlState>, weights: &mut Vec<f64>| match merged
                .get(&t)
            {
                Some(&i) => weights[i] += w,
                None => {
                    merged.insert(t.clone(), next.len());
                    next.push(t);
                    weights.push(w);
                }
            };
        for (s, &w) in old.iter().zip(&old_weights) {
            if Instant::now() >= deadline && !next.is_empty() {
                break;
            }
            for (t, p) in self.consistent(s, ours, &seen) {
                add(t, w * p, &mut next, &mut weights);
            }
        }
        self.history.push((ours, seen));
        self.step += 1;
        self.pending = None;
        let mut how = String::new();
        if next.is_empty() {
            next = self.resample(deadline);
            weights = vec![1.0; next.len()];
            how = if next.is_empty() {
                ", no consistent state found".into()
            } else {
                format!(", {} consistent states found again", next.len())
            };
        }
        if next.is_empty() {
            // A guess: the old candidates advanced, percepts ignored.
            self.guessing = true;
            for (s, &w) in old.iter().zip(&old_weights) {
                if self.game.terminal(s) {
                    continue;
                }
                let Some(legal) = self.legal(s) else { continue };
                let j: Vec<GdlMove> = (0..legal.len())
                    .map(|p| {
                        if p == self.role && legal[p].contains(&ours) {
                            ours
                        } else {
                            legal[p][index_below(&mut self.rng, legal[p].len())]
                        }
                    })
                    .collect();
                let t = self.game.next_state(s, &j);
                add(t, w, &mut next, &mut weights);
            }
            if next.is_empty() {
                next = old;
                weights = old_weights;
            }
        } else {
            self.guessing = self.history_lost;
        }
        if next.len() > self.config.particles.max(1) {
            // As many draws as candidates are kept, by weight; a state
            // drawn k times weighs k.
            let keep = self.config.particles.max(1);
            let mut count: HashMap<usize, usize> = HashMap::new();
            let cumulative = cumulative(&weights);
            for _ in 0..keep {
                let i = draw(&cumulative, &mut self.rng);
                *count.entry(i).or_default() += 1;
            }
            let mut kept: Vec<(usize, usize)> = count.into_iter().collect();
            kept.sort_unstable();
            weights = kept.iter().map(|&(_, k)| k as f64).collect();
            let mut slots: Vec<Option<GdlState>> = next.into_iter().map(Some).collect();
            next = kept.iter().filter_map(|&(i, _)| slots[i].take()).collect();
        }
        let total: f64 = weights.iter().sum();
        if total > 0.0 && total.is_finite() {
            weights.iter_mut().for_each(|w| *w /= total);
        } else {
            weights = vec![1.0 / next.len().max(1) as f64; next.len()];
        }
        self.particles = next;
        self.weights = weights;
        how
    }

    /// Candidates searched again from the initial state: depth-first over
    /// the consistent successors at every step of the history, in random
    /// order, within the bound on states and the deadline.
    fn resample(&mut self, deadline: Instant) -> Vec<GdlState> {
        let want = self.config.particles.max(1);
        let mut found = Vec::new();
        if self.history_lost {
            return found;
        }
        let mut merged = HashSet::new();
        let mut stack = vec![(self.game.initial_state(), 0usize)];
        let mut visited = 0usize;
        let history = std::mem::take(&mut self.history);
        while let Some((s, depth)) = stack.pop() {
            if depth == history.len() {
                if merged.insert(s.clone()) {
                    found.push(s);
                }
                if found.len() >= want {
                    break;
                }
                continue;
            }
            visited += 1;
            if visited > self.config.resample_nodes || Instant::now() >= deadline {
                break;
            }
            let (ours, seen) = &history[depth];
            let mut succ: Vec<GdlState> = self
                .consistent(&s, *ours, seen)
                .into_iter()
                .map(|(t, _)| t)
                .collect();
            // Random order: shuffled, the last popped first.
            for i in (1..succ.len()).rev() {
                let k = index_below(&mut self.rng, i + 1);
                succ.swap(i, k);
            }
            stack.extend(succ.into_iter().map(|t| (t, depth + 1)));
        }
        self.history = history;
        found
    }

    /// Our goal at the end of a random playout from `s` (every role,
    /// `random` included, choosing uniformly), or `None` past the
    /// deadline. A faulty description does not stop the match: a role
    /// without a legal move ends the playout there, several goals count
    /// as the largest (the game's `Game::fault`, which would end every
    /// state, is not raised here), no goal as 0.
    fn playout(&mut self, mut s: GdlState, deadline: Instant) -> Option<f64> {
        let np = self.game.num_players();
        let mut joint = Vec::with_capacity(np);
        let mut legal = Vec::new();
        for ply in 0..self.config.max_plies {
            if ply % 16 == 0 && Instant::now() >= deadline {
                return None;
            }
            if self.game.terminal(&s) {
                break;
            }
            joint.clear();
            for p in 0..np {
                self.game.legal_moves(&s, p, &mut legal);
                if legal.is_empty() {
                    break;
                }
                joint.push(legal[index_below(&mut self.rng, legal.len())]);
            }
            if joint.len() < np {
                break;
            }
            s = self.game.next_state(&s, &joint);
        }
        let goals = self.game.goal_values(&s);
        Some(goals[self.role].last().copied().unwrap_or(0) as f64)
    }

    /// Our move: random when asked for, else flat Monte Carlo over the
    /// candidates; with how it was chosen, for the log.
    fn choose(&mut self, deadline: Instant) -> Result<(GdlMove, String), GgpError> {
        let cumulative = cumulative(&self.weights);
        let base = self.particles[draw(&cumulative, &mut self.rng)].clone();
        let mut moves = Vec::new();
        self.game.legal_moves(&base, self.role, &mut moves);
        if moves.is_empty() {
            // A candidate without a move for us: the game's fault; any
            // other candidate's move.
            for s in &self.particles {
                self.game.legal_moves(s, self.role, &mut moves);
                if !moves.is_empty() {
                    break;
                }
            }
        }
        if moves.is_empty() {
            // No candidate has a move for us: the game (or the guess) is
            // broken.
            return Err(GgpError {
                status: 500,
                message: format!(
                    "step {}: role {} has no legal move in any candidate state",
                    self.step + 1,
                    self.game.player_names()[self.role]
                ),
            });
        }
        if self.random_moves {
            let m = moves[index_below(&mut self.rng, moves.len())];
            return Ok((m, "a random move".into()));
        }
        if moves.len() == 1 {
            return Ok((moves[0], "the only move".into()));
        }
        let k = moves.len();
        let mut sum = vec![0.0f64; k];
        let mut count = vec![0u64; k];
        let mut playouts = 0u64;
        let mut tries = 0u64;
        let np = self.game.num_players();
        let mut legal = Vec::new();
        while playouts < self.config.playouts && tries < self.config.playouts.saturating_mul(4) {
            if Instant::now() >= deadline {
                break;
            }
            let i = (tries % k as u64) as usize;
            tries += 1;
            let s = &self.particles[draw(&cumulative, &mut self.rng)];
            let mut joint = Vec::with_capacity(np);
            let mut ok = true;
            for p in 0..np {
                self.game.legal_moves(s, p, &mut legal);
                if p == self.role {
                    ok &= legal.contains(&moves[i]);
                    joint.push(moves[i]);
                } else if legal.is_empty() {
                    ok = false;
                } else {
                    joint.push(legal[index_below(&mut self.rng, legal.len())]);
                }
            }
            if !ok {
                continue;
            }
            let t = self.game.next_state(s, &joint);
            let Some(goal) = self.playout(t, deadline) else {
                break;
            };
            sum[i] += goal;
            count[i] += 1;
            playouts += 1;
        }
        let mut best = None;
        for i in 0..k {
            if count[i] == 0 {
                continue;
            }
            let mean = sum[i] / count[i] as f64;
            if best.is_none_or(|(_, b)| mean > b) {
                best = Some((i, mean));
            }
        }
        Ok(match best {
            Some((i, mean)) => (
                moves[i],
                format!("{playouts} playouts, mean goal {mean:.1}"),
            ),
            None => (
                moves[index_below(&mut self.rng, k)],
                "no playout in time: a random move".into(),
            ),
        })
    }
}
