//! Checks a `.toss` file and prints its diagnostics: `tosscheck FILE [--time]`.

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_default();
    let timing = args.next().as_deref() == Some("--time");
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(2);
        }
    };
    let src = String::from_utf8_lossy(&bytes).into_owned();
    if timing {
        let t = std::time::Instant::now();
        let _ = toss_lang::parse::check_nesting(&src);
        eprintln!("nesting pre-pass: {:?}", t.elapsed());
        let t = std::time::Instant::now();
        let _ = toss_lang::parse_ast(&src);
        eprintln!("parse + AST: {:?}", t.elapsed());
    }
    let t = std::time::Instant::now();
    match toss_lang::parse_game_bytes(&bytes, &path) {
        Ok(g) => println!(
            "ok: {} rules, {} locations, {} start elements ({:?})",
            g.rules.len(),
            g.locations.len(),
            g.start.num_elements(),
            t.elapsed()
        ),
        Err(d) => {
            print!("{}", toss_lang::render_diagnostics(&d, &src, &path, false));
            std::process::exit(1);
        }
    }
}
