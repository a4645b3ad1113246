"""Generates games/chess.toss (run: python3 games/gen/chess.py [OUT [FEN]]).

With --variant plus it writes games/chess-plus.toss (the thesis's chess++
triggers), with --variant magic games/magic-chess.toss (the thesis's magic
chess with its three exceptions); the headers below give their rules.

The rules are in the header below; the move tables of the starting
structure and the rules of both colours are generated. An optional FEN
(white to move) gives another starting position, for perft tests such as
"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -" (48,
2039, 97862).
"""
import sys, os.path as osp
VARIANT = 'fide'
if '--variant' in sys.argv:
    i = sys.argv.index('--variant'); VARIANT = sys.argv[i + 1]; del sys.argv[i:i + 2]
assert VARIANT in ('fide', 'plus', 'magic', 'threefold'), VARIANT
cols = "abcdefgh"
def nm(c, r): return f"{cols[c-1]}{r}"
def on(c, r): return 1 <= c <= 8 and 1 <= r <= 8
sqs = [(c, r) for r in range(1, 9) for c in range(1, 9)]
def pairs(deltas, slide=False):
    out = []
    for (c, r) in sqs:
        for (dc, dr) in deltas:
            k = 1
            while on(c + k*dc, r + k*dr):
                out.append((nm(c, r), nm(c + k*dc, r + k*dr)))
                if not slide: break
                k += 1
    return out
KN = [(1,2),(2,1),(-1,2),(-2,1),(1,-2),(2,-1),(-1,-2),(-2,-1)]
KG = [(1,0),(-1,0),(0,1),(0,-1),(1,1),(1,-1),(-1,1),(-1,-1)]
ROOKD = [(1,0),(-1,0),(0,1),(0,-1)]; BISHD = [(1,1),(1,-1),(-1,1),(-1,-1)]
NJ = pairs(KN); KA = pairs(KG); RL = pairs(ROOKD, True); BL = pairs(BISHD, True)
def tup(name, ts):
    out = []; line = f"  {name} {{"
    for i, t in enumerate(ts):
        s = "(" + ", ".join(t) + ")" + ("; " if i < len(ts) - 1 else "")
        if len(line) + len(s) > 78: out.append(line.rstrip()); line = "    "
        line += s
    out.append(line + "}")
    return "\n".join(out)

# rays: (name, step(u, v) meaning v is the next square after u)
RAYS = {'E': 'R({u}, {v})', 'Wd': 'R({v}, {u})', 'N': 'C({u}, {v})', 'S': 'C({v}, {u})',
        'NE': 'DiagA({u}, {v})', 'SW': 'DiagA({v}, {u})', 'SE': 'DiagB({u}, {v})', 'NW': 'DiagB({v}, {u})'}
RD = ['E', 'Wd', 'N', 'S']; BD = ['NE', 'SW', 'SE', 'NW']
def st(d, u, v): return RAYS[d].format(u=u, v=v)

defs = []
defs.append("REL Empty(x) = not W(x) and not B(x)")
defs.append("// Ray d: y is reached from x along direction d over empty squares\n// strictly between (y itself may be occupied).")
for d in RAYS:
    defs.append(f"REL Ray{d}(x, y) = ex z ((tc x, z {st(d,'x','z')} and Empty(z)) and {st(d,'z','y')})")
defs.append("REL RookSlide(x, y) = " + " or ".join(f"Ray{d}(x, y)" for d in RD))
defs.append("REL BishopSlide(x, y) = " + " or ".join(f"Ray{d}(x, y)" for d in BD))
# the same rays in the position after a move from a to b capturing on v
# (v = b except en passant): empty squares are then Empty or a or v, not b.
defs.append("// The same after a move from a to b that captures on v (v = b except for\n// en passant): a and v are then empty, b is occupied.")
defs.append("REL EmptyAfter(z, a, b, v) = (Empty(z) or z = a or z = v) and z != b")
for d in RAYS:
    defs.append(f"REL After{d}(x, y, a, b, v) =\n  ex z ((tc x, z {st(d,'x','z')} and EmptyAfter(z, a, b, v)) and {st(d,'z','y')})")
defs.append("REL RookSlideAfter(x, y, a, b, v) =\n  " + " or ".join(f"After{d}(x, y, a, b, v)" for d in RD))
defs.append("REL BishopSlideAfter(x, y, a, b, v) =\n  " + " or ".join(f"After{d}(x, y, a, b, v)" for d in BD))

COL = {
 'White': dict(me='W', op='B', fwd=lambda u, v: f"C({u}, {v})", capR=lambda u, v: f"DiagA({u}, {v})", capL=lambda u, v: f"DiagB({v}, {u})",
               start=2, promo=8, eprow=5, loc=0, nxt=1, Op='Black'),
 'Black': dict(me='B', op='W', fwd=lambda u, v: f"C({v}, {u})", capR=lambda u, v: f"DiagB({u}, {v})", capL=lambda u, v: f"DiagA({v}, {u})",
               start=7, promo=1, eprow=4, loc=1, nxt=0, Op='White'),
}
for S, c in COL.items():
    me = c['me']
    # attacks by this colour on square s
    pawnatt = f"{c['capR']('x','s')} or {c['capL']('x','s')}"
    defs.append(f"""// s is attacked by a {S.lower()} piece.
REL Att{me}(s) =
  (ex x (NJ(s, x) and {me}(x) and Knight(x))) or
  (ex x (KA(s, x) and {me}(x) and King(x))) or
  (ex x ({me}(x) and Pawn(x) and ({pawnatt}))) or
  (ex x (RL(s, x) and {me}(x) and (Rook(x) or Queen(x)) and RookSlide(x, s))) or
  (ex x (BL(s, x) and {me}(x) and (Bishop(x) or Queen(x)) and BishopSlide(x, s)))
REL Att{me}After(s, a, b, v) = ex x ({me}(x) and x != b and x != v and (
  (NJ(s, x) and Knight(x)) or (KA(s, x) and King(x)) or
  (Pawn(x) and ({pawnatt})) or
  (RL(s, x) and (Rook(x) or Queen(x)) and RookSlideAfter(x, s, a, b, v)) or
  (BL(s, x) and (Bishop(x) or Queen(x)) and BishopSlideAfter(x, s, a, b, v))))""")
for S, c in COL.items():
    me, op = c['me'], c['op']
    if VARIANT == 'magic':
        pawnatt = f"{c['capR']('x','s')} or {c['capL']('x','s')}"
        defs.append(f"""// x is a {S.lower()} piece that attacks the {COL[c['Op']]['me']} king.
REL {S}Attacker(x) = {me}(x) and ex s ({op}(s) and King(s) and (
  (NJ(s, x) and Knight(x)) or (KA(s, x) and King(x)) or
  (Pawn(x) and ({pawnatt})) or
  (RL(s, x) and (Rook(x) or Queen(x)) and RookSlide(x, s)) or
  (BL(s, x) and (Bishop(x) or Queen(x)) and BishopSlide(x, s))))
// {S} has lost: its king was captured or its health is 0 or less.
REL {S}Lost() = not (ex x ({me}(x) and King(x))) or (ex k (Clock(k) and :h{me.lower()}(k) <= 0))""")
        continue
    defs.append(f"""REL {S}InCheck() = ex s ({me}(s) and King(s) and Att{op}(s))
// After the move a -> b capturing on v, the {S.lower()} king is not attacked.
REL {S}SafeAfter(a, b, v) = all s (((({me}(s) and King(s) and s != a) or
  (s = b and King(a)))) -> not Att{op}After(s, a, b, v))
// {S} can move a piece from a to b, ignoring checks (castling excluded).
REL {S}Pseudo(a, b) = {me}(a) and not {me}(b) and not King(b) and (
  (Knight(a) and NJ(a, b)) or (King(a) and KA(a, b)) or
  ((Rook(a) or Queen(a)) and RookSlide(a, b)) or
  ((Bishop(a) or Queen(a)) and BishopSlide(a, b)) or
  (Pawn(a) and (({c['fwd']('a','b')} and Empty(b)) or
    (:y(a) = {c['start']} and Empty(b) and ex m ({c['fwd']('a','m')} and {c['fwd']('m','b')} and Empty(m))) or
    (({c['capR']('a','b')} or {c['capL']('a','b')}) and {op}(b)))))
// {S} has a legal move other than castling (used when in check).
REL {S}CanMove() =
  (ex a, b ({S}Pseudo(a, b) and {S}SafeAfter(a, b, b))) or
  (ex a, v, b, k ({me}(a) and Pawn(a) and {op}(v) and Pawn(v) and (R(a, v) or R(v, a)) and
    {c['fwd']('v','b')} and :y(a) = {c['eprow']} and Clock(k) and :ep(k) = :x(v) and
    {S}SafeAfter(a, b, v)))""")
defs.append("// 100 consecutive plies without a pawn move or a capture.\nREL Quiet100() = ex k (Clock(k) and :n(k) >= 100)")
if VARIANT == 'threefold':
    defs.append("// The position occurs for the third time.\nREL Threefold() = ex k (Clock(k) and :seen(k) >= 2)")
if VARIANT == 'magic':
    defs.append("REL Going() = not WhiteLost() and not BlackLost()")

EMB = "emb W, B, Pawn, Knight, Bishop, Rook, Queen, King, Cr"
QUIET = "update :n(k) = :n(k) + 1; :ep(k) = 0"
RESET = "update :n(k) = 0; :ep(k) = 0"
rules = []; labels = {0: [], 1: [], 2: [], 3: []}
# Magic chess ignores checks (a king can be captured) and needs both
# players going; the other variants forbid leaving the own king attacked.
GOING = " and Going()" if VARIANT == 'magic' else " and :seen(k) < 2" if VARIANT == 'threefold' else ""
def rule(S, name, lhs_els, lhs, rhs, upd, pre, loc):
    full = f"{S}{name}"
    els = ", ".join(lhs_els)
    post = "" if VARIANT == 'magic' else f"\n  post not {S}InCheck()"
    rules.append(f"""RULE {full}:
  [{els} | Clock (k); {lhs} | ] ->
  [{els} | Clock (k); {rhs} | ] {EMB}
  {upd}
  pre :n(k) < 100{GOING}{(' and ' + pre) if pre else ''}{post}""")
    labels[loc].append(full)
PIECES = [('Knight', 'NJ', None), ('Bishop', 'BL', 'BishopSlide'), ('Rook', 'RL', 'RookSlide'),
          ('Queen', 'RL', 'RookSlide'), ('Queen', 'BL', 'BishopSlide'), ('King', 'KA', None)]
for S, c in COL.items():
    me, op, loc = c['me'], c['op'], c['loc']
    CAP = f"{op} (b); _opt_Pawn (b); _opt_Knight (b); _opt_Bishop (b); _opt_Rook (b); _opt_Queen (b); _opt_Cr (b)"
    if VARIANT == 'magic':
        CAP += "; _opt_King (b)"
    for (T, G, sl) in PIECES:
        suffix = "" if T != 'Queen' else ("Line" if G == 'RL' else "Diag")
        pre = f"{sl}(a, b)" if sl else ""
        rule(S, f"{T}{suffix}", ["k", "a", "b"], f"{me} (a); {T} (a); _opt_Cr (a); {G} (a, b)",
             f"{me} (b); {T} (b)", QUIET, pre, loc)
        rule(S, f"{T}{suffix}Capture", ["k", "a", "b"], f"{me} (a); {T} (a); _opt_Cr (a); {CAP};\n    {G} (a, b)",
             f"{me} (b); {T} (b)", RESET, pre, loc)
    fwd = c['fwd']('a', 'b').replace('(', ' (')
    PR = ['Queen', 'Rook', 'Bishop', 'Knight']
    rule(S, "PawnStep", ["k", "a", "b"], f"{me} (a); Pawn (a); {fwd}", f"{me} (b); Pawn (b)", RESET, f":y(b) != {c['promo']}", loc)
    for T in PR:
        rule(S, f"PawnStepTo{T}", ["k", "a", "b"], f"{me} (a); Pawn (a); {fwd}", f"{me} (b); {T} (b)", RESET, f":y(b) = {c['promo']}", loc)
    dbl = f"C {{(a, m); (m, b)}}" if me == 'W' else "C {(m, a); (b, m)}"
    rule(S, "PawnDouble", ["k", "a", "m", "b"], f"{me} (a); Pawn (a); {dbl}", f"{me} (b); Pawn (b)",
         "update :n(k) = 0; :ep(k) = :x(a)", f":y(a) = {c['start']}", loc)
    for side, rel in (("Right", c['capR']('a', 'b')), ("Left", c['capL']('a', 'b'))):
        relp = rel.replace('(', ' (')
        # chess++: a pawn that captures becomes the captured piece's kind;
        # only a pawn that captures a pawn may promote.
        cap = f"{op} (b); Pawn (b)" if VARIANT == 'plus' else CAP
        rule(S, f"PawnCapture{side}", ["k", "a", "b"], f"{me} (a); Pawn (a); {cap};\n    {relp}", f"{me} (b); Pawn (b)", RESET, f":y(b) != {c['promo']}", loc)
        for T in PR:
            rule(S, f"PawnCapture{side}To{T}", ["k", "a", "b"], f"{me} (a); Pawn (a); {cap};\n    {relp}", f"{me} (b); {T} (b)", RESET, f":y(b) = {c['promo']}", loc)
        if VARIANT == 'plus':
            for T in ['Knight', 'Bishop', 'Rook', 'Queen']:
                rule(S, f"PawnCapture{side}Becomes{T}", ["k", "a", "b"], f"{me} (a); Pawn (a); {op} (b); {T} (b); _opt_Cr (b);\n    {relp}", f"{me} (b); {T} (b)", RESET, "", loc)
    # en passant: the enemy pawn v beside a has just made a double step
    vb = "C (v, b)" if me == 'W' else "C (b, v)"
    for side, rv in (("Right", "R (a, v)"), ("Left", "R (v, a)")):
        rule(S, f"EnPassant{side}", ["k", "a", "v", "b"], f"{me} (a); Pawn (a); {op} (v); Pawn (v); {rv}; {vb}",
             f"{me} (b); Pawn (b)", RESET, f":y(a) = {c['eprow']} and :ep(k) = :x(v)", loc)
    # castling: king and rook unmoved (Cr), squares between empty, king's squares not attacked
    rule(S, "CastleShort", ["k", "e", "f", "g", "h"], f"{me} (e); King (e); Cr (e); {me} (h); Rook (h); Cr (h);\n    R {{(e, f); (f, g); (g, h)}}",
         f"{me} (g); King (g); {me} (f); Rook (f)", QUIET, f"not Att{op}(e) and not Att{op}(f) and not Att{op}(g)", loc)
    rule(S, "CastleLong", ["k", "e", "d", "c", "b", "a"], f"{me} (e); King (e); Cr (e); {me} (a); Rook (a); Cr (a);\n    R {{(a, b); (b, c); (c, d); (d, e)}}",
         f"{me} (c); King (c); {me} (d); Rook (d)", QUIET, f"not Att{op}(e) and not Att{op}(d) and not Att{op}(c)", loc)

for S, c in COL.items():
    me, op, loc = c['me'], c['op'], c['loc']
    if VARIANT == 'plus':
        # The optional king move after the turn's move: the king's usual
        # moves (en passant rights kept), or a pass.
        CAPK = f"{op} (b); _opt_Pawn (b); _opt_Knight (b); _opt_Bishop (b); _opt_Rook (b); _opt_Queen (b); _opt_Cr (b)"
        rule(S, "ExtraKing", ["k", "a", "b"], f"{me} (a); King (a); _opt_Cr (a); KA (a, b)",
             f"{me} (b); King (b)", "update :n(k) = :n(k) + 1", "", loc + 2)
        rule(S, "ExtraKingCapture", ["k", "a", "b"], f"{me} (a); King (a); _opt_Cr (a); {CAPK};\n    KA (a, b)",
             f"{me} (b); King (b)", "update :n(k) = 0", "", loc + 2)
        rules.append(f"""RULE {S}Pass:
  [k | Clock (k) | ] -> [k | | ]""")
        labels[loc + 2].append(f"{S}Pass")
    if VARIANT == 'magic':
        # The end of the turn: the mover loses the strength of the
        # opponent's pieces that attack its king. Exception 1 first (two
        # pawns: 15, not 12), then 3 (the attacker's health below 10: +1
        # per piece), then 2 (the attacker's health exactly 1: double).
        O = c['Op']; ho = f":h{op.lower()}(k)"
        rules.append(f"""RULE {S}EndOfTurn:
  [k | Clock (k) | ] -> [k | | ]
  update :h{me.lower()}(k) = :h{me.lower()}(k) - (
    let :pawns = Sum (x | {O}Attacker(x) and Pawn(x) : 1) in
    (6 * :pawns + 3 * :(:pawns = 2) +
     Sum (x | {O}Attacker(x) :
       4 * :(Knight(x) or Bishop(x)) + 3 * :(Rook(x)) + 2 * :(Queen(x)) + :(King(x))) +
     :({ho} < 10) * Sum (x | {O}Attacker(x) : 1)) *
    (1 + :({ho} = 1)))""")
        labels[loc + 2].append(f"{S}EndOfTurn")

def moves(loc, tgt=None):
    if tgt is None:
        tgt = 1 - loc if VARIANT in ('fide', 'threefold') or loc >= 2 else loc + 2
        tgt = 1 - (loc - 2) if loc >= 2 else tgt
    ls = [f"[{l} -> {tgt}]" for l in labels[loc]]
    out = []; line = "    MOVES "
    for i, l in enumerate(ls):
        s = l + ("; " if i < len(ls) - 1 else "")
        if len(line) + len(s) > 78: out.append(line.rstrip()); line = "          "
        line += s
    out.append(line)
    return "\n".join(out)

def board(fen):
    M = {'p': 'Pawn', 'n': 'Knight', 'b': 'Bishop', 'r': 'Rook', 'q': 'Queen', 'k': 'King'}
    parts = fen.split()
    rows = parts[0].split('/'); cast = parts[2] if len(parts) > 2 else 'KQkq'
    crs = set()
    if 'K' in cast: crs |= {'e1', 'h1'}
    if 'Q' in cast: crs |= {'e1', 'a1'}
    if 'k' in cast: crs |= {'e8', 'h8'}
    if 'q' in cast: crs |= {'e8', 'a8'}
    out = []
    for i, row in enumerate(rows):
        r = 8 - i; c = 1; toks = []
        for ch in row:
            if ch.isdigit():
                for _ in range(int(ch)): toks.append('.'); c += 1
            else:
                t = ('W+' if ch.isupper() else 'B+') + M[ch.lower()]
                if nm(c, r) in crs: t += '+Cr'
                toks.append(t); c += 1
        out.append(toks)
    w = max(len(t) for row in out for t in row)
    return "\n".join("  " + " ".join(t.ljust(w) for t in row).rstrip() for row in out)

def locations():
    if VARIANT == 'magic':
        pay = {'white': ":(BlackLost()) - :(WhiteLost())", 'black': ":(WhiteLost()) - :(BlackLost())"}
        out = ["// The turn's move: white in 0, black in 1; the end of the turn: white's\n"
               "// in 2, black's in 3. The play ends where the player to move has no\n"
               "// legal move: a lost player, a stalemate, 100 quiet plies."]
        for loc, mover in ((0, 'white'), (1, 'black'), (2, 'white'), (3, 'black')):
            out.append(f"LOC {loc} {{")
            for p in ('white', 'black'):
                if p == mover:
                    out.append(f"  PLAYER {p} {{\n    PAYOFF {pay[p]}\n{moves(loc)}\n  }}")
                else:
                    out.append(f"  PLAYER {p} {{ PAYOFF {pay[p]} }}")
            out.append("}")
        return "\n".join(out)
    # The draws that a checkmate overrides.
    drawn = "not Quiet100() and not Threefold()" if VARIANT == 'threefold' else "not Quiet100()"
    text = f"""// White to move. The play ends here when white has no legal move
// (checkmate: white loses; stalemate: a draw) or after 100 quiet plies (a
// draw, unless white is checkmated: in check without a legal move).
LOC 0 {{
  PLAYER white {{
    PAYOFF - :(WhiteInCheck() and ({drawn} or not WhiteCanMove()))
{moves(0)}
  }}
  PLAYER black {{ PAYOFF :(WhiteInCheck() and ({drawn} or not WhiteCanMove())) }}
}}
// Black to move; symmetric.
LOC 1 {{
  PLAYER white {{ PAYOFF :(BlackInCheck() and ({drawn} or not BlackCanMove())) }}
  PLAYER black {{
    PAYOFF - :(BlackInCheck() and ({drawn} or not BlackCanMove()))
{moves(1)}
  }}
}}"""
    if VARIANT == 'plus':
        text += f"""
// The optional king move of white (2) and of black (3): the play never
// ends there, since a pass is always possible.
LOC 2 {{
  PLAYER white {{
{moves(2)}
  }}
}}
LOC 3 {{
  PLAYER black {{
{moves(3)}
  }}
}}"""
    return text

def main(path, fen, header):
    health = "; hw { clock -> 20 }; hb { clock -> 20 }" if VARIANT == 'magic' else ""
    if VARIANT == 'threefold':
        health = "; seen { clock -> 0 }"
    repetition = ("REPETITION :seen(clock) OF W, B, Pawn, Knight, Bishop, Rook, Queen, King, Cr, :ep\n\n"
                  if VARIANT == 'threefold' else "")
    text = f"""{header}
PLAYERS white, black

{repetition}""" + "\n".join(defs) + "\n\n" + "\n".join(rules) + f"""

{locations()}

// NJ: knight jumps; KA: king steps; RL: same row or column; BL: same
// diagonal (x != y). Stable tables that guide rule matching. Cr marks the
// unmoved kings and rooks (castling rights). The element clock holds n, the
// number of consecutive plies without a pawn move or capture, and ep, the
// column (1-8) of a pawn that has just made a double step (0: none).
START [ clock | Clock (clock); W:1 {{}}; B:1 {{}}; Pawn:1 {{}}; Knight:1 {{}};
  Bishop:1 {{}}; Rook:1 {{}}; Queen:1 {{}}; King:1 {{}}; Cr:1 {{}};
{tup('NJ', NJ)};
{tup('KA', KA)};
{tup('RL', RL)};
{tup('BL', BL)}
  | n {{ clock -> 0 }}; ep {{ clock -> 0 }}{health} ] "
{board(fen)}
"
"""
    open(path, 'w').write(text)

HEADER = """// Chess (FIDE move rules).
//
// Rules: the standard initial position; white moves first and the players
// alternate. All FIDE moves: king, queen, rook, bishop and knight moves and
// captures; pawn steps, double steps from the starting row, diagonal
// captures, en passant (only right after the enemy pawn's double step), and
// promotion to a queen, rook, bishop or knight (four distinct moves);
// castling on both sides (king and that rook unmoved, the squares between
// them empty, the king not in check and not passing through or landing on
// an attacked square). No move may leave the mover's own king in check.
// The play ends when the player to move has no legal move: checkmate (in
// check) loses, stalemate is a draw. The play also ends, as a draw, once
// 100 consecutive plies pass without a pawn move or a capture, unless the
// 100th such ply gives checkmate (then the mover wins). There is no
// threefold repetition and no insufficient-material rule. Perft: 20, 400,
// 8902, 197281, 4865609, ...
//
// Payoffs: win 1, draw 0, loss -1.
//
// Model: squares are board elements (a1 bottom left ... h8) with R, C,
// DiagA, DiagB and the functions x (column) and y (row). A piece is a
// colour (W, B) and a kind (Pawn, Knight, Bishop, Rook, Queen, King) on its
// square, all matched exactly; Cr marks unmoved kings and rooks (any move
// from or capture on such a square drops the mark, through the optional
// tuple _opt_Cr). A captured piece is B (W) with an optional kind. Sliding
// is a ray: a reflexive transitive closure of steps in one direction over
// empty squares. Every rule has the postcondition that the mover's king is
// not attacked. The element clock holds, in function n, the plies since the
// last pawn move or capture (every rule requires n < 100 and updates it)
// and, in function ep, the column of a pawn that has just made a double
// step (0 if none). At the 100-ply limit the payoff needs "the player to
// move has a legal move" as a formula (WhiteCanMove): it describes the
// position after each candidate move a -> b (capturing on v) by formulas
// over the current one (the ...After relations).
"""
PLUS_HEADER = """// Chess++: the thesis's triggers (its Example 11) on chess.
//
// Rules: FIDE chess as in games/chess.toss (the same moves, checks,
// checkmate, stalemate and 100-ply rule), with two triggers:
// - whenever a pawn captures a piece, the pawn becomes that piece's kind
//   (a pawn that captures a pawn stays a pawn, and may promote);
// - after each move of a turn (any move, including king moves and
//   castling), the player may also move the king: one king step or king
//   capture by the usual rules (not onto an attacked square), or nothing.
// Perft (turns): 26 at depth 1 (20 moves; after e2-e3, e2-e4, d2-d3, d2-d4,
// f2-f3 and f2-f4 the king may step forward).
//
// Payoffs: win 1, draw 0, loss -1.
//
// Model: as chess.toss. The first trigger is in the pawn capture rules:
// one per captured kind (PawnCaptureRightBecomesKnight ...), matching that
// kind exactly. The second is a trigger location: each move of white in
// location 0 leads to location 2, where white has the rules ExtraKing,
// ExtraKingCapture and Pass, all leading to black's location 1 (and
// symmetrically 1 -> 3 -> 0). The extra king move keeps the en passant
// column (ep) of the turn's move, since the opponent still replies at once.
// A turn is so two plies of one player (see the Game trait).
"""

MAGIC_HEADER = """// Magic chess: the thesis's Game 2, with its exceptions (Example 9).
//
// Rules: chess without checks, as the thesis's Game 1: the standard
// initial position and FIDE moves (castling still needs the king's squares
// unattacked), but a move may leave the own king attacked and kings may be
// captured. Each player has 20 health at the start. Pieces have strengths:
// pawn 6, knight and bishop 4, rook 3, queen 2, king 1. At the end of each
// turn the player who moved loses health equal to the total strength of
// the opponent's pieces that attack its king. The strengths change by the
// thesis's exceptions, applied in this order:
//   1. if two pawns attack the king, their total strength is 15, not 12;
//   3. if the attacking player's health is below 10, each attacking piece
//      has 1 more strength;
//   2. if the attacking player's health is exactly 1, the strength (after
//      3) is doubled.
// A player whose king is captured or whose health is 0 or less loses, and
// the play ends at once. A player to move without a legal move draws
// (stalemate), as do 100 plies without a pawn move or capture. Perft:
// 20, 400, 8902 (no move can leave a king attacked before the fourth ply).
//
// Payoffs: win 1, draw 0, loss -1.
//
// Model: as chess.toss, without the postcondition on checks, and the
// captured piece may be a king (_opt_King). Health is hw and hb of the
// element clock. The end of the turn is a trigger location: each move of
// white in location 0 leads to location 2, where white's rule EndOfTurn
// (which changes no relation) updates hw by the attackers in the position
// reached, then to black's location 1 (and 1 -> 3 -> 0 for black). Every
// move requires that neither player has lost (Going).
"""

THREEFOLD_HEADER = """// Chess with threefold repetition.
//
// Rules: FIDE chess as in games/chess.toss, and one more way to draw: when
// a position occurs for the third time in the play (not necessarily in a
// row), the play ends at once in a draw, unless the move that reached it
// gives checkmate. A position is the pieces on their squares, the side to
// move, the castling rights and the column of a pawn that has just made a
// double step (FIDE counts the last only when an en passant capture is
// possible; this game counts it always). Perft: as chess to depth 7 (a
// position cannot occur a third time in fewer than 8 plies).
//
// Payoffs: win 1, draw 0, loss -1.
//
// Model: as chess.toss, with the game history the thesis's Example 4 asks
// for: REPETITION keeps in :seen(clock) how often the current position
// occurred before in the play (the location and the relations and
// functions listed), without copies of the board in the structure: the
// engines keep one fingerprint per ply. Every move requires seen < 2.
"""

if __name__ == '__main__':
    name = {'fide': 'chess.toss', 'plus': 'chess-plus.toss', 'magic': 'magic-chess.toss',
            'threefold': 'chess-threefold.toss'}[VARIANT]
    path = sys.argv[1] if len(sys.argv) > 1 else osp.join(osp.dirname(osp.abspath(__file__)), '..', name)
    fen = sys.argv[2] if len(sys.argv) > 2 else "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
    main(path, fen, {'fide': HEADER, 'plus': PLUS_HEADER, 'magic': MAGIC_HEADER,
                     'threefold': THREEFOLD_HEADER}[VARIANT])
