"""The course: notebooks, lessons, exercises, the learner's workspace, committed outputs, the
browser, the install, pictures and widgets, compare-torch and bench."""
