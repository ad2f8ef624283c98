//! Rendering shared by the commands: human number/time formatting, terminal-width tables, and
//! the versioned JSON records of the output contract.

pub mod json;
pub mod plot;
pub mod table;

use chrono::{DateTime, Duration, Local, Utc};

/// 1234 → "1.2k", 5_600_000 → "5.6M". Exact below 1000.
pub fn human_count(n: u64) -> String {
    const UNITS: [(f64, &str); 3] = [(1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, unit) in UNITS {
        if n as f64 >= scale {
            let v = n as f64 / scale;
            return if v >= 100.0 {
                format!("{v:.0}{unit}")
            } else {
                format!("{v:.1}{unit}")
            };
        }
    }
    n.to_string()
}

/// "45s", "12m", "1h05m", "3d04h".
pub fn human_duration(d: Duration) -> String {
    let s = d.num_seconds().max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d{:02}h", s / 86400, (s % 86400) / 3600),
    }
}

/// Local wall-clock time for tables: "2026-03-02 14:05".
pub fn local_time(t: DateTime<Utc>) -> String {
    t.with_timezone(&Local).format("%Y-%m-%d %H:%M").to_string()
}

/// RFC 3339 in UTC with millisecond precision, the contract's time format.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_durations() {
        assert_eq!(human_count(999), "999");
        assert_eq!(human_count(1234), "1.2k");
        assert_eq!(human_count(5_600_000), "5.6M");
        assert_eq!(human_count(250_000_000), "250M");
        assert_eq!(human_duration(Duration::seconds(45)), "45s");
        assert_eq!(human_duration(Duration::seconds(3900)), "1h05m");
        assert_eq!(human_duration(Duration::hours(76)), "3d04h");
    }
}
