//! Adapters for the owned string handles.

use super::StringHandle;
use std::ops::Range;
use std::sync::Arc;

pub type HipStr = hipstr::HipStr<'static>;

impl StringHandle for dynatom::Str {
    type Slice = dynatom::Str;
    const NAME: &'static str = "dynatom Str";
    fn from_str(s: &str) -> Self {
        dynatom::Str::from(s)
    }
    fn text(&self) -> &str {
        self.as_str()
    }
    fn slice(&self, r: Range<usize>) -> dynatom::Str {
        dynatom::Str::slice(self, r)
    }
    fn slice_text(s: &dynatom::Str) -> &str {
        s.as_str()
    }
}

impl StringHandle for String {
    type Slice = String;
    const NAME: &'static str = "String";
    fn from_str(s: &str) -> Self {
        String::from(s)
    }
    fn text(&self) -> &str {
        self
    }
    fn slice(&self, r: Range<usize>) -> String {
        String::from(&self[r])
    }
    fn slice_text(s: &String) -> &str {
        s
    }
}

impl StringHandle for Arc<str> {
    type Slice = Arc<str>;
    const NAME: &'static str = "Arc<str>";
    fn from_str(s: &str) -> Self {
        Arc::from(s)
    }
    fn text(&self) -> &str {
        self
    }
    fn slice(&self, r: Range<usize>) -> Arc<str> {
        Arc::from(&self[r])
    }
    fn slice_text(s: &Arc<str>) -> &str {
        s
    }
}

impl StringHandle for compact_str::CompactString {
    type Slice = compact_str::CompactString;
    const NAME: &'static str = "compact_str";
    fn from_str(s: &str) -> Self {
        compact_str::CompactString::new(s)
    }
    fn text(&self) -> &str {
        self.as_str()
    }
    fn slice(&self, r: Range<usize>) -> Self::Slice {
        compact_str::CompactString::new(&self[r])
    }
    fn slice_text(s: &Self::Slice) -> &str {
        s.as_str()
    }
}

impl StringHandle for smol_str::SmolStr {
    type Slice = smol_str::SmolStr;
    const NAME: &'static str = "smol_str";
    fn from_str(s: &str) -> Self {
        smol_str::SmolStr::new(s)
    }
    fn text(&self) -> &str {
        self.as_str()
    }
    fn slice(&self, r: Range<usize>) -> Self::Slice {
        smol_str::SmolStr::new(&self[r])
    }
    fn slice_text(s: &Self::Slice) -> &str {
        s.as_str()
    }
}

impl StringHandle for arcstr::ArcStr {
    /// arcstr shares the buffer through its own substring type.
    type Slice = arcstr::Substr;
    const NAME: &'static str = "arcstr";
    fn from_str(s: &str) -> Self {
        arcstr::ArcStr::from(s)
    }
    fn text(&self) -> &str {
        self.as_str()
    }
    fn slice(&self, r: Range<usize>) -> arcstr::Substr {
        self.substr(r)
    }
    fn slice_text(s: &arcstr::Substr) -> &str {
        s.as_str()
    }
}

impl StringHandle for HipStr {
    type Slice = HipStr;
    const NAME: &'static str = "hipstr";
    fn from_str(s: &str) -> Self {
        HipStr::from(s)
    }
    fn text(&self) -> &str {
        self.as_str()
    }
    fn slice(&self, r: Range<usize>) -> HipStr {
        HipStr::slice(self, r)
    }
    fn slice_text(s: &HipStr) -> &str {
        s.as_str()
    }
}

impl StringHandle for bytes::Bytes {
    type Slice = bytes::Bytes;
    const NAME: &'static str = "bytes::Bytes";
    fn from_str(s: &str) -> Self {
        bytes::Bytes::copy_from_slice(s.as_bytes())
    }
    fn text(&self) -> &str {
        // Only called by checks, never timed: the suites feed ASCII.
        std::str::from_utf8(self).expect("the suites only put UTF-8 in Bytes")
    }
    fn slice(&self, r: Range<usize>) -> bytes::Bytes {
        bytes::Bytes::slice(self, r)
    }
    fn slice_text(s: &bytes::Bytes) -> &str {
        std::str::from_utf8(s).expect("the suites only put UTF-8 in Bytes")
    }
}
