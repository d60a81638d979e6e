//! Target `onnx_import`: bytes → `OnnxModel` → import into a builder → build → run with
//! zero-filled inputs when the graph is small.

use webnn_onnx::{import, ImportOptions, OnnxModel};

/// Folding limit of the fuzzed imports: small, so that folded constants stay cheap.
const FOLD_LIMIT: usize = 1 << 16;

/// Runs one input. External data has no base directory here: such models fail to import.
pub fn run(data: &[u8]) {
    let Ok(model) = OnnxModel::from_bytes(data, None) else {
        return;
    };
    let _ = (model.inputs(), model.output_names());
    let mut builder = crate::exec::builder();
    let options = ImportOptions { fold_limit: FOLD_LIMIT, ..Default::default() };
    let imported = match import(&model, &mut builder, &options) {
        Ok(g) => g,
        Err(e) => {
            // Every error maps to a spec error kind and has a message.
            let e: webnn_core::Error = e.into();
            assert!(!e.message.is_empty());
            return;
        }
    };
    let Ok(graph) = builder.build(&imported.named_outputs()) else {
        return;
    };
    crate::exec::run(&graph, |_, len| vec![0; len]);
}
