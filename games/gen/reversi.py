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
// cannot place, the opponent can. The lines of the board (from its R, C,
// DiagA, DiagB and their inverses) are stable relations; a line of
// opponent discs on an 8x8 board is at most 6 long, so the conditions that
// walk along one are nested to that depth.
"""

# The step from x to y in each of the eight directions.
DIRS = [
    "R({x}, {y})", "R({y}, {x})", "C({x}, {y})", "C({y}, {x})",
    "DiagA({x}, {y})", "DiagA({y}, {x})", "DiagB({x}, {y})", "DiagB({y}, {x})",
]
RUN = 6  # the longest line of opponent discs on an 8x8 board
COLOURS = [("B", "W"), ("W", "B")]
NAME = {"B": "black", "W": "white"}


def closes(own, opp, p, x, depth, k=1):
    """From x, in the direction from p to x: more opponent discs (at most
    depth - 1), then an own disc."""
    y = f"y{k}"
    if depth == 1:
        return f"ex {y} (Line3({p}, {x}, {y}) and {own}({y}))"
    inner = closes(own, opp, x, y, depth - 1, k + 1)
    return f"ex {y} (Line3({p}, {x}, {y}) and ({own}({y}) or ({opp}({y}) and {inner})))"


def back(opp, z, depth, k=2):
    """z is n, or z is an opponent disc and so on towards n."""
    if depth == 1:
        return f"{z} = n"
    y = f"z{k}"
    inner = back(opp, y, depth - 1, k + 1)
    return f"{z} = n or ({opp}({z}) and ex {y} (Toward({z}, n, {y}) and ({inner})))"


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
parts.append("""// The board's lines, stable, so tabulated once: Line3(x, y, z) when x, y, z
// are consecutive squares of a row, column or diagonal; Ray0 ... Ray7(u, v)
// when v is u or beyond u in one direction; Toward(x, n, y) when n lies on
// a line from x and y is the neighbour of x towards n.""")
parts.append("REL Line3(x, y, z) =\n  " + " or\n  ".join(
    f"({d.format(x='x', y='y')} and {d.format(x='y', y='z')})" for d in DIRS))
for i, d in enumerate(DIRS):
    parts.append(f"REL Ray{i}(u, v) = tc u, v {d.format(x='u', y='v')}")
parts.append("REL Toward(x, n, y) =\n  " + " or\n  ".join(
    f"({d.format(x='x', y='y')} and Ray{i}(y, n))" for i, d in enumerate(DIRS)))
parts.append("REL Adj(x, y) = " + " or ".join(d.format(x="x", y="y") for d in DIRS[:4]) + " or\n  "
             + " or ".join(d.format(x="x", y="y") for d in DIRS[4:]))
parts.append("REL Empty(x) = not B(x) and not W(x)")
for own, opp in COLOURS:
    parts.append("")
    parts.append(f"// Closes{own}(p, x): from x, in the direction from p to x, more {NAME[opp]}")
    parts.append(f"// discs, then a {NAME[own]} one.")
    parts.append(wrap(f"REL Closes{own}(p, x) = " + closes(own, opp, "p", "x", RUN)))
    parts.append(f"// Back{own}(z, n): z is n, or {NAME[opp]} discs lead from z to n.")
    parts.append(wrap(f"REL Back{own}(z, n) = " + back(opp, "z", RUN + 1)))
    parts.append(f"// {NAME[own].capitalize()} may place a disc on the empty square a.")
    parts.append(f"REL Legal{own}(a) = ex x (Adj(a, x) and {opp}(x) and Closes{own}(a, x))")
    parts.append(f"// The {NAME[opp]} disc x is enclosed by the new disc n and a {NAME[own]} disc.")
    parts.append(f"REL Flips{own}(n, x) = ex z (Toward(x, n, z) and Back{own}(z, n) and Closes{own}(z, x))")
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
