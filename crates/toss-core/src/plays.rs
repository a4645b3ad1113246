//! Example plays of a game (spec 4.4-4.6): sequences of positions with how
//! they ended, the input of learning a game. The text format is the Toss
//! front end's (`docs/plays.md`).

use crate::structure::Structure;

/// How an example play ended (the four kinds of video of spec 4.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PlayLabel {
    /// The first player won in the last position.
    FirstWins,
    /// The second player won in the last position.
    SecondWins,
    /// Nobody has won in any position (unfinished or drawn).
    NotWon,
    /// Every move is legal but the last one.
    Illegal,
}

impl PlayLabel {
    /// The label as written in a plays file.
    pub fn as_str(self) -> &'static str {
        match self {
            PlayLabel::FirstWins => "1 wins",
            PlayLabel::SecondWins => "2 wins",
            PlayLabel::NotWon => "not won",
            PlayLabel::Illegal => "illegal",
        }
    }
}

/// One example play: positions from the start, the players moving in turn,
/// the first player first.
#[derive(Clone, Debug)]
pub struct Play {
    pub label: PlayLabel,
    pub positions: Vec<Structure>,
    /// The line of the play's `PLAY` in its file (1-based), 0 if none.
    pub line: usize,
    /// The line of each position in its file, if known.
    pub position_lines: Vec<usize>,
}

/// The plays of one file, with the players' names if it gives them.
#[derive(Clone, Debug, Default)]
pub struct Plays {
    pub players: Vec<String>,
    pub plays: Vec<Play>,
}
