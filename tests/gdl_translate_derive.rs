//! `#[derive(Game)]` with `gdl = "...", translate`: a GDL game compiled
//! through its Toss translation (spec chapter 5) and the Toss specializer.
//! The embedded description is the translation `toss translate` prints;
//! the derived game plays seed for seed like the interpreter of that
//! translation, and its perft counts are the reasoner's on the GDL.

use toss::Game;

#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/ticTacToe.kif", translate)]
struct TicTacToe;

#[derive(toss::Game)]
#[toss(gdl = "../shared/corpus/gdl/connectFour.kif", translate)]
struct ConnectFour;

/// The GDL file's text, its translation printed, and the reasoner.
fn gdl(name: &str) -> (String, toss::gdl::GdlGame) {
    let path = toss_testkit::corpus::gdl_dir().join(name);
    let text = std::fs::read_to_string(&path).expect("corpus file");
    let desc = toss::gdl::kif::parse_gdl(&text, name).expect("parses");
    let t = toss::gdl::translate::translate(&desc).expect("translates");
    let reasoner = toss::gdl::kif::load_game(&text, name).expect("loads");
    (toss::lang::print_game(&t.game), reasoner)
}

fn check<G: Game>(g: &G, source: &str, name: &str, depth: usize) {
    let (printed, reasoner) = gdl(name);
    assert_eq!(source, printed, "{name}: the embedded translation");
    let interpreted = toss::interpret(&printed, name).expect("the translation loads");
    for seed in 0..30 {
        let a = g.random_playout(&mut toss::rng_from_seed(seed), 200);
        let b = interpreted.random_playout(&mut toss::rng_from_seed(seed), 200);
        assert_eq!(a, b, "{name} seed {seed}");
    }
    let (s, r) = (g.initial_state(), reasoner.initial_state());
    for d in 1..=depth {
        assert_eq!(g.perft(&s, d), reasoner.perft(&r, d), "{name} perft {d}");
    }
}

#[test]
fn translated_tic_tac_toe_derives_and_plays_like_the_gdl() {
    check(&TicTacToe, TicTacToe::SOURCE, "ticTacToe.kif", 5);
}

#[test]
fn translated_connect_four_derives_and_plays_like_the_gdl() {
    check(&ConnectFour, ConnectFour::SOURCE, "connectFour.kif", 4);
}
