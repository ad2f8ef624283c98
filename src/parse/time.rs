//! Reading a recorded time string.
//!
//! Every record of every agent carries one (`2026-03-14T09:00:05.123Z`), and chrono's RFC 3339
//! reader, which takes every form the standard allows through its generic parser, was 2% of
//! `list`. The form the agents write is read here digit by digit; anything else still goes to
//! chrono, so what is accepted and what it means are chrono's.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, TimeDelta, Utc};

use super::in_range;

/// An RFC 3339 string (or one without an offset, read as UTC), in [`super::YEARS`].
pub fn parse_time_str(s: &str) -> Option<DateTime<Utc>> {
    common_form(s).or_else(|| by_chrono(s)).and_then(in_range)
}

/// What chrono reads `s` as.
fn by_chrono(s: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|d| d.with_timezone(&Utc))
        .or_else(|| {
            // Some writers omit the offset; treat those as UTC.
            NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|n| n.and_utc())
        })
}

/// `YYYY-MM-DDTHH:MM:SS`, a fraction of 1 to 9 digits or none, then `Z` or `±HH:MM`: the
/// time it names, or `None` for anything else, including what this form spells but chrono
/// reads its own way (a leap second, `-00:00`, a date that does not exist).
fn common_form(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    let separators = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')];
    if b.len() < 20 || separators.iter().any(|&(i, c)| b[i] != c) {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(
        digits::<4>(b, 0)? as i32,
        digits::<2>(b, 5)?,
        digits::<2>(b, 8)?,
    )?;
    let (hour, minute, second) = (
        digits::<2>(b, 11)?,
        digits::<2>(b, 14)?,
        digits::<2>(b, 17)?,
    );
    if second > 59 {
        return None;
    }
    let mut i = 19;
    let mut nanos = 0;
    if b[i] == b'.' {
        i += 1;
        let mut scale = 1_000_000_000;
        while let Some(d) = b.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d <= 9) {
            if scale == 1 {
                return None;
            }
            scale /= 10;
            nanos += u32::from(d) * scale;
            i += 1;
        }
        if scale == 1_000_000_000 {
            return None;
        }
    }
    let time = NaiveTime::from_hms_nano_opt(hour, minute, second, nanos)?;
    let local = date.and_time(time);
    match &b[i..] {
        [b'Z'] => Some(local.and_utc()),
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let (h, m) = (digits::<2>(b, i + 1)?, digits::<2>(b, i + 4)?);
            if h > 23 || m > 59 || (*sign == b'-' && h == 0 && m == 0) {
                return None;
            }
            let east = i64::from(h * 3600 + m * 60);
            let east = if *sign == b'-' { -east } else { east };
            Some(
                local
                    .checked_sub_signed(TimeDelta::seconds(east))?
                    .and_utc(),
            )
        }
        _ => None,
    }
}

/// The number the `N` ASCII digits at `at` spell.
fn digits<const N: usize>(b: &[u8], at: usize) -> Option<u32> {
    let mut n = 0;
    for &c in b.get(at..at + N)? {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = n * 10 + u32::from(d);
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::{by_chrono, common_form, parse_time_str};
    use crate::testing::Rng;

    /// Times in the agents' form and near it, each read digit by digit where that applies and
    /// always the same as chrono reads it.
    #[test]
    fn the_common_form_reads_as_chrono_reads_it() {
        let mut rng = Rng(0x71de_5eed_2026_1128);
        let two = |rng: &mut Rng, max: u64| format!("{:02}", rng.below(max));
        let mut digit_by_digit = 0;
        for n in 0..60_000 {
            let year = match rng.below(10) {
                0 => format!("{:04}", rng.below(10_000)),
                1 => format!("{}", rng.below(100_000)),
                _ => format!("{}", 1990 + rng.below(60)),
            };
            let date = format!("{year}-{}-{}", two(&mut rng, 14), two(&mut rng, 33));
            let sep = *rng.pick(&["T", "T", "T", "t", " ", "_"]);
            let time = format!(
                "{}:{}:{}",
                two(&mut rng, 26),
                two(&mut rng, 62),
                two(&mut rng, 62)
            );
            let fraction = match rng.below(6) {
                0 => String::new(),
                1 => ".".to_string(),
                _ => {
                    let digits = 1 + rng.below(12) as usize;
                    let f: String = (0..digits)
                        .map(|_| char::from(b'0' + rng.below(10) as u8))
                        .collect();
                    format!(".{f}")
                }
            };
            let offset = match rng.below(8) {
                0..=2 => "Z".to_string(),
                3 => String::new(),
                4 => rng
                    .pick(&["z", "-00:00", "+00:00", "+0100", "+01", "Z ", " Z"])
                    .to_string(),
                _ => format!(
                    "{}{}:{}",
                    rng.pick(&["+", "-"]),
                    two(&mut rng, 26),
                    two(&mut rng, 62)
                ),
            };
            let mut s = format!("{date}{sep}{time}{fraction}{offset}");
            if n % 7 == 0 && !s.is_empty() {
                // A byte changed anywhere, to a digit or not.
                let at = rng.below(s.len() as u64) as usize;
                let c = *rng.pick(&['0', '9', 'x', ':', '-', '.', 'Z', '+']);
                if s.is_char_boundary(at) && s.is_char_boundary(at + 1) {
                    s.replace_range(at..at + 1, &c.to_string());
                }
            }
            if let Some(t) = common_form(&s) {
                digit_by_digit += 1;
                assert_eq!(Some(t), by_chrono(&s), "{s:?}");
            }
            assert_eq!(
                parse_time_str(&s),
                by_chrono(&s).and_then(super::in_range),
                "{s:?}"
            );
        }
        assert!(
            digit_by_digit > 6_000,
            "{digit_by_digit} read digit by digit"
        );
    }

    #[test]
    fn the_agents_times_are_read_digit_by_digit() {
        for s in [
            "2026-03-14T09:00:05.123Z",
            "2025-09-01T08:00:00Z",
            "2026-11-28T23:59:59.999999999+05:45",
            "2024-02-29T00:00:00.5-03:30",
        ] {
            assert!(common_form(s).is_some(), "{s}");
            assert_eq!(common_form(s), by_chrono(s), "{s}");
        }
        // Left to chrono: a leap second, an unknown offset, a 10-digit fraction, a day that
        // does not exist.
        for s in [
            "2016-12-31T23:59:60Z",
            "2026-03-14T09:00:05-00:00",
            "2026-03-14T09:00:05.1234567891Z",
            "2026-02-30T09:00:05Z",
        ] {
            assert_eq!(common_form(s), None, "{s}");
        }
    }
}
