"""What leaves the core: SVG badges, receipts, downloads and the published methodology text.

May import: every subpackage except the command line.
"""
