//! Every game of the repository's `games/` directory parses, passes the
//! checks and lowers to the IR.

use std::path::PathBuf;

fn games_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../games")
}

#[test]
fn all_games_parse() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(games_dir())
        .expect("games directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toss"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no games found");
    let mut failures = Vec::new();
    for path in &paths {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(path).expect("readable game file");
        match toss_lang::parse_game(&src, &name) {
            Ok(game) => {
                assert!(!game.players.is_empty(), "{name}: no players");
                assert!(!game.locations.is_empty(), "{name}: no locations");
            }
            Err(d) => failures.push(toss_lang::render_diagnostics(&d, &src, &name, false)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
