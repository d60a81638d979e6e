//! Target `npy`: the CLI's `.npy` parser. Whatever it accepts must be consistent (data length
//! = element count × element size) and survive a write/read round trip unchanged.

use webnn_cli::npy::{parse, to_bytes};

/// Runs one input.
pub fn run(data: &[u8]) {
    let Ok(array) = parse(data) else {
        return;
    };
    let count = array.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    assert_eq!(count.and_then(|n| n.checked_mul(array.dtype.size())), Some(array.data.len()));
    let written = to_bytes(&array).expect("an accepted array can be written");
    assert_eq!(parse(&written).expect("a written array can be read"), array);
}
