//! [`Rng`]: xorshift64* (Vigna 2016), small, fast and deterministic on every platform.

/// The odd 64-bit constant (2^64 / golden ratio) that spreads seeds over the state space.
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// A deterministic pseudo-random generator: xorshift64* (state shifts 12, 25, 27; output
/// multiplied by 0x2545_F491_4F6C_DD1D). The same seed gives the same stream everywhere, so
/// tests are reproducible; it is not for anything that needs unpredictability.
#[derive(Debug, Clone)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// A generator for a small seed: the state is `seed × GOLDEN | 1` (never zero), so
    /// neighbouring seeds give unrelated streams.
    pub fn new(seed: u64) -> Self {
        Rng { state: seed.wrapping_mul(GOLDEN) | 1 }
    }

    /// A generator whose state is `state` itself (zero, which would only ever give zeros, is
    /// replaced by `0x9E37_79B9_7F4A_7C15`). The CLI's documented fill rule uses this.
    pub fn from_state(state: u64) -> Self {
        Rng { state: if state == 0 { GOLDEN } else { state } }
    }

    /// The next 64-bit value.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// `next_u64() % n`: in `0..n` (`n > 0`; the modulo bias is negligible for small `n`).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `lo + below(hi − lo + 1)`: an integer in `[lo, hi]` (`lo <= hi`).
    #[inline]
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }

    /// Uniform in `[0, 1)` with 53 bits of resolution.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)` (53 bits of resolution).
    #[inline]
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in `[lo, hi)` as f32, from the top 24 bits of the next value (every value of
    /// `[0, 1)` that step is exact in f32).
    #[inline]
    pub fn uniform_f32(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    /// `n` values uniform in `[lo, hi)` ([`Rng::uniform`]).
    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }

    /// `n` f32 values uniform in `[lo, hi)` ([`Rng::uniform_f32`]).
    pub fn vec_f32(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.uniform_f32(lo, hi)).collect()
    }

    /// Fills `out` with f32 values uniform in `[lo, hi)` ([`Rng::uniform_f32`]).
    pub fn fill_f32(&mut self, out: &mut [f32], lo: f32, hi: f32) {
        for v in out {
            *v = self.uniform_f32(lo, hi);
        }
    }

    /// Shuffles `v` in place (Fisher–Yates, drawing `below(i + 1)` from the last index down).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_pinned() {
        // The CLI's documented fill stream (webnn-cli/src/fill.rs pins the same value).
        assert_eq!(Rng::from_state(1).next_u64(), 0x47E4_CE4B_896C_DD1D);
        assert_eq!(Rng::from_state(0).next_u64(), Rng::from_state(GOLDEN).next_u64());
        let mut a = Rng::new(7);
        let mut b = Rng::from_state(7u64.wrapping_mul(GOLDEN) | 1);
        for _ in 0..10 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
    }

    #[test]
    fn ranges_hold() {
        let mut r = Rng::new(3);
        for _ in 0..10_000 {
            let x = r.uniform(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&x));
            let y = r.uniform_f32(-1.0, 1.0);
            assert!((-1.0..1.0).contains(&y));
            assert!(r.below(7) < 7);
            assert!((-3..=4).contains(&r.int(-3, 4)));
        }
        let mut v: Vec<u32> = (0..100).collect();
        r.shuffle(&mut v);
        v.sort_unstable();
        assert_eq!(v, (0..100).collect::<Vec<_>>());
        let mut f = [0f32; 5];
        r.fill_f32(&mut f, 2.0, 4.0);
        assert!(f.iter().all(|x| (2.0..4.0).contains(x)));
        assert_eq!(r.vec(4, 0.0, 1.0).len(), 4);
        assert_eq!(r.vec_f32(3, 0.0, 1.0).len(), 3);
    }
}
