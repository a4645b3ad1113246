"""Generates games/english-draughts.toss (run: python3 games/gen/english_draughts.py).

The rules are in the header below; the adjacency and jump tables of the
starting structure and the jump-chain rules of every length are generated.
"""
import os.path as osp

HEADER = """// English draughts (checkers), 8x8.
//
// Rules: the 32 dark squares of an 8x8 board (a1 is dark); black men on the
// dark squares of rows 1-3, white men on rows 6-8; black moves first and the
// players alternate. Men move one square diagonally forward (black up,
// white down) onto an empty square; kings one square diagonally in any of
// the four directions (no flying kings). A capture jumps over a diagonally
// adjacent enemy piece onto the empty square right behind it and removes
// the enemy piece; men capture forward only, kings in all four directions.
// Capturing is mandatory: if a player can capture, the move must be a
// capture. A capture continues with further jumps by the same piece while
// one exists (a piece is never jumped twice), but any complete chain may be
// chosen (no maximum-capture rule). A man that reaches the far row (row 8
// for black, row 1 for white) is crowned king and the move ends. A player
// without a legal move loses. After 20 consecutive plies without a capture
// and without a man move (that is, 20 king steps in a row) the play ends:
// a draw, unless the player to move then has no legal move, in which case
// the player who made the 20th such ply wins.
//
// Payoffs: win 1, draw 0, loss -1.
//
// Model: the elements are the 32 dark squares (with their column x and row
// y) and a clock; pieces are B, W (colour) and K (king) on squares, all
// matched exactly. One move, a whole jump chain included, is one rule
// application. A man's chain of n jumps (n <= 3, as a man only moves
// forward) names its squares and captured pieces as rule elements, linked
// by the jump relation JU (JD). A king's chain of n jumps (n <= 12, the
// number of enemy pieces) names the start a, the captured pieces o1..on
// and the end e; its intermediate landing squares are quantified in the
// precondition, because a king may land on a square twice or on its start
// square (a chain that ends on its start square is a KingCycle rule). The
// captured pieces are W (B) with an optional K (`_opt_K`), so men and kings
// are captured alike. The postcondition, that the moved piece has no
// further jump, makes every chain complete (captured pieces are already
// removed then, which is equivalent: a landing square is never a captured
// piece's square, by colour parity). The element `clock` counts, in its
// function n, the consecutive plies without a capture or a man move; every
// rule updates it and requires n < 20.
"""

cols = "abcdefgh"
def nm(c, r): return f"{cols[c-1]}{r}"
def on(c, r): return 1 <= c <= 8 and 1 <= r <= 8
dark = [(c, r) for r in range(1, 9) for c in range(1, 9) if (c + r) % 2 == 0]
DIRS = [(1, 1), (-1, 1), (1, -1), (-1, -1)]
UP = [(1, 1), (-1, 1)]; DN = [(1, -1), (-1, -1)]
def steps(dirs):
    return [(nm(c, r), nm(c+dc, r+dr)) for (c, r) in dark for (dc, dr) in dirs if on(c+dc, r+dr)]
def jumps(dirs):
    return [(nm(c, r), nm(c+dc, r+dr), nm(c+2*dc, r+2*dr)) for (c, r) in dark for (dc, dr) in dirs if on(c+2*dc, r+2*dr)]
Dg = steps(DIRS); Up = steps(UP); Dn = steps(DN)
J = jumps(DIRS); JU = jumps(UP); JD = jumps(DN)
dg = {}
for x, y in Dg: dg.setdefault(x, []).append(y)
N = sorted({(o, p) for (x, o, l) in J for p in dg[l] if p != o})
def tup(name, ts):
    body = "; ".join("(" + ", ".join(t) + ")" for t in ts)
    # wrap lines
    out = []; line = f"  {name} {{"
    for i, t in enumerate(ts):
        s = "(" + ", ".join(t) + ")" + ("; " if i < len(ts) - 1 else "")
        if len(line) + len(s) > 78: out.append(line.rstrip()); line = "    "
        line += s
    out.append(line + "}")
    return "\n".join(out)

side = {
  'Black': dict(me='B', opp='W', fwd='Up', jf='JU', crown=8, loc=0, nxt=1, can='CanJumpB', cm='BlackCanMove'),
  'White': dict(me='W', opp='B', fwd='Dn', jf='JD', crown=1, loc=1, nxt=0, can='CanJumpW', cm='WhiteCanMove'),
}
MAXK = 12
rules = []; labels = {0: [], 1: []}
for S, d in side.items():
    me, opp, fwd, jf, cr = d['me'], d['opp'], d['fwd'], d['jf'], d['crown']
    notcr = f":y(b) != {cr}"
    # simple moves
    rules.append(f"""RULE {S}ManStep:
  [k, a, b | Clock (k); {me} (a); {fwd} (a, b) | ] ->
  [k, a, b | Clock (k); {me} (b) | ] emb B, W, K
  update :n(k) = 0
  pre :n(k) < 20 and :y(b) != {cr} and not {d['can']}()""")
    rules.append(f"""RULE {S}ManStepCrown:
  [k, a, b | Clock (k); {me} (a); {fwd} (a, b) | ] ->
  [k, a, b | Clock (k); {me} (b); K (b) | ] emb B, W, K
  update :n(k) = 0
  pre :n(k) < 20 and :y(b) = {cr} and not {d['can']}()""")
    rules.append(f"""RULE {S}KingStep:
  [k, a, b | Clock (k); {me} (a); K (a); Dg (a, b) | ] ->
  [k, a, b | Clock (k); {me} (b); K (b) | ] emb B, W, K
  update :n(k) = :n(k) + 1
  pre :n(k) < 20 and not {d['can']}()""")
    labels[d['loc']] += [f"{S}ManStep", f"{S}ManStepCrown", f"{S}KingStep"]
    # man jump chains: landing squares are rule elements (a man never revisits a square)
    for n in range(1, 4):
        sq = ["a"] + [f"l{i}" for i in range(1, n)] + ["e"]
        os = [f"o{i}" for i in range(1, n+1)]
        els = ", ".join(["k"] + [x for i in range(n) for x in (sq[i], os[i])] + ["e"])
        chain = "; ".join(f"({sq[i]}, {os[i]}, {sq[i+1]})" for i in range(n))
        guide = "; ".join(f"({sq[i]}, {os[i]}); ({os[i]}, {sq[i+1]})" for i in range(n))
        caps = "; ".join(f"{opp} ({o}); _opt_K ({o})" for o in os)
        for crown in (False, True):
            nm_ = f"{S}ManJump{n}" + ("Crown" if crown else "")
            rhs_e = f"{me} (e); K (e)" if crown else f"{me} (e)"
            cond = f":y(e) = {cr}" if crown else f":y(e) != {cr} and\n    not (ex o, y ({jf}(e, o, y) and {opp}(o) and Free(y)))"
            where = "pre :n(k) < 20" if crown else "pre :n(k) < 20"
            rules.append(f"""RULE {nm_}:
  [{els} | Clock (k); {me} (a); {caps};
    {jf} {{{chain}}};
    {fwd} {{{guide}}} | ] ->
  [{els} | Clock (k); {rhs_e} | ] emb B, W, K
  update :n(k) = 0
  pre :n(k) < 20 and {':y(e) = ' + str(cr) if crown else ':y(e) != ' + str(cr)}""" + ("" if crown else f"""
  post not (ex o, y ({jf}(e, o, y) and {opp}(o) and Free(y)))"""))
            labels[d['loc']].append(nm_)
    # king jump chains: intermediate landing squares are quantified (a king may
    # pass a square twice, or its start square); Dg and N only guide matching.
    for n in range(1, MAXK + 1):
        os = [f"o{i}" for i in range(1, n+1)]
        els = ", ".join(["k", "a"] + os + ["e"])
        guide = [f"Dg (a, o1)"] + [f"N ({os[i]}, {os[i+1]})" for i in range(n-1)] + [f"Dg ({os[-1]}, e)"]
        caps = "; ".join(f"{opp} ({o}); _opt_K ({o})" for o in os)
        ls = ["a"] + [f"l{i}" for i in range(1, n)] + ["e"]
        steps_ = " and ".join(f"J({ls[i]}, {os[i]}, {ls[i+1]})" for i in range(n))
        frees = " and ".join(f"(Free({l}) or {l} = a)" for l in ls[1:-1])
        if n == 1:
            pre = f"pre :n(k) < 20 and J(a, o1, e)"
        else:
            pre = f"pre :n(k) < 20 and\n    ex {', '.join(ls[1:-1])} ({steps_} and\n      {frees})"
        rules.append(f"""RULE {S}KingJump{n}:
  [{els} | Clock (k); {me} (a); K (a); {caps};
    {'; '.join(guide)} | ] ->
  [{els} | Clock (k); {me} (e); K (e) | ] emb B, W, K
  update :n(k) = 0
  {pre}
  post not (ex o, y (J(e, o, y) and {opp}(o) and Free(y)))""")
        labels[d['loc']].append(f"{S}KingJump{n}")
    # king chains that end on the start square (closed trails of even length >= 4)
    for n in range(4, MAXK + 1, 2):
        os = [f"o{i}" for i in range(1, n+1)]
        els = ", ".join(["k", "a"] + os)
        guide = [f"Dg (a, o1)"] + [f"N ({os[i]}, {os[i+1]})" for i in range(n-1)]
        caps = "; ".join(f"{opp} ({o}); _opt_K ({o})" for o in os)
        ls = ["a"] + [f"l{i}" for i in range(1, n)] + ["a"]
        steps_ = " and ".join(f"J({ls[i]}, {os[i]}, {ls[i+1]})" for i in range(n))
        frees = " and ".join(f"(Free({l}) or {l} = a)" for l in ls[1:-1])
        rules.append(f"""RULE {S}KingCycle{n}:
  [{els} | Clock (k); {me} (a); K (a); {caps};
    {'; '.join(guide)} | ] ->
  [{els} | Clock (k); {me} (a); K (a) | ] emb B, W, K
  update :n(k) = 0
  pre :n(k) < 20 and
    ex {', '.join(ls[1:-1])} ({steps_} and
      {frees})
  post not (ex o, y (J(a, o, y) and {opp}(o) and Free(y)))""")
        labels[d['loc']].append(f"{S}KingCycle{n}")

def moves(loc):
    tgt = 1 - loc
    ls = [f"[{l} -> {tgt}]" for l in labels[loc]]
    out = []; line = "    MOVES "
    for i, l in enumerate(ls):
        s = l + ("; " if i < len(ls) - 1 else "")
        if len(line) + len(s) > 78: out.append(line.rstrip()); line = "          "
        line += s
    out.append(line)
    return "\n".join(out)

# The elements: the clock, then the 32 dark squares in board order (row 8
# first, left to right), the order of the 8x8 board literal, so that the
# canonical move order is that of a full board.
squares = [nm(c, r) for r in range(8, 0, -1) for c in range(1, 9) if (c + r) % 2 == 0]
black0 = [nm(c, r) for r in range(8, 0, -1) for c in range(1, 9) if (c + r) % 2 == 0 and r <= 3]
white0 = [nm(c, r) for r in range(8, 0, -1) for c in range(1, 9) if (c + r) % 2 == 0 and r >= 6]
def wrap(items, first, indent="    "):
    out = []; line = first
    for i, it in enumerate(items):
        s = it + (", " if i < len(items) - 1 else "")
        if len(line) + len(s) > 78: out.append(line.rstrip()); line = indent
        line += s
    out.append(line)
    return "\n".join(out)
def fun(name, vals):
    return wrap([f"{e} -> {v}" for e, v in vals], f"  {name} {{ ") + " }"
def rel1(name, elems):
    return wrap(elems, f"  {name} {{ ").replace(", ", "; ") + " }"
header = HEADER
body = f"""{header}
PLAYERS black, white

REL Free(x) = not B(x) and not W(x)
REL CanJumpB() = ex x, o, y (B(x) and W(o) and Free(y) and
  ((K(x) and J(x, o, y)) or (not K(x) and JU(x, o, y))))
REL CanJumpW() = ex x, o, y (W(x) and B(o) and Free(y) and
  ((K(x) and J(x, o, y)) or (not K(x) and JD(x, o, y))))
REL BlackCanMove() = CanJumpB() or ex x, y (B(x) and Free(y) and
  ((K(x) and Dg(x, y)) or (not K(x) and Up(x, y))))
REL WhiteCanMove() = CanJumpW() or ex x, y (W(x) and Free(y) and
  ((K(x) and Dg(x, y)) or (not K(x) and Dn(x, y))))
// 20 consecutive plies without a capture and without a man move.
REL Quiet20() = ex c (Clock(c) and :n(c) >= 20)

""" + "\n".join(rules) + f"""

// Black to move. The play ends here when black has no legal move (black
// loses) or after 20 quiet plies (a draw if black could still move, else
// white, who made the 20th quiet ply, wins).
LOC 0 {{
  PLAYER black {{
    PAYOFF :(Quiet20() and BlackCanMove()) - 1
{moves(0)}
  }}
  PLAYER white {{ PAYOFF 1 - :(Quiet20() and BlackCanMove()) }}
}}
// White to move; symmetric.
LOC 1 {{
  PLAYER black {{ PAYOFF 1 - :(Quiet20() and WhiteCanMove()) }}
  PLAYER white {{
    PAYOFF :(Quiet20() and WhiteCanMove()) - 1
{moves(1)}
  }}
}}

// Dg: diagonal neighbours; Up, Dn: diagonal neighbours above, below; J, JU,
// JD: jumps (from, over, to) in any, the upward, the downward direction; N:
// the piece p can be the next one jumped after o. Only dark squares.
START [ {wrap(["clock"] + squares, "", "    ").strip()} |
  Clock (clock);
{rel1('B', black0)};
{rel1('W', white0)};
  K:1 {{}};
{tup('Dg', Dg)};
{tup('Up', Up)};
{tup('Dn', Dn)};
{tup('J', J)};
{tup('JU', JU)};
{tup('JD', JD)};
{tup('N', N)}
  | n {{ clock -> 0 }};
{fun('x', [(nm(c, r), c) for r in range(8, 0, -1) for c in range(1, 9) if (c + r) % 2 == 0])};
{fun('y', [(nm(c, r), r) for r in range(8, 0, -1) for c in range(1, 9) if (c + r) % 2 == 0])} ]
"""
open(osp.join(osp.dirname(osp.abspath(__file__)), '..', 'english-draughts.toss'), 'w').write(body)
