"""Reading untrusted runs into the validated table: files, Arrow, databases and the harness importers.

May import: scoring.contract.
"""
