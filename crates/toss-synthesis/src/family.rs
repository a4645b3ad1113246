//! Game families with a size parameter: subtraction games (a finite set
//! of numbers of tokens a move may take from one heap) under three
//! conventions for the end, and octal games given by their code.

use std::fmt;
use std::str::FromStr;

/// The most moves a subtraction set may have: the evaluation of `win/2`
/// keeps the moves of a position in one 64-bit mask.
pub const MAX_SET_LEN: usize = 64;
/// The largest move of a subtraction set: the proof window and the
/// evaluation's ring buffer are that long.
pub const MAX_MOVE: u32 = 100_000;
/// The most digits of an octal code after the point (the largest number
/// of tokens a move may remove).
pub const MAX_OCTAL_DIGITS: usize = 32;

/// Who wins at the end of a subtraction game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Play {
    /// The player who cannot move loses.
    Normal,
    /// The player who cannot move wins.
    Misere,
    /// The seed's `win(0,M).`: "wins who finds the table empty". The
    /// player facing no tokens has won; a player facing tokens and no
    /// move (a set without 1) has lost, as no clause of `win/2` holds
    /// there. With 1 in the set the empty table is the only position
    /// without a move, and this is misère play.
    EmptyTableWins,
}

impl Play {
    /// The name the command line takes.
    pub fn name(self) -> &'static str {
        match self {
            Play::Normal => "normal",
            Play::Misere => "misere",
            Play::EmptyTableWins => "seed",
        }
    }
}

impl FromStr for Play {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "normal" => Ok(Play::Normal),
            "misere" | "misère" => Ok(Play::Misere),
            "seed" | "empty-table-wins" => Ok(Play::EmptyTableWins),
            _ => Err(format!(
                "unknown play convention `{s}` (normal, misere or seed)"
            )),
        }
    }
}

/// A subtraction game: a heap of `n` tokens, a move takes `m` tokens for
/// some `m` of the set with `m <= n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subtraction {
    /// The set, ascending, without repeats, every move at least 1.
    moves: Vec<u32>,
    play: Play,
}

impl Subtraction {
    /// A subtraction game over `moves` (in any order; repeats are an
    /// error, as they are likely a typo).
    pub fn new(moves: &[u32], play: Play) -> Result<Self, String> {
        if moves.is_empty() {
            return Err("a subtraction set needs at least one move".into());
        }
        if moves.len() > MAX_SET_LEN {
            return Err(format!(
                "a subtraction set has at most {MAX_SET_LEN} moves (this one has {})",
                moves.len()
            ));
        }
        let mut sorted = moves.to_vec();
        sorted.sort_unstable();
        if sorted[0] == 0 {
            return Err("a move takes at least 1 token (0 is in the set)".into());
        }
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("{} is twice in the subtraction set", w[0]));
        }
        let max = sorted[sorted.len() - 1];
        if max > MAX_MOVE {
            return Err(format!(
                "the largest move is at most {MAX_MOVE} (this set has {max})"
            ));
        }
        Ok(Subtraction {
            moves: sorted,
            play,
        })
    }

    /// Parses a set written `1,2` or `{1, 3, 4}`.
    pub fn parse(set: &str, play: Play) -> Result<Self, String> {
        let inner = set.trim().trim_start_matches('{').trim_end_matches('}');
        let mut moves = Vec::new();
        for part in inner.split(',') {
            let part = part.trim();
            let m: u32 = part.parse().map_err(|_| {
                format!("`{part}` in the subtraction set `{set}` is not a number of tokens")
            })?;
            moves.push(m);
        }
        Subtraction::new(&moves, play)
    }

    pub fn moves(&self) -> &[u32] {
        &self.moves
    }

    pub fn play(&self) -> Play {
        self.play
    }

    /// The largest move: from this many tokens on, every move is
    /// available and a position's answer depends on the `max_move`
    /// positions before it alone.
    pub fn max_move(&self) -> usize {
        self.moves[self.moves.len() - 1] as usize
    }
}

/// An octal game `0.d1 d2 ... dt`: a move removes `k` tokens from one
/// heap, where digit `dk` says what may be left of that heap: bit 1
/// nothing (the heap had exactly `k`), bit 2 one nonempty heap, bit 4
/// two nonempty heaps. A position is a set of heaps; its Grundy value
/// is the xor of the heaps' values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Octal {
    /// `digits[k - 1]` is `dk`; the last one is nonzero.
    digits: Vec<u8>,
}

impl Octal {
    /// Parses `0.77`, `0.137` (trailing zeros are dropped; digits 0-7).
    pub fn parse(code: &str) -> Result<Self, String> {
        let code = code.trim();
        let Some(rest) = code.strip_prefix("0.").or_else(|| code.strip_prefix('.')) else {
            return Err(format!(
                "octal code `{code}` must start with `0.` (a move removes at least one token)"
            ));
        };
        let mut digits = Vec::new();
        for c in rest.chars() {
            match c.to_digit(8) {
                Some(d) => digits.push(d as u8),
                None => {
                    return Err(format!(
                        "`{c}` in octal code `{code}` is not an octal digit (0-7)"
                    ));
                }
            }
        }
        while digits.last() == Some(&0) {
            digits.pop();
        }
        if digits.is_empty() {
            return Err(format!("octal code `{code}` allows no move"));
        }
        if digits.len() > MAX_OCTAL_DIGITS {
            return Err(format!(
                "octal code `{code}` has more than {MAX_OCTAL_DIGITS} digits"
            ));
        }
        Ok(Octal { digits })
    }

    pub fn digits(&self) -> &[u8] {
        &self.digits
    }

    /// `t` of the Guy–Smith theorem: the most tokens a move removes.
    pub fn max_removed(&self) -> usize {
        self.digits.len()
    }

    /// The code as written, `0.77`.
    pub fn code(&self) -> String {
        let digits: String = self.digits.iter().map(|d| char::from(b'0' + d)).collect();
        format!("0.{digits}")
    }

    /// The usual name of a few well-known codes.
    pub fn known_name(&self) -> Option<&'static str> {
        match self.code().as_str() {
            "0.77" => Some("Kayles"),
            "0.137" => Some("Dawson's chess"),
            "0.07" => Some("Dawson's Kayles"),
            "0.6" => Some("Officers"),
            _ => None,
        }
    }
}

/// A family of games, one per size `n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Family {
    Subtraction(Subtraction),
    Octal(Octal),
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Family::Subtraction(s) => {
                let set: Vec<String> = s.moves.iter().map(u32::to_string).collect();
                write!(f, "subtraction game {{{}}}, ", set.join(", "))?;
                match s.play {
                    Play::Normal => write!(f, "normal play (who cannot move loses)"),
                    Play::Misere => write!(f, "misère play (who cannot move wins)"),
                    Play::EmptyTableWins if s.moves[0] == 1 => write!(
                        f,
                        "the seed's convention: who finds the table empty wins (misère play, as 1 is a move)"
                    ),
                    Play::EmptyTableWins => write!(
                        f,
                        "the seed's convention: who finds the table empty wins, who faces tokens and no move loses"
                    ),
                }
            }
            Family::Octal(o) => match o.known_name() {
                Some(name) => write!(f, "octal game {} ({name}), normal play", o.code()),
                None => write!(f, "octal game {}, normal play", o.code()),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sets_and_codes() {
        let s = Subtraction::parse("{4, 1,3}", Play::Normal).unwrap();
        assert_eq!(s.moves(), &[1, 3, 4]);
        assert_eq!(s.max_move(), 4);
        assert!(Subtraction::parse("1,x", Play::Normal).is_err());
        assert!(Subtraction::parse("0,1", Play::Normal).is_err());
        assert!(Subtraction::parse("1,1", Play::Normal).is_err());
        assert!(Subtraction::parse("", Play::Normal).is_err());
        let k = Octal::parse("0.770").unwrap();
        assert_eq!(k.digits(), &[7, 7]);
        assert_eq!(k.known_name(), Some("Kayles"));
        assert!(Octal::parse("0.8").is_err());
        assert!(Octal::parse("4.07").is_err());
        assert!(Octal::parse("0.00").is_err());
        assert_eq!("misere".parse::<Play>(), Ok(Play::Misere));
        assert!("x".parse::<Play>().is_err());
    }
}
