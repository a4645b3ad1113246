//! `format_source` (`toss fmt`) over every `.toss` file of the repository
//! and on small cases with exact output: comments and board literals kept,
//! the same game, and formatting its own output changes nothing.

use std::path::{Path, PathBuf};

use toss_lang::{format_source, parse_game, render_diagnostics};

/// The `.toss` files under `games/` and `tests/fixtures/`.
fn toss_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for dir in ["games", "tests/fixtures"] {
        let entries = std::fs::read_dir(root.join(dir)).expect("a directory of games");
        let mut paths: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "toss"))
            .collect();
        paths.sort();
        files.extend(paths);
    }
    files
}

/// The texts of the `//` comments (outside string literals), sorted.
fn comments(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_string = false;
    for line in src.lines() {
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => in_string = !in_string,
                b'/' if !in_string && bytes.get(i + 1) == Some(&b'/') => {
                    out.push(line[i..].trim_end().to_string());
                    break;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out.sort();
    out
}

/// The number of board literals: structures followed by a string.
fn boards(src: &str) -> usize {
    let code: String = src
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    code.match_indices('"').count() / 2
}

fn longest_line(s: &str) -> usize {
    s.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

#[test]
fn every_game_file_formats_to_the_same_game_with_its_comments_and_boards() {
    let files = toss_files();
    assert!(files.len() >= 16, "game files not found: {files:?}");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(path).expect("readable game file");
        let out = match format_source(&src) {
            Ok(out) => out,
            Err(d) => {
                failures.push(render_diagnostics(&[d], &src, &name, false));
                continue;
            }
        };
        match format_source(&out) {
            Ok(again) if again == out => {}
            Ok(_) => failures.push(format!("{name}: formatting is not idempotent")),
            Err(d) => failures.push(render_diagnostics(&[d], &out, &name, false)),
        }
        if comments(&out) != comments(&src) {
            failures.push(format!("{name}: the comments differ"));
        }
        if boards(&out) != boards(&src) {
            failures.push(format!(
                "{name}: {} board literals, {} after formatting",
                boards(&src),
                boards(&out)
            ));
        }
        // Longer lines are only atoms that cannot be split, and comments.
        if longest_line(&out) > 90 {
            failures.push(format!("{name}: a line of {}", longest_line(&out)));
        }
        match (parse_game(&src, &name), parse_game(&out, &name)) {
            (Ok(a), Ok(b)) => {
                if a != b {
                    failures.push(format!("{name}: formatted, it is a different game"));
                }
            }
            // A fixture that is meant to be rejected: the same errors.
            (Err(a), Err(b)) => {
                let msgs = |ds: &[toss_lang::Diagnostic]| -> Vec<String> {
                    ds.iter().map(|d| d.message.clone()).collect()
                };
                if msgs(&a) != msgs(&b) {
                    failures.push(format!("{name}: formatted, the errors differ"));
                }
            }
            (Ok(_), Err(d)) => failures.push(render_diagnostics(&d, &out, &name, false)),
            (Err(_), Ok(_)) => failures.push(format!("{name}: formatted, it checks")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn comments_stay_where_they_were_written() {
    let src = "// Header.\n\n// About the players.\nPLAYERS a,b // two\n\
               REL P(x) = // why\n  Q(x) and // and\n  // own line\n  R(x)\n\
               // Before the rule.\nRULE M: [x | | ] -> [x | Q (x) | ]\n  emb Q // kept\n  pre true\n\
               LOC 0 {\n  // the only player\n  PLAYER a { MOVES [M -> 0] } // end\n}\n\
               START [ e | Q:1 {}; R:1 {} | ] // last\n";
    let expected = "// Header.\n\n// About the players.\nPLAYERS a, b // two\n\
                    REL P(x) = // why\n  Q(x) and // and\n  // own line\n  R(x)\n\
                    // Before the rule.\nRULE M:\n  [x | | ] -> [x | Q (x) | ]\n  emb Q // kept\n  pre true\n\
                    LOC 0 {\n  // the only player\n  PLAYER a { MOVES [M -> 0] } // end\n}\n\
                    START [e | Q:1 {}; R:1 {} | ] // last\n";
    let out = format_source(src).expect("formats");
    assert_eq!(out, expected);
    assert_eq!(format_source(&out).expect("formats"), out);
}

#[test]
fn boards_are_kept_as_aligned_boards() {
    let src = "PLAYERS a\nLOC 0 {}\nSTART [ | | ] \"\n   .   P+Q\n  Q  .\n\"\n";
    let expected = "PLAYERS a\nLOC 0 {}\nSTART [ | | ] \"\n  . P+Q\n  Q .\n\"\n";
    assert_eq!(format_source(src).expect("formats"), expected);
}

#[test]
fn numbers_and_parentheses_stay_as_written() {
    let src = "PLAYERS a\nREL P(x) = (Q(x) and R(x)) or ((S(x)))\n\
               RULE M: [x | | ] -> [x | | ] update :v(x) = (:v(x) + 1) * 2 pre :v(x) < 1e2\n\
               LOC 0 { PLAYER a { PAYOFF 0.50 MOVES [M -> 0] } }\n\
               START [ e | Q:1 {}; R:1 {}; S:1 {} | v { e -> 0 } ]\n";
    let expected = "PLAYERS a\nREL P(x) = (Q(x) and R(x)) or (S(x))\n\
                    RULE M:\n  [x | | ] -> [x | | ]\n  update :v(x) = (:v(x) + 1) * 2\n  pre :v(x) < 1e2\n\
                    LOC 0 {\n  PLAYER a {\n    PAYOFF 0.50\n    MOVES [M -> 0]\n  }\n}\n\
                    START [e | Q:1 {}; R:1 {}; S:1 {} | v {e -> 0}]\n";
    assert_eq!(format_source(src).expect("formats"), expected);
}

#[test]
fn long_formulas_wrap() {
    let src = "PLAYERS a\nREL Long(x) = Alpha(x) and Beta(x) and Gamma(x) and Delta(x) and Epsilon(x) and Zeta(x)\n";
    let expected = "PLAYERS a\nREL Long(x) =\n  Alpha(x) and Beta(x) and Gamma(x) and Delta(x) and Epsilon(x) and Zeta(x)\n";
    assert_eq!(format_source(src).expect("formats"), expected);
}

#[test]
fn a_syntax_error_is_located() {
    let src = "PLAYERS a\nREL P(x) = Q(x) and\n";
    let d = format_source(src).expect_err("a syntax error");
    let rendered = render_diagnostics(&[d], src, "bad.toss", false);
    assert!(rendered.contains("bad.toss:"), "{rendered}");
    // Any bytes: an error or a text, never a panic.
    for s in ["", "//", "\"", "PLAYERS a // x", "START [ | | ] \"a\nb c\""] {
        let _ = format_source(s);
    }
}

/// A comment at the end of every line of every game file (outside board
/// strings), and one on a line of its own before every line: all kept, in
/// order, the same game, and formatting is still idempotent.
#[test]
fn comments_anywhere_are_kept_in_order() {
    let mut failures = Vec::new();
    for path in toss_files() {
        let name = path.display().to_string();
        let src = std::fs::read_to_string(&path).expect("readable game file");
        let mut text = String::new();
        let mut in_string = false;
        for (i, line) in src.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let starts_in_string = in_string;
            in_string ^= code.matches('"').count() % 2 == 1;
            if !starts_in_string {
                text.push_str(&format!("// own {i}\n"));
            }
            text.push_str(line);
            if !in_string && !line.contains("//") && !line.trim().is_empty() {
                text.push_str(&format!(" // end {i}"));
            }
            text.push('\n');
        }
        let out = match format_source(&text) {
            Ok(out) => out,
            Err(d) => {
                failures.push(render_diagnostics(&[d], &text, &name, false));
                continue;
            }
        };
        let in_order = |s: &str| -> Vec<String> {
            s.lines()
                .filter_map(|l| {
                    l.find("// own ")
                        .or_else(|| l.find("// end "))
                        .map(|i| l[i..].to_string())
                })
                .collect()
        };
        if in_order(&out) != in_order(&text) {
            failures.push(format!("{name}: the comments are not all kept in order"));
        }
        if comments(&out) != comments(&text) {
            failures.push(format!("{name}: the comments differ"));
        }
        if format_source(&out).ok().as_ref() != Some(&out) {
            failures.push(format!("{name}: not idempotent"));
        }
        if let (Ok(a), Ok(b)) = (parse_game(&src, &name), parse_game(&out, &name))
            && a != b
        {
            failures.push(format!("{name}: a different game"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
