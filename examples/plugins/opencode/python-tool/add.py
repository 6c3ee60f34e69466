#!/usr/bin/env python3
"""Prints the sum of two numbers given as arguments (called by index.js through `$`)."""
import sys

a, b = (float(x) for x in sys.argv[1:3])
total = a + b
print(int(total) if total.is_integer() else total)
