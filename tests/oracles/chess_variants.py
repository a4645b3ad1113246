"""Perft of chess++ and magic chess by python-chess, for tests/patterns.rs.

An independent model of the rules in the headers of games/chess-plus.toss
and games/magic-chess.toss, on python-chess's move generator (pip install
chess). Counts are in turns, as `toss perft` counts them: a chess++ turn is
the move and then the optional king move (or the pass); a magic chess turn
is the move (its end-of-turn health update is not a choice).
Run: python3 tests/oracles/chess_variants.py [DEPTH]
"""
import sys

import chess


def plus_turns(board):
    """The positions after each chess++ turn of the side to move."""
    side = board.turn
    for m in list(board.legal_moves):
        captured = board.piece_at(m.to_square)
        kind = None
        if board.piece_type_at(m.from_square) == chess.PAWN and captured is not None:
            if captured.piece_type != chess.PAWN:
                if m.promotion not in (None, chess.QUEEN):
                    continue  # one move: the pawn becomes the captured kind
                kind = captured.piece_type
        b = board.copy(stack=False)
        b.push(m)
        if kind is not None:
            b.set_piece_at(m.to_square, chess.Piece(kind, side))
        yield b  # the pass
        # The optional king move: the side moves again, king steps only.
        ep = b.ep_square
        k = b.copy(stack=False)
        k.turn = side
        k.ep_square = None
        for km in list(k.legal_moves):
            if k.piece_type_at(km.from_square) != chess.KING or k.is_castling(km):
                continue
            after = k.copy(stack=False)
            after.push(km)
            after.ep_square = ep
            yield after


def plus_perft(board, depth):
    if depth == 0:
        return 1
    return sum(plus_perft(b, depth - 1) for b in plus_turns(board))


def magic_perft(board, depth):
    """King-capture chess: pseudo-legal moves; health cannot run out within
    the depths counted here (20 health, at most a few attackers)."""
    if depth == 0:
        return 1
    if board.king(chess.WHITE) is None or board.king(chess.BLACK) is None:
        return 0
    total = 0
    for m in list(board.pseudo_legal_moves):
        if board.is_castling(m) and not board.is_legal(m):
            continue  # castling still needs the king's squares unattacked
        b = board.copy(stack=False)
        b.push(m)
        total += magic_perft(b, depth - 1)
    return total


if __name__ == "__main__":
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    start = chess.Board()
    print("chess++", [plus_perft(start, d) for d in range(1, depth + 1)])
    print("magic chess", [magic_perft(start, d) for d in range(1, depth + 2)])
