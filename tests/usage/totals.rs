//! Every report adds up to the `list`/`projects` totals, over the sample home and the corpus.

use super::*;

/// The de-duplicated total of a selection, as `projects` reports it.
fn projects_total(args: &[&str]) -> u64 {
    let mut all = vec!["projects", "--format", "json"];
    all.extend_from_slice(args);
    json_of(sessions(), &all)
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["tokens"]["total"].as_u64().unwrap())
        .sum()
}

#[test]
fn every_report_adds_up_to_the_list_totals() {
    let selections: [&[&str]; 4] = [
        &[],
        &["--agent", "claude"],
        &["--project", "webapp"],
        &["--agent", "codex,gemini", "--project", "/home/*/api-*"],
    ];
    let list_total: u64 = json_of(sessions(), &["list", "--kind", "all", "--format", "json"])
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tokens"]["total"].as_u64().unwrap())
        .sum();
    // Per file, the replayed response is in two files; A's copy of msg_A_sub1 is in no row.
    assert_eq!(list_total - 8_164 + 5_050, HOME_TOTAL);
    for sel in selections {
        let want = projects_total(sel);
        for report in ["daily", "weekly", "monthly", "session", "project", "blocks"] {
            let mut args = vec![report];
            args.extend_from_slice(sel);
            let doc = usage(&args);
            assert_eq!(total(&doc), want, "{args:?}");
            let rows: u64 = doc["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["tokens"]["total"].as_u64().unwrap())
                .sum();
            assert_eq!(rows, want, "{args:?} rows");
        }
    }
    assert_eq!(projects_total(&[]), HOME_TOTAL);
}

/// The public corpus (`$SESSIONS_CORPUS`, `../shared/corpus` in CI): every report over every
/// session adds up to the de-duplicated total `list` and `projects` use. Without the corpus the
/// test is reported as ignored (and `corpus_is_present_in_ci` fails when `CI=true`).
#[test]
#[cfg_attr(
    not(has_corpus),
    ignore = "needs the session corpus: set SESSIONS_CORPUS"
)]
fn corpus_reports_add_up_to_the_list_totals() {
    use sessions::filter::{Filter, KindFilter};
    use sessions::pricing::Pricing;
    use sessions::scan::{ScanOptions, aggregate_usage, scan, unique_requests};
    use sessions::usage::{self, Options, ReportKind, WeekStart, Zone, blocks};

    let dir = Path::new(env!("SESSIONS_CORPUS_DIR")).to_path_buf();
    let result = scan(&ScanOptions {
        paths: vec![dir],
        filter: Filter {
            kind: KindFilter::All,
            ..Filter::default()
        },
        ..ScanOptions::default()
    });
    let sessions = &result.sessions;
    assert!(sessions.len() > 50, "{} sessions", sessions.len());
    let want = aggregate_usage(sessions);
    assert!(want.total() > 1_000_000, "{}", want.total());
    let unique = unique_requests(sessions);
    let pricing = Pricing::embedded();
    // `list`'s cost: the same requests, in the scan's order.
    let list_cost =
        sessions::pricing::cost_of(unique.iter().map(|(_, r)| (r.model.as_deref(), &r.usage)));
    for kind in [
        ReportKind::Daily,
        ReportKind::Weekly,
        ReportKind::Monthly,
        ReportKind::Session,
        ReportKind::Project,
        ReportKind::Blocks,
    ] {
        for zone in ["UTC", "Pacific/Kiritimati", "America/Los_Angeles"] {
            let opts = Options {
                kind,
                zone: Zone::parse(zone).unwrap(),
                week_start: WeekStart::Sunday,
                since: None,
                until: None,
            };
            let selected = usage::select(&unique, &opts);
            let got = if kind == ReportKind::Blocks {
                // Blocks need a time; requests with none are counted apart.
                let (list, undated) = blocks::blocks(&selected, &pricing);
                let mut t = usage::total(list.iter().map(|b| &b.tally));
                let mut timeless = 0;
                for (_, r, at) in &selected {
                    if at.is_none() {
                        t.usage.add(&r.usage);
                        t.cost.add(&pricing, r.model.as_deref(), &r.usage);
                        t.requests += 1;
                        timeless += 1;
                    }
                }
                assert_eq!(timeless, undated);
                t
            } else {
                let rows = usage::group(&selected, &opts, &pricing);
                usage::total(rows.iter().map(|g| &g.tally))
            };
            assert_eq!(got.usage, want, "{kind:?} in {zone}");
            assert_eq!(got.requests as usize, unique.len(), "{kind:?} in {zone}");
            // To the last bit: summed in another order (by row, then rows), a float total
            // would differ in its last digits, and a rounded one may then print another
            // millionth.
            assert_eq!(got.cost, list_cost, "{kind:?} in {zone}");
        }
    }
}
