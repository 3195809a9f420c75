"""Op-by-op parity with torch 2.15: values, dtypes, strides, memory, gradients, graphs."""
