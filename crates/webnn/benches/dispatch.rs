//! Per-call cost of a trivial graph: `c = a + b` on 1×4 float32 tensors, one call =
//! `writeTensor(a)`, `writeTensor(b)`, `dispatch()`, `readTensor(c)` waited on. The median over
//! many calls, in microseconds, for 1 and 2 threads (`cargo bench -p webnn --bench dispatch`).
//! ONNX Runtime's `run()` on the same graph: `python3 bench/dispatch.py`.

use std::time::Instant;
use webnn::*;

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn median_us(mut f: impl FnMut(), calls: usize) -> f64 {
    for _ in 0..calls / 10 {
        f();
    }
    let mut samples: Vec<f64> = (0..calls)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() -> Result<()> {
    for threads in [1, 2] {
        let context = ml().create_context(&ContextOptions { threads: Some(threads), ..ContextOptions::default() })?;
        let mut builder = GraphBuilder::new(&context)?;
        let desc = OperandDescriptor::new(DataType::Float32, vec![1, 4]);
        let a = builder.input("a", &desc)?;
        let b = builder.input("b", &desc)?;
        let c = builder.add(&a, &b, &OperatorOptions::default())?;
        let graph = builder.build(&[("c", &c)])?;
        let tensor = |readable, writable| {
            context.create_tensor(
                &TensorDescriptor::new(DataType::Float32, vec![1, 4]).readable(readable).writable(writable),
            )
        };
        let (ta, tb, tc) = (tensor(false, true)?, tensor(false, true)?, tensor(true, false)?);
        let (xa, xb) = (f32_bytes(&[1.0, 2.0, 3.0, 4.0]), f32_bytes(&[0.5; 4]));
        let mut out = vec![0u8; 16];
        let mut call = || {
            context.write_tensor(&ta, &xa).expect("write a");
            context.write_tensor(&tb, &xb).expect("write b");
            context.dispatch(&graph, &[("a", &ta), ("b", &tb)], &[("c", &tc)]).expect("dispatch");
            context.read_tensor_into(&tc, &mut out).expect("read");
        };
        let full = median_us(&mut call, 20_000);
        assert_eq!(out, f32_bytes(&[1.5, 2.5, 3.5, 4.5]), "a + b");
        let read_only = median_us(|| context.read_tensor_into(&tc, &mut out).expect("read"), 20_000);
        println!("add 1x4, {threads} thread(s): write+write+dispatch+read {full:.2} us, read alone {read_only:.2} us");
    }
    Ok(())
}
