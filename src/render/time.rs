//! One time-zone rule for everything printed for humans (tables, `show`, Markdown and HTML
//! exports): local time with its UTC offset shown, or UTC everywhere with `--utc`. The JSON
//! contract is always RFC 3339 in UTC ([`super::rfc3339`]).

use chrono::{DateTime, FixedOffset, Local, Utc};

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
        zoned(t).format("%:z").to_string()
    }
}

/// `2026-03-14 09:00` (no zone: tables name it in the column header).
pub fn minutes(t: DateTime<Utc>) -> String {
    zoned(t).format("%Y-%m-%d %H:%M").to_string()
}

/// `09:00:05` (no zone).
pub fn clock(t: DateTime<Utc>) -> String {
    zoned(t).format("%H:%M:%S").to_string()
}

/// The calendar day in the display zone.
pub fn day(t: DateTime<Utc>) -> chrono::NaiveDate {
    zoned(t).date_naive()
}

/// `2026-03-14 09:00:05 +01:00`, or `2026-03-14 08:00:05 UTC` under `--utc`.
pub fn timestamp(t: DateTime<Utc>) -> String {
    format!("{} {}", zoned(t).format("%Y-%m-%d %H:%M:%S"), zone(t))
}

/// A column of times for a table: the header names the zone when every time shares one
/// (`STARTED (+01:00)`); when they do not (a daylight-saving change), each cell carries its own
/// offset. Missing times are `-`.
pub fn column(label: &str, times: &[Option<DateTime<Utc>>]) -> (String, Vec<String>) {
    let mut zones: Vec<String> = times.iter().flatten().map(|t| zone(*t)).collect();
    zones.sort();
    zones.dedup();
    let one = zones.len() <= 1;
    let header = match zones.first() {
        Some(z) if one => format!("{label} ({z})"),
        _ => label.to_string(),
    };
    let cells = times
        .iter()
        .map(|t| match t {
            Some(t) if one => minutes(*t),
            Some(t) => format!("{} {}", minutes(*t), zone(*t)),
            None => "-".into(),
        })
        .collect();
    (header, cells)
}
