//! The child side: `--child SUITE PEER CORPUS PARAM [--quick] [--corpus FILE]` measures
//! one cell once and prints a `ChildOutput` as one JSON line on stdout.

use crate::corpus::Scale;
use crate::results::Job;
use crate::suites::{self, Ctx};

pub fn main(args: &[String]) -> i32 {
    let [suite, peer, corpus, param, rest @ ..] = args else {
        eprintln!("--child needs SUITE PEER CORPUS PARAM");
        return 2;
    };
    let Some(def) = suites::find(suite) else {
        eprintln!("unknown suite {suite:?}");
        return 2;
    };
    let mut scale = Scale::Full;
    let mut user_corpus = None;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => scale = Scale::Quick,
            "--corpus" => user_corpus = it.next().cloned(),
            other => {
                eprintln!("unknown child argument {other:?}");
                return 2;
            }
        }
    }
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let ctx = Ctx { scale, user_corpus, cores, out_dir: std::env::temp_dir() };
    let out = (def.child)(&Job::new(peer, corpus, param), &ctx);
    match serde_json::to_string(&out) {
        Ok(line) => {
            println!("{line}");
            0
        }
        Err(e) => {
            eprintln!("serialising the result: {e}");
            1
        }
    }
}
