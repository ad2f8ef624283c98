//! Calibration: how an algorithm's token estimator maps to the prompt sizes the agent's API
//! really reported, fitted per session.
//!
//! Every algorithm decides with its own estimator (ported exactly), but absolute figures —
//! `full`, `what_if` after the replay intervenes, totals, peaks — should be in the units the
//! agent paid in. An estimator is typically 15–30% off a real tokenizer and the system prompt
//! and tool declarations are not in the log at all, so the replay fits, on the requests where
//! the recorded history is unmanaged (before the agent's first own compaction), the line
//! `recorded ≈ scale × estimate + offset` by least squares. The fit's error on those requests
//! is reported so a reader knows how far to trust the estimated part of a replay.
//!
//! The engine then only ever *extrapolates from the last recorded point*: an estimated figure
//! is `recorded_j + scale × (estimate_k − estimate_j)` for the last request `j` whose history
//! was still the recorded one. The offset only matters when no such point exists.

use serde::Serialize;

/// How the estimator was calibrated on this session.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Least squares `recorded ≈ scale × estimate + offset` over the unmanaged requests.
    LeastSquares,
    /// Too few distinct points for a slope: scale 1, offset = the mean difference.
    Offset,
    /// Nothing recorded: raw estimates ("estimated, uncalibrated").
    None,
}

/// The per-session mapping from estimator units to recorded prompt tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Calibration {
    pub method: Method,
    /// Recorded tokens per estimated token.
    pub scale: f64,
    /// Tokens the log does not show (system prompt, tool declarations), in recorded tokens.
    pub offset: f64,
    /// Requests the fit used.
    pub requests_used: usize,
    /// Median and maximum of |fit − recorded| / recorded on those requests, in percent.
    pub median_error_pct: Option<f64>,
    pub max_error_pct: Option<f64>,
}

/// A slope outside this range means the estimate and the recorded sizes are unrelated on this
/// session (a handful of points, images the estimator cannot see, a reset mid-log): fall back
/// to the offset alone rather than extrapolate with a wild slope.
const SANE_SCALE: std::ops::RangeInclusive<f64> = 0.25..=4.0;

impl Calibration {
    pub const NONE: Calibration = Calibration {
        method: Method::None,
        scale: 1.0,
        offset: 0.0,
        requests_used: 0,
        median_error_pct: None,
        max_error_pct: None,
    };

    /// Fit on `(estimate, recorded)` pairs.
    pub fn fit(points: &[(u64, u64)]) -> Calibration {
        let pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|(_, y)| *y > 0)
            .map(|&(x, y)| (x as f64, y as f64))
            .collect();
        if pts.is_empty() {
            return Calibration::NONE;
        }
        let n = pts.len() as f64;
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let slope = (pts.len() >= 3 && sxx > 0.0)
            .then(|| sxy / sxx)
            .filter(|s| s.is_finite() && SANE_SCALE.contains(s));
        let (method, scale, offset) = match slope {
            Some(s) => (Method::LeastSquares, s, my - s * mx),
            None => (Method::Offset, 1.0, my - mx),
        };
        let mut errors: Vec<f64> = pts
            .iter()
            .map(|&(x, y)| ((scale * x + offset) - y).abs() / y * 100.0)
            .collect();
        errors.sort_by(f64::total_cmp);
        let round = |v: f64| (v * 100.0).round() / 100.0;
        Calibration {
            method,
            scale,
            offset,
            requests_used: pts.len(),
            median_error_pct: Some(round(median_sorted(&errors))),
            max_error_pct: errors.last().copied().map(round),
        }
    }

    /// The fitted absolute figure for an estimate (used only where no recorded point anchors).
    pub fn apply(&self, estimate: u64) -> u64 {
        to_tokens(self.scale * estimate as f64 + self.offset)
    }

    /// Whether figures are in recorded units at all.
    pub fn is_calibrated(&self) -> bool {
        self.method != Method::None
    }

    /// One line for the table: `×1.21 +12.3k, median 2.1% (148 requests)`.
    pub fn describe(&self) -> String {
        match self.method {
            Method::None => "estimated, uncalibrated".into(),
            _ => format!(
                "×{:.2} {:+.0}, median error {:.1}% over {} request{}",
                self.scale,
                self.offset,
                self.median_error_pct.unwrap_or(0.0),
                self.requests_used,
                if self.requests_used == 1 { "" } else { "s" }
            ),
        }
    }
}

/// An affine map from estimator units to recorded tokens, re-anchored on every request whose
/// recorded figure describes the replayed history: `tokens(x) = base + scale × (x − at)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anchor {
    pub scale: f64,
    base: f64,
    at: f64,
}

impl Anchor {
    pub fn new(c: &Calibration) -> Anchor {
        Anchor {
            scale: c.scale,
            base: c.offset,
            at: 0.0,
        }
    }

    /// `recorded` tokens were measured when the estimate was `estimate`.
    pub fn set(&mut self, estimate: u64, recorded: u64) {
        self.base = recorded as f64;
        self.at = estimate as f64;
    }

    pub fn tokens(&self, estimate: u64) -> u64 {
        to_tokens(self.base + self.scale * (estimate as f64 - self.at))
    }

    /// A size difference (no offset): what `estimate` tokens of content cost.
    pub fn delta(&self, estimate: u64) -> u64 {
        to_tokens(self.scale * estimate as f64)
    }
}

fn to_tokens(v: f64) -> u64 {
    if v.is_finite() && v > 0.0 {
        v.round().min(u64::MAX as f64) as u64
    } else {
        0
    }
}

fn median_sorted(v: &[f64]) -> f64 {
    match v.len() {
        0 => 0.0,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_line_is_recovered() {
        let pts: Vec<(u64, u64)> = (1..=10).map(|i| (i * 1_000, i * 1_200 + 5_000)).collect();
        let c = Calibration::fit(&pts);
        assert_eq!(c.method, Method::LeastSquares);
        assert!((c.scale - 1.2).abs() < 1e-9);
        assert!((c.offset - 5_000.0).abs() < 1e-6);
        assert_eq!(c.median_error_pct, Some(0.0));
        assert_eq!(c.apply(20_000), 29_000);
        assert_eq!(c.requests_used, 10);
    }

    #[test]
    fn too_few_points_fit_an_offset_only() {
        let c = Calibration::fit(&[(1_000, 6_000), (2_000, 7_400)]);
        assert_eq!(c.method, Method::Offset);
        assert_eq!(c.scale, 1.0);
        assert_eq!(c.offset, 5_200.0);
        // |6,200 − 6,000| / 6,000 = 3.33%; |7,200 − 7,400| / 7,400 = 2.70%.
        assert_eq!(c.median_error_pct, Some(3.02));
        assert_eq!(c.max_error_pct, Some(3.33));
    }

    #[test]
    fn wild_slopes_are_rejected() {
        // Recorded sizes that fall as the history grows: no sane slope.
        let c = Calibration::fit(&[(1_000, 90_000), (2_000, 50_000), (3_000, 10_000)]);
        assert_eq!(c.method, Method::Offset);
        assert_eq!(Calibration::fit(&[]).method, Method::None);
        assert_eq!(Calibration::fit(&[(5, 0)]).method, Method::None);
    }

    #[test]
    fn anchor_extrapolates_from_the_last_recorded_point() {
        let c = Calibration::fit(&(1..=5).map(|i| (i * 100, i * 150)).collect::<Vec<_>>());
        let mut a = Anchor::new(&c);
        assert_eq!(a.tokens(1_000), 1_500);
        // The real prompt was 40,000 when the estimate was 20,000: 10,000 more estimated tokens
        // are 15,000 more real ones, and 10,000 fewer (a compaction) 15,000 fewer.
        a.set(20_000, 40_000);
        assert_eq!(a.tokens(30_000), 55_000);
        assert_eq!(a.tokens(10_000), 25_000);
        assert_eq!(a.tokens(0), 10_000);
        assert_eq!(a.delta(2_000), 3_000);
    }
}
