//! A referee (game manager): runs one match of a GDL game between GGP
//! players over HTTP, as a GGP server does. It sends START to every
//! player, then PLAY with the previous joint move until the game is over,
//! then STOP, all players of a step in parallel. It keeps the state with
//! its own reasoner and checks every reply: a reply that is late (after
//! the clock and the grace, one second by default as in ggp-base), not a
//! ground term of the game, or not a legal move is a fault, recorded and
//! replaced by a random legal move (as ggp-base's server does). A match
//! in which a player refused START or never gave a valid reply was not
//! played ([`MatchRecord::not_played`]). [`MatchRecord::to_ggp_json`]
//! writes the record in the JSON format of ggp-base's `Match`.
//!
//! GDL-II (the role `random` or `sees` rules): `random` has no player;
//! the referee draws its move uniformly among its legal moves with the
//! match's seed. Each player gets, instead of the joint move, the turn,
//! its own last move and its percepts: `(PLAY id turn lastmove
//! nil|(percept ...))`, `(PLAY id 0 nil nil)` first, and STOP alike.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use toss_core::Game;
use toss_core::game::rng_from_seed;
use toss_gdl::kif::syntax;
use toss_gdl::{GdlGame, GdlMove};

use super::sexpr_to_string;

/// The largest reply read from a player.
const MAX_REPLY: u64 = 1 << 20;

/// How long after its clock ggp-base's server still accepts a reply.
pub const GGP_BASE_GRACE: Duration = Duration::from_secs(1);

/// Sends one message to a player (`host:port`, optionally with `http://`
/// and a trailing `/`) as an HTTP/1.0 POST and returns the status and the
/// body of the reply. The whole exchange must end within `timeout`.
pub fn post(player: &str, message: &str, timeout: Duration) -> Result<(u16, String), String> {
    let hostport = player
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let addr = hostport
        .to_socket_addrs()
        .map_err(|e| format!("{player}: {e}"))?
        .next()
        .ok_or_else(|| format!("{player}: no address"))?;
    let deadline = Instant::now() + timeout;
    let left = || {
        deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(1))
    };
    let mut s = TcpStream::connect_timeout(&addr, left()).map_err(|e| format!("{player}: {e}"))?;
    s.set_write_timeout(Some(left()))
        .map_err(|e| format!("{player}: {e}"))?;
    let request = format!(
        "POST / HTTP/1.0\r\nHost: {hostport}\r\nSender: toss\r\nReceiver: {hostport}\r\n\
         Content-Type: text/acl\r\nAccept: text/delim\r\nContent-Length: {}\r\n\r\n{message}",
        message.len()
    );
    s.write_all(request.as_bytes())
        .map_err(|e| format!("{player}: cannot send: {e}"))?;
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        s.set_read_timeout(Some(left()))
            .map_err(|e| format!("{player}: {e}"))?;
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                raw.extend_from_slice(&buf[..n]);
                if raw.len() as u64 > MAX_REPLY {
                    return Err(format!(
                        "{player}: the reply is longer than {MAX_REPLY} bytes"
                    ));
                }
                if let Some(done) = complete_response(&raw) {
                    raw.truncate(done);
                    break;
                }
            }
            Err(e) => return Err(format!("{player}: no reply in time ({e})")),
        }
    }
    parse_response(&raw).ok_or_else(|| format!("{player}: the reply is not an HTTP response"))
}

/// The length of a complete response with a `Content-Length` in `raw`, if
/// it has arrived.
fn complete_response(raw: &[u8]) -> Option<usize> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")? + 4;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let len: usize = head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim()
            .eq_ignore_ascii_case("content-length")
            .then(|| v.trim().parse().ok())?
    })?;
    (raw.len() >= end + len).then_some(end + len)
}

/// The status and body of an HTTP response.
fn parse_response(raw: &[u8]) -> Option<(u16, String)> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let status = head
        .lines()
        .next()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some((
        status,
        String::from_utf8_lossy(&raw[end + 4..]).into_owned(),
    ))
}

/// The clocks and names of a match.
#[derive(Clone, Debug)]
pub struct RefereeConfig {
    pub match_id: String,
    /// Seconds.
    pub start_clock: u64,
    pub play_clock: u64,
    /// Seeds the random moves that replace faulty replies.
    pub seed: u64,
    /// At most this many steps are played: a game still going then is cut
    /// (see [`MatchRecord::cut`]).
    pub max_steps: usize,
    /// A reply is accepted up to this long after its clock
    /// ([`GGP_BASE_GRACE`] in ggp-base).
    pub grace: Duration,
}

/// A fault of a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// 0 for START, k for the k-th PLAY, the number of steps + 1 for STOP.
    pub step: usize,
    pub role: String,
    pub what: String,
}

/// What happened in a match.
#[derive(Clone, Debug)]
pub struct MatchRecord {
    pub roles: Vec<String>,
    /// The joint moves played, in KIF, one per role.
    pub moves: Vec<Vec<String>>,
    /// Per step and role, how long the player took to reply to PLAY.
    pub reply_times: Vec<Vec<Duration>>,
    /// Per role, how long START took.
    pub start_times: Vec<Duration>,
    /// The goals of the final state, if the game ended and defines them.
    pub goals: Result<Vec<u64>, String>,
    pub faults: Vec<Fault>,
    /// Why the match does not count, if it does not: a player refused
    /// START (or did not answer it), or never gave a valid reply to PLAY.
    pub not_played: Option<String>,
    /// The game had not ended after [`RefereeConfig::max_steps`] steps:
    /// the players were sent ABORT, and there are no goals.
    pub cut: bool,
    /// The states, the initial one first, in ggp-base's rendering
    /// (`( ( cell 1 1 b ) ( control xplayer ) )`), and when each was
    /// reached (milliseconds since the Unix epoch).
    pub states: Vec<String>,
    pub state_times: Vec<u64>,
    /// Milliseconds since the Unix epoch when START was sent.
    pub start_time: u64,
    pub match_id: String,
    pub start_clock: u64,
    pub play_clock: u64,
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A term as ggp-base prints it: a space inside every parenthesis.
fn ggp_base_text(kif: &str) -> String {
    kif.replace('(', "( ").replace(')', " )")
}

/// A JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_strings(v: &[String]) -> String {
    let parts: Vec<String> = v.iter().map(|s| json_string(s)).collect();
    format!("[{}]", parts.join(", "))
}

impl MatchRecord {
    /// The record in the JSON format of ggp-base's `Match.toJSON`: match id,
    /// start time, states, moves, state times, errors (one list per step,
    /// `""` for a role without fault), goal values (when the match was
    /// played to its end), clocks and the players' names.
    pub fn to_ggp_json(&self, players: &[String]) -> String {
        let completed = self.not_played.is_none() && self.goals.is_ok();
        let moves: Vec<String> = self
            .moves
            .iter()
            .map(|j| {
                let t: Vec<String> = j.iter().map(|m| ggp_base_text(m)).collect();
                json_strings(&t)
            })
            .collect();
        let errors: Vec<String> = (1..=self.moves.len())
            .map(|step| {
                let per_role: Vec<String> = self
                    .roles
                    .iter()
                    .map(|r| {
                        self.faults
                            .iter()
                            .filter(|f| f.step == step && &f.role == r)
                            .map(|f| f.what.clone())
                            .collect::<Vec<_>>()
                            .join("; ")
                    })
                    .collect();
                json_strings(&per_role)
            })
            .collect();
        let mut out = format!(
            "{{\"matchId\": {}, \"randomToken\": {}, \"startTime\": {}, \"gameMetaURL\": \"\", \
             \"isCompleted\": {completed}, \"isAborted\": {}, \"states\": {}, \"moves\": [{}], \
             \"stateTimes\": [{}]",
            json_string(&self.match_id),
            json_string(&format!("{:016x}", self.start_time)),
            self.start_time,
            self.not_played.is_some() || self.cut,
            json_strings(&self.states),
            moves.join(", "),
            self.state_times
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        );
        if self
            .faults
            .iter()
            .any(|f| (1..=self.moves.len()).contains(&f.step))
        {
            out.push_str(&format!(", \"errors\": [{}]", errors.join(", ")));
        }
        if let (true, Ok(g)) = (completed, &self.goals) {
            let g: Vec<String> = g.iter().map(u64::to_string).collect();
            out.push_str(&format!(", \"goalValues\": [{}]", g.join(", ")));
        }
        out.push_str(&format!(
            ", \"previewClock\": -1, \"startClock\": {}, \"playClock\": {}, \
             \"playerNamesFromHost\": {}, \"scrambled\": false}}",
            self.start_clock,
            self.play_clock,
            json_strings(players)
        ));
        out
    }
}

/// The rules of a KIF source as the one-line list a START message carries
/// (comments dropped).
pub fn rules_text(source: &str) -> Result<String, String> {
    let forms = syntax::read(source).map_err(|d| d.message)?;
    let parts: Vec<String> = forms.iter().map(sexpr_to_string).collect();
    Ok(format!("({})", parts.join(" ")))
}

/// The outcome of one request (status and body, or what failed) and the
/// time it took.
type Exchange = (Result<(u16, String), String>, Duration);

/// Sends `messages[i]` to `players[i]`, all at once; the replies and the
/// time each took.
fn broadcast(players: &[String], messages: &[String], timeout: Duration) -> Vec<Exchange> {
    std::thread::scope(|sc| {
        let handles: Vec<_> = players
            .iter()
            .zip(messages)
            .map(|(p, m)| {
                sc.spawn(move || {
                    let t = Instant::now();
                    let r = post(p, m, timeout);
                    (r, t.elapsed())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| (Err("request thread failed".into()), Duration::ZERO))
            })
            .collect()
    })
}

/// The reply text if the exchange succeeded with status 200 within the
/// clock and the grace.
fn check_reply(r: &Exchange, clock: Duration, grace: Duration) -> Result<String, String> {
    match &r.0 {
        Err(e) => Err(e.clone()),
        Ok((200, body)) if r.1 <= clock + grace => Ok(body.trim().to_string()),
        Ok((200, _)) => Err(format!(
            "replied after {:.3} s, the clock is {:.3} s (and {:.3} s of grace)",
            r.1.as_secs_f64(),
            clock.as_secs_f64(),
            grace.as_secs_f64()
        )),
        Ok((status, body)) => Err(format!("error reply {status}: {}", body.trim())),
    }
}

/// The faults of the replies to a START or STOP (`message`, which each
/// player should answer with `expected`, at `step`): late, failed or other
/// replies, one per player in role order.
fn unexpected_replies(
    roles: &[String],
    replies: &[Exchange],
    (message, expected, step): (&str, &str, usize),
    clock: Duration,
    grace: Duration,
) -> Vec<Fault> {
    let mut faults = Vec::new();
    for (p, r) in replies.iter().enumerate() {
        let what = match check_reply(r, clock, grace) {
            Ok(t) if t.eq_ignore_ascii_case(expected) => continue,
            Ok(t) => format!("replied `{t}` to {message}"),
            Err(e) => e,
        };
        faults.push(Fault {
            step,
            role: roles[p].clone(),
            what,
        });
    }
    faults
}

/// Runs one match of `game` (whose KIF text is `source`) between the
/// players, one per role in role order. `log` gets one line per step.
pub fn run_match(
    game: &GdlGame,
    source: &str,
    players: &[String],
    cfg: &RefereeConfig,
    mut log: impl FnMut(&str),
) -> Result<MatchRecord, String> {
    let all_roles = game.player_names().to_vec();
    // GDL-II: the role `random` is nature, played here; the players get
    // their percepts instead of the joint move.
    let gdl2 = game.is_gdl2();
    let random = game.random_role();
    let seated: Vec<usize> = (0..all_roles.len())
        .filter(|&p| Some(p) != random)
        .collect();
    let roles: Vec<String> = seated.iter().map(|&p| all_roles[p].clone()).collect();
    if players.len() != roles.len() {
        return Err(format!(
            "the game has {} roles ({}){}; {} players were given",
            roles.len(),
            roles.join(", "),
            if random.is_some() {
                " besides `random`, whose moves the referee draws"
            } else {
                ""
            },
            players.len()
        ));
    }
    let rules = rules_text(source)?;
    let mut rng = rng_from_seed(cfg.seed);
    let mut faults = Vec::new();
    let start_clock = Duration::from_secs(cfg.start_clock);
    let play_clock = Duration::from_secs(cfg.play_clock);
    let starts: Vec<String> = roles
        .iter()
        .map(|r| {
            format!(
                "(START {} {r} {rules} {} {})",
                cfg.match_id, cfg.start_clock, cfg.play_clock
            )
        })
        .collect();
    let grace = cfg.grace;
    let start_time = now_ms();
    let replies = broadcast(players, &starts, start_clock + grace);
    let start_times = replies.iter().map(|r| r.1).collect();
    faults.extend(unexpected_replies(
        &roles,
        &replies,
        ("START", "ready", 0),
        start_clock,
        grace,
    ));
    let mut record = MatchRecord {
        roles: all_roles.clone(),
        moves: Vec::new(),
        reply_times: Vec::new(),
        start_times,
        goals: Err("the match was not played".into()),
        faults: Vec::new(),
        not_played: None,
        cut: false,
        states: Vec::new(),
        state_times: Vec::new(),
        start_time,
        match_id: cfg.match_id.clone(),
        start_clock: cfg.start_clock,
        play_clock: cfg.play_clock,
    };
    let state_text = |s: &toss_gdl::GdlState| {
        let fluents: Vec<String> =
            s.0.iter()
                .map(|&t| ggp_base_text(&game.term_to_string(t)))
                .collect();
        format!("( {} )", fluents.join(" "))
    };
    let mut state = game.initial_state();
    record.states.push(state_text(&state));
    record.state_times.push(now_ms());
    if !faults.is_empty() {
        // A player that is not ready would be replaced by random moves
        // throughout: the others are told the match is off.
        let why: Vec<String> = faults
            .iter()
            .map(|f| format!("{}: {}", f.role, f.what))
            .collect();
        let abort = format!("(ABORT {})", cfg.match_id);
        broadcast(players, &vec![abort; players.len()], play_clock + grace);
        log(&format!(
            "{}: not played: START failed ({})",
            cfg.match_id,
            why.join("; ")
        ));
        record.not_played = Some(format!("START failed: {}", why.join("; ")));
        record.faults = faults;
        return Ok(record);
    }
    log(&format!(
        "{}: started, roles {}",
        cfg.match_id,
        roles.join(", ")
    ));
    let mut moves: Vec<Vec<String>> = Vec::new();
    let mut reply_times = Vec::new();
    let mut answered = vec![false; roles.len()];
    let mut legal = Vec::new();
    let last_joint = |moves: &Vec<Vec<String>>| match moves.last() {
        None => "nil".to_string(),
        Some(j) => format!("({})", j.join(" ")),
    };
    // GDL-II: each role's percepts after the last joint move, as text.
    let mut percepts: Vec<Vec<String>> = vec![Vec::new(); all_roles.len()];
    // The PLAY or STOP of each player: the joint move, or (GDL-II) the
    // turn, the player's own last move and its percepts.
    let messages = |kind: &str, moves: &Vec<Vec<String>>, percepts: &Vec<Vec<String>>| {
        seated
            .iter()
            .map(|&p| {
                if !gdl2 {
                    return format!("({kind} {} {})", cfg.match_id, last_joint(moves));
                }
                let (last, seen) = match moves.last() {
                    None => ("nil".to_string(), "nil".to_string()),
                    Some(j) if percepts[p].is_empty() => (j[p].clone(), "nil".to_string()),
                    Some(j) => (j[p].clone(), format!("({})", percepts[p].join(" "))),
                };
                format!("({kind} {} {} {last} {seen})", cfg.match_id, moves.len())
            })
            .collect::<Vec<String>>()
    };
    while !game.is_terminal(&state) {
        if moves.len() >= cfg.max_steps {
            // Cut: the players are told the match is off, as ggp-base's
            // referee aborts a match it stops.
            let abort = format!("(ABORT {})", cfg.match_id);
            broadcast(players, &vec![abort; players.len()], play_clock + grace);
            log(&format!(
                "{}: cut at {} steps, the game had not ended: no goals",
                cfg.match_id, cfg.max_steps
            ));
            record.goals = Err(format!(
                "cut at {} steps: the game had not ended",
                cfg.max_steps
            ));
            record.cut = true;
            record.moves = moves;
            record.reply_times = reply_times;
            record.faults = faults;
            return Ok(record);
        }
        let step = moves.len() + 1;
        let msgs = messages("PLAY", &moves, &percepts);
        let replies = broadcast(players, &msgs, play_clock + grace);
        reply_times.push(replies.iter().map(|r| r.1).collect());
        let mut joint = Vec::with_capacity(all_roles.len());
        for (p, role) in all_roles.iter().enumerate() {
            game.legal_moves(&state, p, &mut legal);
            if legal.is_empty() {
                return Err(format!(
                    "role `{role}` has no legal move at step {step}, which is not terminal (a fault of the game description)",
                ));
            }
            if Some(p) == random {
                // Nature: uniformly among its legal moves.
                joint.push(legal[toss_core::game::index_below(&mut rng, legal.len())]);
                continue;
            }
            let seat = seated.iter().position(|&q| q == p).unwrap_or(0);
            let r = &replies[seat];
            let chosen = check_reply(r, play_clock, grace).and_then(|t| {
                let m = toss_gdl::kif::parse_ground_term(game, &t)
                    .map_err(|d| format!("replied `{t}`, not a move of the game: {}", d.message))?;
                if legal.contains(&GdlMove(m)) {
                    Ok(GdlMove(m))
                } else {
                    Err(format!("replied `{t}`, which is not legal"))
                }
            });
            answered[seat] |= chosen.is_ok();
            let m = chosen.unwrap_or_else(|what| {
                faults.push(Fault {
                    step,
                    role: role.clone(),
                    what,
                });
                legal[toss_core::game::index_below(&mut rng, legal.len())]
            });
            joint.push(m);
        }
        let texts: Vec<String> = joint.iter().map(|m| game.term_to_string(m.0)).collect();
        log(&format!(
            "{}: step {step}: {}",
            cfg.match_id,
            texts.join(" ")
        ));
        moves.push(texts);
        let (next, seen) = game.next_and_percepts(&state, &joint);
        percepts = seen
            .iter()
            .map(|v| v.iter().map(|&t| game.term_to_string(t)).collect())
            .collect();
        state = next;
        record.states.push(state_text(&state));
        record.state_times.push(now_ms());
    }
    let step = moves.len() + 1;
    let stops = messages("STOP", &moves, &percepts);
    let replies = broadcast(players, &stops, play_clock + grace);
    faults.extend(unexpected_replies(
        &roles,
        &replies,
        ("STOP", "done", step),
        play_clock,
        grace,
    ));
    let silent: Vec<&str> = roles
        .iter()
        .zip(&answered)
        .filter(|(_, a)| !**a)
        .map(|(r, _)| r.as_str())
        .collect();
    let goals = game.gdl2_goals(&state).map_err(|e| e.to_string());
    if !moves.is_empty() && !silent.is_empty() {
        let why = format!("no valid reply to PLAY from {}", silent.join(", "));
        log(&format!("{}: not played: {why}", cfg.match_id));
        record.not_played = Some(why);
    } else {
        match &goals {
            Ok(g) => log(&format!(
                "{}: over after {} steps, goals {}",
                cfg.match_id,
                moves.len(),
                super::goals_text(&all_roles, g)
            )),
            Err(e) => log(&format!("{}: over, {e}", cfg.match_id)),
        }
    }
    record.moves = moves;
    record.reply_times = reply_times;
    record.goals = goals;
    record.faults = faults;
    Ok(record)
}
