"""Command-line interface. Each module is one command group; none holds decision logic."""
