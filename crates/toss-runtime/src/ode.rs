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
//! tested at *test points* of every accepted step: its end, and interior
//! points at most [`EVENT_RESOLUTION`] apart where the state comes from the
//! method's continuous extension (dense output) over the step, as mature
//! event-detecting solvers do (e.g. DifferentialEquations.jl checks
//! `interp_points` of the interpolant before root finding). A step of length
//! `h` is cut into `n = ceil(h / EVENT_RESOLUTION)` equal parts and the
//! predicate is tested at their ends in time order. At the first test point
//! where it fails, the moment is located between it and the test point
//! before it (or the step's start), where it held, by bisection: the step
//! is retaken from its start with the length of the bracket's midpoint,
//! until the bracket (holds at its lower end, fails at its upper end) is
//! shorter than [`EVENT_TOL`]. The state returned is the one at the upper
//! end, where the predicate fails.
//!
//! The guarantee: a violation is found when the predicate fails at a test
//! point, so every violation of the computed solution that lasts longer
//! than [`EVENT_RESOLUTION`] is found (a shorter one may fall between test
//! points); the moment reported is within [`EVENT_TOL`] after a moment where
//! the predicate changes from holding to failing, in the first interval
//! between test points where it was seen to fail. The continuous extensions
//! are exact (up to rounding) when the solution is a polynomial of degree at
//! most 3 (free fall, straight lines): RK4's is of order 3 (Hairer, Norsett,
//! Wanner, *Solving ODEs I*, II.6), Dormand-Prince's of order 4 (the dense
//! output of Hairer's DOPRI5).

use nalgebra::DVector;

/// The length of the time bracket to which the moment an invariant stops
/// holding is located.
pub const EVENT_TOL: f64 = 1e-12;

/// The largest time between two points of a step at which the predicate
/// of an integration is tested (see the module documentation).
pub const EVENT_RESOLUTION: f64 = 0.01;

/// At most this many steps, counting the interior test points of the
/// steps, per integration (a guard against step sizes that are far too
/// small for the span to integrate, and against fixed steps so long that
/// their test points are too many).
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
    /// `max_step` (which also bounds the span of each step's interpolant).
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

    /// The continuous extension of order 3 of the last step (from `y0`, of
    /// length `h`) at `t + theta * h`, written to `out`: the weights
    /// `b1 = theta - 3 theta^2 / 2 + 2 theta^3 / 3`,
    /// `b2 = b3 = theta^2 - 2 theta^3 / 3`, `b4 = -theta^2 / 2 + 2 theta^3 / 3`
    /// (equal to RK4's at `theta = 1`).
    pub fn interpolate(&self, y0: &DVector<f64>, h: f64, theta: f64, out: &mut DVector<f64>) {
        let (t2, t3) = (theta * theta, theta * theta * theta);
        let b1 = theta - 1.5 * t2 + 2.0 * t3 / 3.0;
        let b23 = t2 - 2.0 * t3 / 3.0;
        let b4 = -0.5 * t2 + 2.0 * t3 / 3.0;
        out.copy_from(y0);
        out.axpy(h * b1, &self.k1, 1.0);
        out.axpy(h * b23, &self.k2, 1.0);
        out.axpy(h * b23, &self.k3, 1.0);
        out.axpy(h * b4, &self.k4, 1.0);
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

/// The coefficients of the dense output of Hairer's DOPRI5 (the fourth
/// order continuous extension of Dormand-Prince 5(4)), for k1, k3 to k7.
const D: [f64; 7] = [
    -12715105075.0 / 11282082432.0,
    0.0,
    87487479700.0 / 32700410799.0,
    -10690763975.0 / 1880347072.0,
    701980252875.0 / 199316789632.0,
    -1453857185.0 / 822651844.0,
    69997945.0 / 29380423.0,
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

    /// The continuous extension of the last step (from `y0` to `y1`, of
    /// length `h`) at `t + theta * h`, written to `out`, in DOPRI5's form:
    /// `y0 + theta (d + (1 - theta) (b + theta (c + (1 - theta) e)))` with
    /// `d = y1 - y0`, `b = h k1 - d`, `c = d - h k7 - b` and
    /// `e = h sum D_i k_i` (k7 is the derivative at `y1`, the last stage).
    pub fn interpolate(
        &self,
        y0: &DVector<f64>,
        y1: &DVector<f64>,
        h: f64,
        theta: f64,
        out: &mut DVector<f64>,
    ) {
        let theta1 = 1.0 - theta;
        for i in 0..y0.len() {
            let d = y1[i] - y0[i];
            let b = h * self.k[0][i] - d;
            let c = d - h * self.k[6][i] - b;
            let mut e = 0.0;
            for (j, dj) in D.iter().enumerate() {
                if *dj != 0.0 {
                    e += dj * self.k[j][i];
                }
            }
            out[i] = y0[i] + theta * (d + theta1 * (b + theta * (c + theta1 * h * e)));
        }
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
    /// The interpolated state at a test point inside a step.
    probe: DVector<f64>,
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
            probe: DVector::zeros(dim),
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

    /// The continuous extension of the last accepted step (from `start` to
    /// `trial`, of length `h`) at `theta`, into `probe`.
    fn interpolate(&mut self, h: f64, theta: f64) {
        match self.method {
            Method::Rk4 { .. } => self.rk4.interpolate(&self.start, h, theta, &mut self.probe),
            Method::DormandPrince { .. } => {
                self.dp
                    .interpolate(&self.start, &self.trial, h, theta, &mut self.probe)
            }
        }
    }

    /// Integrates `y` from `t0` to `t1` (`t1 >= t0`). After every accepted
    /// step `observe(t, y)` is called. `holds(t, y)` is tested at the test
    /// points of every step (see the module documentation); when it fails,
    /// the moment is located, `y` is the state there and the outcome says
    /// when. `holds` is not tested at `t0`. On an error `y` is the last
    /// finite state reached and the error carries its time.
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
            // The test points: n equal parts of the step, the interior
            // ones on the continuous extension, then the step's end.
            let n = ((h / EVENT_RESOLUTION) * (1.0 - 1e-12)).ceil().max(1.0);
            if n > MAX_STEPS as f64 {
                return Err(OdeError::TooManySteps(t));
            }
            let n = n as usize;
            steps += n - 1;
            if steps > MAX_STEPS {
                return Err(OdeError::TooManySteps(t));
            }
            let mut lo = 0.0;
            let mut fails_at = None;
            for i in 1..n {
                let theta = i as f64 / n as f64;
                self.interpolate(h, theta);
                if !finite(&self.probe) || !holds(t + theta * h, self.probe.as_slice()) {
                    self.at_hi.copy_from(&self.probe);
                    fails_at = Some(theta * h);
                    break;
                }
                lo = theta * h;
            }
            if fails_at.is_none() && !holds(t_new, self.trial.as_slice()) {
                self.at_hi.copy_from(&self.trial);
                fails_at = Some(t_new - t);
            }
            if let Some(hi) = fails_at {
                let te = self.locate(sys, t, lo, hi, &mut holds);
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

    /// Bisection on the bracket `[t + lo, t + hi]` of a step from
    /// `(t, start)`: the predicate holds at `t + lo` and fails at `t + hi`,
    /// whose state is in `at_hi`. Leaves in `trial` the state at the upper
    /// end of a bracket shorter than [`EVENT_TOL`] and returns that time.
    fn locate<S, H>(&mut self, sys: &mut S, t: f64, lo: f64, hi: f64, holds: &mut H) -> f64
    where
        S: OdeSystem + ?Sized,
        H: FnMut(f64, &[f64]) -> bool,
    {
        let (mut lo, mut hi) = (lo, hi);
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

    /// The continuous extensions on y' = -y from y = 1 over one step of
    /// length `h`, at `theta`: (RK4's, Dormand-Prince's).
    fn dense(h: f64, theta: f64) -> (f64, f64) {
        let mut sys = |_t: f64, y: &[f64], dy: &mut [f64]| dy[0] = -y[0];
        let y0 = DVector::from_element(1, 1.0);
        let (mut y1, mut out) = (DVector::zeros(1), DVector::zeros(1));
        let mut rk = Rk4::new(1);
        rk.step(&mut sys, 0.0, &y0, h, &mut y1);
        rk.interpolate(&y0, h, theta, &mut out);
        let r = out[0];
        let mut dp = DormandPrince::new(1);
        dp.step(&mut sys, 0.0, &y0, h, &mut y1);
        dp.interpolate(&y0, &y1, h, theta, &mut out);
        (r, out[0])
    }

    #[test]
    fn continuous_extensions_have_their_orders() {
        // At the ends they are the step's start and result.
        let mut sys = |_t: f64, y: &[f64], dy: &mut [f64]| dy[0] = -y[0];
        let y0 = DVector::from_element(1, 1.0);
        let (mut y1, mut out) = (DVector::zeros(1), DVector::zeros(1));
        let mut rk = Rk4::new(1);
        rk.step(&mut sys, 0.0, &y0, 0.3, &mut y1);
        rk.interpolate(&y0, 0.3, 1.0, &mut out);
        assert!((out[0] - y1[0]).abs() < 1e-15);
        rk.interpolate(&y0, 0.3, 0.0, &mut out);
        assert_eq!(out[0], 1.0);
        let mut dp = DormandPrince::new(1);
        dp.step(&mut sys, 0.0, &y0, 0.3, &mut y1);
        dp.interpolate(&y0, &y1, 0.3, 1.0, &mut out);
        assert!((out[0] - y1[0]).abs() < 1e-15);
        dp.interpolate(&y0, &y1, 0.3, 0.0, &mut out);
        assert_eq!(out[0], 1.0);
        // Inside, the local error is O(h^4) for RK4's (order 3) and O(h^5)
        // for Dormand-Prince's (order 4): halving h divides it by 16 and 32.
        for h in [0.2, 0.1, 0.05] {
            let exact = |h: f64| (-0.5 * h).exp();
            let (r1, d1) = dense(h, 0.5);
            let (r2, d2) = dense(h / 2.0, 0.5);
            let ratio = (r1 - exact(h)).abs() / (r2 - exact(h / 2.0)).abs();
            assert!((15.0..17.0).contains(&ratio), "RK4, h = {h}: ratio {ratio}");
            let ratio = (d1 - exact(h)).abs() / (d2 - exact(h / 2.0)).abs();
            assert!((30.0..40.0).contains(&ratio), "DP, h = {h}: ratio {ratio}");
        }
    }

    /// `x' = 1, y' = 2 (x - a)` from `x = 0, y = a^2 - d^2`: `x = t` and
    /// `y = (t - a)^2 - d^2`, below 0 exactly on `(a - d, a + d)`. Returns
    /// the event of `y >= 0` over [0, 1].
    fn dip(method: Method, a: f64, d: f64) -> Option<f64> {
        let mut sys = |_t: f64, y: &[f64], dy: &mut [f64]| {
            dy[0] = 1.0;
            dy[1] = 2.0 * (y[0] - a);
        };
        let mut it = Integrator::new(method, 2);
        let mut y = DVector::from_vec(vec![0.0, a * a - d * d]);
        match it
            .integrate(&mut sys, 0.0, 1.0, &mut y, |_, y| y[1] >= 0.0, |_, _| {})
            .expect("finite")
        {
            Outcome::Event(te) => {
                assert!(y[1] < 0.0 && y[1] > -1e-12, "{}", y[1]);
                Some(te)
            }
            Outcome::Reached => None,
        }
    }

    #[test]
    fn a_violation_inside_one_step_is_found() {
        // The dip (0.426, 0.48) lies between the RK4 step ends 0.4 and 0.5,
        // where the invariant holds: testing step ends alone misses it.
        let (a, d) = (0.453, 0.027);
        for k in 0..=10 {
            let t = k as f64 / 10.0;
            assert!((t - a) * (t - a) - d * d > 0.0);
        }
        for method in [Method::Rk4 { step: 0.1 }, Method::ADAPTIVE] {
            let te = dip(method, a, d).expect("the dip is found");
            assert!(
                te - (a - d) >= -1e-14 && te - (a - d) <= 2.0 * EVENT_TOL,
                "{method:?}: {te}"
            );
        }
        // Every dip longer than the resolution is found, wherever it lies
        // relative to the steps, at its start.
        let d = 0.51 * EVENT_RESOLUTION;
        for i in 0..100 {
            let a = 0.2 + 0.0037 * i as f64;
            for method in [Method::Rk4 { step: 0.1 }, Method::ADAPTIVE] {
                let te = dip(method, a, d).expect("the dip is found");
                assert!(
                    te - (a - d) >= -1e-14 && te - (a - d) <= 2.0 * EVENT_TOL,
                    "{method:?}, a = {a}: {te}"
                );
            }
        }
    }

    #[test]
    fn too_many_test_points_are_an_error() {
        // One RK4 step of 1e9 would need 1e11 test points: refused at once.
        let mut sys = |_t: f64, _y: &[f64], dy: &mut [f64]| dy[0] = 1.0;
        let mut it = Integrator::new(Method::Rk4 { step: 1e9 }, 1);
        let mut y = DVector::from_element(1, 0.0);
        let out = it.integrate(&mut sys, 0.0, 1e9, &mut y, |_, _| true, |_, _| {});
        assert_eq!(out, Err(OdeError::TooManySteps(0.0)));
        assert_eq!(y[0], 0.0);
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
