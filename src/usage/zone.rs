//! The time zone that decides where a day (week, month) begins: `--timezone` takes an IANA
//! name (`Europe/Paris`), `UTC`, a POSIX TZ string (`EST5EDT,M3.2.0,M11.1.0`) or `local` (the
//! default: `$TZ`, else the system's zone, as every other time `sessions` shows).
//!
//! IANA zones are read from the system's tz database (`$TZDIR`, `/usr/share/zoneinfo`,
//! `/share/zoneinfo`, `/etc/zoneinfo`) with the small `tz-rs` parser rather than compiled into
//! the binary: chrono-tz and jiff's bundled database cost 6 to 10 times its build time on a
//! 2-core machine for data every Unix system already has.

use chrono::{
    DateTime, Duration, FixedOffset, Local, NaiveDate, NaiveDateTime, Offset, TimeZone, Utc,
};

/// Largest zone file read (real ones are a few kB).
const MAX_TZIF: u64 = 1 << 20;

#[derive(Debug, Clone)]
pub enum Zone {
    /// The process's local zone (chrono's `Local`: `$TZ`, else `/etc/localtime`).
    Local,
    /// A named zone or POSIX rule, with the name the user gave.
    Named(String, tz::TimeZone),
}

impl Zone {
    pub fn utc() -> Zone {
        Zone::Named("UTC".into(), tz::TimeZone::utc())
    }

    /// The zone human output shows times in: UTC under `--utc`, else local time.
    pub fn display(utc: bool) -> Zone {
        if utc { Zone::utc() } else { Zone::Local }
    }

    /// Parse `--timezone`.
    pub fn parse(name: &str) -> Result<Zone, String> {
        let name = name.trim();
        let err = |why: &str| format!("unknown time zone {name:?}: {why}");
        match name {
            "" => return Err(err("empty")),
            "local" | "Local" => return Ok(Zone::Local),
            "UTC" | "utc" | "Z" | "Etc/UTC" | "GMT" => return Ok(Zone::utc()),
            _ => {}
        }
        let looks_like_name = name
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != "..")
            && !name.starts_with('/')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "/_+-".contains(c));
        if looks_like_name && let Some(bytes) = read_zone_file(name) {
            return tz::TimeZone::from_tz_data(&bytes)
                .map(|tz| Zone::Named(name.to_string(), tz))
                .map_err(|e| err(&e.to_string()));
        }
        // A POSIX TZ rule, parsed without touching the file system.
        tz::TimeZoneSettings::new(&[], |_| Err("no file access".into()))
            .parse_posix_tz(name)
            .map(|tz| Zone::Named(name.to_string(), tz))
            .map_err(|_| {
                err(
                    "not an IANA name in the system's tz database ($TZDIR, /usr/share/zoneinfo) \
                     nor a POSIX TZ rule; try e.g. Europe/Paris, America/New_York, UTC or local",
                )
            })
    }

    /// The name shown in reports: the name given, or for `local` `$TZ` or the system zone's
    /// IANA name (`local` when neither says; `UTC` when `$TZ` names no zone, which is what the
    /// local time then is).
    pub fn name(&self) -> String {
        match self {
            Zone::Local => match bad_tz() {
                Some(_) => "UTC".into(),
                None => std::env::var("TZ")
                    .ok()
                    .filter(|t| !t.trim().is_empty())
                    .map(|t| t.trim_start_matches(':').to_string())
                    .or_else(system_zone_name)
                    .unwrap_or_else(|| "local".into()),
            },
            Zone::Named(n, _) => n.clone(),
        }
    }

    /// The zone's offset from UTC at an instant.
    pub fn offset_at(&self, t: DateTime<Utc>) -> FixedOffset {
        match self {
            Zone::Local => Local.offset_from_utc_datetime(&t.naive_utc()).fix(),
            Zone::Named(_, tz) => tz
                .find_local_time_type(t.timestamp())
                .ok()
                .and_then(|l| FixedOffset::east_opt(l.ut_offset()))
                .unwrap_or_else(|| Utc.fix()),
        }
    }

    /// Wall-clock time of an instant in this zone; held at chrono's ends rather than
    /// overflowing (no parsed time comes near them: they stay in years 1 to 9999).
    pub fn local(&self, t: DateTime<Utc>) -> NaiveDateTime {
        let offset = Duration::seconds(i64::from(self.offset_at(t).local_minus_utc()));
        t.naive_utc()
            .checked_add_signed(offset)
            .unwrap_or(if offset < Duration::zero() {
                NaiveDateTime::MIN
            } else {
                NaiveDateTime::MAX
            })
    }

    /// The calendar day an instant falls on in this zone.
    pub fn date_of(&self, t: DateTime<Utc>) -> NaiveDate {
        self.local(t).date()
    }

    /// The first instant of a calendar day in this zone: local midnight, the earlier one when
    /// a clock change repeats it, the end of the gap when a clock change skips it.
    pub fn start_of_day(&self, d: NaiveDate) -> DateTime<Utc> {
        let midnight = d.and_time(chrono::NaiveTime::MIN);
        let as_utc = midnight.and_utc();
        let mut hits: Vec<DateTime<Utc>> = [-1i64, 0, 1]
            .iter()
            .map(|days| {
                let probe = shift(as_utc, Duration::days(*days));
                let offset = i64::from(self.offset_at(probe).local_minus_utc());
                shift(as_utc, -Duration::seconds(offset))
            })
            .filter(|t| self.local(*t) == midnight)
            .collect();
        hits.sort();
        if let Some(t) = hits.first() {
            return *t;
        }
        // Midnight does not exist that day: the day starts when the clock jumps past it. Zone
        // data puts every transition on a whole second, so a search over whole seconds ends on
        // the transition itself (one over instants stopped up to a second after it).
        let at = |secs: i64| DateTime::from_timestamp(secs, 0).unwrap_or(as_utc);
        let (mut lo, mut hi) = (
            shift(as_utc, -Duration::days(2)).timestamp(),
            shift(as_utc, Duration::days(2)).timestamp(),
        );
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.date_of(at(mid)) >= d {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        at(hi)
    }
}

/// `t + d`, held at chrono's ends: days at the ends of its range have no neighbours.
fn shift(t: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    t.checked_add_signed(d).unwrap_or(if d < Duration::zero() {
        DateTime::<Utc>::MIN_UTC
    } else {
        DateTime::<Utc>::MAX_UTC
    })
}

/// The IANA name of the system zone, from the `/etc/localtime` link, when it is one.
fn system_zone_name() -> Option<String> {
    let target = std::fs::read_link("/etc/localtime").ok()?;
    let s = target.to_str()?;
    let i = s.find("zoneinfo/")?;
    Some(s[i + "zoneinfo/".len()..].to_string())
}

/// A zone file by IANA name, from the system's tz database; only regular files, bounded.
fn read_zone_file(name: &str) -> Option<Vec<u8>> {
    let tzdir = std::env::var("TZDIR").ok().filter(|d| !d.is_empty());
    let dirs = tzdir.iter().map(String::as_str).chain([
        "/usr/share/zoneinfo",
        "/share/zoneinfo",
        "/etc/zoneinfo",
    ]);
    for dir in dirs {
        let path = std::path::Path::new(dir).join(name);
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() && m.len() <= MAX_TZIF => {
                if let Ok(bytes) = std::fs::read(&path) {
                    return Some(bytes);
                }
            }
            _ => {}
        }
    }
    None
}

/// `$TZ` when it is set but names no zone this tool can read: local time is then UTC (chrono's
/// fallback), and a report should say so rather than print the name.
pub fn bad_tz() -> Option<String> {
    // Read once: reports ask for the zone's name on every row.
    static BAD: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    BAD.get_or_init(check_tz_variable).clone()
}

fn check_tz_variable() -> Option<String> {
    let tz = std::env::var("TZ").ok()?;
    let name = tz.trim().trim_start_matches(':');
    if name.is_empty() || name.starts_with('/') {
        // A path to a zone file is chrono's to read.
        return None;
    }
    Zone::parse(name).is_err().then_some(tz)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    /// Parsing keeps recorded times in years 1 to 9999; at chrono's own ends the zone's
    /// arithmetic holds there instead of panicking.
    #[test]
    fn the_ends_of_time_never_panic() {
        // POSIX rules: read without the tz database; one zone east of UTC, one west.
        for zone in ["CET-1", "EST5"] {
            let z = Zone::parse(zone).unwrap();
            for t in [DateTime::<Utc>::MAX_UTC, DateTime::<Utc>::MIN_UTC] {
                let local = z.local(t);
                assert!(
                    local == NaiveDateTime::MAX || local == NaiveDateTime::MIN || {
                        (local - t.naive_utc()).num_hours().abs() <= 5
                    }
                );
                z.date_of(t);
            }
            for day in [NaiveDate::MAX, NaiveDate::MIN] {
                z.start_of_day(day);
            }
        }
        let cet = Zone::parse("CET-1").unwrap();
        assert_eq!(cet.local(DateTime::<Utc>::MAX_UTC), NaiveDateTime::MAX);
        assert_eq!(
            cet.date_of(t("2026-03-14T23:30:00Z")),
            d("2026-03-15") // and in between, as before
        );
    }

    #[test]
    fn day_boundaries_follow_the_zone() {
        let utc = Zone::parse("UTC").unwrap();
        let paris = Zone::parse("Europe/Paris").unwrap();
        let ny = Zone::parse("America/New_York").unwrap();
        let instant = t("2026-03-14T23:30:00Z");
        assert_eq!(utc.date_of(instant), d("2026-03-14"));
        assert_eq!(paris.date_of(instant), d("2026-03-15")); // 00:30 CET
        assert_eq!(ny.date_of(instant), d("2026-03-14")); // 19:30 EDT
        assert_eq!(
            ny.date_of(t("2026-03-15T03:59:59Z")),
            d("2026-03-14") // 23:59:59 EDT (UTC−4 since 8 March)
        );
        assert_eq!(ny.date_of(t("2026-03-15T04:00:00Z")), d("2026-03-15"));
    }

    #[test]
    fn dst_days_are_23_and_25_hours_long() {
        let paris = Zone::parse("Europe/Paris").unwrap();
        // Clocks go forward on 2026-03-29 (02:00 → 03:00) and back on 2026-10-25.
        let len = |day: &str| {
            let a = paris.start_of_day(d(day));
            let b = paris.start_of_day(d(day).succ_opt().unwrap());
            (b - a).num_hours()
        };
        assert_eq!(len("2026-03-28"), 24);
        assert_eq!(len("2026-03-29"), 23);
        assert_eq!(len("2026-10-25"), 25);
        assert_eq!(
            paris.start_of_day(d("2026-03-29")),
            t("2026-03-28T23:00:00Z")
        );
        assert_eq!(
            paris.start_of_day(d("2026-03-30")),
            t("2026-03-29T22:00:00Z")
        );
        // 02:30 local does not exist on 2026-03-29; 01:30 UTC is 03:30 CEST.
        assert_eq!(paris.date_of(t("2026-03-29T01:30:00Z")), d("2026-03-29"));
    }

    #[test]
    fn a_skipped_midnight_starts_the_day_after_the_gap() {
        // America/Santiago moved clocks from 24:00 to 01:00 on 2026-09-06 (start of DST).
        let santiago = Zone::parse("America/Santiago").unwrap();
        let start = santiago.start_of_day(d("2026-09-06"));
        assert_eq!(santiago.date_of(start), d("2026-09-06"));
        assert_eq!(
            santiago.date_of(start - Duration::seconds(1)),
            d("2026-09-05")
        );
        assert_eq!(santiago.local(start).format("%H:%M").to_string(), "01:00");
    }

    /// The day starts at the transition itself, to the nanosecond, whether the zone comes
    /// from the tz database or from a POSIX rule (Havana skips 00:00 on 2026-03-08; the rule
    /// jumps from 24:00 to 01:00 on the first Saturday of September).
    #[test]
    fn a_skipped_midnight_starts_the_day_at_the_transition_instant() {
        for (zone, day, start) in [
            ("America/Santiago", "2026-09-06", "2026-09-06T04:00:00Z"),
            ("America/Havana", "2026-03-08", "2026-03-08T05:00:00Z"),
            (
                "<-04>4<-03>,M9.1.6/24,M4.1.6/24",
                "2026-09-06",
                "2026-09-06T04:00:00Z",
            ),
        ] {
            let z = Zone::parse(zone).unwrap();
            assert_eq!(z.start_of_day(d(day)), t(start), "{zone}");
            let before = d(day).pred_opt().unwrap();
            assert_eq!(z.date_of(t(start) - Duration::nanoseconds(1)), before);
        }
    }

    #[test]
    fn posix_rules_and_bad_names() {
        let est = Zone::parse("EST5EDT,M3.2.0,M11.1.0").unwrap();
        assert_eq!(
            est.offset_at(t("2026-01-10T12:00:00Z")).local_minus_utc(),
            -5 * 3600
        );
        assert_eq!(
            est.offset_at(t("2026-07-10T12:00:00Z")).local_minus_utc(),
            -4 * 3600
        );
        for bad in ["Mars/Olympus", "../../etc/passwd", "", "/etc/passwd"] {
            assert!(Zone::parse(bad).is_err(), "{bad}");
        }
        assert!(matches!(Zone::parse("local"), Ok(Zone::Local)));
    }
}
