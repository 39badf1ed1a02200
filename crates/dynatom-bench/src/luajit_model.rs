//! A model of LuaJIT 2.1's eager string interning (`lj_str_new`), the baseline for
//! "intern every string at creation" in the lazy-vs-eager suite.
//!
//! This is a *model*, not LuaJIT: it is written from the article on LuaJIT string interning in the project's
//! seeds ("LuaJIT String Interning": `lj_str_new` is quoted there, and `hash_sparse`,
//! the switch of long chains to `hash_dense` under `LUAJIT_SECURITY_STRHASH`, and the
//! doubling resize are described) and from our reading of LuaJIT 2.1's `lj_str.c` as we
//! remember it. The parts that matter for the cost are kept:
//!
//! - `hash_sparse` reads only a few 4-byte words (first, last, middle, quarter), so
//!   strings of equal length that differ elsewhere collide;
//! - lookups walk a chained table, `memcmp`ing every candidate of equal hash and length;
//! - a chain with more than `LJ_STR_MAXCOLL` collisions is rehashed with `hash_dense`
//!   (every byte of every string in the chain) and flagged, so every later string
//!   landing on that slot is hashed densely too;
//! - the table doubles when the number of strings exceeds its mask, relinking every
//!   string at once (and re-hashing those whose chain status changes).
//!
//! What is *not* modelled: the GC (an evicted string is unlinked at once here, which
//! keeps chains shorter than in LuaJIT, so the model errs in LuaJIT's favour), the
//! `GCstr` header layout, and unaligned-load details.

/// `LJ_STR_MAXCOLL` in LuaJIT 2.1.
const MAX_COLL: u32 = 32;
/// `LJ_MIN_STRTAB`: the initial table has 256 chains.
const MIN_TAB: usize = 256;
const NIL: u32 = u32::MAX;

type StrHash = u32;

fn get_u32(s: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([s[i], s[i + 1], s[i + 2], s[i + 3]])
}

/// The sparse hash: a handful of sampled words mixed lookup3-style.
pub fn hash_sparse(seed: u64, s: &[u8]) -> StrHash {
    let len = s.len();
    let mut h: StrHash = (len as u32) ^ (seed as u32);
    let (a, mut b);
    if len >= 4 {
        a = get_u32(s, 0);
        h ^= get_u32(s, len - 4);
        b = get_u32(s, (len >> 1) - 2);
        h ^= b;
        h = h.wrapping_sub(b.rotate_left(14));
        b = b.wrapping_add(get_u32(s, (len >> 2).saturating_sub(1)));
    } else if len > 0 {
        a = u32::from(s[0]);
        h ^= u32::from(s[len - 1]);
        b = u32::from(s[len >> 1]);
        h ^= b;
        h = h.wrapping_sub(b.rotate_left(14));
    } else {
        return h;
    }
    mix_tail(a, b, h).2
}

/// The mixing steps both hashes share (one macro in LuaJIT's C).
#[inline]
fn mix_tail(mut a: StrHash, mut b: StrHash, mut h: StrHash) -> (StrHash, StrHash, StrHash) {
    a ^= h;
    a = a.wrapping_sub(h.rotate_left(11));
    b ^= a;
    b = b.wrapping_sub(a.rotate_left(25));
    h ^= b;
    h = h.wrapping_sub(b.rotate_left(16));
    (a, b, h)
}

/// The dense hash: every byte, 12 at a time, with the same kind of mixing.
pub fn hash_dense(seed: u64, h0: StrHash, s: &[u8]) -> StrHash {
    let mut h = h0;
    let mut b: StrHash = (h ^ (seed >> 32) as u32).rotate_left(4).swap_bytes();
    let len = s.len();
    if len > 12 {
        let mut a: StrHash = seed as u32;
        let pe = len - 12;
        let (mut p, mut q) = (pe, 0usize);
        loop {
            a = a.wrapping_add(get_u32(s, p));
            b = b.wrapping_add(get_u32(s, p + 4));
            h = h.wrapping_add(get_u32(s, p + 8));
            p = q;
            q += 12;
            h ^= b;
            h = h.wrapping_sub(b.rotate_left(14));
            (a, b, h) = mix_tail(a, b, h);
            a ^= h;
            a = a.wrapping_sub(h.rotate_left(4));
            b ^= a;
            b = b.wrapping_sub(a.rotate_left(14));
            if p >= pe {
                break;
            }
        }
        h ^= b;
        h = h.wrapping_sub(b.rotate_left(24));
        b ^= h;
        b = b.wrapping_sub(h.rotate_left(14));
    }
    b
}

/// A `GCstr`: its hash, which hash made it, the next string of its chain, the bytes.
struct LjStr {
    hash: StrHash,
    dense: bool,
    next: u32,
    data: Box<[u8]>,
}

/// A string handed out by the model (an index, standing in for a `GCstr *`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StrId(u32);

/// The global string table of one `lua_State`.
pub struct StrTable {
    seed: u64,
    /// Chain heads; `dense[i]` is the low pointer bit LuaJIT sets on a rehashed chain.
    heads: Vec<u32>,
    dense: Vec<bool>,
    /// `g->str.second`: some chain uses the dense hash.
    second: bool,
    strings: Vec<Option<LjStr>>,
    free: Vec<u32>,
    num: usize,
    pub resizes: u32,
    pub chain_rehashes: u32,
}

impl Default for StrTable {
    fn default() -> Self {
        StrTable::new(0x5EED_1234_ABCD_0042)
    }
}

impl StrTable {
    pub fn new(seed: u64) -> StrTable {
        StrTable {
            seed,
            heads: vec![NIL; MIN_TAB],
            dense: vec![false; MIN_TAB],
            second: false,
            strings: Vec::new(),
            free: Vec::new(),
            num: 0,
            resizes: 0,
            chain_rehashes: 0,
        }
    }

    fn mask(&self) -> usize {
        self.heads.len() - 1
    }

    fn node(&self, id: u32) -> &LjStr {
        self.strings[id as usize].as_ref().expect("live string")
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.num
    }

    pub fn bytes(&self, id: StrId) -> &[u8] {
        &self.node(id.0).data
    }

    /// `lj_str_new`: find the string or create it.
    pub fn intern(&mut self, s: &[u8]) -> StrId {
        let mut hash = hash_sparse(self.seed, s);
        let mut dense = false;
        let mut slot = hash as usize & self.mask();
        if self.dense[slot] {
            dense = true;
            hash = hash_dense(self.seed, hash, s);
            slot = hash as usize & self.mask();
        }
        let mut coll = 0u32;
        let mut o = self.heads[slot];
        while o != NIL {
            let sx = self.node(o);
            if sx.hash == hash && sx.data.len() == s.len() {
                if *sx.data == *s {
                    return StrId(o);
                }
                coll += 1;
            }
            coll += 1;
            o = sx.next;
        }
        if coll > MAX_COLL && !dense {
            return self.rehash_chain(hash, s);
        }
        self.alloc(s, hash, dense)
    }

    /// `lj_str_rehash_chain`: flag the slot and move its strings to the dense hash.
    fn rehash_chain(&mut self, hashc: StrHash, s: &[u8]) -> StrId {
        self.chain_rehashes += 1;
        let mask = self.mask();
        let slot = hashc as usize & mask;
        let mut o = self.heads[slot];
        self.heads[slot] = NIL;
        self.dense[slot] = true;
        self.second = true;
        while o != NIL {
            let seed = self.seed;
            let sx = self.strings[o as usize].as_mut().expect("live string");
            let next = sx.next;
            if !sx.dense {
                sx.hash = hash_dense(seed, sx.hash, &sx.data);
                sx.dense = true;
            }
            let h = sx.hash as usize & mask;
            sx.next = self.heads[h];
            self.heads[h] = o;
            o = next;
        }
        self.intern(s)
    }

    /// `lj_str_alloc`: copy the bytes into a new object and link it; grow when full.
    fn alloc(&mut self, s: &[u8], hash: StrHash, dense: bool) -> StrId {
        let slot = hash as usize & self.mask();
        let node = LjStr { hash, dense, next: self.heads[slot], data: s.into() };
        let id = match self.free.pop() {
            Some(id) => {
                self.strings[id as usize] = Some(node);
                id
            }
            None => {
                self.strings.push(Some(node));
                self.strings.len() as u32 - 1
            }
        };
        self.heads[slot] = id;
        let was = self.num;
        self.num += 1;
        if was > self.mask() {
            self.resize(self.mask() * 2 + 1);
        }
        StrId(id)
    }

    /// `lj_str_resize`: double the table and relink every string at once.
    fn resize(&mut self, newmask: usize) {
        self.resizes += 1;
        let seed = self.seed;
        let old_heads = std::mem::replace(&mut self.heads, vec![NIL; newmask + 1]);
        let mut new_dense = vec![false; newmask + 1];
        if self.second {
            // Which new chains would be too long under the primary hash?
            let mut counts = vec![0u32; newmask + 1];
            for &head in &old_heads {
                let mut o = head;
                while o != NIL {
                    let sx = self.node(o);
                    let h = if sx.dense { hash_sparse(seed, &sx.data) } else { sx.hash };
                    counts[h as usize & newmask] += 1;
                    o = sx.next;
                }
            }
            for (d, c) in new_dense.iter_mut().zip(&counts) {
                *d = *c > MAX_COLL;
            }
            self.second = new_dense.iter().any(|&d| d);
        }
        for &head in &old_heads {
            let mut o = head;
            while o != NIL {
                let sx = self.strings[o as usize].as_mut().expect("live string");
                let next = sx.next;
                let slot = if !sx.dense {
                    let p = sx.hash as usize & newmask;
                    if new_dense[p] {
                        sx.hash = hash_dense(seed, sx.hash, &sx.data);
                        sx.dense = true;
                        sx.hash as usize & newmask
                    } else {
                        p
                    }
                } else {
                    let shash = hash_sparse(seed, &sx.data);
                    if new_dense[shash as usize & newmask] {
                        sx.hash as usize & newmask
                    } else {
                        sx.hash = shash;
                        sx.dense = false;
                        shash as usize & newmask
                    }
                };
                sx.next = self.heads[slot];
                self.heads[slot] = o;
                o = next;
            }
        }
        self.dense = new_dense;
    }

    /// The GC sweeping a dead string out of its chain (untimed in the suite).
    pub fn remove(&mut self, id: StrId) {
        let (hash, next) = {
            let sx = self.node(id.0);
            (sx.hash, sx.next)
        };
        let slot = hash as usize & self.mask();
        if self.heads[slot] == id.0 {
            self.heads[slot] = next;
        } else {
            let mut o = self.heads[slot];
            while o != NIL {
                let n = self.node(o).next;
                if n == id.0 {
                    self.strings[o as usize].as_mut().expect("live string").next = next;
                    break;
                }
                o = n;
            }
        }
        self.strings[id.0 as usize] = None;
        self.free.push(id.0);
        self.num -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_stored_through_growth_and_dense_chains() {
        let mut t = StrTable::default();
        // Similar strings: same length, differing in a byte the sparse hash skips.
        let base = vec![b'x'; 4096];
        let mut ids = Vec::new();
        for i in 0..1500usize {
            let mut v = base.clone();
            v[100 + i] = b'a' + (i % 26) as u8;
            v[101 + i] = b'0' + (i / 26 % 10) as u8;
            v[102 + i] = b'A' + (i / 260 % 26) as u8;
            ids.push((t.intern(&v), v));
        }
        assert!(t.chain_rehashes > 0, "similar strings must trigger the dense switch");
        assert!(t.resizes > 0);
        for (id, v) in &ids {
            assert_eq!(t.intern(v), *id);
            assert_eq!(t.bytes(*id), &v[..]);
        }
        let n = t.len();
        t.remove(ids[0].0);
        assert_eq!(t.len(), n - 1);
        assert_ne!(t.intern(&ids[0].1), ids[1].0);
    }

    #[test]
    fn sparse_hash_ignores_unsampled_bytes() {
        let a = vec![b'q'; 1000];
        let mut b = a.clone();
        b[300] = b'z';
        assert_eq!(hash_sparse(1, &a), hash_sparse(1, &b));
        assert_ne!(hash_dense(1, 0, &a), hash_dense(1, 0, &b));
    }
}
