//! matmul, gemm, convolutions, pooling, resample, reductions, normalization.

use super::*;

#[test]
fn matmul_and_gemm() {
    let Some(mut s) = Suite::new("matmul_and_gemm", MATMUL_OPS) else { return };
    for dt in s.types(Matmul, "a") {
        let m = same(&["a", "b", "output"], dt);
        let r = Gen::Range(-2.0, 2.0);
        let ins = vec![s.input("a", dt, &[2, 3, 13], r), s.input("b", dt, &[13, 7], r)];
        s.run(Matmul, &m, "[2,3,13] x [13,7]", ins, Tol::ulp(26, 26).and_atol(1e-5, 2e-3), |b, x| {
            Ok(vec![b.matmul(&x[0], &x[1], &NO)?])
        });
        let ins = vec![s.input("a", dt, &[3, 1, 4, 6], r), s.constant(dt, &[2, 6, 5], r)];
        s.run(Matmul, &m, "[3,1,4,6] x constant [2,6,5]", ins, Tol::ulp(12, 12).and_atol(1e-5, 2e-3), |b, x| {
            Ok(vec![b.matmul(&x[0], &x[1], &NO)?])
        });
        let ins = vec![s.input("a", dt, &[37, 70], r), s.input("b", dt, &[70, 33], r)];
        s.run(Matmul, &m, "[37,70] x [70,33]", ins, Tol::ulp(140, 140).and_atol(1e-4, 1e-2), |b, x| {
            Ok(vec![b.matmul(&x[0], &x[1], &NO)?])
        });
    }
    for dt in s.types(Gemm, "a") {
        let m = same(&["a", "b", "c", "output"], dt);
        let r = Gen::Range(-2.0, 2.0);
        let ins = vec![s.input("a", dt, &[4, 6], r), s.input("b", dt, &[6, 5], r), s.input("c", dt, &[5], r)];
        s.run(
            Gemm,
            &m,
            "[4,6] x [6,5] + c [5], alpha 0.5 beta 2",
            ins,
            Tol::ulp(15, 15).and_atol(1e-5, 2e-3),
            |b, x| {
                Ok(vec![b.gemm(
                    &x[0],
                    &x[1],
                    &GemmOptions { c: Some(x[2].clone()), alpha: 0.5, beta: 2.0, ..Default::default() },
                )?])
            },
        );
        let ins = vec![s.input("a", dt, &[6, 4], r), s.input("b", dt, &[5, 6], r), s.constant(dt, &[4, 5], r)];
        s.run(
            Gemm,
            &m,
            "transposed [6,4]ᵀ x [5,6]ᵀ + constant c [4,5]",
            ins,
            Tol::ulp(14, 14).and_atol(1e-5, 2e-3),
            |b, x| {
                let o =
                    GemmOptions { c: Some(x[2].clone()), a_transpose: true, b_transpose: true, ..Default::default() };
                Ok(vec![b.gemm(&x[0], &x[1], &o)?])
            },
        );
        let ins = vec![s.input("a", dt, &[3, 9], r), s.input("b", dt, &[9, 4], r), s.input("c", dt, &[], r)];
        s.run(Gemm, &m, "[3,9] x [9,4] + scalar c, beta 0.5", ins, Tol::ulp(21, 21).and_atol(1e-5, 2e-3), |b, x| {
            Ok(vec![b.gemm(&x[0], &x[1], &GemmOptions { c: Some(x[2].clone()), beta: 0.5, ..Default::default() })?])
        });
    }
    s.finish();
}

#[test]
fn convolutions() {
    let Some(mut s) = Suite::new("convolutions", CONV_OPS) else { return };
    let r = Gen::Range(-1.0, 1.0);
    for dt in s.types(Conv2d, "input") {
        let m = same(&["input", "filter", "bias", "output"], dt);
        // KH·KW·Cin/groups·2 ULPs (the WPT bound), and an absolute floor for cancellation.
        let tol = |n: u64| Tol::ulp(n, n).and_atol(1e-5, 4e-3);
        let ins =
            vec![s.input("x", dt, &[1, 4, 5, 7], r), s.input("w", dt, &[6, 2, 3, 3], r), s.input("bias", dt, &[6], r)];
        s.run(Conv2d, &m, "nchw oihw groups 2, pads, strides [1,2], bias", ins, tol(36), |b, x| {
            let o = Conv2dOptions {
                groups: 2,
                padding: Some(vec![1, 0, 1, 2]),
                strides: Some(vec![1, 2]),
                bias: Some(x[2].clone()),
                ..Conv2dOptions::new()
            };
            Ok(vec![b.conv2d(&x[0], &x[1], &o)?])
        });
        let ins = vec![s.input("x", dt, &[2, 5, 7, 4], r), s.constant(dt, &[3, 2, 2, 4], r), s.constant(dt, &[3], r)];
        s.run(Conv2d, &m, "nhwc ohwi dilations [2,1], constant filter and bias", ins, tol(32), |b, x| {
            let o = Conv2dOptions {
                input_layout: InputOperandLayout::Nhwc,
                filter_layout: Conv2dFilterOperandLayout::Ohwi,
                dilations: Some(vec![2, 1]),
                bias: Some(x[2].clone()),
                ..Conv2dOptions::new()
            };
            Ok(vec![b.conv2d(&x[0], &x[1], &o)?])
        });
        let ins =
            vec![s.input("x", dt, &[1, 4, 6, 5], r), s.input("w", dt, &[4, 1, 3, 3], r), s.input("bias", dt, &[4], r)];
        s.run(Conv2d, &m, "depthwise groups 4, same padding", ins, tol(18), |b, x| {
            let o = Conv2dOptions {
                groups: 4,
                padding: Some(vec![1, 1, 1, 1]),
                bias: Some(x[2].clone()),
                ..Conv2dOptions::new()
            };
            Ok(vec![b.conv2d(&x[0], &x[1], &o)?])
        });
        let ins =
            vec![s.input("x", dt, &[1, 3, 6, 5], r), s.input("w", dt, &[3, 3, 3, 8], r), s.input("bias", dt, &[8], r)];
        s.run(Conv2d, &m, "hwio strides 2 padding", ins, tol(54), |b, x| {
            let o = Conv2dOptions {
                filter_layout: Conv2dFilterOperandLayout::Hwio,
                strides: Some(vec![2, 2]),
                padding: Some(vec![1, 1, 0, 1]),
                bias: Some(x[2].clone()),
                ..Conv2dOptions::new()
            };
            Ok(vec![b.conv2d(&x[0], &x[1], &o)?])
        });
    }
    for dt in s.types(Conv2d, "input") {
        let m = same(&["input", "filter", "output"], dt);
        let ins = vec![s.input("x", dt, &[2, 16, 9, 11], r), s.input("w", dt, &[24, 16, 3, 3], r)];
        s.run(
            Conv2d,
            &m,
            "[2,16,9,11] * [24,16,3,3] pads 1 (larger tiles)",
            ins,
            Tol::ulp(288, 288).and_atol(1e-4, 2e-2),
            |b, x| {
                Ok(vec![b.conv2d(
                    &x[0],
                    &x[1],
                    &Conv2dOptions { padding: Some(vec![1, 1, 1, 1]), ..Conv2dOptions::new() },
                )?])
            },
        );
    }
    for dt in s.types(ConvTranspose2d, "input") {
        let m = same(&["input", "filter", "bias", "output"], dt);
        let tol = |n: u64| Tol::ulp(n, n).and_atol(1e-5, 4e-3);
        let ins =
            vec![s.input("x", dt, &[1, 4, 3, 5], r), s.input("w", dt, &[4, 3, 3, 3], r), s.input("bias", dt, &[3], r)];
        s.run(ConvTranspose2d, &m, "iohw strides 2, pads, output padding, bias", ins, tol(72), |b, x| {
            let o = ConvTranspose2dOptions {
                strides: Some(vec![2, 2]),
                padding: Some(vec![1, 1, 0, 1]),
                output_padding: Some(vec![1, 0]),
                bias: Some(x[2].clone()),
                ..ConvTranspose2dOptions::new()
            };
            Ok(vec![b.conv_transpose2d(&x[0], &x[1], &o)?])
        });
        let ins =
            vec![s.input("x", dt, &[2, 4, 3, 3], r), s.input("w", dt, &[4, 3, 2, 3], r), s.input("bias", dt, &[6], r)];
        s.run(ConvTranspose2d, &m, "groups 2, dilations [1,2]", ins, tol(24), |b, x| {
            let o = ConvTranspose2dOptions {
                groups: 2,
                dilations: Some(vec![1, 2]),
                bias: Some(x[2].clone()),
                ..ConvTranspose2dOptions::new()
            };
            Ok(vec![b.conv_transpose2d(&x[0], &x[1], &o)?])
        });
        let ins = vec![s.input("x", dt, &[1, 3, 4, 5], r), s.constant(dt, &[2, 3, 3, 5], r), s.constant(dt, &[2], r)];
        s.run(ConvTranspose2d, &m, "nhwc ohwi strides [2,1], output sizes, constants", ins, tol(90), |b, x| {
            let o = ConvTranspose2dOptions {
                input_layout: InputOperandLayout::Nhwc,
                filter_layout: ConvTranspose2dFilterOperandLayout::Ohwi,
                strides: Some(vec![2, 1]),
                output_sizes: Some(vec![8, 6]),
                bias: Some(x[2].clone()),
                ..ConvTranspose2dOptions::new()
            };
            Ok(vec![b.conv_transpose2d(&x[0], &x[1], &o)?])
        });
    }
    s.finish();
}

#[test]
fn pooling_and_resample() {
    let Some(mut s) = Suite::new("pooling_and_resample", POOL_OPS) else { return };
    for &op in &[AveragePool2d, L2Pool2d, MaxPool2d] {
        for dt in s.types(op, "input") {
            let io = same(&["input", "output"], dt);
            let g = if is_float(dt) { Gen::Range(-4.0, 4.0) } else { Gen::Bits };
            // window H·W + 2 ULPs (WPT); max is exact.
            let tol = |n: u64| if op == MaxPool2d { Tol::EXACT } else { Tol::ulp(n + 2, n + 2).and_atol(1e-6, 1e-3) };
            let x = s.input("x", dt, &[1, 3, 7, 9], g);
            s.run(op, &io, "window [3,3] strides 2 pads", vec![x], tol(9), move |b, x| {
                let o = Pool2dOptions {
                    window_dimensions: Some(vec![3, 3]),
                    strides: Some(vec![2, 2]),
                    padding: Some(vec![1, 1, 0, 1]),
                    ..Default::default()
                };
                Ok(vec![b.core_mut().pool2d(op, &x[0], &o)?])
            });
            let x = s.input("x", dt, &[2, 6, 7, 3], g);
            s.run(op, &io, "nhwc window [2,3] dilations [1,2] ceil rounding", vec![x], tol(6), move |b, x| {
                let o = Pool2dOptions {
                    window_dimensions: Some(vec![2, 3]),
                    strides: Some(vec![2, 1]),
                    dilations: Some(vec![1, 2]),
                    layout: InputOperandLayout::Nhwc,
                    output_shape_rounding: RoundingType::Ceil,
                    ..Default::default()
                };
                Ok(vec![b.core_mut().pool2d(op, &x[0], &o)?])
            });
            let x = s.input("x", dt, &[1, 2, 5, 6], g);
            s.run(op, &io, "global", vec![x], tol(30), move |b, x| {
                Ok(vec![b.core_mut().pool2d(op, &x[0], &Pool2dOptions::default())?])
            });
        }
    }
    for dt in s.types(Resample2d, "input") {
        let io = same(&["input", "output"], dt);
        let g = if is_float(dt) { Gen::Range(-4.0, 4.0) } else { Gen::Bits };
        let x = s.input("x", dt, &[1, 2, 4, 5], g);
        s.run(Resample2d, &io, "nearest scales [2,1.5]", vec![x], Tol::BITS, |b, x| {
            Ok(vec![b.resample2d(&x[0], &Resample2dOptions { scales: Some(vec![2.0, 1.5]), ..Default::default() })?])
        });
        let x = s.input("x", dt, &[1, 2, 4, 5], g);
        s.run(Resample2d, &io, "linear sizes [7,9]", vec![x], Tol::ulp(84, 10).and_atol(1e-5, 2e-3), |b, x| {
            let o =
                Resample2dOptions { mode: InterpolationMode::Linear, sizes: Some(vec![7, 9]), ..Default::default() };
            Ok(vec![b.resample2d(&x[0], &o)?])
        });
        let x = s.input("x", dt, &[3, 4, 5, 2], g);
        s.run(
            Resample2d,
            &io,
            "linear axes [1,2] scales [0.5,1.7]",
            vec![x],
            Tol::ulp(84, 10).and_atol(1e-5, 2e-3),
            |b, x| {
                let o = Resample2dOptions {
                    mode: InterpolationMode::Linear,
                    scales: Some(vec![0.5, 1.7]),
                    axes: Some(vec![1, 2]),
                    ..Default::default()
                };
                Ok(vec![b.resample2d(&x[0], &o)?])
            },
        );
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Reductions

/// Integer rows whose product does not overflow: mostly 1, one 2 and one 3 per 250 elements
/// (and one -1 in the signed one).
const PRODUCT_ROW: [f64; 250] = {
    let mut a = [1.0; 250];
    a[7] = 2.0;
    a[201] = 3.0;
    a
};
const SIGNED_PRODUCT_ROW: [f64; 250] = {
    let mut a = PRODUCT_ROW;
    a[100] = -1.0;
    a
};

#[test]
fn reductions() {
    let Some(mut s) = Suite::new("reductions", REDUCE_OPS) else { return };
    let shape = [2u32, 3, 5];
    for &op in &REDUCE_OPS[..10] {
        for dt in s.types(op, "input") {
            let io = same(&["input", "output"], dt);
            let float = is_float(dt);
            let g = match op {
                ReduceLogSum => Gen::Range(0.1, 4.0),
                ReduceLogSumExp => Gen::Range(-4.0, 4.0),
                ReduceProduct if float => Gen::Range(0.5, 1.5),
                ReduceProduct => Gen::Range(-2.0, 3.0),
                ReduceMax | ReduceMin if !float => Gen::Bits,
                ReduceSumSquare | ReduceL1 if !float => Gen::Range(-100.0, 100.0),
                ReduceSum if !float => Gen::Range(-1000.0, 1000.0),
                ReduceSum | ReduceMean | ReduceL1 | ReduceL2 | ReduceSumSquare if dt == Float16 => {
                    Gen::Range(-1.0, 1.0)
                }
                _ => Gen::Range(-4.0, 4.0),
            };
            let tol = |r: u64| {
                let n = match op {
                    ReduceL1 | ReduceSum | ReduceProduct => r,
                    ReduceL2 => 2 * r + 1,
                    ReduceLogSum => r + 18,
                    ReduceLogSumExp => 2 * r + 18,
                    ReduceMean => r + 2,
                    ReduceSumSquare => 2 * r,
                    _ => return Tol::EXACT,
                };
                Tol::ulp(n, n).and_atol(1e-5, 2e-3)
            };
            for (axes, keep) in
                [(Some(vec![0u32, 2]), false), (None, true), (Some(vec![1]), true), (Some(vec![]), false)]
            {
                let r = axes.as_deref().map_or(30, |a| count(&shape, a));
                let what = format!("[2,3,5] axes {axes:?} keepDimensions {keep}");
                let ins = vec![s.input("x", dt, &shape, g)];
                s.run(op, &io, &what, ins, tol(r), move |b, x| {
                    let o = ReduceOptions { axes: axes.clone(), keep_dimensions: keep, ..Default::default() };
                    Ok(vec![b.core_mut().reduce(op, &x[0], &o)?])
                });
            }
            let ins = vec![s.input("x", dt, &[40, 37], g)];
            s.run(op, &io, "[40,37] axes [0]", ins, tol(40), move |b, x| {
                Ok(vec![b.core_mut().reduce(
                    op,
                    &x[0],
                    &ReduceOptions { axes: Some(vec![0]), ..Default::default() },
                )?])
            });
            // Rows longer than a workgroup.
            let g = match op {
                ReduceProduct if float => Gen::Range(0.95, 1.05),
                ReduceProduct if dt == Int32 => Gen::Values(&SIGNED_PRODUCT_ROW),
                ReduceProduct => Gen::Values(&PRODUCT_ROW),
                _ => g,
            };
            let ins = vec![s.input("x", dt, &[3, 1000], g)];
            s.run(op, &io, "[3,1000] axes [1]", ins, tol(1000), move |b, x| {
                Ok(vec![b.core_mut().reduce(
                    op,
                    &x[0],
                    &ReduceOptions { axes: Some(vec![1]), ..Default::default() },
                )?])
            });
        }
    }
    for &op in &[ArgMin, ArgMax] {
        for dt in s.types(op, "input") {
            for out in s.types(op, "output") {
                let m = [("input", dt), ("output", out)];
                // Distinct values (ties are implementation-dependent); the long rows hold at
                // most 240 elements in all, so that 8-bit types hold them.
                for (sh, axis, keep) in
                    [(&shape[..], 1u32, false), (&shape, 2, true), (&shape, 0, false), (&[2, 120], 1, false)]
                {
                    let ins = vec![s.input("x", dt, sh, Gen::Distinct)];
                    s.run(
                        op,
                        &m,
                        &format!("{sh:?} axis {axis} keepDimensions {keep}"),
                        ins,
                        Tol::EXACT,
                        move |b, x| {
                            let o =
                                ArgMinMaxOptions { keep_dimensions: keep, output_data_type: out, ..Default::default() };
                            Ok(vec![b.core_mut().arg_min_max(op, &x[0], axis, &o)?])
                        },
                    );
                }
                if !matches!(dt, Int8 | Uint8) {
                    let ins = vec![s.input("x", dt, &[3, 1000], Gen::Distinct)];
                    s.run(op, &m, "[3,1000] axis 1", ins, Tol::EXACT, move |b, x| {
                        let o = ArgMinMaxOptions { output_data_type: out, ..Default::default() };
                        Ok(vec![b.core_mut().arg_min_max(op, &x[0], 1, &o)?])
                    });
                }
            }
        }
    }
    for dt in s.types(CumulativeSum, "input") {
        let io = same(&["input", "output"], dt);
        let g = if is_float(dt) { Gen::Range(-4.0, 4.0) } else { Gen::Range(-1000.0, 1000.0) };
        for (axis, exclusive, reversed) in [(2u32, false, false), (1, true, false), (0, false, true), (2, true, true)] {
            let ins = vec![s.input("x", dt, &shape, g)];
            let n = shape[axis as usize] as u64;
            let what = format!("[2,3,5] axis {axis} exclusive {exclusive} reversed {reversed}");
            s.run(CumulativeSum, &io, &what, ins, Tol::ulp(n, n).and_atol(1e-5, 2e-3), move |b, x| {
                Ok(vec![b.cumulative_sum(
                    &x[0],
                    axis,
                    &CumulativeSumOptions { exclusive, reversed, ..Default::default() },
                )?])
            });
        }
        let g = if is_float(dt) { Gen::Range(-1.0, 1.0) } else { g };
        let ins = vec![s.input("x", dt, &[2, 700], g)];
        s.run(CumulativeSum, &io, "[2,700] axis 1", ins, Tol::ulp(700, 700).and_atol(1e-4, 2e-2), move |b, x| {
            Ok(vec![b.cumulative_sum(&x[0], 1, &CumulativeSumOptions::default())?])
        });
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Normalization

#[test]
fn normalization() {
    let Some(mut s) = Suite::new("normalization", NORMALIZATION_OPS) else { return };
    let r = Gen::Range(-3.0, 3.0);
    for dt in s.types(BatchNormalization, "input") {
        let m = same(&["input", "mean", "variance", "scale", "bias", "output"], dt);
        let ins = vec![
            s.input("x", dt, &[2, 3, 5], r),
            s.input("mean", dt, &[3], r),
            s.input("var", dt, &[3], Gen::Range(0.1, 2.0)),
            s.input("scale", dt, &[3], r),
            s.input("bias", dt, &[3], r),
        ];
        s.run(
            BatchNormalization,
            &m,
            "[2,3,5] axis 1 scale bias epsilon 1e-3",
            ins,
            Tol::ulp(6, 6).and_atol(1e-5, 2e-3),
            |b, x| {
                let o = BatchNormalizationOptions {
                    scale: Some(x[3].clone()),
                    bias: Some(x[4].clone()),
                    epsilon: 1e-3,
                    ..Default::default()
                };
                Ok(vec![b.batch_normalization(&x[0], &x[1], &x[2], &o)?])
            },
        );
        let ins = vec![
            s.input("x", dt, &[2, 3, 5, 4], r),
            s.constant(dt, &[4], r),
            s.constant(dt, &[4], Gen::Range(0.1, 2.0)),
        ];
        s.run(
            BatchNormalization,
            &m[..3],
            "[2,3,5,4] axis 3, constant mean/variance",
            ins,
            Tol::ulp(6, 6).and_atol(1e-5, 2e-3),
            |b, x| {
                Ok(vec![b.batch_normalization(
                    &x[0],
                    &x[1],
                    &x[2],
                    &BatchNormalizationOptions { axis: 3, ..Default::default() },
                )?])
            },
        );
    }
    for dt in s.types(InstanceNormalization, "input") {
        let m = same(&["input", "scale", "bias", "output"], dt);
        let tol = Tol::ulp(840, 8400).and_atol(1e-5, 4e-3);
        let ins = vec![s.input("x", dt, &[2, 3, 5, 7], r), s.input("scale", dt, &[3], r), s.input("bias", dt, &[3], r)];
        s.run(InstanceNormalization, &m, "nchw [2,3,5,7] scale bias", ins, tol, |b, x| {
            let o = InstanceNormalizationOptions {
                scale: Some(x[1].clone()),
                bias: Some(x[2].clone()),
                ..Default::default()
            };
            Ok(vec![b.instance_normalization(&x[0], &o)?])
        });
        let ins = vec![s.input("x", dt, &[2, 5, 7, 3], r), s.input("scale", dt, &[3], r), s.input("bias", dt, &[3], r)];
        s.run(InstanceNormalization, &m, "nhwc [2,5,7,3] scale bias epsilon 1e-2", ins, tol, |b, x| {
            let o = InstanceNormalizationOptions {
                scale: Some(x[1].clone()),
                bias: Some(x[2].clone()),
                layout: InputOperandLayout::Nhwc,
                epsilon: 1e-2,
                ..Default::default()
            };
            Ok(vec![b.instance_normalization(&x[0], &o)?])
        });
    }
    for dt in s.types(LayerNormalization, "input") {
        let m = same(&["input", "scale", "bias", "output"], dt);
        let tol = Tol::ulp(14, 14).and_atol(1e-5, 4e-3);
        let ins =
            vec![s.input("x", dt, &[2, 3, 5], r), s.input("scale", dt, &[3, 5], r), s.input("bias", dt, &[3, 5], r)];
        s.run(LayerNormalization, &m, "[2,3,5] default axes, scale bias", ins, tol, |b, x| {
            let o =
                LayerNormalizationOptions { scale: Some(x[1].clone()), bias: Some(x[2].clone()), ..Default::default() };
            Ok(vec![b.layer_normalization(&x[0], &o)?])
        });
        let ins =
            vec![s.input("x", dt, &[2, 3, 5], r), s.input("scale", dt, &[5, 2], r), s.input("bias", dt, &[5, 2], r)];
        s.run(LayerNormalization, &m, "[2,3,5] axes [2,0]", ins, tol, |b, x| {
            let o = LayerNormalizationOptions {
                scale: Some(x[1].clone()),
                bias: Some(x[2].clone()),
                axes: Some(vec![2, 0]),
                ..Default::default()
            };
            Ok(vec![b.layer_normalization(&x[0], &o)?])
        });
        let ins = vec![s.input("x", dt, &[3, 700], r)];
        s.run(LayerNormalization, &m[..1], "[3,700] axes [1]", ins, tol.and_atol(1e-5, 4e-3), |b, x| {
            Ok(vec![b.layer_normalization(
                &x[0],
                &LayerNormalizationOptions { axes: Some(vec![1]), ..Default::default() },
            )?])
        });
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Data movement (bit-exact on every type)
