"""Op-by-op parity with torch 2.13: values, dtypes, strides, memory, gradients, graphs."""
