//! What the resource limits ([`toss_core::limits`]) need from the source:
//! the file positions of rules and definitions, for fault messages, and `toss check`'s
//! warnings where a rule can have more matches in one state than the limit.

use toss_core::ir;
use toss_core::limits::{MATCHES_PER_RULE, match_estimates, thousands};

use crate::ast::Item;

/// Each rule's name and its position `file:line:col` (of the name), in
/// source order; empty when the source does not parse.
pub fn rule_positions(source: &str, file_name: &str) -> Vec<(String, String)> {
    item_positions(source, file_name, |item| match item {
        Item::Rule(r) => Some(&r.name),
        _ => None,
    })
}

/// Each `REL` definition's name and its position `file:line:col`, like
/// [`rule_positions`].
pub fn rel_positions(source: &str, file_name: &str) -> Vec<(String, String)> {
    item_positions(source, file_name, |item| match item {
        Item::Rel(r) => Some(&r.name),
        _ => None,
    })
}

/// The position `file:line:col` of the `REL` or rule named `name` (an
/// error of the interpreter names the item it is about), else `file_name`.
pub fn item_position(source: &str, file_name: &str, name: Option<&str>) -> String {
    name.and_then(|name| {
        rel_positions(source, file_name)
            .into_iter()
            .chain(rule_positions(source, file_name))
            .find(|(n, _)| n == name)
            .map(|(_, at)| at)
    })
    .unwrap_or_else(|| file_name.to_string())
}

/// The names `name_of` picks from the items, with their positions.
fn item_positions(
    source: &str,
    file_name: &str,
    name_of: impl Fn(&Item) -> Option<&crate::ast::Ident>,
) -> Vec<(String, String)> {
    let Ok(file) = crate::parse_ast(source) else {
        return Vec::new();
    };
    // Items come in source order: one forward scan finds every line
    // (`line_col` from the start per item would be quadratic in long files).
    let (mut at, mut line, mut line_start) = (0, 1, 0);
    file.items
        .iter()
        .filter_map(|item| {
            let name = name_of(item)?;
            let start = name.span.start.min(source.len());
            for (i, b) in source.as_bytes()[at..start].iter().enumerate() {
                if *b == b'\n' {
                    line += 1;
                    line_start = at + i + 1;
                }
            }
            at = start;
            let col = 1 + source[line_start..start].chars().count();
            Some((name.name.clone(), format!("{file_name}:{line}:{col}")))
        })
        .collect()
}

/// The warnings of `toss check` for the rules whose estimated matches in
/// one state ([`match_estimates`]) exceed [`MATCHES_PER_RULE`]: each with
/// the rule's position, the estimate and the limit.
pub fn match_warnings(game: &ir::Game, source: &str, file_name: &str) -> Vec<String> {
    let positions = rule_positions(source, file_name);
    let n = game.model.as_ref().unwrap_or(&game.start).num_elements();
    game.rules
        .iter()
        .zip(match_estimates(game))
        .filter(|&(_, est)| est > MATCHES_PER_RULE.value as f64)
        .map(|(rule, est)| {
            let at = positions
                .iter()
                .find(|(name, _)| *name == rule.name)
                .map_or(file_name.to_string(), |(_, p)| p.clone());
            let shown = if est < 1e18 {
                thousands(est as u64)
            } else {
                format!("{est:.1e}")
            };
            format!(
                "{at}: rule `{}` may have up to {shown} matches in one state ({} elements \
                 matched among {n}, constrained by stable relations or not at all): more than \
                 the limit {} (limit: {}); playing it stops with a fault when a state has that \
                 many",
                rule.name,
                rule.lhs.elements.len(),
                thousands(MATCHES_PER_RULE.value as u64),
                MATCHES_PER_RULE.name
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXPLOSIVE: &str = "PLAYERS p
RULE Pick:
  [a, b, c, d, e | | ] -> [a, b, c, d, e | | ]
RULE Mark:
  [a | P:1 {} | ] -> [a | P (a) | ] emb P
LOC 0 {
  PLAYER p {
    PAYOFF 0
    MOVES [Pick -> 0]; [Mark -> 0]
  }
}
START [ e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17, e18, e19,
  e20, e21, e22, e23, e24, e25, e26, e27, e28, e29, e30, e31, e32, e33, e34, e35, e36, e37, e38,
  e39, e40 | P:1 {} | ]
";

    #[test]
    fn an_explosive_rule_is_warned_about_at_its_position() {
        let game = crate::parse_game(EXPLOSIVE, "x.toss").expect("parses");
        let w = match_warnings(&game, EXPLOSIVE, "x.toss");
        assert_eq!(w.len(), 1, "{w:?}");
        // 40 * 39 * 38 * 37 * 36 is below 40^5 = 102,400,000.
        assert!(
            w[0].starts_with("x.toss:2:6: rule `Pick` may have up to 102,400,000 matches"),
            "{}",
            w[0]
        );
        assert!(w[0].contains("(limit: matches per rule)"), "{}", w[0]);
    }

    #[test]
    fn rule_positions_point_at_names() {
        let p = rule_positions(EXPLOSIVE, "x.toss");
        assert_eq!(
            p,
            vec![
                ("Pick".to_string(), "x.toss:2:6".to_string()),
                ("Mark".to_string(), "x.toss:4:6".to_string())
            ]
        );
    }

    #[test]
    fn rule_positions_agree_with_line_col_on_the_games() {
        let dir = format!("{}/../../games", env!("CARGO_MANIFEST_DIR"));
        for entry in std::fs::read_dir(&dir).expect("games/") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "toss") {
                continue;
            }
            let src = std::fs::read_to_string(&path).expect("a game");
            let file = crate::parse_ast(&src).expect("parses");
            let expected: Vec<(String, String)> = file
                .items
                .iter()
                .filter_map(|i| match i {
                    Item::Rule(r) => {
                        let (l, c) = crate::diagnostic::line_col(&src, r.name.span.start);
                        Some((r.name.name.clone(), format!("g:{l}:{c}")))
                    }
                    _ => None,
                })
                .collect();
            assert!(!expected.is_empty(), "{}", path.display());
            assert_eq!(rule_positions(&src, "g"), expected, "{}", path.display());
        }
    }

    #[test]
    fn the_games_are_not_warned_about() {
        let dir = format!("{}/../../games", env!("CARGO_MANIFEST_DIR"));
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("games/") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "toss") {
                continue;
            }
            let source = std::fs::read_to_string(&path).expect("game file");
            let shown = path.display().to_string();
            let game = crate::parse_game(&source, &shown).expect("parses");
            let w = match_warnings(&game, &source, &shown);
            assert!(w.is_empty(), "{shown}: {w:?}");
            seen += 1;
        }
        assert!(seen >= 10, "only {seen} games in {dir}");
    }
}
