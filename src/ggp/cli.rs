//! The `toss ggp` commands: `serve` and `referee`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::play::PipeStdout;

use super::server::Limits;
use super::{PlayerConfig, goals_text, referee, server};

/// `writeln!` on standard output; a closed pipe ends quietly.
macro_rules! outln {
    ($($arg:tt)*) => {
        writeln!(PipeStdout, $($arg)*)
            .map_err(|e| format!("cannot write to standard output: {e}"))?
    };
}

/// The options of `toss ggp serve`.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub host: String,
    pub port: u16,
    pub margin: Option<f64>,
    pub seed: u64,
    pub threads: usize,
    pub max_matches: usize,
    pub max_connections: usize,
    /// What the matches play on (the global `--engine`).
    pub engine: crate::load::Engine,
    /// The player of games translated to Toss.
    pub translated_player: crate::matches::PlayerSpec,
    /// Random legal moves instead of search.
    pub random: bool,
    /// GDL-II: playouts per move at most.
    pub playouts: u64,
    /// GDL-II: candidate states kept at most.
    pub particles: usize,
}

/// `toss ggp serve`: prints `toss ggp: listening on ADDR`, then serves forever.
pub fn serve(o: &ServeOptions) -> Result<(), String> {
    if let Some(m) = o.margin
        && !(m.is_finite() && m >= 0.0)
    {
        return Err(format!("--margin {m}: expected a number of seconds >= 0"));
    }
    if o.threads == 0 {
        return Err("--threads must be at least 1".into());
    }
    if o.max_matches == 0 || o.max_connections == 0 {
        return Err("--max-matches and --max-connections must be at least 1".into());
    }
    if o.particles == 0 {
        return Err("--particles must be at least 1".into());
    }
    super::translated::check_player(&o.translated_player)
        .map_err(|e| format!("--translated-player {e}"))?;
    let config = PlayerConfig {
        margin: o.margin,
        seed: o.seed,
        threads: o.threads,
        max_matches: o.max_matches,
        engine: o.engine,
        translated_player: o.translated_player.clone(),
        random_moves: o.random,
        hidden: super::hidden::HiddenConfig {
            playouts: o.playouts,
            particles: o.particles,
            ..Default::default()
        },
        ..Default::default()
    };
    let limits = Limits {
        connections: o.max_connections,
        ..Limits::default()
    };
    let addr = if o.host.contains(':') {
        format!("[{}]:{}", o.host, o.port)
    } else {
        format!("{}:{}", o.host, o.port)
    };
    server::serve(&addr, config, limits, |bound| {
        // Nothing else goes to standard output: a failed write of the
        // address (other than a closed pipe) does not stop the player.
        let _ = writeln!(PipeStdout, "toss ggp: listening on {bound}");
        let _ = PipeStdout.flush();
    })
}

/// The options of `toss ggp referee`.
#[derive(Clone, Debug)]
pub struct RefereeOptions {
    pub file: PathBuf,
    pub players: Vec<String>,
    pub start_clock: u64,
    pub play_clock: u64,
    pub seed: u64,
    pub match_id: Option<String>,
    /// Seconds after the clock a reply is still accepted.
    pub grace: f64,
    /// Where to write the match record (ggp-base's JSON).
    pub record: Option<PathBuf>,
    /// Cut the match after this many steps if the game has not ended.
    pub max_steps: usize,
}

/// `toss ggp referee`: one line per step, the faults, then the goals; an
/// error (status 1, no goals) when the match was not played;
/// [`crate::Finish::Cut`] (no goals) when it was cut at `max_steps`.
pub fn referee(o: &RefereeOptions, colour: bool) -> Result<crate::Finish, String> {
    let path: &Path = &o.file;
    if !crate::load::is_gdl(path) {
        return Err(format!(
            "{}: the referee plays GDL games (.kif or .gdl)",
            path.display()
        ));
    }
    if o.start_clock == 0 || o.play_clock == 0 {
        return Err("the clocks must be at least 1 second".into());
    }
    if !(o.grace.is_finite() && (0.0..=3600.0).contains(&o.grace)) {
        return Err(format!(
            "--grace {}: expected a number of seconds from 0 to 3600",
            o.grace
        ));
    }
    let game = crate::load::load_gdl(path, colour).map_err(|e| e.rendered)?;
    let source = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("match");
    let cfg = referee::RefereeConfig {
        match_id: o
            .match_id
            .clone()
            .unwrap_or_else(|| format!("toss.{stem}.{}", o.seed)),
        start_clock: o.start_clock,
        play_clock: o.play_clock,
        seed: o.seed,
        max_steps: o.max_steps,
        grace: Duration::from_secs_f64(o.grace),
    };
    let mut write_error = None;
    let record = referee::run_match(&game, &source, &o.players, &cfg, |line| {
        if let Err(e) = writeln!(PipeStdout, "{line}") {
            write_error.get_or_insert(e);
        }
    })?;
    if let Some(e) = write_error {
        return Err(format!("cannot write to standard output: {e}"));
    }
    if let Some(file) = &o.record {
        std::fs::write(file, record.to_ggp_json(&o.players) + "\n")
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    for f in &record.faults {
        outln!("fault: step {}, {}: {}", f.step, f.role, f.what);
    }
    if let Some(why) = &record.not_played {
        return Err(format!("the match was not played: {why}"));
    }
    if record.cut {
        outln!(
            "cut at {} steps (--max-steps): the game had not ended, no goals",
            o.max_steps
        );
        return Ok(crate::Finish::Cut);
    }
    match &record.goals {
        Ok(g) => {
            outln!("goals {}", goals_text(&record.roles, g));
            Ok(crate::Finish::Complete)
        }
        Err(e) => Err(e.clone()),
    }
}
