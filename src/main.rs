//! The `toss` command line: check, format, run and picture games.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toss_cli::Finish;

mod commands;
mod demo;

#[derive(Parser)]
#[command(
    name = "toss",
    version,
    about = "Toss in Rust: structure rewriting games",
    after_help = "Exit status: 0 done; 1 an error; 2 a bad command line; 3 a limit stopped \
                  the work (a game cut at its ply limit, a simulation stopped before its \
                  end): the output says what was cut and leaves it out of the results."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// What runs a GDL game: the grounded network, the reasoner, or
    /// whichever plays random playouts faster on it (auto). The results
    /// are the same. `toss`: the game translated to Toss (as `toss
    /// translate` prints it) on the Toss interpreter.
    #[arg(long, global = true, default_value = "auto")]
    engine: toss_cli::load::Engine,
    /// Translate a GDL file to Toss (as `toss translate` prints it) and
    /// run the command on that game: every command that takes a `.toss`
    /// file takes `FILE.kif --via-toss` (`--engine toss` for those that
    /// also take GDL itself).
    #[arg(long, global = true)]
    via_toss: bool,
}

#[derive(Subcommand)]
enum Command {
    /// The main job on Breakthrough, compiled into this binary by the
    /// derive: UCT plays UCT with the board after each move, the
    /// interpreter replays the game from the same file, and random
    /// playouts measure generated against interpreted speed.
    Demo {
        /// UCT iterations per move, for both players.
        #[arg(long, default_value_t = 1000)]
        iters: u64,
        /// Seconds of random playouts for each speed.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Check game files and print a summary of each, or its errors.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print a game formatted (comments and board literals kept).
    Fmt { file: PathBuf },
    /// Count the move sequences of a given length from the start (terminal
    /// positions are not expanded); the total is printed alone on the last line.
    Perft {
        file: PathBuf,
        depth: usize,
        /// Also print the count below each first move.
        #[arg(long)]
        divide: bool,
    },
    /// Random playouts: playouts/s, the playouts finished and those cut at
    /// --max-plies, and of the finished ones the mean length in turns and
    /// in plies and the mean payoff per player.
    ///
    /// Exit status 3 when a playout was cut (1 on an error).
    Playout {
        file: PathBuf,
        /// Number of playouts (at least 1).
        #[arg(short = 'n', default_value_t = 1000)]
        n: u64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Cut a playout after this many turns (a turn is a ply unless
        /// one player moves several plies in a row): it is counted apart
        /// and left out of the means.
        #[arg(long, default_value_t = toss_cli::DEFAULT_MAX_PLIES)]
        max_plies: usize,
    },
    /// Play in the terminal: moves by number, by text or by cells (the
    /// cells a move changes, `e2 e4`, or those of its match).
    ///
    /// Exit status 3 when the play was cut at --max-plies (1 on an error).
    Play {
        /// The game; a saved play (a Toss file with MODEL and HISTORY) is
        /// continued where it was saved.
        #[arg(required_unless_present = "from")]
        file: Option<PathBuf>,
        /// Continue the play saved in this file (by `save FILE` during a
        /// play): its moves are replayed from the start, so `undo` goes
        /// back past them. Without FILE the game is the one it holds.
        #[arg(long)]
        from: Option<PathBuf>,
        /// One per player, in order: human, random, uct:iters=N, uct:time=S,
        /// uct+heur:iters=N, alphabeta:depth=D, solver:time=S (default:
        /// human, then random).
        #[arg(long = "player")]
        players: Vec<toss_cli::matches::PlayerSpec>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Cut the play after this many plies (joint moves) if it has not
        /// ended: it has no result.
        #[arg(long, default_value_t = toss_cli::DEFAULT_MAX_PLIES)]
        max_plies: usize,
    },
    /// A match between programs, e.g. --player uct+heur:iters=2000 --player uct:iters=2000.
    ///
    /// Prints per player and seat the wins, draws and losses, the score
    /// (wins plus half the draws, per game) and its 95% Wilson score
    /// interval, then the number of games cut at --max-plies (they have
    /// no result and are not in the table), then `result SPEC1 s1 SPEC2
    /// s2`. GDL games: random and uct players.
    ///
    /// Exit status 3 when a game was cut (1 on an error).
    Match {
        file: PathBuf,
        /// One per player: random, uct:iters=N, uct:time=S, uct+heur:iters=N,
        /// alphabeta:depth=D, solver:time=S (or positions=N; memory=2G,
        /// table=FILE from `toss solve --retrograde --table FILE`); options c=, threads=N (one shared tree; parallel=root: a tree
        /// per thread, root statistics summed), heur=existential|rule,
        /// playout=evaluate|random|basic|cutoffK|mixL (cutoffK: K random turns, then the
        /// evaluation; mixL: L x the evaluation + (1 - L) x a random playout, 0 <= L <= 1),
        /// evals=E, weight=E' (spec 3.1), scale=S (payoff tanh(h / S)). Defaults: c=3,
        /// and for uct+heur playout=evaluate, scale=4, E = E' = 1.
        /// uct+heur:playout=mix0.7,scale=0.1,c=1,weight=8 beat plain UCT in 98-100% of the
        /// Breakthrough games (100 to 10,000 iterations, 0.05 and 0.5 s a move) and in all
        /// the Gomoku games (100 and 1,000 iterations, 0.05 s) (RESULTS.md).
        #[arg(long = "player", required = true)]
        players: Vec<toss_cli::matches::PlayerSpec>,
        /// Number of games (at least 1).
        #[arg(short = 'n', default_value_t = 10)]
        n: u64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Rotate the seats every game, so each player plays each side.
        #[arg(long)]
        swap: bool,
        /// Cut a game after this many plies (joint moves) if it has not
        /// ended.
        #[arg(long, default_value_t = toss_cli::DEFAULT_MAX_PLIES)]
        max_plies: usize,
    },
    /// Compile a game into a standalone release binary with subcommands
    /// play, playout and perft, run by the game's generated code.
    Build {
        file: PathBuf,
        /// Where to write the binary (default: the file's stem, here).
        #[arg(short = 'o')]
        output: Option<PathBuf>,
    },
    /// Run a game over continuous time with programs as players: one line
    /// `t=<time> rule=<name>` per rule application, then the final values
    /// of all functions.
    ///
    /// Exit status 3 when a limit stopped it before --until (--max-plies,
    /// or the integrator's limit of 10,000,000 steps), after a line
    /// `stopped at the limit ...` (1 on an error).
    Simulate {
        file: PathBuf,
        /// Stop at this time.
        #[arg(long)]
        until: f64,
        /// Integrate with RK4 at this fixed step (default: the adaptive
        /// Dormand-Prince method).
        #[arg(long)]
        step: Option<f64>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// One per player, in order: random, uct:iters=N, ... (default random).
        #[arg(long = "player")]
        players: Vec<toss_cli::matches::PlayerSpec>,
        /// Draw the trajectories of the functions over time as SVG.
        #[arg(long)]
        plot: Option<PathBuf>,
        /// Stop after this many joint moves (a guard for games whose time
        /// does not advance).
        #[arg(long, default_value_t = toss_cli::simulate::MAX_PLIES)]
        max_plies: usize,
    },
    /// Ground a GDL game into a propositional network and print it: its
    /// fluents, actions, gates (each a ground atom defined as an or of
    /// ands), phases and outputs; or with --summary its size alone.
    Ground {
        file: PathBuf,
        #[arg(long)]
        summary: bool,
    },
    /// Translate a GDL game into a Toss game (spec chapter 5) and print it
    /// as `.toss` (it parses back); or say why the game is refused.
    Translate {
        file: PathBuf,
        /// Start with comments listing the fluent paths, elements,
        /// coordinate paths and locations chosen.
        #[arg(long)]
        explain: bool,
    },
    /// Print the heuristics derived from the payoffs (spec 3.3-3.5); a GDL
    /// game is translated to Toss first.
    Heuristic {
        file: PathBuf,
        /// The rule-condition heuristic of spec 3.5 instead of the existential one.
        #[arg(long)]
        rule_condition: bool,
    },
    /// General Game Playing over HTTP: a player and a referee.
    Ggp {
        #[command(subcommand)]
        command: GgpCommand,
    },
    /// Solve a game exactly: the value of the start (or of the position
    /// after some moves) under perfect play and the moves that keep it, by
    /// alpha-beta on proven bounds with a transposition table; or, with
    /// --retrograde, by enumerating every reachable position and solving
    /// backwards.
    Solve(commands::SolveOptions),
    /// Term rewriting in your own notation (spec chapter 2): load a
    /// `.terms` file (declarations, `Let ... be ...` rules, preferences)
    /// and print the normal form of each term, written and shown in the
    /// file's syntax. With no term, read terms (and statements ending in
    /// `.`) line by line from standard input.
    Term {
        file: PathBuf,
        terms: Vec<String>,
        /// Print each rewrite step.
        #[arg(long)]
        trace: bool,
        /// Give up after this many rewrite steps (non-termination): exit
        /// status 3 when a term has no normal form within the limit.
        #[arg(long, default_value_t = 1_000_000)]
        max_steps: u64,
    },
    /// Write example plays of a game for `toss learn` (docs/plays.md): -n
    /// plays labelled by how they end (`1 wins`, `2 wins`, `not won`),
    /// then as many of each kind as asked. An unfinished play is a won
    /// play cut before its last move; an illegal play ends with a legal
    /// move's change applied elsewhere, where no legal move gives it.
    Plays {
        file: PathBuf,
        /// Plays labelled by how they end.
        #[arg(short = 'n', default_value_t = 0)]
        n: u64,
        /// Plays won by the first player.
        #[arg(long, default_value_t = 0)]
        first_wins: u64,
        /// Plays won by the second player.
        #[arg(long, default_value_t = 0)]
        second_wins: u64,
        /// Plays nobody has won (drawn, or cut before the end).
        #[arg(long, default_value_t = 0)]
        not_won: u64,
        /// Plays whose last move is illegal.
        #[arg(long, default_value_t = 0)]
        illegal: u64,
        /// One per player, as `toss match` takes them (default: random).
        #[arg(long = "player")]
        players: Vec<toss_cli::matches::PlayerSpec>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, default_value_t = 1000)]
        max_plies: usize,
        /// Choose the plays as a teacher: after one play of each kind,
        /// each next one is a random play that the game learnt from the
        /// plays so far gets wrong (up to the counts of each kind).
        #[arg(long)]
        teach: bool,
        /// Write the plays here instead of to standard output.
        #[arg(short = 'o')]
        output: Option<PathBuf>,
    },
    /// Learn a game from example plays (spec 4.4-4.6): winning conditions,
    /// moves and their preconditions; prints the learnt game as Toss.
    Learn {
        /// Plays files (docs/plays.md), read as one list of plays.
        #[arg(required = true)]
        plays: Vec<PathBuf>,
        /// Before the game, show each Distinguish call as comments: its
        /// examples, the levels tried, the formula before and after
        /// shortening, and the time.
        #[arg(long)]
        explain: bool,
        /// Write the game here instead of to standard output.
        #[arg(short = 'o')]
        output: Option<PathBuf>,
    },
    /// Draw the starting position, or the one after some moves, as SVG.
    Show {
        file: PathBuf,
        /// Moves as in `toss play`, separated by commas.
        #[arg(long)]
        moves: Option<String>,
        #[arg(long)]
        svg: PathBuf,
    },
    /// Synthesize the winning strategy of a family of impartial games
    /// (a subtraction set or an octal code; the size n is a parameter):
    /// values up to a bound, the least period proven to go on forever, and
    /// the derived program, as a logic program in the notation of the
    /// strategy-synthesis seed and as Rust. Fails (status 1) when no
    /// period is proven within the bound, saying what was reached.
    ///
    /// Examples: `toss synthesize subtraction 1,2` (the seed's game),
    /// `toss synthesize subtraction 1,3,4 --play normal`, `toss synthesize
    /// octal 0.77` (Kayles).
    Synthesize {
        /// `subtraction` (GAME is a set of moves, `1,2`) or `octal` (GAME
        /// is a code, `0.77`, played under normal play).
        family: String,
        game: String,
        /// Subtraction games: `normal` (who cannot move loses), `misere`
        /// (who cannot move wins) or `seed` (the default: who finds the
        /// table empty wins, as in the seed's win/2).
        #[arg(long)]
        play: Option<toss_synthesis::family::Play>,
        /// Compute values for n = 0..=N at most (doubling from 64 until a
        /// period is proven); at most 10,000,000 for subtraction games,
        /// 100,000 for octal games.
        #[arg(long, default_value_t = toss_synthesis::DEFAULT_BOUND)]
        bound: u64,
        /// What to print of the program: prolog, rust, both or none.
        #[arg(long, default_value = "both")]
        emit: String,
        /// Run the emitted logic program and the Rust table against the
        /// direct evaluation (win/2, or Grundy values) for every n <= N
        /// and count the winning positions.
        #[arg(long)]
        check: Option<u64>,
    },
}

#[derive(Subcommand)]
enum GgpCommand {
    /// Serve as a GGP player (INFO, START, PLAY, STOP, ABORT, PREVIEW),
    /// choosing moves with UCT; prints the address it listens on.
    Serve {
        /// The port; 0 picks a free one.
        #[arg(long, default_value_t = 9147)]
        port: u16,
        /// The interface to listen on.
        #[arg(long, default_value = "0.0.0.0")]
        host: String,
        /// Seconds kept back from each clock (default: a quarter of the
        /// clock, at most 1).
        #[arg(long)]
        margin: Option<f64>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// UCT threads per match.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Matches played at once; a START beyond gets `busy`.
        #[arg(long, default_value_t = 4)]
        max_matches: usize,
        /// Connections served at once; beyond, a new one gets 503.
        #[arg(long, default_value_t = 256)]
        max_connections: usize,
        /// With --engine toss, the player of the game translated to Toss
        /// (a uct+heur spec as `toss match` takes it; the budget is the
        /// play clock).
        #[arg(long, default_value = toss_cli::ggp::translated::PLAYER)]
        translated_player: toss_cli::matches::PlayerSpec,
        /// Play uniformly random legal moves (a baseline opponent).
        #[arg(long)]
        random: bool,
        /// GDL-II games: playouts per move at most (Monte Carlo over the
        /// candidate states); the clock may stop them earlier.
        #[arg(long, default_value_t = 4000)]
        playouts: u64,
        /// GDL-II games: candidate states kept at most.
        #[arg(long, default_value_t = 512)]
        particles: usize,
    },
    /// Run a match of a GDL game between GGP players, one per role in role
    /// order; prints each step and the goals.
    ///
    /// Exit status 3 when the match was cut at --max-steps (the players
    /// are sent ABORT; no goals), 1 when it was not played.
    Referee {
        file: PathBuf,
        /// A player's address, host:port or http://host:port/.
        #[arg(long = "player", required = true)]
        players: Vec<String>,
        /// The start clock in seconds.
        #[arg(long = "start", default_value_t = 10)]
        start_clock: u64,
        /// The play clock in seconds.
        #[arg(long = "play", default_value_t = 5)]
        play_clock: u64,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The match id (default: the file's stem and the seed).
        #[arg(long)]
        match_id: Option<String>,
        /// Seconds after the clock a reply is still accepted (ggp-base: 1).
        #[arg(long, default_value_t = 1.0)]
        grace: f64,
        /// Write the match record there, in ggp-base's JSON format.
        #[arg(long)]
        record: Option<PathBuf>,
        /// Cut the match after this many steps if the game has not ended.
        #[arg(long, default_value_t = toss_cli::DEFAULT_MAX_PLIES)]
        max_steps: usize,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let colour = std::io::stderr().is_terminal();
    let via_toss = cli.via_toss;
    let engine = match (via_toss, cli.engine) {
        (true, toss_cli::load::Engine::Auto | toss_cli::load::Engine::Toss) => {
            toss_cli::load::Engine::Toss
        }
        (true, other) => {
            eprintln!(
                "error: --via-toss runs the translated game; it cannot be used with --engine {}",
                format!("{other:?}").to_lowercase()
            );
            return ExitCode::FAILURE;
        }
        (false, e) => e,
    };
    // The commands that can be cut say how they finished; the others
    // finish or fail.
    let done = |r: Result<(), String>| r.map(|()| Finish::Complete);
    let result = match cli.command {
        Command::Demo {
            iters,
            seconds,
            seed,
        } => done(demo::run(
            &demo::Options {
                iters,
                seconds,
                seed,
            },
            &mut toss_cli::play::PipeStdout,
        )),
        Command::Check { files } => done(commands::check(&files, via_toss, colour)),
        Command::Fmt { file } => done(commands::fmt(&file, via_toss, colour)),
        Command::Perft {
            file,
            depth,
            divide,
        } => done(commands::perft(&file, depth, divide, engine, colour)),
        Command::Playout {
            file,
            n,
            seed,
            max_plies,
        } => commands::playout(&file, n, seed, max_plies, engine, colour),
        Command::Play {
            file,
            from,
            players,
            seed,
            max_plies,
        } => commands::play(
            file.as_deref(),
            from.as_deref(),
            &players,
            seed,
            max_plies,
            engine,
            colour,
        ),
        Command::Match {
            file,
            players,
            n,
            seed,
            swap,
            max_plies,
        } => {
            let plan = toss_cli::matches::MatchPlan {
                games: n,
                seed,
                swap,
                max_plies,
            };
            commands::play_match(&file, &players, &plan, engine, colour)
        }
        Command::Plays {
            file,
            n,
            first_wins,
            second_wins,
            not_won,
            illegal,
            players,
            seed,
            max_plies,
            teach,
            output,
        } => {
            let req = toss_cli::plays::Request {
                games: n,
                first_wins,
                second_wins,
                not_won,
                illegal,
                seed,
                max_plies,
            };
            done(commands::plays(
                &file,
                &req,
                &players,
                teach,
                output.as_deref(),
                via_toss,
                colour,
            ))
        }
        Command::Learn {
            plays,
            explain,
            output,
        } => done(commands::learn(&plays, explain, output.as_deref(), colour)),
        Command::Build { file, output } => {
            done(commands::build(&file, output.as_deref(), via_toss, colour))
        }
        Command::Simulate {
            file,
            until,
            step,
            seed,
            players,
            plot,
            max_plies,
        } => {
            let opts = toss_cli::simulate::Options {
                until,
                step,
                seed,
                players,
                max_plies,
            };
            commands::simulate(&file, &opts, plot.as_deref(), via_toss, colour)
        }
        Command::Ground { file, summary } => done(commands::ground(&file, summary, colour)),
        Command::Heuristic {
            file,
            rule_condition,
        } => done(commands::heuristic(&file, rule_condition, colour)),
        Command::Translate { file, explain } => done(commands::translate(&file, explain, colour)),
        Command::Solve(opts) => done(commands::solve(&opts, engine, colour)),
        Command::Synthesize {
            family,
            game,
            play,
            bound,
            emit,
            check,
        } => done(commands::synthesize(
            &family, &game, play, bound, &emit, check,
        )),
        Command::Term {
            file,
            terms,
            trace,
            max_steps,
        } => commands::term(&file, &terms, trace, max_steps),
        Command::Show { file, moves, svg } => {
            done(commands::show(&file, moves.as_deref(), &svg, colour))
        }
        Command::Ggp {
            command:
                GgpCommand::Serve {
                    port,
                    host,
                    margin,
                    seed,
                    threads,
                    max_matches,
                    max_connections,
                    translated_player,
                    random,
                    playouts,
                    particles,
                },
        } => done(toss_cli::ggp::cli::serve(
            &toss_cli::ggp::cli::ServeOptions {
                host,
                port,
                margin,
                seed,
                threads,
                max_matches,
                max_connections,
                engine,
                translated_player,
                random,
                playouts,
                particles,
            },
        )),
        Command::Ggp {
            command:
                GgpCommand::Referee {
                    file,
                    players,
                    start_clock,
                    play_clock,
                    seed,
                    match_id,
                    grace,
                    record,
                    max_steps,
                },
        } => toss_cli::ggp::cli::referee(
            &toss_cli::ggp::cli::RefereeOptions {
                file,
                players,
                start_clock,
                play_clock,
                seed,
                match_id,
                grace,
                record,
                max_steps,
            },
            colour,
        ),
    };
    match result {
        Ok(Finish::Complete) => ExitCode::SUCCESS,
        Ok(Finish::Cut) => ExitCode::from(toss_cli::LIMIT_STATUS),
        Err(message) => {
            if !message.is_empty() {
                eprint!("{message}");
                if !message.ends_with('\n') {
                    eprintln!();
                }
            }
            ExitCode::FAILURE
        }
    }
}
