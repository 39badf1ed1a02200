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

    /// How many targets were met, missed and not measured, and every missed one: the
    /// report's own summary, where nothing is cut (the terminal gets [`Report::screen`]).
    pub fn summary(&self) -> String {
        let mut text = format!("{}.\n", self.counts());
        let missed: Vec<&Target> = self.targets.iter().filter(|t| t.met == Some(false)).collect();
        if !missed.is_empty() {
            text.push_str("\nNot met:\n");
        }
        for t in missed {
            let _ = writeln!(text, "- {}: {} ({})", t.suite, t.what, t.figure);
        }
        text
    }

    fn counts(&self) -> String {
        let count = |met: Option<bool>| self.targets.iter().filter(|t| t.met == met).count();
        format!(
            "{} targets: {} met, {} not met, {} not measured",
            self.targets.len(),
            count(Some(true)),
            count(Some(false)),
            count(None)
        )
    }

    /// What the terminal gets at the end of a run: one screen (at most [`SCREEN_LINES`]
    /// lines of at most [`SCREEN_COLUMNS`] characters) with the counts, the misses and wins
    /// furthest from parity, and where the whole report is. Each target is cut to one line;
    /// the report's Targets table has every one in full.
    pub fn screen(&self, elapsed_s: f64, report_path: &str) -> String {
        let mut lines = vec![fit(&format!("dynatom benchmark report ({elapsed_s:.0} s): {}", self.counts()))];
        let not_measured = self.targets.iter().filter(|t| t.met.is_none()).count();
        // The header, three blank lines, two list headings, the not-measured line and the
        // report's path take eight lines; the targets listed get the rest.
        let room = SCREEN_LINES - 8;
        let misses = self.furthest(Some(false));
        let wins = self.furthest(Some(true));
        // Misses come first and take half the room, or more when there are few wins.
        let miss_room = misses.len().min(room - wins.len().min(room / 2));
        let win_room = wins.len().min(room - miss_room);
        for (title, list, shown) in [("Largest misses", &misses, miss_room), ("Largest wins", &wins, win_room)] {
            if list.is_empty() {
                continue;
            }
            lines.push(String::new());
            lines.push(fit(&format!(
                "{title} ({shown} of {}; each figure's first ratio, furthest from 1× first):",
                list.len()
            )));
            for t in list.iter().take(shown) {
                // The ratio the ranking read leads, so that the cut falls on the target's words.
                let line = match first_ratio(&t.figure) {
                    Some((_, text)) => format!("- {text} {}: {}", t.suite, t.what),
                    None => format!("- {}: {} ({})", t.suite, t.what, t.figure),
                };
                lines.push(fit(&line));
            }
        }
        lines.push(String::new());
        if not_measured > 0 {
            lines.push(fit(&format!("{not_measured} not measured; every target in full: the report's Targets table")));
        } else {
            lines.push(fit("Every target in full: the report's Targets table"));
        }
        lines.push(format!("Report: {report_path}"));
        lines.join("\n") + "\n"
    }

    /// The targets with this verdict, the figure whose first ratio lies furthest from 1×
    /// first (how far past its bar or short of it a target landed, as near as one string
    /// tells); those that name no ratio keep the report's order, after the rest.
    fn furthest(&self, met: Option<bool>) -> Vec<&Target> {
        let mut list: Vec<&Target> = self.targets.iter().filter(|t| t.met == met).collect();
        let distance = |t: &Target| first_ratio(&t.figure).map_or(-1.0, |(r, _)| r.ln().abs());
        list.sort_by(|a, b| distance(b).total_cmp(&distance(a)));
        list
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

/// The most lines [`Report::screen`] prints.
pub const SCREEN_LINES: usize = 30;
/// The most characters in one of [`Report::screen`]'s lines (the report's path aside).
pub const SCREEN_COLUMNS: usize = 100;

/// `line` cut to [`SCREEN_COLUMNS`] characters (not bytes: `×` and `≤` take one column),
/// ending in `…` when cut.
fn fit(line: &str) -> String {
    if line.chars().count() <= SCREEN_COLUMNS {
        return line.to_string();
    }
    let mut cut: String = line.chars().take(SCREEN_COLUMNS - 1).collect();
    cut.push('…');
    cut
}

/// The first `N×` in a figure (`1.30× (27.5 vs 21.1 ns)`), the ratio most targets state
/// first, as a number and as written.
fn first_ratio(figure: &str) -> Option<(f64, &str)> {
    let end = figure.find('×')?;
    let start = figure[..end].rfind(|c: char| !(c.is_ascii_digit() || c == '.')).map_or(0, |i| i + 1);
    let ratio = figure[start..end].parse::<f64>().ok().filter(|r| *r > 0.0 && r.is_finite())?;
    Some((ratio, &figure[start..end + '×'.len_utf8()]))
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

    /// The targets of the run BENCHMARKS.md records, read back from its Targets table.
    fn recorded_run() -> Report {
        let md = include_str!("../../../docs/bench/report.md");
        let table = md.split("\n## Targets\n").nth(1).expect("the recorded report has a Targets table");
        let mut report = Report::default();
        for row in table.lines().skip_while(|l| !l.starts_with("|---")).skip(1).take_while(|l| l.starts_with('|')) {
            let cells: Vec<&str> = row.trim_matches('|').split(" | ").map(str::trim).collect();
            let met = match cells[2] {
                "met" => Some(true),
                "NOT MET" => Some(false),
                _ => None,
            };
            report.targets.push(Target { suite: cells[0].into(), what: cells[1].into(), figure: cells[3].into(), met });
        }
        report
    }

    fn assert_one_screen(text: &str) {
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() <= SCREEN_LINES, "{} lines:\n{text}", lines.len());
        for line in lines {
            assert!(line.chars().count() <= SCREEN_COLUMNS, "{} columns: {line}", line.chars().count());
        }
    }

    #[test]
    fn the_screen_summary_of_a_recorded_run_fits_one_screen() {
        let report = recorded_run();
        assert!(report.targets.len() >= 40, "only {} targets read back", report.targets.len());
        let text = report.screen(386.0, "target/dynatom-report/report.md");
        assert_one_screen(&text);
        let missed = report.targets.iter().filter(|t| t.met == Some(false)).count();
        let met = report.targets.iter().filter(|t| t.met == Some(true)).count();
        assert!(text.lines().next().unwrap().contains(&format!("{met} met, {missed} not met")), "{text}");
        assert!(text.contains("Largest misses") && text.contains("Largest wins"), "{text}");
        assert!(text.trim_end().ends_with("Report: target/dynatom-report/report.md"), "{text}");
        // The full summary in report.md still names every miss.
        assert_eq!(report.summary().lines().filter(|l| l.starts_with("- ")).count(), missed);
    }

    #[test]
    fn the_screen_summary_ranks_by_distance_from_parity_and_fits_any_count() {
        let mut report = Report::default();
        let long = "a figure long enough to need cutting: ".repeat(5);
        for i in 0..200 {
            let ratio = 1.0 + f64::from(i) / 100.0;
            report.targets.push(Target {
                suite: "a-suite-with-a-long-name".into(),
                what: format!("target number {i} ≤1.2× its bar"),
                figure: format!("{ratio:.2}× ({long})"),
                met: [Some(true), Some(false), None][i as usize % 3],
            });
        }
        let text = report.screen(1.0, "target/dynatom-report/report.md");
        assert_one_screen(&text);
        // The furthest from 1× come first: target 199 (2.99×) is a miss, 198 (2.98×) a win.
        let first_under = |heading: &str| text.lines().skip_while(|l| !l.starts_with(heading)).nth(1).unwrap();
        assert!(first_under("Largest misses").contains("number 199 "), "{text}");
        assert!(first_under("Largest wins").contains("number 198 "), "{text}");
        assert_eq!(text.lines().filter(|l| l.starts_with("- ")).count(), SCREEN_LINES - 8);
        assert_one_screen(&Report::default().screen(0.0, "report.md"));
    }

    #[test]
    fn first_ratio_reads_the_first_multiplier() {
        assert_eq!(first_ratio("1.30× (27.5 vs 21.1 ns)"), Some((1.30, "1.30×")));
        assert_eq!(first_ratio("identifiers 1.19× vs ustr; words 0.98×"), Some((1.19, "1.19×")));
        assert_eq!(first_ratio("1.00 allocations per path"), None);
    }

    #[test]
    fn date_looks_like_a_date() {
        let d = utc_date_time();
        assert!(d.ends_with("UTC") && d.len() == 20, "{d}");
    }
}
