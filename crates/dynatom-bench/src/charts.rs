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

/// Round tick positions in axis units for an axis spanning `lo..hi`: on a log10 axis the
/// logs of 1, 2 and 5 times the powers of ten inside (only the powers over many decades,
/// 1 to 9 within one), on a linear axis the multiples of a 1, 2 or 5 step giving about
/// eight ticks.
fn ticks(lo: f64, hi: f64, log: bool) -> Vec<f64> {
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return Vec::new();
    }
    if log {
        let decades = hi - lo;
        let multiples: &[f64] = if decades > 5.0 {
            &[1.0]
        } else if decades > 1.2 {
            &[1.0, 2.0, 5.0]
        } else {
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]
        };
        (lo.floor() as i32..=hi.ceil() as i32)
            .flat_map(|exp| multiples.iter().map(move |m| (m * 10f64.powi(exp)).log10()))
            .filter(|v| (lo..=hi).contains(v))
            .collect()
    } else {
        let step = linear_step(hi - lo);
        // The slack keeps an end that is itself a multiple (0.35 = 7 × 0.05) from rounding away.
        let first = (lo / step - 1e-9).ceil() as i64;
        let last = (hi / step + 1e-9).floor() as i64;
        (first..=last).map(|k| k as f64 * step).collect()
    }
}

/// A plain f64 axis whose mesh lines and labels sit at [`ticks`] (plotters' own f64 axis
/// spaces them evenly in axis units, which on a log axis gives 1.58, 2.51, ...).
struct RoundTicks {
    range: std::ops::Range<f64>,
    ticks: Vec<f64>,
}

impl RoundTicks {
    fn new(range: std::ops::Range<f64>, log: bool) -> RoundTicks {
        let ticks = ticks(range.start, range.end, log);
        RoundTicks { range, ticks }
    }
}

impl Ranged for RoundTicks {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let fraction = (value - self.range.start) / (self.range.end - self.range.start);
        limit.0 + (fraction * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Light (unlabelled) mesh lines are not drawn between the round ticks.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

/// A 1, 2 or 5 times a power of ten step that cuts `span` into about eight.
fn linear_step(span: f64) -> f64 {
    let rough = span / 8.0;
    let power = 10f64.powf(rough.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|step| *step >= rough).unwrap_or(10.0 * power)
}

/// A tick's label in real units, as short as the value allows: `0`, `2`, `0.05`, `1.5`,
/// `2000` (never `0.000` beside `10.0`, and round values only, since the ticks are).
fn tick_label(v: f64, log: bool) -> String {
    let real = if log { 10f64.powf(v) } else { v };
    if real.abs() < 1e-12 {
        return "0".into();
    }
    // Three significant digits remove the float noise of 10^log10(x) and k * step.
    let digits = (2 - real.abs().log10().floor() as i32).max(0) as usize;
    let text = format!("{real:.digits$}");
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        text
    }
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
        .build_cartesian_2d(RoundTicks::new(x0..x1, spec.log_x), RoundTicks::new(y0..y1, spec.log_y))
        .map_err(|e| e.to_string())?;
    let (lx, ly) = (spec.log_x, spec.log_y);
    chart
        .configure_mesh()
        .x_desc(spec.x_desc)
        .y_desc(spec.y_desc)
        .x_label_formatter(&|v| tick_label(*v, lx))
        .y_label_formatter(&|v| tick_label(*v, ly))
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
mod tick_tests {
    use super::{tick_label, ticks};

    fn labels(lo: f64, hi: f64, log: bool) -> Vec<String> {
        ticks(lo, hi, log).into_iter().map(|v| tick_label(v, log)).collect()
    }

    #[test]
    fn log_axes_tick_at_round_values() {
        // 16 B to 1 MiB: a span of almost five decades.
        assert_eq!(labels(16f64.log10(), 1_048_576f64.log10(), true)[..4], ["20", "50", "100", "200"]);
        assert_eq!(labels(0.05f64.log10(), 2.0f64.log10(), true), ["0.05", "0.1", "0.2", "0.5", "1", "2"]);
        assert_eq!(
            labels(1.0, 9.0, true),
            ["10", "100", "1000", "10000", "100000", "1000000", "10000000", "100000000", "1000000000"]
        );
        assert_eq!(labels(1.5f64.log10(), 9.5f64.log10(), true), ["2", "3", "4", "5", "6", "7", "8", "9"]);
    }

    #[test]
    fn linear_axes_tick_at_multiples_of_a_round_step() {
        assert_eq!(labels(-0.4, 10.6, false), ["0", "2", "4", "6", "8", "10"]);
        assert_eq!(labels(0.0, 0.35, false), ["0", "0.05", "0.1", "0.15", "0.2", "0.25", "0.3", "0.35"]);
        assert_eq!(labels(-5.0, 130.0, false)[..3], ["0", "20", "40"]);
        assert!(ticks(1.0, 1.0, false).is_empty());
    }
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
