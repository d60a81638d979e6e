//! Deterministic values: inputs that `run` and `bench` were not given, and the seeded weights
//! of the built-in models.
//!
//! The rule for inputs (documented in `webnn run --help` and bench/README.md):
//! - the generator is xorshift64* seeded with the 64-bit FNV-1a hash of the input name (a zero
//!   hash is replaced by a fixed non-zero constant);
//! - each element takes the next 64-bit output `x`; floats (float32, float16) are
//!   `(x >> 40) / 2^24 * 2 - 1`, uniform in [-1, 1); integer types are `x % 10`, in 0..10.

use half::f16;
use webnn::{DataType, OperandDescriptor};
use webnn_core::testing::Rng;

/// The fill generator: xorshift64* (Vigna 2016), the workspace's test generator
/// (`webnn_core::testing::Rng`) seeded with its raw state.
#[derive(Debug, Clone)]
pub struct XorShift(Rng);

impl XorShift {
    /// A generator with the given seed (0 is replaced by a fixed non-zero value).
    pub fn new(seed: u64) -> Self {
        XorShift(Rng::from_state(seed))
    }

    /// A generator seeded by the FNV-1a hash of `name`.
    pub fn from_name(name: &str) -> Self {
        XorShift::new(fnv1a(name.as_bytes()))
    }

    /// The next 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [-1, 1), with 24 bits of resolution (exact in f32).
    pub fn next_signed_unit(&mut self) -> f32 {
        self.0.uniform_f32(-1.0, 1.0)
    }
}

/// 64-bit FNV-1a.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The bytes of input `name` filled by the documented rule.
pub fn input_bytes(name: &str, desc: &OperandDescriptor) -> Vec<u8> {
    let mut rng = XorShift::from_name(name);
    let n = desc.element_count() as usize;
    let mut out = Vec::with_capacity(n * desc.data_type.byte_size());
    for _ in 0..n {
        match desc.data_type {
            DataType::Float32 => out.extend_from_slice(&rng.next_signed_unit().to_le_bytes()),
            DataType::Float16 => out.extend_from_slice(&f16::from_f32(rng.next_signed_unit()).to_le_bytes()),
            dt => {
                let v = rng.next_u64() % 10;
                out.extend_from_slice(&v.to_le_bytes()[..dt.byte_size()]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_is_deterministic_per_name_and_in_range() {
        let desc = OperandDescriptor::new(DataType::Float32, [1000]);
        let a = input_bytes("x", &desc);
        assert_eq!(a, input_bytes("x", &desc));
        assert_ne!(a, input_bytes("y", &desc));
        let values: Vec<f32> = a.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        assert!(values.iter().all(|v| (-1.0..1.0).contains(v)));
        let mean = values.iter().sum::<f32>() / values.len() as f32;
        assert!(mean.abs() < 0.1, "{mean}");
        assert!(values.iter().any(|&v| v < -0.9) && values.iter().any(|&v| v > 0.9));
    }

    #[test]
    fn integers_are_in_0_to_10_with_the_right_width() {
        for dt in DataType::ALL {
            let desc = OperandDescriptor::new(dt, [2, 50]);
            let bytes = input_bytes("ids", &desc);
            assert_eq!(bytes.len(), 100 * dt.byte_size(), "{dt:?}");
            if !dt.is_float() {
                for c in bytes.chunks_exact(dt.byte_size()) {
                    let mut v = [0u8; 8];
                    v[..c.len()].copy_from_slice(c);
                    assert!(u64::from_le_bytes(v) < 10, "{dt:?}");
                }
            }
        }
    }

    /// The documented rule, written out independently of the shared generator: `input_bytes`
    /// must keep producing exactly these bytes.
    #[test]
    fn input_bytes_follow_the_documented_rule() {
        for (name, dt) in [("x", DataType::Float32), ("input_ids", DataType::Int64), ("h", DataType::Float16)] {
            let desc = OperandDescriptor::new(dt, [3, 1000]);
            let mut state = match fnv1a(name.as_bytes()) {
                0 => 0x9E37_79B9_7F4A_7C15,
                h => h,
            };
            let mut expected = Vec::new();
            for _ in 0..3000 {
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                let x = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
                let unit = (x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
                match dt {
                    DataType::Float32 => expected.extend_from_slice(&unit.to_le_bytes()),
                    DataType::Float16 => expected.extend_from_slice(&f16::from_f32(unit).to_le_bytes()),
                    _ => expected.extend_from_slice(&(x % 10).to_le_bytes()[..dt.byte_size()]),
                }
            }
            assert_eq!(input_bytes(name, &desc), expected, "{name}");
        }
    }

    #[test]
    fn known_values() {
        // FNV-1a test vectors.
        assert_eq!(fnv1a(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(b"a"), 0xaf63dc4c8601ec8c);
        // Pinned so that the documented rule does not drift.
        let mut r = XorShift::new(1);
        assert_eq!(r.next_u64(), 0x47E4_CE4B_896C_DD1D);
        assert_eq!(XorShift::new(0).next_u64(), XorShift::new(0x9E37_79B9_7F4A_7C15).next_u64());
    }
}
