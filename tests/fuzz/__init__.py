"""The differential fuzzer: random small programs run under torch and under the engine.

generator.py writes a program (``generate(seed)``), observe.py runs it and turns what a learner
would see into text, worker.py runs observe.py in one long-lived process per library,
compare.py classifies the two texts, shrink.py reduces a failing program, known.py lists the
differences already known, run.py is the command line (``python -m tests.fuzz.run``).
"""
