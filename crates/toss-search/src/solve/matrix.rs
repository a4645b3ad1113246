//! Zero-sum matrix games: the value of a simultaneous move of two players
//! whose payoffs sum to a constant, and the optimal mixed strategies, by
//! the simplex method (von Neumann's minimax theorem as a linear program).

/// The solution of a matrix game `a` (rows: the maximiser's moves,
/// columns: the minimiser's, entries: the maximiser's payoff).
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixSolution {
    pub value: f64,
    /// The maximiser's optimal mixed strategy, one probability per row.
    pub rows: Vec<f64>,
    /// The minimiser's, one per column.
    pub columns: Vec<f64>,
}

const EPS: f64 = 1e-12;

/// Solves the game with `m` rows and `n` columns whose entry `(i, j)` is
/// `a[i * n + j]` (`m, n >= 1`, every entry finite).
///
/// The entries are shifted to be at least 1, so the value is positive; the
/// minimiser's program is then: maximise `sum y` with `B y <= 1`, `y >= 0`,
/// whose optimum is `1 / value` and whose dual gives the maximiser's
/// strategy. Bland's rule picks the pivots, so the method terminates.
pub fn solve_matrix(a: &[f64], m: usize, n: usize) -> MatrixSolution {
    assert!(m >= 1 && n >= 1 && a.len() == m * n, "a {m}x{n} matrix");
    let min = a.iter().copied().fold(f64::INFINITY, f64::min);
    let shift = 1.0 - min;
    // Tableau: m constraint rows of n + m + 1 columns (variables, slacks,
    // right-hand side), then the objective row.
    let w = n + m + 1;
    let mut t = vec![0.0; (m + 1) * w];
    for i in 0..m {
        for j in 0..n {
            t[i * w + j] = a[i * n + j] + shift;
        }
        t[i * w + n + i] = 1.0;
        t[i * w + w - 1] = 1.0;
    }
    for j in 0..n {
        t[m * w + j] = -1.0;
    }
    let mut basis: Vec<usize> = (n..n + m).collect();
    // Entering: the first column with a negative reduced cost.
    while let Some(e) = (0..n + m).find(|&j| t[m * w + j] < -EPS) {
        // Leaving: the minimum ratio, ties to the smallest basic variable.
        let mut leave: Option<(usize, f64)> = None;
        for i in 0..m {
            let c = t[i * w + e];
            if c > EPS {
                let r = t[i * w + w - 1] / c;
                let better = match leave {
                    None => true,
                    Some((l, lr)) => r < lr - EPS || (r <= lr + EPS && basis[i] < basis[l]),
                };
                if better {
                    leave = Some((i, r));
                }
            }
        }
        // The program is bounded (B > 0), so some row always leaves.
        let Some((l, _)) = leave else { break };
        let p = t[l * w + e];
        for j in 0..w {
            t[l * w + j] /= p;
        }
        for i in 0..=m {
            if i != l {
                let f = t[i * w + e];
                if f != 0.0 {
                    for j in 0..w {
                        t[i * w + j] -= f * t[l * w + j];
                    }
                }
            }
        }
        basis[l] = e;
    }
    let z = t[m * w + w - 1];
    let mut columns = vec![0.0; n];
    for (i, &b) in basis.iter().enumerate() {
        if b < n {
            columns[b] = t[i * w + w - 1] / z;
        }
    }
    let rows: Vec<f64> = (0..m).map(|i| t[m * w + n + i] / z).collect();
    MatrixSolution {
        value: 1.0 / z - shift,
        rows,
        columns,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn matching_pennies_is_worth_zero_with_even_odds() {
        let s = solve_matrix(&[1.0, -1.0, -1.0, 1.0], 2, 2);
        assert!(close(s.value, 0.0));
        assert!(s.rows.iter().all(|&p| close(p, 0.5)));
        assert!(s.columns.iter().all(|&p| close(p, 0.5)));
    }

    #[test]
    fn rock_paper_scissors_is_worth_zero_with_thirds() {
        let a = [0.0, -1.0, 1.0, 1.0, 0.0, -1.0, -1.0, 1.0, 0.0];
        let s = solve_matrix(&a, 3, 3);
        assert!(close(s.value, 0.0));
        assert!(s.rows.iter().all(|&p| close(p, 1.0 / 3.0)));
    }

    #[test]
    fn a_saddle_point_is_found() {
        // Row 1 dominates; column 0 is the minimiser's answer: value 3.
        let s = solve_matrix(&[1.0, 2.0, 3.0, 4.0], 2, 2);
        assert!(close(s.value, 3.0));
        assert!(close(s.rows[1], 1.0));
        assert!(close(s.columns[0], 1.0));
    }

    #[test]
    fn a_textbook_game_has_its_value() {
        // [[2, -1], [-1, 1]]: value 1/5, row strategy (2/5, 3/5).
        let s = solve_matrix(&[2.0, -1.0, -1.0, 1.0], 2, 2);
        assert!(close(s.value, 0.2));
        assert!(close(s.rows[0], 0.4) && close(s.rows[1], 0.6));
        assert!(close(s.columns[0], 0.4) && close(s.columns[1], 0.6));
    }

    #[test]
    fn one_by_one_and_rectangular_games() {
        assert!(close(solve_matrix(&[7.0], 1, 1).value, 7.0));
        // One row: the minimiser takes the smallest entry.
        assert!(close(solve_matrix(&[4.0, -2.0, 5.0], 1, 3).value, -2.0));
        // One column: the maximiser takes the largest.
        assert!(close(solve_matrix(&[4.0, -2.0, 5.0], 3, 1).value, 5.0));
    }
}
