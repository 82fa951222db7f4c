"""Software deployments (seed 002): the rules, with no I/O.

What a software config and a deployment hold (records), what a server is
sent about its deployments (metadata), what a signal from a server means
(signals), and how credentials are made and checked (credentials). The
database side is conv_tasks.db.deployments; the tasks that serve servers
are the engine's features/deployments. Nothing here opens a connection.
"""
