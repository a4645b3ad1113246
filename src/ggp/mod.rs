//! General Game Playing: the match protocol of `../shared/reference/gdl.md`
//! section 6 (messages, replies, match bookkeeping), a player that answers
//! it with UCT ([`GgpPlayer`]): on the game grounded into a propositional
//! network when that is possible within the START clock and faster, on
//! the GDL reasoner otherwise, and, asked for (`--engine toss`), on the
//! game translated to Toss with a derived heuristic (`translated`); its
//! HTTP server ([`server`]) and a referee that
//! runs matches between such players ([`referee`]).
//!
//! [`GgpPlayer::handle`] takes the body of one request and returns the
//! reply, so the protocol is tested without sockets. Messages are
//! S-expressions with a case-insensitive keyword:
//!
//! | message | reply |
//! |---|---|
//! | `(INFO)` | `((name toss) (status available))`, `busy` when a START would be refused |
//! | `(START id role (rule ...) startclock playclock)` | `ready`, `busy` beyond [`PlayerConfig::max_matches`] |
//! | `(PLAY id nil)`, `(PLAY id (move ...))` | our move, a GDL term |
//! | `(STOP id (move ...))` | `done` |
//! | GDL-II: `(PLAY id turn lastmove nil\|(percept ...))`, `(PLAY id nil\|(percept ...))` | our move |
//! | GDL-II: `(STOP id turn lastmove nil\|(percept ...))`, `(STOP id nil\|(percept ...))` | `done` |
//! | `(ABORT id)` | `aborted` |
//! | `(PREVIEW (rule ...) clock)` | `ready` |
//!
//! A message of the protocol that cannot be served (malformed, an unknown
//! match, the wrong number of moves or an illegal move, a game that does
//! not check or is too large) gets status 200 and what real servers expect
//! instead, as ggp-base reads the body whatever the status: `busy` to
//! START and PREVIEW, `nil` to PLAY, `done` to STOP, `aborted` to ABORT;
//! the reason goes to the log (and to the `X-Toss-Reason` header). Only
//! a body in which no keyword of the protocol can be read gets status 400.
//! The player keeps serving either way.
//!
//! A GDL-II game (the role `random` or `sees` rules) is played by
//! [`hidden`]: the player gets its own last move and its percepts
//! instead of the joint move, and never the role `random`.

pub mod cli;
mod engine;
pub mod hidden;
pub mod referee;
pub mod server;
pub mod translated;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use toss_core::Game;
use toss_core::game::Rng;
use toss_gdl::ground::{GroundGame, GroundLimits};
use toss_gdl::kif::syntax::{self, SExpr};
use toss_gdl::{Description, GdlGame};
use toss_lang::{Diagnostic, line_col};
use toss_search::player::{Budget, Player};
use toss_search::uct::{Evaluator, Uct, UctConfig, random_playout_until, regret_minimizing};

use crate::load::Engine;

use engine::{Groundings, MatchGame};
use translated::TranslatedGame;

/// A message of the match protocol.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Info,
    Start {
        match_id: String,
        role: String,
        /// The rules of the game, as read.
        rules: Vec<SExpr>,
        start_clock: f64,
        play_clock: f64,
    },
    /// `moves` is `None` for `nil` (the first step). In a GDL-II match
    /// `moves` holds the player's percepts instead (`None`: none), and
    /// `turn` the turn number and the player's own last move when the
    /// message has the form `(PLAY id turn lastmove (percept ...))`.
    Play {
        match_id: String,
        moves: Option<Vec<SExpr>>,
        turn: Option<Turn>,
    },
    Stop {
        match_id: String,
        moves: Option<Vec<SExpr>>,
        turn: Option<Turn>,
    },
    Abort {
        match_id: String,
    },
    Preview {
        rules: Vec<SExpr>,
        clock: f64,
    },
}

/// What the GDL-II form of PLAY and STOP adds, `(PLAY id turn lastmove
/// (percept ...))`: the number of joint moves played so far and the
/// player's own move in the last one (`None` for `nil`, the first PLAY).
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    pub number: u64,
    pub last_move: Option<SExpr>,
}

impl Message {
    /// The keyword, upper case.
    pub fn kind(&self) -> &'static str {
        match self {
            Message::Info => "INFO",
            Message::Start { .. } => "START",
            Message::Play { .. } => "PLAY",
            Message::Stop { .. } => "STOP",
            Message::Abort { .. } => "ABORT",
            Message::Preview { .. } => "PREVIEW",
        }
    }
}

/// A request that cannot be served: the HTTP status and what went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgpError {
    pub status: u16,
    pub message: String,
}

impl GgpError {
    /// A malformed or unexpected message (400).
    pub fn bad(message: impl Into<String>) -> GgpError {
        GgpError {
            status: 400,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for GgpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The largest clock accepted, in seconds (a year).
const MAX_CLOCK: f64 = 365.0 * 86400.0;

/// At most this many characters of a message are quoted in an error.
const QUOTE: usize = 60;

/// `text`, cut to [`QUOTE`] characters.
fn quote(text: &str) -> String {
    let mut it = text.chars();
    let mut s: String = it.by_ref().take(QUOTE).collect();
    if it.next().is_some() {
        s.push_str("...");
    }
    s
}

/// One diagnostic about a message, on one line: `line:col: message (at ...)`.
fn describe(d: &Diagnostic, body: &str) -> String {
    let (line, col) = line_col(body, d.span.start);
    let at = body.get(d.span.clone()).unwrap_or("");
    let mut s = format!("{line}:{col}: {}", d.message);
    if !at.is_empty() {
        let _ = write!(s, " (at `{}`)", quote(at));
    }
    for n in &d.notes {
        let _ = write!(s, "; {n}");
    }
    s
}

fn atom_text<'a>(e: &'a SExpr, what: &str, body: &str) -> Result<&'a str, GgpError> {
    match e {
        SExpr::Atom(a, _) => Ok(a),
        SExpr::List(_, span) => Err(GgpError::bad(format!(
            "{what} must be a symbol, not the list `{}`",
            quote(body.get(span.clone()).unwrap_or(""))
        ))),
    }
}

fn clock(e: &SExpr, what: &str, body: &str) -> Result<f64, GgpError> {
    let t = atom_text(e, what, body)?;
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= MAX_CLOCK => Ok(v),
        _ => Err(GgpError::bad(format!(
            "{what} must be a positive number of seconds, not `{}`",
            quote(t)
        ))),
    }
}

fn rules(e: &SExpr) -> Result<Vec<SExpr>, GgpError> {
    match e {
        SExpr::List(items, _) => Ok(items.clone()),
        SExpr::Atom(a, _) => Err(GgpError::bad(format!(
            "the game description must be a list of rules, not `{}`",
            quote(a)
        ))),
    }
}

/// `nil` or a list of moves.
fn moves(e: &SExpr) -> Result<Option<Vec<SExpr>>, GgpError> {
    match e {
        SExpr::Atom(a, _) if a.eq_ignore_ascii_case("nil") => Ok(None),
        SExpr::Atom(a, _) => Err(GgpError::bad(format!(
            "expected `nil` or a list of moves (one per role), not `{}`",
            quote(a)
        ))),
        SExpr::List(items, _) => Ok(Some(items.clone())),
    }
}

/// The GDL-II arguments of PLAY or STOP: the turn number (a natural
/// number), the last move (`nil` or a term) and the percepts (`nil` or a
/// list of terms).
fn turn_and_percepts(args: &[SExpr], body: &str) -> Result<(Turn, Option<Vec<SExpr>>), GgpError> {
    let number = atom_text(&args[0], "the turn number", body)?;
    let number = number
        .parse::<u64>()
        .ok()
        .filter(|&n| n <= u32::MAX as u64)
        .ok_or_else(|| {
            GgpError::bad(format!(
                "the turn number must be a natural number, not `{}`",
                quote(number)
            ))
        })?;
    let last_move = match &args[1] {
        SExpr::Atom(a, _) if a.eq_ignore_ascii_case("nil") => None,
        e => Some(e.clone()),
    };
    let percepts = match &args[2] {
        SExpr::Atom(a, _) if a.eq_ignore_ascii_case("nil") => None,
        SExpr::Atom(a, _) => {
            return Err(GgpError::bad(format!(
                "expected `nil` or a list of percepts, not `{}`",
                quote(a)
            )));
        }
        SExpr::List(items, _) => Some(items.clone()),
    };
    Ok((Turn { number, last_move }, percepts))
}

/// Reads one message of the protocol.
pub fn parse_message(body: &str) -> Result<Message, GgpError> {
    let forms = syntax::read_data(body)
        .map_err(|d| GgpError::bad(format!("malformed message: {}", describe(&d, body))))?;
    let items = match forms.as_slice() {
        [SExpr::List(items, _)] => items,
        [] => return Err(GgpError::bad("empty message")),
        [SExpr::Atom(a, _)] => {
            return Err(GgpError::bad(format!(
                "a message is a list such as `(INFO)`, not `{}`",
                quote(a)
            )));
        }
        _ => {
            return Err(GgpError::bad(format!(
                "a message is one list; this one has {} top-level forms",
                forms.len()
            )));
        }
    };
    let Some(SExpr::Atom(kw, _)) = items.first() else {
        return Err(GgpError::bad(
            "a message starts with its keyword (INFO, START, PLAY, STOP, ABORT or PREVIEW)",
        ));
    };
    let kind = kw.to_ascii_uppercase();
    let args = &items[1..];
    let arity = |want: usize, form: &str| -> Result<(), GgpError> {
        if args.len() == want {
            Ok(())
        } else {
            Err(GgpError::bad(format!(
                "{kind} takes {want} argument{}, `{form}`; this one has {}",
                if want == 1 { "" } else { "s" },
                args.len()
            )))
        }
    };
    let id = |e: &SExpr| atom_text(e, "the match id", body).map(str::to_string);
    match kind.as_str() {
        "INFO" => {
            arity(0, "(INFO)")?;
            Ok(Message::Info)
        }
        "START" => {
            arity(5, "(START matchid role (rule ...) startclock playclock)")?;
            Ok(Message::Start {
                match_id: id(&args[0])?,
                role: atom_text(&args[1], "the role", body)?.to_string(),
                rules: rules(&args[2])?,
                start_clock: clock(&args[3], "the start clock", body)?,
                play_clock: clock(&args[4], "the play clock", body)?,
            })
        }
        "PLAY" | "STOP" if args.len() == 4 => {
            let match_id = id(&args[0])?;
            let (turn, moves) = turn_and_percepts(&args[1..], body)?;
            let turn = Some(turn);
            Ok(if kind == "PLAY" {
                Message::Play {
                    match_id,
                    moves,
                    turn,
                }
            } else {
                Message::Stop {
                    match_id,
                    moves,
                    turn,
                }
            })
        }
        "PLAY" => {
            arity(
                2,
                "(PLAY matchid nil|(move ...)) or, GDL-II, (PLAY matchid turn lastmove nil|(percept ...))",
            )?;
            Ok(Message::Play {
                match_id: id(&args[0])?,
                moves: moves(&args[1])?,
                turn: None,
            })
        }
        "STOP" => {
            arity(
                2,
                "(STOP matchid nil|(move ...)) or, GDL-II, (STOP matchid turn lastmove nil|(percept ...))",
            )?;
            Ok(Message::Stop {
                match_id: id(&args[0])?,
                moves: moves(&args[1])?,
                turn: None,
            })
        }
        "ABORT" => {
            arity(1, "(ABORT matchid)")?;
            Ok(Message::Abort {
                match_id: id(&args[0])?,
            })
        }
        "PREVIEW" => {
            arity(2, "(PREVIEW (rule ...) clock)")?;
            Ok(Message::Preview {
                rules: rules(&args[0])?,
                clock: clock(&args[1], "the preview clock", body)?,
            })
        }
        _ => Err(GgpError::bad(format!(
            "unknown message `{}` (expected INFO, START, PLAY, STOP, ABORT or PREVIEW)",
            quote(kw)
        ))),
    }
}

/// An S-expression on one line, as KIF (what the referee sends).
pub fn sexpr_to_string(e: &SExpr) -> String {
    let mut out = String::new();
    write_sexpr(e, &mut out);
    out
}

fn write_sexpr(e: &SExpr, out: &mut String) {
    // Explicit stack: descriptions may nest deeply.
    enum Step<'a> {
        Open(&'a SExpr),
        Close,
    }
    let mut stack = vec![Step::Open(e)];
    let mut first = true;
    while let Some(s) = stack.pop() {
        match s {
            Step::Close => {
                out.push(')');
                first = false;
            }
            Step::Open(e) => {
                if !first {
                    out.push(' ');
                }
                match e {
                    SExpr::Atom(a, _) => {
                        out.push_str(a);
                        first = false;
                    }
                    SExpr::List(items, _) => {
                        out.push('(');
                        first = true;
                        stack.push(Step::Close);
                        stack.extend(items.iter().rev().map(Step::Open));
                    }
                }
            }
        }
    }
}

/// Builds the game of a description received in a message, its reasoner
/// bounded to `max_facts` facts per relation; errors list the first
/// diagnostics with line and column in the message. A description that
/// breaks only GDL's restrictions on rules (unsafe or recursive rules the
/// checker refuses) is built all the same when the reasoner compiles it,
/// as servers send such games: the warning to log comes with it. The
/// description comes too (the one the reasoner was built from).
pub fn game_of_rules(
    rules: &[SExpr],
    body: &str,
    max_facts: usize,
) -> Result<(GdlGame, Description, Option<String>), GgpError> {
    let checked = toss_gdl::kif::check_gdl_forms(rules);
    let summary = {
        let shown = checked.errors.len().min(3);
        let parts: Vec<String> = checked.errors[..shown]
            .iter()
            .map(|d| describe(d, body))
            .collect();
        let mut s = parts.join("; ");
        if checked.errors.len() > shown {
            let _ = write!(s, "; and {} more", checked.errors.len() - shown);
        }
        s
    };
    let (desc, warning) = match (checked.description, checked.unchecked) {
        (Some(d), _) if checked.errors.is_empty() => (d, None),
        (_, Some(d)) => (
            d,
            Some(format!(
                "the description does not validate ({summary}); it is played as the reasoner reads it"
            )),
        ),
        _ => {
            return Err(GgpError::bad(format!(
                "invalid game description: {summary}"
            )));
        }
    };
    let game = toss_gdl::kif::build_game_with_limit(&desc, max_facts).map_err(|d| {
        if warning.is_some() {
            GgpError::bad(format!("invalid game description: {summary}"))
        } else {
            GgpError::bad(format!("invalid game description: {}", d.message))
        }
    })?;
    Ok((game, desc, warning))
}

/// How the player thinks.
#[derive(Clone, Debug)]
pub struct PlayerConfig {
    /// The name given in the INFO reply.
    pub name: String,
    /// Seconds kept back from each clock for the network and the reply;
    /// `None`: a quarter of the clock, at most one second.
    pub margin: Option<f64>,
    pub seed: u64,
    /// UCT threads of each match: independent trees (root parallelism),
    /// each searching with its own copy of the game.
    pub threads: usize,
    /// The UCT tree of one thread is never extended beyond this many nodes.
    pub max_nodes: usize,
    /// A START beyond this many matches in progress is answered `busy`.
    pub max_matches: usize,
    /// The reasoner of a match holds at most this many facts per relation
    /// (and four times as many terms): a game whose initial state needs
    /// more is refused at START (`busy`).
    pub max_facts: usize,
    /// A state with more joint moves than this is not searched: the move
    /// is a random legal one (UCT's root statistics take memory in
    /// proportion to the joint moves).
    pub max_joint_moves: usize,
    /// The bounds on grounding the game of a START (a game beyond them is
    /// played on the reasoner); they also bound how long a grounding can
    /// run.
    pub ground_limits: GroundLimits,
    /// What a match plays on: with [`Engine::Auto`], the grounded game
    /// when the game grounds in time and its playouts are faster; with
    /// [`Engine::Toss`], the game translated to Toss (played by the
    /// derived-heuristic UCT player, [`translated::PLAYER`]) or no match
    /// (START refused);
    /// with [`Engine::Grounded`], the grounded game whenever it grounds in
    /// time (no comparison, no translation); with [`Engine::Reasoner`],
    /// the reasoner. A game that does not ground in time is played on the
    /// reasoner whatever this says (but for [`Engine::Toss`]).
    pub engine: Engine,
    /// The player of translated games, a `uct+heur` spec as `toss match`
    /// reads it (its budget is the play clock; its threads are
    /// [`PlayerConfig::threads`]); [`translated::PLAYER`] by default.
    pub translated_player: crate::matches::PlayerSpec,
    /// Play uniformly random legal moves instead of searching (a baseline
    /// opponent; GDL-II matches still track the candidate states, whose
    /// legal moves these are).
    pub random_moves: bool,
    /// The bounds of the GDL-II player ([`hidden`]).
    pub hidden: hidden::HiddenConfig,
}

impl Default for PlayerConfig {
    fn default() -> Self {
        PlayerConfig {
            name: "toss".into(),
            margin: None,
            seed: 0,
            threads: 1,
            max_nodes: 1 << 21,
            max_matches: 4,
            max_facts: 1_000_000,
            max_joint_moves: 100_000,
            ground_limits: GroundLimits::default(),
            engine: Engine::Auto,
            translated_player: translated::default_player(),
            random_moves: false,
            hidden: hidden::HiddenConfig::default(),
        }
    }
}

impl PlayerConfig {
    /// The time kept back from a clock of `clock` seconds.
    pub fn margin_for(&self, clock: f64) -> Duration {
        let m = self.margin.unwrap_or((clock / 4.0).min(1.0));
        Duration::from_secs_f64(m.clamp(0.0, MAX_CLOCK))
    }

    /// The time left for searching on a clock of `clock` seconds that
    /// started at `received`.
    pub fn budget(&self, clock: f64, received: Instant) -> Duration {
        Duration::from_secs_f64(clock)
            .saturating_sub(self.margin_for(clock))
            .saturating_sub(received.elapsed())
    }

    /// When the search on a clock of `clock` seconds that started at
    /// `received` must end.
    /// (A `received` in the future counts from now.)
    pub fn deadline(&self, clock: f64, received: Instant) -> Instant {
        received.min(Instant::now())
            + Duration::from_secs_f64(clock).saturating_sub(self.margin_for(clock))
    }

    /// The UCT configuration of each thread's tree: GDL goals lie in 0..=100.
    pub fn uct_config(&self) -> UctConfig {
        UctConfig {
            delta: 100.0,
            threads: 1,
            max_nodes: self.max_nodes,
            ..UctConfig::default()
        }
    }
}

/// The end of the current search, shared by a match's evaluators.
#[derive(Debug)]
pub(crate) struct Deadline {
    epoch: Instant,
    /// Nanoseconds after `epoch`.
    nanos: AtomicU64,
}

impl Deadline {
    fn set(&self, t: Instant) {
        let n = t.saturating_duration_since(self.epoch).as_nanos();
        self.nanos
            .store(u64::try_from(n).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    fn get(&self) -> Instant {
        self.epoch + Duration::from_nanos(self.nanos.load(Ordering::Relaxed))
    }
}

/// UCT's evaluation in the player: a random playout that gives up when the
/// search's deadline passes (NaN payoffs, read by [`Uct`] as an
/// interrupted iteration), so that a reply is never late for a long
/// playout.
#[derive(Clone, Debug)]
pub(crate) struct TimedPlayout {
    max_plies: usize,
    deadline: Arc<Deadline>,
}

impl<G: Game> Evaluator<G> for TimedPlayout {
    fn evaluate(&self, game: &G, s: &G::State, rng: &mut Rng, out: &mut [f64]) {
        let mut t = s.clone();
        match random_playout_until(game, &mut t, rng, self.max_plies, self.deadline.get()) {
            Some(p) => out.copy_from_slice(&p),
            None => out.fill(f64::NAN),
        }
    }
}

/// A match in progress, on the reasoner, the grounded game or the
/// translated game.
struct Match<G: MatchGame> {
    game: G,
    /// What reads the moves of messages (the reasoner, for the grounded
    /// game).
    reader: G::Reader,
    role: usize,
    state: G::State,
    /// Joint moves played so far.
    step: usize,
    /// One search per thread. Both games cache the state they evaluate
    /// behind a lock, so each thread other than the first searches with a
    /// copy of the game made just before the search: on the reasoner, the
    /// terms of the current state are then interned alike in every copy,
    /// and the trees index children by joint-move number, not by term.
    searches: Vec<Uct<G::Eval>>,
    deadline: Arc<Deadline>,
    /// For the moves of states that are not searched.
    rng: Rng,
    max_joint_moves: usize,
    /// Iterations and seconds of the last search, or why there was none.
    last_search: Result<(u64, f64), String>,
    start_clock: f64,
    play_clock: f64,
    last_message: Instant,
}

impl<G: MatchGame> Match<G> {
    /// How long the match is kept without a message: well past any clock.
    fn idle_limit(&self) -> Duration {
        Duration::from_secs_f64(60.0 + 4.0 * (self.start_clock + self.play_clock))
    }
}

/// A match on the engine it plays on (boxed: they differ in size).
enum AnyMatch {
    Reasoner(Box<Match<GdlGame>>),
    Grounded(Box<Match<GroundGame>>),
    Translated(Box<Match<TranslatedGame>>),
    /// A GDL-II match (hidden information): percepts instead of moves.
    Hidden(Box<hidden::HiddenMatch>),
}

/// `$body` with `$m` the match of either engine.
macro_rules! on_match {
    ($any:expr, $m:ident => $body:expr) => {
        match $any {
            AnyMatch::Reasoner($m) => $body,
            AnyMatch::Grounded($m) => $body,
            AnyMatch::Translated($m) => $body,
            AnyMatch::Hidden($m) => $body,
        }
    };
}

/// `$body` with `$m` the match of a GDL-I engine; `$hidden` for a
/// GDL-II match.
macro_rules! on_gdl1_match {
    ($any:expr, $m:ident => $body:expr, $h:ident => $hidden:expr) => {
        match $any {
            AnyMatch::Reasoner($m) => $body,
            AnyMatch::Grounded($m) => $body,
            AnyMatch::Translated($m) => $body,
            AnyMatch::Hidden($h) => $hidden,
        }
    };
}

impl AnyMatch {
    fn step(&self) -> usize {
        on_match!(self, m => m.step)
    }
    fn last_message(&self) -> Instant {
        on_match!(self, m => m.last_message)
    }
    fn idle_limit(&self) -> Duration {
        on_match!(self, m => m.idle_limit())
    }
}

/// The reply to one request and the line to log about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handled {
    /// 200 for every message of the protocol; 400 for a body that is not
    /// one (no keyword of the protocol can be read from it).
    pub status: u16,
    /// What the message asked for, or what real servers expect instead
    /// when it cannot be served: `busy` to START or PREVIEW, `nil` to PLAY,
    /// `done` to STOP, `aborted` to ABORT (ggp-base reads the body whatever
    /// the status, so an error text would be taken for a move).
    pub reply: String,
    /// Why the message was not served as asked, if it was not.
    pub reason: Option<String>,
    pub log: String,
}

/// A seed for the match with this id (FNV-1a of the id, mixed with the
/// player's seed), so that one player seeds its matches differently.
fn match_seed(seed: u64, match_id: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in match_id.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The matches a player knows.
#[derive(Default)]
struct Registry {
    matches: BTreeMap<String, Arc<Mutex<AnyMatch>>>,
    /// Ids of the matches whose START is being prepared.
    starting: BTreeSet<String>,
}

/// A GGP player: the matches it knows, keyed by match id. Requests are
/// served concurrently: each match has a lock of its own, held while its
/// message is handled, and the table of matches is locked only to look a
/// match up, add or remove it.
pub struct GgpPlayer {
    pub config: PlayerConfig,
    registry: Mutex<Registry>,
    /// Grounding threads still running (of STARTs that stopped waiting
    /// for them, too).
    groundings: Groundings,
}

/// Locks a mutex, through poisoning: a panic while a match was handled
/// (caught by the server) leaves its data usable.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The keyword of a message that could not be read, if one can be seen:
/// the first word after the first `(`.
fn keyword_of(body: &str) -> Option<String> {
    let rest = body.trim_start().strip_prefix('(')?;
    let word: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .take(8)
        .collect();
    let kw = word.to_ascii_uppercase();
    ["INFO", "START", "PLAY", "STOP", "ABORT", "PREVIEW"]
        .contains(&kw.as_str())
        .then_some(kw)
}

/// What a server expects instead of the reply to a message of this kind
/// that cannot be served.
fn fallback_reply(kind: &str) -> &'static str {
    match kind {
        "PLAY" => "nil",
        "STOP" => "done",
        "ABORT" => "aborted",
        _ => "busy",
    }
}

/// Takes a match id out of [`Registry::starting`] when its START ends,
/// whichever way.
struct Starting<'a> {
    player: &'a GgpPlayer,
    id: &'a str,
}

impl Drop for Starting<'_> {
    fn drop(&mut self) {
        lock(&self.player.registry).starting.remove(self.id);
    }
}

impl GgpPlayer {
    pub fn new(config: PlayerConfig) -> GgpPlayer {
        GgpPlayer {
            config,
            registry: Mutex::new(Registry::default()),
            groundings: Groundings::default(),
        }
    }

    /// The ids of the matches in progress, sorted.
    pub fn match_ids(&self) -> Vec<String> {
        lock(&self.registry).matches.keys().cloned().collect()
    }

    /// Drops the matches that had no message for longer than their idle
    /// limit (60 s plus four times the sum of their clocks); returns their
    /// ids. A match whose message is being handled is not idle.
    pub fn expire(&self, now: Instant) -> Vec<String> {
        let mut reg = lock(&self.registry);
        let old: Vec<String> = reg
            .matches
            .iter()
            .filter(|(_, m)| {
                m.try_lock()
                    .is_ok_and(|m| now.saturating_duration_since(m.last_message()) > m.idle_limit())
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in &old {
            reg.matches.remove(id);
        }
        old
    }

    /// Answers one message; `received` is when the request arrived (the
    /// clocks count from then). May be called from several threads at once.
    pub fn handle(&self, body: &str, received: Instant) -> Handled {
        for id in self.expire(received) {
            eprintln!("ggp {id}: dropped after its clocks expired without messages");
        }
        let msg = match parse_message(body) {
            Ok(m) => m,
            Err(e) => {
                return match keyword_of(body) {
                    Some(kind) => {
                        let reply = fallback_reply(&kind).to_string();
                        Handled {
                            status: 200,
                            log: format!("ggp ? {kind}: {reply} ({})", e.message),
                            reply,
                            reason: Some(e.message),
                        }
                    }
                    None => Handled {
                        status: e.status,
                        log: format!("ggp ?: error {}: {}", e.status, e.message),
                        reply: e.message.clone(),
                        reason: Some(e.message),
                    },
                };
            }
        };
        let kind = msg.kind();
        let id = match &msg {
            Message::Start { match_id, .. }
            | Message::Play { match_id, .. }
            | Message::Stop { match_id, .. }
            | Message::Abort { match_id } => quote(match_id),
            Message::Info | Message::Preview { .. } => "-".into(),
        };
        match self.dispatch(msg, body, received) {
            Ok((reply, detail)) => Handled {
                status: 200,
                log: format!(
                    "ggp {id} {kind}: {reply}{}{detail}; replied after {:.3} s",
                    if detail.is_empty() { "" } else { ", " },
                    received.elapsed().as_secs_f64()
                ),
                reply,
                reason: None,
            },
            Err(e) => {
                let reply = fallback_reply(kind).to_string();
                Handled {
                    status: 200,
                    log: format!(
                        "ggp {id} {kind}: {reply} ({}); replied after {:.3} s",
                        e.message,
                        received.elapsed().as_secs_f64()
                    ),
                    reply,
                    reason: Some(e.message),
                }
            }
        }
    }

    /// The match with this id.
    fn find(&self, match_id: &str) -> Result<Arc<Mutex<AnyMatch>>, GgpError> {
        lock(&self.registry)
            .matches
            .get(match_id)
            .cloned()
            .ok_or_else(|| unknown_match(match_id))
    }

    /// The reply and a detail for the log.
    fn dispatch(
        &self,
        msg: Message,
        body: &str,
        received: Instant,
    ) -> Result<(String, String), GgpError> {
        match msg {
            Message::Info => {
                let reg = lock(&self.registry);
                let status = if reg.matches.len() + reg.starting.len() < self.config.max_matches {
                    "available"
                } else {
                    "busy"
                };
                Ok((
                    format!("((name {}) (status {status}))", self.config.name),
                    String::new(),
                ))
            }
            Message::Preview { rules, .. } => {
                let (_, _, warning) = game_of_rules(&rules, body, self.config.max_facts)?;
                Ok(("ready".into(), warning.unwrap_or_default()))
            }
            Message::Start {
                match_id,
                role,
                rules,
                start_clock,
                play_clock,
            } => self.start(
                match_id,
                &role,
                &rules,
                start_clock,
                play_clock,
                body,
                received,
            ),
            Message::Play {
                match_id,
                moves,
                turn,
            } => self.play(&match_id, moves, turn, received),
            Message::Stop {
                match_id,
                moves,
                turn,
            } => {
                let m = lock(&self.registry)
                    .matches
                    .remove(&match_id)
                    .ok_or_else(|| unknown_match(&match_id))?;
                let detail = on_gdl1_match!(
                    &mut *lock(&m),
                    m => {
                        gdl1_form(&turn)?;
                        m.stop(moves)
                    },
                    h => h.stop(moves, turn)
                )?;
                Ok(("done".into(), detail))
            }
            Message::Abort { match_id } => {
                let m = lock(&self.registry)
                    .matches
                    .remove(&match_id)
                    .ok_or_else(|| unknown_match(&match_id))?;
                let step = lock(&m).step();
                Ok(("aborted".into(), format!("after {step} steps")))
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn start(
        &self,
        match_id: String,
        role: &str,
        rules: &[SExpr],
        start_clock: f64,
        play_clock: f64,
        body: &str,
        received: Instant,
    ) -> Result<(String, String), GgpError> {
        {
            let mut reg = lock(&self.registry);
            if reg.matches.contains_key(&match_id) || reg.starting.contains(&match_id) {
                return Err(GgpError::bad(format!(
                    "match `{}` has already started",
                    quote(&match_id)
                )));
            }
            let busy = reg.matches.len() + reg.starting.len();
            if busy >= self.config.max_matches {
                return Err(GgpError::bad(format!(
                    "{busy} matches are in progress, the most this player takes"
                )));
            }
            reg.starting.insert(match_id.clone());
        }
        let _starting = Starting {
            player: self,
            id: &match_id,
        };
        let (game, desc, warning) = game_of_rules(rules, body, self.config.max_facts)?;
        let r = game.role_index(role).ok_or_else(|| {
            GgpError::bad(format!(
                "`{}` is not a role of this game (roles: {})",
                quote(role),
                game.player_names().join(", ")
            ))
        })?;
        let seed = match_seed(self.config.seed, &match_id);
        let clocks = (start_clock, play_clock);
        if game.is_gdl2() {
            if Some(r) == game.random_role() {
                return Err(GgpError::bad(
                    "the role `random` of a GDL-II game is played by the referee (nature), not by a player",
                ));
            }
            let h = hidden::HiddenMatch::new(game, r, &self.config, seed, clocks, received);
            let deadline = self.config.deadline(start_clock, received);
            return self.prepared(
                &match_id,
                AnyMatch::Hidden(Box::new(h)),
                deadline,
                "GDL-II: percepts, candidate states and Monte Carlo on the reasoner",
                warning,
            );
        }
        let m = Match::new(game, (), r, &self.config, seed, clocks, received);
        // The initial state within the reasoner's limit, or no match.
        let terminal = m.game.is_terminal(&m.state);
        let mut legal = Vec::new();
        for p in 0..m.game.num_players() {
            if !terminal {
                m.game.legal_moves(&m.state, p, &mut legal);
            }
        }
        if m.game.overflows() > 0 {
            return Err(GgpError::bad(format!(
                "the initial state of this game needs more than {} facts in a relation, the limit of the reasoner",
                self.config.max_facts
            )));
        }
        // The engine: with `--engine toss`, the translated game or the
        // START refused. Otherwise the grounded game when it grounds in
        // time and is faster, else the reasoner. The translated game is
        // not the default yet: its player wins at Breakthrough (0.85
        // against the reasoner's player, 0.825 against the grounded one,
        // 40 games each, BENCHMARKS.md), but its playouts are far slower
        // than the reasoner's on games such as Connect Four (348 against
        // 4,020 a second) and reversi, and no match has shown when it
        // pays there.
        let deadline = self.config.deadline(start_clock, received);
        let engine = self.config.engine;
        let translated = if engine != Engine::Toss {
            None
        } else if warning.is_some() {
            Some(Err(
                "not translated: the description does not validate".to_string()
            ))
        } else {
            Some(translated::translate_for_start(
                &desc,
                &self.config.translated_player,
                deadline,
                &self.groundings,
                self.config.max_matches,
            ))
        };
        let not_translated = match translated {
            Some(Ok((g, text))) => {
                let reader = translated::Lockstep::new(m.game);
                let m = Match::new(g, reader, r, &self.config, seed, clocks, received);
                let engine = format!("engine translated ({text})");
                return self.prepared(
                    &match_id,
                    AnyMatch::Translated(Box::new(m)),
                    deadline,
                    &engine,
                    warning,
                );
            }
            Some(Err(why)) if engine == Engine::Toss => {
                return Err(GgpError::bad(format!(
                    "--engine toss, but the game is {why}"
                )));
            }
            Some(Err(why)) => Some(why),
            None => None,
        };
        let grounded = if engine == Engine::Reasoner {
            Err("not grounded: the reasoner was asked for".to_string())
        } else if warning.is_some() {
            // Grounding takes descriptions that validate.
            Err("not grounded: the description does not validate".to_string())
        } else {
            engine::ground_for_start(
                &desc,
                &m.game,
                self.config.ground_limits,
                deadline,
                &self.groundings,
                self.config.max_matches,
                engine == Engine::Auto,
            )
        };
        let also = not_translated.map(|w| format!("; {w}")).unwrap_or_default();
        let (m, engine) = match grounded {
            Ok((g, text)) => (
                AnyMatch::Grounded(Box::new(Match::new(
                    g,
                    m.game,
                    r,
                    &self.config,
                    seed,
                    clocks,
                    received,
                ))),
                format!("engine grounded ({text}{also})"),
            ),
            Err(why) => (
                AnyMatch::Reasoner(Box::new(m)),
                format!("engine reasoner ({why}{also})"),
            ),
        };
        self.prepared(&match_id, m, deadline, &engine, warning)
    }

    /// The end of a START: the preparation (a search from the initial
    /// state until `deadline`; the tree is kept for the first move), then
    /// the match registered; the detail for the log names the `engine`.
    fn prepared(
        &self,
        match_id: &str,
        mut m: AnyMatch,
        deadline: Instant,
        engine: &str,
        warning: Option<String>,
    ) -> Result<(String, String), GgpError> {
        let mut detail = on_match!(&mut m, m => m.prepare(deadline, engine));
        if let Some(w) = warning {
            let _ = write!(detail, "; warning: {w}");
        }
        lock(&self.registry)
            .matches
            .insert(match_id.to_string(), Arc::new(Mutex::new(m)));
        Ok(("ready".into(), detail))
    }

    fn play(
        &self,
        match_id: &str,
        moves: Option<Vec<SExpr>>,
        turn: Option<Turn>,
        received: Instant,
    ) -> Result<(String, String), GgpError> {
        let m = self.find(match_id)?;
        let mut m = lock(&m);
        on_gdl1_match!(
            &mut *m,
            m => {
                gdl1_form(&turn)?;
                m.play(match_id, moves, received, &self.config)
            },
            h => h.play(match_id, moves, turn, received, &self.config)
        )
    }
}

/// A GDL-I match takes PLAY and STOP with the joint move only.
fn gdl1_form(turn: &Option<Turn>) -> Result<(), GgpError> {
    match turn {
        None => Ok(()),
        Some(_) => Err(GgpError::bad(
            "the GDL-II form of the message (turn, last move, percepts) came for a match of a \
             GDL-I game, which takes the joint move: (PLAY id (move ...))",
        )),
    }
}

fn unknown_match(id: &str) -> GgpError {
    GgpError {
        status: 404,
        message: format!("no match `{}` is in progress", quote(id)),
    }
}

/// `xplayer 100, oplayer 0`.
pub fn goals_text(roles: &[String], goals: &[u64]) -> String {
    roles
        .iter()
        .zip(goals)
        .map(|(r, g)| format!("{r} {g}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl<G: MatchGame> Match<G> {
    /// A match at the initial state of `game`, its searches seeded from
    /// `seed`; `clocks` are the start and play clocks.
    fn new(
        game: G,
        reader: G::Reader,
        role: usize,
        config: &PlayerConfig,
        seed: u64,
        clocks: (f64, f64),
        received: Instant,
    ) -> Match<G> {
        let deadline = Arc::new(Deadline {
            epoch: received,
            nanos: AtomicU64::new(0),
        });
        let (uct_config, eval) = game.searcher(config, &deadline);
        Match {
            searches: (0..config.threads.max(1) as u64)
                .map(|i| {
                    Uct::new(
                        uct_config.clone(),
                        eval.clone(),
                        seed.wrapping_add(i.wrapping_mul(0x2545_F491_4F6C_DD1D)),
                    )
                })
                .collect(),
            deadline,
            rng: toss_core::game::rng_from_seed(seed ^ 0x5EED),
            max_joint_moves: config.max_joint_moves,
            last_search: Ok((0, 0.0)),
            state: game.initial_state(),
            game,
            reader,
            role,
            step: 0,
            start_clock: clocks.0,
            play_clock: clocks.1,
            last_message: received,
        }
    }

    /// The preparation of START: a search from the initial state until
    /// `deadline` (the tree is kept for the first move); the detail for
    /// the log, which says the engine.
    fn prepare(&mut self, deadline: Instant, engine: &str) -> String {
        if self.game.is_terminal(&self.state) {
            format!(
                "role {}, the initial state is terminal, {engine}",
                self.role_name()
            )
        } else {
            self.search(deadline);
            format!(
                "role {}, clocks {} s / {} s, {} of preparation, {engine}",
                self.role_name(),
                self.start_clock,
                self.play_clock,
                self.search_text()
            )
        }
    }

    /// PLAY: the moves applied, then our move and the detail for the log.
    fn play(
        &mut self,
        match_id: &str,
        moves: Option<Vec<SExpr>>,
        received: Instant,
        config: &PlayerConfig,
    ) -> Result<(String, String), GgpError> {
        self.last_message = received;
        match moves {
            Some(moves) => self.advance(&moves)?,
            None if self.step > 0 => {
                return Err(GgpError::bad(format!(
                    "PLAY with nil, but {} joint moves were already played in match `{}`",
                    self.step,
                    quote(match_id)
                )));
            }
            None => {}
        }
        // A fault of the description (a role without a legal move, goals
        // not in 0..100), found here or by a search: every state is
        // terminal from then on, so it must be told before that.
        if let Some(f) = self.game.fault() {
            return Err(GgpError {
                status: 500,
                message: format!("step {}: {f}", self.step + 1),
            });
        }
        if self.game.is_terminal(&self.state) {
            return Err(GgpError::bad(format!(
                "the game of match `{}` is over after {} steps (expected STOP)",
                quote(match_id),
                self.step
            )));
        }
        let deadline = config.deadline(self.play_clock, received);
        if config.random_moves {
            let mut legal = Vec::new();
            self.game.legal_moves(&self.state, self.role, &mut legal);
            if !legal.is_empty() {
                let mv = legal[toss_core::game::index_below(&mut self.rng, legal.len())].clone();
                let text = self
                    .game
                    .move_text(&self.reader, &self.state, self.role, &mv);
                return Ok((text, format!("step {}, a random move", self.step + 1)));
            }
        }
        let Some(mv) = self.search(deadline) else {
            return Err(GgpError {
                status: 500,
                message: self.no_move_reason(),
            });
        };
        let text = self
            .game
            .move_text(&self.reader, &self.state, self.role, &mv);
        let detail = format!(
            "step {}, {} (budget {:.3} s)",
            self.step + 1,
            self.search_text(),
            deadline.saturating_duration_since(received).as_secs_f64()
        );
        Ok((text, detail))
    }

    /// STOP: the last moves applied, if any; the detail for the log (the
    /// goals).
    fn stop(&mut self, moves: Option<Vec<SExpr>>) -> Result<String, GgpError> {
        if let Some(moves) = moves {
            self.advance(&moves)?;
        }
        Ok(if self.game.terminal(&self.state) {
            match self.game.goals(&self.state) {
                Ok(g) => format!(
                    "after {} steps, goals {}",
                    self.step,
                    goals_text(self.game.player_names(), &g)
                ),
                Err(e) => format!("after {} steps: {e}", self.step),
            }
        } else {
            format!("after {} steps, in a state that is not terminal", self.step)
        })
    }

    /// Searches from the current state until `deadline` on every thread
    /// (iterations are interrupted there, inside playouts and expansions
    /// too) and returns our role's move: from the root children's
    /// statistics summed over the trees, a regret-minimising joint move
    /// (the best mean for a turn-based game), and among our role's
    /// remaining moves the most visited one. A state beyond the limits
    /// (more joint moves than `max_joint_moves`, or facts beyond the
    /// reasoner's limit) is not searched: the move is a random legal one.
    /// `None` when the state is terminal or a role has no legal move.
    fn search(&mut self, deadline: Instant) -> Option<G::Move> {
        let np = self.game.num_players();
        let overflows = self.game.overflows();
        let mut legal: Vec<Vec<G::Move>> = vec![Vec::new(); np];
        for (p, l) in legal.iter_mut().enumerate() {
            self.game.legal_moves(&self.state, p, l);
        }
        let dims: Vec<usize> = legal.iter().map(Vec::len).collect();
        // Any role without a legal move, ours or not: no joint move.
        if dims.contains(&0) {
            return None;
        }
        let total = dims
            .iter()
            .try_fold(1usize, |a, &d| a.checked_mul(d))
            .filter(|&t| t <= self.max_joint_moves);
        let total = match total {
            Some(t) if t > 0 && self.game.overflows() == overflows => t,
            _ => {
                self.last_search = Err(if self.game.overflows() != overflows {
                    "no search: this state exceeds the reasoner's limit of facts".into()
                } else {
                    format!("no search: more than {} joint moves", self.max_joint_moves)
                });
                let k = toss_core::game::index_below(&mut self.rng, dims[self.role]);
                return Some(legal[self.role][k].clone());
            }
        };
        let traps = self.traps(&legal, deadline);
        self.deadline.set(deadline);
        let budget = Budget::Time(deadline.saturating_duration_since(Instant::now()));
        let copies: Vec<G> = (1..self.searches.len())
            .map(|_| self.game.clone())
            .collect();
        let (first, rest) = self.searches.split_first_mut()?;
        let (game, state) = (&self.game, &self.state);
        std::thread::scope(|sc| {
            for (u, g) in rest.iter_mut().zip(&copies) {
                u.set_deadline(Some(deadline));
                sc.spawn(move || u.search(g, state, budget));
            }
            first.set_deadline(Some(deadline));
            first.search(game, state, budget);
        });
        let mut n = vec![0u64; total];
        let mut sums = vec![0.0; total * np];
        let (mut iterations, mut seconds) = (0u64, 0.0f64);
        for u in &self.searches {
            let rep = u.report();
            iterations += rep.iterations;
            seconds = seconds.max(rep.seconds);
            for c in &rep.children {
                if c.joint < total && c.mean.len() == np {
                    n[c.joint] += c.n;
                    for p in 0..np {
                        sums[c.joint * np + p] += c.mean[p] * c.n as f64;
                    }
                }
            }
        }
        self.last_search = Ok((iterations, seconds));
        // Every role moves in every step of a GDL game: mover k is role k.
        let util = |j: usize, k: usize| {
            if n[j] == 0 {
                f64::NEG_INFINITY
            } else {
                sums[j * np + k] / n[j] as f64
            }
        };
        let alive = regret_minimizing(&dims, util);
        // Visits of each of our moves, over all joint moves.
        let stride: usize = dims[self.role + 1..].iter().product();
        let mut visits = vec![0u64; dims[self.role]];
        let mut mine = vec![0.0f64; dims[self.role]];
        for (j, &c) in n.iter().enumerate() {
            let a = (j / stride) % dims[self.role];
            visits[a] += c;
            mine[a] += sums[j * np + self.role];
        }
        // A move after which the opponent can end the game at once with
        // less for us than the search expects of it is avoided, if another
        // is not: few random playouts find the one reply that punishes it.
        let safe =
            |a: usize| traps[a].is_none_or(|t| visits[a] == 0 || t >= mine[a] / visits[a] as f64);
        let most_visited = |among: &mut dyn Iterator<Item = usize>| {
            among.max_by_key(|&a| (visits[a], std::cmp::Reverse(a)))
        };
        let alive = &alive[self.role];
        let best = most_visited(&mut alive.iter().copied().filter(|&a| safe(a)))
            .or_else(|| most_visited(&mut (0..dims[self.role]).filter(|&a| safe(a))))
            .or_else(|| most_visited(&mut alive.iter().copied()))?;
        Some(legal[self.role][best].clone())
    }

    /// For each of our legal moves in a turn of ours alone (every other
    /// role has one move), the least goal of ours among the opponents'
    /// replies that end the game at once, if any does. Looked at while
    /// the time allows (a tenth of what is left before `deadline`: all
    /// `None` if that is not enough for every move), with at most 256
    /// replies per move.
    fn traps(&self, legal: &[Vec<G::Move>], deadline: Instant) -> Vec<Option<f64>> {
        let mut traps = vec![None; legal[self.role].len()];
        let others_pass = legal
            .iter()
            .enumerate()
            .all(|(p, l)| p == self.role || l.len() == 1);
        if !others_pass || traps.len() < 2 {
            return traps;
        }
        let now = Instant::now();
        let until = now + deadline.saturating_duration_since(now) / 10;
        let np = legal.len();
        let mut replies: Vec<Vec<G::Move>> = vec![Vec::new(); np];
        for (a, trap) in traps.iter_mut().enumerate() {
            if Instant::now() >= until {
                // Moves not looked at would look safe: no judgement at all.
                return vec![None; legal[self.role].len()];
            }
            let joint: Vec<G::Move> = (0..np)
                .map(|p| {
                    if p == self.role {
                        legal[p][a].clone()
                    } else {
                        legal[p][0].clone()
                    }
                })
                .collect();
            let next = self.game.next_state(&self.state, &joint);
            if self.game.is_terminal(&next) {
                continue;
            }
            for (p, r) in replies.iter_mut().enumerate() {
                self.game.legal_moves(&next, p, r);
            }
            let dims: Vec<usize> = replies.iter().map(Vec::len).collect();
            let total = dims.iter().try_fold(1usize, |x, &d| x.checked_mul(d));
            let Some(total) = total.filter(|&t| t > 0 && t <= 256) else {
                continue;
            };
            let mut reply = Vec::with_capacity(np);
            for j in 0..total {
                reply.clear();
                let mut k = j;
                for p in (0..np).rev() {
                    reply.push(replies[p][k % dims[p]].clone());
                    k /= dims[p];
                }
                reply.reverse();
                let after = self.game.next_state(&next, &reply);
                if self.game.is_terminal(&after)
                    && let Ok(g) = self.game.goals(&after)
                {
                    let mine = g[self.role] as f64;
                    *trap = Some(trap.map_or(mine, |t: f64| t.min(mine)));
                }
            }
        }
        traps
    }

    /// The last search, for the log: `N iterations in S s`.
    fn search_text(&self) -> String {
        match &self.last_search {
            Ok((n, s)) => format!("{n} iterations in {s:.3} s"),
            Err(why) => why.clone(),
        }
    }

    /// Why [`Match::search`] found no move in a state that is not
    /// terminal: the fault of the play if there is one (it names the
    /// role), else the first role without a legal move, which need not be
    /// ours.
    fn no_move_reason(&self) -> String {
        if let Some(f) = self.game.fault() {
            return format!("step {}: {f}", self.step + 1);
        }
        let mut legal = Vec::new();
        let stuck = (0..self.game.num_players()).find(|&p| {
            self.game.legal_moves(&self.state, p, &mut legal);
            legal.is_empty()
        });
        let name = self.game.player_names()[stuck.unwrap_or(self.role)].clone();
        format!(
            "step {}: role `{name}` has no legal move in a state that is not terminal (a \
             fault of the game description: every role needs a legal move in every \
             non-terminal state)",
            self.step + 1
        )
    }

    fn role_name(&self) -> &str {
        &self.game.player_names()[self.role]
    }

    /// Applies the joint move of a PLAY or STOP (one move per role, in role
    /// order) after checking that each is legal; the state is unchanged on
    /// error.
    fn advance(&mut self, moves: &[SExpr]) -> Result<(), GgpError> {
        let roles = self.game.player_names().to_vec();
        if moves.len() != roles.len() {
            return Err(GgpError::bad(format!(
                "expected {} moves, one per role ({}), got {}",
                roles.len(),
                roles.join(", "),
                moves.len()
            )));
        }
        if self.game.is_terminal(&self.state) {
            return Err(GgpError::bad(format!(
                "moves received after the end of the game ({} steps)",
                self.step
            )));
        }
        let mut joint = Vec::with_capacity(moves.len());
        let mut legal = Vec::new();
        for (p, e) in moves.iter().enumerate() {
            let shown = sexpr_to_string(e);
            let mv = self
                .game
                .read_move(&self.reader, &self.state, p, e)
                .map_err(|why| {
                    GgpError::bad(format!(
                        "move `{}` of role {}: {why}",
                        quote(&shown),
                        roles[p],
                    ))
                })?;
            self.game.legal_moves(&self.state, p, &mut legal);
            let Some(mv) = mv.filter(|m| legal.contains(m)) else {
                return Err(GgpError::bad(format!(
                    "move `{}` is not legal for role {} at step {}",
                    quote(&shown),
                    roles[p],
                    self.step + 1
                )));
            };
            joint.push(mv);
        }
        let next = self.game.next_state(&self.state, &joint);
        self.game
            .follow(&mut self.reader, moves, &next)
            .map_err(|why| GgpError {
                status: 500,
                message: format!("step {}: {why}", self.step + 1),
            })?;
        for u in &mut self.searches {
            u.observe(&self.game, &self.state, &joint);
        }
        self.state = next;
        self.step += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_gdl2;
