//! The statistics comparisons rest on: means and standard deviations, Welch's unequal-variance
//! t-test with the Welch–Satterthwaite degrees of freedom, and Student's t distribution
//! (through the regularized incomplete beta function).

use serde::{Deserialize, Serialize};

/// Mean of `xs` (0 for none).
pub fn mean(xs: &[f64]) -> f64 {
    if xs.is_empty() { 0.0 } else { xs.iter().sum::<f64>() / xs.len() as f64 }
}

/// Sample variance (n - 1 denominator); 0 for fewer than two values.
fn sample_variance(xs: &[f64]) -> f64 {
    if xs.len() < 2 {
        return 0.0;
    }
    let m = mean(xs);
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - 1) as f64
}

/// Sample standard deviation (n - 1 denominator); 0 for fewer than two values.
pub fn sample_stddev(xs: &[f64]) -> f64 {
    sample_variance(xs).sqrt()
}

/// Welch's t-test of B against A.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Welch {
    /// mean(B) - mean(A).
    pub diff: f64,
    /// `f64::MAX` with the sign of `diff` when neither side varies but the means differ.
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided.
    pub p_value: f64,
    /// 95% confidence interval of mean(B) - mean(A).
    pub ci95_low: f64,
    pub ci95_high: f64,
}

/// `None` when a side has fewer than two values or any value is not finite.
pub fn welch(a: &[f64], b: &[f64]) -> Option<Welch> {
    if a.len() < 2 || b.len() < 2 || a.iter().chain(b).any(|x| !x.is_finite()) {
        return None;
    }
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let diff = mean(b) - mean(a);
    let (va, vb) = (sample_variance(a) / na, sample_variance(b) / nb);
    let se2 = va + vb;
    if se2 <= 0.0 || !se2.is_finite() {
        // Neither side varies: the means either are the same or differ for certain.
        let df = na + nb - 2.0;
        let (t, p_value) = if diff == 0.0 { (0.0, 1.0) } else { (f64::MAX.copysign(diff), 0.0) };
        return Some(Welch { diff, t, df, p_value, ci95_low: diff, ci95_high: diff });
    }
    let se = se2.sqrt();
    let t = diff / se;
    let df = se2 * se2 / (va * va / (na - 1.0) + vb * vb / (nb - 1.0));
    let p_value = (2.0 * student_t_cdf(-t.abs(), df)).clamp(0.0, 1.0);
    let half = student_t_quantile(0.975, df) * se;
    Some(Welch { diff, t, df, p_value, ci95_low: diff - half, ci95_high: diff + half })
}

/// P(T <= t) for Student's t with `df` > 0 degrees of freedom; NaN inputs give 0.5.
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return 0.5;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    // P(|T| > |t|) = I_x(df/2, 1/2) with x = df / (df + t^2).
    let x = df / (df + t * t);
    let tail = 0.5 * incomplete_beta(df / 2.0, 0.5, x);
    if t > 0.0 { 1.0 - tail } else { tail }
}

/// The t with `student_t_cdf(t, df) == p`, by bisection (the CDF is monotone); p at or
/// beyond 0 and 1 gives -inf and +inf, NaN gives 0.
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    if p.is_nan() || df.is_nan() || df <= 0.0 {
        return 0.0;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let mut hi = 1.0;
    while student_t_cdf(hi, df) < p && hi < 1e300 {
        hi *= 2.0;
    }
    let mut lo = -1.0;
    while student_t_cdf(lo, df) > p && lo > -1e300 {
        lo *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if student_t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-12 * mid.abs().max(1.0) {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// Regularized incomplete beta I_x(a, b), by its continued fraction (modified Lentz),
/// using the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly.
fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        ln_front.exp() * beta_fraction(a, b, x) / a
    } else {
        1.0 - ln_front.exp() * beta_fraction(b, a, 1.0 - x) / b
    }
}

fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    let guard = |v: f64| if v.abs() < TINY { TINY } else { v };
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - (a + b) * x / (a + 1.0));
    let mut h = d;
    for m in 1..=1000 {
        let m = m as f64;
        let even = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 / guard(1.0 + even * d);
        c = guard(1.0 + even / c);
        h *= d * c;
        let odd = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 / guard(1.0 + odd * d);
        c = guard(1.0 + odd / c);
        let step = d * c;
        h *= step;
        if (step - 1.0).abs() < 1e-15 {
            break;
        }
    }
    h
}

/// ln Γ(x) for x > 0 (Lanczos approximation, g = 7, nine terms; ~1e-15 relative).
fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const COEF: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1-x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut sum = COEF[0];
    for (i, c) in COEF.iter().enumerate().skip(1) {
        sum += c / (x + i as f64);
    }
    let t = x + G + 0.5;
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + sum.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_distribution_matches_published_values() {
        assert!(close(student_t_cdf(2.0, 10.0), 0.963_305_982_614, 1e-9), "{}", student_t_cdf(2.0, 10.0));
        assert!(close(student_t_cdf(0.0, 3.0), 0.5, 1e-12));
        assert!(close(student_t_cdf(-2.0, 10.0), 1.0 - 0.963_305_982_614, 1e-9));
        assert!(close(student_t_cdf(1.0, 1.0), 0.75, 1e-9), "Cauchy: 1/2 + atan(1)/pi");
        assert!(close(student_t_quantile(0.975, 10.0), 2.228_138_851_986, 1e-7));
        assert!(close(student_t_quantile(0.975, 1.0), 12.706_204_736, 1e-6));
        assert!(close(student_t_quantile(0.975, 30.0), 2.042_272_456, 1e-7));
        assert!(close(student_t_quantile(0.975, 1e6), 1.959_966, 1e-5), "large df approaches the normal");
        assert_eq!(student_t_quantile(0.0, 5.0), f64::NEG_INFINITY);
        assert_eq!(student_t_cdf(f64::NAN, 5.0), 0.5);
    }

    #[test]
    fn welch_matches_a_worked_example() {
        // Expected values computed from the textbook formulas (python3, standard library).
        let a = [19.1, 20.4, 20.6, 21.3, 22.1, 22.4, 23.1, 23.5];
        let b = [24.1, 24.4, 25.2, 26.3, 27.0, 27.7, 28.2];
        let w = welch(&a, &b).unwrap();
        assert!(close(w.diff, 4.566_071_428_571, 1e-9), "{w:?}");
        assert!(close(w.t, 5.678_787_944_507, 1e-9), "{w:?}");
        assert!(close(w.df, 12.398_326_900_163, 1e-9), "{w:?}");
        // p by numerical integration of the t density (Simpson's rule, 200000 steps).
        assert!(close(w.p_value, 9.052_400_689e-5, 1e-9), "{w:?}");
        let half = (w.ci95_high - w.ci95_low) / 2.0;
        assert!(close(w.ci95_low + half, w.diff, 1e-9) && half > 1.6 && half < 1.9, "{w:?}");
    }

    #[test]
    fn welch_edge_cases() {
        let same = [5.0, 5.0, 5.0];
        assert_eq!(welch(&same, &same).unwrap().p_value, 1.0);
        let w = welch(&same, &[6.0, 6.0]).unwrap();
        assert_eq!((w.p_value, w.ci95_low, w.t), (0.0, 1.0, f64::MAX));
        let xs = [1.0, 2.0, 3.0, 4.0];
        let itself = welch(&xs, &xs).unwrap();
        assert_eq!((itself.t, itself.p_value), (0.0, 1.0));
        assert!(itself.ci95_low < 0.0 && itself.ci95_high > 0.0);
        assert!(welch(&[1.0], &xs).is_none());
        assert!(welch(&[1.0, f64::NAN], &xs).is_none());
        let far = welch(&[1.0, 1.1, 0.9, 1.05], &[10.0, 10.2, 9.9, 10.1]).unwrap();
        assert!(far.p_value < 0.001);
    }

    #[test]
    fn means_and_deviations() {
        assert_eq!((mean(&[]), sample_stddev(&[1.0])), (0.0, 0.0));
        assert!(close(sample_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), 2.138_089_935, 1e-9));
    }
}
