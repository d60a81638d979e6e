//! The 8-bit element-wise pass and kernels against references written here: dequantize,
//! the float step, quantize, element by element in plain float32 (and f64 for sigmoid).

use crate::compile::quantized::elementwise::Elementwise;
use crate::compile::{NodeKind, Program};
use crate::testing::graphs::*;
use webnn_core::{ClampOptions, DataType, Graph, GraphBuilder, OpKind, Operand, OperandDescriptor, Pool2dOptions};

fn desc(t: DataType, shape: &[u32]) -> OperandDescriptor {
    OperandDescriptor::new(t, shape.to_vec())
}

/// A one-element scale and zero point of type `t`, of rank `rank` (as the spec requires).
fn params(b: &mut GraphBuilder, rank: usize, scale: f32, zero_point: i32, t: DataType) -> (Operand, Operand) {
    let s = b.constant(&f32_desc(&vec![1; rank]), &f32_bytes(&[scale])).unwrap();
    let z = b.constant(&desc(t, &vec![1; rank]), &[zero_point as u8]).unwrap();
    (s, z)
}

fn dequantize(b: &mut GraphBuilder, x: &Operand, scale: f32, zero_point: i32, t: DataType) -> Operand {
    let (s, z) = params(b, x.rank(), scale, zero_point, t);
    b.dequantize_linear(x, &s, &z, &opts()).unwrap()
}

fn quantize(b: &mut GraphBuilder, x: &Operand, scale: f32, zero_point: i32, t: DataType) -> Operand {
    let (s, z) = params(b, x.rank(), scale, zero_point, t);
    b.quantize_linear(x, &s, &z, &opts()).unwrap()
}

/// The spec's dequantizeLinear of one value in float32.
fn dq(v: i32, scale: f32, zero_point: i32) -> f32 {
    (v - zero_point) as f32 * scale
}

/// The spec's quantizeLinear of one value in float32, saturated to `lo..=hi`.
fn q(x: f32, scale: f32, zero_point: i32, lo: i32, hi: i32) -> i32 {
    ((x / scale).round_ties_even() + zero_point as f32).clamp(lo as f32, hi as f32) as i32
}

/// The program's quantized element-wise nodes.
fn elementwise_nodes(graph: &Graph) -> Vec<Elementwise> {
    let (_, program) = Program::compile(graph);
    program
        .nodes
        .iter()
        .filter_map(|n| match &n.kind {
            NodeKind::QuantizedElementwise(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

/// Every byte value a few times over, in a scrambled order.
fn all_bytes(n: usize) -> Vec<u8> {
    (0..n).map(|i| ((i * 97 + 13) % 256) as u8).collect()
}

#[test]
fn silu_between_quantizes_is_one_table_within_a_step_of_the_reference() {
    // dequantize(uint8) → sigmoid → quantize → dequantize → mul(x, ·) → quantize: the SiLU of a
    // QDQ model (ONNX Runtime's quantizer writes exactly this).
    let (sx, zx, ss, sy, zy) = (0.05f32, 100, 1.0f32 / 255.0, 0.03f32, 20);
    let shape = [1, 3, 17, 29];
    let mut b = builder();
    let a = b.input("a", &desc(DataType::Uint8, &shape)).unwrap();
    let x = dequantize(&mut b, &a, sx, zx, DataType::Uint8);
    let s = b.sigmoid(&x, &opts()).unwrap();
    let sq = quantize(&mut b, &s, ss, 0, DataType::Uint8);
    let sd = dequantize(&mut b, &sq, ss, 0, DataType::Uint8);
    let m = b.mul(&x, &sd, &opts()).unwrap();
    let y = quantize(&mut b, &m, sy, zy, DataType::Uint8);
    let graph = b.build(&[("y", &y)]).unwrap();
    let nodes = elementwise_nodes(&graph);
    assert!(matches!(nodes.as_slice(), [Elementwise::Table(_)]), "{nodes:?}");

    let input = all_bytes(3 * 17 * 29);
    let got = run_graph(&graph, &[&input]).remove(0);
    let mut off_by_one = 0;
    for (&g, &v) in got.iter().zip(&input) {
        let x = dq(v as i32, sx, zx);
        let sig = (1.0 / (1.0 + (-(x as f64)).exp())) as f32;
        let want = q(x * dq(q(sig, ss, 0, 0, 255), ss, 0), sy, zy, 0, 255);
        let diff = (g as i32 - want).abs();
        assert!(diff <= 1, "input {v}: got {g}, want {want}");
        off_by_one += diff as usize;
    }
    // A step only where the sigmoid's few ULPs cross a rounding boundary.
    assert!(off_by_one <= got.len() / 100, "{off_by_one} of {} off by one", got.len());
}

#[test]
fn exact_chains_from_int8_match_the_reference_byte_for_byte() {
    // int8 → dequantize → clamp → add 0.25 → round trip through uint8 → mul by itself → sub
    // → quantize to int8: every step exact in float32, so the table equals the reference.
    let (sx, zx, sr, zr, sy, zy) = (0.1f32, -3, 0.02f32, 7, 0.07f32, 5);
    let shape = [2, 5, 13];
    let mut b = builder();
    let a = b.input("a", &desc(DataType::Int8, &shape)).unwrap();
    let x = dequantize(&mut b, &a, sx, zx, DataType::Int8);
    let c = b
        .clamp(&x, &ClampOptions { min_value: Some((-4.0).into()), max_value: Some(3.0.into()), ..Default::default() })
        .unwrap();
    let quarter = b.constant(&f32_desc(&[1]), &f32_bytes(&[0.25])).unwrap();
    let p = b.add(&c, &quarter, &opts()).unwrap();
    let pq = quantize(&mut b, &p, sr, zr, DataType::Uint8);
    let pd = dequantize(&mut b, &pq, sr, zr, DataType::Uint8);
    let sq = b.mul(&pd, &pd, &opts()).unwrap();
    let d = b.sub(&sq, &x, &opts()).unwrap();
    let y = quantize(&mut b, &d, sy, zy, DataType::Int8);
    let graph = b.build(&[("y", &y)]).unwrap();
    assert!(matches!(elementwise_nodes(&graph).as_slice(), [Elementwise::Table(_)]));

    let input = all_bytes(2 * 5 * 13);
    let got = run_graph(&graph, &[&input]).remove(0);
    for (&g, &v) in got.iter().zip(&input) {
        let x = dq(v as i8 as i32, sx, zx);
        let pd = dq(q(x.clamp(-4.0, 3.0) + 0.25, sr, zr, 0, 255), sr, zr);
        let want = q(pd * pd - x, sy, zy, -128, 127);
        assert_eq!(g as i8 as i32, want, "input {}", v as i8);
    }
}

#[test]
fn a_chain_value_read_elsewhere_keeps_the_float_steps() {
    let mut b = builder();
    let a = b.input("a", &desc(DataType::Uint8, &[4, 4])).unwrap();
    let x = dequantize(&mut b, &a, 0.1, 3, DataType::Uint8);
    let s = b.sigmoid(&x, &opts()).unwrap();
    let y = quantize(&mut b, &s, 0.01, 0, DataType::Uint8);
    let graph = b.build(&[("y", &y), ("s", &s)]).unwrap();
    assert!(elementwise_nodes(&graph).is_empty());
}

/// quantize([relu](op(dequantize(a), dequantize(b)))) with b of shape `b_shape`, `b` first
/// in the graph when `b_first`: the graph and its reference.
struct BinaryCase {
    mul: bool,
    relu: bool,
    b_shape: &'static [u32],
    b_first: bool,
    output: DataType,
}

#[test]
fn quantized_adds_and_muls_match_the_reference_byte_for_byte() {
    let shape = [1, 6, 9, 23];
    let cases = [
        BinaryCase { mul: false, relu: true, b_shape: &[1, 6, 9, 23], b_first: false, output: DataType::Uint8 },
        BinaryCase { mul: false, relu: false, b_shape: &[1, 6, 9, 23], b_first: true, output: DataType::Int8 },
        // A squeeze-excitation scale: one value per channel.
        BinaryCase { mul: true, relu: false, b_shape: &[1, 6, 1, 1], b_first: false, output: DataType::Uint8 },
        BinaryCase { mul: true, relu: true, b_shape: &[6, 1, 1], b_first: true, output: DataType::Int8 },
    ];
    let (sa, za, sb, zb, sy, zy) = (0.04f32, 110, 0.03f32, -20, 0.05f32, 9);
    for c in &cases {
        let mut b = builder();
        let a_in = b.input("a", &desc(DataType::Uint8, &shape)).unwrap();
        let b_in = b.input("b", &desc(DataType::Int8, c.b_shape)).unwrap();
        let x = dequantize(&mut b, &a_in, sa, za, DataType::Uint8);
        let y = dequantize(&mut b, &b_in, sb, zb, DataType::Int8);
        let (l, r) = if c.b_first { (&y, &x) } else { (&x, &y) };
        let mut v = if c.mul { b.mul(l, r, &opts()).unwrap() } else { b.add(l, r, &opts()).unwrap() };
        if c.relu {
            v = b.relu(&v, &opts()).unwrap();
        }
        let out = quantize(&mut b, &v, sy, zy, c.output);
        let graph = b.build(&[("y", &out)]).unwrap();
        let what = format!("mul {} relu {} b {:?} b first {}", c.mul, c.relu, c.b_shape, c.b_first);
        assert!(matches!(elementwise_nodes(&graph).as_slice(), [Elementwise::Binary(_)]), "{what}");

        let n: usize = shape.iter().product::<u32>() as usize;
        let nb: usize = c.b_shape.iter().product::<u32>() as usize;
        let (av, bv) = (all_bytes(n), values(nb, 5, 128.0).iter().map(|&f| f as i8 as u8).collect::<Vec<u8>>());
        let got = run_graph(&graph, &[&av, &bv]).remove(0);
        let (lo, hi) = if c.output == DataType::Int8 { (-128, 127) } else { (0, 255) };
        for (i, &g) in got.iter().enumerate() {
            let (x, y) = (dq(av[i] as i32, sa, za), dq(bv[i / (n / nb)] as i8 as i32, sb, zb));
            let mut r = if c.mul { x * y } else { x + y };
            if c.relu {
                r = r.max(0.0);
            }
            let want = q(r, sy, zy, lo, hi);
            let got = if c.output == DataType::Int8 { g as i8 as i32 } else { g as i32 };
            assert_eq!(got, want, "{what}: element {i}");
        }
    }
}

#[test]
fn the_vector_lookup_equals_the_scalar_one() {
    #[cfg(target_arch = "x86_64")]
    if super::has_vbmi() {
        let table: [u8; 256] = std::array::from_fn(|i| (i * 31 + 7) as u8);
        for n in [0, 1, 15, 63, 64, 65, 200, 1000] {
            let x = all_bytes(n);
            let mut out = vec![0u8; n];
            // SAFETY: VBMI detected; one length.
            unsafe { super::lookup_vbmi(&table, x.as_ptr(), out.as_mut_ptr(), n) };
            let want: Vec<u8> = x.iter().map(|&v| table[v as usize]).collect();
            assert_eq!(out, want, "n = {n}");
            // In place.
            let mut inout = x.clone();
            // SAFETY: VBMI detected; source and destination are one buffer.
            unsafe { super::lookup_vbmi(&table, inout.as_ptr(), inout.as_mut_ptr(), n) };
            assert_eq!(inout, want, "n = {n}, in place");
        }
    }
}

/// One max pooling test: `quantize(maxPool2d(dequantize(x)))` of an nchw `[n, c, h, w]`
/// input; the result against dequantize, the maximum over the window's real elements (none:
/// −∞) and quantize, element by element.
struct PoolCase {
    shape: [u32; 4],
    window: [u32; 2],
    strides: [u32; 2],
    dilations: [u32; 2],
    /// [beginH, endH, beginW, endW]
    padding: [u32; 4],
    x: (f32, i32, DataType),
    y: (f32, i32, DataType),
}

impl PoolCase {
    fn graph(&self) -> Graph {
        let (sx, zx, tx) = self.x;
        let (sy, zy, ty) = self.y;
        let mut b = builder();
        let a = b.input("a", &desc(tx, &self.shape)).unwrap();
        let x = dequantize(&mut b, &a, sx, zx, tx);
        let options = Pool2dOptions {
            window_dimensions: Some(self.window.to_vec()),
            strides: Some(self.strides.to_vec()),
            dilations: Some(self.dilations.to_vec()),
            padding: Some(self.padding.to_vec()),
            ..Default::default()
        };
        let p = b.pool2d(OpKind::MaxPool2d, &x, &options).unwrap();
        let y = quantize(&mut b, &p, sy, zy, ty);
        b.build(&[("y", &y)]).unwrap()
    }

    fn check(&self, graph: &Graph) {
        let (sx, zx, tx) = self.x;
        let (sy, zy, ty) = self.y;
        let [n, c, h, w] = self.shape.map(|d| d as usize);
        let out = graph.descriptor(graph.outputs[0].1).shape.iter().map(|&d| d as usize).collect::<Vec<_>>();
        let (oh, ow) = (out[2], out[3]);
        let input = all_bytes(n * c * h * w);
        let got = run_graph(graph, &[&input]).remove(0);
        let value = |b: u8, t: DataType| if t == DataType::Int8 { b as i8 as i32 } else { b as i32 };
        let (lo, hi) = if ty == DataType::Int8 { (-128, 127) } else { (0, 255) };
        let mut i = 0;
        for plane in input.chunks(h * w) {
            for y in 0..oh {
                for x in 0..ow {
                    let mut m = f32::NEG_INFINITY;
                    for kh in 0..self.window[0] as usize {
                        for kw in 0..self.window[1] as usize {
                            let r = (y * self.strides[0] as usize + kh * self.dilations[0] as usize) as isize
                                - self.padding[0] as isize;
                            let col = (x * self.strides[1] as usize + kw * self.dilations[1] as usize) as isize
                                - self.padding[2] as isize;
                            if (0..h as isize).contains(&r) && (0..w as isize).contains(&col) {
                                m = m.max(dq(value(plane[r as usize * w + col as usize], tx), sx, zx));
                            }
                        }
                    }
                    let want = q(m, sy, zy, lo, hi);
                    assert_eq!(value(got[i], ty), want, "output {i} (row {y}, column {x})");
                    i += 1;
                }
            }
        }
        assert_eq!(i, got.len());
    }
}

#[test]
fn max_pooling_between_quantizes_pools_the_bytes() {
    // ResNet's 3×3 / 2 max pool between a quantize and a dequantize of one quantization:
    // the bytes pooled, no table.
    let same = PoolCase {
        shape: [1, 3, 13, 17],
        window: [3, 3],
        strides: [2, 2],
        dilations: [1, 1],
        padding: [1, 1, 1, 1],
        x: (0.05, 3, DataType::Uint8),
        y: (0.05, 3, DataType::Uint8),
    };
    let graph = same.graph();
    assert!(
        matches!(elementwise_nodes(&graph).as_slice(), [Elementwise::MaxPool { table: None, .. }]),
        "{:?}",
        elementwise_nodes(&graph)
    );
    same.check(&graph);
    // int8 in, uint8 out, another scale; strides, dilations and asymmetric padding: a table.
    let requantized = PoolCase {
        shape: [2, 2, 11, 9],
        window: [2, 3],
        strides: [1, 2],
        dilations: [2, 1],
        padding: [1, 0, 2, 1],
        x: (0.1, -7, DataType::Int8),
        y: (0.13, 90, DataType::Uint8),
    };
    let graph = requantized.graph();
    assert!(matches!(elementwise_nodes(&graph).as_slice(), [Elementwise::MaxPool { table: Some(_), .. }]));
    requantized.check(&graph);
}

#[test]
fn max_pooling_with_windows_wholly_in_the_padding_keeps_the_float_steps_unless_no_table() {
    // Padding wider than the window: some windows hold no real element, whose float result
    // quantizes −∞ to the lowest value. With a table that would map the byte pool's lowest
    // value elsewhere, so the float steps stay; with the identity the bytes agree.
    let mut case = PoolCase {
        shape: [1, 2, 4, 5],
        window: [2, 2],
        strides: [1, 1],
        dilations: [1, 1],
        padding: [3, 0, 0, 3],
        x: (0.5, 10, DataType::Uint8),
        y: (0.25, 200, DataType::Uint8),
    };
    let graph = case.graph();
    assert!(elementwise_nodes(&graph).is_empty(), "{:?}", elementwise_nodes(&graph));
    case.check(&graph);
    case.x = (0.25, -100, DataType::Int8);
    case.y = (0.25, -100, DataType::Int8);
    let graph = case.graph();
    assert!(matches!(elementwise_nodes(&graph).as_slice(), [Elementwise::MaxPool { table: None, .. }]));
    case.check(&graph);
}
