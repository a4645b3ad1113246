"""Perft of pawn-whopping from the rules in the header of games/pawn-whopping.toss,
by a move generator written independently of the Toss engine (tests/games.rs
checks the engine against these counts). Run: python3 tests/oracles/pawn_whopping_perft.py"""

def moves(W, B, white):
    own, opp = (W, B) if white else (B, W)
    d = 1 if white else -1
    start = 2 if white else 7
    last_opp = 1 if white else 8  # opponent's winning row
    # terminal if opponent has reached own home row
    if any(r == (1 if white else 8) for (_, r) in opp):
        return []
    occ = W | B
    out = []
    for (c, r) in sorted(own):
        f = (c, r + d)
        if 1 <= r + d <= 8 and f not in occ:
            out.append(((c, r), f, None))
            f2 = (c, r + 2 * d)
            if r == start and f2 not in occ:
                out.append(((c, r), f2, None))
        for dc in (-1, 1):
            t = (c + dc, r + d)
            if t in opp:
                out.append(((c, r), t, t))
    return out

def perft(W, B, white, depth):
    if depth == 0:
        return 1
    ms = moves(W, B, white)
    if depth == 1:
        return len(ms)
    n = 0
    for (a, b, cap) in ms:
        if white:
            W2 = (W - {a}) | {b}; B2 = B - {b}
        else:
            B2 = (B - {a}) | {b}; W2 = W - {b}
        n += perft(W2, B2, not white, depth - 1)
    return n

W = frozenset((c, 2) for c in range(1, 9))
B = frozenset((c, 7) for c in range(1, 9))
print([perft(W, B, True, d) for d in range(1, 6)])
