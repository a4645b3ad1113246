#!/usr/bin/env bash
# GGP matches through the protocol: the player on the translated game
# (`toss --engine toss ggp serve`: the game translated to Toss, played by
# the derived-heuristic UCT player) against the player on the reasoner
# (`toss --engine reasoner ggp serve`), one `toss ggp referee` match per
# game, seats alternated (even games: the translated player has the first
# role). Prints one line per game, then wins, draws and losses of the
# translated player, its score (wins + draws / 2, per game) and the 95%
# Wilson score interval.
#
# Usage: bench/ggp-translated.sh GAME.kif GAMES [START PLAY [PORT [TOSS]]]
#   e.g. bench/ggp-translated.sh ../shared/corpus/gdl/breakthrough.kif 100 10 1
# Stops early (with the games played so far) when the file STOP exists in
# the directory of the logs, $OUT (default: /tmp/ggp-translated-GAME).
# $TRANSLATED_PLAYER, if set, is the translated player's spec
# (`toss ggp serve --translated-player`); $OPPONENT_ENGINE, if set, the
# opponent's engine (`reasoner` by default, or `grounded`, `auto`).
set -euo pipefail

game=${1:?GAME.kif}
games=${2:?number of games}
start=${3:-10}
play=${4:-1}
port=${5:-9400}
toss=${6:-target/release/toss}
name=$(basename "$game" .kif)
out=${OUT:-/tmp/ggp-translated-$name}
mkdir -p "$out"
rm -f "$out/STOP"

spec=()
[[ -n "${TRANSLATED_PLAYER:-}" ]] && spec=(--translated-player "$TRANSLATED_PLAYER")
"$toss" --engine toss ggp serve --host 127.0.0.1 --port "$port" --seed 1 "${spec[@]}" \
    >"$out/translated.out" 2>"$out/translated.log" &
translated=$!
"$toss" --engine "${OPPONENT_ENGINE:-reasoner}" ggp serve --host 127.0.0.1 --port $((port + 1)) --seed 2 \
    >"$out/reasoner.out" 2>"$out/reasoner.log" &
reasoner=$!
trap 'kill $translated $reasoner 2>/dev/null' EXIT
sleep 1

t="127.0.0.1:$port"
r="127.0.0.1:$((port + 1))"
wins=0 draws=0 losses=0
for ((i = 0; i < games; i++)); do
    [[ -e "$out/STOP" ]] && break
    if ((i % 2 == 0)); then first=$t second=$r mine=0; else first=$r second=$t mine=1; fi
    "$toss" ggp referee "$game" --player "$first" --player "$second" \
        --start "$start" --play "$play" --seed "$i" --match-id "$name-$i" \
        >"$out/game-$i.txt" 2>&1 || true
    # `goals ROLE0 G0, ROLE1 G1`, the referee's last line.
    goals=$(grep '^goals ' "$out/game-$i.txt" | tail -1 || true)
    if [[ -z "$goals" ]]; then
        echo "game $i: no result (see $out/game-$i.txt)"
        continue
    fi
    read -r g0 g1 < <(echo "$goals" | sed -E 's/^goals [^ ]+ ([0-9]+), [^ ]+ ([0-9]+).*/\1 \2/')
    if ((mine == 0)); then me=$g0 other=$g1; else me=$g1 other=$g0; fi
    if ((me > other)); then wins=$((wins + 1)); res=win
    elif ((me < other)); then losses=$((losses + 1)); res=loss
    else draws=$((draws + 1)); res=draw; fi
    echo "game $i: translated plays role $mine; $goals; translated: $res"
done

awk -v w="$wins" -v d="$draws" -v l="$losses" -v g="$name" -v st="$start" -v pl="$play" 'BEGIN {
    n = w + d + l
    if (n == 0) { print g ": no games"; exit }
    s = (w + d / 2) / n; z = 1.96; z2n = z * z / n
    c = (s + z2n / 2) / (1 + z2n)
    h = z * sqrt(s * (1 - s) / n + z2n / (4 * n)) / (1 + z2n)
    lo = c - h; if (lo < 0) lo = 0; hi = c + h; if (hi > 1) hi = 1
    printf "%s, clocks %s s / %s s: translated %d wins, %d draws, %d losses in %d games; score %.3f, 95%% Wilson [%.3f, %.3f]\n", g, st, pl, w, d, l, n, s, lo, hi
}'
