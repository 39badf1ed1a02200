//! Criterion micro-benchmarks of the core operations, with `String`/`Arc<str>` beside
//! them for scale. The side-by-side report against peer crates is `dynatom-bench`.

use criterion::{BatchSize, BenchmarkId, Criterion, black_box, criterion_group, criterion_main};
use dynatom::{Atom, AtomTable, Str};
use std::sync::Arc;

const LENGTHS: [usize; 5] = [5, 15, 16, 64, 1024];

fn text_of(len: usize) -> String {
    "abcdefghijklmnopqrstuvwxyz".chars().cycle().take(len).collect()
}

fn construction(c: &mut Criterion) {
    let mut group = c.benchmark_group("from_str");
    for len in LENGTHS {
        let text = text_of(len);
        group.bench_with_input(BenchmarkId::new("Str", len), &text, |b, t| b.iter(|| Str::from(black_box(t.as_str()))));
        group.bench_with_input(BenchmarkId::new("String", len), &text, |b, t| {
            b.iter(|| String::from(black_box(t.as_str())))
        });
        group.bench_with_input(BenchmarkId::new("Arc<str>", len), &text, |b, t| {
            b.iter(|| Arc::<str>::from(black_box(t.as_str())))
        });
    }
    group.finish();
}

fn clone_and_eq(c: &mut Criterion) {
    let text = text_of(64);
    let s = Str::from(text.as_str());
    let twin = Str::from(text.as_str());
    let arc: Arc<str> = Arc::from(text.as_str());
    let atom = Atom::from(text.as_str());
    let atom_twin = Atom::from(text.as_str());
    let mut group = c.benchmark_group("handles_64B");
    group.bench_function("Str::clone", |b| b.iter(|| black_box(&s).clone()));
    group.bench_function("Arc<str>::clone", |b| b.iter(|| black_box(&arc).clone()));
    group.bench_function("Atom::clone", |b| b.iter(|| black_box(&atom).clone()));
    group.bench_function("Str::eq (different buffers)", |b| b.iter(|| black_box(&s) == black_box(&twin)));
    group.bench_function("Atom::eq", |b| b.iter(|| black_box(&atom) == black_box(&atom_twin)));
    group.finish();
}

fn interning(c: &mut Criterion) {
    let mut group = c.benchmark_group("intern");
    let table = AtomTable::with_seed(1);
    let present: Vec<String> = (0..1024).map(|i| format!("present_identifier_{i}")).collect();
    let _held: Vec<Atom> = present.iter().map(|t| table.intern(t)).collect();
    let mut next = 0;
    group.bench_function("hit", |b| {
        b.iter(|| {
            next = (next + 1) % present.len();
            table.intern(black_box(&present[next]))
        })
    });
    group.bench_function("miss (intern then drop)", |b| {
        let mut counter = 0u64;
        b.iter_batched(
            || {
                counter += 1;
                format!("missing_identifier_{counter}")
            },
            |text| table.intern(&text),
            BatchSize::SmallInput,
        )
    });
    let interned = Str::from(Str::from("an already interned string").intern());
    group.bench_function("re-intern of an interned Str", |b| b.iter(|| black_box(&interned).intern()));
    group.finish();
}

criterion_group!(benches, construction, clone_and_eq, interning);
criterion_main!(benches);
