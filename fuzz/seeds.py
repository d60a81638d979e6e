#!/usr/bin/env python3
"""Writes the seed corpus of a fuzz target into a directory (see README.md).

    python3 seeds.py onnx_import DIR [SHARED_MODELS_DIR]
    python3 seeds.py npy DIR

onnx_import: every model of onnx's backend node tests (generated from the installed `onnx`
wheel, as crates/webnn-onnx/tests does) up to 64 KiB; the shared models with each
initializer replaced by a ConstantOfShape node of its shape (the exporter's graph in a few
KiB); and a few tiny hand-made models. npy: arrays written by numpy itself (every dtype the
reader takes and some it refuses, ranks 0 to 8, empty arrays, format versions 1.0 to 3.0,
Fortran order, big-endian). builder_ops seeds come from the fuzz binary (run.sh).
"""
import io
import os
import sys
import warnings

warnings.simplefilter("ignore")  # the node test generators compute infinities on purpose

MAX_SEED = 64 * 1024


def write(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def onnx_seeds(out, models_dir):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    import numpy as np

    count = 0
    try:
        import onnx.backend.test.case.node as node_cases

        for case in node_cases.collect_testcases():
            data = case.model.SerializeToString()
            if len(data) <= MAX_SEED:
                write(out, f"node-{case.name}.onnx", data)
                count += 1
    except Exception as e:  # an onnx without the generators: the other seeds still help
        print(f"onnx node tests not available: {e}", file=sys.stderr)

    for path in sorted(os.listdir(models_dir)) if models_dir and os.path.isdir(models_dir) else []:
        if not path.endswith(".onnx"):
            continue
        model = onnx.load(os.path.join(models_dir, path), load_external_data=False)
        graph = model.graph
        nodes = []
        for init in graph.initializer:
            shape = helper.make_tensor(init.name + "_shape", TensorProto.INT64, [len(init.dims)], list(init.dims))
            value = helper.make_tensor("value", init.data_type, [1], [0.01] if init.data_type in (1, 10, 11) else [1])
            nodes.append(helper.make_node("Constant", [], [init.name + "_shape"], value=shape))
            nodes.append(helper.make_node("ConstantOfShape", [init.name + "_shape"], [init.name], value=value))
        names = {i.name for i in graph.initializer}
        inputs = [i for i in graph.input if i.name not in names]
        del graph.initializer[:]
        del graph.input[:]
        graph.input.extend(inputs)
        nodes.extend(graph.node)
        del graph.node[:]
        graph.node.extend(nodes)
        data = model.SerializeToString()
        if len(data) <= MAX_SEED * 4:
            write(out, "shrunk-" + path, data)
            count += 1

    f32 = TensorProto.FLOAT

    def model(nodes, inputs, outputs, inits=(), opset=17):
        g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
        return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()

    x = helper.make_tensor_value_info("x", f32, [2, 3])
    y = helper.make_tensor_value_info("y", f32, [2, 3])
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    tiny = {
        "add.onnx": model([helper.make_node("Add", ["x", "w"], ["y"])], [x], [y], [w]),
        "external.onnx": model([helper.make_node("Add", ["x", "w"], ["y"])], [x], [y], [w]),
        "constant_of_shape.onnx": model(
            [
                helper.make_node("ConstantOfShape", ["s"], ["c"]),
                helper.make_node("Add", ["c", "c"], ["y"]),
            ],
            [],
            [helper.make_tensor_value_info("y", f32, [4])],
            [helper.make_tensor("s", TensorProto.INT64, [1], [4])],
        ),
        "shape_fold.onnx": model(
            [
                helper.make_node("Shape", ["x"], ["s"]),
                helper.make_node("Reshape", ["x", "s"], ["r"]),
                helper.make_node("Relu", ["r"], ["y"]),
            ],
            [x],
            [y],
        ),
        "lstm.onnx": model(
            [helper.make_node("LSTM", ["x3", "W", "R"], ["", "h"], hidden_size=2)],
            [helper.make_tensor_value_info("x3", f32, [3, 1, 2])],
            [helper.make_tensor_value_info("h", f32, [1, 1, 2])],
            [
                numpy_helper.from_array(np.full((1, 8, 2), 0.1, np.float32), "W"),
                numpy_helper.from_array(np.full((1, 8, 2), 0.2, np.float32), "R"),
            ],
        ),
    }
    ext = onnx.ModelProto()
    ext.ParseFromString(tiny["external.onnx"])
    t = ext.graph.initializer[0]
    t.ClearField("raw_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "w.bin"), ("offset", "0"), ("length", "24")):
        e = t.external_data.add()
        e.key, e.value = k, v
    tiny["external.onnx"] = ext.SerializeToString()
    for name, data in tiny.items():
        write(out, "tiny-" + name, data)

    # A libFuzzer dictionary beside the corpus: operator and attribute names.
    words = set()
    for schema in onnx.defs.get_all_schemas():
        if schema.domain in ("", "ai.onnx"):
            words.add(schema.name)
            words.update(schema.attributes.keys())
    with open(out.rstrip("/") + ".dict", "w") as f:
        f.writelines(f'"{w}"\n' for w in sorted(words) if w.isascii() and '"' not in w and "\\" not in w)
    return count + len(tiny)


def npy_seeds(out):
    import numpy as np

    arrays = []
    for dtype in ["<f4", "<f2", "<i4", "<u4", "<i8", "<u8", "|i1", "|u1", "|b1", "<f8", ">f4", "<c8"]:
        for shape in [(), (3,), (2, 3), (1, 2, 1, 2), (0, 4), (1,) * 8]:
            arrays.append((f"{dtype[1:]}-{'x'.join(map(str, shape)) or 'scalar'}", np.zeros(shape, dtype=dtype) + 1))
    arrays.append(("fortran", np.asfortranarray(np.arange(6, dtype="<f4").reshape(2, 3))))
    count = 0
    for name, a in arrays:
        for version in [(1, 0), (2, 0), (3, 0)]:
            buf = io.BytesIO()
            np.lib.format.write_array(buf, a, version=version, allow_pickle=False)
            write(out, f"{name}-v{version[0]}.npy", buf.getvalue())
            count += 1
    return count


def main():
    target, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if target == "onnx_import":
        n = onnx_seeds(out, sys.argv[3] if len(sys.argv) > 3 else None)
    elif target == "npy":
        n = npy_seeds(out)
    else:
        sys.exit(f"no seeds for {target} here")
    print(f"{target}: {n} seeds in {out}")


if __name__ == "__main__":
    main()
