//! Aligned storage and the memory plan: every intermediate value gets an offset in one arena;
//! values whose lifetimes do not overlap share space.

use std::collections::{BTreeMap, BTreeSet};
use webnn_core::{Error, Result};

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
    /// A zeroed buffer of `len` bytes; an UnknownError if the memory cannot be allocated
    /// (`what` says what it was for).
    pub fn try_zeroed(len: usize, what: &str) -> Result<Self> {
        let mut words = Vec::new();
        words
            .try_reserve_exact(len.div_ceil(64))
            .map_err(|_| Error::unknown(format!("{what}: cannot allocate {len} bytes")))?;
        words.resize(len.div_ceil(64), Align64([0; 64]));
        Ok(AlignedBuf { words, len })
    }
    /// A zeroed buffer of `len` bytes, for tests (panics if it cannot be allocated).
    #[cfg(test)]
    pub fn zeroed(len: usize) -> Self {
        Self::try_zeroed(len, "test buffer").expect("test buffer")
    }
    /// A buffer holding a copy of `bytes`, for tests.
    #[cfg(test)]
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

/// Above this many values, [`plan_arena`] switches from the greedy placement (quadratic in the
/// number of values) to a simulation of a best-fit allocator (n log n).
const GREEDY_MAX_VALUES: usize = 2048;

/// Places values in one arena: returns each value's offset and the arena size. Values whose
/// lifetimes overlap never overlap in memory; the others may share space.
pub fn plan_arena(values: &[Lifetime]) -> (Vec<usize>, usize) {
    if values.len() <= GREEDY_MAX_VALUES {
        plan_greedy(values)
    } else {
        plan_best_fit(values)
    }
}

fn aligned(size: usize) -> usize {
    size.div_ceil(ALIGN) * ALIGN
}

/// Largest first, each at the lowest offset free during its whole lifetime: tight packing
/// for the graphs people build, but O(n²) in the number of values.
fn plan_greedy(values: &[Lifetime]) -> (Vec<usize>, usize) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[b].size.cmp(&values[a].size).then(a.cmp(&b)));
    let mut offsets = vec![0usize; values.len()];
    let mut placed: Vec<usize> = Vec::new();
    let mut total = 0;
    for i in order {
        let v = values[i];
        let size = aligned(v.size);
        // Regions of already-placed values live at the same time as v, sorted by offset.
        let mut busy: Vec<(usize, usize)> = placed
            .iter()
            .filter(|&&j| values[j].first <= v.last && v.first <= values[j].last)
            .map(|&j| (offsets[j], offsets[j] + aligned(values[j].size)))
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

/// Replays the steps in order with a best-fit free list: before step `s`, values last read
/// before `s` are freed; then the values step `s` writes are allocated. O(n log n).
fn plan_best_fit(values: &[Lifetime]) -> (Vec<usize>, usize) {
    let mut by_first: Vec<usize> = (0..values.len()).collect();
    by_first.sort_by_key(|&i| (values[i].first, std::cmp::Reverse(values[i].size)));
    let mut by_last: Vec<usize> = (0..values.len()).collect();
    by_last.sort_by_key(|&i| values[i].last);
    let mut free = FreeList::default();
    let mut offsets = vec![0usize; values.len()];
    let mut next_free = 0;
    for &i in &by_first {
        let step = values[i].first;
        while next_free < by_last.len() && values[by_last[next_free]].last < step {
            let j = by_last[next_free];
            free.release(offsets[j], aligned(values[j].size));
            next_free += 1;
        }
        offsets[i] = free.take(aligned(values[i].size));
    }
    (offsets, free.top)
}

/// Free blocks of the arena, by offset and by size, coalesced; `top` is the arena's end.
#[derive(Default)]
struct FreeList {
    by_offset: BTreeMap<usize, usize>,
    by_size: BTreeSet<(usize, usize)>,
    top: usize,
}

impl FreeList {
    fn insert(&mut self, offset: usize, size: usize) {
        self.by_offset.insert(offset, size);
        self.by_size.insert((size, offset));
    }

    fn remove(&mut self, offset: usize, size: usize) {
        self.by_offset.remove(&offset);
        self.by_size.remove(&(size, offset));
    }

    /// The smallest free block that fits, else the end of the arena (grown, reusing a free
    /// block that touches the end).
    fn take(&mut self, size: usize) -> usize {
        if size == 0 {
            return 0;
        }
        if let Some(&(block, offset)) = self.by_size.range((size, 0)..).next() {
            self.remove(offset, block);
            if block > size {
                self.insert(offset + size, block - size);
            }
            return offset;
        }
        if let Some((&offset, &block)) = self.by_offset.iter().next_back() {
            if offset + block == self.top {
                self.remove(offset, block);
                self.top = offset + size;
                return offset;
            }
        }
        let offset = self.top;
        self.top += size;
        offset
    }

    fn release(&mut self, mut offset: usize, mut size: usize) {
        if size == 0 {
            return;
        }
        if let Some((&prev, &prev_size)) = self.by_offset.range(..offset).next_back() {
            if prev + prev_size == offset {
                self.remove(prev, prev_size);
                offset = prev;
                size += prev_size;
            }
        }
        if let Some(&next_size) = self.by_offset.get(&(offset + size)) {
            self.remove(offset + size, next_size);
            size += next_size;
        }
        self.insert(offset, size);
    }
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

    /// Checks that values live at the same time never share bytes (a sweep over the steps).
    fn assert_disjoint(values: &[Lifetime], offsets: &[usize], total: usize) {
        let steps = values.iter().map(|v| v.last + 1).max().unwrap_or(0);
        let mut starts: Vec<Vec<usize>> = vec![Vec::new(); steps];
        for (i, v) in values.iter().enumerate() {
            starts[v.first].push(i);
        }
        let mut live: std::collections::BTreeMap<usize, usize> = Default::default(); // offset -> value
        for (s, born) in starts.iter().enumerate() {
            live.retain(|_, &mut i| values[i].last >= s);
            for &i in born {
                let (off, size) = (offsets[i], aligned(values[i].size));
                assert_eq!(off % ALIGN, 0);
                assert!(off + size <= total);
                if size == 0 {
                    continue;
                }
                if let Some((&o, &j)) = live.range(..off + size).next_back() {
                    assert!(o + aligned(values[j].size) <= off, "values {i} and {j} overlap at step {s}");
                }
                live.insert(off, i);
            }
        }
    }

    fn random_lifetimes(n: usize, steps: usize, seed: u64) -> Vec<Lifetime> {
        let mut rng = webnn_core::testing::Rng::from_state(seed);
        let mut next = move || rng.next_u64();
        (0..n)
            .map(|_| {
                let first = (next() % steps as u64) as usize;
                let span = (next() % 8) as usize;
                Lifetime { size: (next() % 5000) as usize, first, last: (first + span).min(steps - 1) }
            })
            .collect()
    }

    #[test]
    fn both_strategies_keep_live_values_apart() {
        for seed in 1..20 {
            let values = random_lifetimes(500, 120, seed);
            let (offsets, total) = plan_greedy(&values);
            assert_disjoint(&values, &offsets, total);
            let (offsets, total) = plan_best_fit(&values);
            assert_disjoint(&values, &offsets, total);
        }
    }

    /// Issue 10: 20,000 values live at once (e.g. one concat of 20,000 inputs) took 3.4 s to
    /// plan with the quadratic placement; the best-fit path handles them (and any count above
    /// GREEDY_MAX_VALUES) in n log n.
    #[test]
    fn many_simultaneously_live_values() {
        let n = 20_000;
        let values: Vec<Lifetime> = (0..n).map(|i| Lifetime { size: 100, first: i, last: n }).collect();
        let (offsets, total) = plan_arena(&values);
        assert_eq!(total, n * 128);
        assert_disjoint(&values, &offsets, total);
        let chain: Vec<Lifetime> = (0..n).map(|i| Lifetime { size: 4096, first: i, last: i + 1 }).collect();
        let (offsets, total) = plan_arena(&chain);
        assert_disjoint(&chain, &offsets, total);
        assert!(total <= 3 * 4096, "a chain reuses its space: {total}");
    }

    #[test]
    fn arena_allocation_failure_is_an_error() {
        let e = AlignedBuf::try_zeroed(usize::MAX - 1, "intermediates").err().expect("cannot allocate");
        assert_eq!(e.kind, webnn_core::ErrorKind::Unknown);
        assert!(e.message.contains("intermediates: cannot allocate"), "{}", e.message);
    }

    #[test]
    fn aligned_buffer_round_trip() {
        let b = AlignedBuf::from_bytes(&[1, 2, 3]);
        assert_eq!(b.as_bytes(), &[1, 2, 3]);
        assert_eq!(b.as_bytes().as_ptr() as usize % 64, 0);
    }
}
