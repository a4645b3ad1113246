//! Running games from the command line, for any implementation of `Game`:
//! perft, random playouts, interactive play and reading moves typed by a
//! person.

use std::cell::Cell;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::{BufRead, Write};
use std::time::Instant;

use toss_core::game::{Game, Rng, perft_in_turn, rng_from_seed};
use toss_heuristics::HeuristicKind;
use toss_search::player::{Budget, Player};

/// Every joint move of the movers of `s` (one move per mover, in `movers`
/// order), in canonical order: the first mover's moves vary slowest.
pub fn joint_moves<G: Game>(g: &G, s: &G::State) -> Vec<Vec<G::Move>> {
    let mut movers = Vec::new();
    let mut moves = Vec::new();
    g.movers_and_moves(s, &mut movers, &mut moves);
    if movers.is_empty() {
        return Vec::new();
    }
    toss_search::player::all_joint_moves(&moves[..movers.len()])
}

/// A joint move as text: the movers' moves joined by ` & `.
pub fn joint_to_string<G: Game>(g: &G, s: &G::State, joint: &[G::Move]) -> String {
    let mut movers = Vec::new();
    g.movers(s, &mut movers);
    movers
        .iter()
        .zip(joint)
        .map(|(&p, m)| g.move_to_string(s, p, m))
        .collect::<Vec<_>>()
        .join(" & ")
}

/// Perft with the count below each first joint move, as `(move, count)`.
/// A joint move that continues the turn (see `Game::continues_turn`) keeps
/// the depth, like `Game::perft`.
pub fn perft_divide<G: Game>(g: &G, s: &G::State, depth: usize) -> Vec<(String, u64)> {
    let mut rng = rng_from_seed(0);
    let (mut before, mut after) = (Vec::new(), Vec::new());
    g.movers(s, &mut before);
    joint_moves(g, s)
        .into_iter()
        .map(|joint| {
            let mut t = s.clone();
            g.apply(&mut t, &joint, &mut rng);
            g.movers(&t, &mut after);
            let count = if g.continues_turn(&before, &after) {
                perft_in_turn(g, &t, depth, 1)
            } else {
                g.perft(&t, depth.saturating_sub(1))
            };
            (joint_to_string(g, s, &joint), count)
        })
        .collect()
}

/// Whether play has ended in `s`: no mover, or a mover without a legal
/// move (where the play loops of this crate and of `Game` stop too).
pub fn play_over<G: Game>(g: &G, s: &G::State) -> bool {
    let (mut movers, mut moves) = (Vec::new(), Vec::new());
    g.movers_and_moves(s, &mut movers, &mut moves);
    movers.is_empty() || moves[..movers.len()].iter().any(Vec::is_empty)
}

/// What `toss playout` measured. The means are over the finished
/// playouts only: a playout cut at the limit has no result, and its
/// length is the limit's, not the game's.
pub struct PlayoutStats {
    pub playouts: u64,
    /// Playouts stopped at the turn limit before the end of the play.
    pub cut: u64,
    pub seconds: f64,
    /// Mean length in turns (maximal runs of plies with one mover, see
    /// `Game::continues_turn`), as perft and `--max-plies` count; NaN when
    /// no playout finished.
    pub mean_turns: f64,
    /// Mean length in plies (joint moves); NaN when no playout finished.
    pub mean_plies: f64,
    /// NaN when no playout finished.
    pub mean_payoffs: Vec<f64>,
}

impl PlayoutStats {
    pub fn finished(&self) -> u64 {
        self.playouts - self.cut
    }
}

/// Runs `n` random playouts with one generator seeded from `seed`; `tick`
/// is called after each playout (for a progress bar). `max_turns` stops a
/// playout after that many turns; such a playout is counted as cut, apart
/// from the finished ones, when its play had not ended.
pub fn playouts<G: Game>(
    g: &G,
    n: u64,
    seed: u64,
    max_turns: usize,
    mut tick: impl FnMut(),
) -> PlayoutStats {
    let mut rng = rng_from_seed(seed);
    let (mut turns, mut plies, mut cut) = (0u64, 0u64, 0u64);
    let mut payoffs = vec![0.0; g.num_players()];
    // Where every ply is a turn, the game's own (possibly generated)
    // playout counts both; otherwise the trait's playout loop runs on a
    // wrapper that counts the plies it applies (same moves, same draws).
    let counting = g.has_compound_turns().then(|| CountPlies {
        game: g,
        plies: Cell::new(0),
    });
    let start = Instant::now();
    for _ in 0..n {
        // `random_playout` from the initial state, keeping the state to
        // tell a playout cut at the limit from one that ended there.
        let mut s = g.initial_state();
        let before = counting.as_ref().map_or(0, |c| c.plies.get());
        let (len, pay) = match &counting {
            Some(c) => c.random_playout_from(&mut s, &mut rng, max_turns),
            None => g.random_playout_from(&mut s, &mut rng, max_turns),
        };
        if len >= max_turns && !play_over(g, &s) {
            cut += 1;
        } else {
            turns += len as u64;
            plies += match &counting {
                Some(c) => c.plies.get() - before,
                None => len as u64,
            };
            for (sum, p) in payoffs.iter_mut().zip(pay) {
                *sum += p;
            }
        }
        tick();
    }
    let seconds = start.elapsed().as_secs_f64();
    let finished = (n - cut) as f64;
    let mean = |x: f64| {
        if finished > 0.0 {
            x / finished
        } else {
            f64::NAN
        }
    };
    PlayoutStats {
        playouts: n,
        cut,
        seconds,
        mean_turns: mean(turns as f64),
        mean_plies: mean(plies as f64),
        mean_payoffs: payoffs.into_iter().map(mean).collect(),
    }
}

/// Writes what [`playouts`] measured, as `toss playout` prints it: the
/// count and time, the rate, the finished and cut playouts, then the
/// means of the finished ones (length in turns and plies, payoff per
/// player).
pub fn write_playout_stats(
    out: &mut impl Write,
    names: &[String],
    stats: &PlayoutStats,
    max_turns: usize,
) -> std::io::Result<()> {
    writeln!(out, "{} playouts in {:.2} s", stats.playouts, stats.seconds)?;
    writeln!(
        out,
        "playouts/s: {}",
        rate(stats.playouts as f64 / stats.seconds.max(1e-9))
    )?;
    writeln!(
        out,
        "finished: {}, cut at {max_turns} turns: {}",
        stats.finished(),
        stats.cut
    )?;
    if stats.finished() == 0 {
        return writeln!(out, "no playout finished: no mean length or payoff");
    }
    writeln!(
        out,
        "mean length: {:.2} turns ({:.2} plies)",
        stats.mean_turns, stats.mean_plies
    )?;
    for (name, p) in names.iter().zip(&stats.mean_payoffs) {
        writeln!(out, "mean payoff {name}: {p:.4}")?;
    }
    Ok(())
}

/// `game`, counting the joint moves applied. It keeps the trait's default
/// `random_playout_from`, so a playout on it counts plies (a generated
/// game's own playout is bypassed).
struct CountPlies<'a, G> {
    game: &'a G,
    plies: Cell<u64>,
}

impl<G: Game> Game for CountPlies<'_, G> {
    type State = G::State;
    type Move = G::Move;
    fn player_names(&self) -> &[String] {
        self.game.player_names()
    }
    fn num_players(&self) -> usize {
        self.game.num_players()
    }
    fn initial_state(&self) -> G::State {
        self.game.initial_state()
    }
    fn movers(&self, s: &G::State, out: &mut Vec<usize>) {
        self.game.movers(s, out)
    }
    fn legal_moves(&self, s: &G::State, player: usize, out: &mut Vec<G::Move>) {
        self.game.legal_moves(s, player, out)
    }
    fn apply(&self, s: &mut G::State, joint: &[G::Move], rng: &mut Rng) {
        self.plies.set(self.plies.get() + 1);
        self.game.apply(s, joint, rng)
    }
    fn movers_and_moves(
        &self,
        s: &G::State,
        movers: &mut Vec<usize>,
        moves: &mut Vec<Vec<G::Move>>,
    ) {
        self.game.movers_and_moves(s, movers, moves)
    }
    fn is_terminal(&self, s: &G::State) -> bool {
        self.game.is_terminal(s)
    }
    fn payoffs(&self, s: &G::State, out: &mut [f64]) {
        self.game.payoffs(s, out)
    }
    fn to_structure(&self, s: &G::State) -> toss_core::Structure {
        self.game.to_structure(s)
    }
    fn location(&self, s: &G::State) -> usize {
        self.game.location(s)
    }
    fn move_to_string(&self, s: &G::State, player: usize, m: &G::Move) -> String {
        self.game.move_to_string(s, player, m)
    }
    fn draw_continuous(&self, s: &G::State, player: usize, m: &mut G::Move, rng: &mut Rng) {
        self.game.draw_continuous(s, player, m, rng)
    }
    fn continues_turn(&self, before: &[usize], after: &[usize]) -> bool {
        self.game.continues_turn(before, after)
    }
    fn report_fault(&self, message: String) {
        self.game.report_fault(message)
    }
    fn has_compound_turns(&self) -> bool {
        self.game.has_compound_turns()
    }
    fn heuristic_values(&self, s: &G::State, kind: HeuristicKind, out: &mut [f64]) -> bool {
        self.game.heuristic_values(s, kind, out)
    }
}

/// Standard output for command-line programs. When the reader has gone
/// (`toss perft ... | head -1`) a write ends the program quietly with
/// status 0, as the default SIGPIPE action ends a C program: Rust ignores
/// SIGPIPE, so `println!` would panic, and this workspace forbids the
/// unsafe code that would restore the signal. Other write errors are
/// returned.
pub struct PipeStdout;

impl PipeStdout {
    fn check<T>(r: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &r
            && e.kind() == std::io::ErrorKind::BrokenPipe
        {
            std::process::exit(0);
        }
        r
    }
}

impl Write for PipeStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Self::check(std::io::stdout().write(buf))
    }
    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        Self::check(std::io::stdout().write_all(buf))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Self::check(std::io::stdout().flush())
    }
}

/// Words of a move's text: runs of letters, digits, `_` and `'`.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\''))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The cells of a position that moves are typed by: the squares of the
/// board if the structure is one (not a chess clock or a die), else every
/// element.
fn cells_of(st: &toss_core::Structure) -> Vec<toss_core::Elem> {
    match crate::render::board(st) {
        Some(b) => b.cells.values().map(|&(e, _)| e).collect(),
        None => st.elements().collect(),
    }
}

/// The cells (names, among `cells`) whose unary relations `m` changes,
/// found by applying it alone to a copy of `s`: only for a state with one
/// mover, where a move is a joint move. Chance (the next location, drawn
/// values) comes from a fixed seed; it does not change the cells.
fn changed_cells<G: Game>(
    g: &G,
    s: &G::State,
    before: &toss_core::Structure,
    cells: &[toss_core::Elem],
    m: &G::Move,
) -> BTreeSet<String> {
    let mut t = s.clone();
    g.apply(&mut t, std::slice::from_ref(m), &mut rng_from_seed(0));
    let after = g.to_structure(&t);
    cells
        .iter()
        .filter(|&&e| {
            let name = before.element_name(e);
            after.element(name).is_none_or(|a| {
                crate::render::unary_labels(before, e) != crate::render::unary_labels(&after, a)
            })
        })
        .map(|&e| before.element_name(e).to_string())
        .collect()
}

/// Finds the legal move a person meant. Accepted: the move's number in the
/// printed list (from 1), its full text, or cells (element names),
/// optionally with the rule name first (`WhitePawnDouble e2 e4`). Cells
/// select the moves, in this order of preference, whose
/// 1. changed cells are exactly the typed ones: the cells whose contents
///    (unary relations) the move changes, in any order (`e2 e4`, `c3 d4`;
///    en passant `e5 d6 d5`);
/// 2. match is the typed cells: its elements in order (`clock e2 e3 e4`),
///    or its board cells in any order (`e2 e3 e4`);
/// 3. changed cells include the typed ones (castling by the king's cells,
///    `e1 g1`).
///
/// Several moves in the first group that has any is an error listing them
/// with their numbers (a promotion `e7 e8` to four pieces).
pub fn parse_move<G: Game>(
    g: &G,
    s: &G::State,
    player: usize,
    moves: &[G::Move],
    input: &str,
) -> Result<usize, String> {
    let input = input.trim();
    if input.is_empty() {
        return Err("type a move: its number, its text or its cells".into());
    }
    if let Ok(i) = input.parse::<usize>() {
        return if (1..=moves.len()).contains(&i) {
            Ok(i - 1)
        } else {
            Err(format!(
                "there is no move number {i}; the moves are numbered 1 to {}",
                moves.len()
            ))
        };
    }
    let texts: Vec<String> = moves
        .iter()
        .map(|m| g.move_to_string(s, player, m))
        .collect();
    let squash = |t: &str| t.split_whitespace().collect::<String>();
    if let Some(i) = texts.iter().position(|t| squash(t) == squash(input)) {
        return Ok(i);
    }
    let structure = g.to_structure(s);
    let is_element = |w: &str| structure.element(w).is_some();
    let typed = words(input);
    let (rule, typed_cells): (Vec<&str>, Vec<&str>) = typed.iter().partition(|w| !is_element(w));
    let not_legal = || {
        format!("`{input}` is not a legal move: type its number, its text or the cells it changes")
    };
    // At most the rule's name besides cells.
    if rule.len() > 1 {
        return Err(not_legal());
    }
    let typed_set: BTreeSet<String> = typed_cells.iter().map(|c| c.to_string()).collect();
    let cells = cells_of(&structure);
    let cell_names: BTreeSet<&str> = cells.iter().map(|&e| structure.element_name(e)).collect();
    let of_rule = |i: &usize| {
        rule.first()
            .is_none_or(|r| words(&texts[*i]).first() == Some(r))
    };
    // A column of the board typed alone (Connect Four's `d`).
    let board = crate::render::board(&structure);
    let column: Option<i64> = match (typed.as_slice(), &board) {
        ([w], Some(b)) if !is_element(w) => {
            (1..=b.columns).find(|&c| crate::render::column_name(c) == *w)
        }
        _ => None,
    };
    let mut movers = Vec::new();
    g.movers(s, &mut movers);
    let changed: Vec<BTreeSet<String>> =
        if movers == [player] && (!typed_set.is_empty() || column.is_some()) {
            moves
                .iter()
                .map(|m| changed_cells(g, s, &structure, &cells, m))
                .collect()
        } else {
            Vec::new()
        };
    if let (Some(col), Some(b)) = (column, &board) {
        let in_column: BTreeSet<&str> = b
            .cells
            .iter()
            .filter(|((c, _), _)| *c == col)
            .map(|(_, (e, _))| structure.element_name(*e))
            .collect();
        let by_column: Vec<usize> = (0..changed.len())
            .filter(|&i| {
                !changed[i].is_empty() && changed[i].iter().all(|c| in_column.contains(c.as_str()))
            })
            .collect();
        match by_column.as_slice() {
            [i] => return Ok(*i),
            [] => {}
            many => return Err(ambiguous(input, many, &texts)),
        }
    }
    let by_effect: Vec<usize> = (0..changed.len())
        .filter(|i| changed[*i] == typed_set)
        .filter(of_rule)
        .collect();
    let by_match: Vec<usize> = (0..moves.len())
        .filter(|&i| {
            let w = words(&texts[i]);
            let elems: Vec<&str> = w.iter().copied().filter(|w| is_element(w)).collect();
            let on_board: BTreeSet<String> = elems
                .iter()
                .filter(|w| cell_names.contains(*w))
                .map(|w| w.to_string())
                .collect();
            elems == typed_cells || on_board == typed_set
        })
        .filter(of_rule)
        .collect();
    let by_part: Vec<usize> = (0..changed.len())
        .filter(|i| !typed_set.is_empty() && typed_set.is_subset(&changed[*i]))
        .filter(of_rule)
        .collect();
    let candidates = [by_effect, by_match, by_part]
        .into_iter()
        .find(|c| !c.is_empty())
        .unwrap_or_default();
    match candidates.as_slice() {
        [i] => Ok(*i),
        [] => Err(not_legal()),
        many => Err(ambiguous(input, many, &texts)),
    }
}

/// The error for typed text that names several moves, listed with their
/// numbers.
fn ambiguous(input: &str, many: &[usize], texts: &[String]) -> String {
    let mut e = format!("`{input}` could be any of these moves; type its number:");
    for &i in many {
        let _ = write!(e, "\n  {:>3}. {}", i + 1, texts[i]);
    }
    e
}

/// Draws a position for the terminal (see [`crate::render::text`]): a
/// board with a legend, a table of GDL fluents, or the elements with their
/// relations and function values.
pub fn picture<G: Game>(g: &G, s: &G::State) -> String {
    crate::render::text(&g.to_structure(s), g.player_names())
}

/// How a game played to its end or to a ply limit came out.
#[derive(Clone, Debug, PartialEq)]
pub enum Ending {
    /// The play ended after `plies` joint moves, with these payoffs.
    Finished { payoffs: Vec<f64>, plies: usize },
    /// The play was stopped after `plies` joint moves, the limit, before
    /// its end: it has no result (the payoffs of the position reached are
    /// not the game's).
    Cut { plies: usize },
    /// A person typed `quit` after `plies` joint moves.
    Quit { plies: usize },
}

/// A seat in `toss play`: a person typing moves, or a program with its
/// budget per move.
pub enum Seat<G: Game> {
    Human,
    Program(Box<dyn Player<G>>, Budget),
}

/// A joint move played, with what taking it back restores.
pub struct Ply<G: Game> {
    /// The position it was played from.
    pub before: G::State,
    /// The generator before it (chance: the next location, drawn values).
    pub rng: Rng,
    pub joint: Vec<G::Move>,
}

impl<G: Game> Clone for Ply<G> {
    fn clone(&self) -> Self {
        Ply {
            before: self.before.clone(),
            rng: self.rng.clone(),
            joint: self.joint.clone(),
        }
    }
}

/// A play reached by moves from the start: its plies and where they lead.
pub struct Resume<G: Game> {
    pub plies: Vec<Ply<G>>,
    pub state: G::State,
    pub rng: Rng,
}

/// `moves` (joint moves) applied from the start, the generator from `seed`
/// as in [`play`].
pub fn resume_from<G: Game>(g: &G, moves: Vec<Vec<G::Move>>, seed: u64) -> Resume<G> {
    let mut rng = rng_from_seed(seed);
    let mut s = g.initial_state();
    let mut plies = Vec::new();
    for joint in moves {
        let ply = Ply {
            before: s.clone(),
            rng: rng.clone(),
            joint,
        };
        g.apply(&mut s, &ply.joint, &mut rng);
        plies.push(ply);
    }
    Resume {
        plies,
        state: s,
        rng,
    }
}

/// Saving and loading a play from the terminal (`save FILE`, `load FILE`):
/// a game description with its current position and its moves (a Toss
/// file's `MODEL` and `HISTORY`).
pub struct Records<'a, G: Game> {
    /// Writes the play of `plies` reaching the position given.
    #[allow(clippy::type_complexity)]
    pub save: &'a dyn Fn(&[Ply<G>], &G::State, &std::path::Path) -> Result<(), String>,
    /// Reads a saved play of this game.
    #[allow(clippy::type_complexity)]
    pub load: &'a dyn Fn(&std::path::Path) -> Result<Resume<G>, String>,
}

/// What a person may type instead of a move.
pub const HELP: &str = "\
Type a move: its number in the list, its text, the cells it changes (e2 e4),
or a column (d) when a move fills one cell of it. Or:
  help         this text
  undo         take back your last move (and the replies to it)
  save FILE    write the play so far (the game, its position, its moves)
  load FILE    continue a play saved by `save`
  quit         stop here";

/// Plays a game in the terminal: humans type moves on `input`, the board
/// and the moves go to `out`. After `max_plies` joint moves a play that
/// has not ended is cut (it says so); otherwise the payoffs are printed.
pub fn play<G: Game>(
    g: &G,
    seats: &mut [Seat<G>],
    seed: u64,
    max_plies: usize,
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> std::io::Result<Ending> {
    play_session(g, seats, seed, max_plies, input, out, None, None)
}

/// [`play`] with saving and loading (`records`, if the game can be
/// written), and from a saved play (`resume`).
#[allow(clippy::too_many_arguments)]
pub fn play_session<G: Game>(
    g: &G,
    seats: &mut [Seat<G>],
    seed: u64,
    max_plies: usize,
    input: &mut impl BufRead,
    out: &mut impl Write,
    records: Option<&Records<'_, G>>,
    resume: Option<Resume<G>>,
) -> std::io::Result<Ending> {
    let names = g.player_names();
    let Resume {
        mut plies,
        state: mut s,
        mut rng,
    } = resume.unwrap_or_else(|| resume_from(g, Vec::new(), seed));
    let mut movers = Vec::new();
    let mut moves = Vec::new();
    let is_human = |seats: &[Seat<G>], p: usize| matches!(seats.get(p), Some(Seat::Human) | None);
    let forget = |seats: &mut [Seat<G>]| {
        for seat in seats.iter_mut() {
            if let Seat::Program(player, _) = seat {
                player.forget();
            }
        }
    };
    // The commands are named once, at a person's first move.
    let mut hinted = false;
    'position: loop {
        writeln!(out, "{}", picture(g, &s))?;
        if plies.len() >= max_plies && !play_over(g, &s) {
            writeln!(
                out,
                "The play was cut at the limit of {max_plies} plies (--max-plies); it has no result."
            )?;
            return Ok(Ending::Cut { plies: plies.len() });
        }
        g.movers(&s, &mut movers);
        let mut joint = Vec::new();
        for &p in &movers {
            g.legal_moves(&s, p, &mut moves);
            if moves.is_empty() {
                break;
            }
            let choice = match seats.get_mut(p) {
                Some(Seat::Program(player, budget)) => {
                    let answer = player.choose(g, &s, *budget);
                    let k = movers.iter().position(|&q| q == p).unwrap_or(0);
                    match answer
                        .get(k)
                        .and_then(|m| moves.iter().position(|x| x == m))
                    {
                        Some(i) => i,
                        None => break,
                    }
                }
                // A forced move (GDL's noop for the idle role) needs no typing.
                Some(Seat::Human) | None if moves.len() == 1 => 0,
                Some(Seat::Human) | None => {
                    // The list once per move; after a mistake only the reason.
                    writeln!(out, "{} to move. Legal moves:", names[p])?;
                    for (i, m) in moves.iter().enumerate() {
                        writeln!(out, "  {:>3}. {}", i + 1, g.move_to_string(&s, p, m))?;
                    }
                    if !hinted {
                        writeln!(out, "(help: what to type; undo, save, load, quit)")?;
                        hinted = true;
                    }
                    loop {
                        match ask(g, &s, p, &moves, input, out)? {
                            Typed::Move(i) => break i,
                            Typed::Quit => {
                                writeln!(out, "Stopped after {} plies.", plies.len())?;
                                return Ok(Ending::Quit { plies: plies.len() });
                            }
                            Typed::Undo => {
                                // Back to the last position a person moved in.
                                let (mut taken, mut back) = (0, Vec::new());
                                while let Some(ply) = plies.pop() {
                                    s = ply.before;
                                    rng = ply.rng;
                                    taken += 1;
                                    g.movers(&s, &mut back);
                                    if back.iter().any(|&q| is_human(seats, q)) {
                                        break;
                                    }
                                }
                                if taken == 0 {
                                    writeln!(out, "Nothing to take back.")?;
                                    continue;
                                }
                                forget(seats);
                                let what = if taken == 1 { "ply" } else { "plies" };
                                writeln!(out, "Took back {taken} {what}.")?;
                                continue 'position;
                            }
                            Typed::Save(path) => match records {
                                Some(r) => match (r.save)(&plies, &s, &path) {
                                    Ok(()) => writeln!(
                                        out,
                                        "Saved the play ({} plies) to {}.",
                                        plies.len(),
                                        path.display()
                                    )?,
                                    Err(e) => writeln!(out, "Not saved: {e}")?,
                                },
                                None => writeln!(out, "{NO_RECORDS}")?,
                            },
                            Typed::Load(path) => match records {
                                Some(r) => match (r.load)(&path) {
                                    Ok(loaded) => {
                                        plies = loaded.plies;
                                        s = loaded.state;
                                        rng = loaded.rng;
                                        forget(seats);
                                        writeln!(
                                            out,
                                            "Loaded {} ({} plies).",
                                            path.display(),
                                            plies.len()
                                        )?;
                                        continue 'position;
                                    }
                                    Err(e) => writeln!(out, "Not loaded: {e}")?,
                                },
                                None => writeln!(out, "{NO_RECORDS}")?,
                            },
                        }
                    }
                }
            };
            writeln!(
                out,
                "{} plays {}",
                names[p],
                g.move_to_string(&s, p, &moves[choice])
            )?;
            joint.push(moves.swap_remove(choice));
        }
        if movers.is_empty() || joint.len() < movers.len() {
            break;
        }
        for seat in seats.iter_mut() {
            if let Seat::Program(player, _) = seat {
                player.observe(g, &s, &joint);
            }
        }
        let ply = Ply {
            before: s.clone(),
            rng: rng.clone(),
            joint,
        };
        g.apply(&mut s, &ply.joint, &mut rng);
        plies.push(ply);
    }
    let mut pay = vec![0.0; g.num_players()];
    g.payoffs(&s, &mut pay);
    writeln!(out, "The play has ended.")?;
    for (n, p) in names.iter().zip(&pay) {
        writeln!(out, "  {n}: {p}")?;
    }
    Ok(Ending::Finished {
        payoffs: pay,
        plies: plies.len(),
    })
}

const NO_RECORDS: &str = "Saving and loading are for games described in Toss (a `.toss` file: \
                          the play is written as its MODEL and HISTORY).";

/// What a person typed at a move: a legal move's index or a command.
enum Typed {
    Move(usize),
    Undo,
    Save(std::path::PathBuf),
    Load(std::path::PathBuf),
    Quit,
}

/// Reads lines from `input` until one names a legal move of `player` (see
/// [`parse_move`]) or a command, saying on `out` what is wrong with each
/// other line (and showing the help when asked).
fn ask<G: Game>(
    g: &G,
    s: &G::State,
    player: usize,
    moves: &[G::Move],
    input: &mut impl BufRead,
    out: &mut impl Write,
) -> std::io::Result<Typed> {
    let mut line = String::new();
    loop {
        write!(out, "{}> ", g.player_names()[player])?;
        out.flush()?;
        line.clear();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "input ended before the game did",
            ));
        }
        let text = line.trim();
        let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let rest = rest.trim();
        let file = |rest: &str| (!rest.is_empty()).then(|| std::path::PathBuf::from(rest));
        match (word, rest) {
            ("help" | "?", "") => writeln!(out, "{HELP}")?,
            ("undo", "") => return Ok(Typed::Undo),
            ("quit" | "exit", "") => return Ok(Typed::Quit),
            ("save", _) => match file(rest) {
                Some(f) => return Ok(Typed::Save(f)),
                None => writeln!(out, "save needs a file: save FILE")?,
            },
            ("load", _) => match file(rest) {
                Some(f) => return Ok(Typed::Load(f)),
                None => writeln!(out, "load needs a file: load FILE")?,
            },
            _ => match parse_move(g, s, player, moves, &line) {
                Ok(i) => return Ok(Typed::Move(i)),
                Err(e) => writeln!(out, "{e}")?,
            },
        }
    }
}

/// Applies moves written as in `toss play` (a joint move's parts joined by
/// `&`), from the initial state.
pub fn replay<G: Game>(g: &G, moves: &[&str], seed: u64) -> Result<G::State, String> {
    let mut rng = rng_from_seed(seed);
    let mut s = g.initial_state();
    let mut movers = Vec::new();
    let mut legal = Vec::new();
    for (ply, text) in moves.iter().enumerate() {
        g.movers(&s, &mut movers);
        if movers.is_empty() {
            return Err(format!(
                "move {} (`{text}`): the play has already ended",
                ply + 1
            ));
        }
        let parts: Vec<&str> = text.split('&').collect();
        if parts.len() != movers.len() {
            return Err(format!(
                "move {} (`{text}`): {} player(s) move here, give one move each joined by &",
                ply + 1,
                movers.len()
            ));
        }
        let mut joint = Vec::new();
        for (&p, part) in movers.iter().zip(&parts) {
            g.legal_moves(&s, p, &mut legal);
            let i =
                parse_move(g, &s, p, &legal, part).map_err(|e| format!("move {}: {e}", ply + 1))?;
            joint.push(legal.swap_remove(i));
        }
        g.apply(&mut s, &joint, &mut rng);
    }
    Ok(s)
}

/// A rate with three significant digits below 100 (a slow game's 0.42/s
/// is not `0`), whole above.
pub fn rate(x: f64) -> String {
    match x {
        x if x >= 100.0 => format!("{x:.0}"),
        x if x >= 10.0 => format!("{x:.1}"),
        x if x >= 1.0 => format!("{x:.2}"),
        x => format!("{x:.3}"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rates_keep_three_significant_digits_below_a_hundred() {
        assert_eq!(super::rate(1565.9664), "1566");
        assert_eq!(super::rate(42.16), "42.2");
        assert_eq!(super::rate(5.25), "5.25");
        assert_eq!(super::rate(0.4213), "0.421");
    }

    use super::*;

    fn game(file: &str) -> toss_runtime::Interpreter {
        let path = format!("{}/games/{file}", env!("CARGO_MANIFEST_DIR"));
        let source = std::fs::read_to_string(&path).unwrap_or_default();
        toss::interpret(&source, file).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Counting plies runs the same playouts as the game's own
    /// `random_playout`: the same turns and payoffs for a seed.
    #[test]
    fn counted_playouts_are_the_games_own() {
        for file in ["dice.toss", "reversi.toss", "tic-tac-toe.toss"] {
            let g = game(file);
            let n = 20;
            let stats = playouts(&g, n, 11, 100_000, || {});
            let mut rng = rng_from_seed(11);
            let (mut turns, mut first) = (0, 0.0);
            for _ in 0..n {
                let (len, pay) = g.random_playout(&mut rng, 100_000);
                turns += len;
                first += pay[0];
            }
            assert_eq!(stats.mean_turns, turns as f64 / n as f64, "{file}");
            assert_eq!(stats.mean_payoffs[0], first / n as f64, "{file}");
            assert!(stats.mean_plies >= stats.mean_turns, "{file}");
            if !g.has_compound_turns() {
                assert_eq!(stats.mean_plies, stats.mean_turns, "{file}");
            }
        }
    }

    /// A dice turn is a roll and a move, and the game ends after a move.
    #[test]
    fn dice_playouts_have_two_plies_per_turn() {
        let stats = playouts(&game("dice.toss"), 50, 3, 100_000, || {});
        assert_eq!(stats.mean_plies, 2.0 * stats.mean_turns);
    }
}
