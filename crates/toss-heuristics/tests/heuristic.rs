//! Heuristics derived from a parsed game print as Toss terms that parse
//! back.

use toss_heuristics::{HeuristicConfig, HeuristicKind, derive};

#[test]
fn tic_tac_toe_heuristics_print_and_parse_back() {
    let src = include_str!("../../toss-lang/tests/fixtures/tic-tac-toe.toss");
    let game = toss_lang::parse_game(src, "tic-tac-toe.toss").expect("parses");
    for kind in [HeuristicKind::Existential, HeuristicKind::RuleCondition] {
        let cfg = HeuristicConfig {
            kind,
            ..HeuristicConfig::default()
        };
        let h = derive(&game, &cfg);
        assert_eq!(h.per_location.len(), 2);
        for t in h.per_location.iter().flatten() {
            let text = toss_lang::print_real(t);
            println!("{kind:?}: {text}");
            assert!(text.contains("Sum"), "{kind:?}: {text}");
            let back = toss_lang::parse_term(&text).expect("parses back");
            assert_eq!(toss_lang::print_real(&back), text);
        }
    }
}
