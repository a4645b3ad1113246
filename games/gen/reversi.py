"""Generates games/reversi.toss (run: python3 games/gen/reversi.py).

The rules are in the header below; the line conditions of the eight
directions, for both colours, are generated.
"""
import os.path as osp

HEADER = """// Reversi (Othello), 8x8.
//
// Rules: an 8x8 board with the standard four-disc start (white on d4 and
// e5, black on d5 and e4); black moves first. A move places a disc of the
// mover's colour on an empty square such that, in at least one of the eight
// directions (along a row, a column or a diagonal), the placed disc and
// another disc of the mover's colour enclose an unbroken line of one or more
// opponent discs; every opponent disc so enclosed, in all eight directions,
// is flipped to the mover's colour. A player with no legal placement passes
// (a one-move turn) while the opponent can still place a disc; the play
// ends when neither player can. More discs wins; equal counts are a draw.
// Perft from the start (passes counted as moves): 4, 12, 56, 244, 1396,
// 8200, 55092, 390216, 3005288.
//
// Payoffs: win 1, draw 0, loss -1.
//
// Model: squares are board elements; black discs are B, white discs W, both
// matched exactly. A turn is two plies of the same player (see the Game
// trait: a ply by the same single mover continues the turn): a placement
// rule puts the disc and marks it New; in the next location the same player
// applies the flip rule with multiplicity inf, to all its matches at once:
// each match is the New disc and one enclosed opponent disc, which turns to
// the mover's colour (every match also removes the mark from the New disc,
// the same change for all of them). The placement's precondition makes sure
// that at least one disc is enclosed, so the flip location always has a
// match. Pass rules have empty sides and only a precondition: the mover
// cannot place, the opponent can. The directions are R (right), C (up),
// DiagA (up-right), DiagB (down-right) of the board and their inverses; a
// line of opponent discs on an 8x8 board is at most 6 long, so the line
// conditions are nested to that depth (no closure: a short walk per
// direction).
"""

# (name, step from x to y as a formula over the board relations)
DIRS = [
    ("Rt", "R({x}, {y})"),
    ("Lt", "R({y}, {x})"),
    ("Up", "C({x}, {y})"),
    ("Dn", "C({y}, {x})"),
    ("UR", "DiagA({x}, {y})"),
    ("DL", "DiagA({y}, {x})"),
    ("DR", "DiagB({x}, {y})"),
    ("UL", "DiagB({y}, {x})"),
]
RUN = 6  # the longest line of opponent discs on an 8x8 board
COLOURS = [("B", "W"), ("W", "B")]


def closes(step, own, opp, x, depth, k=1):
    """From opponent disc x, along the direction: more opponent discs (at
    most depth - 1), then an own disc."""
    y = f"y{k}"
    s = step.format(x=x, y=y)
    if depth == 1:
        return f"ex {y} ({s} and {own}({y}))"
    inner = closes(step, own, opp, y, depth - 1, k + 1)
    return f"ex {y} ({s} and ({own}({y}) or ({opp}({y}) and {inner})))"


def back(step, opp, x, depth, k=1):
    """From opponent disc x, against the direction: more opponent discs (at
    most depth - 1), then the new disc n."""
    y = f"z{k}"
    s = step.format(x=y, y=x)
    if depth == 1:
        return f"ex {y} ({s} and {y} = n)"
    inner = back(step, opp, y, depth - 1, k + 1)
    return f"ex {y} ({s} and ({y} = n or ({opp}({y}) and {inner})))"


def wrap(text, indent="  ", width=76):
    out, line = [], ""
    for w in text.split(" "):
        if line and len(line) + 1 + len(w) > width:
            out.append(line)
            line = indent + w
        else:
            line = f"{line} {w}" if line else w
    out.append(line)
    return "\n".join(out)


parts = [HEADER, "PLAYERS black, white\n"]
parts.append("REL Empty(x) = not B(x) and not W(x)")
for own, opp in COLOURS:
    parts.append("")
    parts.append(f"// Closes{own}Dir(x): from the {'white' if own == 'B' else 'black'} "
                 f"disc x along Dir, more such discs, then a {'black' if own == 'B' else 'white'} one.")
    for d, step in DIRS:
        parts.append(wrap(f"REL Closes{own}{d}(x) = " + closes(step, own, opp, "x", RUN)))
    parts.append(f"// Behind{own}Dir(x, n): from x against Dir, more discs like x, then n.")
    for d, step in DIRS:
        parts.append(wrap(f"REL Behind{own}{d}(x, n) = " + back(step, opp, "x", RUN)))
    legal = " or\n  ".join(
        f"(ex x ({step.format(x='a', y='x')} and {opp}(x) and Closes{own}{d}(x)))" for d, step in DIRS)
    parts.append(f"// {own} may place a disc on the empty square a.")
    parts.append(f"REL Legal{own}(a) =\n  {legal}")
    flip = " or\n  ".join(f"(Behind{own}{d}(x, n) and Closes{own}{d}(x))" for d, step in DIRS)
    parts.append(f"// The {opp} disc x is enclosed by the new disc n and a {own} disc.")
    parts.append(f"REL Flips{own}(n, x) =\n  {flip}")
    parts.append(f"REL Can{own}() = ex a (Empty(a) and Legal{own}(a))")
parts.append("REL MoreB() = Sum (x | B(x) : 1) > Sum (x | W(x) : 1)")
parts.append("REL MoreW() = Sum (x | W(x) : 1) > Sum (x | B(x) : 1)")
parts.append("")
for own, opp in COLOURS:
    parts.append(f"""RULE Place{own}:
  [a | | ] -> [a | {own} (a); New (a) | ] emb B, W, New
  pre Legal{own}(a)
RULE Flip{own}:
  [n, x | New (n); {own} (n); {opp} (x) | ] -> [n, x | {own} (n); {own} (x) | ]
  emb B, W, New
  pre Flips{own}(n, x)
RULE Pass{own}:
  [ | | ] -> [ | | ]
  pre not Can{own}() and Can{opp}()
""")

PAY = """  PLAYER black {{
    PAYOFF :(MoreB()) - :(MoreW()){bm}
  }}
  PLAYER white {{
    PAYOFF :(MoreW()) - :(MoreB()){wm}
  }}"""
locs = [
    ("Black places a disc, or passes.", "\n    MOVES [PlaceB -> 1]; [PassB -> 2]", ""),
    ("Black flips every enclosed white disc: the rest of black's turn.",
     "\n    MOVES [FlipB, mult: inf -> 2]", ""),
    ("White places a disc, or passes.", "", "\n    MOVES [PlaceW -> 3]; [PassW -> 0]"),
    ("White flips every enclosed black disc: the rest of white's turn.", "",
     "\n    MOVES [FlipW, mult: inf -> 0]"),
]
parts.append("// The play ends in location 0 (2) when neither player can place a disc.")
for i, (c, bm, wm) in enumerate(locs):
    parts.append(f"// {c}\nLOC {i} {{\n" + PAY.format(bm=bm, wm=wm) + "\n}")
parts.append("""START [ | B:1 {}; W:1 {}; New:1 {} | ] "
  . . . . . . . .
  . . . . . . . .
  . . . . . . . .
  . . . B W . . .
  . . . W B . . .
  . . . . . . . .
  . . . . . . . .
  . . . . . . . .
\"""")

out = osp.join(osp.dirname(osp.abspath(__file__)), "..", "reversi.toss")
with open(out, "w") as f:
    f.write("\n".join(parts) + "\n")
