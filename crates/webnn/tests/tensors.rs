//! createTensor / createConstantTensor / readTensor / writeTensor checks
//! ([spec](https://www.w3.org/TR/webnn/#api-mlcontext)) and MLTensor attributes
//! ([spec](https://www.w3.org/TR/webnn/#api-mltensor)).

mod common;
use common::*;
use webnn::*;

#[test]
fn create_tensor_attributes_and_zero_fill() {
    let context = ctx();
    for (dt, shape, readable, writable) in [
        (DataType::Float32, vec![2, 3], true, false),
        (DataType::Float16, vec![5], true, true),
        (DataType::Int64, vec![], true, false),
        (DataType::Uint8, vec![1, 1, 1, 7], true, true),
        (DataType::Int8, vec![3], false, true),
    ] {
        let t = context.create_tensor(&tdesc(dt, &shape, readable, writable)).unwrap();
        assert_eq!(t.data_type(), dt);
        assert_eq!(t.shape(), &shape[..]);
        assert_eq!(t.readable(), readable);
        assert_eq!(t.writable(), writable);
        assert!(!t.constant());
        assert!(!t.is_destroyed());
        let len = shape.iter().product::<u32>() as usize * dt.byte_size();
        assert_eq!(t.byte_length(), len);
        if readable {
            assert_eq!(context.read_tensor(&t).wait().unwrap(), vec![0u8; len], "zero-filled");
        }
    }
}

#[test]
fn create_tensor_checks_dimensions_d23() {
    let context = ctx();
    let cases: [(&[u32], &str); 5] = [
        (&[0], "dimension 0"),
        (&[2, 0, 3], "dimension 1"),
        (&[u32::MAX], "dimension 0"),
        (&[65536, 65536], "element count"),
        (&[1, 1, 1, 1, 1, 1, 1, 1, 1], "rank 9"),
    ];
    for (shape, needle) in cases {
        assert_err(context.create_tensor(&tdesc(DataType::Float32, shape, true, true)), ErrorKind::Type, needle);
        assert_err(context.create_constant_tensor(&desc(DataType::Float32, shape), &[]), ErrorKind::Type, needle);
    }
}

#[test]
fn create_on_a_lost_context_is_an_invalid_state_error_before_other_checks() {
    let context = ctx();
    context.destroy();
    assert_err(context.create_tensor(&tdesc(DataType::Float32, &[2], true, true)), ErrorKind::InvalidState, "lost");
    // Lost is checked before the descriptor.
    assert_err(context.create_tensor(&tdesc(DataType::Float32, &[0], true, true)), ErrorKind::InvalidState, "lost");
    assert_err(
        context.create_constant_tensor(&desc(DataType::Float32, &[0]), &[1, 2]),
        ErrorKind::InvalidState,
        "lost",
    );
}

#[test]
fn create_constant_tensor_checks_and_attributes() {
    let context = ctx();
    let d = desc(DataType::Float32, &[2, 2]);
    assert_err(context.create_constant_tensor(&d, &[0u8; 15]), ErrorKind::Type, "has 15 bytes");
    assert_err(context.create_constant_tensor(&d, &[0u8; 17]), ErrorKind::Type, "needs 16");
    assert_err(context.create_constant_tensor(&d, &[]), ErrorKind::Type, "has 0 bytes");
    let k = context.create_constant_tensor(&d, &f32_bytes(&[1.0, 2.0, 3.0, 4.0])).unwrap();
    assert!(k.constant());
    assert!(!k.readable());
    assert!(!k.writable());
    assert_eq!(k.data_type(), DataType::Float32);
    assert_eq!(k.shape(), &[2, 2]);
    // A constant tensor can be neither read nor written.
    assert_err(context.read_tensor(&k).wait(), ErrorKind::Type, "constant tensor");
    assert_err(context.read_tensor_into(&k, &mut [0u8; 16]), ErrorKind::Type, "readable");
    assert_err(context.write_tensor(&k, &[0u8; 16]), ErrorKind::Type, "writable");
    // float16 takes raw 16-bit patterns (decisions.md D1: bytes in Rust).
    let h = context.create_constant_tensor(&desc(DataType::Float16, &[3]), &[0, 0x3c, 0, 0x40, 0, 0x42]).unwrap();
    assert_eq!(h.byte_length(), 6);
}

/// The tensors of the read and write checks, all float32 [2].
struct Checked {
    context: Context,
    other: Context,
    /// Of `context`, lacking the usage under test.
    lacking: Tensor,
    /// Of `context`, with the usage under test.
    usable: Tensor,
    /// Of `other`, readable and writable.
    foreign: Tensor,
    /// Of `context`, readable and writable, destroyed.
    destroyed: Tensor,
}

/// [`Checked`] tensors whose `lacking` and `usable` ones have the (readable, writable) flags given.
fn checked_tensors(lacking: (bool, bool), usable: (bool, bool)) -> Checked {
    let context = ctx();
    let other = ctx();
    let make = |c: &Context, (readable, writable): (bool, bool)| {
        c.create_tensor(&tdesc(DataType::Float32, &[2], readable, writable)).unwrap()
    };
    let lacking = make(&context, lacking);
    let usable = make(&context, usable);
    let foreign = make(&other, (true, true));
    let destroyed = make(&context, (true, true));
    destroyed.destroy();
    Checked { context, other, lacking, usable, foreign, destroyed }
}

#[test]
fn read_checks() {
    let Checked { context, other, lacking: not_readable, usable: readable, foreign, destroyed } =
        checked_tensors((false, true), (true, false));
    let cases = [(&not_readable, "readable: true"), (&foreign, "another context"), (&destroyed, "destroyed")];
    for (t, needle) in cases {
        let p = context.read_tensor(t);
        assert!(p.is_settled(), "a failed check rejects at once");
        assert_err(p.wait(), ErrorKind::Type, needle);
        assert_err(context.read_tensor_into(t, &mut [0u8; 8]), ErrorKind::Type, needle);
    }
    // BYOB size check.
    for len in [0usize, 4, 7, 9, 16] {
        assert_err(context.read_tensor_into(&readable, &mut vec![0u8; len]), ErrorKind::Type, "needs 8");
    }
    // The context check comes first: a destroyed, unreadable tensor of another context.
    let foreign2 = other.create_tensor(&tdesc(DataType::Float32, &[2], false, false)).unwrap();
    foreign2.destroy();
    assert_err(context.read_tensor(&foreign2).wait(), ErrorKind::Type, "another context");
    // Destroyed before readable.
    not_readable.destroy();
    assert_err(context.read_tensor(&not_readable).wait(), ErrorKind::Type, "destroyed");
}

#[test]
fn write_checks() {
    let Checked { context, other: _other, lacking: not_writable, usable: writable, foreign, destroyed } =
        checked_tensors((true, false), (true, true));
    let cases = [(&not_writable, "writable: true"), (&foreign, "another context"), (&destroyed, "destroyed")];
    for (t, needle) in cases {
        assert_err(context.write_tensor(t, &[0u8; 8]), ErrorKind::Type, needle);
    }
    for len in [0usize, 1, 4, 12] {
        assert_err(context.write_tensor(&writable, &vec![0u8; len]), ErrorKind::Type, "needs 8");
    }
    // Nothing was written by the failed calls.
    assert_eq!(context.read_tensor(&writable).wait().unwrap(), vec![0u8; 8]);
}

#[test]
fn writes_and_reads_happen_in_call_order() {
    let context = ctx();
    let t = context.create_tensor(&tdesc(DataType::Int32, &[1], true, true)).unwrap();
    let mut reads = Vec::new();
    for i in 0..50 {
        context.write_tensor(&t, &i32_bytes(&[i])).unwrap();
        reads.push(context.read_tensor(&t));
    }
    for (i, r) in reads.into_iter().enumerate() {
        assert_eq!(to_i32(&r.wait().unwrap()), vec![i as i32]);
    }
    // The bytes are copied at call time: the caller may reuse its buffer at once.
    let mut buf = i32_bytes(&[7]);
    context.write_tensor(&t, &buf).unwrap();
    buf.copy_from_slice(&i32_bytes(&[8]));
    let mut out = [0u8; 4];
    context.read_tensor_into(&t, &mut out).unwrap();
    assert_eq!(to_i32(&out), vec![7]);
}

#[test]
fn tensor_clones_share_state() {
    let context = ctx();
    let t = context.create_tensor(&tdesc(DataType::Float32, &[1], true, true)).unwrap();
    let t2 = t.clone();
    assert_eq!(t, t2);
    context.write_tensor(&t2, &f32_bytes(&[5.0])).unwrap();
    assert_eq!(read_f32(&context, &t), vec![5.0]);
    t2.destroy();
    assert!(t.is_destroyed());
    assert_err(context.read_tensor(&t).wait(), ErrorKind::Type, "destroyed");
    let u = context.create_tensor(&tdesc(DataType::Float32, &[1], true, true)).unwrap();
    assert_ne!(t, u);
}

#[test]
fn tensors_outlive_dropped_context_handles() {
    let t;
    let pending;
    {
        let context = ctx();
        t = rw_tensor(&context, &[3], &[1.0, 2.0, 3.0]);
        pending = context.read_tensor(&t);
    }
    assert_eq!(to_f32(&pending.wait().unwrap()), vec![1.0, 2.0, 3.0]);
    t.destroy();
}
