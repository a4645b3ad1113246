//! Symbols for pieces, read off the names a piece is described by: the
//! unary relations of a Toss element (`W` and `Knight`, `WKing`, `wK`,
//! `BlackPawn`) or the content of a GDL cell (`wr`, `white pawn`, `x`,
//! `red`). A name is cut into words (at case changes and non-letters);
//! colour words and piece words give a glyph: chess pieces in Unicode
//! chess symbols, draughts men and kings, discs, X and O. The relations `P`
//! and `Q` are by the Toss convention (spec 1.4) the marks of the first and
//! the second player, so they read as those players' names (`xplayer` ->
//! X, `red` -> a red disc). Whatever is not understood falls back to the
//! shortest prefix of the name that no other name shares.

use std::collections::BTreeMap;

/// The colour a piece is of.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Colour {
    White,
    Black,
    /// Another colour word (`red`, `yellow`...), drawn in that colour.
    Named(&'static str),
}

impl Colour {
    /// The fill of a disc of this colour in SVG.
    pub fn fill(&self) -> &'static str {
        match self {
            Colour::White => "#fbfbf6",
            Colour::Black => "#24211f",
            Colour::Named(c) => c,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    King,
    Queen,
    Rook,
    Bishop,
    Knight,
    Pawn,
    Man,
    X,
    O,
}

impl Kind {
    /// Chess pieces other than the king: a king among them is a chess king.
    fn is_chess(self) -> bool {
        matches!(
            self,
            Kind::Queen | Kind::Rook | Kind::Bishop | Kind::Knight | Kind::Pawn
        )
    }
}

const COLOURS: [&str; 9] = [
    "white", "black", "red", "yellow", "blue", "green", "orange", "purple", "brown",
];

/// How a piece is drawn.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Piece {
    /// The symbol in text (one or a few characters).
    pub text: String,
    /// Drawn in SVG as a disc of this colour rather than as text.
    pub disc: Option<Colour>,
    /// A king of draughts: the disc gets a ring.
    pub crowned: bool,
    /// Markers of further relations the piece is in (castling rights...),
    /// each one character, explained in the legend.
    pub marks: String,
}

impl Piece {
    /// The symbol and its markers, as the terminal shows it.
    pub fn full_text(&self) -> String {
        format!("{}{}", self.text, self.marks)
    }
}

/// Words of a name: split at non-alphanumerics, at a lower-to-upper case
/// change and before an upper-case letter followed by a lower-case one
/// (`WKing` -> `W`, `King`); lower-cased. Two-letter words like `wr`, `bk`
/// (GDL chess) split into colour and piece letters.
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter()
        .flat_map(|w| {
            let b = w.as_bytes();
            if b.len() == 2 && matches!(b[0], b'w' | b'b') && b"kqrbnp".contains(&b[1]) {
                vec![w[..1].to_string(), w[1..].to_string()]
            } else {
                vec![w]
            }
        })
        .collect()
}

fn colour_word(w: &str) -> Option<Colour> {
    match w {
        "w" | "white" => Some(Colour::White),
        "b" | "black" => Some(Colour::Black),
        _ => COLOURS.iter().find(|&&c| c == w).map(|&c| Colour::Named(c)),
    }
}

/// A piece word; single letters only count beside a colour (`P` alone is
/// a mark, not a pawn), except `x` and `o`.
fn kind_word(w: &str, coloured: bool) -> Option<Kind> {
    let k = match w {
        "king" | "kings" => Kind::King,
        "queen" => Kind::Queen,
        "rook" => Kind::Rook,
        "bishop" => Kind::Bishop,
        "knight" | "kn" => Kind::Knight,
        "pawn" | "pawns" => Kind::Pawn,
        "man" | "men" | "piece" | "disc" | "disk" | "stone" => Kind::Man,
        "x" => Kind::X,
        "o" => Kind::O,
        "k" if coloured => Kind::King,
        "q" if coloured => Kind::Queen,
        "r" if coloured => Kind::Rook,
        "b" if coloured => Kind::Bishop,
        "n" if coloured => Kind::Knight,
        "p" if coloured => Kind::Pawn,
        "m" if coloured => Kind::Man,
        _ => return None,
    };
    Some(k)
}

/// What the names of one piece say.
#[derive(Default, Debug)]
struct Reading {
    colour: Option<Colour>,
    kind: Option<Kind>,
    /// Names not understood.
    rest: Vec<String>,
}

/// The words a name stands for: `P` and `Q` as the first and second
/// player's names without a `player` ending (`xplayer` -> `x`).
fn name_words(name: &str, players: &[String]) -> Vec<String> {
    let player = match name {
        "P" => players.first(),
        "Q" => players.get(1),
        _ => None,
    };
    match player {
        Some(p) if players.len() == 2 => {
            let p = p.to_lowercase();
            let p = p.strip_suffix("player").unwrap_or(&p).trim_end_matches('_');
            words(p)
        }
        _ => words(name),
    }
}

fn read(names: &[String], players: &[String]) -> Reading {
    let all: Vec<Vec<String>> = names.iter().map(|n| name_words(n, players)).collect();
    // A colour anywhere makes single letters piece letters (`B`, `K`).
    let mut r = Reading {
        colour: all
            .iter()
            .flatten()
            .find_map(|w| colour_word(w))
            .filter(|_| all.iter().flatten().count() > 1),
        ..Reading::default()
    };
    // The colour word is read once; a second `b` (GDL's `bb`) is a bishop.
    let mut colour_read = false;
    for (name, ws) in names.iter().zip(&all) {
        let mut understood = !ws.is_empty();
        for w in ws {
            let c = colour_word(w);
            if !colour_read && c.is_some() && c == r.colour {
                colour_read = true;
                continue;
            }
            // `b` is black before a colour is known, else a bishop.
            if r.colour.is_none() && ws.len() == 1 && all.len() == 1 && c.is_some() {
                r.colour = c;
                colour_read = true;
                continue;
            }
            match kind_word(w, r.colour.is_some()) {
                Some(k) if r.kind.is_none() => r.kind = Some(k),
                _ => understood = false,
            }
        }
        if !understood {
            r.rest.push(name.clone());
        }
    }
    r
}

/// Symbols of the pieces of one position, and their legend.
pub struct Symbols {
    players: Vec<String>,
    /// A king is a chess king when chess pieces are about.
    chess: bool,
    /// Colour-only pieces are draughts men when kings are about.
    draughts: bool,
    /// Fallback abbreviations of every name.
    abbrev: BTreeMap<String, String>,
    /// Marker characters of names drawn beside a symbol.
    markers: std::cell::RefCell<BTreeMap<String, char>>,
}

const MARKERS: [char; 8] = ['\'', '*', '^', '~', '"', '`', '!', '?'];

impl Symbols {
    /// For the `names` that occur (all unary relations, or all cell
    /// contents) and the game's players.
    pub fn new(names: &[String], players: &[String]) -> Symbols {
        let kinds: Vec<Kind> = names
            .iter()
            .flat_map(|n| {
                let ws = name_words(n, players);
                // `B` and `W` are colours here, not a bishop.
                ws.into_iter()
                    .filter(|w| colour_word(w).is_none())
                    .filter_map(|w| kind_word(&w, true))
            })
            .collect();
        let chess = kinds.iter().any(|k| k.is_chess());
        let draughts = !chess && kinds.contains(&Kind::King);
        Symbols {
            players: players.to_vec(),
            chess,
            draughts,
            abbrev: abbreviations(names),
            markers: Default::default(),
        }
    }

    /// The piece shown for an element in the relations (or a cell with the
    /// content) `names`; `None` for no names.
    pub fn piece(&self, names: &[String]) -> Option<Piece> {
        if names.is_empty() {
            return None;
        }
        let r = read(names, &self.players);
        let white = r.colour == Some(Colour::White);
        let glyph = |w: char, b: char| if white { w } else { b }.to_string();
        let (text, disc, crowned) = match (&r.colour, r.kind) {
            (_, Some(Kind::X)) => ("X".to_string(), None, false),
            (_, Some(Kind::O)) => ("O".to_string(), None, false),
            (Some(Colour::White | Colour::Black), Some(k)) if k != Kind::Man => {
                let (t, d, c) = match k {
                    Kind::King if !self.chess => (glyph('⛁', '⛃'), r.colour.clone(), true),
                    Kind::King => (glyph('♔', '♚'), None, false),
                    Kind::Queen => (glyph('♕', '♛'), None, false),
                    Kind::Rook => (glyph('♖', '♜'), None, false),
                    Kind::Bishop => (glyph('♗', '♝'), None, false),
                    Kind::Knight => (glyph('♘', '♞'), None, false),
                    _ => (glyph('♙', '♟'), None, false),
                };
                (t, d, c)
            }
            (Some(c @ (Colour::White | Colour::Black)), _) => {
                let t = if self.draughts {
                    glyph('⛀', '⛂')
                } else {
                    glyph('○', '●')
                };
                (t, Some(c.clone()), false)
            }
            (Some(c @ Colour::Named(name)), k) => {
                let initial = name[..1].to_uppercase();
                let crowned = k == Some(Kind::King);
                (initial, Some(c.clone()), crowned)
            }
            _ => {
                // Nothing understood: the abbreviations of all the names.
                let text = names
                    .iter()
                    .map(|n| self.abbrev.get(n).cloned().unwrap_or_else(|| n.clone()))
                    .collect::<Vec<_>>()
                    .join("+");
                return Some(Piece {
                    text,
                    disc: None,
                    crowned: false,
                    marks: String::new(),
                });
            }
        };
        let mut markers = self.markers.borrow_mut();
        let marks = r
            .rest
            .iter()
            .map(|n| {
                let next = MARKERS.get(markers.len()).copied().unwrap_or('#');
                *markers.entry(n.clone()).or_insert(next)
            })
            .collect();
        Some(Piece {
            text,
            disc,
            crowned,
            marks,
        })
    }

    /// The legend of the pieces drawn: symbol -> the names it stands for
    /// (with the player for `P`/`Q`), then one line per marker. A symbol
    /// that is its name needs no entry.
    pub fn legend(&self, pieces: &[(Piece, Vec<String>)]) -> Vec<(Piece, String)> {
        let mut seen: BTreeMap<String, (Piece, String)> = BTreeMap::new();
        let markers = self.markers.borrow();
        let marked: Vec<&String> = markers.keys().collect();
        for (p, names) in pieces {
            let base: Vec<String> = names
                .iter()
                .filter(|n| !marked.contains(n))
                .map(|n| self.describe(n))
                .collect();
            let what = base.join(" ");
            // `X` for `x` needs no explaining.
            if p.text.eq_ignore_ascii_case(&what) && p.disc.is_none() {
                continue;
            }
            // In the order of what the symbols stand for (`P` before `Q`).
            let key = format!("{what}\u{0}{}{:?}{}", p.text, p.disc, p.crowned);
            let plain = Piece {
                marks: String::new(),
                ..p.clone()
            };
            seen.entry(key).or_insert((plain, what));
        }
        let mut out: Vec<(Piece, String)> = seen.into_values().collect();
        for (name, &m) in markers.iter() {
            out.push((
                Piece {
                    text: m.to_string(),
                    disc: None,
                    crowned: false,
                    marks: String::new(),
                },
                self.describe(name),
            ));
        }
        out
    }

    fn describe(&self, name: &str) -> String {
        let player = match name {
            "P" => self.players.first(),
            "Q" => self.players.get(1),
            _ => None,
        };
        match player {
            Some(p) if self.players.len() == 2 => format!("{name} ({p})"),
            _ => name.to_string(),
        }
    }
}

/// For each name, its shortest prefix (at least one character) that is
/// not a prefix of another name; a name that is a prefix of another stays
/// whole.
fn abbreviations(names: &[String]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for n in names {
        let chars: Vec<char> = n.chars().collect();
        let short = (1..=chars.len())
            .map(|k| chars[..k].iter().collect::<String>())
            .find(|p| !names.iter().any(|o| o != n && o.starts_with(p.as_str())))
            .unwrap_or_else(|| n.clone());
        out.insert(n.clone(), short);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn text(all: &[&str], players: &[&str], piece: &[&str]) -> String {
        let s = Symbols::new(&names(all), &names(players));
        s.piece(&names(piece))
            .map(|p| p.full_text())
            .unwrap_or_default()
    }

    #[test]
    fn words_split_at_case_changes_and_colour_letters() {
        assert_eq!(words("WKing"), ["w", "king"]);
        assert_eq!(words("wK"), ["w", "k"]);
        assert_eq!(words("BlackPawn"), ["black", "pawn"]);
        assert_eq!(words("wr"), ["w", "r"]);
        assert_eq!(words("white pawn"), ["white", "pawn"]);
    }

    #[test]
    fn chess_pieces_in_several_namings() {
        let chess = ["W", "B", "King", "Queen", "Rook", "Knight", "Pawn"];
        assert_eq!(text(&chess, &[], &["W", "Knight"]), "♘");
        assert_eq!(text(&chess, &[], &["B", "King"]), "♚");
        assert_eq!(text(&["WKing", "BPawn"], &[], &["BPawn"]), "♟");
        assert_eq!(text(&["wK", "wQ"], &[], &["wK"]), "♔");
        assert_eq!(text(&["wr", "bb", "b"], &[], &["bb"]), "♝");
        assert_eq!(text(&["white pawn"], &[], &["white pawn"]), "♙");
    }

    #[test]
    fn draughts_men_and_kings_discs_and_marks() {
        let d = ["B", "W", "K"];
        assert_eq!(text(&d, &[], &["B"]), "⛂");
        assert_eq!(text(&d, &[], &["W", "K"]), "⛁");
        assert_eq!(text(&["B", "W"], &[], &["W"]), "○");
        assert_eq!(text(&["black", "red"], &[], &["red"]), "R");
        // P and Q are the players' marks.
        let xo = ["xplayer", "oplayer"];
        assert_eq!(text(&["P", "Q"], &xo, &["P"]), "X");
        assert_eq!(text(&["P", "Q"], &xo, &["Q"]), "O");
        assert_eq!(text(&["P", "Q"], &["red", "yellow"], &["Q"]), "Y");
        assert_eq!(text(&["P", "Q"], &[], &["P"]), "P");
        // A relation beside a piece is a marker, explained in the legend.
        let chess = ["W", "B", "Rook", "Cr", "Queen"];
        let s = Symbols::new(&names(&chess), &[]);
        let p = s
            .piece(&names(&["W", "Rook", "Cr"]))
            .unwrap_or_else(|| panic!());
        assert_eq!(p.full_text(), "♖'");
        let legend = s.legend(&[(p, names(&["W", "Rook", "Cr"]))]);
        let legend: Vec<(String, String)> = legend.into_iter().map(|(p, w)| (p.text, w)).collect();
        assert_eq!(
            legend,
            [("♖".into(), "W Rook".into()), ("'".into(), "Cr".into())]
        );
    }

    #[test]
    fn unknown_names_are_shortest_unique_prefixes() {
        let all = ["Arrow", "Ant", "Ball"];
        assert_eq!(text(&all, &[], &["Arrow"]), "Ar");
        assert_eq!(text(&all, &[], &["Ball"]), "B");
        assert_eq!(text(&["Foo", "Bar"], &[], &["Foo", "Bar"]), "F+B");
    }
}
