//! The bandit of UCT (spec 3.1): the UCB1-TUNED bound, iterated regret
//! minimisation over the movers' joint actions, the draw among the
//! remaining actions ([`choose_joint`]), selection in a node
//! ([`select_by`]), and the mean and variance of recorded payoffs.

use toss_core::game::Rng;

use super::config::UctConfig;

/// The UCB1-TUNED bound of spec 3.1 for one player in child `w` of `v`:
/// `mu' = mu + C * Delta * sqrt(ln n(v) / n(w)) * s` with
/// `s = min(1/4, sigma' / Delta)` and the upper confidence bound on the
/// variance `sigma' = sigma^2 + Delta * sqrt(2 ln n(v) / n(w))`.
/// `n_parent` below 1 counts as 1; `n_child` must be positive.
pub fn ucb1_tuned(
    mean: f64,
    variance: f64,
    n_parent: f64,
    n_child: f64,
    c: f64,
    delta: f64,
) -> f64 {
    let ln = n_parent.max(1.0).ln();
    let sigma_up = variance + delta * (2.0 * ln / n_child).sqrt();
    let s = (sigma_up / delta).min(0.25);
    mean + c * delta * (ln / n_child).sqrt() * s
}

/// Iterated regret minimisation over pure strategies (spec 3.1) in the
/// normal-form game where mover `k` has `dims[k]` actions and
/// `util(j, k)` is mover `k`'s payoff for the joint action with index `j`
/// (mixed radix, first mover most significant). Repeatedly, for every
/// mover, the actions whose maximal regret (over the remaining actions of
/// the others) is not minimal are removed. Returns the remaining actions of
/// each mover (never empty when `dims` has no zero).
pub fn regret_minimizing(dims: &[usize], util: impl Fn(usize, usize) -> f64) -> Vec<Vec<usize>> {
    let m = dims.len();
    let mut alive: Vec<Vec<usize>> = dims.iter().map(|&d| (0..d).collect()).collect();
    if m == 1 {
        // Turn-based: the best actions.
        let best = alive[0]
            .iter()
            .map(|&a| util(a, 0))
            .fold(f64::NEG_INFINITY, f64::max);
        alive[0].retain(|&a| util(a, 0) >= best);
        return alive;
    }
    let mut strides = vec![1usize; m];
    for k in (0..m.saturating_sub(1)).rev() {
        strides[k] = strides[k + 1] * dims[k + 1];
    }
    loop {
        let mut changed = false;
        for k in 0..m {
            // Profiles of the others: iterate over the product of their
            // remaining actions.
            let others: Vec<usize> = (0..m).filter(|&o| o != k).collect();
            let mut idx = vec![0usize; others.len()];
            let mut max_regret = vec![0.0f64; alive[k].len()];
            'profiles: loop {
                let base: usize = others
                    .iter()
                    .zip(&idx)
                    .map(|(&o, &i)| alive[o][i] * strides[o])
                    .sum();
                let best = alive[k]
                    .iter()
                    .map(|&a| util(base + a * strides[k], k))
                    .fold(f64::NEG_INFINITY, f64::max);
                for (r, &a) in max_regret.iter_mut().zip(&alive[k]) {
                    *r = r.max(best - util(base + a * strides[k], k));
                }
                let mut p = idx.len();
                loop {
                    if p == 0 {
                        break 'profiles;
                    }
                    p -= 1;
                    idx[p] += 1;
                    if idx[p] < alive[others[p]].len() {
                        break;
                    }
                    idx[p] = 0;
                }
            }
            let min = max_regret.iter().copied().fold(f64::INFINITY, f64::min);
            let before = alive[k].len();
            let mut i = 0;
            alive[k].retain(|_| {
                let keep = max_regret[i] <= min;
                i += 1;
                keep
            });
            changed |= alive[k].len() != before;
        }
        if !changed {
            return alive;
        }
    }
}

pub(super) fn pick(rng: &mut Rng, xs: &[usize]) -> usize {
    xs[toss_core::game::index_below(rng, xs.len())]
}

/// Chooses a joint index from the remaining actions of each mover.
fn pick_joint(rng: &mut Rng, dims: &[usize], alive: &[Vec<usize>]) -> usize {
    let mut j = 0;
    for (k, a) in alive.iter().enumerate() {
        j = j * dims[k] + pick(rng, a);
    }
    j
}

/// A joint index drawn from the regret-minimising actions
/// ([`regret_minimizing`], then [`pick_joint`]). With one mover these are
/// the actions of the best utility, found here with each utility computed
/// once and nothing allocated for up to 64 actions: selection does this
/// in every node of every iteration.
pub(super) fn choose_joint(
    rng: &mut Rng,
    dims: &[usize],
    util: impl Fn(usize, usize) -> f64,
) -> usize {
    let [d] = *dims else {
        let alive = regret_minimizing(dims, util);
        return pick_joint(rng, dims, &alive);
    };
    let mut small = [0.0; 64];
    let mut large = Vec::new();
    let values: &mut [f64] = if d <= small.len() {
        &mut small[..d]
    } else {
        large.resize(d, 0.0);
        &mut large
    };
    let mut best = f64::NEG_INFINITY;
    for (j, x) in values.iter_mut().enumerate() {
        *x = util(j, 0);
        best = best.max(*x);
    }
    let ties = values.iter().filter(|&&x| x >= best).count();
    let k = toss_core::game::index_below(rng, ties);
    values
        .iter()
        .enumerate()
        .filter(|&(_, &x)| x >= best)
        .nth(k)
        .map_or(0, |(j, _)| j)
}

/// The mean and variance of `n > 0` samples with sum `sum` and sum of
/// squares `sq`.
pub(super) fn moments(sum: f64, sq: f64, n: f64) -> (f64, f64) {
    let mean = sum / n;
    (mean, (sq / n - mean * mean).max(0.0))
}

/// The joint move to descend to from a node with `nv` visits whose child
/// `j` has for player `p` the visits, mean and variance `stat(j, p)`
/// (UCB1-TUNED bounds, regret minimisation, ties broken at random).
pub(super) fn select_by(
    cfg: &UctConfig,
    rng: &mut Rng,
    nv: f64,
    movers: &[usize],
    dims: &[usize],
    stat: impl Fn(usize, usize) -> (u32, f64, f64),
) -> usize {
    let bound = |j: usize, k: usize| {
        let (n, mean, variance) = stat(j, movers[k]);
        if n == 0 {
            return f64::INFINITY;
        }
        ucb1_tuned(mean, variance, nv, f64::from(n), cfg.c, cfg.delta)
    };
    choose_joint(rng, dims, bound)
}
