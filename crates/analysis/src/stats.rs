//! The statistics comparisons rest on: means and standard deviations, Welch's unequal-variance
//! t-test with the Welch–Satterthwaite degrees of freedom, the paired (one-sample) t-test,
//! Bonferroni's correction for several tests at once (p-values and simultaneous intervals),
//! Student's t distribution (through the regularized incomplete beta function).
//!
//! Nothing here panics or returns NaN, whatever the input: a NaN in a stored figure must not
//! turn a comparison into NaN, and a JSON document cannot hold NaN or infinity.

use serde::{Deserialize, Serialize};

/// Mean of the finite values in `xs`; 0 when there are none. NaN and infinities are left out:
/// they are failed or missing samples, not measurements.
///
/// Summing differences from the first value makes equal values average to exactly that value
/// (0.1 three times has mean 0.1, not 0.10000000000000002), so a constant series has exactly
/// zero spread. Only values whose differences leave f64's range (beyond about ±1e308) can give
/// ±infinity.
pub fn mean(xs: &[f64]) -> f64 {
    let mut finite = xs.iter().copied().filter(|x| x.is_finite());
    let Some(first) = finite.next() else { return 0.0 };
    let (n, offsets) = finite.fold((1.0, 0.0), |(n, sum), x| (n + 1.0, sum + (x - first)));
    first + offsets / n
}

/// Sample variance (n - 1 denominator) of the finite values in `xs`; 0 for fewer than two.
fn sample_variance(xs: &[f64]) -> f64 {
    let m = mean(xs);
    let (n, squares) =
        xs.iter().filter(|x| x.is_finite()).fold((0.0, 0.0), |(n, sum), x| (n + 1.0, sum + (x - m) * (x - m)));
    if n < 2.0 { 0.0 } else { squares / (n - 1.0) }
}

/// Sample standard deviation (n - 1 denominator) of the finite values in `xs`; 0 for fewer
/// than two. Infinity only when the squared deviations leave f64's range (values beyond about
/// ±1e154).
pub fn sample_stddev(xs: &[f64]) -> f64 {
    sample_variance(xs).sqrt()
}

/// The `q` quantile (0 to 1) of the finite values in `xs`, interpolated between the two ranks
/// either side (Hyndman and Fan's type 7, NumPy's and R's default); 0 when there are none.
pub fn quantile(xs: &[f64], q: f64) -> f64 {
    let mut sorted: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if sorted.is_empty() {
        return 0.0;
    }
    sorted.sort_by(f64::total_cmp);
    let at = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (below, share) = (at.floor() as usize, at.fract());
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + (sorted[above] - sorted[below]) * share
}

/// A t-test of B against A: Welch's on two independent samples, or the paired test on
/// per-pair differences B - A. Every field is finite, so it always serializes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TTest {
    /// mean(B) - mean(A), or the mean of the paired differences.
    pub diff: f64,
    /// `f64::MAX` with the sign of `diff` when neither side varies but the means differ (the
    /// true t is infinite, which JSON cannot hold).
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom (n_a + n_b - 2 when neither side varies); for the
    /// paired test, pairs - 1.
    pub df: f64,
    /// Two-sided.
    pub p_value: f64,
    /// 95% confidence interval of `diff`.
    pub ci95_low: f64,
    pub ci95_high: f64,
}

impl TTest {
    /// The interval of `diff` at `confidence` (0.95 gives the stored 95% interval), from the
    /// same standard error and degrees of freedom: how simultaneous intervals are widened.
    pub fn interval(&self, confidence: f64) -> (f64, f64) {
        let half95 = self.ci95_high - self.diff;
        if half95 == 0.0 {
            return (self.diff, self.diff);
        }
        let half = half95 * student_t_quantile(0.5 + confidence / 2.0, self.df) / student_t_quantile(0.975, self.df);
        ((self.diff - half).clamp(-f64::MAX, f64::MAX), (self.diff + half).clamp(-f64::MAX, f64::MAX))
    }
}

/// Welch's unequal-variance t-test of `b` against `a`. `None` when a side has fewer than two
/// values or any value is not finite.
///
/// When neither side varies the test degenerates: identical means are within noise (t = 0,
/// p = 1, interval [0, 0]); different means differ for certain (p = 0, interval [diff, diff],
/// t = ±`f64::MAX`).
pub fn welch(a: &[f64], b: &[f64]) -> Option<TTest> {
    if a.len() < 2 || b.len() < 2 || a.iter().chain(b).any(|x| !x.is_finite()) {
        return None;
    }
    // t, df and p do not depend on the unit, and measuring in a power of two near the largest
    // magnitude keeps sums and squares in range for values near f64's limits, without rounding.
    let unit = power_of_two_unit(a.iter().chain(b).copied());
    let a: Vec<f64> = a.iter().map(|x| x / unit).collect();
    let b: Vec<f64> = b.iter().map(|x| x / unit).collect();
    let (na, nb) = (a.len() as f64, b.len() as f64);
    let diff = mean(&b) - mean(&a);
    let (va, vb) = (sample_variance(&a) / na, sample_variance(&b) / nb);
    // Back in the caller's unit; beyond f64's range an interval end saturates rather than
    // becoming infinite.
    let scaled = |x: f64| (x * unit).clamp(-f64::MAX, f64::MAX);
    if va + vb == 0.0 {
        let (t, p_value) = if diff == 0.0 { (0.0, 1.0) } else { (f64::MAX.copysign(diff), 0.0) };
        let diff = scaled(diff);
        return Some(TTest { diff, t, df: na + nb - 2.0, p_value, ci95_low: diff, ci95_high: diff });
    }
    let se = (va + vb).sqrt();
    let t = diff / se;
    let df = welch_satterthwaite(va, na, vb, nb);
    let p_value = 2.0 * student_t_cdf(-t.abs(), df);
    let half = student_t_quantile(0.975, df) * se;
    Some(TTest { diff: scaled(diff), t, df, p_value, ci95_low: scaled(diff - half), ci95_high: scaled(diff + half) })
}

/// The paired t-test: whether differences `d` (B - A of each pair) average zero. `None` for
/// fewer than two pairs or a value that is not finite. Differences that do not vary are
/// judged as Welch's test judges sides that do not vary: zero is within noise (p = 1), any
/// other value certain (p = 0).
///
/// Pairing removes what the two members of a pair share (the drift of the hour they ran in),
/// which is why `spindle ab` alternates A and B and tests this way.
pub fn paired(d: &[f64]) -> Option<TTest> {
    if d.len() < 2 || d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let unit = power_of_two_unit(d.iter().copied());
    let d: Vec<f64> = d.iter().map(|x| x / unit).collect();
    let n = d.len() as f64;
    let diff = mean(&d);
    let v = sample_variance(&d) / n;
    let scaled = |x: f64| (x * unit).clamp(-f64::MAX, f64::MAX);
    let df = n - 1.0;
    if v == 0.0 {
        let (t, p_value) = if diff == 0.0 { (0.0, 1.0) } else { (f64::MAX.copysign(diff), 0.0) };
        let diff = scaled(diff);
        return Some(TTest { diff, t, df, p_value, ci95_low: diff, ci95_high: diff });
    }
    let se = v.sqrt();
    let t = diff / se;
    let p_value = 2.0 * student_t_cdf(-t.abs(), df);
    let half = student_t_quantile(0.975, df) * se;
    Some(TTest { diff: scaled(diff), t, df, p_value, ci95_low: scaled(diff - half), ci95_high: scaled(diff + half) })
}

/// Bonferroni's adjustment of p-values tested together: each multiplied by the number of
/// tests, at most 1 (NaN counts as 1). Comparing the adjusted values with alpha keeps the chance
/// of any false alarm among all the tests at alpha, and, unlike Holm's step-down adjustment,
/// it has matching simultaneous intervals: each test's interval at confidence 1 - alpha/m
/// excludes zero exactly when its adjusted p is below alpha (Dunn 1961).
pub fn bonferroni(p: &[f64]) -> Vec<f64> {
    let m = p.len() as f64;
    p.iter().map(|&x| if x.is_nan() { 1.0 } else { (x * m).min(1.0) }).collect()
}

/// The power of two at or below the largest magnitude in `xs` (at least the smallest normal
/// f64). Dividing by it is exact and brings every value into [-2, 2].
fn power_of_two_unit(xs: impl Iterator<Item = f64>) -> f64 {
    const EXPONENT_BITS: u64 = 0x7ff0_0000_0000_0000;
    let largest = xs.fold(f64::MIN_POSITIVE, |m, x| m.max(x.abs()));
    f64::from_bits(largest.to_bits() & EXPONENT_BITS)
}

/// Welch–Satterthwaite degrees of freedom (va + vb)² / (va²/(na-1) + vb²/(nb-1)) of the squared
/// standard errors `va` and `vb`, not both 0. Both are divided by the larger one first, so that
/// squaring them can neither overflow nor underflow to 0/0.
fn welch_satterthwaite(va: f64, na: f64, vb: f64, nb: f64) -> f64 {
    let larger = va.max(vb);
    let (va, vb) = (va / larger, vb / larger);
    (va + vb) * (va + vb) / (va * va / (na - 1.0) + vb * vb / (nb - 1.0))
}

/// Beyond this many degrees of freedom Student's t is evaluated at this many. It is then the
/// standard normal distribution to within 1.6e-11 (the difference shrinks as 0.16/df), while
/// the continued fraction would lose digits as df grows (x = df/(df + t²) nears 1).
const DF_LIMIT: f64 = 1e10;

/// P(T <= t) for Student's t with `df` > 0 degrees of freedom, within 2e-11 absolute (checked
/// against mpmath for df from 1e-300 to 1e300), and small tails to about 1e-12 relative up to a
/// million degrees of freedom. NaN `t` gives 0.5, as do NaN and non-positive `df` (the limit as
/// df approaches 0).
pub fn student_t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return 0.5;
    }
    let tail = lower_tail(t.abs(), df.clamp(f64::MIN_POSITIVE, DF_LIMIT));
    if t > 0.0 { 1.0 - tail } else { tail }
}

/// P(T <= -t) for t >= 0: half the regularized incomplete beta I_x(df/2, 1/2) at
/// x = df/(df + t²).
fn lower_tail(t: f64, df: f64) -> f64 {
    // x and 1 - x as logarithms: with u = ln(t²/df), ln x = -ln(1 + e^u) and
    // ln(1 - x) = -ln(1 + e^-u). Neither cancels nor overflows, and an x below f64's range
    // (huge t, tiny df) still raises to the right power x^(df/2).
    let u = 2.0 * t.ln() - df.ln();
    let (ln_x, ln_y) = (-ln_1p_exp(u), -ln_1p_exp(-u));
    // Numerical Recipes' crossover x < (a+1)/(a+b+2), here t² > 3df/(df+2), is where the
    // fraction for I_x converges fast. From a million degrees of freedom on, though, x is so
    // close to 1 that this fraction loses about log10(df) digits, so up to t² = 16, as far as it
    // stays accurate, the fraction for 1 - I_x is used instead.
    let t2 = t * t;
    let direct = t2 > 16.0 || (df < 1e6 && t2 > 3.0 * df / (df + 2.0));
    0.5 * incomplete_beta(df / 2.0, 0.5, ln_x, ln_y, direct)
}

/// ln(1 + e^u), without overflow for large u.
fn ln_1p_exp(u: f64) -> f64 {
    u.max(0.0) + (-u.abs()).exp().ln_1p()
}

/// Regularized incomplete beta I_x(a, b) from ln x and ln(1 - x): by its continued fraction
/// when `direct`, otherwise as 1 - I_(1-x)(b, a). Needs max(a, b) >= 1/2 (see `ln_beta`).
fn incomplete_beta(a: f64, b: f64, ln_x: f64, ln_y: f64, direct: bool) -> f64 {
    // x^a (1-x)^b / B(a, b), the factor in front of either fraction.
    let ln_front = a * ln_x + b * ln_y - ln_beta(a, b);
    let i = if direct {
        (ln_front - a.ln()).exp() * beta_fraction(a, b, ln_x.exp())
    } else {
        1.0 - (ln_front - b.ln()).exp() * beta_fraction(b, a, ln_y.exp())
    };
    i.clamp(0.0, 1.0)
}

/// The continued fraction of I_x(a, b) (Numerical Recipes' betacf), by the modified Lentz
/// method. Where `lower_tail` uses it, it converges within about 70 steps.
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

/// ln B(a, b) for max(a, b) >= 1/2. For large arguments lnΓ(a) and lnΓ(a + b) are both huge
/// (2e11 at a = 5e9) and nearly equal, so their difference is taken as one step instead.
fn ln_beta(a: f64, b: f64) -> f64 {
    let (small, large) = if a < b { (a, b) } else { (b, a) };
    ln_gamma(small) - ln_gamma_step(large, small)
}

/// The Lanczos approximation, Γ(x) = √(2π) s^(x-1/2) e^-s A(x) with s = x + g - 1/2 for
/// x >= 1/2, with g = 7 ...
const LANCZOS_G: f64 = 7.0;
/// ... and nine terms in the series A (about 1e-15 relative).
const LANCZOS_COEF: [f64; 9] = [
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

/// The Lanczos series A(x).
fn lanczos_sum(x: f64) -> f64 {
    LANCZOS_COEF.iter().enumerate().skip(1).fold(LANCZOS_COEF[0], |sum, (i, c)| sum + c / (x - 1.0 + i as f64))
}

/// ln Γ(x) for x > 0.
fn ln_gamma(x: f64) -> f64 {
    use std::f64::consts::PI;
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1-x) = π / sin(πx).
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let s = x + LANCZOS_G - 0.5;
    0.5 * (2.0 * PI).ln() + (x - 0.5) * s.ln() - s + lanczos_sum(x).ln()
}

/// ln Γ(x + h) - ln Γ(x) for x >= 1/2 and h >= 0, term by term from the Lanczos form, so
/// that nothing large cancels.
fn ln_gamma_step(x: f64, h: f64) -> f64 {
    let s = x + LANCZOS_G - 0.5;
    (x - 0.5) * (h / s).ln_1p() + h * (s + h).ln() - h + (lanczos_sum(x + h) / lanczos_sum(x)).ln()
}

/// The t with `student_t_cdf(t, df) == p`, as precise as that CDF allows: within 1e-12 relative
/// up to a million degrees of freedom, about 1e-8 beyond. p <= 0 gives -infinity and p >= 1
/// +infinity (the limits), as does a quantile beyond f64's range (df near 0 has extremely heavy
/// tails). NaN `p`, and NaN or non-positive `df`, give 0.
pub fn student_t_quantile(p: f64, df: f64) -> f64 {
    if p.is_nan() || df.is_nan() || df <= 0.0 {
        return 0.0;
    }
    // The distribution is symmetric, and 1 - p is exact for p > 1/2: searching the lower tail
    // keeps the precision of small tail probabilities.
    if p < 0.5 {
        lower_quantile(p, df)
    } else if p > 0.5 {
        -lower_quantile(1.0 - p, df)
    } else {
        0.0
    }
}

/// The t <= 0 with P(T <= t) = p for p < 1/2, by bisection over the bit patterns of |t|:
/// non-negative floats are ordered like their bits, so 63 halvings pin t down to adjacent
/// floats whatever its magnitude.
fn lower_quantile(p: f64, df: f64) -> f64 {
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    let cdf_at = |bits: u64| student_t_cdf(-f64::from_bits(bits), df);
    // cdf_at(near) > p >= cdf_at(far): P(T <= 0) = 1/2 and P(T <= -infinity) = 0.
    let (mut near, mut far) = (0_u64, f64::INFINITY.to_bits());
    while far - near > 1 {
        let mid = near + (far - near) / 2;
        if cdf_at(mid) > p {
            near = mid;
        } else {
            far = mid;
        }
    }
    -f64::from_bits(far)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn assert_close(got: f64, want: f64, tol: f64) {
        assert!((got - want).abs() <= tol, "got {got:e}, want {want:e} (tolerance {tol:e})");
    }

    #[test]
    fn quantiles_interpolate_between_ranks_as_numpy_does() {
        // numpy.quantile([1, 2, 3, 4, 10], [0, 0.05, 0.5, 0.95, 1]): 1, 1.2, 3, 8.8, 10.
        let xs = [10.0, 3.0, 1.0, 4.0, 2.0, f64::NAN];
        for (q, want) in [(0.0, 1.0), (0.05, 1.2), (0.5, 3.0), (0.95, 8.8), (1.0, 10.0)] {
            assert_close(quantile(&xs, q), want, 1e-12);
        }
        assert_eq!((quantile(&[], 0.5), quantile(&[7.0], 0.95)), (0.0, 7.0));
    }

    #[test]
    fn t_cdf_matches_published_and_closed_form_values() {
        assert_close(student_t_cdf(2.0, 10.0), 0.963_305_982_614_630, 1e-12);
        assert_close(student_t_cdf(-2.0, 10.0), 1.0 - 0.963_305_982_614_630, 1e-12);
        for df in [0.5, 1.0, 3.0, 12.4, 1e6] {
            assert_eq!(student_t_cdf(0.0, df), 0.5, "df {df}");
        }
        for t in [-30.0, -1.0, 0.3, 2.5, 1e6] {
            // Cauchy (df = 1): 1/2 + atan(t)/pi; df = 2: 1/2 + t / (2 sqrt(2 + t^2)).
            assert_close(student_t_cdf(t, 1.0), 0.5 + f64::atan(t) / std::f64::consts::PI, 1e-14);
            assert_close(student_t_cdf(t, 2.0), 0.5 + t / (2.0 * (2.0 + t * t).sqrt()), 1e-14);
        }
        // Fractional df, as Welch's test produces (mpmath 1.3, 60 digits).
        assert_close(student_t_cdf(-1.3, 2.5), 0.150_243_394_635_354_12, 1e-14);
    }

    #[test]
    fn t_cdf_keeps_small_tails_relatively_accurate() {
        // mpmath: P(T <= -10) with 50 degrees of freedom.
        let tail = student_t_cdf(-10.0, 50.0);
        assert!((tail / 8.038_667_344_167_718e-14 - 1.0).abs() < 1e-12, "{tail:e}");
    }

    #[test]
    fn t_cdf_at_extreme_degrees_of_freedom() {
        // Many: the continued fraction alone would lose about log10(df) digits here (mpmath).
        assert_close(student_t_cdf(1.3, 1e9), 1.0 - 0.096_800_484_735_429_32, 1e-11);
        assert_close(student_t_cdf(-3.0, 1e5), 0.001_350_230_442_032_359_6, 1e-12);
        // Beyond DF_LIMIT: the standard normal, Φ(1.96).
        assert_close(student_t_cdf(1.96, 1e300), 0.975_002_104_851_779_5, 1e-10);
        assert_close(student_t_cdf(1.96, f64::INFINITY), 0.975_002_104_851_779_5, 1e-10);
        // Few: x = df/(df + t^2) = 1e-402 is below f64's range, yet x^(df/2) = 0.01 (mpmath).
        assert_close(student_t_cdf(-1e200, 0.01), 0.004_852_632_857_558_7, 1e-14);
        // As df approaches 0 all the mass moves out to infinity.
        assert_close(student_t_cdf(0.5, 1e-300), 0.5, 1e-14);
    }

    #[test]
    fn t_cdf_never_returns_nan_and_is_monotone() {
        let ts =
            [f64::NEG_INFINITY, -f64::MAX, -1e300, -1e20, -40.0, -4.0, -1.0, -1e-300, 0.0, 1e-300, 2.0, 1e9, 1e300];
        let dfs =
            [-1.0, 0.0, 5e-324, 1e-300, 1e-6, 0.5, 1.0, 7.0, 999_999.0, 1e6, 1e10, 1e300, f64::MAX, f64::INFINITY];
        for df in dfs {
            let cdfs: Vec<f64> = ts.iter().map(|&t| student_t_cdf(t, df)).collect();
            assert!(cdfs.iter().all(|c| (0.0..=1.0).contains(c)), "df {df}: {cdfs:?}");
            assert!(cdfs.windows(2).all(|w| w[0] <= w[1]), "df {df}: {cdfs:?}");
        }
        assert_eq!(student_t_cdf(f64::NAN, 5.0), 0.5);
        assert_eq!(student_t_cdf(2.0, f64::NAN), 0.5);
        assert_eq!((student_t_cdf(f64::NEG_INFINITY, 3.0), student_t_cdf(f64::INFINITY, 3.0)), (0.0, 1.0));
    }

    #[test]
    fn t_quantile_matches_published_values() {
        assert_close(student_t_quantile(0.975, 10.0), 2.228_138_851_986, 1e-10);
        assert_close(student_t_quantile(0.975, 1.0), 12.706_204_736, 1e-8);
        assert_close(student_t_quantile(0.975, 30.0), 2.042_272_456, 1e-9);
        assert_close(student_t_quantile(0.995, 5.0), 4.032_142_984, 1e-8);
        // df = 2 in closed form: t = (2p - 1) sqrt(2 / (4p(1 - p))).
        assert_close(student_t_quantile(0.9, 2.0), 0.8 * (2.0 / (4.0 * 0.9 * 0.1_f64)).sqrt(), 1e-12);
        assert_close(student_t_quantile(0.025, 10.0), -2.228_138_851_986, 1e-10);
        assert_eq!(student_t_quantile(0.5, 7.0), 0.0);
        // The normal quantile 1.959963984540054, off by the 1e-10 between t(1e10) and normal.
        assert_close(student_t_quantile(0.975, 1e300), 1.959_963_984_540_054, 1e-9);
    }

    #[test]
    fn t_quantile_inverts_the_cdf() {
        for df in [0.3, 1.0, 2.5, 12.4, 1e4, 1e8] {
            for p in [1e-12, 1e-4, 0.01, 0.3, 0.6, 0.975, 1.0 - 1e-9] {
                let t = student_t_quantile(p, df);
                let back = student_t_cdf(t, df);
                let tail = p.min(1.0 - p);
                assert!((back - p).abs() <= 1e-9 * tail, "df {df}, p {p}: t {t}, cdf {back}");
            }
        }
    }

    #[test]
    fn t_quantile_limits() {
        assert_eq!(student_t_quantile(0.0, 5.0), f64::NEG_INFINITY);
        assert_eq!(student_t_quantile(1.0, 5.0), f64::INFINITY);
        assert_eq!(student_t_quantile(-0.5, 5.0), f64::NEG_INFINITY);
        assert_eq!(student_t_quantile(2.0, 5.0), f64::INFINITY);
        // With 0.001 degrees of freedom the 97.5% point lies far beyond 1e308.
        assert_eq!(student_t_quantile(0.975, 0.001), f64::INFINITY);
        for (p, df) in [(f64::NAN, 5.0), (0.9, f64::NAN), (0.9, 0.0), (0.9, -3.0)] {
            assert_eq!(student_t_quantile(p, df), 0.0, "p {p}, df {df}");
        }
    }

    /// Expected values from the textbook formulas in Python's standard library: statistics.mean
    /// and statistics.variance, the Welch–Satterthwaite df, and p and the 97.5% quantile by
    /// Simpson's rule over the t density (mpmath's betainc agrees to 1e-15).
    #[test]
    fn welch_matches_a_worked_example() {
        let a = [19.1, 20.4, 20.6, 21.3, 22.1, 22.4, 23.1, 23.5];
        let b = [24.1, 24.4, 25.2, 26.3, 27.0, 27.7, 28.2];
        let w = welch(&a, &b).unwrap();
        assert_close(w.diff, 4.566_071_428_571_43, 1e-12);
        assert_close(w.t, 5.678_787_944_507_272, 1e-12);
        assert_close(w.df, 12.398_326_900_162_7, 1e-10);
        assert_close(w.p_value, 9.052_400_684_680_03e-5, 1e-14);
        assert_close(w.ci95_low, 2.820_402_950_872_287, 1e-10);
        assert_close(w.ci95_high, 6.311_739_906_270_573, 1e-10);
        let swapped = welch(&b, &a).unwrap();
        assert_eq!((swapped.t, swapped.p_value, swapped.df), (-w.t, w.p_value, w.df));
    }

    #[test]
    fn welch_without_variance() {
        let same = welch(&[5.0, 5.0, 5.0], &[5.0, 5.0]).unwrap();
        let expected = TTest { diff: 0.0, t: 0.0, df: 3.0, p_value: 1.0, ci95_low: 0.0, ci95_high: 0.0 };
        assert_eq!(same, expected);
        let higher = welch(&[5.0, 5.0, 5.0], &[6.0, 6.0]).unwrap();
        let expected = TTest { diff: 1.0, t: f64::MAX, df: 3.0, p_value: 0.0, ci95_low: 1.0, ci95_high: 1.0 };
        assert_eq!(higher, expected);
        // 0.1 three times averages to exactly 0.1, so neither side varies.
        let lower = welch(&[0.2; 3], &[0.1; 3]).unwrap();
        assert_eq!((lower.t, lower.p_value, lower.ci95_low, lower.ci95_high), (-f64::MAX, 0.0, lower.diff, lower.diff));
        assert_close(lower.diff, -0.1, 1e-16);
        assert_eq!(serde_json::from_str::<TTest>(&serde_json::to_string(&lower).unwrap()).unwrap(), lower);
    }

    #[test]
    fn welch_verdicts() {
        let xs = [1.0, 2.0, 3.0, 4.0];
        let itself = welch(&xs, &xs).unwrap();
        assert_eq!((itself.diff, itself.t, itself.p_value), (0.0, 0.0, 1.0));
        assert_eq!(itself.ci95_low, -itself.ci95_high);
        assert!(itself.ci95_high > 1.0, "{itself:?}");
        let noisy = welch(&[100.0, 104.0, 97.0, 101.0], &[99.0, 103.0, 102.0, 98.0]).unwrap();
        assert!(noisy.p_value > 0.5 && noisy.ci95_low < 0.0 && noisy.ci95_high > 0.0, "{noisy:?}");
        let far = welch(&[1.0, 1.1, 0.9, 1.05], &[10.0, 10.2, 9.9, 10.1]).unwrap();
        assert!(far.p_value < 0.001 && far.ci95_low > 8.5 && far.ci95_high < 9.5, "{far:?}");
    }

    /// Student's sleep data (Cushny and Peebles), the classic paired example: R's
    /// `t.test(extra ~ group, data = sleep, paired = TRUE)` gives t = 4.0621, df = 9,
    /// p = 0.002833, interval 0.7001142 .. 2.4598858 for drug 2 against drug 1.
    #[test]
    fn paired_matches_students_sleep_data() {
        let d = [1.2, 2.4, 1.3, 1.3, 0.0, 1.0, 1.8, 0.8, 4.6, 1.4];
        let t = paired(&d).unwrap();
        assert_close(t.diff, 1.58, 1e-12);
        assert_close(t.t, 4.062_127_683, 1e-8);
        assert_eq!(t.df, 9.0);
        assert_close(t.p_value, 0.002_832_890, 1e-8);
        assert_close(t.ci95_low, 0.700_114_2, 1e-7);
        assert_close(t.ci95_high, 2.459_885_8, 1e-7);
        assert!(paired(&[1.0]).is_none() && paired(&[1.0, f64::NAN]).is_none());
        let same = paired(&[0.0, 0.0, 0.0]).unwrap();
        assert_eq!((same.p_value, same.ci95_low, same.ci95_high), (1.0, 0.0, 0.0));
        let certain = paired(&[0.5, 0.5]).unwrap();
        assert_eq!((certain.p_value, certain.ci95_low), (0.0, 0.5));
    }

    /// R: `p.adjust(c(0.01, 0.04, 0.03, 0.005), "bonferroni")` is 0.04 0.16 0.12 0.02.
    #[test]
    fn bonferroni_multiplies_by_the_number_of_tests() {
        let adjusted = bonferroni(&[0.01, 0.04, 0.03, 0.005]);
        for (got, want) in adjusted.iter().zip([0.04, 0.16, 0.12, 0.02]) {
            assert_close(*got, want, 1e-15);
        }
        assert_eq!(bonferroni(&[0.5, 0.9]), [1.0, 1.0], "never above 1");
        assert_eq!(bonferroni(&[f64::NAN, 0.01]), [1.0, 0.02]);
        assert!(bonferroni(&[]).is_empty());
    }

    #[test]
    fn a_wider_interval_excludes_zero_exactly_when_the_adjusted_p_is_significant() {
        let w = welch(&[19.1, 20.4, 20.6, 21.3, 22.1], &[21.0, 22.4, 23.2, 23.3, 24.0]).unwrap();
        let (lo, hi) = w.interval(0.95);
        assert_close(lo, w.ci95_low, 1e-12);
        assert_close(hi, w.ci95_high, 1e-12);
        // p lies between 0.05/3 and 0.05/2: significant alone and over 2 tests, not over 3 or more.
        let significant: Vec<bool> = (1..=6).map(|m| bonferroni(&vec![w.p_value; m])[0] < 0.05).collect();
        assert_eq!(significant, [true, true, false, false, false, false], "p {}", w.p_value);
        for (m, significant) in (1..=6).zip(significant) {
            let (lo, _) = w.interval(1.0 - 0.05 / m as f64);
            assert_eq!(lo > 0.0, significant, "{m} tests, p {}", w.p_value);
        }
        let certain = paired(&[0.5, 0.5]).unwrap();
        assert_eq!(certain.interval(0.99), (0.5, 0.5));
    }

    #[test]
    fn welch_refuses_what_it_cannot_test() {
        let xs = [1.0, 2.0, 3.0];
        assert!(welch(&[1.0], &xs).is_none());
        assert!(welch(&xs, &[]).is_none());
        assert!(welch(&[1.0, f64::NAN], &xs).is_none());
        assert!(welch(&xs, &[1.0, f64::INFINITY]).is_none());
    }

    #[test]
    fn welch_does_not_depend_on_the_unit() {
        let a = [3.0, 3.5, 2.9, 3.3];
        let b = [3.9, 4.4, 4.1, 3.6, 4.0];
        let w = welch(&a, &b).unwrap();
        for unit in [1e-300, 1e-150, 1e150, 1e300] {
            let scaled = |xs: &[f64]| xs.iter().map(|x| x * unit).collect::<Vec<_>>();
            let v = welch(&scaled(&a), &scaled(&b)).unwrap();
            assert!((v.t / w.t - 1.0).abs() < 1e-12 && (v.df / w.df - 1.0).abs() < 1e-12, "{unit}: {v:?}");
            assert!((v.p_value / w.p_value - 1.0).abs() < 1e-9, "{unit}: {v:?}");
            assert!((v.ci95_high / (w.ci95_high * unit) - 1.0).abs() < 1e-12, "{unit}: {v:?}");
        }
        // Means a whole f64 range apart: the interval saturates instead of becoming infinite.
        let w = welch(&[-f64::MAX, -f64::MAX / 2.0], &[f64::MAX, f64::MAX / 2.0]).unwrap();
        assert_eq!((w.diff, w.ci95_high), (f64::MAX, f64::MAX));
        // In units of f64::MAX / 4: a = [-4, -2], b = [4, 2], so t = 3 / (1/sqrt(2)) with 2 df.
        assert_close(w.t, 3.0 * 2.0_f64.sqrt(), 1e-14);
        assert_close(w.p_value, 1.0 - w.t / (2.0 + w.t * w.t).sqrt(), 1e-14);
        assert_eq!(serde_json::from_str::<TTest>(&serde_json::to_string(&w).unwrap()).unwrap(), w);
    }

    #[test]
    fn means_and_deviations() {
        assert_eq!((mean(&[]), sample_stddev(&[]), sample_stddev(&[1.0])), (0.0, 0.0, 0.0));
        assert_close(mean(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), 5.0, 1e-15);
        // sqrt(32 / 7)
        assert_close(sample_stddev(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]), 2.138_089_935_299_395, 1e-14);
        assert_eq!((mean(&[0.1; 3]), sample_stddev(&[0.1; 3])), (0.1, 0.0));
        let gappy = [f64::NAN, 1.0, f64::INFINITY, 3.0, f64::NEG_INFINITY];
        assert_eq!((mean(&gappy), sample_stddev(&gappy)), (2.0, 2.0_f64.sqrt()));
        assert_eq!((mean(&[f64::NAN]), sample_stddev(&[f64::NAN, f64::NAN])), (0.0, 0.0));
    }
}
