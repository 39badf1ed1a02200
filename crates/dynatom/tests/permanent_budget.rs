//! The global table's budget for permanent atoms: promotion stops at
//! `max(1 MiB, in-use bytes / 8)`. A file of its own, since the budget is the process's:
//! tests beside it that make atoms permanent would find it spent.

use dynatom::{Atom, AtomTable};

#[test]
fn promotion_stops_at_the_budget() {
    const MIB: usize = 1 << 20;
    // Atoms of about 1 KiB: the budget (1 MiB, or an eighth of the bytes in use when that
    // is more) is reached after about a thousand.
    let mut made = 0;
    let mut refused = None;
    for i in 0..100_000 {
        let atom = Atom::from(format!("{i:>1000}").as_str());
        if !atom.make_permanent() {
            refused = Some(atom);
            break;
        }
        made += 1;
    }
    let refused = refused.expect("promotion stopped");
    assert!(!refused.is_permanent());
    let report = AtomTable::global().memory_report();
    let in_use = report.header_bytes + report.char_bytes;
    let budget = MIB.max(in_use / 8);
    assert!(report.permanent_bytes >= MIB, "stopped early: {made} made, {report:?}");
    assert!(
        report.permanent_bytes <= budget + 64 * 1024,
        "past the budget by more than the atoms racing it: {made} made, {report:?}"
    );
    assert!(made >= 900, "{made}");
}
