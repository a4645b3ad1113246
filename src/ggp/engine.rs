//! What a match plays on: the GDL reasoner ([`GdlGame`]) or the game
//! grounded into a propositional network ([`GroundGame`]), which has the
//! same roles, the same legal moves in the same order, the same states and
//! goals, and is usually much faster. [`MatchGame`] is what the player
//! needs of either beyond [`Game`]; [`ground_for_start`] grounds the game
//! of a START within part of its clock and keeps it when its playouts are
//! faster.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use toss_core::Game;
use toss_gdl::ground::{GroundGame, GroundLimits, GroundMove};
use toss_gdl::kif::syntax::SExpr;
use toss_gdl::{Description, GdlGame, GdlMove, GoalError};

/// A game a match can be played on: what the player needs beyond [`Game`].
pub(crate) trait MatchGame:
    Game<State: Send + Sync, Move: Copy + Send + Sync> + Clone + Send + Sync + 'static
{
    /// What reads the moves of the protocol into moves of this game:
    /// nothing for the reasoner (it reads them itself), the reasoner for
    /// the grounded game.
    type Reader: Send;
    /// How many evaluations the reasoner's fact limit has stopped so far
    /// (never, on the grounded game).
    fn overflows(&self) -> u64;
    /// The goal of every role, or the fault of the description.
    fn goals(&self, s: &Self::State) -> Result<Vec<u64>, GoalError>;
    fn next_state(&self, s: &Self::State, joint: &[Self::Move]) -> Self::State;
    fn terminal(&self, s: &Self::State) -> bool;
    /// The move a message gives role `role`, as a move of this game; the
    /// error says why it is none (a symbol the game lacks, a variable). A
    /// move of the grounded game that no legal move of the role can ever
    /// be is reported as `None`: it is illegal in every state.
    fn read_move(
        &self,
        reader: &Self::Reader,
        role: usize,
        e: &SExpr,
    ) -> Result<Option<Self::Move>, String>;
    /// A move of role `role` as KIF text, as the reasoner prints it.
    fn move_text(&self, role: usize, m: &Self::Move) -> String;
}

impl MatchGame for GdlGame {
    type Reader = ();
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
    fn read_move(&self, _: &(), _role: usize, e: &SExpr) -> Result<Option<GdlMove>, String> {
        toss_gdl::kif::ground(self, e)
            .map(|t| Some(GdlMove(t)))
            .map_err(|d| d.message)
    }
    fn move_text(&self, _role: usize, m: &GdlMove) -> String {
        self.term_to_string(m.0)
    }
}

impl MatchGame for GroundGame {
    type Reader = GdlGame;
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
        role: usize,
        e: &SExpr,
    ) -> Result<Option<GroundMove>, String> {
        let t = toss_gdl::kif::ground(reader, e).map_err(|d| d.message)?;
        Ok(self.action(role, &reader.term_to_string(t)))
    }
    fn move_text(&self, role: usize, m: &GroundMove) -> String {
        self.program().moves[role][m.0 as usize].clone()
    }
}

/// Grounding threads still running, of every match: a START beyond
/// `max` of them plays on the reasoner.
#[derive(Debug, Default)]
pub(crate) struct Groundings(Arc<AtomicUsize>);

#[cfg(test)]
impl Groundings {
    /// How many are running.
    pub(crate) fn running(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// Takes a grounding thread out of [`Groundings`] when it ends.
struct Running(Arc<AtomicUsize>);

impl Drop for Running {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The game of a START grounded, when that is possible in time and its
/// playouts are faster than the reasoner's, with a line for the log
/// (gates, time, speeds); the error says why the match plays on the
/// reasoner (`not grounded: ...`, or `grounded, but ...` when the
/// reasoner is faster). `deadline` is the end of the START's budget.
///
/// Grounding runs in a thread of its own, waited for at most half of what
/// is left before `deadline` (nothing is waited for when nothing is left).
/// A grounding not finished then is not stopped: it finishes in the
/// background (how long it can run is bounded by `limits`, as grounding
/// refuses a description whose relaxed facts or rule instances exceed
/// them) and its result is dropped. At most `max` such threads run at
/// once. With `compare`, a grounded game is then compared with the
/// reasoner on random playouts from the initial state, each for a quarter
/// of what is left before `deadline` and at most 50 ms, and kept when it
/// runs more turns per second (the reasoner's playouts run on a copy of
/// `reasoner`, whose cache and terms they leave as they were); without,
/// it is kept.
pub(crate) fn ground_for_start(
    desc: &Description,
    reasoner: &GdlGame,
    limits: GroundLimits,
    deadline: Instant,
    running: &Groundings,
    max: usize,
    compare: bool,
) -> Result<(GroundGame, String), String> {
    let wait = deadline.saturating_duration_since(Instant::now()) / 2;
    if wait.is_zero() {
        return Err("not grounded: no time in the START clock".into());
    }
    if running.0.fetch_add(1, Ordering::AcqRel) >= max {
        running.0.fetch_sub(1, Ordering::AcqRel);
        return Err(format!(
            "not grounded: {max} groundings of earlier matches are still running"
        ));
    }
    let slot = Running(running.0.clone());
    let (tx, rx) = mpsc::channel();
    let desc = desc.clone();
    let began = Instant::now();
    std::thread::Builder::new()
        .name("ggp-ground".into())
        .stack_size(8 << 20)
        .spawn(move || {
            let _slot = slot;
            // The receiver is gone when the START stopped waiting.
            let _ = tx.send(GroundGame::from_description(&desc, limits));
        })
        .map_err(|e| format!("not grounded: cannot start a thread: {e}"))?;
    let game = match rx.recv_timeout(wait) {
        Ok(Ok(g)) => g,
        Ok(Err(e)) => return Err(format!("not grounded: {e}")),
        Err(RecvTimeoutError::Timeout) => {
            return Err(format!(
                "not grounded: grounding took more than {:.3} s, half of the START budget",
                wait.as_secs_f64()
            ));
        }
        Err(RecvTimeoutError::Disconnected) => {
            return Err("not grounded: the grounding thread panicked".into());
        }
    };
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
