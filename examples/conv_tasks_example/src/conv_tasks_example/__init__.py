"""An example resource type package for conv_tasks: a schema in a PostgreSQL database.

It uses nothing of conv_tasks but its SDK (conv_tasks.sdk), and its tests nothing but the
conformance kit (conv_tasks.testing): the layout a package of your own would have.
"""

from conv_tasks_example.schema import SchemaResource

__all__ = ["SchemaResource"]
