//! serde round trip keeps every symbol.
#![cfg(feature = "serde")]

use dynatom::interner::{Interner, Symbol, SyncInterner};

#[test]
fn interner_round_trip() {
    let mut i = Interner::new();
    let kw = i.intern_static("fn");
    let syms: Vec<(Symbol, String)> = (0..500)
        .map(|n| {
            let s = format!("name{n}\u{e9}");
            (i.intern(&s), s)
        })
        .collect();
    let empty = i.intern("");
    let json = serde_json::to_string(&i).unwrap();
    let back: Interner = serde_json::from_str(&json).unwrap();
    assert_eq!(back.len(), i.len());
    assert_eq!(back.resolve(kw), "fn");
    assert_eq!(back.resolve(empty), "");
    for (sym, s) in &syms {
        assert_eq!(back.resolve(*sym), s);
        assert_eq!(back.get(s), Some(*sym));
    }
    // Symbols serialise as their index.
    let sj = serde_json::to_string(&syms[3].0).unwrap();
    assert_eq!(sj, "4");
    assert_eq!(serde_json::from_str::<Symbol>(&sj).unwrap(), syms[3].0);
    assert!(serde_json::from_str::<Interner>(r#"["a","b","a"]"#).is_err());
}

#[test]
fn sync_round_trip() {
    let i = SyncInterner::new();
    let syms: Vec<Symbol> = (0..300).map(|n| i.intern(n.to_string())).collect();
    let json = serde_json::to_string(&i).unwrap();
    let back: SyncInterner = serde_json::from_str(&json).unwrap();
    let r = back.freeze();
    for (n, sym) in syms.iter().enumerate() {
        assert_eq!(r.resolve(*sym), n.to_string());
    }
    assert_eq!(serde_json::to_string(&r).unwrap(), json);
    let single: Interner = serde_json::from_str(&json).unwrap();
    assert_eq!(single.resolve(syms[42]), "42");
}
