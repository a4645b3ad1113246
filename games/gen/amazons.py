"""Generates games/amazons.toss (run: python3 games/gen/amazons.py).

The rules are in the header below; the queen-line table QL of the starting
structure is generated.
"""
import os.path as osp

HEADER = """// Amazons, 10x10.
//
// Rules: a 10x10 board; white amazons on a4, d1, g1 and j4, black amazons on
// a7, d10, g10 and j7; white moves first and the players alternate. A move
// is one amazon move followed by one arrow shot, both queen-wise: the
// player picks an own amazon, slides it any number of squares along a row,
// column or diagonal over empty squares to an empty square, then shoots an
// arrow from its new square, queen-wise over empty squares, to an empty
// square (the square the amazon just left counts as empty, so the arrow may
// land on it or fly over it). The arrow's square is blocked for the rest of
// the game. A player who cannot move loses; there are no draws. The first
// position has 2176 moves.
//
// Payoffs: win 1, loss -1.
//
// Model: cells are board elements (a1 bottom left ... j10) with R, C, DiagA
// and DiagB from the board; amazons are W and B, arrows Arrow, all matched
// exactly, so a rule element written without them is an empty square. One
// move is one rule application: the amazon's square a, its destination b
// and the arrow's square c are the rule's elements (the rule MoveBack
// covers the arrow shot back onto a). A queen move is a ray: the reflexive
// transitive closure of one step in a fixed direction onto an empty square.
// The stable table QL (y on a queen line from x, y != x) only guides rule
// matching: it lists the candidate destinations and arrow squares.

"""

BODY = """PLAYERS white, black

REL Empty(x) = not W(x) and not B(x) and not Arrow(x)
// y is reached from x by a queen move over empty squares (or y = x).
REL Ray(x, y) =
  (tc x, y R(x, y) and Empty(y)) or
  (tc x, y R(y, x) and Empty(y)) or
  (tc x, y C(x, y) and Empty(y)) or
  (tc x, y C(y, x) and Empty(y)) or
  (tc x, y DiagA(x, y) and Empty(y)) or
  (tc x, y DiagA(y, x) and Empty(y)) or
  (tc x, y DiagB(x, y) and Empty(y)) or
  (tc x, y DiagB(y, x) and Empty(y))
// The same after the amazon has left square a: a counts as empty.
REL Shot(a, x, y) =
  (tc x, y R(x, y) and (Empty(y) or y = a)) or
  (tc x, y R(y, x) and (Empty(y) or y = a)) or
  (tc x, y C(x, y) and (Empty(y) or y = a)) or
  (tc x, y C(y, x) and (Empty(y) or y = a)) or
  (tc x, y DiagA(x, y) and (Empty(y) or y = a)) or
  (tc x, y DiagA(y, x) and (Empty(y) or y = a)) or
  (tc x, y DiagB(x, y) and (Empty(y) or y = a)) or
  (tc x, y DiagB(y, x) and (Empty(y) or y = a))

RULE WhiteMove:
  [a, b, c | W (a); QL {(a, b); (b, c)} | ] ->
  [a, b, c | W (b); Arrow (c) | ] emb W, B, Arrow
  pre Ray(a, b) and Shot(a, b, c)
RULE WhiteMoveBack:
  [a, b | W (a); QL (a, b) | ] -> [a, b | W (b); Arrow (a) | ] emb W, B, Arrow
  pre Ray(a, b)
RULE BlackMove:
  [a, b, c | B (a); QL {(a, b); (b, c)} | ] ->
  [a, b, c | B (b); Arrow (c) | ] emb W, B, Arrow
  pre Ray(a, b) and Shot(a, b, c)
RULE BlackMoveBack:
  [a, b | B (a); QL (a, b) | ] -> [a, b | B (b); Arrow (a) | ] emb W, B, Arrow
  pre Ray(a, b)

// The play ends in location 0 only when white cannot move: white loses.
// Symmetrically in location 1.
LOC 0 {
  PLAYER white {
    PAYOFF -1
    MOVES [WhiteMove -> 1]; [WhiteMoveBack -> 1]
  }
  PLAYER black { PAYOFF 1 }
}
LOC 1 {
  PLAYER white { PAYOFF 1 }
  PLAYER black {
    PAYOFF -1
    MOVES [BlackMove -> 0]; [BlackMoveBack -> 0]
  }
}

START [ | W:1 {}; B:1 {}; Arrow:1 {};
@QL@
  | ] "
  . . . B . . B . . .
  . . . . . . . . . .
  . . . . . . . . . .
  B . . . . . . . . B
  . . . . . . . . . .
  . . . . . . . . . .
  W . . . . . . . . W
  . . . . . . . . . .
  . . . . . . . . . .
  . . . W . . W . . .
"
"""

cols = "abcdefghij"
def nm(c, r): return f"{cols[c-1]}{r}"
ql = []
for r in range(1, 11):
    for c in range(1, 11):
        for dc, dr in [(1,0),(-1,0),(0,1),(0,-1),(1,1),(1,-1),(-1,1),(-1,-1)]:
            k = 1
            while 1 <= c + k*dc <= 10 and 1 <= r + k*dr <= 10:
                ql.append((nm(c, r), nm(c + k*dc, r + k*dr))); k += 1
out = []; line = "  QL {"
for i, t in enumerate(ql):
    s = f"({t[0]}, {t[1]})" + ("; " if i < len(ql) - 1 else "")
    if len(line) + len(s) > 78: out.append(line.rstrip()); line = "    "
    line += s
out.append(line + "}")
text = HEADER + BODY.replace("@QL@", "\n".join(out))
open(osp.join(osp.dirname(osp.abspath(__file__)), "..", "amazons.toss"), "w").write(text)
