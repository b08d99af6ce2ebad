"""Shared test support: planted rule inputs and the bad-input table format of the conformance tests."""
