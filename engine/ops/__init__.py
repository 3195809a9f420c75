"""The operations, one file per family; each op's forward function has its node class
(``XxxBackwardN``) right below it. ``methods.py`` attaches them to Tensor. See README.md.
"""
