"""The spec's first example (https://www.w3.org/TR/webnn/#api-mlcontext-dispatch-examples) in
Python: C = 0.2 * A + B, with reusable tensors."""

import numpy as np

import webnn


def main() -> None:
    descriptor = {"dataType": "float32", "shape": [2, 2]}
    context = webnn.ml.create_context()
    builder = webnn.MLGraphBuilder(context)

    # 1. Create a computational graph 'C = 0.2 * A + B'.
    constant = builder.constant(descriptor, np.full(4, 0.2, np.float32))
    a = builder.input("A", descriptor)
    b = builder.input("B", descriptor)
    c = builder.add(builder.mul(a, constant), b)

    # 2. Compile the graph.
    graph = builder.build({"C": c})

    # 3. Create reusable input and output tensors.
    input_a = context.create_tensor(a.data_type, a.shape, writable=True)
    input_b = context.create_tensor(b.data_type, b.shape, writable=True)
    output_c = context.create_tensor(c.data_type, c.shape, readable=True)

    # 4. Initialize the inputs.
    context.write_tensor(input_a, np.full((2, 2), 1.0, np.float32))
    context.write_tensor(input_b, np.full((2, 2), 0.8, np.float32))

    # 5. Execute the graph.
    context.dispatch(graph, {"A": input_a, "B": input_b}, {"C": output_c})

    # 6. Read back the computed result.
    result = context.read_tensor(output_c)
    print("Output value:", result.ravel().tolist())  # [1.0, 1.0, 1.0, 1.0]

    # Or all of it in one call.
    outputs = context.compute(graph, {"A": np.ones((2, 2), np.float32), "B": np.full((2, 2), 0.8, np.float32)})
    print("compute():", outputs["C"].ravel().tolist())


if __name__ == "__main__":
    main()
