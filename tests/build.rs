//! `toss build` makes a standalone binary of a game. Ignored by default:
//! it compiles a crate in release mode (`cargo test --test build -- --ignored`).

use std::process::Command;

#[test]
#[ignore = "compiles a crate in release mode"]
fn built_tic_tac_toe_counts_504_sequences_of_three_moves() {
    let dir = std::env::temp_dir().join(format!("toss-build-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let exe = dir.join(format!("tic-tac-toe{}", std::env::consts::EXE_SUFFIX));
    let out = Command::new(env!("CARGO_BIN_EXE_toss"))
        .args(["build", "games/tic-tac-toe.toss", "-o"])
        .arg(&exe)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run toss build");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let perft = Command::new(&exe)
        .args(["perft", "3"])
        .output()
        .expect("run the built game");
    let stdout = String::from_utf8_lossy(&perft.stdout);
    assert!(perft.status.success(), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("504"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn building_an_invalid_game_shows_its_diagnostics() {
    let dir = std::env::temp_dir().join(format!("toss-build-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("bad.toss");
    std::fs::write(&file, "PLAYERS a\nSTART [ e | P:1 {} | ]\nRULE").expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_toss"))
        .arg("build")
        .arg(&file)
        .arg("-o")
        .arg(dir.join("bad"))
        .output()
        .expect("run toss build");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("bad.toss"), "{stderr}");
    assert!(!stderr.contains("building"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
