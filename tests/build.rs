//! `toss build` makes a standalone binary of a game. Ignored by default:
//! it compiles a crate in release mode (`cargo test --test build -- --ignored`).

mod common;

use std::process::{Command, Output};

use common::{run, text};

/// `toss build FILE -o EXE`, which must succeed.
fn build(file: &std::path::Path, exe: &std::path::Path) {
    let out = Command::new(env!("CARGO_BIN_EXE_toss"))
        .arg("build")
        .arg(file)
        .arg("-o")
        .arg(exe)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run toss build");
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// The built binary runs the generated code: perft, playouts and play as
/// `toss` runs the interpreter.
#[test]
#[ignore = "compiles a crate in release mode"]
fn built_tic_tac_toe_counts_504_sequences_of_three_moves() {
    let dir = std::env::temp_dir().join(format!("toss-build-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let exe = dir.join(format!("tic-tac-toe{}", std::env::consts::EXE_SUFFIX));
    build(std::path::Path::new("games/tic-tac-toe.toss"), &exe);
    let perft = Command::new(&exe)
        .args(["perft", "3"])
        .output()
        .expect("run the built game");
    let stdout = String::from_utf8_lossy(&perft.stdout);
    assert!(perft.status.success(), "{stdout}");
    assert_eq!(stdout.lines().last(), Some("504"), "{stdout}");

    // The exact solver on the generated code: a draw, 5,478 positions.
    let solved = run(&exe, &["solve"], "");
    let stdout = text(&solved.stdout);
    assert!(
        stdout.contains("value xplayer: 0\nvalue oplayer: 0\nexact: yes"),
        "{stdout}"
    );
    let solved = run(&exe, &["solve", "--retrograde"], "");
    let stdout = text(&solved.stdout);
    assert!(
        stdout.contains("positions: 5478 (958 terminal)"),
        "{stdout}"
    );

    // Playouts: the same figures as the interpreter's for the seed (the
    // generated code plays the same moves), the time aside.
    let toss = std::path::Path::new(env!("CARGO_BIN_EXE_toss"));
    let built = run(&exe, &["playout", "-n", "10", "--seed", "1"], "");
    let interpreted = run(
        toss,
        &[
            "playout",
            "games/tic-tac-toe.toss",
            "-n",
            "10",
            "--seed",
            "1",
        ],
        "",
    );
    assert!(built.status.success(), "{}", text(&built.stderr));
    let (b, i) = (text(&built.stdout), text(&interpreted.stdout));
    assert!(b.starts_with("10 playouts in "), "{b}");
    let figures = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.starts_with("mean "))
            .map(String::from)
            .collect()
    };
    assert_eq!(figures(&b).len(), 3, "length, two payoffs: {b}");
    assert_eq!(figures(&b), figures(&i));
    let refused = run(&exe, &["playout", "-n", "0"], "");
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("-n 0"),
        "{}",
        text(&refused.stderr)
    );

    // Play: you first against UCT, moves piped in by their cells; each
    // cell in turn until one is free. The same game as `toss play` with
    // that UCT on the interpreter.
    let cells = ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"];
    let moves = cells.map(|c| format!("{c}\n")).concat().repeat(9);
    let built = run(&exe, &["play", "--seed", "3", "--iters", "300"], &moves);
    let b = text(&built.stdout);
    assert!(built.status.success(), "{}\n{b}", text(&built.stderr));
    assert!(b.contains("xplayer plays Cross{a: a1}"), "{b}");
    assert!(b.contains("The play has ended."), "{b}");
    let payoff = |name: &str| -> f64 {
        b.lines()
            .find_map(|l| l.trim().strip_prefix(name))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name}: {b}"))
    };
    assert_eq!(payoff("xplayer: ") + payoff("oplayer: "), 0.0, "{b}");
    let interpreted = run(
        toss,
        &[
            "play",
            "games/tic-tac-toe.toss",
            "--player",
            "human",
            "--player",
            "uct:iters=300",
            "--seed",
            "3",
        ],
        &moves,
    );
    assert_eq!(b, text(&interpreted.stdout));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `toss build` of a file with this name and text in a fresh directory:
/// it fails, and its standard error is returned.
fn build_invalid(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("toss-build-bad-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join(name);
    std::fs::write(&file, text).expect("write");
    let out = Command::new(env!("CARGO_BIN_EXE_toss"))
        .arg("build")
        .arg(&file)
        .arg("-o")
        .arg(dir.join("bad"))
        .output()
        .expect("run toss build");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn building_an_invalid_game_shows_its_diagnostics() {
    let stderr = build_invalid("bad.toss", "PLAYERS a\nSTART [ e | P:1 {} | ]\nRULE");
    assert!(stderr.contains("bad.toss"), "{stderr}");
    assert!(!stderr.contains("building"), "{stderr}");
}

/// A GDL game builds as a `.toss` one does, through `#[toss(gdl = ...)]`:
/// the binary's perft and seeded playouts are the grounded engine's.
#[test]
#[ignore = "compiles a crate in release mode"]
fn built_gdl_connect_four_agrees_with_the_grounded_engine() {
    let kif = toss_testkit::corpus::gdl_dir().join("connect4.kif");
    let dir = std::env::temp_dir().join(format!("toss-build-gdl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let exe = dir.join(format!("connect4{}", std::env::consts::EXE_SUFFIX));
    build(&kif, &exe);
    let perft = run(&exe, &["perft", "4"], "");
    assert_eq!(text(&perft.stdout).lines().last(), Some("2401"));
    let toss = std::path::Path::new(env!("CARGO_BIN_EXE_toss"));
    let kif = kif.display().to_string();
    let built = run(&exe, &["playout", "-n", "50", "--seed", "2"], "");
    let grounded = run(
        toss,
        &[
            "playout", &kif, "-n", "50", "--seed", "2", "--engine", "grounded",
        ],
        "",
    );
    let means = |o: &Output| -> Vec<String> {
        text(&o.stdout)
            .lines()
            .filter(|l| l.starts_with("mean"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(means(&built).len(), 3, "{}", text(&built.stdout));
    assert_eq!(means(&built), means(&grounded));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The translation to Toss feeds the compiler: a translated GDL game
/// builds like any `.toss` game, and the binary's perft counts are the GDL
/// game's (the reasoner's, through the CLI).
#[test]
#[ignore = "compiles a crate in release mode"]
fn translated_gdl_breakthrough_builds_and_counts_the_gdl_moves() {
    let kif = toss_testkit::corpus::gdl_dir().join("breakthrough.kif");
    let toss = std::path::Path::new(env!("CARGO_BIN_EXE_toss"));
    let dir = std::env::temp_dir().join(format!("toss-build-tr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let translated = run(toss, &["translate", &kif.display().to_string()], "");
    assert!(translated.status.success(), "{}", text(&translated.stderr));
    let file = dir.join("breakthrough.toss");
    std::fs::write(&file, &translated.stdout).expect("write the translation");
    let exe = dir.join(format!("breakthrough{}", std::env::consts::EXE_SUFFIX));
    build(&file, &exe);
    for depth in ["1", "2", "3"] {
        let built = run(&exe, &["perft", depth], "");
        let gdl = run(
            toss,
            &[
                "perft",
                &kif.display().to_string(),
                depth,
                "--engine",
                "reasoner",
            ],
            "",
        );
        assert_eq!(
            text(&built.stdout).lines().last(),
            text(&gdl.stdout).lines().last(),
            "perft {depth}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn building_an_invalid_gdl_game_shows_its_diagnostics() {
    let stderr = build_invalid("bad.kif", "(role x)\n(<= (legal x a)\n");
    assert!(stderr.contains("bad.kif:2:"), "{stderr}");
    assert!(!stderr.contains("building"), "{stderr}");
}
