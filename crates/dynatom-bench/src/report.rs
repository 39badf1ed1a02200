//! The report: markdown for people (`report.md`), JSON for machines (`--json FILE`).

use crate::results::{Job, Results};
use serde_json::{json, Value};
use std::fmt::Write as _;

/// A markdown table under construction.
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new<S: AsRef<str>>(headers: &[S]) -> Table {
        Table { headers: headers.iter().map(|h| h.as_ref().to_string()).collect(), rows: Vec::new() }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "| {} |", self.headers.join(" | "));
        let seps: Vec<&str> =
            self.headers.iter().enumerate().map(|(i, _)| if i == 0 { "---" } else { "---:" }).collect();
        let _ = writeln!(s, "|{}|", seps.join("|"));
        for r in &self.rows {
            let _ = writeln!(s, "| {} |", r.join(" | "));
        }
        s
    }
}

/// One target line: what was promised, the figure, and whether it held.
pub struct Target {
    pub suite: String,
    pub what: String,
    pub figure: String,
    /// `None` when the figure could not be measured (a peer failed, a suite skipped).
    pub met: Option<bool>,
}

#[derive(Default)]
pub struct Report {
    pub md: String,
    pub targets: Vec<Target>,
    pub figures: Vec<Value>,
    current_suite: String,
}

impl Report {
    pub fn begin_suite(&mut self, name: &str, title: &str, intro: &str) {
        self.current_suite = name.to_string();
        let _ = writeln!(self.md, "\n## {title} (`{name}`)\n\n{intro}\n");
    }

    pub fn heading(&mut self, text: &str) {
        let _ = writeln!(self.md, "\n### {text}\n");
    }

    pub fn para(&mut self, text: &str) {
        let _ = writeln!(self.md, "{text}\n");
    }

    pub fn table(&mut self, t: &Table) {
        let _ = writeln!(self.md, "{}", t.to_markdown());
    }

    /// Embeds a chart written next to report.md.
    pub fn chart(&mut self, file: &str, alt: &str) {
        let _ = writeln!(self.md, "![{alt}]({file})\n");
    }

    pub fn target(&mut self, what: &str, figure: String, met: Option<bool>) {
        let mark = match met {
            Some(true) => "met",
            Some(false) => "**not met**",
            None => "not measured",
        };
        let _ = writeln!(self.md, "- Target: {what} — {mark} ({figure})");
        self.targets.push(Target { suite: self.current_suite.clone(), what: what.into(), figure, met });
    }

    /// Records every figure of a suite (median and each repetition) for the JSON file.
    pub fn record_results(&mut self, suite: &str, results: &Results) {
        for (job, outs) in &results.runs {
            let mut names: Vec<&String> = outs.iter().flat_map(|o| o.figures.keys()).collect();
            names.sort();
            names.dedup();
            for name in names {
                let reps: Vec<f64> = outs.iter().filter_map(|o| o.figures.get(name).copied()).collect();
                self.figures.push(json!({
                    "suite": suite, "peer": job.peer, "corpus": job.corpus, "param": job.param,
                    "figure": name, "median": results.median(job, name), "repetitions": reps,
                    "error": results.error(job),
                }));
            }
            if let Some(e) = results.error(job) {
                if outs.iter().all(|o| o.figures.is_empty()) {
                    self.figures.push(json!({"suite": suite, "peer": job.peer, "corpus": job.corpus,
                        "param": job.param, "error": e}));
                }
            }
        }
    }

    /// How many targets were met, missed and not measured, and the missed ones, at most
    /// `most_listed` of them (the terminal gets a screenful; the report lists all).
    pub fn summary(&self, most_listed: usize) -> String {
        let count = |met: Option<bool>| self.targets.iter().filter(|t| t.met == met).count();
        let mut text = format!(
            "{} targets: {} met, {} not met, {} not measured.\n",
            self.targets.len(),
            count(Some(true)),
            count(Some(false)),
            count(None)
        );
        let missed: Vec<&Target> = self.targets.iter().filter(|t| t.met == Some(false)).collect();
        if !missed.is_empty() {
            text.push_str("\nNot met:\n");
        }
        for t in missed.iter().take(most_listed) {
            let _ = writeln!(text, "- {}: {} ({})", t.suite, t.what, t.figure);
        }
        if missed.len() > most_listed {
            let _ = writeln!(text, "- ... and {} more (see the report's Targets table)", missed.len() - most_listed);
        }
        text
    }

    pub fn targets_table(&self) -> String {
        let mut t = Table::new(&["suite", "target", "result", "figure"]);
        for x in &self.targets {
            let result = match x.met {
                Some(true) => "met",
                Some(false) => "NOT MET",
                None => "not measured",
            };
            t.row(vec![x.suite.clone(), x.what.clone(), result.into(), x.figure.clone()]);
        }
        t.to_markdown()
    }

    pub fn json(&self, header: &Header) -> Value {
        json!({
            "header": header.to_json(),
            "figures": self.figures,
            "targets": self.targets.iter().map(|t| json!({
                "suite": t.suite, "target": t.what, "figure": t.figure, "met": t.met,
            })).collect::<Vec<_>>(),
        })
    }
}

/// The machine and build the figures came from.
pub struct Header {
    pub cpu: String,
    pub cores: usize,
    pub rustc: &'static str,
    pub versions: Vec<String>,
    pub date: String,
    pub mode: String,
}

impl Header {
    pub fn collect(cores: usize, quick: bool) -> Header {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        Header {
            cpu,
            cores,
            rustc: env!("BENCH_RUSTC_VERSION"),
            versions: env!("BENCH_PEER_VERSIONS").split(';').filter(|s| !s.is_empty()).map(String::from).collect(),
            date: utc_date_time(),
            mode: if quick { "--quick (inputs /10, fewer repetitions)".into() } else { "full".into() },
        }
    }

    pub fn to_markdown(&self) -> String {
        format!(
            "- CPU: {} ({} cores available)\n- Compiler: {} (release profile)\n- Crates: {}\n- Date: {}\n- Mode: {}\n",
            self.cpu,
            self.cores,
            self.rustc,
            self.versions.join(", "),
            self.date,
            self.mode
        )
    }

    fn to_json(&self) -> Value {
        json!({"cpu": self.cpu, "cores": self.cores, "rustc": self.rustc, "crates": self.versions,
            "date": self.date, "mode": self.mode})
    }
}

/// `YYYY-MM-DD HH:MM UTC` from the system clock (civil-from-days, no date crate).
fn utc_date_time() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let (h, m) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02} UTC")
}

/// A figure for a table cell: 3 significant digits, or "wrong"/"—".
pub fn fmt_num(v: Option<f64>) -> String {
    match v {
        None => "—".into(),
        Some(x) if !x.is_finite() => "—".into(),
        Some(x) => {
            let a = x.abs();
            if a >= 100.0 {
                format!("{x:.0}")
            } else if a >= 10.0 {
                format!("{x:.1}")
            } else if a >= 1.0 {
                format!("{x:.2}")
            } else {
                format!("{x:.3}")
            }
        }
    }
}

/// `peer ÷ dynatom` for a lower-is-better figure: above 1 means dynatom wins.
pub fn fmt_ratio(peer: Option<f64>, dynatom: Option<f64>) -> String {
    match (peer, dynatom) {
        (Some(p), Some(d)) if d != 0.0 && p.is_finite() && d.is_finite() => format!("{:.2}×", p / d),
        _ => "—".into(),
    }
}

/// A cell that shows why a peer has no figure.
pub fn cell(results: &Results, job: &Job, figure: &str) -> String {
    match results.error(job) {
        Some(_) => "wrong ✗".into(),
        None => fmt_num(results.median(job, figure)),
    }
}

/// Folds one check into a target's verdict: a miss wins over "not measured", which wins
/// over a pass.
pub fn combine(met: &mut Option<bool>, this: Option<bool>) {
    *met = match (*met, this) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (None, _) | (_, None) => None,
        _ => Some(true),
    };
}

/// The explanation of the ratio columns, said once per report.
pub const RATIO_NOTE: &str = "Ratios are *peer ÷ dynatom* for lower-is-better figures measured in the same run: \
above 1.00× dynatom is faster (or smaller). A cell reading `wrong ✗` means that peer's answer failed a check \
(distinct count or round trip) or its process crashed; such a peer never counts as the fastest.";

/// A target checked once per corpus on a pair of medians (ours, the bar): `holds` decides
/// each corpus, and the figure lists "corpus ours vs bar unit" for every one.
pub fn pairwise_target(
    rep: &mut Report,
    what: &str,
    corpora: &[String],
    unit: &str,
    pair: impl Fn(&str) -> (Option<f64>, Option<f64>),
    holds: impl Fn(f64, f64) -> bool,
) {
    let mut parts = Vec::new();
    let mut met = Some(true);
    for corpus in corpora {
        match pair(corpus) {
            (Some(ours), Some(bar)) => {
                combine(&mut met, Some(holds(ours, bar)));
                parts.push(format!("{corpus} {} vs {} {unit}", fmt_num(Some(ours)), fmt_num(Some(bar))));
            }
            _ => {
                combine(&mut met, None);
                parts.push(format!("{corpus} not measured"));
            }
        }
    }
    rep.target(what, parts.join("; "), met);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_and_numbers_format() {
        assert_eq!(fmt_ratio(Some(3.0), Some(2.0)), "1.50×");
        assert_eq!(fmt_num(Some(123.456)), "123");
        assert_eq!(fmt_num(Some(1.23456)), "1.23");
        assert_eq!(fmt_num(None), "—");
    }

    #[test]
    fn date_looks_like_a_date() {
        let d = utc_date_time();
        assert!(d.ends_with("UTC") && d.len() == 20, "{d}");
    }
}
