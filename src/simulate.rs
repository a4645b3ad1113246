//! `toss simulate`: a game run by programs over continuous time, printing
//! each rule application and the final function values, optionally drawing
//! the functions' trajectories.

use std::io::Write;
use std::path::Path;

use toss_core::game::{Game, rng_from_seed};
use toss_core::ir;
use toss_core::structure::Structure;
use toss_runtime::Interpreter;
use toss_runtime::ode::{Method, OdeError};

use crate::matches::{self, PlayerSpec};

/// By default at most this many joint moves are played (a guard for games
/// whose time does not advance).
pub const MAX_PLIES: usize = crate::DEFAULT_MAX_PLIES;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct Options {
    /// Stop at this time.
    pub until: f64,
    /// A fixed RK4 step; `None` for the adaptive Dormand-Prince method.
    pub step: Option<f64>,
    pub seed: u64,
    /// One per player (the rest play randomly).
    pub players: Vec<PlayerSpec>,
    /// Stop after this many joint moves (see [`MAX_PLIES`]).
    pub max_plies: usize,
}

/// What a simulation came to: its trajectories (when traced) and whether
/// a limit stopped it before `until` and the end of the play.
pub struct Simulation {
    pub trajectories: Trajectories,
    pub finish: crate::Finish,
}

/// Trajectories of every function on every element: `(name, points)`,
/// named `f(e)`, in function then element order.
pub type Trajectories = Vec<(String, Vec<(f64, f64)>)>;

fn record(traj: &mut Trajectories, t: f64, s: &Structure) {
    let mut k = 0;
    for f in 0..s.num_functions() {
        for e in s.elements() {
            let name = format!("{}({})", s.function_name(f), s.element_name(e));
            if traj.get(k).is_none_or(|(n, _)| *n != name) {
                match traj.iter().position(|(n, _)| *n == name) {
                    Some(j) => k = j,
                    None => {
                        traj.push((name, Vec::new()));
                        k = traj.len() - 1;
                    }
                }
            }
            traj[k].1.push((t, s.fun_value(f, e)));
            k += 1;
        }
    }
}

/// Runs `interp` (the interpreter of `game`) from its start until time
/// `opts.until` or the end of the play. Writes `t=<time> rule=<name>` per
/// rule application, then `final t=<time>` and `:f(e) = v` for every
/// function and live element. When a limit stops it first, `opts.max_plies`
/// joint moves or the integrator's step limit ([`ode::MAX_STEPS`]), a line
/// `stopped at the limit ...` comes before `final` and the result is
/// [`crate::Finish::Cut`]. Returns the trajectories when `trace`.
///
/// [`ode::MAX_STEPS`]: toss_runtime::ode::MAX_STEPS
pub fn simulate(
    game: &ir::Game,
    interp: &mut Interpreter,
    opts: &Options,
    trace: bool,
    out: &mut dyn Write,
) -> Result<Simulation, String> {
    if opts.until.is_nan() || opts.until < 0.0 {
        return Err(format!("--until {} is not a non-negative time", opts.until));
    }
    match opts.step {
        Some(h) if h.is_nan() || h <= 0.0 || h.is_infinite() => {
            return Err(format!("--step {h} is not a positive step"));
        }
        Some(h) => interp.set_method(Method::Rk4 { step: h }),
        None => interp.set_method(Method::ADAPTIVE),
    }
    let interp = &*interp;
    let n = interp.num_players();
    if opts.players.len() > n {
        return Err(format!(
            "{} --player given, the game has {n} players",
            opts.players.len()
        ));
    }
    let mut seats = Vec::with_capacity(n);
    for p in 0..n {
        let spec = match opts.players.get(p) {
            Some(s) => s.clone(),
            None => "random".parse()?,
        };
        let seat = matches::build(
            &spec,
            interp,
            game,
            interp,
            opts.seed.wrapping_add(p as u64 + 1),
        )?;
        if seat.player.is_none() {
            return Err("simulate plays programs only (random, uct, ...), not humans".into());
        }
        seats.push(seat);
    }
    let io = |e: std::io::Error| e.to_string();
    let mut rng = rng_from_seed(opts.seed);
    let mut s = interp.initial_state();
    let mut traj: Trajectories = Vec::new();
    let mut movers = Vec::new();
    let mut finish = crate::Finish::Complete;
    let mut plies = 0;
    loop {
        if s.time >= opts.until {
            break;
        }
        interp.movers(&s, &mut movers);
        if movers.is_empty() {
            break;
        }
        if plies >= opts.max_plies {
            writeln!(
                out,
                "stopped at the limit of {} plies (--max-plies), before t={}",
                opts.max_plies, opts.until
            )
            .map_err(io)?;
            finish = crate::Finish::Cut;
            break;
        }
        plies += 1;
        let Some(joint) = matches::choose_joint(interp, &s, &mut seats, &movers) else {
            break;
        };
        let mut observe = |t: f64, st: &Structure| record(&mut traj, t, st);
        let ev = interp.apply_observed(
            &mut s,
            &joint,
            &mut rng,
            opts.until,
            if trace { Some(&mut observe) } else { None },
        );
        for rule in &ev.applied {
            writeln!(out, "t={} rule={rule}", s.time).map_err(io)?;
        }
        if let Some(e) = &ev.error {
            // The step limit is a limit of the integrator, not a fault of
            // the game: the simulation is cut, not failed.
            if let OdeError::TooManySteps(_) = e {
                writeln!(out, "stopped at the limit of the integrator: {e}").map_err(io)?;
                finish = crate::Finish::Cut;
            } else {
                writeln!(out, "evolution stopped: {e}").map_err(io)?;
            }
            break;
        }
        if ev.limited {
            break;
        }
    }
    writeln!(out, "final t={}", s.time).map_err(io)?;
    let st = &s.structure;
    for f in 0..st.num_functions() {
        for e in st.elements() {
            writeln!(
                out,
                ":{}({}) = {}",
                st.function_name(f),
                st.element_name(e),
                st.fun_value(f, e)
            )
            .map_err(io)?;
        }
    }
    if trace {
        record(&mut traj, s.time, st);
    }
    Ok(Simulation {
        trajectories: traj,
        finish,
    })
}

/// Draws trajectories as an SVG line chart at `path`.
pub fn plot(traj: &Trajectories, title: &str, path: &Path) -> Result<(), String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| format!("cannot draw {}: {e}", path.display());
    let (mut t0, mut t1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for (_, pts) in traj {
        for &(t, y) in pts {
            if t.is_finite() && y.is_finite() {
                t0 = t0.min(t);
                t1 = t1.max(t);
                y0 = y0.min(y);
                y1 = y1.max(y);
            }
        }
    }
    if t0 > t1 {
        (t0, t1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
    }
    if t1 - t0 < 1e-12 {
        t1 = t0 + 1.0;
    }
    if y1 - y0 < 1e-12 {
        (y0, y1) = (y0 - 1.0, y1 + 1.0);
    }
    let pad = (y1 - y0) * 0.05;
    // The legend gets its own column right of the chart, so it never
    // covers data (the last bounces of a ball run into a corner), as wide
    // as its longest name needs (about 8 px a character at 14 px).
    let longest = traj
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0);
    let legend_w = (48 + 8 * longest as u32).clamp(80, 320);
    let root = SVGBackend::new(path, (900 + legend_w, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (area, legend) = root.split_horizontally(900);
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(t0..t1, (y0 - pad)..(y1 + pad))
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc("t")
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (name, pts)) in traj.iter().enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(
                pts.iter()
                    .copied()
                    .filter(|(t, y)| t.is_finite() && y.is_finite()),
                colour.stroke_width(2),
            ))
            .map_err(|e| err(&e))?;
        // One line of the legend: a stroke of the series' colour, its name.
        let y = 48 + 22 * i as i32;
        legend
            .draw(&PathElement::new(
                vec![(8, y), (32, y)],
                colour.stroke_width(2),
            ))
            .map_err(|e| err(&e))?;
        legend
            .draw(&Text::new(
                name.clone(),
                (40, y - 7),
                ("sans-serif", 14).into_font(),
            ))
            .map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}
