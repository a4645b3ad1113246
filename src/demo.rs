//! `toss demo`: the project's main job on one game. Breakthrough
//! (`games/breakthrough.toss`) is compiled into this binary by
//! `#[derive(toss::Game)]`; UCT plays UCT on the generated code with the
//! board after each move; the interpreter then loads the same file at run
//! time, replays the game and must reach the same end, and random playouts
//! on both measure generated against interpreted speed side by side.
//!
//! The game is derived here, in the binary, not in the library: every
//! crate `toss build` makes links the library and should not compile
//! Breakthrough too.

use std::io::Write;
use std::time::{Duration, Instant};

use toss::Game;
use toss::search::player::{Budget, Player};
use toss::search::uct::{RandomPlayout, Uct, UctConfig};
use toss_cli::play::{picture, rate, replay};

#[derive(toss::Game)]
#[toss(file = "games/breakthrough.toss")]
struct Breakthrough;

/// The file the derive read, for the interpreter to load at run time.
const SOURCE: &str = include_str!("../games/breakthrough.toss");
const FILE: &str = "games/breakthrough.toss";

/// Breakthrough ends within 2 * 6 * 8 plies (every move of a pawn is
/// forward); the limit only guards the loop.
const MAX_PLIES: usize = 1000;

/// What `toss demo` runs.
pub struct Options {
    /// UCT iterations per move, for both players.
    pub iters: u64,
    /// Seconds of random playouts for each of the two speeds.
    pub seconds: f64,
    /// The seed of both UCT players and of the playouts.
    pub seed: u64,
}

/// Writes a line to `out`, a failed write as the command's error.
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).map_err(|e| format!("cannot write the demo: {e}"))?
    };
}

/// Runs the demo, writing to `out`.
pub fn run(opts: &Options, out: &mut impl Write) -> Result<(), String> {
    if opts.iters == 0 {
        return Err("--iters 0: UCT needs at least 1 iteration a move".into());
    }
    if !(opts.seconds > 0.0 && opts.seconds < 1e6) {
        return Err("--seconds needs a positive number of seconds".into());
    }
    let g = Breakthrough;
    say!(
        out,
        "Breakthrough ({FILE}), compiled into this binary by #[derive(toss::Game)].\n\
         UCT against UCT, {} iterations a move, seed {}:\n",
        opts.iters,
        opts.seed
    );
    let (moves, end) = play(&g, opts, out)?;
    let mut payoffs = vec![0.0; g.num_players()];
    g.payoffs(&end, &mut payoffs);
    let names = g.player_names();
    let result: Vec<String> = names
        .iter()
        .zip(&payoffs)
        .map(|(n, p)| format!("{n} {p}"))
        .collect();
    say!(
        out,
        "The game ended after {} moves: {}.",
        moves.len(),
        result.join(", ")
    );

    // The same file at run time: the interpreter must accept every move
    // the generated code chose and end where it ended.
    let interpreted = toss::interpret(SOURCE, FILE).map_err(|e| e.to_string())?;
    let i_end = replay(&interpreted, &as_strs(&moves), opts.seed)
        .map_err(|e| format!("the interpreter refused the generated game's {e}"))?;
    let mut i_payoffs = vec![0.0; g.num_players()];
    interpreted.payoffs(&i_end, &mut i_payoffs);
    if !interpreted.is_terminal(&i_end)
        || i_payoffs != payoffs
        || interpreted.to_structure(&i_end) != g.to_structure(&end)
    {
        return Err("the interpreter replayed the game to a different end".into());
    }
    say!(
        out,
        "The interpreter, loading {FILE} at run time, replays the {} moves to the same final \
         position and payoffs.\n",
        moves.len()
    );

    say!(
        out,
        "Random playouts, {} s each (seed {}):",
        opts.seconds,
        opts.seed
    );
    let generated = measure(&g, opts);
    let interp = measure(&interpreted, opts);
    if generated.lengths != interp.lengths {
        return Err(
            "the first random playouts differ between the generated code and the \
                    interpreter"
                .into(),
        );
    }
    say!(
        out,
        "  generated (derive):  {:>10} playouts/s",
        rate(generated.rate)
    );
    say!(
        out,
        "  interpreted:         {:>10} playouts/s",
        rate(interp.rate)
    );
    say!(
        out,
        "  generated / interpreted: {:.1}x (the first {} playouts of each the same, move for move \
         in length and payoffs)",
        generated.rate / interp.rate,
        generated.lengths.len()
    );
    Ok(())
}

fn as_strs(moves: &[String]) -> Vec<&str> {
    moves.iter().map(String::as_str).collect()
}

/// UCT against UCT on the generated game, the board after each move;
/// returns the moves as written, which [`replay`] reads back, and the
/// final position.
fn play(
    g: &Breakthrough,
    opts: &Options,
    out: &mut impl Write,
) -> Result<(Vec<String>, <Breakthrough as Game>::State), String> {
    let mut players: Vec<Uct<RandomPlayout>> = (0..g.num_players())
        .map(|p| {
            Uct::new(
                UctConfig::for_game(g),
                RandomPlayout {
                    max_plies: MAX_PLIES,
                },
                opts.seed.wrapping_add(p as u64),
            )
        })
        .collect();
    let names = g.player_names();
    let mut rng = toss::rng_from_seed(opts.seed);
    let mut s = g.initial_state();
    let mut movers = Vec::new();
    let mut written = Vec::new();
    say!(out, "{}", picture(g, &s));
    while !g.is_terminal(&s) && written.len() < MAX_PLIES {
        g.movers(&s, &mut movers);
        let mut joint = Vec::new();
        let mut texts = Vec::new();
        for (k, &p) in movers.iter().enumerate() {
            let answer = players[p].choose(g, &s, Budget::Iterations(opts.iters));
            let m = answer
                .into_iter()
                .nth(k)
                .ok_or_else(|| format!("UCT found no move for {}", names[p]))?;
            texts.push(g.move_to_string(&s, p, &m));
            joint.push(m);
        }
        for p in &mut players {
            p.observe(g, &s, &joint);
        }
        let who: Vec<&str> = movers.iter().map(|&p| names[p].as_str()).collect();
        g.apply(&mut s, &joint, &mut rng);
        written.push(texts.join(" & "));
        say!(
            out,
            "{}. {} plays {}\n{}",
            written.len(),
            who.join(" & "),
            texts.join(" & "),
            picture(g, &s)
        );
    }
    toss_cli::fault_check(g)?;
    Ok((written, s))
}

/// Random playouts for the demo's seconds: the rate, and the lengths and
/// payoffs of the first ones, which both engines must share.
struct Speed {
    rate: f64,
    lengths: Vec<(usize, Vec<f64>)>,
}

fn measure<G: Game>(g: &G, opts: &Options) -> Speed {
    const COMPARED: usize = 20;
    let budget = Duration::from_secs_f64(opts.seconds);
    let mut rng = toss::rng_from_seed(opts.seed);
    let mut lengths = Vec::new();
    let start = Instant::now();
    let mut playouts = 0u64;
    // At least the compared playouts, then until the time is up.
    while playouts < COMPARED as u64 || start.elapsed() < budget {
        let (n, pay) = g.random_playout(&mut rng, MAX_PLIES);
        if lengths.len() < COMPARED {
            lengths.push((n, pay.to_vec()));
        }
        playouts += 1;
    }
    Speed {
        rate: playouts as f64 / start.elapsed().as_secs_f64(),
        lengths,
    }
}
