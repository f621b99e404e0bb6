"""proactivebench: its native layout read (loader) and written (writer), and its hooks for the registry."""
