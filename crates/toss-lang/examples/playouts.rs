//! Random playouts per second of the interpreter on the game files.
//!
//! `cargo run --release -p toss-lang --example playouts [secs] [game ...]`
//! (default: every `games/*.toss`, 2 seconds each). Each game is timed for
//! about `secs` seconds of wall clock; the seed sequence is fixed. With
//! `secs` written `nN` (e.g. `n100`), exactly N playouts are run instead
//! (for instruction counts under callgrind).

use toss_core::Game;
use toss_core::game::rng_from_seed;

fn main() {
    let mut args = std::env::args().skip(1);
    let first = args.next().unwrap_or_default();
    let count: Option<u64> = first.strip_prefix('n').and_then(|n| n.parse().ok());
    let secs: f64 = first.parse().unwrap_or(2.0);
    let mut names: Vec<String> = args.collect();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../games");
    if names.is_empty() {
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(".toss"))
                    .map(|n| n.trim_end_matches(".toss").to_string())
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        names = files;
    }
    for name in names {
        let path = format!("{dir}/{name}.toss");
        let Ok(src) = std::fs::read_to_string(&path) else {
            println!("{name}: cannot read {path}");
            continue;
        };
        let ir = match toss_lang::parse_game(&src, &path) {
            Ok(g) => g,
            Err(_) => {
                println!("{name}: parse error");
                continue;
            }
        };
        let g = match toss_runtime::Interpreter::new(&ir) {
            Ok(g) => g,
            Err(e) => {
                println!("{name}: {e}");
                continue;
            }
        };
        let mut rng = rng_from_seed(1);
        let t = std::time::Instant::now();
        let (mut games, mut plies) = (0u64, 0u64);
        while match count {
            Some(n) => games < n,
            None => t.elapsed().as_secs_f64() < secs,
        } {
            for _ in 0..count.map_or(10, |n| n.min(10)) {
                plies += g.random_playout(&mut rng, 1000).0 as u64;
                games += 1;
            }
        }
        let dt = t.elapsed().as_secs_f64();
        println!(
            "{name:24} {:>10.0} playouts/s {:>6.1} plies/playout ({games} in {dt:.2}s)",
            games as f64 / dt,
            plies as f64 / games as f64
        );
    }
}
