#!/usr/bin/env python3
"""Writes onnx's backend node tests in the usual on-disk layout.

Recent `onnx` wheels no longer ship `onnx/backend/test/data/node`; the test cases are still in
the wheel as Python generators (`onnx.backend.test.case.node`). This script runs them and writes
`<out>/node/<test>/{model.onnx,test_data_set_0/{input,output}_<i>.pb}` exactly as the onnx
repository's `cmd_tools generate-data` did for node tests.

Usage: python3 gen_node_data.py OUT_DIR
"""
import os
import sys

import onnx.backend.test.case.node as node_cases
from onnx import TensorProto, numpy_helper


def write_value(path, value, name, value_type):
    if value_type.HasField("tensor_type"):
        proto = value if isinstance(value, TensorProto) else numpy_helper.from_array(value, name)
    elif value_type.HasField("sequence_type"):
        proto = numpy_helper.from_list(value, name)
    elif value_type.HasField("optional_type"):
        proto = numpy_helper.from_optional(value, name)
    elif value_type.HasField("map_type"):
        proto = numpy_helper.from_dict(value, name)
    else:
        return
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())


def main():
    out = os.path.join(sys.argv[1], "node")
    os.makedirs(out, exist_ok=True)
    count = 0
    for case in node_cases.collect_testcases():
        case_dir = os.path.join(out, case.name)
        os.makedirs(case_dir, exist_ok=True)
        with open(os.path.join(case_dir, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            data_dir = os.path.join(case_dir, f"test_data_set_{i}")
            os.makedirs(data_dir, exist_ok=True)
            graph = case.model.graph
            for j, value in enumerate(inputs):
                write_value(os.path.join(data_dir, f"input_{j}.pb"), value, graph.input[j].name, graph.input[j].type)
            for j, value in enumerate(outputs):
                write_value(os.path.join(data_dir, f"output_{j}.pb"), value, graph.output[j].name, graph.output[j].type)
        count += 1
    print(f"wrote {count} node tests to {out}")


if __name__ == "__main__":
    main()
