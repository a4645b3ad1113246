//! General Game Playing: the match protocol of `../shared/reference/gdl.md`
//! section 6 (messages, replies, match bookkeeping), a player that answers
//! it with UCT on the GDL reasoner ([`GgpPlayer`]), its HTTP server
//! ([`server`]) and a referee that runs matches between such players
//! ([`referee`]).
//!
//! [`GgpPlayer::handle`] takes the body of one request and returns the
//! reply, so the protocol is tested without sockets. Messages are
//! S-expressions with a case-insensitive keyword:
//!
//! | message | reply |
//! |---|---|
//! | `(INFO)` | `((name toss) (status available))`, `busy` while a match runs |
//! | `(START id role (rule ...) startclock playclock)` | `ready`, `busy` beyond [`PlayerConfig::max_matches`] |
//! | `(PLAY id nil)`, `(PLAY id (move ...))` | our move, a GDL term |
//! | `(STOP id (move ...))` | `done` |
//! | `(ABORT id)` | `aborted` |
//! | `(PREVIEW (rule ...) clock)` | `ready` |
//!
//! A message that is malformed, names an unknown match, has the wrong
//! number of moves or an illegal move gets an error reply (an HTTP error
//! status and a line of text), and the player keeps serving.

pub mod referee;
pub mod server;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

use toss_core::Game;
use toss_gdl::kif::syntax::{self, SExpr};
use toss_gdl::{GdlGame, GdlMove, GdlState};
use toss_lang::{Diagnostic, line_col};
use toss_search::player::{Budget, Player};
use toss_search::uct::{RandomPlayout, Uct, UctConfig, regret_minimizing};

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
    /// `moves` is `None` for `nil` (the first step).
    Play {
        match_id: String,
        moves: Option<Vec<SExpr>>,
    },
    Stop {
        match_id: String,
        moves: Option<Vec<SExpr>>,
    },
    Abort {
        match_id: String,
    },
    Preview {
        rules: Vec<SExpr>,
        clock: f64,
    },
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
        "PLAY" => {
            arity(2, "(PLAY matchid nil|(move ...))")?;
            Ok(Message::Play {
                match_id: id(&args[0])?,
                moves: moves(&args[1])?,
            })
        }
        "STOP" => {
            arity(2, "(STOP matchid nil|(move ...))")?;
            Ok(Message::Stop {
                match_id: id(&args[0])?,
                moves: moves(&args[1])?,
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

/// Builds the game of a description received in a message; errors list
/// the first diagnostics with line and column in the message.
pub fn game_of_rules(rules: &[SExpr], body: &str) -> Result<GdlGame, GgpError> {
    let checked = toss_gdl::kif::check_gdl_forms(rules);
    let desc = match checked.description {
        Some(d) if checked.errors.is_empty() => d,
        _ => {
            let mut s = String::from("invalid game description: ");
            let shown = checked.errors.len().min(3);
            let parts: Vec<String> = checked.errors[..shown]
                .iter()
                .map(|d| describe(d, body))
                .collect();
            s.push_str(&parts.join("; "));
            if checked.errors.len() > shown {
                let _ = write!(s, "; and {} more", checked.errors.len() - shown);
            }
            return Err(GgpError::bad(s));
        }
    };
    toss_gdl::kif::build_game(&desc)
        .map_err(|d| GgpError::bad(format!("invalid game description: {}", d.message)))
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
    /// UCT threads: independent trees (root parallelism), each searching
    /// with its own copy of the reasoner.
    pub threads: usize,
    /// The UCT tree of one thread is never extended beyond this many nodes.
    pub max_nodes: usize,
    /// A START beyond this many matches in progress is answered `busy`.
    pub max_matches: usize,
}

impl Default for PlayerConfig {
    fn default() -> Self {
        PlayerConfig {
            name: "toss".into(),
            margin: None,
            seed: 0,
            threads: 1,
            max_nodes: 1 << 21,
            max_matches: 16,
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

/// A match in progress.
struct Match {
    game: GdlGame,
    role: usize,
    state: GdlState,
    /// Joint moves played so far.
    step: usize,
    /// One search per thread. The reasoner caches the state it evaluates
    /// behind a lock, so each thread other than the first searches with a
    /// copy of the game made just before the search: the terms of the
    /// current state are then interned alike in every copy, and the trees
    /// index children by joint-move number, not by term.
    searches: Vec<Uct<RandomPlayout>>,
    /// Iterations and seconds of the last search.
    last_search: (u64, f64),
    start_clock: f64,
    play_clock: f64,
    last_message: Instant,
    /// Mean time of one UCT iteration in the last search. The clock is
    /// read between iterations, so a search overruns its budget by up to
    /// one iteration; budgets are cut by twice this.
    iteration_time: Duration,
}

impl Match {
    /// How long the match is kept without a message: well past any clock.
    fn idle_limit(&self) -> Duration {
        Duration::from_secs_f64(60.0 + 4.0 * (self.start_clock + self.play_clock))
    }
}

/// The reply to one request and the line to log about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handled {
    /// 200 on success, else the error status.
    pub status: u16,
    pub reply: String,
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

/// A GGP player: the matches it knows, keyed by match id.
pub struct GgpPlayer {
    pub config: PlayerConfig,
    matches: BTreeMap<String, Match>,
}

impl GgpPlayer {
    pub fn new(config: PlayerConfig) -> GgpPlayer {
        GgpPlayer {
            config,
            matches: BTreeMap::new(),
        }
    }

    /// The ids of the matches in progress, sorted.
    pub fn match_ids(&self) -> Vec<String> {
        self.matches.keys().cloned().collect()
    }

    /// Drops the matches that had no message for longer than their idle
    /// limit (60 s plus four times the sum of their clocks); returns their ids.
    pub fn expire(&mut self, now: Instant) -> Vec<String> {
        let old: Vec<String> = self
            .matches
            .iter()
            .filter(|(_, m)| now.saturating_duration_since(m.last_message) > m.idle_limit())
            .map(|(id, _)| id.clone())
            .collect();
        for id in &old {
            self.matches.remove(id);
        }
        old
    }

    /// Answers one message; `received` is when the request arrived (the
    /// clocks count from then).
    pub fn handle(&mut self, body: &str, received: Instant) -> Handled {
        for id in self.expire(received) {
            eprintln!("ggp {id}: dropped after its clocks expired without messages");
        }
        let msg = match parse_message(body) {
            Ok(m) => m,
            Err(e) => {
                return Handled {
                    status: e.status,
                    log: format!("ggp ?: error {}: {}", e.status, e.message),
                    reply: e.message,
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
            },
            Err(e) => Handled {
                status: e.status,
                log: format!("ggp {id} {kind}: error {}: {}", e.status, e.message),
                reply: e.message,
            },
        }
    }

    /// The reply and a detail for the log.
    fn dispatch(
        &mut self,
        msg: Message,
        body: &str,
        received: Instant,
    ) -> Result<(String, String), GgpError> {
        match msg {
            Message::Info => {
                let status = if self.matches.is_empty() {
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
                game_of_rules(&rules, body)?;
                Ok(("ready".into(), String::new()))
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
            Message::Play { match_id, moves } => self.play(&match_id, moves, received),
            Message::Stop { match_id, moves } => {
                let mut m = self
                    .matches
                    .remove(&match_id)
                    .ok_or_else(|| unknown_match(&match_id))?;
                if let Some(moves) = moves {
                    m.advance(&moves)?;
                }
                let detail = if m.game.terminal(&m.state) {
                    match m.game.goals(&m.state) {
                        Ok(g) => format!(
                            "after {} steps, goals {}",
                            m.step,
                            goals_text(m.game.player_names(), &g)
                        ),
                        Err(e) => format!("after {} steps: {e}", m.step),
                    }
                } else {
                    format!("after {} steps, in a state that is not terminal", m.step)
                };
                Ok(("done".into(), detail))
            }
            Message::Abort { match_id } => {
                let m = self
                    .matches
                    .remove(&match_id)
                    .ok_or_else(|| unknown_match(&match_id))?;
                Ok(("aborted".into(), format!("after {} steps", m.step)))
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        match_id: String,
        role: &str,
        rules: &[SExpr],
        start_clock: f64,
        play_clock: f64,
        body: &str,
        received: Instant,
    ) -> Result<(String, String), GgpError> {
        if self.matches.len() >= self.config.max_matches {
            return Ok((
                "busy".into(),
                format!("{} matches are in progress", self.matches.len()),
            ));
        }
        if self.matches.contains_key(&match_id) {
            return Err(GgpError::bad(format!(
                "match `{}` has already started",
                quote(&match_id)
            )));
        }
        let game = game_of_rules(rules, body)?;
        let r = game.role_index(role).ok_or_else(|| {
            GgpError::bad(format!(
                "`{}` is not a role of this game (roles: {})",
                quote(role),
                game.player_names().join(", ")
            ))
        })?;
        let state = game.initial_state();
        let seed = match_seed(self.config.seed, &match_id);
        let mut m = Match {
            searches: (0..self.config.threads.max(1) as u64)
                .map(|i| {
                    Uct::new(
                        self.config.uct_config(),
                        RandomPlayout { max_plies: 1000 },
                        seed.wrapping_add(i.wrapping_mul(0x2545_F491_4F6C_DD1D)),
                    )
                })
                .collect(),
            last_search: (0, 0.0),
            game,
            role: r,
            state,
            step: 0,
            start_clock,
            play_clock,
            last_message: received,
            iteration_time: Duration::ZERO,
        };
        // Preparation: search from the initial state; the tree is kept for
        // the first move. A first iteration expands the root, playing out
        // each joint move once, and plays one more: one timed playout
        // predicts its time, so that no iteration starts that would overrun
        // the start clock.
        if !m.game.is_terminal(&m.state) {
            let t = Instant::now();
            let mut s = m.state.clone();
            let mut rng = toss_core::game::rng_from_seed(seed);
            m.game.random_playout_from(&mut s, &mut rng, 1000);
            let mut legal = Vec::new();
            let mut joints = 1u32;
            for p in 0..m.game.num_players() {
                m.game.legal_moves(&m.state, p, &mut legal);
                joints = joints.saturating_mul(legal.len().max(1) as u32);
            }
            m.iteration_time = t.elapsed().saturating_mul(joints.saturating_add(1));
        }
        let budget = self.config.budget(start_clock, received);
        let detail = if m.game.is_terminal(&m.state) {
            format!("role {}, the initial state is terminal", m.role_name())
        } else {
            m.search(budget);
            format!(
                "role {}, clocks {start_clock} s / {play_clock} s, {} iterations of preparation in {:.3} s",
                m.role_name(),
                m.last_search.0,
                m.last_search.1
            )
        };
        self.matches.insert(match_id, m);
        Ok(("ready".into(), detail))
    }

    fn play(
        &mut self,
        match_id: &str,
        moves: Option<Vec<SExpr>>,
        received: Instant,
    ) -> Result<(String, String), GgpError> {
        let config = &self.config;
        let m = self
            .matches
            .get_mut(match_id)
            .ok_or_else(|| unknown_match(match_id))?;
        m.last_message = received;
        match moves {
            Some(moves) => m.advance(&moves)?,
            None if m.step > 0 => {
                return Err(GgpError::bad(format!(
                    "PLAY with nil, but {} joint moves were already played in match `{}`",
                    m.step,
                    quote(match_id)
                )));
            }
            None => {}
        }
        if m.game.is_terminal(&m.state) {
            return Err(GgpError::bad(format!(
                "the game of match `{}` is over after {} steps (expected STOP)",
                quote(match_id),
                m.step
            )));
        }
        let budget = config.budget(m.play_clock, received);
        let Some(mv) = m.search(budget) else {
            return Err(GgpError {
                status: 500,
                message: format!(
                    "role {} has no legal move in this state (a fault of the game description)",
                    m.role_name()
                ),
            });
        };
        let text = m.game.term_to_string(mv.0);
        let detail = format!(
            "step {}, {} iterations in {:.3} s (budget {:.3} s)",
            m.step + 1,
            m.last_search.0,
            m.last_search.1,
            budget.as_secs_f64()
        );
        Ok((text, detail))
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

impl Match {
    /// Searches from the current state for `budget` less twice the mean
    /// iteration time, on every thread, and returns our role's move: from
    /// the root children's statistics summed over the trees, a
    /// regret-minimising joint move (the best mean for a turn-based game),
    /// and among our role's remaining moves the most visited one. `None`
    /// when the state is terminal or our role has no legal move.
    fn search(&mut self, budget: Duration) -> Option<GdlMove> {
        // When one iteration is expected to take longer than the time left,
        // none is started: the move comes from the trees as they are (kept
        // from the previous searches), or is the first legal one.
        let budget = if self.iteration_time > budget {
            Budget::Iterations(0)
        } else {
            Budget::Time(budget.saturating_sub(2 * self.iteration_time))
        };
        let copies: Vec<GdlGame> = (1..self.searches.len())
            .map(|_| self.game.clone())
            .collect();
        let (first, rest) = self.searches.split_first_mut()?;
        let (game, state) = (&self.game, &self.state);
        std::thread::scope(|sc| {
            for (u, g) in rest.iter_mut().zip(&copies) {
                sc.spawn(move || u.search(g, state, budget));
            }
            first.search(game, state, budget);
        });
        let np = self.game.num_players();
        let mut legal: Vec<Vec<GdlMove>> = vec![Vec::new(); np];
        for (p, l) in legal.iter_mut().enumerate() {
            self.game.legal_moves(&self.state, p, l);
        }
        let dims: Vec<usize> = legal.iter().map(Vec::len).collect();
        let total: usize = dims.iter().product();
        if total == 0 {
            return None;
        }
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
        self.last_search = (iterations, seconds);
        if iterations > 0 {
            let per_thread = iterations as f64 / self.searches.len() as f64;
            self.iteration_time = Duration::from_secs_f64(seconds / per_thread);
        }
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
        for (j, &c) in n.iter().enumerate() {
            visits[(j / stride) % dims[self.role]] += c;
        }
        let best = alive[self.role]
            .iter()
            .copied()
            .max_by_key(|&a| (visits[a], std::cmp::Reverse(a)))?;
        Some(legal[self.role][best])
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
            let t = toss_gdl::kif::ground(&self.game, e).map_err(|d| {
                GgpError::bad(format!(
                    "move `{}` of role {}: {}",
                    quote(&shown),
                    roles[p],
                    d.message
                ))
            })?;
            self.game.legal_moves(&self.state, p, &mut legal);
            if !legal.contains(&GdlMove(t)) {
                return Err(GgpError::bad(format!(
                    "move `{}` is not legal for role {} at step {}",
                    quote(&shown),
                    roles[p],
                    self.step + 1
                )));
            }
            joint.push(GdlMove(t));
        }
        for u in &mut self.searches {
            u.observe(&self.game, &self.state, &joint);
        }
        self.state = self.game.next_state(&self.state, &joint);
        self.step += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
