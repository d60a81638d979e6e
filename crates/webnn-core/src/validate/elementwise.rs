//! Element-wise binary ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)), logical
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)) and unary
//! ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-unary)) ops.

use super::broadcast_bidirectional;
use super::OpCall;
use crate::error::Result;
use crate::ops::OpKind;
use crate::types::{DataType, OperandDescriptor};

/// *create element-wise binary operation*
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-binary)) and the binary part of *create
/// element-wise logical operation*
/// ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)): same data types,
/// bidirectional broadcast. Comparison and logical ops output uint8.
pub(crate) fn binary(call: &OpCall, a: &OperandDescriptor, b: &OperandDescriptor) -> Result<OperandDescriptor> {
    if a.data_type != b.data_type {
        return Err(call.error(format_args!("a data type {} must equal b data type {}", a.data_type, b.data_type)));
    }
    let shape = broadcast_bidirectional(&a.shape, &b.shape)
        .ok_or_else(|| call.error(format_args!("shapes {:?} and {:?} are not broadcastable", a.shape, b.shape)))?;
    let data_type = if is_logical(call.op) { DataType::Uint8 } else { a.data_type };
    Ok(OperandDescriptor::new(data_type, shape))
}

/// True for the ops of [spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical) (uint8
/// output).
pub(crate) fn is_logical(op: OpKind) -> bool {
    use OpKind::*;
    matches!(
        op,
        Equal
            | NotEqual
            | Greater
            | GreaterOrEqual
            | Lesser
            | LesserOrEqual
            | LogicalNot
            | LogicalAnd
            | LogicalOr
            | LogicalXor
            | IsNaN
            | IsInfinite
    )
}

/// logicalNot, isNaN, isInfinite ([spec](https://www.w3.org/TR/webnn/#api-mlgraphbuilder-logical)):
/// the allowed type is in the limits table; the output is uint8 of the input's shape.
pub(crate) fn logical_unary(a: &OperandDescriptor) -> OperandDescriptor {
    OperandDescriptor::new(DataType::Uint8, a.shape.clone())
}

#[cfg(test)]
mod tests {
    use crate::testing::*;
    use crate::{DataType::*, ErrorKind};

    #[test]
    fn binary_ops_broadcast_and_keep_type() {
        for op in [OpKind::Add, OpKind::Sub, OpKind::Mul, OpKind::Div, OpKind::Max, OpKind::Min, OpKind::Pow] {
            for t in DataType::ALL {
                let mut b = builder();
                let x = b.input("x", &desc(t, &[2, 1, 4])).unwrap();
                let y = b.input("y", &desc(t, &[3, 1])).unwrap();
                let out = b.binary(op, &x, &y, &OperatorOptions::default()).unwrap();
                assert_eq!(out.descriptor(), &desc(t, &[2, 3, 4]), "{op} {t}");
            }
        }
    }

    #[test]
    fn binary_errors() {
        let mut b = builder();
        let x = b.input("x", &desc(Float32, &[2, 3])).unwrap();
        let y = b.input("y", &desc(Float16, &[2, 3])).unwrap();
        let z = b.input("z", &desc(Float32, &[4])).unwrap();
        let s = b.input("s", &desc(Float32, &[])).unwrap();
        assert_type_error(b.add(&x, &y, &labeled("l")), "[l] add");
        assert_type_error(b.mul(&x, &z, &OperatorOptions::default()), "mul");
        assert_eq!(b.sub(&x, &s, &OperatorOptions::default()).unwrap().shape(), &[2, 3]);
        let mut other = builder();
        let w = other.input("w", &desc(Float32, &[2, 3])).unwrap();
        assert_type_error(b.add(&x, &w, &OperatorOptions::default()), "another MLGraphBuilder");
        let n = b.operation_count();
        assert!(b.pow(&x, &z, &OperatorOptions::default()).is_err());
        assert_eq!(b.operation_count(), n, "a throwing call adds nothing");
    }

    #[test]
    fn comparisons_output_uint8_for_any_type() {
        for op in [
            OpKind::Equal,
            OpKind::NotEqual,
            OpKind::Greater,
            OpKind::GreaterOrEqual,
            OpKind::Lesser,
            OpKind::LesserOrEqual,
        ] {
            for t in DataType::ALL {
                let mut b = builder();
                let x = b.input("x", &desc(t, &[3])).unwrap();
                let y = b.input("y", &desc(t, &[2, 1])).unwrap();
                let out = b.binary(op, &x, &y, &OperatorOptions::default()).unwrap();
                assert_eq!(out.descriptor(), &desc(Uint8, &[2, 3]), "{op}");
            }
        }
    }

    #[test]
    fn logical_ops_require_uint8() {
        for op in [OpKind::LogicalAnd, OpKind::LogicalOr, OpKind::LogicalXor] {
            let mut b = builder();
            let x = b.input("x", &desc(Uint8, &[3])).unwrap();
            let y = b.input("y", &desc(Uint8, &[3])).unwrap();
            assert_eq!(b.binary(op, &x, &y, &OperatorOptions::default()).unwrap().data_type(), Uint8);
            let f = b.input("f", &desc(Float32, &[3])).unwrap();
            assert_type_error(b.binary(op, &f, &f, &OperatorOptions::default()), op.idl_name());
            assert_type_error(b.binary(op, &x, &f, &OperatorOptions::default()), op.idl_name());
        }
        let mut b = builder();
        let x = b.input("x", &desc(Uint8, &[3])).unwrap();
        assert_eq!(b.logical_not(&x, &OperatorOptions::default()).unwrap().descriptor(), &desc(Uint8, &[3]));
        let f = b.input("f", &desc(Float32, &[3])).unwrap();
        assert_type_error(b.logical_not(&f, &OperatorOptions::default()), "logicalNot");
        assert_eq!(b.is_nan(&f, &OperatorOptions::default()).unwrap().descriptor(), &desc(Uint8, &[3]));
        assert_eq!(b.is_infinite(&f, &OperatorOptions::default()).unwrap().data_type(), Uint8);
        assert_type_error(b.is_nan(&x, &OperatorOptions::default()), "isNaN");
        let i = b.input("i", &desc(Int32, &[3])).unwrap();
        assert_type_error(b.is_infinite(&i, &OperatorOptions::default()), "isInfinite");
    }

    #[test]
    fn unary_ops_allowed_types() {
        use crate::limits::member_limits;
        let unary: Vec<OpKind> = OpKind::in_spec_section("unary").collect();
        assert_eq!(unary.len(), 15, "{unary:?}");
        for op in unary {
            let allowed = member_limits(op, "input").unwrap().data_types;
            for t in DataType::ALL {
                for shape in [&[][..], &[5][..], &[2, 3, 4, 5][..]] {
                    let mut b = builder();
                    let x = b.input("x", &desc(t, shape)).unwrap();
                    let r = b.unary(op, &x, &OperatorOptions::default());
                    if allowed.contains(&t) {
                        assert_eq!(r.unwrap().descriptor(), &desc(t, shape), "{op} {t}");
                    } else {
                        assert_eq!(r.unwrap_err().kind, ErrorKind::Type, "{op} {t}");
                    }
                }
            }
        }
        let mut b = builder();
        let x = b.input("x", &desc(Int64, &[2])).unwrap();
        assert!(b.abs(&x, &OperatorOptions::default()).is_ok());
        assert!(b.neg(&x, &OperatorOptions::default()).is_ok());
        assert!(b.sign(&x, &OperatorOptions::default()).is_ok());
        assert_type_error(b.exp(&x, &OperatorOptions::default()), "exp");
        assert_type_error(b.unary(OpKind::Softmax, &x, &OperatorOptions::default()), "not an element-wise unary");
        assert_type_error(b.binary(OpKind::Relu, &x, &x, &OperatorOptions::default()), "not an element-wise binary");
        let u = b.input("u", &desc(Uint32, &[2])).unwrap();
        assert_type_error(b.abs(&u, &OperatorOptions::default()), "abs");
        assert!(b.identity(&u, &OperatorOptions::default()).is_ok());
    }
}
