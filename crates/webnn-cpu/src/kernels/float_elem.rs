//! f32/f16 element conversion: [`FloatElem`] (float16 is computed in f32, or f64 where a kernel
//! accumulates in f64, and rounded once when written), and float operands widened to f32.

use super::scratch::try_zeroed;
use half::f16;
use webnn_core::DataType;

/// A float element type computed in f32 or f64 (f32 itself, or f16 rounded once on store).
pub trait FloatElem: bytemuck::Pod + PartialOrd + Send + Sync + 'static {
    /// Widens to f32.
    fn to_f32(self) -> f32;
    /// Rounds from f32 (round to nearest even).
    fn from_f32(v: f32) -> Self;
    /// Widens to f64 (exact, as is the widening to f32).
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self.to_f32() as f64
    }
    /// Rounds once from f64 (round to nearest even).
    fn from_f64(v: f64) -> Self;
    /// The slice itself when the type is f32.
    fn as_f32(_: &[Self]) -> Option<&[f32]> {
        None
    }
    /// Converts a slice to f32 (`dst.len() == src.len()`).
    fn slice_to_f32(src: &[Self], dst: &mut [f32]);
    /// Rounds a slice from f32 (`dst.len() == src.len()`).
    fn slice_from_f32(src: &[f32], dst: &mut [Self]);
}

impl FloatElem for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    #[inline(always)]
    fn from_f32(v: f32) -> f32 {
        v
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f32 {
        v as f32
    }
    fn as_f32(s: &[f32]) -> Option<&[f32]> {
        Some(s)
    }
    fn slice_to_f32(src: &[f32], dst: &mut [f32]) {
        dst.copy_from_slice(src);
    }
    fn slice_from_f32(src: &[f32], dst: &mut [f32]) {
        dst.copy_from_slice(src);
    }
}

impl FloatElem for f16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    #[inline(always)]
    fn from_f32(v: f32) -> f16 {
        f16::from_f32(v)
    }
    #[inline(always)]
    fn from_f64(v: f64) -> f16 {
        f16::from_f64(v)
    }
    fn slice_to_f32(src: &[f16], dst: &mut [f32]) {
        use half::slice::HalfFloatSliceExt;
        src.convert_to_f32_slice(dst);
    }
    fn slice_from_f32(src: &[f32], dst: &mut [f16]) {
        use half::slice::HalfFloatSliceExt;
        dst.convert_from_f32_slice(src);
    }
}

/// Little-endian float32/float16 bytes widened to f32 (None for other types, or if the memory
/// cannot be allocated).
pub fn bytes_to_f32(data_type: DataType, bytes: &[u8]) -> Option<Vec<f32>> {
    match data_type {
        DataType::Float32 => {
            let mut out = try_zeroed::<f32>(bytes.len() / 4)?;
            bytemuck::cast_slice_mut::<f32, u8>(&mut out).copy_from_slice(&bytes[..bytes.len() / 4 * 4]);
            Some(out)
        }
        DataType::Float16 => {
            let mut out = try_zeroed::<f32>(bytes.len() / 2)?;
            let bytes = &bytes[..out.len() * 2];
            match bytemuck::try_cast_slice::<u8, f16>(bytes) {
                // Aligned (constants always are): a slice at a time, F16C where the CPU has it.
                Ok(h) => f16::slice_to_f32(h, &mut out),
                Err(_) => {
                    for (o, c) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                        *o = f16::from_le_bytes([c[0], c[1]]).to_f32();
                    }
                }
            }
            Some(out)
        }
        _ => None,
    }
}

/// Widens a float32/float16 operand to f32: borrows float32 data, converts float16 into
/// `scratch`.
pub fn widen<'a>(data_type: DataType, bytes: &'a [u8], scratch: &'a mut [f32]) -> &'a [f32] {
    match data_type {
        DataType::Float16 => {
            let h: &[f16] = bytemuck::cast_slice(bytes);
            f16::slice_to_f32(h, &mut scratch[..h.len()]);
            &scratch[..h.len()]
        }
        _ => bytemuck::cast_slice(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_slices_round_once() {
        let src = [1.0f32, 0.1, 65504.0, -2.5e-8];
        let mut h = [f16::ZERO; 4];
        f16::slice_from_f32(&src, &mut h);
        for (x, y) in src.iter().zip(&h) {
            assert_eq!(*y, f16::from_f32(*x));
        }
        let mut back = [0f32; 4];
        f16::slice_to_f32(&h, &mut back);
        assert_eq!(back[0], 1.0);
    }

    #[test]
    fn float16_bytes_widen_aligned_or_not() {
        // Every float16 bit pattern but the NaNs (whose payloads F16C and `to_f32` may quiet
        // differently), from an aligned buffer and from one byte past it.
        let bits: Vec<u16> = (0..=u16::MAX).filter(|&b| !f16::from_bits(b).is_nan()).collect();
        let want: Vec<f32> = bits.iter().map(|&b| f16::from_bits(b).to_f32()).collect();
        let aligned: &[u8] = bytemuck::cast_slice(&bits);
        let mut shifted = vec![0u8; aligned.len() + 1];
        shifted[1..].copy_from_slice(aligned);
        for bytes in [aligned, &shifted[1..]] {
            let got = bytes_to_f32(DataType::Float16, bytes).unwrap();
            assert!(got.iter().zip(&want).all(|(g, w)| g.to_bits() == w.to_bits()));
        }
    }
}
