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

/// Writes the plays `req` asks for; `seats(seed)` makes the players of one
/// game.
pub fn make_plays<G: Game>(
    g: &G,
    seats: &mut dyn FnMut(u64) -> Result<Vec<Seat<G>>, String>,
    req: &Request,
    progress: &mut dyn FnMut(),
) -> Result<Plays, String> {
    let mut out = Plays {
        players: g.player_names().to_vec(),
        plays: Vec::new(),
    };
    let mut rng = rng_from_seed(req.seed);
    let mut game = |rng: &mut Rng| -> Result<Recorded<G>, String> {
        let seed = rng.next_u64();
        let mut s = seats(seed)?;
        record(g, &mut s, seed, req.max_plies)
    };
    let mut push = |label: PlayLabel, positions: Vec<Structure>, out: &mut Plays| {
        out.plays.push(Play {
            label,
            positions,
            line: 0,
            position_lines: Vec::new(),
        });
        progress();
    };
    for _ in 0..req.games {
        let r = game(&mut rng)?;
        push(r.label, r.positions, &mut out);
    }
    for (label, count) in [
        (PlayLabel::FirstWins, req.first_wins),
        (PlayLabel::SecondWins, req.second_wins),
    ] {
        for _ in 0..count {
            let mut found = None;
            for _ in 0..TRIES {
                let r = game(&mut rng)?;
                if r.label == label {
                    found = Some(r);
                    break;
                }
            }
            let r = found.ok_or_else(|| {
                format!(
                    "no play labelled `{}` in {TRIES} games with these players",
                    label.as_str()
                )
            })?;
            push(label, r.positions, &mut out);
        }
    }
    for _ in 0..req.not_won {
        let mut r = game(&mut rng)?;
        if r.label != PlayLabel::NotWon {
            // The positions before the winning move are not won.
            let keep = 1 + index_below(&mut rng, r.positions.len() - 1);
            r.positions.truncate(keep);
        }
        push(PlayLabel::NotWon, r.positions, &mut out);
    }
    for _ in 0..req.illegal {
        let mut found = None;
        for _ in 0..TRIES {
            let r = game(&mut rng)?;
            let last = r.positions.len() - 1;
            if last == 0 {
                continue;
            }
            // A position before the end, where the mover has moves.
            let t = index_below(&mut rng, last);
            if let Some(bad) = illegal_successor(g, &r.states[t], t % 2, &mut rng) {
                let mut positions = r.positions[..=t].to_vec();
                positions.push(bad);
                found = Some(positions);
                break;
            }
        }
        let positions = found.ok_or_else(|| format!("no illegal move found in {TRIES} games"))?;
        push(PlayLabel::Illegal, positions, &mut out);
    }
    Ok(out)
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
