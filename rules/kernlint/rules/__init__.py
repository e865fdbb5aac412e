"""kernlint's rules: one module per rule, each defining one Rule subclass.

The registry (kernlint.registry.all_rules) imports every module here; adding
a rule is adding a file.
"""
