//! The bootstrap ratio interval on synthetic samples with a known ratio.

use triebench_report::analysis::stats::{bootstrap_ratio, mean, SplitMix64};

/// `n` samples around `centre` with relative noise `noise` (uniform ±noise).
fn samples(rng: &mut SplitMix64, n: usize, centre: f64, noise: f64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            centre * (1.0 + noise * (2.0 * u - 1.0))
        })
        .collect()
}

#[test]
fn low_noise_gives_a_narrow_interval_around_the_true_ratio() {
    let mut rng = SplitMix64::new(42);
    let den = samples(&mut rng, 50, 1_000.0, 0.01);
    let num = samples(&mut rng, 50, 3_000.0, 0.01);
    let Some(ci) = bootstrap_ratio(&num, &den, 10_000, 0.95, 7) else {
        panic!("interval expected")
    };
    assert!(ci.low <= 3.0 && 3.0 <= ci.high, "{ci:?}");
    assert!(ci.low <= ci.ratio && ci.ratio <= ci.high, "{ci:?}");
    assert!(
        ci.high - ci.low < 0.02,
        "1% noise should give a < 0.7% wide interval: {ci:?}"
    );
    let exact = mean(&num).unwrap_or(0.0) / mean(&den).unwrap_or(1.0);
    assert_eq!(ci.ratio, exact);
}

#[test]
fn more_noise_gives_a_wider_interval() {
    let mut rng = SplitMix64::new(43);
    let quiet = bootstrap_ratio(
        &samples(&mut rng, 30, 2.0, 0.02),
        &samples(&mut rng, 30, 1.0, 0.02),
        5_000,
        0.95,
        1,
    );
    let loud = bootstrap_ratio(
        &samples(&mut rng, 30, 2.0, 0.5),
        &samples(&mut rng, 30, 1.0, 0.5),
        5_000,
        0.95,
        1,
    );
    let (Some(q), Some(l)) = (quiet, loud) else {
        panic!("intervals expected")
    };
    assert!(l.high - l.low > 5.0 * (q.high - q.low), "{q:?} vs {l:?}");
    assert!(q.low <= 2.0 && 2.0 <= q.high, "{q:?}");
}

#[test]
fn seeded_runs_are_deterministic() {
    let mut rng = SplitMix64::new(44);
    let a = samples(&mut rng, 20, 5.0, 0.2);
    let b = samples(&mut rng, 25, 4.0, 0.2);
    let first = bootstrap_ratio(&a, &b, 2_000, 0.95, 99);
    let again = bootstrap_ratio(&a, &b, 2_000, 0.95, 99);
    let other = bootstrap_ratio(&a, &b, 2_000, 0.95, 100);
    assert_eq!(first, again);
    assert_ne!(first, other, "a different seed resamples differently");
    assert_eq!(first.map(|c| c.ratio), other.map(|c| c.ratio));
}

#[test]
fn intervals_cover_the_true_ratio_about_95_percent_of_the_time() {
    // 200 independent experiments, true ratio 1.5, 10% noise, 30 samples per side.
    let mut rng = SplitMix64::new(45);
    let trials = 200;
    let mut covered = 0;
    for t in 0..trials {
        let num = samples(&mut rng, 30, 1.5, 0.1);
        let den = samples(&mut rng, 30, 1.0, 0.1);
        if let Some(ci) = bootstrap_ratio(&num, &den, 1_000, 0.95, t) {
            if ci.low <= 1.5 && 1.5 <= ci.high {
                covered += 1;
            }
        }
    }
    // Percentile bootstrap with n = 30 under-covers slightly; 95% nominal.
    assert!(
        (175..=199).contains(&covered),
        "{covered}/{trials} intervals contain the truth"
    );
}

#[test]
fn a_99_percent_interval_contains_the_95_percent_one() {
    let mut rng = SplitMix64::new(46);
    let num = samples(&mut rng, 40, 7.0, 0.3);
    let den = samples(&mut rng, 40, 2.0, 0.3);
    let (Some(c95), Some(c99)) = (
        bootstrap_ratio(&num, &den, 4_000, 0.95, 5),
        bootstrap_ratio(&num, &den, 4_000, 0.99, 5),
    ) else {
        panic!("intervals expected")
    };
    assert!(c99.low < c95.low && c95.high < c99.high, "{c95:?} {c99:?}");
}
