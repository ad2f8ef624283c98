//! One time-zone rule for everything printed for humans (tables, `show`, Markdown and HTML
//! exports): local time with its UTC offset shown, or UTC everywhere with `--utc`. The JSON
//! contract is always RFC 3339 in UTC ([`super::rfc3339`]).

use std::collections::HashMap;

use chrono::format::{Fixed, Item, Numeric, Pad};
use chrono::{DateTime, FixedOffset, Local, NaiveDate, Utc};

use super::settings;

fn zoned(t: DateTime<Utc>) -> DateTime<FixedOffset> {
    if settings().utc {
        t.fixed_offset()
    } else {
        t.with_timezone(&Local).fixed_offset()
    }
}

/// The zone of a time as shown: `UTC` under `--utc`, else the local offset (`+01:00`).
pub fn zone(t: DateTime<Utc>) -> String {
    if settings().utc {
        "UTC".into()
    } else {
        let mut out = String::with_capacity(6);
        push_offset(&mut out, *zoned(t).offset());
        out
    }
}

/// `2026-03-14 09:00` (no zone: tables name it in the column header).
pub fn minutes(t: DateTime<Utc>) -> String {
    zoned(t).format("%Y-%m-%d %H:%M").to_string()
}

/// `09:00:05` (no zone).
pub fn clock(t: DateTime<Utc>) -> String {
    let mut out = String::with_capacity(8);
    push_date_time(&mut out, &zoned(t), false);
    out
}

/// The calendar day in the display zone. chrono's `date_naive` panics when the offset carries
/// the time past its last day; such a time (never a parsed one: those stay in years 1 to 9999)
/// keeps its UTC day.
pub fn day(t: DateTime<Utc>) -> chrono::NaiveDate {
    day_at(t, *zoned(t).offset())
}

fn day_at(t: DateTime<Utc>, offset: FixedOffset) -> chrono::NaiveDate {
    let shift = chrono::Duration::seconds(i64::from(offset.local_minus_utc()));
    t.naive_utc()
        .checked_add_signed(shift)
        .map_or_else(|| t.date_naive(), |local| local.date())
}

/// `%Y-%m-%d %H:%M:%S`, parsed once: an export formats a time for every message.
const DATE_TIME: [Item<'static>; 11] = [
    Item::Numeric(Numeric::Year, Pad::Zero),
    Item::Literal("-"),
    Item::Numeric(Numeric::Month, Pad::Zero),
    Item::Literal("-"),
    Item::Numeric(Numeric::Day, Pad::Zero),
    Item::Literal(" "),
    Item::Numeric(Numeric::Hour, Pad::Zero),
    Item::Literal(":"),
    Item::Numeric(Numeric::Minute, Pad::Zero),
    Item::Literal(":"),
    Item::Numeric(Numeric::Second, Pad::Zero),
];

/// `2026-03-14 09:00:05 +01:00`, or `2026-03-14 08:00:05 UTC` under `--utc`.
pub fn timestamp(t: DateTime<Utc>) -> String {
    let z = zoned(t);
    let mut out = String::with_capacity(26);
    push_date_time(&mut out, &z, true);
    if settings().utc {
        out.push_str(" UTC");
    } else {
        out.push(' ');
        push_offset(&mut out, *z.offset());
    }
    out
}

/// [`DATE_TIME`] of `z` (its time alone without `with_date`), written digit by digit where
/// chrono writes the items one by one through `fmt` and first prints the offset, which these
/// items do not show (an export formats a time for every message); through chrono for a year
/// outside 0–9999 (written with a sign) or a leap second (`:60`).
fn push_date_time(out: &mut String, z: &DateTime<FixedOffset>, with_date: bool) {
    use chrono::{Datelike, Timelike};
    use std::fmt::Write;
    if !(0..=9999).contains(&z.year()) || z.nanosecond() >= 1_000_000_000 {
        let items = if with_date {
            &DATE_TIME[..]
        } else {
            &DATE_TIME[6..]
        };
        let _ = write!(out, "{}", z.format_with_items(items.iter()));
        return;
    }
    if with_date {
        let y = z.year() as u32;
        push2(out, y / 100);
        push2(out, y % 100);
        out.push('-');
        push2(out, z.month());
        out.push('-');
        push2(out, z.day());
        out.push(' ');
    }
    push2(out, z.hour());
    out.push(':');
    push2(out, z.minute());
    out.push(':');
    push2(out, z.second());
}

/// The last two digits of `n`, zero-padded.
fn push2(out: &mut String, n: u32) {
    out.push(char::from(b'0' + (n / 10 % 10) as u8));
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// `%:z` of an offset (`+01:00`), through chrono where it has seconds.
fn push_offset(out: &mut String, offset: FixedOffset) {
    let secs = offset.local_minus_utc();
    if secs % 60 != 0 {
        out.push_str(
            &DateTime::<Utc>::UNIX_EPOCH
                .with_timezone(&offset)
                .format_with_items([Item::Fixed(Fixed::TimezoneOffsetColon)].iter())
                .to_string(),
        );
        return;
    }
    let minutes = secs.unsigned_abs() / 60;
    out.push(if secs < 0 { '-' } else { '+' });
    push2(out, minutes / 60);
    out.push(':');
    push2(out, minutes % 60);
}

/// The zone every one of `times` shows, when they share one (`None` across a daylight-saving
/// change, or for no time at all). This is the one rule of every human output: a heading names
/// a shared zone once, and otherwise each time carries its own.
pub fn shared_zone(times: impl IntoIterator<Item = DateTime<Utc>>) -> Option<String> {
    let mut times = times.into_iter();
    let first = zone(times.next()?);
    times.all(|t| zone(t) == first).then_some(first)
}

/// A column of times for a table: the header names the zone when every time shares one
/// (`STARTED (+01:00)`); when they do not (a daylight-saving change), each cell carries its own
/// offset. Missing times are `-`.
pub fn column(label: &str, times: &[Option<DateTime<Utc>>]) -> (String, Vec<String>) {
    let shared = shared_zone(times.iter().flatten().copied());
    let header = match &shared {
        Some(z) => format!("{label} ({z})"),
        None => label.to_string(),
    };
    let cells = times
        .iter()
        .map(|t| match t {
            Some(t) if shared.is_some() => minutes(*t),
            Some(t) => format!("{} {}", minutes(*t), zone(*t)),
            None => "-".into(),
        })
        .collect();
    (header, cells)
}

/// Clock times under day headings (`show`'s timeline), by the rule of [`column()`]: a day whose
/// times share one offset names it in its heading (`2026-03-14 (+01:00)`, then `09:00:05`); on
/// a day with a daylight-saving change the heading is the date alone and each time carries its
/// offset (`02:30:00 +02:00`, `02:30:00 +01:00`), so no two instants print alike.
pub struct Days {
    zones: HashMap<NaiveDate, Option<String>>,
}

impl Days {
    pub fn new(times: impl IntoIterator<Item = DateTime<Utc>>) -> Self {
        let mut by_day: HashMap<NaiveDate, Vec<DateTime<Utc>>> = HashMap::new();
        for t in times {
            by_day.entry(day(t)).or_default().push(t);
        }
        let zones = by_day
            .into_iter()
            .map(|(d, times)| (d, shared_zone(times)))
            .collect();
        Days { zones }
    }

    fn zone_of_day(&self, t: DateTime<Utc>) -> Option<&str> {
        self.zones.get(&day(t)).and_then(|z| z.as_deref())
    }

    /// The heading of the day of `t`.
    pub fn heading(&self, t: DateTime<Utc>) -> String {
        let date = day(t).format("%Y-%m-%d");
        match self.zone_of_day(t) {
            Some(z) => format!("{date} ({z})"),
            None => date.to_string(),
        }
    }

    /// The time of `t` under its day's heading.
    pub fn clock(&self, t: DateTime<Utc>) -> String {
        match self.zone_of_day(t) {
            Some(_) => clock(t),
            None => format!("{} {}", clock(t), zone(t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone, Utc};

    /// The digits written by hand are chrono's, at every offset a zone can have and at times
    /// from year 0 to 9999, the edges and a leap second (which go through chrono) included.
    #[test]
    fn hand_written_times_are_chronos() {
        let mut rng = crate::testing::Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: i64| rng.below(n as u64) as i64;
        let first = NaiveDate::from_ymd_opt(0, 1, 1)
            .unwrap()
            .and_hms_opt(0, 0, 0)
            .unwrap();
        let last = NaiveDate::from_ymd_opt(9999, 12, 31)
            .unwrap()
            .and_hms_opt(23, 59, 59)
            .unwrap();
        let span = (last - first).num_seconds();
        let leap = NaiveDate::from_ymd_opt(2016, 12, 31)
            .unwrap()
            .and_hms_milli_opt(23, 59, 59, 1_500)
            .unwrap();
        let mut times = vec![first, last, leap];
        times.extend((0..3000).map(|_| first + chrono::Duration::seconds(next(span + 1))));
        for (k, naive) in times.into_iter().enumerate() {
            // Whole minutes mostly, seconds in a few (old local mean times), both signs.
            let secs = match k % 7 {
                0 => next(2 * 86_399 + 1) - 86_399,
                _ => (next(2 * 1_439 + 1) - 1_439) * 60,
            };
            let offset = FixedOffset::east_opt(secs as i32).unwrap();
            let Some(z) = offset.from_local_datetime(&naive).single() else {
                continue;
            };
            let mut got = String::new();
            super::push_date_time(&mut got, &z, true);
            got.push(' ');
            super::push_offset(&mut got, offset);
            let want = z.format("%Y-%m-%d %H:%M:%S %:z").to_string();
            assert_eq!(got, want, "{naive} at {secs} s");
            let mut clock = String::new();
            super::push_date_time(&mut clock, &z, false);
            assert_eq!(clock, z.format("%H:%M:%S").to_string());
        }
    }

    /// The day of a time in a zone east of UTC, up to the last instant chrono holds (where
    /// `date_naive` panicked): that one keeps its UTC day.
    #[test]
    fn days_at_the_end_of_time_never_panic() {
        let east = FixedOffset::east_opt(3600).unwrap();
        let t = Utc.with_ymd_and_hms(2026, 3, 14, 23, 30, 0).unwrap();
        assert_eq!(
            super::day_at(t, east),
            NaiveDate::from_ymd_opt(2026, 3, 15).unwrap()
        );
        let max = DateTime::<Utc>::MAX_UTC;
        assert_eq!(super::day_at(max, east), max.date_naive());
        let west = FixedOffset::west_opt(3600).unwrap();
        let min = DateTime::<Utc>::MIN_UTC;
        assert_eq!(super::day_at(min, west), min.date_naive());
    }

    /// The parsed-once items print what the format string prints, extreme years included.
    #[test]
    fn timestamps_print_as_the_format_string() {
        let mut times: Vec<DateTime<Utc>> = [0i64, 1, 1_700_000_000, 253_402_300_799, -1]
            .iter()
            .filter_map(|&s| Utc.timestamp_opt(s, 0).single())
            .collect();
        times.push(DateTime::<Utc>::MIN_UTC);
        times.push(DateTime::<Utc>::MAX_UTC);
        times.push(Utc.with_ymd_and_hms(10_000, 1, 1, 0, 0, 0).unwrap());
        times.push(Utc.with_ymd_and_hms(-5, 12, 31, 23, 59, 59).unwrap());
        for t in times {
            let z = super::zoned(t);
            let zone = if super::settings().utc {
                "UTC".to_string()
            } else {
                z.format("%:z").to_string()
            };
            let expected = format!("{} {zone}", z.format("%Y-%m-%d %H:%M:%S"));
            assert_eq!(super::timestamp(t), expected);
            assert_eq!(super::clock(t), z.format("%H:%M:%S").to_string());
        }
    }
}
