//! Spec types: data types, descriptors, numbers, enums and option dictionaries.

mod data_type;
mod descriptor;
mod enums;
mod number;
pub mod options;

pub use data_type::DataType;
pub use descriptor::{element_count, is_valid_dimension, OperandDescriptor, TensorDescriptor, MAX_DIMENSION, MAX_RANK};
pub use enums::*;
pub use number::{MLNumber, Scalar};
