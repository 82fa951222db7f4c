"""The conv-tasks command line, in the style of `openstack stack ...`."""
