//! Aligned storage and the memory plan: every intermediate value gets an offset in one arena;
//! values whose lifetimes do not overlap share space.

/// Alignment of every arena offset, in bytes (a cache line; enough for any SIMD load).
pub const ALIGN: usize = 64;

/// A heap buffer of bytes aligned to 64 bytes, zero-initialised.
#[derive(Clone, Default)]
pub struct AlignedBuf {
    words: Vec<Align64>,
    len: usize,
}

#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Align64([u8; 64]);

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes.
    pub fn zeroed(len: usize) -> Self {
        AlignedBuf { words: vec![Align64([0; 64]); len.div_ceil(64)], len }
    }
    /// A buffer holding a copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut b = Self::zeroed(bytes.len());
        b.as_bytes_mut().copy_from_slice(bytes);
        b
    }
    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &bytemuck_bytes(&self.words)[..self.len]
    }
    /// The bytes, mutable.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        let len = self.len;
        &mut bytemuck_bytes_mut(&mut self.words)[..len]
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Raw pointer to the first byte.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr() as *mut u8
    }
}

fn bytemuck_bytes(w: &[Align64]) -> &[u8] {
    // SAFETY: Align64 is a repr(C) array of u8 with no padding; any byte pattern is valid.
    unsafe { std::slice::from_raw_parts(w.as_ptr() as *const u8, w.len() * 64) }
}

fn bytemuck_bytes_mut(w: &mut [Align64]) -> &mut [u8] {
    // SAFETY: as above; the borrow is exclusive.
    unsafe { std::slice::from_raw_parts_mut(w.as_mut_ptr() as *mut u8, w.len() * 64) }
}

/// One value to place: its size and the step interval during which it is live
/// (`first` = producing step, `last` = last consuming step, inclusive).
#[derive(Debug, Clone, Copy)]
pub struct Lifetime {
    /// Size in bytes.
    pub size: usize,
    /// Index of the step that writes it.
    pub first: usize,
    /// Index of the last step that reads it.
    pub last: usize,
}

/// Places values in one arena: returns each value's offset and the arena size. Values whose
/// lifetimes overlap never overlap in memory; the others may share space (greedy, largest
/// first, lowest fitting offset).
pub fn plan_arena(values: &[Lifetime]) -> (Vec<usize>, usize) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].size.cmp(&values[a].size).then(a.cmp(&b)));
    let mut offsets = vec![0usize; values.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut total = 0;
    for i in order {
        let v = values[i];
        let size = v.size.div_ceil(ALIGN) * ALIGN;
        // Regions of already-placed values live at the same time as v, sorted by offset.
        let mut busy: Vec<(usize, usize)> = placed
            .iter()
            .filter(|&&j| values[j].first <= v.last && v.first <= values[j].last)
            .map(|&j| (offsets[j], offsets[j] + values[j].size.div_ceil(ALIGN) * ALIGN))
            .collect();
        busy.sort_unstable();
        let mut offset = 0;
        for (start, end) in busy {
            if offset + size <= start {
                break;
            }
            offset = offset.max(end);
        }
        offsets[i] = offset;
        total = total.max(offset + size);
        placed.push(i);
    }
    (offsets, total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_lifetimes_never_share_memory() {
        let values = [
            Lifetime { size: 100, first: 0, last: 1 },
            Lifetime { size: 64, first: 1, last: 2 },
            Lifetime { size: 100, first: 2, last: 3 },
            Lifetime { size: 10, first: 0, last: 3 },
        ];
        let (offsets, total) = plan_arena(&values);
        for i in 0..values.len() {
            assert_eq!(offsets[i] % ALIGN, 0);
            for j in 0..i {
                let (a, b) = (values[i], values[j]);
                if a.first <= b.last && b.first <= a.last {
                    let (ai, aj) = (offsets[i], offsets[j]);
                    assert!(ai + a.size <= aj || aj + b.size <= ai, "{i} and {j} overlap");
                }
            }
        }
        // Values 0 and 2 do not overlap in time, so they can share: less than the sum.
        assert!(total < 128 + 64 + 128 + 64);
    }

    #[test]
    fn aligned_buffer_round_trip() {
        let b = AlignedBuf::from_bytes(&[1, 2, 3]);
        assert_eq!(b.as_bytes(), &[1, 2, 3]);
        assert_eq!(b.as_bytes().as_ptr() as usize % 64, 0);
    }
}
