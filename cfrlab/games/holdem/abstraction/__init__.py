"""Limit hold'em's card abstraction: E[HS^2] strength, buckets, the abstract game and its tables, built and cached."""
