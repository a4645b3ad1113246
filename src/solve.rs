//! `toss solve`: exact values by search or retrograde analysis, with a
//! progress line on stderr, and the retrograde table file.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use toss_core::game::Game;
use toss_search::solve::retro::{Graph, positions_by_plies};
use toss_search::solve::{Limits, Method, Progress, Solution, Solver};

/// What `toss solve` was asked for.
pub struct Run<'a> {
    /// Moves played from the start first, as `toss play` reads them.
    pub moves: &'a [String],
    pub depth: u32,
    pub memory: usize,
    pub time: Option<f64>,
    pub retrograde: bool,
    pub table: Option<&'a Path>,
    pub layers: Option<usize>,
    /// Identifies the description and engine in a table file.
    pub game_id: u64,
}

/// A size such as `512M`, `4G`, `100000` (bytes).
pub fn parse_bytes(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let (digits, unit) = match t
        .char_indices()
        .find(|(_, c)| !c.is_ascii_digit() && *c != '.')
    {
        Some((i, _)) => (&t[..i], &t[i..]),
        None => (t, ""),
    };
    let scale: f64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1.0,
        "K" | "KB" | "KIB" => 1024.0,
        "M" | "MB" | "MIB" => 1024.0 * 1024.0,
        "G" | "GB" | "GIB" => 1024.0 * 1024.0 * 1024.0,
        _ => return Err(format!("`{text}`: expected a size such as 512M or 4G")),
    };
    let x: f64 = digits
        .parse()
        .map_err(|_| format!("`{text}`: expected a size such as 512M or 4G"))?;
    let bytes = x * scale;
    if !(1024.0..1e15).contains(&bytes) {
        return Err(format!(
            "`{text}`: give at least 1K and less than a petabyte"
        ));
    }
    Ok(bytes as usize)
}

/// A hash (FNV-1a) of a description's bytes and the engine running it:
/// keys of different engines differ, so a table is only read back by the
/// same engine on the same file.
pub fn description_id(bytes: &[u8], engine: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes.iter().chain(b"\0").chain(engine.as_bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn io(e: std::io::Error) -> String {
    format!("cannot write to standard output: {e}")
}

/// The progress line: positions, rate and table use.
fn progress_line(p: &Progress) -> String {
    format!(
        "depth {}: {} positions, {}/s, table {} entries ({} of {} MiB)",
        p.depth,
        p.positions,
        (p.positions as f64 / p.seconds.max(1e-9)) as u64,
        p.table_entries,
        p.table_bytes >> 20,
        p.table_capacity >> 20
    )
}

/// Runs `toss solve` on `g`.
pub fn run<G: Game>(g: &G, run: &Run<'_>, out: &mut impl Write) -> Result<(), String> {
    let moves: Vec<&str> = run.moves.iter().map(String::as_str).collect();
    let s = crate::play::replay(g, &moves, 0)?;
    if let Some(n) = run.layers {
        let start = Instant::now();
        let counts = positions_by_plies(g, &s, n, run.memory).map_err(|e| e.to_string())?;
        for (i, c) in counts.iter().enumerate() {
            writeln!(out, "{i}: {c}").map_err(io)?;
        }
        writeln!(out, "({:.2} s)", start.elapsed().as_secs_f64()).map_err(io)?;
        return Ok(());
    }
    if run.retrograde {
        return retrograde(g, &s, run, out);
    }
    let limits = Limits {
        max_depth: run.depth,
        memory_bytes: run.memory,
        deadline: run
            .time
            .map(|t| Instant::now() + Duration::from_secs_f64(t)),
        max_positions: None,
    };
    let mut solver = Solver::new(limits);
    let bar = indicatif::ProgressBar::new_spinner();
    let b = bar.clone();
    solver.on_progress(move |p| b.set_message(progress_line(p)));
    let sol = solver.solve(g, &s).map_err(|e| e.to_string());
    bar.finish_and_clear();
    let sol = sol?;
    report(g, &s, &sol, out)
}

/// One player's value: exact, or the interval it is proved to lie in.
fn value_text(lo: f64, hi: f64) -> String {
    if lo == hi {
        format!("{lo}")
    } else {
        format!("between {lo} and {hi}")
    }
}

fn report<G: Game>(
    g: &G,
    s: &G::State,
    sol: &Solution,
    out: &mut impl Write,
) -> Result<(), String> {
    let names = g.player_names();
    let how = match sol.method {
        Method::ConstantSum { .. } if names.len() == 1 => "one player",
        Method::ConstantSum { .. } => "constant-sum: alpha-beta on proven bounds",
        Method::MaxN => "max^n: each mover maximises its own payoff",
    };
    writeln!(out, "method: {how}").map_err(io)?;
    for (p, (lo, hi)) in sol.values.iter().enumerate() {
        writeln!(out, "value {}: {}", names[p], value_text(*lo, *hi)).map_err(io)?;
    }
    match sol.stopped {
        None => writeln!(out, "exact: yes").map_err(io)?,
        Some(why) => writeln!(out, "exact: no, {why}").map_err(io)?,
    }
    if let Some(c) = sol.chooser
        && !sol.moves.is_empty()
    {
        let mut legal = Vec::new();
        g.legal_moves(s, c, &mut legal);
        let best = sol.best_moves();
        writeln!(out, "moves of {} (their value for {}):", names[c], names[c]).map_err(io)?;
        for m in &sol.moves {
            let name = legal
                .get(m.index)
                .map_or_else(|| format!("#{}", m.index), |mv| g.move_to_string(s, c, mv));
            let mark = if best.contains(&m.index) {
                "  best"
            } else {
                ""
            };
            writeln!(out, "  {name}: {}{mark}", value_text(m.lo, m.hi)).map_err(io)?;
        }
    }
    writeln!(
        out,
        "depth {}, {} positions in {:.2} s ({}/s), table {} entries ({:.1} MiB)",
        sol.depth,
        sol.positions,
        sol.seconds,
        (sol.positions as f64 / sol.seconds.max(1e-9)) as u64,
        sol.table_entries,
        sol.table_bytes as f64 / (1 << 20) as f64
    )
    .map_err(io)
}

fn retrograde<G: Game>(
    g: &G,
    s: &G::State,
    run: &Run<'_>,
    out: &mut impl Write,
) -> Result<(), String> {
    if run.table.is_some() && !g.stable_keys() {
        return Err(
            "this engine's state keys change between runs, so its table could not be read back: \
             use --engine grounded for a GDL game"
                .into(),
        );
    }
    let start = Instant::now();
    let bar = indicatif::ProgressBar::new_spinner();
    let graph = Graph::enumerate(g, s, run.memory, |n| {
        bar.set_message(format!("{n} positions enumerated"))
    })
    .map_err(|e| e.to_string())?;
    bar.finish_and_clear();
    let enumerated = start.elapsed().as_secs_f64();
    let solved = graph.solve();
    let names = g.player_names();
    writeln!(
        out,
        "positions: {} ({} terminal), enumerated in {enumerated:.2} s, solved in {:.2} s",
        graph.len(),
        graph.terminals(),
        start.elapsed().as_secs_f64() - enumerated
    )
    .map_err(io)?;
    match graph.complete_plays() {
        Some(n) => writeln!(out, "complete plays: {n}").map_err(io)?,
        None => writeln!(
            out,
            "complete plays: infinitely many (the positions have cycles)"
        )
        .map_err(io)?,
    }
    writeln!(out, "unresolved positions: {}", solved.unresolved()).map_err(io)?;
    match &solved.values[0] {
        Some(v) => {
            for (p, x) in v.iter().enumerate() {
                writeln!(out, "value {}: {x}", names[p]).map_err(io)?;
            }
        }
        None => {
            writeln!(out, "value: unresolved (play from here can go on forever)").map_err(io)?
        }
    }
    if let Some(path) = run.table {
        let table = graph.table(&solved, run.game_id);
        let mut f = std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?;
        table
            .write(&mut f)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        writeln!(
            out,
            "table: {} positions written to {}",
            table.len(),
            path.display()
        )
        .map_err(io)?;
    }
    Ok(())
}
