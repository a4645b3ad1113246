fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let bytes = std::fs::read(&path).unwrap_or_default();
    let t = std::time::Instant::now();
    let src = String::from_utf8_lossy(&bytes).into_owned();
    match toss_lang::parse_game_bytes(&bytes, &path) {
        Ok(g) => println!(
            "ok: {} rules, {} locations, {} elements ({:?})",
            g.rules.len(),
            g.locations.len(),
            g.start.num_elements(),
            t.elapsed()
        ),
        Err(d) => print!("{}", toss_lang::render_diagnostics(&d, &src, &path, false)),
    }
}
