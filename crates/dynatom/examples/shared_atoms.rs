//! Threads sharing atoms: every worker interns the same field names into the global
//! table and gets the same atoms, so a value made on one thread compares with one word
//! on another. When the last handle goes, the atom leaves the table.
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

    // Only `total` is still held: the other field atoms have left the global table.
    assert_eq!(Atom::lookup("order_total_cents"), Some(total.clone()));
    assert_eq!(Atom::lookup("shipping_address"), None);
    println!("{}", AtomTable::global().memory_report());
}
