"""The contract every layer shares: the runs schema and statuses, the policy and its constants, the
operator's limits, the hardened JSON reader and the spellings of numbers and file names.

May import: the standard library and numpy/pandas/pyarrow only (no other scoring subpackage).
"""
