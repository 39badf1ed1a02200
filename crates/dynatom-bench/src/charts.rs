//! SVG charts (plotters, SVG backend only) for the figures a picture reads better than a
//! table: latency distributions, cost versus string length, memory per string.

use plotters::prelude::*;
use std::path::Path;

/// A named line of (x, y) points.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

pub struct LineChart<'a> {
    pub title: &'a str,
    pub x_desc: &'a str,
    pub y_desc: &'a str,
    /// Plot x on a log10 axis (the points keep their real values).
    pub log_x: bool,
    pub log_y: bool,
}

fn color(i: usize) -> RGBColor {
    const PALETTE: &[RGBColor] = &[
        RGBColor(0xd6, 0x27, 0x28),
        RGBColor(0x1f, 0x77, 0xb4),
        RGBColor(0x2c, 0xa0, 0x2c),
        RGBColor(0xff, 0x7f, 0x0e),
        RGBColor(0x94, 0x67, 0xbd),
        RGBColor(0x8c, 0x56, 0x4b),
        RGBColor(0xe3, 0x77, 0xc2),
        RGBColor(0x7f, 0x7f, 0x7f),
        RGBColor(0xbc, 0xbd, 0x22),
        RGBColor(0x17, 0xbe, 0xcf),
    ];
    PALETTE[i % PALETTE.len()]
}

fn axis(v: f64, log: bool) -> f64 {
    if log {
        v.max(1e-9).log10()
    } else {
        v
    }
}

fn tick(v: f64, log: bool) -> String {
    let real = if log { 10f64.powf(v) } else { v };
    crate::report::fmt_num(Some(real))
}

/// The points of an empirical CDF of `samples` (x: value, y: fraction at or below it),
/// thinned to about 400 points plus the maximum, for a latency chart.
pub fn cdf_points(mut samples: Vec<f64>) -> Vec<(f64, f64)> {
    samples.sort_by(f64::total_cmp);
    let n = samples.len() as f64;
    let step = (samples.len() / 400).max(1);
    let mut points: Vec<(f64, f64)> =
        samples.iter().enumerate().step_by(step).map(|(i, &x)| (x, (i + 1) as f64 / n)).collect();
    if let Some(&last) = samples.last() {
        points.push((last, 1.0));
    }
    points
}

/// Lines; log axes are drawn as log10 of the value with ticks labelled in real units
/// (keeps every chart on one plain f64 coordinate type).
pub fn lines(path: &Path, spec: &LineChart, series: &[Series]) -> Result<(), String> {
    let pts = || series.iter().flat_map(|s| s.points.iter());
    let xs: Vec<f64> = pts().map(|p| axis(p.0, spec.log_x)).filter(|v| v.is_finite()).collect();
    let ys: Vec<f64> = pts().map(|p| axis(p.1, spec.log_y)).filter(|v| v.is_finite()).collect();
    if xs.is_empty() {
        return Err("no points".into());
    }
    let (x0, x1) = pad(min(&xs), max(&xs), spec.log_x);
    let (y0, y1) = pad(if spec.log_y { min(&ys) } else { min(&ys).min(0.0) }, max(&ys), spec.log_y);

    let root = SVGBackend::new(path, (900, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(spec.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(|e| e.to_string())?;
    let (lx, ly) = (spec.log_x, spec.log_y);
    chart
        .configure_mesh()
        .x_desc(spec.x_desc)
        .y_desc(spec.y_desc)
        .x_label_formatter(&|v| tick(*v, lx))
        .y_label_formatter(&|v| tick(*v, ly))
        .draw()
        .map_err(|e| e.to_string())?;
    for (i, s) in series.iter().enumerate() {
        let c = color(i);
        let p: Vec<(f64, f64)> = s.points.iter().map(|&(x, y)| (axis(x, lx), axis(y, ly))).collect();
        chart
            .draw_series(LineSeries::new(p.clone(), c.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        if p.len() <= 32 {
            chart.draw_series(p.iter().map(|&pt| Circle::new(pt, 3, c.filled()))).map_err(|e| e.to_string())?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// Horizontal bars, one per category (e.g. bytes per string per peer).
pub fn bars(path: &Path, title: &str, x_desc: &str, bars: &[(String, f64)]) -> Result<(), String> {
    if bars.is_empty() {
        return Err("no bars".into());
    }
    let n = bars.len() as i32;
    let vmax = bars.iter().map(|b| b.1).fold(0.0f64, f64::max).max(1.0) * 1.1;
    let vmin = bars.iter().map(|b| b.1).fold(0.0f64, f64::min) * 1.1;
    let root = SVGBackend::new(path, (900, 80 + 34 * bars.len() as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(190)
        .build_cartesian_2d(vmin..vmax, (0..n).into_segmented())
        .map_err(|e| e.to_string())?;
    let names: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(bars.len() + 1)
        .x_desc(x_desc)
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => names.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let i = i as i32;
            let c = color(i as usize);
            let mut r =
                Rectangle::new([(0.0, SegmentValue::Exact(i)), (b.1, SegmentValue::Exact(i + 1))], c.mix(0.8).filled());
            r.set_margin(4, 4, 0, 0);
            r
        }))
        .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

fn pad(lo: f64, hi: f64, log: bool) -> (f64, f64) {
    let span = (hi - lo).abs().max(if log { 0.1 } else { 1e-9 });
    (lo - span * 0.05, hi + span * 0.08)
}

#[cfg(test)]
mod cdf_tests {
    use super::cdf_points;

    #[test]
    fn cdf_points_rise_to_one_at_the_maximum() {
        let points = cdf_points(vec![3.0, 1.0, 2.0, 4.0]);
        assert_eq!(points.first(), Some(&(1.0, 0.25)));
        assert_eq!(points[..4], [(1.0, 0.25), (2.0, 0.5), (3.0, 0.75), (4.0, 1.0)]);
        assert_eq!(points.last(), Some(&(4.0, 1.0)));
        assert!(cdf_points(Vec::new()).is_empty());
    }

    #[test]
    fn cdf_points_are_thinned_to_about_400() {
        let points = cdf_points((0..10_000).map(f64::from).collect());
        assert!(points.len() <= 402, "{}", points.len());
        assert_eq!(points.last(), Some(&(9999.0, 1.0)));
    }
}
