"""Generates the sokoban games (run: python3 games/gen/sokoban.py).

games/sokoban.toss, sokoban-2.toss and sokoban-3.toss are one set of rules
on three levels; games/sokoban-plus.toss is the thesis's sokoban++ (a row
of boxes is pushed as a whole) on its own level. The rules are in the
headers below; the levels are drawn in LEVELS and turned into starting
structures here.
"""
import os.path as osp

# A level, top row first: '#' wall, '.' floor, 'T' target, '@' the man,
# '$' a box, '*' a box on a target, '+' the man on a target.
LEVELS = {
    "sokoban": """
        ######
        #....#
        #.$.T#
        #@...#
        ######
    """,
    "sokoban-2": """
        #######
        #.....#
        #.$.#T#
        #..$..#
        #@...T#
        #######
    """,
    "sokoban-3": """
        ########
        #T..#..#
        #.$$..T#
        #..#.$.#
        #@.....#
        ##..T###
        ########
    """,
    "sokoban-plus": """
        ########
        #......#
        #@$$.TT#
        #......#
        ########
    """,
}

# The move budget: every move needs steps < BUDGET.
BUDGET = 60

SOKOBAN = """// Sokoban{title}.
//
// Rules: one player, the man, in a walled level drawn below (top row
// first): walls, floor, target cells and boxes; as many boxes as targets.
// A move is a step of the man to one of the four neighbouring cells (left,
// right, up, down). Walking onto a floor cell is a move. Walking onto a
// box pushes it one cell further in the same direction. A box cannot move
// into a wall or onto another box, and the man cannot walk into a wall:
// such moves do not exist. The play ends, won, as soon as every target
// holds a box, or, not won, after {budget} moves.
//
// Payoffs: 1 when every target holds a box, else 0.
//
// Model: cells are board elements (a1 bottom left) with R and C from the
// board, walls Wall and targets Target. The man and the boxes are objects
// of their own, elements m and box1, box2, ... placed on cells by At(object,
// cell). This is the thesis's hypothetical reasoning (its Examples 5 and
// 6): a step moves the man, a push moves the man and the box in front of
// him, whatever lies beyond; a move exists only when the state it leads to
// is valid, `post Valid()`: no object in a wall and no two objects on one
// cell. So a push against a wall or a second box is absent because its
// result would be invalid, not because its precondition says what lies
// behind the box. The moves so far are counted in :steps(m).
//
// Reaches(x) is the thesis's declarative example 2: the cells the man can
// reach by steps alone (passable, no box), a reflexive transitive closure.

PLAYERS man

REL Adjacent(x, y) = R(x, y) or R(y, x) or C(x, y) or C(y, x)
REL Free(x) = not Wall(x) and not (ex o (Box(o) and At(o, x)))
REL Reaches(x) = ex m, y (Man(m) and At(m, y) and tc y, x Adjacent(y, x) and Free(x))
REL Valid() =
  not (ex o, x (At(o, x) and Wall(x))) and
  not (ex o, p, x (o != p and At(o, x) and At(p, x)))
REL Solved() = all x (Target(x) -> ex o (Box(o) and At(o, x)))
"""

SOKOBAN_RULES = {
    "Left": "R (y, x)",
    "Right": "R (x, y)",
    "Up": "C (x, y)",
    "Down": "C (y, x)",
}


def sokoban_rules():
    out = []
    for d, step in SOKOBAN_RULES.items():
        # The box's step: from y to z, the same direction as x to y.
        box = step.replace("x", "Y").replace("y", "z").replace("Y", "y")
        out.append(f"""RULE Walk{d}:
  [m, x, y | Man (m); At (m, x); {step} | ] -> [m, x, y | At (m, y) | ] emb At
  update :steps(m) = :steps(m) + 1
  pre :steps(m) < {BUDGET} and not Solved()
  post Valid()
RULE Push{d}:
  [m, b, x, y, z | Man (m); Box (b); At {{(m, x); (b, y)}}; {step}; {box} | ] ->
  [m, b, x, y, z | At {{(m, y); (b, z)}} | ] emb At
  update :steps(m) = :steps(m) + 1
  pre :steps(m) < {BUDGET} and not Solved()
  post Valid()
""")
    return "\n".join(out)


SOKOBAN_LOC = """
LOC 0 {
  PLAYER man {
    PAYOFF :(Solved())
    MOVES
      [WalkLeft -> 0]; [WalkRight -> 0]; [WalkUp -> 0]; [WalkDown -> 0];
      [PushLeft -> 0]; [PushRight -> 0]; [PushUp -> 0]; [PushDown -> 0]
  }
}
"""

PLUS = """// Sokoban++: the thesis's replacement effect (its Example 13).
//
// Rules: as sokoban (games/sokoban.toss): one player, the man, in a walled
// level with floor, targets and as many boxes as targets; a move is a step
// of the man to one of the four neighbouring cells, and walls stop him.
// The difference: if an object (the man or a box) would move to a cell
// holding another object, instead that other object is moved one cell in
// the same direction. So the man pushes a whole row of boxes, as long as
// the cell after the row is not a wall. The play ends, won, as soon as
// every target holds a box, or, not won, after {budget} moves.
//
// Payoffs: 1 when every target holds a box, else 0.
//
// Model: cells are board elements with R and C from the board; the man is
// Man and the boxes Box, unary relations of cells, both matched exactly;
// walls are Wall and targets Target. The replacement effect, applied again
// to each box displaced, moves a row of boxes b ... e one cell on, with the
// man onto b. Boxes are alike, so that is one change: the man's cell a
// loses Man, b becomes the man's, and the cell f after the row gets a box.
// The row is a reflexive transitive closure: RowRight(b, e) holds when the
// cells from b to e are boxes in a line to the right. The step counter is
// :steps of the element clock.

PLAYERS man

REL Solved() = all x (Target(x) -> Box(x))
"""

PLUS_RULES = {
    "Left": ("R (b, a)", "R(y, x)"),
    "Right": ("R (a, b)", "R(x, y)"),
    "Up": ("C (a, b)", "C(x, y)"),
    "Down": ("C (b, a)", "C(y, x)"),
}


def plus_rules():
    out = []
    for d, (step, rel) in PLUS_RULES.items():
        after = rel.replace("x", "e").replace("y", "f")
        out.append(f"""REL Row{d}(x, y) = tc x, y {rel} and Box(y)
RULE Walk{d}:
  [k, a, b | Clock (k); Man (a); {step} | ] -> [k, a, b | Man (b) | ]
  emb Man, Box
  update :steps(k) = :steps(k) + 1
  pre :steps(k) < {BUDGET} and not Solved() and not Wall(b)
RULE Push{d}:
  [k, a, b, f | Clock (k); Man (a); Box (b); {step} | ] ->
  [k, a, b, f | Man (b); Box (f) | ]
  emb Man, Box
  update :steps(k) = :steps(k) + 1
  pre :steps(k) < {BUDGET} and not Solved() and not Wall(f) and
    ex e (Row{d}(b, e) and {after})
""")
    return "\n".join(out)


def board(level):
    """The level's rows as a board literal's rows, and the man's and the
    boxes' cells (chess names, a1 bottom left)."""
    rows = [r.strip() for r in level.strip("\n").splitlines() if r.strip()]
    height = len(rows)
    cells, man, boxes = [], None, []
    for i, row in enumerate(rows):
        line = []
        for j, ch in enumerate(row):
            name = f"{'abcdefghijklmnopqrstuvwxyz'[j]}{height - i}"
            target = ch in "T*+"
            line.append("Wall" if ch == "#" else "Target" if target else ".")
            if ch in "@+":
                man = name
            if ch in "$*":
                boxes.append(name)
        cells.append(line)
    width = max(len(line) for line in cells)
    for line in cells:
        assert len(line) == width, "a level must be rectangular"
    cell_width = max(len(c) for line in cells for c in line)
    text = "\n".join("  " + " ".join(c.ljust(cell_width) for c in line).rstrip() for line in cells)
    return text, man, boxes


def sokoban_start(level):
    text, man, boxes = board(level)
    objects = ["m"] + [f"box{i + 1}" for i in range(len(boxes))]
    at = [f"(m, {man})"] + [f"(box{i + 1}, {c})" for i, c in enumerate(boxes)]
    box_set = "; ".join(objects[1:])
    return (
        f"START [{', '.join(objects)} | Man (m); Box {{{box_set}}}; At {{{'; '.join(at)}}};\n"
        f"  | steps {{}} ] \"\n{text}\n\"\n"
    )


def plus_start(level):
    text, man, boxes = board(level)
    return (
        f"START [clock | Clock (clock); Man ({man}); Box {{{'; '.join(boxes)}}};\n"
        f"  | steps {{}} ] \"\n{text}\n\"\n"
    )


def main():
    here = osp.dirname(osp.abspath(__file__))
    games = osp.join(here, "..")
    titles = {"sokoban": ", level 1", "sokoban-2": ", level 2", "sokoban-3": ", level 3"}
    for name, title in titles.items():
        text = SOKOBAN.format(title=title, budget=BUDGET)
        text += "\n" + sokoban_rules() + SOKOBAN_LOC + "\n" + sokoban_start(LEVELS[name])
        with open(osp.join(games, f"{name}.toss"), "w") as f:
            f.write(text)
    # Both games name their rules alike, so they share the location.
    text = PLUS.format(budget=BUDGET) + "\n" + plus_rules() + SOKOBAN_LOC
    text += "\n" + plus_start(LEVELS["sokoban-plus"])
    with open(osp.join(games, "sokoban-plus.toss"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
