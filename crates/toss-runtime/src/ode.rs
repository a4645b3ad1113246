//! Numerical integration of the ODE systems of continuous rules (spec 1.2).
//!
//! Two methods over `nalgebra` vectors, both allocation-free once an
//! [`Integrator`] is built for a dimension:
//! - [`Method::Rk4`]: the classical fourth-order Runge-Kutta method with a
//!   fixed step (the last step is shortened to land on the end time);
//! - [`Method::DormandPrince`]: the embedded 5(4) pair of Dormand and Prince
//!   with error control (the fifth-order solution is propagated, the
//!   difference to the fourth-order one estimates the error; a step is
//!   accepted when the weighted RMS norm of that estimate with weights
//!   `atol + rtol * |y|` is at most 1).
//!
//! Events: a caller-given predicate (the rules' invariants, spec 1.3) is
//! checked after every accepted step. When it stops holding, the moment is
//! located by bisection on the step: the step is retaken from its start with
//! half the length, and so on, until the bracket (holds at its lower end,
//! fails at its upper end) is shorter than [`EVENT_TOL`]. The state returned
//! is the one at the upper end, where the predicate fails.

use nalgebra::DVector;

/// The length of the time bracket to which the moment an invariant stops
/// holding is located.
pub const EVENT_TOL: f64 = 1e-12;

/// At most this many steps per integration (a guard against step sizes
/// that are far too small for the span to integrate).
pub const MAX_STEPS: usize = 10_000_000;

/// A system `y' = f(t, y)` of first-order equations.
pub trait OdeSystem {
    /// Writes `f(t, y)` into `dy` (same length as `y`).
    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]);
}

impl<F: FnMut(f64, &[f64], &mut [f64])> OdeSystem for F {
    fn rhs(&mut self, t: f64, y: &[f64], dy: &mut [f64]) {
        self(t, y, dy)
    }
}

/// How to integrate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method {
    /// Classical RK4 with this fixed step.
    Rk4 { step: f64 },
    /// Dormand-Prince 5(4) with error control; steps never exceed
    /// `max_step` (so that an invariant cannot fail and hold again unseen
    /// inside one long step of an exactly integrated solution).
    DormandPrince { rtol: f64, atol: f64, max_step: f64 },
}

impl Method {
    /// The default adaptive method: relative tolerance 1e-10, absolute
    /// 1e-12, steps of at most 0.1.
    pub const ADAPTIVE: Method = Method::DormandPrince {
        rtol: 1e-10,
        atol: 1e-12,
        max_step: 0.1,
    };
}

impl Default for Method {
    fn default() -> Method {
        Method::ADAPTIVE
    }
}

/// Why an integration stopped early.
#[derive(Clone, Debug, PartialEq)]
pub enum OdeError {
    /// The solution became infinite or NaN at this time.
    NotFinite(f64),
    /// The adaptive step fell below the resolution of the time at this time.
    StepUnderflow(f64),
    /// More than [`MAX_STEPS`] steps were needed.
    TooManySteps(f64),
}

impl std::fmt::Display for OdeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OdeError::NotFinite(t) => write!(f, "the solution is not finite at t = {t}"),
            OdeError::StepUnderflow(t) => write!(f, "step size underflow at t = {t}"),
            OdeError::TooManySteps(t) => {
                write!(f, "more than {MAX_STEPS} steps needed (at t = {t})")
            }
        }
    }
}

impl std::error::Error for OdeError {}

/// How an integration ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// The end time was reached with the predicate holding throughout.
    Reached,
    /// The predicate stopped holding at this time (located to
    /// [`EVENT_TOL`]); the state is the one at this time.
    Event(f64),
}

/// Workspace of the classical Runge-Kutta method.
pub struct Rk4 {
    k1: DVector<f64>,
    k2: DVector<f64>,
    k3: DVector<f64>,
    k4: DVector<f64>,
    tmp: DVector<f64>,
}

impl Rk4 {
    pub fn new(dim: usize) -> Rk4 {
        let z = || DVector::zeros(dim);
        Rk4 {
            k1: z(),
            k2: z(),
            k3: z(),
            k4: z(),
            tmp: z(),
        }
    }

    /// One step of length `h` from `(t, y)`, written to `out`.
    pub fn step<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        t: f64,
        y: &DVector<f64>,
        h: f64,
        out: &mut DVector<f64>,
    ) {
        sys.rhs(t, y.as_slice(), self.k1.as_mut_slice());
        self.tmp.copy_from(y);
        self.tmp.axpy(h / 2.0, &self.k1, 1.0);
        sys.rhs(t + h / 2.0, self.tmp.as_slice(), self.k2.as_mut_slice());
        self.tmp.copy_from(y);
        self.tmp.axpy(h / 2.0, &self.k2, 1.0);
        sys.rhs(t + h / 2.0, self.tmp.as_slice(), self.k3.as_mut_slice());
        self.tmp.copy_from(y);
        self.tmp.axpy(h, &self.k3, 1.0);
        sys.rhs(t + h, self.tmp.as_slice(), self.k4.as_mut_slice());
        out.copy_from(y);
        out.axpy(h / 6.0, &self.k1, 1.0);
        out.axpy(h / 3.0, &self.k2, 1.0);
        out.axpy(h / 3.0, &self.k3, 1.0);
        out.axpy(h / 6.0, &self.k4, 1.0);
    }
}

// The Dormand-Prince 5(4) tableau.
const C: [f64; 7] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0];
const A: [[f64; 6]; 7] = [
    [0.0; 6],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
/// Fifth-order weights.
const B5: [f64; 7] = [
    35.0 / 384.0,
    0.0,
    500.0 / 1113.0,
    125.0 / 192.0,
    -2187.0 / 6784.0,
    11.0 / 84.0,
    0.0,
];
/// Fourth-order weights.
const B4: [f64; 7] = [
    5179.0 / 57600.0,
    0.0,
    7571.0 / 16695.0,
    393.0 / 640.0,
    -92097.0 / 339200.0,
    187.0 / 2100.0,
    1.0 / 40.0,
];

/// Workspace of the Dormand-Prince method.
pub struct DormandPrince {
    k: [DVector<f64>; 7],
    tmp: DVector<f64>,
    /// The fourth-order solution of the last step.
    y4: DVector<f64>,
}

impl DormandPrince {
    pub fn new(dim: usize) -> DormandPrince {
        DormandPrince {
            k: std::array::from_fn(|_| DVector::zeros(dim)),
            tmp: DVector::zeros(dim),
            y4: DVector::zeros(dim),
        }
    }

    /// One step of length `h` from `(t, y)`: the fifth-order solution goes
    /// to `out`, the fourth-order one is kept (see [`DormandPrince::fourth`]).
    pub fn step<S: OdeSystem + ?Sized>(
        &mut self,
        sys: &mut S,
        t: f64,
        y: &DVector<f64>,
        h: f64,
        out: &mut DVector<f64>,
    ) {
        for i in 0..7 {
            self.tmp.copy_from(y);
            for (a, k) in A[i].iter().zip(&self.k).take(i) {
                if *a != 0.0 {
                    self.tmp.axpy(h * a, k, 1.0);
                }
            }
            sys.rhs(t + C[i] * h, self.tmp.as_slice(), self.k[i].as_mut_slice());
        }
        out.copy_from(y);
        self.y4.copy_from(y);
        for i in 0..7 {
            if B5[i] != 0.0 {
                out.axpy(h * B5[i], &self.k[i], 1.0);
            }
            if B4[i] != 0.0 {
                self.y4.axpy(h * B4[i], &self.k[i], 1.0);
            }
        }
    }

    /// The fourth-order solution of the last step.
    pub fn fourth(&self) -> &DVector<f64> {
        &self.y4
    }

    /// The weighted RMS norm of the last step's error estimate (fifth minus
    /// fourth order) against `y` (the start) and `y5` (the end).
    fn error_norm(&self, y: &DVector<f64>, y5: &DVector<f64>, rtol: f64, atol: f64) -> f64 {
        let n = y.len();
        if n == 0 {
            return 0.0;
        }
        let mut sum = 0.0;
        for i in 0..n {
            let scale = atol + rtol * y[i].abs().max(y5[i].abs());
            let e = (y5[i] - self.y4[i]) / scale;
            sum += e * e;
        }
        (sum / n as f64).sqrt()
    }
}

/// An integrator for systems of one dimension: its workspaces are
/// allocated once, so integrating allocates nothing.
pub struct Integrator {
    method: Method,
    rk4: Rk4,
    dp: DormandPrince,
    /// The state at the start of the current step.
    start: DVector<f64>,
    /// The result of a trial step.
    trial: DVector<f64>,
    /// The state at the upper end of an event's bracket.
    at_hi: DVector<f64>,
    /// The adaptive step size to try next.
    h_next: f64,
}

fn finite(y: &DVector<f64>) -> bool {
    y.iter().all(|v| v.is_finite())
}

impl Integrator {
    pub fn new(method: Method, dim: usize) -> Integrator {
        Integrator {
            method,
            rk4: Rk4::new(dim),
            dp: DormandPrince::new(dim),
            start: DVector::zeros(dim),
            trial: DVector::zeros(dim),
            at_hi: DVector::zeros(dim),
            h_next: 0.0,
        }
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// One step of the configured method (without error control) from
    /// `(t, start)` of length `h`, into `trial`.
    fn plain_step<S: OdeSystem + ?Sized>(&mut self, sys: &mut S, t: f64, h: f64) {
        match self.method {
            Method::Rk4 { .. } => self.rk4.step(sys, t, &self.start, h, &mut self.trial),
            Method::DormandPrince { .. } => self.dp.step(sys, t, &self.start, h, &mut self.trial),
        }
    }

    /// Integrates `y` from `t0` to `t1` (`t1 >= t0`). After every accepted
    /// step `observe(t, y)` is called, and `holds(t, y)` is checked; when it
    /// fails, the moment is located (see the module documentation), `y` is
    /// the state there and the outcome says when. `holds` is not checked at
    /// `t0`. On an error `y` is the last finite state reached and the error
    /// carries its time.
    pub fn integrate<S, H, O>(
        &mut self,
        sys: &mut S,
        t0: f64,
        t1: f64,
        y: &mut DVector<f64>,
        mut holds: H,
        mut observe: O,
    ) -> Result<Outcome, OdeError>
    where
        S: OdeSystem + ?Sized,
        H: FnMut(f64, &[f64]) -> bool,
        O: FnMut(f64, &[f64]),
    {
        let mut t = t0;
        if self.h_next <= 0.0 {
            self.h_next = match self.method {
                Method::Rk4 { step } => step,
                Method::DormandPrince { max_step, .. } => (max_step / 100.0).max(1e-6),
            };
        }
        let mut steps = 0;
        while t < t1 {
            steps += 1;
            if steps > MAX_STEPS {
                return Err(OdeError::TooManySteps(t));
            }
            self.start.copy_from(y);
            let remaining = t1 - t;
            let h = match self.method {
                Method::Rk4 { step } => {
                    let h = step.min(remaining);
                    self.rk4.step(sys, t, &self.start, h, &mut self.trial);
                    h
                }
                Method::DormandPrince {
                    rtol,
                    atol,
                    max_step,
                } => {
                    let mut h = self.h_next.min(max_step).min(remaining);
                    loop {
                        self.dp.step(sys, t, &self.start, h, &mut self.trial);
                        let err = if finite(&self.trial) {
                            self.dp.error_norm(&self.start, &self.trial, rtol, atol)
                        } else {
                            f64::INFINITY
                        };
                        if err <= 1.0 {
                            // Standard controller: safety 0.9, growth in [0.2, 5].
                            let factor = if err == 0.0 {
                                5.0
                            } else {
                                (0.9 * err.powf(-0.2)).clamp(0.2, 5.0)
                            };
                            self.h_next = h * factor;
                            break;
                        }
                        let factor = if err.is_finite() {
                            (0.9 * err.powf(-0.2)).clamp(0.2, 1.0)
                        } else {
                            0.2
                        };
                        h *= factor;
                        if t + h <= t || h < 1e-14 * t.abs().max(1.0) {
                            return Err(OdeError::StepUnderflow(t));
                        }
                    }
                    h
                }
            };
            if !finite(&self.trial) {
                return Err(OdeError::NotFinite(t));
            }
            // The last step lands exactly on t1.
            let t_new = if h >= remaining { t1 } else { t + h };
            if !holds(t_new, self.trial.as_slice()) {
                let te = self.locate(sys, t, t_new - t, &mut holds);
                y.copy_from(&self.trial);
                observe(te, y.as_slice());
                return Ok(Outcome::Event(te));
            }
            y.copy_from(&self.trial);
            t = t_new;
            observe(t, y.as_slice());
        }
        Ok(Outcome::Reached)
    }

    /// Bisection on a step from `(t, start)` of length `h` at whose end the
    /// predicate fails: leaves in `trial` the state at the upper end of a
    /// bracket shorter than [`EVENT_TOL`] and returns that time.
    fn locate<S, H>(&mut self, sys: &mut S, t: f64, h: f64, holds: &mut H) -> f64
    where
        S: OdeSystem + ?Sized,
        H: FnMut(f64, &[f64]) -> bool,
    {
        let (mut lo, mut hi) = (0.0, h);
        // The state at `hi`, kept while the bracket shrinks.
        self.at_hi.copy_from(&self.trial);
        while hi - lo > EVENT_TOL && t + (lo + hi) / 2.0 > t + lo && t + (lo + hi) / 2.0 < t + hi {
            let mid = (lo + hi) / 2.0;
            self.plain_step(sys, t, mid);
            if finite(&self.trial) && holds(t + mid, self.trial.as_slice()) {
                lo = mid;
            } else {
                hi = mid;
                self.at_hi.copy_from(&self.trial);
            }
        }
        self.trial.copy_from(&self.at_hi);
        t + hi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error at t = 1 of integrating y' = -y, y(0) = 1 with `n` equal
    /// steps of the given single-step function.
    fn decay_error(n: usize, fifth: bool, fourth_of_dp: bool) -> f64 {
        let mut sys = |_t: f64, y: &[f64], dy: &mut [f64]| dy[0] = -y[0];
        let h = 1.0 / n as f64;
        let mut y = DVector::from_element(1, 1.0);
        let mut out = DVector::zeros(1);
        let mut rk = Rk4::new(1);
        let mut dp = DormandPrince::new(1);
        for i in 0..n {
            let t = i as f64 * h;
            if fifth || fourth_of_dp {
                dp.step(&mut sys, t, &y, h, &mut out);
                if !fifth {
                    // The embedded solution alone, restarted from it.
                    out.copy_from(dp.fourth());
                }
            } else {
                rk.step(&mut sys, t, &y, h, &mut out);
            }
            y.copy_from(&out);
        }
        (y[0] - (-1.0f64).exp()).abs()
    }

    /// The error of the harmonic oscillator x'' = -x over [0, 10] (as the
    /// system x' = v, v' = -x) with `n` RK4 steps.
    fn oscillator_error(n: usize) -> f64 {
        let mut sys = |_t: f64, y: &[f64], dy: &mut [f64]| {
            dy[0] = y[1];
            dy[1] = -y[0];
        };
        let mut it = Integrator::new(
            Method::Rk4 {
                step: 10.0 / n as f64,
            },
            2,
        );
        let mut y = DVector::from_vec(vec![1.0, 0.0]);
        let out = it.integrate(&mut sys, 0.0, 10.0, &mut y, |_, _| true, |_, _| {});
        assert_eq!(out, Ok(Outcome::Reached));
        ((y[0] - 10f64.cos()).powi(2) + (y[1] + 10f64.sin()).powi(2)).sqrt()
    }

    #[test]
    fn rk4_is_fourth_order() {
        for n in [4, 8, 16] {
            let ratio = decay_error(n, false, false) / decay_error(2 * n, false, false);
            assert!((14.0..18.0).contains(&ratio), "n = {n}: ratio {ratio}");
        }
        for n in [50, 100] {
            let ratio = oscillator_error(n) / oscillator_error(2 * n);
            assert!((15.0..17.0).contains(&ratio), "n = {n}: ratio {ratio}");
        }
    }

    #[test]
    fn dormand_prince_is_fifth_order_with_a_fourth_order_estimate() {
        // The ratios approach 32 and 16 from above (46.8 and 20.2 at
        // n = 2); from n = 8 on they are within 11% of the limit.
        for n in [8, 16, 32] {
            let ratio = decay_error(n, true, false) / decay_error(2 * n, true, false);
            assert!((30.0..36.0).contains(&ratio), "n = {n}: ratio {ratio}");
            let ratio = decay_error(n, false, true) / decay_error(2 * n, false, true);
            assert!((15.0..18.0).contains(&ratio), "n = {n}: ratio {ratio}");
        }
    }

    #[test]
    fn rk4_is_exact_on_cubics() {
        // y' = 3t^2 - 2t + 1: RK4 integrates polynomials of degree <= 3
        // exactly (Simpson's rule).
        let mut sys = |t: f64, _y: &[f64], dy: &mut [f64]| dy[0] = 3.0 * t * t - 2.0 * t + 1.0;
        let mut it = Integrator::new(Method::Rk4 { step: 0.3 }, 1);
        let mut y = DVector::from_element(1, 2.0);
        it.integrate(&mut sys, 0.0, 2.0, &mut y, |_, _| true, |_, _| {})
            .expect("finite");
        assert!((y[0] - (8.0 - 4.0 + 2.0 + 2.0)).abs() < 1e-12, "{}", y[0]);
    }

    #[test]
    fn adaptive_meets_its_tolerance() {
        // The oscillator over [0, 20] at decreasing tolerances: the global
        // error follows the tolerance.
        for (rtol, bound) in [(1e-6, 1e-4), (1e-9, 1e-7), (1e-12, 1e-10)] {
            let mut sys = |_t: f64, y: &[f64], dy: &mut [f64]| {
                dy[0] = y[1];
                dy[1] = -y[0];
            };
            let method = Method::DormandPrince {
                rtol,
                atol: rtol * 1e-2,
                max_step: 10.0,
            };
            let mut it = Integrator::new(method, 2);
            let mut y = DVector::from_vec(vec![1.0, 0.0]);
            let mut steps = 0;
            it.integrate(&mut sys, 0.0, 20.0, &mut y, |_, _| true, |_, _| steps += 1)
                .expect("finite");
            let err = ((y[0] - 20f64.cos()).powi(2) + (y[1] + 20f64.sin()).powi(2)).sqrt();
            assert!(err < bound, "rtol {rtol}: error {err} in {steps} steps");
        }
    }

    #[test]
    fn events_are_located_by_bisection() {
        // A ball from height 10 under g = 9.81: y >= 0 fails at sqrt(20/g).
        let g: f64 = 9.81;
        let exact: f64 = (2.0 * 10.0 / g).sqrt();
        for method in [Method::Rk4 { step: 0.1 }, Method::ADAPTIVE] {
            let mut sys = |_t: f64, y: &[f64], dy: &mut [f64]| {
                dy[0] = y[1];
                dy[1] = -g;
            };
            let mut it = Integrator::new(method, 2);
            let mut y = DVector::from_vec(vec![10.0, 0.0]);
            let out = it
                .integrate(&mut sys, 0.0, 5.0, &mut y, |_, y| y[0] >= 0.0, |_, _| {})
                .expect("finite");
            let Outcome::Event(te) = out else {
                panic!("{method:?}: no event");
            };
            assert!(
                te >= exact && te - exact <= 2.0 * EVENT_TOL,
                "{te} vs {exact}"
            );
            assert!(y[0] < 0.0 && y[0] > -1e-10, "{}", y[0]);
            assert!((y[1] + g * te).abs() < 1e-9);
        }
    }

    #[test]
    fn blow_up_is_an_error() {
        // y' = y^2, y(0) = 1 is infinite at t = 1.
        let mut sys = |_t: f64, y: &[f64], dy: &mut [f64]| dy[0] = y[0] * y[0];
        let mut it = Integrator::new(Method::Rk4 { step: 0.01 }, 1);
        let mut y = DVector::from_element(1, 1.0);
        let out = it.integrate(&mut sys, 0.0, 2.0, &mut y, |_, _| true, |_, _| {});
        assert!(matches!(out, Err(OdeError::NotFinite(_))), "{out:?}");
        assert!(y[0].is_finite());
        let mut it = Integrator::new(Method::ADAPTIVE, 1);
        let mut y = DVector::from_element(1, 1.0);
        let out = it.integrate(&mut sys, 0.0, 2.0, &mut y, |_, _| true, |_, _| {});
        assert!(out.is_err(), "{out:?}");
    }
}
