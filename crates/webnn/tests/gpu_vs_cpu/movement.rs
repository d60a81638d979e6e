//! Data movement, gather and scatter, quantization, recurrent networks.

use super::*;

#[test]
fn data_movement() {
    let Some(mut s) = Suite::new("data_movement", MOVEMENT_OPS) else { return };
    let io = |dt| same(&["input", "output"], dt);
    let g = Gen::Bits;
    for dt in s.types(Concat, "inputs") {
        let ins = vec![s.input("a", dt, &[2, 3, 5], g), s.input("b", dt, &[2, 1, 5], g), s.constant(dt, &[2, 2, 5], g)];
        s.run(Concat, &same(&["inputs", "output"], dt), "axis 1, three inputs", ins, Tol::BITS, |b, x| {
            Ok(vec![b.concat(&[&x[0], &x[1], &x[2]], 1, &NO)?])
        });
        let ins = vec![s.input("a", dt, &[3, 1], g), s.input("b", dt, &[3, 4], g)];
        s.run(Concat, &same(&["inputs", "output"], dt), "axis 1, last axis", ins, Tol::BITS, |b, x| {
            Ok(vec![b.concat(&[&x[0], &x[1]], 1, &NO)?])
        });
    }
    for dt in s.types(Expand, "input") {
        let ins = vec![s.input("x", dt, &[3, 1], g)];
        s.run(Expand, &io(dt), "[3,1] to [2,3,5]", ins, Tol::BITS, |b, x| {
            Ok(vec![b.expand(&x[0], &[2, 3, 5], &NO)?])
        });
    }
    for dt in s.types(Pad, "input") {
        for (mode, what) in [
            (PaddingMode::Constant, "constant 3"),
            (PaddingMode::Edge, "edge"),
            (PaddingMode::Reflection, "reflection"),
        ] {
            let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
            s.run(Pad, &io(dt), what, ins, Tol::BITS, move |b, x| {
                Ok(vec![b.pad(
                    &x[0],
                    &[1, 0, 2],
                    &[0, 2, 1],
                    &PadOptions { mode, value: 3.0.into(), ..Default::default() },
                )?])
            });
        }
    }
    for dt in s.types(Reshape, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Reshape, &io(dt), "[2,3,5] to [5,6]", ins, Tol::BITS, |b, x| Ok(vec![b.reshape(&x[0], &[5, 6], &NO)?]));
    }
    for dt in s.types(Reverse, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Reverse, &io(dt), "axes [0,2]", ins, Tol::BITS, |b, x| {
            Ok(vec![b.reverse(&x[0], &ReverseOptions { axes: Some(vec![0, 2]), ..Default::default() })?])
        });
    }
    for dt in s.types(Slice, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 7], g)];
        s.run(Slice, &io(dt), "starts [0,1,1] sizes [2,2,5] strides [1,1,2]", ins, Tol::BITS, |b, x| {
            Ok(vec![b.slice(
                &x[0],
                &[0, 1, 1],
                &[2, 2, 5],
                &SliceOptions { strides: Some(vec![1, 1, 2]), ..Default::default() },
            )?])
        });
    }
    for dt in s.types(Split, "input") {
        let m = [("input", dt), ("outputs", dt)];
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Split, &m, "sizes [2,3] axis 2", ins, Tol::BITS, |b, x| {
            b.split(&x[0], &Splits::Sizes(vec![2, 3]), &SplitOptions { axis: 2, ..Default::default() })
        });
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Split, &m, "count 3 axis 1", ins, Tol::BITS, |b, x| {
            b.split(&x[0], &Splits::Count(3), &SplitOptions { axis: 1, ..Default::default() })
        });
    }
    for dt in s.types(Tile, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Tile, &io(dt), "repetitions [1,2,3]", ins, Tol::BITS, |b, x| Ok(vec![b.tile(&x[0], &[1, 2, 3], &NO)?]));
    }
    for dt in s.types(Transpose, "input") {
        let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
        s.run(Transpose, &io(dt), "permutation [2,0,1]", ins, Tol::BITS, |b, x| {
            Ok(vec![b.transpose(&x[0], &TransposeOptions { permutation: Some(vec![2, 0, 1]), ..Default::default() })?])
        });
        let ins = vec![s.input("x", dt, &[1, 2, 5, 7], g)];
        s.run(Transpose, &io(dt), "[1,2,5,7] default permutation", ins, Tol::BITS, |b, x| {
            Ok(vec![b.transpose(&x[0], &TransposeOptions::default())?])
        });
    }
    for dt in s.types(Triangular, "input") {
        for (upper, diagonal) in [(true, 1), (false, -1), (false, 2)] {
            let ins = vec![s.input("x", dt, &[2, 4, 5], g)];
            s.run(Triangular, &io(dt), &format!("upper {upper} diagonal {diagonal}"), ins, Tol::BITS, move |b, x| {
                Ok(vec![b.triangular(&x[0], &TriangularOptions { upper, diagonal, ..Default::default() })?])
            });
        }
    }
    for dt in s.types(Where, "trueValue") {
        let m = [("condition", Uint8), ("trueValue", dt), ("falseValue", dt), ("output", dt)];
        let ins = vec![
            s.input("c", Uint8, &[2, 3, 5], Gen::Values(&[0.0, 1.0, 2.0, 0.0, 0.0, 255.0, 1.0])),
            s.input("t", dt, &[3, 5], g),
            s.input("f", dt, &[2, 1, 5], g),
        ];
        s.run(Where, &m, "condition [2,3,5], values [3,5] and [2,1,5]", ins, Tol::BITS, |b, x| {
            Ok(vec![b.where_(&x[0], &x[1], &x[2], &NO)?])
        });
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Gather and scatter

/// Scatter indices along `axis` of an input of extent `n`: for each position of the other
/// axes, `k` distinct values (negative half the time where `dt` is signed), so that the
/// result does not depend on the order of the writes.
fn distinct_indices(rng: &mut Rng, dt: DataType, shape: &[u32], axis: usize, n: u32) -> Vec<u8> {
    let k = shape[axis] as usize;
    let mut values = vec![0f64; elements(shape)];
    let inner: usize = shape[axis + 1..].iter().map(|&d| d as usize).product();
    let outer: usize = shape[..axis].iter().map(|&d| d as usize).product();
    for o in 0..outer {
        for i in 0..inner {
            let mut pick: Vec<i64> = (0..n as i64).collect();
            rng.shuffle(&mut pick);
            for (j, &p) in pick.iter().take(k).enumerate() {
                let v = if dt != Uint32 && rng.int(0, 1) == 1 { p - n as i64 } else { p };
                values[(o * k + j) * inner + i] = v as f64;
            }
        }
    }
    let mut out = vec![];
    for v in values {
        encode(dt, v, &mut out);
    }
    out
}

#[test]
fn gather_and_scatter() {
    let Some(mut s) = Suite::new("gather_and_scatter", GATHER_OPS) else { return };
    let g = Gen::Bits;
    for &op in GATHER_OPS {
        for dt in s.types(op, "input") {
            for it in s.types(op, "indices") {
                let idx = |s: &mut Suite, shape: &[u32], n: u32| s.input("i", it, shape, Gen::Index(n));
                match op {
                    Gather => {
                        let m = [("input", dt), ("indices", it), ("output", dt)];
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), idx(&mut s, &[2, 3], 4)];
                        s.run(op, &m, "[4,3,5] axis 0 indices [2,3]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.gather(&x[0], &x[1], &GatherOptions::default())?])
                        });
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), idx(&mut s, &[], 5)];
                        s.run(op, &m, "[4,3,5] axis 2 scalar index", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.gather(&x[0], &x[1], &GatherOptions { axis: 2, ..Default::default() })?])
                        });
                    }
                    GatherElements => {
                        let m = [("input", dt), ("indices", it), ("output", dt)];
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), idx(&mut s, &[4, 2, 5], 3)];
                        s.run(op, &m, "[4,3,5] axis 1 indices [4,2,5]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.gather_elements(
                                &x[0],
                                &x[1],
                                &GatherOptions { axis: 1, ..Default::default() },
                            )?])
                        });
                    }
                    GatherNd => {
                        let m = [("input", dt), ("indices", it), ("output", dt)];
                        // Index tuples [i0 < 4, i1 < 3].
                        let mut bytes = vec![];
                        for k in 0..6 {
                            let (lo0, lo1) = if it == Uint32 { (0, 0) } else { (-4, -3) };
                            let v = if k % 2 == 0 { s.rng.int(lo0, 3) } else { s.rng.int(lo1, 2) };
                            encode(it, v as f64, &mut bytes);
                        }
                        let i = In {
                            name: "i".into(),
                            desc: OperandDescriptor::new(it, [3u32, 2]),
                            bytes,
                            constant: false,
                        };
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i];
                        s.run(op, &m, "[4,3,5] indices [3,2]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.gather_nd(&x[0], &x[1], &NO)?])
                        });
                    }
                    ScatterElements => {
                        let m = [("input", dt), ("indices", it), ("updates", dt), ("output", dt)];
                        let bytes = distinct_indices(&mut s.rng, it, &[2, 3, 5], 0, 4);
                        let i = In {
                            name: "i".into(),
                            desc: OperandDescriptor::new(it, [2u32, 3, 5]),
                            bytes,
                            constant: false,
                        };
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i, s.input("u", dt, &[2, 3, 5], g)];
                        s.run(op, &m, "[4,3,5] axis 0 indices [2,3,5]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.scatter_elements(&x[0], &x[1], &x[2], &ScatterOptions::default())?])
                        });
                        let bytes = distinct_indices(&mut s.rng, it, &[4, 3, 2], 2, 5);
                        let i = In {
                            name: "i".into(),
                            desc: OperandDescriptor::new(it, [4u32, 3, 2]),
                            bytes,
                            constant: false,
                        };
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i, s.input("u", dt, &[4, 3, 2], g)];
                        s.run(op, &m, "[4,3,5] axis 2 indices [4,3,2]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.scatter_elements(
                                &x[0],
                                &x[1],
                                &x[2],
                                &ScatterOptions { axis: 2, ..Default::default() },
                            )?])
                        });
                    }
                    _ => {
                        let m = [("input", dt), ("indices", it), ("updates", dt), ("output", dt)];
                        // Rows 2 and 0 (written as -4 where signed) of a [4,3,5] input.
                        let rows: &[f64] = if it == Uint32 { &[2.0, 0.0] } else { &[2.0, -4.0] };
                        let i = s.input("i", it, &[2, 1], Gen::Values(rows));
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i, s.input("u", dt, &[2, 3, 5], g)];
                        s.run(op, &m, "[4,3,5] indices [2,1] updates [2,3,5]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.scatter_nd(&x[0], &x[1], &x[2], &NO)?])
                        });
                        // Cells (1,2), (3,0), (0,1) of the [4,3] leading axes.
                        let cells: &[f64] = if it == Uint32 {
                            &[1.0, 2.0, 3.0, 0.0, 0.0, 1.0]
                        } else {
                            &[1.0, -1.0, 3.0, 0.0, -4.0, 1.0]
                        };
                        let i = s.input("i", it, &[3, 2], Gen::Values(cells));
                        let ins = vec![s.input("x", dt, &[4, 3, 5], g), i, s.input("u", dt, &[3, 5], g)];
                        s.run(op, &m, "[4,3,5] indices [3,2] updates [3,5]", ins, Tol::BITS, |b, x| {
                            Ok(vec![b.scatter_nd(&x[0], &x[1], &x[2], &NO)?])
                        });
                    }
                }
            }
        }
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Quantization

#[test]
fn quantization() {
    let Some(mut s) = Suite::new("quantization", QUANTIZE_OPS) else { return };
    for ft in s.types(QuantizeLinear, "input") {
        for qt in s.types(QuantizeLinear, "zeroPoint") {
            let m = [("input", ft), ("scale", ft), ("zeroPoint", qt), ("output", qt)];
            let zp =
                if int_range(qt).is_some_and(|r| r.0 == 0) { Gen::Range(0.0, 20.0) } else { Gen::Range(-10.0, 10.0) };
            let ins = vec![
                s.input("x", ft, &[2, 3, 5], Gen::Range(-40.0, 40.0)),
                s.input("scale", ft, &[2, 1, 5], Gen::Range(0.05, 0.6)),
                s.input("zp", qt, &[2, 1, 5], zp),
            ];
            s.run(QuantizeLinear, &m, "[2,3,5] blockwise scale [2,1,5] (saturating)", ins, Tol::EXACT, |b, x| {
                Ok(vec![b.quantize_linear(&x[0], &x[1], &x[2], &NO)?])
            });
            let ins = vec![
                s.input("x", ft, &[3, 4], Gen::Halves(-30.0, 30.0)),
                s.constant(ft, &[1, 1], Gen::Values(&[0.5])),
                s.constant(qt, &[1, 1], Gen::Values(&[3.0])),
            ];
            s.run(QuantizeLinear, &m, "[3,4] ties, constant scale 0.5", ins, Tol::EXACT, |b, x| {
                Ok(vec![b.quantize_linear(&x[0], &x[1], &x[2], &NO)?])
            });
        }
    }
    for qt in s.types(DequantizeLinear, "input") {
        for ft in s.types(DequantizeLinear, "scale") {
            let m = [("input", qt), ("scale", ft), ("zeroPoint", qt), ("output", ft)];
            let ins = vec![
                s.input("x", qt, &[2, 3, 5], Gen::Range(-1000.0, 1000.0)),
                s.input("scale", ft, &[1, 3, 5], Gen::Range(0.05, 0.6)),
                s.input("zp", qt, &[1, 3, 5], Gen::Range(-10.0, 10.0)),
            ];
            s.run(DequantizeLinear, &m, "[2,3,5] scale [1,3,5]", ins, Tol::ulp(1, 1), |b, x| {
                Ok(vec![b.dequantize_linear(&x[0], &x[1], &x[2], &NO)?])
            });
            let ins = vec![
                s.input("x", qt, &[4, 6], Gen::Range(-1000.0, 1000.0)),
                s.input("scale", ft, &[2, 3], Gen::Range(0.05, 0.6)),
                s.input("zp", qt, &[2, 3], Gen::Range(-10.0, 10.0)),
            ];
            s.run(DequantizeLinear, &m, "[4,6] blocks [2,2]", ins, Tol::ulp(1, 1), |b, x| {
                Ok(vec![b.dequantize_linear(&x[0], &x[1], &x[2], &NO)?])
            });
        }
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Recurrent networks

#[test]
fn recurrent() {
    let Some(mut s) = Suite::new("recurrent", RECURRENT_OPS) else { return };
    let r = Gen::Range(-0.8, 0.8);
    let (steps, batch, input, hidden) = (3u32, 2u32, 4u32, 5u32);
    for dt in s.types(Gru, "input") {
        let m = every_member(Gru, dt);
        for (dirs, direction, reset_after, layout) in [
            (1, RecurrentNetworkDirection::Forward, true, GruWeightLayout::Zrn),
            (2, RecurrentNetworkDirection::Both, false, GruWeightLayout::Rzn),
        ] {
            let ins = vec![
                s.input("x", dt, &[steps, batch, input], r),
                s.input("w", dt, &[dirs, 3 * hidden, input], r),
                s.input("rw", dt, &[dirs, 3 * hidden, hidden], r),
                s.input("b", dt, &[dirs, 3 * hidden], r),
                s.input("rb", dt, &[dirs, 3 * hidden], r),
                s.input("h0", dt, &[dirs, batch, hidden], r),
            ];
            let what = format!("{direction:?} resetAfter {reset_after} {layout:?} returnSequence");
            s.run(Gru, &m, &what, ins, Tol::ulp(6, 6).and_atol(1e-5, 2e-3), move |b, x| {
                let o = GruOptions {
                    bias: Some(x[3].clone()),
                    recurrent_bias: Some(x[4].clone()),
                    initial_hidden_state: Some(x[5].clone()),
                    reset_after,
                    return_sequence: true,
                    direction,
                    layout,
                    ..Default::default()
                };
                b.gru(&x[0], &x[1], &x[2], steps, hidden, &o)
            });
        }
    }
    for dt in s.types(GruCell, "input") {
        let m = every_member(GruCell, dt);
        let ins = vec![
            s.input("x", dt, &[batch, input], r),
            s.input("w", dt, &[3 * hidden, input], r),
            s.input("rw", dt, &[3 * hidden, hidden], r),
            s.input("h", dt, &[batch, hidden], r),
            s.input("b", dt, &[3 * hidden], r),
            s.input("rb", dt, &[3 * hidden], r),
        ];
        s.run(
            GruCell,
            &m,
            "bias, recurrentBias, resetAfter false",
            ins,
            Tol::ulp(3, 3).and_atol(1e-5, 2e-3),
            move |b, x| {
                let o = GruCellOptions {
                    bias: Some(x[4].clone()),
                    recurrent_bias: Some(x[5].clone()),
                    reset_after: false,
                    ..Default::default()
                };
                Ok(vec![b.gru_cell(&x[0], &x[1], &x[2], &x[3], hidden, &o)?])
            },
        );
    }
    for dt in s.types(Lstm, "input") {
        let m = every_member(Lstm, dt);
        for (dirs, direction, layout) in [
            (1, RecurrentNetworkDirection::Backward, LstmWeightLayout::Iofg),
            (2, RecurrentNetworkDirection::Both, LstmWeightLayout::Ifgo),
        ] {
            let ins = vec![
                s.input("x", dt, &[steps, batch, input], r),
                s.input("w", dt, &[dirs, 4 * hidden, input], r),
                s.input("rw", dt, &[dirs, 4 * hidden, hidden], r),
                s.input("b", dt, &[dirs, 4 * hidden], r),
                s.input("rb", dt, &[dirs, 4 * hidden], r),
                s.input("p", dt, &[dirs, 3 * hidden], r),
                s.input("h0", dt, &[dirs, batch, hidden], r),
                s.input("c0", dt, &[dirs, batch, hidden], r),
            ];
            let what = format!("{direction:?} {layout:?} returnSequence, every option");
            s.run(Lstm, &m, &what, ins, Tol::ulp(3, 3).and_atol(1e-5, 2e-3), move |b, x| {
                let o = LstmOptions {
                    bias: Some(x[3].clone()),
                    recurrent_bias: Some(x[4].clone()),
                    peephole_weight: Some(x[5].clone()),
                    initial_hidden_state: Some(x[6].clone()),
                    initial_cell_state: Some(x[7].clone()),
                    return_sequence: true,
                    direction,
                    layout,
                    ..Default::default()
                };
                b.lstm(&x[0], &x[1], &x[2], steps, hidden, &o)
            });
        }
    }
    for dt in s.types(LstmCell, "input") {
        let m = every_member(LstmCell, dt);
        let ins = vec![
            s.input("x", dt, &[batch, input], r),
            s.input("w", dt, &[4 * hidden, input], r),
            s.input("rw", dt, &[4 * hidden, hidden], r),
            s.input("h", dt, &[batch, hidden], r),
            s.input("c", dt, &[batch, hidden], r),
            s.input("b", dt, &[4 * hidden], r),
            s.input("rb", dt, &[4 * hidden], r),
            s.input("p", dt, &[3 * hidden], r),
        ];
        s.run(LstmCell, &m, "every option", ins, Tol::ulp(1, 2).and_atol(1e-5, 2e-3), move |b, x| {
            let o = LstmCellOptions {
                bias: Some(x[5].clone()),
                recurrent_bias: Some(x[6].clone()),
                peephole_weight: Some(x[7].clone()),
                ..Default::default()
            };
            b.lstm_cell(&x[0], &x[1], &x[2], &x[3], &x[4], hidden, &o)
        });
    }
    s.finish();
}
