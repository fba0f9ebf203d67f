"""A tiny shop."""
VERSION = "1.0"
