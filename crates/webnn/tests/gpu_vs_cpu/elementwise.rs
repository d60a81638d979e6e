//! Element-wise binary, comparison, logical, unary, activation, cast and clamp ops.

use super::*;

#[test]
fn binary_arithmetic() {
    let Some(mut s) = Suite::new("binary_arithmetic", BINARY_OPS) else { return };
    for &op in BINARY_OPS {
        for dt in s.types(op, "a") {
            let float = is_float(dt);
            let (ga, gb) = match op {
                Add | Sub => (Gen::Range(-300.0, 300.0), Gen::Range(-300.0, 300.0)),
                Mul => (Gen::Range(-11.0, 11.0), Gen::Range(-11.0, 11.0)),
                Div => (Gen::Range(-100.0, 100.0), Gen::NonZero(-9.0, 9.0)),
                Max | Min => (Gen::Few, Gen::Range(-3.0, 3.0)),
                _ if float => (Gen::Range(0.1, 3.0), Gen::Range(-3.0, 3.0)),
                _ => (Gen::Range(-4.0, 4.0), Gen::Range(-1.0, 3.0)),
            };
            let tol = match op {
                Add | Sub | Mul => Tol::ulp(1, 1),
                Div => Tol::ulp(2, 2),
                Max | Min => Tol::EXACT,
                _ => Tol::ulp(32, 2),
            };
            let m = same(&["a", "b", "output"], dt);
            let f = move |b: &mut GraphBuilder, x: &[Operand]| Ok(vec![b.core_mut().binary(op, &x[0], &x[1], &NO)?]);
            let ins = vec![s.input("a", dt, &[2, 3, 5], ga), s.input("b", dt, &[3, 5], gb)];
            s.run(op, &m, "[2,3,5] by [3,5]", ins, tol, f);
            let ins = vec![s.input("a", dt, &[3, 1], ga), s.constant(dt, &[2, 1, 5], gb)];
            s.run(op, &m, "[3,1] by constant [2,1,5]", ins, tol, f);
            let ins = vec![s.input("a", dt, &[], ga), s.input("b", dt, &[2, 3, 5], gb)];
            s.run(op, &m, "scalar by [2,3,5]", ins, tol, f);
            if !float && matches!(op, Add | Sub | Mul) {
                // Integer arithmetic wraps (the CPU engine's definition).
                let ins = vec![s.input("a", dt, &[2, 3, 5], Gen::Bits), s.input("b", dt, &[2, 3, 5], Gen::Bits)];
                s.run(op, &m, "[2,3,5] whole range (wrapping)", ins, tol, f);
            }
            if op == Pow && float {
                // Negative bases with integer exponents.
                let ins = vec![
                    s.input("a", dt, &[2, 3, 5], Gen::Range(-3.0, 3.0)),
                    s.input("b", dt, &[2, 3, 5], Gen::Ints(-3, 3)),
                ];
                s.run(op, &m, "negative bases, integer exponents", ins, tol, f);
            }
            if op == Div && !float {
                // Truncation towards zero on both signs.
                let ins = vec![
                    s.input("a", dt, &[7, 5], Gen::Range(-1000.0, 1000.0)),
                    s.input("b", dt, &[5], Gen::NonZero(-40.0, 40.0)),
                ];
                s.run(op, &m, "[7,5] by [5], wide", ins, tol, f);
            }
        }
    }
    s.finish();
}

#[test]
fn comparisons() {
    let Some(mut s) = Suite::new("comparisons", COMPARISON_OPS) else { return };
    for &op in COMPARISON_OPS {
        for dt in s.types(op, "a") {
            let m = [("a", dt), ("b", dt), ("output", Uint8)];
            let ins = vec![s.input("a", dt, &[2, 3, 5], Gen::Few), s.input("b", dt, &[3, 5], Gen::Few)];
            s.run(op, &m, "[2,3,5] by [3,5]", ins, Tol::BITS, move |b, x| {
                Ok(vec![b.core_mut().binary(op, &x[0], &x[1], &NO)?])
            });
            let g = if is_float(dt) { Gen::Special } else { Gen::Bits };
            let ins = vec![s.input("a", dt, &[4, 7], g), s.input("b", dt, &[4, 7], g)];
            s.run(op, &m, "[4,7] specials / whole range", ins, Tol::BITS, move |b, x| {
                Ok(vec![b.core_mut().binary(op, &x[0], &x[1], &NO)?])
            });
        }
    }
    s.finish();
}

#[test]
fn logical_and_predicates() {
    let Some(mut s) = Suite::new("logical_and_predicates", LOGICAL_OPS) else { return };
    const BOOLS: &[f64] = &[0.0, 1.0, 2.0, 0.0, 255.0, 1.0, 0.0];
    for &op in LOGICAL_OPS {
        for dt in s.types(op, "a") {
            let out = Uint8;
            match op {
                LogicalNot | IsNaN | IsInfinite => {
                    let g = if op == LogicalNot { Gen::Values(BOOLS) } else { Gen::Special };
                    let ins = vec![s.input("a", dt, &[3, 7], g)];
                    s.run(op, &[("a", dt), ("output", out)], "[3,7]", ins, Tol::BITS, move |b, x| {
                        Ok(vec![b.core_mut().unary(op, &x[0], &NO)?])
                    });
                }
                _ => {
                    let ins = vec![
                        s.input("a", dt, &[2, 3, 5], Gen::Values(BOOLS)),
                        s.input("b", dt, &[3, 5], Gen::Values(&[0.0, 1.0, 3.0])),
                    ];
                    let m = [("a", dt), ("b", dt), ("output", out)];
                    s.run(op, &m, "[2,3,5] by [3,5]", ins, Tol::BITS, move |b, x| {
                        Ok(vec![b.core_mut().binary(op, &x[0], &x[1], &NO)?])
                    });
                }
            }
        }
    }
    s.finish();
}

/// The inputs and tolerance of each unary op.
fn unary_case(op: OpKind, dt: DataType) -> (Gen, Tol) {
    let atol = Tol::atol(1.0 / 1024.0, 1.0 / 512.0);
    match op {
        Abs | Neg | Ceil | Floor => {
            (if is_float(dt) { Gen::Range(-8.0, 8.0) } else { Gen::Range(-100.0, 100.0) }, Tol::EXACT)
        }
        Sign => (Gen::Few, Tol::EXACT),
        RoundEven => (Gen::Halves(-8.0, 8.0), Tol::EXACT),
        Identity => (Gen::Bits, Tol::BITS),
        Cos | Sin => (Gen::Range(-6.0, 6.0), atol),
        Tan => (Gen::Range(-1.3, 1.3), atol),
        Erf => (Gen::Range(-3.0, 3.0), atol),
        Exp => (Gen::Range(-6.0, 6.0), Tol::ulp(32, 2)),
        Log => (Gen::Range(0.01, 100.0), Tol::atol(1.0 / 1024.0, 1.0 / 1024.0)),
        Reciprocal => (Gen::NonZero(-8.0, 8.0), Tol::ulp(2, 2)),
        Sqrt => (Gen::Range(0.0, 100.0), Tol::ulp(1, 1)),
        _ => unreachable!("{op}"),
    }
}

#[test]
fn unary() {
    let Some(mut s) = Suite::new("unary", UNARY_OPS) else { return };
    for &op in UNARY_OPS {
        for dt in s.types(op, "input") {
            let (g, tol) = unary_case(op, dt);
            let ins = vec![s.input("x", dt, &[2, 3, 5], g)];
            s.run(op, &same(&["input", "output"], dt), "[2,3,5]", ins, tol, move |b, x| {
                Ok(vec![b.core_mut().unary(op, &x[0], &NO)?])
            });
            if matches!(op, Abs | Neg | Ceil | Floor | Sign | RoundEven | Sqrt | Reciprocal | Exp | Log) && is_float(dt)
            {
                // NaN, ±∞, ±0 propagate as on the CPU.
                let ins = vec![s.input("x", dt, &[3, 7], Gen::Special)];
                s.run(op, &same(&["input", "output"], dt), "[3,7] specials", ins, tol, move |b, x| {
                    Ok(vec![b.core_mut().unary(op, &x[0], &NO)?])
                });
            }
        }
    }
    s.finish();
}

#[test]
fn activations() {
    let Some(mut s) = Suite::new("activations", ACTIVATION_OPS) else { return };
    for &op in ACTIVATION_OPS {
        for dt in s.types(op, "input") {
            let io = same(&["input", "output"], dt);
            let x = s.input(
                "x",
                dt,
                &[2, 3, 5],
                if is_float(dt) { Gen::Range(-5.0, 5.0) } else { Gen::Range(-50.0, 50.0) },
            );
            let tol = match op {
                Elu | Gelu | Softplus => Tol::ulp(18, 18),
                HardSigmoid | Linear => Tol::ulp(2, 2),
                HardSwish => Tol::ulp(4, 4),
                LeakyRelu => Tol::ulp(1, 2),
                Relu => Tol::EXACT,
                Sigmoid => Tol::ulp(34, 10),
                Softsign => Tol::ulp(3, 3),
                Tanh => Tol::atol(1.0 / 1024.0, 1.0 / 512.0),
                Softmax => Tol::ulp(5 * 3 + 3, 5 * 3 + 3),
                _ => Tol::ulp(1, 1), // prelu
            };
            match op {
                Elu => s.run(op, &io, "alpha 0.7", vec![x], tol, |b, x| {
                    Ok(vec![b.elu(&x[0], &EluOptions { alpha: 0.7, ..Default::default() })?])
                }),
                HardSigmoid => {
                    s.run(op, &io, "alpha 0.3 beta 0.4", vec![x], tol, |b, x| {
                        Ok(vec![b.hard_sigmoid(
                            &x[0],
                            &HardSigmoidOptions { alpha: 0.3, beta: 0.4, ..Default::default() },
                        )?])
                    })
                }
                LeakyRelu => s.run(op, &io, "alpha 0.15", vec![x], tol, |b, x| {
                    Ok(vec![b.leaky_relu(&x[0], &LeakyReluOptions { alpha: 0.15, ..Default::default() })?])
                }),
                Linear => s.run(op, &io, "alpha 1.5 beta -0.25", vec![x], tol, |b, x| {
                    Ok(vec![b.linear(&x[0], &LinearOptions { alpha: 1.5, beta: -0.25, ..Default::default() })?])
                }),
                Softmax => {
                    s.run(op, &io, "axis 2", vec![x], tol, |b, x| Ok(vec![b.softmax(&x[0], 2, &NO)?]));
                    let x = s.input("x", dt, &[2, 5, 3], Gen::Range(-8.0, 8.0));
                    s.run(op, &io, "[2,5,3] axis 1", vec![x], tol, |b, x| Ok(vec![b.softmax(&x[0], 1, &NO)?]));
                    let x = s.input("x", dt, &[3, 1000], Gen::Range(-8.0, 8.0));
                    let tol = Tol::ulp(3003, 3003).and_atol(1e-7, 1e-5);
                    s.run(op, &io, "[3,1000] axis 1", vec![x], tol, |b, x| Ok(vec![b.softmax(&x[0], 1, &NO)?]));
                }
                Prelu => {
                    let slope = s.input("slope", dt, &[3, 5], Gen::Range(-2.0, 2.0));
                    let m = [("input", dt), ("slope", dt), ("output", dt)];
                    s.run(op, &m, "slope [3,5]", vec![x, slope], tol, |b, x| Ok(vec![b.prelu(&x[0], &x[1], &NO)?]));
                    let slope = s.constant(dt, &[2, 1, 1], Gen::Range(-2.0, 2.0));
                    let x = s.input("x", dt, &[5], Gen::Range(-5.0, 5.0));
                    s.run(op, &m, "[5] by constant slope [2,1,1]", vec![x, slope], tol, |b, x| {
                        Ok(vec![b.prelu(&x[0], &x[1], &NO)?])
                    });
                }
                _ => s.run(op, &io, "", vec![x], tol, move |b, x| Ok(vec![b.core_mut().activation(op, &x[0], &NO)?])),
            }
        }
    }
    s.finish();
}

#[test]
fn cast_and_clamp() {
    let Some(mut s) = Suite::new("cast_and_clamp", CAST_CLAMP_OPS) else { return };
    for from in s.types(Cast, "input") {
        for to in s.types(Cast, "output") {
            // Values every type of the pair represents (conversions out of range are
            // implementation-defined), with fractions for float inputs.
            let (lo, hi) = [from, to].iter().fold((-100.0f64, 200.0f64), |(lo, hi), &t| match int_range(t) {
                Some((a, b)) => (lo.max(a as f64), hi.min(b as f64)),
                None => (lo, hi),
            });
            let tol = if is_float(to) { Tol::ulp(1, 1) } else { Tol::EXACT };
            let ins = vec![s.input("x", from, &[2, 3, 5], Gen::Range(lo, hi))];
            s.run(Cast, &[("input", from), ("output", to)], "[2,3,5]", ins, tol, move |b, x| {
                Ok(vec![b.cast(&x[0], to, &NO)?])
            });
        }
    }
    for dt in s.types(Clamp, "input") {
        let io = same(&["input", "output"], dt);
        let (min, max) = if int_range(dt).is_some_and(|r| r.0 == 0) { (3.0, 20.0) } else { (-5.0, 20.0) };
        let ins = vec![s.input("x", dt, &[2, 3, 5], Gen::Range(-30.0, 30.0))];
        s.run(Clamp, &io, "min/max", ins, Tol::BITS, move |b, x| {
            Ok(vec![b.clamp(
                &x[0],
                &ClampOptions { min_value: Some(min.into()), max_value: Some(max.into()), ..Default::default() },
            )?])
        });
        let ins = vec![s.input("x", dt, &[4, 7], Gen::Bits)];
        s.run(Clamp, &io, "min only, whole range", ins, Tol::EXACT, move |b, x| {
            Ok(vec![b.clamp(&x[0], &ClampOptions { min_value: Some(min.into()), ..Default::default() })?])
        });
    }
    s.finish();
}

// ---------------------------------------------------------------------------------------------
// Matmul, gemm, convolutions, pooling
