//! The baseline any interner has to beat: a plain `HashMap<&str, u32>` whose keys point
//! into an append-only arena, plus a `Vec` of those keys for resolving.

use super::LocalInterner;
use std::collections::HashMap;

/// Arena chunks are filled, never grown, so text already in them never moves.
const CHUNK: usize = 64 * 1024;

pub struct ArenaMap {
    map: HashMap<&'static str, u32, rapidhash::RapidBuildHasher>,
    strings: Vec<&'static str>,
    chunks: Vec<String>,
}

impl ArenaMap {
    fn store(&mut self, s: &str) -> &'static str {
        let fits = self.chunks.last().is_some_and(|c| c.capacity() - c.len() >= s.len());
        if !fits {
            self.chunks.push(String::with_capacity(CHUNK.max(s.len())));
        }
        let chunk = self.chunks.last_mut().expect("a chunk was just ensured");
        let start = chunk.len();
        chunk.push_str(s); // within capacity: no reallocation
        let stored: &str = &chunk[start..];
        // SAFETY: the chunk's buffer is never reallocated (we only push within its
        // capacity) and chunks are dropped only with `self`, after `map` and `strings`
        // (field order), so the text outlives every `&'static str` handed out here;
        // none escapes `self` with a longer lifetime than `&self`.
        unsafe { std::mem::transmute::<&str, &'static str>(stored) }
    }
}

impl LocalInterner for ArenaMap {
    type Symbol = u32;
    const NAME: &'static str = "HashMap+arena";
    fn create() -> Self {
        ArenaMap { map: HashMap::default(), strings: Vec::new(), chunks: Vec::new() }
    }
    fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let stored = self.store(s);
        let id = self.strings.len() as u32;
        self.strings.push(stored);
        self.map.insert(stored, id);
        id
    }
    fn get(&self, s: &str) -> Option<u32> {
        self.map.get(s).copied()
    }
    fn resolve<'a>(&'a self, sym: &'a u32) -> &'a str {
        self.strings[*sym as usize]
    }
}
