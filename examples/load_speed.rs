//! Loading time of tic-tac-toe's rules (games/tic-tac-toe.toss) on an
//! N x N board: parsing and checking, then building the interpreter (which
//! tabulates the stable defined relations D1, D2 and L over the N^2 cells).
//!
//! ```text
//! cargo run --release --example load_speed -- [N ...]
//! ```
//!
//! N defaults to 20 60 100 200. Each size is loaded 3 times; the median of
//! each phase is printed, one line per size:
//! `load n=<N> cells=<N^2> parse=<s> interpreter=<s> total=<s>`.

use std::time::Instant;

/// games/tic-tac-toe.toss with an empty `n` x `n` board.
fn tic_tac_toe(n: usize) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/games/tic-tac-toe.toss");
    let src = std::fs::read_to_string(path).expect("games/tic-tac-toe.toss");
    let rules = &src[..src.find("START").expect("a START")];
    let row = format!(" {}\n", " .".repeat(n));
    format!(
        "{rules}START [ | P:1 {{}}; Q:1 {{}} | ] \"\n{}\"\n",
        row.repeat(n)
    )
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a board size"))
        .collect();
    let sizes = if sizes.is_empty() {
        vec![20, 60, 100, 200]
    } else {
        sizes
    };
    for n in sizes {
        let src = tic_tac_toe(n);
        let (mut parse, mut build) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            let t = Instant::now();
            let game = toss::lang::parse_game(&src, "tic-tac-toe-n.toss").expect("parses");
            parse.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let g = toss::runtime::Interpreter::new(&game).expect("loads");
            build.push(t.elapsed().as_secs_f64());
            drop(g);
        }
        let (p, b) = (median(parse), median(build));
        println!(
            "load n={n} cells={} parse={p:.3} interpreter={b:.3} total={:.3}",
            n * n,
            p + b
        );
    }
}
