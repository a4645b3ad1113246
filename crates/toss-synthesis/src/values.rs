//! Values up to a bound: the answer of each subtraction-game position
//! (the smallest winning move, or lost, or already won), Grundy values of
//! octal-game heaps by mex, and, to compare the derived programs with,
//! the original `win/2` relation evaluated by its clauses.

use crate::family::{Octal, Play, Subtraction};

/// What a player to move with `n` tokens has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Answer {
    /// The game is already won: no move to make (`det_win(0,M)` holds
    /// for every `M`).
    Won,
    /// The smallest move that leaves the opponent a lost position.
    Move(u32),
    /// Every move leaves the opponent a won position (or there is none).
    Lost,
}

impl Answer {
    pub fn is_win(self) -> bool {
        self != Answer::Lost
    }
}

/// The answer of a position without a move under each convention.
fn stuck(play: Play, n: usize) -> Answer {
    match play {
        Play::Normal => Answer::Lost,
        Play::Misere => Answer::Won,
        Play::EmptyTableWins if n == 0 => Answer::Won,
        Play::EmptyTableWins => Answer::Lost,
    }
}

/// The answers of a subtraction game for `n = 0..len`, extended on
/// demand (the synthesis doubles the bound until it has a proof).
#[derive(Clone, Debug)]
pub struct SubtractionValues {
    game: Subtraction,
    answers: Vec<Answer>,
}

impl SubtractionValues {
    pub fn new(game: &Subtraction) -> Self {
        SubtractionValues {
            game: game.clone(),
            answers: Vec::new(),
        }
    }

    /// Computes the answers up to `n = len - 1`.
    pub fn extend_to(&mut self, len: usize) {
        self.answers.reserve(len.saturating_sub(self.answers.len()));
        for n in self.answers.len()..len {
            let moves = self.game.moves();
            let answer = if n < moves[0] as usize {
                stuck(self.game.play(), n)
            } else {
                // Moves ascend, so the first winning one is the smallest.
                moves
                    .iter()
                    .take_while(|&&m| m as usize <= n)
                    .find(|&&m| !self.answers[n - m as usize].is_win())
                    .map_or(Answer::Lost, |&m| Answer::Move(m))
            };
            self.answers.push(answer);
        }
    }

    pub fn answers(&self) -> &[Answer] {
        &self.answers
    }
}

/// Grundy values of single heaps of an octal game for `n = 0..len`.
#[derive(Clone, Debug)]
pub struct OctalValues {
    game: Octal,
    values: Vec<u32>,
    /// `seen[g] == stamp` marks `g` as the value of an option of the heap
    /// being computed; a fresh stamp per heap avoids clearing.
    seen: Vec<usize>,
}

impl OctalValues {
    pub fn new(game: &Octal) -> Self {
        OctalValues {
            game: game.clone(),
            values: Vec::new(),
            seen: Vec::new(),
        }
    }

    /// Computes the Grundy values up to `n = len - 1` (time quadratic in
    /// `len` when a digit allows splitting a heap in two).
    pub fn extend_to(&mut self, len: usize) {
        self.values.reserve(len.saturating_sub(self.values.len()));
        for n in self.values.len()..len {
            let stamp = n + 1;
            for (i, &d) in self.game.digits().iter().enumerate() {
                let k = i + 1;
                if n < k {
                    break;
                }
                let rest = n - k;
                if d & 1 != 0 && rest == 0 {
                    mark(&mut self.seen, 0, stamp);
                }
                if d & 2 != 0 && rest > 0 {
                    mark(&mut self.seen, self.values[rest], stamp);
                }
                if d & 4 != 0 && rest >= 2 {
                    for a in 1..=rest / 2 {
                        mark(
                            &mut self.seen,
                            self.values[a] ^ self.values[rest - a],
                            stamp,
                        );
                    }
                }
            }
            let mut g = 0;
            while self.seen.get(g).is_some_and(|&s| s == stamp) {
                g += 1;
            }
            // A value is at most the number of options, far below u32::MAX.
            self.values.push(u32::try_from(g).unwrap_or(u32::MAX));
        }
    }

    pub fn values(&self) -> &[u32] {
        &self.values
    }
}

fn mark(seen: &mut Vec<usize>, g: u32, stamp: usize) {
    let g = g as usize;
    if seen.len() <= g {
        seen.resize(g + 1, 0);
    }
    seen[g] = stamp;
}

/// The moves `M` for which the original `win(N,M)` holds at one `N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinRow {
    /// `win(N,M)` for every `M`: a fact `win(0,M).` (or, under misère
    /// play, the same fact at every position without a move).
    Every,
    /// Bit `i` set: `win(N, moves[i])` holds; zero: `N` is lost.
    Moves(u64),
}

/// The seed's `win/2` evaluated by its clauses, generalised from {1, 2}
/// to a subtraction set `S`:
///
/// ```text
/// win(0,M).                                   % the convention's facts
/// win(N,m) :- N >= m, not win(N-m,m1), ..., not win(N-m,mk).   % m in S
/// ```
///
/// Under the seed's convention the facts are `win(0,M)`, under misère
/// play `win(n,M)` for every `n` below the smallest move, under normal
/// play there are none. Rows are computed bottom-up, keeping only the
/// last `max move` of them, so checking up to 10^6 needs no table: this
/// is the reference the derived programs are compared with, written
/// apart from [`SubtractionValues`].
#[derive(Clone, Debug)]
pub struct WinRelation {
    moves: Vec<u32>,
    play: Play,
    /// Rows `n - ring.len() + 1 ..= n` by `n % ring.len()`.
    ring: Vec<WinRow>,
    next: usize,
}

impl WinRelation {
    pub fn new(game: &Subtraction) -> Self {
        WinRelation {
            moves: game.moves().to_vec(),
            play: game.play(),
            ring: vec![WinRow::Moves(0); game.max_move() + 1],
            next: 0,
        }
    }

    /// The row of the next `N` (0, 1, 2, ... on successive calls).
    pub fn next_row(&mut self) -> WinRow {
        let n = self.next;
        let len = self.ring.len();
        let fact = match self.play {
            Play::EmptyTableWins => n == 0,
            Play::Misere => n < self.moves[0] as usize,
            Play::Normal => false,
        };
        let row = if fact {
            WinRow::Every
        } else {
            let mut bits = 0u64;
            for (i, &m) in self.moves.iter().enumerate() {
                let m = m as usize;
                // `not win(N-m, m')` for every m' of the set: a row
                // `Every` has them all.
                if n >= m && self.ring[(n - m) % len] == WinRow::Moves(0) {
                    bits |= 1 << i;
                }
            }
            WinRow::Moves(bits)
        };
        self.ring[n % len] = row;
        self.next += 1;
        row
    }

    /// Whether `win(N, m)` holds in `row`.
    pub fn holds(&self, row: WinRow, m: u32) -> bool {
        match row {
            WinRow::Every => true,
            WinRow::Moves(bits) => self
                .moves
                .iter()
                .position(|&x| x == m)
                .is_some_and(|i| bits & (1 << i) != 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_answers_start_as_the_seed_says() {
        let g = Subtraction::new(&[1, 2], Play::EmptyTableWins).unwrap();
        let mut v = SubtractionValues::new(&g);
        v.extend_to(6);
        use Answer::*;
        assert_eq!(v.answers(), &[Won, Lost, Move(1), Move(2), Lost, Move(1)]);
        let mut w = WinRelation::new(&g);
        assert_eq!(w.next_row(), WinRow::Every);
        assert_eq!(w.next_row(), WinRow::Moves(0));
        assert_eq!(w.next_row(), WinRow::Moves(0b01));
        assert_eq!(w.next_row(), WinRow::Moves(0b10));
        assert_eq!(w.next_row(), WinRow::Moves(0));
    }

    #[test]
    fn kayles_starts_with_its_known_values() {
        let mut v = OctalValues::new(&Octal::parse("0.77").unwrap());
        v.extend_to(13);
        assert_eq!(v.values(), &[0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4]);
    }

    #[test]
    fn misere_and_normal_differ_at_the_end() {
        let g = Subtraction::new(&[2, 3], Play::Misere).unwrap();
        let mut v = SubtractionValues::new(&g);
        v.extend_to(4);
        use Answer::*;
        assert_eq!(v.answers(), &[Won, Won, Lost, Lost]);
        let g = Subtraction::new(&[2, 3], Play::EmptyTableWins).unwrap();
        let mut v = SubtractionValues::new(&g);
        v.extend_to(4);
        assert_eq!(v.answers(), &[Won, Lost, Lost, Move(2)]);
    }
}
