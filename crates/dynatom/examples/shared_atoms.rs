//! Threads sharing atoms: every worker interns the same field names into the global
//! table and gets the same atoms, so a value made on one thread compares with one word
//! on another. When the last handle goes, the atom leaves the table, unless threads hit
//! it at the same moment and the table made it permanent: its handles then stop counting
//! (no shared write per clone or drop), and it stays.
//!
//! `cargo run -p dynatom --example shared_atoms`

use std::sync::mpsc;
use std::thread;

use dynatom::{Atom, AtomTable, SmallMap, Str};

const FIELDS: [&str; 4] = ["customer_identifier", "shipping_address", "billing_address", "order_total_cents"];

fn main() {
    let (send, receive) = mpsc::channel::<SmallMap<Atom, u64>>();
    let workers: Vec<_> = (0..4u64)
        .map(|worker| {
            let send = send.clone();
            thread::spawn(move || {
                // Each record's keys are interned on this thread, from text made here.
                for record in 0..100u64 {
                    let mut fields = SmallMap::new();
                    for (n, name) in FIELDS.iter().enumerate() {
                        let key = Str::from(name.to_string()).intern();
                        fields.insert(key, worker * 1000 + record * 10 + n as u64);
                    }
                    send.send(fields).expect("receiver alive");
                }
            })
        })
        .collect();
    drop(send);

    // The reader holds its own atoms for the same texts: lookups compare one word.
    let total = Atom::from("order_total_cents");
    let mut records = 0;
    let mut sum = 0;
    for fields in receive {
        records += 1;
        sum += fields[&total];
        assert!(fields.keys().all(|key| FIELDS.contains(&key.as_str())));
    }
    for worker in workers {
        worker.join().expect("worker finished");
    }

    println!("{records} records, sum of order totals {sum}");
    assert_eq!(records, 400);
    let expected: u64 = (0..4u64).flat_map(|w| (0..100u64).map(move |r| w * 1000 + r * 10 + 3)).sum();
    assert_eq!(sum, expected);

    // Only `total` is still held: the other field atoms have left the global table, but
    // for those the workers' contention made permanent.
    assert_eq!(Atom::lookup("order_total_cents"), Some(total.clone()));
    let mut permanent = 0;
    for name in FIELDS.iter().filter(|name| **name != "order_total_cents") {
        if let Some(atom) = Atom::lookup(name) {
            assert!(atom.is_permanent(), "{name} is held by nobody, so only permanence keeps it");
            permanent += 1;
        }
    }
    println!("{permanent} of the other field atoms were made permanent by contention");
    println!("{}", AtomTable::global().memory_report());
}
