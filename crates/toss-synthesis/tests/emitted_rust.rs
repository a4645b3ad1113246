//! The emitted Rust compiled with `rustc` (warnings denied) and run,
//! against the direct evaluation: the seed's `win/2` and Kayles' Grundy
//! values by mex.

use std::path::PathBuf;
use std::process::Command;

use toss_synthesis::family::{Family, Octal, Play, Subtraction};
use toss_synthesis::synthesize;
use toss_synthesis::values::{OctalValues, WinRelation, WinRow};

/// Compiles `source` with a `main` printing `func(n)` for `n = 0..=upto`,
/// one per line, runs it and returns the lines.
fn run_emitted(source: &str, func: &str, upto: u64, name: &str) -> Vec<String> {
    let dir: PathBuf =
        std::env::temp_dir().join(format!("toss-synthesis-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let main = dir.join("main.rs");
    let program = format!(
        "#![deny(warnings)]\n{source}\nfn main() {{\n    for n in 0..={upto}u64 {{\n        \
         println!(\"{{:?}}\", {func}(n));\n    }}\n}}\n"
    );
    std::fs::write(&main, program).expect("write main.rs");
    let bin = dir.join("emitted");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .args(["--edition", "2024", "-O", "-o"])
        .arg(&bin)
        .arg(&main)
        .output()
        .expect("run rustc");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&bin)
        .output()
        .expect("run the emitted program");
    assert!(out.status.success());
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_seed_games_rust_answers_as_win_2() {
    let game = Subtraction::new(&[1, 2], Play::EmptyTableWins).unwrap();
    let s = synthesize(&Family::Subtraction(game.clone()), 1_000).unwrap();
    let lines = run_emitted(&s.rust_program(), "winning_move", 100_000, "seed");
    assert_eq!(lines.len(), 100_001);
    let mut win = WinRelation::new(&game);
    for (n, line) in lines.iter().enumerate() {
        let row = win.next_row();
        match row {
            WinRow::Every => assert_eq!(line, "Some(0)", "n = {n}"),
            WinRow::Moves(0) => assert_eq!(line, "None", "n = {n}"),
            WinRow::Moves(_) => {
                let m: u32 = line
                    .strip_prefix("Some(")
                    .and_then(|l| l.strip_suffix(')'))
                    .and_then(|m| m.parse().ok())
                    .unwrap_or_else(|| panic!("n = {n}: {line}"));
                assert!(win.holds(row, m), "n = {n}: {m}");
            }
        }
    }
}

#[test]
fn kayles_rust_gives_the_grundy_values() {
    let code = Octal::parse("0.77").unwrap();
    let s = synthesize(&Family::Octal(code.clone()), 1_000).unwrap();
    let lines = run_emitted(&s.rust_program(), "grundy", 3_000, "kayles");
    let mut values = OctalValues::new(&code);
    values.extend_to(3_001);
    let expected: Vec<String> = values.values().iter().map(u32::to_string).collect();
    assert_eq!(lines, expected);
}
