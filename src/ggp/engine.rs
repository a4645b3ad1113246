//! What a match plays on: the GDL reasoner ([`GdlGame`]), the game
//! grounded into a propositional network ([`GroundGame`]), which has the
//! same roles, the same legal moves in the same order, the same states and
//! goals, and is usually much faster, or the game translated to Toss
//! (`super::translated`). [`MatchGame`] is what the player needs of each
//! beyond [`Game`]; [`ground_for_start`] grounds the game of a START
//! within part of its clock and keeps it when its playouts are faster;
//! [`in_background`] is how both it and the translation keep to the clock.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use toss_core::Game;
use toss_gdl::ground::{GroundGame, GroundLimits, GroundMove};
use toss_gdl::kif::syntax::SExpr;
use toss_gdl::{Description, GdlGame, GdlMove, GoalError};
use toss_search::uct::{Evaluator, UctConfig};

use super::{Deadline, PlayerConfig, TimedPlayout};

/// A game a match can be played on: what the player needs beyond [`Game`].
pub(crate) trait MatchGame:
    Game<State: Send + Sync, Move: Send + Sync> + Clone + Send + Sync + 'static
{
    /// What reads the moves of the protocol into moves of this game:
    /// nothing for the reasoner (it reads them itself), the reasoner for
    /// the grounded game, the reasoner with its state of the match for
    /// the translated game.
    type Reader: Send;
    /// The evaluation of UCT's new nodes.
    type Eval: Evaluator<Self> + Clone + Send;
    /// The configuration of each search tree and its evaluation, which
    /// gives up when `deadline` passes if it can take long.
    fn searcher(&self, config: &PlayerConfig, deadline: &Arc<Deadline>) -> (UctConfig, Self::Eval);
    /// How many evaluations the reasoner's fact limit has stopped so far
    /// (never, on the grounded game).
    fn overflows(&self) -> u64;
    /// The goal of every role, or the fault of the description.
    fn goals(&self, s: &Self::State) -> Result<Vec<u64>, GoalError>;
    fn next_state(&self, s: &Self::State, joint: &[Self::Move]) -> Self::State;
    fn terminal(&self, s: &Self::State) -> bool;
    /// The move a message gives role `role` in state `s`, as a move of
    /// this game; the error says why it is none (a symbol the game lacks,
    /// a variable). A move that is not legal may be reported as `None`
    /// (the grounded game: a move no legal move of the role can ever be).
    fn read_move(
        &self,
        reader: &Self::Reader,
        s: &Self::State,
        role: usize,
        e: &SExpr,
    ) -> Result<Option<Self::Move>, String>;
    /// A move of role `role` in state `s` as KIF text, as the reasoner
    /// prints it.
    fn move_text(
        &self,
        reader: &Self::Reader,
        s: &Self::State,
        role: usize,
        m: &Self::Move,
    ) -> String;
    /// The joint move `moves` of the protocol (read and legal) led to
    /// `after`: a reader that follows the match follows it, or says why
    /// `after` is not the state the protocol's moves lead to. Nothing to
    /// do by default.
    fn follow(
        &self,
        _reader: &mut Self::Reader,
        _moves: &[SExpr],
        _after: &Self::State,
    ) -> Result<(), String> {
        Ok(())
    }
}

/// The playouts of the reasoner and the grounded game: random, and given
/// up at the search's deadline.
fn timed_playouts(config: &PlayerConfig, deadline: &Arc<Deadline>) -> (UctConfig, TimedPlayout) {
    (
        config.uct_config(),
        TimedPlayout {
            max_plies: 1000,
            deadline: deadline.clone(),
        },
    )
}

impl MatchGame for GdlGame {
    type Reader = ();
    type Eval = TimedPlayout;
    fn searcher(
        &self,
        config: &PlayerConfig,
        deadline: &Arc<Deadline>,
    ) -> (UctConfig, TimedPlayout) {
        timed_playouts(config, deadline)
    }
    fn overflows(&self) -> u64 {
        GdlGame::overflows(self)
    }
    fn goals(&self, s: &Self::State) -> Result<Vec<u64>, GoalError> {
        GdlGame::goals(self, s)
    }
    fn next_state(&self, s: &Self::State, joint: &[GdlMove]) -> Self::State {
        GdlGame::next_state(self, s, joint)
    }
    fn terminal(&self, s: &Self::State) -> bool {
        GdlGame::terminal(self, s)
    }
    fn read_move(
        &self,
        _: &(),
        _: &Self::State,
        _role: usize,
        e: &SExpr,
    ) -> Result<Option<GdlMove>, String> {
        toss_gdl::kif::ground(self, e)
            .map(|t| Some(GdlMove(t)))
            .map_err(|d| d.message)
    }
    fn move_text(&self, _: &(), _: &Self::State, _role: usize, m: &GdlMove) -> String {
        self.term_to_string(m.0)
    }
}

impl MatchGame for GroundGame {
    type Reader = GdlGame;
    type Eval = TimedPlayout;
    fn searcher(
        &self,
        config: &PlayerConfig,
        deadline: &Arc<Deadline>,
    ) -> (UctConfig, TimedPlayout) {
        timed_playouts(config, deadline)
    }
    fn overflows(&self) -> u64 {
        0
    }
    fn goals(&self, s: &Self::State) -> Result<Vec<u64>, GoalError> {
        GroundGame::goals(self, s)
    }
    fn next_state(&self, s: &Self::State, joint: &[GroundMove]) -> Self::State {
        GroundGame::next_state(self, s, joint)
    }
    fn terminal(&self, s: &Self::State) -> bool {
        GroundGame::terminal(self, s)
    }
    /// Read by the reasoner (so a move is read exactly as on the
    /// reasoner: case-insensitive symbols, the same errors), then looked
    /// up by the reasoner's printing of it.
    fn read_move(
        &self,
        reader: &GdlGame,
        _: &Self::State,
        role: usize,
        e: &SExpr,
    ) -> Result<Option<GroundMove>, String> {
        let t = toss_gdl::kif::ground(reader, e).map_err(|d| d.message)?;
        Ok(self.action(role, &reader.term_to_string(t)))
    }
    fn move_text(&self, _: &GdlGame, _: &Self::State, role: usize, m: &GroundMove) -> String {
        self.program().moves[role][m.0 as usize].clone()
    }
}

/// Grounding and translation threads still running, of every match: a
/// START beyond `max` of them plays on the reasoner.
#[derive(Debug, Default)]
pub(crate) struct Groundings(Arc<AtomicUsize>);

#[cfg(test)]
impl Groundings {
    /// How many are running.
    pub(crate) fn running(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// Takes a thread out of [`Groundings`] when it ends.
struct Running(Arc<AtomicUsize>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The result of `work` (`what` it does: `grounding`, `translation`) run
/// in a thread of its own, named `ggp-{what}`, waited for at most half of
/// what is left before `deadline` (the end of the START's budget; nothing
/// is waited for when nothing is left); the error says why there is none.
/// Work not finished then is not stopped: it finishes in the background
/// (`work` must bound its own time, as grounding and translation do with
/// their size limits) and its result is dropped. At most `max` such
/// threads, counted in `running`, run at once.
pub(crate) fn in_background<T: Send + 'static>(
    what: &str,
    running: &Groundings,
    max: usize,
    deadline: Instant,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let wait = deadline.saturating_duration_since(Instant::now()) / 2;
    if wait.is_zero() {
        return Err("no time in the START clock".into());
    }
    if running.0.fetch_add(1, Ordering::AcqRel) >= max {
        running.0.fetch_sub(1, Ordering::AcqRel);
        return Err(format!(
            "{max} groundings or translations of earlier matches are still running"
        ));
    }
    let slot = Running(running.0.clone());
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name(format!("ggp-{what}"))
        .stack_size(8 << 20)
        .spawn(move || {
            let _slot = slot;
            // The receiver is gone when the START stopped waiting.
            let _ = tx.send(work());
        })
        .map_err(|e| format!("cannot start a thread: {e}"))?;
    match rx.recv_timeout(wait) {
        Ok(t) => Ok(t),
        Err(RecvTimeoutError::Timeout) => Err(format!(
            "{what} took more than {:.3} s, half of the START budget",
            wait.as_secs_f64()
        )),
        Err(RecvTimeoutError::Disconnected) => Err(format!("the {what} thread panicked")),
    }
}

/// The game of a START grounded, when that is possible in time and its
/// playouts are faster than the reasoner's, with a line for the log
/// (gates, time, speeds); the error says why the match plays on the
/// reasoner (`not grounded: ...`, or `grounded, but ...` when the
/// reasoner is faster). `deadline` is the end of the START's budget.
///
/// Grounding runs [`in_background`] (at most `max` at once; how long it
/// can run is bounded by `limits`, as grounding refuses a description
/// whose relaxed facts or rule instances exceed them). With `compare`, a
/// grounded game is then compared with the reasoner on random playouts
/// from the initial state, each for a quarter of what is left before
/// `deadline` and at most 50 ms, and kept when it runs more turns per
/// second (the reasoner's playouts run on a copy of `reasoner`, whose
/// cache and terms they leave as they were); without, it is kept.
pub(crate) fn ground_for_start(
    desc: &Description,
    reasoner: &GdlGame,
    limits: GroundLimits,
    deadline: Instant,
    running: &Groundings,
    max: usize,
    compare: bool,
) -> Result<(GroundGame, String), String> {
    let desc = desc.clone();
    let began = Instant::now();
    let game = in_background("grounding", running, max, deadline, move || {
        GroundGame::from_description(&desc, limits)
    })
    .map_err(|why| format!("not grounded: {why}"))?
    .map_err(|e| format!("not grounded: {e}"))?;
    let grounded_in = began.elapsed().as_secs_f64();
    let gates = game.program().gates.len();
    if !compare {
        let text = format!("{gates} gates, grounded in {grounded_in:.3} s, not compared");
        return Ok((game, text));
    }
    let each =
        (deadline.saturating_duration_since(Instant::now()) / 4).min(Duration::from_millis(50));
    let fast = crate::load::turns_per_second(&game, each);
    let slow = crate::load::turns_per_second(&reasoner.clone(), each);
    if fast < slow {
        return Err(format!(
            "grounded, but slower: {fast:.0} playout turns/s on its {gates} gates against {slow:.0} on the reasoner"
        ));
    }
    let text = format!(
        "{gates} gates, grounded in {grounded_in:.3} s, {fast:.0} playout turns/s against {slow:.0} on the reasoner"
    );
    Ok((game, text))
}
