"""An independent model of the sokoban games, for tests/patterns.rs.

Reads the level drawings of games/gen/sokoban.py and plays the rules of the
games' headers directly on the grid: perft counts (moves to depth d), the
number of cells the man reaches by steps alone, and the length of the
shortest solution (breadth-first search). Run: python3
tests/oracles/sokoban.py
"""
import os.path as osp
import sys

sys.path.insert(0, osp.join(osp.dirname(osp.abspath(__file__)), "..", "..", "games", "gen"))
from sokoban import LEVELS, BUDGET  # noqa: E402

DIRS = [(-1, 0), (1, 0), (0, 1), (0, -1)]  # left, right, up, down (row up)


def parse(level):
    rows = [r.strip() for r in level.strip("\n").splitlines() if r.strip()]
    walls, targets, boxes, man = set(), set(), set(), None
    h = len(rows)
    for i, row in enumerate(rows):
        for j, ch in enumerate(row):
            p = (j, h - 1 - i)
            if ch == "#":
                walls.add(p)
            if ch in "T*+":
                targets.add(p)
            if ch in "$*":
                boxes.add(p)
            if ch in "@+":
                man = p
    return walls, targets, frozenset(boxes), man


def moves(walls, state, rows):
    """Successor states: plain sokoban pushes one box, sokoban++ a row."""
    man, boxes = state
    out = []
    for dx, dy in DIRS:
        b = (man[0] + dx, man[1] + dy)
        if b in walls:
            continue
        if b not in boxes:
            out.append((b, boxes))
            continue
        e = b
        while (e[0] + dx, e[1] + dy) in boxes and rows:
            e = (e[0] + dx, e[1] + dy)
        f = (e[0] + dx, e[1] + dy)
        if f in walls or f in boxes:
            continue
        out.append((b, (boxes - {b}) | {f}))
    return out


def solved(targets, state):
    return targets <= state[1]


def perft(walls, targets, state, depth, rows, steps=0):
    if depth == 0:
        return 1
    if solved(targets, state) or steps >= BUDGET:
        return 0
    return sum(perft(walls, targets, s, depth - 1, rows, steps + 1) for s in moves(walls, state, rows))


def reach(walls, state):
    man, boxes = state
    seen, todo = {man}, [man]
    while todo:
        p = todo.pop()
        for dx, dy in DIRS:
            q = (p[0] + dx, p[1] + dy)
            if q not in walls and q not in boxes and q not in seen:
                seen.add(q)
                todo.append(q)
    return len(seen)


def shortest(walls, targets, state, rows):
    frontier, seen, d = [state], {state}, 0
    while frontier:
        if any(solved(targets, s) for s in frontier):
            return d
        nxt = []
        for s in frontier:
            for t in moves(walls, s, rows):
                if t not in seen:
                    seen.add(t)
                    nxt.append(t)
        frontier, d = nxt, d + 1
    return None


for name, level in LEVELS.items():
    walls, targets, boxes, man = parse(level)
    rows = name == "sokoban-plus"
    start = (man, boxes)
    counts = [perft(walls, targets, start, d, rows) for d in range(1, 7)]
    plain = shortest(walls, targets, start, False)
    print(f"{name}: perft {counts}, reach {reach(walls, start)}, "
          f"shortest {shortest(walls, targets, start, rows)} (single pushes: {plain})")
