"""Bit-for-bit fidelity: printing, random numbers, golden values, tracebacks."""
