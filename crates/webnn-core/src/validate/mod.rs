//! Pure validation functions, one file per op family: (operand descriptors, options) →
//! output descriptor(s) and resolved attributes, or a TypeError. They never touch data.
//! Shared algorithms of [spec](https://www.w3.org/TR/webnn/#algorithms) live here.

pub(crate) mod activation;
pub(crate) mod conv;
pub(crate) mod elementwise;
pub(crate) mod gather;
pub(crate) mod normalization;
pub(crate) mod recurrent;
pub(crate) mod reduction;
pub(crate) mod shape;

use crate::error::{label_prefix, Error, Result};
use crate::limits;
use crate::ops::OpKind;
use crate::types::OperandDescriptor;

/// The op being validated and its label: what a validator needs for its error messages and
/// limits checks. Validators are pure functions of (this, operand descriptors, options); they
/// do not see the builder, so a graph-level check can call them too.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpCall<'a> {
    pub op: OpKind,
    pub label: &'a str,
}

impl OpCall<'_> {
    /// A TypeError whose message is `[label] op: msg`.
    pub fn error(&self, msg: impl std::fmt::Display) -> Error {
        Error::type_error(format!("{}{}: {msg}", label_prefix(self.label), self.op))
    }
    /// Checks `desc` against the limits table entry `member` of this op.
    pub fn check_limits(&self, member: &str, desc: &OperandDescriptor) -> Result<()> {
        limits::check_member(self.op, self.label, member, desc)
    }
}

/// Tests common to the data-movement ops of `shape.rs` and `gather.rs`.
#[cfg(test)]
mod movement_tests;
/// Helpers shared by the validator table tests.
#[cfg(test)]
mod test_support;

/// TypeError unless `what`'s rank equals the rank of `reference` (named `reference_name`).
pub(crate) fn check_same_rank(
    call: &OpCall,
    what: &str,
    desc: &OperandDescriptor,
    reference_name: &str,
    reference: &OperandDescriptor,
) -> crate::error::Result<()> {
    if desc.rank() != reference.rank() {
        return Err(call.error(format_args!(
            "{what} rank {} (shape {:?}) must equal {reference_name} rank {} (shape {:?})",
            desc.rank(),
            desc.shape,
            reference.rank(),
            reference.shape
        )));
    }
    Ok(())
}

/// TypeError unless the sizes of the lists `a` and `b` (named `a_name` and `b_name`) both equal
/// the input rank `rank`.
pub(crate) fn check_sizes_are_rank(
    call: &OpCall,
    a_name: &str,
    a: usize,
    b_name: &str,
    b: usize,
    rank: usize,
) -> crate::error::Result<()> {
    if a != rank || b != rank {
        return Err(
            call.error(format_args!("{a_name} size {a} and {b_name} size {b} must both equal the input rank {rank}"))
        );
    }
    Ok(())
}

/// *unidirectionally broadcast the shapes*
/// ([spec](https://www.w3.org/TR/webnn/#algorithms-broadcasting)): `from` broadcast to `to`, or
/// `None`.
pub fn broadcast_unidirectional(from: &[u32], to: &[u32]) -> Option<Vec<u32>> {
    if from.len() > to.len() {
        return None;
    }
    let pad = to.len() - from.len();
    for (i, &t) in to.iter().enumerate() {
        let f = if i < pad { 1 } else { from[i - pad] };
        if f != t && f != 1 {
            return None;
        }
    }
    Some(to.to_vec())
}

/// *bidirectionally broadcast the shapes*
/// ([spec](https://www.w3.org/TR/webnn/#algorithms-broadcasting)): the numpy broadcast of `a` and
/// `b`, or `None`.
pub fn broadcast_bidirectional(a: &[u32], b: &[u32]) -> Option<Vec<u32>> {
    let rank = a.len().max(b.len());
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let da = if i + a.len() >= rank { a[i + a.len() - rank] } else { 1 };
        let db = if i + b.len() >= rank { b[i + b.len() - rank] } else { 1 };
        if da != db && da != 1 && db != 1 {
            return None;
        }
        out.push(da.max(db));
    }
    Some(out)
}

/// *blockwise broadcastable* ([spec](https://www.w3.org/TR/webnn/#algorithms-broadcasting)): same
/// rank and every `to[i]` a multiple of `from[i]`.
pub fn blockwise_broadcastable(from: &[u32], to: &[u32]) -> bool {
    from.len() == to.len() && from.iter().zip(to).all(|(&f, &t)| f != 0 && t % f == 0)
}

/// *calculate reduction output sizes* ([spec](https://www.w3.org/TR/webnn/#algorithms)): `axes`
/// absent reduces all dims; duplicate or out-of-range axes fail (the spec's "return failure", a
/// TypeError for the caller).
pub fn reduction_output_shape(
    input: &[u32],
    axes: Option<&[u32]>,
    keep_dimensions: bool,
) -> Result<(Vec<u32>, Vec<u32>), String> {
    let rank = input.len() as u32;
    let axes: Vec<u32> = match axes {
        None => (0..rank).collect(),
        Some(axes) => {
            let mut seen = vec![false; input.len()];
            for &a in axes {
                if a >= rank {
                    return Err(format!("axis {a} is out of range for rank {rank}"));
                }
                if std::mem::replace(&mut seen[a as usize], true) {
                    return Err(format!("axis {a} is repeated in axes {axes:?}"));
                }
            }
            axes.to_vec()
        }
    };
    let mut shape = Vec::with_capacity(input.len());
    for (i, &d) in input.iter().enumerate() {
        if axes.contains(&(i as u32)) {
            if keep_dimensions {
                shape.push(1);
            }
        } else {
            shape.push(d);
        }
    }
    let mut sorted = axes;
    sorted.sort_unstable();
    Ok((shape, sorted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_bidirectional(&[2, 1, 4], &[3, 1]), Some(vec![2, 3, 4]));
        assert_eq!(broadcast_bidirectional(&[], &[5]), Some(vec![5]));
        assert_eq!(broadcast_bidirectional(&[2], &[3]), None);
        assert_eq!(broadcast_unidirectional(&[1, 4], &[3, 4]), Some(vec![3, 4]));
        assert_eq!(broadcast_unidirectional(&[3, 4], &[1, 4]), None);
        assert_eq!(broadcast_unidirectional(&[2, 3, 4], &[3, 4]), None);
        assert!(blockwise_broadcastable(&[4, 5], &[16, 10]));
        assert!(!blockwise_broadcastable(&[4, 5], &[9, 3]));
        assert!(!blockwise_broadcastable(&[5], &[1, 5]));
    }

    #[test]
    fn reduction_shapes() {
        assert_eq!(reduction_output_shape(&[2, 3, 4], Some(&[1]), true).unwrap().0, vec![2, 1, 4]);
        assert_eq!(reduction_output_shape(&[2, 3, 4], None, false).unwrap().0, Vec::<u32>::new());
        assert_eq!(reduction_output_shape(&[2, 3, 4], Some(&[]), false).unwrap().0, vec![2, 3, 4]);
        assert!(reduction_output_shape(&[2, 3], Some(&[2]), false).is_err());
        assert!(reduction_output_shape(&[2, 3], Some(&[1, 1]), false).is_err());
    }
}
