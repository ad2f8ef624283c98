//! The replay chart: full / recorded / what-if context over requests, the window and the
//! algorithm's threshold, and a mark at each compression. SVG via plotters (text is laid out
//! without system fonts, so it renders the same everywhere).

use plotters::prelude::*;

use crate::replay::{EventKind, SessionReplay};

const FULL: RGBColor = RGBColor(150, 150, 150);
const RECORDED: RGBColor = RGBColor(31, 119, 180);
const WHAT_IF: RGBColor = RGBColor(214, 39, 40);
const WINDOW: RGBColor = RGBColor(0, 0, 0);
const THRESHOLD: RGBColor = RGBColor(255, 127, 14);

/// Draw one session's replay as an SVG document (the caller writes it, through the output
/// guard). Requires the replay's timeline.
pub fn svg(r: &SessionReplay) -> Result<String, String> {
    let mut buf = String::new();
    draw(r, SVGBackend::with_string(&mut buf, (1100, 560)))?;
    Ok(buf)
}

fn draw(r: &SessionReplay, backend: SVGBackend) -> Result<(), String> {
    let timeline = r.timeline.as_ref().ok_or("the replay has no timeline")?;
    let n = timeline.len().max(1);
    let peak = timeline
        .iter()
        .map(|p| p.full.max(p.what_if).max(p.recorded.unwrap_or(0)))
        .max()
        .unwrap_or(0);
    let window = r.limits.context_window;
    // The window and the threshold are always on the chart: how far the data stays below them
    // is part of the answer.
    let top = peak.max(window).max(r.threshold.unwrap_or(0)) as f64 * 1.08 + 1.0;

    let root = backend.into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let title = format!(
        "{} {} — {} ({} requests, saved {:.1}% vs full)",
        r.agent,
        // An SVG holds no control characters (XML forbids them); the id comes from a file.
        super::text::cut_prefix(&super::text::safe_line(&r.id), 13),
        r.algorithm.as_str(),
        r.requests,
        r.totals.saved_pct
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..n as f64, 0f64..top)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("request")
        .y_desc("context tokens")
        .y_label_formatter(&|v| crate::render::human_count(*v as u64))
        .x_label_formatter(&|v| format!("{}", *v as u64))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(|e| e.to_string())?;

    let series = |f: &dyn Fn(&crate::replay::Point) -> Option<u64>| -> Vec<(f64, f64)> {
        timeline
            .iter()
            .filter_map(|p| f(p).map(|v| (p.request as f64, v as f64)))
            .collect()
    };
    // Widest first, so a line that coincides with another stays visible around it.
    chart
        .draw_series(LineSeries::new(
            series(&|p| Some(p.full)),
            FULL.mix(0.6).stroke_width(6),
        ))
        .map_err(|e| e.to_string())?
        .label("full (no management)")
        .legend(|(x, y)| {
            PathElement::new(vec![(x, y), (x + 18, y)], FULL.mix(0.6).stroke_width(6))
        });
    let recorded = series(&|p| p.recorded);
    if !recorded.is_empty() {
        chart
            .draw_series(LineSeries::new(recorded, RECORDED.stroke_width(3)))
            .map_err(|e| e.to_string())?
            .label("recorded")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], RECORDED.stroke_width(3)));
    }
    chart
        .draw_series(LineSeries::new(
            series(&|p| Some(p.what_if)),
            WHAT_IF.stroke_width(1),
        ))
        .map_err(|e| e.to_string())?
        .label(format!("what-if ({})", r.algorithm.as_str()))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], WHAT_IF.stroke_width(1)));
    {
        chart
            .draw_series(LineSeries::new(
                vec![(0.0, window as f64), (n as f64, window as f64)],
                WINDOW.stroke_width(1),
            ))
            .map_err(|e| e.to_string())?
            .label(format!("window {}", crate::render::human_count(window)))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], WINDOW.stroke_width(1)));
    }
    if let Some(t) = r.threshold.filter(|t| (*t as f64) < top) {
        chart
            .draw_series(LineSeries::new(
                vec![(0.0, t as f64), (n as f64, t as f64)],
                THRESHOLD.stroke_width(1),
            ))
            .map_err(|e| e.to_string())?
            .label(format!("threshold {}", crate::render::human_count(t)))
            .legend(|(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], THRESHOLD.stroke_width(1))
            });
    }
    // Each event is a thin tick on the axis: hundreds of prunes stay readable.
    let ticks: Vec<f64> = r
        .events
        .iter()
        .filter(|e| e.kind != EventKind::Failed)
        .map(|e| e.request as f64)
        .collect();
    if !ticks.is_empty() {
        let h = top * 0.04;
        chart
            .draw_series(
                ticks
                    .iter()
                    .map(|&x| PathElement::new(vec![(x, 0.0), (x, h)], WHAT_IF.stroke_width(1))),
            )
            .map_err(|e| e.to_string())?
            .label(format!(
                "{} {}",
                ticks.len(),
                if ticks.len() == 1 { "event" } else { "events" }
            ))
            .legend(|(x, y)| {
                PathElement::new(
                    vec![(x + 9, y - 6), (x + 9, y + 6)],
                    WHAT_IF.stroke_width(1),
                )
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(200, 200, 200))
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(())
}
