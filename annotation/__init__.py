"""Data layer: data model, native-format loaders and writers, the SQLite store."""
