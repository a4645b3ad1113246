//! Pictures of every game of `games/` and of five corpus GDL games, as
//! `toss show` draws them, a few random plies into the play: each is laid
//! out, checked that no text leaves its cell (by the layout's own width
//! estimate and by the glyphs a real font renders), and written as SVG and
//! PNG to `docs/pictures/` for the README.
//!
//! The PNGs are rendered by resvg with DejaVu Sans embedded (the `dejavu`
//! crate), not with system fonts: the test then runs the same on a machine
//! without fonts, and the glyph check measures the font the layout's
//! estimate was made for.

use std::path::{Path, PathBuf};

use resvg::tiny_skia;
use resvg::usvg;
use toss_cli::render::{Drawing, Rect};
use toss_core::game::{Game, index_below, rng_from_seed};

/// The directory of the pictures, next to the README.
fn pictures_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/pictures");
    std::fs::create_dir_all(&dir).expect("docs/pictures");
    dir
}

fn corpus() -> PathBuf {
    if let Ok(dir) = std::env::var("TOSS_SHARED") {
        return Path::new(&dir).join("corpus/gdl");
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/gdl")
}

/// `plies` random joint moves from the start (fewer if the play ends), so
/// the boards show pieces that moved; seeded, so the pictures are the same
/// on every run.
fn position<G: Game>(g: &G, plies: usize, seed: u64) -> G::State {
    let mut rng = rng_from_seed(seed);
    let mut s = g.initial_state();
    let (mut movers, mut moves) = (Vec::new(), Vec::new());
    for _ in 0..plies {
        g.movers_and_moves(&s, &mut movers, &mut moves);
        if movers.is_empty() || moves[..movers.len()].iter().any(Vec::is_empty) {
            break;
        }
        let joint: Vec<G::Move> = moves[..movers.len()]
            .iter()
            .map(|ms| ms[index_below(&mut rng, ms.len())].clone())
            .collect();
        g.apply(&mut s, &joint, &mut rng);
    }
    s
}

fn options() -> usvg::Options<'static> {
    let mut opt = usvg::Options::default();
    let db = opt.fontdb_mut();
    db.load_font_data(dejavu::sans::regular().to_vec());
    db.set_sans_serif_family("DejaVu Sans");
    opt.font_family = "DejaVu Sans".into();
    opt
}

/// The glyph outlines of every text of the tree, in document order.
fn text_boxes(g: &usvg::Group, out: &mut Vec<usvg::Rect>) {
    for node in g.children() {
        match node {
            usvg::Node::Group(g) => text_boxes(g, out),
            usvg::Node::Text(t) => out.push(t.flattened().abs_bounding_box()),
            _ => {}
        }
    }
}

fn inside(cell: &Rect, b: &usvg::Rect, slack: f64) -> bool {
    b.left() as f64 >= cell.x - slack
        && b.top() as f64 >= cell.y - slack
        && b.right() as f64 <= cell.x + cell.w + slack
        && b.bottom() as f64 <= cell.y + cell.h + slack
}

/// Checks the drawing's texts against their cells, writes `name.svg` and
/// `name.png`; returns what is wrong.
fn check_and_write(name: &str, d: &Drawing, opt: &usvg::Options) -> Vec<String> {
    let mut wrong = Vec::new();
    let labels: Vec<_> = d.labels().filter(|l| !l.text.is_empty()).collect();
    let canvas = Rect {
        x: 0.0,
        y: 0.0,
        w: d.width,
        h: d.height,
    };
    for l in &labels {
        if !l.cell.contains(&l.extent()) {
            wrong.push(format!(
                "{name}: `{}` (estimated {:?}) leaves its cell {:?}",
                l.text,
                l.extent(),
                l.cell
            ));
        }
        if !canvas.contains(&l.cell) {
            wrong.push(format!(
                "{name}: the cell of `{}` leaves the picture",
                l.text
            ));
        }
    }
    let svg = d.to_svg();
    let tree = match usvg::Tree::from_str(&svg, opt) {
        Ok(t) => t,
        Err(e) => return vec![format!("{name}: the SVG does not parse: {e}")],
    };
    let mut boxes = Vec::new();
    text_boxes(tree.root(), &mut boxes);
    if boxes.len() != labels.len() {
        wrong.push(format!(
            "{name}: {} texts laid out, {} rendered",
            labels.len(),
            boxes.len()
        ));
    }
    for (l, b) in labels.iter().zip(&boxes) {
        // Half a pixel for anti-aliasing and rounding of coordinates.
        if !inside(&l.cell, b, 0.5) {
            wrong.push(format!(
                "{name}: the glyphs of `{}` ({b:?}) leave its cell {:?}",
                l.text, l.cell
            ));
        }
    }
    let dir = pictures_dir();
    std::fs::write(dir.join(format!("{name}.svg")), &svg).expect("write svg");
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).expect("pixmap");
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .save_png(dir.join(format!("{name}.png")))
        .expect("write png");
    wrong
}

#[test]
fn every_game_and_five_gdl_games_are_drawn_within_their_cells() {
    let opt = options();
    let mut wrong = Vec::new();
    let mut drawn = 0;
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("games");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&games)
        .expect("games/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toss"))
        .collect();
    files.sort();
    for path in &files {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("game");
        let source = std::fs::read_to_string(path).expect("read game");
        let g = toss::interpret(&source, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let s = position(&g, 6, 1);
        let d = toss_cli::render::drawing(&g.to_structure(&s), g.player_names());
        wrong.extend(check_and_write(name, &d, &opt));
        drawn += 1;
    }
    assert!(drawn >= 16, "only {drawn} games in games/");
    let corpus = corpus();
    for (file, plies) in [
        ("ticTacToe", 4),
        ("connectFour", 9),
        ("breakthrough", 6),
        ("chess", 4),
        ("nim1", 2),
    ] {
        let path = corpus.join(format!("{file}.kif"));
        let loaded = toss_cli::load::load_with(&path, false, toss_cli::load::Engine::Reasoner)
            .unwrap_or_else(|e| panic!("{file}: {}", e.rendered));
        let toss_cli::load::Loaded::Gdl(g) = loaded else {
            panic!("{file}: not loaded by the reasoner");
        };
        let s = position(&g, plies, 1);
        let d = toss_cli::render::drawing(&g.to_structure(&s), g.player_names());
        wrong.extend(check_and_write(&format!("gdl-{file}"), &d, &opt));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `toss simulate --plot` of the bouncing ball: the legend stands right of
/// the chart, not over the data (its last bounces end low on the right).
#[test]
fn the_bounce_plot_keeps_its_legend_beside_the_chart() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("games/bounce.toss");
    let toss_cli::load::Loaded::Toss {
        game,
        mut interpreter,
    } = toss_cli::load::load(&path, false).unwrap_or_else(|e| panic!("{}", e.rendered))
    else {
        panic!("bounce.toss is a Toss game");
    };
    let opts = toss_cli::simulate::Options {
        until: 12.0,
        step: None,
        seed: 0,
        players: Vec::new(),
        max_plies: toss_cli::simulate::MAX_PLIES,
    };
    let mut out = Vec::new();
    let sim = toss_cli::simulate::simulate(&game, &mut interpreter, &opts, true, &mut out)
        .unwrap_or_else(|e| panic!("{e}"));
    let dir = pictures_dir();
    let svg_path = dir.join("bounce-plot.svg");
    toss_cli::simulate::plot(&sim.trajectories, "bounce", &svg_path)
        .unwrap_or_else(|e| panic!("{e}"));
    let svg = std::fs::read_to_string(&svg_path).expect("plot written");
    let tree = usvg::Tree::from_str(&svg, &options()).expect("the plot parses");
    // The chart is the left 900 px; every series name lies right of it.
    let mut boxes = Vec::new();
    text_boxes(tree.root(), &mut boxes);
    let names: Vec<&str> = sim.trajectories.iter().map(|(n, _)| n.as_str()).collect();
    assert!(!names.is_empty());
    let right: Vec<_> = boxes.iter().filter(|b| b.left() >= 900.0).collect();
    assert_eq!(
        right.len(),
        names.len(),
        "the legend's texts right of the chart"
    );
    let size = tree.size().to_int_size();
    assert!(right.iter().all(|b| b.right() <= size.width() as f32));
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).expect("pixmap");
    resvg::render(&tree, tiny_skia::Transform::default(), &mut pixmap.as_mut());
    pixmap
        .save_png(dir.join("bounce-plot.png"))
        .expect("write png");
}
