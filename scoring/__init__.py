"""Pure metrics, one module per benchmark; no UI, no I/O beyond loading."""
