//! Example plays of an existing game, for learning games (`toss plays`):
//! plays labelled by how they ended, unfinished plays, and plays whose last
//! move is illegal.
//!
//! An illegal move is made from a legal one: the same change (the same
//! elements losing and gaining the same unary relations, related to each
//! other by the board as they were) applied elsewhere, where it gives a
//! position no legal move gives. Those are the examples that teach a
//! move's precondition (spec 4.5).

use std::collections::{BTreeMap, BTreeSet};

use rand_core::Rng as _;

use toss_core::game::{Game, Rng, index_below, rng_from_seed};
use toss_core::plays::{Play, PlayLabel, Plays};
use toss_core::structure::Structure;

use crate::matches::{Seat, choose_joint};

/// How many plays of each kind to write.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Plays labelled by how they end.
    pub games: u64,
    pub first_wins: u64,
    pub second_wins: u64,
    /// Unfinished plays (a prefix of a won play) or drawn ones.
    pub not_won: u64,
    pub illegal: u64,
    pub seed: u64,
    pub max_plies: usize,
}

/// Games tried per play of a kind before giving up.
const TRIES: u64 = 2000;

/// One play from the start: its states, structures and label.
struct Recorded<G: Game> {
    states: Vec<G::State>,
    positions: Vec<Structure>,
    label: PlayLabel,
}

/// Plays one game with `seats`, recording every position.
fn record<G: Game>(
    g: &G,
    seats: &mut [Seat<G>],
    seed: u64,
    max_plies: usize,
) -> Result<Recorded<G>, String> {
    if g.num_players() != 2 {
        return Err(format!(
            "plays for learning are of two-player games; this one has {} players",
            g.num_players()
        ));
    }
    let mut rng = rng_from_seed(seed);
    let mut s = g.initial_state();
    let mut states = vec![s.clone()];
    let mut positions = vec![g.to_structure(&s)];
    let mut movers = Vec::new();
    let mut finished = false;
    while states.len() <= max_plies {
        g.movers(&s, &mut movers);
        if movers.is_empty() {
            finished = true;
            break;
        }
        let ply = states.len() - 1;
        if movers != [ply % 2] {
            return Err(format!(
                "plays for learning are of games where the two players move in turn, the \
                 first one first; at ply {} the movers are {:?}",
                ply + 1,
                movers
                    .iter()
                    .map(|&p| &g.player_names()[p])
                    .collect::<Vec<_>>()
            ));
        }
        let joint = choose_joint(g, &s, seats, &movers)
            .ok_or("a player gave no move (plays are made by programs, not people)")?;
        g.apply(&mut s, &joint, &mut rng);
        states.push(s.clone());
        positions.push(g.to_structure(&s));
    }
    let label = if finished {
        let mut p = vec![0.0; 2];
        g.payoffs(&s, &mut p);
        if p[0] > p[1] {
            PlayLabel::FirstWins
        } else if p[1] > p[0] {
            PlayLabel::SecondWins
        } else {
            PlayLabel::NotWon
        }
    } else {
        PlayLabel::NotWon
    };
    Ok(Recorded {
        states,
        positions,
        label,
    })
}

/// Makes plays of one kind at a time from random games of `g`.
struct Maker<'a, G: Game> {
    g: &'a G,
    seats: &'a mut dyn FnMut(u64) -> Result<Vec<Seat<G>>, String>,
    rng: Rng,
    max_plies: usize,
}

impl<'a, G: Game> Maker<'a, G> {
    fn new(
        g: &'a G,
        seats: &'a mut dyn FnMut(u64) -> Result<Vec<Seat<G>>, String>,
        req: &Request,
    ) -> Self {
        Maker {
            g,
            seats,
            rng: rng_from_seed(req.seed),
            max_plies: req.max_plies,
        }
    }

    fn game(&mut self) -> Result<Recorded<G>, String> {
        let seed = self.rng.next_u64();
        let mut s = (self.seats)(seed)?;
        record(self.g, &mut s, seed, self.max_plies)
    }

    /// A play as it comes.
    fn any(&mut self) -> Result<Play, String> {
        let r = self.game()?;
        Ok(play(r.label, r.positions))
    }

    /// A play of `label`.
    fn of(&mut self, label: PlayLabel) -> Result<Play, String> {
        match label {
            PlayLabel::FirstWins | PlayLabel::SecondWins => {
                for _ in 0..TRIES {
                    let r = self.game()?;
                    if r.label == label {
                        return Ok(play(label, r.positions));
                    }
                }
                Err(format!(
                    "no play labelled `{}` in {TRIES} games with these players",
                    label.as_str()
                ))
            }
            PlayLabel::NotWon => {
                let mut r = self.game()?;
                if r.label != PlayLabel::NotWon {
                    // The positions before the winning move are not won.
                    let keep = 1 + index_below(&mut self.rng, r.positions.len() - 1);
                    r.positions.truncate(keep);
                }
                Ok(play(PlayLabel::NotWon, r.positions))
            }
            PlayLabel::Illegal => {
                for _ in 0..TRIES {
                    let r = self.game()?;
                    let last = r.positions.len() - 1;
                    if last == 0 {
                        continue;
                    }
                    // A position before the end, where the mover has moves.
                    let t = index_below(&mut self.rng, last);
                    if let Some(bad) = illegal_successor(self.g, &r.states[t], t % 2, &mut self.rng)
                    {
                        let mut positions = r.positions[..=t].to_vec();
                        positions.push(bad);
                        return Ok(play(PlayLabel::Illegal, positions));
                    }
                }
                Err(format!(
                    "no illegal move found in {TRIES} games: wherever a legal move's change \
                     can be made, it seems to be legal in this game"
                ))
            }
        }
    }
}

fn play(label: PlayLabel, positions: Vec<Structure>) -> Play {
    Play {
        label,
        positions,
        line: 0,
        position_lines: Vec::new(),
    }
}

/// The kinds and counts a request asks for, besides `games`.
fn kinds(req: &Request) -> [(PlayLabel, u64); 4] {
    [
        (PlayLabel::FirstWins, req.first_wins),
        (PlayLabel::SecondWins, req.second_wins),
        (PlayLabel::NotWon, req.not_won),
        (PlayLabel::Illegal, req.illegal),
    ]
}

/// Writes the plays `req` asks for; `seats(seed)` makes the players of one
/// game.
pub fn make_plays<G: Game>(
    g: &G,
    seats: &mut dyn FnMut(u64) -> Result<Vec<Seat<G>>, String>,
    req: &Request,
    progress: &mut dyn FnMut(),
) -> Result<Plays, String> {
    let mut maker = Maker::new(g, seats, req);
    let mut out = Plays {
        players: g.player_names().to_vec(),
        plays: Vec::new(),
    };
    for _ in 0..req.games {
        out.plays.push(maker.any()?);
        progress();
    }
    for (label, count) in kinds(req) {
        for _ in 0..count {
            out.plays.push(maker.of(label)?);
            progress();
        }
    }
    Ok(out)
}

/// Random plays a teacher looks through for one that the game learnt so
/// far gets wrong, before it stops adding plays.
pub const TEACHER_CANDIDATES: usize = 300;

/// Plays the teacher keeps to check a smaller set of examples against.
const TEACHER_CHECKS: usize = 60;

/// The most plays a teacher gathers before it drops the ones not needed.
const TEACHER_GATHERS: usize = 80;

/// Plays chosen by a teacher that knows the game, as the people who chose
/// spec 4.6's videos knew theirs. It gathers examples: one play of each
/// kind asked for, then, as long as one of [`TEACHER_CANDIDATES`] random
/// plays of those kinds is a counterexample (and at most twice the count
/// asked for and one more of each kind), that play: one on which the
/// game learnt from the plays so far is wrong (a won position it does not
/// take for the winner's, a position not won it takes for won, a legal
/// move it does not allow, an illegal one it allows). Then it drops every
/// play without which the game learnt is still right on the examples and
/// on [`TEACHER_CHECKS`] other random plays. The counts of the request
/// bound the result: when more plays of a kind are needed, the error says
/// how many.
pub fn teach<G: Game>(
    g: &G,
    seats: &mut dyn FnMut(u64) -> Result<Vec<Seat<G>>, String>,
    req: &Request,
    limits: &toss_heuristics::learn::Limits,
    progress: &mut dyn FnMut(),
) -> Result<Plays, String> {
    let mut maker = Maker::new(g, seats, req);
    let with = |plays: Vec<Play>| Plays {
        players: g.player_names().to_vec(),
        plays,
    };
    let asked: Vec<PlayLabel> = kinds(req).iter().filter(|k| k.1 > 0).map(|k| k.0).collect();
    let mut chosen = Vec::new();
    for &label in &asked {
        chosen.push(maker.of(label)?);
        progress();
    }
    let student = |plays: &[Play]| -> Option<toss_runtime::Interpreter> {
        let learnt = toss_heuristics::learn::learn_game(&with(plays.to_vec()), limits).ok()?;
        toss_runtime::Interpreter::new(&learnt.game).ok()
    };
    // Gather counterexamples, at most twice as many of a kind as asked
    // for and one more (beyond that, dropping cannot come back under).
    let cap =
        |label: PlayLabel| 2 * kinds(req).iter().find(|k| k.0 == label).map_or(0, |k| k.1) + 1;
    'gathering: while chosen.len() < TEACHER_GATHERS {
        let open: Vec<PlayLabel> = asked
            .iter()
            .copied()
            .filter(|&l| (chosen.iter().filter(|p| p.label == l).count() as u64) < cap(l))
            .collect();
        if open.is_empty() {
            break;
        }
        let Some(st) = student(&chosen) else { break };
        let mut second_best = None;
        for i in 0..TEACHER_CANDIDATES {
            let candidate = maker.of(open[i % open.len()])?;
            match teaches(&st, &candidate) {
                Lesson::Plain => {
                    chosen.push(candidate);
                    progress();
                    continue 'gathering;
                }
                Lesson::Some if second_best.is_none() => second_best = Some(candidate),
                _ => {}
            }
        }
        match second_best {
            Some(candidate) => {
                chosen.push(candidate);
                progress();
            }
            None => break,
        }
    }
    // Drop what is not needed, the latest plays first (the earliest are
    // the ones most often overtaken).
    let checks: Vec<Play> = (0..TEACHER_CHECKS)
        .map(|i| maker.of(asked[i % asked.len()]))
        .collect::<Result<_, _>>()?;
    let gathered = chosen.clone();
    let right = |plays: &[Play]| {
        student(plays).is_some_and(|st| {
            gathered
                .iter()
                .chain(&checks)
                .all(|p| matches!(teaches(&st, p), Lesson::None))
        })
    };
    if right(&chosen) {
        let mut i = 0;
        while i < chosen.len() {
            let label = chosen[i].label;
            // Keep one play of each kind asked for.
            if chosen.iter().filter(|p| p.label == label).count() > 1 {
                let mut fewer = chosen.clone();
                fewer.remove(i);
                if right(&fewer) {
                    chosen = fewer;
                    continue;
                }
            }
            i += 1;
        }
    }
    for (label, count) in kinds(req) {
        let have = chosen.iter().filter(|p| p.label == label).count() as u64;
        if have > count {
            return Err(format!(
                "the teacher needed {have} plays labelled `{}`, more than the {count} asked for",
                label.as_str()
            ));
        }
    }
    Ok(with(chosen))
}

/// Whether the learnt game `student` gets wrong what `play` is shown for:
/// a won play, the last (won) position; a play not won, a position it
/// takes for won or a move it does not allow; an illegal play, its last
/// move, or another one it does not allow.
fn teaches(student: &toss_runtime::Interpreter, play: &Play) -> Lesson {
    use toss_core::game::Game as _;
    let template = student.initial_state().structure;
    let state = |s: &Structure, location: usize| toss_runtime::interpreter::State {
        structure: restate(&template, s),
        location,
        time: 0.0,
        history: Default::default(),
    };
    let n = play.positions.len();
    let says = |i: usize| {
        let s = state(&play.positions[i], i % 2);
        [
            student.payoff_value(i % 2, 0, &s.structure) > 0.0,
            student.payoff_value(i % 2, 1, &s.structure) > 0.0,
        ]
    };
    let allows = |i: usize| {
        let s = state(&play.positions[i], i % 2);
        let want = labels(&play.positions[i + 1]);
        let mut moves = Vec::new();
        student.legal_moves(&s, i % 2, &mut moves);
        moves.iter().any(|m| {
            let mut t = s.clone();
            student.apply(&mut t, std::slice::from_ref(m), &mut rng_from_seed(0));
            labels(&t.structure) == want
        })
    };
    let lesson = |plain: bool, some: bool| {
        if plain {
            Lesson::Plain
        } else if some {
            Lesson::Some
        } else {
            Lesson::None
        }
    };
    match play.label {
        PlayLabel::FirstWins | PlayLabel::SecondWins => {
            let winner = (play.label == PlayLabel::SecondWins) as usize;
            let said = says(n - 1);
            lesson(!said[winner], said[1 - winner])
        }
        PlayLabel::NotWon => lesson(
            (0..n).any(|i| says(i) != [false, false]) || (0..n - 1).any(|i| !allows(i)),
            false,
        ),
        PlayLabel::Illegal => lesson(allows(n - 2) || (0..n - 2).any(|i| !allows(i)), false),
    }
}

/// What a play would teach the student.
enum Lesson {
    /// It is wrong about what the play is shown for: the winner's win, a
    /// position not won, a move's legality.
    Plain,
    /// It is wrong only in taking the loser for a winner too.
    Some,
    None,
}

/// `template` with the unary relations of `s` (by name; same elements).
fn restate(template: &Structure, s: &Structure) -> Structure {
    let mut out = template.clone();
    for r in 0..out.num_relations() {
        if out.arity(r) != 1 {
            continue;
        }
        for t in out.tuples(r) {
            out.remove_tuple(r, &t);
        }
        if let Some(from) = s.relation(out.relation_name(r).to_string().as_str()) {
            for t in s.tuples(from) {
                if let Some(e) = out.element(s.element_name(t[0])) {
                    out.add_tuple(r, &[e]);
                }
            }
        }
    }
    out
}

/// The unary relations of each element, by name.
type Labels = BTreeMap<String, BTreeSet<String>>;

fn labels(s: &Structure) -> Labels {
    let mut out: Labels = s
        .elements()
        .map(|e| (s.element_name(e).to_string(), BTreeSet::new()))
        .collect();
    for r in 0..s.num_relations() {
        if s.arity(r) == 1 {
            for t in s.tuples(r) {
                out.entry(s.element_name(t[0]).to_string())
                    .or_default()
                    .insert(s.relation_name(r).to_string());
            }
        }
    }
    out
}

/// The tuples of relations of arity 2 or more among `elems`, by position.
fn among(s: &Structure, elems: &[String]) -> Vec<(String, Vec<usize>)> {
    let mut out = Vec::new();
    for r in 0..s.num_relations() {
        if s.arity(r) < 2 {
            continue;
        }
        for t in s.tuples(r) {
            let pos: Option<Vec<usize>> = t
                .iter()
                .map(|&e| elems.iter().position(|x| x == s.element_name(e)))
                .collect();
            if let Some(pos) = pos {
                out.push((s.relation_name(r).to_string(), pos));
            }
        }
    }
    out.sort();
    out
}

/// A position reached from `state` by an illegal move of `player`: the
/// change of a random legal move applied to other elements.
fn illegal_successor<G: Game>(
    g: &G,
    state: &G::State,
    player: usize,
    rng: &mut Rng,
) -> Option<Structure> {
    let mut moves = Vec::new();
    g.legal_moves(state, player, &mut moves);
    if moves.is_empty() {
        return None;
    }
    let here = g.to_structure(state);
    let before = labels(&here);
    let mut legal: Vec<Labels> = Vec::new();
    for m in &moves {
        let mut next = state.clone();
        g.apply(&mut next, std::slice::from_ref(m), &mut rng_from_seed(0));
        legal.push(labels(&g.to_structure(&next)));
    }
    let template = &legal[index_below(rng, legal.len())];
    let changed: Vec<String> = before
        .keys()
        .filter(|e| before.get(*e) != template.get(*e))
        .cloned()
        .collect();
    if changed.is_empty() || template.len() != before.len() {
        return None;
    }
    let board = among(&here, &changed);
    let names: Vec<&String> = before.keys().collect();
    for _ in 0..5000 {
        let mut pick: Vec<String> = Vec::new();
        for c in &changed {
            let candidates: Vec<&&String> = names
                .iter()
                .filter(|n| before[**n] == before[c] && !pick.contains(n))
                .collect();
            if candidates.is_empty() {
                return None;
            }
            pick.push((*candidates[index_below(rng, candidates.len())]).clone());
        }
        if among(&here, &pick) != board {
            continue;
        }
        let mut after = before.clone();
        for (c, p) in changed.iter().zip(&pick) {
            after.insert(p.clone(), template[c].clone());
        }
        if legal.contains(&after) {
            continue;
        }
        let mut s = here.clone();
        for (c, p) in changed.iter().zip(&pick) {
            let e = s.element(p)?;
            for r in &before[c] {
                let rel = s.relation(r)?;
                s.remove_tuple(rel, &[e]);
            }
            for r in &template[c] {
                let rel = s.declare_relation(r, 1)?;
                s.add_tuple(rel, &[e]);
            }
        }
        return Some(s);
    }
    None
}
