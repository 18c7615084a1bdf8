"""Where live state is read and written: a Kubernetes API server."""
