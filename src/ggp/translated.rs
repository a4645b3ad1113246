//! The game of a match translated to Toss (spec chapter 5), played on the
//! Toss interpreter by UCT with the heuristic derived from its payoffs:
//! [`PLAYER`], the player that beats plain UCT at Breakthrough and Gomoku
//! in `toss match`.
//!
//! The translated game is turn-based: in each state one role (the Toss
//! mover) has moves and every other role has one idle move (its `noop`).
//! [`TranslatedGame`] shows it to the match as GDL shows a game: every
//! role moves in every step, an idle role by its one move
//! ([`TranslatedMove::Idle`]). The state is the interpreter's. The
//! reasoner follows the match beside it ([`Lockstep`]):
//! it reads the moves of the protocol and says which are legal, gives an
//! idle role's move its text, and after every step the Toss state must
//! decode to the reasoner's fluents, so the match follows the protocol's
//! joint moves exactly or stops with the reason.

use std::sync::Arc;
use std::time::Instant;

use toss_core::game::{Game, Payoffs, Rng, rng_from_seed};
use toss_core::structure::Structure;
use toss_gdl::kif::syntax::SExpr;
use toss_gdl::translate::Translation;
use toss_gdl::{Description, GdlGame, GdlMove, GdlState, GoalError};
use toss_heuristics::{HeuristicEval, PayoffMap};
use toss_runtime::Interpreter;
use toss_runtime::interpreter::{Move as TossMove, State};
use toss_search::uct::{Evaluator, PlayoutPolicy, UctConfig};

use super::engine::{Groundings, MatchGame, in_background};
use super::{Deadline, PlayerConfig};
use crate::matches::{Kind, PlayerSpec, derive_heuristic};

/// The player of translated games by default, as `toss match` spells it
/// (the search budget is the play clock).
pub const PLAYER: &str = "uct+heur:playout=mix0.7,scale=0.1,c=1,weight=8";

/// [`PLAYER`], read.
pub fn default_player() -> PlayerSpec {
    match PLAYER.parse() {
        Ok(spec) => spec,
        Err(e) => unreachable!("the default player `{PLAYER}` does not parse: {e}"),
    }
}

/// Whether `spec` can play translated games: a `uct+heur` player.
pub fn check_player(spec: &PlayerSpec) -> Result<(), String> {
    if spec.kind == Kind::UctHeuristic {
        Ok(())
    } else {
        Err(format!(
            "`{}`: the player of translated games is a uct+heur player",
            spec.text
        ))
    }
}

struct Inner {
    tr: Translation,
    interp: Interpreter,
    /// The derived heuristic, mapped into the payoff range.
    eval: HeuristicEval,
    /// The player.
    spec: PlayerSpec,
}

/// A GDL game translated to Toss, on the interpreter, seen as a GDL game
/// (see the module documentation).
#[derive(Clone)]
pub(crate) struct TranslatedGame(Arc<Inner>);

/// A move of the translated game: the mover's Toss move, or the one move
/// of a role that waits.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TranslatedMove {
    Toss(TossMove),
    Idle,
}

impl TranslatedGame {
    fn toss_moves(&self, s: &State, p: usize) -> Vec<TossMove> {
        let mut v = Vec::new();
        self.0.interp.legal_moves(s, p, &mut v);
        v
    }

    fn toss_movers(&self, s: &State) -> Vec<usize> {
        let mut v = Vec::new();
        self.0.interp.movers(s, &mut v);
        v
    }

    /// The GDL move, in KIF, of Toss move `m` of role `p` in `s`.
    fn gdl_move(&self, s: &State, p: usize, m: &TossMove) -> Option<String> {
        let label = self.0.tr.game.locations[s.location].players[p]
            .moves
            .get(m.label)?;
        let names: Vec<&str> = m
            .matches
            .first()?
            .elems
            .iter()
            .map(|&e| s.structure.element_name(e))
            .collect();
        let (role, kif) = self.0.tr.gdl_move(&label.rule, &names)?;
        (role == p).then_some(kif)
    }

    /// Plays the update plies that follow a move where the translation
    /// made moves marks (`toss_gdl::translate`'s `markers`): each has one
    /// move, of the same mover, and no GDL move stands for it.
    fn settle(&self, s: &mut State, rng: &mut Rng) {
        loop {
            let movers = self.toss_movers(s);
            let [p] = movers[..] else { return };
            let labels = &self.0.tr.game.locations[s.location].players[p].moves;
            if labels.iter().any(|l| self.0.tr.is_move_rule(&l.rule)) {
                return;
            }
            let ms = self.toss_moves(s, p);
            if ms.len() != 1 {
                return;
            }
            self.0.interp.apply(s, &ms, rng);
        }
    }

    /// The sizes and times of the translation, for the log.
    fn summary(&self) -> String {
        format!(
            "{} rules, {} locations, {} elements",
            self.0.tr.game.rules.len(),
            self.0.tr.game.locations.len(),
            self.0.tr.game.start.num_elements()
        )
    }
}

impl Game for TranslatedGame {
    type State = State;
    type Move = TranslatedMove;

    fn player_names(&self) -> &[String] {
        self.0.interp.player_names()
    }

    fn initial_state(&self) -> State {
        self.0.interp.initial_state()
    }

    /// Every role, unless the state is terminal.
    fn movers(&self, s: &State, out: &mut Vec<usize>) {
        self.0.interp.movers(s, out);
        if !out.is_empty() {
            out.clear();
            out.extend(0..self.num_players());
        }
    }

    fn legal_moves(&self, s: &State, p: usize, out: &mut Vec<TranslatedMove>) {
        out.clear();
        let movers = self.toss_movers(s);
        if movers.contains(&p) {
            out.extend(self.toss_moves(s, p).into_iter().map(TranslatedMove::Toss));
        } else if !movers.is_empty() {
            out.push(TranslatedMove::Idle);
        }
    }

    /// The Toss moves of the joint move, in the order of the Toss movers
    /// (the roles whose move is not [`TranslatedMove::Idle`]).
    fn apply(&self, s: &mut State, joint: &[TranslatedMove], rng: &mut Rng) {
        let toss: Vec<TossMove> = joint
            .iter()
            .filter_map(|m| match m {
                TranslatedMove::Toss(t) => Some(t.clone()),
                TranslatedMove::Idle => None,
            })
            .collect();
        if !toss.is_empty() {
            self.0.interp.apply(s, &toss, rng);
            self.settle(s, rng);
        }
    }

    fn payoffs(&self, s: &State, out: &mut [f64]) {
        self.0.interp.payoffs(s, out);
    }

    fn to_structure(&self, s: &State) -> Structure {
        self.0.interp.to_structure(s)
    }

    fn location(&self, s: &State) -> usize {
        s.location
    }

    fn fault(&self) -> Option<String> {
        self.0.interp.fault()
    }

    fn report_fault(&self, message: String) {
        self.0.interp.report_fault(message)
    }

    fn payoff_bounds(&self) -> Option<(f64, f64)> {
        self.0.interp.payoff_bounds()
    }

    fn move_to_string(&self, s: &State, p: usize, m: &TranslatedMove) -> String {
        match m {
            TranslatedMove::Toss(t) => self.0.interp.move_to_string(s, p, t),
            TranslatedMove::Idle => "idle".into(),
        }
    }

    /// The interpreter's own playouts: the same plays, without looking up
    /// moves by index.
    fn random_playout_from(
        &self,
        s: &mut State,
        rng: &mut Rng,
        max_turns: usize,
    ) -> (usize, Payoffs) {
        self.0.interp.random_playout_from(s, rng, max_turns)
    }
}

/// The reasoner and its state of the match, following the match beside
/// the translated game.
pub(crate) struct Lockstep {
    reasoner: GdlGame,
    state: GdlState,
}

impl Lockstep {
    pub(crate) fn new(reasoner: GdlGame) -> Lockstep {
        let state = reasoner.initial_state();
        Lockstep { reasoner, state }
    }

    fn legal(&self, role: usize) -> Vec<GdlMove> {
        let mut v = Vec::new();
        self.reasoner.legal_moves(&self.state, role, &mut v);
        v
    }
}

/// UCT's evaluation of a new node: the derived heuristic (mixed with a
/// random playout as [`PLAYER`] says, by the search itself).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DerivedHeuristic;

impl Evaluator<TranslatedGame> for DerivedHeuristic {
    fn evaluate(&self, game: &TranslatedGame, s: &State, rng: &mut Rng, out: &mut [f64]) {
        Evaluator::<Interpreter>::evaluate(&game.0.eval, &game.0.interp, s, rng, out);
    }

    fn is_deterministic(&self) -> bool {
        true
    }
}

impl MatchGame for TranslatedGame {
    type Reader = Lockstep;
    type Eval = DerivedHeuristic;

    /// The player's configuration; the payoff range is the game's (GDL
    /// goals, 0 to 100).
    fn searcher(&self, config: &PlayerConfig, _: &Arc<Deadline>) -> (UctConfig, DerivedHeuristic) {
        let spec = &self.0.spec;
        let (lo, hi) = self.payoff_range();
        let uct = UctConfig {
            c: spec.c.unwrap_or(UctConfig::default().c),
            delta: hi - lo,
            playout: spec.playout.unwrap_or(PlayoutPolicy::Evaluate),
            evals: spec.evals,
            evals_weight: spec.weight,
            max_nodes: config.max_nodes,
            threads: 1,
            ..UctConfig::default()
        };
        (uct, DerivedHeuristic)
    }

    fn overflows(&self) -> u64 {
        0
    }

    /// The payoffs, which are the goals (the translation's payoff of a
    /// role sums each goal value times whether that goal holds).
    fn goals(&self, s: &State) -> Result<Vec<u64>, GoalError> {
        let mut pay = vec![0.0; self.num_players()];
        self.payoffs(s, &mut pay);
        Ok(pay.iter().map(|&x| x.round().max(0.0) as u64).collect())
    }

    fn next_state(&self, s: &State, joint: &[TranslatedMove]) -> State {
        let mut t = s.clone();
        // No chance in a translated game: the generator is never drawn from.
        self.apply(&mut t, joint, &mut rng_from_seed(0));
        t
    }

    fn terminal(&self, s: &State) -> bool {
        self.is_terminal(s)
    }

    /// Read and judged by the reasoner in its state of the match; the
    /// mover's move is then the Toss move whose GDL move it is.
    fn read_move(
        &self,
        reader: &Lockstep,
        s: &State,
        role: usize,
        e: &SExpr,
    ) -> Result<Option<TranslatedMove>, String> {
        let t = toss_gdl::kif::ground(&reader.reasoner, e).map_err(|d| d.message)?;
        if !reader.legal(role).contains(&GdlMove(t)) {
            return Ok(None);
        }
        if !self.toss_movers(s).contains(&role) {
            return Ok(Some(TranslatedMove::Idle));
        }
        let kif = reader.reasoner.term_to_string(t);
        self.toss_moves(s, role)
            .into_iter()
            .find(|m| self.gdl_move(s, role, m).as_deref() == Some(kif.as_str()))
            .map(|m| Some(TranslatedMove::Toss(m)))
            .ok_or_else(|| {
                format!("legal, but no move of the translated game is `{kif}` (a fault of the translation)")
            })
    }

    /// The mover's GDL move by the translation; an idle role's one legal
    /// move by the reasoner. `nil` (which no referee takes) only if the
    /// translation has no GDL move for a Toss move, which its tests rule
    /// out.
    fn move_text(&self, reader: &Lockstep, s: &State, role: usize, m: &TranslatedMove) -> String {
        let text = match m {
            TranslatedMove::Toss(t) => self.gdl_move(s, role, t),
            TranslatedMove::Idle => reader
                .legal(role)
                .first()
                .map(|g| reader.reasoner.term_to_string(g.0)),
        };
        text.unwrap_or_else(|| "nil".into())
    }

    /// The reasoner plays the joint move too; the Toss state reached must
    /// decode to the reasoner's fluents.
    fn follow(&self, reader: &mut Lockstep, moves: &[SExpr], after: &State) -> Result<(), String> {
        let joint = moves
            .iter()
            .map(|e| toss_gdl::kif::ground(&reader.reasoner, e).map(GdlMove))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|d| d.message)?;
        let next = reader.reasoner.next_state(&reader.state, &joint);
        let mut fluents: Vec<String> = next
            .0
            .iter()
            .map(|&f| reader.reasoner.term_to_string(f))
            .collect();
        fluents.sort();
        if self.0.tr.decode(&after.structure) != fluents {
            return Err(
                "the translated game's state differs from the reasoner's (a fault of the translation)"
                    .into(),
            );
        }
        reader.state = next;
        Ok(())
    }
}

/// The game of a START translated to Toss, loaded on the interpreter, with
/// the heuristic of `player` derived, all [`in_background`] within half of
/// what is left before `deadline` (the end of the START's budget); with a
/// line for the log (sizes, times, the player). The error says why the
/// match is not played on it (`not translated: ...`: a refusal of the
/// translation, no time, ...).
pub(crate) fn translate_for_start(
    desc: &Description,
    player: &PlayerSpec,
    deadline: Instant,
    running: &Groundings,
    max: usize,
) -> Result<(TranslatedGame, String), String> {
    let desc = desc.clone();
    let spec = player.clone();
    in_background("translation", running, max, deadline, move || {
        build(&desc, spec)
    })
    .and_then(|r| r)
    .map_err(|why| format!("not translated: {why}"))
}

fn build(desc: &Description, spec: PlayerSpec) -> Result<(TranslatedGame, String), String> {
    check_player(&spec)?;
    let began = Instant::now();
    let tr = toss_gdl::translate::translate(desc).map_err(|r| r.to_string())?;
    let interp = Interpreter::new(&tr.game)
        .map_err(|e| format!("the translated game does not load: {e}"))?;
    let translated_in = began.elapsed().as_secs_f64();
    let began = Instant::now();
    let h = derive_heuristic(&spec, &tr.game);
    let mut eval = HeuristicEval::new(&tr.game, &interp, &h)
        .map_err(|e| format!("the derived heuristic does not compile: {e}"))?;
    let (lo, hi) = interp.payoff_range();
    eval.map = PayoffMap {
        lo,
        hi,
        scale: spec.scale.unwrap_or(PayoffMap::default().scale),
    };
    let derived_in = began.elapsed().as_secs_f64();
    let game = TranslatedGame(Arc::new(Inner {
        tr,
        interp,
        eval,
        spec,
    }));
    let text = format!(
        "{}, translated in {translated_in:.3} s, heuristic derived in {derived_in:.3} s; player {}",
        game.summary(),
        game.0.spec.text
    );
    Ok((game, text))
}
