"""Tests of conv_tasks/cli. commands/ and render/ mirror the package; the tests beside this
file drive the whole command line, most of them as the real `conv-tasks` executable.

This conftest.py (pytest puts its folder on sys.path) is also what lets the tests in
commands/ and render/ import cli_process, the helpers for running the executable.
"""
