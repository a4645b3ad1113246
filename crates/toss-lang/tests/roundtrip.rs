//! Printing games: the printer is total and deterministic on random valid
//! games.

mod arbitrary;

use proptest::prelude::*;
use toss_lang::print_game;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn printing_is_deterministic(g in arbitrary::arb_game()) {
        let a = print_game(&g);
        let b = print_game(&g.clone());
        prop_assert_eq!(&a, &b);
        prop_assert!(a.ends_with('\n'));
        prop_assert!(a.starts_with("PLAYERS "));
    }
}

#[test]
#[ignore]
fn show_samples() {
    for seed in 0..3u32 {
        let mut x = seed.wrapping_mul(2654435761).wrapping_add(1);
        let data: Vec<u32> = (0..600)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x
            })
            .collect();
        println!("{}", print_game(&arbitrary::Choices::new(data).game()));
    }
}
