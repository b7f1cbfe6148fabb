"""Test doubles that ship with the package so tests, benchmarks and other packages' tests can share them."""
