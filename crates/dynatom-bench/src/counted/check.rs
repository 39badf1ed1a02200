//! `--check BASELINE.json`: compares a counted run with a saved one and names every
//! operation whose estimated cycles grew by more than 3%. A developer tool, not a test:
//! run it before stopping work on a hot path. Locked instructions are compared too, where
//! both runs counted them, but only noted: they never fail the check.

use super::{handles::TO_OWNED_OP, CountedRun, Row};

/// Growth that counts as a regression: more than 3%, and more than a quarter cycle (so a
/// figure near zero after the harness is subtracted cannot flag on rounding alone).
const RELATIVE: f64 = 0.03;
const ABSOLUTE: f64 = 0.25;

/// Whether a row is one of dynatom's types. Only those are compared: dynatom's rows count
/// the same on every run (fixed seeds), while several peers seed their hashers or place
/// their tables at random per process, which moves their counts by up to ~10% on the
/// smallest operations with no change at all.
pub fn is_dynatom(peer: &str) -> bool {
    peer.starts_with("dynatom") || ["SmallMap", "Str::from(&atom)", "StrBuilder"].contains(&peer)
}

/// Peers and operations renamed since older baselines were saved, as (name now, name
/// then): a baseline row under the old name is the same measurement.
const RENAMED: &[(&str, &str)] = &[("Str::from(&atom)", "Atom::to_str"), (TO_OWNED_OP, "to_str")];

fn name_then(now: &str) -> &str {
    RENAMED.iter().find(|(name, _)| *name == now).map_or(now, |(_, then)| then)
}

/// The baseline's row for `r`, under its name now or the name it had then.
fn baseline_row<'a>(baseline: &'a CountedRun, r: &Row) -> Option<&'a Row> {
    baseline
        .find(&r.suite, &r.op, &r.param, &r.peer)
        .or_else(|| baseline.find(&r.suite, name_then(&r.op), &r.param, name_then(&r.peer)))
}

/// Every dynatom operation of `current` whose estimated cycles grew past the bounds
/// against `baseline`, as (row now, figure before), worst first.
pub fn regressions<'a>(baseline: &CountedRun, current: &'a CountedRun) -> Vec<(&'a Row, f64)> {
    let mut grown: Vec<(&Row, f64)> = current
        .rows
        .iter()
        .filter(|r| is_dynatom(&r.peer))
        .filter_map(|r| {
            let before = baseline_row(baseline, r)?.estimated_cycles;
            let grew = r.estimated_cycles - before;
            (grew > ABSOLUTE && grew > RELATIVE * before.abs()).then_some((r, before))
        })
        .collect();
    grown.sort_by(|a, b| (b.0.estimated_cycles / b.1).total_cmp(&(a.0.estimated_cycles / a.1)));
    grown
}

/// Every dynatom operation of `current` that takes more locked instructions per operation
/// than in `baseline` (by more than half of one, so amortised fractions do not flag), as
/// (row now, locked instructions before). Baselines saved before the counted layer
/// collected them have none to compare.
pub fn more_locked<'a>(baseline: &CountedRun, current: &'a CountedRun) -> Vec<(&'a Row, f64)> {
    current
        .rows
        .iter()
        .filter(|r| is_dynatom(&r.peer))
        .filter_map(|r| {
            let before = baseline_row(baseline, r)?.locked_instructions?;
            (r.locked_instructions? > before + 0.5).then_some((r, before))
        })
        .collect()
}

/// Prints the comparison; returns whether nothing grew in estimated cycles.
pub fn check(baseline: &CountedRun, current: &CountedRun) -> bool {
    if baseline.quick != current.quick || baseline.caches != current.caches {
        eprintln!(
            "note: the baseline was counted with {} and caches {:?}; this run with {} and {:?} \
             (only operations present in both are compared)",
            if baseline.quick { "--quick" } else { "the full set" },
            baseline.caches,
            if current.quick { "--quick" } else { "the full set" },
            current.caches
        );
    }
    let compared = current.rows.iter().filter(|r| is_dynatom(&r.peer) && baseline_row(baseline, r).is_some()).count();
    let grown = regressions(baseline, current);
    for (r, before) in &grown {
        println!(
            "GREW {:+.1}%  {}: {:.2} → {:.2} est. cycles",
            100.0 * (r.estimated_cycles / before - 1.0),
            r.key(),
            before,
            r.estimated_cycles
        );
    }
    for (r, before) in more_locked(baseline, current) {
        println!(
            "note: more locked instructions  {}: {before:.2} → {:.2} per operation (not a failure)",
            r.key(),
            r.locked_instructions.unwrap_or_default()
        );
    }
    println!(
        "--check: {} of {compared} compared dynatom operations grew by more than {:.0}% in estimated cycles",
        grown.len(),
        RELATIVE * 100.0
    );
    grown.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, est: f64) -> Row {
        let peer = format!("dynatom {name}");
        Row {
            suite: "s".into(),
            op: "get".into(),
            param: "p".into(),
            peer,
            instructions: est,
            l1_misses: 0.0,
            ll_misses: 0.0,
            estimated_cycles: est,
            locked_instructions: Some(1.0),
        }
    }

    fn run(rows: Vec<Row>) -> CountedRun {
        CountedRun { rows, ..CountedRun::default() }
    }

    #[test]
    fn names_only_operations_that_grew_past_three_percent() {
        let before = run(vec![row("a", 100.0), row("b", 100.0), row("c", 100.0), row("tiny", 1.0)]);
        let now = run(vec![row("a", 103.0), row("b", 103.5), row("c", 50.0), row("tiny", 1.2), row("new", 5.0)]);
        let grown: Vec<&str> = regressions(&before, &now).iter().map(|(r, _)| r.peer.as_str()).collect();
        assert_eq!(grown, ["dynatom b"]);
    }

    #[test]
    fn peers_are_not_compared() {
        let mut before = run(vec![row("a", 100.0)]);
        let mut now = run(vec![row("a", 200.0)]);
        before.rows[0].peer = "hashbrown".into();
        now.rows[0].peer = "hashbrown".into();
        assert!(regressions(&before, &now).is_empty());
        assert!(is_dynatom("SmallMap") && is_dynatom("dynatom Interner") && !is_dynatom("ustr"));
    }

    #[test]
    fn renamed_rows_are_compared_with_their_old_names() {
        let renamed = |op: &str, peer: &str, est: f64| Row { op: op.into(), peer: peer.into(), ..row("x", est) };
        let before = run(vec![renamed("to_str", "Atom::to_str", 100.0)]);
        let now = run(vec![renamed(TO_OWNED_OP, "Str::from(&atom)", 110.0)]);
        let grown: Vec<&str> = regressions(&before, &now).iter().map(|(r, _)| r.peer.as_str()).collect();
        assert_eq!(grown, ["Str::from(&atom)"]);
    }

    /// counted.json files saved before locked instructions were collected still load, and
    /// compare on estimated cycles alone.
    #[test]
    fn baselines_without_locked_instructions_load_and_compare() {
        let old = r#"{"quick": false, "caches": [], "formula": "", "errors": [], "seconds": 1.0, "rows": [
            {"suite": "s", "op": "get", "param": "p", "peer": "dynatom a", "instructions": 100.0,
             "l1_misses": 0.0, "ll_misses": 0.0, "estimated_cycles": 100.0}]}"#;
        let before: CountedRun = serde_json::from_str(old).unwrap();
        assert_eq!(before.rows[0].locked_instructions, None);
        assert!(!before.has_locked_instructions());
        let now = run(vec![row("a", 101.0)]);
        assert!(regressions(&before, &now).is_empty());
        assert!(more_locked(&before, &now).is_empty());
    }

    #[test]
    fn more_locked_instructions_are_noted_but_do_not_regress() {
        let before = run(vec![row("a", 100.0), row("b", 100.0)]);
        let mut now = run(vec![row("a", 100.0), row("b", 100.0)]);
        now.rows[0].locked_instructions = Some(2.0);
        now.rows[1].locked_instructions = Some(1.3);
        let noted: Vec<&str> = more_locked(&before, &now).iter().map(|(r, _)| r.peer.as_str()).collect();
        assert_eq!(noted, ["dynatom a"]);
        assert!(regressions(&before, &now).is_empty());
    }

    #[test]
    fn worst_growth_comes_first() {
        let before = run(vec![row("a", 100.0), row("b", 100.0)]);
        let now = run(vec![row("a", 110.0), row("b", 150.0)]);
        let grown: Vec<&str> = regressions(&before, &now).iter().map(|(r, _)| r.peer.as_str()).collect();
        assert_eq!(grown, ["dynatom b", "dynatom a"]);
    }
}
