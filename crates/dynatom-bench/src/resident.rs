//! Resident memory as a user feels it: the `RssAnon` line of `/proc/self/status` (anonymous
//! pages the process holds in RAM: malloc's heap and arenas, and anything an interner maps
//! itself), read after glibc's `malloc_trim(0)`, so that free heap pages malloc still holds
//! are handed back first and only memory in use is counted. The same measure for every
//! peer, however it gets its memory.
//!
//! A measurement takes one reading before the intern loop and one after, in a fresh child.
//! Whatever the loop writes that is not the interner's (the vector of handles) is made
//! resident before the first reading with [`prefault_spare_capacity`], so the delta leaves
//! it out whatever its size (subtracting `len × size_of` instead would be wrong for a small
//! vector that shares already-resident heap pages).
//!
//! The inputs need the same care. Generating a corpus frees many string-sized blocks
//! between the ones it keeps (a dedup set's copies, say); `malloc_trim` cannot hand back a
//! page that a live string shares, so those holes stay resident, and an interner that
//! mallocs one block per string would fill them unseen while one that maps its own memory
//! would not. [`PackedTexts`] copies the inputs into one block so that the corpus's own
//! allocations can all be freed before the first reading: then the freed memory coalesces
//! into whole pages, the trim hands them back, and whatever reuses them is counted.

use std::mem::MaybeUninit;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" {
    /// glibc: returns the free memory at the top of the heap and every free page inside
    /// the arenas to the kernel (`MADV_DONTNEED`).
    fn malloc_trim(pad: usize) -> i32;
}

/// Hands glibc's free heap pages back to the kernel (a no-op with another libc: the
/// readings then include whatever that allocator keeps).
fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim takes no pointers and is safe to call at any time.
    unsafe {
        malloc_trim(0);
    }
}

/// `RssAnon` of this process in bytes after trimming the heap; `None` where there is no
/// `/proc/self/status` with that line (not Linux).
pub fn resident_anon_bytes() -> Option<usize> {
    trim_heap();
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_rss_anon(&status)
}

/// `RssFile` of this process in bytes: the pages of mapped files it has resident, which
/// `RssAnon` leaves out (they belong to the page cache and can be dropped and read back
/// from the file at any time). `None` where there is no such line.
pub fn resident_file_bytes() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_status_kib(&status, "RssFile:")
}

/// The `RssAnon:   1234 kB` line of a `/proc/<pid>/status` text, in bytes.
fn parse_rss_anon(status: &str) -> Option<usize> {
    parse_status_kib(status, "RssAnon:")
}

/// A `Field:   1234 kB` line of a `/proc/<pid>/status` text, in bytes.
fn parse_status_kib(status: &str, field: &str) -> Option<usize> {
    let line = status.lines().find_map(|l| l.strip_prefix(field))?;
    let kib: usize = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// Strings copied end to end into one block (see the module docs for why).
pub struct PackedTexts {
    text: String,
    /// Where each string ends in `text`.
    ends: Vec<usize>,
}

impl PackedTexts {
    pub fn new<'a>(strings: impl IntoIterator<Item = &'a str>) -> PackedTexts {
        let mut packed = PackedTexts { text: String::new(), ends: Vec::new() };
        for s in strings {
            packed.text.push_str(s);
            packed.ends.push(packed.text.len());
        }
        packed.text.shrink_to_fit();
        packed.ends.shrink_to_fit();
        packed
    }

    /// The strings, in order.
    pub fn strs(&self) -> Vec<&str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.text[start..end]).collect()
    }
}

/// Writes zeros into every unused slot of `v`, so that its pages are resident before a
/// reading and the pushes that follow fault nothing in (`Vec::with_capacity` alone maps
/// pages the kernel has not backed yet).
pub fn prefault_spare_capacity<T>(v: &mut Vec<T>) {
    let spare = v.spare_capacity_mut();
    for slot in spare.iter_mut() {
        *slot = MaybeUninit::zeroed();
    }
    // The zeros are never read, so the optimizer may drop them as dead stores (it did,
    // once this was inlined into a test that frees the vector unread): the pages must be
    // touched all the same.
    std::hint::black_box(spare.as_mut_ptr());
}

/// Resident bytes the loop added per atom beyond the atoms' characters, from the readings
/// before and after; `None` when either reading is missing.
pub fn per_atom_beyond_chars(before: Option<usize>, after: Option<usize>, atoms: usize, chars: usize) -> Option<f64> {
    let (before, after) = (before?, after?);
    Some((after as f64 - before as f64 - chars as f64) / atoms.max(1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_rss_anon_line() {
        let status = "Name:\tx\nVmRSS:\t  9000 kB\nRssAnon:\t    1234 kB\nRssFile:\t  77 kB\n";
        assert_eq!(parse_rss_anon(status), Some(1234 * 1024));
        assert_eq!(parse_rss_anon("VmRSS:\t 1 kB\n"), None);
        assert_eq!(parse_status_kib(status, "RssFile:"), Some(77 * 1024));
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn a_touched_allocation_shows_in_the_reading() {
        let before = resident_anon_bytes().expect("Linux has RssAnon");
        let mut block: Vec<u8> = Vec::with_capacity(64 << 20);
        prefault_spare_capacity(&mut block);
        let after = resident_anon_bytes().expect("Linux has RssAnon");
        assert!(after >= before + (48 << 20), "{before} -> {after}");
        drop(block);
    }

    #[test]
    fn packed_texts_give_back_every_string_in_order() {
        let packed = PackedTexts::new(["ab", "", "cde", "ünï"]);
        assert_eq!(packed.strs(), ["ab", "", "cde", "ünï"]);
        assert!(PackedTexts::new([]).strs().is_empty());
    }

    #[test]
    fn the_per_atom_figure_leaves_out_the_characters() {
        assert_eq!(per_atom_beyond_chars(Some(1000), Some(5000), 100, 2000), Some(20.0));
        assert_eq!(per_atom_beyond_chars(None, Some(5000), 100, 2000), None);
    }
}
